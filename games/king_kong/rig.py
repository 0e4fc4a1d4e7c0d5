"""King Kong's physical rig: the board on its table, Kong's figure on his ring and slide, the Attack
Team's pawns, the hand that moves him, and one move simulated and read (`run_move`). The game's
table (tabletop.games.king_kong.table) and the kong-knockover device (knockover.py) both build on it;
it knows the rules' label words (labels.py), not the rules. docs/reconstruction-kong.md gives every
number and why; table.py's docstring describes the model.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from tabletop.gamekit.devices import default_spec
from tabletop.games.king_kong.board import Board
from tabletop.games.king_kong.geometry import KONG_FILE, Kong, load_kong
from tabletop.games.king_kong.labels import COLOURS
from tabletop.games.king_kong.layout import (BOARD, BOARD_TOP, FIGURE, KONG, LIFT, SLIDE, TABLE,
                                             PawnShape, load_pawn, pawn_name, start_spot)
from tabletop.sim.bullet import pybullet
from tabletop.sim.devices.base import Outcome, Status
from tabletop.sim.errors import SpecError
from tabletop.sim.materials import Material, load_materials, pick_material
from tabletop.sim.paths import assets_dir
from tabletop.sim.readouts import SettleRule, is_upright, run_until_settled, up_tilt_deg
from tabletop.sim.spec import DEFAULT_CONTACT_SLOP, load_toml, read_numerics
from tabletop.sim.world import World

LEAD = 0.25                       # of a notch: the hand's stroke waits while Kong lags his target by more
ARRIVED = 0.01                    # of a notch: a stroke ends with Kong this close to his notch
JAM_SECONDS = 3.0                 # a notch not reached in this time (a stroke takes under half a second) is a jam
SPEED_MARGIN = 1.5                # the motors' speed cap, over the fastest stroke's peak speed
_SPOT_STEP = 0.002                # m: grid of spots searched for a pawn that cannot stand at its own spot


# -- the physics spec (knockover.toml) -------------------------------------------------------------
@dataclass(frozen=True)
class KongPhysics:
    """The physics of a Kong move, from knockover.toml (see its comments)."""

    spec_path: Path
    pawn: PawnShape
    board_material: Material
    board_thickness: float
    track_depth: float
    table_material: Material
    table_below: float
    table_margin: float
    kong_material: Material
    max_torque: float
    max_force: float
    press: float
    max_lift: float
    control_every: int
    seconds_per_notch: tuple[float, float]
    pause: tuple[float, float]
    place_jitter: float
    tilt_deg: float
    lodge_height: float
    groove_fraction: float
    start_up_fraction: float
    spinner_path: Path
    timestep: float
    solver_iterations: int
    solver_residual_threshold: float
    settle: SettleRule
    contact_slop: float = DEFAULT_CONTACT_SLOP


def load_physics(path: str | Path | None = None, kong: Kong | None = None, overrides=()) -> KongPhysics:
    path = Path(path) if path is not None else default_spec("kong-knockover")
    kong = kong or load_kong()
    spec = load_toml(path, overrides)
    materials = load_materials(assets_dir() / "materials.toml", overrides)
    pawn = load_pawn(path.parent / spec.string("pawn"), kong, overrides)
    b, k, g, rd, sm, ph, tb = (spec.table(n) for n in ("board", "kong", "gesture", "reading", "sample", "physics",
                                                       "table"))
    spinner = path.parent / sm.string("spinner")
    if not spinner.is_file():
        raise SpecError(f"{spec.source}: sample.spinner: no spinner spec at {spinner}")
    depth = b.number("track_depth", 0.0, 0.05)
    numerics = SimpleNamespace()
    read_numerics(numerics, ph)
    return KongPhysics(
        spec_path=path, pawn=pawn,
        board_material=pick_material(b, "material", materials), board_thickness=b.number("thickness", 0.002, 0.1),
        track_depth=depth, table_material=pick_material(tb, "material", materials),
        table_below=tb.number("below_board", 0.0, 0.01), table_margin=tb.number("margin", 0.05, 2.0),
        kong_material=pick_material(k, "material", materials), max_torque=k.number("max_torque", 1e-4, 100.0),
        max_force=k.number("max_force", 1e-3, 1000.0), press=k.number("press", 0.0, 100.0),
        max_lift=k.number("max_lift", 0.0, 0.1), control_every=k.integer("control_every", 1, 100),
        seconds_per_notch=g.range("seconds_per_notch", 0.05, 5.0), pause=g.range("pause", 0.0, 2.0),
        place_jitter=g.number("place_jitter", 0.0, 0.01),
        tilt_deg=rd.number("tilt_deg", 1.0, 80.0), lodge_height=rd.number("lodge_height", 1e-4, 0.05),
        groove_fraction=sm.number("groove_fraction", 0.0, 1.0),
        start_up_fraction=sm.number("start_up_fraction", 0.0, 1.0), spinner_path=spinner,
        timestep=numerics.timestep, solver_iterations=numerics.solver_iterations,
        solver_residual_threshold=numerics.solver_residual_threshold, settle=SettleRule.from_table(spec.table("settle")),
        contact_slop=numerics.contact_slop)


# -- the figure's outline as boxes --------------------------------------------------------------
@dataclass(frozen=True)
class Plate:
    """A box of the figure in the figure frame: centre (m), half extents along its own axes, angle (rad)."""

    centre: tuple[float, float]
    half: tuple[float, float]
    angle: float

    def distance(self, p) -> float:
        """Distance from figure-frame point p to the box's outline in the plane (0 inside)."""
        c, s = math.cos(self.angle), math.sin(self.angle)
        dx, dy = p[0] - self.centre[0], p[1] - self.centre[1]
        lx, ly = abs(c * dx + s * dy) - self.half[0], abs(-s * dx + c * dy) - self.half[1]
        return math.hypot(max(lx, 0.0), max(ly, 0.0))


