"""The games' jobs: `play` (headless, or the window), `analyze` (many whole games with table
chance, or a solved game's perfect play). A request names its game; the registry turns the name
into the game's definition here, and nothing below knows one game from another."""
from __future__ import annotations

import time
from pathlib import Path

from tabletop.app import longrun
from tabletop.app.requests import AnalyzeRequest, GameRun, PlayRequest, WindowRequest
from tabletop.app.results import AnalyzeResult, PlayedGame
from tabletop.app.sources import play_outcomes, resolve_tables
from tabletop.sim.errors import InputError

HUMAN_HEADLESS = "--seats: a human seat needs the window; drop --headless or use ai/random seats"


def _check_record(record) -> None:
    """The replay's file checked before any work (the default folder, replays/, is made when needed)."""
    from tabletop.gamekit.record import REPLAY_DIR

    if record is not None and not (record.parent == Path(REPLAY_DIR) and not record.parent.exists()):
        longrun.check_outputs(record=record)


def definition_of(name: str):
    from tabletop.games.registry import game_spec

    return game_spec(name)


def game_options(definition, given: dict) -> dict:
    """Every option of the game, the `given` ones checked by the game; an option of another game
    is an InputError naming the games that have it."""
    from tabletop.games.registry import GAMES

    owners: dict[str, list[str]] = {}
    for d in GAMES.values():
        for o in d.options:
            owners.setdefault(o.name, []).append(d.name)
    for name in given:
        if name in owners and definition.name not in owners[name]:
            raise InputError(f"--{name.replace('_', '-')}: only for {', '.join(owners[name])}, not {definition.name}")
    return definition.check_options(given)


def check_seats(definition, seats, kinds) -> list[str]:
    """The seats: each a seat kind of `kinds`, as many as the game seats."""
    seats = list(seats)
    unknown = [s for s in seats if s not in kinds]
    if unknown:
        raise InputError(f"--seats: unknown seat kind {unknown[0]!r} for {definition.name}; use {', '.join(kinds)}")
    lo, hi = definition.seats
    if not lo <= len(seats) <= hi:
        need = f"exactly {lo}" if lo == hi else f"{lo}-{hi}"
        raise InputError(f"--seats: {definition.title} needs {need} seats, not {len(seats)}")
    return seats


def checked(request: GameRun, kinds=None):
    """The request's game definition, its options and seats, checked: (definition, options, seats)."""
    definition = definition_of(request.game)
    options = game_options(definition, request.options)
    return definition, options, check_seats(definition, request.seats, kinds or definition.seat_kinds)


def play(request: PlayRequest, emit=None, human: str = HUMAN_HEADLESS) -> PlayedGame:
    """A whole game by its AI (or random) seats, each log line to `emit` as it comes, the replay
    written to `request.record` as it goes (None: none); `human` is what a human seat is told."""
    definition, options, seats = checked(request)
    if "human" in seats:
        raise InputError(human)
    outcomes = play_outcomes(definition, request.outcomes)
    _check_record(request.record)
    lines: list[str] = []

    def log(line: str) -> None:
        lines.append(line)
        if emit is not None:
            emit(line)

    final = definition.play_headless(seats, request.seed, outcomes, request.record, options, log)
    return PlayedGame(definition, request.seed, seats, lines, final, request.record)


def play_window(request: WindowRequest) -> int:
    """The 3D window (or its one offscreen screenshot): every chance event simulated."""
    from tabletop.gamekit.view.window import parse_size, play_window as open_window

    definition, options, seats = checked(request)
    if request.outcomes != "physics":
        raise InputError(f"--outcomes {request.outcomes}: the window simulates every chance event (physics); "
                         f"other sources are for --headless play")
    size = parse_size(request.size)
    _check_record(request.record)
    return open_window(definition, seats, request.seed, options, request.screenshot, request.after_turns, size,
                       request.pace, request.record)


def default_record(name: str, seed: int, suffix: str = ""):
    """Where a replay goes when none is named: replays/NAME-seedS-DATE-TIME.ttr."""
    from tabletop.gamekit.record import default_path

    return default_path(name, seed, suffix=suffix)


