"""The `tabletop` command.

  tabletop play king-of-the-hill --headless --seats ai,ai,ai,ai --seed S
                [--variant special-two-player] [--outcomes physics|measured|table:FILE.json[,FILE.json]]
  tabletop play knossos --headless --seats ai,ai --seed S [--games-to-win 3]
                [--outcomes physics|measured|table:FILE.json]
  tabletop estimate DEVICE --trials N --seed S --workers W --out FILE.json [--spec FILE.toml]
                    [--sensitivity [--sensitivity-trials M]] [--uncertainty]
  tabletop converge DEVICE --trials N --seed S --workers W [--out FILE.json] [--only NAME,NAME]
  tabletop analyze GAME --games N --seats ai,ai --outcomes measured|fair|table:FILE.json[,FILE.json] --seed S
                   --workers W [--compare fair] [--out FILE.json] [--plot FILE.png] [--resume]
  tabletop bench [--trials N] [--out FILE.json]
  tabletop bench --rules [--rules-games N] [--rules-seats random|ai] [--out FILE.json]
  tabletop validate [--quick] [--workers W] [--seed S] [--out FILE.json]
  tabletop                      (no command: one line naming the commands, exit 2)

Bad input gets one line on stderr naming the problem and exit code 2; nothing is written. Output
names (--plot's format included) are checked before any work; at the end --out is written (whole,
then the checkpoint goes) before --plot is drawn, and a plot that fails then is one line, exit 2,
the result kept. Ctrl-C: exit 130. A table file (table:FILE.json) that is no path here but names a
packaged measured table (sticks-10k-seed1.json) is that table.
"""
from __future__ import annotations

import argparse
import contextlib
import sys
import time
from pathlib import Path

from tabletop.sim.errors import InputError

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


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
    from tabletop.games.devices import DEVICES
    from tabletop.games.registry import GAMES

    parser = _Parser(prog="tabletop", description="Physics-simulated tabletop for three vintage games.",
                     epilog="`tabletop COMMAND --help` gives a command's options.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    play = sub.add_parser("play", help="play a game in the 3D window, or --headless")
    play.add_argument("game", help=f"one of: {', '.join(GAMES)}")
    play.add_argument("--headless", action="store_true", help="no window: print the game log")
    play.add_argument("--screenshot", metavar="FILE.png", help="render offscreen after --after-turns turns "
                      "(every seat played by the AI) and write a PNG instead of opening the window")
    play.add_argument("--after-turns", type=int, default=0, help="turns to play before --screenshot (default 0)")
    play.add_argument("--size", default="1280x720", help="window or screenshot size WxH (default 1280x720)")
    play.add_argument("--pace", type=float, default=0.8, help="seconds an AI seat waits before it acts (window)")
    play.add_argument("--seats", default="ai,ai", help=f"comma-separated seats ({_seat_help(GAMES, lambda s: s.seat_kinds)}; "
                      "default ai,ai): plan plans with the chance tables, solved plays perfectly for the sticks' "
                      "table (--outcomes table:FILE's, else the measured assets/measured/sticks-10k-seed1.json)")
    play.add_argument("--seed", type=_seed, default=0, help="the game's seed (default 0)")
    _add_game_options(play, GAMES)
    play.add_argument("--outcomes", default="physics",
                      help="where chance comes from: physics (simulate every chance event; the default), "
                           "measured (with --headless: sample the published 10,000-trial estimates, "
                           "assets/measured, as analyze does), table:FILE.json[,FILE.json] (sample from saved "
                           f"estimate results of each game's devices: {_device_help(GAMES)}; a bare name such as "
                           "DEVICE-10k-seed1.json names a packaged measured table)" + _sources_help(GAMES))
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
                          "materials.pairs.glass/polystyrene.friction=0.3); repeatable")
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
    est.add_argument("--sensitivity", action="store_true",
                     help="run the trial seeds again with each material pair value and gesture range at the low "
                          "and at the high end of its range: each label's change of p, and its model band")
    est.add_argument("--sensitivity-trials", type=_positive_int, default=None, metavar="M",
                     help="with --sensitivity: use only the first M trial seeds for those runs (default: all)")
    est.add_argument("--uncertainty", action="store_true",
                     help="run the trial seeds again with every material pair value drawn per trial from its "
                          "range: the mixture's odds and each value's correlation with each label")

    conv = sub.add_parser("converge", help="check that a device's odds hold with refined numerics "
                                           "(time step, solver iterations, mesh, settle rule)")
    conv.add_argument("device", help=f"one of: {', '.join(DEVICES)}")
    conv.add_argument("--trials", type=_positive_int, default=1000, help="trials of each run (default 1000)")
    conv.add_argument("--seed", type=_seed, default=0, help="the runs' seed (default 0)")
    conv.add_argument("--workers", type=_positive_int, default=1, help="local worker processes (default 1)")
    conv.add_argument("--out", type=Path, help="write the checks as JSON to this file")
    conv.add_argument("--spec", type=Path, help="device spec TOML (default: the one in assets/)")
    conv.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="overrides",
                      help="override a physical parameter of the spec, as for estimate; repeatable")
    conv.add_argument("--only", metavar="NAME,NAME",
                      help="run only these refinements (default: all the device has)")
    conv.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run the trials on this Dask cluster")
    conv.add_argument("--quiet", action="store_true", help="no progress bar")

    ana = sub.add_parser("analyze", help="play many whole games by the rules with table chance (no physics) and "
                                         "measure them: seat advantage, game length, what each gadget does")
    _analyze_arguments(ana, GAMES)

    val = sub.add_parser("validate", help="throw coins, cubes and cuboids as published experiments did and compare "
                                          "(docs/validation.md)")
    val.add_argument("--quick", action="store_true", help="fewer trials per case (about 1.5 minutes on 2 cores)")
    val.add_argument("--workers", type=_positive_int, default=1, help="local worker processes (default 1)")
    val.add_argument("--seed", type=_seed, default=1, help="the runs' seed (default 1)")
    val.add_argument("--out", type=Path, help="write the table as JSON to this file")
    val.add_argument("--quiet", action="store_true", help="no progress bar")

    rep = sub.add_parser("replay", help="play back, summarize or verify a recorded game or trial run")
    rep.add_argument("file", type=Path, help="a .ttr replay file")
    rep.add_argument("--summary", action="store_true", help="print the game's log and result (no window)")
    rep.add_argument("--frames", type=Path, metavar="DIR", help="write the playback as PNG frames into DIR (offscreen)")
    rep.add_argument("--fps", type=float, default=30.0, help="with --frames: frames per second of playback (default 30)")
    rep.add_argument("--turns", metavar="A:B", help="with --frames: only turns A to B of the file (1-based, "
                     "inclusive; A: or :B leave that end open)")
    rep.add_argument("--max-frames", type=_positive_int, default=3000,
                     help="with --frames: write at most this many frames (default 3000: 100 s at 30 fps)")
    rep.add_argument("--size", default="1280x720", help="window or frame size WxH (default 1280x720)")
    rep.add_argument("--verify", action="store_true",
                     help="re-simulate from the recorded seeds and actions; exit 1 at the first difference")
    rep.add_argument("--from-turn", type=int, default=0, metavar="N",
                     help="with --verify: re-drive the turns before N by the rules alone and re-simulate from "
                          "turn N on (every chance event has its own seed); default 0, the whole game")

    sweep = sub.add_parser("sweep", help="estimate a device at each value of one physical parameter")
    sweep.add_argument("device", help=f"one of: {', '.join(DEVICES)}")
    sweep.add_argument("--param", required=True, metavar="NAME=LO:HI:STEPS",
                       help="the parameter and its values, e.g. materials.pairs.glass/polystyrene.friction=0.3:0.5:3")
    sweep.add_argument("--trials", type=_positive_int, default=200, help="trials at each value (default 200)")
    sweep.add_argument("--seed", type=_seed, default=0, help="the seed of every value's run (default 0)")
    sweep.add_argument("--workers", type=_positive_int, default=1, help="local worker processes (default 1)")
    sweep.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                       help="run the trials on this Dask cluster instead of local processes")
    sweep.add_argument("--spec", type=Path, help="device spec TOML (default: the one in assets/)")
    sweep.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="overrides",
                       help="override another parameter of the spec for every value; repeatable")
    sweep.add_argument("--out", type=Path, metavar="FILE.json", help="the table as JSON")
    sweep.add_argument("--csv", type=Path, metavar="FILE.csv", help="the table as CSV")
    sweep.add_argument("--plot", type=Path, metavar="FILE.png", help="each label's probability against the value")
    sweep.add_argument("--quiet", action="store_true", help="no progress bar")

    bench = sub.add_parser("bench", help="measure trials per second beside a bare PyBullet loop")
    bench.add_argument("--trials", type=_positive_int, default=None,
                       help="trials per device (default 100, 20 with --quick)")
    bench.add_argument("--devices", default=",".join(DEVICES), help="comma-separated devices (default: all)")
    bench.add_argument("--out", type=Path, help="write the figures as JSON to this file")
    bench.add_argument("--quick", action="store_true", help="fewer trials, no scaling runs")
    bench.add_argument("--scaling-trials", type=_positive_int, default=2000,
                       help="crater trials for the 1 vs 2 workers vs Dask scaling runs (default 2000)")
    bench.add_argument("--rules", action="store_true",
                       help="instead of the devices: the rules' speed, whole games of each game with table chance "
                            "(games/s, decisions/s, chance events/s per CPU second, and the load average)")
    bench.add_argument("--rules-games", type=_positive_int, default=None,
                       help="with --rules: games of each game (a match counts as one; default 300, 30 with --quick)")
    bench.add_argument("--rules-seats", choices=("random", "ai"), default="random",
                       help="with --rules: the seats of every game (default random)")
    return parser


