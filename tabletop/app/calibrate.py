"""`calibrate`: a device's uncertain material values fitted to tallies from a real copy
(the method: tabletop.sim.calibrate).

The job: read and check the tallies (before any work); run `trials` training trials with every
material pair value of the device's world drawn per trial from its documented range, as
`estimate --uncertainty` draws them (the same batch machinery: seeds, workers or a Dask cluster,
the checkpoint beside --out, --resume, Ctrl-C keeping what was simulated); choose the parameters to
fit (`--fit`, every `--measured` one, else those whose draws go detectably with a label); fit the
surrogate of p(label | parameters); run `holdout_trials` fresh trials at each of `holdout_points`
held-out values of the fitted parameters (Latin hypercube over their ranges; the other values still
drawn) and compare; sample the posterior with emcee under the surrogate and under `bootstrap`
bootstrap refits of it (pooled: the surrogate's own uncertainty widens the posterior); report.

The calibration file (what --out writes; `load_calibration` reads it back) is JSON:

    format "tabletop-calibration", version 1
    device, spec, overrides, seed        the model calibrated (as an estimate result names it)
    observed {label: count}               the tallies
    parameters [ {name, default, low, high, prior {kind uniform|normal, low, high[, mean, sd]},
                  posterior {mean, sd, median, ci95}} ]           one per fitted parameter
    labels {label: {prior {p, ci95}, posterior {p, ci95}, observed}}
                                          p: the predictive probability; ci95: the band, the 95%
                                          interval of p(label | theta) over the prior / posterior
    posterior_draws {names, values}       up to 2000 draws of the fitted parameters (rows), spread
                                          through the pooled chains: what a consumer samples from
    marginalized [ {name, r} ]            the drawn parameters not fitted (averaged over their prior)
                                          and their largest |correlation| with a label
    surrogate {... coef ...}, holdout {...}, training {...}, mcmc {...}, elapsed_s, versions

How `estimate --calibration F` (and `play`/`analyze` through their estimate tables) is to take
it (not wired yet): per trial, draw one row of `posterior_draws.values` from the trial's draw
stream (tabletop.sim.batch.draw_rng) and `--set` those values, the other pair values left as the
spec has them; the run then estimates the posterior predictive odds of the calibrated copy.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tabletop.app import longrun
from tabletop.app.requests import CalibrateRequest
from tabletop.app.results import Result
from tabletop.sim.errors import InputError

if TYPE_CHECKING:
    from tabletop.sim.calibrate import PosteriorDraws

FORMAT = "tabletop-calibration"
VERSION = 1
KEPT_DRAWS = 2000


class CalibrateResult(Result):
    """A calibration: `to_dict()` is the calibration file --out writes."""

    @property
    def device(self) -> str:
        return self._data["device"]

    @property
    def parameters(self) -> dict[str, dict]:
        """Each fitted parameter's prior and posterior, by name."""
        return {p["name"]: p for p in self._data["parameters"]}

    @property
    def bands(self) -> dict[str, dict]:
        """Each label's prior and posterior predictive p and band."""
        return self._data["labels"]


def _holdout_seed(seed: int, point: int) -> int:
    """The seed of held-out point `point`'s trials: apart from the training trials' seed."""
    return int(np.random.SeedSequence([seed, 0xCA1B, point]).generate_state(1)[0])


def _measured(request: CalibrateRequest, candidates: dict) -> dict[str, tuple[float, float]]:
    """The --measured values (name -> (value, sd)), and --fit's names, checked against the
    device's uncertain values."""
    from tabletop.sim.calibrate import parse_measured

    measured = {}
    for text in request.measured:
        name, value, sd = parse_measured(text)
        if name not in candidates:
            raise InputError(f"--measured {name}: not an uncertain value of this device's world; it has "
                             f"{', '.join(candidates)}")
        lo, hi = candidates[name]["low"], candidates[name]["high"]
        if not lo <= value <= hi:
            raise InputError(f"--measured {name}: {value} is outside the documented range [{lo}, {hi}] the "
                             f"simulations cover")
        measured[name] = (value, sd)
    for name in request.fit:
        if name not in candidates:
            raise InputError(f"--fit {name}: not an uncertain value of this device's world; it has "
                             f"{', '.join(candidates)}")
    return measured


