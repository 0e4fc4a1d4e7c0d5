"""Measure what a material pair does in the engine: a drop (restitution), an incline (the friction
angle) and a rolled ball (rolling resistance), each on a fixed slab or on a slab that is a link of a
jointed body held by a motor (as the Tipper's tray is).

These are the experiments that pin a pair's numbers down on a real object, run on the simulated
one: tests/test_pairs.py checks every pair of assets/materials.toml against its values with them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from tabletop.sim.bullet import pybullet
from tabletop.sim.materials import MaterialSet
from tabletop.sim.world import PhysicsSettings, World

BALL_RADIUS = 0.008      # m: a 16 mm test ball (a game marble)
CUBE_HALF = 0.01         # m: a 20 mm test cube
SLAB_HALF = (2.0, 0.3, 0.01)


@dataclass(frozen=True)
class Rig:
    """A world with one slab of material `surface`, fixed or on a motor-held hinge."""

    world: World
    slab: int
    jointed: bool


def _bare(materials: MaterialSet, name: str):
    """The moving test body's material without its air-drag stand-ins: the test measures the pair."""
    return replace(materials[name], linear_damping=0.0, angular_damping=0.0)


def _rig(materials: MaterialSet, surface: str, jointed: bool, settings: PhysicsSettings,
         tilt_deg: float = 0.0) -> Rig:
    w = World(settings)
    c = w.client
    shape = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=list(SLAB_HALF))
    tilt = math.radians(tilt_deg)
    if not jointed:
        body = c.createMultiBody(0.0, shape, basePosition=[0, 0, -SLAB_HALF[2]],
                                 baseOrientation=c.getQuaternionFromEuler([0, tilt, 0]))
        w.add_body("slab", body, materials[surface])
        return Rig(w, body, False)
    # a fixed base with no shape, a slab link on a revolute joint about Y held by a position motor, and
    # a second slab piece welded to it (a jointed tray built of several links, like the Tipper's)
    second = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[0.05, 0.05, SLAB_HALF[2]])
    body = c.createMultiBody(
        baseMass=0.0, baseCollisionShapeIndex=-1, basePosition=[0, 0, 0],
        linkMasses=[0.5, 0.1], linkCollisionShapeIndices=[shape, second], linkVisualShapeIndices=[-1, -1],
        linkPositions=[[0, 0, -SLAB_HALF[2]], [0, 0.5, 0]], linkOrientations=[[0, 0, 0, 1]] * 2,
        linkInertialFramePositions=[[0, 0, 0]] * 2, linkInertialFrameOrientations=[[0, 0, 0, 1]] * 2,
        linkParentIndices=[0, 1], linkJointTypes=[pybullet.JOINT_REVOLUTE, pybullet.JOINT_FIXED],
        linkJointAxis=[[0, 1, 0], [0, 1, 0]])
    w.add_body("slab", body, materials[surface], links=(-1, 0, 1))
    c.resetJointState(body, 0, tilt, 0.0)
    c.setJointMotorControl2(body, 0, pybullet.POSITION_CONTROL, targetPosition=tilt, targetVelocity=0.0,
                            positionGain=1.0, velocityGain=1.0, force=500.0)
    return Rig(w, body, True)


def drop_rebound(materials: MaterialSet, ball: str, surface: str, jointed: bool = False,
                 settings: PhysicsSettings = PhysicsSettings(), height: float = 0.05) -> float:
    """The coefficient of restitution of a ball of `ball` dropped `height` onto the slab: the
    speed just after the first impact over the speed just before it."""
    rig = _rig(materials, surface, jointed, settings)
    w = rig.world
    try:
        w.add_sphere("ball", BALL_RADIUS, _bare(materials, ball), (0, 0, BALL_RADIUS + height))
        v_in, v_out, hit = 0.0, 0.0, False
        for _ in range(int(1.0 / w.dt)):
            w.step()
            vz = w.velocity("ball")[0][2]
            if not hit:
                if vz < 0:
                    v_in = -vz
                else:
                    hit = v_in > 0
            if hit:
                if vz > v_out:
                    v_out = vz
                elif vz < v_out - 1e-9:
                    break
        return v_out / v_in if v_in > 0 else float("nan")
    finally:
        w.close()


def slides_at(materials: MaterialSet, body: str, surface: str, tilt_deg: float, jointed: bool = False,
              settings: PhysicsSettings = PhysicsSettings(), seconds: float = 0.5) -> bool:
    """Whether a cube of `body` set down at rest on the slab tilted `tilt_deg` slides (moves more
    than 2 mm down the slope in `seconds`)."""
    rig = _rig(materials, surface, jointed, settings, tilt_deg)
    w = rig.world
    try:
        c = w.client
        t = math.radians(tilt_deg)
        n = np.array([math.sin(t), 0.0, math.cos(t)])            # the slab's up normal (tilted about Y)
        p0 = n * (CUBE_HALF + 1e-5)
        shape = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[CUBE_HALF] * 3)
        mass = materials[body].density * (2 * CUBE_HALF) ** 3
        cube = c.createMultiBody(mass, shape, basePosition=list(p0),
                                 baseOrientation=c.getQuaternionFromEuler([0, t, 0]))
        w.add_body("cube", cube, _bare(materials, body))
        w.step(int(seconds / w.dt))
        return float(np.linalg.norm(w.position("cube") - p0)) > 0.002
    finally:
        w.close()


def friction_angle(materials: MaterialSet, body: str, surface: str, jointed: bool = False,
                   settings: PhysicsSettings = PhysicsSettings(), iterations: int = 9) -> float:
    """The tilt (degrees) at which a cube of `body` starts to slide on the slab, by bisection."""
    lo, hi = 1.0, 80.0
    for _ in range(iterations):
        mid = (lo + hi) / 2
        if slides_at(materials, body, surface, mid, jointed, settings):
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


def rolled_distance(materials: MaterialSet, ball: str, surface: str, speed: float = 0.2,
                    jointed: bool = False, settings: PhysicsSettings = PhysicsSettings(),
                    cap_s: float = 60.0) -> float:
    """How far a ball of `ball` rolled (without slipping) at `speed` on the level slab goes before it stops."""
    rig = _rig(materials, surface, jointed, settings)
    w = rig.world
    try:
        w.add_sphere("ball", BALL_RADIUS, _bare(materials, ball), (-1.9, 0, BALL_RADIUS))
        w.set_velocity("ball", (speed, 0, 0), (0, speed / BALL_RADIUS, 0))
        every = max(1, int(0.02 / w.dt))
        for _ in range(int(cap_s / w.dt / every)):
            w.step(every)
            if np.linalg.norm(w.velocity("ball")[0]) < 1e-3:
                break
        return float(w.position("ball")[0] + 1.9)
    finally:
        w.close()


def roll_speed_for(rolling: float, distance: float = 1.0, radius: float = BALL_RADIUS, g: float = 9.81) -> float:
    """The speed that rolls a ball `distance` against the rolling resistance (the inverse of
    `predicted_roll_distance`), so every pair's test fits on the slab."""
    return math.sqrt(distance * 2.0 * rolling * g / (1.4 * radius))


def predicted_roll_distance(rolling: float, speed: float = 0.2, radius: float = BALL_RADIUS,
                            g: float = 9.81) -> float:
    """A solid ball rolled at `speed` against a resisting torque rolling * N: its kinetic energy
    (1 + 2/5) m v^2 / 2 is spent at the rate rolling * m g * v / radius, so it stops after
    (1 + 2/5) v^2 radius / (2 rolling g)."""
    return 1.4 * speed ** 2 * radius / (2.0 * rolling * g)
