"""Per-device checks of `tabletop calibrate` with physics (run from a checkout; minutes per device).

For each device:

1. **A whole calibration, timed.** A copy whose every uncertain material value is drawn once from
   its documented range (a world of fixed values, as a real copy is) gives `--tallies` outcomes by
   physics; `calibrate DEVICE --observed ... --plan` runs with its default settings (2000 training
   trials, 5 x 100 held-out trials, 8 bootstrap chains) and is timed. Reported: each fitted value's
   95% interval and whether it holds the copy's value, each label's band narrowing, the surrogate's
   held-out error, and what --plan advises.
2. **Recovery rate.** `--reps` more copies, each with its values drawn afresh from the ranges,
   `--tallies` outcomes each by physics; each is calibrated under the surrogate of step 1 (its
   posterior pooled over `--bootstrap` refits on step 1's training trials, which the calibration
   file keeps). Reported: how often each fitted value's 95% interval holds the copy's value (the
   stated rate is 95%; a copy's unfitted values differ from the average the surrogate was fitted
   over, so this checks that simplification too).

    python scripts/check_calibration.py --devices kong-knockover --reps 20 --json cal-checks.json

3. **Simulation-based calibration of one device** (`--sbc-device`, `--sbc-reps`): the device's
   surrogate from step 1 taken as the truth, `--sbc-reps` times a value drawn from the prior,
   `--tallies` outcomes drawn from its odds, the posterior sampled as calibrate samples it, and the
   value ranked among 99 posterior draws; uniform ranks per value (chi-square over 10 bins) say the
   posterior is calibrated for that device's model (Talts et al. 2018).
4. **What to measure first.** `--plan` before any tally (the prior's draws, step 1's surrogate):
   what the README's "Measure your own copy" is built from.

`--joint tipper,crater` adds one whole joint calibration of those devices (steps 1 and 4).
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from tabletop.app.calibrate import _plan, calibrate
from tabletop.app.longrun import Reporter
from tabletop.app.estimate import device_of
from tabletop.app.requests import CalibrateRequest, DeviceRun
from tabletop.gamekit.devices import device_ref
from tabletop.sim import calibrate as cal
from tabletop.sim import sensitivity as sens
from tabletop.sim.batch import PairDraws, run_batch
from tabletop.sim.devices.base import Status


def copy_values(device: str, rng: np.random.Generator) -> tuple[list[str], dict[str, float], dict[str, tuple]]:
    """A copy: every uncertain pair value of the device's world drawn once from its range."""
    spec, overrides, dev = device_of(DeviceRun(device=device))
    try:
        pairs = sens.contact_pairs(dev, 0)
        params = [p for p in sens.parameters(dev, pairs, spec, overrides) if p.kind == "pair"]
    finally:
        dev.close()
    return pairs, {p.name: float(rng.uniform(p.low, p.high)) for p in params}, {p.name: (p.low, p.high)
                                                                                   for p in params}


def tallies(device: str, pairs: list[str], values: dict[str, float], n: int, seed: int) -> dict[str, int]:
    """`n` outcomes of the copy with these values, by physics (unsettled and lodged trials not tallied)."""
    records = run_batch(device_ref(device, device_of(DeviceRun(device=device))[0]), n, seed, 1,
                        perturb=PairDraws(tuple(pairs), tuple(values.items())))
    out: dict[str, int] = {}
    for r in records:
        if r["status"] == Status.OK:
            out[r["label"]] = out.get(r["label"], 0) + 1
    return out


def write_csv(counts: dict[str, int], path: Path) -> Path:
    path.write_text("".join(f"{k},{v}\n" for k, v in counts.items()))
    return path


