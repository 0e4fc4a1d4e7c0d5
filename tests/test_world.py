"""The World contract: own connection, fixed timestep, explicit materials, determinism."""
from __future__ import annotations

import numpy as np
from tabletop.sim.bullet import pybullet
import pytest

from tabletop.sim.meshes import cached_mesh, grid_surface
from tabletop.sim.readouts import SettleRule, run_until_settled
from tabletop.sim.world import PhysicsSettings, World

R = 0.008  # marble radius


def _floor(world, material, tilt_deg=0.0):
    c = world.client
    shape = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[5, 5, 0.01])
    orn = c.getQuaternionFromEuler([0, np.radians(tilt_deg), 0])
    body = c.createMultiBody(0, shape, basePosition=[0, 0, -0.01], baseOrientation=orn)
    return world.add_body("floor", body, material)


def test_worlds_are_independent_connections(materials):
    """Two worlds in one process step independently: a marble falling in one does not move in the other."""
    with World() as a, World() as b:
        assert a.client._client != b.client._client
        a.add_sphere("m", R, materials["glass"], (0, 0, 1))
        b.add_sphere("m", R, materials["glass"], (0, 0, 1))
        a.step(240)
        assert a.position("m")[2] < 0.6
        assert b.position("m")[2] == pytest.approx(1.0)
        assert a.time == pytest.approx(1.0)


def test_every_body_gets_its_material(world, materials):
    """Friction, rolling and spinning resistance and restitution are set explicitly, not Bullet's
    defaults: a marble on the floor gets per-body values whose combination is the glass/polystyrene pair."""
    glass = materials["glass"]
    floor = _floor(world, materials["polystyrene"])
    body = world.add_sphere("m", R, glass, (0, 0, 0.1))
    m, f = world.client.getDynamicsInfo(body, -1), world.client.getDynamicsInfo(floor, -1)
    pair = materials.pairs.get("glass", "polystyrene")
    assert m[1] * f[1] == pytest.approx(pair.friction.value)
    assert m[5] * f[5] == pytest.approx(pair.restitution.value)
    assert m[6] * f[1] + f[6] * m[1] == pytest.approx(pair.rolling.value)
    assert m[7] * f[1] + f[7] * m[1] == pytest.approx(pair.spinning.value)
    assert m[0] == pytest.approx(glass.density * 4 / 3 * np.pi * R ** 3)


def test_a_rolling_marble_stops(world, materials):
    """A glass marble rolled at 0.3 m/s on level plastic slows under rolling resistance and comes to
    rest within 10 s after rolling between 0.2 m and 2 m (calibration: scripts/calibrate_rolling.py)."""
    _floor(world, materials["polystyrene"])
    world.add_sphere("m", R, materials["glass"], (0, 0, R))
    world.set_velocity("m", (0.3, 0, 0), (0, 0.3 / R, 0))
    settled, escaped = run_until_settled(world, ["m"], SettleRule(cap=10.0))
    assert settled and not escaped
    assert 0.2 < world.position("m")[0] < 2.0


def test_marble_rolls_down_a_slope(world, materials):
    """On a 5 degree slope a marble released at rest rolls downhill (towards +x for this tilt)."""
    _floor(world, materials["polystyrene"], tilt_deg=5.0)
    world.add_sphere("m", R, materials["glass"], (0, 0, R + 0.0005))
    world.step(480)
    assert world.position("m")[0] < -0.1 or world.position("m")[0] > 0.1


def test_same_setup_same_trajectory(materials):
    """Fixed timestep and deterministic settings: two identical worlds give bit-identical trajectories."""
    def trajectory():
        with World(PhysicsSettings(timestep=1 / 480)) as w:
            _floor(w, materials["polystyrene"], tilt_deg=3.0)
            w.add_sphere("m", R, materials["glass"], (0, 0, 0.05))
            w.set_velocity("m", (0.2, 0.13, 0), (0, 0, 5))
            out = []
            for _ in range(50):
                w.step(10)
                out.append(tuple(w.position("m")))
            return out
    assert trajectory() == trajectory()


def test_marble_settles_at_the_bottom_of_a_concave_mesh_bowl(world, materials, tmp_path, monkeypatch):
    """A static concave trimesh (internal-edge filtered) holds a marble: dropped off-centre into a
    paraboloid bowl, it rolls back and forth and settles at the bottom, never falling through."""
    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path))
    xs = np.linspace(-0.1, 0.1, 81)
    X, Y = np.meshgrid(xs, xs)

    def build():
        return grid_surface(xs, xs, 2.0 * (X ** 2 + Y ** 2))

    path = cached_mesh("test-bowl", 1, {"n": 81}, build)
    world.add_static_mesh("bowl", path, materials["polystyrene"])
    world.add_sphere("m", R, materials["glass"], (0.05, 0.02, 0.03))
    settled, _ = run_until_settled(world, ["m"], SettleRule(cap=30.0))
    assert settled
    pos = world.position("m")
    assert np.hypot(pos[0], pos[1]) < 0.01
    assert pos[2] > 0.0


