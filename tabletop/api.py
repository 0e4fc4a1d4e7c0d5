"""The Python API: the `tabletop` command's estimate, headless play and replay reading, for
notebooks and scripts.

    import tabletop
    result = tabletop.estimate("spinner", trials=200, seed=1)
    result.counts, result.probabilities["L1/U1"].p, result.to_dict()   # to_dict(): what --out writes
    game = tabletop.play("knossos", seats=["ai", "ai"], seed=3, outcomes="measured")
    game.result, game.winner, game.lines, game.history, game.state
    replay = tabletop.open_replay("replays/knossos.ttr")

Each function builds the command line it stands for and runs it through the command's own parser
and code (tabletop.games.cli `run_estimate` and `play_headless`), so that a result is the
command's, bit for bit, and bad arguments raise the command's one-line message as an
`InputError`, a ValueError. Importing this module loads nothing but the standard library; each call
imports what it runs.
"""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

__all__ = ["EstimateResult", "PlayedGame", "Probability", "Replay", "estimate", "open_replay", "play"]


def _parse(argv: list[str]):
    """The command's parsed arguments for `argv` (InputError, the command's message, when bad)."""
    from tabletop.games.cli import build_parser

    return build_parser().parse_args(argv)


def _bad(message: str) -> Exception:
    from tabletop.sim.errors import InputError

    return InputError(message)


def _text(value: Any, flag: str) -> str:
    """A number, a word or a path as the command line takes it (a bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Path)):
        raise _bad(f"{flag}: expected a number, a text or a path, got {value!r}")
    return str(value)


def _toml(value: Any) -> str:
    """A Python value as `--set NAME=VALUE` takes it: TOML value text (a bare word is text)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(json.dumps(v) if isinstance(v, str) else _toml(v) for v in value) + "]"
    raise _bad(f"--set: cannot give {type(value).__name__} {value!r} as a parameter value")


def _option(argv: list[str], flag: str, value: Any) -> None:
    if value is not None:
        argv += [flag, _text(value, flag)]


def _flag(argv: list[str], flag: str, on: bool) -> None:
    if on:
        argv.append(flag)


# -- estimate -------------------------------------------------------------------------------------
class Probability(NamedTuple):
    """One outcome's probability among the labelled trials and its 95% Wilson interval."""

    p: float
    low: float
    high: float

    @property
    def ci95(self) -> tuple[float, float]:
        return (self.low, self.high)


class EstimateResult:
    """An estimate's result: `to_dict()` is the dict `tabletop estimate --out` writes."""

    def __init__(self, data: dict):
        self._data = data

    def to_dict(self) -> dict:
        return copy.deepcopy(self._data)

    @property
    def device(self) -> str:
        return self._data["device"]

    @property
    def seed(self) -> int:
        return self._data["seed"]

    @property
    def trials(self) -> int:
        return self._data["trials"]

    @property
    def counts(self) -> dict[str, int]:
        """Trials per outcome label (status ok only; `to_dict()` has the unsettled, escaped, lodged)."""
        return dict(self._data["counts"])

    @property
    def probabilities(self) -> dict[str, Probability]:
        return {label: Probability(pr["p"], *pr["ci95"]) for label, pr in self._data["probabilities"].items()}

    def __getitem__(self, key: str):
        """A field of the result dict (`result["by_group"]`, `result["sensitivity"]`, ...)."""
        return self._data[key]

    def __repr__(self) -> str:
        odds = ", ".join(f"{label} {pr.p:.3f} [{pr.low:.3f}, {pr.high:.3f}]"
                         for label, pr in self.probabilities.items())
        return (f"<EstimateResult {self.device}: {self.trials} trials, seed {self.seed}, "
                f"{self._data['labelled']} labelled: {odds}>")


