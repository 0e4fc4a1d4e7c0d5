"""A six-sided die thrown from the hand into a box lid; the throw is read from the face that
ends up on top once the die has settled.

The die is a cube of edge `die.size`. Its collision shape is Bullet's box (tabletop.sim.throwable.cuboid):
Bullet's box-box detector gives a face landing flat on the lid its whole contact in one step,
while a convex hull's contact (GJK) comes one point a step and the first point alone gives the
landing a torque (dropped flat from 6 cm onto a hard table, a hull cube ended on another face in
35 of 60 drops, the box in none: docs/validation.md). So the collision edges are sharp; the
rounding `die.edge_radius` is what a view draws (the rounded-cube mesh, cached, built with
trimesh). Mass and inertia are the cube's, exact. Die frame: origin at the centre, axes along the
face normals; `die.faces` labels the faces of +X, -X, +Y, -Y, +Z, -Z. The lid is one static
compound of boxes (floor and four walls); device frame origin at the centre of the floor's top.

Gesture (`Throw`), sampled by `sample_gesture` from the spec's [gesture] table: release height,
hand speed, elevation and azimuth uniform over their ranges; the die's orientation in the hand
and the axis of its spin from `start`, `yaw_deg` and `spin_axis` through sim.throwable.Start, as
`tabletop estimate throw` starts a body: by default (`start = "random"`) uniform over all
rotations (a normalised 4-d Gaussian quaternion), or a face "1".."6" up (or a quaternion) turned
by a yaw drawn from `yaw_deg`; its spin uniform in magnitude about an axis uniform over all
directions (`spin_axis = "random"`) or about a die axis [x, y, z] turned with the die. The hand
is placed so that the die would land `aim_back` short of the lid's centre. A uniform orientation
makes the die fair by its symmetry alone (any rotation of the die onto itself permutes the faces
and leaves the physics unchanged), so the estimate tests that nothing in the build breaks that
symmetry; a fixed start shows how much of the face in the hand a throw keeps.

Reading: once the die has settled (our own rule, not Bullet's sleeping), the face whose outward
normal is closest to world up is on top. The die is read only when that normal is within
`reading.tilt_deg` of up and its centre within `reading.height_tol` of half its size above the
floor; otherwise it rests cocked (leaning on a wall) and the trial is LODGED, never coerced to
the nearest face: a player would throw again, and so does a table that needs a number.

Statuses: OK with the label "1".."6"; LODGED cocked; UNSETTLED when the die does not settle
within `settle.cap`; ESCAPED when it leaves the lid (a defect).

The die's size, faces and the lid's dimensions are DieShape's (die_shape.py: no PyBullet, for views).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trimesh

from tabletop.sim.devices.base import Device, Outcome, Status, gesture_dict
from tabletop.sim.devices.die_shape import AXES, LABELS, DieShape
from tabletop.sim.errors import SpecError
from tabletop.sim.throwable import RestState, cuboid, load_start, qaxis as _qaxis, qmul as _qmul
from tabletop.sim.parts import add_open_box, left_open_box
from tabletop.sim.meshes import cached_mesh
from tabletop.sim.readouts import SettleRule, run_until_settled
from tabletop.sim.spec import Table, read_numerics
from tabletop.sim.stats import wilson_interval
from tabletop.sim.world import World

NAME = "die"
DEFAULT_SPEC = "king_kong/die.toml"
SUMMARY = "King Kong's die thrown into the box lid: the face on top, 1-6"
#: what its outcomes are: a plot's axis, what the labels mean, what a lodged trial is (None: never)
OUTCOME_AXIS = "face on top"
OUTCOME_LABELS = "1-6: the face on top"
OUTCOME_LODGED = "cocked: the die came to rest leaning on a wall, no face flat up (a player would throw again)"

DIE = "die"
LID = "die_lid"
_MESH_SUBDIVISIONS = 3                              # icosphere subdivisions of the rounded corners (view, inertia)


@dataclass(frozen=True)
class Throw:
    """One throw of the die from the hand.

    height         release height of the die's centre above the lid floor (m)
    speed          speed of the hand at release (m/s)
    elevation_deg  angle of the release velocity above the horizontal (degrees; negative: downward)
    azimuth_deg    horizontal direction of the throw (degrees from +X, counter-clockwise)
    orientation    the die's orientation in the hand, a unit quaternion (x, y, z, w)
    spin           the die's angular velocity at release (rad/s, world frame)
    """

    height: float
    speed: float
    elevation_deg: float
    azimuth_deg: float
    orientation: tuple[float, float, float, float]
    spin: tuple[float, float, float]


def rounded_cube_volume(size: float, radius: float) -> float:
    """Volume of a cube of edge `size` with edges and corners rounded by `radius` (the core cube
    swept by a ball): a^3 + 6 a^2 r + 3 pi a r^2 + 4/3 pi r^3 with a = size - 2 r."""
    a = size - 2 * radius
    return a ** 3 + 6 * a * a * radius + 3 * math.pi * a * radius ** 2 + 4.0 / 3.0 * math.pi * radius ** 3


def rounded_cube_mesh(size: float, radius: float, subdivisions: int = _MESH_SUBDIVISIONS) -> trimesh.Trimesh:
    """The rounded cube as a closed mesh: the convex hull of a sphere of `radius` at each corner
    of the core cube."""
    h = size / 2 - radius
    ball = trimesh.creation.icosphere(subdivisions=subdivisions, radius=radius).vertices
    points = np.concatenate([ball + (sx * h, sy * h, sz * h) for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    return trimesh.convex.convex_hull(points)


_UNIT_CUBE = cuboid((1.0, 1.0, 1.0), 1.0)     # its rest states in the order +X, -X, +Y, -Y, +Z, -Z


def top_face(orientation, faces) -> tuple[str, float]:
    """(label, tilt in degrees) of the face whose outward normal is closest to world up, for a
    die at `orientation` (x, y, z, w) with `faces` labelling +X, -X, +Y, -Y, +Z, -Z: the nearest
    rest state of the throwable cube (Shape.read), named by `faces`."""
    r = _UNIT_CUBE.read(orientation, 0.0, 0.0, 0.0)
    return faces[_UNIT_CUBE.labels.index(r["nearest"])], r["tilt_deg"]




class Die(DieShape, Device):
    """A six-sided die: labels "1".."6", the face on top once it rests on the lid floor."""

    name = NAME

    def gesture_ranges(self) -> tuple[str, ...]:
        return ("gesture.height", "gesture.speed", "gesture.elevation_deg", "gesture.spin")

    def fastest_gesture(self) -> dict[str, str]:
        # released highest, thrown upward at top speed, with the fastest spin
        return dict.fromkeys(self.gesture_ranges(), "high")

    def __init__(self, spec_path: Path, world: World | None = None,
                 origin: tuple[float, float, float] = (0.0, 0.0, 0.0), overrides=()):
        """Build the lid into `world` (a new one of its own when None) with its floor centre at `origin`."""
        self.setup(spec_path, overrides, world, origin)
        self._build_lid()
        self._die_shape = self.shape.collision_shape(self.world.client)

    # -- spec -------------------------------------------------------------------------------
    def _load(self, spec: Table) -> None:
        super()._load(spec)
        src = spec.source
        self.mesh_path = cached_mesh("die-rounded-cube", 1, {"size": self.size, "edge_radius": self.edge_radius,
                                                             "subdivisions": _MESH_SUBDIVISIONS},
                                     lambda: rounded_cube_mesh(self.size, self.edge_radius))
        self.shape = cuboid((self.size,) * 3, self.die_material.density)
        self.mass = self.shape.mass
        self.inertia = self.shape.inertia[0]          # a cube's inertia is isotropic

        g = spec.table("gesture")
        self.height_range = g.range("height", self.size, 1.0)
        self.speed_range = g.range("speed", 0.0, 5.0)
        self.elevation_range = g.range("elevation_deg", -89.0, 80.0)
        self.azimuth_range = g.range("azimuth_deg", -360.0, 720.0)
        self.spin_range = g.range("spin", 0.0, 200.0)
        self.aim_back = g.number("aim_back", -1.0, 1.0)
        # the faces as rest states ("1".."6": that face up), so that a face label is a start
        self.rests = tuple(sorted((RestState(f, r.axis, r.height) for f, r in zip(self.faces, self.shape.rests)),
                                  key=lambda r: r.label))
        self.start = load_start(g, self.rests)
        half_diagonal = self.size * math.sqrt(3) / 2
        if self.height_range[0] - half_diagonal <= self.wall_height:
            raise SpecError(f"{src}: gesture.height: a die released at {self.height_range[0]} m could start with a "
                            f"corner {half_diagonal:.4f} m lower, at or below the lid's {self.wall_height} m walls")
        if min(self.half_x, self.half_y) < 4 * self.size:
            raise SpecError(f"{src}: lid: the floor ({2 * self.half_x} x {2 * self.half_y}) must be at least "
                            f"eight dice ({8 * self.size}) across")

        rd = spec.table("reading")
        self.tilt_tol = rd.number("tilt_deg", 0.5, 30.0)
        self.height_tol = rd.number("height_tol", 1e-5, self.size / 4)

        ph = spec.table("physics")
        read_numerics(self, ph)
        self.settle = SettleRule.from_table(spec.table("settle"))

    # -- geometry ---------------------------------------------------------------------------
    def _build_lid(self) -> None:
        """The lid: one static compound of boxes (floor, four walls), floor top at the origin."""
        self._bounds = add_open_box(self.world, LID, self.origin, self.half_x, self.half_y, self.wall_thickness,
                                    self.wall_height, self.floor_thickness, self.lid_material)

    # -- gesture ----------------------------------------------------------------------------
    def sample_gesture(self, rng: np.random.Generator) -> Throw:
        u = rng.uniform
        height = float(u(*self.height_range))
        speed = float(u(*self.speed_range))
        elevation = float(u(*self.elevation_range))
        azimuth = float(u(*self.azimuth_range))
        orientation = self.start.turn(rng)
        spin = self.start.spin(rng, orientation, self.spin_range)
        return Throw(height=height, speed=speed, elevation_deg=elevation, azimuth_deg=azimuth,
                     orientation=orientation, spin=spin)

    def release_state(self, throw: Throw) -> tuple[tuple, tuple, tuple, tuple]:
        """(position, orientation, linear velocity, angular velocity) of the die at release."""
        az, el = math.radians(throw.azimuth_deg), math.radians(throw.elevation_deg)
        vh, vz = throw.speed * math.cos(el), throw.speed * math.sin(el)
        g = self.world.settings.gravity
        drop = max(throw.height - self.size / 2, 0.0)
        t_fall = (vz + math.sqrt(vz * vz + 2 * g * drop)) / g
        back = self.aim_back + vh * t_fall            # the hand is this far back from the centre along the throw
        ox, oy, oz = self.origin
        pos = (ox - math.cos(az) * back, oy - math.sin(az) * back, oz + throw.height)
        return pos, tuple(throw.orientation), (vh * math.cos(az), vh * math.sin(az), vz), tuple(throw.spin)

    # -- bodies -----------------------------------------------------------------------------
    def _add_die(self, state) -> None:
        """A fresh die body for every throw: no contact cache or solver state carries over."""
        w, c = self.world, self.world.client
        if DIE in w.bodies:
            w.remove(DIE)
        pos, orn, lin, ang = state
        body = c.createMultiBody(baseMass=self.mass, baseCollisionShapeIndex=self._die_shape,
                                 basePosition=list(pos), baseOrientation=list(orn))
        w.add_body(DIE, body, self.die_material, mesh=self.mesh_path)   # the view draws the rounded cube
        c.changeDynamics(body, -1, localInertiaDiagonal=[self.inertia] * 3, collisionMargin=0.0)
        c.resetBaseVelocity(body, list(lin), list(ang))

    def resting_pose(self, x: float, y: float, top: str = "1", yaw_deg: float = 0.0,
                     lift: float = 0.0) -> tuple[tuple, tuple]:
        """World (position, orientation) of the die resting on the lid floor at (x, y) of the
        device frame with face `top` up, turned by yaw_deg about the vertical, raised by `lift`."""
        k = self.faces.index(top)
        # a rotation taking the die axis of face `top` to world +Z
        turn = {0: ((0.0, 1.0, 0.0), -math.pi / 2), 1: ((0.0, 1.0, 0.0), math.pi / 2),
                2: ((1.0, 0.0, 0.0), math.pi / 2), 3: ((1.0, 0.0, 0.0), -math.pi / 2),
                4: ((0.0, 0.0, 1.0), 0.0), 5: ((1.0, 0.0, 0.0), math.pi)}[k]
        q = _qmul(_qaxis((0.0, 0.0, 1.0), math.radians(yaw_deg)), _qaxis(*turn))
        ox, oy, oz = self.origin
        return (ox + x, oy + y, oz + self.size / 2 + lift), q

    def place(self, pose, velocity=None) -> None:
        """A fresh die at the given world (position, orientation), at rest unless (linear,
        angular) velocities are given (scenario tests)."""
        lin, ang = velocity or ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))
        self._add_die((pose[0], pose[1], lin, ang))

    def place_for_benchmark(self) -> None:
        """A fresh die in the release state of a middle-of-the-range throw, exactly as `run` starts one."""
        mid = lambda r: (r[0] + r[1]) / 2                                   # noqa: E731
        s = mid(self.spin_range) / math.sqrt(3)
        self._add_die(self.release_state(Throw(
            height=mid(self.height_range), speed=mid(self.speed_range), elevation_deg=mid(self.elevation_range),
            azimuth_deg=mid(self.azimuth_range), orientation=(0.2, 0.3, 0.1, math.sqrt(0.86)), spin=(s, -s, s))))

    def _escaped_check(self):
        return left_open_box(self.world, (DIE,), self._bounds)

    # -- trials -----------------------------------------------------------------------------
    def read_die(self) -> dict:
        """The die's reading: the top face (None when cocked or off the floor) with the figures behind it."""
        pos, orn = self.world.client.getBasePositionAndOrientation(self.world.bodies[DIE])
        height = pos[2] - self.origin[2]
        # the cube's rest states, read as every thrown body's are (sim.throwable.Shape.read):
        # a face within tilt_deg of up with the centre within height_tol of its rest height
        r = self.shape.read(orn, height, self.tilt_tol, self.height_tol)
        face = {s.label: f for s, f in zip(self.shape.rests, self.faces)}
        return {"face": face[r["label"]] if r["label"] is not None else None, "nearest_face": face[r["nearest"]],
                "tilt_deg": r["tilt_deg"], "height": height, "position": [float(v) for v in pos]}

    def throw(self, throw: Throw) -> tuple[str, dict, int]:
        """One throw: a fresh die, simulated to rest. Returns (result, reading, steps) where result
        is "read", "cocked", "unsettled" or "escaped"."""
        self._add_die(self.release_state(throw))
        return self._settle_and_read()

    def drop(self, pose, velocity=None) -> tuple[str, dict, int]:
        """Like `throw`, from any start (scenario tests)."""
        self.place(pose, velocity)
        return self._settle_and_read()

    def _settle_and_read(self) -> tuple[str, dict, int]:
        w = self.world
        s0 = w.steps
        settled, escaped = run_until_settled(w, (DIE,), self.settle, escaped=self._escaped_check())
        reading = self.read_die()
        if escaped:
            result = "escaped"
        elif not settled:
            result = "unsettled"
        elif reading["face"] is not None:
            result = "read"
        else:
            result = "cocked"
        return result, reading, w.steps - s0

    def run(self, rng: np.random.Generator, gesture: Throw | None = None) -> Outcome:
        """A trial: one throw, read once the die has settled."""
        throw_ = gesture if gesture is not None else self.sample_gesture(rng)
        result, r, steps = self.throw(throw_)
        status = {"read": Status.OK, "cocked": Status.LODGED, "unsettled": Status.UNSETTLED,
                  "escaped": Status.ESCAPED}[result]
        reading = {"face": r["face"], "nearest_face": r["nearest_face"], "tilt_deg": round(r["tilt_deg"], 4),
                   "height": r["height"], "position": r["position"]}
        return Outcome(label=r["face"] if status is Status.OK else None, status=status,
                       sim_time=steps * self.world.dt, steps=steps, reading=reading, gesture=gesture_dict(throw_))

    # -- results ----------------------------------------------------------------------------
    def summarize_extra(self, records: list[dict]) -> dict:
        """The "fairness" block of the result JSON: Pearson's chi-square of the face counts
        against a fair die (1/6 each) among labelled throws, its degrees of freedom and p-value,
        whether a fair die is rejected at 1%, and the cocked rate (LODGED among settled throws)
        with its 95% Wilson interval."""
        from scipy.stats import chi2

        counts = {label: 0 for label in LABELS}
        cocked = settled = 0
        for r in records:
            if r["status"] == Status.OK:
                counts[r["label"]] += 1
                settled += 1
            elif r["status"] == Status.LODGED:
                cocked += 1
                settled += 1
        n = sum(counts.values())
        block: dict = {"labelled": n, "expected_each": n / 6}
        if n:
            stat = sum((k - n / 6) ** 2 / (n / 6) for k in counts.values())
            p = float(chi2.sf(stat, 5))
            block.update(chi2=stat, dof=5, p_value=p, rejected_at_1pct=p < 0.01)
        else:
            block.update(chi2=None, dof=5, p_value=None, rejected_at_1pct=None)
        lo, hi = wilson_interval(cocked, settled)
        block["cocked"] = {"k": cocked, "n": settled, "p": cocked / settled if settled else 0.0, "ci95": [lo, hi]}
        return {"fairness": block}

    def params(self) -> dict:
        orientation = ("orientation uniform over rotations" if self.start.orientation is None
                       else "orientation: start turned about the vertical by yaw_deg")
        axis = ("spin axis uniform over directions" if self.start.spin_axis is None
                else "spin about the die axis spin_axis")
        distribution = f"uniform over each range; {orientation}; {axis}"
        return {
            "spec": str(self.spec_path),
            "die": {"size": self.size, "edge_radius": self.edge_radius, "mass": self.mass,
                    "inertia": self.inertia, "faces": dict(zip(AXES, self.faces)),
                    "collision": "Bullet's box of edge size (box-box contact); edge_radius is drawn only",
                    "material": self.die_material.as_dict()},
            "lid": {"half_x": self.half_x, "half_y": self.half_y, "wall_height": self.wall_height,
                    "wall_thickness": self.wall_thickness, "floor_thickness": self.floor_thickness,
                    "material": self.lid_material.as_dict(), "origin": list(self.origin)},
            "gesture": {"distribution": distribution,
                        "height": list(self.height_range), "speed": list(self.speed_range),
                        "elevation_deg": list(self.elevation_range), "azimuth_deg": list(self.azimuth_range),
                        "spin": list(self.spin_range), "aim_back": self.aim_back, **self.start.params()},
            "reading": {"tilt_deg": self.tilt_tol, "height_tol": self.height_tol, "rest_height": self.size / 2},
            "physics": self.world.settings.as_dict(),
            "settle": dict(self.settle.__dict__),
        }

