"""Sounds from a motion's contact events: which sound, when and how loud, and its samples.

Renderer-free (numpy only): `sound_events` maps a Motion's contact events
(tabletop.sim.motion.ContactEvent, already in stored units, so a live throw and its replay give
the same ones) to `SoundEvent`s, and `mix` synthesises them into one mono PCM buffer at a
playback speed, for the window's audio (tabletop.sim.view.audio). Both are deterministic: the
noise of an event is seeded from the event itself.

The mapping (sound design, not physics: plausible values, chosen by ear, in this module):

- an impact's loudness is 20 log10(J / REFERENCE_IMPULSE) dB of full scale, J its normal impulse
  (0 dB: a 20 g throw stick landing at about 2 m/s); a slide's and a roll's is
  10 log10(P / REFERENCE_POWER) dB plus SLIDE_DB or ROLL_DB, P the power of the contact's normal
  force times its slip (slide) or rolling (roll) speed, the force its normal impulse over
  CONTACT_PERIOD; events under FLOOR_DB make no sound;
- impacts of one material pair within MERGE_S of each other are one impact (their impulses
  added); of the events that start in any DENSITY_S of the motion, the MAX_VOICES loudest sound.

Synthesis: an impact is modal, a few exponentially decaying sinusoids per material (`VOICES`:
frequency, decay time, amplitude), excited through the softer material's contact (a low-pass
at its `hardness`, a little brighter for a harder hit) and damped by the other (felt and
cardboard shorten every ring they touch), plus a click of noise as long as the contact; glass
rings bright and long, steel longer, hardwood and wood give a hollow knock, polystyrene a
click, cardboard a short dull thud, felt almost nothing. A slide is noise shaped by both
materials' modes and a band that rises with the slip speed; a roll, lower and quieter noise.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple, Sequence

import numpy as np

from tabletop.sim.motion import (CONTACT_KINDS, CONTACT_PERIOD, CONTACT_TIME_UNIT, IMPACT, IMPULSE_UNIT, ROLL, SLIDE,
                                 SPEED_UNIT, ContactEvent)

SAMPLE_RATE = 22050          # Hz, mono
REFERENCE_IMPULSE = 0.05     # N s: an impact of this impulse is 0 dB (full scale)
REFERENCE_POWER = 0.5        # W: a slide of this power (normal force x slip speed) is 0 dB + SLIDE_DB
SLIDE_DB = -10.0
ROLL_DB = -18.0
FLOOR_DB = -48.0             # quieter events make no sound
MERGE_S = 0.010              # impacts of one pair closer than this are one
DENSITY_S = 0.050            # ... and of the events starting in each such slice of time,
MAX_VOICES = 6               # only this many (the loudest) sound
MAX_RING_S = 1.2             # an impact's sound is cut after this long
HEADROOM = 0.5               # a 0 dB impact's peak before the volume (two at once stay under full scale)


class SoundEvent(NamedTuple):
    """One sound: `t` (s from the motion's start), `kind` (impact, slide, roll), `loudness` (dB of
    full scale, rounded to 0.1), `pair` (the two materials, sorted)."""

    t: float
    kind: str
    loudness: float
    pair: tuple[str, str]


@dataclass(frozen=True)
class Voice:
    """How a material sounds: `modes` (frequency Hz, decay time s, amplitude), `hardness` (Hz: the
    band a contact with it excites), `damping` (what it does to the other body's decay times:
    1 none, felt 0.15), `grain` (Hz: the centre of its sliding noise)."""

    modes: tuple[tuple[float, float, float], ...]
    hardness: float
    damping: float
    grain: float


VOICES: dict[str, Voice] = {
    # bright and ringing: a marble's "tink"
    "glass": Voice(((2350.0, 0.30, 1.0), (4150.0, 0.22, 0.7), (6300.0, 0.15, 0.5), (8700.0, 0.10, 0.3)),
                   9000.0, 1.0, 3500.0),
    "steel": Voice(((1900.0, 0.55, 1.0), (3400.0, 0.42, 0.6), (5600.0, 0.30, 0.4), (7900.0, 0.2, 0.25)),
                   10000.0, 1.0, 3000.0),
    # moulded plastic: a short click with a hollow body
    "polystyrene": Voice(((950.0, 0.045, 1.0), (2100.0, 0.030, 0.8), (3900.0, 0.018, 0.5)), 6000.0, 0.8, 2500.0),
    "pawn": Voice(((1600.0, 0.030, 1.0), (3300.0, 0.020, 0.7), (5400.0, 0.012, 0.4)), 6000.0, 0.8, 2800.0),
    # a hollow knock: the board and tray lower, the dense sticks higher
    "wood": Voice(((330.0, 0.090, 1.0), (820.0, 0.060, 0.6), (1750.0, 0.030, 0.35)), 3500.0, 0.8, 1200.0),
    "hardwood": Voice(((620.0, 0.080, 1.0), (1450.0, 0.045, 0.6), (3100.0, 0.025, 0.3)), 4500.0, 0.8, 1600.0),
    # dull and short
    "cardboard": Voice(((210.0, 0.030, 1.0), (480.0, 0.018, 0.5), (1050.0, 0.010, 0.2)), 1400.0, 0.5, 700.0),
    "standee": Voice(((260.0, 0.035, 1.0), (640.0, 0.020, 0.5), (1400.0, 0.012, 0.2)), 1800.0, 0.5, 800.0),
    # muffled: almost no ring, and it damps whatever lands on it
    "felt": Voice(((140.0, 0.012, 1.0), (380.0, 0.008, 0.3)), 600.0, 0.15, 400.0),
}
FALLBACK = {"glass": "glass", "marble": "glass", "steel": "steel", "metal": "steel", "iron": "steel",
            "card": "cardboard", "paper": "cardboard", "board": "cardboard", "felt": "felt", "cloth": "felt",
            "wood": "wood", "poly": "polystyrene", "plastic": "polystyrene"}


def voice(material: str) -> Voice:
    """A material's Voice: its own, else that of the first kind its name contains, else wood's."""
    found = VOICES.get(material)
    if found is not None:
        return found
    name = material.lower()
    for part, known in FALLBACK.items():
        if part in name:
            return VOICES[known]
    return VOICES["wood"]


# -- contact events -> sound events --------------------------------------------------------------
def loudness(event: ContactEvent) -> float:
    """The event's loudness in dB of full scale (-inf where it has no impulse or speed)."""
    impulse = event.impulse * IMPULSE_UNIT
    if event.kind == IMPACT:
        return 20.0 * math.log10(impulse / REFERENCE_IMPULSE) if impulse > 0 else -math.inf
    power = impulse / CONTACT_PERIOD * event.speed * SPEED_UNIT
    if power <= 0:
        return -math.inf
    return 10.0 * math.log10(power / REFERENCE_POWER) + (SLIDE_DB if event.kind == SLIDE else ROLL_DB)