def calibrate(request: CalibrateRequest, reporter: longrun.Reporter | None = None) -> CalibrateResult:
    """Run the request and return its result (`to_dict()`: the calibration file). Bad input is an
    InputError before any work (a tallied label no simulated trial reached: after the training
    trials, which the checkpoint keeps); Ctrl-C a longrun.Interrupted once the checkpoint is kept."""
    import contextlib

    from tabletop.app.estimate import device_of, provenance
    from tabletop.games.devices import device_ref, entry
    from tabletop.sim import calibrate as cal
    from tabletop.sim import sensitivity as sens
    from tabletop.sim.batch import PairDraws, run_batch
    from tabletop.sim.devices.base import Status
    from tabletop.sim.world import engine_versions

    reporter = reporter or longrun.Reporter()
    entry(request.device)
    longrun.check_outputs(out=request.out, plot=request.plot)
    spec, overrides, device = device_of(request)
    stack = contextlib.ExitStack()
    stack.callback(device.close)
    try:
        labels = tuple(device.labels)
        observed = cal.read_tallies(request.observed, labels, request.device)
        pairs = sens.contact_pairs(device, request.seed)
        params = [p for p in sens.parameters(device, pairs, spec, overrides) if p.kind == "pair"]
        candidates = {p.name: {"default": p.value, "low": p.low, "high": p.high, "source": p.source} for p in params}
        names = list(candidates)
        measured = _measured(request, candidates)
        executor = stack.enter_context(longrun.executor(request.scheduler))
        header = {"device": request.device, "seed": request.seed, "job": "calibrate", "trials": request.trials,
                  "params": _digest(device.params())}
        checkpoint = longrun.open_checkpoint(request.out, header, request.resume,
                                             created={"pairs": pairs})
    except BaseException:
        stack.close()
        raise
    ref = device_ref(request.device, spec, overrides)
    kept = list(checkpoint.records) if checkpoint else []
    started = time.perf_counter()
    try:
        with stack:
            # 1. training trials, every pair value drawn per trial
            done = [r for r in kept if "holdout" not in r]
            if done:
                reporter.note(f"resuming: {len(done)} training trials already in {checkpoint.path}")
            with reporter.progress(request.trials, f"{request.device} training") as bar:
                bar.advance(len(done))
                training = done + run_batch(ref, request.trials, request.seed, request.workers,
                                            device=device if request.workers == 1 else None, progress=bar.advance,
                                            skip={r["index"] for r in done},
                                            on_chunk=checkpoint.append if checkpoint else None, executor=executor,
                                            perturb=PairDraws(tuple(pairs)))
            training.sort(key=lambda r: r["index"])
            timing = {"training_s": time.perf_counter() - started}
            labelled = [r for r in training if r["status"] == Status.OK]
            if not labelled:
                raise InputError(f"none of the {len(training)} training trials gave a label; see `tabletop estimate "
                                 f"{request.device}`")
            y = np.array([labels.index(r["label"]) for r in labelled])
            reached = np.bincount(y, minlength=len(labels))
            never = [k for i, k in enumerate(labels) if observed[k] > 0 and reached[i] == 0]
            if never:
                raise InputError(f"--observed {request.observed}: {', '.join(never)} tallied, but none of the "
                                 f"{len(labelled)} simulated trials across the documented ranges gave "
                                 f"{'it' if len(never) == 1 else 'them'}: the model never reaches "
                                 f"{'that label' if len(never) == 1 else 'those labels'}")
            x_all = np.array([[r["drawn"][n] for n in names] for r in labelled])
            # 2. which parameters to fit, and the surrogate
            fitted = list(request.fit) or cal.select_parameters(names, x_all, y, len(labels))
            fitted += [n for n in measured if n not in fitted]
            idx = [names.index(n) for n in fitted]
            r_all, _ = cal.influence(x_all, y, len(labels))
            low = [candidates[n]["low"] for n in fitted]
            high = [candidates[n]["high"] for n in fitted]
            theta = x_all[:, idx]
            reporter.note(f"fitting {', '.join(fitted)} to {sum(observed.values())} tallies "
                          f"({len(labelled)} labelled training trials)")
            surrogate = cal.SplineSurrogate.fit(labels, low, high, theta, y, seed=request.seed)
            # 3. the surrogate against fresh trials at held-out values
            holdout = None
            if request.holdout_points:
                holdout = _holdout(request, ref, pairs, fitted, low, high, surrogate, labels, kept, checkpoint,
                                   device, executor, reporter)
            timing["surrogate_and_holdout_s"] = time.perf_counter() - started - timing["training_s"]
            # 4. the posterior, pooled over bootstrap refits of the surrogate
            priors = [cal.Prior(n, candidates[n]["low"], candidates[n]["high"], *measured.get(n, (None, None)))
                      for n in fitted]
            models = ([surrogate] if request.bootstrap == 0 else
                      [surrogate.resampled(theta, y, int(s.generate_state(1)[0]))
                       for s in np.random.SeedSequence([request.seed, 0xB007]).spawn(request.bootstrap)])
            counts = np.array([observed[k] for k in labels])
            burn = request.steps // 4
            with reporter.progress(len(models) * request.steps, f"{request.device} posterior") as bar:
                draws, probs, chains = cal.pooled_posterior(models, counts, priors, request.seed, request.walkers,
                                                            request.steps, burn, bar.advance)
    except KeyboardInterrupt:
        raise longrun.interrupted(checkpoint, "trials", request.resume) from None
    rng = np.random.default_rng(np.random.SeedSequence([request.seed, 0x9A10]))
    prior_draws = np.column_stack([p.sample(rng, 4000) for p in priors])
    prior_probs = np.vstack([m.predict(prior_draws[i::len(models)]) for i, m in enumerate(models)])
    prior_band, post_band = cal.label_bands(labels, prior_probs), cal.label_bands(labels, probs)
    total = sum(observed.values())
    keep = np.linspace(0, len(draws) - 1, min(KEPT_DRAWS, len(draws))).astype(int)
    ess = sum(c.effective_size() for c in chains)
    mcmc = {"sampler": "emcee EnsembleSampler (stretch move)", "chains": len(chains), "walkers": chains[0].walkers,
            "steps": request.steps, "burn": burn, "acceptance": [c.acceptance for c in chains],
            "autocorr_steps": [c.autocorr for c in chains], "effective_draws": ess, "draws": int(len(draws)),
            "bootstrap": request.bootstrap}
    if ess < 1000:
        reporter.warn(f"the chains hold about {ess:.0f} independent draws (under 1000: the 95% intervals are rough); "
                      f"give more --steps")
    result = {
        "format": FORMAT, "version": VERSION,
        "device": request.device,
        "seed": request.seed,
        "workers": request.workers,
        "observed": observed,
        "parameters": [{"name": n, "default": candidates[n]["default"], "low": candidates[n]["low"],
                        "high": candidates[n]["high"], "source": candidates[n]["source"],
                        "prior": pr.as_dict(), "posterior": cal.summary(draws[:, j])}
                       for j, (n, pr) in enumerate(zip(fitted, priors))],
        "labels": {k: {"prior": prior_band[k], "posterior": post_band[k], "observed": observed[k] / total}
                   for k in labels},
        "band_narrowing": {k: _ratio(prior_band[k]["ci95"], post_band[k]["ci95"]) for k in labels},
        "posterior_draws": {"names": fitted, "values": draws[keep].tolist()},
        "marginalized": [{"name": n, "r": float(r_all[j])} for j, n in enumerate(names) if n not in fitted],
        "surrogate": {**surrogate.as_dict(), "cv_log_loss": getattr(surrogate, "cv", None)},
        "holdout": holdout,
        "training": {"trials": len(training), "labelled": len(labelled),
                     "counts": {k: int(reached[i]) for i, k in enumerate(labels)},
                     "draw": sens.DRAW, "pairs": pairs},
        "mcmc": mcmc,
        **provenance(spec, overrides, device.params()),
        "versions": engine_versions(),
        "elapsed_s": round(time.perf_counter() - started, 3),
        "timing_s": {**{k: round(v, 3) for k, v in timing.items()},
                     "posterior_s": round(time.perf_counter() - started - sum(timing.values()), 3)},
    }
    out = CalibrateResult(result)
    return longrun.finish(out, request.out, request.plot, lambda: cal.plot_calibration(result, request.plot),
                          checkpoint, reporter)


