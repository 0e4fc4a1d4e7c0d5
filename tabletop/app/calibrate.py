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

The calibration file (what --out writes; tabletop.gamekit.chance reads it back, for every consumer:
`load_calibration`, `calibration_tables`, `calibration_draws`) is JSON:

    format "tabletop-calibration", version 1
    device, spec, overrides, seed        the model calibrated (as an estimate result names it)
    observed {label: count}               the tallies
    parameters [ {name, default, low, high, prior {kind uniform|normal, low, high[, mean, sd]},
                  posterior {mean, sd, median, ci95}} ]           one per fitted parameter
    predictive {device: {label: {p, ci95}}} the calibrated copy's odds and bands per device it
                                          calibrates (what play and analyze --calibration take)
    labels {label: {prior {p, ci95}, posterior {p, ci95}, observed}}
                                          p: the predictive probability; ci95: the band, the 95%
                                          interval of p(label | theta) over the prior / posterior
    posterior_draws {names, values}       up to 2000 draws of the fitted parameters (rows), spread
                                          through the pooled chains: what a consumer samples from
    marginalized [ {name, r} ]            the drawn parameters not fitted (averaged over their prior)
                                          and their largest |correlation| with a label
    surrogate {... coef ...}, holdout {...}, mcmc {...}, elapsed_s, versions
    training {trials, labelled, counts, pairs, seed, fitted {names, theta, y}}
                                          the training trials; `fitted` their values of the fitted
                                          parameters and labels (label index), to refit the surrogate
    devices [names], joint [ {device, observed, labels, band_narrowing, surrogate, holdout, training,
                              ...} ]     with --joint: the other devices' blocks, as the top level's
    plan {budget, now, options [ {kind, what, how, expected_widths, mean_width, narrowing} ]}
                                          with --plan: the measurements weighed, best first

Who takes the file (tabletop.app.calibrated): `estimate --calibration F` gives each trial one row
of `posterior_draws.values` from the trial's draw stream (tabletop.sim.batch.draw_rng), the other
pair values drawn from their ranges, so it estimates the calibrated copy's posterior predictive
odds; `play --headless` and `analyze` with table chance take `predictive` in place of the tables
of the devices it calibrates (tabletop.gamekit.chance).
"""
from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tabletop.app import longrun
from tabletop.app.requests import CalibrateRequest
from tabletop.app.results import Result
from tabletop.gamekit.chance import CALIBRATION_FORMAT, CALIBRATION_VERSION
from tabletop.sim.errors import InputError

KEPT_DRAWS = 2000
PLAN_DRAWS = 20000   # draws a plan reweights
PLAN_SIMS = 200      # simulated results a plan averages each measurement's bands over


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


def _holdout_seed(seed: int, point: int, part: int = 0) -> int:
    """The seed of held-out point `point`'s trials (of part `part`): apart from the training trials' seed."""
    return int(np.random.SeedSequence([seed, 0xCA1B, point, *([part] if part else [])]).generate_state(1)[0])


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


@dataclass
class _Part:
    """One part of a calibration: a device, or one configuration of it (its own --set values: a
    shape, a throw). The first is the device named; `--joint` adds the others. Its model, its
    tallies (None: none yet, for a plan) and, once run, its training and surrogate. `name` is the
    part's name as given (`throw[shape.size=...]`), `device` the device's registry name."""

    index: int
    name: str
    spec: Path
    overrides: tuple
    device: object
    labels: tuple[str, ...]
    observed: dict[str, int] | None
    pairs: list[str]
    candidates: dict[str, dict]
    seed: int
    device_name: str = ""
    sets: tuple[str, ...] = ()
    path: Path | None = None
    gesture: dict[str, str] = field(default_factory=dict)   # fitted name -> the spec key of its range
    training: list = field(default_factory=list)
    fitted: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return list(self.candidates)

    def pinned(self, values: dict[str, float]) -> tuple[tuple[tuple[str, float], ...], tuple]:
        """Values of this part's parameters split into pinned pair values (for PairDraws) and
        --set overrides pinning its gesture ranges."""
        from tabletop.sim.calibrate import pinned_gesture

        pairs = tuple((n, float(v)) for n, v in values.items() if n not in self.gesture)
        gest = pinned_gesture({self.gesture[n]: v for n, v in values.items() if n in self.gesture})
        return pairs, gest


def _part_seed(seed: int, index: int) -> int:
    """The training trials' seed of part `index` (the named device's is the run's seed)."""
    return seed if index == 0 else int(np.random.SeedSequence([seed, 0x1017, index]).generate_state(1)[0])


