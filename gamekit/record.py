"""Recording a game: its actions as a replay stores them, and the recorder that writes the file.

The file format is tabletop.sim.record's. Actions are stored as [tag, *fields] through the game's
definition (`GameDefinition.actions()`). A `GameRecorder` is an observer of the match
(tabletop.gamekit.match.Match, the one game loop of headless play and the window): the match tells
it of every action and of the game's end, and it writes one chunk per turn, with every action, its
log lines and its motion. Reading a recording back and verifying it is tabletop.gamekit.replay's.

A game drawn from committed seeds (tabletop.gamekit.commit.CommittedSeeds, handed to the recorder
as to the match) is written as format version 3: the header's `seeds` is "committed" with the
secret's commitment (never the secret), each chance step carries the event's `commitment` and
`reveal` (and `motion_sha256`, the hash of its quantized motion, when it has one), and the end
record the `secret`.
"""
from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

from tabletop.gamekit.chance import PhysicsSource, TableOutcomes, WatchedOutcomes
from tabletop.gamekit.commit import COMMITTED_SEEDS_DOC, SCHEME, CommittedSeeds
from tabletop.gamekit.match import SEEDS_DOC, MatchObserver
from tabletop.gamekit.state import ChanceOutcome
from tabletop.sim.errors import InputError
from tabletop.sim.record import (COMMITTED_VERSION, MOVE_ANIMATION_S, POSITION_UNIT, QUATERNION_SCALE,
                                  SEEDED_VERSION, TIME_UNIT, ReplayWriter, motion_sha256, quantize_motion)

MOTION_RATE = 60.0        # pose samples per simulated second
REPLAY_DIR = Path("replays")          # where a device's recorded trials go by default (beside the run)
DATA_ENV = "TABLETOP_DATA"            # a folder that takes the place of the user's data folder


# -- actions -----------------------------------------------------------------------------------
def encode_action(game, action) -> list:
    """[tag, *fields] of an action of `game` (a GameDefinition)."""
    for tag, cls in game.actions().items():
        if type(action) is cls:
            return [tag, *(getattr(action, f.name) for f in dataclasses.fields(cls))]
    raise ValueError(f"{action!r} is not a {game.name} action")


def _plain_field(v) -> bool:
    """An action's stored field: a number, a name, or a list of numbers (King Kong's discards)."""
    return isinstance(v, (int, str)) or (isinstance(v, list) and all(isinstance(x, int) for x in v))


def decode_action(game, encoded):
    """The action object of a stored [tag, *fields] of `game` (a GameDefinition); InputError when
    it is not one."""
    actions = game.actions()
    try:
        tag, *values = encoded
        cls = actions[tag]
        fields = dataclasses.fields(cls)
        if len(values) != len(fields) or not all(_plain_field(v) for v in values):
            raise ValueError
        return cls(*(tuple(v) if isinstance(v, list) else v for v in values))
    except (ValueError, TypeError, KeyError):
        raise InputError(f"corrupt replay: {encoded!r} is not a {game.name} action") from None


def data_dir() -> Path:
    """The user's application data folder (platformdirs: ~/.local/share/tabletop on Linux,
    ~/Library/Application Support/tabletop on macOS, %LOCALAPPDATA%\\tabletop on Windows), or
    $TABLETOP_DATA when that is set."""
    import os

    base = os.environ.get(DATA_ENV)
    if not base:
        import platformdirs

        base = platformdirs.user_data_dir("tabletop", appauthor=False)
    return Path(base)


def games_dir() -> Path:
    """Where games are recorded when no file is named: GAMES under the user's application data
    folder (`data_dir`: ~/.local/share/tabletop/games on Linux). `tabletop games` lists what is
    there."""
    return data_dir() / "games"


# -- the file's parts ---------------------------------------------------------------------------
def default_path(name: str, seed: int, folder: Path = REPLAY_DIR, suffix: str = "") -> Path:
    """replays/NAME-seedS[-SUFFIX]-YYYYmmdd-HHMMSS.ttr, a name not yet taken. The folder is made
    when the recording starts (tabletop.sim.record.ReplayWriter), not here: a command refused for bad input leaves
    no empty replays/ behind."""
    stem = f"{name}-seed{seed}{'-' + suffix if suffix else ''}-{time.strftime('%Y%m%d-%H%M%S')}"
    path, n = folder / f"{stem}.ttr", 1
    while path.exists():
        n += 1
        path = folder / f"{stem}-{n}.ttr"
    return path


def scene_of(*worlds) -> dict:
    """The looks and poses of every body in `worlds` now (the table before anything moves)."""
    from tabletop.sim.scene import look, poses

    looks, at = {}, {}
    for world in worlds:
        looks.update({name: look(world, name) for name in world.bodies})
        for name in world.bodies:
            at.update({track: list(p) for track, p in poses(world, name).items()})
    return {"looks": looks, "poses": at}


