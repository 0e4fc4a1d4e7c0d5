"""`tabletop validate`: the throw device (sim/devices/throw.py) against published experiments.

Every case is a run of `estimate throw` with `--set` overrides (so anyone can repeat it by hand),
a published figure and the case's acceptance rule, written down with it (`Case.rule`): "agrees" when
the published value lies inside our 95% interval, "near (reason)" when it lies outside but within a
tolerance the case states with its reason, "disagrees" otherwise (`verdict`). The materials are the
ones every gadget uses (assets/materials.toml); a case chooses only the shape, the surface it falls
on and the gesture, as its experiment did. docs/validation.md says what each figure means and why we
agree or not.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable

from scipy.stats import chi2

from tabletop.sim.batch import summarize
from tabletop.sim.stats import Z95, wilson_interval

Overrides = tuple[tuple[str, str], ...]


AGREES, NEAR, DISAGREES = "agrees", "near", "disagrees"
EXIT_STATUS = ("exit status 0 whatever the verdicts (the command ran and printed them); 2 for bad input, "
               "130 when interrupted")


@dataclass(frozen=True)
class Tolerance:
    """How far outside our 95% interval a published value may lie and still be "near", and why."""
    below: float        # under our interval's lower end
    above: float        # over its upper end
    reason: str         # printed as "near (reason)"


def verdict(published: float, ci: tuple[float, float], tolerance: Tolerance | None = None) -> tuple[str, str | None]:
    """(verdict, reason) of a published value against our 95% interval: "agrees" when it lies inside
    (ends included), "near" with the tolerance's reason when it lies outside but within the
    tolerance, "disagrees" otherwise (and always when the case states no tolerance)."""
    lo, hi = ci
    if lo <= published <= hi:
        return AGREES, None
    if tolerance is not None and lo - tolerance.below <= published <= hi + tolerance.above:
        return NEAR, tolerance.reason
    return DISAGREES, None


def verdict_text(row: dict) -> str:
    """A row's verdict as printed: "agrees", "near (reason)" or "disagrees"."""
    return f"{NEAR} ({row['verdict_reason']})" if row["verdict"] == NEAR else row["verdict"]


def tally(rows) -> str:
    """"3 agree, 2 near, 2 disagree": the verdicts counted."""
    n = {v: sum(r["verdict"] == v for r in rows) for v in (AGREES, NEAR, DISAGREES)}
    return (f"{n[AGREES]} agree{'s' if n[AGREES] == 1 else ''}, {n[NEAR]} near, "
            f"{n[DISAGREES]} disagree{'s' if n[DISAGREES] == 1 else ''}")


@dataclass(frozen=True)
class Case:
    name: str                           # what is thrown, how, and what is measured
    cite: str                           # the source, short (the table's column)
    source: str
    published: str                      # the published value, as text
    overrides: Overrides
    trials: tuple[int, int]             # (quick, full)
    judge: Callable[[dict], dict]       # summary -> {"ours": text, "value", "ci95", and either "published_value"
                                        # (with "tolerance": Tolerance | None) or "holds": bool}
    rule: str                           # the acceptance rule in words, with the reason for any tolerance
    labels: tuple[str, ...] = field(default=())
    # the published tallies, where the experiment gives counts (`validate --calibrate` fits them):
    # (group, the labels it joins, count) per group of outcomes the experiment told apart
    tallies: tuple[tuple[str, tuple[str, ...], int], ...] = ()
    key: str = ""                       # a short name (the calibration's part; `NAME@KEY` parameters)


def _share(summary: dict, labels) -> tuple[float, tuple[float, float], int, int]:
    k = sum(summary["counts"][label] for label in labels)
    n = summary["labelled"]
    lo, hi = wilson_interval(k, n)
    return (k / n if n else 0.0), (lo, hi), k, n


def _ratio(a: int, b: int) -> tuple[float, tuple[float, float]]:
    """a / b with a 95% interval from the log ratio (counts of two labels among the same trials)."""
    if a == 0 or b == 0:
        return (a / b if b else math.inf), (0.0, math.inf)
    r = a / b
    half = Z95 * math.sqrt(1 / a + 1 / b)
    return r, (r * math.exp(-half), r * math.exp(half))


def _coin(summary: dict) -> dict:
    p, ci, k, n = _share(summary, ("side",))
    return {"ours": f"{p:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]", "value": p, "ci95": list(ci),
            "published_value": 1 / 3, "tolerance": None}


def _cube(summary: dict) -> dict:
    counts = list(summary["counts"].values())
    n = sum(counts)
    stat = sum((c - n / 6) ** 2 / (n / 6) for c in counts) if n else 0.0
    p = float(chi2.sf(stat, 5)) if n else 0.0
    return {"ours": f"chi-square {stat:.2f} on 5 dof, p = {p:.3f}", "value": p, "ci95": None, "holds": p >= 0.01}


