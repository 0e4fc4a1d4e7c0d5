"""King Kong's die: physics scenarios, reading, containment, fairness, spec errors
and the `tabletop estimate die` result.

What every device owes (the same seed, the same outcome; one or two workers; the fastest
gesture; unsettled trials) is checked on every registered device in tests/test_device_contracts.py.

Each scenario's docstring states the physics it expects. A throw is ~350 steps at 1/480 s
(~0.01 s of CPU); the whole file runs in well under a minute.
"""
from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from tabletop.cli import main
from tabletop.sim.batch import trial_rng
from tabletop.sim.devices.base import Outcome, Status
from tabletop.sim.devices.die import (AXES, Die, Throw, _qaxis, _qmul, rounded_cube_mesh, rounded_cube_volume,
                             top_face)
from tabletop.sim.devices.die_shape import DieShape
from tabletop.sim.errors import SpecError
from tabletop.sim.paths import assets_dir
from tabletop.sim.throwable import rotate
from tabletop.sim.world import PhysicsSettings, World

from tests.specs import assert_refused, write_spec

SPEC = assets_dir() / "king_kong" / "die.toml"   # the registry's default spec for "die"


@pytest.fixture(scope="module")
def die():
    d = Die(SPEC)
    yield d
    d.close()


# -- contract ------------------------------------------------------------------------------------

def test_contract(die):
    assert die.name == "die"
    assert die.labels == ("1", "2", "3", "4", "5", "6")
    p = die.params()
    json.dumps(p)
    assert p["die"]["material"]["name"] == "polystyrene" and p["lid"]["material"]["name"] == "cardboard"
    g = die.sample_gesture(np.random.default_rng(0))
    assert isinstance(g, Throw)
    assert die.height_range[0] <= g.height <= die.height_range[1]
    assert math.isclose(sum(v * v for v in g.orientation), 1.0)
    assert die.spin_range[0] <= math.sqrt(sum(v * v for v in g.spin)) <= die.spin_range[1]
    o = die.run(np.random.default_rng(0))
    assert isinstance(o, Outcome)
    assert o.sim_time == pytest.approx(o.steps * die.world.dt)
    assert o.gesture["speed"] == g.speed and list(o.gesture["orientation"]) == list(g.orientation)
    assert {"face", "nearest_face", "tilt_deg", "height", "position"} <= set(o.reading)
    json.dumps(o.as_dict())


def test_faces_opposite_sum_to_seven(die):
    """Opposite faces (+X/-X, +Y/-Y, +Z/-Z) sum to 7, and 1, 2, 3 run counter-clockwise round
    their shared corner (a right-handed die)."""
    faces = dict(zip(AXES, die.faces))
    for a in "xyz":
        assert int(faces["+" + a]) + int(faces["-" + a]) == 7
    corner = {label: axis for axis, label in faces.items()}
    v = {k: np.array({"x": (1, 0, 0), "y": (0, 1, 0), "z": (0, 0, 1)}[corner[k][1]]) * (1 if corner[k][0] == "+" else -1)
         for k in ("1", "2", "3")}
    assert np.dot(np.cross(v["1"], v["2"]), v["3"]) > 0


def test_mass_and_shape_of_the_die(die):
    """The die collides as Bullet's box of its edge (a sharp cube: 4.3 g of styrene, inertia
    m s^2 / 6); the rounded cube is what a view draws: the trimesh mesh has the exact
    rounded-cube volume."""
    assert die.mass == pytest.approx(die.die_material.density * die.size ** 3)
    assert 0.0035 < die.mass < 0.0050
    assert die.inertia == pytest.approx(die.mass * die.size ** 2 / 6)
    v = rounded_cube_volume(die.size, die.edge_radius)
    mesh = rounded_cube_mesh(die.size, die.edge_radius)
    assert mesh.volume == pytest.approx(v, rel=0.01)


def test_a_die_dropped_flat_lands_flat(die):
    """Let go flat 6 cm above the lid, at any yaw, the die lands on its bottom face and stays: its
    whole face meets the floor at once (a hull's one-point contact tipped a flat landing over)."""
    for yaw in (0.0, 17.0, 33.0, 61.0):
        res = die.drop(die.resting_pose(0.0, 0.0, top="1", yaw_deg=yaw, lift=0.056))
        assert res[0] == "read" and res[1]["face"] == "1", (yaw, res)