def table_worlds(table) -> tuple:
    """Every World a game's physical table draws (tabletop.gamekit.chance.PhysicsTable.worlds)."""
    return tuple(table.worlds)


def _tables_of(source) -> dict | None:
    if not isinstance(source, TableOutcomes):
        return None
    return {event: {label: float(p) for label, p in zip(labels, probs)}
            for event, (labels, probs) in source.tables.items()}


def _table_order(source) -> dict:
    """{"table_order": {event: labels}} for each recorded table whose labels do not stand in sorted
    order ({} when none): a replay's header sorts its keys, and a table draws by its labels' order,
    so that verify draws as the game did (`recorded_tables`)."""
    if not isinstance(source, TableOutcomes):
        return {}
    order = {event: list(labels) for event, (labels, _) in source.tables.items() if list(labels) != sorted(labels)}
    return {"table_order": order} if order else {}


def recorded_tables(config: dict) -> dict | None:
    """The tables a replay's config records (None: none), each with its labels in the order the
    game drew them by (`_table_order`)."""
    tables = config.get("tables")
    if not tables:
        return tables
    order = config.get("table_order") or {}
    return {event: ({label: table[label] for label in order[event]} if set(order.get(event, ())) == set(table)
                    else table) for event, table in tables.items()}


def replay_header(kind: str, seed: int, banner: list[str], scene: dict, **fields) -> dict:
    """A replay file's header: what wrote it, its kind ("game" or "trials"), seed, banner, first
    scene, motion rate and units, and the `fields` of its kind."""
    from tabletop.sim.world import engine_versions

    return {"program": "tabletop", "kind": kind, "seed": seed, "versions": engine_versions(),
            "banner": banner, "scene": scene, "motion_rate": MOTION_RATE,
            "units": {"position_m": POSITION_UNIT, "quaternion_scale": QUATERNION_SCALE, "time_s": TIME_UNIT,
                      "move_animation_s": MOVE_ANIMATION_S}, **fields}