def sound_events(contacts: Sequence[ContactEvent]) -> list[SoundEvent]:
    """The sounds of a motion's contact events, in time order (see the module's mapping)."""
    merged: list[ContactEvent] = []
    last_hit: dict[tuple[str, str], int] = {}
    for c in sorted(contacts, key=lambda c: c.t):
        if c.kind == IMPACT:
            k = last_hit.get(c.pair)
            if k is not None and c.t - merged[k].t < MERGE_S / CONTACT_TIME_UNIT:
                merged[k] = merged[k]._replace(impulse=merged[k].impulse + c.impulse)
                continue
            last_hit[c.pair] = len(merged)
        merged.append(c)
    heard = [(c, loudness(c)) for c in merged]
    heard = [(c, db) for c, db in heard if db >= FLOOR_DB]
    slices: dict[int, list[int]] = {}
    for i, (c, _) in enumerate(heard):
        slices.setdefault(int(c.t * CONTACT_TIME_UNIT // DENSITY_S), []).append(i)
    keep = set()
    for members in slices.values():
        keep.update(sorted(members, key=lambda i: (-heard[i][1], i))[:MAX_VOICES])
    return [SoundEvent(round(c.t * CONTACT_TIME_UNIT, 6), c.kind, round(db, 1), c.pair)
            for i, (c, db) in enumerate(heard) if i in keep]


# -- synthesis -------------------------------------------------------------------------------------
def _pair_modes(pair: tuple[str, str]) -> list[tuple[float, float, float]]:
    """Both materials' modes, each damped by the other material."""
    a, b = voice(pair[0]), voice(pair[1])
    modes = [(f, d * b.damping, amp) for f, d, amp in a.modes]
    if pair[1] != pair[0]:
        modes += [(f, d * a.damping, amp) for f, d, amp in b.modes]
    return modes


@lru_cache(maxsize=256)
def _impact_wave(pair: tuple[str, str], bright: int, rate: int) -> np.ndarray:
    """A 0 dB impact of `pair` (peak HEADROOM); `bright` the hit's brightness in 6 dB steps."""
    a, b = voice(pair[0]), voice(pair[1])
    cutoff = min(a.hardness, b.hardness) * 2.0 ** (bright / 4.0)
    modes = _pair_modes(pair)
    length = int(min(MAX_RING_S, 5.0 * max(d for _, d, _ in modes)) * rate) + 1
    t = np.arange(length) / rate
    wave = np.zeros(length)
    for f, d, amp in modes:
        if f >= rate / 2:
            continue
        gain = amp / math.sqrt(1.0 + (f / cutoff) ** 4)
        wave += gain * np.exp(-t / d) * np.sin(2.0 * math.pi * f * t)
    click_n = max(4, int(rate * 1.5 / cutoff))                 # the contact's own click
    rng = np.random.default_rng(zlib.crc32("/".join(pair).encode()))
    click = rng.standard_normal(click_n) * np.hanning(click_n)
    wave[:click_n] += 0.25 * click
    attack = min(length, max(2, int(rate * 0.0005)))           # no step at the first sample
    wave[:attack] *= np.linspace(0.0, 1.0, attack)
    peak = float(np.max(np.abs(wave))) or 1.0
    return wave * (HEADROOM / peak)


def _noise(event: SoundEvent, n: int, rate: int) -> np.ndarray:
    """Noise shaped for a slide or a roll of the event's pair, seeded from the event itself."""
    seed = [int(round(event.t * 1e6)), CONTACT_KINDS.index(event.kind), zlib.crc32("/".join(event.pair).encode()),
            int(round(event.loudness * 10)) & 0xFFFFFFFF]
    rng = np.random.default_rng(seed)
    size = 1 << max(6, (n - 1).bit_length())
    spectrum = np.fft.rfft(rng.standard_normal(size))
    f = np.fft.rfftfreq(size, 1.0 / rate)
    a, b = voice(event.pair[0]), voice(event.pair[1])
    centre = math.sqrt(a.grain * b.grain) * (0.35 if event.kind == ROLL else 1.0)
    shape = 1.0 / (1.0 + ((f - centre) / (0.6 * centre)) ** 2)  # the band of the grain
    for mf, d, amp in _pair_modes(event.pair):                  # the bodies ring along
        width = 1.0 / (math.pi * max(d, 0.004))
        shape += 0.5 * amp / (1.0 + ((f - mf) / width) ** 2)
    out = np.fft.irfft(spectrum * shape, size)[:n]
    rms = float(np.sqrt(np.mean(out ** 2))) or 1.0
    return out / rms


def mix(events: Sequence[SoundEvent], start: float = 0.0, speed: float = 1.0, rate: int = SAMPLE_RATE,
        gain: float = 1.0) -> np.ndarray:
    """The events from `start` (s into the motion) on, mixed into one float32 buffer beginning at
    `start` and played at `speed` (an event at t sounds at (t - start) / speed; an impact keeps
    its own length and pitch, a slide or roll lasts its sample's CONTACT_PERIOD / speed), times
    `gain`, softly limited to [-1, 1]."""
    events = [e for e in events if e.t >= start - 1e-9]
    if not events or gain <= 0:
        return np.zeros(0, np.float32)
    speed = max(speed, 1e-3)
    segment = int(1.5 * CONTACT_PERIOD / speed * rate) + 1
    end = max((e.t - start) / speed for e in events)
    out = np.zeros(int((end + MAX_RING_S) * rate) + segment + 1)
    for e in events:
        at = int(round((e.t - start) / speed * rate))
        amp = 10.0 ** (e.loudness / 20.0)
        if e.kind == IMPACT:
            wave = _impact_wave(e.pair, int(max(-4, min(2, round(e.loudness / 6.0)))), rate)
            out[at:at + len(wave)] += amp * wave
        else:
            wave = _noise(e, segment, rate) * np.hanning(segment) * (HEADROOM * 0.5)
            out[at:at + segment] += amp * wave
    last = np.flatnonzero(np.abs(out) > 1e-4)
    out = out[:last[-1] + 1] if last.size else out[:0]
    return np.tanh(gain * out).astype(np.float32)


def pcm16(samples: np.ndarray) -> bytes:
    """Float samples in [-1, 1] as 16-bit little-endian PCM."""
    return (np.clip(samples, -1.0, 1.0) * 32767.0).astype("<i2").tobytes()


def spectral_centroid(samples: np.ndarray, rate: int = SAMPLE_RATE) -> float:
    """The mean frequency of a sound's power spectrum (Hz): how bright it is."""
    power = np.abs(np.fft.rfft(samples)) ** 2
    f = np.fft.rfftfreq(len(samples), 1.0 / rate)
    return float((f * power).sum() / max(power.sum(), 1e-30))