def _joint_texts(request: CalibrateRequest) -> list[tuple[str, tuple[str, ...], Path | None, str]]:
    """--joint DEVICE[=FILE] or DEVICE[NAME=VALUE,...][=FILE]: the other devices, or other
    configurations of one, and their tallies (None: none yet; only with --plan)."""
    from tabletop.sim.calibrate import parse_configuration

    out = []
    for text in request.joint:
        device, sets, path, name = parse_configuration(text)
        if path is None and not request.plan:
            raise InputError(f"--joint {text}: give the tallies as DEVICE=FILE or DEVICE[NAME=VALUE,...]=FILE (a "
                             f"part without tallies only with --plan)")
        if name == request.device or name in [n for *_, n in out]:
            raise InputError(f"--joint {text}: {name} is already in the calibration")
        out.append((device, sets, Path(path) if path else None, name))
    return out


def gesture_candidates(part_name: str, params, ranges: dict[str, tuple[float, float]]) -> dict[str, tuple]:
    """The gesture ranges of a part that a calibration may fit (width > 0), by fitted name: the
    spec key where every part declaring it has the same range (one person's throw, shared), else
    KEY@PART (this part's own throw). `ranges` keeps the first range seen of each key."""
    out = {}
    for p in params:
        if p.kind != "gesture" or not p.high > p.low:
            continue
        first = ranges.setdefault(p.name, (p.low, p.high))
        out[p.name if first == (p.low, p.high) else f"{p.name}@{part_name}"] = (p.name, p)
    return out


def _parts(request: CalibrateRequest, stack) -> list[_Part]:
    """Every part of the calibration built, its tallies read and checked (before any work)."""
    from tabletop.app.estimate import device_of
    from tabletop.app.requests import DeviceRun
    from tabletop.gamekit.devices import entry
    from tabletop.sim import calibrate as cal
    from tabletop.sim import sensitivity as sens

    wanted = [(request.device, (), request.observed, request.spec, request.device)]
    wanted += [(device, sets, path, None, name) for device, sets, path, name in _joint_texts(request)]
    parts, ranges = [], {}
    for i, (device_name, sets, path, spec, name) in enumerate(wanted):
        entry(device_name)
        run = DeviceRun(device=device_name, seed=request.seed, spec=spec, overrides=request.overrides + sets)
        spec, overrides, device = device_of(run)
        stack.callback(device.close)
        labels = tuple(device.labels)
        observed = cal.read_tallies(path, labels, device_name) if path is not None else None
        pairs = sens.contact_pairs(device, request.seed)
        params = sens.parameters(device, pairs, spec, overrides)
        candidates = {p.name: {"kind": "pair", "default": p.value, "low": p.low, "high": p.high, "source": p.source}
                      for p in params if p.kind == "pair"}
        with_gesture = request.gesture or any(not n.startswith("materials.") for n in request.fit)
        gesture = gesture_candidates(name, params, ranges) if with_gesture else {}
        if request.fit:     # only the gesture values named are thrown at fixed values; the rest drawn per throw
            gesture = {n: g for n, g in gesture.items() if n in request.fit}
        candidates.update({n: {"kind": "gesture", "default": p.value, "low": p.low, "high": p.high,
                               "source": f"{p.source} [{key}]"} for n, (key, p) in gesture.items()})
        parts.append(_Part(i, name, spec, overrides, device, labels, observed, pairs, candidates,
                           _part_seed(request.seed, i), device_name, tuple(sets), path,
                           {n: key for n, (key, _) in gesture.items()}))
    for p in parts[1:]:
        if not set(p.candidates) & set(parts[0].candidates):
            raise InputError(f"--joint {p.name}: it shares no material pair or gesture with {request.device} "
                             f"({', '.join(parts[0].pairs)} against {', '.join(p.pairs)}); calibrate it alone")
    return parts


