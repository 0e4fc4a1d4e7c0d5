"""King of the Hill's Tipper: an hourglass-shaped see-saw with a ball, pegs and slots.

The tray is a jointed multibody over a fixed stand: one link of convex boxes and capsules, loaded
from a URDF (tabletop.sim.urdf: a URDF link takes any number of shapes), turns on a revolute joint (axis Y)
driven by a motor. Tray frame: X along the beam, end "A" at -X and end "B" at +X, Y across, Z up,
origin on the floor at the centre. Each half, from the centre outward: a narrow waist channel,
a flare, a hex-staggered field of round pegs (with wall bumps and knife-edged guard ridges),
then seven slots separated by divider walls and closed by the end wall; each slot ends in a
shallow pocket (a ramp the ball must roll up to leave). A lid closes the tray, so the ball can
never leave it. At rest the see-saw leans on the end that holds the ball (rest_angle_deg), so
the ball lies in a pocket at the low end.

A trial: the ball rests in a slot at one end; the player lifts that end to the tilt angle
at the tilt speed and holds it while the ball runs through the waist and the pegs; on
release the see-saw tips onto the end of the half that holds the ball at that moment, at
the same speed. The ball settles in a slot, read from its position in the tray frame.
All dimensions come from the spec (assets/king_of_the_hill/tipper.toml); see
docs/reconstruction-tipper.md.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabletop.sim.bullet import pybullet, quiet_stdout
from tabletop.sim.devices.base import Device, Outcome, Status, gesture_dict
from tabletop.sim.devices.tipper_shape import TipperShape, rot_y
from tabletop.sim.readouts import Region, region_of, run_until_settled
from tabletop.sim.throwable import qmul as _qmul
from tabletop.sim.urdf import cached_urdf, hinged_boxes_urdf
from tabletop.sim.world import World

NAME = "tipper"
DEFAULT_SPEC = "king_of_the_hill/tipper.toml"
SUMMARY = "King of the Hill's Tipper: the slot (1-6, J) where the rolling ball stops"
#: what its outcomes are: a plot's axis, what the labels mean, what a lodged trial is (None: never)
OUTCOME_AXIS = "slot where the ball stops"
OUTCOME_LABELS = ("1-6: the slot the ball stops in, the spaces a marble moves; J: jump, a marble "
                  "moves 1-10 spaces of its player's choice (J also ranks above 6 for who starts)")
OUTCOME_LODGED = "the ball came to rest outside every slot"

ENDS = ("A", "B")            # A at -X, B at +X of the tray frame
_IDENTITY = (0.0, 0.0, 0.0, 1.0)
_MAX_CHILDREN = 16           # PyBullet's limit on the children of one compound collision shape
#: m: a batch trial ends once the ball's energy height lies this far under its slot's mouth (`_decider`)
DECIDED_MARGIN = 0.001


@dataclass(frozen=True)
class Tilt:
    """One lift of the Tipper by a player.

    angle_deg  how far the end holding the ball is lifted (degrees from level)
    speed_dps  how fast it is lifted and lowered again (degrees per second)
    hold_s     how long it is held at the full angle (seconds)
    start_slot the slot the ball rests in when a fresh trial starts (ignored by `tilt`)
    """

    angle_deg: float
    speed_dps: float
    hold_s: float
    start_slot: str | None = None


# -- small rotation helpers (pure Python: used a few times per trial) -------------------------
def _qy(angle):
    return (0.0, math.sin(angle / 2), 0.0, math.cos(angle / 2))


def _qz(angle):
    return (0.0, 0.0, math.sin(angle / 2), math.cos(angle / 2))


_DIAMOND = (0.0, 0.0, math.sin(math.pi / 8), math.cos(math.pi / 8))   # 45 degrees about Z


class Tipper(TipperShape, Device):
    """The Tipper: labels "1".."6" and "J", read from the slot where the ball settles."""

    name = NAME
    #: the tray as one link of all its boxes, loaded from a URDF (True), or as it was built until
    #: 2026-12 (False): a revolute link and 16 links welded to it, since createCollisionShapeArray
    #: takes 16 children per compound. The same boxes, mass and inertia; the one link steps about
    #: twice as fast (docs/physics-profile.md, "tipper"). Bench's converged run turns it off.
    tray_as_one_link = True
    #: take a phase's steps (the lift, the hold, the tip, a settle check's) in a few engine calls of
    #: Bullet substeps (`World.step`): the same steps bit for bit, since only the tray's motor, set
    #: before each phase, and gravity act between them (tests/test_tipper.py). Bench's converged
    #: run turns it off.
    substeps = True
    #: a batch trial (`run`) ends as soon as its slot cannot change: once the tray rests on its end
    #: after the release, the ball inside a slot at that end with too little energy to climb back
    #: to the slot's mouth (`_decider`). Never in game play (`tilt`: the next tilt starts where the
    #: ball lies) or while a recorder watches the world (a replay shows the ball come to rest).
    #: Bench's converged run turns it off.
    end_when_decided = True

    def gesture_ranges(self) -> tuple[str, ...]:
        return ("gesture.angle_deg", "gesture.speed_dps", "gesture.hold_s")

    def fastest_gesture(self) -> dict[str, str]:
        # the steepest tilt at the quickest lift (how long it is held sets no speed)
        return {"gesture.angle_deg": "high", "gesture.speed_dps": "high"}

    def __init__(self, spec_path: Path, world: World | None = None,
                 origin: tuple[float, float, float] = (0.0, 0.0, 0.0), overrides=()):
        """Build the Tipper into `world` (a new one of its own when None) with its stand at `origin`."""
        self.setup(spec_path, overrides, world, origin)
        for material in (self.tray_material, self.ball_material):   # the bodies come with each trial
            self.world.adopt_pairs(material, "the Tipper")
        self._build_shape()
        self._tray: int | None = None
        self._active = False

    def _half_primitives(self) -> list[tuple]:
        """Primitives of the +X half in its half-local frame (floor top z=0, lid underside z=H).

        Each: ("box", half_extents, pos, orn) or ("cyl", (radius, length), pos, orn) (no
        cylinders are used now: they make createMultiBody slow).
        """
        L, H, wt, ft = self.half_length, self.height, self.wall, self.floor_thickness
        hw = self.width / 2
        xe = L + wt
        # With a flat floor (no V) the floor, lid and waist walls of the two halves overlap by
        # x0 across the centre, so the ball never rolls over a seam between two boxes (a seam's
        # edge contacts make a tiny bump that stopped a ball exactly on the pivot line).
        x0 = -0.01 if self.slope == 0.0 else 0.0
        prims = [
            ("box", ((xe - x0) / 2, hw + wt, ft / 2), ((xe + x0) / 2, 0.0, -ft / 2), _IDENTITY),      # floor
            ("box", ((xe - x0) / 2, hw + wt, ft / 2), ((xe + x0) / 2, 0.0, H + ft / 2), _IDENTITY),   # lid
            ("box", (wt / 2, hw + wt, H / 2 + ft), (L + wt / 2, 0.0, H / 2), _IDENTITY),    # end wall
        ]
        xs = self.x_flare_end
        for sgn in (1.0, -1.0):
            # side wall of the full-width part (from the flare to the end wall)
            prims.append(("box", ((L - xs) / 2 + wt / 2, wt / 2, H / 2 + ft),
                          ((L + xs) / 2 + wt / 2, sgn * (hw + wt / 2), H / 2), _IDENTITY))
            # waist wall
            if self.waist_half_length > 0:
                prims.append(("box", ((self.waist_half_length - x0) / 2, wt / 2, H / 2 + ft),
                              ((self.waist_half_length + x0) / 2, sgn * (self.waist_width / 2 + wt / 2), H / 2),
                              _IDENTITY))
            # flare wall: from (waist end, waist width / 2) to (flare end, full width / 2)
            ax, ay = self.waist_half_length, self.waist_width / 2
            bx, by = xs, hw
            dx, dy = bx - ax, by - ay
            length = math.hypot(dx, dy)
            ang = math.atan2(dy, dx)
            nx, ny = math.sin(ang), -math.cos(ang)        # normal pointing away from the channel (for +Y wall: -x, +y)
            nx, ny = -nx, -ny
            extra = wt                                    # run on past the outer corner (outside the tray)
            cx = (ax + bx) / 2 + nx * wt / 2 + math.cos(ang) * extra / 2
            cy = (ay + by) / 2 + ny * wt / 2 + math.sin(ang) * extra / 2
            prims.append(("box", ((length + extra) / 2, wt / 2, H / 2 + ft), (cx, sgn * cy, H / 2),
                          _qz(sgn * ang)))
        # pegs (floor to lid, reaching into both)
        # Pegs and wall bumps are round posts of `radius`: capsules, the shape Bullet meets a sphere
        # on most smoothly (a segment and a radius), their caps inside the floor and the lid. Until
        # physics version 3 ("star") each was the union of two square boxes, one turned 45 degrees:
        # an 8-pointed star 6.5 mm across, whose points and notches met a fast ball with several
        # contacts at once; how it left depended on the time step, and so did the odds
        # (docs/physics-profile.md, issue 40 part 4). A capsule child costs PyBullet's renderer
        # ~0.2 ms to load unless the link has a look of its own (tabletop.sim.urdf gives it one).
        # (Plain diamonds deflect a ball by up to 90 degrees and sent nearly every ball to a wall.)
        hs = self.peg_radius * math.cos(math.pi / 8)
        for x, y in self.pegs + self.bumps:
            if self.peg_shape == "capsule":
                # round: a capsule whose straight part spans the floor to the lid, its caps inside them
                prims.append(("capsule", (self.peg_radius, H), (x, y, H / 2), _IDENTITY))
            else:
                prims.append(("box", (hs, hs, H / 2 + ft / 2), (x, y, H / 2), _IDENTITY))
                prims.append(("box", (hs, hs, H / 2 + ft / 2), (x, y, H / 2), _DIAMOND))
        # dividers, with rounded tips facing the pegs
        for y in self._divider_ys():
            prims.append(("box", (self.slot_length / 2, self.divider / 2, H / 2 + ft / 2),
                          (self.x_slots + self.slot_length / 2, y, H / 2), _IDENTITY))
        # guard ridges: a low knife-edged ridge along X on each side of every peg and in front of
        # every divider tip, so that no post offers a ball a place to stop head-on (see _ridge)
        if self.ridge_height > 0:
            for x, y in self.pegs:
                prims.append(self._ridge(x, y, self.peg_radius, +1))
                prims.append(self._ridge(x, y, self.peg_radius, -1))
            for y in self._divider_ys():
                prims.append(self._ridge(self.x_slots, y, self.divider / 2, -1))
        # pockets: a ramp across each slot, rising from the floor `pocket_ramp` from the end wall's
        # side to its crest `depth` high, pocket_offset from the end wall; a ball at the wall must
        # roll up it to leave, so it stays until the tilt exceeds atan(depth / pocket_ramp)
        xc = L - self.pocket_offset
        for (y0, y1), d in zip(self._slot_spans(), self.slot_depths):
            if d <= 0:
                continue
            a = math.atan2(d, self.pocket_ramp)
            run = (self.pocket_ramp + 0.001) / math.cos(a)
            t = 0.002
            mx, mz = xc + run * math.cos(a) / 2, d - run * math.sin(a) / 2
            centre = (mx - t * math.sin(a), (y0 + y1) / 2, mz - t * math.cos(a))
            prims.append(("box", (run / 2, (y1 - y0) / 2 + self.divider / 2, t), centre, _qy(a)))
        return prims

    def _ridge(self, xp: float, yp: float, r: float, s: int) -> tuple:
        """A guard ridge on the side s (+1: +X, -1: -X) of a post of radius r at (xp, yp).

        A square box turned 45 degrees about its axis (a diamond section, so the part above the
        floor is a knife-edged roof with 45 degree faces), pitched so that its top edge rises
        from the floor `ridges.length` away from the post to `ridges.height` at the post's face.
        A ball heading for the post dead centre meets the roof first and is pushed off sideways:
        on a knife edge it can only balance within a few hundredths of a millimetre, while at a
        bare cylinder it could stop head-on wherever its offset is under about
        c_rr (r + R) / sin(slope), half a millimetre here. The ridge's ends lie inside the post
        and under the floor."""
        h, lr = self.ridge_height, self.ridge_length
        beta = math.atan2(h, lr)
        d = h + 0.003                                   # half diagonal: side corners stay under the floor
        u = (s * math.cos(beta), 0.0, -math.sin(beta))  # along the top edge, away from the post
        n_up = (s * math.sin(beta), 0.0, math.cos(beta))
        z0 = h * (lr + r) / lr                          # top edge height on the post's axis
        p0 = (xp, yp, z0)
        run = (lr + r) / math.cos(beta) + 0.002         # to 2 mm past where the edge meets the floor
        p1 = (xp + u[0] * run, yp, z0 + u[2] * run)
        m = ((p0[0] + p1[0]) / 2, yp, (p0[2] + p1[2]) / 2)
        centre = (m[0] - d * n_up[0], yp, m[2] - d * n_up[2])
        pitch = beta if s > 0 else math.pi - beta
        orn = _qmul(_qy(pitch), (math.sin(math.pi / 8), 0.0, 0.0, math.cos(math.pi / 8)))
        half_side = d / math.sqrt(2.0)
        return ("box", (run / 2, half_side, half_side), centre, orn)

    def _build_shape(self) -> None:
        """One compound collision shape for the whole tray, in the link (pivot) frame."""
        types, radii, halfs, lengths, poss, orns, parts = [], [], [], [], [], [], []
        prims = self._half_primitives()
        # Links are grouped in space (the large walls first, then the small parts ordered along
        # X), so that a link's bounding box is compact and the ball meets few links at a time.
        def key(prim):
            kind, dims, pos, _ = prim
            big = max(dims) > 0.02
            return (0 if big else 1, pos[0])
        prims.sort(key=key)
        for half in (+1, -1):
            qh = _qy(self.slope)                      # +X half: floor descends toward +X
            for kind, dims, pos, orn in prims:
                p = rot_y(pos, self.slope)
                q = _qmul(qh, orn)
                if half < 0:                          # mirror through the plane x = 0
                    p = (-p[0], p[1], p[2])
                    q = (q[0], -q[1], -q[2], q[3])
                p = (p[0], p[1], p[2] - self.pivot_height)
                poss.append(list(p))
                orns.append(list(q))
                if kind == "box":
                    types.append(pybullet.GEOM_BOX)
                    halfs.append(list(dims))
                    radii.append(0.0)
                    lengths.append(0.0)
                    parts.append((list(dims), list(p), list(q)))
                elif kind == "capsule":
                    r, length = dims
                    types.append(pybullet.GEOM_CAPSULE)
                    halfs.append([r, r, length / 2 + r])       # its bounding box (the welded links' inertia)
                    radii.append(r)
                    lengths.append(length)
                    parts.append(("capsule", r, length, list(p), list(q)))
                else:
                    raise ValueError(f"the Tipper's tray is built of boxes and capsules, not {kind!r}")
        self.n_primitives = len(types)
        self._shape_args = (types, radii, halfs, lengths, poss, orns)
        self._shapes: list[int] | None = None        # the welded links' shapes, made when first needed
        self._tray_urdf = hinged_boxes_urdf("tray", parts, self.tray_mass, self._welded_inertia(), (0.0, 1.0, 0.0))
        # slot regions in the half-local frame of either half
        self.regions: dict[str, Region] = {}
        self._region_label: dict[str, str] = {}
        cx = (self.x_slots + self.half_length) / 2
        hx = (self.half_length - self.x_slots) / 2
        for label, (y0, y1) in zip(self.slot_order, self._slot_spans()):
            name = f"slot-{label}"
            self.regions[name] = Region(center=(cx, (y0 + y1) / 2, self.height / 2),
                                        half_extents=(hx, (y1 - y0) / 2, self.height / 2 + 0.001))
            self._region_label[name] = label

    def _welded_inertia(self) -> tuple[float, float, float]:
        """The tray's principal inertia about the pivot as the welded links gave it, so that the one
        link turns under the motor and the ball as they did: Bullet gives each link the inertia of its
        compound's bounding box (btCompoundShape::calculateLocalInertia; a box child's box grows by
        its turned half extents) at its share of the mass, all centred on the pivot, and links
        welded together turn as one body of their summed inertia."""
        _, _, halfs, _, poss, orns = self._shape_args
        n = -(-len(halfs) // _MAX_CHILDREN)
        total = [0.0, 0.0, 0.0]
        for i in range(0, len(halfs), _MAX_CHILDREN):
            lo, hi = [math.inf] * 3, [-math.inf] * 3
            for h, p, q in zip(halfs[i:i + _MAX_CHILDREN], poss[i:i + _MAX_CHILDREN], orns[i:i + _MAX_CHILDREN]):
                m = pybullet.getMatrixFromQuaternion(q)
                for a in range(3):
                    e = abs(m[3 * a]) * h[0] + abs(m[3 * a + 1]) * h[1] + abs(m[3 * a + 2]) * h[2]
                    lo[a], hi[a] = min(lo[a], p[a] - e), max(hi[a], p[a] + e)
            lx, ly, lz = (hi[a] - lo[a] for a in range(3))
            k = self.tray_mass / n / 12.0
            total = [total[0] + k * (ly * ly + lz * lz), total[1] + k * (lx * lx + lz * lz),
                     total[2] + k * (lx * lx + ly * ly)]
        return tuple(total)

    def _make_shapes(self) -> None:
        """The welded tray's compound shapes in the world. PyBullet takes at most 16 children per
        compound: the tray is several links, the first on the revolute joint, the others welded to it."""
        types, radii, halfs, lengths, poss, orns = self._shape_args
        self._shapes = []
        for i in range(0, len(types), _MAX_CHILDREN):
            sl = slice(i, i + _MAX_CHILDREN)
            self._shapes.append(self.world.client.createCollisionShapeArray(
                shapeTypes=types[sl], radii=radii[sl], halfExtents=halfs[sl], lengths=lengths[sl],
                collisionFramePositions=poss[sl], collisionFrameOrientations=orns[sl]))

    # -- frames -----------------------------------------------------------------------------
    @property
    def pivot(self) -> tuple[float, float, float]:
        return (self.origin[0], self.origin[1], self.origin[2] + self.base_height)

    def _tray_to_world(self, p_tray, q_joint: float = 0.0):
        p = (p_tray[0], p_tray[1], p_tray[2] - self.pivot_height)
        p = rot_y(p, q_joint)
        return (p[0] + self.pivot[0], p[1] + self.pivot[1], p[2] + self.pivot[2])

    def _joint_angle(self) -> float:
        return self.world.client.getJointState(self._tray, 0)[0]

    def ball_in_tray(self) -> tuple[float, float, float]:
        """The ball's centre in the tray frame (origin at the floor ridge, X along the beam)."""
        c = self.world.client
        pw = c.getBasePositionAndOrientation(self.world.bodies["ball"])[0]
        q = c.getJointState(self._tray, 0)[0]
        p = (pw[0] - self.pivot[0], pw[1] - self.pivot[1], pw[2] - self.pivot[2])
        p = rot_y(p, -q)
        return (p[0], p[1], p[2] + self.pivot_height)

    def _half_local(self, p_tray):
        """(end, point in the half-local frame of that end) for a tray-frame point."""
        end = "B" if p_tray[0] >= 0 else "A"
        p = (abs(p_tray[0]), p_tray[1], p_tray[2])
        return end, rot_y(p, -self.slope)

    def _outside(self, p_tray) -> bool:
        _, (x, y, z) = self._half_local(p_tray)
        tol = 0.002
        return (x > self.half_length + tol or abs(y) > self.width / 2 + tol
                or z < -tol or z > self.height + tol)

    def _escaped(self) -> bool:
        return self._outside(self.ball_in_tray())

    # -- bodies -----------------------------------------------------------------------------
    def _create_bodies(self, end: str, label: str) -> None:
        """The start state of a fresh trial: the tray at rest on `end`, the ball in `label`'s pocket.

        In a world of its own the Tipper renews it and builds the tray and the ball again, so no
        contact cache, motor, joint or solver state survives: a trial's outcome does not depend on
        the trials before it. (Re-using the tray and only resetting its joint changed outcomes;
        so did a new tray in the same Bullet world, about one trial in 20.) In a shared world
        the previous bodies are removed and new ones made.
        """
        w = self.world
        if self._owns_world:
            w.renew()
            self._shapes = None                      # gone with the old Bullet world
        for name in ("ball", "tray"):
            if name in w.bodies:
                w.remove(name)
        c = w.client
        tray = self._one_link_tray() if self.tray_as_one_link else self._welded_tray()
        w.add_body("tray", tray, self.tray_material, links=(-1, *range(c.getNumJoints(tray))))
        c.changeDynamics(tray, 0, jointDamping=0.0)
        self._tray = tray
        q0 = self._rest(end)
        c.resetJointState(tray, 0, q0, 0.0)
        self._hold(q0)
        w.add_sphere("ball", self.ball_radius, self.ball_material,
                     self._tray_to_world(self.slot_rest_point(end, label), q0))
        self._active = True

    def _one_link_tray(self) -> int:
        """The tray as one link of all its boxes on the joint, from the cached URDF (a few ms)."""
        path = cached_urdf("tipper-tray", self._tray_urdf)
        with quiet_stdout():
            return self.world.client.loadURDF(str(path), basePosition=list(self.pivot), useFixedBase=True,
                                              flags=pybullet.URDF_USE_INERTIA_FROM_FILE)

    def _welded_tray(self) -> int:
        """The tray as it was built until 2026-12: a revolute link and the links welded to it."""
        if self._shapes is None:
            self._make_shapes()
        n = len(self._shapes)
        zero, ident = [0.0, 0.0, 0.0], list(_IDENTITY)
        return self.world.client.createMultiBody(
            baseMass=0.0, baseCollisionShapeIndex=-1, basePosition=list(self.pivot),
            linkMasses=[self.tray_mass / n] * n, linkCollisionShapeIndices=list(self._shapes),
            linkVisualShapeIndices=[-1] * n, linkPositions=[zero] * n,
            linkOrientations=[ident] * n, linkInertialFramePositions=[zero] * n,
            linkInertialFrameOrientations=[ident] * n, linkParentIndices=[0] + [1] * (n - 1),
            linkJointTypes=[pybullet.JOINT_REVOLUTE] + [pybullet.JOINT_FIXED] * (n - 1),
            linkJointAxis=[[0.0, 1.0, 0.0]] * n)

    # -- motor ------------------------------------------------------------------------------
    def _spin(self, velocity: float) -> None:
        self.world.client.setJointMotorControl2(self._tray, 0, pybullet.VELOCITY_CONTROL,
                                                targetVelocity=velocity, force=self.max_force)

    def _hold(self, angle: float) -> None:
        self.world.client.setJointMotorControl2(self._tray, 0, pybullet.POSITION_CONTROL,
                                                targetPosition=angle, targetVelocity=0.0,
                                                positionGain=1.0, velocityGain=1.0, force=self.max_force)

    # -- device contract --------------------------------------------------------------------
    @property
    def labels(self) -> tuple[str, ...]:
        return ("1", "2", "3", "4", "5", "6", "J")

    def sample_gesture(self, rng: np.random.Generator) -> Tilt:
        a = rng.uniform(*self.angle_range)
        ls = rng.uniform(math.log(self.speed_range[0]), math.log(self.speed_range[1]))
        h = rng.uniform(*self.hold_range)
        slot = self.slot_order[int(rng.integers(len(self.slot_order)))]
        return Tilt(angle_deg=float(a), speed_dps=float(math.exp(ls)), hold_s=float(h), start_slot=slot)

    def run(self, rng: np.random.Generator, gesture: Tilt | None = None, from_end: str = "A") -> Outcome:
        """A fresh trial: new bodies, the ball at rest in `gesture.start_slot` at `from_end`
        (sampled uniformly when the gesture has none), then one tilt of that end."""
        if from_end not in ENDS:
            raise ValueError(f"from_end must be one of {ENDS}, got {from_end!r}")
        if gesture is None:
            gesture = self.sample_gesture(rng)
        slot = gesture.start_slot
        if slot is None:
            slot = self.slot_order[int(rng.integers(len(self.slot_order)))]
            gesture = Tilt(gesture.angle_deg, gesture.speed_dps, gesture.hold_s, slot)
        if slot not in self.slot_order:
            raise ValueError(f"unknown start slot {slot!r}")
        self._create_bodies(from_end, slot)
        return self._tilt(gesture, from_end, early=self.end_when_decided)

    def tilt(self, gesture: Tilt, rng: np.random.Generator | None = None) -> Outcome:
        """Game play: lift the end where the ball lies now (it stays where the last tilt left it).

        The first call, with no bodies yet, starts from `gesture.start_slot` (or slot "1") at end A.
        """
        if not self._active:
            self._create_bodies("A", gesture.start_slot or self.slot_order[0])
        end, _ = self._half_local(self.ball_in_tray())
        return self._tilt(gesture, end)

    def _rest(self, end: str) -> float:
        """Joint angle of the tray at rest with `end` down on its stop (+q lifts end A)."""
        return -self.rest_angle if end == "A" else self.rest_angle

    def _move_steps(self, q_from: float, q_to: float, speed: float) -> tuple[float, int]:
        """(velocity, steps) that take the tray from q_from to q_to at about `speed` rad/s."""
        n = max(1, int(round(abs(q_to - q_from) / speed / self.world.dt)))
        return (q_to - q_from) / (n * self.world.dt), n

    def _tilt(self, gesture: Tilt, end: str, early: bool = False) -> Outcome:
        """Lift `end` (the one holding the ball, resting down) to the tilt angle, hold, let go.

        On release the tray tips onto the end of the half that holds the ball at that moment
        (a see-saw follows its load), moving at the gesture's speed, and rests there. With
        `early` (and no recorder watching), the ball's settling ends as soon as its slot is
        decided (`_decider`). The world steps in substeps (`substeps`) for the tilt only: a world
        shared with another device keeps its own setting."""
        w = self.world
        was, w.substeps = w.substeps, self.substeps
        try:
            return self._tilt_phases(gesture, end, early)
        finally:
            w.substeps = was

    def _tilt_phases(self, gesture: Tilt, end: str, early: bool) -> Outcome:
        w = self.world
        s0 = w.steps
        sign = 1.0 if end == "A" else -1.0
        speed = math.radians(gesture.speed_dps)
        q_start = self._rest(end)
        q_top = sign * math.radians(gesture.angle_deg)
        v, n = self._move_steps(q_start, q_top, speed)
        self._spin(v)
        w.step(n)
        self._hold(q_top)
        w.step(int(round(gesture.hold_s / w.dt)))
        escaped = self._escaped()
        settled = False
        if not escaped:
            down = "B" if self.ball_in_tray()[0] >= 0 else "A"
            q_end = self._rest(down)
            v, n = self._move_steps(q_top, q_end, speed)
            self._spin(v)
            w.step(n)
            self._hold(q_end)
            escaped = self._escaped()
        decided = None
        if not escaped:
            decide = self._decider(down) if early and not w.watchers else None
            settled, escaped = run_until_settled(w, ["ball"], self.settle, escaped=self._escaped, start_step=s0,
                                                 decided=decide)
            decided = decide.found if decide is not None else None
        return self._read(gesture, end, settled, escaped, (w.steps - s0) * w.dt, w.steps - s0, decided)

    def _decider(self, down: str):
        """A callable, asked at each settle check once the tray rests on `down`, that is true (and
        keeps the ball's (label, energy height, mouth level) as `found`) once the ball is inside a
        slot at that end with its energy height (its centre's height plus its kinetic energy,
        rotation counted whole, over g) DECIDED_MARGIN under the slot's mouth: the height of its
        centre resting on the floor between the divider tips. The slot's walls reach the lid and the
        tray only holds still, so the ball can then never leave that slot, and comes to rest in it
        (tests/test_tipper.py runs such trials on to rest and reads the same slots)."""
        c, ball, g = self.world.client, self.world.bodies["ball"], self.world.settings.gravity
        spin = 0.2 * self.ball_radius ** 2
        sign = 1.0 if down == "B" else -1.0
        mouth = rot_y((self.x_slots, 0.0, self.ball_radius), self.slope)
        mouth = (sign * mouth[0], 0.0, mouth[2])

        def decide() -> bool:
            p = self.ball_in_tray()
            if sign * p[0] < self.x_slots - 0.002:       # short of every slot (the floor's slope aside)
                return False
            end, local = self._half_local(p)
            region = region_of(local, self.regions) if end == down else None
            if region is None:
                return False
            level = self._tray_to_world(mouth, self._joint_angle())[2] - DECIDED_MARGIN
            (vx, vy, vz), (wx, wy, wz) = c.getBaseVelocity(ball)
            e = c.getBasePositionAndOrientation(ball)[0][2] + (
                0.5 * (vx * vx + vy * vy + vz * vz) + spin * (wx * wx + wy * wy + wz * wz)) / g
            if e >= level:
                return False
            decide.found = (self._region_label[region], e, level + DECIDED_MARGIN)
            return True
        decide.found = None
        return decide

    def place(self, end: str = "A", slot: str = "1") -> None:
        """Fresh bodies: the tray at rest on `end`, the ball at rest in `slot`'s pocket there."""
        if end not in ENDS:
            raise ValueError(f"end must be one of {ENDS}, got {end!r}")
        if slot not in self.slot_order:
            raise ValueError(f"unknown slot {slot!r}")
        self._create_bodies(end, slot)

    def slot_of(self, p_tray) -> tuple[str, str | None]:
        """(end, label or None) of a tray-frame point: which slot region holds it."""
        end, local = self._half_local(p_tray)
        region = region_of(local, self.regions)
        return end, (None if region is None else self._region_label[region])

    def _read(self, gesture: Tilt, lifted: str, settled: bool, escaped: bool, sim_time: float, steps: int,
              decided: tuple[str, float, float] | None = None) -> Outcome:
        p = self.ball_in_tray()
        end, local = self._half_local(p)
        region = region_of(local, self.regions)
        label = None
        if escaped:
            status = Status.ESCAPED
        elif decided is not None:
            status, label = Status.OK, decided[0]
        elif not settled:
            status = Status.UNSETTLED
        elif region is None:
            status = Status.LODGED
        else:
            status = Status.OK
            label = self._region_label[region]
        reading = {
            "ball_tray": [float(v) for v in p],
            "end": end,
            "slot": None if region is None else f"{end}/{region}",
            "lifted_end": lifted,
            "crossed": end != lifted,
            "tray_angle_deg": math.degrees(self._joint_angle()),
        }
        if decided is not None:
            reading["decided"] = {"energy_height": decided[1], "mouth_level": decided[2]}
        return Outcome(label=label, status=status, sim_time=sim_time, steps=steps, reading=reading,
                       gesture=gesture_dict(gesture))

    def place_for_benchmark(self) -> None:
        """Bodies in their start pose (ball in the middle slot of end A), the lift motor set,
        exactly as at the start of a trial; nothing is stepped."""
        g = Tilt(angle_deg=sum(self.angle_range) / 2, speed_dps=math.sqrt(self.speed_range[0] * self.speed_range[1]),
                 hold_s=sum(self.hold_range) / 2, start_slot=self.slot_order[len(self.slot_order) // 2])
        self._create_bodies("A", g.start_slot)
        v, _ = self._move_steps(self._rest("A"), math.radians(g.angle_deg), math.radians(g.speed_dps))
        self._spin(v)

    def params(self) -> dict:
        return {
            "spec": str(self.spec_path),
            "ball": {"radius": self.ball_radius, "material": self.ball_material.as_dict()},
            "tray": {"material": self.tray_material.as_dict(), "mass": self.tray_mass,
                     "half_length": self.half_length, "height": self.height, "width": self.width,
                     "wall_thickness": self.wall, "floor_thickness": self.floor_thickness,
                     "floor_slope_deg": math.degrees(self.slope),
                     "rest_angle_deg": math.degrees(self.rest_angle), "pivot_height": self.pivot_height,
                     "base_height": self.base_height, "primitives": self.n_primitives},
            "waist": {"half_length": self.waist_half_length, "width": self.waist_width},
            "flare": {"length": self.flare_length},
            "ridges": {"height": self.ridge_height, "length": self.ridge_length},
            "pegs": {"radius": self.peg_radius, "min_gap": self.peg_min_gap,
                     "positions": [list(p) for p in self.pegs], "wall_bumps": [list(b) for b in self.bumps]},
            "slots": {"order": list(self.slot_order), "widths": list(self.slot_widths),
                      "depths": list(self.slot_depths), "length": self.slot_length,
                      "divider_thickness": self.divider, "pocket_ramp": self.pocket_ramp,
                      "pocket_offset": self.pocket_offset,
                      "leave_tilt_deg": [self.leave_tilt_deg(lab) for lab in self.slot_order]},
            "gesture": {"angle_deg": list(self.angle_range), "speed_dps": list(self.speed_range),
                        "speed_distribution": "log-uniform", "hold_s": list(self.hold_range),
                        "start_slot": "uniform over the seven slots at end A", "max_force": self.max_force},
            "physics": self.world.settings.as_dict(),
            "settle": dict(self.settle.__dict__),
        }

    def leave_tilt_deg(self, label: str) -> float:
        """Quasi-static tilt (from level) at which a ball resting in this slot's pocket rolls out."""
        d = self.slot_depths[self.slot_order.index(label)]
        return math.degrees(math.atan2(d, self.pocket_ramp) - self.slope)

    def close(self) -> None:
        self._active = False
        super().close()
