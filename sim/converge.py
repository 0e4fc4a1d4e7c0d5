"""`tabletop converge`: do a device's odds hold when its numerics are refined?

The same trial seeds run at the spec's settings (the base run) and with each of the device's
refinements (`Device.refinements()`: half the time step, twice the solver iterations, ...). Trial
i of both runs starts from the same gesture, so the runs are compared trial by trial: each label's
change of p is the mean of the per-trial differences of its indicator, whose interval is far
narrower than that of two independent estimates.

The rule (docs/validation.md): a refinement may move no label's probability by more than
TOLERANCE = 0.02. Each label's paired change has a 95% interval, and the judgement is three-way:

- converged: every label's interval lies inside [-0.02, +0.02];
- not converged: some label's interval lies wholly outside it (that change is surely over 0.02),
  or the refined run has more escapes than the base run, or too many unsettled trials;
- cannot tell at N trials: some interval straddles +-0.02 and none lies wholly outside. Then the
  trial count at which every such label's interval would be at most TARGET_HALF_WIDTH (half the
  tolerance) on each side is estimated from the per-trial changes seen so far: "needs about M
  trials".

The interval is Bonett & Price's adjusted Wald interval for a difference of paired proportions
(one trial moving into and one out of the label added to the counts): unlike the plain normal
interval it does not shrink to [0, 0] when a small run happens to see no trial change its label.
Beside the judgement, reported only: Pearson's chi-square test of homogeneity of the two runs'
label counts and the Stuart-Maxwell test of marginal homogeneity of the paired (base label,
refined label) table.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from tabletop.sim.batch import summarize
from tabletop.sim.devices.base import Status
from tabletop.sim.errors import InputError
from tabletop.sim.spec import override_value
from tabletop.sim.stats import Z95

TOLERANCE = 0.02                # no label's probability may move by more than this ...
TARGET_HALF_WIDTH = TOLERANCE / 2   # ... "needs about N trials": the count at which the intervals are this narrow
MAX_UNSETTLED_FRACTION = 0.001  # ... no more escapes than the base run and at most this share unsettled
CONVERGED, NOT_CONVERGED, CANNOT_TELL = "converged", "not converged", "cannot tell"
CRITERIA_TEST = (
    f"converged = every label's paired change of p has its 95% interval inside [-{TOLERANCE}, +{TOLERANCE}]; "
    f"not converged = some label's interval lies wholly outside that band, or the refined run has more escapes "
    f"than the base run or over {MAX_UNSETTLED_FRACTION:.1%} of its trials unsettled; cannot tell = an interval "
    f"straddles +-{TOLERANCE} (too few trials to judge), with the trial count at which the intervals would be "
    f"+-{TARGET_HALF_WIDTH} wide; intervals: Bonett-Price adjusted Wald for paired proportions, over the trials "
    f"both runs labelled; the chi-square test of homogeneity and the Stuart-Maxwell test of marginal homogeneity "
    f"are reported beside them, not judged")

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


def paired_change_interval(moved_in: int, moved_out: int, n: int, z: float = Z95) -> tuple[float, tuple[float, float]]:
    """A label's change of p between two runs of the same n trials, of which `moved_in` trials
    gained the label and `moved_out` lost it: (moved_in - moved_out) / n and its 95% interval,
    Bonett & Price's adjusted Wald interval for paired proportions (one trial added to each
    discordant count, n + 2 trials): it keeps a width when no trial changed (a run of 40 trials
    that saw no change cannot rule out a change of a few percent). No trials: the whole [-1, 1]."""
    if n <= 0:
        return 0.0, (-1.0, 1.0)
    a, b = (moved_in + 1) / (n + 2), (moved_out + 1) / (n + 2)
    centre = a - b
    half = z * math.sqrt(max(a + b - centre * centre, 0.0) / (n + 2))
    return (moved_in - moved_out) / n, (max(-1.0, centre - half), min(1.0, centre + half))


def paired_differences(labels: Sequence[str], base: Sequence[dict], other: Sequence[dict]) -> dict:
    """Each label's change of p from `base` to `other` (runs of the same trial seeds) over the trials
    both labelled: dp, its 95% interval (`paired_change_interval`), the trials that moved into and
    out of the label and the number of paired trials."""
    a, b = _labelled(base), _labelled(other)
    both = sorted(a.keys() & b.keys())
    out = {}
    for label in labels:
        moved_in = sum(b[i] == label and a[i] != label for i in both)
        moved_out = sum(a[i] == label and b[i] != label for i in both)
        dp, ci = paired_change_interval(moved_in, moved_out, len(both))
        out[label] = {"dp": dp, "dp_ci95": list(ci), "moved_in": moved_in, "moved_out": moved_out,
                      "paired": len(both)}
    return out


def band(ci: Sequence[float], tolerance: float = TOLERANCE) -> str:
    """Where a change's 95% interval lies against +-tolerance: "inside" (wholly within it, ends
    included), "outside" (wholly beyond one end: the change is surely larger) or "straddles"."""
    lo, hi = ci
    if -tolerance <= lo and hi <= tolerance:
        return "inside"
    if lo > tolerance or hi < -tolerance:
        return "outside"
    return "straddles"


def trials_needed(moved_in: int, moved_out: int, n: int, half_width: float = TARGET_HALF_WIDTH) -> int:
    """About how many paired trials would make the change's 95% interval at most `half_width` on
    each side, if trials kept moving into and out of the label at the rates seen in these n (the
    interval of `paired_change_interval`); rounded up to two significant figures."""
    r_in, r_out = (moved_in / n, moved_out / n) if n > 0 else (0.0, 0.0)

    def half(m: int) -> float:
        a, b = (r_in * m + 1) / (m + 2), (r_out * m + 1) / (m + 2)
        return Z95 * math.sqrt(max(a + b - (a - b) ** 2, 0.0) / (m + 2))

    lo, hi = 1, 2
    while half(hi) > half_width:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if half(mid) > half_width else (lo, mid)
    digits = max(len(str(hi)) - 2, 0)
    return -(-hi // 10 ** digits) * 10 ** digits


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
    """One refinement's comparison with the base run and its verdict: converged, not converged (and
    why: `failed`) or cannot tell (the labels whose intervals straddle the tolerance: `undecided`,
    and `trials_needed`)."""
    sb, sr = summarize(labels, base), summarize(labels, refined)
    diffs = paired_differences(labels, base, refined)
    worst = max(labels, key=lambda k: abs(diffs[k]["dp"]))
    test = homogeneity(sb["counts"], sr["counts"])
    paired = diffs[worst]["paired"] if labels else 0
    where = {k: band(diffs[k]["dp_ci95"]) for k in labels}
    failed = [why for bad, why in (
        (paired == 0, "a run labelled no trial"),
        (sr["escaped"] > sb["escaped"], "more escapes than the base run"),
        (sr["unsettled"] > MAX_UNSETTLED_FRACTION * sr["trials"], f"over {MAX_UNSETTLED_FRACTION:.1%} unsettled"),
    ) if bad]
    if paired:
        failed += [f"{k}: dp {diffs[k]['dp']:+.4f}, 95% [{diffs[k]['dp_ci95'][0]:+.4f}, "
                   f"{diffs[k]['dp_ci95'][1]:+.4f}] wholly outside +-{TOLERANCE}"
                   for k in labels if where[k] == "outside"]
    undecided = [k for k in labels if where[k] == "straddles"] if not failed else []
    verdict = NOT_CONVERGED if failed else CANNOT_TELL if undecided else CONVERGED
    needed = (max(trials_needed(diffs[k]["moved_in"], diffs[k]["moved_out"], paired) for k in undecided)
              if undecided else None)
    return {
        "name": name,
        "overrides": {key: override_value(key, value) for key, value in overrides},
        "summary": sr,
        "labels": {k: {"p_base": sb["probabilities"][k]["p"], "p_refined": sr["probabilities"][k]["p"], **diffs[k],
                       "band": where[k]}
                   for k in labels},
        "paired": paired,
        "max_abs_dp": abs(diffs[worst]["dp"]),
        "max_abs_dp_label": worst,
        "max_abs_dp_ci95": diffs[worst]["dp_ci95"],
        **test,
        "stuart_maxwell": stuart_maxwell(paired_table(labels, base, refined)),
        "verdict": verdict,
        "passed": verdict == CONVERGED,
        "failed": failed,
        "undecided": undecided,
        "trials_needed": needed,
    }


def criteria() -> dict:
    """The rule's thresholds and the sentence that states it, for the result file."""
    return {"tolerance": TOLERANCE, "target_half_width": TARGET_HALF_WIDTH,
            "max_unsettled_fraction": MAX_UNSETTLED_FRACTION, "test": CRITERIA_TEST}


