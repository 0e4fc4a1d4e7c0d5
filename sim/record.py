"""Replay files: a recorded game or run of trials as one append-only file; playback needs no PyBullet.

Layout (all integers little-endian; docs/replay-format.md has the details and the reasons):

    prelude   16 bytes magic b"TABLETOP-REPLAY\\n", u16 format version, u16 flags (0),
              i64 recorded_at (Unix time in ms: the only field that differs between two
              recordings of the same seed)
    chunks    u8 kind, u32 payload length, u32 CRC32 (of kind, length and payload), payload

Chunk kinds: H the header (first, exactly once), L look definitions, T one finished turn (or
one trial), E the end record (last, at most once). H, L and E payloads are zlib-compressed
canonical JSON. A T payload is u32 n + zlib(JSON log) of n bytes + zlib(frames), so the log of a
turn (its actions and log lines) decodes without its pose frames. A motion's contact events (the
window's sounds: tabletop.sim.motion.ContactEvent) ride in its metadata in the log, optional and
outside `motion_bytes`, so that no hash of a motion covers them.

Each chunk is written whole and flushed as soon as its turn is finished, so a file cut at any
byte (a crash, a kill) opens with a warning and every turn before the cut. A complete chunk whose
CRC fails is corruption, an error: a replay is a record, and a damaged record is not guessed at.
So is a chunk whose length field runs past the end of the file while whole chunks follow it (or
whose CRC holds for exactly the bytes left): a damaged length, never read as a file cut short.

Reader API, for the window and the command line::

    replay = ReplayFile.open(path)      # InputError with one line when it cannot be read
    replay.header                       # dict: program, kind ("game" or "trials"), config, seed,
                                        # versions, banner, initial_events, scene {looks, poses}
    replay.warnings                     # e.g. ["... truncated after turn 41 ..."]
    replay.end                          # the end record {"lines", "result"}, None when cut off
    for turn in replay.turns:           # lazily decoded: opening walks chunk headers only
        turn.number, turn.steps         # steps: [{"action", "events", "chance"?, "motion"?}] (a committed
                                        # game's chance steps also "commitment", "reveal", "motion_sha256"?)
        turn.actions, turn.events       # the encoded actions (tabletop.gamekit.replay decodes them), log lines
        turn.motions                    # [Motion.as_dict()-shaped dicts]: rate, times, frames, looks,
                                        # contacts (a motion recorded without them: [])
    replay.playback_seconds()           # playback time at 1x (see MOVE_ANIMATION_S)

`tabletop.sim.motion.Motion.from_dict(d)` turns a motion dict into a Motion. Writing:
`ReplayWriter(path, header)`, then `add_turn(log, motions)` per finished turn, then
`finish(end)`; `close()` without `finish` leaves a file that reads as cut off.
"""
from __future__ import annotations

import hashlib
import json
import os
import struct
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import numpy as np

from tabletop.sim.errors import InputError
from tabletop.sim.motion import CONTACT_KINDS, ContactEvent

MAGIC = b"TABLETOP-REPLAY\n"
VERSION = 3                            # the newest version read (and written for committed games)
# 2: one chunk per game turn, chance event k seeded on its own (every file but a committed game's);
# 3: a game whose chance seeds are committed (tabletop.gamekit.commit): its header's seeds are
#    "committed" and its chance steps carry commitment and reveal; a version-2 reader would
#    re-simulate them from the header's seed and report a difference, so it is refused instead
SEEDED_VERSION = 2
COMMITTED_VERSION = 3
PRELUDE = struct.Struct("<16sHHq")     # magic, version, flags, recorded_at (ms)
CHUNK = struct.Struct("<BII")          # kind, payload length, CRC32
RECORDED_AT = slice(20, 28)            # byte range of the timestamp in the prelude

HEADER, LOOKS, TURN, END = b"H"[0], b"L"[0], b"T"[0], b"E"[0]
KIND_NAMES = {HEADER: "header", LOOKS: "looks", TURN: "turn", END: "end"}

POSITION_UNIT = 1e-5        # metres per stored position unit (0.01 mm)
QUATERNION_SCALE = 32767    # stored quaternion component = round(q * 32767)
TIME_UNIT = 1e-6            # seconds per stored time unit
MOVE_ANIMATION_S = 0.6      # playback time of a decision action (a piece hopping seat to seat)
ZLIB_LEVEL = 9


