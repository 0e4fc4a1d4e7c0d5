"""The `tabletop` command's parser: every command's options, in argparse (one-line errors, exit 2).

Each game's own options (its definition's `options`) become flags of `play` and `analyze`; which
game a flag belongs to is the game's to check (tabletop.app.games.game_options)."""
from __future__ import annotations

import argparse
from pathlib import Path

from tabletop.cli.argtypes import _positive_int, _seed
from tabletop.app.requests import BOTS
from tabletop.cli.calibration import calibrate_command, validate_command
from tabletop.cli.plugins import add_command as plugins_command
from tabletop.sim.errors import InputError


_CALIBRATED_TABLES = ("with --outcomes measured or table:...: the calibrated odds in a `tabletop calibrate --out` "
                      "file replace the tables of the devices it calibrates (a table kept by groups, such as by "
                      "place, has every group tilted to them), every other table unchanged")


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and exit code 2."""

    def error(self, message: str):  # noqa: D401 - argparse hook
        raise InputError(message)




def build_parser() -> argparse.ArgumentParser:
    from tabletop.gamekit.devices import DEVICES
    from tabletop.gamekit.registry import GAMES

    parser = _Parser(prog="tabletop", description="Physics-simulated tabletop for three vintage games.",
                     epilog="`tabletop COMMAND --help` gives a command's options.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    play = sub.add_parser("play", help="play a game in the 3D window, or --headless")
    play.add_argument("game", nargs="?", help=f"one of: {', '.join(GAMES)} (not with --resume: the file names it)")
    play.add_argument("--headless", action="store_true", help="no window: print the game log")
    play.add_argument("--screenshot", metavar="FILE.png", help="render offscreen after --after-turns turns "
                      "(every seat played by the AI) and write a PNG instead of opening the window")
    play.add_argument("--after-turns", type=int, default=0, help="turns to play before --screenshot (default 0)")
    play.add_argument("--size", default="1280x720", help="window or screenshot size WxH (default 1280x720)")
    play.add_argument("--pace", type=float, default=0.8, help="seconds an AI seat waits before it acts (window)")
    play.add_argument("--seats", default=None, help=f"comma-separated seats ({_seat_help(GAMES, lambda s: s.seat_kinds)}; "
                      "default ai,ai): plan plans with the chance tables, solved plays perfectly (a solved game's: "
                      f"{', '.join(d.name for d in GAMES.values() if d.solved)}) for the chance tables "
                      "(--outcomes table:FILE's, else the measured ones in assets/measured)")
    play.add_argument("--seed", type=_seed, default=None, help="the game's seed (default 0)")
    _add_game_options(play, GAMES)
    play.add_argument("--resume", type=Path, metavar="FILE.ttr",
                      help="play a recorded game on (its game, seed, options and, unless --seats, seats come from "
                           "the file); recorded to a new file that names it (`tabletop games` lists them)")
    play.add_argument("--from-turn", type=_seed, default=None, metavar="N",
                      help="with --resume or --continue: play on from the start of turn N (default: where the "
                           "recording ends)")
    play.add_argument("--continue", action="store_true", dest="continue_game",
                      help="play on the newest unfinished recorded game of GAME")
    play.add_argument("--outcomes", default="physics",
                      help="where chance comes from: physics (simulate every chance event; the default), "
                           "measured (with --headless: sample the published 10,000-trial estimates, "
                           "assets/measured, as analyze does), table:FILE.json[,FILE.json] (sample from saved "
                           f"estimate results of each game's devices: {_device_help(GAMES)}; a bare name such as "
                           "DEVICE-10k-seed1.json names a packaged measured table)" + _sources_help(GAMES))
    play.add_argument("--calibration", type=Path, metavar="FILE.json", help=_CALIBRATED_TABLES + "; the "
                      "recording keeps the file, its digest and the tables (the window, physics: not wired yet)")
    play.add_argument("--record", type=Path, metavar="FILE.ttr",
                      help="write the replay here (default: GAME-seedS-DATE-TIME.ttr in the user's games folder, "
                           "which `tabletop games` lists)")
    play.add_argument("--no-record", action="store_true", help="write no replay")
    play.add_argument("--online", dest="server", metavar="ws://HOST:PORT",
                      help="play on a game server (`tabletop serve`): make a room there with --seats (default "
                           "human,remote: human is you, in the window; remote a player who joins with the address "
                           "printed), as `tabletop host` does; --outcomes physics or measured")

    recorded = sub.add_parser("games", help="list the recorded games (for play --resume), newest first")
    recorded.add_argument("--folder", type=Path, default=None,
                          help="the folder to list (default: the user's games folder, where play records)")

    plugins_command(sub)

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
    est.add_argument("--calibration", type=Path, metavar="FILE.json",
                     help="estimate the calibrated copy (a `tabletop calibrate --out` file of this device): each "
                          "trial draws the fitted values from its posterior, the other pair values from their "
                          "ranges; the table shows the calibration's band beside p. Not with --sensitivity or "
                          "--uncertainty (they move the values over their documented ranges: the uncalibrated "
                          "model's band) nor --record-trials")

    conv = sub.add_parser("converge", help="check that a device's odds hold with refined numerics "
                                           "(time step, solver iterations, mesh, settle rule)")
    conv.add_argument("device", help=f"one of: {', '.join(DEVICES)}")
    conv.add_argument("--trials", type=_positive_int, default=1000, help="trials of each run (default 1000)")
    conv.add_argument("--seed", type=_seed, default=0, help="the runs' seed (default 0)")
    conv.add_argument("--workers", type=_positive_int, default=1, help="local worker processes (default 1)")
    conv.add_argument("--out", type=Path, help="write the checks as JSON to this file (the trials are kept beside it "
                                               "as they finish, for --resume)")
    conv.add_argument("--spec", type=Path, help="device spec TOML (default: the one in assets/)")
    conv.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", dest="overrides",
                      help="override a physical parameter of the spec, as for estimate; repeatable")
    conv.add_argument("--only", metavar="NAME,NAME",
                      help="run only these refinements (default: all the device has)")
    conv.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run the trials on this Dask cluster")
    conv.add_argument("--resume", action="store_true",
                      help="continue a run from the checkpoint beside --out (an interrupted run, or one that "
                           "could not tell); with more --trials than it had, the kept trials count and only the rest run")
    conv.add_argument("--quiet", action="store_true", help="no progress bar")

    ana = sub.add_parser("analyze", help="play many whole games by the rules with table chance (no physics) and "
                                         "measure them: seat advantage, game length, what each gadget does")
    _analyze_arguments(ana, GAMES)

    validate_command(sub)

    rep = sub.add_parser("replay", help="play back, summarize or verify a recorded game or trial run")
    rep.add_argument("file", type=Path, help="a .ttr replay file")
    rep.add_argument("--summary", action="store_true", help="print the game's log and result (no window)")
    rep.add_argument("--reveal", action="store_true",
                     help="with --summary or in the window: show every hidden card (the hands) of a game that is not "
                          "over; without it such a game's replay shows only what no seat hides (a finished game's "
                          "shows everything)")
    rep.add_argument("--review", nargs="?", const="", metavar="REVIEW.json",
                     help="the playback window with a review panel (R shows and hides it): the review `tabletop "
                          "review FILE --out REVIEW.json` wrote, or with no file the game reviewed now")
    rep.add_argument("--html", type=Path, metavar="OUT.html",
                     help="write the game as one self-contained web page that plays it back in any browser, with no "
                          "server and no network (the table in 3D, each throw's motion, the log; the review panel "
                          "with --review REVIEW.json); a game with hidden hands exports only what no seat hides, "
                          "even when over, unless --reveal")
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

    rev = sub.add_parser("review", help="review a recorded game: each decision graded by the win probability it "
                                        "lost, each chance event's luck, each player's accuracy and luck")
    rev.add_argument("file", type=Path, help="a recorded game, a .ttr file")
    rev.add_argument("--out", type=Path, metavar="FILE.json", help="write the whole review as JSON")
    rev.add_argument("--plot", type=Path, metavar="FILE.png",
                     help="draw the win-probability graph, lucky throws and mistakes marked")
    rev.add_argument("--rollouts", type=_positive_int, default=32, metavar="N",
                     help="where the game is not solved: rollouts a position (default 32), each value with its "
                          "95%% interval")
    rev.add_argument("--seed", type=_seed, default=0, help="the rollouts' seed (default 0)")
    rev.add_argument("--workers", type=_positive_int, default=None,
                     help="local worker processes for the rollouts (default: one per core, the same review for "
                          "any number)")
    rev.add_argument("--precision", type=float, default=0.10, metavar="H",
                     help="where the game is not solved: each decision's loss measured until its 95%% interval is "
                          "+-H or narrower (default 0.10: ten points)")
    rev.add_argument("--estimate", action="store_true",
                     help="estimate by rollouts even where the game is solved (to see the estimates beside the "
                          "exact values)")
    rev.add_argument("--rollout-seat", default=None, metavar="KIND",
                     help="the seat kind that plays every chair of the rollouts (default: the game's, "
                          f"{', '.join(f'{d.name} {d.review_seat}' for d in GAMES.values())})")
    rev.add_argument("--quiet", action="store_true", help="no progress bar")

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

    bench = sub.add_parser(
        "bench", help="measure trials per second: new, converged and 1/480 s settings, beside a bare PyBullet loop",
        description="Each device's trials per second at its spec's settings (new), at the converged numerics "
                    "frozen on 2026-12-06 (tabletop.sim.bench.CONVERGED_2026_12: time step, solver iterations, "
                    "settle rule, mesh resolution; and CONVERGED_2026_12_BEHAVIOUR: a shortcut added to a "
                    "device's code since, such as the crater's early end, turned off) and at the old 1/480 s, "
                    "50 iterations (where the converged step is finer), the ratios new/converged and "
                    "new/1/480 s, and the bare PyBullet loop of the new trials' own steps. Where a device's "
                    "spec and code are as they were on 2026-12-06, new and converged are the same settings and "
                    "new/converged is 1.0 within the run-to-run noise.")
    bench.add_argument("--trials", type=_positive_int, default=None,
                       help="trials per device (default 100, 20 with --quick)")
    bench.add_argument("--devices", default=None, help="comma-separated devices (default: all)")
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
    _net_commands(sub, GAMES)
    calibrate_command(sub, DEVICES)
    return parser


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port from 0 to 65535 (0: a free one), got {value}")
    return value


def _net_commands(sub, games) -> None:
    """serve, host and join: playing together through a game server (tabletop.net)."""
    serve = sub.add_parser("serve", help="run a game server: rooms of games that clients play together")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8765,
                       help="the port to listen on (default 8765; 0: a free one, printed)")
    serve.add_argument("--data", type=Path, default=Path("rooms"), metavar="DIR",
                       help="where each room's game (a replay) and metadata are journaled (default rooms/)")
    serve.add_argument("--list", dest="listing", action="store_true",
                       help="list the open rooms to anyone who asks (`tabletop rooms --server URL`); default: a "
                            "room is found only by its address")

    host = sub.add_parser("host", help="make a room on a game server and print its join address")
    host.add_argument("game", help=f"one of: {', '.join(games)}")
    host.add_argument("--server", required=True, metavar="ws://HOST:PORT", help="the game server")
    host.add_argument("--seats", default="remote,remote",
                      help="comma-separated seats: remote (a client joins to play it), ai or random (played "
                           "in the room), human (one at most: yours, the window opens on it); default remote,remote")
    host.add_argument("--seed", type=_seed, default=0, help="the game's seed (default 0)")
    host.add_argument("--outcomes", choices=("physics", "measured"), default="physics",
                      help="physics (the server simulates every chance event; the game can be verified) or "
                           "measured (the published tables: fast)")
    host.add_argument("--on-drop", choices=("ai", "pause"), default="ai",
                      help="a remote seat whose client dropped, once waited for: the game's AI plays it until "
                           "the client comes back (ai, the default) or the room pauses (pause)")
    host.add_argument("--drop-wait", type=_seed, default=60, metavar="SECONDS",
                      help="how long a dropped seat is waited for (default 60)")
    _add_game_options(host, games)

    join = sub.add_parser("join", help="play a seat of a room on a game server, or watch it")
    join.add_argument("url", metavar="ws://HOST:PORT/CODE", help="the room's address, as host printed it")
    join.add_argument("--seat", metavar="COLOUR", help="the seat to take (default: the first free remote seat)")
    join.add_argument("--name", help="the name the room shows for the seat")
    join.add_argument("--headless", action="store_true",
                      help="no window: the seat played by --as, its log printed (default: the 3D window, you play)")
    join.add_argument("--as", dest="bot", choices=BOTS, default="random",
                      help="with --headless: who plays the seat: random (uniformly among its legal actions), or "
                           "the game's own ai, plan or solved seat (as --seats names them), on what the seat may know")
    join.add_argument("--spectate", action="store_true", help="watch: every seat's public view, no hand")
    join.add_argument("--seed", type=_seed, default=0, help="the seed of the seat's random choices (default 0)")
    join.add_argument("--token", metavar="TOKEN",
                      help="take back a seat with its token (from another machine: the `token` of the seat's file "
                           "under the user's data folder's seats/; this machine's own seat is taken back without it)")
    join.add_argument("--no-chat", dest="chat", action="store_false", help="do not show the room's chat")

    start = sub.add_parser("start", help="start a room you made before every seat is taken (the AI plays the "
                                         "seats not taken until a player takes one)")
    start.add_argument("url", metavar="ws://HOST:PORT/CODE", help="the room's address, as host printed it")
    start.add_argument("--host-key", metavar="KEY",
                       help="the room's host key (default: the one this machine kept when it made the room)")

    rooms = sub.add_parser("rooms", help="list the open rooms of a game server that lists them (serve --list)")
    rooms.add_argument("--server", required=True, metavar="ws://HOST:PORT", help="the game server")


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
    ana.add_argument("--calibration", type=Path, metavar="FILE.json",
                     help=_CALIBRATED_TABLES + " (--compare fair still compares with fair chance)")
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
                     help="with --solve: save the perfect-play policy for the --outcomes tables here")


def _game_options(games) -> dict:
    """Every registered game's own options by name: (the Option, the games that have it)."""
    out: dict = {}
    for d in games.values():
        for o in d.options:
            out.setdefault(o.name, (o, []))[1].append(d.name)
    return out


def _add_game_options(parser, games) -> None:
    """A flag for each game's own options (the games that have it named in its help); each game
    checks its own."""
    for name, (o, owners) in _game_options(games).items():
        parser.add_argument(o.flag, dest=f"option_{name}", default=None, metavar=name.upper(),
                            help=f"{', '.join(owners)}: {o.help} (default {o.default})")


def given_options(args) -> dict:
    """The game options given as flags, by name (the game checks them: tabletop.app.games.game_options)."""
    return {key[len("option_"):]: value for key, value in vars(args).items()
            if key.startswith("option_") and value is not None}


def _device_help(games) -> str:
    return "; ".join(f"{d.name} {', '.join(d.devices)}" for d in games.values())


def _sources_help(games) -> str:
    extra = [f"{d.name}: {d.sources_help}" for d in games.values() if d.sources_help]
    return f"; other sources: {'; '.join(extra)}" if extra else ""