def _digest(params: dict) -> str:
    from tabletop.sim.spec import digest

    return digest(params)


def _ratio(prior: list[float], posterior: list[float]) -> float | None:
    """How many times narrower the posterior band is than the prior band."""
    width = posterior[1] - posterior[0]
    return (prior[1] - prior[0]) / width if width > 0 else None


def _holdout(request, ref, pairs, fitted, low, high, surrogate, labels, kept, checkpoint, device, executor,
             reporter) -> dict:
    """Fresh trials at held-out values of the fitted parameters (a Latin hypercube over their
    ranges), the others drawn per trial; the surrogate's predictions against them."""
    from scipy.stats import qmc

    from tabletop.sim import calibrate as cal
    from tabletop.sim.batch import PairDraws, run_batch
    from tabletop.sim.devices.base import Status

    unit = qmc.LatinHypercube(d=len(fitted), seed=np.random.default_rng([request.seed, 0x401D])).random(
        request.holdout_points)
    points = np.asarray(low) + unit * (np.asarray(high) - np.asarray(low))
    counts = np.zeros((len(points), len(labels)))
    with reporter.progress(len(points) * request.holdout_trials, f"{request.device} held-out check") as bar:
        for j, point in enumerate(points):
            pinned = tuple((n, float(v)) for n, v in zip(fitted, point))
            done = [r for r in kept if r.get("holdout") == j and r.get("pinned") == [list(p) for p in pinned]]
            bar.advance(len(done))

            def mark(part, j=j, pinned=pinned):
                for r in part:
                    r["holdout"], r["pinned"] = j, [list(p) for p in pinned]
                if checkpoint is not None:
                    checkpoint.append(part)

            records = done + run_batch(ref, request.holdout_trials, _holdout_seed(request.seed, j), request.workers,
                                       device=device if request.workers == 1 else None, progress=bar.advance,
                                       skip={r["index"] for r in done}, on_chunk=mark, executor=executor,
                                       perturb=PairDraws(tuple(pairs), pinned))
            for r in records:
                if r["status"] == Status.OK:
                    counts[j, labels.index(r["label"])] += 1
    check = cal.holdout_check(surrogate.predict, labels, points, counts)
    check["names"] = list(fitted)
    reporter.note(f"surrogate vs {int(counts.sum())} held-out trials: largest |error| {check['max_abs_error']:.3f}, "
                  f"RMS {check['rms_error']:.3f} (sampling alone {check['rms_sampling']:.3f}), "
                  f"chi-square p {check['p_value']:.3f}")
    return check


