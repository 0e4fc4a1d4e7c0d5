"""King Kong's spinner: sector layout and lookup, physics scenarios of the pointer's friction,
the stop angle's spread, spec errors and the `tabletop estimate spinner` result.

What every device owes (the same seed, the same outcome; one or two workers; the fastest
gesture; unsettled trials) is checked on every registered device in tests/test_device_contracts.py.

Each scenario's docstring states the physics it expects. A spin is ~800 steps at 1/240 s of a
single jointed body (~5 ms of CPU); the whole file runs in well under a minute.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from tabletop.sim.batch import run_trials
from tabletop.sim.devices.base import Outcome, Status
from tabletop.sim.devices.spinner import Flick, Spinner
from tabletop.sim.devices.spinner_shape import INNER_LABELS, OUTER_LABELS, Circle, SpinnerShape
from tabletop.sim.errors import SpecError
from tabletop.sim.paths import assets_dir
from tabletop.sim.scene import look, poses
from tabletop.sim.world import PhysicsSettings, World

from tests.specs import assert_refused, write_spec

SPEC = assets_dir() / "king_kong" / "spinner.toml"   # the registry's default spec for "spinner"


@pytest.fixture(scope="module")
def spinner():
    d = Spinner(SPEC)
    yield d
    d.close()


def _centre(circle: Circle, k: int) -> float:
    """The angle of the middle of sector k."""
    return circle.start_deg + circle.edges[k] + circle.widths_deg[k] / 2


# -- contract and layout ---------------------------------------------------------------------------

def test_contract(spinner):
    assert spinner.name == "spinner"
    assert set(spinner.labels) == set(OUTER_LABELS) and spinner.labels == OUTER_LABELS
    assert spinner.inner_labels == INNER_LABELS
    p = spinner.params()
    json.dumps(p)
    assert p["card"]["material"]["name"] == "cardboard" and p["pointer"]["material"]["name"] == "polystyrene"
    g = spinner.sample_gesture(np.random.default_rng(0))
    assert isinstance(g, Flick)
    assert spinner.speed_range[0] <= g.speed <= spinner.speed_range[1]
    assert spinner.start_range[0] <= g.start_deg <= spinner.start_range[1]
    o = spinner.run(np.random.default_rng(0))
    assert isinstance(o, Outcome) and o.status is Status.OK
    assert o.label == o.reading["outer"] and o.reading["inner"] in INNER_LABELS
    assert o.sim_time == pytest.approx(o.steps * spinner.world.dt)
    assert o.gesture["speed"] == g.speed and o.gesture["ccw"] == g.ccw
    assert spinner.record_extra(o) == {"inner": o.reading["inner"], "angle_deg": o.reading["angle_deg"]}
    json.dumps(o.as_dict())


def test_layout_covers_the_circle_and_favours_choices(spinner):
    """Both circles cover 360 degrees; choices (LR1, LR2, UP; U1-2, U2-3) fill two thirds of the
    outer circle and half the inner one."""
    for circle in (spinner.outer, spinner.inner):
        assert sum(circle.widths_deg) == pytest.approx(360.0)
        assert sum(circle.share().values()) == pytest.approx(1.0)
    outer, inner = spinner.outer.share(), spinner.inner.share()
    assert outer["LR1"] + outer["LR2"] + outer["UP"] == pytest.approx(2 / 3)
    assert inner["U1-2"] + inner["U2-3"] == pytest.approx(1 / 2)


def test_sector_lookup_and_lines():
    """The sector holding an angle, counter-clockwise from the circle's start; an angle exactly on
    a line reads the sector that begins there; angles wrap round the circle."""
    c = Circle("outer", 10.0, ("UP", "L1", "R1"), (90.0, 120.0, 150.0))
    assert c.label_at(10.0) == "UP" and c.label_at(50.0) == "UP"
    assert c.label_at(99.999) == "UP" and c.label_at(100.0) == "L1"         # on a line: the sector beginning there
    assert c.label_at(220.0) == "R1" and c.label_at(369.999) == "R1"
    assert c.label_at(9.999) == "R1" and c.label_at(370.0) == "UP" and c.label_at(-350.0) == "UP"
    assert c.label_at(-1e-17) == "R1"
    assert c.share() == pytest.approx({"UP": 0.25, "L1": 1 / 3, "R1": 5 / 12})


# -- physics scenarios ---------------------------------------------------------------------------

@pytest.mark.parametrize("k", [0, 3, 7])
def test_pointer_with_no_spin_reads_the_sectors_it_points_at(spinner, k):
    """A pointer set at the middle of an outer sector and not flicked stays where it is (its dry
    friction holds it) and reads that sector, and the inner sector under the same angle."""
    angle = _centre(spinner.outer, k)
    res = spinner.drop(angle, 0.0)
    assert res[0] == "read"
    assert res[1]["angle_deg"] == pytest.approx(angle % 360.0, abs=1e-6)
    assert res[1]["outer"] == spinner.outer.labels[k]
    assert res[1]["inner"] == spinner.inner.label_at(angle)
    assert res[2] * spinner.world.dt < 0.5


def test_stronger_flick_spins_longer_and_further(spinner):
    """Friction (dry + viscous + air) stops every flick; a stronger flick turns longer and
    further. A typical flick (15 rad/s) spins about 3 s and 3 turns, the slowest about 2 s,
    the fastest about 5 s."""
    times, turns = [], []
    for speed in (6.0, 10.0, 15.0, 20.0, 30.0):
        res = spinner.spin(Flick(0.0, speed, True))
        assert res[0] == "read"
        times.append(res[2] * spinner.world.dt)
        turns.append(res[1]["turns"])
    assert times == sorted(times) and turns == sorted(turns)
    assert 1.2 < times[0] < 2.4 and 2.5 < times[2] < 4.0 and 3.5 < times[-1] < 6.0
    assert 2.0 < turns[2] < 4.5


def test_spin_follows_the_friction_law(spinner):
    """Spinning down from 15 rad/s the pointer obeys I dw/dt = -T_dry - c w - air: the stopping
    angle lies between that of dry and viscous friction alone (no air) and the same with the
    air drag at its largest (at the flick's speed) throughout."""
    a = spinner.dry_torque / spinner.inertia_axis
    b = spinner.viscous / spinner.inertia_axis
    w0 = 15.0
    no_air = (w0 - a / b * math.log(1 + b * w0 / a)) / b
    d = spinner.pointer_material.angular_damping
    b_max = b + d * (1 + w0)
    with_air = (w0 - a / b_max * math.log(1 + b_max * w0 / a)) / b_max
    res = spinner.spin(Flick(0.0, w0, True))
    assert with_air * 0.97 < res[1]["turns"] * 2 * math.pi < no_air * 1.03


def test_clockwise_flick_turns_clockwise(spinner):
    """The same flick clockwise and counter-clockwise turns the same amount, opposite ways:
    the pointer's friction is symmetric."""
    ccw = spinner.spin(Flick(100.0, 12.0, True))
    cw = spinner.spin(Flick(100.0, 12.0, False))
    assert ccw[1]["turns"] > 1.0
    assert cw[1]["turns"] == pytest.approx(-ccw[1]["turns"], rel=1e-6)
    assert (ccw[1]["angle_deg"] - 100.0) % 360.0 == pytest.approx((100.0 - cw[1]["angle_deg"]) % 360.0, abs=1e-3)


@pytest.mark.parametrize("ccw", [True, False])
def test_fastest_flick_keeps_the_pointer_on_its_post_and_settles(spinner, ccw):
    """The fastest plausible flick turns the pointer about 8 times; it stays on its post (the
    joint holds its hub on the axis at its height: no escape) and stops well within the cap."""
    o = spinner.run(np.random.default_rng(0), Flick(33.0, spinner.speed_range[1], ccw))
    assert o.status is Status.OK
    assert spinner.on_post()
    assert abs(o.reading["turns"]) > 6.0
    assert o.sim_time < spinner.settle.cap / 2


def test_stop_angle_is_nearly_uniform_from_a_fixed_start(spinner):
    """Even from the same start angle, the spread of flick speeds makes the stop angle nearly
    uniform (the pointer turns 0.7 to 8 times): over 600 flicks from 0 degrees, twelve 30-degree
    bins are not rejected by a loose chi-square (p > 0.001), nor are the outer circle's labels
    against their sectors' shares."""
    from scipy.stats import chisquare

    rng = np.random.default_rng(2024)
    bins = np.zeros(12, int)
    counts = {label: 0 for label in spinner.labels}
    for _ in range(600):
        g = spinner.sample_gesture(rng)
        res = spinner.spin(Flick(0.0, g.speed, g.ccw))
        assert res[0] == "read"
        bins[int(res[1]["angle_deg"] // 30.0)] += 1
        counts[res[1]["outer"]] += 1
    assert chisquare(bins).pvalue > 0.001
    share = spinner.outer.share()
    expected = [600 * share[label] for label in counts]
    assert chisquare(list(counts.values()), expected).pvalue > 0.001


def test_frequencies_follow_the_sector_widths(spinner):
    """With the full gesture (start angle uniform, as where the last spin left it), 600 trials'
    outer and inner counts are not rejected against the sectors' shares (p > 0.001)."""
    block = spinner.summarize_extra(run_trials(spinner, 5, range(600)))["circles"]
    for name in ("outer", "inner"):
        assert block[name]["labelled"] == 600
        assert block[name]["against_sector_share"]["p_value"] > 0.001


# -- in a shared world ----------------------------------------------------------------------------

def test_spinner_built_into_a_shared_world_at_an_origin():
    """Built into a given World at a pose, the pointer turns on its post there; closing the
    device leaves the shared world open."""
    w = World(PhysicsSettings(timestep=1 / 240))
    try:
        d = Spinner(SPEC, world=w, origin=(1.0, -0.5, 0.75))
        o = d.run(np.random.default_rng(5))
        assert o.status is Status.OK and d.on_post()
        d.close()
        assert w.client is not None
        w.step(1)
    finally:
        w.close()


def _close(a, b) -> bool:
    """Whether two looks or poses are equal, their floats to 1e-12 (Bullet's own round trips)."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return isinstance(b, (int, float)) and abs(a - b) <= 1e-12
    return a == b


def test_the_shapes_scene_is_what_the_world_holds():
    """SpinnerShape.scene, built from the spec alone, gives the card's and the pointer's looks and
    poses exactly as `look` and `poses` read them from a fresh Spinner's World (what replay
    playback draws in place of that World)."""
    origin = (0.55, 0.32, 0.01)
    d = Spinner(SPEC, origin=origin)
    try:
        scene = SpinnerShape(SPEC, origin=origin).scene()
        assert list(scene.bodies) == list(d.world.bodies)
        for name in d.world.bodies:
            assert _close(look(scene, name), look(d.world, name)), name
            assert _close(poses(scene, name), poses(d.world, name)), name
        assert not _close(look(scene, "spinner_pointer"), look(d.world, "spinner_card"))
    finally:
        d.close()


def test_summarize_extra():
    """The "circles" block: for each circle, counts, probabilities with 95% Wilson intervals, the
    sectors' shares and the chi-square against them, among OK trials only."""
    d = Spinner(SPEC)
    d.close()
    recs = ([{"label": "UP", "status": "ok", "extra": {"inner": "U1", "angle_deg": 90.0}}] * 3
            + [{"label": "L1", "status": "ok", "extra": {"inner": "U2-3", "angle_deg": 110.0}}]
            + [{"label": None, "status": "unsettled", "extra": {"inner": None, "angle_deg": 5.0}}])
    c = d.summarize_extra(recs)["circles"]
    assert c["outer"]["counts"]["UP"] == 3 and c["outer"]["counts"]["L1"] == 1 and c["outer"]["labelled"] == 4
    assert c["inner"]["counts"] == {"U1": 3, "U2": 0, "U3": 0, "U1-2": 0, "U2-3": 1}
    p = c["inner"]["probabilities"]["U1"]
    assert p["p"] == 0.75 and p["ci95"][0] < 0.75 < p["ci95"][1]
    assert c["inner"]["sector_share"]["U1"] == pytest.approx(0.25)
    assert c["inner"]["against_sector_share"]["dof"] == 4
    assert len(c["outer"]["layout"]["sectors"]) == 12
    assert "against_sector_share" not in d.summarize_extra([])["circles"]["inner"]


# -- spec errors ---------------------------------------------------------------------------------

def _replace(tmp_path, old, new):
    text = SPEC.read_text()
    assert old in text
    bad = tmp_path / "spinner.toml"
    bad.write_text(text.replace(old, new, 1))
    return bad


@pytest.mark.parametrize("table, key, value, needle", [
    ("card", "radius", 0.0, "card.radius"),
    ("pointer", "tip", 0.2, "pointer.tip"),
    ("pointer", "material", "unobtainium", "unknown material"),
    ("pointer", "thickness", 0.02, "post.height"),
    ("joint", "dry_torque", -1e-6, "joint.dry_torque"),
    ("gesture", "speed", [30.0, 6.0], "gesture.speed"),
    ("gesture", "ccw_fraction", 1.5, "gesture.ccw_fraction"),
    ("outer", "start_deg", 400.0, "outer.start_deg"),
    ("physics", "timestep", 0.1, "physics.timestep"),
    ("settle", "cap", 0.0, "settle.cap"),
])
@pytest.mark.parametrize("make", [Spinner, SpinnerShape])
def test_bad_spec_value_raises_spec_error(tmp_path, table, key, value, needle, make):
    """A bad spec value is refused with a one-line SpecError naming the file and the key, by the
    device and by its shape alike."""
    assert_refused(make, write_spec(SPEC, tmp_path, table, key, value), needle)


@pytest.mark.parametrize("old, new, needle", [
    ('{ label = "L1", width_deg = 30.0 }', '{ label = "L3", width_deg = 30.0 }', "not a label of the outer circle"),
    ('{ label = "U2", width_deg = 45.0 }', '{ label = "UP", width_deg = 45.0 }', "not a label of the inner circle"),
    ('{ label = "L1", width_deg = 30.0 }', '{ label = "L1", width_deg = 35.0 }', "add up to 365"),
    ('{ label = "U3", width_deg = 45.0 }', '{ label = "U3", width_deg = 0.0 }', "width_deg"),
])
def test_bad_sector_layout_raises_spec_error(tmp_path, old, new, needle):
    """Sector labels must be the circle's vocabulary and the widths must cover 360 degrees."""
    bad = _replace(tmp_path, old, new)
    with pytest.raises(SpecError) as err:
        Spinner(bad)
    assert needle in str(err.value) and "\n" not in str(err.value)


def test_joint_without_friction_is_refused(tmp_path):
    bad = _replace(tmp_path, "dry_torque = 8.5e-6", "dry_torque = 0.0")
    bad.write_text(bad.read_text().replace("viscous = 8.5e-7", "viscous = 0.0", 1))
    with pytest.raises(SpecError, match="never stop"):
        Spinner(bad)


# -- the command line ------------------------------------------------------------------------------

def test_estimate_spinner_end_to_end(tmp_path):
    """`tabletop estimate spinner` writes the usual result (the outer circle's labels) plus the
    circles block with the inner circle's counts and intervals."""
    out = tmp_path / "spinner.json"
    proc = subprocess.run([sys.executable, "-m", "tabletop.cli", "estimate", "spinner", "--trials", "30", "--seed", "1",
                           "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["device"] == "spinner" and data["trials"] == 30 and data["escaped"] == 0 and data["unsettled"] == 0
    assert set(data["counts"]) == set(OUTER_LABELS)
    assert sum(data["counts"].values()) + data["unsettled"] + data["escaped"] + data["lodged"] == 30
    inner = data["circles"]["inner"]
    assert set(inner["counts"]) == set(INNER_LABELS) and sum(inner["counts"].values()) == 30
    for pr in inner["probabilities"].values():
        lo, hi = pr["ci95"]
        assert 0.0 <= lo <= pr["p"] <= hi <= 1.0
    assert data["circles"]["outer"]["counts"] == data["counts"]
