"""The Python API: the `tabletop` command's estimate, headless play and replay reading, for
notebooks and scripts.

    import tabletop
    result = tabletop.estimate("spinner", trials=200, seed=1)
    result.counts, result.probabilities["L1/U1"].p, result.to_dict()   # to_dict(): what --out writes
    game = tabletop.play("knossos", seats=["ai", "ai"], seed=3, outcomes="measured")
    game.result, game.winner, game.lines, game.history, game.state
    tabletop.analyze("king-kong", games=200, seats=["ai", "ai"], calibration="c48.json")["figures"]
    replay = tabletop.open_replay("replays/knossos.ttr")

Each function builds the request of the command it stands for (tabletop.app.requests) and runs the
same job the command runs (tabletop.app), so that a result is the command's, bit for bit, and bad
arguments raise the command's one-line message as an `InputError`, a ValueError. Importing this
module loads nothing but the standard library; each call imports what it runs.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

if TYPE_CHECKING:
    from tabletop.app.replays import Replay
    from tabletop.app.results import EstimateResult, PlayedGame, Probability

__all__ = ["EstimateResult", "PlayedGame", "Probability", "Replay", "analyze", "calibrate", "estimate", "host",
           "join", "open_replay", "play", "plugins", "resume", "review"]

_RESULTS = ("EstimateResult", "PlayedGame", "Probability")


def __getattr__(name: str):
    """The result types, imported on first use (tabletop.app.results; Replay: tabletop.app.replays)."""
    if name in _RESULTS:
        from tabletop.app import results

        return getattr(results, name)
    if name == "Replay":
        from tabletop.app.replays import Replay

        return Replay
    raise AttributeError(f"module 'tabletop.api' has no attribute {name!r}")


def _bad(message: str) -> Exception:
    from tabletop.sim.errors import InputError

    return InputError(message)


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


# -- estimate -------------------------------------------------------------------------------------
def estimate(device: str, trials: int | None = None, seed: int = 0, workers: int = 1, *,
             set: Mapping[str, Any] | None = None, overrides: Iterable[str] = (), spec: str | Path | None = None,
             scheduler: str | None = None, against: str | Path | None = None, sensitivity: bool = False,
             sensitivity_trials: int | None = None, uncertainty: bool = False, precision: float | None = None,
             out: str | Path | None = None, resume: bool = False, plot: str | Path | None = None,
             record_trials: int | None = None, record: str | Path | None = None,
             calibration: str | Path | None = None, progress: bool = False) -> EstimateResult:
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
    raises InputError with the result as its `.result`. `calibration` (a `tabletop calibrate` file
    of this device): the calibrated copy, each trial drawing the fitted values from its posterior;
    the result's `calibration` block gives each label's calibrated band.
    """
    if _spawned_import() and isinstance(workers, int) and workers > 1 and scheduler is None:
        # a spawned worker importing a script that calls this at its top level: leave quietly (a
        # pool started here could never start); the script's own process says what to do
        raise SystemExit(1)
    from concurrent.futures.process import BrokenProcessPool

    from tabletop.app.calibrated import estimate as run     # the estimate job, its calibration opened
    from tabletop.app.requests import EstimateRequest

    texts = [overrides] if isinstance(overrides, str) else overrides
    if not isinstance(texts, (list, tuple)) or not isinstance(set or {}, Mapping):
        raise _bad(f"--set: expected NAME=VALUE texts (overrides=) or a dict of values (set=), got "
                   f"{overrides if not isinstance(texts, (list, tuple)) else set!r}")
    texts = [*texts, *(f"{name}={_toml(value)}" for name, value in (set or {}).items())]
    request = EstimateRequest(device=device, trials=trials, seed=seed, workers=workers, spec=spec, overrides=texts,
                              scheduler=scheduler, against=against, sensitivity=sensitivity,
                              sensitivity_trials=sensitivity_trials, uncertainty=uncertainty, precision=precision,
                              out=out, resume=resume, plot=plot, record_trials=record_trials, record=record,
                              calibration=calibration)
    try:
        return run(request, _progress_reporter() if progress else None)
    except BrokenProcessPool:
        main = sys.modules.get("__main__")
        if request.workers > 1 and getattr(main, "__file__", None):
            raise RuntimeError(f"tabletop.estimate(..., workers={request.workers}) in a script must be called "
                               f"under `if __name__ == \"__main__\":` (its worker processes import "
                               f"{main.__file__}, which calls it again)") from None
        raise RuntimeError("a worker process of tabletop.estimate ended abruptly (killed, or out of "
                           "memory)") from None


