"""`validate`: coins, cubes and cuboids thrown as published experiments threw them, and compared
(tabletop.sim.validate holds the cases and their rules; docs/validation.md what each means)."""
from __future__ import annotations

import time

from tabletop.app import longrun
from tabletop.app.requests import ValidateRequest
from tabletop.app.results import ValidateResult


def validate(request: ValidateRequest, reporter: longrun.Reporter | None = None) -> ValidateResult:
    """Every case run (fewer trials with `quick`), judged by its rule; the result shown, then --out
    written. Ctrl-C: longrun.Interrupted, nothing written."""
    from tabletop.gamekit.devices import default_spec, device_ref, make_device
    from tabletop.sim.batch import run_batch
    from tabletop.sim.validate import cases, run_case, tally
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
    except KeyboardInterrupt:
        raise longrun.Interrupted(None, 0, "cases", False, resumable=False) from None
    result = ValidateResult({"quick": request.quick, "seed": request.seed, "cases": rows,
                             "passed": sum(r["passed"] for r in rows), "tally": tally(rows),
                             "versions": engine_versions(), "elapsed_s": round(time.perf_counter() - started, 3)})
    return longrun.finish(result, request.out, None, None, None, reporter)