def _seat_help(games, kinds) -> str:
    """Every game's seat count and seat kinds (`kinds(spec)`), for --help."""
    def count(spec) -> str:
        lo, hi = spec.seats
        return f"{lo}" if lo == hi else f"{lo}-{hi}"
    return "; ".join(f"{name} {count(spec)} seats of {', '.join(kinds(spec))}" for name, spec in games.items())


def _analyze_arguments(ana, games) -> None:
    """`analyze`'s options; the help lists every game's seat kinds and outcome sources."""
    from tabletop.gamekit.analyze import OUTCOME_CHOICES, seat_kinds

    seats = _seat_help(games, seat_kinds)
    ana.description = ("Whole games played by the rules alone, every chance event drawn from a table: no physics is "
                       "simulated (a physical game takes seconds to minutes; estimate the devices with `tabletop "
                       "estimate` and give the results here). Reports every seat's win rate, the first player's "
                       "advantage, the game's length and what each gadget did, each with its 95% interval.")
    ana.add_argument("game", help=f"one of: {', '.join(games)}")
    ana.add_argument("--games", type=_positive_int, default=1000,
                     help="games to play (a match of several games counts as one; default 1000)")
    ana.add_argument("--seats", default="ai,ai", help=f"comma-separated seat kinds ({seats}; default ai,ai)")
    ana.add_argument("--outcomes", default="measured",
                     help=f"where chance comes from, one of {', '.join(OUTCOME_CHOICES)}: measured (the default: "
                          f"the published 10,000-trial estimates in assets/measured, {_device_help(games)}), "
                          "fair (the idealised chance: even slots, seats and faces, two fair coins for a pair "
                          "of sticks, a spinner's labels by their sectors' share; a device with no fair odds stays "
                          "measured), table:FILE.json[,FILE.json] (saved estimate results, as play takes them)")
    ana.add_argument("--compare", choices=("fair",), default=None,
                     help="also play every game with fair chance (same seeds, same seats) and report each "
                          "figure's difference with its 95%% interval: the measured effect of the gadgets")
    ana.add_argument("--seed", type=_seed, default=0, help="the run's seed (default 0)")
    ana.add_argument("--workers", type=_positive_int, default=1, help="local worker processes (default 1)")
    ana.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                     help="play the games on this Dask cluster instead of local processes (pip install -e '.[dist]')")
    _add_game_options(ana, games)
    ana.add_argument("--out", type=Path, metavar="FILE.json", help="write every figure as JSON to this file")
    ana.add_argument("--plot", type=Path, metavar="FILE.png",
                     help="draw the win rates with their 95%% intervals and the game-length histogram")
    ana.add_argument("--resume", action="store_true",
                     help="continue an interrupted run from the checkpoint beside --out")
    ana.add_argument("--quiet", action="store_true", help="no progress bar")
    ana.add_argument("--solve", action="store_true",
                     help=f"{', '.join(d.name for d in games.values() if d.solved)}: solve the game for "
                          "perfect play (value iteration over every position) with the --outcomes chance and with "
                          "fair chance; print the first player's win probability for each, --out writes them; no "
                          "games are played")
    ana.add_argument("--policy", type=Path, metavar="FILE.npz",
                     help="with --solve: save the perfect-play policy for the --outcomes sticks here")


def cmd_play(args) -> int:
    if args.headless:
        play_headless(args)
        return 0
    spec, seats = _check_play(args)
    if args.outcomes != "physics":
        raise InputError(f"--outcomes {args.outcomes}: the window simulates every chance event (physics); "
                         f"other sources are for --headless play")
    from tabletop.gamekit.view.window import parse_size, play_window
    if args.after_turns < 0:
        raise InputError(f"--after-turns: must be 0 or more, got {args.after_turns}")
    size = parse_size(args.size)
    record = None if args.screenshot is not None else _record_path(args, args.game)
    return play_window(spec, seats, args.seed, args.options, args.screenshot, args.after_turns, size,
                       args.pace, record)


def _check_play(args):
    """The checks every `play` makes (game, pace, variant, options, seat kinds): (its GameDefinition, the seats)."""
    from tabletop.games.registry import game_spec

    spec = game_spec(args.game)
    if args.pace < 0:
        raise InputError(f"--pace: must be 0 or more seconds, got {args.pace}")
    args.options = _check_game_options(spec, args)
    return spec, _check_seats(spec, args.seats, spec.seat_kinds)


def _game_options(games) -> dict:
    """Every registered game's own options by name: (the Option, the games that have it)."""
    out: dict = {}
    for d in games.values():
        for o in d.options:
            out.setdefault(o.name, (o, []))[1].append(d.name)
    return out


def _add_game_options(parser, games) -> None:
    """A flag for each game's own options (the games that have it named in its help); each game
    checks its own (`_check_game_options`)."""
    for name, (o, owners) in _game_options(games).items():
        parser.add_argument(o.flag, dest=f"option_{name}", default=None, metavar=name.upper(),
                            help=f"{', '.join(owners)}: {o.help} (default {o.default})")


def _check_game_options(spec, args) -> dict:
    """The game's options from the parsed flags, checked by the game; a flag of another game's
    option is an InputError."""
    from tabletop.games.registry import GAMES

    given = {}
    for name, (o, owners) in _game_options(GAMES).items():
        value = getattr(args, f"option_{name}", None)
        if value is None:
            continue
        if spec.name not in owners:
            raise InputError(f"{o.flag}: only for {', '.join(owners)}, not {spec.name}")
        given[name] = value
    return spec.check_options(given)


def _device_help(games) -> str:
    return "; ".join(f"{d.name} {', '.join(d.devices)}" for d in games.values())


def _sources_help(games) -> str:
    extra = [f"{d.name}: {d.sources_help}" for d in games.values() if d.sources_help]
    return f"; other sources: {'; '.join(extra)}" if extra else ""


def _check_seats(spec, text: str, kinds) -> list[str]:
    """The --seats list: each a seat kind of `kinds`, as many as the game seats."""
    seats = [s.strip() for s in text.split(",")]
    unknown = [s for s in seats if s not in kinds]
    if unknown:
        raise InputError(f"--seats: unknown seat kind {unknown[0]!r} for {spec.name}; use {', '.join(kinds)}")
    lo, hi = spec.seats
    if not lo <= len(seats) <= hi:
        need = f"exactly {lo}" if lo == hi else f"{lo}-{hi}"
        raise InputError(f"--seats: {spec.title} needs {need} seats, not {len(seats)}")
    return seats


HUMAN_HEADLESS = "--seats: a human seat needs the window; drop --headless or use ai/random seats"