def _dumps(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), allow_nan=False).encode()


def look_digest(look: dict) -> str:
    return hashlib.sha256(_dumps(look)).hexdigest()[:16]


# -- pose frames ------------------------------------------------------------------------------
@dataclass
class QuantizedMotion:
    """A Motion in stored units: times in microseconds; per frame a list of (track index,
    None or 7 ints: positions in POSITION_UNIT, quaternion components times QUATERNION_SCALE)."""

    rate: float
    tracks: list[str]
    times: list[int]
    frames: list[list[tuple[int, tuple[int, ...] | None]]]
    looks: dict[str, str] = field(default_factory=dict)    # body -> look digest
    contacts: list[ContactEvent] = field(default_factory=list)   # already in stored units; not in motion_bytes

    @property
    def entries(self) -> int:
        return sum(len(f) for f in self.frames)

    def pose_count(self) -> int:
        return sum(1 for f in self.frames for _, p in f if p is not None)


def quantize_pose(pose: Sequence[float]) -> tuple[int, ...]:
    return tuple(quantize_poses(np.asarray([pose], float))[0].tolist())


def quantize_poses(poses: np.ndarray) -> np.ndarray:
    """(n, 7) float poses -> (n, 7) int64 in stored units."""
    out = np.empty(poses.shape, np.int64)
    out[:, :3] = np.rint(poses[:, :3] / POSITION_UNIT)
    out[:, 3:] = np.rint(poses[:, 3:] * QUATERNION_SCALE)
    return out


def dequantize_pose(q: Sequence[int]) -> tuple[float, ...]:
    return (*(v * POSITION_UNIT for v in q[:3]), *(v / QUATERNION_SCALE for v in q[3:]))


def quantize_motion(motion, digests: dict[str, str] | None = None) -> QuantizedMotion:
    """A Motion (anything with rate, times, frames, looks) in stored units; `digests` maps the
    motion's bodies to their look digests."""
    tracks: list[str] = []
    index: dict[str, int] = {}
    rows: list[list[tuple[int, int | None]]] = []
    poses: list = []
    for frame in motion.frames:
        row = []
        for track, pose in frame.items():
            i = index.get(track)
            if i is None:
                i = index[track] = len(tracks)
                tracks.append(track)
            if pose is None:
                row.append((i, None))
            else:
                row.append((i, len(poses)))
                poses.append(pose)
        rows.append(row)
    q = quantize_poses(np.asarray(poses, float).reshape(-1, 7)).tolist()
    frames = [[(i, None if k is None else tuple(q[k])) for i, k in row] for row in rows]
    times = [int(round(t / TIME_UNIT)) for t in motion.times]
    return QuantizedMotion(float(motion.rate), tracks, times, frames, dict(digests or {}),
                           list(getattr(motion, "contacts", ())))


def _zigzag(v: np.ndarray) -> np.ndarray:
    if v.size and (v.max() >= 2 ** 31 or v.min() < -2 ** 31):
        raise ValueError("a pose or time step too large for a replay file (a body far off the table?)")
    return ((v << 1) ^ (v >> 63)).astype("<u4")


def _unzigzag(u: np.ndarray) -> np.ndarray:
    u = u.astype(np.int64)
    return (u >> 1) ^ -(u & 1)


def _residuals(d: np.ndarray) -> np.ndarray:
    """Second-order prediction along axis 0: r0 = d0, r1 = d1 - d0, rk = dk - 2 d(k-1) + d(k-2)."""
    e = np.diff(d, axis=0, prepend=np.zeros((1, d.shape[1]), d.dtype))
    r = e.copy()
    r[2:] = e[2:] - e[1:-1]
    return r


def _integrate(r: np.ndarray) -> np.ndarray:
    e = r.copy()
    if len(e) > 1:
        e[1:] = np.cumsum(r[1:], axis=0)
    return np.cumsum(e, axis=0)


def _encode_motion(m: QuantizedMotion) -> np.ndarray:
    """Stored integers of one motion: time steps, counts, track codes, pose residuals by column."""
    times = np.diff(np.asarray(m.times, np.int64), prepend=0)
    counts = np.asarray([len(f) for f in m.frames], np.int64)
    codes = np.asarray([2 * i + (p is None) for f in m.frames for i, p in f], np.int64)
    tids = np.asarray([i for f in m.frames for i, p in f if p is not None], np.int64)
    poses = np.asarray([p for f in m.frames for _, p in f if p is not None], np.int64).reshape(-1, 7)
    res = np.empty_like(poses)
    for t in np.unique(tids):
        rows = np.flatnonzero(tids == t)
        res[rows] = _residuals(poses[rows])
    return np.concatenate([times, counts, codes, res.T.reshape(-1)])


