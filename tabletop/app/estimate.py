"""`estimate`: a device's outcome probabilities by simulation, with the precision loop, the
checkpoint and --resume, --against, the recorded trials, the model runs (--sensitivity,
--uncertainty) and the calibrated copy (--calibration: every trial draws the fitted values from the
calibration's posterior; the calibration comes opened, tabletop.app.calibrated)."""
from __future__ import annotations

import time
from pathlib import Path

from tabletop.app import longrun
from tabletop.app.requests import DeviceRun, EstimateRequest
from tabletop.app.results import EstimateResult
from tabletop.sim.errors import InputError


def device_of(request: DeviceRun):
    """The spec, the --set overrides and the device they make: built once here, so that a bad
    device, spec or override fails before any work."""
    from tabletop.gamekit.devices import default_spec, entry, make_device
    from tabletop.sim.spec import parse_overrides

    entry(request.device)   # an unknown device: InputError naming the known ones
    spec = (request.spec or default_spec(request.device)).resolve()
    overrides = parse_overrides(request.overrides)
    return spec, overrides, make_device(request.device, spec, overrides)


def provenance(spec: Path, overrides, params: dict) -> dict:
    """The result fields that say which model a run used."""
    from tabletop.sim.spec import override_value

    return {"spec": str(spec), "overrides": {name: override_value(name, value) for name, value in overrides},
            "params": params}


def batch_runner(request: DeviceRun, spec: Path, overrides, executor):
    """`run(extra, trials, progress, perturb=None)`: the first `trials` trial seeds of the request's
    seed on the device with `extra` overrides after the request's own (its workers or `executor`)."""
    from tabletop.gamekit.devices import device_ref
    from tabletop.sim.batch import run_batch

    def run(extra, trials: int, progress, perturb=None) -> list[dict]:
        return run_batch(device_ref(request.device, spec, overrides + tuple(extra)), trials, request.seed,
                         request.workers, progress=progress, executor=executor, perturb=perturb)

    return run


def reference(against: str, device: str, labels) -> dict[str, float]:
    """Reference probabilities for --against: equal odds, or a saved estimate of the same device."""
    if against == "uniform":
        return {label: 1.0 / len(labels) for label in labels}
    from tabletop.gamekit.outcomes import packaged_table
    from tabletop.gamekit.chance import load_estimate_table

    table = load_estimate_table(against if Path(against).exists() else (packaged_table(against) or against))
    if device not in table:
        raise InputError(f"--against: {against} is a {next(iter(table))} result, not {device}")
    return table[device]


