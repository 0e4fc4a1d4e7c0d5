"""The games' jobs: `play` (headless, or the window), `analyze` (many whole games with table
chance, or a solved game's perfect play). A request names its game; the registry turns the name
into the game's definition here, and nothing below knows one game from another."""
from __future__ import annotations

import time
from pathlib import Path

from tabletop.app import longrun
from tabletop.app.calibrated import calibrated_outcomes
from tabletop.app.requests import AnalyzeRequest, GameRun, GamesRequest, PlayRequest, ResumeRequest, WindowRequest
from tabletop.app.results import AnalyzeResult, PlayedGame
from tabletop.gamekit.outcomes import play_outcomes, resolve_tables
from tabletop.sim.errors import InputError

HUMAN_HEADLESS = "--seats: a human seat needs the window; drop --headless or use ai/random seats"


def _check_record(record) -> None:
    """The replay's file checked before any work (the default folder, the user's games folder, is
    made when the recording starts)."""
    from tabletop.gamekit.record import games_dir

    if record is not None and not (record.parent == games_dir() and not record.parent.exists()):
        longrun.check_outputs(record=record)


def definition_of(name: str):
    from tabletop.gamekit.registry import game_spec

    return game_spec(name)


def game_options(definition, given: dict) -> dict:
    """Every option of the game, the `given` ones checked by the game; an option of another game
    is an InputError naming the games that have it."""
    from tabletop.gamekit.registry import GAMES

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
    seats = check_seats(definition, request.seats, kinds or definition.seat_kinds)
    definition.check_seats(seats, options)
    return definition, options, seats


def play(request: PlayRequest, emit=None, human: str = HUMAN_HEADLESS) -> PlayedGame:
    """A whole game by its AI (or random) seats, each log line to `emit` as it comes, the replay
    written to `request.record` as it goes (None: none); `human` is what a human seat is told."""
    definition, options, seats = checked(request)
    if "human" in seats:
        raise InputError(human)
    outcomes, _ = calibrated_outcomes(definition, play_outcomes(definition, request.outcomes), request.calibration)
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
    if request.calibration is not None:
        raise InputError("--calibration: the window simulates every chance event (physics play of a calibrated "
                         "copy is not wired yet); play its calibrated tables with --headless --outcomes measured")
    size = parse_size(request.size)
    _check_record(request.record)
    return open_window(definition, seats, request.seed, options, request.screenshot, request.after_turns, size,
                       request.pace, request.record)


# -- playing a recorded game on ------------------------------------------------------------------
def _open_game_record(request: ResumeRequest):
    """(the replay, its game's definition) of the recorded game the request names (its file, or the
    newest unfinished game of its game); InputError (one line) otherwise."""
    from tabletop.sim.record import ReplayFile

    path = request.resume if request.resume is not None else latest_unfinished(request.game)
    replay = ReplayFile.open(path)
    if replay.header.get("kind") != "game":
        raise InputError(f"{path}: a recording of a device's trials, not of a game")
    try:
        definition = definition_of(str(replay.header.get("game")))
    except InputError:
        raise InputError(f"{path}: a recording of {replay.header.get('game')!r}, not a game of this build") from None
    return replay, definition


def _resume_seats(request: ResumeRequest, definition, replay) -> list[str] | None:
    if request.seats is None:
        return None
    recorded = list(replay.header.get("config", {}).get("seats", []))
    seats = check_seats(definition, request.seats, definition.seat_kinds)
    definition.check_seats(seats, {o.name: replay.header.get("config", {}).get(o.name, o.default)
                                   for o in definition.options})
    if len(seats) != len(recorded):
        raise InputError(f"--seats: the recorded game has {len(recorded)} seats ({','.join(recorded)}); give as "
                         f"many, not {len(seats)}")
    return seats


def _resume_record(request: ResumeRequest, definition, replay) -> Path | None:
    if request.no_record:
        return None
    record = request.record or default_record(definition.name, int(replay.header.get("seed", 0)), "resumed")
    if Path(record).resolve() == Path(replay.path).resolve():
        raise InputError(f"--record: {record} is the recording being played on; name another file")
    _check_record(record)
    return record


