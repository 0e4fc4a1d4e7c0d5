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
import contextlib
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

    play = sub.add_parser("play", help="play a game in the 3D window, or --headless")
    play.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    play.add_argument("--headless", action="store_true", help="no window: print the game log")
    play.add_argument("--screenshot", metavar="FILE.png", help="render offscreen after --after-turns turns "
                      "(every seat played by the AI) and write a PNG instead of opening the window")
    play.add_argument("--after-turns", type=int, default=0, help="turns to play before --screenshot (default 0)")
    play.add_argument("--size", default="1280x720", help="window or screenshot size WxH (default 1280x720)")
    play.add_argument("--pace", type=float, default=0.8, help="seconds an AI seat waits before it acts (window)")
    play.add_argument("--seats", default="ai,ai", help="comma-separated seats, ai, random or human "
                      "(king-of-the-hill 2-4, knossos 2)")
    play.add_argument("--seed", type=_seed, default=0, help="the game's seed (default 0)")
    play.add_argument("--variant", default="standard", help="king-of-the-hill: standard or special-two-player")
    play.add_argument("--games-to-win", type=_positive_int, default=3,
                      help="knossos: games needed to win the match (default 3)")
    play.add_argument("--outcomes", default="physics",
                      help="physics (simulate every tilt and knock), or table:FILE.json[,FILE.json] "
                           "to sample from saved estimate results")
    play.add_argument("--record", type=Path, metavar="FILE.ttr",
                      help="write the replay here (default: replays/GAME-seedS-DATE-TIME.ttr)")
    play.add_argument("--no-record", action="store_true", help="write no replay")

    est = sub.add_parser("estimate", help="estimate a physical device's outcome probabilities by simulation")
    est.add_argument("device", help=f"one of: {', '.join(DEVICES)}")
    est.add_argument("--trials", type=_positive_int, default=None,
                     help="number of trials (default 1000; with --precision the cap, default 100000)")
    est.add_argument("--seed", type=_seed, default=0, help="the run's seed (default 0)")
    est.add_argument("--workers", type=_positive_int, default=1, help="local worker processes (default 1)")
    est.add_argument("--out", type=Path, help="write the result as JSON to this file")
    est.add_argument("--spec", type=Path, help="device spec TOML (default: the one in assets/)")
    est.add_argument("--quiet", action="store_true", help="no progress bar")
    est.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="overrides",
                     help="override a physical parameter of the spec (e.g. knock.speed=[0.3,0.7], "
                          "materials.glass.friction=0.3); repeatable")
    est.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                     help="run the trials on this Dask cluster instead of local processes (pip install -e '.[dist]')")
    est.add_argument("--plot", type=Path, metavar="FILE.png",
                     help="draw the outcome probabilities with their 95%% intervals")
    est.add_argument("--against", metavar="uniform|FILE.json",
                     help="chi-square test against equal odds or a saved estimate result")
    est.add_argument("--resume", action="store_true",
                     help="continue an interrupted run from the checkpoint beside --out")
    est.add_argument("--precision", type=float, default=None, metavar="H",
                     help="keep running until every label's 95%% interval half-width is at most H")
    est.add_argument("--record-trials", type=_positive_int, default=None, metavar="K",
                     help="record the first K trials (pose frames and outcomes) as a replay")
    est.add_argument("--record", type=Path, metavar="FILE.ttr",
                     help="with --record-trials: the replay file (default: replays/DEVICE-seedS-trials-DATE-TIME.ttr)")

    rep = sub.add_parser("replay", help="play back, summarize or verify a recorded game or trial run")
    rep.add_argument("file", type=Path, help="a .ttr replay file")
    rep.add_argument("--summary", action="store_true", help="print the game's log and result (no window)")
    rep.add_argument("--frames", type=Path, metavar="DIR", help="write the playback as PNG frames into DIR (offscreen)")
    rep.add_argument("--fps", type=float, default=30.0, help="with --frames: frames per second of playback (default 30)")
    rep.add_argument("--size", default="1280x720", help="window or frame size WxH (default 1280x720)")
    rep.add_argument("--verify", action="store_true",
                     help="re-simulate from the recorded seeds and actions; exit 1 at the first difference")

    sweep = sub.add_parser("sweep", help="estimate a device at each value of one physical parameter")
    sweep.add_argument("device", help=f"one of: {', '.join(DEVICES)}")
    sweep.add_argument("--param", required=True, metavar="NAME=LO:HI:STEPS",
                       help="the parameter and its values, e.g. materials.glass.friction=0.2:0.5:4")
    sweep.add_argument("--trials", type=_positive_int, default=200, help="trials at each value (default 200)")
    sweep.add_argument("--seed", type=_seed, default=0)
    sweep.add_argument("--workers", type=_positive_int, default=1)
    sweep.add_argument("--scheduler", metavar="tcp://HOST:PORT")
    sweep.add_argument("--spec", type=Path)
    sweep.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="overrides")
    sweep.add_argument("--out", type=Path, metavar="FILE.json", help="the table as JSON")
    sweep.add_argument("--csv", type=Path, metavar="FILE.csv", help="the table as CSV")
    sweep.add_argument("--plot", type=Path, metavar="FILE.png", help="each label's probability against the value")
    sweep.add_argument("--quiet", action="store_true")

    bench = sub.add_parser("bench", help="measure trials per second beside a bare PyBullet loop")
    bench.add_argument("--trials", type=_positive_int, default=None,
                       help="trials per device (default 100, 20 with --quick)")
    bench.add_argument("--devices", default=",".join(DEVICES), help="comma-separated devices (default: all)")
    bench.add_argument("--out", type=Path, help="write the figures as JSON to this file")
    bench.add_argument("--quick", action="store_true", help="fewer trials, no scaling runs")
    bench.add_argument("--scaling-trials", type=_positive_int, default=2000,
                       help="crater trials for the 1 vs 2 workers vs Dask scaling runs (default 2000)")
    return parser


