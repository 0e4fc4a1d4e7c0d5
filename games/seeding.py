"""Chance event k's generator, made only if it is needed: its first uniform computed from the seed.

`np.random.default_rng(SeedSequence(seed, spawn_key=(1, k))).random()` costs about 13 us, most of
it making the SeedSequence and the PCG64; a measured table needs only that one number, once per
chance event. `FirstUniforms(seed)` mixes the seed's share of the SeedSequence's pool once; per k
it finishes numpy's mixing (SeedSequence's hashmix and mix of the spawn key's last word, then
generate_state(4, uint64)), seeds PCG64 with it and takes the first double as numpy does: the
same number, bit for bit (tests/test_match.py checks it against numpy), in about a third of the time.
"""
from __future__ import annotations

import numpy as np

M32, M64, M128 = (1 << 32) - 1, (1 << 64) - 1, (1 << 128) - 1
INIT_A, MULT_A, INIT_B, MULT_B = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED   # numpy's SeedSequence
MIX_MULT_L, MIX_MULT_R, XSHIFT, POOL_SIZE = 0xCA01F9DD, 0x4973F715, 16, 4
PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645                                      # numpy's PCG64
TO_DOUBLE = 1.0 / 9007199254740992.0


def _words(n: int) -> list[int]:
    """A non-negative int as uint32 words, least significant first (SeedSequence's coercion)."""
    out = [n & M32]
    n >>= 32
    while n:
        out.append(n & M32)
        n >>= 32
    return out


def _mix(x: int, y: int) -> int:
    r = (MIX_MULT_L * x - MIX_MULT_R * y) & M32
    return r ^ (r >> XSHIFT)


class _HashMix:
    """SeedSequence's hashmix, whose constant moves on with every call."""

    def __init__(self, const: int, mult: int):
        self.const, self.mult = const, mult

    def pair(self) -> tuple[int, int]:
        """(the constant xor-ed in, the one multiplied by) of the next call, and move on."""
        before = self.const
        self.const = (self.const * self.mult) & M32
        return before, self.const

    def __call__(self, value: int) -> int:
        x, m = self.pair()
        value = ((value ^ x) * m) & M32
        return value ^ (value >> XSHIFT)


def _generate_constants() -> tuple[tuple[int, int], ...]:
    """generate_state's 8 (xor, multiply) pairs for 4 uint64 words: the same for every seed."""
    h = _HashMix(INIT_B, MULT_B)
    return tuple(h.pair() for _ in range(2 * POOL_SIZE))


GENERATE = _generate_constants()


class FirstUniforms:
    """`first(k)`: the first `random()` of the Generator of SeedSequence(seed, spawn_key=(*prefix, k))."""

    def __init__(self, seed: int, prefix: tuple[int, ...] = (1,)):
        if seed < 0 or any(w < 0 or w > M32 for w in prefix):
            raise ValueError("FirstUniforms: the seed must be 0 or more and each prefix word a uint32")
        self.seed, self.prefix = int(seed), tuple(prefix)
        entropy = _words(self.seed)
        entropy += [0] * (POOL_SIZE - len(entropy))
        hashmix = _HashMix(INIT_A, MULT_A)
        pool = [hashmix(entropy[i]) for i in range(POOL_SIZE)]
        for src in range(POOL_SIZE):
            for dst in range(POOL_SIZE):
                if src != dst:
                    pool[dst] = _mix(pool[dst], hashmix(pool[src]))
        for word in entropy[POOL_SIZE:] + list(prefix):
            for dst in range(POOL_SIZE):
                pool[dst] = _mix(pool[dst], hashmix(word))
        self.pool = tuple(pool)
        self.last = tuple(zip(pool, (hashmix.pair() for _ in range(POOL_SIZE))))   # k's word mixes in

    def first(self, k: int) -> float:
        if not 0 <= k <= M32:          # a longer spawn key: numpy's own way
            return np.random.default_rng(np.random.SeedSequence(self.seed, spawn_key=(*self.prefix, k))).random()
        pool = []
        for p, (x, m) in self.last:       # hashmix(k), then mix (both written out: the hot path)
            v = ((k ^ x) * m) & M32
            r = (MIX_MULT_L * p - MIX_MULT_R * (v ^ (v >> XSHIFT))) & M32
            pool.append(r ^ (r >> XSHIFT))
        w = []
        for i, (x, m) in enumerate(GENERATE):
            v = ((pool[i & 3] ^ x) * m) & M32
            w.append(v ^ (v >> XSHIFT))
        initstate = (w[0] | w[1] << 32) << 64 | w[2] | w[3] << 32
        inc = (((w[4] | w[5] << 32) << 64 | w[6] | w[7] << 32) << 1 | 1) & M128
        state = ((inc + initstate) * PCG_MULT + inc) & M128       # srandom: step from 0, add, step
        state = (state * PCG_MULT + inc) & M128                   # the draw's step
        x, rot = ((state >> 64) ^ state) & M64, state >> 122      # XSL-RR output
        return ((((x >> rot) | (x << ((-rot) & 63))) & M64) >> 11) * TO_DOUBLE


class EventGenerator:
    """Stands in for chance event k's Generator (`make()` makes it) and makes it only if needed:
    a first `random()` is `first(k)`; any other use is the Generator's own, advanced past that
    number when it was taken, so every draw is the one the Generator itself would give."""

    __slots__ = ("_k", "_first", "_make", "_rng", "_taken")

    def __init__(self, k: int, first, make):
        self._k, self._first, self._make = k, first, make
        self._rng, self._taken = None, False

    @property
    def generator(self) -> np.random.Generator:
        if self._rng is None:
            self._rng = self._make(self._k)
            if self._taken:
                self._rng.random()
        return self._rng

    def random(self, *args, **kwargs):
        if self._rng is None and not self._taken and not args and not kwargs:
            self._taken = True
            return self._first(self._k)
        return self.generator.random(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self.generator, name)