def figure_plates(kong: Kong, notch_width: float, notch_reach: float) -> list[Plate]:
    """The body, and for each limb a strip up to its notch and the notch's two prongs."""
    (bx, by), (w, h) = kong.body_centre, kong.body_size
    plates = [Plate((bx, by), (w / 2, h / 2), 0.0)]
    for limb in kong.limbs:
        a, g = np.array(limb.start), np.array(kong.grooves[limb.groove])
        length = float(np.linalg.norm(g - a))
        d = (g - a) / length
        n = np.array([-d[1], d[0]])
        angle = math.atan2(d[1], d[0])
        closed = length - notch_width / 2                  # the slot's closed end, from the limb's start
        if closed <= 0:
            raise SpecError(f"kong.toml: limb {limb.groove}: the notch ({notch_width} m) is deeper than the limb")
        mid = a + d * closed / 2
        plates.append(Plate(tuple(mid), (closed / 2, limb.width / 2), angle))
        prong = (limb.width - notch_width) / 2
        if prong < 0.001:
            raise SpecError(f"kong.toml: figure.notch_width: {notch_width} m leaves the {limb.groove}'s "
                            f"{limb.width} m limb prongs under 1 mm wide")
        span = notch_width / 2 + notch_reach
        along = a + d * (closed + span / 2)
        for side in (-1, 1):
            c = along + n * side * (notch_width / 2 + prong / 2)
            plates.append(Plate(tuple(c), (span / 2, prong / 2), angle))
    return plates


def _figure_inertia(plates: list[Plate], thickness: float, density: float) -> tuple[float, tuple]:
    """Mass and principal-axis inertia about the ring centre (the joint axis) of the plates, thin plates,
    overlaps counted twice (a cardboard standee; the motors drive it, so its inertia hardly matters)."""
    mass = ixx = iyy = izz = 0.0
    for p in plates:
        lx, ly = 2 * p.half[0], 2 * p.half[1]
        m = density * lx * ly * thickness
        c, s = math.cos(p.angle), math.sin(p.angle)
        jxx = m * ((c * ly) ** 2 + (s * lx) ** 2) / 12
        jyy = m * ((s * ly) ** 2 + (c * lx) ** 2) / 12
        mass += m
        ixx += jxx + m * p.centre[1] ** 2
        iyy += jyy + m * p.centre[0] ** 2
        izz += m * (lx * lx + ly * ly) / 12 + m * (p.centre[0] ** 2 + p.centre[1] ** 2)
    return mass, (ixx, iyy, izz)