GAMES = ("king-of-the-hill", "knossos", "king-kong")
SEAT_KINDS = ("ai", "random", "human")


def cmd_play(args) -> int:
    if args.game not in GAMES:
        raise InputError(f"unknown game {args.game!r}; choose one of: {', '.join(GAMES)}")
    if args.game == "king-kong" and args.headless:
        from games.king_kong import session
        return session.play_command(args.seats, args.headless, args.seed, args.outcomes,
                                    _record_path(args, args.game))
    seats = [s.strip() for s in args.seats.split(",")]
    unknown = [s for s in seats if s not in SEAT_KINDS]
    if unknown:
        raise InputError(f"--seats: unknown seat kind {unknown[0]!r}; use {', '.join(SEAT_KINDS)}")
    if not args.headless:
        from games.view.window import parse_size, play_window
        if args.after_turns < 0:
            raise InputError(f"--after-turns: must be 0 or more, got {args.after_turns}")
        if args.pace < 0:
            raise InputError(f"--pace: must be 0 or more seconds, got {args.pace}")
        size = parse_size(args.size)
        record = None if args.screenshot is not None else _record_path(args, args.game)
        return play_window(args.game, seats, args.seed, args.variant, args.games_to_win, args.screenshot,
                           args.after_turns, size, args.pace, record)
    if "human" in seats:
        raise InputError("--seats: a human seat needs the window; drop --headless or use ai/random seats")
    record = _record_path(args, args.game)
    if args.game == "knossos":
        from games.knossos import session
        return session.play_headless(seats, args.seed, args.games_to_win, args.outcomes, record)
    from games.king_of_the_hill import session
    return session.play_headless(seats, args.seed, args.variant, args.outcomes, record)


def _record_path(args, name: str, suffix: str = "") -> Path | None:
    """Where `play` (or `estimate --record-trials`) writes its replay; None with --no-record."""
    if getattr(args, "no_record", False):
        if args.record is not None:
            raise InputError("--record and --no-record contradict each other; give one")
        return None
    if args.record is not None:
        from sim.output import check_output_path
        return check_output_path(args.record, "--record")
    from games.replay import default_path
    return default_path(name, args.seed, suffix=suffix)


