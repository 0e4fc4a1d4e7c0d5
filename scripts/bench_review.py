"""A King Kong review timed against the previous default (issue 36): the same recorded game reviewed
by this build's review (its default: one worker per core, each decision's loss to +-10 points) and
by the review as it was before (gamekit/review.py and games/king_kong/ai.py read from the git
revision --baseline: 32 rollouts a position, one worker, each loss measured on 16 of them), with the
intervals each gives: the decisions' losses' 95% half-widths and the path values'. Then this build at
the baseline's own loss width (--precision set to the baseline's median half-width), on one worker
and on the default workers: the speed-up at the same interval width.

The game: a finished game of --turns player turns (default 20) recorded headless (plan against ai,
chance from the measured tables), the first seed from 1 on whose game lasts that long; or --file.
The load average is printed beside every timing: on a machine others use, timings are noisy.

    python scripts/bench_review.py                    # about 10 minutes on 2 idle cores
    python scripts/bench_review.py --skip-baseline    # this build only
    python scripts/bench_review.py --out bench-review.json
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "fcecdbf"          # the last commit before issue 36's review work


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def recorded_game(turns: int, folder: Path) -> Path:
    """A finished King Kong game of `turns` player turns, recorded headless (the first seed that gives one)."""
    from tabletop.app.games import play
    from tabletop.app.requests import PlayRequest
    from tabletop.app.review import _recorded_game

    for seed in range(1, 500):
        path = folder / f"king-kong-{turns}-turns-seed{seed}.ttr"
        if not path.exists():
            play(PlayRequest("king-kong", seats=("plan", "ai"), seed=seed, outcomes="measured", record=path))
        _, _, _, game, history = _recorded_game(path)
        final = game.replay(history)
        if final.is_terminal() and final.turn == turns:
            return path
    raise SystemExit(f"no seed below 500 gives a King Kong game of {turns} turns")


def old_modules(revision: str):
    """The baseline's gamekit/review.py and games/king_kong/ai.py, as modules of their own."""
    out = []
    for name, path in (("_baseline_review", "gamekit/review.py"), ("_baseline_kk_ai", "games/king_kong/ai.py")):
        text = subprocess.run(["git", "show", f"{revision}:{path}"], cwd=ROOT, check=True, capture_output=True,
                              text=True).stdout
        file = Path(tempfile.mkdtemp()) / f"{name}.py"
        file.write_text(text)
        spec = importlib.util.spec_from_file_location(name, file)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        out.append(module)
    return out


def widths(result: dict) -> dict:
    """The decisions' loss half-widths (95%) and the path values' (Wilson, the mover's seat), summarized."""
    losses, zero = [], 0
    for r in result["steps"]:
        if r["kind"] != "decision" or r["forced"] or r.get("grade") is None:
            continue
        if "loss_ci95" in r:
            w = (r["loss_ci95"][1] - r["loss_ci95"][0]) / 2
        else:
            w = 1.96 * r["loss_se"]
        losses.append(w)
        zero += w == 0
    values = [(hi - lo) / 2 for r in result["steps"] for lo, hi in (r["after_ci95"] or [])[:1]]
    losses = np.array(losses)
    nonzero = losses[losses > 0]
    return {"decisions": len(losses), "zero_width": int(zero),
            "loss_halfwidth_median_nonzero": float(np.median(nonzero)) if len(nonzero) else 0.0,
            "loss_halfwidth_mean": float(losses.mean()) if len(losses) else 0.0,
            "loss_halfwidth_max": float(losses.max()) if len(losses) else 0.0,
            "value_halfwidth_median": float(np.median(values)) if values else 0.0}


def cpu() -> float:
    """CPU seconds of this process and of its finished children (the review's workers): the work
    done, far less sensitive than the wall clock to what else the machine runs."""
    import resource

    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def run_new(path: Path, workers: int, precision: float, rollouts: int, seed: int) -> dict:
    from tabletop.app.longrun import Reporter
    from tabletop.app.requests import ReviewRequest
    from tabletop.app.review import review

    class Lines(Reporter):
        def step(self, text):
            print(f"    {text}", flush=True)

    started, used = time.perf_counter(), cpu()
    result = review(ReviewRequest(file=path, rollouts=rollouts, seed=seed, workers=workers, precision=precision),
                    Lines()).to_dict()
    seconds, used = time.perf_counter() - started, cpu() - used
    return {"seconds": seconds, "cpu": used, "played": result["rollouts"]["played"], **widths(result),
            "result": result}


