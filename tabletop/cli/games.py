"""The game commands: play (the window, or --headless), analyze, replay. Each builds its request
from the parsed arguments, runs the job (tabletop.app) and prints what it says."""
from __future__ import annotations

import sys

from tabletop.app import requests as rq
import tabletop.cli.show as show
from tabletop.cli.parser import given_options
from tabletop.app.console import ConsoleReporter
from tabletop.sim.errors import InputError


def _record(args, name: str, seed: int):
    """Where `play` writes its replay: --record, none with --no-record, else the games folder's
    GAME-seedS-DATE-TIME.ttr."""
    from tabletop.app.games import default_record

    if args.no_record:
        if args.record is not None:
            raise InputError("--record and --no-record contradict each other; give one")
        return None
    return args.record if args.record is not None else default_record(name, seed)


def _echo(line: str) -> None:
    print(line, flush=True)


def _unused_options(args) -> None:
    """play's options that would do nothing in the mode chosen: one line (the window's options
    with --headless or --online, --after-turns with no --screenshot, --record with one)."""
    window = (("--screenshot", args.screenshot is not None), ("--after-turns", args.after_turns != 0),
              ("--size", args.size != rq.SIZE), ("--pace", args.pace != 0.8))
    if args.headless:
        for flag, given in window:
            if given:
                raise InputError(f"{flag}: not with --headless (no window is drawn)")
    if args.server is not None:
        for flag, given in (*window[1:], ("--from-turn", args.from_turn is not None),
                            ("--no-record", args.no_record)):
            if given:
                raise InputError(f"--online: not with {flag} (the window opens on the room's human seat as "
                                 f"`tabletop join` opens it; the server plays and journals the room's game)")
    if args.after_turns != 0 and args.screenshot is None:
        raise InputError("--after-turns: only with --screenshot (the turns the AI plays before the picture)")
    if args.screenshot is not None and args.record is not None:
        raise InputError("--record: not with --screenshot (a screenshot records no game)")


def play(args) -> int:
    from tabletop.app import games

    _unused_options(args)
    if args.server is not None:
        return _online(args)
    if args.resume is not None or args.continue_game:
        return _resume(args)
    if args.from_turn is not None:
        raise InputError("--from-turn: only with --resume FILE or --continue")
    if args.game is None:
        raise InputError("play: name the game (or give --resume FILE.ttr)")
    seed = 0 if args.seed is None else args.seed
    common = dict(game=args.game, seats=args.seats or "ai,ai", seed=seed, outcomes=args.outcomes,
                  options=given_options(args), calibration=args.calibration)
    # every option is checked, the window's too, whichever way the game is played
    window = rq.WindowRequest(**common, record=None, screenshot=args.screenshot, after_turns=args.after_turns,
                              size=args.size, pace=args.pace)
    if args.headless:
        games.play(rq.PlayRequest(**common, record=_record(args, args.game, seed)), emit=_echo)
        return 0
    if args.screenshot is None:
        window.record = _record(args, args.game, seed)
    return games.play_window(window)


def _online(args) -> int:
    """play GAME --online ws://HOST:PORT: a room made on that server with these seats (default
    human,remote), the window opened on the human seat: `tabletop host` by another name."""
    from tabletop.cli.net import host_room

    for given, flag in ((args.resume is not None or args.continue_game, "--resume or --continue"),
                        (args.headless, "--headless"), (args.screenshot is not None, "--screenshot"),
                        (args.calibration is not None, "--calibration"), (args.record is not None, "--record")):
        if given:
            raise InputError(f"--online: not with {flag} (the server plays and journals the room's game)")
    if args.game is None:
        raise InputError("play: name the game")
    return host_room(rq.HostRequest(game=args.game, seats=args.seats or "human,remote",
                                    seed=0 if args.seed is None else args.seed, outcomes=args.outcomes,
                                    options=given_options(args), server=args.server))


def _resume(args) -> int:
    """play --resume FILE / play GAME --continue: a recorded game played on."""
    from tabletop.app import games

    fixed = [flag for flag, given in (("--seed", args.seed is not None), ("--outcomes", args.outcomes != "physics"),
                                      ("--calibration", args.calibration is not None),
                                      ("--screenshot", args.screenshot is not None)) if given]
    fixed += [f"--{name.replace('_', '-')}" for name in given_options(args)]
    if fixed:
        raise InputError(f"{fixed[0]}: a recorded game is played on with its own seed, chance and options")
    request = rq.ResumeRequest(resume=args.resume, game=args.game, continue_game=args.continue_game,
                               from_turn=args.from_turn, seats=args.seats, headless=args.headless,
                               record=args.record, no_record=args.no_record, size=args.size, pace=args.pace)
    if args.headless:
        games.resume(request, emit=_echo)
        return 0
    return games.resume_window(request)