def cmd_replay(args) -> int:
    from games.replay import Divergence, describe, summary_lines, verify
    from sim.record import ReplayFile

    if not (args.summary or args.verify):
        from games.view.playback import open_replay, write_frames
        from games.view.window import parse_size

        size = parse_size(args.size)
        if args.frames is not None:
            if not 0 < args.fps <= 240:
                raise InputError(f"--fps: between 0 and 240 frames per second, got {args.fps}")
            if args.frames.exists() and not args.frames.is_dir():
                raise InputError(f"--frames: {args.frames} exists and is not a folder")
            if not args.frames.parent.is_dir():
                raise InputError(f"--frames: folder {args.frames.parent} does not exist")
            args.frames.mkdir(exist_ok=True)
            n = write_frames(args.file, args.frames, args.fps, size)
            print(f"wrote {n} frames to {args.frames}")
            return 0
        app, window, opened = open_replay(args.file, size=size)
        print(f"replay open, first frame after {opened:.2f} s", file=sys.stderr)
        app.base.run()
        return 0
    replay = ReplayFile.open(args.file)
    for warning in replay.warnings:
        print(f"tabletop: warning: {warning}", file=sys.stderr)
    if args.summary:
        print("\n".join(summary_lines(replay)))
        print(describe(replay), file=sys.stderr)
    if args.verify:
        try:
            print(verify(replay))
        except Divergence as exc:
            print(f"tabletop: replay differs: {exc}", file=sys.stderr)
            return 1
    return 0


def cmd_estimate(args) -> int:
    import shlex

    from rich.console import Console

    from games.devices import DEVICES, default_spec, entry, make_device
    from sim.batch import DeviceRef, dask_executor, run_batch, summarize
    from sim.checkpoint import Checkpoint, checkpoint_path
    from sim.output import check_output_path, write_json_atomic
    from sim.spec import digest, override_value, parse_overrides
    from sim.world import engine_versions

    entry(args.device)  # unknown device -> InputError
    if args.out is not None:
        check_output_path(args.out)
    elif args.resume:
        raise InputError("--resume needs --out: the checkpoint lives beside the result file")
    if args.precision is not None and not 0.0 < args.precision < 0.5:
        raise InputError(f"--precision: a 95% half-width between 0 and 0.5, got {args.precision}")
    if args.plot is not None:
        check_output_path(args.plot, "--plot")
    cap = args.trials or (100_000 if args.precision is not None else 1000)
    if args.record is not None and args.record_trials is None:
        raise InputError("--record needs --record-trials K: the number of trials to record")
    if args.record_trials is not None and args.record_trials > cap:
        raise InputError(f"--record-trials: {args.record_trials} is more than the {cap} trials of the run")
    record = _record_path(args, args.device, "trials") if args.record_trials else None
    spec = (args.spec or default_spec(args.device)).resolve()
    overrides = parse_overrides(args.overrides)
    device = make_device(args.device, spec, overrides)  # a bad spec or override fails here, before any work
    labels, params = device.labels, device.params()
    ref = DeviceRef("games.devices:make_device", (args.device, str(spec), overrides))
    reference = _reference(args.against, args.device, labels) if args.against else None
    err = Console(stderr=True)
    stack = contextlib.ExitStack()   # the Dask client, connected before anything is written
    executor = stack.enter_context(dask_executor(args.scheduler)) if args.scheduler else None
    checkpoint = None
    if args.out is not None:
        header = {"device": args.device, "seed": args.seed, "params": digest(params)}
        try:
            checkpoint = (Checkpoint.resume if args.resume else Checkpoint.create)(checkpoint_path(args.out), header)
        except InputError:
            stack.close()
            device.close()
            raise
    records = list(checkpoint.records) if checkpoint else []
    if records:
        err.print(f"resuming: {len(records)} trials already in {checkpoint.path}")
    # with --precision: a first round of 50 trials, then doubling until the intervals are narrow enough
    target = cap if args.precision is None else min(cap, max(50, len(records)))
    started = time.perf_counter()
    try:
        with _progress(err, args, target) as bar:
            bar.advance(min(len(records), target))
            while True:
                done = {r["index"] for r in records}
                records += run_batch(ref, target, args.seed, args.workers,
                                     device=device if args.workers == 1 else None, progress=bar.advance,
                                     skip=done, on_chunk=checkpoint.append if checkpoint else None,
                                     executor=executor)
                current = [r for r in records if r["index"] < target]
                if args.precision is None or target >= cap:
                    break
                summary = summarize(labels, current)
                widest = max((pr["ci95"][1] - pr["ci95"][0]) / 2 for pr in summary["probabilities"].values())
                if widest <= args.precision:
                    break
                target = min(cap, target * 2)
                bar.grow(target)
        if record is not None:
            # the batch ran in workers (or on its own device): the first K trials run again here on a
            # fresh device with the same per-trial seeds, watched by a MotionRecorder
            from games.replay import record_trials

            for warning in record_trials(record, args.device, spec, overrides, args.seed,
                                         min(args.record_trials, target), records):
                err.print(f"[yellow]warning: {warning}[/yellow]")
            err.print(f"recorded {min(args.record_trials, target)} trials in {record}")
    except KeyboardInterrupt:
        if checkpoint is None:
            err.print("[yellow]interrupted: no result written (give --out to keep a checkpoint)[/yellow]")
        else:
            again = shlex.join(["tabletop", *sys.argv[1:]] + ([] if args.resume else ["--resume"]))
            err.print(f"[yellow]interrupted after {len(checkpoint.records)} trials, kept in {checkpoint.path}; "
                      f"resume with: {again}[/yellow]")
        return 130
    finally:
        device.close()
        stack.close()
    elapsed = time.perf_counter() - started
    records = sorted((r for r in records if r["index"] < target), key=lambda r: r["index"])
    result = {
        "device": args.device,
        "description": DEVICES[args.device].summary,
        "seed": args.seed,
        "workers": args.workers,
        "scheduler": args.scheduler,
        **summarize(labels, records),
        **device.summarize_extra(records),
        "spec": str(spec),
        "overrides": {name: override_value(name, value) for name, value in overrides},
        "params": params,
        "versions": engine_versions(),
        "elapsed_s": round(elapsed, 3),
    }
    if args.precision is not None:
        widest = max((pr["ci95"][1] - pr["ci95"][0]) / 2 for pr in result["probabilities"].values())
        result["precision"] = {"asked": args.precision, "reached": widest, "met": widest <= args.precision,
                               "cap": cap, "trials_needed": len(records)}
        err.print(f"precision {args.precision}: widest 95% half-width {widest:.4f} after {len(records)} trials"
                  + ("" if widest <= args.precision else f" (the cap of {cap} trials was reached first)"))
    if reference is not None:
        from sim.analysis import chi_square

        result["against"] = {"name": args.against, **chi_square(result["counts"], reference)}
    _print_table(Console(), result)
    if reference is not None:
        a = result["against"]
        Console().print(f"against {args.against}: chi-square {a['chi2']:.2f} on {a['dof']} degrees of freedom, "
                        f"p = {a['p_value']:.3g}")
    if args.plot is not None:
        from sim.analysis import plot_outcomes

        plot_outcomes(result, args.plot)
        err.print(f"wrote {args.plot}")
    if args.out is not None:
        write_json_atomic(args.out, result)
        checkpoint.remove()
        err.print(f"wrote {args.out}")
    return 0