def run_old(path: Path, revision: str, rollouts: int, seed: int) -> dict:
    from tabletop.app.review import _recorded_game, fair_source, review_source

    old, old_ai = old_modules(revision)
    _, definition, config, game, history = _recorded_game(path)
    source, _ = review_source(definition, config)
    seats = [old_ai.make_seat("plan", source) for _ in range(2)]
    reviewer = old.Reviewer(definition, game, history, source, fair_source(definition), None,
                            old.Rollouts(seats, source, seed, definition.max_turns), rollouts)
    calls = []
    run = reviewer.rollouts.run
    reviewer.rollouts.run = lambda state, c, d, seeds: calls.append(len(seeds)) or run(state, c, d, seeds)
    started, used = time.perf_counter(), cpu()
    result = old.review(reviewer, 1)
    seconds, used = time.perf_counter() - started, cpu() - used
    return {"seconds": seconds, "cpu": used, "played": sum(calls), **widths(result), "result": result}


def main(argv=None) -> int:
    from tabletop.app.review import default_workers

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=20, help="the recorded game's player turns (default 20)")
    parser.add_argument("--file", type=Path, help="review this recorded King Kong game instead")
    parser.add_argument("--baseline", default=BASELINE,
                        help=f"the git revision of the review before (default {BASELINE})")
    parser.add_argument("--skip-baseline", action="store_true", help="time this build only")
    parser.add_argument("--rollouts", type=int, default=32, help="rollouts a position, both (default 32)")
    parser.add_argument("--baseline-rollouts", type=int, nargs="*", default=[], metavar="N",
                        help="also the review before at these rollouts a position (its loss intervals narrow as "
                             "1/sqrt(N): about 176 give its decisions +-10 points; each takes N/32 times as long)")
    parser.add_argument("--seed", type=int, default=0, help="the rollouts' seed (default 0)")
    parser.add_argument("--workers", type=int, default=None, help="this build's workers (default: one per core)")
    parser.add_argument("--out", type=Path, help="write the figures as JSON")
    args = parser.parse_args(argv)
    workers = args.workers or default_workers()
    folder = Path(tempfile.mkdtemp(prefix="bench-review-"))
    path = args.file or recorded_game(args.turns, folder)
    print(f"game: {path} ({args.turns} turns); {os.cpu_count()} cores, {load()}", flush=True)
    figures: dict = {"file": str(path), "cores": os.cpu_count(), "rows": []}

    def row(name, data, workers_used):
        data = {k: v for k, v in data.items() if k != "result"}
        data.update(name=name, workers=workers_used, load=os.getloadavg()[0])
        figures["rows"].append(data)
        print(f"  {name:44s} {workers_used} worker(s) {data['seconds']:7.1f} s ({data['cpu']:6.1f} s CPU, "
              f"{data['played']} rollouts)   losses ±{100 * data['loss_halfwidth_median_nonzero']:.1f} median (max "
              f"±{100 * data['loss_halfwidth_max']:.1f}, {data['zero_width']} of {data['decisions']} at ±0)   values "
              f"±{100 * data['value_halfwidth_median']:.1f} median   {load()}", flush=True)
        return data

    old = None
    if not args.skip_baseline:
        print(f"the review before ({args.baseline}): {args.rollouts} rollouts a position, 1 worker ...", flush=True)
        old = row(f"before ({args.baseline}, its default)", run_old(path, args.baseline, args.rollouts, args.seed), 1)
    for n in args.baseline_rollouts:
        print(f"the review before at {n} rollouts a position, 1 worker ...", flush=True)
        row(f"before ({args.baseline}) at {n} rollouts", run_old(path, args.baseline, n, args.seed), 1)
    print(f"this build, its default (±10 points, {workers} workers) ...", flush=True)
    new = row("now, default (loss to ±10 points)", run_new(path, workers, 0.10, args.rollouts, args.seed), workers)
    if old is not None:
        width = round(max(old["loss_halfwidth_median_nonzero"], 0.02), 3)
        print(f"this build at the baseline's loss width (±{100 * width:.1f} points) ...", flush=True)
        same1 = row(f"now, at the same width (±{100 * width:.1f})",
                    run_new(path, 1, width, args.rollouts, args.seed), 1)
        same = same1
        if workers > 1:
            same = row(f"now, at the same width (±{100 * width:.1f})", run_new(path, workers, width, args.rollouts,
                                                                              args.seed), workers)
        figures["speedup_same_width_1_worker"] = old["seconds"] / same1["seconds"]
        figures["cpu_ratio_same_width"] = old["cpu"] / same["cpu"]
        figures["speedup_same_width"] = old["seconds"] / same["seconds"]
        figures["speedup_default"] = old["seconds"] / new["seconds"]
        print(f"speed-up at the same loss width: {figures['speedup_same_width']:.1f}x on {workers} workers, "
              f"{figures['speedup_same_width_1_worker']:.1f}x on one; the new default (±10 points against "
              f"±{100 * old['loss_halfwidth_median_nonzero']:.0f}) in {new['seconds'] / old['seconds']:.2f} of the "
              f"time before; CPU at the same width {figures['cpu_ratio_same_width']:.1f}x less", flush=True)
    if args.out:
        args.out.write_text(json.dumps(figures, indent=1))
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
