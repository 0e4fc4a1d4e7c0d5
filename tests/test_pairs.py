"""Every material pair of assets/materials.toml does in the engine what its numbers say.

For each pair, on a fixed slab and on a slab that is a link of a jointed body held by a motor (as
the Tipper's tray is), at the time step the devices use and at half of it:
- a ball dropped 5 cm rebounds with the pair's restitution (within 10%);
- a cube set down on an incline starts to slide at the pair's friction angle atan(mu) (within 10%);
- a ball rolled on the level stops where its rolling resistance says, 1.4 v^2 r / (2 rolling g) (within 10%).
"""
from __future__ import annotations

import math

import pytest

from tabletop.sim.contact_check import (drop_rebound, friction_angle, predicted_roll_distance, roll_speed_for,
                               rolled_distance)
from tabletop.sim.materials import load_materials
from tabletop.sim.paths import assets_dir
from tabletop.sim.world import PhysicsSettings

MATERIALS = load_materials(assets_dir() / "materials.toml")
PAIRS = sorted(MATERIALS.pairs.pairs)
STEPS = {"1/960": PhysicsSettings(timestep=1 / 960), "1/1920": PhysicsSettings(timestep=1 / 1920)}
BODIES = {"fixed": False, "jointed": True}


@pytest.mark.parametrize("step", STEPS)
@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("key", PAIRS)
def test_a_drop_rebounds_with_the_pairs_restitution(key, body, step):
    pair = MATERIALS.pairs.pairs[key]
    e = drop_rebound(MATERIALS, pair.a, pair.b, BODIES[body], STEPS[step])
    assert e == pytest.approx(pair.restitution.value, rel=0.10)


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("key", PAIRS)
def test_an_incline_starts_to_slide_at_the_friction_angle(key, body):
    pair = MATERIALS.pairs.pairs[key]
    angle = friction_angle(MATERIALS, pair.a, pair.b, BODIES[body], STEPS["1/960"])
    assert angle == pytest.approx(math.degrees(math.atan(pair.friction.value)), rel=0.10)


@pytest.mark.parametrize("body", BODIES)
@pytest.mark.parametrize("key", PAIRS)
def test_a_rolled_ball_stops_where_its_rolling_resistance_says(key, body):
    pair = MATERIALS.pairs.pairs[key]
    speed = roll_speed_for(pair.rolling.value, distance=1.0)
    d = rolled_distance(MATERIALS, pair.a, pair.b, speed=speed, jointed=BODIES[body], settings=STEPS["1/960"])
    assert d == pytest.approx(predicted_roll_distance(pair.rolling.value, speed), rel=0.10)


def test_every_pair_value_lies_in_its_range_and_names_a_source():
    for pair in MATERIALS.pairs:
        for f in ("friction", "restitution", "rolling", "spinning"):
            v = getattr(pair, f)
            assert v.low <= v.value <= v.high, (pair.key, f)
            assert v.low < v.high, (pair.key, f)
            assert len(v.source) > 10, (pair.key, f)


def test_the_world_gives_each_body_values_whose_products_are_the_pair_values():
    """Glass on glass and glass on polystyrene together: per-body values exist that meet both."""
    from tabletop.sim.world import World

    with World(STEPS["1/960"]) as w:
        c = w.client
        from tabletop.sim.bullet import pybullet
        floor = c.createMultiBody(0, c.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[1, 1, 0.01]))
        w.add_body("floor", floor, MATERIALS["polystyrene"])
        a = w.add_sphere("a", 0.008, MATERIALS["glass"], (0, 0, 0.1))
        b = w.add_sphere("b", 0.008, MATERIALS["glass"], (0.1, 0, 0.1))
        assert w.contact_report()["unmet"] == []
        fa, fb, ff = (c.getDynamicsInfo(x, -1)[1] for x in (a, b, floor))
        ea, ef = c.getDynamicsInfo(a, -1)[5], c.getDynamicsInfo(floor, -1)[5]
        gg, gp = MATERIALS.pairs.get("glass", "glass"), MATERIALS.pairs.get("glass", "polystyrene")
        assert fa * fb == pytest.approx(gg.friction.value)
        assert fa * ff == pytest.approx(gp.friction.value)
        assert ea * ef == pytest.approx(gp.restitution.value)


def test_a_set_of_pairs_that_cannot_all_be_met_is_reported():
    """Three materials that all touch each other and themselves: the product rule cannot meet
    arbitrary values for all six pairs; the solution says which it misses."""
    from dataclasses import replace

    from tabletop.sim.materials import PairTable, solve_contact_values

    gp = MATERIALS.pairs.get("glass", "polystyrene")
    table = PairTable({"glass/glass": replace(gp, a="glass", b="glass"),
                       "glass/polystyrene": gp,
                       "polystyrene/polystyrene": replace(gp, a="polystyrene", b="polystyrene",
                                                          friction=replace(gp.friction, value=0.9))})
    sol = solve_contact_values(["glass", "polystyrene"], [("glass", "glass"), ("glass", "polystyrene"),
                                                          ("polystyrene", "polystyrene")], table)
    assert any("friction" in u for u in sol.unmet)


@pytest.mark.parametrize("threshold", [0.0, None])
def test_every_link_of_a_jointed_body_gets_its_values(threshold):
    """Read back from the engine: the links of a jointed body carry the solved values, not Bullet's
    defaults (a changeDynamics call that also sets the activation state or damping lands on the base)."""
    from tabletop.sim.contact_check import _rig

    rig = _rig(MATERIALS, "polystyrene", True, PhysicsSettings(timestep=1 / 960, contact_processing_threshold=threshold))
    w = rig.world
    try:
        w.add_sphere("ball", 0.008, MATERIALS["glass"], (0, 0, 0.1))
        want = w.body_values(MATERIALS["polystyrene"])
        for link in (-1, 0, 1):
            info = w.client.getDynamicsInfo(rig.slab, link)
            assert (info[1], info[5], info[6], info[7]) == pytest.approx(
                (want.friction, want.restitution, want.rolling, want.spinning)), link
    finally:
        w.close()