def play_headless(args, emit=None, human=HUMAN_HEADLESS):
    """`play --headless`: the game of the parsed `args` played to its end, its log printed (or each
    line given to `emit`), its replay recorded unless --no-record; returns the final state. The
    command and tabletop.play (tabletop/api.py) both run this; `human` is the message a human seat
    gets (the API's names its own terms)."""
    spec, seats = _check_play(args)
    if "human" in seats:
        raise InputError(human)
    outcomes = play_outcomes(spec, args.outcomes)
    return spec.play_headless(seats, args.seed, outcomes, _record_path(args, args.game), args.options, emit)


def play_outcomes(spec, outcomes: str) -> str:
    """`play`'s --outcomes as the game's sources take it: `measured` (as analyze's default: the
    published tables in the package's assets/measured) becomes `table:` those files, and a
    `table:` file that is no path here but the name of a packaged table is that table."""
    from tabletop.gamekit.chance import measured_paths

    if outcomes == "measured":
        if not spec.devices:
            raise InputError(f"--outcomes measured: {spec.name} has no measured tables")
        return "table:" + ",".join(str(p) for p in measured_paths(spec.devices))
    return resolve_tables(outcomes)


def packaged_table(name: str) -> Path | None:
    """The packaged measured table (assets/measured) that `name` names (`sticks-10k-seed1.json`,
    with or without `.json` or a leading `assets/measured/`), or None."""
    from tabletop.sim.paths import assets_dir

    if Path(name).parent not in (Path("."), Path("assets/measured")):
        return None
    folder = assets_dir() / "measured"
    base = Path(name).name
    for candidate in (base, base + ".json"):
        if base and (folder / candidate).is_file():
            return folder / candidate
    return None


def resolve_tables(outcomes: str) -> str:
    """An --outcomes `table:FILE.json[,FILE.json]` whose files that are no path from here but name a
    packaged measured table (a bare `sticks-10k-seed1.json`, or `assets/measured/...` outside the
    checkout) are given as that table's path; any other text unchanged."""
    if not outcomes.startswith("table:"):
        return outcomes
    files = []
    for f in outcomes[6:].split(","):
        packaged = packaged_table(f) if f and not Path(f).exists() else None
        files.append(str(packaged) if packaged is not None else f)
    return "table:" + ",".join(files)


def _record_path(args, name: str, suffix: str = "") -> Path | None:
    """Where `play` (or `estimate --record-trials`) writes its replay; None with --no-record."""
    if getattr(args, "no_record", False):
        if args.record is not None:
            raise InputError("--record and --no-record contradict each other; give one")
        return None
    if args.record is not None:
        from tabletop.sim.output import check_output_path
        return check_output_path(args.record, "--record")
    from tabletop.gamekit.replay import default_path
    return default_path(name, args.seed, suffix=suffix)


def cmd_replay(args) -> int:
    from tabletop.games.registry import GAMES
    from tabletop.gamekit.replay import Divergence, describe, summary_lines, verify
    from tabletop.sim.record import ReplayFile

    if (args.summary or args.verify) and (args.turns is not None or args.max_frames != 3000):
        raise InputError("--turns and --max-frames: only with --frames")
    if args.from_turn and not args.verify:
        raise InputError("--from-turn: only with --verify")
    if args.from_turn < 0:
        raise InputError(f"--from-turn: must be 0 or more, got {args.from_turn}")
    if not (args.summary or args.verify):
        from tabletop.gamekit.view.playback import open_replay, write_frames
        from tabletop.gamekit.view.window import parse_size

        size = parse_size(args.size)
        if args.frames is not None:
            if not 0 < args.fps <= 240:
                raise InputError(f"--fps: between 0 and 240 frames per second, got {args.fps}")
            from tabletop.sim.output import check_output_dir

            if not args.frames.parent.is_dir():
                raise InputError(f"--frames: folder {args.frames.parent} does not exist")
            turns = _turn_range(args.turns) if args.turns is not None else None
            check_output_dir(args.frames, "--frames")
            n, capped = write_frames(args.file, GAMES, args.frames, args.fps, size, turns, args.max_frames)
            print(f"wrote {n} frames to {args.frames}" + (f" (stopped at --max-frames {args.max_frames})" if capped else ""))
            return 0
        if args.turns is not None:
            raise InputError("--turns: only with --frames")
        app, window, opened = open_replay(args.file, GAMES, size=size)
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
            print(verify(replay, _replayed_game(replay), args.from_turn))
        except Divergence as exc:
            print(f"tabletop: replay differs: {exc}", file=sys.stderr)
            return 1
    return 0


def _replayed_game(replay):
    """The definition of the game a replay records (None: a recording of device trials)."""
    from tabletop.games.registry import GAMES

    if replay.header.get("kind") != "game":
        return None
    name = replay.header.get("game")
    if name not in GAMES:
        raise InputError(f"{replay.path}: the replay is of {name!r}, which this tabletop cannot replay "
                         f"({', '.join(GAMES)})")
    return GAMES[name]


def _executor(args):
    """The Dask executor --scheduler names (None without it), as a context manager."""
    from tabletop.sim.batch import dask_executor

    return dask_executor(args.scheduler) if args.scheduler else contextlib.nullcontext(None)


def _device_from_args(args):
    """The spec, the --set overrides and the device they make: built once here, so that a bad spec
    or override fails before any work."""
    from tabletop.games.devices import default_spec, make_device
    from tabletop.sim.spec import parse_overrides

    spec = (args.spec or default_spec(args.device)).resolve()
    overrides = parse_overrides(args.overrides)
    return spec, overrides, make_device(args.device, spec, overrides)


def _provenance(spec: Path, overrides, params: dict) -> dict:
    """The result fields that say which model a run used."""
    from tabletop.sim.spec import override_value

    return {"spec": str(spec), "overrides": {name: override_value(name, value) for name, value in overrides},
            "params": params}


def _batch_runner(args, spec: Path, overrides, executor):
    """`run(extra, trials, progress, perturb=None)`: the first `trials` trial seeds of --seed on the
    device with `extra` overrides after the command's own (--workers or the Dask `executor`)."""
    from tabletop.games.devices import device_ref
    from tabletop.sim.batch import run_batch

    def run(extra, trials: int, progress, perturb=None) -> list[dict]:
        return run_batch(device_ref(args.device, spec, overrides + tuple(extra)), trials, args.seed, args.workers,
                         progress=progress, executor=executor, perturb=perturb)

    return run


class EstimateInterrupted(KeyboardInterrupt):
    """Ctrl-C during an estimate (or an analyze), after it said on stderr what it kept (the checkpoint)
    and how to resume."""


def cmd_estimate(args) -> int:
    try:
        run_estimate(args, show=_show_estimate, argv=sys.argv[1:])
    except EstimateInterrupted:
        return 130
    return 0