def _reference(against: str, device: str, labels) -> dict[str, float]:
    """Reference probabilities for --against: equal odds, or a saved estimate of the same device."""
    if against == "uniform":
        return {label: 1.0 / len(labels) for label in labels}
    from games.chance import load_estimate_table

    table = load_estimate_table(against)
    if device not in table:
        raise InputError(f"--against: {against} is a {next(iter(table))} result, not {device}")
    return table[device]


def cmd_sweep(args) -> int:
    import csv
    import io

    import numpy as np
    from rich.console import Console

    from games.devices import default_spec, entry, make_device
    from sim.batch import DeviceRef, dask_executor, run_batch, summarize
    from sim.output import check_output_path, write_json_atomic
    from sim.spec import parse_overrides
    from sim.world import engine_versions

    entry(args.device)
    name, sep, rng_text = args.param.partition("=")
    parts = rng_text.split(":")
    try:
        lo, hi, steps = float(parts[0]), float(parts[1]), int(parts[2])
        if len(parts) != 3 or steps < 2 or not np.isfinite([lo, hi]).all():
            raise ValueError
    except (ValueError, IndexError):
        raise InputError(f"--param: expected NAME=LO:HI:STEPS with STEPS >= 2, got {args.param!r}") from None
    for option, path in (("--out", args.out), ("--csv", args.csv), ("--plot", args.plot)):
        if path is not None:
            check_output_path(path, option)
    spec = (args.spec or default_spec(args.device)).resolve()
    base = parse_overrides(args.overrides)
    values = [float(v) for v in np.linspace(lo, hi, steps)]
    for v in (values[-1], values[0]):   # an unknown name or an impossible value fails before any work
        probe = make_device(args.device, spec, base + ((name, repr(v)),))
        labels = probe.labels
        probe.close()
    err, out = Console(stderr=True), Console()
    executor_cm = dask_executor(args.scheduler) if args.scheduler else contextlib.nullcontext(None)
    rows = []
    with executor_cm as executor:
        for v in values:
            ref = DeviceRef("games.devices:make_device", (args.device, str(spec), base + ((name, repr(v)),)))
            records = run_batch(ref, args.trials, args.seed, args.workers, executor=executor)
            s = summarize(labels, records)
            rows.append({"value": v, **{k: s[k] for k in ("trials", "labelled", "unsettled", "escaped", "lodged",
                                                          "counts", "probabilities")}})
            if not args.quiet:
                err.print(f"{name} = {v:.6g}: " + ", ".join(f"{k} {pr['p']:.3f}" for k, pr in s["probabilities"].items()))
    table = io.StringIO()
    w = csv.writer(table)
    w.writerow([name, "trials", "labelled", *[f"p_{k}" for k in labels], *[f"lo_{k}" for k in labels],
                *[f"hi_{k}" for k in labels]])
    for r in rows:
        pr = r["probabilities"]
        w.writerow([r["value"], r["trials"], r["labelled"], *[pr[k]["p"] for k in labels],
                    *[pr[k]["ci95"][0] for k in labels], *[pr[k]["ci95"][1] for k in labels]])
    from rich.table import Table

    shown = Table(title=f"{args.device}: {args.trials} trials at each {name}")
    shown.add_column(name, justify="right")
    for k in labels:
        shown.add_column(f"p({k})", justify="right")
    for r in rows:
        shown.add_row(f"{r['value']:.6g}", *[f"{r['probabilities'][k]['p']:.3f}" for k in labels])
    out.print(shown)
    result = {"device": args.device, "param": name, "values": values, "seed": args.seed, "trials_each": args.trials,
              "overrides": dict(base), "rows": rows, "spec": str(spec), "versions": engine_versions()}
    if args.out is not None:
        write_json_atomic(args.out, result)
    if args.csv is not None:
        _write_text_atomic(args.csv, table.getvalue())
    if args.plot is not None:
        from sim.analysis import plot_sweep

        plot_sweep(args.device, name, values, rows, args.plot)
    return 0