def test_top_face_reads_the_face_nearest_up():
    faces = ("2", "5", "3", "4", "1", "6")
    assert top_face((0.0, 0.0, 0.0, 1.0), faces) == ("1", 0.0)
    assert top_face(_qaxis((1.0, 0.0, 0.0), math.pi), faces)[0] == "6"
    assert top_face(_qaxis((0.0, 1.0, 0.0), -math.pi / 2), faces)[0] == "2"    # +X turned up
    assert top_face(_qaxis((1.0, 0.0, 0.0), math.pi / 2), faces)[0] == "3"     # +Y turned up
    label, tilt = top_face(_qaxis((1.0, 0.0, 0.0), math.radians(30.0)), faces)
    assert label == "1" and tilt == pytest.approx(30.0)


# -- physics scenarios ---------------------------------------------------------------------------

@pytest.mark.parametrize("top", ["1", "2", "3", "4", "5", "6"])
def test_die_placed_on_a_face_stays_and_reads_it(die, top):
    """A die set down (from 1 mm) on any face, turned at any yaw, rests there at half its size
    and reads that face."""
    res = die.drop(die.resting_pose(0.03, -0.02, top=top, yaw_deg=27.0, lift=0.001))
    assert res[0] == "read"
    assert res[1]["face"] == top
    assert res[1]["height"] == pytest.approx(die.size / 2, abs=2e-4)
    assert res[1]["tilt_deg"] < 0.5


def test_die_dropped_on_an_edge_falls_onto_a_face(die):
    """A die balanced on an edge (tilted 44 degrees, just short of balance) and dropped 5 mm
    topples onto one of the two faces beside the edge and reads it."""
    q = _qmul(_qaxis((0.0, 0.0, 1.0), 0.3), _qaxis((1.0, 0.0, 0.0), math.radians(44.0)))
    lift = die.size / 2 * (math.cos(math.radians(1.0)) * math.sqrt(2) - 1) + 0.005
    pos, _ = die.resting_pose(0.0, 0.0, lift=lift)
    res = die.drop((pos, q))
    assert res[0] == "read"
    assert res[1]["face"] in ("1", "3")                 # +Z (tilted toward) or +Y


def _leaning_pose(die, lean_deg):
    """The die leaning on the +X wall: its bottom edge on the floor on the far side, its top
    turned by lean_deg toward the wall, the wall side touching the wall."""
    a = math.radians(lean_deg)
    q = _qaxis((0.0, 1.0, 0.0), -a)
    half = die.size / 2 * (math.cos(a) + math.sin(a))
    ox, oy, oz = die.origin
    return (ox + die.half_x - half + 0.0002, oy, oz + half + 0.0003), q


def test_die_leaning_steeply_on_a_wall_is_cocked_and_lodged(die):
    """A die put down leaning 40 degrees against a lid wall stays there: its centre of mass is
    over the floor edge, just on the wall's side, and floor friction holds the small push on
    the wall. Its top face is 40 degrees off level: it is not read (no face is coerced)."""
    res = die.drop(_leaning_pose(die, 40.0))
    assert res[0] == "cocked", res
    assert res[1]["face"] is None
    assert res[1]["tilt_deg"] > die.tilt_tol
    assert res[1]["height"] > die.size / 2 + die.height_tol


def test_die_leaning_a_little_slides_down_flat(die):
    """Leaning only 15 degrees, the push on the wall is more than the floor's friction holds:
    the foot slides out, the die lands flat against the wall and reads the face that was up."""
    res = die.drop(_leaning_pose(die, 15.0))
    assert res[0] == "read"
    assert res[1]["face"] == "1"


