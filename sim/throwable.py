"""Thrown bodies: shapes with exact mass and inertia, the gestures people throw them with, and the
reading of the side a body comes to rest on. `tabletop estimate throw` (sim/devices/throw.py)
throws any of them; the shapes are built from a spec's [shape] table. The King Kong die is a
cuboid and each Knossos stick a half-cylinder of this module: their start (`Start`) and their
reading (`Shape.read`) are the throw's.

Body frame: origin at the centre of mass, axes along the principal axes of inertia.

Shapes (`shape.kind`):
- "cuboid", `size = [x, y, z]`: labels "+x" "-x" "+y" "-y" "+z" "-z", the body axis pointing up
  at rest. Bullet's box, whose box-box contact gives a face landing flat its whole contact in
  one step (a hull's GJK contact comes one point a step, and the first point alone tips a die
  landing flat over: tests/test_throw.py). Sharp edges; exact mass and inertia.
- "cylinder", `radius`, `height`: labels "top" (+z up), "bottom" (-z up), "side" (the axis
  level). Bullet's implicit cylinder (exactly round, no facets to roll over) with its rims rounded
  by the collision margin `edge_radius`; mass and inertia of that rounded solid of revolution.
- "half-cylinder", `radius`, `length`, `segments`: labels "flat" (the flat face up, lying on its
  rounded back) and "round" (the rounded back up, lying on its flat face). X along it, Z from the
  flat face toward the rounded back; a convex hull of `segments` facets round the back; mass,
  centre of mass (4 r / (3 pi) from the flat face) and inertia of the exact half-cylinder.

How a body leaves the hand (`Start`, from a [gesture] table's `start`, `yaw_deg` and `spin_axis` by
`load_start`): its orientation ("random": uniform over all rotations; a label: that rest state up;
or a quaternion [x, y, z, w]) turned by a yaw drawn from `yaw_deg` about the vertical, and the axis
of its spin ("random": uniform over all directions; or a body axis [x, y, z], turned with the
body). The throw's gestures, the King Kong die and the Knossos sticks all start their bodies
through it.

A rest state (`RestState`) is a body axis that points up (or, for a cylinder's side, lies level)
with the centre of mass at a known height above the surface. A body at rest is read when one rest
state holds within `tilt_deg` and `height_tol`; a body resting otherwise (leaning on a wall, on
another body, balanced on an edge) is LODGED, never coerced to the nearest label.

Gestures (`gesture.mode`), every number drawn uniformly from its [low, high] range:
- "drop": orientation uniform over all rotations, released with its lowest point `height` above
  the surface, moving at `speed` horizontally in a uniform direction and spinning at `spin` about
  an axis uniform over all directions (both may be [0, 0]: a still drop).
- "toss": from the orientation `start` (a label: that rest state up; or a quaternion
  [x, y, z, w]) turned by `yaw_deg` about the vertical, spinning at `spin` about the body axis
  `spin_axis`, launched at `speed` and `elevation_deg` toward `azimuth_deg` with its lowest point
  `height` above the surface: a coin flip (start "top", spin about [1, 0, 0], elevation 90) or a
  gentle die roll.
- "roll": from `start` resting on the surface (its rest height plus `lift`), rolled along the
  surface at `speed` toward `azimuth_deg`, turning forward about the level axis across the motion
  at speed / rest height (rolling off the hand without slipping) plus `spin` about `spin_axis`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from tabletop.sim.bullet import pybullet
from tabletop.sim.errors import SpecError

SHAPES = ("cuboid", "cylinder", "half-cylinder")
MODES = ("drop", "toss", "roll")
# the [shape] keys each kind reads, and the [gesture] keys each mode reads (beside kind/mode and
# material, speed, spin, azimuth_deg and aim_back): a --set of another is refused (it would do nothing)
SHAPE_KEYS = {"cuboid": ("size",), "cylinder": ("radius", "height", "edge_radius"),
              "half-cylinder": ("radius", "length", "segments", "margin")}
GESTURE_KEYS = {"drop": ("height",), "toss": ("height", "start", "yaw_deg", "spin_axis", "elevation_deg"),
                "roll": ("start", "yaw_deg", "spin_axis", "lift")}
_SHAPE_COMMON = ("kind", "material")
_GESTURE_COMMON = ("mode", "speed", "spin", "azimuth_deg", "aim_back")


def check_set(overrides, kind: str, mode: str) -> None:
    """SpecError for a `--set shape.KEY` that the shape `kind` does not read, or a `--set
    gesture.KEY` that the gesture `mode` does not (a half-cylinder has no `size`, a drop no
    `start`): such a value would be accepted and do nothing."""
    for name, _ in overrides:
        table, _, key = name.partition(".")
        if table == "shape" and key not in _SHAPE_COMMON + SHAPE_KEYS[kind]:
            others = "; ".join(f"a {k}'s: " + ", ".join(v) for k, v in SHAPE_KEYS.items() if k != kind)
            raise SpecError(f"--set {name}: a {kind} has no {key} (its dimensions: {', '.join(SHAPE_KEYS[kind])}; "
                            f"{others})")
        if table == "gesture" and key not in _GESTURE_COMMON + GESTURE_KEYS[mode]:
            uses = [m for m, keys in GESTURE_KEYS.items() if key in keys]
            raise SpecError(f"--set {name}: the gesture mode {mode} reads no {key}"
                            + (f" (only {' and '.join(uses)} {'does' if len(uses) == 1 else 'do'}: --set gesture.mode={uses[0]})"
                               if uses else ""))


# -- rotations (pure Python: used a few times per throw) ----------------------------------------
def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def qaxis(axis, angle):
    """The rotation by `angle` (radians) about the unit vector `axis`, as (x, y, z, w)."""
    s = math.sin(angle / 2)
    return (axis[0] * s, axis[1] * s, axis[2] * s, math.cos(angle / 2))


def rotate(q, v):
    """Vector v rotated by quaternion q (x, y, z, w)."""
    x, y, z, w = q
    vx, vy, vz = v
    tx, ty, tz = 2 * (y * vz - z * vy), 2 * (z * vx - x * vz), 2 * (x * vy - y * vx)
    return (vx + w * tx + y * tz - z * ty, vy + w * ty + z * tx - x * tz, vz + w * tz + x * ty - y * tx)


def uniform_quaternion(rng: np.random.Generator) -> tuple[float, float, float, float]:
    """A rotation uniform over SO(3): a normalised 4-d standard Gaussian."""
    while True:
        q = rng.normal(size=4)
        n = float(np.linalg.norm(q))
        if n > 1e-9:
            return tuple(float(v / n) for v in q)


def unit_vector(rng: np.random.Generator) -> tuple[float, float, float]:
    """A direction uniform over the sphere."""
    while True:
        v = rng.normal(size=3)
        n = float(np.linalg.norm(v))
        if n > 1e-9:
            return tuple(float(c / n) for c in v)


def turn_to_up(axis) -> tuple[float, float, float, float]:
    """The smallest rotation taking the body vector `axis` (unit) to world +Z."""
    ax, ay, az = axis
    dot = az
    if dot > 1.0 - 1e-12:
        return (0.0, 0.0, 0.0, 1.0)
    if dot < -1.0 + 1e-12:
        return (1.0, 0.0, 0.0, 0.0)          # half a turn about X
    cx, cy = ay, -ax                          # axis x +Z
    n = math.hypot(cx, cy)
    return qaxis((cx / n, cy / n, 0.0), math.acos(max(-1.0, min(1.0, dot))))


# -- shapes --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RestState:
    """A way to rest: body vector `axis` points up (or lies level, for `level`), the centre of mass
    `height` above the surface."""

    label: str
    axis: tuple[float, float, float]
    height: float
    level: bool = False


@dataclass(frozen=True)
class Shape:
    """A thrown body's geometry, mass properties and rest states (see the module docstring)."""

    kind: str
    dims: dict
    mass: float
    inertia: tuple[float, float, float]
    rests: tuple[RestState, ...]
    radius: float                 # of the smallest sphere about the centre of mass holding the body
    margin: float                 # Bullet's collision margin (the edge rounding, or the hull's skin)
    vertices: tuple = ()          # the hull's vertices (cuboid, half-cylinder), body frame

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(r.label for r in self.rests)

    def rest(self, label: str) -> RestState:
        for r in self.rests:
            if r.label == label:
                return r
        raise KeyError(label)

    def collision_shape(self, client) -> int:
        if self.kind == "cylinder":
            return client.createCollisionShape(pybullet.GEOM_CYLINDER, radius=self.dims["radius"],
                                               height=self.dims["height"])
        if self.kind == "cuboid":
            # Bullet's box-box detector gives a face landing flat its whole contact at once; a hull's
            # contacts come one point a step (GJK), and the first one alone tips the body over:
            # 58% of flat drops of a hull cube from 6 cm ended on another face, 0% of a box's
            return client.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[v / 2 for v in self.dims["size"]])
        return client.createCollisionShape(pybullet.GEOM_MESH, vertices=[list(v) for v in self.vertices])

    def look(self) -> list | None:
        """The hull a view draws (the cuboid's outer corners, the half-cylinder's hull); None for
        the cylinder, which a view draws from its collision shape."""
        if self.kind == "cylinder":
            return None
        if self.kind == "cuboid":
            hx, hy, hz = (v / 2 for v in self.dims["size"])
            return [[a * hx, b * hy, c * hz] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]
        return [list(v) for v in self.vertices]

    def read(self, orientation, height: float, tilt_deg: float, height_tol: float) -> dict:
        """The rest state the body is in (orientation (x, y, z, w), centre of mass `height` above
        the surface): {"label": label or None, "nearest": the rest state nearest by tilt, "tilt_deg"}."""
        best, best_tilt, label = None, 180.0, None
        for r in self.rests:
            up = rotate(orientation, r.axis)[2]
            tilt = math.degrees(math.asin(min(1.0, abs(up)))) if r.level else \
                math.degrees(math.acos(max(-1.0, min(1.0, up))))
            if tilt < best_tilt:
                best, best_tilt = r, tilt
            if label is None and tilt <= tilt_deg and abs(height - r.height) <= height_tol:
                label = r.label
        return {"label": label, "nearest": best.label, "tilt_deg": best_tilt}

    def depth(self, orientation) -> float:
        """How far the body's lowest point lies below its centre of mass at `orientation`."""
        if self.kind == "cylinder":
            r, h, m = self.dims["radius"], self.dims["height"], self.margin
            az = abs(rotate(orientation, (0.0, 0.0, 1.0))[2])
            return (h / 2 - m) * az + (r - m) * math.sqrt(max(0.0, 1.0 - az * az)) + m
        return max(-rotate(orientation, v)[2] for v in self.vertices) + self.margin

    def start_label(self, orientation) -> str:
        """The rest state nearest to the orientation (the side up at release)."""
        return self.read(orientation, 0.0, 0.0, 0.0)["nearest"]

    def params(self) -> dict:
        return {"kind": self.kind, **self.dims, "mass": self.mass, "inertia": list(self.inertia),
                "margin": self.margin, "labels": list(self.labels),
                "rest_heights": {r.label: r.height for r in self.rests}}