def estimate(device: str, trials: int | None = None, seed: int = 0, workers: int = 1, *,
             set: Mapping[str, Any] | None = None, overrides: Iterable[str] = (), spec: str | Path | None = None,
             scheduler: str | None = None, against: str | Path | None = None, sensitivity: bool = False,
             sensitivity_trials: int | None = None, uncertainty: bool = False, precision: float | None = None,
             out: str | Path | None = None, resume: bool = False, plot: str | Path | None = None,
             record_trials: int | None = None, record: str | Path | None = None,
             progress: bool = False) -> EstimateResult:
    """`tabletop estimate DEVICE`: the device's outcome probabilities by simulation.

    Each argument is the command's option of that name (`trials` is --trials, `workers` --workers,
    `scheduler` --scheduler tcp://HOST:PORT, `against` "uniform" or a saved result file, ...);
    `set={"knock.speed": [0.3, 0.7]}` and `overrides=["knock.speed=[0.3,0.7]"]` are --set, the
    values given as Python numbers, texts and lists or as TOML text. Nothing is written unless
    `out`, `plot` or `record` asks; `progress=True` shows the progress bars on stderr. With
    workers > 1 in a script, call it under `if __name__ == "__main__":` (the workers are spawned
    processes that import the script; a notebook needs nothing): without it the call is one
    RuntimeError saying so. `out` and `plot` (its format by its suffix: .png, .pdf, .svg, ...) are
    checked before any work; `out` is written before the plot is drawn, and a plot that fails then
    raises InputError with the result as its `.result`.
    """
    if _spawned_import() and isinstance(workers, int) and workers > 1 and scheduler is None:
        # a spawned worker importing a script that calls this at its top level: leave quietly (a
        # pool started here could never start); the script's own process says what to do
        raise SystemExit(1)
    if not isinstance(device, str):
        raise _bad(f"device: expected a device name, got {device!r}")
    argv = ["estimate", device]
    for flag, value in (("--trials", trials), ("--seed", seed), ("--workers", workers), ("--spec", spec),
                        ("--scheduler", scheduler), ("--against", against),
                        ("--sensitivity-trials", sensitivity_trials), ("--precision", precision),
                        ("--out", out), ("--plot", plot), ("--record-trials", record_trials),
                        ("--record", record)):
        _option(argv, flag, value)
    if isinstance(overrides, str):
        overrides = [overrides]
    for text in overrides:
        argv += ["--set", _text(text, "--set")]
    for name, value in (set or {}).items():
        argv += ["--set", f"{name}={_toml(value)}"]
    for flag, on in (("--sensitivity", sensitivity), ("--uncertainty", uncertainty), ("--resume", resume),
                     ("--quiet", not progress)):
        _flag(argv, flag, on)
    from concurrent.futures.process import BrokenProcessPool

    from tabletop.games.cli import run_estimate

    args = _parse(argv)
    try:
        return EstimateResult(run_estimate(args, argv=argv))
    except BrokenProcessPool:
        main = sys.modules.get("__main__")
        if args.workers > 1 and getattr(main, "__file__", None):
            raise RuntimeError(f"tabletop.estimate(..., workers={args.workers}) in a script must be called under "
                               f"`if __name__ == \"__main__\":` (its worker processes import {main.__file__}, "
                               f"which calls it again)") from None
        raise RuntimeError("a worker process of tabletop.estimate ended abruptly (killed, or out of "
                           "memory)") from None


def _spawned_import() -> bool:
    """True while a spawned worker process imports the script that started it (multiprocessing's
    own test before it refuses to start a process there)."""
    mp = sys.modules.get("multiprocessing")
    return mp is not None and bool(getattr(mp.current_process(), "_inheriting", False))


# -- play -----------------------------------------------------------------------------------------
class PlayedGame:
    """A game played to its end: its log, result, history and final state."""

    def __init__(self, game: str, seed: int, seats: list[str], lines: list[str], state, record: Path | None):
        self.game, self.seed, self.seats = game, seed, seats
        self.lines = lines          # what `play --headless` prints: the banner, every log line, the result
        self.state = state          # the final rules state (state.is_terminal() is True)
        self.record = record        # the replay file written, or None

    @property
    def result(self) -> str:
        """The result line: the log's last line ("winner: blue after 80 turns", "result: Kong wins ...")."""
        return self.lines[-1]

    @property
    def winner(self) -> str | None:
        """The winner's colour (colours joined by "+" for a shared King Kong victory, or "kong")."""
        from tabletop.games.registry import game_spec

        return game_spec(self.game).winner(self.state)

    @property
    def history(self) -> list:
        """Every action and chance outcome applied, in order (the rules' own objects)."""
        return list(self.state.history)

    @property
    def turns(self) -> int:
        return self.state.turn

    def __repr__(self) -> str:
        return f"<PlayedGame {self.game}, seed {self.seed}, seats {','.join(self.seats)}: {self.result}>"