def test_lodged_trial_has_no_label(die, monkeypatch):
    """A throw that ends cocked is a LODGED trial: no label, the nearest face kept in the reading."""
    pose = _leaning_pose(die, 40.0)
    monkeypatch.setattr(die, "release_state", lambda throw: (pose[0], pose[1], (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
    o = die.run(np.random.default_rng(0))
    assert o.status is Status.LODGED and o.label is None
    assert o.reading["face"] is None and o.reading["nearest_face"] in die.labels


# -- trials: containment, fairness --------------------------------------------------------------

@pytest.mark.parametrize("azimuth", [0.0, 60.0, 90.0, 180.0 + 30.0, 270.0])
def test_fastest_throw_stays_in_the_lid(die, azimuth):
    """The fastest plausible throw (top speed, highest release, thrown upward, fastest spin)
    lands, bounces off the far wall and settles inside the lid: the die neither hops a wall nor
    passes through the floor. Along the short axis (90, 270 degrees) the hand is outside the lid,
    above its wall."""
    s = die.spin_range[1] / math.sqrt(3)
    g = Throw(height=die.height_range[1], speed=die.speed_range[1], elevation_deg=die.elevation_range[1],
              azimuth_deg=azimuth, orientation=(0.3, -0.2, 0.5, math.sqrt(0.62)), spin=(s, -s, s))
    o = die.run(np.random.default_rng(0), g)
    assert o.status is not Status.ESCAPED
    assert o.status is not Status.UNSETTLED
    x, y, z = o.reading["position"]
    assert abs(x) < die.half_x and abs(y) < die.half_y and 0.0 < z < die.wall_height


def test_thrown_straight_down_hard_does_not_pass_through_the_floor(die):
    """Thrown down at top speed from the top of the range with the fastest spin, the die hits
    the floor at ~2 m/s and bounces; it does not pass through (a 1/480 s step moves it ~4 mm)."""
    g = Throw(height=die.height_range[1], speed=die.speed_range[1], elevation_deg=die.elevation_range[0],
              azimuth_deg=10.0, orientation=(0.0, 0.0, 0.0, 1.0), spin=(die.spin_range[1], 0.0, 0.0))
    o = die.run(np.random.default_rng(0), g)
    assert o.status is Status.OK
    assert o.reading["position"][2] == pytest.approx(die.size / 2, abs=die.height_tol)


@pytest.mark.slow
def test_faces_come_up_evenly_and_unpredictably(die):
    """Over 300 throws every face comes up, a fair die is not rejected (chi-square, 1%), and the
    face on top in the hand does not predict the face on top at rest (no more than chance)."""
    counts = {label: 0 for label in die.labels}
    same = 0
    for i in range(300):
        rng = trial_rng(21, i)
        g = die.sample_gesture(rng)
        o = die.run(rng, g)
        assert o.status is Status.OK
        counts[o.label] += 1
        same += o.label == top_face(g.orientation, die.faces)[0]
    f = die.summarize_extra([{"label": k, "status": "ok"} for k, n in counts.items() for _ in range(n)])["fairness"]
    assert f["p_value"] > 0.01 and not f["rejected_at_1pct"]
    assert same / 300 < 0.3                                 # 1/6 by chance; a die that just drops keeps its face


# -- a fixed start (gesture.start, yaw_deg, spin_axis: sim.throwable.Start) --------------------

def test_default_gesture_draws_are_unchanged(die):
    """With start = "random" and spin_axis = "random" the draws are those of the die before it
    shared sim.throwable.Start (recorded from that code): the same draws in the same order. The
    scalar draws must be equal exactly; the quaternion and spin pass through a vector norm, so to
    rounding (a changed draw or order differs in the first digit)."""
    recorded = {
        0: {"height": 0.15978591868433561, "speed": 0.24247510660512328, "elevation_deg": -12.475688541355687,
            "azimuth_deg": 312.77705160608474,
            "orientation": (0.4139946191300909, 0.2994510719388026, 0.1279338773736317, -0.8500414306762829),
            "spin": (5.346243946400178, 22.437292803070097, -11.087026926097018)},
        1: {"height": 0.12805820057358117, "speed": 0.24763344533723375, "elevation_deg": -32.75210830049688,
            "azimuth_deg": 48.07476081406926,
            "orientation": (0.4540841590295864, -0.017171076735924815, -0.634562134964145, -0.6251748775437704),
            "spin": (0.5192579904643703, -4.445712875124845, -7.518154086966514)},
    }
    for i, want in recorded.items():
        g = die.sample_gesture(trial_rng(7, i))
        for key in ("height", "speed", "elevation_deg", "azimuth_deg"):
            assert getattr(g, key) == want[key], (i, key)
        assert g.orientation == pytest.approx(want["orientation"], rel=1e-12, abs=1e-15)
        assert g.spin == pytest.approx(want["spin"], rel=1e-12, abs=1e-15)
    p = die.params()["gesture"]
    assert (p["start"], p["spin_axis"]) == ("random", "random")


STILL = (("gesture.speed", "[0.0, 0.0]"), ("gesture.spin", "[0.0, 0.0]"), ("gesture.elevation_deg", "[0.0, 0.0]"),
         ("lid.wall_height", "0.0"), ("gesture.height", "[0.0165, 0.0165]"))


@pytest.mark.parametrize("start", ["3", "6"])
def test_a_die_let_go_still_from_a_fixed_start_keeps_that_face(start):
    """`gesture.start` puts that face up in the hand, turned at any yaw: let go still, half a
    millimetre above the floor (no walls), the die lands on the opposite face and reads `start`
    every time (with the default random start, each face would come up a sixth of the time)."""
    d = Die(SPEC, overrides=(("gesture.start", start), ("gesture.yaw_deg", "[0.0, 360.0]")) + STILL)
    try:
        yaws = set()
        for i in range(8):
            rng = trial_rng(4, i)
            g = d.sample_gesture(rng)
            face, tilt = top_face(g.orientation, d.faces)
            assert face == start and tilt < 1e-3
            yaws.add(round(math.degrees(math.atan2(*rotate(g.orientation, (1.0, 0.0, 0.0))[:2])), 3))
            o = d.run(rng, g)
            assert o.status is Status.OK and o.label == start, (i, o.reading)
            assert list(o.gesture["orientation"]) == list(g.orientation)      # the start is in the record
        assert len(yaws) == 8                                                  # turned by yaw_deg
    finally:
        d.close()


def test_a_fixed_start_spins_about_its_body_axis():
    """`spin_axis` is a die axis turned with the die: face 3 (+Y) up, the die's Z axis lies level,
    so the spin is level, along that axis, at a rate from `gesture.spin`. A gentle toss from face 1
    up spinning about the die's Z (the vertical) keeps face 1 up; tumbling fast about its X axis
    (level) it rolls onto the faces round that axis."""
    d = Die(SPEC, overrides=(("gesture.start", "3"), ("gesture.spin_axis", "[0, 0, 2]"),
                             ("gesture.yaw_deg", "[0.0, 360.0]")))
    try:
        for i in range(20):
            g = d.sample_gesture(trial_rng(5, i))
            axis = rotate(g.orientation, (0.0, 0.0, 1.0))
            rate = math.sqrt(sum(v * v for v in g.spin))
            assert d.spin_range[0] <= rate <= d.spin_range[1]
            assert g.spin == pytest.approx(tuple(rate * a for a in axis), abs=1e-9)
            assert abs(g.spin[2]) < 1e-9
        assert d.params()["gesture"]["spin_axis"] == [0.0, 0.0, 1.0]
    finally:
        d.close()
    gentle = (("gesture.start", "1"), ("gesture.speed", "[0.0, 0.1]"), ("gesture.height", "[0.07, 0.07]"))
    faces = {}
    for axis, spin in (("[0, 0, 1]", "[2.0, 5.0]"), ("[1, 0, 0]", "[25.0, 30.0]")):
        d = Die(SPEC, overrides=gentle + (("gesture.spin_axis", axis), ("gesture.spin", spin)))
        try:
            faces[axis] = [d.run(trial_rng(6, i)).label for i in range(12)]
        finally:
            d.close()
    assert faces["[0, 0, 1]"] == ["1"] * 12
    # tumbling about the die's X axis it rolls over the faces round that axis, never onto 2 or 5 (+-X)
    assert set(faces["[1, 0, 0]"]) <= {"1", "3", "4", "6"} and faces["[1, 0, 0]"].count("1") < 6


def test_set_gesture_start_takes_a_bare_face(tmp_path, capsys):
    """`--set gesture.start=1` (TOML reads a bare 1 as a number) names face 1; a face that is not
    one, or a bad spin axis, is a one-line error naming the file and the key."""
    out = tmp_path / "die.json"
    assert main(["estimate", "die", "--trials", "3", "--seed", "2", "--quiet", "--out", str(out),
                 "--set", "gesture.start=1", "--set", "gesture.spin_axis=[0,0,1]"]) == 0
    g = json.loads(out.read_text())["params"]["gesture"]
    assert g["start"] == "1" and g["spin_axis"] == [0.0, 0.0, 1.0] and g["yaw_deg"] == [0.0, 0.0]
    capsys.readouterr()
    for bad, key in (("gesture.start=7", "gesture.start"), ("gesture.start=top", "gesture.start"),
                     ("gesture.spin_axis=[0,0,0]", "gesture.spin_axis")):
        assert main(["estimate", "die", "--trials", "3", "--quiet", "--set", bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and key in err and "die.toml" in err and "Traceback" not in err, err


def test_die_built_into_a_shared_world_at_an_origin():
    """Built into a given World at a pose, the lid and die sit there; closing the device leaves
    the shared world open."""
    w = World(PhysicsSettings(timestep=1 / 960))
    try:
        d = Die(SPEC, world=w, origin=(1.0, -0.5, 0.75))
        o = d.run(np.random.default_rng(5))
        assert o.status is Status.OK
        x, y, z = o.reading["position"]
        assert abs(x - 1.0) < d.half_x and abs(y + 0.5) < d.half_y and z == pytest.approx(0.75 + d.size / 2, abs=1e-3)
        d.close()
        assert w.client is not None
        w.step(1)
    finally:
        w.close()


def test_summarize_extra():
    """The "fairness" block: chi-square of the face counts against 1/6 each with its p-value,
    and the cocked rate among settled throws with a 95% Wilson interval."""
    d = Die(SPEC)
    d.close()
    recs = ([{"label": str(k), "status": "ok"} for k in range(1, 7) for _ in range(10)]
            + [{"label": None, "status": "lodged"}, {"label": None, "status": "unsettled"}])
    f = d.summarize_extra(recs)["fairness"]
    assert f["labelled"] == 60 and f["chi2"] == 0.0 and f["dof"] == 5 and f["p_value"] == pytest.approx(1.0)
    assert f["cocked"]["k"] == 1 and f["cocked"]["n"] == 61
    lo, hi = f["cocked"]["ci95"]
    assert lo < 1 / 61 < hi
    skewed = d.summarize_extra([{"label": "6", "status": "ok"}] * 60)["fairness"]
    assert skewed["rejected_at_1pct"] and skewed["chi2"] == pytest.approx(300.0)
    assert d.summarize_extra([])["fairness"]["chi2"] is None


# -- spec errors ---------------------------------------------------------------------------------

@pytest.mark.parametrize("table, key, value, needle", [
    ("die", "size", -0.016, "die.size"),
    ("die", "edge_radius", 0.006, "die.edge_radius"),
    ("die", "material", "unobtainium", "unknown material"),
    ("die", "faces", ["1", "2", "3", "4", "5", "6"], "must sum to 7"),
    ("die", "faces", ["2", "5", "3", "4", "1", "1"], "die.faces"),
    ("lid", "half_y", 0.04, "lid.half_y"),
    ("gesture", "speed", [1.0, 0.2], "gesture.speed"),
    ("gesture", "height", [0.05, 0.18], "gesture.height"),
    ("gesture", "start", "7", "gesture.start"),
    ("gesture", "start", "+z", "gesture.start"),
    ("gesture", "start", [0.0, 0.0, 1.0], "gesture.start"),
    ("gesture", "start", [0.0, 0.0, 0.0, 2.0], "gesture.start"),
    ("gesture", "yaw_deg", [90.0, 0.0], "gesture.yaw_deg"),
    ("gesture", "spin_axis", "x", "gesture.spin_axis"),
    ("gesture", "spin_axis", [0.0, 0.0, 0.0], "gesture.spin_axis"),
    ("reading", "tilt_deg", 60.0, "reading.tilt_deg"),
    ("physics", "timestep", 0.1, "physics.timestep"),
    ("settle", "cap", 0.0, "settle.cap"),
])
def test_bad_spec_value_raises_spec_error(tmp_path, table, key, value, needle):
    """A bad spec value is refused with a one-line SpecError naming the file and the key."""
    assert_refused(Die, write_spec(SPEC, tmp_path, table, key, value), needle)


@pytest.mark.parametrize("table, key, value, needle", [
    ("die", "size", -0.016, "die.size"),
    ("die", "faces", ["1", "2", "3", "4", "5", "6"], "must sum to 7"),
    ("lid", "half_y", 0.01, "lid.half_y"),
])
def test_the_shape_refuses_a_bad_die_or_lid(tmp_path, table, key, value, needle):
    """DieShape (what a view reads: no World) checks the die and the lid as the device does."""
    bad = write_spec(SPEC, tmp_path, table, key, value)
    with pytest.raises(SpecError, match=needle):
        DieShape(bad)


def test_the_shape_is_the_devices_die_and_lid(die):
    """DieShape reads from the spec the size, faces and lid the device builds and reads with."""
    shape = DieShape(SPEC)
    assert (shape.size, shape.edge_radius, shape.faces, shape.labels) == (die.size, die.edge_radius, die.faces,
                                                                          die.labels)
    assert shape.die_material == die.die_material and shape.lid_material == die.lid_material
    assert (shape.half_x, shape.half_y, shape.wall_height) == (die.half_x, die.half_y, die.wall_height)
    assert die.params()["die"]["faces"] == dict(zip(AXES, shape.faces))


def test_spec_timestep_must_match_a_shared_world():
    with World(PhysicsSettings(timestep=1 / 240)) as w, pytest.raises(SpecError, match="timestep"):
        Die(SPEC, world=w)


def test_the_spec_residual_threshold_reaches_the_solver_and_converge_tightens_it():
    """The die's spec names a looser solver residual threshold than PyBullet's 1e-7: its own world
    gets it, a shared world whose solver stops earlier (looser) is refused, one that stops later is
    joined, and converge's double-iterations doubles the iterations and tightens the threshold 100x."""
    die = Die(SPEC)
    try:
        assert die.solver_residual_threshold == 1e-5
        assert die.world.settings.solver_residual_threshold == 1e-5
        refinements = dict(die.refinements())
        assert refinements["double-iterations"] == (("physics.solver_iterations", "100"),
                                                    ("physics.solver_residual_threshold", "1e-07"))
    finally:
        die.close()
    dt = 1 / 960
    with World(PhysicsSettings(timestep=dt, solver_residual_threshold=1e-4)) as w, \
            pytest.raises(SpecError, match="residual threshold 0.0001 is looser"):
        Die(SPEC, world=w)
    with World(PhysicsSettings(timestep=dt, solver_residual_threshold=1e-7)) as w:
        Die(SPEC, world=w).close()


# -- the command line ------------------------------------------------------------------------------

def test_estimate_die_end_to_end(tmp_path):
    """`tabletop estimate die` writes the usual result plus the fairness block: the chi-square of
    the faces against a fair die, and the cocked rate."""
    out = tmp_path / "die.json"
    proc = subprocess.run([sys.executable, "-m", "tabletop.cli", "estimate", "die", "--trials", "20", "--seed", "1",
                           "--out", str(out), "--quiet"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["device"] == "die" and data["trials"] == 20 and data["escaped"] == 0
    assert set(data["counts"]) == {"1", "2", "3", "4", "5", "6"}
    assert sum(data["counts"].values()) + data["unsettled"] + data["escaped"] + data["lodged"] == 20
    f = data["fairness"]
    assert f["labelled"] == sum(data["counts"].values()) and f["dof"] == 5
    assert 0.0 <= f["p_value"] <= 1.0 and f["chi2"] >= 0.0
    lo, hi = f["cocked"]["ci95"]
    assert 0.0 <= lo <= f["cocked"]["p"] <= hi <= 1.0
    assert data["params"]["die"]["faces"]["+z"] == "1"