def rounded_cylinder_moments(radius: float, height: float, r: float) -> tuple[float, float, float]:
    """Volume, int (x^2 + y^2) dV and int z^2 dV of a cylinder (outer radius, height) whose rims are
    rounded by r (the core cylinder swept by a ball of radius r), by slices across its axis."""
    from scipy.integrate import quad

    a, c = radius - r, height / 2 - r
    rho = lambda z: a + math.sqrt(max(r * r - (z - c) ** 2, 0.0))     # noqa: E731  (rim, c < z < c + r)
    vol = math.pi * radius ** 2 * 2 * c + 2 * quad(lambda z: math.pi * rho(z) ** 2, c, c + r, epsabs=0, epsrel=1e-12)[0]
    srr = math.pi / 2 * radius ** 4 * 2 * c + 2 * quad(lambda z: math.pi / 2 * rho(z) ** 4, c, c + r,
                                                        epsabs=0, epsrel=1e-12)[0]
    szz = math.pi * radius ** 2 * 2 * c ** 3 / 3 + 2 * quad(lambda z: math.pi * rho(z) ** 2 * z * z, c, c + r,
                                                            epsabs=0, epsrel=1e-12)[0]
    return vol, srr, szz


def half_cylinder_vertices(length: float, radius: float, segments: int) -> list[list[float]]:
    """Vertices of a half-cylinder's hull in its body frame (origin at the centre of mass)."""
    d = 4.0 * radius / (3.0 * math.pi)
    verts = []
    for k in range(segments + 1):
        a = math.pi * k / segments          # 0 .. pi across the rounded back
        y, z = radius * math.cos(a), radius * math.sin(a) - d
        verts.append([-length / 2, y, z])
        verts.append([length / 2, y, z])
    return verts