# -- the hand that moves Kong ------------------------------------------------------------------
@dataclass(frozen=True)
class Hand:
    """How a player moves Kong and puts the pawns down: the time of each notch's stroke, the pause at
    each notch, and each pawn's offset from its spot as placed by hand (m)."""

    seconds_per_notch: float
    pause: float
    jitter: tuple[tuple[float, float], ...]


def sample_hand(physics: KongPhysics, pawns: int, rng: np.random.Generator) -> Hand:
    t = float(rng.uniform(*physics.seconds_per_notch))
    pause = float(rng.uniform(*physics.pause))
    jitter = []
    for _ in range(pawns):
        rad, ang = physics.place_jitter * math.sqrt(float(rng.random())), 2 * math.pi * float(rng.random())
        jitter.append((rad * math.cos(ang), rad * math.sin(ang)))
    return Hand(t, pause, tuple(jitter))


@dataclass(frozen=True)
class PawnPlace:
    """Where a pawn is put for a move: its spot (board frame, m), whether it is fitted in a groove, and
    the spaces (rectangles x0, x1, y0, y1) it must stay in to count as not pushed out."""

    x: float
    y: float
    in_groove: bool
    rects: tuple[tuple[float, float, float, float], ...]


# -- the rig: board, Kong and pawns in a World ---------------------------------------------------
class KongRig:
    """The board, Kong and `pawns` pawns built into `world` (its timestep must be the spec's)."""

    def __init__(self, world: World, board: Board, kong: Kong, physics: KongPhysics, pawns: int,
                 notch_width: float | None = None, notch_reach: float | None = None):
        if abs(world.dt - physics.timestep) > 1e-12:
            raise SpecError(f"{physics.spec_path}: physics.timestep {physics.timestep} differs from the world's {world.dt}")
        self.world, self.board, self.kong, self.physics = world, board, kong, physics
        self._motor = world.client.setJointMotorControl2   # once: each client attribute is a new partial
        self.pawn = physics.pawn
        fig = load_toml(KONG_FILE).table("figure")
        self.notch_width = notch_width or fig.number("notch_width", 2 * self.pawn.body_radius + 1e-4, 0.05)
        self.notch_reach = notch_reach if notch_reach is not None else fig.number("notch_reach", 0.0, 0.05)
        if self.notch_width <= 2 * self.pawn.body_radius:
            raise SpecError(f"kong.toml: figure.notch_width {self.notch_width} m does not fit the pawn's "
                            f"{2 * self.pawn.body_radius} m body")
        self.plates = figure_plates(kong, self.notch_width, self.notch_reach)
        fastest = physics.seconds_per_notch[0]          # a raised-cosine stroke peaks at twice its mean speed
        self._max_twist_v = SPEED_MARGIN * 2 * self.twist_q(1) / fastest
        self._max_climb_v = SPEED_MARGIN * 2 * self.climb_q(1) / fastest
        self.reach = max(math.hypot(*p.centre) + math.hypot(*p.half) for p in self.plates)
        self.names = [pawn_name(i) for i in range(pawns)]
        self.places: list[PawnPlace | None] = [None] * pawns
        self.arrivals: list[tuple[float, float]] = []
        self._build()
        self.park()

    def renew(self) -> None:
        """A fresh Bullet world with the board and Kong built again (at rest at his start) and no
        pawns yet: a move started here depends on nothing that moved before it (Bullet keeps
        solver state of removed bodies; see tabletop.sim.world.World.renew). The world must be
        the rig's alone."""
        self.world.renew()
        self.places = [None] * len(self.names)
        self._build()

    # -- building ------------------------------------------------------------------------------
    def _build(self) -> None:
        self._build_board()
        self._build_kong()
        shape = self.pawn
        kinds = {"cylinder": pybullet.GEOM_CYLINDER, "sphere": pybullet.GEOM_SPHERE}
        parts = shape.parts
        self._pawn_shape = self.world.client.createCollisionShapeArray(
            [kinds[k] for k, _, _ in parts], radii=[d[0] for _, d, _ in parts],
            lengths=[d[1] if len(d) > 1 else 0.0 for _, d, _ in parts],
            collisionFramePositions=[[0.0, 0.0, z - shape.com_z] for _, _, z in parts])
        self.set_pose(0, 0)

    def _build_board(self) -> None:
        """The board slab (top at z = 0) with the track channel cut up the middle."""
        c, ph = self.world.client, self.physics
        sx, sy = self.board.size
        t, depth = ph.board_thickness, ph.track_depth
        x0, x1, y0, y1 = self.board.track
        boxes = []   # (half extents, centre)

        def box(xa, xb, ya, yb, za, zb):
            if xb - xa > 1e-9 and yb - ya > 1e-9 and zb - za > 1e-9:
                boxes.append((((xb - xa) / 2, (yb - ya) / 2, (zb - za) / 2), ((xa + xb) / 2, (ya + yb) / 2, (za + zb) / 2)))

        box(-sx / 2, x0, -sy / 2, sy / 2, BOARD_TOP - t, BOARD_TOP)                # left of the track
        box(x1, sx / 2, -sy / 2, sy / 2, BOARD_TOP - t, BOARD_TOP)                 # right of it
        box(x0, x1, -sy / 2, y0, BOARD_TOP - t, BOARD_TOP)                         # below the track (Start)
        box(x0, x1, y1, sy / 2, BOARD_TOP - t, BOARD_TOP)                          # above it
        box(x0, x1, y0, y1, BOARD_TOP - t - depth, BOARD_TOP - depth)      # the channel's floor
        shape = c.createCollisionShapeArray([pybullet.GEOM_BOX] * len(boxes), halfExtents=[list(h) for h, _ in boxes],
                                            collisionFramePositions=[list(p) for _, p in boxes])
        body = c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=shape)
        self.world.add_body(BOARD, body, ph.board_material)
        # the table: its top the real board's thickness below the board's surface, reaching
        # `table.margin` beyond every edge (static, so it never touches the board's slab)
        m, top, tt = ph.table_margin, -ph.table_below, 0.02
        shape = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[sx / 2 + m, sy / 2 + m, tt / 2])
        table = c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=shape, basePosition=[0.0, 0.0, top - tt / 2])
        self.world.add_body(TABLE, table, ph.table_material)
        # a pawn has escaped when it is off the table or has fallen through the board or the table
        self._bounds = (-sx / 2 - m, sx / 2 + m, -sy / 2 - m, sy / 2 + m, min(-depth, top) - 0.01)

    def _build_kong(self) -> None:
        """The track's foot (fixed base) -> slide (prismatic along +y) -> the ring's play (prismatic along +z,
        from 0 up to `kong.max_lift`, pressed down by the hand's `kong.press` and the figure's weight, no
        motor) -> figure (revolute about +z). A pawn caught under the figure lifts it, as a cardboard
        standee rides up ("try not to lift King Kong as you move him"), instead of being crushed."""
        c, k, ph = self.world.client, self.kong, self.physics
        z = k.clearance + k.thickness / 2
        self._fig_shape = c.createCollisionShapeArray(
            [pybullet.GEOM_BOX] * len(self.plates),
            halfExtents=[[p.half[0], p.half[1], k.thickness / 2] for p in self.plates],
            collisionFramePositions=[[p.centre[0], p.centre[1], z] for p in self.plates],
            collisionFrameOrientations=[list(pybullet.getQuaternionFromEuler([0.0, 0.0, p.angle])) for p in self.plates])
        mass, inertia = _figure_inertia(self.plates, k.thickness, ph.kong_material.density)
        self.figure_mass = mass
        bx, by = k.bottom
        press_mass = ph.press / self.world.settings.gravity
        body = c.createMultiBody(
            baseMass=0.0, baseCollisionShapeIndex=-1, basePosition=[bx, by, 0.0],
            linkMasses=[0.01, max(press_mass, 1e-3), mass], linkCollisionShapeIndices=[-1, -1, self._fig_shape],
            linkVisualShapeIndices=[-1] * 3, linkPositions=[[0, 0, 0]] * 3, linkOrientations=[[0, 0, 0, 1]] * 3,
            linkInertialFramePositions=[[0, 0, 0]] * 3, linkInertialFrameOrientations=[[0, 0, 0, 1]] * 3,
            linkParentIndices=[0, 1, 2],
            linkJointTypes=[pybullet.JOINT_PRISMATIC, pybullet.JOINT_PRISMATIC, pybullet.JOINT_REVOLUTE],
            linkJointAxis=[[0, 1, 0], [0, 0, 1], [0, 0, 1]])
        self.world.add_body(KONG, body, ph.kong_material, links=(-1, SLIDE, LIFT, FIGURE))
        c.changeDynamics(body, FIGURE, localInertiaDiagonal=list(inertia))
        c.changeDynamics(body, SLIDE, localInertiaDiagonal=[1e-5] * 3)
        c.changeDynamics(body, LIFT, localInertiaDiagonal=[1e-5] * 3, jointLowerLimit=0.0,
                         jointUpperLimit=ph.max_lift)
        c.setJointMotorControl2(body, LIFT, pybullet.VELOCITY_CONTROL, targetVelocity=0.0, force=0.0)
        for under in (BOARD, TABLE):   # the figure rides on its ring, clear of the board and the table
            c.setCollisionFilterPair(body, self.world.bodies[under], FIGURE, -1, 0)
        self._kong = body

    def _add_pawn(self, i: int, xy, yaw: float) -> None:
        w, c, p = self.world, self.world.client, self.pawn
        name = self.names[i]
        if name in w.bodies:
            w.remove(name)
        body = c.createMultiBody(baseMass=p.mass, baseCollisionShapeIndex=self._pawn_shape,
                                 basePosition=[xy[0], xy[1], p.com_z],
                                 baseOrientation=list(pybullet.getQuaternionFromEuler([0, 0, yaw])))
        w.add_body(name, body, p.material)
        c.changeDynamics(body, -1, localInertiaDiagonal=list(p.inertia))

    # -- Kong's pose ---------------------------------------------------------------------------
    def climb_q(self, climb: float) -> float:
        return climb * self.kong.climb_step

    def twist_q(self, twist: float) -> float:
        return math.radians(twist * self.kong.notch_angle)

    def set_pose(self, climb: int, twist: int) -> None:
        """Kong at (climb, twist) notches, at rest, his motors holding him there."""
        c = self.world.client
        self._climb_q, self._twist_q = self.climb_q(climb), self.twist_q(twist)
        c.resetJointState(self._kong, SLIDE, self._climb_q, 0.0)
        c.resetJointState(self._kong, LIFT, 0.0, 0.0)
        c.resetJointState(self._kong, FIGURE, self._twist_q, 0.0)
        self._drive(self._climb_q, 0.0, self._twist_q, 0.0)

    def lift(self) -> float:
        """How far (m) the figure rides above its seat on the ring (a pawn caught under it lifts it)."""
        return self.world.client.getJointState(self._kong, LIFT)[0]

    def joint_pose(self) -> tuple[float, float]:
        """(climb in notches, twist in notches) of Kong's joints now."""
        c = self.world.client
        q_climb = c.getJointState(self._kong, SLIDE)[0]
        q_twist = c.getJointState(self._kong, FIGURE)[0]
        return q_climb / self.kong.climb_step, math.degrees(q_twist) / self.kong.notch_angle

    def _drive(self, climb_q: float, climb_v: float, twist_q: float, twist_v: float) -> None:
        """Both joint motors tracking targets, each with its cap on force and on speed."""
        motor, ph = self._motor, self.physics
        motor(self._kong, SLIDE, pybullet.POSITION_CONTROL, targetPosition=climb_q, targetVelocity=climb_v,
              force=ph.max_force, positionGain=0.3, velocityGain=1.0, maxVelocity=self._max_climb_v)
        motor(self._kong, FIGURE, pybullet.POSITION_CONTROL, targetPosition=twist_q, targetVelocity=twist_v,
              force=ph.max_torque, positionGain=0.3, velocityGain=1.0, maxVelocity=self._max_twist_v)

    def figure_distance(self, x: float, y: float, climb: float, twist: float) -> float:
        """Distance in the board's plane from (x, y) to the figure's outline with Kong at (climb, twist)."""
        cx, cy = self.kong.ring_centre(climb)
        a = math.radians(twist * self.kong.notch_angle)
        dx, dy = x - cx, y - cy
        if math.hypot(dx, dy) > self.reach + 0.05:
            return math.hypot(dx, dy) - self.reach
        c, s = math.cos(a), math.sin(a)
        p = (c * dx + s * dy, -s * dx + c * dy)
        return min(pl.distance(p) for pl in self.plates)

    # -- pawns ---------------------------------------------------------------------------------
    def park(self) -> None:
        """Every pawn on Start, side by side (where a game begins)."""
        for i in range(len(self.names)):
            self.put(i, self.start_spot(i), ())

    def start_spot(self, i: int) -> tuple[float, float]:
        return start_spot(self.board, i)

    def put(self, i: int, xy, rects, in_groove: bool = False) -> None:
        """A fresh pawn `i` standing at xy (at rest)."""
        self._add_pawn(i, xy, 0.0)
        self.places[i] = PawnPlace(float(xy[0]), float(xy[1]), in_groove, tuple(rects))

    def foot(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """(centre of the pawn's underside, orientation) of pawn i."""
        pos, orn = self.world.client.getBasePositionAndOrientation(self.world.bodies[self.names[i]])
        m = np.array(pybullet.getMatrixFromQuaternion(orn)).reshape(3, 3)
        return np.array(pos) - m[:, 2] * self.pawn.com_z, np.array(orn)

    def clear_spot(self, xy, rect, climb: int, twist: int, others, margin: float) -> tuple[float, float]:
        """The spot nearest `xy` with its axis inside `rect`, the pawn's body `margin` clear of the figure at
        (climb, twist), its base clear of the pawns at `others` and of the track channel; `xy` when clear."""
        p = self.pawn
        x0, x1, y0, y1 = rect
        tx0, tx1, ty0, ty1 = self.board.track

        def clear(x, y) -> bool:
            if self.figure_distance(x, y, climb, twist) < p.body_radius + margin:
                return False
            if ty0 - p.base_radius < y < ty1 + p.base_radius and tx0 - p.base_radius < x < tx1 + p.base_radius:
                return False
            return all(math.hypot(x - ox, y - oy) >= 2 * p.base_radius + margin for ox, oy in others)

        if clear(*xy):
            return tuple(xy)
        # nowhere clear in the space (Kong lies over all of it): just beside it, where his edge left the pawn
        for grow in (0.0, 2 * p.base_radius, 0.05):
            xs = np.arange(x0 - grow + _SPOT_STEP / 2, x1 + grow, _SPOT_STEP)
            ys = np.arange(y0 - grow + _SPOT_STEP / 2, y1 + grow, _SPOT_STEP)
            gx, gy = (g.ravel() for g in np.meshgrid(xs, ys))
            for k in np.argsort(np.hypot(gx - xy[0], gy - xy[1]), kind="stable"):
                x, y = float(gx[k]), float(gy[k])
                if clear(x, y) and self._on_board(x, y):
                    return x, y
        raise RuntimeError(f"no room for a pawn near ({xy[0]:.3f}, {xy[1]:.3f}): Kong and the other pawns fill it")

    def _on_board(self, x: float, y: float) -> bool:
        """Whether a pawn's whole base stands on the board's spaces."""
        x0, x1, y0, y1 = self.board.area
        r = self.pawn.base_radius
        return x0 + r <= x <= x1 - r and y0 + r <= y <= y1 - r

    # -- the move ------------------------------------------------------------------------------
    def move(self, twist_steps, climb_steps: int, hand: Hand, escaped=None) -> tuple[int, str]:
        """Move Kong from his pose: the twist notch by notch (+1 left, -1 right), then the climb.

        Each notch is one stroke of the hand: a raised-cosine speed profile over `hand.seconds_per_notch`
        that the joint's motor tracks. The hand never runs ahead of Kong: while the joint lags its target
        by more than `LEAD` of a notch (a pawn in the way), the stroke waits, pushing with the motor's
        cap; a stroke ends when Kong sits in its notch. A notch not reached within `JAM_SECONDS` is a
        jam. Returns (steps taken, "done" | "escaped" | "jammed"); `arrivals` holds Kong's joint pose
        (climb, twist in notches) at the end of each stroke."""
        w, ph = self.world, self.physics
        k = ph.control_every
        s0 = w.steps
        self.arrivals: list[tuple[float, float]] = []
        strokes = [("twist", d * self.twist_q(1)) for d in twist_steps]
        strokes += [("climb", self.climb_q(1))] * climb_steps
        n = max(1, round(hand.seconds_per_notch / w.dt))
        pause = round(hand.pause / w.dt)
        get = self.world.client.getJointState
        for what, delta in strokes:
            joint = FIGURE if what == "twist" else SLIDE
            start = self._twist_q if what == "twist" else self._climb_q
            lead, tol = LEAD * abs(delta), ARRIVED * abs(delta)
            end = w.steps + round(JAM_SECONDS / w.dt)
            j, target = 0, start
            while True:
                q_now = get(self._kong, joint)[0]
                if j >= n and abs(q_now - (start + delta)) <= tol:
                    break
                if w.steps >= end:
                    self.hold()
                    return w.steps - s0, "jammed"
                if j < n and abs(target - q_now) <= lead:
                    m = min(k, n - j)
                    u = (j + m) / n
                    target = start + delta * (u - math.sin(2 * math.pi * u) / (2 * math.pi))
                    v = delta / (n * w.dt) * (1 - math.cos(2 * math.pi * (j + m / 2) / n))
                    j += m
                else:
                    m, v = k, 0.0
                if what == "twist":
                    self._drive(self._climb_q, 0.0, target, v)
                else:
                    self._drive(target, v, self._twist_q, 0.0)
                w.step(m)
                if escaped is not None and escaped():
                    self.hold()
                    return w.steps - s0, "escaped"
            if what == "twist":
                self._twist_q = start + delta
            else:
                self._climb_q = start + delta
            self._drive(self._climb_q, 0.0, self._twist_q, 0.0)
            self.arrivals.append(self.joint_pose())
            if pause:
                w.step(pause)
        self.hold()
        return w.steps - s0, "done"

    def hold(self) -> None:
        """Kong let go in his notch: each joint held still by its detent (a velocity motor with target 0
        and the motor's cap), not pulled back to the notch by a spring that a wedged pawn would make
        buzz."""
        c, ph = self.world.client, self.physics
        c.setJointMotorControl2(self._kong, SLIDE, pybullet.VELOCITY_CONTROL, targetVelocity=0.0, force=ph.max_force)
        c.setJointMotorControl2(self._kong, FIGURE, pybullet.VELOCITY_CONTROL, targetVelocity=0.0, force=ph.max_torque)

    def escaped_check(self, indices):
        """A function: whether any of the pawns `indices` has left the table (off its edge, or through
        the board or the table)."""
        x0, x1, y0, y1, zmin = self._bounds
        get = self.world.client.getBasePositionAndOrientation
        bodies = [self.world.bodies[self.names[i]] for i in indices]

        def escaped() -> bool:
            for b in bodies:
                x, y, z = get(b)[0]
                if z < zmin or not (x0 <= x <= x1 and y0 <= y <= y1):
                    return True
            return False
        return escaped

    def settle(self, indices, escaped=None) -> tuple[bool, bool]:
        """Step until the pawns `indices` settle (our rule), one escapes, or the cap passes."""
        return run_until_settled(self.world, [self.names[i] for i in indices], self.physics.settle, escaped)

    def read(self, i: int) -> dict:
        """Pawn i's fate: knocked (tilted beyond reading.tilt_deg), pushed (its base clear of every space
        it must stay in), standing; lodged when it rests upright off the board."""
        foot, orn = self.foot(i)
        place, p = self.places[i], self.pawn
        tilt = up_tilt_deg(orn)
        gap = min(_rect_distance(foot, r) for r in place.rects) if place.rects else 0.0
        upright = is_upright(orn, self.physics.tilt_deg)
        if not upright:
            fate = "knocked"
        elif foot[2] > self.physics.lodge_height:
            fate = None
        elif gap > p.base_radius:
            fate = "pushed"
        else:
            fate = "standing"
        return {"fate": fate, "tilt_deg": round(tilt, 3), "foot": [round(float(v), 5) for v in foot],
                "moved": round(math.hypot(foot[0] - place.x, foot[1] - place.y), 5), "out_by": round(gap, 5)}

    def place_for_benchmark(self, climb: int = 8, twist: int = 0) -> None:
        """A pawn in the right hand's groove and Kong twisting left at a hand's mean speed (a velocity
        motor, so that a bare stepping loop moves him as a trial does)."""
        self.set_pose(climb, twist)
        g = self.kong.groove_point("right_hand", climb, twist)
        self.put(0, g, ())
        speed = self.twist_q(1) / (sum(self.physics.seconds_per_notch) / 2)
        c = self.world.client
        c.setJointMotorControl2(self._kong, FIGURE, pybullet.VELOCITY_CONTROL, targetVelocity=speed,
                                force=self.physics.max_torque)


def _rect_distance(p, rect) -> float:
    x0, x1, y0, y1 = rect
    return math.hypot(max(x0 - p[0], p[0] - x1, 0.0), max(y0 - p[1], p[1] - y1, 0.0))


# -- a Kong move from the rules' state ------------------------------------------------------------
def spread(n: int, base_radius: float) -> list[tuple[float, float]]:
    """Offsets from a space's centre for n pawns sharing it: the centre for one, else a ring."""
    if n == 1:
        return [(0.0, 0.0)]
    r = max(1.4 * base_radius, (base_radius + 0.0012) / math.sin(math.pi / n))
    return [(r * math.cos(2 * math.pi * k / n + math.pi / 2), r * math.sin(2 * math.pi * k / n + math.pi / 2))
            for k in range(n)]


def run_move(rig: KongRig, twist_steps, climb: int, hand: Hand, watched, at_risk) -> Outcome:
    """Kong's move on a placed rig, the watched pawns settled and the pawns `at_risk` read: the label is
    the rules' kong-move label ("red:standing blue:knocked"), the reading each pawn's by colour."""
    w = rig.world
    s0 = w.steps
    escaped = rig.escaped_check(watched)
    _, result = rig.move(twist_steps, climb, hand, escaped)
    esc, jammed, settled = result == "escaped", result == "jammed", False
    if result == "done":
        settled, esc = rig.settle(watched, escaped)
    readings = {i: rig.read(i) for i in at_risk}
    fates = {i: r["fate"] for i, r in readings.items()}
    if esc:
        status = Status.ESCAPED
    elif jammed:
        status = Status.LODGED
    elif not settled:
        status = Status.UNSETTLED
    elif any(f is None for f in fates.values()):
        status = Status.LODGED
    else:
        status = Status.OK
    ok = status is Status.OK
    text = " ".join(f"{COLOURS[i]}:{fates[i]}" for i in at_risk) if ok else None
    steps = w.steps - s0
    reading = {COLOURS[i]: r for i, r in readings.items()}
    if jammed:
        reading["jammed"] = True
    return Outcome(label=text, status=status, sim_time=steps * w.dt, steps=steps, reading=reading)
