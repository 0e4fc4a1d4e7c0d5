"""What a device's uncertain model inputs do to its odds (`estimate --sensitivity`, `--uncertainty`).

The uncertain inputs are every value of every material pair that occurs in the device's world
(assets/materials.toml gives each a plausible range and a source) and every [low, high] range of
its gesture. Sensitivity runs the estimate's trial seeds again with one input at a time at the low
and at the high end of its range and compares them trial by trial with the estimate (the paired
differences of tabletop.sim.converge); the model band is the spread of each label's p over those runs.
Uncertainty runs the trial seeds once more with every pair value drawn per trial from its range
(tabletop.sim.batch.PairDraws) and says how strongly each drawn value goes with each label.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from tabletop.sim.batch import pair_parameter, run_trials, summarize
from tabletop.sim.converge import Overrides, paired_differences
from tabletop.sim.devices.base import Device, Status
from tabletop.sim.materials import PAIR_FIELDS
from tabletop.sim.spec import load_toml
from tabletop.sim.stats import correlation_interval

DRAW = "uniform over each range, independent per trial"


@dataclass(frozen=True)
class Parameter:
    """One uncertain input: its `--set` name, its value in the estimate and its plausible range."""

    name: str
    kind: str               # "pair" (a material pair's value) or "gesture" (a gesture range)
    value: float | list
    low: float
    high: float
    source: str             # the pair value's source, or the spec file holding the gesture range

    def ends(self) -> tuple[Overrides, Overrides]:
        """`--set` overrides putting the input at the low and at the high end of its range (a
        gesture range shrinks to that end)."""
        if self.kind == "pair":
            return ((self.name, repr(self.low)),), ((self.name, repr(self.high)),)
        return ((self.name, f"[{self.low!r}, {self.low!r}]"),), ((self.name, f"[{self.high!r}, {self.high!r}]"),)


def contact_pairs(device: Device, seed: int) -> list[str]:
    """The material pairs of `device`'s world, read after running trial 0 on it (devices create
    their moving bodies per trial)."""
    run_trials(device, seed, [0])
    return device.contact_pairs()


def parameters(device: Device, pairs: Sequence[str], spec: Path, overrides: Overrides) -> list[Parameter]:
    """Every field of each of `pairs` (as the device's world has it), then every gesture range of
    the spec (after `overrides`)."""
    table = device.world.pair_table
    out = []
    for key in pairs:
        for field in PAIR_FIELDS:
            pv = getattr(table.pairs[key], field)
            out.append(Parameter(pair_parameter(key, field), "pair", pv.value, pv.low, pv.high, pv.source))
    data = load_toml(spec, overrides)
    for key in device.gesture_ranges():
        *path, last = key.split(".")
        t = data
        for part in path:
            t = t.table(part)
        lo, hi = t.range(last)
        out.append(Parameter(key, "gesture", [lo, hi], lo, hi, str(spec)))
    return out


def sensitivity(run: Callable[[Overrides], list[dict]], labels: Sequence[str], params: Sequence[Parameter],
                base: Sequence[dict]) -> dict:
    """Run each parameter at either end (`run(overrides)`, over the trial seeds of `base`) and give
    each label's p there and its paired change from `base`; parameters ranked by their largest |dp|."""
    out = []
    for prm in params:
        low_ends, high_ends = prm.ends()
        low, high = run(low_ends), run(high_ends)
        pl, ph = summarize(labels, low)["probabilities"], summarize(labels, high)["probabilities"]
        dl, dh = paired_differences(labels, base, low), paired_differences(labels, base, high)
        per = {k: {"p_low": pl[k]["p"], "p_high": ph[k]["p"],
                   "dp_low": dl[k]["dp"], "dp_low_ci95": dl[k]["dp_ci95"],
                   "dp_high": dh[k]["dp"], "dp_high_ci95": dh[k]["dp_ci95"]} for k in labels}
        out.append({"name": prm.name, "kind": prm.kind, "value": prm.value, "low": prm.low, "high": prm.high,
                    "source": prm.source, "labels": per,
                    "max_abs_dp": max(max(abs(v["dp_low"]), abs(v["dp_high"])) for v in per.values())})
    ranking = [p["name"] for p in sorted(out, key=lambda p: -p["max_abs_dp"])]
    return {"trials": len(base), "parameters": out, "ranking": ranking}


def model_band(probabilities: dict, block: dict) -> dict[str, list[float]]:
    """Each label's [min p, max p] over the estimate and every sensitivity run."""
    band = {}
    for label, pr in probabilities.items():
        ps = [pr["p"]] + [p["labels"][label][end] for p in block["parameters"] for end in ("p_low", "p_high")]
        band[label] = [min(ps), max(ps)]
    return band


def _correlation(x: np.ndarray, y: np.ndarray) -> dict:
    """Pearson's r of `x` with the 0/1 indicator `y` (point-biserial) and its 95% interval; None
    where either does not vary."""
    if len(x) < 2 or x.std() == 0 or y.std() == 0:
        return {"r": None, "ci95": None}
    r = float(np.corrcoef(x, y)[0, 1])
    return {"r": r, "ci95": list(correlation_interval(r, len(x)))}


def uncertainty(labels: Sequence[str], records: Sequence[dict]) -> dict:
    """The run with drawn pair values (records with `drawn`): the mixture's summary, and each drawn
    value's point-biserial correlation with each label over the labelled trials; parameters ranked
    by their largest |r|."""
    labelled = [r for r in records if r["status"] == Status.OK]
    names = list(records[0]["drawn"]) if records else []
    influence = {}
    for name in names:
        x = np.array([r["drawn"][name] for r in labelled])
        influence[name] = {k: _correlation(x, np.array([r["label"] == k for r in labelled], dtype=float))
                           for k in labels}
    strength = {n: max((abs(c["r"]) for c in per.values() if c["r"] is not None), default=0.0)
                for n, per in influence.items()}
    return {"trials": len(records), "draw": DRAW, "summary": summarize(labels, records), "influence": influence,
            "ranking": sorted(names, key=lambda n: -strength[n])}
