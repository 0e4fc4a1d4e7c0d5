"""The throw device (sim/devices/throw.py, sim/throwable.py) and `tabletop validate`."""
import math

import numpy as np
import pytest

from tabletop.cli import main
from tabletop.gamekit.devices import default_spec, device_ref, make_device
from tabletop.sim.batch import run_batch, trial_rng
from tabletop.sim.errors import SpecError
from tabletop.sim.throwable import (Release, Start, cuboid, cylinder, half_cylinder, load_start, qaxis, qmul, rotate,
                           uniform_quaternion, unit_vector)
from tabletop.sim.spec import Table
from tabletop.sim.validate import cases, pender_uhrin_ratio, run_case

COIN = (("shape.kind", '"cylinder"'), ("shape.radius", "0.0125"), ("shape.height", "0.00885"))


def test_cylinder_mass_and_inertia_approach_the_sharp_cylinder():
    r, h, rho = 0.0125, 0.00885, 1000.0
    s = cylinder(r, h, 1e-6, rho)
    m = rho * math.pi * r * r * h
    assert s.mass == pytest.approx(m, rel=1e-4)
    assert s.inertia[2] == pytest.approx(m * r * r / 2, rel=1e-4)
    assert s.inertia[0] == pytest.approx(m * (3 * r * r + h * h) / 12, rel=1e-4)
    rounded = cylinder(r, h, 0.001, rho)           # rounding the rims takes material away
    assert rounded.mass < s.mass and rounded.inertia[2] < s.inertia[2]


def test_half_cylinder_rest_heights():
    s = half_cylinder(0.012, 0.12, 33, 0.0, 700.0)
    d = 4 * 0.012 / (3 * math.pi)
    assert s.rest("round").height == pytest.approx(d) and s.rest("flat").height == pytest.approx(0.012 - d)


def _rest(device, label, tilt_deg=0.0):
    """A Release with the body resting still in rest state `label`, tilted about X by tilt_deg."""
    g = device.gesture
    q = qmul(qaxis((1.0, 0.0, 0.0), math.radians(tilt_deg)), g._label_orientation(label))
    h = device.shape.rest(label).height
    return Release((0.0, 0.0, h + 2e-4), q, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), label)


@pytest.mark.parametrize("overrides", [(), COIN, (("shape.kind", '"half-cylinder"'),)])
def test_a_body_put_down_in_each_rest_state_reads_it(overrides):
    device = make_device("throw", overrides=overrides)
    try:
        for label in device.labels:
            out = device.run(np.random.default_rng(0), _rest(device, label))
            assert out.label == label, (label, out.reading)
    finally:
        device.close()


def test_a_cube_leaning_on_the_rim_is_lodged():
    device = make_device("throw")
    try:
        # against the rim: a 16 mm cube tilted 30 degrees, its top edge on the rim's inner face
        r = _rest(device, "+z", 30.0)
        x = device.half_x - 0.008 * math.cos(math.radians(30)) + 0.001
        out = device.run(np.random.default_rng(0), Release((0.0, x, 0.012), r.orientation, (0, 0, 0), (0, 0, 0), "+z"))
        assert out.status == "lodged" and out.label is None, out.reading
    finally:
        device.close()


def test_a_cube_dropped_flat_lands_flat():
    """A face landing flat on a hard table gets its whole contact at once: no spurious torque turns
    the die (a convex hull's one-point-a-step contact tipped 58% of these drops onto other faces)."""
    device = make_device("throw", overrides=(("surface.material", '"wood"'),))
    try:
        for yaw in np.linspace(0.0, 1.5, 8):
            q = qaxis((0.0, 0.0, 1.0), yaw)
            out = device.run(np.random.default_rng(0), Release((0.0, 0.0, 0.064), q, (0, 0, 0), (0, 0, 0), "+z"))
            assert out.label == "+z", (yaw, out.reading)
    finally:
        device.close()


def test_gestures_start_where_the_spec_says():
    toss = make_device("throw", overrides=(("gesture.mode", '"toss"'), ("gesture.start", '"-y"'),
                                           ("gesture.spin", "[10.0, 10.0]"), ("gesture.spin_axis", "[0.0, 0.0, 1.0]"),
                                           ("gesture.height", "[0.05, 0.05]")))
    roll = make_device("throw", overrides=(("gesture.mode", '"roll"'), ("gesture.start", '"+z"'),
                                           ("gesture.speed", "[0.4, 0.4]"), ("gesture.azimuth_deg", "[0.0, 0.0]")))
    try:
        r = toss.sample_gesture(trial_rng(3, 0))
        assert r.start == "-y" and rotate(r.orientation, (0.0, -1.0, 0.0))[2] == pytest.approx(1.0)
        # spinning 10 rad/s about its own z axis, lowest point 5 cm above the table
        assert np.linalg.norm(r.spin) == pytest.approx(10.0)
        assert np.dot(r.spin, rotate(r.orientation, (0.0, 0.0, 1.0))) == pytest.approx(10.0)
        assert r.position[2] - toss.shape.depth(r.orientation) == pytest.approx(0.05)
        r = roll.sample_gesture(trial_rng(3, 0))
        assert r.velocity == pytest.approx((0.4, 0.0, 0.0))
        assert r.spin[1] == pytest.approx(0.4 / 0.008)          # rolling forward at v / rest height
        out = roll.run(trial_rng(3, 0), r)
        assert out.status == "ok" and out.gesture["start"] == "+z"
    finally:
        toss.close()
        roll.close()


