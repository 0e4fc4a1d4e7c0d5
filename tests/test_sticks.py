"""Knossos throw sticks: physics scenarios, reading, containment, spec errors and
the `tabletop estimate sticks` result.

What every device owes (the same seed, the same outcome; one or two workers; the fastest
gesture; unsettled trials) is checked on every registered device in tests/test_device_contracts.py.

Each scenario's docstring states the physics it expects. A throw is ~700 steps at 1/480 s
(~0.05 s of CPU); the whole file runs in well under a minute.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys
import tomllib

import numpy as np
import pytest

from tabletop.cli import main
from tabletop.sim.batch import run_trials, trial_rng
from tabletop.sim.devices.base import Outcome, Status
from tabletop.sim.devices.sticks import STICKS, FixedThrow, Throw, ThrowSticks, dome_cos, label_for
from tabletop.sim.errors import SpecError
from tabletop.sim.paths import assets_dir
from tabletop.sim.throwable import rotate
from tabletop.sim.world import PhysicsSettings, World

from tests.specs import assert_refused, write_spec

SPEC = assets_dir() / "knossos" / "sticks.toml"   # the registry's default spec for "sticks"


@pytest.fixture(scope="module")
def sticks():
    d = ThrowSticks(SPEC)
    yield d
    d.close()


def _sides(result):
    return [r["side"] for r in result[1]]


# -- contract ------------------------------------------------------------------------------------

def test_contract(sticks):
    assert sticks.name == "sticks"
    assert sticks.labels == ("1", "2", "3")
    p = sticks.params()
    json.dumps(p)
    assert p["stick"]["material"]["name"] == "hardwood" and p["tray"]["material"]["name"] == "wood"
    assert p["stick"]["com_offset_from_flat_face"] == pytest.approx(4 * sticks.radius / (3 * math.pi))
    g = sticks.sample_gesture(np.random.default_rng(0))
    assert isinstance(g, Throw)
    assert sticks.height_range[0] <= g.height <= sticks.height_range[1]
    assert sticks.speed_range[0] <= g.speed <= sticks.speed_range[1]
    assert len(g.roll_deg) == len(g.roll_rate) == len(g.tumble_rate) == 2
    o = sticks.run(np.random.default_rng(0))
    assert isinstance(o, Outcome)
    assert o.sim_time == pytest.approx(o.steps * sticks.world.dt)
    assert o.gesture["speed"] == g.speed and list(o.gesture["roll_deg"]) == list(g.roll_deg)
    assert {"sides", "flat_up", "rethrows", "throws", "flat_normal_tilt_deg", "positions"} <= set(o.reading)
    json.dumps(o.as_dict())


def test_label_for_counts_flat_sides():
    """Two round sides up = 1, one of each = 2, two flat = 3; an unread stick has no label."""
    assert label_for(["round", "round"]) == "1"
    assert label_for(["flat", "round"]) == label_for(["round", "flat"]) == "2"
    assert label_for(["flat", "flat"]) == "3"
    with pytest.raises(ValueError):
        label_for(["flat", None])


# -- physics scenarios ---------------------------------------------------------------------------

def test_sticks_laid_on_their_faces_read_round_and_flat(sticks):
    """A stick laid on its flat face rests there and reads "round" (round side up); one laid on
    its rounded back rocks to rest with its flat face level (its centre of mass, 4r/3pi from the
    flat face, lies below the axis of the back) and reads "flat". One of each is the throw "2"."""
    res = sticks.drop([sticks.lying_pose(0.0, -0.05, 30.0, flat_up=False, lift=0.001),
                       sticks.lying_pose(0.0, 0.05, -20.0, flat_up=True, lift=0.001)])
    assert res[0] == "read"
    assert _sides(res) == ["round", "flat"]
    for r, flat in zip(res[1], (False, True)):
        assert r["height"] == pytest.approx(sticks.rest_height(flat), abs=0.0005)
    assert label_for(_sides(res)) == "2"


def test_two_flat_sides_up_is_a_three_and_two_round_a_one(sticks):
    """Both sticks dropped 2 cm on their backs settle flat side up (throw "3"); both dropped on
    their flat faces settle round side up (throw "1")."""
    res = sticks.drop([sticks.lying_pose(-0.1, 0.0, 0.0, flat_up=True, lift=0.02),
                       sticks.lying_pose(0.1, 0.0, 90.0, flat_up=True, lift=0.02)])
    assert res[0] == "read" and label_for(_sides(res)) == "3"
    res = sticks.drop([sticks.lying_pose(-0.1, 0.0, 0.0, flat_up=False, lift=0.02),
                       sticks.lying_pose(0.1, 0.0, 90.0, flat_up=False, lift=0.02)])
    assert res[0] == "read" and label_for(_sides(res)) == "1"


def test_stick_rocked_on_its_back_comes_to_rest_level(sticks):
    """A stick put on its rounded back tilted 35 degrees rocks (its centre of mass below the
    axis of the back pulls it level) and comes to rest within a few seconds reading "flat"."""
    res = sticks.drop([sticks.lying_pose(0.0, -0.1, 0.0, roll_deg=180.0 + 35.0, flat_up=True, lift=0.003),
                       sticks.lying_pose(0.0, 0.1, 0.0, flat_up=False, lift=0.001)])
    assert res[0] == "read" and _sides(res) == ["flat", "round"]
    assert res[1][0]["flat_normal_tilt_deg"] < 3.0
    assert res[2] * sticks.world.dt < 4.0


def test_stick_stood_on_its_edge_topples_onto_its_back(sticks):
    """A stick stood on the edge between its flat face and its rounded back (flat face
    vertical) cannot stay: its centre of mass lies over the rounded side, so it rolls onto its
    back and reads flat side up."""
    res = sticks.drop([sticks.lying_pose(0.0, -0.1, 0.0, roll_deg=90.0, flat_up=False, lift=0.012),
                       sticks.lying_pose(0.0, 0.1, 0.0, roll_deg=-90.0, flat_up=False, lift=0.012)])
    assert res[0] == "read" and _sides(res) == ["flat", "flat"]


def test_stick_on_its_edge_is_not_read(sticks):
    """The reading never guesses: a stick on its edge (flat face vertical), on end, or tilted
    past the tolerance is not read, whatever way it leans."""
    c = sticks.world.client
    sticks.place([sticks.lying_pose(0.0, -0.1, 0.0, roll_deg=90.0, flat_up=False, lift=0.007),
                  sticks.lying_pose(0.0, 0.1, 0.0, roll_deg=180.0 + 1.5 * sticks.tilt_tol, flat_up=True)])
    assert _sides(("", sticks.read_sticks())) == [None, None]
    # on end: long axis vertical
    c.resetBasePositionAndOrientation(sticks.world.bodies[STICKS[0]], [0.0, -0.1, sticks.length / 2],
                                      [0.0, math.sin(math.pi / 4), 0.0, math.cos(math.pi / 4)])
    assert sticks.read_sticks()[0]["side"] is None


def test_stick_leaning_on_the_other_is_not_read(sticks):
    """A stick whose end rests on the other stick lies tilted and raised off the floor: it is
    not read (the throw would be re-thrown), while the stick under it still reads."""
    under = sticks.lying_pose(0.0, 0.0, 90.0, flat_up=False)            # across the Y axis, round up
    # the leaning stick along X: one end on the floor at x = -0.055, the other on top of the first
    top = sticks.radius                                                   # height of the first stick's crown
    angle = math.asin(top / (sticks.length - 0.01))
    half = sticks.length / 2
    pos = (-0.055 + half * math.cos(angle), 0.0, sticks.rest_height(False) + half * math.sin(angle))
    q = (0.0, -math.sin(angle / 2), 0.0, math.cos(angle / 2))
    res = sticks.drop([under, (pos, q)])
    assert res[0] == "unreadable", res
    assert _sides(res)[0] == "round" and _sides(res)[1] is None
    assert res[1][1]["height"] > sticks.rest_height(False) + sticks.height_tol


@pytest.mark.parametrize("flat_up", [False, True])
def test_stick_lying_across_the_other_is_not_read(sticks, flat_up):
    """A stick dropped crosswise onto the middle of the other comes to rest lying level on it:
    its tilt alone would pass for a clean reading, but it lies a stick's thickness above the
    floor, so it is not read; the stick under it still reads round side up."""
    under = sticks.lying_pose(0.0, 0.0, 0.0, flat_up=False)
    pos, q = sticks.lying_pose(0.0, 0.01, 90.0, flat_up=flat_up)
    pos = (pos[0], pos[1], sticks.radius + 0.002 + sticks.rest_height(flat_up))
    res = sticks.drop([under, (pos, q)])
    assert res[0] == "unreadable", res
    assert _sides(res) == ["round", None]
    assert res[1][1]["height"] > sticks.rest_height(flat_up) + sticks.radius - sticks.com_offset


# -- trials: re-throws, containment -------------------------------------------------------------

def _first_rethrow(sticks, seed=1, limit=80):
    for i in range(limit):
        rng = trial_rng(seed, i)
        o = sticks.run(rng, sticks.sample_gesture(rng))
        if o.reading["rethrows"]:
            return i, o
    pytest.skip("no re-throw in the first trials")


def test_unreadable_throw_is_rethrown_and_counted(sticks, tmp_path):
    """A throw that leaves a stick unread is thrown again with a new gesture and fresh sticks,
    and the re-throw is counted; with no re-throws allowed that trial is LODGED, not guessed."""
    i, o = _first_rethrow(sticks)
    assert o.status is Status.OK and o.label in sticks.labels
    assert o.reading["throws"] == o.reading["rethrows"] + 1
    assert len(o.reading["unread_sides"]) == o.reading["rethrows"]
    assert all(None in u for u in o.reading["unread_sides"])
    extra = sticks.record_extra(o)
    assert extra["rethrows"] == o.reading["rethrows"] and extra["flat_up"] == o.reading["flat_up"]
    data = tomllib.loads(SPEC.read_text())
    strict = tmp_path / "sticks.toml"
    strict.write_text(SPEC.read_text().replace("max_rethrows = %d" % data["reading"]["max_rethrows"],
                                               "max_rethrows = 0"))
    d = ThrowSticks(strict)
    try:
        rng = trial_rng(1, i)
        lodged = d.run(rng, d.sample_gesture(rng))
    finally:
        d.close()
    assert lodged.status is Status.LODGED and lodged.label is None
    assert lodged.reading["flat_up"] is None and d.record_extra(lodged)["unreadable"] == 1


@pytest.mark.parametrize("azimuth", [0.0, 45.0, 90.0, 180.0 + 45.0, 300.0])
def test_fastest_throw_stays_in_the_tray(sticks, azimuth):
    """The fastest plausible throw (top speed, highest release, thrown upward, fastest spins)
    lands and settles inside the tray: no stick hops a rim or passes through the floor."""
    g = Throw(height=sticks.height_range[1], speed=sticks.speed_range[1], elevation_deg=sticks.elevation_range[1],
              azimuth_deg=azimuth, pitch_deg=sticks.pitch_range[1], roll_deg=(0.0, 90.0),
              roll_rate=(sticks.roll_rate_range[1], sticks.roll_rate_range[0]),
              tumble_rate=(sticks.tumble_rate_range[1], sticks.tumble_rate_range[0]))
    o = sticks.run(np.random.default_rng(0), g)
    assert o.status is not Status.ESCAPED
    assert o.status is not Status.UNSETTLED
    for x, y, z in o.reading["positions"]:
        assert abs(x) < sticks.half_x and abs(y) < sticks.half_y and 0.0 < z < sticks.wall_height


def test_thrown_straight_down_hard_does_not_pass_through_the_floor(sticks):
    """Thrown down at top speed from the top of the range with fast spin, the sticks hit the
    floor at ~3 m/s and bounce; neither passes through it (a 1/480 s step moves them ~7 mm)."""
    g = Throw(height=sticks.height_range[1], speed=sticks.speed_range[1], elevation_deg=-80.0,
              azimuth_deg=10.0, pitch_deg=0.0, roll_deg=(0.0, 180.0), roll_rate=(25.0, -25.0),
              tumble_rate=(12.0, -12.0))
    o = sticks.run(np.random.default_rng(0), g)
    assert o.status is not Status.ESCAPED
    assert all(z > 0.0 for _, _, z in o.reading["positions"])


# -- a fixed start (gesture.start, yaw_deg, spin_axis: sim.throwable.Start) --------------------

def test_default_gesture_draws_and_release_are_unchanged(sticks):
    """With start = "random" and spin_axis = [1, 0, 0] the draws, and the release states they give,
    are those of the sticks before they shared sim.throwable.Start (recorded from that code), to
    the last bit: a spin one rounding off (the long axis turned by the whole orientation instead
    of the hand's) moves where the sticks come to rest by 1e-10 m, and the trials apart."""
    g = sticks.sample_gesture(trial_rng(7, 1))
    assert isinstance(g, Throw)
    assert (g.height, g.speed, g.elevation_deg, g.azimuth_deg, g.pitch_deg) == (
        0.17208730086037177, 0.3714501680058506, -19.978997700406538, 48.07476081406926, -20.275711029806843)
    assert g.roll_deg == (136.34803993285956, 127.35369049434328)
    assert g.roll_rate == (18.57665710935364, -5.871107773139393)
    assert g.tumble_rate == (-9.556028040769878, -10.079889445851155)
    recorded = [((-0.1273638637865878, -0.1399124106613314, 0.16863064752102444),
                 (0.38803835222221117, 0.8299291447062224, 0.40021879952297534, -0.021650969499256656),
                 (0.2332517949958601, 0.2597331079350642, -0.12691548402451222),
                 (-19.349885817086037, 4.533226282747396, 6.437518124993515)),
                ((-0.14823556230233287, -0.163462247472679, 0.16918870549435328),
                 (0.3885413114352746, 0.7959928290638469, 0.46406129854077116, 0.008841752300506961),
                 (0.2332517949958601, 0.2597331079350642, -0.12691548402451222),
                 (-2.6374487504211706, -11.179378284585507, -2.0345621109809144))]
    assert [tuple(map(tuple, state)) for state in sticks.release_states(g)] == recorded
    p = sticks.params()["gesture"]
    assert (p["start"], p["spin_axis"]) == ("random", [1.0, 0.0, 0.0])


STILL = (("gesture.speed", "[0.0, 0.0]"), ("gesture.roll_rate", "[0.0, 0.0]"), ("gesture.tumble_rate", "[0.0, 0.0]"),
         ("gesture.elevation_deg", "[0.0, 0.0]"), ("gesture.height", "[0.03, 0.03]"))


@pytest.mark.parametrize("start, sides", [("flat", ["flat", "flat"]), ("round", ["round", "round"]),
                                          ('["round", "flat"]', ["round", "flat"])])
def test_sticks_let_go_still_from_a_fixed_start_keep_that_side(start, sides):
    """`gesture.start` "flat" or "round" puts that side up (for both sticks, or one each), the hand
    turned by a yaw from `yaw_deg`: let go still 3 cm up, each stick lands on the other side and
    reads its start every time (with the default random start, "3" would come up a quarter of
    the time and "1" a quarter). The start (orientation and spin) is in the gesture record."""
    d = ThrowSticks(SPEC, overrides=(("gesture.start", start), ("gesture.yaw_deg", "[0.0, 360.0]")) + STILL)
    try:
        for i in range(5):
            rng = trial_rng(4, i)
            g = d.sample_gesture(rng)
            assert isinstance(g, FixedThrow) and 0.0 <= g.yaw_deg <= 360.0
            assert [("flat" if dome_cos(q) < -0.999 else "round" if dome_cos(q) > 0.999 else None)
                    for q in g.orientation] == sides
            o = d.run(rng, g)
            assert o.status is Status.OK and o.reading["sides"] == sides and o.reading["rethrows"] == 0, o.reading
            assert [list(q) for q in o.gesture["orientation"]] == [list(q) for q in g.orientation]
            assert [list(w) for w in o.gesture["spin"]] == [[0.0, 0.0, 0.0]] * 2
    finally:
        d.close()


def test_fixed_start_sticks_spin_about_their_axis_and_never_touch():
    """A fixed start spins each stick at `roll_rate` about its `spin_axis` (turned with it) plus
    `tumble_rate` end over end about the throw's direction; the two sticks are spaced so that they
    never overlap in the hand, whatever their starts (here one on end, one along the throw)."""
    d = ThrowSticks(SPEC, overrides=(("gesture.start", "[[0, 0.7071068, 0, 0.7071068], [0, 0, 0.7071068, 0.7071068]]"),
                                     ("gesture.spin_axis", "[0, 0, 1]"), ("gesture.tumble_rate", "[0.0, 0.0]"),
                                     ("gesture.yaw_deg", "[-30.0, 30.0]")))
    try:
        c = d.world.client
        for i in range(4):
            g = d.sample_gesture(trial_rng(8, i))
            for q, w in zip(g.orientation, g.spin):
                rate = math.sqrt(sum(v * v for v in w))
                assert rate <= max(map(abs, d.roll_rate_range))
                axis = rotate(q, (0.0, 0.0, 1.0))
                assert abs(sum(a * b for a, b in zip(axis, w))) == pytest.approx(rate)
            d._add_sticks(d.release_states(g))
            gap = min(p[8] for p in c.getClosestPoints(d.world.bodies[STICKS[0]], d.world.bodies[STICKS[1]], 0.1))
            assert gap > 0.5 * d.gap, (i, gap)
    finally:
        d.close()


def test_set_gesture_start_takes_a_bare_side(tmp_path):
    out = tmp_path / "sticks.json"
    assert main(["estimate", "sticks", "--trials", "2", "--seed", "2", "--quiet", "--out", str(out),
                 "--set", "gesture.start=flat", "--set", "gesture.yaw_deg=[0,90]"]) == 0
    g = json.loads(out.read_text())["params"]["gesture"]
    assert g["start"] == "flat" and g["yaw_deg"] == [0.0, 90.0]


def test_sticks_built_into_a_shared_world_at_an_origin():
    """Built into a given World at a pose, the tray and sticks sit there; closing the device
    leaves the shared world open."""
    w = World(PhysicsSettings(timestep=1 / 960))
    try:
        d = ThrowSticks(SPEC, world=w, origin=(1.0, -0.5, 0.75))
        o = d.run(np.random.default_rng(5))
        assert o.status is Status.OK
        for x, y, z in o.reading["positions"]:
            assert abs(x - 1.0) < d.half_x and abs(y + 0.5) < d.half_y and 0.75 < z < 0.75 + d.wall_height
        d.close()
        assert w.client is not None
        w.step(1)
    finally:
        w.close()


def test_summarize_extra():
    """The "sticks" block: per-stick flat-up probability among labelled trials, pooled, and the
    re-throw rate among settled throws, each with a 95% Wilson interval."""
    d = ThrowSticks(SPEC)
    d.close()
    recs = [{"extra": {"flat_up": [True, False], "rethrows": 1, "throws": 2, "unreadable": 1}},
            {"extra": {"flat_up": [True, True], "rethrows": 0, "throws": 1, "unreadable": 0}},
            {"extra": {"flat_up": None, "rethrows": 0, "throws": 1, "unreadable": 0}},     # unsettled
            {"extra": {"flat_up": [False, False], "rethrows": 0, "throws": 1, "unreadable": 0}}]
    s = d.summarize_extra(recs)["sticks"]
    assert [b["k"] for b in s["flat_up"]] == [2, 1] and all(b["n"] == 3 for b in s["flat_up"])
    assert s["flat_up"][0]["p"] == pytest.approx(2 / 3)
    lo, hi = s["flat_up"][0]["ci95"]
    assert lo < 2 / 3 < hi
    assert s["flat_up_pooled"]["k"] == 3 and s["flat_up_pooled"]["n"] == 6
    assert s["rethrow_rate"]["k"] == 1 and s["rethrow_rate"]["n"] == 4
    assert s["rethrows"]["total"] == 1 and s["rethrows"]["max_in_a_trial"] == 1
    assert s["uniform_two_coin"] == {"1": 0.25, "2": 0.5, "3": 0.25}
    # records from before the by-position reading (a resumed checkpoint) count in neither position
    assert [(b["position"], b["n"]) for b in s["flat_up_by_position"]] == [("ahead", 0), ("behind", 0)]


@pytest.mark.slow
def test_either_stick_may_leave_the_hand_ahead(sticks):
    """The two identical sticks are held in either order, at random (drawn after the throws, so
    the throws are as before): each trial's per-stick reading is its by-position reading, in the
    order `ahead` says; both orders occur; the sticks block reports both views."""
    recs = run_trials(sticks, 5, range(24))
    aheads = set()
    for r in recs:
        e = r["extra"]
        if e["flat_up"] is None:
            continue
        o = sticks.run(trial_rng(5, r["index"]))
        aheads.add(o.reading["ahead"])
        expected = e["flat_up_by_position"] if o.reading["ahead"] == 0 else e["flat_up_by_position"][::-1]
        assert e["flat_up"] == expected
    assert aheads == {0, 1}
    s = sticks.summarize_extra(recs)["sticks"]
    assert [b["position"] for b in s["flat_up_by_position"]] == ["ahead", "behind"]
    assert sum(b["k"] for b in s["flat_up"]) == sum(b["k"] for b in s["flat_up_by_position"])


# -- spec errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("table, key, value, needle", [
    ("stick", "radius", -0.01, "stick.radius"),
    ("stick", "length", 0.03, "stick.length"),
    ("stick", "segments", 32, "stick.segments"),
    ("stick", "material", "unobtainium", "unknown material"),
    ("tray", "half_x", 0.05, "tray.half_x"),
    ("gesture", "speed", [1.5, 0.3], "gesture.speed"),
    ("gesture", "height", [0.02, 0.25], "gesture.height"),
    ("gesture", "start", "side", "gesture.start"),
    ("gesture", "start", ["random", "flat"], "gesture.start"),
    ("gesture", "start", [0.0, 0.0, 1.0], "gesture.start"),
    ("gesture", "start", ["flat", "round", "flat"], "gesture.start"),
    ("gesture", "yaw_deg", [90.0, 0.0], "gesture.yaw_deg"),
    ("gesture", "spin_axis", "random", "gesture.spin_axis"),
    ("gesture", "spin_axis", [0.0, 0.0, 0.0], "gesture.spin_axis"),
    ("reading", "tilt_deg", 60.0, "reading.tilt_deg"),
    ("physics", "timestep", 0.1, "physics.timestep"),
    ("settle", "cap", 0.0, "settle.cap"),
])
def test_bad_spec_value_raises_spec_error(tmp_path, table, key, value, needle):
    """A bad spec value is refused with a one-line SpecError naming the file and the key."""
    assert_refused(ThrowSticks, write_spec(SPEC, tmp_path, table, key, value), needle)


