"""`validate`: coins, cubes and cuboids thrown as published experiments threw them, and compared
(tabletop.sim.validate holds the cases and their rules; docs/validation.md what each means)."""
from __future__ import annotations

import contextlib
import time

import numpy as np

from tabletop.app import longrun
from tabletop.app.requests import ValidateRequest
from tabletop.app.results import ValidateResult
from tabletop.sim.validate import tally


def validate(request: ValidateRequest, reporter: longrun.Reporter | None = None) -> ValidateResult:
    """Every case run (fewer trials with `quick`), judged by its rule; the result shown, then --out
    written. Ctrl-C: longrun.Interrupted, nothing written."""
    from tabletop.gamekit.devices import default_spec, device_ref, make_device
    from tabletop.sim.batch import run_batch
    from tabletop.sim.validate import cases, run_case
    from tabletop.sim.world import engine_versions

    reporter = reporter or longrun.Reporter()
    longrun.check_outputs(out=request.out)
    spec = default_spec("throw")
    all_cases = cases()
    started = time.perf_counter()

    def labels_of(overrides):
        device = make_device("throw", spec, overrides)
        try:
            return device.labels
        finally:
            device.close()

    rows = []
    try:
        total = sum(c.trials[0] if request.quick else c.trials[1] for c in all_cases)
        with reporter.progress(total, "validate") as bar:
            def run(overrides, trials):
                return run_batch(device_ref("throw", spec, overrides), trials, request.seed, request.workers,
                                 progress=bar.advance)
            for case in all_cases:
                rows.append(run_case(case, run, request.quick, labels_of))
        calibration = None
        if request.calibrate:
            from tabletop.app.calibrate import local_pool

            with local_pool(request.workers) if request.workers > 1 else contextlib.nullcontext() as executor:
                calibration = calibrated_cases(request, spec, all_cases, rows, reporter, executor)
    except KeyboardInterrupt:
        raise longrun.Interrupted(None, 0, "cases", False, resumable=False) from None
    result = ValidateResult({"quick": request.quick, "seed": request.seed, "cases": rows,
                             "passed": sum(r["passed"] for r in rows), "tally": tally(rows),
                             **({"calibration": calibration} if calibration else {}),
                             "versions": engine_versions(), "elapsed_s": round(time.perf_counter() - started, 3)})
    return longrun.finish(result, request.out, None, None, None, reporter)


def _blocked_run(spec, case, pairs: dict, gesture: dict, rows: list[dict], trials: int, seed: int, workers: int,
                 progress, executor=None) -> list[dict]:
    """The case's trials 0..trials-1 with trial i given row i mod len(rows) of fitted values
    (`rows`: {name: value}): its material values pinned (the other values of those pairs drawn
    from their ranges), its gesture ranges shrunk to the row's values (a device per row)."""
    from tabletop.gamekit.devices import device_ref
    from tabletop.sim.batch import PairDraws, run_batch
    from tabletop.sim.calibrate import pinned_gesture

    out = []
    for b, row in enumerate(rows):
        todo = set(range(b, trials, len(rows)))
        if not todo:
            continue
        extra = pinned_gesture({gesture[n]: v for n, v in row.items() if n in gesture})
        pinned = tuple((n, float(v)) for n, v in row.items() if n not in gesture)
        used = tuple(p for p in pairs if any(n.startswith(f"materials.pairs.{p}.") for n, _ in pinned))
        out += run_batch(device_ref("throw", spec, case.overrides + extra), trials, seed, workers,
                         progress=progress, skip=set(range(trials)) - todo, executor=executor,
                         perturb=PairDraws(used, pinned) if used else None)
    out.sort(key=lambda r: r["index"])
    return out