def overall(checks: Sequence[dict]) -> tuple[str, int | None]:
    """The device's verdict from its refinements': not converged if any is, else cannot tell if any
    is (with the largest trial count they need), else converged."""
    verdicts = [c["verdict"] for c in checks]
    if NOT_CONVERGED in verdicts:
        return NOT_CONVERGED, None
    if CANNOT_TELL in verdicts:
        return CANNOT_TELL, max(c["trials_needed"] for c in checks if c["verdict"] == CANNOT_TELL)
    return CONVERGED, None


def converge(run: Callable[[Overrides], list[dict]], labels: Sequence[str],
             refinements: list[tuple[str, Overrides]]) -> dict:
    """The base run (`run(())`) and one run per refinement (`run(its overrides)`), all over the same
    trial seeds, compared: the result's base, checks, criteria, verdict, trials_needed and converged
    (true only for the verdict converged)."""
    base = run(())
    checks = [check(name, extra, labels, base, run(extra)) for name, extra in refinements]
    verdict, needed = overall(checks)
    return {"base": summarize(labels, base), "checks": checks, "criteria": criteria(),
            "verdict": verdict, "trials_needed": needed, "converged": verdict == CONVERGED}


def describe_check(c: dict) -> str:
    """One refinement's verdict in words, e.g. "cannot tell at 200 paired trials: the 95% intervals
    of 6 straddle +-0.02; needs about 3,900 trials"."""
    if c["verdict"] == NOT_CONVERGED:
        return f"{NOT_CONVERGED} ({'; '.join(c['failed'])})"
    if c["verdict"] == CANNOT_TELL:
        return (f"{CANNOT_TELL} at {c['paired']} paired trials: the 95% interval"
                f"{'s' if len(c['undecided']) > 1 else ''} of {', '.join(c['undecided'])} "
                f"straddle{'' if len(c['undecided']) > 1 else 's'} +-{TOLERANCE}; "
                f"needs about {c['trials_needed']:,} trials")
    return (f"{CONVERGED}: every label's change within +-{TOLERANCE} (largest |dp| {c['max_abs_dp']:.4f}, "
            f"{c['max_abs_dp_label']}, 95% [{c['max_abs_dp_ci95'][0]:+.4f}, {c['max_abs_dp_ci95'][1]:+.4f}])")


def describe_result(result: dict) -> str:
    """The device's verdict in words, e.g. "cannot tell at 200 trials: needs about 3,900 trials"
    or "not converged (half-timestep)"."""
    if result["verdict"] == NOT_CONVERGED:
        return f"{NOT_CONVERGED} ({', '.join(c['name'] for c in result['checks'] if c['verdict'] == NOT_CONVERGED)})"
    if result["verdict"] == CANNOT_TELL:
        return (f"{CANNOT_TELL} at {result['base']['trials']:,} trials "
                f"({', '.join(c['name'] for c in result['checks'] if c['verdict'] == CANNOT_TELL)}): "
                f"needs about {result['trials_needed']:,} trials")
    return CONVERGED
