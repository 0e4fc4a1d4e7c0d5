"""King Kong's spinner: a printed card with two concentric circles of sectors, a post at its
centre and a plastic pointer on the post, flicked and left to stop by friction.

The card (a thin disc) and the post are static bodies. The pointer is the one link of a
fixed-base multibody whose base is the post: a revolute joint about the post's vertical axis,
in reduced coordinates, so the pointer cannot leave its post. The pointer's shape is a thin
convex kite (an arrow symmetric about its long axis, the tip on the axis at angle 0 of the
joint), with the exact mass and inertia of that plate (trimesh). It rides `clearance` above
the card and touches nothing: its collisions with the card are filtered out (and with the post,
its own base, never enabled), and all its friction is the joint's, modelled explicitly:

- dry friction: a velocity motor with target 0 and its torque capped at `joint.dry_torque`
  (a constant resisting torque that stops the pointer dead and then holds it);
- viscous friction: Bullet's joint damping, `joint.viscous` x angular speed;
- the pointer material's own air drag (Bullet's multibody angular damping, d (1 + |w|) w per
  unit inertia).

Touching nothing, the pointer's whole state is its joint's angle and speed, so the multibody is
built once and every spin sets both afresh: a spin after others is bit for bit the same spin in
a fresh device (a test checks it), and no trial pays for building a multibody.

Gesture (`Flick`), sampled from the spec's [gesture] table: the start angle uniform over its
range (where the last spin left the pointer), the angular speed uniform over its range, counter-
clockwise with probability `ccw_fraction`.

Reading: once the pointer has stopped (our own rule: angular speed and tip speed under the
[settle] thresholds for the hold time), the joint angle is the tip's angle on the card (degrees
counter-clockwise from the card's +X, in [0, 360)). It is mapped to the sector under the tip on
the outer circle and on the inner circle (the layouts are data: [outer] and [inner]). A tip
exactly on a sector line reads the sector that begins there, counter-clockwise of the line
(half-open sectors [start, end)), so every angle reads exactly one sector, deterministically.
The Outcome's label is the outer circle's (the twist); the reading holds the angle and both
labels, and the estimate's "circles" block gives the inner circle's table too.

Statuses: OK; UNSETTLED when the pointer still turns at `settle.cap`; ESCAPED when the pointer's
hub is found off the post's axis at the reading (impossible with a reduced-coordinate joint:
the check guards the build). A spinner has no LODGED trial: every angle has a sector.

The spec, the circles and the looks a view draws are SpinnerShape's (spinner_shape.py: no PyBullet).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tabletop.sim.bullet import pybullet
from tabletop.sim.devices.base import Device, Outcome, Status, gesture_dict
from tabletop.sim.devices.spinner_shape import CARD, POINTER, SpinnerShape
from tabletop.sim.stats import wilson_interval
from tabletop.sim.world import World

NAME = "spinner"
DEFAULT_SPEC = "king_kong/spinner.toml"
SUMMARY = ("King Kong's spinner: the outer-circle twist where the pointer stops (inner-circle "
           "climb in the circles block)")
#: what its outcomes are: a plot's axis, what the labels mean, what a lodged trial is (None: never)
OUTCOME_FAIR = "each label by its sectors' share"   # how a game's fair table of it is made (tabletop.app.outcomes.fair_odds)
OUTCOME_AXIS = "outer-circle sector where the pointer stops"
OUTCOME_LABELS = ("the outer circle's twist: L1, L2 left (counter-clockwise) 1 or 2 notches; R1, R2 "
                  "right; LR1, LR2 1 or 2 notches, the spinner's choice of direction; UP return to "
                  "up; the inner circle's climb is the JSON's circles block")
OUTCOME_LODGED = None

_ON_POST_TOL = 0.001               # m: the pointer's hub further than this from its place on the post has left it


@dataclass(frozen=True)
class Flick:
    """One flick of the pointer.

    start_deg  the pointer's angle before the flick (degrees counter-clockwise from the card's +X)
    speed      the pointer's angular speed as it leaves the finger (rad/s, > 0)
    ccw        True: turning counter-clockwise seen from above; False: clockwise
    """

    start_deg: float
    speed: float
    ccw: bool


class Spinner(SpinnerShape, Device):
    """King Kong's spinner: labels are the outer circle's; the inner circle is in the reading."""

    name = NAME

    def gesture_ranges(self) -> tuple[str, ...]:
        return ("gesture.speed",)

    def fastest_gesture(self) -> dict[str, str]:
        return {"gesture.speed": "high"}

    bench_restart_each_trial = True     # sim/bench.py: the pointer stops within each trial; see there

    def __init__(self, spec_path: Path, world: World | None = None,
                 origin: tuple[float, float, float] = (0.0, 0.0, 0.0), overrides=()):
        """Build the card and post into `world` (a new one of its own when None) with the card's
        top centre at `origin`."""
        self.setup(spec_path, overrides, world, origin)
        self._build_card()
        self._add_pointer()

    # -- geometry ---------------------------------------------------------------------------
    def _build_card(self) -> None:
        """The card: a static disc, its top at the origin."""
        c = self.world.client
        shape = c.createCollisionShape(pybullet.GEOM_CYLINDER, radius=self.card_radius, height=self.card_thickness)
        ox, oy, oz = self.origin
        body = c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=shape,
                                 basePosition=[ox, oy, oz - self.card_thickness / 2])
        self.world.add_body(CARD, body, self.card_material)
        self._post_shape = c.createCollisionShape(pybullet.GEOM_CYLINDER, radius=self.post_radius,
                                                  height=self.post_height)
        self._pointer_shape = c.createCollisionShape(pybullet.GEOM_MESH, vertices=self.vertices)

    def _add_pointer(self) -> None:
        """The post-and-pointer multibody, built once: the pointer touches nothing, so its whole
        state is the joint's angle and speed, which `_start` sets afresh for every spin (a spin
        after others is bit for bit the spin in a fresh device; tests check it)."""
        w, c = self.world, self.world.client
        ox, oy, oz = self.origin
        body = c.createMultiBody(
            baseMass=0.0, baseCollisionShapeIndex=self._post_shape,
            basePosition=[ox, oy, oz + self.post_height / 2],
            linkMasses=[self.mass], linkCollisionShapeIndices=[self._pointer_shape], linkVisualShapeIndices=[-1],
            linkPositions=[[0.0, 0.0, self.clearance - self.post_height / 2]], linkOrientations=[[0, 0, 0, 1]],
            linkInertialFramePositions=[list(self.com)], linkInertialFrameOrientations=[[0, 0, 0, 1]],
            linkParentIndices=[0], linkJointTypes=[pybullet.JOINT_REVOLUTE], linkJointAxis=[[0.0, 0.0, 1.0]])
        w.add_body(POINTER, body, self.pointer_material, links=(-1, 0), mesh=self.vertices)
        card = w.bodies[CARD]
        for link in (-1, 0):
            c.setCollisionFilterPair(body, card, link, -1, 0)
        c.changeDynamics(body, 0, localInertiaDiagonal=list(self.inertia_com), jointDamping=self.viscous)
        self._pointer = body
        # bound once: every BulletClient attribute lookup builds a new partial
        self._get_joint_state, self._reset_joint_state = c.getJointState, c.resetJointState
        self._set_motor, self._get_link_state = c.setJointMotorControl2, c.getLinkState

    def _start(self, angle_deg: float, rate: float) -> None:
        """The pointer at `angle_deg`, turning at `rate` rad/s (counter-clockwise positive), its
        friction motor set."""
        self._reset_joint_state(self._pointer, 0, math.radians(angle_deg), rate)
        self._set_motor(self._pointer, 0, pybullet.VELOCITY_CONTROL, targetVelocity=0.0, force=self.dry_torque)

    # -- gesture ----------------------------------------------------------------------------
    def sample_gesture(self, rng: np.random.Generator) -> Flick:
        u = rng.random(3)                  # one draw for the three uniforms: start, speed, direction
        (s0, s1), (v0, v1) = self.start_range, self.speed_range
        return Flick(start_deg=float(s0 + (s1 - s0) * u[0]), speed=float(v0 + (v1 - v0) * u[1]),
                     ccw=bool(u[2] < self.ccw_fraction))

    def place(self, angle_deg: float, rate: float = 0.0) -> None:
        """The pointer at `angle_deg`, turning at `rate` rad/s (scenario tests)."""
        self._start(angle_deg, rate)

    def place_for_benchmark(self) -> None:
        """The pointer flicked at the middle of the speed range, exactly as `run` starts a spin."""
        self._start(self.start_range[0], (self.speed_range[0] + self.speed_range[1]) / 2)

    # -- trials -----------------------------------------------------------------------------
    def joint_state(self) -> tuple[float, float]:
        """(angle in radians, accumulated over turns; angular speed in rad/s) of the pointer."""
        q, qd = self._get_joint_state(self._pointer, 0)[:2]
        return q, qd

    def on_post(self) -> bool:
        """Whether the pointer's hub is where the joint puts it: on the post's axis at its height."""
        pos = self._get_link_state(self._pointer, 0, computeForwardKinematics=1)[4]
        ox, oy, oz = self.origin
        return (math.hypot(pos[0] - ox, pos[1] - oy) <= _ON_POST_TOL
                and abs(pos[2] - oz - self.clearance) <= _ON_POST_TOL)

    def read(self) -> dict:
        """The pointer's angle (degrees in [0, 360)) and the sectors under its tip on both circles."""
        q, qd = self.joint_state()
        angle = math.degrees(q) % 360.0
        if angle >= 360.0:
            angle = 0.0
        k_out, k_in = self.outer.sector_at(angle), self.inner.sector_at(angle)
        return {"angle_deg": angle, "q": q, "outer": self.outer.labels[k_out], "inner": self.inner.labels[k_in],
                "outer_sector": k_out, "inner_sector": k_in, "rate": qd}

    def earliest_stop(self, rate: float) -> float:
        """A lower bound on the time a pointer flicked at `rate` rad/s takes to stop. Its speed
        only falls, so the air drag d (1 + w) w never exceeds d (1 + w0) w: the pointer slows at
        most as fast as under I dw/dt = -T_dry - (c + I d (1 + w0)) w, which stops after
        ln(1 + b w0 / a) / b (a = T_dry / I, b = c / I + d (1 + w0)); 10% off that for the solver.
        Settle checks start then: the bound only saves checks (a stopped pointer stays stopped,
        held by its dry friction), it never moves a reading."""
        w0 = abs(rate)
        a = self.dry_torque / self.inertia_axis
        b = self.viscous / self.inertia_axis + self.pointer_material.angular_damping * (1.0 + w0)
        if a <= 0.0 or w0 == 0.0:
            return 0.0
        return 0.9 * (math.log1p(b * w0 / a) / b if b > 0.0 else w0 / a)

    def _run_until_stopped(self, rate: float) -> bool:
        """Step until the pointer's angular speed and tip speed stay under the settle thresholds
        for the hold time (checked every `settle.every` steps from the earliest time a pointer
        flicked at `rate` can stop), or the cap passes."""
        w, rule = self.world, self.settle
        body, get = self._pointer, self._get_joint_state
        w_tol = min(rule.angular, rule.linear / self.tip)
        hold = max(1, round(rule.hold / w.dt))
        end = w.steps + round(rule.cap / w.dt)
        w.step(min(int(self.earliest_stop(rate) / w.dt), end - w.steps))
        still_since = None
        while w.steps < end:
            w.step(min(rule.every, end - w.steps))
            if abs(get(body, 0)[1]) > w_tol:
                still_since = None
                continue
            if still_since is None:
                still_since = w.steps
            if w.steps - still_since >= hold:
                return True
        return False

    def spin(self, flick: Flick) -> tuple[str, dict, int]:
        """One spin: the pointer at the start angle, flicked, simulated until it stops.
        Returns (result, reading, steps) where result is "read", "unsettled" or "escaped"."""
        rate = flick.speed if flick.ccw else -flick.speed
        self._start(flick.start_deg, rate)
        return self._settle_and_read(math.radians(flick.start_deg), rate)

    def _settle_and_read(self, q0: float, rate: float) -> tuple[str, dict, int]:
        w = self.world
        s0 = w.steps
        settled = self._run_until_stopped(rate)
        reading = self.read()
        reading["turns"] = (reading.pop("q") - q0) / (2 * math.pi)
        if not self.on_post():
            result = "escaped"
        elif not settled:
            result = "unsettled"
        else:
            result = "read"
        return result, reading, w.steps - s0

    def drop(self, angle_deg: float, rate: float = 0.0) -> tuple[str, dict, int]:
        """Like `spin`, from any angle and signed rate (scenario tests)."""
        self.place(angle_deg, rate)
        return self._settle_and_read(math.radians(angle_deg), rate)

    def run(self, rng: np.random.Generator, gesture: Flick | None = None) -> Outcome:
        """A trial: one flick, read once the pointer has stopped."""
        flick = gesture if gesture is not None else self.sample_gesture(rng)
        result, r, steps = self.spin(flick)
        status = {"read": Status.OK, "unsettled": Status.UNSETTLED, "escaped": Status.ESCAPED}[result]
        ok = status is Status.OK
        reading = {"angle_deg": round(r["angle_deg"], 4), "outer": r["outer"] if ok else None,
                   "inner": r["inner"] if ok else None, "outer_sector": r["outer_sector"],
                   "inner_sector": r["inner_sector"], "turns": round(r["turns"], 4)}
        return Outcome(label=r["outer"] if ok else None, status=status, sim_time=steps * self.world.dt,
                       steps=steps, reading=reading, gesture=gesture_dict(flick))

    # -- results ----------------------------------------------------------------------------
    def record_extra(self, outcome: Outcome) -> dict:
        """inner: the inner circle's label (None unless OK); angle_deg: where the tip stopped."""
        return {"inner": outcome.reading["inner"], "angle_deg": outcome.reading["angle_deg"]}

    def summarize_extra(self, records: list[dict]) -> dict:
        """The "circles" block of the result JSON. For each circle, among OK trials: counts,
        probabilities with 95% Wilson intervals, the share of the circle each label's sectors
        cover (what a pointer stopping uniformly would give), Pearson's chi-square of the counts
        against those shares, and the layout. The outer circle's counts are the result's own."""
        from tabletop.sim.analysis import chi_square

        ok = [r for r in records if r["status"] == Status.OK]
        out = {}
        for circle, labels, key in ((self.outer, self.labels, None), (self.inner, self.inner_labels, "inner")):
            counts = {label: 0 for label in labels}
            for r in ok:
                counts[r["label"] if key is None else (r.get("extra") or {})[key]] += 1
            n = len(ok)
            probs = {}
            for label, k in counts.items():
                lo, hi = wilson_interval(k, n)
                probs[label] = {"p": k / n if n else 0.0, "ci95": [lo, hi]}
            share = circle.share()
            block = {"labelled": n, "counts": counts, "probabilities": probs,
                     "sector_share": {label: share[label] for label in labels}}
            if n:
                test = chi_square(counts, share)
                block["against_sector_share"] = {"chi2": test["chi2"], "dof": test["dof"], "p_value": test["p_value"]}
            block["layout"] = circle.as_dict()
            out[circle.name] = block
        return {"circles": out}

    def params(self) -> dict:
        return {
            "spec": str(self.spec_path),
            "card": {"radius": self.card_radius, "thickness": self.card_thickness,
                     "material": self.card_material.as_dict(), "origin": list(self.origin)},
            "post": {"radius": self.post_radius, "height": self.post_height,
                     "material": self.post_material.as_dict()},
            "pointer": {"tip": self.tip, "tail": self.tail, "tail_width": self.tail_width,
                        "shoulder": self.shoulder, "shoulder_width": self.shoulder_width,
                        "thickness": self.thickness, "clearance": self.clearance, "mass": self.mass,
                        "com": list(self.com), "inertia_com": list(self.inertia_com),
                        "inertia_about_post": self.inertia_axis, "material": self.pointer_material.as_dict()},
            "joint": {"dry_torque": self.dry_torque, "viscous": self.viscous,
                      "dry_deceleration": self.dry_torque / self.inertia_axis,
                      "viscous_rate": self.viscous / self.inertia_axis},
            "gesture": {"distribution": "start and speed uniform over their ranges; counter-clockwise with "
                                        "probability ccw_fraction",
                        "start_deg": list(self.start_range), "speed": list(self.speed_range),
                        "ccw_fraction": self.ccw_fraction},
            "outer": self.outer.as_dict(),
            "inner": self.inner.as_dict(),
            "physics": self.world.settings.as_dict(),
            "settle": dict(self.settle.__dict__),
        }
