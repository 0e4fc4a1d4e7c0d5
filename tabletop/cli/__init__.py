"""The `tabletop` command: it parses (tabletop.cli.parser), builds the job's request, runs it
(tabletop.app) and prints (tabletop.cli.show); it holds no simulation, statistics or file format.

  tabletop play GAME [--headless] --seats ai,ai --seed S [--outcomes physics|measured|table:FILE.json]
                [--calibration CALIB.json]
  tabletop estimate DEVICE --trials N --seed S --workers W --out FILE.json [--sensitivity] [--uncertainty]
                [--calibration CALIB.json]
  tabletop converge DEVICE --trials N --seed S --workers W [--out FILE.json [--resume]] [--only NAME,NAME]
  tabletop sweep DEVICE --param NAME=LO:HI:STEPS [--out FILE.json] [--csv FILE.csv] [--plot FILE.png]
  tabletop analyze GAME --games N --seats ai,ai --outcomes measured|fair|table:FILE.json --seed S
                [--calibration CALIB.json]
  tabletop calibrate DEVICE --observed TALLIES.csv [--joint 'DEVICE[NAME=VALUE,...]=FILE'] [--gesture]
                [--measured NAME=VALUE+-SD] [--trials N] [--out CALIB.json]
  tabletop validate [--quick] [--calibrate] [--workers W] [--seed S] [--out FILE.json]
  tabletop bench [--trials N] [--out FILE.json]   /   tabletop bench --rules
  tabletop replay FILE.ttr [--summary] [--verify] [--frames DIR]
  tabletop review FILE.ttr [--out review.json] [--plot review.png] [--rollouts N] [--seed S]
  tabletop serve [--host 127.0.0.1] [--port 8765] [--data DIR] [--list]
  tabletop host GAME --server ws://HOST:PORT --seats remote,remote,ai --seed S [--outcomes physics|measured]
  tabletop join ws://HOST:PORT/CODE [--seat COLOUR] [--name NAME] [--token T] --headless [--as random | --spectate]
  tabletop start ws://HOST:PORT/CODE   /   tabletop rooms --server ws://HOST:PORT
  tabletop                      (no command: one line naming the commands, exit 2)

Bad input gets one line on stderr naming the problem and exit code 2; nothing is written. Output
names (--plot's format included) are checked before any work; at the end --out is written (whole,
then the checkpoint goes) before --plot is drawn, and a plot that fails then is one line, exit 2,
the result kept. Ctrl-C: exit 130, saying where the finished work is kept and how to resume.
"""
from __future__ import annotations

import argparse
import os
import sys

from tabletop.sim.errors import InputError

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


def _commands() -> dict:
    from tabletop.cli import devices, games, net, plugins

    return {"play": games.play, "estimate": devices.estimate, "converge": devices.converge, "sweep": devices.sweep,
            "bench": devices.bench, "replay": games.replay, "validate": devices.validate, "analyze": games.analyze,
            "serve": net.serve, "host": net.host, "join": net.join, "start": net.start, "rooms": net.rooms, "games": games.recorded,
            "calibrate": devices.calibrate, "review": games.review, "plugins": plugins.plugins}


def main(argv: list[str] | None = None) -> int:
    from concurrent.futures.process import BrokenProcessPool

    from tabletop.app.longrun import Interrupted
    from tabletop.cli.parser import build_parser
    from tabletop.cli.report import say_interrupted

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
        return _commands()[args.command](args)
    except InputError as exc:
        print(f"tabletop: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Interrupted as exc:
        return say_interrupted(exc, argv)
    except KeyboardInterrupt:
        print("tabletop: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # the reader of stdout stopped reading (`tabletop plugins | head`): nothing more to say, and
        # Python must not complain when it flushes stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except BrokenProcessPool:
        print("tabletop: error: a worker process ended abruptly (killed, or out of memory); the chunks that "
              "finished are in the checkpoint beside --out, if one was given: run again with --resume",
              file=sys.stderr)
        return 1
