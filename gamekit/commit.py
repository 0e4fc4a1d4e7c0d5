"""Committed seeds: a game's chance drawn so that every throw can be checked, and none foreseen.

A game played on a server must let every client check each physical chance event by
re-simulating it, so the event's seed has to be published; but `GameSeeds(seed)` derives every
event's seed from the one game seed (tabletop.gamekit.match), so publishing an event's seed would
publish the game seed and with it every future event. `CommittedSeeds(secret)` has the same
interface (`.seats`, `.chance(k)`) and derives each event's seed on its own:

- the game's **secret** (at least 16 bytes, 32 random bytes recommended: `CommittedSeeds.new()`)
  stays with the server until the game ends;
- chance event k's **seed** and **salt** are HMAC-SHA256 values keyed by the secret: knowing
  any number of revealed seeds and salts tells nothing of another event's (HMAC is a keyed
  pseudo-random function: without the key its values are unpredictable, and no value reveals the
  key), so one reveal cannot be used to foresee the next throw;
- before event k is simulated, the server publishes its **commitment**, the SHA-256 of its seed
  and salt (the observer hook `MatchObserver.chance_ahead`); after the event it **reveals** the
  seed and salt; anyone checks the reveal against the commitment (`check_reveal`) and
  re-simulates the event from the revealed seed alone (`chance_generator`): same build, same
  outcome and poses, bit for bit;
- at the game's start the server may publish the **secret's commitment** (the SHA-256 of the
  secret, in the replay's header), and at its end the secret itself (the replay's end record):
  then anyone can check that every event's seed came from that one secret (`check_secret`,
  `derive_reveal`), fixed before the first decision, so no seed was chosen once the game was under way.

The byte layout (all hashes lowercase hex when written out; k an unsigned 64-bit big-endian
integer, written `u64be(k)`):

    seed(k)      = HMAC-SHA256(key=secret, msg=b"chance" + b"\\x00" + u64be(k))     32 bytes
    salt(k)      = HMAC-SHA256(key=secret, msg=b"salt" + b"\\x00" + u64be(k))       32 bytes
    seats seed   = HMAC-SHA256(key=secret, msg=b"seats" + b"\\x00")                 32 bytes
    commitment(k) = SHA-256(seed(k) + salt(k))          (64 bytes hashed: the seed, then the salt)
    secret commitment = SHA-256(secret)
    reveal(k)    = {"seed": hex(seed(k)), "salt": hex(salt(k))}

Event k's Generator is `numpy.random.default_rng(numpy.random.SeedSequence(n))` with n the seed
read as one unsigned big-endian integer (`chance_generator`); the seats' likewise from the seats
seed. Everything follows from the secret: the same secret gives the same game, the same
commitments and the same replay bytes (all but the file's recorded-at time).

A secret must be used for one game only, and must be unguessable (a low-entropy secret could be
found by trying candidates against any commitment).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets as _secrets
import struct

import numpy as np

SCHEME = "committed"        # the replay header's "seeds" of a game drawn from CommittedSeeds
MIN_SECRET_BYTES = 16
SEED_BYTES = 32
COMMITTED_SEEDS_DOC = (
    "committed: chance event k's seed = HMAC-SHA256(secret, b'chance\\x00' + u64be(k)), its salt = "
    "HMAC-SHA256(secret, b'salt\\x00' + u64be(k)); step commitment = SHA-256(seed + salt), reveal = "
    "{seed, salt} in hex; event k draws from default_rng(SeedSequence(int.from_bytes(seed, 'big'))); "
    "the seats from HMAC-SHA256(secret, b'seats\\x00') likewise; secret_commitment = SHA-256(secret), "
    "the secret in the end record (tabletop.gamekit.commit)")


def _mac(secret: bytes, label: bytes, k: int | None = None) -> bytes:
    msg = label + b"\x00" + (b"" if k is None else struct.pack(">Q", k))
    return hmac.new(secret, msg, hashlib.sha256).digest()


def _generator(seed: bytes) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(int.from_bytes(seed, "big")))


def commitment_of(seed: bytes, salt: bytes) -> str:
    """The commitment of an event's `seed` and `salt` (bytes): SHA-256(seed + salt), hex."""
    return hashlib.sha256(bytes(seed) + bytes(salt)).hexdigest()