def pender_uhrin_ratio(k: float, l: float) -> float:
    """Pender & Uhrin's ratio P(rest on the side of length l) / P(rest on the side of length k) of a
    k x l 2-d die: (sqrt(k^2 + l^2) - k) / (sqrt(k^2 + l^2) - l) * arctan(l / k) / arctan(k / l)."""
    d = math.hypot(k, l)
    return (d - k) / (d - l) * math.atan(l / k) / math.atan(k / l)


def quasi_static_ratio(k: float, l: float) -> float:
    """The same ratio for a die that stops where it lands: arctan(l / k) / arctan(k / l)."""
    return math.atan(l / k) / math.atan(k / l)


def _long_cuboid(k: float, l: float) -> Callable[[dict], dict]:
    theory = pender_uhrin_ratio(k, l)

    def judge(summary: dict) -> dict:
        c = summary["counts"]
        narrow, wide = c["+y"] + c["-y"], c["+z"] + c["-z"]
        r, ci = _ratio(narrow, wide)
        return {"ours": f"{r:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]", "value": r, "ci95": list(ci),
                "published_value": theory, "tolerance": None}
    return judge


def sampling_tolerance(p: float, ci: tuple[float, float], p_pub: float, n_pub: int) -> Tolerance:
    """The tolerance for a published proportion that is itself a sample (p_pub of n_pub): our 95%
    interval widened by the published value's own 95% (Wilson) interval, the two half-widths added in
    quadrature. The published value lies within it exactly when Newcombe's 95% interval of the
    difference of the two proportions holds 0."""
    lo_pub, hi_pub = wilson_interval(round(p_pub * n_pub), n_pub)
    low = p - math.hypot(p - ci[0], hi_pub - p_pub)     # the least published value still consistent
    high = p + math.hypot(ci[1] - p, p_pub - lo_pub)
    return Tolerance(below=max(ci[0] - low, 0.0), above=max(high - ci[1], 0.0),
                     reason=f"within the sampling spread of their {n_pub} rolls")


def _square_cuboid(p_pub: float, n_pub: int) -> Callable[[dict], dict]:
    def judge(summary: dict) -> dict:
        p, ci, _, _ = _share(summary, ("+x", "-x"))
        return {"ours": f"{p:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]", "value": p, "ci95": list(ci),
                "published_value": p_pub, "tolerance": sampling_tolerance(p, ci, p_pub, n_pub)}
    return judge


def _gentle_toss(summary: dict) -> dict:
    c = summary["counts"]
    n = sum(c.values())
    lowest = c["-z"] / n if n else 0.0
    best = max(c, key=c.get) if n else None
    stat = sum((v - n / 6) ** 2 / (n / 6) for v in c.values()) if n else 0.0
    p_uniform = float(chi2.sf(stat, 5)) if n else 1.0
    lo, hi = wilson_interval(c["-z"], n)
    return {"ours": f"{best} most often; start's lowest face up {lowest:.3f} [{lo:.3f}, {hi:.3f}], "
                    f"its top face {c['+z'] / n if n else 0:.3f}",
            "value": lowest, "ci95": [lo, hi], "holds": best == "-z" and p_uniform < 0.01}


_HARD = (("surface.material", "wood"), ("surface.wall_height", "0.1"))
_THROWN = (("gesture.height", "[0.1, 0.2]"), ("gesture.speed", "[0.3, 1.0]"), ("gesture.spin", "[0.0, 20.0]"))