def load_calibration(path: str | Path) -> dict:
    """A calibration file, checked: its format, version and the fields a consumer draws from."""
    import json

    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise InputError(f"--calibration {path}: no such file") from None
    except (OSError, ValueError, UnicodeDecodeError):
        raise InputError(f"--calibration {path}: not a calibration file (not JSON)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"--calibration {path}: not a calibration file")
    if data.get("version") != VERSION:
        raise InputError(f"--calibration {path}: calibration version {data.get('version')}, this build reads {VERSION}")
    draws = data.get("posterior_draws")
    if (not isinstance(draws, dict) or not draws.get("values")
            or any(len(row) != len(draws.get("names", ())) for row in draws["values"])):
        raise InputError(f"--calibration {path}: its posterior draws are missing or malformed")
    return data


def calibrated_draws(path: str | Path, pairs) -> PosteriorDraws:
    """The per-trial perturbation a run of the calibrated copy takes (tabletop.sim.calibrate.
    PosteriorDraws): each trial one row of the file's posterior draws, the other values of
    `pairs` drawn from their ranges. A file whose parameters are not values of `pairs` is refused."""
    from tabletop.sim.batch import pair_parameter
    from tabletop.sim.calibrate import PosteriorDraws
    from tabletop.sim.materials import PAIR_FIELDS

    data = load_calibration(path)
    names = tuple(data["posterior_draws"]["names"])
    known = {pair_parameter(p, f) for p in pairs for f in PAIR_FIELDS}
    missing = [n for n in names if n not in known]
    if missing:
        raise InputError(f"--calibration {path}: {', '.join(missing)} is not a value of this device's world "
                         f"(the file calibrates {data.get('device')})")
    return PosteriorDraws(tuple(pairs), names, tuple(tuple(float(v) for v in row)
                                                     for row in data["posterior_draws"]["values"]))


def describe(result: CalibrateResult) -> list[str]:
    """The calibration as lines of text (what the command prints)."""
    d = result.to_dict()
    total = sum(d["observed"].values())
    lines = [f"{d['device']}: calibrated to {total} tallies ({d['training']['labelled']} training trials, "
             f"{d['mcmc']['chains']} chain(s) x {d['mcmc']['walkers']} walkers x {d['mcmc']['steps']} steps)"]
    for p in d["parameters"]:
        pr, po = p["prior"], p["posterior"]
        prior = (f"uniform [{pr['low']:.4g}, {pr['high']:.4g}]" if pr["kind"] == "uniform"
                 else f"normal {pr['mean']:.4g} +- {pr['sd']:.4g} in [{pr['low']:.4g}, {pr['high']:.4g}]")
        lines.append(f"  {p['name']}: posterior {po['mean']:.4g} (95% {po['ci95'][0]:.4g} .. {po['ci95'][1]:.4g}); "
                     f"prior {prior}; default {p['default']:.4g}")
    lines.append(f"  {'label':<12} {'observed':>9}  {'prior p [band]':<24} {'calibrated p [band]':<24} narrower")
    for k, b in d["labels"].items():
        pr, po = b["prior"], b["posterior"]
        ratio = d["band_narrowing"][k]
        lines.append(f"  {k:<12} {b['observed']:>9.3f}  {pr['p']:.3f} [{pr['ci95'][0]:.3f}, {pr['ci95'][1]:.3f}]"
                     f"{'':<4} {po['p']:.3f} [{po['ci95'][0]:.3f}, {po['ci95'][1]:.3f}]{'':<4} "
                     f"{'-' if ratio is None else f'{ratio:.1f}x'}")
    h = d.get("holdout")
    if h:
        lines.append(f"  surrogate vs held-out trials: largest |error| {h['max_abs_error']:.3f}, "
                     f"RMS {h['rms_error']:.3f} "
                     f"(sampling alone {h['rms_sampling']:.3f}), chi-square p {h['p_value']:.3f}")
    lines.append(f"  elapsed {d['elapsed_s']:.1f} s")
    return lines
