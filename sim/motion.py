"""Pose frames of the bodies while they move: recorded from a World, played back without it.

A `MotionRecorder` watches a World's fixed steps (never the wall clock) and keeps, at a fixed
sample rate of simulated time, the poses of every moving body that changed since its last
sample; a body removed mid-motion gets a `None` entry (hide it). The result, a `Motion`, is
plain data: the window plays it back in real time after the physics has run, a replay file
stores it, and both draw exactly what was simulated.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from tabletop.sim.scene import is_static, look, moving_links, poses

Pose = tuple  # (x, y, z, qx, qy, qz, qw)

POSITION_EPS = 2e-5     # a track that moved less than this (m) since its last sample is not stored again
ORIENTATION_EPS = 2e-4  # ... or turned less than this (quaternion components)


@dataclass
class Motion:
    """Sampled poses of moving bodies: `frames[i]` holds the tracks that changed at `times[i]`
    (one frame per sample, empty when nothing moved; the last may fall between samples)."""

    rate: float                                     # samples per simulated second
    times: list[float] = field(default_factory=list)
    frames: list[dict[str, Pose | None]] = field(default_factory=list)
    looks: dict[str, dict] = field(default_factory=dict)   # body name -> look (tabletop.sim.scene.look)

    @property
    def duration(self) -> float:
        return self.times[-1] if self.times else 0.0

    def index_at(self, t: float) -> int:
        """The last frame at or before simulated time `t` from the start (-1 when none)."""
        return bisect.bisect_right(self.times, t + 1e-9) - 1

    def states(self) -> list[dict[str, Pose | None]]:
        """The full pose of every track at every frame (each frame's changes applied in turn)."""
        out, now = [], {}
        for frame in self.frames:
            now = {**now, **frame}
            out.append(now)
        return out

    def final(self) -> dict[str, Pose | None]:
        now: dict = {}
        for frame in self.frames:
            now.update(frame)
        return now

    def as_dict(self) -> dict:
        return {"rate": self.rate, "times": self.times,
                "frames": [{k: (None if v is None else list(v)) for k, v in f.items()} for f in self.frames],
                "looks": self.looks}

    @classmethod
    def from_dict(cls, d: dict) -> "Motion":
        return cls(rate=float(d["rate"]), times=[float(t) for t in d["times"]],
                   frames=[{k: (None if v is None else tuple(float(x) for x in v)) for k, v in f.items()}
                           for f in d["frames"]],
                   looks=dict(d["looks"]))


def _moved(a: Pose, b: Pose) -> bool:
    return (max(abs(a[i] - b[i]) for i in range(3)) > POSITION_EPS
            or max(abs(a[i] - b[i]) for i in range(3, 7)) > ORIENTATION_EPS)


class MotionRecorder:
    """Records a Motion of `world` while in a `with` block: a frame at the start, one every
    1/rate simulated seconds, one at the end. Static bodies (no mass, no joints) are skipped;
    a view places them from the game state."""

    def __init__(self, world, rate: float = 60.0):
        self.world = world
        self.every = max(1, int(round(1.0 / (rate * world.dt))))
        self.motion = Motion(rate=1.0 / (self.every * world.dt))
        self._last: dict[str, Pose | None] = {}
        self._ids: dict[str, int] = {}
        self._static: set[str] = set()
        self._tracks: dict[str, tuple] = {}

    def __enter__(self) -> "MotionRecorder":
        self._start = self.world.steps
        self._capture()
        self.world.watchers.append(self)
        return self

    def __exit__(self, *exc) -> None:
        self.world.watchers.remove(self)
        if (self.world.steps - self._start) % self.every:
            self._capture()

    def __call__(self, world) -> None:
        if (world.steps - self._start) % self.every == 0:
            self._capture()

    def _moving(self) -> list[str]:
        w = self.world
        names = []
        for name, body in w.bodies.items():
            if self._ids.get(name) != body:          # new, or removed and added again
                self._ids[name] = body
                self._static.discard(name)
                if is_static(w, name):
                    self._static.add(name)
                else:
                    self.motion.looks.setdefault(name, look(w, name))
                    self._tracks[name] = moving_links(w, name)
            if name not in self._static:
                names.append(name)
        return names

    def _capture(self) -> None:
        frame: dict[str, Pose | None] = {}
        seen = set()
        for name in self._moving():
            for track, pose in poses(self.world, name, self._tracks[name]).items():
                seen.add(track)
                last = self._last.get(track)
                if last is None or _moved(pose, last):
                    frame[track] = pose
                    self._last[track] = pose
        for track in [t for t, p in self._last.items() if p is not None and t not in seen]:
            frame[track] = None
            self._last[track] = None
        self.motion.times.append((self.world.steps - self._start) * self.world.dt)
        self.motion.frames.append(frame)