def test_a_start_on_end_must_clear_the_floor(tmp_path):
    """A stick stood on end (its long axis vertical) reaches half its length below its axis: released
    lower than that it would start inside the floor, a SpecError naming gesture.height."""
    on_end = [0.0, math.sqrt(0.5), 0.0, math.sqrt(0.5)]
    bad = write_spec(SPEC, tmp_path, "gesture", "start", on_end)
    bad.write_text(bad.read_text().replace("height = [0.10, 0.25]", "height = [0.05, 0.25]"))
    with pytest.raises(SpecError, match="gesture.height") as err:
        ThrowSticks(bad)
    assert "\n" not in str(err.value) and str(bad) in str(err.value)
    ThrowSticks(write_spec(SPEC, tmp_path, "gesture", "start", on_end)).close()      # from 10 cm it clears the floor


def test_spec_timestep_must_match_a_shared_world():
    with World(PhysicsSettings(timestep=1 / 240)) as w, pytest.raises(SpecError, match="timestep"):
        ThrowSticks(SPEC, world=w)


# -- the command line ------------------------------------------------------------------------------

def test_estimate_sticks_end_to_end(tmp_path):
    """`tabletop estimate sticks` writes the usual result plus the sticks block: each stick's
    flat-side-up probability with its interval and the re-throw rate."""
    out = tmp_path / "sticks.json"
    proc = subprocess.run([sys.executable, "-m", "tabletop.cli", "estimate", "sticks", "--trials", "20", "--seed", "1",
                           "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["device"] == "sticks" and data["trials"] == 20 and data["escaped"] == 0
    assert set(data["counts"]) == {"1", "2", "3"}
    assert sum(data["counts"].values()) + data["unsettled"] + data["escaped"] + data["lodged"] == 20
    s = data["sticks"]
    assert len(s["flat_up"]) == 2
    for b in s["flat_up"] + [s["flat_up_pooled"], s["rethrow_rate"]]:
        lo, hi = b["ci95"]
        assert 0.0 <= lo <= b["p"] <= hi <= 1.0
    assert s["flat_up"][0]["n"] == sum(data["counts"].values())
    assert s["rethrow_rate"]["n"] >= sum(data["counts"].values())
    assert s["uniform_two_coin"]["2"] == 0.5
