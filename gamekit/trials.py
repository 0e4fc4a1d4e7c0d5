"""Recording trials of one device as a replay (`estimate --record`): the trials a batch ran, run
again in this process on a freshly built device watched by a MotionRecorder.

The file format is tabletop.sim.record's; verifying such a recording is tabletop.gamekit.replay's.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from tabletop.gamekit.record import MOTION_RATE, replay_header, scene_of
from tabletop.sim.record import ReplayWriter

TRIAL_SEEDS_DOC = "trial i: numpy SeedSequence(seed, spawn_key=(i,))"


def _plain(value):
    """JSON-able copy of a reading (numpy numbers and arrays become floats and lists)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.integer, bool)):
        return value if isinstance(value, bool) else int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if np.isfinite(v) else None
    return value


def _trial_line(i: int, outcome) -> str:
    what = f"{outcome.label}" if outcome.label is not None else "no label"
    return f"trial {i}: {what} ({outcome.status}) after {outcome.sim_time:.3f} s simulated"


def run_trial(device, seed: int, i: int):
    """(gesture, outcome, motion) of trial `i` of a run with `seed` on `device`, its motion recorded."""
    from tabletop.sim.batch import trial_rng
    from tabletop.sim.motion import MotionRecorder

    rng = trial_rng(seed, i)
    gesture = device.sample_gesture(rng)
    with MotionRecorder(device.world, MOTION_RATE) as recorder:
        outcome = device.run(rng, gesture)
    return gesture, outcome, recorder.motion


def record_trials(path: Path, name: str, spec: Path, overrides, seed: int, count: int,
                  batch: list[dict] = ()) -> list[str]:
    """Run trials 0..count-1 of a run with `seed` again in this process, on a freshly built device
    watched by a MotionRecorder, and write them as one replay (one chunk per trial). The batch ran
    in worker processes; the per-trial seeds are its own (tabletop.sim.batch.trial_rng), so each trial
    repeats the batch's: any that does not is returned as a warning line. `verify` does the same."""
    from tabletop.gamekit.devices import make_device
    from tabletop.sim.devices.base import gesture_dict

    banner = [f"{name}: trials 0-{count - 1} of seed {seed}"]
    config = {"spec": str(spec), "overrides": [list(pair) for pair in overrides], "trials": count}
    labels = {r["index"]: r["label"] for r in batch}
    warnings, counts = [], {}
    device = make_device(name, spec, overrides)
    try:
        header = replay_header("trials", seed, banner, scene_of(device.world), device=name, config=config,
                               seeds=TRIAL_SEEDS_DOC, initial_events=[])
        writer = ReplayWriter(path, header)
    except BaseException:
        device.close()
        raise
    try:
        for i in range(count):
            gesture, outcome, motion = run_trial(device, seed, i)
            if i in labels and labels[i] != outcome.label:
                warnings.append(f"trial {i} gave {outcome.label} when recorded, {labels[i]} in the batch")
            key = outcome.label if outcome.label is not None else str(outcome.status)
            counts[key] = counts.get(key, 0) + 1
            trial = {"index": i, "label": outcome.label, "status": str(outcome.status),
                     "sim_time": outcome.sim_time, "steps": outcome.steps, "group": outcome.group,
                     "gesture": _plain(gesture_dict(gesture) if dataclasses.is_dataclass(gesture) else gesture),
                     "reading": _plain(outcome.reading)}
            step = {"trial": trial, "events": [_trial_line(i, outcome)], "motion": 0}
            writer.add_turn({"turn": i, "steps": [step]}, [motion])
        line = f"{count} trials, by outcome: " + ", ".join(f"{k}: {n}" for k, n in sorted(counts.items()))
        writer.finish({"lines": [line], "result": {"counts": counts}})
    finally:
        writer.close()
        device.close()
    return warnings
