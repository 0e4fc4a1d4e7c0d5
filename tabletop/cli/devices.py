"""The device commands: estimate, converge, sweep, validate, bench. Each builds its request from
the parsed arguments, runs the job (tabletop.app) and shows the result."""
from __future__ import annotations

from tabletop.app import requests as rq
import tabletop.cli.show as show
from tabletop.app.console import ConsoleReporter


def _fields(args, request_type, **extra):
    """The request of `request_type` from the parsed arguments of the same names (and `extra`)."""
    given = {name: getattr(args, name) for name in rq.request_fields(request_type) if hasattr(args, name)}
    return request_type(**{**given, **extra})


def estimate(args) -> int:
    from tabletop.app.calibrated import estimate as run      # the estimate job, --calibration opened

    run(_fields(args, rq.EstimateRequest), ConsoleReporter(args.quiet, show.show_estimate))
    return 0


def converge(args) -> int:
    from tabletop.app.numerics import converge as run

    run(_fields(args, rq.ConvergeRequest), ConsoleReporter(args.quiet, show.show_converge))
    return 0


def sweep(args) -> int:
    from tabletop.app.numerics import sweep as run

    run(_fields(args, rq.SweepRequest), ConsoleReporter(args.quiet, show.show_sweep))
    return 0


def validate(args) -> int:
    from tabletop.app.validate import validate as run

    run(_fields(args, rq.ValidateRequest), ConsoleReporter(args.quiet, show.show_validate))
    return 0


def bench(args) -> int:
    from tabletop.app.bench import bench as run

    run(_fields(args, rq.BenchRequest), ConsoleReporter(False, show.show_bench, steps_out=True))
    return 0


def calibrate(args) -> int:
    from tabletop.app.calibrate import calibrate as run, describe

    def show_calibration(result) -> None:
        print("\n".join(describe(result)))

    run(_fields(args, rq.CalibrateRequest), ConsoleReporter(args.quiet, show_calibration))
    return 0