def _decode_motion(u: np.ndarray, meta: dict) -> QuantizedMotion:
    n_frames, n_entries, n_poses = meta["frames"], meta["entries"], meta["poses"]
    v = _unzigzag(u)
    times = np.cumsum(v[:n_frames]).tolist()
    counts = v[n_frames:2 * n_frames]
    codes = v[2 * n_frames:2 * n_frames + n_entries]
    res = v[2 * n_frames + n_entries:].reshape(7, n_poses).T
    if int(counts.sum()) != n_entries or len(res) != n_poses or int((codes % 2 == 0).sum()) != n_poses:
        raise ValueError("frame counts do not add up")
    tracks = meta["tracks"]
    if codes.size and int(codes.max()) // 2 >= len(tracks):
        raise ValueError("a frame names a track the motion does not have")
    shown = codes % 2 == 0
    tids = codes[shown] // 2
    poses = np.empty_like(res)
    for t in np.unique(tids):
        rows = np.flatnonzero(tids == t)
        poses[rows] = _integrate(res[rows])
    pose_rows = iter(poses.tolist())
    frames, k = [], 0
    code_list = codes.tolist()
    for c in counts.tolist():
        frames.append([(code // 2, None if code % 2 else tuple(next(pose_rows))) for code in code_list[k:k + c]])
        k += c
    return QuantizedMotion(float(meta["rate"]), list(tracks), times, frames, dict(meta.get("looks", {})))


def motion_bytes(m: QuantizedMotion) -> bytes:
    """A motion's stored integers as hashed: the uint32 vector its part of a T chunk's frames holds
    before the byte planes (times, counts, track codes, pose residuals, zigzag-encoded), little-endian."""
    return _zigzag(_encode_motion(m)).astype("<u4").tobytes()


def motion_sha256(m: QuantizedMotion) -> str:
    """SHA-256 (hex) of `motion_bytes`. Equal hashes, equal frame times, tracks (by index) and
    quantized poses."""
    return hashlib.sha256(motion_bytes(m)).hexdigest()


def motion_meta(m: QuantizedMotion) -> dict:
    meta = {"rate": m.rate, "tracks": m.tracks, "frames": len(m.frames), "entries": m.entries,
            "poses": m.pose_count(), "duration": m.times[-1] * TIME_UNIT if m.times else 0.0, "looks": m.looks}
    if m.contacts:
        meta["contacts"] = pack_contacts(m.contacts)
    return meta


def pack_contacts(contacts: Sequence[ContactEvent]) -> dict:
    """A motion's contact events as stored in its metadata: {"pairs": [[material, material], ...]
    in order of first use, "events": flat ints, four per event: time step from the event before
    (us), 3 x pair index + kind index (CONTACT_KINDS), impulse, speed (their ContactEvent units)}."""
    pairs: list[tuple[str, str]] = []
    index: dict[tuple[str, str], int] = {}
    flat: list[int] = []
    last = 0
    for c in contacts:
        i = index.get(c.pair)
        if i is None:
            i = index[c.pair] = len(pairs)
            pairs.append(c.pair)
        flat += [c.t - last, 3 * i + CONTACT_KINDS.index(c.kind), c.impulse, c.speed]
        last = c.t
    return {"pairs": [list(p) for p in pairs], "events": flat}


def unpack_contacts(stored: dict) -> list[ContactEvent]:
    """`pack_contacts`' form back to ContactEvents (ValueError when it does not add up)."""
    pairs, flat = stored.get("pairs"), stored.get("events")
    if not (isinstance(pairs, list) and isinstance(flat, list) and len(flat) % 4 == 0
            and all(isinstance(p, list) and len(p) == 2 and all(isinstance(m, str) for m in p) for p in pairs)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in flat)):
        raise ValueError("contact events that are not pairs and whole numbers")
    out, t = [], 0
    for k in range(0, len(flat), 4):
        step, code, impulse, speed = flat[k:k + 4]
        if step < 0 or not 0 <= code < 3 * len(pairs):
            raise ValueError("a contact event out of order or naming no pair")
        t += step
        out.append(ContactEvent(t, CONTACT_KINDS[code % 3], tuple(pairs[code // 3]), impulse, speed))
    return out


def _shuffle(u: np.ndarray) -> bytes:
    """uint32 values as four byte planes (all low bytes, ..., all high bytes): small numbers leave
    the high planes zero, which zlib then stores in a few bytes."""
    return u.astype("<u4").view(np.uint8).reshape(-1, 4).T.tobytes()


def _unshuffle(b: bytes) -> np.ndarray:
    if len(b) % 4:
        raise ValueError("frame data is not whole 32-bit values")
    return np.frombuffer(b, np.uint8).reshape(4, -1).T.copy().view("<u4").reshape(-1)


def pack_turn(log: dict, motions: Sequence[QuantizedMotion]) -> bytes:
    """The payload of a T chunk: `log` (JSON-able) with "motions" metadata added, and the frames."""
    log = {**log, "motions": [motion_meta(m) for m in motions]}
    head = zlib.compress(_dumps(log), ZLIB_LEVEL)
    frames = b""
    if motions:
        u = np.concatenate([_zigzag(_encode_motion(m)) for m in motions])
        frames = zlib.compress(_shuffle(u), ZLIB_LEVEL)
    return struct.pack("<I", len(head)) + head + frames


def unpack_turn_log(payload: bytes) -> dict:
    (n,) = struct.unpack_from("<I", payload)
    log = json.loads(zlib.decompress(payload[4:4 + n]))
    if not isinstance(log, dict) or not isinstance(log.get("steps"), list) or not isinstance(log.get("motions"), list):
        raise ValueError("a turn without steps")
    if not isinstance(log.get("turn", 0), int):
        raise ValueError("a turn number that is not a whole number")
    for step in log["steps"]:
        if not isinstance(step, dict) or not all(isinstance(e, str) for e in _list(step.get("events", []))):
            raise ValueError("a step that is not an action with log lines")
    for meta in log["motions"]:
        if not (isinstance(meta, dict) and all(isinstance(meta.get(k), int) and meta[k] >= 0
                                               for k in ("frames", "entries", "poses"))
                and isinstance(meta.get("rate"), (int, float)) and isinstance(meta.get("duration"), (int, float))
                and all(isinstance(t, str) for t in _list(meta.get("tracks")))
                and isinstance(meta.get("looks"), dict)):
            raise ValueError("a motion without its frame counts")
        if "contacts" in meta and not isinstance(meta["contacts"], dict):
            raise ValueError("a motion's contact events that are not an object")
    return log


def _list(value) -> list:
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {type(value).__name__}")
    return value


def unpack_turn_motions(payload: bytes, log: dict) -> list[QuantizedMotion]:
    (n,) = struct.unpack_from("<I", payload)
    metas = log["motions"]
    if not metas:
        return []
    u = _unshuffle(zlib.decompress(payload[4 + n:]))
    out, k = [], 0
    for meta in metas:
        size = 2 * meta["frames"] + meta["entries"] + 7 * meta["poses"]
        motion = _decode_motion(u[k:k + size], meta)
        if "contacts" in meta:
            motion.contacts = unpack_contacts(meta["contacts"])
        out.append(motion)
        k += size
    if k != len(u):
        raise ValueError("frame data longer than its motions")
    return out


# -- chunks -----------------------------------------------------------------------------------
def chunk(kind: int, payload: bytes) -> bytes:
    head = struct.pack("<BI", kind, len(payload))
    return head + struct.pack("<I", zlib.crc32(payload, zlib.crc32(head))) + payload


def json_chunk(kind: int, obj) -> bytes:
    return chunk(kind, zlib.compress(_dumps(obj), ZLIB_LEVEL))


def prelude(recorded_at: float | None = None, version: int = SEEDED_VERSION) -> bytes:
    ms = int(round((time.time() if recorded_at is None else recorded_at) * 1000))
    return PRELUDE.pack(MAGIC, version, 0, ms)


class ReplayWriter:
    """Writes a replay append-only: the header at once, then each finished turn as one flushed chunk.
    An existing file at `path` is replaced. `version`: the format version the prelude says
    (COMMITTED_VERSION for a game drawn from committed seeds)."""

    def __init__(self, path: str | Path, header: dict, recorded_at: float | None = None,
                 version: int = SEEDED_VERSION):
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)   # the default replays/ folder, made on first use
            self._fh = open(self.path, "wb")
        except OSError as exc:
            raise InputError(f"cannot write the replay {self.path}: {exc.strerror}") from None
        self._known: set[str] = set()
        self.turns = 0
        self._write(prelude(recorded_at, version) + json_chunk(HEADER, header))

    def _write(self, data: bytes) -> None:
        self._fh.write(data)
        self._fh.flush()

    def add_turn(self, log: dict, motions: Sequence = ()) -> None:
        """One finished turn: `log` (JSON-able: "turn" number, "steps"), and its Motions."""
        new_looks: dict[str, dict] = {}
        quantized = []
        for motion in motions:
            digests = {}
            for body, look in motion.looks.items():
                d = digests[body] = look_digest(look)
                if d not in self._known:
                    new_looks[d] = look
            quantized.append(quantize_motion(motion, digests))
        data = json_chunk(LOOKS, new_looks) if new_looks else b""
        self._write(data + chunk(TURN, pack_turn(log, quantized)))
        self._known.update(new_looks)
        self.turns += 1

    def copy_turns(self, looks: dict[str, dict], payloads: Sequence[bytes]) -> None:
        """Turns of another replay, chunk for chunk (their T payloads as read, motions included),
        with the `looks` they name (digest -> look: the other replay's `looks`): a game taken up
        again starts with the turns it was taken up from."""
        new_looks = {d: look for d, look in looks.items() if d not in self._known}
        data = json_chunk(LOOKS, new_looks) if new_looks else b""
        self._write(data + b"".join(chunk(TURN, payload) for payload in payloads))
        self._known.update(new_looks)
        self.turns += len(payloads)

    def move_to(self, path: str | Path) -> None:
        """Rename the file being written to `path` (replacing what is there, in one step) and go
        on writing it: a file written first under a temporary name takes its place only once its
        opening part is whole."""
        self._fh.flush()
        os.fsync(self._fh.fileno())
        os.replace(self.path, path)
        self.path = Path(path)

    def finish(self, end: dict) -> None:
        """The end record (result lines and result), then close."""
        self._write(json_chunk(END, end))
        self.close()

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()


# -- reading ----------------------------------------------------------------------------------
class Turn:
    """One T chunk of an open replay: decoded on first use of its log or its frames."""

    def __init__(self, path: Path, data: bytes, ordinal: int, chunk_no: int, start: int, end: int):
        self._path, self._data = path, data
        self._replay: ReplayFile | None = None       # set once the file is open (for its looks)
        self.ordinal = ordinal          # 0, 1, 2, ... among the file's turns
        self.chunk_no = chunk_no        # 0 is the header
        self.span = (start, end)      # the payload's byte range in the file
        self._log: dict | None = None
        self._motions: list[QuantizedMotion] | None = None

    @property
    def payload(self) -> bytes:
        a, b = self.span
        return bytes(self._data[a:b])

    def _corrupt(self, exc: Exception) -> InputError:
        return InputError(f"{self._path}: corrupt replay: turn chunk {self.chunk_no} cannot be "
                          f"decoded ({type(exc).__name__}: {exc})")

    @property
    def log(self) -> dict:
        if self._log is None:
            try:
                self._log = unpack_turn_log(self.payload)
            except (ValueError, zlib.error, struct.error, TypeError) as exc:
                raise self._corrupt(exc) from None
        return self._log

    @property
    def number(self) -> int:
        return int(self.log.get("turn", self.ordinal))

    @property
    def steps(self) -> list[dict]:
        return self.log["steps"]

    @property
    def actions(self) -> list:
        return [s["action"] for s in self.steps if "action" in s]

    @property
    def events(self) -> list[str]:
        return [line for s in self.steps for line in s.get("events", ())]

    @property
    def duration(self) -> float:
        """Playback time of this turn at 1x: its motions plus MOVE_ANIMATION_S per decision action."""
        moves = sum(1 for s in self.steps if "action" in s and "chance" not in s)
        return sum(m["duration"] for m in self.log["motions"]) + MOVE_ANIMATION_S * moves

    def quantized_motions(self) -> list[QuantizedMotion]:
        if self._motions is None:
            try:
                self._motions = unpack_turn_motions(self.payload, self.log)
            except (ValueError, zlib.error, struct.error, KeyError, TypeError, IndexError) as exc:
                raise self._corrupt(exc) from None
        return self._motions

    @property
    def motions(self) -> list[dict]:
        """This turn's Motions in `Motion.as_dict()` form, poses in metres and unit quaternions."""
        looks = self._replay.looks
        out = []
        for m in self.quantized_motions():
            try:
                body_looks = {body: looks[d] for body, d in m.looks.items()}
            except KeyError as exc:
                raise self._corrupt(ValueError(f"look {exc} is not defined")) from None
            out.append({"rate": m.rate, "times": [t * TIME_UNIT for t in m.times],
                        "frames": [{m.tracks[i]: (None if p is None else list(dequantize_pose(p)))
                                    for i, p in frame} for frame in m.frames],
                        "looks": body_looks, "contacts": [c.as_list() for c in m.contacts]})
        return out


class ReplayFile:
    """An open replay: header, turns (lazily decoded), end record and warnings."""

    def __init__(self, path: Path, data: bytes, version: int, recorded_at: float, header: dict,
                 turns: list[Turn], end: dict | None, look_spans: list[tuple[int, int]], warnings: list[str]):
        self.path, self._data, self.version, self.recorded_at = path, data, version, recorded_at
        self.header, self.turns, self.end, self.warnings = header, turns, end, warnings
        self._look_spans = look_spans
        self._looks: dict[str, dict] | None = None

    @property
    def size(self) -> int:
        return len(self._data)

    @property
    def complete(self) -> bool:
        return self.end is not None

    @property
    def looks(self) -> dict[str, dict]:
        """Look digest -> look, from every L chunk (decoded on first use)."""
        if self._looks is None:
            looks: dict[str, dict] = {}
            for a, b in self._look_spans:
                try:
                    looks.update(_json_payload(self._data[a:b]))
                except (ValueError, zlib.error, TypeError) as exc:
                    raise InputError(f"{self.path}: corrupt replay: a looks chunk cannot be decoded ({exc})") from None
            self._looks = looks
        return self._looks

    def playback_seconds(self) -> float:
        return sum(t.duration for t in self.turns)

    @classmethod
    def open(cls, path: str | Path) -> "ReplayFile":
        """Open and check a replay; InputError (one line) when it is not a readable replay."""
        path = Path(path)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise InputError(f"replay not found: {path}") from None
        except IsADirectoryError:
            raise InputError(f"{path} is a folder, not a replay file") from None
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror}") from None
        return cls.from_bytes(path, data)

    @classmethod
    def from_bytes(cls, path: Path, data: bytes) -> "ReplayFile":
        if not data:
            raise InputError(f"{path}: empty file, not a tabletop replay")
        if len(data) < PRELUDE.size:
            if MAGIC.startswith(data[:len(MAGIC)]):
                raise InputError(f"{path}: replay truncated inside its header ({len(data)} bytes): nothing to play")
            raise InputError(f"{path}: not a tabletop replay (it does not start with {MAGIC[:-1].decode()})")
        magic, version, _flags, ms = PRELUDE.unpack_from(data)
        if magic != MAGIC:
            raise InputError(f"{path}: not a tabletop replay (it does not start with {MAGIC[:-1].decode()})")
        if version > VERSION:
            raise InputError(f"{path}: replay format version {version} is newer than this tabletop reads "
                             f"(up to {VERSION}): update tabletop to open it")
        if version < 1:
            raise InputError(f"{path}: corrupt replay: format version {version} does not exist")
        view = memoryview(data)
        pos, chunk_no = PRELUDE.size, 0
        header, end = None, None
        turns: list[Turn] = []
        looks: list[tuple[int, int]] = []
        warnings: list[str] = []
        while pos < len(data):
            if len(data) - pos < CHUNK.size or len(data) - pos - CHUNK.size < CHUNK.unpack_from(data, pos)[1]:
                if header is None:
                    raise InputError(f"{path}: replay truncated inside its header ({len(data)} bytes): "
                                     "nothing to play")
                damage = _damaged_length(data, pos)
                if damage is not None:
                    where = f"chunk {chunk_no} at byte {pos}" + (f", after turn {turns[-1].number}" if turns else
                                                                 ", before the first turn")
                    raise InputError(f"{path}: corrupt replay: {where}: {damage}")
                warnings.append(cls._cut_warning(path, turns, len(data) - pos))
                break
            kind, length, crc = CHUNK.unpack_from(data, pos)
            start, stop = pos + CHUNK.size, pos + CHUNK.size + length
            if zlib.crc32(view[start:stop], zlib.crc32(view[pos:pos + 5])) != crc:
                where = "its header" if chunk_no == 0 else (
                    f"chunk {chunk_no} at byte {pos}" + (f", after turn {turns[-1].number}" if turns else
                                                         ", before the first turn"))
                raise InputError(f"{path}: corrupt replay: {where} fails its CRC check")
            if chunk_no == 0:
                if kind != HEADER:
                    raise InputError(f"{path}: corrupt replay: it does not begin with a header chunk")
                try:
                    header = _json_payload(view[start:stop])
                    if not isinstance(header, dict):
                        raise ValueError("not an object")
                except (ValueError, zlib.error) as exc:
                    raise InputError(f"{path}: corrupt replay: its header cannot be decoded ({exc})") from None
            elif end is not None:
                raise InputError(f"{path}: corrupt replay: chunk {chunk_no} at byte {pos} follows the end record")
            elif kind == TURN:
                turns.append(Turn(path, data, len(turns), chunk_no, start, stop))
            elif kind == LOOKS:
                looks.append((start, stop))
            elif kind == END:
                try:
                    end = _json_payload(view[start:stop])
                    if not isinstance(end, dict):
                        raise ValueError("not an object")
                except (ValueError, zlib.error) as exc:
                    raise InputError(f"{path}: corrupt replay: its end record cannot be decoded ({exc})") from None
            else:
                raise InputError(f"{path}: corrupt replay: chunk {chunk_no} at byte {pos} has unknown kind {kind}")
            pos, chunk_no = stop, chunk_no + 1
        else:
            if header is None:
                raise InputError(f"{path}: replay truncated inside its header ({len(data)} bytes): nothing to play")
            if end is None:
                warnings.append(cls._cut_warning(path, turns, 0))
        replay = cls(path, data, version, ms / 1000.0, header, turns, end, looks, warnings)
        for t in turns:
            t._replay = replay
        if warnings and turns:   # name the last whole turn by its number
            replay.warnings = [w.replace("{last}", str(turns[-1].number)) for w in warnings]
        return replay

    @staticmethod
    def _cut_warning(path: Path, turns: list[Turn], dropped: int) -> str:
        where = "after turn {last}" if turns else "before the first turn"
        tail = f"; {dropped} bytes of an unfinished chunk dropped" if dropped else ""
        return f"{path}: truncated {where} (the recording stops there, with no result{tail})"


def _json_payload(payload) -> object:
    return json.loads(zlib.decompress(payload))


def _whole_chunk_at(data: bytes, view, q: int) -> bool:
    """Whether a whole chunk of a known kind whose CRC holds begins at byte `q`."""
    if data[q] not in KIND_NAMES or len(data) - q < CHUNK.size:
        return False
    _, length, crc = CHUNK.unpack_from(data, q)
    stop = q + CHUNK.size + length
    return stop <= len(data) and zlib.crc32(view[q + CHUNK.size:stop], zlib.crc32(view[q:q + 5])) == crc


def _damaged_length(data: bytes, pos: int) -> str | None:
    """Why the chunk at `pos`, whose length field runs past the end of the file, is damaged
    rather than cut off (None where it may be cut off). A file cut short ends inside its last
    chunk; a chunk whose length field was damaged is followed by whole chunks (their CRCs hold),
    or, the last one, holds exactly the rest of the file with its CRC holding for that length."""
    view = memoryview(data)
    kind, length, crc = CHUNK.unpack_from(data, pos) if len(data) - pos >= CHUNK.size else (None, None, None)
    if kind is None:
        return None
    start = pos + CHUNK.size
    rest = len(data) - start
    as_whole = zlib.crc32(view[start:], zlib.crc32(struct.pack("<BI", kind, rest)))
    if as_whole == crc:
        return (f"its length field says {length} bytes, but its CRC holds for the {rest} bytes that follow it "
                f"to the end of the file: the length field is damaged (a file cut short ends inside its last chunk)")
    import re

    for found in re.compile(b"[" + bytes(sorted(KIND_NAMES)) + b"]").finditer(data, start):
        q = found.start()
        if _whole_chunk_at(data, view, q):
            return (f"its length field says {length} bytes, past the end of the file, but a whole "
                    f"{KIND_NAMES[data[q]]} chunk follows at byte {q}: the chunk is damaged, not cut off (a file "
                    f"cut short ends inside its last chunk)")
    return None