def _progress_reporter():
    """progress=True: the command's bars and notes on stderr, no tables."""
    from tabletop.app.console import ConsoleReporter

    return ConsoleReporter(quiet=False)


def _spawned_import() -> bool:
    """True while a spawned worker process imports the script that started it (multiprocessing's
    own test before it refuses to start a process there)."""
    mp = sys.modules.get("multiprocessing")
    return mp is not None and bool(getattr(mp.current_process(), "_inheriting", False))


# -- play -----------------------------------------------------------------------------------------
def play(game: str, seats: Sequence[str] | str = ("ai", "ai"), seed: int = 0, *, outcomes: str = "physics",
         record: str | Path | None = None, calibration: str | Path | None = None, echo: bool = False,
         **options) -> PlayedGame:
    """`tabletop play GAME --headless`: a game played by AI (or random) seats to its end.

    `seats` is a list (or the command's comma-separated text) of seat kinds (no "human": there is
    no window here); `outcomes` is the command's --outcomes: "physics", "measured" (the published
    10,000-trial tables the package holds, from any folder), "table:FILE.json[,FILE.json]" (a bare
    name such as "sticks-10k-seed1.json" that is no file here names a packaged table), King Kong's
    "uniform"; `options` are the game's own (a game's definition lists them with their defaults).
    `calibration` (a `tabletop calibrate` file; with "measured" or "table:..." outcomes): its
    calibrated odds replace the tables of the devices it calibrates. No replay is written unless
    `record` names the file; `echo=True` prints the log as it goes, as the command does, and with
    echo off nothing is printed.
    """
    from tabletop.app.games import play as run
    from tabletop.app.requests import PlayRequest

    if not isinstance(seats, str) and not (isinstance(seats, (list, tuple))
                                           and all(isinstance(x, str) and x and "," not in x for x in seats)):
        raise _bad(f"--seats: expected seat kinds (ai, random), got {seats!r}")
    request = PlayRequest(game=game, seats=seats, seed=seed, outcomes=outcomes, options=options, record=record,
                          calibration=calibration)
    human = ("seats: a human seat needs the window, and tabletop.play() opens none: give \"ai\" or "
             "\"random\" seats here (the command `tabletop play GAME` opens the window for human seats)")
    emit = (lambda line: print(line, flush=True)) if echo else None
    if echo:
        return run(request, emit, human=human)
    return _quietly(lambda: run(request, emit, human=human))


def resume(file: str | Path | None = None, *, game: str | None = None, from_turn: int | None = None,
           seats: Sequence[str] | str | None = None, record: str | Path | None = None, echo: bool = False) -> PlayedGame:
    """`tabletop play --resume FILE --headless`: a recorded game played on from the start of turn
    `from_turn` (None: where the recording ends) to its end, by `seats` (None: the recorded ones;
    with them the game goes on exactly as recorded). With no `file`, `game`'s newest unfinished
    recording in the games folder (`play GAME --continue`). No replay is written unless `record`
    names the file; `echo=True` prints the log as it goes."""
    from tabletop.app.games import resume as run
    from tabletop.app.requests import ResumeRequest

    request = ResumeRequest(resume=file, game=game, continue_game=file is None, from_turn=from_turn, seats=seats,
                            headless=True, record=record, no_record=record is None)
    emit = (lambda line: print(line, flush=True)) if echo else None
    return run(request, emit) if echo else _quietly(lambda: run(request, emit))