def cases() -> list[Case]:
    coin = (("shape.kind", '"cylinder"'), ("shape.radius", "0.0125"), ("shape.height", "0.00885"))
    theory, still = pender_uhrin_ratio(0.03, 0.02), quasi_static_ratio(0.03, 0.02)
    out = [
        Case("thick coin h/d 0.354, still drop on felt: P(side)", "Yong & Mahadevan 2011",
             "Yong & Mahadevan, 'Probability, geometry, and dynamics in the toss of a thick coin', arXiv:1008.4559 "
             "(2011) (a coin landing without bouncing)", "1/3", coin,
             (2000, 10000), _coin,
             "agrees: 1/3 inside our 95% interval; otherwise disagrees. No tolerance: 1/3 is their model's value at h/d = 0.354, and we "
             "hold no figure for the spread of their tosses"),
        Case("16 mm cube, still drop on felt: six equal faces", "symmetry", "symmetry (Diaconis & Keller 1989)",
             "chi-square p >= 0.01", (("shape.kind", '"cuboid"'), ("shape.size", "[0.016, 0.016, 0.016]")),
             (6000, 20000), _cube,
             "agrees: the chi-square test of six equal faces gives p >= 0.01 (a fair die fails it 1 run in 100); "
             "otherwise disagrees"),
        Case("120x30x20 mm cuboid, 10-20 cm onto wood: P(20 mm side)/P(30 mm side)", "Pender & Uhrin 2014",
             "Pender & Uhrin, arXiv:1407.6307 (2014)", f"{theory:.3f} (their formula)",
             (("shape.kind", '"cuboid"'), ("shape.size", "[0.12, 0.03, 0.02]"), *_HARD, *_THROWN),
             (1500, 6000), _long_cuboid(0.03, 0.02),
             f"agrees: their formula's {theory:.3f} inside our 95% interval; otherwise disagrees. No tolerance: the formula is the "
             f"many-bounce limit and they observe real surfaces 'somewhat closer to unity' (toward the quasi-static "
             f"{still:.3f}), but give no figure to hold ours to"),
        Case("16 mm cube, gentle toss +z up onto wood (6.4-8 cm, <= 0.3 m/s, <= 5 rad/s): the favoured face",
             "Kapitaniak et al. 2012", "Kapitaniak, Strzalko, Grabski & Kapitaniak, Chaos 22, 047504 (2012)",
             "the face lowest at the start",
             (("shape.kind", '"cuboid"'), ("shape.size", "[0.016, 0.016, 0.016]"), *_HARD,
              ("gesture.mode", '"toss"'), ("gesture.start", '"+z"'), ("gesture.spin_axis", "[1.0, 0.0, 0.0]"),
              ("gesture.spin", "[0.0, 5.0]"), ("gesture.speed", "[0.0, 0.3]"),
              ("gesture.elevation_deg", "[-30.0, 0.0]"), ("gesture.height", "[0.056, 0.072]")),
             (1500, 6000), _gentle_toss,
             "agrees: the start's lowest face shows most often and the six faces are far from equal (chi-square "
             "p < 0.01), reading 'landing on' as the face that shows (docs/validation.md); otherwise disagrees"),
    ]
    for ratio, p_pub, n_pub in ((0.75, 0.548, 799), (1.23, 0.154, 532), (1.55, 0.040, 606)):
        out.append(Case(
            f"steel cuboid x/y {ratio} (16 mm squares), thrown onto wood: P(square face up)",
            "Math. Gazette 2013", "Mathematical Gazette 97, March 2013, note 97.16, Table 1 (steel dice rolled by students)",
            f"{p_pub:.3f} ({n_pub} rolls)",
            (("shape.kind", '"cuboid"'), ("shape.size", f"[{0.016 * ratio:.5f}, 0.016, 0.016]"),
             ("shape.material", '"steel"'), *_HARD, *_THROWN),
            (1000, 4000), _square_cuboid(p_pub, n_pub),
            f"agrees: {p_pub:.3f} inside our 95% interval; near: within the sampling spread of their {n_pub} "
            f"rolls (our interval widened in quadrature by their own 95% interval: Newcombe's interval of the "
            f"difference holds 0); otherwise disagrees",
            tallies=(("square face up", ("+x", "-x"), round(p_pub * n_pub)),
                     ("long face up", ("+y", "-y", "+z", "-z"), n_pub - round(p_pub * n_pub))),
            key=f"gazette-{ratio}"))
    out[:4] = [replace(c, key=k) for c, k in zip(out[:4], ("coin", "cube", "long-cuboid", "gentle-toss"))]
    return out


def fitted_share(case: Case) -> tuple[str, ...]:
    """The labels of a tallied case's first group (the share its published value is)."""
    return case.tallies[0][1]


def share_of(case: Case, summary: dict) -> float:
    """A tallied case's first group's share of the labelled trials of a run's summary."""
    n = summary["labelled"]
    return sum(summary["counts"][k] for k in fitted_share(case)) / n if n else 0.0


def judge(case: Case, summary: dict) -> dict:
    """The case's figures from a run's summary and its verdict by the case's rule."""
    figures = dict(case.judge(summary))
    if "holds" in figures:
        figures["verdict"], figures["verdict_reason"] = (AGREES if figures.pop("holds") else DISAGREES), None
        figures.update(published_value=None, tolerance=None)
    else:
        tol = figures["tolerance"]
        figures["verdict"], figures["verdict_reason"] = verdict(figures["published_value"], figures["ci95"], tol)
        figures["tolerance"] = None if tol is None else {"below": tol.below, "above": tol.above, "reason": tol.reason}
    figures["rule"] = case.rule
    figures["passed"] = figures["verdict"] != DISAGREES     # kept for older readers: agrees or near
    return figures


def run_case(case: Case, run: Callable[[Overrides, int], list[dict]], quick: bool, labels_of) -> dict:
    """One case's row: run its trials (`run(overrides, trials)`) and judge them by the case's rule."""
    trials = case.trials[0] if quick else case.trials[1]
    records = run(case.overrides, trials)
    summary = summarize(labels_of(case.overrides), records)
    return {"case": case.name, "cite": case.cite, "source": case.source, "published": case.published,
            **judge(case, summary),
            "trials": trials, "labelled": summary["labelled"], "unsettled": summary["unsettled"],
            "escaped": summary["escaped"], "lodged": summary["lodged"], "counts": summary["counts"],
            "command": "tabletop estimate throw --trials {} ".format(trials)
                       + " ".join(f"--set '{k}={v}'" for k, v in case.overrides)}
