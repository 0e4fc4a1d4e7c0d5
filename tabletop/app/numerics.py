"""`converge` (do a device's odds hold with refined numerics?) and `sweep` (its odds at each value
of one physical parameter)."""
from __future__ import annotations

import time

from tabletop.app import longrun
from tabletop.app.estimate import device_of, provenance
from tabletop.app.requests import ConvergeRequest, SweepRequest
from tabletop.app.results import ConvergeResult, SweepResult
from tabletop.sim.errors import InputError


def converge(request: ConvergeRequest, reporter: longrun.Reporter | None = None) -> ConvergeResult:
    """Each refinement the device has (or `only` names) against the base run, paired trial by trial;
    --out written once the result is shown. With --out the finished trials of every run are kept in
    a checkpoint beside it, which --resume continues: Ctrl-C is a longrun.Interrupted saying so
    (without --out nothing is kept). Once --out is written the checkpoint goes, unless the verdict is
    cannot tell: then it stays, for the same command with more --trials and --resume."""
    from tabletop.gamekit.devices import device_ref, make_device
    from tabletop.sim.batch import run_batch
    from tabletop.sim.converge import CANNOT_TELL, converge as run_checks, select_refinements
    from tabletop.sim.spec import digest
    from tabletop.sim.world import engine_versions

    reporter = reporter or longrun.Reporter()
    from tabletop.gamekit.devices import entry

    entry(request.device)
    longrun.check_outputs(out=request.out)
    spec, overrides, device = device_of(request)
    try:
        refinements = select_refinements(device.refinements(), request.only)
        labels, params = device.labels, device.params()
    finally:
        device.close()
    for _, extra in refinements:   # a refinement the spec cannot take fails before any work
        make_device(request.device, spec, overrides + extra).close()
    # a checkpoint keeps each finished trial tagged with its run ("base" or the refinement's name);
    # its header pins the device, the seed and the base parameters, not the trial count nor the
    # refinements, so a resumed run may ask for more trials or other refinements
    header = {"command": "converge", "device": request.device, "seed": request.seed, "params": digest(params)}
    if request.resume:
        from tabletop.app.estimate import check_resumed_params
        from tabletop.sim.checkpoint import checkpoint_path

        check_resumed_params(checkpoint_path(request.out), header, params)
    checkpoint = longrun.open_checkpoint(request.out, header, request.resume,
                                         created={"param_values": longrun.jsonable(params)})
    kept: dict[tuple[str, int], dict] = {}
    for r in checkpoint.records if checkpoint else ():
        if r.get("run") is not None and r["index"] < request.trials:
            kept[(r["run"], r["index"])] = {k: v for k, v in r.items() if k != "run"}
    names = {(): "base", **{tuple(extra): name for name, extra in refinements}}
    if kept:
        reporter.note(f"resuming: {len(kept)} trials already in {checkpoint.path}")
    started = time.perf_counter()
    try:
        with longrun.executor(request.scheduler) as executor, \
                reporter.progress(request.trials * (1 + len(refinements)), f"{request.device} converge") as bar:
            bar.advance(sum(1 for name, _ in kept if name in names.values()))

            def run(extra) -> list[dict]:
                name = names[tuple(extra)]
                done = {i: r for (n, i), r in kept.items() if n == name}
                keep = None if checkpoint is None else \
                    (lambda chunk: checkpoint.append([{**r, "run": name} for r in chunk]))
                new = run_batch(device_ref(request.device, spec, overrides + tuple(extra)), request.trials,
                                request.seed, request.workers, progress=bar.advance, skip=done, on_chunk=keep,
                                executor=executor)
                return sorted([*done.values(), *new], key=lambda r: r["index"])

            block = run_checks(run, labels, refinements)
    except KeyboardInterrupt:
        raise longrun.interrupted(checkpoint, "trials", request.resume) from None
    result = ConvergeResult({"device": request.device, "seed": request.seed, "trials": request.trials,
                             **provenance(spec, overrides, params), **block,
                             "versions": engine_versions(), "elapsed_s": round(time.perf_counter() - started, 3)})
    # cannot tell: more trials would decide, so the trials are kept for a --resume with more of them
    undecided = checkpoint is not None and block["verdict"] == CANNOT_TELL
    result = longrun.finish(result, request.out, None, None, checkpoint, reporter, keep_checkpoint=undecided)
    if undecided:
        reporter.note(f"the trials are kept in {checkpoint.path}: the same command with --trials "
                      f"{block['trials_needed']} --resume runs only the trials not yet run")
    return result