def solve(request: AnalyzeRequest, definition, options: dict, emit) -> AnalyzeResult:
    """`analyze GAME --solve`: the game's perfect play (a game whose definition is solved), each
    line of the report to `emit`, --out and --policy written."""
    from tabletop.gamekit import analyze as an
    from tabletop.games.registry import GAMES
    from tabletop.sim.output import write_json_atomic

    if not definition.solved:
        solved = [d.name for d in GAMES.values() if d.solved]
        raise InputError(f"--solve: only {', '.join(solved)} {'is' if len(solved) == 1 else 'are'} solved (perfect "
                         f"play), not {definition.name}")
    if not request.solve:
        raise InputError("--policy: only with --solve")
    if request.compare is not None:
        raise InputError("--solve: the fair chance is always solved beside --outcomes; drop --compare")
    longrun.check_outputs(out=request.out, policy=request.policy)
    kind, files = an.resolve_outcomes(definition.analysis(), resolve_tables(request.outcomes))
    result = AnalyzeResult(definition.solve(request.outcomes, kind, files, options, request.policy, emit))
    if request.out is not None:
        write_json_atomic(request.out, result.to_dict())
    return result


def analyze(request: AnalyzeRequest, reporter: longrun.Reporter | None = None, emit=print) -> AnalyzeResult:
    """Play the request's games and return the result (`to_dict()`: what --out writes). Bad input
    is an InputError before any work; Ctrl-C a longrun.Interrupted once the checkpoint is kept.
    With `solve`, the report's lines go to `emit`."""
    import contextlib

    from tabletop.gamekit import analyze as an
    from tabletop.sim.batch import TaskRef, run_batch
    from tabletop.sim.world import engine_versions

    reporter = reporter or longrun.Reporter()
    definition = definition_of(request.game)
    options = game_options(definition, request.options)
    if request.solve or request.policy is not None:
        return solve(request, definition, options, emit)
    seats = tuple(check_seats(definition, request.seats, an.seat_kinds(definition)))
    if request.compare is not None and request.outcomes == request.compare:
        raise InputError(f"--compare {request.compare}: the outcomes are {request.outcomes} already; "
                         f"compare another source with it")
    longrun.check_outputs(out=request.out, plot=request.plot)
    analysis = definition.analysis()
    outcomes = (request.outcomes,) + ((request.compare,) if request.compare else ())
    sources = tuple(an.resolve_outcomes(analysis, resolve_tables(o)) for o in outcomes)
    task = an.GameTask(definition, seats, sources, options)   # bad tables or seats fail here
    runs = len(sources)
    ref = TaskRef("tabletop.games.registry:analyze_task", (request.game, seats, sources, tuple(options.items())))
    stack = contextlib.ExitStack()
    try:
        executor = stack.enter_context(longrun.executor(request.scheduler))
        header = {"command": "analyze", "game": request.game, "seats": list(seats), **options,
                  "seed": request.seed, "outcomes": list(outcomes),
                  "tables": [an.files_digest(files) for _, files in sources]}
        checkpoint = longrun.open_checkpoint(request.out, header, request.resume)
    except InputError:
        stack.close()
        raise
    total = request.games * runs
    records = [r for r in (checkpoint.records if checkpoint else []) if r["index"] < total]
    resumed = len(records)
    if records:
        reporter.note(f"resuming: {len(records)} games already in {checkpoint.path}")
    started = time.perf_counter()
    try:
        with reporter.progress(total, f"{request.game} games") as bar:
            bar.advance(len(records))
            records += run_batch(ref, total, request.seed, request.workers,
                                 device=task if request.workers == 1 else None, progress=bar.advance,
                                 skip={r["index"] for r in records}, on_chunk=checkpoint.append if checkpoint else None,
                                 executor=executor)
    except KeyboardInterrupt:
        raise longrun.interrupted(checkpoint, "games", request.resume) from None
    finally:
        stack.close()
    elapsed = time.perf_counter() - started
    by_run = an.runs_of(records, runs)
    data = {
        "game": request.game, "title": definition.title, "seats": list(seats), **options,
        "seed": request.seed, "seeds": an.SEEDS_DOC, "workers": request.workers, "scheduler": request.scheduler,
        "outcomes": {"name": request.outcomes, "kind": sources[0][0], "files": list(sources[0][1]),
                     **({"fair": analysis.fair_note} if sources[0][0] == "fair" else {})},
        **an.result_of(definition, analysis, seats, outcomes, by_run, request.seed),
        "runs": runs, "fair": analysis.fair_note, "intervals": an.INTERVALS_DOC,
        "what_lengths": {name: analysis.what.get(name, name) for name in by_run[0][0]["lengths"]},
        "versions": engine_versions(), "elapsed_s": round(elapsed, 3),
        "games_per_s": round((len(records) - resumed) / elapsed, 2) if elapsed > 0 else None,
    }
    result = AnalyzeResult(data)
    return longrun.finish(result, request.out, request.plot,
                          lambda: an.plot_result(data, by_run, next(iter(data["what_lengths"])), request.plot),
                          checkpoint, reporter)
