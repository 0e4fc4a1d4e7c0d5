"""King Kong's knock-over trials end as soon as the pawn rests where Kong's remaining strokes cannot
reach it (games/king_kong/rig.py, `decided_check`; the device's `end_when_decided`).

Each test's docstring says what must hold: the early end reads the fate that the whole move gives,
a check that ignores Kong's reach is caught by the same comparison, and a watched (recorded) move
runs to its end.
"""
from __future__ import annotations

import pytest

from tabletop.gamekit.devices import make_device
from tabletop.sim.batch import trial_rng

SEED = 3
TRIALS = 16


@pytest.fixture(scope="module")
def device():
    d = make_device("kong-knockover")
    yield d
    d.close()


def _run(device, early: bool, trials: int = TRIALS):
    device.end_when_decided = early
    try:
        return [device.run(trial_rng(SEED, i)) for i in range(trials)]
    finally:
        device.end_when_decided = True


@pytest.fixture(scope="module")
def whole(device):
    """TRIALS seeded moves, every one run to its end (the early end off)."""
    return _run(device, early=False)


@pytest.mark.slow
def test_the_early_end_reads_the_fate_of_the_whole_move(device, whole):
    """Every trial reads the fate and status the whole move gives; those ended early (the pawn
    resting out of Kong's reach) in fewer steps, with the pawn then farther from every pose Kong had
    left to pass through than its reach and the margin."""
    early = _run(device, early=True)
    assert [(o.label, o.status) for o in early] == [(o.label, o.status) for o in whole]
    decided = [(e, w) for e, w in zip(early, whole) if e.reading["decided"]]
    assert len(decided) >= 3                      # the comparison is not vacuous
    assert not any(w.reading["decided"] for w in whole)
    for e, w in decided:
        assert e.steps < w.steps
    # the reach the check keeps clear: the pawn's farthest point from its centre, under its height
    assert 0.0 < device.rig.pawn_reach() < device.rig.pawn.height


@pytest.mark.slow
def test_an_end_that_ignores_kongs_reach_is_caught(device, whole, monkeypatch):
    """With the reach test dropped (every pose counted out of reach), a trial ends as soon as the pawn
    first rests, before Kong gets to it, and some fate differs from the whole move's: the comparison
    above can fail."""
    import numpy as np

    monkeypatch.setattr(type(device.rig), "figure_distances", lambda self, xy, poses: np.full(len(poses), np.inf))
    careless = _run(device, early=True)
    assert any(c.label != w.label for c, w in zip(careless, whole))


@pytest.mark.slow
def test_a_watched_move_runs_to_its_end(device, whole):
    """While a recorder watches the world (a replay plays the whole move) no trial ends early: the
    same steps as with the early end off."""
    device.world.watchers.append(lambda world: None)
    try:
        watched = _run(device, early=True, trials=4)
    finally:
        device.world.watchers.pop()
    assert [(o.label, o.steps) for o in watched] == [(o.label, o.steps) for o in whole[:4]]
    assert not any(o.reading["decided"] for o in watched)