def test_renew_empties_the_world_and_keeps_its_settings(materials):
    """After renew no body is left (in Bullet or the registry), a new marble falls under the same
    gravity and timestep, and the step count and the pair table stay."""
    with World(PhysicsSettings(timestep=1 / 480)) as w:
        _floor(w, materials["wood"])
        w.add_sphere("m", R, materials["glass"], (0, 0, 1))
        w.step(100)
        table = w.pair_table
        w.renew()
        assert w.bodies == {} and w.client.getNumBodies() == 0 and w.steps == 100
        assert w.pair_table is table
        w.add_sphere("m", R, materials["glass"], (0, 0, 1))
        w.step(480)
        assert w.position("m")[2] == pytest.approx(1.0 - 9.81 / 2, abs=0.02)


def _rebound(materials, dt: float, slop: float) -> float:
    """A 10 mm glass ball rolling at 0.6 m/s, 70 degrees off the normal, into a polystyrene wall:
    its velocity along the wall's normal 0.2 s later (negative: away from the wall)."""
    with World(PhysicsSettings(timestep=dt, contact_slop=slop)) as w:
        c, r = w.client, 0.005
        _floor(w, materials["polystyrene"])
        wall = c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[0.0025, 0.3, 0.01])
        w.add_body("wall", c.createMultiBody(0, wall, basePosition=[0.03, 0, 0.01]), materials["polystyrene"])
        w.add_sphere("ball", r, materials["glass"], (0, 0, r))
        v = np.array([np.cos(np.radians(70)), np.sin(np.radians(70)), 0.0]) * 0.6
        w.set_velocity("ball", v, np.cross([0, 0, 1], v) / r)
        w.step(round(0.2 / dt))
        return float(w.velocity("ball")[0][0])


@pytest.mark.slow
def test_a_contact_slop_eats_bounces_as_the_step_shrinks_and_none_converges(materials):
    """Bullet lets a body close a contact shallower than the slop at (slop - depth) / dt, taken off
    its bounce: with PyBullet's 1e-5 m the ball's rebound off a wall holds from 1/1920 to 1/3840 s
    and is mostly gone at 1/7680 s (slop / dt is 0.08 m/s there); with no
    slop it moves under 3% from 1/1920 to 1/7680 s (tabletop.sim.world.PhysicsSettings.contact_slop)."""
    slop = [_rebound(materials, dt, 1e-5) for dt in (1 / 1920, 1 / 7680)]
    none = [_rebound(materials, dt, 0.0) for dt in (1 / 1920, 1 / 7680)]
    assert slop[0] < -0.05 and slop[1] > 0.5 * slop[0]          # most of the rebound gone
    assert none[0] < -0.05 and none[1] == pytest.approx(none[0], rel=0.03)


@pytest.mark.parametrize("dt", [1 / 240, 1 / 960, 1 / 1920, 1 / 3840])
def test_a_substep_plan_takes_exactly_the_steps_asked_in_exact_calls(dt):
    """`World.step` with substeps takes n steps as calls of k Bullet substeps: every k in the plan
    is one whose substep comes out as dt and whose count as k in floating point, the plan's steps
    add up to n, and long runs take few calls (k = 31 is one that is not exact)."""
    from tabletop.sim.world import MAX_SUBSTEPS, exact_substeps, substep_plan
    assert not exact_substeps(31, dt)
    for n in (1, 2, 7, 12, 31, 48, 241, 2400, 4567):
        plan = substep_plan(n, dt)
        assert sum(k * calls for k, calls in plan) == n
        assert all(k == 1 or (exact_substeps(k, dt) and k <= MAX_SUBSTEPS) for k, _ in plan)
        assert sum(calls for _, calls in plan) <= n // MAX_SUBSTEPS + 3


def _tumbling_box(materials, substeps: bool, push: bool = False):
    with World(PhysicsSettings(timestep=1 / 960)) as w:
        _floor(w, materials["wood"], tilt_deg=4.0)
        c = w.client
        box = c.createMultiBody(0.01, c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[0.008] * 3),
                                basePosition=[0, 0, 0.03], baseOrientation=c.getQuaternionFromEuler([0.3, 0.2, 0.1]))
        w.add_body("box", box, materials["polystyrene"])
        w.set_velocity("box", (0.3, 0.1, 0.5), (4, -3, 2))
        w.substeps = substeps
        out = []
        for n in (1, 7, 12, 31, 48, 300, 601):
            if push:
                c.applyExternalForce(box, -1, [0.0, 0.2, 0.0], [0, 0, 0.03], pybullet.WORLD_FRAME)
            w.step(n)
            out.append((w.steps, *w.pose("box")[0], *w.velocity("box")[0]))
        assert c.getPhysicsEngineParameters()["fixedTimeStep"] == w.dt
        return out


def test_substeps_are_the_single_steps_bit_for_bit(materials):
    """A box thrown onto a tilted floor, bouncing and sliding: the same steps taken as Bullet
    substeps end bit for bit where single steps do, and the world's step is dt again after. A
    force applied from Python before a `step(n)` acts on every substep of a call, not once: that
    motion differs, which is why substeps are a device's choice (the comparison can fail)."""
    assert _tumbling_box(materials, substeps=True) == _tumbling_box(materials, substeps=False)
    assert _tumbling_box(materials, substeps=True, push=True) != _tumbling_box(materials, substeps=False, push=True)
