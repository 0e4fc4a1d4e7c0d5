"""Knossos throw sticks: two half-cylinders tossed into a wooden tray; the throw is read from
which side of each stick faces up once both have settled.

Each stick is a convex hull of a half-cylinder (a flat face and a rounded back of
`stick.segments` facets), with its exact mass and inertia: centre of mass 4 r / (3 pi) from the
flat face, principal moments m (r^2/2 - d^2), m (L^2/12 + r^2/4 - d^2), m (L^2/12 + r^2/4)
(Bullet would otherwise use its bounding-box estimate). Stick frame: X along the stick, Z from
the flat face toward the rounded back, origin at the centre of mass. The tray is one static
compound of boxes (floor and four rims); device frame origin at the centre of the floor's top.

Gesture (`Throw`), sampled by `sample_gesture` from the spec's [gesture] table, every value
uniform over its range: the two sticks are held side by side, parallel, across the fingers
(their long axes perpendicular to the throw, tilted by a common pitch, each turned by its own
roll about its axis) and released together at a height with the hand's velocity (speed,
elevation, azimuth); each rolls off the fingers with its own spin about its long axis and its
own end-over-end tumble. The hand is placed so that the sticks would land `aim_back` short of
the tray centre. The spin about the long axis is about the stick axis `spin_axis` ([1, 0, 0],
the long axis, by default). With `start` other than "random" (`FixedThrow`) the sticks leave the
hand in a fixed orientation instead of the pitched, rolled one: "flat" or "round" (that side up,
the long axis across the throw) or a quaternion, for both sticks or one each, the whole hand
turned about the vertical by a yaw drawn from `yaw_deg`; orientation and spin come from
sim.throwable.Start, as `tabletop estimate throw` starts a body.

Reading: once both sticks have settled (our own rule, not Bullet's sleeping), a stick reads
"flat" (flat side up) when its flat face's outward normal (-Z) is within `reading.tilt_deg` of
world up, "round" (round side up, lying on its flat face) when it is within that of world down,
and in both cases only when its centre of mass is within `reading.height_tol` of the height it
has lying that way on the floor. Anything else (on an edge or end, resting on the other stick
or on a rim) is never guessed: the sticks are thrown again, with a new gesture drawn from the
same Generator and fresh bodies, and the re-throw is counted. Labels: "1" two round sides up,
"2" one of each, "3" two flat sides up.

Statuses: OK once a throw reads cleanly; ESCAPED when a stick leaves the tray (a defect; the
trial ends); UNSETTLED when a throw does not settle within `settle.cap` (the trial ends: an
unsettled throw is reported, never re-thrown away); LODGED when every throw settled but
`reading.max_rethrows` re-throws still left an unreadable throw.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabletop.sim.bullet import pybullet
from tabletop.sim.devices.base import Device, Outcome, Status, gesture_dict
from tabletop.sim.errors import SpecError
from tabletop.sim.parts import add_open_box, left_open_box
from tabletop.sim.materials import load_materials, pick_material
from tabletop.sim.paths import assets_dir
from tabletop.sim.readouts import SettleRule, run_until_settled
from tabletop.sim.spec import Table, read_numerics
from tabletop.sim.stats import wilson_interval
from tabletop.sim.throwable import RANDOM, Start, half_cylinder, half_cylinder_vertices, load_start, qaxis as _qaxis
from tabletop.sim.throwable import qmul as _qmul, rotate as _rotate
from tabletop.sim.world import World

NAME = "sticks"
DEFAULT_SPEC = "knossos/sticks.toml"
SUMMARY = "Knossos throw sticks: 1 (two round sides up), 2 (one of each), 3 (two flat)"
#: what its outcomes are: a plot's axis, what the labels mean, what a lodged trial is (None: never)
OUTCOME_FAIR = "two fair coins"   # how a game's fair table of it is made (tabletop.app.outcomes.fair_odds)
OUTCOME_AXIS = "the sticks' throw"
OUTCOME_LABELS = "1: both round sides up; 2: one round side and one flat side up; 3: both flat sides up"
OUTCOME_LODGED = ("every throw settled, but the re-throws allowed (reading.max_rethrows) still left a "
                  "stick unreadable (on an edge or end, or resting on the other stick)")

STICKS = ("stick0", "stick1")
TRAY = "sticks_tray"
LABELS = ("1", "2", "3")            # number of flat sides up + 1
UNIFORM_TWO_COIN = {"1": 0.25, "2": 0.5, "3": 0.25}


@dataclass(frozen=True)
class Throw:
    """One toss of both sticks from the hand.

    height         release height of the sticks' axes above the tray floor (m)
    speed          speed of the hand at release (m/s)
    elevation_deg  angle of the release velocity above the horizontal (degrees; negative: downward)
    azimuth_deg    horizontal direction of the throw (degrees from +X, counter-clockwise)
    pitch_deg      tilt of both sticks' long axes from the horizontal (degrees)
    roll_deg       each stick's turn about its own long axis (degrees; 0: flat side down)
    roll_rate      each stick's spin about its long axis (rad/s)
    tumble_rate    each stick's end-over-end spin about the throw's horizontal direction (rad/s)
    """

    height: float
    speed: float
    elevation_deg: float
    azimuth_deg: float
    pitch_deg: float
    roll_deg: tuple[float, float]
    roll_rate: tuple[float, float]
    tumble_rate: tuple[float, float]


@dataclass(frozen=True)
class FixedThrow:
    """One toss of both sticks from a fixed start (the spec's `gesture.start`).

    height, speed, elevation_deg, azimuth_deg   as in Throw
    yaw_deg        the hand's turn about the vertical (degrees; 0: the sticks' long axes across the throw)
    orientation    each stick's orientation at release, a unit quaternion (x, y, z, w)
    spin           each stick's angular velocity at release (rad/s, world frame)
    """

    height: float
    speed: float
    elevation_deg: float
    azimuth_deg: float
    yaw_deg: float
    orientation: tuple[tuple[float, float, float, float], tuple[float, float, float, float]]
    spin: tuple[tuple[float, float, float], tuple[float, float, float]]


def dome_cos(orientation) -> float:
    """cos of the angle between a stick's local +Z (flat face toward rounded back) and world up:
    +1 lying on its flat face (round side up), -1 lying on its back (flat side up)."""
    x, y, _, _ = orientation
    return 1.0 - 2.0 * (x * x + y * y)


def label_for(sides) -> str:
    """The throw's label from the sticks' sides ("flat" / "round"): "1" two round sides up,
    "2" one of each, "3" two flat sides up."""
    if any(side not in ("flat", "round") for side in sides):
        raise ValueError(f"every stick must read 'flat' or 'round', got {list(sides)!r}")
    return LABELS[sum(side == "flat" for side in sides)]



class ThrowSticks(Device):
    """Two throw sticks: labels "1" (two round sides up), "2" (one of each), "3" (two flat)."""

    name = NAME

    def gesture_ranges(self) -> tuple[str, ...]:
        return ("gesture.height", "gesture.speed", "gesture.elevation_deg", "gesture.pitch_deg",
                "gesture.roll_rate", "gesture.tumble_rate")

    def fastest_gesture(self) -> dict[str, str]:
        # released highest, thrown upward at top speed, with the fastest spins (the pitch sets no speed)
        return {"gesture.height": "high", "gesture.speed": "high", "gesture.elevation_deg": "high",
                "gesture.roll_rate": "high", "gesture.tumble_rate": "high"}

    def mesh_refinements(self) -> tuple[tuple[str, str], ...]:
        """Twice the facets on the sticks' rounded backs (kept odd, as the spec asks)."""
        return (("stick.segments", str(2 * self.segments - 1)),)

    def __init__(self, spec_path: Path, world: World | None = None,
                 origin: tuple[float, float, float] = (0.0, 0.0, 0.0), overrides=()):
        """Build the tray into `world` (a new one of its own when None) with its floor centre at `origin`."""
        self.setup(spec_path, overrides, world, origin)
        self._build_tray()
        c = self.world.client
        self._stick_vertices = half_cylinder_vertices(self.length, self.radius, self.segments)
        self._stick_shape = c.createCollisionShape(pybullet.GEOM_MESH, vertices=self._stick_vertices)

    # -- spec -------------------------------------------------------------------------------
    def _load(self, spec: Table) -> None:
        src = spec.source
        materials = load_materials(assets_dir() / "materials.toml", self.overrides)

        s = spec.table("stick")
        self.length = s.number("length", 0.02, 0.5)
        self.radius = s.number("radius", 0.002, 0.05)
        if self.length < 4 * self.radius:
            raise SpecError(f"{src}: stick.length: {self.length} is under four radii ({4 * self.radius}): "
                            f"that is a disc, not a stick")
        self.segments = s.integer("segments", 4, 128)
        if self.segments % 2 == 0:
            raise SpecError(f"{src}: stick.segments: {self.segments} must be odd, so that a facet (not a ridge) "
                            f"lies at the crown of the rounded back and a stick on its back rests level")
        self.margin = s.number("margin", 0.0, 0.002)
        self.stick_material = pick_material(s, "material", materials)
        self.com_offset = 4.0 * self.radius / (3.0 * math.pi)
        # the thrown half-cylinder of sim.throwable: its rest states ("flat" up, "round" up) and their reading
        self.shape = half_cylinder(self.radius, self.length, self.segments, self.margin, self.stick_material.density)
        self.mass = self.stick_material.density * math.pi * self.radius ** 2 * self.length / 2
        r, L, d, m = self.radius, self.length, self.com_offset, self.mass
        self.inertia = (m * (r * r / 2 - d * d), m * (L * L / 12 + r * r / 4 - d * d), m * (L * L / 12 + r * r / 4))

        t = spec.table("tray")
        self.tray_material = pick_material(t, "material", materials)
        self.half_x = t.number("half_x", 0.1, 5.0)
        self.half_y = t.number("half_y", 0.1, 5.0)
        if min(self.half_x, self.half_y) < self.length:
            raise SpecError(f"{src}: tray: the floor ({2 * self.half_x} x {2 * self.half_y}) must be at least "
                            f"two stick lengths ({2 * self.length}) across")
        self.wall_height = t.number("wall_height", 0.0, 0.5)
        self.wall_thickness = t.number("wall_thickness", 0.005, 0.2)
        self.floor_thickness = t.number("floor_thickness", 0.005, 0.2)

        g = spec.table("gesture")
        self.height_range = g.range("height", 2 * self.radius, 1.0)
        self.speed_range = g.range("speed", 0.0, 5.0)
        self.elevation_range = g.range("elevation_deg", -80.0, 80.0)
        self.azimuth_range = g.range("azimuth_deg", -360.0, 720.0)
        self.pitch_range = g.range("pitch_deg", -60.0, 60.0)
        self.roll_range = g.range("roll_deg", -360.0, 720.0)
        self.roll_rate_range = g.range("roll_rate", -200.0, 200.0)
        self.tumble_rate_range = g.range("tumble_rate", -200.0, 200.0)
        self.gap = g.number("gap", 0.0, 0.1)
        self.aim_back = g.number("aim_back", -1.0, 1.0)
        self._load_start(g)
        if self.starts is None:
            lowest = self.height_range[0] - self.length / 2 * math.sin(math.radians(max(map(abs, self.pitch_range)))) \
                - self.radius
            if lowest <= 0.0:
                raise SpecError(f"{src}: gesture.height: a stick released at {self.height_range[0]} m with a pitch "
                                f"of {max(map(abs, self.pitch_range))} degrees would start inside the floor")

        rd = spec.table("reading")
        self.tilt_tol = rd.number("tilt_deg", 1.0, 45.0)
        self.height_tol = rd.number("height_tol", 1e-4, self.radius / 2)   # a stick on the other is r higher
        self.max_rethrows = rd.integer("max_rethrows", 0, 1000)

        ph = spec.table("physics")
        read_numerics(self, ph)
        self.settle = SettleRule.from_table(spec.table("settle"))

    def _load_start(self, g: Table) -> None:
        """The sticks' start: `start` "random" (self.starts None: held across the fingers, pitched
        and rolled), or one fixed start for both sticks or a pair, one each (self.starts: a
        sim.throwable.Start each); `yaw_deg`; `spin_axis`, the stick axis of the roll_rate spin."""
        src = g.source
        rests = self.shape.rests
        value = g.data.get("start", RANDOM)
        pair = isinstance(value, list) and len(value) == 2 and all(isinstance(v, (str, list)) for v in value)
        starts = tuple(load_start(g, rests, spin_axis=[1.0, 0.0, 0.0], random_axis=False, value=v)
                       for v in (value if pair else (value, value)))
        self.spin_axis = starts[0].spin_axis
        self.yaw_range = starts[0].yaw_deg
        fixed = [s.orientation is not None for s in starts]
        if any(fixed) and not all(fixed):
            raise SpecError(f"{src}: gesture.start: \"{RANDOM}\" is for both sticks or neither, got {value!r}")
        self.starts: tuple[Start, Start] | None = starts if all(fixed) else None
        self.start_spec = [s.spec_start() for s in starts] if pair and self.starts is not None \
            else starts[0].spec_start()
        if self.starts is None:
            return
        # The hand holds the sticks side by side, stick 0 ahead: in the hand's frame (X across the throw,
        # Y back toward the thrower, Z up) stick 0 lies on the -Y side, stick 1 on the +Y side, each
        # turned by its start about its flat face's centre. Far enough apart that they cannot touch,
        # and high enough that neither starts inside the floor.
        d = self.com_offset
        points = [[_rotate(s.orientation, (v[0], v[1], v[2] + d)) for v in
                   half_cylinder_vertices(self.length, self.radius, self.segments)] for s in self.starts]
        reach = max(p[1] for p in points[0]) + max(-p[1] for p in points[1])
        self.start_spacing = max(2 * self.radius, reach) + self.gap
        lowest = self.height_range[0] + min(p[2] for ps in points for p in ps) - self.margin
        if lowest <= 0.0:
            raise SpecError(f"{src}: gesture.height: a stick released at {self.height_range[0]} m from its start "
                            f"{self.start_spec!r} would start inside the floor")

    # -- geometry ---------------------------------------------------------------------------
    def _build_tray(self) -> None:
        """The tray: one static compound of boxes (floor, four rims), floor top at the origin."""
        self._bounds = add_open_box(self.world, TRAY, self.origin, self.half_x, self.half_y, self.wall_thickness,
                                    self.wall_height, self.floor_thickness, self.tray_material)

    @property
    def labels(self) -> tuple[str, ...]:
        return LABELS

    def rest_height(self, flat_up: bool) -> float:
        """Height of a stick's centre of mass above the floor when it lies flat side up (on its
        rounded back) or round side up (on its flat face)."""
        return self.radius - self.com_offset if flat_up else self.com_offset

    # -- gesture ----------------------------------------------------------------------------
    def sample_gesture(self, rng: np.random.Generator) -> Throw | FixedThrow:
        u = rng.uniform
        height = float(u(*self.height_range))
        speed = float(u(*self.speed_range))
        elevation = float(u(*self.elevation_range))
        azimuth = float(u(*self.azimuth_range))
        if self.starts is not None:
            return self._sample_fixed(rng, height, speed, elevation, azimuth)
        pitch = float(u(*self.pitch_range))
        rolls = tuple(float(v) for v in u(*self.roll_range, size=2))
        roll_rates = tuple(float(v) for v in u(*self.roll_rate_range, size=2))
        tumble_rates = tuple(float(v) for v in u(*self.tumble_rate_range, size=2))
        return Throw(height=height, speed=speed, elevation_deg=elevation, azimuth_deg=azimuth, pitch_deg=pitch,
                     roll_deg=rolls, roll_rate=roll_rates, tumble_rate=tumble_rates)

    def _sample_fixed(self, rng: np.random.Generator, height: float, speed: float, elevation: float,
                      azimuth: float) -> FixedThrow:
        """The rest of a fixed-start throw: the hand's yaw, then each stick's roll_rate spin about
        spin_axis, then both tumble rates."""
        u = rng.uniform
        yaw = float(u(*self.yaw_range))
        turn = math.radians(azimuth + yaw) + math.pi / 2       # the hand: the sticks' X across the throw
        qs = tuple(s.turn(rng, turn) for s in self.starts)
        spins = [s.spin(rng, q, self.roll_rate_range) for s, q in zip(self.starts, qs)]
        tumble_rates = tuple(float(v) for v in u(*self.tumble_rate_range, size=2))
        az = math.radians(azimuth)
        fwd = (math.cos(az), math.sin(az), 0.0)
        spin = tuple(tuple(w[k] + t * fwd[k] for k in range(3)) for w, t in zip(spins, tumble_rates))
        return FixedThrow(height=height, speed=speed, elevation_deg=elevation, azimuth_deg=azimuth, yaw_deg=yaw,
                          orientation=qs, spin=spin)

    def release_states(self, throw: Throw | FixedThrow) -> list[tuple[tuple, tuple, tuple, tuple]]:
        """(position, orientation, linear velocity, angular velocity) of each stick at release."""
        az, el = math.radians(throw.azimuth_deg), math.radians(throw.elevation_deg)
        fwd = (math.cos(az), math.sin(az), 0.0)
        vh, vz = throw.speed * math.cos(el), throw.speed * math.sin(el)
        g = self.world.settings.gravity
        drop = max(throw.height - self.radius, 0.0)
        t_fall = (vz + math.sqrt(vz * vz + 2 * g * drop)) / g
        back = self.aim_back + vh * t_fall            # the hand is this far back from the centre along the throw
        ox, oy, oz = self.origin
        hand = (ox - fwd[0] * back, oy - fwd[1] * back, oz + throw.height)
        velocity = (vh * fwd[0], vh * fwd[1], vz)
        out = []
        if isinstance(throw, FixedThrow):
            side = math.radians(throw.azimuth_deg + throw.yaw_deg)
            side = (math.cos(side), math.sin(side), 0.0)   # the hand's -Y: the line the sticks are spaced along
            for i, sign in enumerate((1.0, -1.0)):          # stick 0 nearer the fingertips (ahead)
                q = tuple(throw.orientation[i])
                centre_axis = tuple(hand[k] + sign * side[k] * self.start_spacing / 2 for k in range(3))
                com_off = _rotate(q, (0.0, 0.0, self.com_offset))
                pos = tuple(centre_axis[k] + com_off[k] for k in range(3))
                out.append((pos, q, velocity, tuple(throw.spin[i])))
            return out
        q_hand = _qmul(_qaxis((0.0, 0.0, 1.0), az + math.pi / 2), _qaxis((0.0, 1.0, 0.0), math.radians(throw.pitch_deg)))
        spacing = 2 * self.radius + self.gap
        for i, sign in enumerate((1.0, -1.0)):          # stick 0 nearer the fingertips (ahead)
            roll = _qaxis((1.0, 0.0, 0.0), math.radians(throw.roll_deg[i]))
            q = _qmul(q_hand, roll)
            axis = _rotate(q_hand, _rotate(roll, self.spin_axis))   # the roll spin's axis: by default the long axis
            centre_axis = tuple(hand[k] + sign * fwd[k] * spacing / 2 for k in range(3))
            com_off = _rotate(q, (0.0, 0.0, self.com_offset))
            pos = tuple(centre_axis[k] + com_off[k] for k in range(3))
            w = tuple(throw.roll_rate[i] * axis[k] + throw.tumble_rate[i] * fwd[k] for k in range(3))
            out.append((pos, q, velocity, w))
        return out

    # -- bodies -----------------------------------------------------------------------------
    def _add_sticks(self, states) -> None:
        """Fresh stick bodies for every throw: no contact cache or solver state carries over."""
        w, c = self.world, self.world.client
        for name in STICKS:
            if name in w.bodies:
                w.remove(name)
        for name, (pos, orn, lin, ang) in zip(STICKS, states):
            body = c.createMultiBody(baseMass=self.mass, baseCollisionShapeIndex=self._stick_shape,
                                     basePosition=list(pos), baseOrientation=list(orn))
            w.add_body(name, body, self.stick_material, mesh=self._stick_vertices)
            c.changeDynamics(body, -1, localInertiaDiagonal=list(self.inertia), collisionMargin=self.margin)
            c.resetBaseVelocity(body, list(lin), list(ang))

    def place(self, poses, velocities=None) -> None:
        """Fresh sticks at the given (position, orientation) poses in world coordinates, at rest
        unless (linear, angular) velocities are given (scenario tests)."""
        velocities = velocities or [((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))] * len(STICKS)
        self._add_sticks([(p, o, v, w) for (p, o), (v, w) in zip(poses, velocities)])

    def lying_pose(self, x: float, y: float, yaw_deg: float = 0.0, flat_up: bool = False,
                   lift: float = 0.0, roll_deg: float | None = None) -> tuple[tuple, tuple]:
        """World (position, orientation) of a stick lying on the floor at (x, y) of the device
        frame, its long axis at yaw_deg from X: on its flat face (round side up) or on its back
        (flat side up), raised by `lift`; `roll_deg` overrides the roll about its long axis
        (0: on its flat face, 180: on its back)."""
        roll = math.radians(roll_deg if roll_deg is not None else (180.0 if flat_up else 0.0))
        q = _qmul(_qaxis((0.0, 0.0, 1.0), math.radians(yaw_deg)), _qaxis((1.0, 0.0, 0.0), roll))
        ox, oy, oz = self.origin
        return (ox + x, oy + y, oz + self.rest_height(flat_up) + lift), q

    def place_for_benchmark(self) -> None:
        """Fresh sticks in the release pose of a middle-of-the-range throw, exactly as `run` starts one."""
        mid = lambda r: (r[0] + r[1]) / 2                                   # noqa: E731
        self._add_sticks(self.release_states(Throw(
            height=mid(self.height_range), speed=mid(self.speed_range), elevation_deg=mid(self.elevation_range),
            azimuth_deg=mid(self.azimuth_range), pitch_deg=mid(self.pitch_range),
            roll_deg=(self.roll_range[0], mid(self.roll_range)), roll_rate=self.roll_rate_range,
            tumble_rate=self.tumble_rate_range)))

    def _escaped_check(self):
        return left_open_box(self.world, STICKS, self._bounds)

    # -- trials -----------------------------------------------------------------------------
    def read_sticks(self) -> list[dict]:
        """Each stick's reading: "flat", "round" or None (not read), with the figures behind it."""
        out = []
        get = self.world.client.getBasePositionAndOrientation
        floor = self.origin[2]
        for name in STICKS:
            pos, orn = get(self.world.bodies[name])
            dc = dome_cos(orn)
            height = pos[2] - floor
            # read as every thrown body is (sim.throwable.Shape.read): a rest state's axis within
            # tilt_deg of up, the centre of mass within height_tol of that rest's height
            side = self.shape.read(orn, height, self.tilt_tol, self.height_tol)["label"]
            out.append({"side": side, "flat_normal_tilt_deg": math.degrees(math.acos(max(-1.0, min(1.0, -dc)))),
                        "height": height, "position": [float(v) for v in pos]})
        return out

    def throw(self, throw: Throw | FixedThrow) -> tuple[str, list[dict], int]:
        """One throw of both sticks: fresh bodies, simulate to rest. Returns (result, readings,
        steps) where result is "read", "unreadable", "unsettled" or "escaped"."""
        self._add_sticks(self.release_states(throw))
        return self._settle_and_read()

    def drop(self, poses, velocities=None) -> tuple[str, list[dict], int]:
        """Like `throw`, from any start: fresh sticks at the given world (position, orientation)
        poses and (linear, angular) velocities, at rest when None (scenario tests)."""
        self.place(poses, velocities)
        return self._settle_and_read()

    def _settle_and_read(self) -> tuple[str, list[dict], int]:
        w = self.world
        s0 = w.steps
        settled, escaped = run_until_settled(w, STICKS, self.settle, escaped=self._escaped_check())
        readings = self.read_sticks()
        if escaped:
            result = "escaped"
        elif not settled:
            result = "unsettled"
        elif all(r["side"] is not None for r in readings):
            result = "read"
        else:
            result = "unreadable"
        return result, readings, w.steps - s0

    def run(self, rng: np.random.Generator, gesture: Throw | FixedThrow | None = None) -> Outcome:
        """A trial: throw until both sticks read cleanly, re-throwing (new gesture from `rng`)
        when a stick lies on an edge, on end or on the other stick, at most max_rethrows times."""
        first = gesture if gesture is not None else self.sample_gesture(rng)
        throw_, steps, rethrows = first, 0, 0
        unread: list[list] = []
        while True:
            result, readings, n = self.throw(throw_)
            steps += n
            if result != "unreadable" or rethrows >= self.max_rethrows:
                break
            unread.append([r["side"] for r in readings])
            rethrows += 1
            throw_ = self.sample_gesture(rng)
        # The two sticks are alike, and which of them the hand holds nearer the fingertips is
        # chance: drawn last, so the throws' draws are as before (a fixed start names each
        # stick's start, so there stick 0 is the one ahead). `ahead` is the stick that went
        # first; "sides" and the other lists are in the order the sticks left the hand.
        ahead = int(rng.integers(2)) if self.starts is None else 0
        label = None
        if result == "read":
            status = Status.OK
            label = label_for([r["side"] for r in readings])
        elif result == "unreadable":
            status = Status.LODGED
        elif result == "unsettled":
            status = Status.UNSETTLED
        else:
            status = Status.ESCAPED
        reading = {
            "sides": [r["side"] for r in readings],
            "flat_up": [r["side"] == "flat" for r in readings] if status is Status.OK else None,
            "flat_normal_tilt_deg": [round(r["flat_normal_tilt_deg"], 3) for r in readings],
            "heights": [r["height"] for r in readings],
            "positions": [r["position"] for r in readings],
            "rethrows": rethrows,
            "throws": rethrows + 1,
            "unread_sides": unread,
            "ahead": ahead,
        }
        return Outcome(label=label, status=status, sim_time=steps * self.world.dt, steps=steps,
                       reading=reading, gesture=gesture_dict(first))

    # -- results ----------------------------------------------------------------------------
    def record_extra(self, outcome: Outcome) -> dict:
        """flat_up: [bool, bool] for a labelled trial (else None); rethrows: throws re-thrown
        because a stick was unreadable; throws: all throws of the trial; unreadable: throws that
        settled but could not be read (rethrows, plus the last throw of a LODGED trial)."""
        r = outcome.reading
        unreadable = r["rethrows"] + (1 if outcome.status is Status.LODGED else 0)
        by_position = r["flat_up"]
        by_stick = None if by_position is None else (by_position if r["ahead"] == 0 else by_position[::-1])
        return {"flat_up": by_stick, "flat_up_by_position": by_position, "rethrows": r["rethrows"],
                "throws": r["throws"], "unreadable": unreadable}

    def summarize_extra(self, records: list[dict]) -> dict:
        """The "sticks" block of the result JSON:

        flat_up           per stick, among labelled trials: k flat sides up of n, p, ci95 (Wilson 95%);
                          the two identical sticks are held in either order, at random
        flat_up_by_position  the same for the stick that left the hand ahead (nearer the
                          fingertips) and the one behind it: where the throw treats them differently
        flat_up_pooled    both sticks together (2 readings per labelled trial)
        rethrow_rate      among settled throws, the fraction that could not be read (so were thrown
                          again): k, n, p, ci95
        rethrows          total re-throws, trials with at least one, the most in one trial, and
                          re-throws per trial
        uniform_two_coin  the two-coin assumption's label probabilities, for comparison
        """
        extras = [r.get("extra") or {} for r in records]
        labelled = [e["flat_up"] for e in extras if e.get("flat_up") is not None]
        n = len(labelled)

        def block(k: int, total: int) -> dict:
            lo, hi = wilson_interval(k, total)
            return {"k": k, "n": total, "p": k / total if total else 0.0, "ci95": [lo, hi]}

        per_stick = [{"stick": i, **block(sum(bool(f[i]) for f in labelled), n)} for i in range(len(STICKS))]
        placed = [e["flat_up_by_position"] for e in extras if e.get("flat_up_by_position") is not None]
        by_position = [{"position": where, **block(sum(bool(f[i]) for f in placed), len(placed))}
                       for i, where in enumerate(("ahead", "behind"))]
        pooled = block(sum(bool(v) for f in labelled for v in f), 2 * n)
        unreadable = sum(e.get("unreadable", 0) for e in extras)
        settled_throws = sum(e.get("unreadable", 0) for e in extras) + n
        rethrows = [e.get("rethrows", 0) for e in extras]
        return {"sticks": {
            "flat_up": per_stick,
            "flat_up_by_position": by_position,
            "flat_up_pooled": pooled,
            "rethrow_rate": block(unreadable, settled_throws),
            "rethrows": {"total": int(sum(rethrows)), "trials_with_rethrow": int(sum(1 for v in rethrows if v)),
                         "max_in_a_trial": int(max(rethrows, default=0)),
                         "per_trial": float(sum(rethrows) / len(rethrows)) if rethrows else 0.0},
            "uniform_two_coin": dict(UNIFORM_TWO_COIN),
        }}

    def params(self) -> dict:
        return {
            "spec": str(self.spec_path),
            "stick": {"length": self.length, "radius": self.radius, "segments": self.segments,
                      "mass": self.mass, "com_offset_from_flat_face": self.com_offset,
                      "inertia_diagonal": list(self.inertia), "material": self.stick_material.as_dict()},
            "tray": {"half_x": self.half_x, "half_y": self.half_y, "wall_height": self.wall_height,
                     "wall_thickness": self.wall_thickness, "floor_thickness": self.floor_thickness,
                     "material": self.tray_material.as_dict(), "origin": list(self.origin)},
            "gesture": {"distribution": "uniform over each range", "height": list(self.height_range),
                        "speed": list(self.speed_range), "elevation_deg": list(self.elevation_range),
                        "azimuth_deg": list(self.azimuth_range), "pitch_deg": list(self.pitch_range),
                        "roll_deg": list(self.roll_range), "roll_rate": list(self.roll_rate_range),
                        "tumble_rate": list(self.tumble_rate_range), "gap": self.gap, "aim_back": self.aim_back,
                        "start": self.start_spec, "yaw_deg": list(self.yaw_range), "spin_axis": list(self.spin_axis)},
            "reading": {"tilt_deg": self.tilt_tol, "height_tol": self.height_tol,
                        "max_rethrows": self.max_rethrows,
                        "rest_height": {"flat_up": self.rest_height(True), "round_up": self.rest_height(False)}},
            "physics": self.world.settings.as_dict(),
            "settle": dict(self.settle.__dict__),
        }

