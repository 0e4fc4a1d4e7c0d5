"""The device contract, checked on every device of the registry (tabletop.gamekit.devices): a device
registered there is tested here with no line added. Everything goes through what every device
declares (tabletop.sim.devices.base.Device) and the batch runner `tabletop estimate` uses
(tabletop.sim.batch), with the registry's default spec and `--set` overrides:

- the same seed gives the same outcome: trial i of seed S is the same Outcome, bit for bit, run
  first, run after other trials in the same device (in another order), and run in a freshly built
  device; another seed draws other gestures;
- one and two workers agree: `run_batch` in this process and in two spawned worker processes (each
  building its own device from the registry's recipe, chunks of one trial) gives identical records;
- the fastest gesture stays in the model: with every range the device names in `fastest_gesture`
  at its fastest end (`--set KEY=[END, END]`), no trial escapes (a body leaving the model is a
  defect), every trial is accounted for (a label among the device's labels when OK, none
  otherwise) and the counts add up to the trials;
- unsettled trials are reported: with a settle cap too short for any trial to meet the settle rule
  (the spec's least cap, a hold ten times longer), every trial comes back UNSETTLED, without a
  label, counted as unsettled in the result, never dropped.

The fast part (`-m "not slow"`) keeps to three trials a check in one process; the slow tests (in
the default run) add the two-worker runs, over 3 and 40 trials, and the fastest gesture over 200
trials on two workers (about 50 s in all on two cores). What a fast body hits and where it ends up
(each lid's walls, the crater's thinnest walls, the Tipper's lid) is each device's own physics, in
its own tests.
"""
from __future__ import annotations

import json

import pytest

from tabletop.gamekit.devices import DEVICES, default_spec, device_ref, make_device
from tabletop.sim.batch import run_batch, run_trials, summarize, trial_rng
from tabletop.sim.devices.base import Device, Outcome, Status
from tabletop.sim.sensitivity import parameters

NAMES = list(DEVICES)
SEED = 7
TRIALS = 3                   # per check in the default run
MANY = 40                    # per worker check with -m slow
FASTEST_MANY = 200           # fastest-gesture trials with -m slow

#: the least `settle.cap` a spec's [settle] table takes (SettleRule.from_table), and a hold ten
#: times longer: no body can stay still for the hold within the cap, so no trial can settle
SHORT_CAP, LONG_HOLD = "0.1", "1.0"


@pytest.fixture(scope="module", params=NAMES)
def device(request):
    d = make_device(request.param)
    yield d
    d.close()


def _outcomes(device: Device, seed: int, indices) -> dict[int, Outcome]:
    """Trials run as the batch runs them: trial i's Generator, the gesture drawn from it, the run."""
    out = {}
    for i in indices:
        rng = trial_rng(seed, i)
        out[i] = device.run(rng, device.sample_gesture(rng))
    return out


def _accounted(device: Device, records: list[dict], trials: int) -> dict:
    """Every trial has its record, in order, with a status; a label among the device's labels
    exactly when OK; the result's counts add up to the trials (and the device's own result block
    builds from them). Returns the summary."""
    assert [r["index"] for r in records] == list(range(trials)), "a trial was lost"
    for r in records:
        assert r["status"] in set(Status), r
        if r["status"] == Status.OK:
            assert r["label"] in device.labels, r
        else:
            assert r["label"] is None, r
    s = summarize(device.labels, records)
    assert s["trials"] == trials
    assert s["labelled"] + s["lodged"] + s["unsettled"] + s["escaped"] == trials
    assert s["settled"] == s["labelled"] + s["lodged"]
    assert sum(s["counts"].values()) == s["labelled"]
    json.dumps({**s, **device.summarize_extra(records)})     # the result file's device block
    return s


def _fastest_overrides(device: Device) -> tuple[tuple[str, str], ...]:
    """`--set` overrides that put each range of the device's `fastest_gesture` at its fastest end."""
    ranges = {p.name: p for p in parameters(device, (), default_spec(device.name), ())}
    return tuple(ranges[key].ends()[end == "high"][0] for key, end in device.fastest_gesture().items())


# -- the same seed, the same outcome ----------------------------------------------------------------

def test_same_seed_same_outcome(device):
    """A trial's outcome depends on its seed and index alone: the same Outcome (label, status,
    steps, reading, gesture) run first, after other trials in reverse order, and in a new device."""
    first = _outcomes(device, SEED, range(TRIALS))
    run_trials(device, SEED + 1, range(2))
    again = _outcomes(device, SEED, reversed(range(TRIALS)))
    fresh = make_device(device.name)
    try:
        new = _outcomes(fresh, SEED, range(TRIALS))
    finally:
        fresh.close()
    assert all(isinstance(o, Outcome) for o in first.values())
    assert first == again == new
    other = _outcomes(device, SEED + 1, range(TRIALS))
    assert [o.gesture for o in other.values()] != [o.gesture for o in first.values()]