def whole(device: str, joint: list[str], n: int, seed: int, folder: Path) -> dict:
    """Step 1: one copy, its tallies, a whole calibration with --plan, timed."""
    rng = np.random.default_rng([seed, 1])
    pairs, values, _ = copy_values(device, rng)
    obs = {device: tallies(device, pairs, values, n, seed + 1000)}
    texts = []
    for other in joint:
        o_pairs, o_values, _ = copy_values(other, rng)
        o_values.update({k: v for k, v in values.items() if k in o_values})   # the same copy: shared pairs agree
        obs[other] = tallies(other, o_pairs, o_values, n, seed + 2000)
        texts.append(f"{other}={write_csv(obs[other], folder / f'{other}.csv')}")
        values.update(o_values)
    out = folder / f"{'+'.join([device] + joint)}.json"
    started = time.perf_counter()
    result = calibrate(CalibrateRequest(device=device, observed=write_csv(obs[device], folder / f"{device}.csv"),
                                        joint=tuple(texts), plan=True, seed=seed, out=out)).to_dict()
    elapsed = time.perf_counter() - started
    blocks = [result] + result["joint"]
    return {
        "devices": result["devices"], "tallies": obs, "elapsed_s": round(elapsed, 1),
        "timing_s": result["timing_s"],
        "parameters": [{"name": p["name"], "copy": values[p["name"]], "ci95": p["posterior"]["ci95"],
                        "holds": p["posterior"]["ci95"][0] <= values[p["name"]] <= p["posterior"]["ci95"][1],
                        "prior": [p["low"], p["high"]]} for p in result["parameters"]],
        "band_narrowing": {b["device"]: b["band_narrowing"] for b in blocks},
        "bands": {b["device"]: {k: {"prior": v["prior"]["ci95"], "calibrated": v["posterior"]["ci95"]}
                                for k, v in b["labels"].items()} for b in blocks},
        "holdout": {b["device"]: None if not b["holdout"] else
                    {k: b["holdout"][k] for k in ("max_abs_error", "rms_error", "rms_sampling", "p_value")}
                    for b in blocks},
        "plan": [{"what": o["what"], "mean_width": o["mean_width"], "narrowing": o["narrowing"]}
                 for o in result["plan"]["options"]],
        "mean_width_now": result["plan"]["mean_width_now"],
        "file": str(out),
    }


def first_plan(file: Path, budget: int, seed: int, bootstrap: int = 8) -> dict:
    """Step 3: --plan's advice before any tally, as `calibrate DEVICE --plan` without tallies gives
    it: 20,000 draws of the prior, their odds under `bootstrap` refits of step 1's surrogates (each
    device's, of a joint file; the draws dealt round them in turn), weighed as --plan weighs them."""
    data = json.loads(file.read_text())
    priors = [cal.Prior(p["name"], p["low"], p["high"]) for p in data["parameters"]]
    names = [p.name for p in priors]
    rng = np.random.default_rng([seed, 3])
    theta = np.column_stack([rng.uniform(p.low, p.high, 20_000) for p in priors])
    parts, probs = [], []
    for i, block in enumerate([data] + data.get("joint", [])):
        surrogate = cal.SplineSurrogate.from_dict(block["surrogate"])
        fitted = block["training"]["fitted"]
        x, y = np.asarray(fitted["theta"]), np.asarray(fitted["y"])
        models = [surrogate.resampled(x, y, int(s.generate_state(1)[0]))
                  for s in np.random.SeedSequence([seed, 0xB007, *([i] if i else [])]).spawn(bootstrap)]
        cols = [names.index(n) for n in fitted["names"]]
        parts.append(SimpleNamespace(name=block["device"], labels=list(surrogate.labels)))
        probs.append(np.vstack([m.predict(theta[j::len(models)][:, cols]) for j, m in enumerate(models)]))
    theta = np.vstack([theta[j::bootstrap] for j in range(bootstrap)])
    plan = _plan(SimpleNamespace(budget=budget, seed=seed), parts, names, theta, np.hstack(probs), Reporter())
    return {"mean_width_now": plan["mean_width_now"], "now": plan["now"],
            "options": [{"what": o["what"], "mean_width": o["mean_width"], "narrowing": o["narrowing"],
                         "expected_widths": o["expected_widths"]} for o in plan["options"]]}


def recovery(device: str, file: Path, reps: int, n: int, seed: int, bootstrap: int, stored: list | None = None) -> dict:
    """Step 2: `reps` fresh copies calibrated under step 1's surrogate and its bootstrap refits
    (`stored`: the copies and tallies of an earlier report of the same seed, which physics gives
    again bit for bit, taken instead of simulating them again)."""
    data = json.loads(file.read_text())
    fitted = data["training"]["fitted"]
    names = fitted["names"]
    theta, y = np.asarray(fitted["theta"]), np.asarray(fitted["y"])
    base = cal.SplineSurrogate.from_dict(data["surrogate"])
    models = [base.resampled(theta, y, int(s.generate_state(1)[0]))
              for s in np.random.SeedSequence([seed, 0xB007]).spawn(bootstrap)] or [base]
    priors = [cal.Prior(p["name"], p["low"], p["high"]) for p in data["parameters"]]
    labels = list(base.labels)
    rng = np.random.default_rng([seed, 2])
    rows = []
    for r in range(reps):
        pairs, values, _ = copy_values(device, rng)
        if stored is not None and r < len(stored) and all(
                np.isclose(stored[r]["copy"][k], values[k]) for k in names):
            counts = stored[r]["tallies"]
        else:
            counts = tallies(device, pairs, values, n, seed + 10_000 + r)
        draws, probs, _ = cal.pooled_posterior([m.predict for m in models], [counts.get(k, 0) for k in labels],
                                               priors, seed + r, walkers=32, steps=1200, burn=300)
        row = {"copy": {k: values[k] for k in names}, "tallies": counts}
        for j, name in enumerate(names):
            lo, hi = np.percentile(draws[:, j], [2.5, 97.5])
            row[name] = {"ci95": [float(lo), float(hi)], "holds": bool(lo <= values[name] <= hi)}
        rows.append(row)
        print(f"  {device} copy {r + 1}/{reps}: " + ", ".join(
            f"{name.removeprefix('materials.pairs.')} {values[name]:.4g} in [{row[name]['ci95'][0]:.4g}, "
            f"{row[name]['ci95'][1]:.4g}]: {'yes' if row[name]['holds'] else 'NO'}" for name in names), flush=True)
    rate = {name: sum(row[name]["holds"] for row in rows) / len(rows) for name in names}
    return {"reps": reps, "tallies": n, "bootstrap": bootstrap, "rate": rate, "copies": rows}


