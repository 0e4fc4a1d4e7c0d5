"""Print the README's "Measured odds" section from the result files in docs/results/.

    python scripts/readme_odds.py > /tmp/odds.md      # then paste it over the section

Every figure in that section comes from a JSON written by `tabletop converge` or `tabletop estimate`;
this keeps the README from drifting from the files.
"""
from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "results"
MEASURED = ROOT / "assets" / "measured"      # the published 10k-trial results (package data: table chance)
DEVICES = (("tipper", "The Tipper"), ("crater", "The crater (cave / seat)"), ("sticks", "The Knossos throw sticks"),
           ("die", "King Kong's die"), ("spinner", "King Kong's spinner (outer circle)"),
           ("kong-knockover", "King Kong's knock-overs (a pawn in a groove or beside Kong's path)"))


def load(name: str) -> dict | None:
    path = (MEASURED if "-10k-" in name else RESULTS) / name
    return json.loads(path.read_text()) if path.exists() else None


def converge_row(dev: str) -> str:
    c = load(f"{dev}-converge.json")
    if c is None:
        return f"| {dev} | not run | | |"
    parts = [f"{ch['name']} {ch['max_abs_dp']:.3f} (p {ch['p_value']:.2g})" for ch in c["checks"]]
    step = round(1 / c["params"]["physics"]["timestep"])
    verdict = "yes" if c["converged"] else "**no**"
    return f"| {dev} | {verdict} ({c['trials']:,} trials, 1/{step} s) | {'; '.join(parts)} | `{dev}-converge.json` |"


def odds_table(dev: str, title: str, d: dict) -> list[str]:
    out = [f"{title} ({d['trials']:,} trials, `assets/measured/{dev}-10k-seed1.json`): {d['escaped']} escaped, "
           f"{d['unsettled']} unsettled, {d['lodged']} lodged.", "",
           "| outcome | p | 95% interval (sampling) | model band |", "| --- | --- | --- | --- |"]
    for label, v in d["probabilities"].items():
        band = d.get("model_band", {}).get(label)
        out.append(f"| {label} | {v['p']:.3f} | [{v['ci95'][0]:.3f}, {v['ci95'][1]:.3f}] | "
                   + (f"[{band[0]:.3f}, {band[1]:.3f}]" if band else "") + " |")
    s = d.get("sensitivity")
    if s:
        top = []
        for name in s["ranking"][:3]:
            p = next(q for q in s["parameters"] if q["name"] == name)
            lab = max(p["labels"], key=lambda L: max(abs(p["labels"][L]["dp_low"]), abs(p["labels"][L]["dp_high"])))
            L = p["labels"][lab]
            end = "low" if abs(L["dp_low"]) >= abs(L["dp_high"]) else "high"
            dp = L["dp_low"] if end == "low" else L["dp_high"]
            top.append(f"`{name}` at its {end} end ({p[end]}): {lab} {dp:+.3f}")
        out += ["", f"The inputs that matter most ({s['trials']:,} paired trials per run): " + "; ".join(top) + "."]
    return out


def main() -> None:
    sec = ["### Measured odds", "",
           "Every device at the material pairs and the converged numerics. First the convergence runs",
           "(`tabletop converge DEVICE --trials 4000 --seed 1 --workers 2 --out docs/results/DEVICE-converge.json`;",
           "each refinement's largest |dp| and its chi-square p):", "",
           "| device | converged | largest \\|dp\\| per refinement | file |", "| --- | --- | --- | --- |"]
    sec += [converge_row(dev) for dev, _ in DEVICES]
    sec += ["", "The odds: each label's p with its 95% sampling interval and, beside it, its model band (the span",
            "of p over the estimate and its `--sensitivity` runs, every pair value and gesture range at either end",
            "of its range; the runs use the first trials' seeds, so the band also holds their sampling noise).",
            "`tabletop estimate DEVICE --trials 10000 --seed 1 --workers 2 --sensitivity --sensitivity-trials M --out ...`.", ""]
    missing = []
    for dev, title in DEVICES:
        d = load(f"{dev}-10k-seed1.json")
        if d is None or "model_band" not in d:
            missing.append(dev)
            continue
        sec += odds_table(dev, title, d) + [""]
    if missing:
        sec += [f"**Not yet re-published at the converged settings**: {', '.join(missing)}.", ""]
    print("\n".join(sec))


if __name__ == "__main__":
    main()