def sweep_values(param: str) -> tuple[str, list]:
    """--param NAME=LO:HI:STEPS: the name and its values (whole numbers where both ends and every
    step are)."""
    import numpy as np

    name, _, rng_text = param.partition("=")
    parts = rng_text.split(":")
    try:
        lo, hi, steps = float(parts[0]), float(parts[1]), int(parts[2])
        if len(parts) != 3 or steps < 2 or not np.isfinite([lo, hi]).all():
            raise ValueError
    except (ValueError, IndexError):
        raise InputError(f"--param: expected NAME=LO:HI:STEPS with STEPS >= 2, got {param!r}") from None
    values = [float(v) for v in np.linspace(lo, hi, steps)]
    if all(p.strip().lstrip("+-").isdigit() for p in parts[:2]) and all(v == round(v) for v in values):
        values = [int(round(v)) for v in values]   # whole-number ends and steps: an integer parameter
    return name, values


def _csv(name: str, labels, rows: list[dict]) -> str:
    import csv
    import io

    table = io.StringIO()
    w = csv.writer(table)
    w.writerow([name, "trials", "labelled", *[f"p_{k}" for k in labels], *[f"lo_{k}" for k in labels],
                *[f"hi_{k}" for k in labels]])
    for r in rows:
        pr = r["probabilities"]
        w.writerow([r["value"], r["trials"], r["labelled"], *[pr[k]["p"] for k in labels],
                    *[pr[k]["ci95"][0] for k in labels], *[pr[k]["ci95"][1] for k in labels]])
    return table.getvalue()


def sweep(request: SweepRequest, reporter: longrun.Reporter | None = None) -> SweepResult:
    """The device estimated at each value of one parameter (the same seeds at every value); the
    result shown, then --out, --csv and --plot written."""
    from tabletop.gamekit.devices import default_spec, device_ref, entry, make_device
    from tabletop.sim.batch import run_batch, summarize
    from tabletop.sim.output import write_json_atomic, write_text_atomic
    from tabletop.sim.spec import parse_overrides
    from tabletop.sim.world import engine_versions

    reporter = reporter or longrun.Reporter()
    entry(request.device)
    name, values = sweep_values(request.param)
    longrun.check_outputs(out=request.out, csv=request.csv, plot=request.plot)
    spec = (request.spec or default_spec(request.device)).resolve()
    base = parse_overrides(request.overrides)
    for v in (values[-1], values[0]):   # an unknown name or an impossible value fails before any work
        probe = make_device(request.device, spec, base + ((name, repr(v)),))
        labels = probe.labels
        probe.close()
    rows = []
    with longrun.executor(request.scheduler) as executor:
        for v in values:
            ref = device_ref(request.device, spec, base + ((name, repr(v)),))
            records = run_batch(ref, request.trials, request.seed, request.workers, executor=executor)
            s = summarize(labels, records)
            rows.append({"value": v, **{k: s[k] for k in ("trials", "labelled", "unsettled", "escaped", "lodged",
                                                          "counts", "probabilities")}})
            reporter.step(f"{name} = {v:.6g}: " + ", ".join(f"{k} {pr['p']:.3f}" for k, pr in s["probabilities"].items()))
    result = SweepResult({"device": request.device, "param": name, "values": values, "seed": request.seed,
                          "trials_each": request.trials, "overrides": dict(base), "rows": rows, "spec": str(spec),
                          "versions": engine_versions()}, labels, _csv(name, labels, rows))
    reporter.show(result)
    if request.out is not None:
        longrun.write_file(lambda: write_json_atomic(request.out, result.to_dict()), "--out", request.out,
                           "the table above is the result")
        reporter.note(f"wrote {request.out}")
    if request.csv is not None:
        longrun.write_file(lambda: write_text_atomic(request.csv, result.csv), "--csv", request.csv,
                           f"the table above is the result{f', and it is in {request.out}' if request.out else ''}")
        reporter.note(f"wrote {request.csv}")
    if request.plot is not None:
        from tabletop.sim.analysis import plot_sweep

        longrun.draw(lambda: plot_sweep(request.device, name, values, rows, request.plot), request.plot, result,
                     request.out or request.csv)
        reporter.note(f"wrote {request.plot}")
    return result