def resume(request: ResumeRequest, emit=None) -> PlayedGame:
    """`play --resume FILE --headless`: the recorded game played on (tabletop.gamekit.session.
    resume_headless), each line to `emit`; recorded to a new file naming the one it came from."""
    from tabletop.gamekit.session import resume_headless

    replay, definition = _open_game_record(request)
    seats = _resume_seats(request, definition, replay)
    now = seats or list(replay.header.get("config", {}).get("seats", []))
    if "human" in now:
        raise InputError(HUMAN_HEADLESS if seats else "--seats: the recorded game has a human seat, which needs the "
                                                      "window; drop --headless or give --seats with ai/random seats")
    record = _resume_record(request, definition, replay)
    lines: list[str] = []

    def log(line: str) -> None:
        lines.append(line)
        if emit is not None:
            emit(line)

    final = resume_headless(definition, replay, request.from_turn, seats, record, log)
    return PlayedGame(definition, int(replay.header.get("seed", 0)), now, lines, final, record)


def resume_window(request: ResumeRequest) -> int:
    """`play --resume FILE`: the recorded game played on in the 3D window."""
    from tabletop.gamekit.view.window import parse_size, play_window as open_window

    replay, definition = _open_game_record(request)
    seats = _resume_seats(request, definition, replay)
    config = replay.header.get("config", {})
    if config.get("outcomes", "physics") != "physics":
        raise InputError(f"{replay.path}: its chance came from --outcomes {config.get('outcomes')}; the window "
                         f"simulates every chance event: play it on with --headless")
    size = parse_size(request.size)
    record = _resume_record(request, definition, replay)
    options = {o.name: config[o.name] for o in definition.options if o.name in config}
    now = seats or list(config.get("seats", []))
    return open_window(definition, now, int(replay.header.get("seed", 0)), options, None, 0, size, request.pace,
                       record, resume=(replay, request.from_turn))


def games(request: GamesRequest) -> tuple[Path, list[dict]]:
    """`tabletop games`: (the folder, its recorded games newest first: `recorded_games`)."""
    folder = request.folder if request.folder is not None else games_folder()
    return folder, recorded_games(folder)


def recorded_games(folder: Path | None = None) -> list[dict]:
    """The games recorded in `folder` (None: the user's games folder), newest first: each its
    file, game, when it was recorded, seats, turns, and whether it is finished, left or cut off
    (a crash), the file it was resumed from, and (`continued`) the newest recording in the folder
    that was resumed from it, if any. A file that does not read is listed as such."""
    from tabletop.gamekit.record import games_dir
    from tabletop.gamekit.replay import game_turns
    from tabletop.sim.record import ReplayFile

    folder = Path(folder) if folder is not None else games_dir()
    rows = []
    for path in sorted(folder.glob("*.ttr")) if folder.is_dir() else []:
        try:
            replay = ReplayFile.open(path)
        except InputError as exc:
            rows.append({"file": path, "game": None, "recorded": path.stat().st_mtime, "error": str(exc)})
            continue
        if replay.header.get("kind") != "game":
            continue
        result = (replay.end or {}).get("result", {})
        status = "cut off" if replay.end is None else "left" if result.get("unfinished") else "finished"
        rows.append({"file": path, "game": replay.header.get("game"), "recorded": replay.recorded_at,
                     "seats": list(replay.header.get("config", {}).get("seats", [])), "turns": game_turns(replay),
                     "status": status, "winner": result.get("winner"),
                     "resumed_from": (replay.header.get("resumed_from") or {}).get("file")})
    rows = sorted(rows, key=lambda row: row["recorded"], reverse=True)
    for row in rows:                 # a game played on already: the newest recording resumed from it
        row["continued"] = next((other["file"].name for other in rows
                                 if other.get("resumed_from") == row["file"].name and other is not row), None)
    return rows


def latest_unfinished(game: str, folder: Path | None = None) -> Path:
    """`play GAME --continue`: the newest recorded game of GAME that did not finish and was not
    played on already (a recording in the folder resumed from it: that one is taken up instead,
    if it did not finish either)."""
    from tabletop.gamekit.record import games_dir

    name = definition_of(game).name
    for row in recorded_games(folder):
        if row["game"] == name and row.get("status") in ("left", "cut off") and row.get("continued") is None:
            return row["file"]
    raise InputError(f"--continue: no unfinished {name} game in {folder or games_dir()} that was not played on "
                     f"already (tabletop games lists the recorded games; play --resume FILE takes up any)")


def games_folder() -> Path:
    """The user's games folder: where play records when no file is named."""
    from tabletop.gamekit.record import games_dir

    return games_dir()