class _JointModel:
    """p(label | theta) of every part's labels side by side: each part's surrogate on its columns."""

    def __init__(self, models, columns):
        self.models, self.columns = models, columns

    def __call__(self, theta: np.ndarray) -> np.ndarray:
        return np.hstack([m.predict(theta[:, cols]) for m, cols in zip(self.models, self.columns)])


def calibrate(request: CalibrateRequest, reporter: longrun.Reporter | None = None) -> CalibrateResult:
    """Run the request and return its result (`to_dict()`: the calibration file). Bad input is an
    InputError before any work (a tallied label no simulated trial reached: after the training
    trials, which the checkpoint keeps); Ctrl-C a longrun.Interrupted once the checkpoint is kept."""
    from tabletop.app.estimate import provenance
    from tabletop.gamekit.devices import device_ref
    from tabletop.sim import calibrate as cal
    from tabletop.sim import sensitivity as sens
    from tabletop.sim.batch import PairDraws, run_batch
    from tabletop.sim.devices.base import Status
    from tabletop.sim.world import engine_versions

    reporter = reporter or longrun.Reporter()
    longrun.check_outputs(out=request.out, plot=request.plot)
    stack = contextlib.ExitStack()
    try:
        parts = _parts(request, stack)
        candidates = {}
        for part in parts:
            candidates.update({n: c for n, c in part.candidates.items() if n not in candidates})
        measured = _measured(request, candidates)
        executor = stack.enter_context(longrun.executor(request.scheduler))
        if executor is None and request.workers > 1 and any(p.gesture for p in parts):
            executor = stack.enter_context(local_pool(request.workers))     # one pool for every gesture block
        header = {"device": request.device, "seed": request.seed, "job": "calibrate", "trials": request.trials,
                  "params": _digest(parts[0].device.params())}
        if len(parts) > 1:
            header["joint"] = {p.name: _digest(p.device.params()) for p in parts[1:]}
        if any(p.gesture for p in parts):     # the blocks' gesture values depend on these
            header["gesture"] = {"points": request.gesture_points, "names": {p.name: sorted(p.gesture) for p in parts}}
        checkpoint = longrun.open_checkpoint(request.out, header, request.resume,
                                             created={"pairs": parts[0].pairs})
    except BaseException:
        stack.close()
        raise
    kept = list(checkpoint.records) if checkpoint else []
    started = time.perf_counter()
    tallied = [p for p in parts if p.observed is not None]
    try:
        with stack:
            # 1. training trials of each part, every pair value drawn per trial, the gesture per block
            for part in parts:
                done = [r for r in kept if "holdout" not in r and r.get("part", 0) == part.index]
                if done:
                    reporter.note(f"resuming: {len(done)} {part.name} training trials already in {checkpoint.path}")
                with reporter.progress(request.trials, f"{part.name} training") as bar:
                    bar.advance(len(done))
                    part.training = done + train(part, request.trials, request.gesture_points, request.workers,
                                                 done, checkpoint, executor, bar.advance)
                part.training.sort(key=lambda r: r["index"])
            timing = {"training_s": time.perf_counter() - started}
            for part in parts:
                labelled = [r for r in part.training if r["status"] == Status.OK]
                if not labelled:
                    raise InputError(f"none of the {len(part.training)} {part.name} training trials gave a label; "
                                     f"see `tabletop estimate {part.name}`")
                part.y = np.array([part.labels.index(r["label"]) for r in labelled])
                part.reached = np.bincount(part.y, minlength=len(part.labels))
                never = [k for i, k in enumerate(part.labels)
                         if part.observed and part.observed[k] > 0 and part.reached[i] == 0]
                if never:
                    what = part.path
                    raise InputError(f"--observed {what}: {', '.join(never)} tallied, but none of the "
                                     f"{len(labelled)} simulated trials across the documented ranges gave "
                                     f"{'it' if len(never) == 1 else 'them'}: the model never reaches "
                                     f"{'that label' if len(never) == 1 else 'those labels'}")
                part.x = np.array([[r["drawn"][n] for n in part.names] for r in labelled])
                part.r, _ = cal.influence(part.x, part.y, len(part.labels))
            # 2. which parameters to fit, and each device's surrogate
            fitted = list(request.fit)
            if not fitted:
                for part in parts:
                    fitted += [n for n in cal.select_parameters(part.names, part.x, part.y, len(part.labels))
                               if n not in fitted]
            fitted += [n for n in measured if n not in fitted]
            for part in parts:
                part.fitted = [n for n in fitted if n in part.candidates]
                if not part.fitted:
                    raise InputError(f"{part.name}: none of its material values goes detectably with its labels; "
                                     f"name one with --fit")
                part.low = [candidates[n]["low"] for n in part.fitted]
                part.high = [candidates[n]["high"] for n in part.fitted]
                part.theta = part.x[:, [part.names.index(n) for n in part.fitted]]
                reporter.note(f"{part.name}: fitting {', '.join(part.fitted)} "
                              f"({len(part.y)} labelled training trials)")
                part.surrogate = cal.SplineSurrogate.fit(part.labels, part.low, part.high, part.theta, part.y,
                                                         seed=part.seed)
            # 3. each surrogate against fresh trials at held-out values
            for part in parts:
                part.holdout = (_holdout(request, part, kept, checkpoint, executor, reporter)
                                if request.holdout_points else None)
            timing["surrogate_and_holdout_s"] = time.perf_counter() - started - timing["training_s"]
            # 4. the posterior, pooled over bootstrap refits of the surrogates
            priors = [cal.Prior(n, candidates[n]["low"], candidates[n]["high"], *measured.get(n, (None, None)))
                      for n in fitted]
            columns = [[fitted.index(n) for n in part.fitted] for part in parts]
            if request.bootstrap == 0:
                models = [_JointModel([p.surrogate for p in parts], columns)]
            else:
                refits = [[p.surrogate.resampled(p.theta, p.y, int(s.generate_state(1)[0]))
                           for s in np.random.SeedSequence([request.seed, 0xB007, *([p.index] if p.index else [])])
                           .spawn(request.bootstrap)] for p in parts]
                models = [_JointModel(list(row), columns) for row in zip(*refits)]
            counts = np.concatenate([[p.observed[k] if p.observed else 0 for k in p.labels] for p in parts])
            burn = request.steps // 4
            if tallied:
                with reporter.progress(len(models) * request.steps, f"{request.device} posterior") as bar:
                    draws, probs, chains = cal.pooled_posterior(models, counts, priors, request.seed,
                                                                request.walkers, request.steps, burn, bar.advance)
            else:   # a plan before any tally: the state of knowledge is the prior
                rng = np.random.default_rng(np.random.SeedSequence([request.seed, 0x9A11]))
                draws = np.column_stack([p.sample(rng, PLAN_DRAWS) for p in priors])
                probs = np.vstack([m(draws[i::len(models)]) for i, m in enumerate(models)])
                draws = np.vstack([draws[i::len(models)] for i in range(len(models))])
                chains = []
            plan = _plan(request, parts, fitted, draws, probs, reporter) if request.plan else None
    except KeyboardInterrupt:
        raise longrun.interrupted(checkpoint, "trials", request.resume) from None
    rng = np.random.default_rng(np.random.SeedSequence([request.seed, 0x9A10]))
    prior_draws = np.column_stack([p.sample(rng, 4000) for p in priors])
    prior_probs = np.vstack([m(prior_draws[i::len(models)]) for i, m in enumerate(models)])
    offsets = np.cumsum([0] + [len(p.labels) for p in parts])
    blocks = []
    for part, a, b in zip(parts, offsets[:-1], offsets[1:]):
        prior_band = cal.label_bands(part.labels, prior_probs[:, a:b])
        post_band = cal.label_bands(part.labels, probs[:, a:b])
        total = sum(part.observed.values()) if part.observed else 0
        blocks.append({
            "device": part.device_name,
            "part": part.name,
            "sets": list(part.sets),
            "observed": part.observed,
            "labels": {k: {"prior": prior_band[k], "posterior": post_band[k],
                           "observed": part.observed[k] / total if total else None} for k in part.labels},
            "band_narrowing": {k: _ratio(prior_band[k]["ci95"], post_band[k]["ci95"]) for k in part.labels},
            "marginalized": [{"name": n, "r": float(part.r[j])} for j, n in enumerate(part.names)
                             if n not in fitted],
            "surrogate": {**part.surrogate.as_dict(), "names": part.fitted,
                          "cv_log_loss": getattr(part.surrogate, "cv", None)},
            "holdout": part.holdout,
            "training": {"trials": len(part.training), "labelled": len(part.y),
                         "counts": {k: int(part.reached[i]) for i, k in enumerate(part.labels)},
                         "draw": sens.DRAW, "pairs": part.pairs, "seed": part.seed,
                         "fitted": {"names": part.fitted, "y": part.y.tolist(),
                                    "theta": [[float(f"{v:.6g}") for v in row] for row in part.theta]}},
            **provenance(part.spec, part.overrides, part.device.params()),
        })
    keep = np.linspace(0, len(draws) - 1, min(KEPT_DRAWS, len(draws))).astype(int)
    if chains:
        ess = sum(c.effective_size() for c in chains)
        mcmc = {"sampler": "emcee EnsembleSampler (stretch move)", "chains": len(chains),
                "walkers": chains[0].walkers, "steps": request.steps, "burn": burn,
                "acceptance": [c.acceptance for c in chains], "autocorr_steps": [c.autocorr for c in chains],
                "effective_draws": ess, "draws": int(len(draws)), "bootstrap": request.bootstrap}
        if ess < 1000:
            reporter.warn(f"the chains hold about {ess:.0f} independent draws (under 1000: the 95% intervals are "
                          f"rough); give more --steps")
    else:
        mcmc = {"sampler": "none: no tallies, the prior's own draws", "chains": 0, "draws": int(len(draws)),
                "bootstrap": request.bootstrap}
    first = blocks[0]
    result = {
        "format": CALIBRATION_FORMAT, "version": CALIBRATION_VERSION,
        "device": request.device,
        "devices": [p.name for p in parts],
        "parts": [{"name": p.name, "device": p.device_name, "sets": list(p.sets),
                   "gesture": {n: k for n, k in p.gesture.items()}} for p in parts],
        "seed": request.seed,
        "workers": request.workers,
        "observed": first["observed"],
        "parameters": [{"name": n, "kind": candidates[n]["kind"], "default": candidates[n]["default"],
                        "low": candidates[n]["low"],
                        "high": candidates[n]["high"], "source": candidates[n]["source"],
                        "prior": pr.as_dict(), "posterior": cal.summary(draws[:, j]),
                        "devices": [p.name for p in parts if n in p.fitted]}
                       for j, (n, pr) in enumerate(zip(fitted, priors))],
        "labels": first["labels"],
        "band_narrowing": first["band_narrowing"],
        "predictive": ({b["device"]: {k: v["posterior"] for k, v in b["labels"].items()}
                        for b in reversed(blocks) if not b["sets"]} if tallied else {}),
        "posterior_draws": {"names": fitted, "values": draws[keep].tolist()},
        "marginalized": first["marginalized"],
        "surrogate": first["surrogate"],
        "holdout": first["holdout"],
        "training": first["training"],
        "joint": blocks[1:],
        "plan": plan,
        "mcmc": mcmc,
        **provenance(parts[0].spec, parts[0].overrides, parts[0].device.params()),
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


@contextlib.contextmanager
def local_pool(workers: int):
    """A pool of `workers` spawned processes for a run of many small batches (a calibration's
    gesture blocks, each on its own device): started once, not once a block; each worker keeps the
    devices it built (tabletop.sim.batch)."""
    import concurrent.futures as cf
    import multiprocessing

    from tabletop.sim.batch import _ignore_sigint

    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                                  initializer=_ignore_sigint)
    try:
        yield pool
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def train(part: _Part, trials: int, points: int, workers: int, done, checkpoint, executor, progress) -> list[dict]:
    """`part`'s training trials 0..trials-1 (except those `done`): every material pair value drawn
    per trial from its range (PairDraws); the gesture ranges it may fit, if any, at `points` values
    (a Latin hypercube over their ranges), trial i thrown at point i mod points with every throw's
    range shrunk to that value (a device samples its gesture from its spec, so a point is a device
    built with those --set values: one per block, not per trial). Each record's `drawn` holds the
    values it was given, gesture values by their fitted names."""
    from tabletop.gamekit.devices import device_ref
    from tabletop.sim import calibrate as cal
    from tabletop.sim.batch import PairDraws, run_batch

    skip = {r["index"] for r in done}
    names = list(part.gesture)
    if names:
        ranges = [(part.candidates[n]["low"], part.candidates[n]["high"]) for n in names]
        values = cal.gesture_points(ranges, min(points, trials), [part.seed, 0x6E57])
        blocks = [(dict(zip(names, (float(v) for v in row))), set(range(b, trials, len(values))))
                  for b, row in enumerate(values)]
    else:
        blocks = [({}, set(range(trials)))]
    out = []
    for drawn, indices in blocks:
        todo = indices - skip
        if not todo:
            continue

        def mark(chunk, drawn=drawn):
            for r in chunk:
                r["drawn"].update(drawn)
                if part.index:
                    r["part"] = part.index
            if checkpoint is not None:
                checkpoint.append(chunk)

        _, extra = part.pinned(drawn)
        ref = device_ref(part.device_name, part.spec, part.overrides + extra)
        out += run_batch(ref, trials, part.seed, workers, device=part.device if workers == 1 and not extra else None,
                         progress=progress, skip=set(range(trials)) - todo, on_chunk=mark, executor=executor,
                         perturb=PairDraws(tuple(part.pairs)))
    return out


