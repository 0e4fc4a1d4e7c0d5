"""Batch runs: per-trial seeds, independence from workers and trial order, the summary."""
from __future__ import annotations

import pytest

from tabletop.sim.batch import DeviceRef, run_batch, run_trials, summarize, trial_rng
from tabletop.sim.stats import wilson_interval

QUADRANT = DeviceRef("tests.physics_fixtures:make_quadrant")


@pytest.fixture(scope="module")
def quadrant():
    device = QUADRANT.build()
    yield device
    device.close()


def test_trial_rng_matches_seedsequence_spawn():
    """Trial i draws from the i-th child SeedSequence(seed).spawn would give."""
    import numpy as np

    child = np.random.SeedSequence(7).spawn(5)[3]
    assert trial_rng(7, 3).random() == np.random.default_rng(child).random()


def test_the_quadrant_box_is_a_randomizer(quadrant):
    """A ball dropped near the pyramid's apex ends in every quadrant, settled, with no escapes."""
    records = run_trials(quadrant, 1, range(80))
    s = summarize(quadrant.labels, records)
    assert s["escaped"] == 0 and s["unsettled"] == 0
    assert all(k > 0 for k in s["counts"].values())


def test_a_trial_does_not_depend_on_the_trials_before_it(quadrant):
    """Trial 17 alone in a fresh device equals trial 17 run after sixteen others."""
    after_others = run_trials(quadrant, 3, range(18))[17]
    fresh = QUADRANT.build()
    try:
        alone = run_trials(fresh, 3, [17])[0]
    finally:
        fresh.close()
    assert alone == after_others


@pytest.mark.slow
def test_same_seed_same_counts_whatever_the_workers(quadrant):
    """One process and two worker processes give identical records for the same seed."""
    one = run_batch(QUADRANT, 40, seed=11, workers=1, device=quadrant, chunk_size=7)
    two = run_batch(QUADRANT, 40, seed=11, workers=2, chunk_size=5)
    assert one == two
    other_seed = run_batch(QUADRANT, 40, seed=12, workers=1, device=quadrant)
    assert [r["label"] for r in other_seed] != [r["label"] for r in one]


def test_progress_reports_every_trial(quadrant):
    seen = []
    run_batch(QUADRANT, 23, seed=0, device=quadrant, chunk_size=5, progress=seen.append)
    assert seen == [5, 5, 5, 5, 3]


def test_skipped_trials_are_not_run_again(quadrant):
    """A resumed run skips the trials it already has and runs every other one exactly once."""
    seen = []
    rest = run_batch(QUADRANT, 30, seed=5, device=quadrant, chunk_size=4, skip=range(0, 30, 3), on_chunk=seen.append)
    assert [r["index"] for r in rest] == [i for i in range(30) if i % 3]
    assert sorted(r["index"] for part in seen for r in part) == [r["index"] for r in rest]
    whole = run_batch(QUADRANT, 30, seed=5, device=quadrant)
    assert [r for r in whole if r["index"] % 3] == rest


def test_summary_counts_every_status_and_never_drops_a_trial():
    records = [
        {"index": 0, "label": "a", "status": "ok", "group": "g1", "sim_time": 1.0, "steps": 10},
        {"index": 1, "label": "b", "status": "ok", "group": "g2", "sim_time": 1.0, "steps": 10},
        {"index": 2, "label": None, "status": "unsettled", "group": "g1", "sim_time": 5.0, "steps": 50},
        {"index": 3, "label": None, "status": "escaped", "group": "g2", "sim_time": 0.5, "steps": 5},
        {"index": 4, "label": None, "status": "lodged", "group": "g2", "sim_time": 2.0, "steps": 20},
        {"index": 5, "label": "a", "status": "ok", "group": "g1", "sim_time": 1.0, "steps": 10},
    ]
    s = summarize(("a", "b", "c"), records)
    assert (s["trials"], s["settled"], s["unsettled"], s["escaped"], s["lodged"]) == (6, 4, 1, 1, 1)
    assert s["counts"] == {"a": 2, "b": 1, "c": 0}
    assert s["probabilities"]["a"]["p"] == pytest.approx(2 / 3)
    assert s["probabilities"]["c"]["ci95"][0] == 0.0
    assert s["by_group"]["g1"]["counts"] == {"a": 2, "b": 0, "c": 0}
    assert s["steps"] == 105


@pytest.mark.parametrize("k,n,lo,hi", [(0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0)])
def test_wilson_interval_known_values(k, n, lo, hi):
    a, b = wilson_interval(k, n)
    assert a == pytest.approx(lo, abs=1e-4) and b == pytest.approx(hi, abs=1e-4)
