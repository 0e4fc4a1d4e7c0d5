"""Comparisons and plots of estimate results: chi-square against a reference, outcome bars,
sweep curves. matplotlib draws off-screen (Agg); scipy gives the chi-square tail."""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from tabletop.sim.errors import InputError


def chi_square(counts: dict[str, int], reference: dict[str, float]) -> dict:
    """Pearson's chi-square of observed counts against reference probabilities over the same labels."""
    from scipy.stats import chi2

    labels = list(counts)
    missing = [label for label in labels if label not in reference]
    if missing:
        raise InputError(f"--against: the reference has no probability for {missing[0]!r}")
    n = sum(counts.values())
    total = sum(reference[label] for label in labels)
    expected = {label: n * reference[label] / total for label in labels}
    if any(e <= 0 for e in expected.values()):
        raise InputError("--against: the reference gives an outcome probability 0; chi-square needs all > 0")
    stat = sum((counts[label] - expected[label]) ** 2 / expected[label] for label in labels)
    dof = len(labels) - 1
    return {"reference": {label: reference[label] / total for label in labels}, "chi2": stat, "dof": dof,
            "p_value": float(chi2.sf(stat, dof)), "expected": expected}


def pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: str | Path) -> None:
    """Write a figure to a temp file beside `path`, then rename it into place."""
    import os
    import tempfile

    from tabletop.sim.output import ordinary_mode

    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", suffix=path.suffix)
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=120)
        ordinary_mode(tmp)     # mkstemp makes it private; a plot is an ordinary file like the JSON
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def wrap_name(name: str, width: int, breaks: str = "./") -> list[str]:
    """A long dotted name (`materials.pairs.glass/polystyrene.friction`) cut into lines of at most
    `width` characters after its separators (`breaks`), never inside a word; a part longer than
    `width` keeps a line of its own."""
    parts, part = [], ""
    for ch in name:
        part += ch
        if ch in breaks:
            parts.append(part)
            part = ""
    if part:
        parts.append(part)
    lines = [""]
    for part in parts:
        if lines[-1] and len(lines[-1]) + len(part) > width:
            lines.append("")
        lines[-1] += part
    return lines


def plot_outcomes(result: dict, path: str | Path, xlabel: str = "outcome", fair: dict[str, float] | None = None,
                  fair_note: str = "fair odds") -> None:
    """Bars of each label's probability with 95% interval whiskers (and the reference, if any).
    With a model band (`estimate --sensitivity`) each label gets a wide light bar spanning the band
    and its probability as a point with the interval's error bar, so the two spreads compare.
    `xlabel` titles the x-axis (what a label is); `fair` ({label: p}, where the device has a notion
    of fair odds) is drawn as a dashed mark over each label, `fair_note` saying what it is."""
    plt = pyplot()
    labels = list(result["probabilities"])
    x = list(range(len(labels)))
    p = [result["probabilities"][k]["p"] for k in labels]
    lo = [pk - result["probabilities"][k]["ci95"][0] for k, pk in zip(labels, p)]
    hi = [result["probabilities"][k]["ci95"][1] - pk for k, pk in zip(labels, p)]
    band = result.get("model_band")
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(labels) + 2), 3.6))
    if band:
        ax.bar(x, [band[k][1] - band[k][0] for k in labels], bottom=[band[k][0] for k in labels], width=0.8,
               color="#A6C8E8", label="model band (inputs at the ends of their ranges)")
        ax.errorbar(x, p, yerr=[lo, hi], fmt="o", color="#4C72B0", ecolor="#222222", capsize=4,
                    label="simulated, 95% interval")
    else:
        ax.bar(x, p, color="#4C72B0", yerr=[lo, hi], capsize=4, ecolor="#222222", label="simulated, 95% interval")
    if fair and all(k in fair for k in labels):
        ax.hlines([fair[k] for k in labels], [i - 0.45 for i in x], [i + 0.45 for i in x], colors="#2A9D3A",
                  linestyles="--", linewidth=1.5, zorder=4, label=fair_note)
    else:
        fair = None
    if "against" in result:
        ref = result["against"]["reference"]
        ax.scatter(x, [ref[k] for k in labels], marker="_", s=600, color="#C44E52", zorder=3,
                   label=f"reference (chi-square p = {result['against']['p_value']:.3g})")
    ax.set_xticks(x, labels)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("probability")
    ax.set_title(f"{result['device']}: {result['labelled']} labelled trials, seed {result['seed']}")
    entries = len(ax.get_legend_handles_labels()[0])
    fig.set_size_inches(fig.get_figwidth(), 3.6 + 0.2 * entries)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=8, frameon=False)   # below: over no bar
    top = max(max(p[i] + hi[i], band[k][1] if band else 0.0, fair[k] if fair else 0.0)
              for i, k in enumerate(labels))
    ax.set_ylim(0, (top or 1.0) * 1.25)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


def plot_sweep(device: str, param: str, values: Sequence[float], rows: Sequence[dict], path: str | Path) -> None:
    """Each label's probability against the swept parameter, with 95% interval bands."""
    plt = pyplot()
    labels = list(rows[0]["probabilities"])
    fig, ax = plt.subplots(figsize=(7.0, 4.2))
    for label in labels:
        p = [r["probabilities"][label]["p"] for r in rows]
        lo = [r["probabilities"][label]["ci95"][0] for r in rows]
        hi = [r["probabilities"][label]["ci95"][1] for r in rows]
        line, = ax.plot(values, p, marker="o", label=label)
        ax.fill_between(values, lo, hi, color=line.get_color(), alpha=0.18)
    ax.set_xlabel("\n".join(wrap_name(param, 60)))
    ax.set_ylabel("probability")
    # the parameter's name can be long (materials.pairs.glass/polystyrene.friction): on lines of its
    # own, cut after its dots and slashes, so that the title fits the figure
    ax.set_title("\n".join([f"{device}: outcome probabilities (95% bands) against"] + wrap_name(param, 48)),
                 fontsize=11)
    ax.legend(fontsize=8, title="outcome", title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()   # the legend beside the axes, never over the curves
    save_figure(fig, path)
    plt.close(fig)