def _holdout(request, part: _Part, kept, checkpoint, executor, reporter) -> dict:
    """Fresh trials of `part`'s device at held-out values of its fitted parameters (a Latin
    hypercube over their ranges), the others drawn per trial; its surrogate's predictions against
    them."""
    from scipy.stats import qmc

    from tabletop.gamekit.devices import device_ref
    from tabletop.sim import calibrate as cal
    from tabletop.sim.batch import PairDraws, run_batch
    from tabletop.sim.devices.base import Status

    key = [request.seed, 0x401D] + ([part.index] if part.index else [])
    unit = qmc.LatinHypercube(d=len(part.fitted), seed=np.random.default_rng(key)).random(request.holdout_points)
    points = np.asarray(part.low) + unit * (np.asarray(part.high) - np.asarray(part.low))
    counts = np.zeros((len(points), len(part.labels)))
    with reporter.progress(len(points) * request.holdout_trials, f"{part.name} held-out check") as bar:
        for j, point in enumerate(points):
            pinned = tuple((n, float(v)) for n, v in zip(part.fitted, point))
            pairs, extra = part.pinned(dict(pinned))
            ref = device_ref(part.device_name, part.spec, part.overrides + extra)
            done = [r for r in kept if r.get("holdout") == j and r.get("part", 0) == part.index
                    and r.get("pinned") == [list(p) for p in pinned]]
            bar.advance(len(done))

            def mark(chunk, j=j, pinned=pinned):
                for r in chunk:
                    r["holdout"], r["pinned"] = j, [list(p) for p in pinned]
                    if part.index:
                        r["part"] = part.index
                if checkpoint is not None:
                    checkpoint.append(chunk)

            records = done + run_batch(ref, request.holdout_trials, _holdout_seed(request.seed, j, part.index),
                                       request.workers,
                                       device=part.device if request.workers == 1 and not extra else None,
                                       progress=bar.advance, skip={r["index"] for r in done}, on_chunk=mark,
                                       executor=executor, perturb=PairDraws(tuple(part.pairs), pairs))
            for r in records:
                if r["status"] == Status.OK:
                    counts[j, part.labels.index(r["label"])] += 1
    check = cal.holdout_check(part.surrogate.predict, part.labels, points, counts)
    check["names"] = list(part.fitted)
    reporter.note(f"{part.name} surrogate vs {int(counts.sum())} held-out trials: largest |error| "
                  f"{check['max_abs_error']:.3f}, RMS {check['rms_error']:.3f} (sampling alone "
                  f"{check['rms_sampling']:.3f}), chi-square p {check['p_value']:.3f}")
    return check