def _flat(value, prefix: str = "") -> dict:
    """A nested dict's leaves by dotted name ({"physics.timestep": 0.001, ...})."""
    if isinstance(value, dict) and value:
        out = {}
        for key, v in value.items():
            out.update(_flat(v, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: value}


def check_resumed_params(path: Path, header: dict, params: dict) -> None:
    """Before --resume opens the checkpoint at `path`: a checkpoint of the same device and seed made
    with other physical parameters is refused in one line naming the parameters that differ (an
    older checkpoint, which kept only their digest, is refused saying so). Anything else is left
    to Checkpoint.resume."""
    import json

    try:
        with open(path, "rb") as fh:
            head = json.loads(fh.readline())
    except (OSError, ValueError):
        return
    if not isinstance(head, dict) or head.get("params") == header["params"] \
            or any(head.get(k) != header.get(k) for k in ("command", "device", "seed")):
        return
    kept = head.get("param_values")
    if not isinstance(kept, dict):
        raise InputError(f"--resume: {path} is from another run (params differ: an older checkpoint that does "
                         f"not say which); delete it to start afresh")
    old, new = _flat(kept), _flat(longrun.jsonable(params))
    differ = [k for k in sorted(set(old) | set(new)) if old.get(k, "(none)") != new.get(k, "(none)")]
    shown = "; ".join(f"{k} {old.get(k, '(none)')!r} there, {new.get(k, '(none)')!r} now" for k in differ[:3])
    more = f"; and {len(differ) - 3} more" if len(differ) > 3 else ""
    raise InputError(f"--resume: {path} is from another run (params differ: {shown}{more}); give the same "
                     f"--spec and --set, or delete it to start afresh")


def _checkpoint(request: EstimateRequest, params: dict, calibration=None):
    from tabletop.sim.checkpoint import checkpoint_path
    from tabletop.sim.spec import digest

    # the calibration's digest (None: none): a run of another calibrated copy is not resumed
    header = {"device": request.device, "seed": request.seed, "params": digest(params),
              "calibration": calibration.digest if calibration is not None else None}
    if request.resume:
        check_resumed_params(checkpoint_path(request.out), header, params)
    # the parameters themselves too, so that a refused resume can say which one differs
    return longrun.open_checkpoint(request.out, header, request.resume,
                                   created={"param_values": longrun.jsonable(params)})


def _widest(probabilities: dict) -> float:
    return max((pr["ci95"][1] - pr["ci95"][0]) / 2 for pr in probabilities.values())


def estimate(request: EstimateRequest, reporter: longrun.Reporter | None = None,
             calibration=None) -> EstimateResult:
    """Run the request and return its result (`to_dict()`: what --out writes). Bad input is an
    InputError before any work; Ctrl-C a longrun.Interrupted once the checkpoint is kept. With
    `request.calibration`, `calibration` is that file opened (tabletop.app.calibrated.estimate
    opens it)."""
    if (request.calibration is None) != (calibration is None):
        raise TypeError("estimate: give the request's --calibration opened (tabletop.app.calibrated.estimate), "
                        "and none without one")
    import contextlib

    from tabletop.gamekit.devices import DEVICES, device_ref
    from tabletop.gamekit.record import default_path
    from tabletop.sim.batch import run_batch, summarize
    from tabletop.sim.world import engine_versions

    reporter = reporter or longrun.Reporter()
    from tabletop.gamekit.devices import entry

    entry(request.device)
    longrun.check_outputs(out=request.out, plot=request.plot, record=request.record)
    cap = request.cap
    record = None
    if request.record_trials:
        record = request.record or default_path(request.device, request.seed, suffix="trials")
    spec, overrides, device = device_of(request)
    labels, params = device.labels, device.params()
    ref = device_ref(request.device, spec, overrides)
    stack = contextlib.ExitStack()   # the Dask client, connected before anything is written
    try:
        against = reference(request.against, request.device, labels) if request.against else None
        perturb = calibrated_perturbation(calibration, request, device)
        executor = stack.enter_context(longrun.executor(request.scheduler))
        checkpoint = _checkpoint(request, params, calibration)
    except InputError:
        stack.close()
        device.close()
        raise
    records = list(checkpoint.records) if checkpoint else []
    if records:
        reporter.note(f"resuming: {len(records)} trials already in {checkpoint.path}")
    # with a precision: a first round of 50 trials, then doubling until the intervals are narrow enough
    target = cap if request.precision is None else min(cap, max(50, len(records)))
    started = time.perf_counter()
    try:
        with reporter.progress(target, request.device) as bar:
            bar.advance(min(len(records), target))
            while True:
                done = {r["index"] for r in records}
                records += run_batch(ref, target, request.seed, request.workers,
                                     device=device if request.workers == 1 else None, progress=bar.advance,
                                     skip=done, on_chunk=checkpoint.append if checkpoint else None,
                                     executor=executor, perturb=perturb)
                current = [r for r in records if r["index"] < target]
                if request.precision is None or target >= cap:
                    break
                if _widest(summarize(labels, current)["probabilities"]) <= request.precision:
                    break
                target = min(cap, target * 2)
                bar.grow(target)
        records = sorted((r for r in records if r["index"] < target), key=lambda r: r["index"])
        summary = summarize(labels, records)
        if record is not None:
            # the batch ran in workers (or on its own device): the first K trials run again here on a
            # fresh device with the same per-trial seeds, watched by a MotionRecorder
            from tabletop.gamekit.trials import record_trials

            kept = min(request.record_trials, target)
            for warning in record_trials(record, request.device, spec, overrides, request.seed, kept, records):
                reporter.warn(warning)
            reporter.note(f"recorded {kept} trials in {record}")
        model = model_runs(request, spec, overrides, device, records, summary["probabilities"], executor, reporter)
    except KeyboardInterrupt:
        raise longrun.interrupted(checkpoint, "trials", request.resume) from None
    finally:
        device.close()
        stack.close()
    elapsed = time.perf_counter() - started
    result = {
        "device": request.device,
        "description": DEVICES[request.device].summary,
        "seed": request.seed,
        "workers": request.workers,
        "scheduler": request.scheduler,
        **summary,
        **device.summarize_extra(records),
        **model,
        **({"calibration": calibration.estimate_block(request.device, perturb.names, {
            "params": params, "set": provenance(spec, overrides, params)["overrides"]})} if calibration else {}),
        **provenance(spec, overrides, params),
        "versions": engine_versions(),
        "elapsed_s": round(elapsed, 3),
    }
    if request.precision is not None:
        widest = _widest(result["probabilities"])
        result["precision"] = {"asked": request.precision, "reached": widest, "met": widest <= request.precision,
                               "cap": cap, "trials_needed": len(records)}
        reporter.note(f"precision {request.precision}: widest 95% half-width {widest:.4f} after {len(records)} "
                      f"trials" + ("" if widest <= request.precision else f" (the cap of {cap} trials was reached "
                                                                          f"first)"))
    if against is not None:
        from tabletop.sim.analysis import chi_square

        result["against"] = {"name": request.against, **chi_square(result["counts"], against)}
    out = EstimateResult(result)
    return longrun.finish(out, request.out, request.plot, lambda: plot_estimate(result, labels, request.plot),
                          checkpoint, reporter)


def calibrated_perturbation(calibration, request: EstimateRequest, device):
    """The per-trial draws of the calibrated copy (None without a calibration): the file must
    calibrate this device, and its fitted values be values of the device's world."""
    if calibration is None:
        return None
    from tabletop.sim import sensitivity as sens

    calibration.check_device(request.device)
    return calibration.draws(sens.contact_pairs(device, request.seed))


def plot_estimate(result: dict, labels, path: Path) -> None:
    """The estimate's bars, the x-axis saying what a label is, and the fair odds where there are any."""
    from tabletop.app.outcomes import fair_odds, outcome_axis
    from tabletop.sim.analysis import plot_outcomes

    fair = fair_odds(result["device"], labels)
    plot_outcomes(result, path, xlabel=outcome_axis(result["device"]),
                  **({"fair": fair[0], "fair_note": fair[1]} if fair else {}))


def model_runs(request: EstimateRequest, spec: Path, overrides, device, records: list[dict], probabilities: dict,
               executor, reporter) -> dict:
    """--sensitivity and --uncertainty: the estimate's trial seeds (`records`, its `probabilities`)
    run again with the model's uncertain inputs at either end of their ranges (and the model band
    they span), or drawn per trial (tabletop.sim.sensitivity)."""
    if not (request.sensitivity or request.uncertainty):
        return {}
    from tabletop.sim import sensitivity as sens
    from tabletop.sim.batch import PairDraws

    pairs = sens.contact_pairs(device, request.seed)
    run = batch_runner(request, spec, overrides, executor)
    out = {}
    if request.sensitivity:
        params = sens.parameters(device, pairs, spec, overrides)
        m = min(request.sensitivity_trials or len(records), len(records))
        with reporter.progress(2 * len(params) * m, f"{request.device} sensitivity") as bar:
            out["sensitivity"] = sens.sensitivity(lambda extra: run(extra, m, bar.advance), device.labels, params,
                                                  records[:m])
        out["model_band"] = sens.model_band(probabilities, out["sensitivity"])
    if request.uncertainty:
        with reporter.progress(len(records), f"{request.device} uncertainty") as bar:
            drawn = run((), len(records), bar.advance, PairDraws(tuple(pairs)))
        out["uncertainty"] = sens.uncertainty(device.labels, drawn)
    return out