def default_record(name: str, seed: int, suffix: str = ""):
    """Where a game is recorded when no file is named: GAMES/NAME-seedS-DATE-TIME.ttr, GAMES the
    user's data folder's (tabletop.gamekit.record.games_dir)."""
    from tabletop.gamekit.record import default_path, games_dir

    return default_path(name, seed, games_dir(), suffix=suffix)


def solve(request: AnalyzeRequest, definition, options: dict, emit) -> AnalyzeResult:
    """`analyze GAME --solve`: the game's perfect play (a game whose definition is solved), each
    line of the report to `emit`, --out and --policy written."""
    from tabletop.gamekit.registry import GAMES
    from tabletop.sim.output import write_json_atomic

    if not definition.solved:
        solved = [d.name for d in GAMES.values() if d.solved]
        raise InputError(f"--solve: only {', '.join(solved)} {'is' if len(solved) == 1 else 'are'} solved (perfect "
                         f"play), not {definition.name}")
    if not request.solve:
        raise InputError("--policy: only with --solve")
    if request.compare is not None:
        raise InputError("--solve: the fair chance is always solved beside --outcomes; drop --compare")
    kind, files, calibration = _analyze_source(request, definition)
    longrun.check_outputs(out=request.out, policy=request.policy)
    named = request.outcomes if calibration is None else f"{request.outcomes} + {calibration.path.name}"
    result = AnalyzeResult({**definition.solve(named, kind, files, options, request.policy, emit, len(request.seats)),
                            **({"calibration": calibration.game_block()} if calibration else {})})
    if request.out is not None:
        write_json_atomic(request.out, result.to_dict())
    return result


def _analyze_source(request: AnalyzeRequest, definition):
    """(kind, files, the opened calibration or None) of the run's --outcomes: with --calibration, a
    table source whose files end with the calibration file (tabletop.app.calibrated); `fair` with a
    calibration is one line (fair chance is the idealised one; --compare fair still compares)."""
    from tabletop.gamekit import analyze as an

    kind, files = an.resolve_outcomes(definition.analysis(), resolve_tables(request.outcomes))
    if request.calibration is None:
        return kind, files, None
    if kind != "table":
        raise InputError(f"--calibration: with --outcomes measured or table:FILE.json (its calibrated tables "
                         f"replace measured ones), not {request.outcomes}; --compare fair compares with fair chance")
    text, calibration = calibrated_outcomes(definition, "table:" + ",".join(files), request.calibration)
    return kind, tuple(text[6:].split(",")), calibration


def analyze(request: AnalyzeRequest, reporter: longrun.Reporter | None = None, emit=print) -> AnalyzeResult:
    """Play the request's games and return the result (`to_dict()`: what --out writes). Bad input
    is an InputError before any work; Ctrl-C a longrun.Interrupted once the checkpoint is kept.
    With `solve`, the report's lines go to `emit`."""
    import contextlib

    from tabletop.gamekit import analyze as an
    from tabletop.gamekit.chance import load_tables
    from tabletop.sim.batch import TaskRef, run_batch
    from tabletop.sim.world import engine_versions

    reporter = reporter or longrun.Reporter()
    definition = definition_of(request.game)
    options = game_options(definition, request.options)
    if request.solve or request.policy is not None:
        return solve(request, definition, options, emit)
    seats = tuple(check_seats(definition, request.seats, an.seat_kinds(definition)))
    definition.check_seats(seats, options)
    if request.compare is not None and request.outcomes == request.compare:
        raise InputError(f"--compare {request.compare}: the outcomes are {request.outcomes} already; "
                         f"compare another source with it")
    longrun.check_outputs(out=request.out, plot=request.plot)
    analysis = definition.analysis()
    kind, files, calibration = _analyze_source(request, definition)
    named = request.outcomes if calibration is None else f"{request.outcomes} + {calibration.path.name}"
    outcomes = (named,) + ((request.compare,) if request.compare else ())
    sources = ((kind, files),) + tuple(an.resolve_outcomes(analysis, resolve_tables(o)) for o in outcomes[1:])
    task = an.GameTask(definition, seats, sources, options)   # bad tables or seats fail here
    runs = len(sources)
    ref = TaskRef("tabletop.gamekit.registry:analyze_task", (request.game, seats, sources, tuple(options.items())))
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
        "outcomes": {"name": named, "kind": sources[0][0], "files": list(sources[0][1]),
                     **({"fair": analysis.fair_note} if sources[0][0] == "fair" else {}),
                     **({"tables": load_tables(sources[0][1])} if sources[0][0] == "table" else {})},
        **({"calibration": calibration.game_block()} if calibration else {}),
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