def _write_text_atomic(path: Path, text: str) -> None:
    import os
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=path.parent if str(path.parent) else ".", suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


class _Bar:
    """A rich progress bar (or nothing with --quiet) whose total can grow."""

    def __init__(self, progress, task):
        self.progress, self.task = progress, task

    def advance(self, n: int) -> None:
        if self.progress is not None:
            self.progress.advance(self.task, n)

    def grow(self, total: int) -> None:
        if self.progress is not None:
            self.progress.update(self.task, total=total)


@contextlib.contextmanager
def _progress(console, args, total: int):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    if args.quiet:
        yield _Bar(None, None)
        return
    columns = (TextColumn(f"{args.device}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        yield _Bar(progress, progress.add_task("trials", total=total))


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
    trials = args.trials or (20 if args.quick else 100)
    for name in names:
        figures["devices"][name] = fig = bench_device(name, trials)
        print(f"{name}: {fig['trials_per_s']:.2f} trials/s, bare loop {fig['bare_trials_per_s']:.2f} trials/s, "
              f"ratio {fig['ratio_vs_bare']:.3f} ({fig['steps']} steps, {fig['us_per_step']:.1f} us/step)",
              flush=True)
    if not args.quick:
        from sim.bench import bench_scaling

        figures["scaling"] = sc = bench_scaling("crater", args.scaling_trials)
        print(f"scaling, {sc['trials']} crater trials: 1 worker {sc['local_1_s']:.1f} s, 2 workers "
              f"{sc['local_2_s']:.1f} s (x{sc['speedup_2_vs_1']:.2f})"
              + (f", Dask 2 workers {sc['dask_2_s']:.1f} s ({sc['dask_vs_local_2']:.2f} of local)"
                 if "dask_2_s" in sc else ", Dask not installed"), flush=True)
    if args.out is not None:
        write_json_atomic(args.out, figures)
    else:
        print(json.dumps(figures, indent=2))
    return 0


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return {"play": cmd_play, "estimate": cmd_estimate, "sweep": cmd_sweep,
                "bench": cmd_bench, "replay": cmd_replay}[args.command](args)
    except InputError as exc:
        print(f"tabletop: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
