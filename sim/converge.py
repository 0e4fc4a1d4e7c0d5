"""`tabletop converge`: do a device's odds hold when its numerics are refined?

The same trial seeds run at the spec's settings (the base run) and with each of the device's
refinements (`Device.refinements()`: half the time step, twice the solver iterations, ...). Trial
i of both runs starts from the same gesture, so the runs are compared trial by trial: each label's
change of p is the mean of the per-trial differences of its indicator, whose interval is far
narrower than that of two independent estimates. Beside it: Pearson's chi-square test of
homogeneity of the two runs' label counts (the pass criterion) and the Stuart-Maxwell test of
marginal homogeneity of the paired (base label, refined label) table (reported).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from tabletop.sim.batch import summarize
from tabletop.sim.devices.base import Status
from tabletop.sim.errors import InputError
from tabletop.sim.spec import override_value
from tabletop.sim.stats import paired_interval

MIN_P_VALUE = 0.01              # a refinement passes with a chi-square p-value at least this ...
MAX_ABS_DP = 0.03               # ... every label's paired change of p at most this ...
MAX_UNSETTLED_FRACTION = 0.001  # ... no more escapes than the base run and at most this share unsettled
CRITERIA_TEST = (
    f"pass = the chi-square test of homogeneity of the 2 x K label counts has p >= {MIN_P_VALUE}, every "
    f"label's |dp| <= {MAX_ABS_DP}, the refined run has no more escapes than the base run and at most "
    f"{MAX_UNSETTLED_FRACTION:.1%} of its trials unsettled; dp and its 95% interval come from the paired "
    f"per-trial differences over the trials both runs labelled, and the Stuart-Maxwell test of marginal "
    f"homogeneity of the paired label table is reported beside them")

Overrides = tuple[tuple[str, str], ...]


def select_refinements(refinements: list[tuple[str, Overrides]], only: str | None) -> list[tuple[str, Overrides]]:
    """The refinements `--only NAME,NAME` names (all of them without it); an unknown name is an InputError."""
    if only is None:
        return refinements
    known = dict(refinements)
    names = [n.strip() for n in only.split(",") if n.strip()]
    for name in names:
        if name not in known:
            raise InputError(f"--only: unknown refinement {name!r}; this device has: {', '.join(known)}")
    if not names:
        raise InputError("--only: name at least one refinement")
    return [(name, known[name]) for name in dict.fromkeys(names)]


def _labelled(records: Sequence[dict]) -> dict[int, str]:
    return {r["index"]: r["label"] for r in records if r["status"] == Status.OK}


def paired_differences(labels: Sequence[str], base: Sequence[dict], other: Sequence[dict]) -> dict:
    """Each label's change of p from `base` to `other` (runs of the same trial seeds): the mean
    per-trial indicator difference over the trials both labelled, with its 95% interval."""
    a, b = _labelled(base), _labelled(other)
    both = sorted(a.keys() & b.keys())
    out = {}
    for label in labels:
        dp, ci = paired_interval([(b[i] == label) - (a[i] == label) for i in both])
        out[label] = {"dp": dp, "dp_ci95": list(ci)}
    return out


def paired_table(labels: Sequence[str], base: Sequence[dict], other: Sequence[dict]) -> np.ndarray:
    """K x K counts of (label in `base`, label in `other`) over the trials both labelled."""
    a, b = _labelled(base), _labelled(other)
    pos = {label: k for k, label in enumerate(labels)}
    table = np.zeros((len(labels), len(labels)), dtype=int)
    for i in a.keys() & b.keys():
        table[pos[a[i]], pos[b[i]]] += 1
    return table


def homogeneity(counts_a: dict[str, int], counts_b: dict[str, int]) -> dict:
    """Pearson's chi-square test (no continuity correction) that two runs' label counts come from
    one distribution; labels neither run gave are dropped. A run with no labelled trial cannot be
    compared: its p_value is None."""
    from scipy.stats import chi2_contingency

    keep = [k for k in counts_a if counts_a[k] + counts_b[k] > 0]
    rows = np.array([[counts_a[k] for k in keep], [counts_b[k] for k in keep]])
    if not rows[0].sum() or not rows[1].sum():
        return {"chi2": None, "dof": 0, "p_value": None}
    if len(keep) < 2:
        return {"chi2": 0.0, "dof": 0, "p_value": 1.0}
    res = chi2_contingency(rows, correction=False)
    return {"chi2": float(res.statistic), "dof": int(res.dof), "p_value": float(res.pvalue)}


def stuart_maxwell(table) -> dict:
    """The Stuart-Maxwell test of marginal homogeneity of a K x K paired table (rows: base labels,
    columns: refined labels): d' S^-1 d, d the row minus the column totals and S their covariance
    under homogeneity, on K - 1 degrees of freedom. Labels neither run gave are dropped; if S is
    still singular (some labels never trade trials with the others) its pseudo-inverse is used,
    with its rank as the degrees of freedom, and `note` says so."""
    from scipy.stats import chi2

    n = np.asarray(table, dtype=float)
    seen = n.sum(axis=0) + n.sum(axis=1) > 0
    n = n[np.ix_(seen, seen)]
    d = n.sum(axis=1) - n.sum(axis=0)
    s = -(n + n.T)
    np.fill_diagonal(s, n.sum(axis=1) + n.sum(axis=0) - 2 * np.diag(n))
    rank = int(np.linalg.matrix_rank(s)) if len(d) else 0
    if rank == 0:
        return {"chi2": 0.0, "dof": 0, "p_value": 1.0, "note": "no trial changed its label"}
    stat = float(d @ np.linalg.pinv(s) @ d)
    out = {"chi2": stat, "dof": rank, "p_value": float(chi2.sf(stat, rank))}
    if rank < len(d) - 1:
        out["note"] = (f"singular covariance (labels that never trade trials with the others): pseudo-inverse, "
                       f"{rank} instead of {len(d) - 1} degrees of freedom")
    return out


def check(name: str, overrides: Overrides, labels: Sequence[str], base: Sequence[dict],
          refined: Sequence[dict]) -> dict:
    """One refinement's comparison with the base run, whether it passes the criteria and, if not, which it fails."""
    sb, sr = summarize(labels, base), summarize(labels, refined)
    diffs = paired_differences(labels, base, refined)
    worst = max(labels, key=lambda k: abs(diffs[k]["dp"]))
    test = homogeneity(sb["counts"], sr["counts"])
    failed = [why for bad, why in (
        (test["p_value"] is None, "a run labelled no trial"),
        (test["p_value"] is not None and test["p_value"] < MIN_P_VALUE, f"chi-square p < {MIN_P_VALUE}"),
        (abs(diffs[worst]["dp"]) > MAX_ABS_DP, f"|dp| of {worst} > {MAX_ABS_DP}"),
        (sr["escaped"] > sb["escaped"], "more escapes than the base run"),
        (sr["unsettled"] > MAX_UNSETTLED_FRACTION * sr["trials"], f"over {MAX_UNSETTLED_FRACTION:.1%} unsettled"),
    ) if bad]
    return {
        "name": name,
        "overrides": {key: override_value(key, value) for key, value in overrides},
        "summary": sr,
        "labels": {k: {"p_base": sb["probabilities"][k]["p"], "p_refined": sr["probabilities"][k]["p"], **diffs[k]}
                   for k in labels},
        "max_abs_dp": abs(diffs[worst]["dp"]),
        "max_abs_dp_label": worst,
        "max_abs_dp_ci95": diffs[worst]["dp_ci95"],
        **test,
        "stuart_maxwell": stuart_maxwell(paired_table(labels, base, refined)),
        "passed": not failed,
        "failed": failed,
    }


def criteria() -> dict:
    """The pass thresholds and the sentence naming the tests, for the result file."""
    return {"min_p_value": MIN_P_VALUE, "max_abs_dp": MAX_ABS_DP, "max_unsettled_fraction": MAX_UNSETTLED_FRACTION,
            "test": CRITERIA_TEST}


def converge(run: Callable[[Overrides], list[dict]], labels: Sequence[str],
             refinements: list[tuple[str, Overrides]]) -> dict:
    """The base run (`run(())`) and one run per refinement (`run(its overrides)`), all over the same
    trial seeds, compared: the result's base, checks, criteria and converged."""
    base = run(())
    checks = [check(name, extra, labels, base, run(extra)) for name, extra in refinements]
    return {"base": summarize(labels, base), "checks": checks, "criteria": criteria(),
            "converged": all(c["passed"] for c in checks)}
