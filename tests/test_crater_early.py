"""The crater's batch trials end as soon as their label cannot change (sim/devices/crater.py,
`end_when_decided`) and step a settle check's steps in one engine call (`substeps`).

Each test's docstring says what must hold: the early end gives the label (and status) that running
the marble to rest gives, a wrong pass level is caught by the same comparison, the substeps are
the single steps bit for bit, and a watched (recorded) trial or one with other marbles on the hill
runs to rest as before.
"""
from __future__ import annotations

import numpy as np
import pytest

from tabletop.gamekit.devices import make_device
from tabletop.sim.batch import trial_rng
from tabletop.sim.devices.base import Status

SEED = 3
TRIALS = 16


@pytest.fixture(scope="module")
def crater():
    device = make_device("crater")
    yield device
    device.close()


def _run(device, indices, early: bool, substeps: bool = True):
    device.end_when_decided, device.substeps = early, substeps
    try:
        out = []
        for i in indices:
            rng = trial_rng(SEED, i)
            out.append(device.run(rng, device.sample_gesture(rng)))
        return out
    finally:
        device.end_when_decided = device.substeps = True


@pytest.fixture(scope="module")
def to_rest(crater):
    """TRIALS seeded knocks, every marble run until it rests (the early end off)."""
    return _run(crater, range(TRIALS), early=False)


def test_early_end_gives_the_labels_of_running_to_rest(crater, to_rest):
    """Every trial ended early reads the label and status that the same knock gives when the marble
    is run until it rests, in fewer steps; the marble is then inside that seat's region with its
    energy height under the seat's pass level."""
    early = _run(crater, range(TRIALS), early=True)
    assert [(o.label, o.status) for o in early] == [(o.label, o.status) for o in to_rest]
    decided = [o for o in early if "decided" in o.reading]
    assert len(decided) >= TRIALS // 2          # the comparison is not vacuous
    for e, full in zip(early, to_rest):
        if "decided" in e.reading:
            assert e.steps < full.steps
            assert e.status is Status.OK and e.reading["region"] == e.label
            d = e.reading["decided"]
            assert d["energy_height"] < d["seat_pass_level"]
        else:
            assert e == full


def test_a_pass_level_too_high_is_caught(crater, to_rest):
    """The comparison above can fail: with every seat's pass level raised to the tunnel ceiling (a
    marble inside a seat's region is taken as decided however fast it moves), some knocks end on a
    seat the marble would have left."""
    levels = dict(crater.seat_pass_levels)
    try:
        crater.seat_pass_levels = {name: crater.ceiling_z for name in levels}
        early = _run(crater, range(TRIALS), early=True)
    finally:
        crater.seat_pass_levels = levels
    assert [o.label for o in early] != [o.label for o in to_rest]


def test_pass_levels_lie_between_the_seats_and_the_splitter(crater):
    """A seat's pass level is the crest of the hump between its cave's two seats: above the seat's
    resting height, the same for both seats of a cave, and under the lowest pass between two caves
    (the splitter, about 37.6 mm) and the ceiling."""
    r = crater.marble_radius
    for name, region in crater.seat_regions.items():
        level = crater.seat_pass_levels[name]
        assert level is not None, name
        assert region.center[2] + 0.01 < level < min(0.0375, crater.ceiling_z - r), name
    for cave, *_ in crater.caves:
        assert crater.seat_pass_levels[f"{cave}/seat1"] == pytest.approx(crater.seat_pass_levels[f"{cave}/seat2"],
                                                                         abs=1e-6)


def test_substeps_are_the_single_steps_bit_for_bit(crater):
    """A settle check's steps taken in one engine call give the same trial, bit for bit, as the
    same steps taken one call each, for consecutive trials in one world."""
    one = _run(crater, range(3), early=True, substeps=False)
    many = _run(crater, range(3), early=True, substeps=True)
    assert one == many
    assert crater.world.client.getPhysicsEngineParameters()["fixedTimeStep"] == crater.world.dt


def test_a_recorded_trial_runs_until_the_marble_rests(crater, to_rest):
    """A recorder watching the world (a replay, `replay --verify`) sees the marble roll all the way
    to rest in its cave, step by step: the trial is the one run to rest."""
    from tabletop.sim.motion import MotionRecorder

    rng = trial_rng(SEED, 0)
    with MotionRecorder(crater.world, 60.0):
        watched = crater.run(rng, crater.sample_gesture(rng))
    assert watched == to_rest[0]
    assert "decided" not in watched.reading


def test_other_marbles_on_the_hill_turn_the_early_end_off(crater):
    """A marble resting in a cave changes where a knocked one can stop: with obstacles on the hill
    no trial ends early."""
    cave = "cave2"
    seat = np.array(crater.seat_regions[f"{cave}/seat1"].center)
    pos, tangent = crater.valley_point(cave, crater.mouth_along(cave) - 0.04)
    try:
        crater.set_obstacles({"m0": seat})
        assert not crater.ends_when_decided()
        hit = crater.release(pos + [0, 0, 0.0005], 0.8 * tangent)
    finally:
        crater.set_obstacles({})
    assert "decided" not in hit.reading
    assert crater.ends_when_decided()