def cuboid(size: Sequence[float], density: float) -> Shape:
    """A box with sharp edges (Bullet's box-box contact; see Shape.collision_shape)."""
    sx, sy, sz = (float(v) for v in size)
    mass = density * sx * sy * sz
    inertia = (mass * (sy * sy + sz * sz) / 12, mass * (sx * sx + sz * sz) / 12, mass * (sx * sx + sy * sy) / 12)
    verts = tuple((a * sx / 2, b * sy / 2, c * sz / 2) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1))
    rests = tuple(RestState(f"{sign}{name}", tuple(s * float(k == i) for k in range(3)), half)
                  for i, (name, half) in enumerate((("x", sx / 2), ("y", sy / 2), ("z", sz / 2)))
                  for sign, s in (("+", 1.0), ("-", -1.0)))
    bound = math.sqrt(sx * sx + sy * sy + sz * sz) / 2
    return Shape("cuboid", {"size": [sx, sy, sz]}, mass, inertia, rests, bound, 0.0, verts)


def cylinder(radius: float, height: float, edge_radius: float, density: float) -> Shape:
    vol, srr, szz = rounded_cylinder_moments(radius, height, edge_radius)
    mass = density * vol
    ixx = density * (srr / 2 + szz)
    rests = (RestState("top", (0.0, 0.0, 1.0), height / 2), RestState("bottom", (0.0, 0.0, -1.0), height / 2),
             RestState("side", (0.0, 0.0, 1.0), radius, level=True))
    return Shape("cylinder", {"radius": radius, "height": height, "edge_radius": edge_radius}, mass,
                 (ixx, ixx, density * srr), rests, math.hypot(radius, height / 2), edge_radius)