# -- the recorder -------------------------------------------------------------------------------
class GameRecorder(MatchObserver):
    """Records a game played by a tabletop.gamekit.match.Match into a replay file: an observer of
    the match (`Match(..., observers=[recorder])`).

    The match draws its chance outcomes from `recorder.source` and tells `record` of every
    action; `finish(state, lines)` writes the end record; `close()` (always) closes the file.
    The wrapped `source` is the session's: physics (watched here, so each chance event keeps its
    Motion), or a measured table whose physics fallback (if any) is watched too. A source already
    watched (the window's) is read, not wrapped again, and keeps its motions.

    One T chunk per turn: the steps taken while `state.turn` has one value (chunk 0: before the
    first turn, e.g. the tilts for turn order), written when the next turn begins or the game ends.

    `seeds`: the match's seeds object; a CommittedSeeds makes the recording a committed game's
    (each chance step with its commitment and reveal, the end record with the secret), any other
    (None: GameSeeds of `seed`) a plain one.
    """

    def __init__(self, path: Path, game, config: dict, seed: int, state, source, banner: list[str],
                 seeds=None, resume=None, undo: bool = False):
        self.game = game               # its GameDefinition
        self.source = source
        self.committed = seeds if isinstance(seeds, CommittedSeeds) else None
        self.watched = None
        self._own_physics = None
        fallback = source.fallback if isinstance(source, TableOutcomes) else None
        if isinstance(source, WatchedOutcomes) or isinstance(fallback, WatchedOutcomes):
            self.watched = source if isinstance(source, WatchedOutcomes) else fallback
            physics = self.watched.source
        elif isinstance(source, PhysicsSource):
            self.source = self.watched = WatchedOutcomes(source, MOTION_RATE)
            physics = source
        elif fallback is not None:
            source.fallback = self.watched = WatchedOutcomes(fallback, MOTION_RATE)
            physics = fallback
        elif resume is None:
            physics = self._own_physics = game.physics()   # only to show the table
        version = SEEDED_VERSION if self.committed is None else COMMITTED_VERSION
        if resume is not None:
            self.writer = _resumed_writer(Path(path), resume, version)
        else:
            try:
                scene = scene_of(*table_worlds(physics.table_for(state)))
            finally:
                if self._own_physics is not None:
                    self._own_physics.close()
            config = {**config, "tables": _tables_of(source), **_table_order(source)}
            if self.committed is not None:
                seeding = {"seeds": SCHEME, "seeds_doc": COMMITTED_SEEDS_DOC,
                           "secret_commitment": self.committed.secret_commitment}
            else:
                seeding = {"seeds": SEEDS_DOC}
            header = replay_header("game", seed, banner, scene, game=game.name, config=config,
                                   initial_events=list(state.events), **seeding)
            self.writer = ReplayWriter(path, header, version=version)
        self._chances = sum(isinstance(a, ChanceOutcome) for a in state.history)   # chance events so far
        self.path = path
        self._turn = state.turn
        self._steps: list[dict] = []
        # `undo` (the window): a finished turn is held back until the next chance event or the game's
        # end, so that decisions taken back (`take_back`) never reach the file; the file's chunks
        # are the same either way, only written a little later
        self.undo = undo
        self._held: list[tuple[int, list, list]] = []
        self.last_step: dict | None = None
        self.last_motion = None        # the last chance step's QuantizedMotion, whose hash is its motion_sha256
        self.last_looks: dict = {}     # ... and the looks of its bodies (body -> look), for a browser
        self._motions: list = []
        self._pop = self.watched is not None and self.watched is not source and self.watched is not fallback
        self._taken = len(self.watched.motions) if self.watched is not None else 0

    def record(self, state, action, event: str | None, events: list[str]) -> None:
        """One action just applied to `state`: the chance `event` it answered (None: a seat's),
        and the log lines it added."""
        if state.turn != self._turn:
            if self.undo:
                if self._steps:
                    self._held.append((self._turn, self._steps, self._motions))
                self._steps, self._motions = [], []
            else:
                self._flush()
            self._turn = state.turn
        if isinstance(action, ChanceOutcome):
            self._write_held()                 # nothing before a chance event can be taken back
        step = {"action": encode_action(self.game, action), "events": list(events)}
        self.last_motion = None
        if isinstance(action, ChanceOutcome):
            step["chance"] = event
            k, self._chances = self._chances, self._chances + 1
            if self.committed is not None:
                step["commitment"] = self.committed.commitment(k)
                step["reveal"] = self.committed.reveal(k)
            if self.watched is not None and len(self.watched.motions) > self._taken:
                if self.watched.start is not None:     # what the event started from (a Tipper's ball)
                    step["start"] = self.watched.start
                step["motion"] = len(self._motions)
                self._motions.append(self.watched.motions[-1])
                if self.committed is not None:
                    self.last_motion = quantize_motion(self._motions[-1])
                    self.last_looks = dict(self._motions[-1].looks)
                    step["motion_sha256"] = motion_sha256(self.last_motion)
                if self._pop:      # our own watcher: keep no motion in memory once written
                    self.watched.motions.clear()
                self._taken = len(self.watched.motions)
        self._steps.append(step)
        self.last_step = step          # what an observer after the recorder may read (a server's reveal)
        if state.is_terminal():
            self._flush()

    def _write_held(self) -> None:
        for turn, steps, motions in self._held:
            self.writer.add_turn({"turn": turn, "steps": steps}, motions)
        self._held = []

    def _flush(self) -> None:
        self._write_held()
        if self._steps:
            self.writer.add_turn({"turn": self._turn, "steps": self._steps}, self._motions)
        self._steps, self._motions = [], []

    def take_back(self, state, actions: int) -> None:
        """Forget the last `actions` decisions (none of them written yet: see `undo`)."""
        for _ in range(actions):
            if not self._steps:
                if not self._held:
                    raise RuntimeError("a decision already written cannot be taken back")
                self._turn, self._steps, self._motions = self._held.pop()
            self._steps.pop()
        if not self._steps and self._held:
            self._turn, self._steps, self._motions = self._held.pop()
        self.last_step = self._steps[-1] if self._steps else None

    def finish(self, state, lines: list[str], unfinished: bool = False) -> None:
        """The end record: the result lines and the result (`unfinished`: a game left before its
        end, whose last turn so far is written too)."""
        self._flush()
        result = {"winner": self.game.winner(state), "turns": state.turn}
        if unfinished:
            result["unfinished"] = True
        end = {"lines": list(lines), "result": result}
        if self.committed is not None:     # the game is over: its secret may be known
            end["secret"] = self.committed.secret.hex()
        self.writer.finish(end)

    def close(self) -> None:
        self.writer.close()


def _resumed_writer(path: Path, resume, version: int) -> ReplayWriter:
    """The writer of a game taken up again (`resume`: its header, the looks and the T payloads of
    the turns it was taken up from): written under a temporary name until those turns are in, then
    renamed into place, so a crash meanwhile leaves whatever was at `path` as it was."""
    header, looks, payloads = resume
    temporary = path.with_name(f".{path.name}.resuming")
    writer = ReplayWriter(temporary, header, version=version)
    try:
        writer.copy_turns(looks, payloads)
        writer.move_to(path)
    except BaseException:
        writer.close()
        temporary.unlink(missing_ok=True)
        raise
    return writer


def open_recorder(record: Path | None, game, config: dict, seed: int, state, source,
                  banner: list[str], seeds=None) -> GameRecorder | None:
    """A GameRecorder of `game` (a GameDefinition) writing to `record` (None: no recording), of a
    match drawn from `seeds` (None: GameSeeds of `seed`); says where on stderr."""
    if record is None:
        return None
    recorder = GameRecorder(record, game, config, seed, state, source, banner, seeds)
    print(f"recording the replay to {record}", file=sys.stderr, flush=True)
    return recorder
