"""Physics scenarios of King of the Hill's crater (sim/devices/crater.py, on sim/devices/hill_shape.py).

Each test's docstring says what the physics should do. A module-scoped device is shared (that a
trial does not depend on earlier trials is the device contract's: tests/test_device_contracts.py).
"""
from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest

from tabletop.gamekit.devices import default_spec, make_device
from tabletop.sim.batch import trial_rng
from tabletop.sim.devices.base import Status
from tabletop.sim.devices.crater import Crater, Knock
from tabletop.sim.errors import SpecError

from tests.specs import assert_refused, write_spec

SPEC = default_spec("crater")
CAVES = ("cave1", "cave2", "cave3")


@pytest.fixture(scope="module")
def crater():
    device = make_device("crater")
    yield device
    device.close()


@pytest.fixture(scope="module")
def sample(crater):
    """40 seeded trials, shared by the tests that look at a spread of outcomes."""
    return [crater.run(trial_rng(11, i)) for i in range(40)]


def test_labels_and_edge_seats(crater):
    """The device names the six cave seats the rules need and its edge seats."""
    assert crater.labels == ("cave1/seat1", "cave1/seat2", "cave2/seat1", "cave2/seat2",
                             "cave3/seat1", "cave3/seat2")
    assert crater.edge_seats == tuple(f"edge{i}" for i in range(1, 7))
    assert set(crater.seat_regions) == set(crater.labels)


def test_params_are_complete_and_serialisable(crater):
    """params() holds the geometry, materials, timestep and settle rule, as plain JSON."""
    p = json.loads(json.dumps(crater.params()))
    assert p["physics"]["timestep"] == pytest.approx(tomllib.loads(SPEC.read_text())["physics"]["timestep"])
    assert p["materials"]["marble"]["name"] == "glass"
    assert p["materials"]["hill"]["name"] == "polystyrene"
    assert {"linear", "angular", "hold", "cap", "every"} <= set(p["settle"])
    assert p["geometry"]["hole_radius"] * 2 >= 0.026


def test_gesture_distribution(crater):
    """Knocks come only from the Generator: seat uniform over edge seats, speed and angle in range."""
    rng = np.random.default_rng(5)
    knocks = [crater.sample_gesture(rng) for _ in range(600)]
    assert {k.seat for k in knocks} == set(crater.edge_seats)
    assert all(crater.knock_speed[0] <= k.speed <= crater.knock_speed[1] for k in knocks)
    assert all(crater.knock_angle[0] <= k.angle <= crater.knock_angle[1] for k in knocks)
    again = np.random.default_rng(5)
    assert [crater.sample_gesture(again) for _ in range(600)] == knocks


def test_unknocked_marble_stays_on_its_edge_seat(crater):
    """A marble placed on an edge seat with no knock stays in the seat's dimple despite the
    ledge leaning into the crater: it settles where it started, outside every cave (LODGED)."""
    out = crater.run(np.random.default_rng(0), Knock("edge2", 0.0, 0.0))
    assert out.status is Status.LODGED and out.label is None
    start = np.array(crater.start_positions["edge2"])
    assert np.linalg.norm(np.array(out.reading["position"]) - start) < 0.002


@pytest.mark.parametrize("label", ["cave1/seat1", "cave2/seat2", "cave3/seat1", "cave3/seat2"])
def test_marble_put_on_a_cave_seat_rests_there(crater, label):
    """Each cave seat is a rest point: a marble set down on it settles there and reads as it."""
    centre = np.array(crater.seat_regions[label].center) + [0.0, 0.0, 0.001]
    out = crater.release(centre, (0.0, 0.0, 0.0))
    assert out.status is Status.OK and out.label == label


def test_a_marble_in_a_cave_stops_the_next_one(crater):
    """The game's marbles on the hill are obstacles in the crater's World: a marble rolled fast at
    a marble sitting on seat 1 hits it instead of passing through, and with the obstacles gone it
    crosses the hump to seat 2 as before."""
    cave = "cave2"
    seat = np.array(crater.seat_regions[f"{cave}/seat1"].center)
    pos, tangent = crater.valley_point(cave, crater.mouth_along(cave) - 0.04)
    try:
        crater.set_obstacles({"m0": seat})
        assert any(name.endswith("m0") for name in crater.world.bodies)
        hit = crater.release(pos + [0, 0, 0.0005], 0.8 * tangent)
        end = np.array(hit.reading["position"])
        assert np.linalg.norm(end - seat) > 2 * crater.marble_radius - 0.0005   # never inside the other marble
        assert hit.label != f"{cave}/seat2"                                     # it cannot roll through it
    finally:
        crater.set_obstacles({})
    assert not any(name.endswith("m0") for name in crater.world.bodies)
    free = crater.release(pos + [0, 0, 0.0005], 0.8 * tangent)
    assert free.label == f"{cave}/seat2"