def run_estimate(args, show=None, argv: list[str] | None = None) -> dict:
    """`estimate`: run the parsed `args` and return the result, the dict --out writes. `show(result)`
    (the command's tables) is called before --plot and --out are written; `argv` is the command line
    the resume hint repeats. Bad input is an InputError before any work; Ctrl-C an
    EstimateInterrupted once the checkpoint is kept. The command and tabletop.estimate
    (tabletop/api.py) both run this."""
    from rich.console import Console

    from tabletop.games.devices import DEVICES, device_ref, entry
    from tabletop.sim.batch import run_batch, summarize
    from tabletop.sim.checkpoint import Checkpoint, checkpoint_path
    from tabletop.sim.output import check_output_path, check_plot_path
    from tabletop.sim.spec import digest
    from tabletop.sim.world import engine_versions

    entry(args.device)  # unknown device -> InputError
    if args.out is not None:
        check_output_path(args.out)
    elif args.resume:
        raise InputError("--resume needs --out: the checkpoint lives beside the result file")
    if args.precision is not None and not 0.0 < args.precision < 0.5:
        raise InputError(f"--precision: a 95% half-width between 0 and 0.5, got {args.precision}")
    if args.plot is not None:
        check_plot_path(args.plot, "--plot")
    cap = args.trials or (100_000 if args.precision is not None else 1000)
    if args.record is not None and args.record_trials is None:
        raise InputError("--record needs --record-trials K: the number of trials to record")
    if args.record_trials is not None and args.record_trials > cap:
        raise InputError(f"--record-trials: {args.record_trials} is more than the {cap} trials of the run")
    if args.sensitivity_trials is not None and not args.sensitivity:
        raise InputError("--sensitivity-trials needs --sensitivity")
    if args.sensitivity_trials is not None and args.sensitivity_trials > cap:
        raise InputError(f"--sensitivity-trials: {args.sensitivity_trials} is more than the {cap} trials of the run")
    record = _record_path(args, args.device, "trials") if args.record_trials else None
    spec, overrides, device = _device_from_args(args)
    labels, params = device.labels, device.params()
    ref = device_ref(args.device, spec, overrides)
    reference = _reference(args.against, args.device, labels) if args.against else None
    err = Console(stderr=True)
    stack = contextlib.ExitStack()   # the Dask client, connected before anything is written
    executor = stack.enter_context(_executor(args))
    checkpoint = None
    if args.out is not None:
        header = {"device": args.device, "seed": args.seed, "params": digest(params)}
        try:
            if args.resume:
                _check_resumed_params(checkpoint_path(args.out), header, params)
                checkpoint = Checkpoint.resume(checkpoint_path(args.out), header)
            else:   # the parameters themselves too, so that a refused resume can say which one differs
                checkpoint = Checkpoint.create(checkpoint_path(args.out), {**header, "param_values": _jsonable(params)})
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
        records = sorted((r for r in records if r["index"] < target), key=lambda r: r["index"])
        summary = summarize(labels, records)
        if record is not None:
            # the batch ran in workers (or on its own device): the first K trials run again here on a
            # fresh device with the same per-trial seeds, watched by a MotionRecorder
            from tabletop.gamekit.replay import record_trials

            for warning in record_trials(record, args.device, spec, overrides, args.seed,
                                         min(args.record_trials, target), records):
                err.print(f"[yellow]warning: {warning}[/yellow]")
            err.print(f"recorded {min(args.record_trials, target)} trials in {record}")
        model = _model_runs(args, spec, overrides, device, records, summary["probabilities"], executor, err)
    except KeyboardInterrupt:
        _interrupted(err, checkpoint, "trials", argv, args.resume)
    finally:
        device.close()
        stack.close()
    elapsed = time.perf_counter() - started
    result = {
        "device": args.device,
        "description": DEVICES[args.device].summary,
        "seed": args.seed,
        "workers": args.workers,
        "scheduler": args.scheduler,
        **summary,
        **device.summarize_extra(records),
        **model,
        **_provenance(spec, overrides, params),
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
        from tabletop.sim.analysis import chi_square

        result["against"] = {"name": args.against, **chi_square(result["counts"], reference)}
    return _finish(result, args, show, lambda: _plot_estimate(result, labels, args.plot), checkpoint, err)


def _plot_estimate(result: dict, labels, path: Path) -> None:
    """The estimate's bars, the x-axis saying what a label is, and the fair odds where there are any."""
    from tabletop.sim.analysis import plot_outcomes

    fair = fair_odds(result["device"], labels)
    plot_outcomes(result, path, xlabel=OUTCOME_NOTES.get(result["device"], ("outcome",))[0],
                  **({"fair": fair[0], "fair_note": fair[1]} if fair else {}))


def _jsonable(value):
    """`value` as its JSON text reads back (what a checkpoint header keeps)."""
    import json

    return json.loads(json.dumps(value, default=str))


def _flat(value, prefix: str = "") -> dict:
    """A nested dict's leaves by dotted name ({"physics.timestep": 0.001, ...})."""
    if isinstance(value, dict) and value:
        out = {}
        for key, v in value.items():
            out.update(_flat(v, f"{prefix}{key}."))
        return out
    return {prefix[:-1]: value}


def _check_resumed_params(path: Path, header: dict, params: dict) -> None:
    """Before `--resume` opens the checkpoint at `path`: a checkpoint of the same device and seed made
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
            or any(head.get(k) != header[k] for k in ("device", "seed")):
        return
    kept = head.get("param_values")
    if not isinstance(kept, dict):
        raise InputError(f"--resume: {path} is from another run (params differ: an older checkpoint that does "
                         f"not say which); delete it to start afresh")
    old, new = _flat(kept), _flat(_jsonable(params))
    differ = [k for k in sorted(set(old) | set(new)) if old.get(k, "(none)") != new.get(k, "(none)")]
    shown = "; ".join(f"{k} {old.get(k, '(none)')!r} there, {new.get(k, '(none)')!r} now" for k in differ[:3])
    more = f"; and {len(differ) - 3} more" if len(differ) > 3 else ""
    raise InputError(f"--resume: {path} is from another run (params differ: {shown}{more}); give the same "
                     f"--spec and --set, or delete it to start afresh")


def _finish(result: dict, args, show, plot, checkpoint, err) -> dict:
    """A long run's end: show the result, write --out (the JSON, whole or not at all; the checkpoint
    then goes, the result being safe), then draw `plot()` to --plot; returns the result. A plot that
    fails now (a full disk, a lost permission) is one InputError that says where the result is,
    carrying it as `.result`."""
    from tabletop.sim.output import write_json_atomic

    if show is not None:
        show(result)
    if args.out is not None:
        kept = (f"the finished work is kept in {checkpoint.path}: the same command with --resume writes it"
                if checkpoint is not None else "nothing was written")
        _write(lambda: write_json_atomic(args.out, result), "--out", args.out, kept)
        if checkpoint is not None:
            checkpoint.remove()
        err.print(f"wrote {args.out}")
    if args.plot is not None:
        _draw(plot, args.plot, result, args.out)
        err.print(f"wrote {args.plot}")
    return result


def _write(write, option: str, path: Path, kept: str) -> None:
    """`write()` (a whole file, by a temp file and a rename); an OSError then (a full disk, a lost
    permission) is one InputError saying what is kept."""
    try:
        write()
    except OSError as exc:
        raise InputError(f"{option} {path}: could not write it ({exc.strerror or exc}); {kept}") from None


def _draw(plot, path: Path, result, out: Path | None) -> None:
    """`plot()` drawn to `path`; a failure is one InputError (the result kept as its `.result`)."""
    try:
        plot()
    except (OSError, ValueError, RuntimeError) as exc:
        reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc).splitlines()[0]
        kept = f"the result is in {out}" if out is not None else "the result is shown above; give --out to keep it"
        error = InputError(f"--plot {path}: could not write the plot ({reason}); {kept}")
        error.result = result
        raise error from None


def cmd_analyze(args) -> int:
    try:
        run_analyze(args, show=_show_analyze, argv=sys.argv[1:])
    except EstimateInterrupted:
        return EXIT_INTERRUPTED
    return 0


def _show_analyze(result: dict) -> None:
    from rich.console import Console

    from tabletop.gamekit.analyze import print_report

    print_report(Console(), result)


def _solve(args, spec, options: dict) -> dict:
    """`analyze GAME --solve`: the game's perfect play (a game whose definition is solved), printed,
    --out and --policy written."""
    from tabletop.gamekit import analyze as an
    from tabletop.games.registry import GAMES
    from tabletop.sim.output import check_output_path, write_json_atomic

    if not spec.solved:
        solved = [d.name for d in GAMES.values() if d.solved]
        raise InputError(f"--solve: only {', '.join(solved)} is solved (perfect play), not {spec.name}")
    if not args.solve:
        raise InputError("--policy: only with --solve")
    if args.compare is not None:
        raise InputError("--solve: the fair chance is always solved beside --outcomes; drop --compare")
    for option, path in (("--out", args.out), ("--policy", args.policy)):
        if path is not None:
            check_output_path(path, option)
    kind, files = an.resolve_outcomes(spec.analysis(), resolve_tables(args.outcomes))
    result = spec.solve(args.outcomes, kind, files, options, args.policy, print)
    if args.out is not None:
        write_json_atomic(args.out, result)
    return result


def _interrupted(err, checkpoint, unit: str, argv: list[str] | None, resumed: bool):
    """Ctrl-C in a long run: one line (where the checkpoint is and the command that resumes it),
    then EstimateInterrupted."""
    import shlex

    if checkpoint is None:
        err.print("[yellow]interrupted: no result written (give --out to keep a checkpoint)[/yellow]", soft_wrap=True)
    else:
        again = shlex.join(["tabletop", *(argv or [])] + ([] if resumed else ["--resume"]))
        err.print(f"[yellow]interrupted after {len(checkpoint.records)} {unit}, kept in {checkpoint.path}; "
                  f"resume with: {again}[/yellow]", soft_wrap=True)
    raise EstimateInterrupted() from None


def run_analyze(args, show=None, argv: list[str] | None = None) -> dict:
    """`analyze`: play the parsed `args`' games and return the result, the dict --out writes. Bad
    input is an InputError before any work; Ctrl-C an EstimateInterrupted once the checkpoint is kept
    (with --out) and the command that resumes is printed."""
    from rich.console import Console

    from tabletop.gamekit import analyze as an
    from tabletop.games.registry import game_spec
    from tabletop.sim.batch import TaskRef, run_batch
    from tabletop.sim.checkpoint import Checkpoint, checkpoint_path
    from tabletop.sim.output import check_output_path, check_plot_path
    from tabletop.sim.world import engine_versions

    spec = game_spec(args.game)
    options = _check_game_options(spec, args)
    if args.solve or args.policy is not None:
        return _solve(args, spec, options)
    seats = tuple(_check_seats(spec, args.seats, an.seat_kinds(spec)))
    if args.compare is not None and args.outcomes == args.compare:
        raise InputError(f"--compare {args.compare}: the outcomes are {args.outcomes} already; "
                         f"compare another source with it")
    if args.out is not None:
        check_output_path(args.out, "--out")
    if args.plot is not None:
        check_plot_path(args.plot, "--plot")
    if args.resume and args.out is None:
        raise InputError("--resume needs --out: the checkpoint lives beside the result file")
    analysis = spec.analysis()
    outcomes = (args.outcomes,) + ((args.compare,) if args.compare else ())
    sources = tuple(an.resolve_outcomes(analysis, resolve_tables(o)) for o in outcomes)
    task = an.GameTask(spec, seats, sources, options)   # bad tables or seats fail here
    runs = len(sources)
    ref = TaskRef("tabletop.games.registry:analyze_task", (args.game, seats, sources, tuple(options.items())))
    err = Console(stderr=True)
    stack = contextlib.ExitStack()
    executor = stack.enter_context(_executor(args))
    checkpoint = None
    if args.out is not None:
        header = {"command": "analyze", "game": args.game, "seats": list(seats), **options,
                  "seed": args.seed, "outcomes": list(outcomes),
                  "tables": [an.files_digest(files) for _, files in sources]}
        try:
            checkpoint = (Checkpoint.resume if args.resume else Checkpoint.create)(checkpoint_path(args.out), header)
        except InputError:
            stack.close()
            raise
    records = [r for r in (checkpoint.records if checkpoint else []) if r["index"] < args.games * runs]
    resumed = len(records)
    if records:
        err.print(f"resuming: {len(records)} games already in {checkpoint.path}")
    started = time.perf_counter()
    try:
        with _progress(err, args, args.games * runs, f"{args.game} games") as bar:
            bar.advance(len(records))
            records += run_batch(ref, args.games * runs, args.seed, args.workers,
                                 device=task if args.workers == 1 else None, progress=bar.advance,
                                 skip={r["index"] for r in records}, on_chunk=checkpoint.append if checkpoint else None,
                                 executor=executor)
    except KeyboardInterrupt:
        _interrupted(err, checkpoint, "games", argv, args.resume)
    finally:
        stack.close()
    elapsed = time.perf_counter() - started
    by_run = an.runs_of(records, runs)
    result = {
        "game": args.game, "title": spec.title, "seats": list(seats), **options,
        "seed": args.seed, "seeds": an.SEEDS_DOC, "workers": args.workers, "scheduler": args.scheduler,
        "outcomes": {"name": args.outcomes, "kind": sources[0][0], "files": list(sources[0][1]),
                     **({"fair": analysis.fair_note} if sources[0][0] == "fair" else {})},
        **an.result_of(spec, analysis, seats, outcomes, by_run, args.seed),
        "runs": runs, "fair": analysis.fair_note, "intervals": an.INTERVALS_DOC,
        "what_lengths": {name: analysis.what.get(name, name) for name in by_run[0][0]["lengths"]},
        "versions": engine_versions(), "elapsed_s": round(elapsed, 3),
        "games_per_s": round((len(records) - resumed) / elapsed, 2) if elapsed > 0 else None,
    }
    return _finish(result, args, show, lambda: an.plot_result(result, by_run, next(iter(result["what_lengths"])),
                                                              args.plot), checkpoint, err)


def _show_estimate(result: dict) -> None:
    """The command's tables of an estimate result, on stdout."""
    from rich.console import Console

    _print_table(Console(), result)
    if "against" in result:
        a = result["against"]
        Console().print(f"against {a['name']}: chi-square {a['chi2']:.2f} on {a['dof']} degrees of freedom, "
                        f"p = {a['p_value']:.3g}")
    if "sensitivity" in result:
        _print_sensitivity(Console(), result)
    if "uncertainty" in result:
        _print_uncertainty(Console(), result)