def calibrated_cases(request: ValidateRequest, spec, all_cases, plain_rows, reporter, executor=None) -> dict:
    """`validate --calibrate`: one set of material and gesture values fitted jointly to the
    published tallies (the cases with counts: the Gazette's steel cuboids, a part each), by the
    method of `tabletop calibrate` (training trials with the values drawn, a surrogate per part,
    the posterior by emcee); then each case's verdict by its own rule from a run at the fitted
    values (its trials given posterior draws; a case that shares no fitted value is the plain run,
    named so); and the leave-one-out check: each fitted case's share predicted from the fit to the
    others, and the RMS of those errors."""
    from tabletop.app.calibrate import _JointModel, _Part, gesture_candidates, train
    from tabletop.gamekit.devices import make_device
    from tabletop.sim import calibrate as cal
    from tabletop.sim import sensitivity as sens
    from tabletop.sim.batch import summarize
    from tabletop.sim.devices.base import Status
    from tabletop.sim.validate import judge, share_of

    started = time.perf_counter()
    fit_cases = [c for c in all_cases if c.tallies]
    order = fit_cases + [c for c in all_cases if not c.tallies]      # fitted cases name the shared values
    ranges, parts, candidates = {}, {}, {}
    for i, case in enumerate(order):
        device = make_device("throw", spec, case.overrides)
        try:
            pairs = sens.contact_pairs(device, request.seed)
            params = sens.parameters(device, pairs, spec, case.overrides)
            own = {p.name: {"kind": "pair", "default": p.value, "low": p.low, "high": p.high, "source": p.source}
                   for p in params if p.kind == "pair"}
            gesture = gesture_candidates(case.key, params, ranges)
            own.update({n: {"kind": "gesture", "default": p.value, "low": p.low, "high": p.high,
                            "source": f"{p.source} [{key}] with {case.key}'s --set values"}
                        for n, (key, p) in gesture.items()})
            groups = tuple(g for g, _, _ in case.tallies)
            observed = {g: n for g, _, n in case.tallies} if case.tallies else None
            seed = int(np.random.SeedSequence([request.seed, 0x7A1D, i]).generate_state(1)[0])
            parts[case.key] = _Part(i, case.key, spec, case.overrides, None, groups, observed, pairs, own, seed,
                                    "throw", (), None, {n: key for n, (key, _) in gesture.items()})
            for n, c in own.items():
                candidates.setdefault(n, c)
        finally:
            device.close()
    fitted = [n for n in candidates if any(n in parts[c.key].candidates for c in fit_cases)]
    priors = [cal.Prior(n, candidates[n]["low"], candidates[n]["high"]) for n in fitted]
    # 1. training trials of each fitted case, and its surrogate of p(group | values)
    models, columns = [], []
    for case in fit_cases:
        part = parts[case.key]
        group_of = {k: j for j, (_, labels, _) in enumerate(case.tallies) for k in labels}
        with reporter.progress(request.calibrate_trials, f"{case.key} training") as bar:
            records = train(part, request.calibrate_trials, request.gesture_points, request.workers, [], None,
                            executor, bar.advance)
        labelled = [r for r in records if r["status"] == Status.OK and r["label"] in group_of]
        part.fitted = [n for n in fitted if n in part.candidates]
        theta = np.array([[r["drawn"][n] for n in part.fitted] for r in labelled])
        y = np.array([group_of[r["label"]] for r in labelled])
        lo = [candidates[n]["low"] for n in part.fitted]
        hi = [candidates[n]["high"] for n in part.fitted]
        models.append(cal.SplineSurrogate.fit(part.labels, lo, hi, theta, y, seed=part.seed))
        columns.append([fitted.index(n) for n in part.fitted])
        part.training = labelled
    training_s = time.perf_counter() - started
    counts = [np.array([n for _, _, n in c.tallies], dtype=float) for c in fit_cases]
    burn = request.steps // 4

    def posterior(keep: list[int], seed: int):
        model = _JointModel([models[i] for i in keep], [columns[i] for i in keep])
        with reporter.progress(request.steps, "posterior") as bar:
            draws, _, chains = cal.pooled_posterior([model], np.concatenate([counts[i] for i in keep]), priors, seed,
                                                    request.walkers, request.steps, burn, bar.advance)
        return draws, chains[0]

    def share(i: int, draws: np.ndarray) -> dict:
        p = models[i].predict(draws[:, columns[i]])[:, 0]
        return {"p": float(p.mean()), "ci95": [float(np.percentile(p, 2.5)), float(np.percentile(p, 97.5))]}

    draws, chain = posterior(list(range(len(fit_cases))), request.seed)
    # 2. leave one out: each fitted case's share from the fit to the others
    loo = []
    for i, case in enumerate(fit_cases):
        others = [j for j in range(len(fit_cases)) if j != i]
        left, _ = posterior(others, int(np.random.SeedSequence([request.seed, 0x100, i]).generate_state(1)[0]))
        published = counts[i][0] / counts[i].sum()
        pred = share(i, left)
        loo.append({"case": case.name, "key": case.key, "published": float(published), "predicted": pred["p"],
                    "ci95": pred["ci95"], "error": pred["p"] - float(published),
                    "inside": bool(pred["ci95"][0] <= published <= pred["ci95"][1]),
                    "fitted": share(i, draws)["p"]})
    rms = float(np.sqrt(np.mean([r["error"] ** 2 for r in loo])))
    # 3. each case at the fitted values, judged by its rule
    rng = np.random.default_rng(np.random.SeedSequence([request.seed, 0x9E5]))
    picks = draws[rng.choice(len(draws), min(request.posterior_points, len(draws)), replace=False)]
    rows = []
    total = sum(c.trials[0] if request.quick else c.trials[1] for c in all_cases
                if set(parts[c.key].candidates) & set(fitted))
    with reporter.progress(total, "validate at the fitted values") as bar:
        for case, plain in zip(all_cases, plain_rows):
            part = parts[case.key]
            names = [n for n in fitted if n in part.candidates]
            role = "fitted" if case.tallies else "prediction"
            if not names:
                rows.append({**plain, "role": role, "informed": False,
                             "note": "shares no fitted value: the plain run's verdict"})
                continue
            value_rows = [{n: float(row[fitted.index(n)]) for n in names} for row in picks]
            trials = case.trials[0] if request.quick else case.trials[1]
            records = _blocked_run(spec, case, part.pairs, part.gesture, value_rows, trials, request.seed,
                                   request.workers, bar.advance, executor)
            device = make_device("throw", spec, case.overrides)
            labels = device.labels
            device.close()
            summary = summarize(labels, records)
            row = {"case": case.name, "cite": case.cite, "source": case.source, "published": case.published,
                   **judge(case, summary), "trials": trials, "labelled": summary["labelled"],
                   "unsettled": summary["unsettled"], "counts": summary["counts"], "role": role, "informed": True,
                   "fitted_values": names}
            if case.tallies:
                row["share"] = share_of(case, summary)
            rows.append(row)
    params = []
    for j, n in enumerate(fitted):
        c = candidates[n]
        params.append({"name": n, "kind": c["kind"], "default": c["default"], "low": c["low"], "high": c["high"],
                       "source": c["source"], "prior": priors[j].as_dict(), "posterior": cal.summary(draws[:, j]),
                       "cases": [k.key for k in fit_cases if n in parts[k.key].candidates]})
    return {"fitted_cases": [c.name for c in fit_cases],
            "predictions": [c.name for c in all_cases if not c.tallies],
            "parameters": params, "cases": rows, "leave_one_out": loo, "loo_rms": rms,
            "tally": tally(rows),
            "settings": {"training_trials": request.calibrate_trials, "gesture_points": request.gesture_points,
                         "walkers": request.walkers, "steps": request.steps, "burn": burn,
                         "posterior_points": len(picks),
                         "surrogate": "multinomial logit on cubic B-splines (tabletop.sim.calibrate)"},
            "mcmc": {"acceptance": chain.acceptance, "autocorr_steps": chain.autocorr,
                     "effective_draws": chain.effective_size()},
            "training": {c.key: len(parts[c.key].training) for c in fit_cases},
            "elapsed_s": round(time.perf_counter() - started, 3), "training_s": round(training_s, 3)}