def device_sbc(file: Path, n: int, reps: int, seed: int) -> dict:
    """Step 3 under the calibration file's surrogate (fitted values only)."""
    data = json.loads(file.read_text())
    surrogate = cal.SplineSurrogate.from_dict(data["surrogate"])
    priors = [cal.Prior(p["name"], p["low"], p["high"]) for p in data["parameters"]]
    started = time.perf_counter()
    out = cal.sbc(surrogate.predict, priors, n_obs=n, reps=reps, seed=seed, walkers=32, steps=1200, burn=300)
    return {**out, "device": data["device"], "elapsed_s": round(time.perf_counter() - started, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--devices", default="kong-knockover,tipper,crater,sticks,die,spinner")
    ap.add_argument("--joint", action="append", default=[], metavar="A,B",
                    help="also one whole joint calibration of these devices")
    ap.add_argument("--tallies", type=int, default=300)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--bootstrap", type=int, default=4)
    ap.add_argument("--sbc-device", default="kong-knockover", help="the device of step 3 (none: '')")
    ap.add_argument("--sbc-reps", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--copies-from", type=Path, default=None, metavar="REPORT.json",
                    help="take step 2's copies' tallies from an earlier report of the same seed and tallies")
    ap.add_argument("--folder", type=Path, default=None, help="keep the tallies and calibration files here")
    ap.add_argument("--json", type=Path, required=True)
    args = ap.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="calchecks-"))
    folder.mkdir(parents=True, exist_ok=True)
    report = {"tallies": args.tallies, "seed": args.seed, "devices": {}, "joint": []}

    def save() -> None:
        tmp = args.json.with_suffix(".tmp")
        tmp.write_text(json.dumps(report, indent=1))
        tmp.replace(args.json)

    for device in [d for d in args.devices.split(",") if d]:
        print(f"{device}: a whole calibration", flush=True)
        got = whole(device, [], args.tallies, args.seed, folder)
        print(f"  {got['elapsed_s']} s; " + "; ".join(
            f"{p['name'].removeprefix('materials.pairs.')} {p['copy']:.4g} in [{p['ci95'][0]:.4g}, "
            f"{p['ci95'][1]:.4g}]" for p in got["parameters"]) + f"; best next: {got['plan'][0]['what']}",
            flush=True)
        report["devices"][device] = got
        got["first_plan"] = first_plan(Path(got["file"]), args.tallies, args.seed)
        print(f"  before any tally, best first: {got['first_plan']['options'][0]['what']}", flush=True)
        save()
        if device == args.sbc_device and args.sbc_reps:
            got["sbc"] = device_sbc(Path(got["file"]), args.tallies, args.sbc_reps, args.seed)
            print(f"  simulation-based calibration, {args.sbc_reps} reps: " + ", ".join(
                f"{p['name'].removeprefix('materials.pairs.')} p {p['p_value']:.3f}" for p in got["sbc"]["parameters"]),
                flush=True)
            save()
        if args.reps:
            stored = None
            if args.copies_from is not None:
                earlier = json.loads(args.copies_from.read_text())["devices"].get(device, {})
                stored = earlier.get("recovery", {}).get("copies")
            got["recovery"] = recovery(device, Path(got["file"]), args.reps, args.tallies, args.seed,
                                       args.bootstrap, stored)
            print(f"  recovery: {got['recovery']['rate']}", flush=True)
            save()
    for text in args.joint:
        first, *others = text.split(",")
        print(f"{text}: a whole joint calibration", flush=True)
        got = whole(first, others, args.tallies, args.seed, folder)
        got["first_plan"] = first_plan(Path(got["file"]), args.tallies, args.seed)
        report["joint"].append(got)
        save()
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