def _model_runs(args, spec: Path, overrides, device, records: list[dict], probabilities: dict, executor, err) -> dict:
    """--sensitivity and --uncertainty: the estimate's trial seeds (`records`, its `probabilities`)
    run again with the model's uncertain inputs at either end of their ranges (and the model band
    they span), or drawn per trial (tabletop.sim.sensitivity)."""
    if not (args.sensitivity or args.uncertainty):
        return {}
    from tabletop.sim import sensitivity as sens
    from tabletop.sim.batch import PairDraws

    pairs = sens.contact_pairs(device, args.seed)
    run = _batch_runner(args, spec, overrides, executor)
    out = {}
    if args.sensitivity:
        params = sens.parameters(device, pairs, spec, overrides)
        m = min(args.sensitivity_trials or len(records), len(records))
        with _progress(err, args, 2 * len(params) * m, f"{args.device} sensitivity") as bar:
            out["sensitivity"] = sens.sensitivity(lambda extra: run(extra, m, bar.advance), device.labels, params,
                                                  records[:m])
        out["model_band"] = sens.model_band(probabilities, out["sensitivity"])
    if args.uncertainty:
        with _progress(err, args, len(records), f"{args.device} uncertainty") as bar:
            drawn = run((), len(records), bar.advance, PairDraws(tuple(pairs)))
        out["uncertainty"] = sens.uncertainty(device.labels, drawn)
    return out


def cmd_converge(args) -> int:
    from rich.console import Console

    from tabletop.games.devices import entry, make_device
    from tabletop.sim.converge import converge, select_refinements
    from tabletop.sim.output import check_output_path, write_json_atomic
    from tabletop.sim.world import engine_versions

    entry(args.device)
    if args.out is not None:
        check_output_path(args.out)
    spec, overrides, device = _device_from_args(args)
    try:
        refinements = select_refinements(device.refinements(), args.only)
        labels, params = device.labels, device.params()
    finally:
        device.close()
    for _, extra in refinements:   # a refinement the spec cannot take fails before any work
        make_device(args.device, spec, overrides + extra).close()
    err = Console(stderr=True)
    started = time.perf_counter()
    try:
        with _executor(args) as executor, \
                _progress(err, args, args.trials * (1 + len(refinements)), f"{args.device} converge") as bar:
            run = _batch_runner(args, spec, overrides, executor)
            block = converge(lambda extra: run(extra, args.trials, bar.advance), labels, refinements)
    except KeyboardInterrupt:
        err.print("[yellow]interrupted: no result written[/yellow]", soft_wrap=True)
        return 130
    result = {"device": args.device, "seed": args.seed, "trials": args.trials,
              **_provenance(spec, overrides, params), **block,
              "versions": engine_versions(), "elapsed_s": round(time.perf_counter() - started, 3)}
    _print_converge(Console(), result)
    if args.out is not None:
        write_json_atomic(args.out, result)
        err.print(f"wrote {args.out}")
    return 0


def _reference(against: str, device: str, labels) -> dict[str, float]:
    """Reference probabilities for --against: equal odds, or a saved estimate of the same device."""
    if against == "uniform":
        return {label: 1.0 / len(labels) for label in labels}
    from tabletop.gamekit.chance import load_estimate_table

    table = load_estimate_table(against if Path(against).exists() else (packaged_table(against) or against))
    if device not in table:
        raise InputError(f"--against: {against} is a {next(iter(table))} result, not {device}")
    return table[device]