def half_cylinder(radius: float, length: float, segments: int, margin: float, density: float) -> Shape:
    d = 4.0 * radius / (3.0 * math.pi)
    mass = density * math.pi * radius ** 2 * length / 2
    inertia = (mass * (radius ** 2 / 2 - d * d), mass * (length ** 2 / 12 + radius ** 2 / 4 - d * d),
               mass * (length ** 2 / 12 + radius ** 2 / 4))
    rests = (RestState("flat", (0.0, 0.0, -1.0), radius - d), RestState("round", (0.0, 0.0, 1.0), d))
    verts = tuple(tuple(v) for v in half_cylinder_vertices(length, radius, segments))
    bound = math.sqrt((length / 2) ** 2 + radius ** 2 + d * d) + margin    # a corner of the flat face
    return Shape("half-cylinder", {"radius": radius, "length": length, "segments": segments}, mass, inertia,
                 rests, bound, margin, verts)


def load_shape(t, density: float) -> Shape:
    """A Shape from a spec's [shape] table (a tabletop.sim.spec.Table), validated."""
    kind = t.string("kind")
    if kind not in SHAPES:
        raise SpecError(f"{t.source}: shape.kind: {kind!r} is not one of {', '.join(SHAPES)}")
    if kind == "cuboid":
        size = t.data.get("size")
        if (not isinstance(size, list) or len(size) != 3 or not all(isinstance(v, (int, float)) for v in size)
                or not all(0.001 <= v <= 1.0 for v in size)):
            raise SpecError(f"{t.source}: shape.size: expected [x, y, z] in metres, each 0.001 to 1, got {size!r}")
        return cuboid(size, density)
    if kind == "cylinder":
        radius, height = t.number("radius", 0.001, 0.5), t.number("height", 0.0005, 1.0)
        r = t.number("edge_radius", 1e-5, min(radius, height / 2) / 2)
        return cylinder(radius, height, r, density)
    radius, length = t.number("radius", 0.001, 0.2), t.number("length", 0.002, 1.0)
    segments = t.integer("segments", 5, 255)
    if segments % 2 == 0:
        raise SpecError(f"{t.source}: shape.segments: {segments} must be odd, so that a facet (not a ridge) lies "
                        f"at the crown of the rounded back and the body rests level on it")
    return half_cylinder(radius, length, segments, t.number("margin", 0.0, radius / 10), density)


