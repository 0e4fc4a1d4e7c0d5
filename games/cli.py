"""The `tabletop` command.

  tabletop play king-of-the-hill --headless --seats ai,ai,ai,ai --seed S
                [--variant special-two-player] [--outcomes physics|table:FILE.json[,FILE.json]]
  tabletop play knossos --headless --seats ai,ai --seed S [--games-to-win 3] [--outcomes physics|table:FILE.json]
  tabletop estimate DEVICE --trials N --seed S --workers W --out FILE.json [--spec FILE.toml]
  tabletop bench [--trials N] [--out FILE.json]

Bad input gets one line on stderr naming the problem and exit code 2; nothing is written.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from sim.errors import InputError

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse hook
        raise InputError(message)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from games.devices import DEVICES

    parser = _Parser(prog="tabletop", description="Physics-simulated tabletop for three vintage games.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    play = sub.add_parser("play", help="play a game (headless for now)")
    play.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    play.add_argument("--headless", action="store_true", help="no window: print the game log")
    play.add_argument("--seats", default="ai,ai", help="comma-separated seats, ai, random or human "
                      "(king-of-the-hill 2-4, knossos 2)")
    play.add_argument("--seed", type=_seed, default=0, help="the game's seed (default 0)")
    play.add_argument("--variant", default="standard", help="king-of-the-hill: standard or special-two-player")
    play.add_argument("--games-to-win", type=_positive_int, default=3,
                      help="knossos: games needed to win the match (default 3)")
    play.add_argument("--outcomes", default="physics",
                      help="physics (simulate every tilt and knock), or table:FILE.json[,FILE.json] "
                           "to sample from saved estimate results")

    est = sub.add_parser("estimate", help="estimate a physical device's outcome probabilities by simulation")
    est.add_argument("device", help=f"one of: {', '.join(DEVICES)}")
    est.add_argument("--trials", type=_positive_int, default=1000, help="number of trials (default 1000)")
    est.add_argument("--seed", type=_seed, default=0, help="the run's seed (default 0)")
    est.add_argument("--workers", type=_positive_int, default=1, help="local worker processes (default 1)")
    est.add_argument("--out", type=Path, help="write the result as JSON to this file")
    est.add_argument("--spec", type=Path, help="device spec TOML (default: the one in assets/)")
    est.add_argument("--quiet", action="store_true", help="no progress bar")

    bench = sub.add_parser("bench", help="measure trials per second beside a bare PyBullet loop")
    bench.add_argument("--trials", type=_positive_int, default=100, help="trials per device (default 100)")
    bench.add_argument("--devices", default=",".join(DEVICES), help="comma-separated devices (default: all)")
    bench.add_argument("--out", type=Path, help="write the figures as JSON to this file")
    return parser


GAMES = ("king-of-the-hill", "knossos", "king-kong")
SEAT_KINDS = ("ai", "random", "human")


def cmd_play(args) -> int:
    if args.game not in GAMES:
        raise InputError(f"unknown game {args.game!r}; choose one of: {', '.join(GAMES)}")
    if args.game == "king-kong":
        raise InputError("king-kong is not playable yet; king-of-the-hill and knossos are")
    seats = [s.strip() for s in args.seats.split(",")]
    unknown = [s for s in seats if s not in SEAT_KINDS]
    if unknown:
        raise InputError(f"--seats: unknown seat kind {unknown[0]!r}; use {', '.join(SEAT_KINDS)}")
    if "human" in seats or not args.headless:
        raise InputError("the 3D window is not available yet: use --headless with ai or random seats")
    if args.game == "knossos":
        from games.knossos import session
        return session.play_headless(seats, args.seed, args.games_to_win, args.outcomes)
    from games.king_of_the_hill import session
    return session.play_headless(seats, args.seed, args.variant, args.outcomes)


def cmd_estimate(args) -> int:
    from rich.console import Console

    from games.devices import DEVICES, default_spec, entry, make_device
    from sim.batch import DeviceRef, run_batch, summarize
    from sim.output import check_output_path, write_json_atomic
    from sim.world import engine_versions

    entry(args.device)  # unknown device -> InputError
    if args.out is not None:
        check_output_path(args.out)
    spec = (args.spec or default_spec(args.device)).resolve()
    device = make_device(args.device, spec)  # a bad spec fails here, before any work
    labels, params = device.labels, device.params()
    ref = DeviceRef("games.devices:make_device", (args.device, str(spec)))
    err = Console(stderr=True)
    started = time.perf_counter()
    try:
        records = _with_progress(err, args, lambda progress: run_batch(
            ref, args.trials, args.seed, args.workers,
            device=device if args.workers == 1 else None, progress=progress))
    except KeyboardInterrupt:
        err.print("[yellow]interrupted: no result written[/yellow]")
        return 130
    finally:
        device.close()
    elapsed = time.perf_counter() - started
    result = {
        "device": args.device,
        "description": DEVICES[args.device].summary,
        "seed": args.seed,
        "workers": args.workers,
        **summarize(labels, records),
        **device.summarize_extra(records),
        "spec": str(spec),
        "params": params,
        "versions": engine_versions(),
        "elapsed_s": round(elapsed, 3),
    }
    _print_table(Console(), result)
    if args.out is not None:
        write_json_atomic(args.out, result)
        err.print(f"wrote {args.out}")
    return 0


def _with_progress(console, args, run):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    if args.quiet:
        return run(None)
    columns = (TextColumn(f"{args.device}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task("trials", total=args.trials)
        return run(lambda n: bar.advance(task, n))


def _print_table(console, result: dict) -> None:
    from rich.table import Table

    table = Table(title=f"{result['device']}: {result['trials']} trials, seed {result['seed']}")
    table.add_column("outcome")
    table.add_column("count", justify="right")
    table.add_column("p", justify="right")
    table.add_column("95% interval", justify="right")
    for label, k in result["counts"].items():
        pr = result["probabilities"][label]
        lo, hi = pr["ci95"]
        table.add_row(label, str(k), f"{pr['p']:.4f}", f"[{lo:.4f}, {hi:.4f}]")
    console.print(table)
    console.print(f"labelled {result['labelled']}  unsettled {result['unsettled']}  "
                  f"escaped {result['escaped']}  lodged {result['lodged']}  "
                  f"mean simulated time {result['mean_sim_time_s']:.2f} s  elapsed {result['elapsed_s']:.1f} s")


def cmd_bench(args) -> int:
    import json

    from games.devices import entry
    from sim.bench import bench_device
    from sim.output import check_output_path, write_json_atomic
    from sim.world import engine_versions

    names = [n.strip() for n in args.devices.split(",") if n.strip()]
    for name in names:
        entry(name)
    if args.out is not None:
        check_output_path(args.out)
    figures = {"versions": engine_versions(), "devices": {}}
    for name in names:
        figures["devices"][name] = fig = bench_device(name, args.trials)
        print(f"{name}: {fig['trials_per_s']:.2f} trials/s, bare loop {fig['bare_trials_per_s']:.2f} trials/s, "
              f"ratio {fig['ratio_vs_bare']:.3f} ({fig['steps']} steps, {fig['us_per_step']:.1f} us/step)",
              flush=True)
    if args.out is not None:
        write_json_atomic(args.out, figures)
    else:
        print(json.dumps(figures, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return {"play": cmd_play, "estimate": cmd_estimate, "bench": cmd_bench}[args.command](args)
    except InputError as exc:
        print(f"tabletop: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