def play(game: str, seats: Sequence[str] | str = ("ai", "ai"), seed: int = 0, *, outcomes: str = "physics",
         record: str | Path | None = None, echo: bool = False, **options) -> PlayedGame:
    """`tabletop play GAME --headless`: a game played by AI (or random) seats to its end.

    `seats` is a list (or the command's comma-separated text) of seat kinds (no "human": there is
    no window here); `outcomes` is the command's --outcomes: "physics", "measured" (the published
    10,000-trial tables the package holds, from any folder), "table:FILE.json[,FILE.json]" (a bare
    name such as "sticks-10k-seed1.json" that is no file here names a packaged table), King Kong's
    "uniform"; `options` are the game's own (a game's definition lists them with their defaults).
    No replay is written unless `record` names the file; `echo=True` prints the log as it goes, as
    the command does, and with echo off nothing is printed.
    """
    if not isinstance(game, str):
        raise _bad(f"game: expected a game name, got {game!r}")
    if isinstance(seats, str):
        seats = seats.split(",")
    seats = list(seats)
    if not all(isinstance(s, str) and s and "," not in s for s in seats):
        raise _bad(f"--seats: expected seat kinds (ai, random), got {seats!r}")
    argv = ["play", game, "--headless", "--seats", ",".join(seats), "--outcomes", _text(outcomes, "--outcomes")]
    _option(argv, "--seed", seed)
    for name, value in options.items():
        _option(argv, "--" + name.replace("_", "-"), value)
    argv += ["--record", str(record)] if record is not None else ["--no-record"]
    args = _parse(argv)
    lines: list[str] = []

    def emit(line: str) -> None:
        lines.append(line)
        if echo:
            print(line, flush=True)

    from tabletop.games.cli import play_headless

    human = ("seats: a human seat needs the window, and tabletop.play() opens none: give \"ai\" or "
             "\"random\" seats here (the command `tabletop play GAME` opens the window for human seats)")
    if echo:
        final = play_headless(args, emit, human=human)
    else:
        final = _quietly(lambda: play_headless(args, emit, human=human))
    return PlayedGame(args.game, args.seed, [s.strip() for s in args.seats.split(",")], lines, final,
                      None if record is None else Path(record))


def _quietly(run):
    """`run()` with what it says on stderr held back; what is not the play's own notice ("recording
    the replay to ...") is passed on afterwards (a warning is not lost)."""
    import contextlib
    import io

    held = io.StringIO()
    try:
        with contextlib.redirect_stderr(held):
            return run()
    finally:
        rest = [line for line in held.getvalue().splitlines(keepends=True)
                if not line.startswith("recording the replay to ")]
        if rest:
            sys.stderr.write("".join(rest))


# -- replays --------------------------------------------------------------------------------------
class Replay:
    """A replay file read back (tabletop.sim.record.ReplayFile, as `file`): its header, log and result."""

    def __init__(self, file):
        self.file = file

    @property
    def path(self) -> Path:
        return self.file.path

    @property
    def header(self) -> dict:
        return self.file.header

    @property
    def kind(self) -> str:
        """"game" (a recorded game) or "trials" (a device's recorded trials)."""
        return self.file.header.get("kind")

    @property
    def game(self) -> str | None:
        return self.file.header.get("game")

    @property
    def seed(self) -> int | None:
        return self.file.header.get("seed")

    @property
    def config(self) -> dict:
        return dict(self.file.header.get("config", {}))

    @property
    def warnings(self) -> list[str]:
        return list(self.file.warnings)

    @property
    def complete(self) -> bool:
        return self.file.complete

    @property
    def lines(self) -> list[str]:
        """What `replay --summary` prints: the lines `play` printed (banner, log, result)."""
        from tabletop.gamekit.replay import summary_lines

        return summary_lines(self.file)

    @property
    def result(self) -> dict | None:
        """The recorded result ({"winner": ..., "turns": ...}); None for an unfinished recording."""
        end = self.file.end
        return None if end is None else end.get("result")

    @property
    def turns(self) -> int:
        """The number of recorded turns (chunks)."""
        return len(self.file.turns)

    @property
    def history(self) -> list:
        """A recorded game's actions and chance outcomes in order, as the rules' objects."""
        if self.kind != "game":
            raise _bad(f"{self.path}: a recording of device trials has no game history")
        from tabletop.games.registry import game_spec
        from tabletop.gamekit.replay import decode_action

        game = game_spec(self.game)
        return [decode_action(game, a) for turn in self.file.turns for a in turn.actions]

    def verify(self) -> str:
        """`replay --verify`: re-simulate from the recorded seeds and actions; the verdict line.
        Raises tabletop.gamekit.replay.Divergence at the first difference."""
        from tabletop.games.registry import game_spec
        from tabletop.gamekit.replay import verify

        return str(verify(self.file, game_spec(self.game) if self.kind == "game" else None))

    def __repr__(self) -> str:
        what = self.game or self.header.get("device", "?")
        return (f"<Replay {self.path}: {self.kind} {what}, seed {self.seed}, {self.turns} turns"
                f"{'' if self.complete else ', truncated'}>")


def open_replay(path: str | Path) -> Replay:
    """Read a .ttr replay (InputError, one line, when it is missing or not a readable replay)."""
    if not isinstance(path, (str, Path)):
        raise _bad(f"expected a replay file path, got {path!r}")
    from tabletop.sim.record import ReplayFile

    return Replay(ReplayFile.open(path))