def _plan(request: CalibrateRequest, parts: list[_Part], fitted: list[str], draws: np.ndarray, probs: np.ndarray,
          reporter) -> dict:
    """What to measure next: for `budget` more tallies of each device and for a home test of each
    fitted value, every label's expected band after it (preposterior analysis: the current draws
    reweighted by each simulated result's likelihood, averaged over PLAN_SIMS results), ranked by
    the bands' mean width."""
    from tabletop.sim import calibrate as cal

    keep = np.linspace(0, len(draws) - 1, min(PLAN_DRAWS, len(draws))).astype(int)
    theta, probs = draws[keep], probs[keep]
    offsets = np.cumsum([0] + [len(p.labels) for p in parts])
    now = cal.current_widths(probs)

    def by_device(widths) -> dict:
        return {p.name: {k: round(float(widths[a + i]), 5) for i, k in enumerate(p.labels)}
                for p, a in zip(parts, offsets[:-1])}

    options = []
    for n, (part, a, b) in enumerate(zip(parts, offsets[:-1], offsets[1:])):
        options.append(({"kind": "tallies", "device": part.name, "count": request.budget,
                         "what": f"{request.budget} more tallies of {part.name}",
                         "how": f"play the gadget {request.budget} times and tally each outcome "
                                f"({', '.join(part.labels)})"},
                        cal.tally_weights(probs, slice(a, b), request.budget), n))
    for j, name in enumerate(fitted):
        if not name.startswith("materials.pairs."):
            continue        # a gesture: no home test measures it
        pair, field_ = name.removeprefix("materials.pairs.").rsplit(".", 1)
        test = cal.HOME_TESTS[field_]
        sd = f"+-{test.sd:.0%}" if test.relative else f"+-{test.sd:g}"
        options.append(({"kind": test.kind, "parameter": name, "sd": test.sd, "relative": test.relative,
                         "what": f"{'an' if test.kind[0] in 'aeiou' else 'a'} {test.kind} test of {pair} "
                                 f"({field_}, {sd})", "how": test.how},
                        cal.home_test_weights(theta, j, test), len(parts) + j))
    out = []
    with reporter.progress(len(options) * PLAN_SIMS, "what to measure next") as bar:
        for info, weights, k in options:
            got = cal.expected_bands(theta, probs, weights, PLAN_SIMS,
                                     int(np.random.SeedSequence([request.seed, 0x91A4, k]).generate_state(1)[0]))
            bar.advance(PLAN_SIMS)
            widths = np.asarray(got["widths"])
            out.append({**info, "expected_widths": by_device(widths), "mean_width": float(widths.mean()),
                        "narrowing": float(now.mean() / widths.mean()) if widths.mean() > 0 else None,
                        "effective_draws": got["ess"]})
    out.sort(key=lambda c: c["mean_width"])
    return {"budget": request.budget, "sims": PLAN_SIMS, "draws": int(len(theta)), "now": by_device(now),
            "mean_width_now": float(now.mean()), "options": out,
            "method": "preposterior analysis: the current draws (the posterior, or the prior before any tally) "
                      "reweighted by the likelihood of each measurement's simulated result, the bands' widths "
                      f"averaged over {PLAN_SIMS} results; the surrogate stands in for the physics"}