def calibration_lines(block: dict) -> list[str]:
    """`validate --calibrate`'s figures as lines of text: the fitted values with their 95%
    intervals, each case's verdict at them (fitted or prediction), the leave-one-out check."""
    from tabletop.sim.validate import verdict_text

    s = block["settings"]
    lines = [f"calibrated: one set of values fitted jointly to {len(block['fitted_cases'])} published tallies "
             f"({s['training_trials']} training trials per fitted case at {s['gesture_points']} gesture values, "
             f"{s['walkers']} walkers x {s['steps']} steps, about {block['mcmc']['effective_draws']:.0f} independent "
             f"draws; {block['elapsed_s']:.0f} s)"]
    for p in block["parameters"]:
        po = p["posterior"]
        default = (f"validate throws from [{p['default'][0]:.4g}, {p['default'][1]:.4g}]"
                   if isinstance(p["default"], list) else f"default {p['default']:.4g}")
        lines.append(f"  {p['name']}: {po['mean']:.4g} (95% {po['ci95'][0]:.4g} .. {po['ci95'][1]:.4g}); "
                     f"prior uniform [{p['low']:.4g}, {p['high']:.4g}]; {default}")
    lines.append("  each case at the fitted values (its trials spread over "
                 f"{s['posterior_points']} posterior draws), judged by its rule:")
    for n, r in enumerate(block["cases"], 1):
        role = "fitted" if r["role"] == "fitted" else "prediction"
        how = "" if r["informed"] else " (shares no fitted value: the plain run)"
        lines.append(f"  [{n}] {role:<10} {r['case']}: published {r['published']}, ours {r['ours']}: "
                     f"{verdict_text(r)}{how}")
    lines.append("  leave one out (each fitted case's share predicted from the fit to the others):")
    for r in block["leave_one_out"]:
        lines.append(f"    {r['key']}: published {r['published']:.3f}, predicted {r['predicted']:.3f} "
                     f"[{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}], error {r['error']:+.3f}"
                     f"{'' if r['inside'] else ' (outside the band)'}; with it in the fit {r['fitted']:.3f}")
    lines.append(f"    RMS of the prediction errors {block['loo_rms']:.3f}; at the fitted values: {block['tally']}")
    return lines
