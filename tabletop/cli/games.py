"""The game commands: play (the window, or --headless), analyze, replay. Each builds its request
from the parsed arguments, runs the job (tabletop.app) and prints what it says."""
from __future__ import annotations

import sys

from tabletop.app import requests as rq
import tabletop.cli.show as show
from tabletop.cli.parser import given_options
from tabletop.app.console import ConsoleReporter
from tabletop.sim.errors import InputError


def _record(args, name: str):
    """Where `play` writes its replay: --record, none with --no-record, else replays/GAME-seedS-DATE-TIME.ttr."""
    from tabletop.app.games import default_record

    if args.no_record:
        if args.record is not None:
            raise InputError("--record and --no-record contradict each other; give one")
        return None
    return args.record if args.record is not None else default_record(name, args.seed)


def _echo(line: str) -> None:
    print(line, flush=True)


def play(args) -> int:
    from tabletop.app import games

    common = dict(game=args.game, seats=args.seats, seed=args.seed, outcomes=args.outcomes,
                  options=given_options(args))
    # every option is checked, the window's too, whichever way the game is played
    window = rq.WindowRequest(**common, record=None, screenshot=args.screenshot, after_turns=args.after_turns,
                              size=args.size, pace=args.pace)
    if args.headless:
        games.play(rq.PlayRequest(**common, record=_record(args, args.game)), emit=_echo)
        return 0
    if args.screenshot is None:
        window.record = _record(args, args.game)
    return games.play_window(window)


def analyze(args) -> int:
    from tabletop.app.games import analyze as run

    request = rq.AnalyzeRequest(game=args.game, seats=args.seats, seed=args.seed, outcomes=args.outcomes,
                                options=given_options(args), games=args.games, compare=args.compare,
                                workers=args.workers, scheduler=args.scheduler, out=args.out, plot=args.plot,
                                resume=args.resume, solve=args.solve, policy=args.policy)
    run(request, ConsoleReporter(args.quiet, show.show_analyze), emit=print)
    return 0


def replay(args) -> int:
    from tabletop.app import replays

    request = rq.ReplayRequest(file=args.file, summary=args.summary, verify=args.verify, from_turn=args.from_turn,
                               frames=args.frames, fps=args.fps, turns=args.turns, max_frames=args.max_frames,
                               size=args.size)
    if not (request.summary or request.verify):
        if request.frames is not None:
            n, capped = replays.frames(request)
            print(f"wrote {n} frames to {request.frames}"
                  + (f" (stopped at --max-frames {request.max_frames})" if capped else ""))
            return 0
        app, opened = replays.playback(request)
        print(f"replay open, first frame after {opened:.2f} s", file=sys.stderr)
        app.base.run()
        return 0
    from tabletop.gamekit.replay import Divergence

    replay = replays.read(request.file)
    for warning in replay.warnings:
        print(f"tabletop: warning: {warning}", file=sys.stderr)
    if request.summary:
        print("\n".join(replay.lines))
        print(replay.description, file=sys.stderr)
    if request.verify:
        try:
            print(replay.verify(request.from_turn))
        except Divergence as exc:
            print(f"tabletop: replay differs: {exc}", file=sys.stderr)
            return 1
    return 0