# -- starts --------------------------------------------------------------------------------------
RANDOM = "random"
_TABLE = object()          # load_start: read `start` from the table


def rest_orientation(rest: RestState) -> tuple[float, float, float, float]:
    """The orientation that puts rest state `rest` up: the smallest turn taking its axis to +Z, or
    for a level rest (a cylinder on its side) its axis laid along X."""
    if rest.level:
        return qaxis((0.0, 1.0, 0.0), math.pi / 2)
    return turn_to_up(rest.axis)


@dataclass(frozen=True)
class Start:
    """How a body leaves the hand: its orientation and the axis of its spin (module docstring).

    orientation  None: uniform over all rotations; else the fixed orientation (x, y, z, w),
                 turned about the vertical by a yaw drawn from `yaw_deg`
    label        the rest state that orientation puts up (None for a quaternion or at random)
    yaw_deg      [low, high] of that turn (degrees)
    spin_axis    None: uniform over all directions; else a unit body axis, turned with the body
    """

    orientation: tuple[float, float, float, float] | None = None
    label: str | None = None
    yaw_deg: tuple[float, float] = (0.0, 0.0)
    spin_axis: tuple[float, float, float] | None = None

    def turn(self, rng: np.random.Generator, yaw: float | None = None) -> tuple[float, float, float, float]:
        """The body's orientation at release: uniform over all rotations (a 4-d Gaussian draw), or the
        fixed one turned about the vertical by `yaw` (radians; when None, one draw from yaw_deg)."""
        if self.orientation is None:
            return uniform_quaternion(rng)
        if yaw is None:
            yaw = math.radians(float(rng.uniform(*self.yaw_deg)))
        return qmul(qaxis((0.0, 0.0, 1.0), yaw), self.orientation)

    def spin(self, rng: np.random.Generator, q, rate: Sequence[float]) -> tuple[float, float, float]:
        """The angular velocity (rad/s, world frame) of a body released at orientation q: a rate drawn
        from `rate` [low, high] about a direction uniform over the sphere (drawn first), or about
        the body axis spin_axis turned by q."""
        if self.spin_axis is None:
            axis = unit_vector(rng)
            r = float(rng.uniform(*rate))
            return tuple(r * a for a in axis)
        r = float(rng.uniform(*rate))
        return rotate(q, tuple(r * a for a in self.spin_axis))

    def spec_start(self):
        """The start as a spec gives it: "random", a label or a quaternion [x, y, z, w]."""
        if self.orientation is None:
            return RANDOM
        return self.label if self.label is not None else list(self.orientation)

    def params(self) -> dict:
        return {"start": self.spec_start(), "yaw_deg": list(self.yaw_deg),
                "spin_axis": RANDOM if self.spin_axis is None else list(self.spin_axis)}