def secret_commitment(secret: bytes) -> str:
    """The commitment of a game's secret: SHA-256(secret), hex."""
    return hashlib.sha256(bytes(secret)).hexdigest()


def _hex_bytes(value, size: int | None = SEED_BYTES) -> bytes | None:
    """The bytes of a hex string of `size` bytes (any size: None), or None when it is not one."""
    if not isinstance(value, str) or (size is not None and len(value) != 2 * size):
        return None
    try:
        return bytes.fromhex(value)
    except ValueError:
        return None


def check_reveal(commitment, reveal) -> bool:
    """Whether `reveal` ({"seed": hex, "salt": hex}, 32 bytes each) is what `commitment` (hex)
    committed to. Anything malformed is False, never an exception (it may come off the network)."""
    if not isinstance(reveal, dict) or not isinstance(commitment, str):
        return False
    seed, salt = _hex_bytes(reveal.get("seed")), _hex_bytes(reveal.get("salt"))
    if seed is None or salt is None:
        return False
    return hmac.compare_digest(commitment_of(seed, salt), commitment.lower())


def chance_generator(seed_hex: str) -> np.random.Generator:
    """The Generator of a chance event from its revealed seed alone (hex, 32 bytes): what
    `CommittedSeeds.chance(k)` gave the game. ValueError when it is not such a seed."""
    seed = _hex_bytes(seed_hex)
    if seed is None:
        raise ValueError(f"a revealed seed is 64 hex digits, not {seed_hex!r}")
    return _generator(seed)


def derive_reveal(secret: bytes, k: int) -> dict:
    """The reveal of chance event k of the game whose secret is `secret`."""
    return {"seed": _mac(secret, b"chance", k).hex(), "salt": _mac(secret, b"salt", k).hex()}


def check_secret(secret_hex, commitment) -> bytes | None:
    """The secret (bytes) when `secret_hex` is one that `commitment` (its SHA-256, hex) committed
    to; None otherwise (malformed input included)."""
    secret = _hex_bytes(secret_hex, None)
    if secret is None or not isinstance(commitment, str) or len(secret) < MIN_SECRET_BYTES:
        return None
    return secret if hmac.compare_digest(secret_commitment(secret), commitment.lower()) else None


class CommittedSeeds:
    """A game's generators drawn from a `secret`, the interface of tabletop.gamekit.match.GameSeeds
    (`seats`, `chance(k)`), with each chance event's seed committed before it is drawn and
    revealable after (`commitment(k)`, `reveal(k)`) without revealing any other's."""

    scheme = SCHEME

    def __init__(self, secret: bytes):
        if not isinstance(secret, (bytes, bytearray)) or len(secret) < MIN_SECRET_BYTES:
            raise ValueError(f"a game's secret is at least {MIN_SECRET_BYTES} bytes "
                             f"(CommittedSeeds.new() makes 32 random ones)")
        self.secret = bytes(secret)
        self.seats = _generator(_mac(self.secret, b"seats"))

    @classmethod
    def new(cls) -> "CommittedSeeds":
        """A game with a fresh secret of 32 random bytes (the operating system's)."""
        return cls(_secrets.token_bytes(32))

    @property
    def secret_commitment(self) -> str:
        """SHA-256(secret), hex: published at the start, it fixes every seed of the game."""
        return secret_commitment(self.secret)

    def seed_bytes(self, k: int) -> bytes:
        return _mac(self.secret, b"chance", k)

    def salt_bytes(self, k: int) -> bytes:
        return _mac(self.secret, b"salt", k)

    def chance(self, k: int) -> np.random.Generator:
        """The generator of the game's chance event k (0 the first): from its seed alone."""
        return _generator(self.seed_bytes(k))

    def commitment(self, k: int) -> str:
        """What to publish before chance event k: SHA-256(seed(k) + salt(k)), hex."""
        return commitment_of(self.seed_bytes(k), self.salt_bytes(k))

    def reveal(self, k: int) -> dict:
        """What to publish once chance event k is over: {"seed": hex, "salt": hex}."""
        return derive_reveal(self.secret, k)