def analyze(game: str, games: int = 1000, seats: Sequence[str] | str = ("ai", "ai"), seed: int = 0, *,
            outcomes: str = "measured", compare: str | None = None, calibration: str | Path | None = None,
            workers: int = 1, scheduler: str | None = None, out: str | Path | None = None,
            plot: str | Path | None = None, resume: bool = False, solve: bool = False,
            policy: str | Path | None = None, progress: bool = False, echo: bool = False, **options):
    """`tabletop analyze GAME`: `games` whole games played by the rules with table chance and measured
    (every figure with its 95% interval), or with `solve` the game's perfect play. `outcomes`
    "measured", "fair" or "table:FILE.json[,FILE.json]"; `compare="fair"` plays every game with
    fair chance too; `calibration` (a `tabletop calibrate` file) replaces the tables of the devices
    it calibrates with its calibrated odds; `options` the game's own; the rest the command's options.
    A tabletop.app.results.AnalyzeResult (`to_dict()`: what --out writes). `progress=True` shows the
    progress bar on stderr; `echo=True` prints a solve's report lines. With workers > 1 in a
    script, call it under `if __name__ == "__main__":` (its workers are spawned processes that
    import the script)."""
    from tabletop.app.games import analyze as run
    from tabletop.app.requests import AnalyzeRequest

    request = AnalyzeRequest(game=game, seats=seats, seed=seed, outcomes=outcomes, options=options, games=games,
                             compare=compare, workers=workers, scheduler=scheduler, out=out, plot=plot,
                             resume=resume, solve=solve, policy=policy, calibration=calibration)
    return run(request, _progress_reporter() if progress else None,
               emit=(lambda line: print(line, flush=True)) if echo else (lambda line: None))


def review(file: str | Path, *, out: str | Path | None = None, plot: str | Path | None = None, rollouts: int = 32,
           seed: int = 0, workers: int | None = None, estimate: bool = False, rollout_seat: str | None = None,
           precision: float = 0.10, progress: bool = False):
    """`tabletop review FILE.ttr`: a recorded game reviewed: every decision's win probabilities,
    loss and grade, every chance event's luck (and a gadget's swing against fair), each player's
    accuracy, cost and luck (tabletop.gamekit.review says how each is defined). Exact where the
    game is solved (Knossos, two-player King of the Hill), else by `rollouts` games a position with
    their intervals, each decision's loss to +-`precision`, in `workers` processes (None: one per
    core). A tabletop.app.review.ReviewResult (`lines` as the command prints them,
    `to_dict()` what --out writes)."""
    from tabletop.app.requests import ReviewRequest
    from tabletop.app.review import review as run

    request = ReviewRequest(file=file, out=out, plot=plot, rollouts=rollouts, seed=seed, workers=workers,
                            estimate=estimate, rollout_seat=rollout_seat, precision=precision)
    return run(request, _progress_reporter() if progress else None)


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
def open_replay(path: str | Path):
    """Read a .ttr replay (InputError, one line, when it is missing or not a readable replay): a
    tabletop.app.replays.Replay (header, lines, result, history, verify())."""
    from tabletop.app.replays import read

    return read(path)


# -- playing together -------------------------------------------------------------------------------
def host(game: str, server: str, seats: Sequence[str] | str = ("remote", "remote"), seed: int = 0, *,
         outcomes: str = "physics", on_drop: str = "ai", drop_wait: int = 60, **options):
    """`tabletop host GAME --server ws://HOST:PORT`: a room made on a running game server; a
    tabletop.app.results.HostedRoom (its `code`, the `url` players join with, the seats). `seats`:
    "remote" (a client joins to play it), "ai" or "random" (played in the room); `outcomes`
    "physics" or "measured"; a remote seat whose client dropped is waited for `drop_wait` seconds,
    then played by the AI (`on_drop` "ai") or the room pauses ("pause"); `options` the game's own.
    tabletop.app.net.NetError when the server cannot be reached."""
    from tabletop.app import net
    from tabletop.app.requests import HostRequest

    return net.host(HostRequest(game=game, seats=seats, seed=seed, outcomes=outcomes, options=options, server=server,
                                on_drop=on_drop, drop_wait=drop_wait))