@pytest.mark.slow
def test_knocked_marbles_drop_through_the_crater_into_caves(sample):
    """Knocked marbles leave the rim, go down the hole and come to rest on a cave seat: no
    escapes, no unsettled trials and no marble lodged on the way (the tunnels have no other
    rest points)."""
    statuses = {o.status for o in sample}
    assert statuses == {Status.OK}
    for o in sample:
        assert o.reading["position"][2] < 0.03   # under the hill, in a cave
        assert o.label == o.reading["region"]


def test_every_cave_and_both_seats_are_reached(sample):
    """The splitter sends marbles to all three caves, and both seats of the caves occur."""
    labels = {o.label for o in sample}
    assert {lab.split("/")[0] for lab in labels} == set(CAVES)
    assert {lab.split("/")[1] for lab in labels} == {"seat1", "seat2"}


def test_slow_marble_stops_on_seat1_fast_one_crosses_to_seat2(crater):
    """In a cave the hump between the seats decides by speed: a marble rolling in slowly stays in
    seat 1 (or rolls back into it); one arriving fast crosses the hump into seat 2. (Released 4 cm up
    the tunnel, so it arrives rolling: a marble set sliding at the mouth loses 2/7 of its energy to
    friction before it rolls.)"""
    for cave in CAVES:
        pos, tangent = crater.valley_point(cave, crater.mouth_along(cave) - 0.04)
        slow = crater.release(pos + [0, 0, 0.0005], 0.2 * tangent)
        fast = crater.release(pos + [0, 0, 0.0005], 0.8 * tangent)
        assert slow.label == f"{cave}/seat1"
        assert fast.label == f"{cave}/seat2"


@pytest.mark.parametrize("case", ["tunnel wall", "cave end wall", "ceiling", "tube wall"])
def test_fast_marble_does_not_escape_through_thin_walls(crater, case):
    """Escape regression: a marble fired at 3 m/s (faster than any marble in play) straight at the
    model's thinnest walls bounces back and ends on a cave seat; it never leaves the model."""
    cave = "cave1"
    mouth = crater.mouth_along(cave)
    if case == "tunnel wall":
        pos, t = crater.valley_point(cave, mouth - 0.05)
        velocity = 3.0 * np.array([-t[1], t[0], -0.05])
    elif case == "cave end wall":
        pos, t = crater.valley_point(cave, mouth + crater.crest_at + 0.01)
        velocity = 3.0 * t
    elif case == "ceiling":
        pos, t = crater.valley_point(cave, mouth - 0.05)
        velocity = np.array([0.0, 0.0, 3.0])
    else:
        pos = np.array([0.0, 0.0, crater.hole_z - 0.012])
        velocity = np.array([3.0, 0.0, -0.2])
    out = crater.release(pos + [0, 0, 0.0005], velocity)
    assert out.status is Status.OK, out
    assert out.label.split("/")[0] in CAVES


@pytest.mark.parametrize("table, key, value, needle", [
    ("crater", "hole_radius", 0.009, "hole_radius"),
    ("knock", "speed", [0.6, 0.2], "knock.speed"),
    ("marble", "material", "unobtainium", "unknown material"),
    ("physics", "timestep", 0.01, "physics.timestep"),
    ("tunnels", "apex_z", 0.045, "apex_z"),
])
def test_bad_spec_value_raises_spec_error(tmp_path, table, key, value, needle):
    """A bad spec value is refused with a one-line SpecError naming the file and the key."""
    assert_refused(Crater, write_spec(SPEC, tmp_path, table, key, value), needle)


def test_missing_spec_file_raises_spec_error(tmp_path):
    """A spec path that does not exist is a SpecError, not a traceback from deep inside."""
    with pytest.raises(SpecError):
        Crater(Path(tmp_path / "nope.toml"))


def test_tunnel_floor_is_smooth_along_each_valley(crater):
    """The floor follows the valley's centre line continuously: sampled every 0.05 mm up the ramp
    to seat 1, over the hump and down to seat 2, its second differences stay those of the smooth
    profile (a floor read from the nearest centre-line vertex rose in 0.2 mm steps there)."""
    for name, line, s, sk, zk, mouth, total in crater.valleys:
        ss = np.arange(mouth - 0.03, mouth + 0.06, 0.00005)
        xy = np.column_stack([np.interp(ss, s, line[:, 0]), np.interp(ss, s, line[:, 1])])
        z = crater.floor_height(xy[:, 0], xy[:, 1])
        assert np.abs(np.diff(z, 2)).max() < 1e-5, name
        assert z.max() - z.min() > 0.01, name          # the samples do climb the hump