def cmd_sweep(args) -> int:
    import csv
    import io

    import numpy as np
    from rich.console import Console

    from tabletop.games.devices import default_spec, device_ref, entry, make_device
    from tabletop.sim.batch import run_batch, summarize
    from tabletop.sim.output import check_output_path, check_plot_path, write_json_atomic, write_text_atomic
    from tabletop.sim.spec import parse_overrides
    from tabletop.sim.world import engine_versions

    entry(args.device)
    name, sep, rng_text = args.param.partition("=")
    parts = rng_text.split(":")
    try:
        lo, hi, steps = float(parts[0]), float(parts[1]), int(parts[2])
        if len(parts) != 3 or steps < 2 or not np.isfinite([lo, hi]).all():
            raise ValueError
    except (ValueError, IndexError):
        raise InputError(f"--param: expected NAME=LO:HI:STEPS with STEPS >= 2, got {args.param!r}") from None
    for option, path in (("--out", args.out), ("--csv", args.csv)):
        if path is not None:
            check_output_path(path, option)
    if args.plot is not None:
        check_plot_path(args.plot, "--plot")
    spec = (args.spec or default_spec(args.device)).resolve()
    base = parse_overrides(args.overrides)
    values = [float(v) for v in np.linspace(lo, hi, steps)]
    if all(p.strip().lstrip("+-").isdigit() for p in parts[:2]) and all(v == round(v) for v in values):
        values = [int(round(v)) for v in values]   # whole-number ends and steps: an integer parameter
    for v in (values[-1], values[0]):   # an unknown name or an impossible value fails before any work
        probe = make_device(args.device, spec, base + ((name, repr(v)),))
        labels = probe.labels
        probe.close()
    err, out = Console(stderr=True), Console()
    rows = []
    with _executor(args) as executor:
        for v in values:
            ref = device_ref(args.device, spec, base + ((name, repr(v)),))
            records = run_batch(ref, args.trials, args.seed, args.workers, executor=executor)
            s = summarize(labels, records)
            rows.append({"value": v, **{k: s[k] for k in ("trials", "labelled", "unsettled", "escaped", "lodged",
                                                          "counts", "probabilities")}})
            if not args.quiet:
                err.print(f"{name} = {v:.6g}: " + ", ".join(f"{k} {pr['p']:.3f}" for k, pr in s["probabilities"].items()),
                          soft_wrap=True)
    table = io.StringIO()
    w = csv.writer(table)
    w.writerow([name, "trials", "labelled", *[f"p_{k}" for k in labels], *[f"lo_{k}" for k in labels],
                *[f"hi_{k}" for k in labels]])
    for r in rows:
        pr = r["probabilities"]
        w.writerow([r["value"], r["trials"], r["labelled"], *[pr[k]["p"] for k in labels],
                    *[pr[k]["ci95"][0] for k in labels], *[pr[k]["ci95"][1] for k in labels]])
    out.print(_sweep_table(args.device, args.trials, name, labels, rows, out.width))
    result = {"device": args.device, "param": name, "values": values, "seed": args.seed, "trials_each": args.trials,
              "overrides": dict(base), "rows": rows, "spec": str(spec), "versions": engine_versions()}
    if args.out is not None:
        _write(lambda: write_json_atomic(args.out, result), "--out", args.out, "the table above is the result")
        err.print(f"wrote {args.out}")
    if args.csv is not None:
        _write(lambda: write_text_atomic(args.csv, table.getvalue()), "--csv", args.csv,
               f"the table above is the result{f', and it is in {args.out}' if args.out else ''}")
        err.print(f"wrote {args.csv}")
    if args.plot is not None:
        from tabletop.sim.analysis import plot_sweep

        _draw(lambda: plot_sweep(args.device, name, values, rows, args.plot), args.plot, result,
              args.out or args.csv)
        err.print(f"wrote {args.plot}")
    return 0


def _sweep_table(device: str, trials: int, name: str, labels, rows: list[dict], width: int):
    """The sweep's table: a row per value, a column per label's p. Headers are never cut: the
    parameter's name is given on lines cut after its dots and slashes, and so are labels like
    cave1/seat1 when the table would not fit `width` columns otherwise."""
    from rich.table import Table

    from tabletop.sim.analysis import wrap_name

    values = [f"{r['value']:.6g}" for r in rows]
    wide = 1 + sum(3 + max(len(k), 5) for k in labels)
    room = max(8, width - wide - 3)
    label_lines = {k: [k] for k in labels}
    if wide + 3 + max(len(name), 8) > width:
        label_lines = {k: wrap_name(k, 5) for k in labels}
        room = max(8, width - 1 - sum(3 + max(max(map(len, label_lines[k])), 5) for k in labels) - 3)
    head = wrap_name(name, max(room, max(map(len, values))))
    shown = Table(title=f"{device}: the probability of each outcome at each value of {name}, {trials} trials each")
    shown.add_column("\n".join(head), justify="right", no_wrap=True, min_width=max(map(len, head)))
    for k in labels:
        shown.add_column("\n".join(label_lines[k]), justify="right", no_wrap=True,
                         min_width=max(5, *map(len, label_lines[k])))
    for v, r in zip(values, rows):
        shown.add_row(v, *[f"{r['probabilities'][k]['p']:.3f}" for k in labels])
    return shown


def _turn_range(text: str) -> tuple[int | None, int | None]:
    """--turns A:B (1-based, inclusive; an end may be left open) as (A, B)."""
    a, sep, b = text.partition(":")
    try:
        first = int(a) if a.strip() else None
        last = int(b) if b.strip() else None
    except ValueError:
        first = last = -1
    if not sep or (first is not None and first < 1) or (last is not None and last < 1) \
            or (first is not None and last is not None and last < first):
        raise InputError(f"--turns: expected A:B with 1 <= A <= B (either end may be left open), got {text!r}")
    return first, last


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
def _progress(console, args, total: int, title: str | None = None):
    """A progress bar of `total` trials titled `title` (default: the device)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    if args.quiet:
        yield _Bar(None, None)
        return
    columns = (TextColumn(title or args.device), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as progress:
        yield _Bar(progress, progress.add_task("trials", total=total))


def _interval(ci, signed: bool = False) -> str:
    sign = "+" if signed else ""
    return f"[{ci[0]:{sign}.4f}, {ci[1]:{sign}.4f}]"


def _statuses(summary: dict) -> str:
    return (f"labelled {summary['labelled']}  unsettled {summary['unsettled']}  "
            f"escaped {summary['escaped']}  lodged {summary['lodged']}")


#: per device: (what a label is: the plot's x-axis, what the labels mean, what a lodged trial is; None
#: where the device has none). The meanings are the devices' own (their module docstrings).
OUTCOME_NOTES = {
    "tipper": ("slot where the ball stops",
               "1-6: the slot the ball stops in, the spaces a marble moves; J: jump, a marble moves 1-10 "
               "spaces of its player's choice (J also ranks above 6 for who starts)",
               "the ball came to rest outside every slot"),
    "crater": ("cave and seat the marble reaches",
               "caveN/seatM: the cave (1-3) and the seat in it (seat1 or seat2) where the knocked-in marble stops",
               "the marble came to rest outside every cave seat"),
    "sticks": ("the sticks' throw",
               "1: both round sides up; 2: one round side and one flat side up; 3: both flat sides up",
               "every throw settled, but the re-throws allowed (reading.max_rethrows) still left a stick "
               "unreadable (on an edge or end, or resting on the other stick)"),
    "die": ("face on top", "1-6: the face on top",
            "cocked: the die came to rest leaning on a wall, no face flat up (a player would throw again)"),
    "spinner": ("outer-circle sector where the pointer stops",
                "the outer circle's twist: L1, L2 left (counter-clockwise) 1 or 2 notches; R1, R2 right; LR1, "
                "LR2 1 or 2 notches, the spinner's choice of direction; UP return to up; the inner circle's "
                "climb is the JSON's circles block", None),
    "kong-knockover": ("the pawn's fate when Kong moves",
                       "standing: the pawn stays up in its space; knocked: knocked over; pushed: pushed out "
                       "of its space",
                       "the pawn came to rest upright off the board (on the figure or on another pawn)"),
    "throw": ("side the body rests on",
              "the body's rest state: for a cuboid the body axis (+x ... -z) pointing up, for a cylinder "
              "top, bottom or side, for a half-cylinder flat or round (assets/throw.toml)",
              "the body rests in no rest state (leaning on a rim, balanced on an edge or a corner)"),
}


def outcome_notes(device: str) -> list[str]:
    """What an estimate table's labels and statuses mean: the footnote under it."""
    _, labels, lodged = OUTCOME_NOTES.get(device, ("outcome", None, "settled where no label is read"))
    return ([f"labels: {labels}"] if labels else []) + [
        "p is among the labelled trials; unsettled: still moving when the settle cap ran out; escaped: a body "
        "left the model (a defect); lodged: " + (lodged or "never, for this device (every reading has a label)")]