def recorded(args) -> int:
    """tabletop games: the recorded games, newest first."""
    import time as clock

    from tabletop.app import games

    folder, rows = games.games(rq.GamesRequest(folder=args.folder))
    print(f"{len(rows)} recorded game{'' if len(rows) == 1 else 's'} in {folder}" + (" (newest first):" if rows else ""))
    for row in rows:
        when = clock.strftime("%Y-%m-%d %H:%M", clock.localtime(row["recorded"]))
        if "error" in row:
            print(f"  {when}  {row['file'].name}: does not read ({row['error']})")
            continue
        status = row["status"] + (f", winner {row['winner']}" if row["status"] == "finished" and row["winner"] else "")
        came = f", resumed from {row['resumed_from']}" if row["resumed_from"] else ""
        came += f", played on in {row['continued']}" if row.get("continued") else ""
        print(f"  {when}  {row['game']:16s} {','.join(row['seats']):24s} {row['turns']:4d} turns  {status}{came}  "
              f"{row['file'].name}")
    if any(row.get("status") in ("left", "cut off") and not row.get("continued") for row in rows):
        print("play one on: tabletop play --resume FILE (or tabletop play GAME --continue for the newest)")
    return 0


def analyze(args) -> int:
    from tabletop.app.games import analyze as run

    request = rq.AnalyzeRequest(game=args.game, seats=args.seats, seed=args.seed, outcomes=args.outcomes,
                                options=given_options(args), games=args.games, compare=args.compare,
                                workers=args.workers, scheduler=args.scheduler, out=args.out, plot=args.plot,
                                resume=args.resume, solve=args.solve, policy=args.policy,
                                calibration=args.calibration)
    run(request, ConsoleReporter(args.quiet, show.show_analyze), emit=print)
    return 0


def replay(args) -> int:
    from tabletop.app import replays

    request = rq.ReplayRequest(file=args.file, summary=args.summary, verify=args.verify, from_turn=args.from_turn,
                               frames=args.frames, fps=args.fps, turns=args.turns, max_frames=args.max_frames,
                               size=args.size, review=args.review, reveal=args.reveal, html=args.html)
    if request.html is not None:
        from tabletop.app.review import playback_review

        review = None if request.review is None else playback_review(request)
        size = replays.html(request, review)
        print(f"wrote {request.html} ({size / 1e6:.1f} MB): open it in any browser")
        return 0
    if not (request.summary or request.verify):
        if request.frames is not None:
            n, capped = replays.frames(request)
            print(f"wrote {n} frames to {request.frames}"
                  + (f" (stopped at --max-frames {request.max_frames})" if capped else ""))
            return 0
        from tabletop.app.review import BackgroundReview, playback_review

        review = None if request.review in (None, "") else playback_review(request)
        pending = BackgroundReview(request.file) if request.review == "" else None     # the window opens meanwhile
        try:
            app, opened = replays.playback(request, review, pending)
            print(f"replay open, first frame after {opened:.2f} s", file=sys.stderr)
            app.base.run()
        finally:
            if pending is not None:
                pending.stop()
        return 0
    from tabletop.gamekit.replay import Divergence

    replay = replays.read(request.file)
    for warning in replay.warnings:
        print(f"tabletop: warning: {warning}", file=sys.stderr)
    if request.summary:
        summary = replay.summary(request.reveal)
        print("\n".join(summary.lines))
        if summary.note:
            print(summary.note, file=sys.stderr)
        print(replay.description, file=sys.stderr)
    if request.verify:
        try:
            print(replay.verify(request.from_turn))
        except Divergence as exc:
            print(f"tabletop: replay differs: {exc}", file=sys.stderr)
            return 1
    return 0


def review(args) -> int:
    """tabletop review FILE.ttr: the game's review printed; --out and --plot written."""
    from tabletop.app.review import review as run

    request = rq.ReviewRequest(file=args.file, out=args.out, plot=args.plot, rollouts=args.rollouts, seed=args.seed,
                               workers=args.workers, estimate=args.estimate, rollout_seat=args.rollout_seat,
                               precision=args.precision)
    run(request, ConsoleReporter(args.quiet, lambda result: print("\n".join(result.lines), flush=True)))
    return 0