def test_start_draws_in_a_fixed_order():
    """tabletop.sim.throwable.Start, shared by the throw's gestures, the die and the sticks: at random, the
    orientation is one 4-d Gaussian draw and the spin a direction then a rate; from a fixed start,
    one yaw draw and one rate, the spin about the body axis turned with the body. Seeded alike,
    the draws come out as those calls' own (so the devices' default draws stay as they were)."""
    at_random, other = np.random.default_rng(3), np.random.default_rng(3)
    q = Start().turn(at_random)
    assert q == uniform_quaternion(other)
    w = Start().spin(at_random, q, (0.0, 30.0))
    axis, rate = unit_vector(other), float(other.uniform(0.0, 30.0))
    assert w == tuple(rate * a for a in axis)
    rests = cuboid((0.016,) * 3, 1000.0).rests
    spec = {"start": "-x", "yaw_deg": [10.0, 20.0], "spin_axis": [0.0, 0.0, 3.0]}
    fixed = load_start(Table(spec, "t.toml", "gesture."), rests)
    rng, other = np.random.default_rng(4), np.random.default_rng(4)
    q = fixed.turn(rng)
    yaw = math.radians(float(other.uniform(10.0, 20.0)))
    assert rotate(q, (-1.0, 0.0, 0.0))[2] == pytest.approx(1.0)
    assert q == qmul(qaxis((0.0, 0.0, 1.0), yaw), fixed.orientation)
    w = fixed.spin(rng, q, (5.0, 6.0))
    assert w == rotate(q, (0.0, 0.0, float(other.uniform(5.0, 6.0))))
    assert fixed.params() == {"start": "-x", "yaw_deg": [10.0, 20.0], "spin_axis": [0.0, 0.0, 1.0]}
    assert load_start(Table({}, "t.toml", "gesture."), rests).params() == {"start": "random", "yaw_deg": [0.0, 0.0],
                                                                          "spin_axis": "random"}
    with pytest.raises(SpecError, match="t.toml: gesture.start"):
        load_start(Table({"start": "random"}, "t.toml", "gesture."), rests, random_start=False)


def test_bad_gesture_specs_are_spec_errors():
    for overrides, needle in [((("gesture.mode", '"hurl"'),), "gesture.mode"),
                              ((("gesture.mode", '"toss"'), ("gesture.start", '"top"')), "gesture.start"),
                              ((("shape.kind", '"sphere"'),), "shape.kind"),
                              ((("shape.size", "[0.016, 0.016]"),), "shape.size")]:
        with pytest.raises(SpecError, match=needle):
            make_device("throw", overrides=overrides).close()


@pytest.mark.slow
def test_a_thick_coin_lands_on_its_side_about_a_third_of_the_time():
    """Yong & Mahadevan's coin (h/d = 0.354) let go at random just above felt: P(side) near 1/3
    (docs/validation.md measures it with 10,000 drops; 600 here keep the test short)."""
    ref = device_ref("throw", default_spec("throw"), COIN)
    recs = run_batch(ref, 600, 11, workers=2)
    labelled = [r for r in recs if r["status"] == "ok"]
    side = sum(r["label"] == "side" for r in labelled) / len(labelled)
    assert 0.26 < side < 0.40
    assert not any(r["status"] in ("escaped", "unsettled") for r in recs)


def test_pender_uhrin_formula():
    assert pender_uhrin_ratio(1.0, 1.0) == pytest.approx(1.0)
    assert pender_uhrin_ratio(0.03, 0.02) == pytest.approx(0.2256, abs=1e-4)
    assert pender_uhrin_ratio(0.02, 0.03) == pytest.approx(1 / 0.2256, rel=1e-3)


def test_validate_case_row_and_bad_output_path(capsys):
    case = next(c for c in cases() if c.cite == "symmetry")
    device = make_device("throw", overrides=case.overrides)
    labels = device.labels
    device.close()
    row = run_case(case, lambda ov, n: run_batch(device_ref("throw", default_spec("throw"), ov), 60, 2),
                   True, lambda ov: labels)
    assert row["labelled"] + row["lodged"] + row["unsettled"] + row["escaped"] == 60
    assert isinstance(row["passed"], bool) and row["command"].startswith("tabletop estimate throw")
    assert main(["validate", "--quick", "--out", "/proc/nowhere/v.json"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