def _real(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def parse_start(value: Any, where: str, rests: Sequence[RestState], random: bool = True):
    """(orientation, label) of a spec's `start` value: "random" (None, None; where `random` allows
    it), a rest state's label (that rest state up; an integer is taken as its text, so that
    `--set gesture.start=1` names a die's face), or a unit quaternion [x, y, z, w]. Else SpecError
    (`where` names the file and key)."""
    labels = [r.label for r in rests]
    if isinstance(value, int) and not isinstance(value, bool) and str(value) in labels:
        value = str(value)
    if random and value == RANDOM:
        return None, None
    if isinstance(value, str):
        for r in rests:
            if r.label == value:
                return rest_orientation(r), value
        either = f'"{RANDOM}" or ' if random else ""
        raise SpecError(f"{where}: {value!r} is not {either}one of this shape's labels ({', '.join(labels)})")
    if (isinstance(value, list) and len(value) == 4 and all(_real(v) for v in value)
            and math.isclose(sum(v * v for v in value), 1.0, rel_tol=1e-3)):
        n = math.sqrt(sum(v * v for v in value))
        return tuple(float(v) / n for v in value), None
    either = f'"{RANDOM}", ' if random else ""
    raise SpecError(f"{where}: {either}a label ({', '.join(labels)}) or a unit quaternion [x, y, z, w], "
                    f"got {value!r}")


def parse_axis(value: Any, where: str, random: bool = True) -> tuple[float, float, float] | None:
    """A spec's `spin_axis`: None for "random" (where `random` allows it), else the unit body axis."""
    if random and value == RANDOM:
        return None
    if (isinstance(value, list) and len(value) == 3 and all(_real(v) for v in value)
            and math.sqrt(sum(v * v for v in value)) >= 1e-9):
        n = math.sqrt(sum(v * v for v in value))
        return tuple(float(v) / n for v in value)
    either = f'"{RANDOM}" or ' if random else ""
    raise SpecError(f"{where}: {either}a body-frame direction [x, y, z], got {value!r}")


def load_start(t, rests: Sequence[RestState], *, start: Any = RANDOM, yaw_deg=(0.0, 0.0), spin_axis: Any = RANDOM,
               random_start: bool = True, random_axis: bool = True, value: Any = _TABLE) -> Start:
    """A Start from a spec's [gesture] table (a sim.spec.Table): its keys `start`, `yaw_deg` and
    `spin_axis`, each optional (the defaults as given); "random" is allowed where `random_start`
    and `random_axis` say. `value` is a start to read instead of the table's (one of a pair)."""
    d = t.data
    where = f"{t.source}: {t.prefix}"
    orientation, label = parse_start(d.get("start", start) if value is _TABLE else value, where + "start", rests,
                                     random_start)
    yaw = t.range("yaw_deg", -360.0, 720.0) if "yaw_deg" in d else tuple(float(v) for v in yaw_deg)
    axis = parse_axis(d.get("spin_axis", spin_axis), where + "spin_axis", random_axis)
    return Start(orientation, label, yaw, axis)


# -- gestures ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Release:
    """One throw's start: the body's centre of mass (m) and orientation (x, y, z, w) in the device
    frame (the surface's centre at the origin), its velocity (m/s) and angular velocity (rad/s,
    world frame), and the rest state nearest to up at release."""

    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]
    velocity: tuple[float, float, float]
    spin: tuple[float, float, float]
    start: str