def describe(result: CalibrateResult) -> list[str]:
    """The calibration as lines of text (what the command prints)."""
    d = result.to_dict()
    blocks = [d] + d.get("joint", [])
    tallies = " and ".join(f"{sum(b['observed'].values())} {b['device']}" for b in blocks if b["observed"])
    m = d["mcmc"]
    if tallies:
        lines = [f"{' + '.join(d['devices'])}: calibrated to {tallies} tallies "
                 f"({' + '.join(str(b['training']['labelled']) for b in blocks)} training trials, "
                 f"{m['chains']} chain(s) x {m['walkers']} walkers x {m['steps']} steps)"]
    else:
        lines = [f"{' + '.join(d['devices'])}: no tallies yet; the bands are the prior's "
                 f"({' + '.join(str(b['training']['labelled']) for b in blocks)} training trials)"]
    for p in d["parameters"]:
        pr, po = p["prior"], p["posterior"]
        prior = (f"uniform [{pr['low']:.4g}, {pr['high']:.4g}]" if pr["kind"] == "uniform"
                 else f"normal {pr['mean']:.4g} +- {pr['sd']:.4g} in [{pr['low']:.4g}, {pr['high']:.4g}]")
        default = (f"every throw drawn from [{p['default'][0]:.4g}, {p['default'][1]:.4g}]"
                   if isinstance(p["default"], list) else f"default {p['default']:.4g}")
        if tallies:
            lines.append(f"  {p['name']}: posterior {po['mean']:.4g} (95% {po['ci95'][0]:.4g} .. "
                         f"{po['ci95'][1]:.4g}); prior {prior}; {default}")
        else:
            lines.append(f"  {p['name']}: prior {prior}; {default}")
    for b in blocks:
        if len(blocks) > 1:
            lines.append(f"  {b.get('part', b['device'])}:")
        lines.append(f"  {'label':<12} {'observed':>9}  {'prior p [band]':<24} {'calibrated p [band]':<24} narrower")
        for k, lab in b["labels"].items():
            pr, po = lab["prior"], lab["posterior"]
            ratio = b["band_narrowing"][k]
            seen = "-" if lab["observed"] is None else f"{lab['observed']:.3f}"
            after = (f"{po['p']:.3f} [{po['ci95'][0]:.3f}, {po['ci95'][1]:.3f}]{'':<4} "
                     f"{'-' if ratio is None else f'{ratio:.1f}x'}" if tallies else "-")
            lines.append(f"  {k:<12} {seen:>9}  {pr['p']:.3f} [{pr['ci95'][0]:.3f}, {pr['ci95'][1]:.3f}]{'':<4} "
                         f"{after}")
        h = b.get("holdout")
        if h:
            lines.append(f"  {b['device'] + ' ' if len(blocks) > 1 else ''}surrogate vs held-out trials: largest "
                         f"|error| {h['max_abs_error']:.3f}, RMS {h['rms_error']:.3f} (sampling alone "
                         f"{h['rms_sampling']:.3f}), chi-square p {h['p_value']:.3f}")
    if d.get("plan"):
        lines += plan_lines(d["plan"])
    lines.append(f"  elapsed {d['elapsed_s']:.1f} s")
    return lines


def plan_lines(plan: dict) -> list[str]:
    """--plan's advice as lines: each measurement and the bands expected after it, best first."""
    lines = [f"  what to measure next (each label's 95% band now and expected after; mean width now "
             f"{plan['mean_width_now']:.3f}):"]
    for i, o in enumerate(plan["options"], 1):
        x = "-" if o["narrowing"] is None else f"{o['narrowing']:.1f}x"
        lines.append(f"  {i}. {o['what']}: mean band width {o['mean_width']:.3f} ({x} narrower)")
        for dev, widths in o["expected_widths"].items():
            now = plan["now"][dev]
            lines.append(f"       {dev}: " + ", ".join(f"{k} {now[k]:.3f} -> {w:.3f}" for k, w in widths.items()))
    best = plan["options"][0]
    lines.append(f"  how ({best['kind']}): {best['how']}")
    return lines