def join(url: str, *, seat: str | None = None, name: str | None = None, bot: str = "random", spectate: bool = False,
         seed: int = 0, echo: bool = False, token: str | None = None, chat: bool = True):
    """`tabletop join ws://HOST:PORT/CODE --headless`: a seat of a room played by `bot` (random: among
    its legal actions, from its own Generator of `seed`; or the game's own "ai", "plan" or "solved"
    seat, choosing on what the seat may know) to the game's end, or the game watched
    (`spectate`); a tabletop.app.results.JoinedSeat (the seat, its log as it read it, the result,
    the winner). `echo=True` prints the log as it comes. It blocks until the game is over; run one
    per thread or process to play several seats. The seat's token is kept on this machine, so the
    same join takes the seat back (`token`: one from another machine); `chat` False: the room's
    chat not printed."""
    from tabletop.app import net
    from tabletop.app.requests import JoinRequest

    request = JoinRequest(url=url, seat=seat, name=name, bot=bot, spectate=spectate, seed=seed, token=token,
                          chat=chat)
    emit = (lambda line: print(line, flush=True)) if echo else None
    return net.join(request, emit=emit)


# -- calibrate ------------------------------------------------------------------------------------
def calibrate(device: str, observed: str | Path | None = None, *, joint: Iterable[str] = (), plan: bool = False,
              gesture: bool = False, gesture_points: int = 40, budget: int = 300, measured: Iterable[str] = (), fit: Iterable[str] = (),
              trials: int = 2000, seed: int = 0, workers: int = 1, holdout_points: int = 5, holdout_trials: int = 100,
              walkers: int = 64, steps: int = 3000, bootstrap: int = 8, set: Mapping[str, Any] | None = None,
              overrides: Iterable[str] = (), spec: str | Path | None = None, scheduler: str | None = None,
              out: str | Path | None = None, resume: bool = False, plot: str | Path | None = None,
              progress: bool = False):
    """`tabletop calibrate DEVICE --observed FILE`: the device's uncertain material values fitted to
    tallies from a real copy (`observed`: a label,count CSV or an estimate's JSON); `joint`
    "DEVICE=FILE" texts (other devices sharing its material pairs, calibrated together) or
    "DEVICE[NAME=VALUE,...]=FILE" (another configuration of the device); `gesture` (fit the
    gesture's ranges too, trained at `gesture_points` values); `plan`
    (what to measure next, `budget` more tallies weighed against home tests); `measured`
    "NAME=VALUE+-SD" texts, `fit` parameter names, the rest the command's options. A
    tabletop.app.calibrate.CalibrateResult: `parameters` (prior and posterior of each fitted one),
    `bands` (per label the prior and the calibrated predictive p and band), `to_dict()` the
    calibration file --out writes."""
    from tabletop.app.calibrate import calibrate as run
    from tabletop.app.requests import CalibrateRequest

    texts = tuple(overrides) + tuple(f"{k}={_toml(v)}" for k, v in (set or {}).items())
    request = CalibrateRequest(device=device, observed=observed, joint=tuple(joint), plan=plan, gesture=gesture,
                               gesture_points=gesture_points, budget=budget,
                               measured=tuple(measured), fit=tuple(fit),
                               trials=trials, seed=seed, workers=workers, holdout_points=holdout_points,
                               holdout_trials=holdout_trials, walkers=walkers, steps=steps, bootstrap=bootstrap,
                               spec=spec, overrides=texts, scheduler=scheduler, out=out, resume=resume, plot=plot)
    return run(request, _progress_reporter() if progress else None)


def plugins() -> dict:
    """The installed games and devices, where each comes from, and why a declared one cannot be
    registered: {"games": [...], "devices": [...], "problems": {name: line}} (`tabletop plugins`)."""
    from tabletop.app.plugins import plugins as installed

    return installed()
