"""Pose frames of the bodies while they move: recorded from a World, played back without it.

A `MotionRecorder` watches a World's fixed steps (never the wall clock) and keeps, at a fixed
sample rate of simulated time, the poses of every moving body that changed since its last
sample; a body removed mid-motion gets a `None` entry (hide it). The result, a `Motion`, is
plain data: the window plays it back in real time after the physics has run, a replay file
stores it, and both draw exactly what was simulated.

While it records, a MotionRecorder also keeps the motion's contact events (`ContactCapture`):
the impacts of two bodies coming together and, sampled every CONTACT_PERIOD, the sliding and
rolling of bodies in contact, each with the two bodies' materials. They only read PyBullet
(`getContactPoints`, the bodies' velocities), never change a step, and are kept already in
stored units (`ContactEvent`), so that the window's sounds (tabletop.sim.sound) are made from
the values a replay file gives back.
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import NamedTuple

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
    contacts: list["ContactEvent"] = field(default_factory=list)   # in time order (ContactCapture)

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
                "looks": self.looks, "contacts": [c.as_list() for c in self.contacts]}

    @classmethod
    def from_dict(cls, d: dict) -> "Motion":
        """A Motion from `as_dict`'s form; one without "contacts" (an older replay's) has none."""
        return cls(rate=float(d["rate"]), times=[float(t) for t in d["times"]],
                   frames=[{k: (None if v is None else tuple(float(x) for x in v)) for k, v in f.items()}
                           for f in d["frames"]],
                   looks=dict(d["looks"]), contacts=[ContactEvent.from_list(c) for c in d.get("contacts", ())])


def _moved(a: Pose, b: Pose) -> bool:
    return (max(abs(a[i] - b[i]) for i in range(3)) > POSITION_EPS
            or max(abs(a[i] - b[i]) for i in range(3, 7)) > ORIENTATION_EPS)


class MotionRecorder:
    """Records a Motion of `world` while in a `with` block: a frame at the start, one every
    1/rate simulated seconds, one at the end. Static bodies (no mass, no joints) are skipped;
    a view places them from the game state."""

    def __init__(self, world, rate: float = 60.0, contacts: bool = True):
        self.world = world
        self.every = max(1, int(round(1.0 / (rate * world.dt))))
        self.motion = Motion(rate=1.0 / (self.every * world.dt))
        self.contacts = ContactCapture(world, self.motion.contacts) if contacts else None
        self._last: dict[str, Pose | None] = {}
        self._ids: dict[str, int] = {}
        self._static: set[str] = set()
        self._tracks: dict[str, tuple] = {}

    def __enter__(self) -> "MotionRecorder":
        self._start = self.world.steps
        self._capture()
        if self.contacts is not None:
            self.contacts.start()
        self.world.watchers.append(self)
        return self

    def __exit__(self, *exc) -> None:
        self.world.watchers.remove(self)
        if self.contacts is not None:
            self.contacts.finish()
        if (self.world.steps - self._start) % self.every:
            self._capture()

    def __call__(self, world) -> None:
        if self.contacts is not None:
            self.contacts.step(world.steps - self._start)
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


# -- contact events ---------------------------------------------------------------------------
IMPACT, SLIDE, ROLL = "impact", "slide", "roll"
CONTACT_KINDS = (IMPACT, SLIDE, ROLL)
CONTACT_TIME_UNIT = 1e-6     # s per stored time unit (as a replay stores frame times)
IMPULSE_UNIT = 1e-6          # N s per stored impulse unit
SPEED_UNIT = 1e-3            # m/s per stored speed unit
CONTACT_PERIOD = 1.0 / 30.0  # s between two samples of a pair's sliding or rolling
IMPACT_WINDOW = 1.0 / 120.0  # s over which an impact's normal impulse is summed (a hit lasts a few steps)
IMPACT_JUMP = 4.0            # a pair in contact whose step impulse grows this many times hits again
MIN_IMPACT = 50e-6           # N s: a smaller impact is not kept (60 dB under a thrown stick's landing)
MIN_APPROACH = 0.02          # m/s: two bodies closing slower than this settle, they do not hit
MIN_SLIP = 0.01              # m/s: contact points sliding on each other faster than this slide
MIN_ROLL = 0.01              # m/s: a body moving faster than this over a contact that does not slide rolls
MAX_CONTACTS = 4000          # events kept per motion at most (a motion of a pile of marbles stays bounded)
QUIET_SPEED = 0.005          # m/s: while every body moves slower than this (and turns slower than
QUIET_SPIN = 0.02            # rad/s), before and after a step, nothing can hit, slide or roll: the
                             # step's contacts are not read (a settling throw's last half second)


class ContactEvent(NamedTuple):
    """One contact event in stored units: `t` in CONTACT_TIME_UNIT from the motion's start, `kind`
    IMPACT, SLIDE or ROLL, `pair` the two bodies' material names (sorted), `impulse` the normal
    impulse in IMPULSE_UNIT (an impact's over IMPACT_WINDOW; a slide's or a roll's since the
    pair's last sample, about CONTACT_PERIOD), `speed` in SPEED_UNIT (an impact's closing speed
    along the normal, a slide's slip speed, a roll's speed over the surface)."""

    t: int
    kind: str
    pair: tuple[str, str]
    impulse: int
    speed: int

    def as_list(self) -> list:
        return [self.t, self.kind, self.pair[0], self.pair[1], self.impulse, self.speed]

    @classmethod
    def from_list(cls, v) -> "ContactEvent":
        t, kind, a, b, impulse, speed = v
        if kind not in CONTACT_KINDS:
            raise ValueError(f"a contact event of unknown kind {kind!r}")
        return cls(int(t), str(kind), (str(a), str(b)), int(impulse), int(speed))


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


class ContactCapture:
    """Reads a World's contacts after each step and appends `ContactEvent`s to `out`.

    A pair is two (body, link) parts, at least one of a body that moves. Each step its contact
    points' normal forces are summed into the step's normal impulse (PyBullet reports force =
    impulse / step). An impact starts when a pair comes into contact, or when a pair in contact
    takes more than IMPACT_JUMP times the impulse of its step before (a stick rocking onto its
    other edge), with a closing speed of at least MIN_APPROACH from the velocities before the
    step; its impulse is summed over IMPACT_WINDOW. Every CONTACT_PERIOD each pair in contact
    is sampled: its points' slip speed (a slide) or, not sliding, the speed over the surface of
    its faster part's centre (a roll). Bodies' velocities are read once a step (bases) and at
    the sampled contacts (links); nothing is set."""

    def __init__(self, world, out: list):
        self.world = world
        self.out = out
        self.c = world.client
        # fetched once: each attribute of a BulletClient is a fresh functools.partial
        self._contact_points = self.c.getContactPoints
        self._base_velocity = self.c.getBaseVelocity
        dt = world.dt
        self.dt = dt
        self.period = max(1, int(round(CONTACT_PERIOD / dt)))
        self.window = max(1, int(round(IMPACT_WINDOW / dt)))
        self._seen: list = []                      # the world's (name, body id) items when last looked at
        self._moving: dict[int, bool] = {}         # body id -> whether it can move
        self._movers: list[int] = []
        self._names: dict[int, str] = {}
        self._last: dict[tuple, list] = {}         # the pairs in contact at the step before (_pairs)
        self._open: dict[tuple, list] = {}         # pair -> [steps left, impulse, step, speed, materials]
        self._vel: dict[int, tuple] = {}           # body id -> (linear, angular) of the base, the step before
        self._jointed = False
        self._quiet = False

    def start(self) -> None:
        self._bodies()
        self._read_velocities()
        self._last = self._pairs()          # in contact before the motion: no impact

    def _bodies(self) -> None:
        items = list(self.world.bodies.items())
        if items != self._seen:
            self._seen = items
            self._names = {b: n for n, b in items}
            c = self.c
            self._moving = {b: c.getDynamicsInfo(b, -1)[0] > 0.0 or c.getNumJoints(b) > 0 for b in self._names}
            self._movers = [b for b, moving in self._moving.items() if moving and c.getDynamicsInfo(b, -1)[0] > 0.0]
            self._jointed = any(c.getNumJoints(b) > 0 for b in self._names)   # links' speeds are not read each step

    def _read_velocities(self) -> bool:
        """The bodies' velocities now (the next step's "before"); whether they and those before
        this step are all quiet (QUIET_SPEED, QUIET_SPIN) with no jointed body about."""
        get = self._base_velocity
        before, self._vel = self._vel, {b: get(b) for b in self._movers}
        if self._jointed or self._open:
            return False
        v2, w2 = QUIET_SPEED * QUIET_SPEED, QUIET_SPIN * QUIET_SPIN
        for vel in (before, self._vel):
            for (v, w) in vel.values():
                if v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > v2 or w[0] * w[0] + w[1] * w[1] + w[2] * w[2] > w2:
                    return False
        return len(before) == len(self._vel)

    def _pairs(self) -> dict[tuple, list]:
        """{(body a, link a, body b, link b): [summed normal force, the largest point's force, that
        point (PyBullet's tuple: normal on b, position on a), normal impulse since the last sample]}
        of the pairs in contact, as PyBullet orders them (Bullet makes no contact between two parts
        that cannot move)."""
        pairs: dict[tuple, list] = {}
        for pt in self._contact_points():
            key = (pt[1], pt[3], pt[2], pt[4])
            f = pt[9]
            got = pairs.get(key)
            if got is None:
                pairs[key] = [f, f, pt, 0.0]
            else:
                got[0] += f
                if f > got[1]:
                    got[1], got[2] = f, pt
        return pairs

    def _materials(self, key) -> tuple[str, str]:
        m = self.world.materials
        return tuple(sorted((m.get(self._names.get(key[0]), "unknown"), m.get(self._names.get(key[2]), "unknown"))))

    def _point_velocity(self, body: int, link: int, point, before: bool) -> tuple:
        """Velocity of the material point of (body, link) at `point`: from the base's velocity
        before this step (`before`, where it was read) or now."""
        c = self.c
        if link < 0:
            if before and body in self._vel:
                v, w = self._vel[body]
            elif self._moving.get(body):
                v, w = self._base_velocity(body)
            else:
                return (0.0, 0.0, 0.0)
            com = c.getBasePositionAndOrientation(body)[0]
        else:
            state = c.getLinkState(body, link, computeLinkVelocity=1)
            com, v, w = state[0], state[6], state[7]
        return tuple(x + y for x, y in zip(v, _cross(w, _sub(point, com))))

    def _centre_velocity(self, body: int, link: int) -> tuple:
        c = self.c
        if link < 0:
            return self._base_velocity(body)[0] if self._moving.get(body) else (0.0, 0.0, 0.0)
        return c.getLinkState(body, link, computeLinkVelocity=1)[6]

    def _emit(self, t_steps: int, kind: str, pair, impulse: float, speed: float) -> None:
        if len(self.out) < MAX_CONTACTS:
            self.out.append(ContactEvent(int(round(t_steps * self.dt / CONTACT_TIME_UNIT)), kind, pair,
                                         int(round(impulse / IMPULSE_UNIT)), int(round(speed / SPEED_UNIT))))

    def step(self, k: int) -> None:
        """After the motion's k-th step."""
        self._bodies()
        before = self._vel
        if self._read_velocities():     # all at rest: the pairs in contact stay as they were
            if not self._quiet:
                for got in self._last.values():
                    got[3] = 0.0
                self._quiet = True
            return
        self._quiet = False
        now, self._vel = self._vel, before         # (the velocities before the step, for the impacts)
        pairs = self._pairs()
        last, dt = self._last, self.dt
        if self._open:
            for key in [key for key in self._open if key not in pairs]:
                self._close(key)
        sample = k % self.period == 0
        for key, got in pairs.items():
            impulse = got[0] * dt
            prev = last.get(key)
            got[3] = impulse + (prev[3] if prev is not None else 0.0)
            hit = self._open.get(key)
            if hit is not None:
                hit[0] -= 1
                hit[1] += impulse
                if hit[0] <= 0:
                    self._close(key)
            elif impulse >= MIN_IMPACT and (prev is None or impulse > IMPACT_JUMP * prev[0] * dt):
                pt = got[2]
                va = self._point_velocity(key[0], key[1], pt[5], True)
                vb = self._point_velocity(key[2], key[3], pt[5], True)
                closing = -_dot(_sub(va, vb), pt[7])
                if closing >= MIN_APPROACH:
                    self._open[key] = [self.window - 1, impulse, k, closing, self._materials(key)]
                    if self.window <= 1:
                        self._close(key)
            if sample:
                self._sample(k, key, got[3], got[2])
                got[3] = 0.0
        self._last = pairs
        self._vel = now

    def _sample(self, k: int, key, impulse: float, pt) -> None:
        normal, point = pt[7], pt[5]
        va = self._point_velocity(key[0], key[1], point, False)
        vb = self._point_velocity(key[2], key[3], point, False)
        rel = _sub(va, vb)
        along = _dot(rel, normal)
        slip = math.sqrt(max(0.0, _dot(rel, rel) - along * along))
        if slip >= MIN_SLIP:
            self._emit(k, SLIDE, self._materials(key), impulse, slip)
            return
        ca, cb = self._centre_velocity(key[0], key[1]), self._centre_velocity(key[2], key[3])
        best = 0.0
        for v in (_sub(ca, vb), _sub(cb, va)):
            n = _dot(v, normal)
            best = max(best, math.sqrt(max(0.0, _dot(v, v) - n * n)))
        if best >= MIN_ROLL:
            self._emit(k, ROLL, self._materials(key), impulse, best)

    def _close(self, key) -> None:
        _, impulse, k, closing, pair = self._open.pop(key)
        self._emit(k, IMPACT, pair, impulse, closing)

    def finish(self) -> None:
        """Close the impacts still summing; the events in time order (an impact is appended once
        its window is over, after the samples taken during it)."""
        for key in list(self._open):
            self._close(key)
        self.out.sort(key=lambda e: e.t)