def fair_odds(device: str, labels) -> tuple[dict[str, float], str] | None:
    """The device's fair odds where it has a notion of them ({label: p}, the legend's text): the
    idealised chance `analyze --outcomes fair` plays with (a die's faces 1/6, the Tipper's slots
    1/7, the cave seats 1/6, the sticks as two fair coins, the spinner's sectors by their share of
    the card); None for the knock-overs and the generic throw, which have none."""
    from tabletop.gamekit.analyze import measured_files
    from tabletop.gamekit.chance import table_dicts
    from tabletop.games.registry import GAMES

    for spec in GAMES.values():
        if device not in spec.devices:
            continue
        analysis = spec.analysis()
        if device in analysis.fair_measured:
            return None
        for table in table_dicts(analysis.source("fair", measured_files(analysis.fair_measured))).values():
            if set(table) == set(labels):
                values = sorted(set(round(v, 9) for v in table.values()))
                how = (f"each 1/{round(1 / values[0])}" if len(values) == 1 else
                       "two fair coins" if device == "sticks" else "each label by its sectors' share")
                return dict(table), f"fair odds: {how} (analyze --outcomes fair)"
    return None


def _print_table(console, result: dict) -> None:
    from rich.table import Table

    band = result.get("model_band")
    table = Table(title=f"{result['device']}: {result['trials']} trials, seed {result['seed']}")
    table.add_column("outcome")
    table.add_column("count", justify="right")
    table.add_column("p", justify="right")
    table.add_column("95% interval", justify="right")
    if band:
        table.add_column("model band", justify="right")
    for label, k in result["counts"].items():
        pr = result["probabilities"][label]
        table.add_row(label, str(k), f"{pr['p']:.4f}", _interval(pr["ci95"]),
                      *([_interval(band[label])] if band else []))
    console.print(table)
    console.print(f"{_statuses(result)}  mean simulated time {result['mean_sim_time_s']:.2f} s  "
                  f"elapsed {result['elapsed_s']:.1f} s")
    for line in outcome_notes(result["device"]):
        console.print(line, style="dim", highlight=False)
    if band:
        by_name = {p["name"]: p for p in result["sensitivity"]["parameters"]}
        top = [f"{name} ({by_name[name]['max_abs_dp']:.4f})" for name in result["sensitivity"]["ranking"][:3]]
        console.print(f"model band: p over the estimate and its {2 * len(by_name)} runs at the ends of the "
                      f"uncertain inputs; the inputs that matter most (largest |dp|): {', '.join(top)}")


def _print_sensitivity(console, result: dict) -> None:
    """Each uncertain input's largest change of p at either end of its range, largest first (every
    label's change is in the JSON)."""
    from rich.table import Table

    block = result["sensitivity"]
    by_name = {p["name"]: p for p in block["parameters"]}
    table = Table(title=f"sensitivity: the largest change of p at either end of each range "
                        f"({block['trials']} paired trials)")
    for column in ("input", "range", "outcome", "end", "dp ± 95%"):
        table.add_column(column, justify="right" if column in ("range", "dp ± 95%") else "left")
    for name in block["ranking"]:
        prm = by_name[name]
        label, end = max(((k, e) for k in prm["labels"] for e in ("low", "high")),
                         key=lambda ke: abs(prm["labels"][ke[0]][f"dp_{ke[1]}"]))
        v = prm["labels"][label]
        lo, hi = v[f"dp_{end}_ci95"]
        table.add_row(name, f"[{prm['low']:.4g}, {prm['high']:.4g}]", label, end,
                      f"{v[f'dp_{end}']:+.4f} ± {(hi - lo) / 2:.4f}")
    console.print(table)


def _print_uncertainty(console, result: dict) -> None:
    """The odds with every pair value drawn per trial beside the estimate's, and the strongest influences."""
    from rich.table import Table

    block = result["uncertainty"]
    mix = block["summary"]
    table = Table(title=f"uncertainty: {block['trials']} trials, pair values drawn {block['draw']}")
    table.add_column("outcome")
    table.add_column("p (spec values)", justify="right")
    table.add_column("p (drawn)", justify="right")
    table.add_column("95% interval", justify="right")
    for label, pr in mix["probabilities"].items():
        table.add_row(label, f"{result['probabilities'][label]['p']:.4f}", f"{pr['p']:.4f}", _interval(pr["ci95"]))
    console.print(table)
    console.print(_statuses(mix))
    strongest = []
    for name in block["ranking"][:3]:
        known = [(k, c) for k, c in block["influence"][name].items() if c["r"] is not None]
        if known:
            label, c = max(known, key=lambda kc: abs(kc[1]["r"]))
            strongest.append(f"{name} (r {c['r']:+.3f} with {label}, 95% {_interval(c['ci95'], signed=True)})")
    if strongest:
        console.print(f"strongest influences: {'; '.join(strongest)}")


def _print_converge(console, result: dict) -> None:
    """Each refinement's paired comparison with the base run, and the verdict."""
    from rich.table import Table

    from tabletop.sim.converge import describe_check, describe_result

    base = result["base"]
    console.print(f"{result['device']}: {result['trials']} trials, seed {result['seed']}; base run {_statuses(base)}")
    for c in result["checks"]:
        table = Table(title=f"{c['name']}: " + ", ".join(f"{k} = {v}" for k, v in c["overrides"].items()))
        for column in ("outcome", "p base", "p refined", "dp", "95% interval of dp"):
            table.add_column(column, justify="left" if column == "outcome" else "right")
        for label, v in c["labels"].items():
            table.add_row(label, f"{v['p_base']:.4f}", f"{v['p_refined']:.4f}", f"{v['dp']:+.4f}",
                          _interval(v["dp_ci95"], signed=True))
        console.print(table)
        sm = c["stuart_maxwell"]
        chi = ("not testable (a run labelled nothing)" if c["p_value"] is None
               else f"chi-square {c['chi2']:.2f} on {c['dof']} dof, p = {c['p_value']:.3g}")
        console.print(f"largest |dp| {c['max_abs_dp']:.4f} ({c['max_abs_dp_label']}, "
                      f"{_interval(c['max_abs_dp_ci95'], signed=True)}); "
                      f"homogeneity {chi}; Stuart-Maxwell {sm['chi2']:.2f} on {sm['dof']} dof, "
                      f"p = {sm['p_value']:.3g}" + (f" ({sm['note']})" if "note" in sm else ""))
        console.print(f"refined run {_statuses(c['summary'])}: "
                      + _verdict_markup(c["verdict"], describe_check(c)), soft_wrap=True)
    console.print(_verdict_markup(result["verdict"], describe_result(result)), soft_wrap=True)
    console.print(f"the rule: {result['criteria']['test']}")


def _verdict_markup(verdict: str, text: str) -> str:
    """`text` with its leading verdict coloured: converged / agrees green, cannot tell / near yellow,
    not converged / disagrees red."""
    from rich.markup import escape

    colour = {"converged": "green", "agrees": "green", "cannot tell": "yellow", "near": "yellow"}.get(verdict, "red")
    return f"[{colour}]{escape(verdict)}[/{colour}]{escape(text[len(verdict):])}"