class Gesture:
    """A throw's distribution, from a spec's [gesture] table (see the module docstring)."""

    def __init__(self, t, shape: Shape):
        self.shape = shape
        self.mode = t.string("mode")
        if self.mode not in MODES:
            raise SpecError(f"{t.source}: gesture.mode: {self.mode!r} is not one of {', '.join(MODES)}")
        d = t.data
        zero = lambda key: d.get(key, [0.0, 0.0])                      # noqa: E731
        self.speed = t.range("speed", 0.0, 20.0) if "speed" in d else tuple(zero("speed"))
        self.spin = t.range("spin", 0.0, 500.0) if "spin" in d else tuple(zero("spin"))
        self.azimuth = t.range("azimuth_deg", -360.0, 720.0) if "azimuth_deg" in d else (0.0, 360.0)
        self.aim_back = t.number("aim_back", -1.0, 1.0) if "aim_back" in d else 0.0
        if self.mode == "drop":
            self.height = t.range("height", 0.0, 5.0)
            self.start_rule = Start()                 # uniform over rotations, spin axis over directions
            self.start = None
            self.start_orientation = None
            return
        self.start_rule = load_start(t, shape.rests, start=None, yaw_deg=(0.0, 360.0), spin_axis=[1.0, 0.0, 0.0],
                                     random_start=False, random_axis=False)
        self.start = self.start_rule.label
        self.start_orientation = self.start_rule.orientation
        self.yaw = self.start_rule.yaw_deg
        self.spin_axis = self.start_rule.spin_axis
        if self.mode == "toss":
            self.height = t.range("height", 0.0, 5.0)
            self.elevation = t.range("elevation_deg", -90.0, 90.0) if "elevation_deg" in d else (0.0, 0.0)
        else:
            self.lift = t.range("lift", 0.0, 0.05) if "lift" in d else (0.0005, 0.0005)

    def _label_orientation(self, label: str):
        return rest_orientation(self.shape.rest(label))

    def sample(self, rng: np.random.Generator, gravity: float) -> Release:
        u = rng.uniform
        if self.mode == "drop":
            clearance = float(u(*self.height))
            q = self.start_rule.turn(rng)
            speed, az = float(u(*self.speed)), math.radians(float(u(*self.azimuth)))
            vel = (speed * math.cos(az), speed * math.sin(az), 0.0)
            w = self.start_rule.spin(rng, q, self.spin)
            height = clearance + self.shape.depth(q)
            return self._release((0.0, 0.0, height), q, vel, w, gravity)
        q = self.start_rule.turn(rng)
        speed, az = float(u(*self.speed)), math.radians(float(u(*self.azimuth)))
        w = self.start_rule.spin(rng, q, self.spin)
        if self.mode == "toss":
            height = float(u(*self.height)) + self.shape.depth(q)
            el = math.radians(float(u(*self.elevation)))
            vel = (speed * math.cos(el) * math.cos(az), speed * math.cos(el) * math.sin(az), speed * math.sin(el))
            return self._release((0.0, 0.0, height), q, vel, w, gravity)
        lift = float(u(*self.lift))
        h = self._rest_height(q)
        fwd = (math.cos(az), math.sin(az), 0.0)
        roll = speed / h                              # forward about the level axis across the motion
        w = (w[0] - fwd[1] * roll, w[1] + fwd[0] * roll, w[2])
        return self._release((0.0, 0.0, h + lift), q, (speed * fwd[0], speed * fwd[1], 0.0), w, gravity)

    def _rest_height(self, q) -> float:
        """The centre of mass height of the rest state nearest to orientation q."""
        return self.shape.rest(self.shape.start_label(q)).height

    def _release(self, pos, q, vel, w, gravity) -> Release:
        """Place the hand so the body would land `aim_back` short of the surface's centre."""
        vz = vel[2]
        vh = math.hypot(vel[0], vel[1])
        drop = max(pos[2] - self.shape.depth(q), 0.0)
        t_fall = (vz + math.sqrt(vz * vz + 2 * gravity * drop)) / gravity if self.mode != "roll" else 0.0
        back = (self.aim_back + vh * t_fall) if vh > 1e-12 else 0.0
        ux, uy = (vel[0] / vh, vel[1] / vh) if vh > 1e-12 else (0.0, 0.0)
        return Release((pos[0] - ux * back, pos[1] - uy * back, pos[2]), tuple(q), tuple(vel), tuple(w),
                       self.shape.start_label(q))

    def params(self) -> dict:
        out = {"mode": self.mode, "speed": list(self.speed), "spin": list(self.spin),
               "azimuth_deg": list(self.azimuth), "aim_back": self.aim_back,
               "distribution": "uniform over each range"}
        if self.mode == "drop":
            out.update(height=list(self.height), orientation="uniform over all rotations",
                       spin_axis="uniform over all directions")
        else:
            out.update(start=self.start if self.start is not None else list(self.start_orientation),
                       yaw_deg=list(self.yaw), spin_axis=list(self.spin_axis))
            if self.mode == "toss":
                out.update(height=list(self.height), elevation_deg=list(self.elevation))
            else:
                out.update(lift=list(self.lift), rolling="forward at speed / rest height about the level axis "
                                                         "across the motion, plus spin about spin_axis")
        return out

    def ranges(self) -> tuple[str, ...]:
        """Spec keys of the gesture's ranges (the model band varies them)."""
        keys = ["gesture.speed", "gesture.spin"]
        if self.mode in ("drop", "toss"):
            keys.append("gesture.height")
        if self.mode == "toss":
            keys.append("gesture.elevation_deg")
        return tuple(keys)