def _workers_agree(name: str, trials: int) -> None:
    ref = device_ref(name, default_spec(name))
    one = run_batch(ref, trials, SEED, workers=1)
    two = run_batch(ref, trials, SEED, workers=2, chunk_size=1)
    assert one == two
    json.dumps(one)                                 # what a checkpoint writes


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_one_and_two_workers_agree(name):
    """Two spawned worker processes, each building the device from the registry's recipe, give the
    records one process gives."""
    _workers_agree(name, TRIALS)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_one_and_two_workers_agree_over_many_trials(name):
    _workers_agree(name, MANY)


@pytest.mark.parametrize("name", NAMES)
def test_a_fresh_device_takes_a_model_band_draw(name):
    """A device built for a worker runs its first trial with drawn pair values (`estimate
    --uncertainty`, `calibrate`): its world knows its materials' pair table before any body is
    made (the Tipper builds its bodies with each trial), the draw comes back in the record, and
    the device's own values are put back after."""
    from tabletop.sim.batch import PairDraws

    probe = make_device(name)
    try:
        pairs = sorted({p for p in probe.world.pair_table.pairs})
    finally:
        probe.close()
    d = make_device(name)
    try:
        before = d.world.pair_table
        (record,) = run_trials(d, SEED, [0], PairDraws(tuple(pairs[:1])))
        assert record["drawn"] and all(k.startswith(f"materials.pairs.{pairs[0]}.") for k in record["drawn"])
        assert d.world.pair_table is before
    finally:
        d.close()


# -- the fastest gesture stays in the model ----------------------------------------------------------

def test_the_fastest_gesture_is_declared(device):
    """Each device names the ranges of its gesture that set how fast it moves the bodies, each with
    its fastest end (Device.fastest_gesture)."""
    ends = device.fastest_gesture()
    assert ends, f"{device.name}: declare fastest_gesture (sim/devices/base.py)"
    assert set(ends) <= set(device.gesture_ranges())
    assert set(ends.values()) <= {"high", "low"}


def _fastest_stays_in(device: Device, trials: int, workers: int) -> None:
    overrides = _fastest_overrides(device)
    spec = default_spec(device.name)
    fast = make_device(device.name, overrides=overrides)
    try:
        ends = device.fastest_gesture()
        wide = {p.name: p for p in parameters(device, (), spec, ())}
        for p in parameters(fast, (), spec, overrides):      # each range narrowed to its fastest end
            if p.name in ends:
                end = wide[p.name].high if ends[p.name] == "high" else wide[p.name].low
                assert p.low == p.high == end, p
        ref = device_ref(device.name, spec, overrides)
        records = run_batch(ref, trials, SEED, workers=workers, device=fast if workers == 1 else None)
        s = _accounted(fast, records, trials)
    finally:
        fast.close()
    assert s["escaped"] == 0, [r for r in records if r["status"] == Status.ESCAPED]


def test_the_fastest_gesture_stays_in_the_model(device):
    """Played as hard as its spec allows, the device keeps its bodies: no trial escapes, and every
    trial ends labelled, lodged or unsettled, counted."""
    _fastest_stays_in(device, TRIALS, workers=1)


@pytest.mark.slow
def test_the_fastest_gesture_stays_in_the_model_over_many_trials(device):
    _fastest_stays_in(device, FASTEST_MANY, workers=2)


# -- unsettled trials are reported -----------------------------------------------------------------

def test_unsettled_trials_are_reported(device):
    """A trial that cannot settle within its cap is UNSETTLED, with no label, and the result counts
    it: never dropped, never coerced to a label."""
    overrides = ((f"{device.settle_prefix}cap", SHORT_CAP), (f"{device.settle_prefix}hold", LONG_HOLD))
    stuck = make_device(device.name, overrides=overrides)
    try:
        rule = stuck.settle_spec()
        assert (rule.cap, rule.hold) == (float(SHORT_CAP), float(LONG_HOLD))
        ref = device_ref(device.name, default_spec(device.name), overrides)
        records = run_batch(ref, TRIALS, SEED, device=stuck)
        s = _accounted(stuck, records, TRIALS)
    finally:
        stuck.close()
    assert {r["status"] for r in records} == {Status.UNSETTLED}
    assert s["unsettled"] == TRIALS and s["labelled"] == 0
    assert all(r["steps"] > 0 for r in records)