def cmd_bench(args) -> int:
    from tabletop.sim.output import check_output_path

    if args.rules:
        return _bench_rules(args)
    if args.rules_games is not None:
        raise InputError("--rules-games: only with --rules")
    from tabletop.games.devices import entry, make_device
    from tabletop.sim.bench import bench_device
    from tabletop.sim.world import engine_versions

    names = [n.strip() for n in args.devices.split(",") if n.strip()]
    for name in names:
        entry(name)
    if args.out is not None:
        check_output_path(args.out)
    figures = {"versions": engine_versions(), "devices": {}}
    trials = args.trials or (20 if args.quick else 100)
    from tabletop.sim.bench import LEGACY
    from tabletop.sim.spec import load_toml
    from tabletop.games.devices import default_spec

    for name in names:
        def build(overrides, name=name):
            return make_device(name, overrides=overrides)

        figures["devices"][name] = fig = bench_device(build, trials)
        sep = fig["separate_loop"]
        print(f"{name}: {fig['trials_per_s']:.2f} trials/s, its own steps bare {fig['bare_trials_per_s']:.2f} trials/s, "
              f"ratio {fig['ratio_vs_bare']:.3f} ({fig['steps']} steps, {fig['us_per_step']:.1f} us/step); "
              f"a separate bare loop from the start pose {sep['bare_trials_per_s']:.2f} trials/s, "
              f"ratio {sep['ratio_vs_bare']:.3f}", flush=True)
        # the same device at the old numerics (1/480 s, 50 iterations), where its spec now steps finer
        if load_toml(default_spec(name)).table("physics").number("timestep") < 1.0 / 480.0 - 1e-12:
            fig["legacy"] = old = bench_device(build, trials, overrides=LEGACY)
            print(f"{name} at 1/480 s, 50 iterations: {old['trials_per_s']:.2f} trials/s "
                  f"(now {fig['trials_per_s'] / old['trials_per_s']:.2f} of that), "
                  f"ratio to its bare loop {old['ratio_vs_bare']:.3f}", flush=True)
    if not args.quick:
        from tabletop.games.devices import device_ref
        from tabletop.sim.bench import bench_scaling

        figures["scaling"] = sc = bench_scaling(device_ref("crater", default_spec("crater")), "crater",
                                                args.scaling_trials)
        print(f"scaling, {sc['trials']} crater trials: 1 worker {sc['local_1_s']:.1f} s, 2 workers "
              f"{sc['local_2_s']:.1f} s (x{sc['speedup_2_vs_1']:.2f})"
              + (f", Dask 2 workers {sc['dask_2_s']:.1f} s ({sc['dask_vs_local_2']:.2f} of local)"
                 if "dask_2_s" in sc else ", Dask not installed"), flush=True)
    from tabletop.sim.bench import summary_rows

    _print_summary(f"bench: {trials} trials per device beside a bare PyBullet loop", *summary_rows(figures),
                   "bare: the trials' own steps alone; ratio: their time over the trials' time; separate loop: "
                   "a bare loop from the start pose; at 1/480 s: the old numerics (1/480 s, 50 iterations), "
                   "where the spec now steps finer; every figure is in the JSON of --out")
    _write_figures(args.out, figures)
    return 0


def _print_summary(title: str, columns: list[str], rows: list[list[str]], note: str) -> None:
    """A bench's figures as a table on stdout (the JSON only goes to --out)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    console = Console()
    console.print(table)
    console.print(note, style="dim", highlight=False)


def _write_figures(out: Path | None, figures: dict) -> None:
    from tabletop.sim.output import write_json_atomic

    if out is not None:
        write_json_atomic(out, figures)
        print(f"wrote {out}", file=sys.stderr)


def _bench_rules(args) -> int:
    from tabletop.games.registry import GAMES
    from tabletop.gamekit.rules_bench import bench_rules
    from tabletop.sim.output import check_output_path

    if args.out is not None:
        check_output_path(args.out)
    figures = bench_rules(GAMES.values(), args.rules_games or (30 if args.quick else 300), args.rules_seats,
                          emit=lambda line: print(line, flush=True))
    rows = [[name, f"{fig['games_per_s']:.1f}", f"{fig['decisions_per_s']:.0f}",
             f"{fig['chance_events_per_s']:.0f}", f"{fig['decisions_per_game']:.1f}",
             f"{fig['chance_events_per_game']:.1f}"] for name, fig in figures["games"].items()]
    games = {name: fig["games"] for name, fig in figures["games"].items()}
    _print_summary(f"bench --rules: games with table chance, {args.rules_seats} seats, per CPU second",
                   ["game", "games/s", "decisions\nper s", "chance\nevents\nper s", "decisions\nper game",
                    "chance\nevents\nper game"], rows,
                   f"games played: {', '.join(f'{n} {k}' for n, k in games.items())} (a match of several "
                   f"games counts as one); every figure is in the JSON of --out")
    _write_figures(args.out, figures)
    return 0


def cmd_validate(args) -> int:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from tabletop.games.devices import default_spec, device_ref, make_device
    from tabletop.sim.batch import run_batch
    from tabletop.sim.output import check_output_path, write_json_atomic
    from tabletop.sim.validate import EXIT_STATUS, cases, run_case, tally, verdict_text
    from tabletop.sim.world import engine_versions

    if args.out is not None:
        check_output_path(args.out)
    spec = default_spec("throw")
    all_cases = cases()
    err = Console(stderr=True)
    args.device = "validate"
    started = time.perf_counter()

    def labels_of(overrides):
        device = make_device("throw", spec, overrides)
        try:
            return device.labels
        finally:
            device.close()

    rows = []
    try:
        total = sum(c.trials[0] if args.quick else c.trials[1] for c in all_cases)
        with _progress(err, args, total, "validate") as bar:
            def run(overrides, trials):
                return run_batch(device_ref("throw", spec, overrides), trials, args.seed, args.workers,
                                 progress=bar.advance)
            for case in all_cases:
                rows.append(run_case(case, run, args.quick, labels_of))
    except KeyboardInterrupt:
        err.print("[yellow]interrupted: no result written[/yellow]", soft_wrap=True)
        return 130
    table = Table(title=f"tabletop validate{' --quick' if args.quick else ''} (seed {args.seed})")
    for col in ("", "case", "source", "published", "ours (95% interval)", "trials", "verdict (rule below)"):
        table.add_column(col, overflow="fold", ratio=3 if col == "case" else None)
    for n, r in enumerate(rows, 1):
        table.add_row(str(n), r["case"], r["cite"], r["published"], r["ours"], str(r["trials"]),
                      _verdict_markup(r["verdict"], verdict_text(r)) + f" [{n}]")
    console = Console()
    console.print(table)
    console.print("rules:")
    for n, r in enumerate(rows, 1):
        console.print(f"  [{n}] {escape(r['rule'])}", soft_wrap=True)
    console.print(f"{tally(rows)}; what each figure means, and why we disagree where we do: docs/validation.md; "
                  f"{EXIT_STATUS}", soft_wrap=True)
    passed = sum(r["passed"] for r in rows)
    if args.out is not None:
        write_json_atomic(args.out, {"quick": args.quick, "seed": args.seed, "cases": rows,
                                     "passed": passed, "tally": tally(rows), "versions": engine_versions(),
                                     "elapsed_s": round(time.perf_counter() - started, 3)})
        err.print(f"wrote {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    from concurrent.futures.process import BrokenProcessPool

    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser()
        if not argv:
            # `tabletop` alone: one line saying which commands there are and where their help is;
            # exit 2 as for any command line that cannot run
            commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
            print(f"tabletop: error: give a command: {', '.join(commands)} (`tabletop --help` says what each does, "
                  f"`tabletop COMMAND --help` its options)", file=sys.stderr)
            return EXIT_BAD_INPUT
        args = parser.parse_args(argv)
        return {"play": cmd_play, "estimate": cmd_estimate, "converge": cmd_converge, "sweep": cmd_sweep,
                "bench": cmd_bench, "replay": cmd_replay, "validate": cmd_validate,
                "analyze": cmd_analyze}[args.command](args)
    except InputError as exc:
        print(f"tabletop: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:      # commands that save partial work (estimate's checkpoint) say so themselves
        print("tabletop: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenProcessPool:
        print("tabletop: error: a worker process ended abruptly (killed, or out of memory); the chunks that "
              "finished are in the checkpoint beside --out, if one was given: run again with --resume",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
