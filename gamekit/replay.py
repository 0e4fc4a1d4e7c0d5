"""Recorded games and trials: record as they are driven, print their log, verify them by re-simulation.

The file format is tabletop.sim.record's; this module knows the games. A `GameRecorder` wraps the
game's outcome source (physics: a WatchedOutcomes that keeps one Motion per chance event; a
measured table: no motion) and is told of every action by the match (tabletop.gamekit.match.Match,
the one game loop of headless play and the window): it writes one chunk per turn, with every
action, its log lines and its motion. Actions are stored as [tag, *fields] through a small
registry per game (`GAMES`).

`verify` re-drives a recording: each recorded decision is applied as recorded, each chance event
is answered by a fresh physics table (or the recorded outcome table) with that event's own
Generator of the recorded seed, and every outcome, log line and pose (after the file's quantization) must
match; the first difference is named.
"""
from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from tabletop.gamekit.chance import PhysicsSource, TableOutcomes, WatchedOutcomes
from tabletop.gamekit.state import ChanceOutcome
from tabletop.gamekit.errors import IllegalMoveError
from tabletop.gamekit.definition import GameDefinition
from tabletop.sim.errors import InputError
from tabletop.sim.record import VERSION as FORMAT_VERSION
from tabletop.sim.record import (MOVE_ANIMATION_S, POSITION_UNIT, QUATERNION_SCALE, TIME_UNIT, QuantizedMotion,
                        ReplayFile, ReplayWriter, dequantize_pose, look_digest, quantize_motion, quantize_pose)

MOTION_RATE = 60.0        # pose samples per simulated second
REPLAY_DIR = Path("replays")


# -- the games ---------------------------------------------------------------------------------
def encode_action(game: GameDefinition, action) -> list:
    for tag, cls in game.actions().items():
        if type(action) is cls:
            return [tag, *(getattr(action, f.name) for f in dataclasses.fields(cls))]
    raise ValueError(f"{action!r} is not a {game.name} action")


def winner_of(game: GameDefinition, state) -> str | None:
    """The winner a finished `state` of `game` records: what its definition says (a colour, colours
    joined by "+", ...)."""
    return game.winner(state)


def check_game(replay: ReplayFile, game: GameDefinition) -> None:
    """InputError unless `replay` records a game of `game` (the definition its reader was handed)."""
    name = replay.header.get("game")
    if name != game.name:
        raise InputError(f"{replay.path}: the replay is of {name!r}, not {game.name}")


def _plain_field(v) -> bool:
    """An action's stored field: a number, a name, or a list of numbers (King Kong's discards)."""
    return isinstance(v, (int, str)) or (isinstance(v, list) and all(isinstance(x, int) for x in v))


def decode_action(game: GameDefinition, encoded):
    """The action object of a stored [tag, *fields]; InputError when it is not one."""
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


# -- recording --------------------------------------------------------------------------------
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
    """Every World a game's physical table draws: its `worlds` (the table's own first), or its `world`."""
    return tuple(getattr(table, "worlds", None) or (table.world,))


def _tables_of(source) -> dict | None:
    if not isinstance(source, TableOutcomes):
        return None
    return {event: {label: float(p) for label, p in zip(labels, probs)}
            for event, (labels, probs) in source.tables.items()}


def _header(kind: str, seed: int, banner: list[str], scene: dict, **fields) -> dict:
    from tabletop.sim.world import engine_versions

    return {"program": "tabletop", "kind": kind, "seed": seed, "versions": engine_versions(),
            "banner": banner, "scene": scene, "motion_rate": MOTION_RATE,
            "units": {"position_m": POSITION_UNIT, "quaternion_scale": QUATERNION_SCALE, "time_s": TIME_UNIT,
                      "move_animation_s": MOVE_ANIMATION_S}, **fields}


class GameRecorder:
    """Records a game played by a tabletop.gamekit.match.Match into a replay file.

    The match draws its chance outcomes from `recorder.source` and tells `record` of every
    action; `finish(state, lines)` writes the end record; `close()` (always) closes the file.
    The wrapped `source` is the session's: physics (watched here, so each chance event keeps its
    Motion), or a measured table whose physics fallback (if any) is watched too. A source already
    watched (the window's) is read, not wrapped again, and keeps its motions.

    One T chunk per turn: the steps taken while `state.turn` has one value (chunk 0: before the
    first turn, e.g. the tilts for turn order), written when the next turn begins or the game ends.
    """

    def __init__(self, path: Path, game: GameDefinition, config: dict, seed: int, state, source,
                 banner: list[str]):
        from tabletop.gamekit.match import SEEDS_DOC

        self.game = game
        self.source = source
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
        else:
            physics = self._own_physics = game.physics()   # only to show the table
        try:
            scene = scene_of(*table_worlds(physics.table_for(state)))
        finally:
            if self._own_physics is not None:
                self._own_physics.close()
        config = {**config, "tables": _tables_of(source)}
        header = _header("game", seed, banner, scene, game=game.name, config=config, seeds=SEEDS_DOC,
                         initial_events=list(state.events))
        self.writer = ReplayWriter(path, header)
        self.path = path
        self._turn = state.turn
        self._steps: list[dict] = []
        self._motions: list = []
        self._pop = self.watched is not None and self.watched is not source and self.watched is not fallback
        self._taken = len(self.watched.motions) if self.watched is not None else 0

    def record(self, state, action, event: str | None, events: list[str]) -> None:
        """One action just applied to `state`: the chance `event` it answered (None: a seat's),
        and the log lines it added."""
        if state.turn != self._turn:
            self._flush()
            self._turn = state.turn
        step = {"action": encode_action(self.game, action), "events": list(events)}
        if isinstance(action, ChanceOutcome):
            step["chance"] = event
            if self.watched is not None and len(self.watched.motions) > self._taken:
                if self.watched.start is not None:     # what the event started from (a Tipper's ball)
                    step["start"] = self.watched.start
                step["motion"] = len(self._motions)
                self._motions.append(self.watched.motions[-1])
                if self._pop:      # our own watcher: keep no motion in memory once written
                    self.watched.motions.clear()
                self._taken = len(self.watched.motions)
        self._steps.append(step)
        if state.is_terminal():
            self._flush()

    def _flush(self) -> None:
        if self._steps:
            self.writer.add_turn({"turn": self._turn, "steps": self._steps}, self._motions)
        self._steps, self._motions = [], []

    def finish(self, state, lines: list[str], unfinished: bool = False) -> None:
        """The end record: the result lines and the result (`unfinished`: a game left before its
        end, whose last turn so far is written too)."""
        self._flush()
        result = {"winner": self.game.winner(state), "turns": state.turn}
        if unfinished:
            result["unfinished"] = True
        self.writer.finish({"lines": list(lines), "result": result})

    def close(self) -> None:
        self.writer.close()


def open_recorder(record: Path | None, game: GameDefinition, config: dict, seed: int, state, source,
                  banner: list[str]) -> GameRecorder | None:
    """A GameRecorder writing to `record` (None: no recording); says where on stderr."""
    if record is None:
        return None
    recorder = GameRecorder(record, game, config, seed, state, source, banner)
    print(f"recording the replay to {record}", file=sys.stderr, flush=True)
    return recorder


def _print_line(line: str) -> None:
    print(line, flush=True)


def play_recorded(definition: GameDefinition, game, players, source, seed: int, banner: str, config: dict,
                  record: Path | None, result_lines: Callable, max_turns: int = 20000,
                  emit: Callable[[str], None] | None = None):
    """A headless game of any game here: give the banner and every log line to `emit` (default:
    print them), record the replay to `record` (None: none) as it goes, emit `result_lines(final)`
    and close the source; returns the final state. The game is a tabletop.gamekit.match.Match
    stepped to its end."""
    from tabletop.gamekit.match import Match

    emit = emit or _print_line
    emit(banner)
    recorder = None
    try:
        state = game.new_initial_state()
        recorder = open_recorder(record, definition, config, seed, state, source, [banner])
        match = Match(state, players, source, seed, banner=[banner], result_lines=result_lines,
                      recorder=recorder, max_turns=max_turns)
        for line in match.lines[1:]:
            emit(line)
        while not match.is_over():
            for line in match.step():
                emit(line)
        final = match.state
    finally:
        if recorder:
            recorder.close()
        source.close()
    sys.stdout.flush()
    return final


# -- trials of a device -------------------------------------------------------------------------
def _plain(value):
    """JSON-able copy of a reading (numpy numbers and arrays become floats and lists)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.integer, bool)):
        return value if isinstance(value, bool) else int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if np.isfinite(v) else None
    return value


def _trial_line(i: int, outcome) -> str:
    what = f"{outcome.label}" if outcome.label is not None else "no label"
    return f"trial {i}: {what} ({outcome.status}) after {outcome.sim_time:.3f} s simulated"


def _run_trial(device, seed: int, i: int):
    from tabletop.sim.batch import trial_rng
    from tabletop.sim.motion import MotionRecorder

    rng = trial_rng(seed, i)
    gesture = device.sample_gesture(rng)
    with MotionRecorder(device.world, MOTION_RATE) as recorder:
        outcome = device.run(rng, gesture)
    return gesture, outcome, recorder.motion


def record_trials(path: Path, name: str, spec: Path, overrides, seed: int, count: int,
                  batch: list[dict] = ()) -> list[str]:
    """Run trials 0..count-1 of a run with `seed` again in this process, on a freshly built device
    watched by a MotionRecorder, and write them as one replay (one chunk per trial). The batch ran
    in worker processes; the per-trial seeds are its own (tabletop.sim.batch.trial_rng), so each trial
    repeats the batch's: any that does not is returned as a warning line. `verify` does the same."""
    from tabletop.games.devices import make_device
    from tabletop.sim.devices.base import gesture_dict

    banner = [f"{name}: trials 0-{count - 1} of seed {seed}"]
    config = {"spec": str(spec), "overrides": [list(pair) for pair in overrides], "trials": count}
    labels = {r["index"]: r["label"] for r in batch}
    warnings, counts = [], {}
    device = make_device(name, spec, overrides)
    try:
        header = _header("trials", seed, banner, scene_of(device.world), device=name, config=config,
                         seeds="trial i: numpy SeedSequence(seed, spawn_key=(i,))", initial_events=[])
        writer = ReplayWriter(path, header)
    except BaseException:
        device.close()
        raise
    try:
        for i in range(count):
            gesture, outcome, motion = _run_trial(device, seed, i)
            if i in labels and labels[i] != outcome.label:
                warnings.append(f"trial {i} gave {outcome.label} when recorded, {labels[i]} in the batch")
            key = outcome.label if outcome.label is not None else str(outcome.status)
            counts[key] = counts.get(key, 0) + 1
            trial = {"index": i, "label": outcome.label, "status": str(outcome.status),
                     "sim_time": outcome.sim_time, "steps": outcome.steps, "group": outcome.group,
                     "gesture": _plain(gesture_dict(gesture) if dataclasses.is_dataclass(gesture) else gesture),
                     "reading": _plain(outcome.reading)}
            step = {"trial": trial, "events": [_trial_line(i, outcome)], "motion": 0}
            writer.add_turn({"turn": i, "steps": [step]}, [motion])
        line = f"{count} trials, by outcome: " + ", ".join(f"{k}: {n}" for k, n in sorted(counts.items()))
        writer.finish({"lines": [line], "result": {"counts": counts}})
    finally:
        writer.close()
        device.close()
    return warnings


# -- reading back -------------------------------------------------------------------------------
def summary_lines(replay: ReplayFile) -> list[str]:
    """The lines `play` printed (banner, log, result), or a trial run's lines."""
    lines = list(replay.header.get("banner", [])) + list(replay.header.get("initial_events", []))
    for turn in replay.turns:
        lines.extend(turn.events)
    if replay.end is not None:
        lines.extend(replay.end.get("lines", []))
    return lines


def game_turns(replay: ReplayFile) -> int:
    """The turns a game replay holds: the game's own count (the result line's), not its chunks."""
    if replay.header.get("kind") == "trials":
        return len(replay.turns)
    result = (replay.end or {}).get("result", {})
    if isinstance(result.get("turns"), int):
        return result["turns"]
    return replay.turns[-1].number if replay.turns else 0


def describe(replay: ReplayFile) -> str:
    """One line of figures: turns, chance events with motion, playback time and size per minute."""
    seconds = replay.playback_seconds()
    motions = sum(len(t.log["motions"]) for t in replay.turns)
    kb = replay.size / 1000
    per_min = kb / (seconds / 60) if seconds > 0 else 0.0
    what = "trials" if replay.header.get("kind") == "trials" else "turns"
    return (f"{replay.path}: {game_turns(replay)} {what}, {motions} motions, {seconds / 60:.2f} min of play, "
            f"{kb:.1f} KB ({per_min:.1f} KB per minute)")


class Divergence(Exception):
    """The re-simulation differs from the recording; the message names the first difference."""


def _fmt(pose) -> str:
    if pose is None:
        return "hidden"
    if pose == "absent":
        return "not moving"
    x = dequantize_pose(pose)
    return "(" + ", ".join(f"{v:.5f}" for v in x) + ")"


def compare_motions(where: str, expected: QuantizedMotion, got: QuantizedMotion) -> None:
    """Raise Divergence at the first frame, time or track pose that differs."""
    if expected.rate != got.rate:
        raise Divergence(f"{where}: sample rate {expected.rate} recorded, {got.rate} re-simulated")
    for i in range(max(len(expected.frames), len(got.frames))):
        if i >= len(got.frames) or i >= len(expected.frames):
            short = "re-simulation" if i >= len(got.frames) else "recording"
            n = min(len(got.frames), len(expected.frames))
            raise Divergence(f"{where}: the {short} stops after {n} frames "
                             f"({len(expected.frames)} recorded, {len(got.frames)} re-simulated)")
        if expected.times[i] != got.times[i]:
            raise Divergence(f"{where}, frame {i}: time {expected.times[i] * TIME_UNIT:.6f} s recorded, "
                             f"{got.times[i] * TIME_UNIT:.6f} s re-simulated")
        e = {expected.tracks[k]: p for k, p in expected.frames[i]}
        g = {got.tracks[k]: p for k, p in got.frames[i]}
        for track in list(e) + [t for t in g if t not in e]:
            a, b = e.get(track, "absent"), g.get(track, "absent")
            if a != b:
                raise Divergence(f"{where}, frame {i} (t={expected.times[i] * TIME_UNIT:.4f} s), track {track!r}: "
                                 f"expected {_fmt(a)}, got {_fmt(b)}")
    if expected.looks != got.looks:
        raise Divergence(f"{where}: the moving bodies' looks differ ({sorted(expected.looks)} recorded, "
                         f"{sorted(got.looks)} re-simulated)")


def _quantized(motion) -> QuantizedMotion:
    return quantize_motion(motion, {body: look_digest(look) for body, look in motion.looks.items()})


def _compare_scene(header: dict, *worlds) -> None:
    recorded = header.get("scene", {}).get("poses", {})
    now = scene_of(*worlds)["poses"]
    for track in list(recorded) + [t for t in now if t not in recorded]:
        a = quantize_pose(recorded[track]) if track in recorded else "absent"
        b = quantize_pose(now[track]) if track in now else "absent"
        if a != b:
            raise Divergence(f"initial scene, body {track!r}: expected {_fmt(a)}, got {_fmt(b)}")


@dataclass
class Verified:
    turns: int
    chance_events: int
    frames: int
    from_turn: int = 0

    def __str__(self) -> str:
        start = f" from turn {self.from_turn}" if self.from_turn else ""
        return f"verified{start}: {self.turns} turns, {self.chance_events} chance events, {self.frames} frames"


def verify(replay: ReplayFile, game: GameDefinition | None = None, from_turn: int = 0) -> Verified:
    """Re-simulate `replay`; Divergence names the first difference. With `from_turn` N the turns
    before N are re-driven by the rules from their recorded actions (their log lines checked, their
    chance events not simulated) and re-simulation starts at turn N: chance event k draws from its
    own seed, so it needs nothing of the events before it. A game's replay needs its `game`
    definition (a recording of device trials none)."""
    from tabletop.gamekit.match import GameSeeds

    if replay.header.get("kind") == "trials":
        return _verify_trials(replay, from_turn)
    header = replay.header
    if replay.version < 2:
        raise InputError(f"{replay.path}: replay format version {replay.version} drew all chance from one "
                         f"stream; only version {FORMAT_VERSION} games can be re-simulated (--summary and "
                         f"playback still work)")
    if game is None:
        raise InputError(f"{replay.path}: a recorded game is verified with its game's definition")
    check_game(replay, game)
    entry = game
    try:
        config, seed = header["config"], int(header["seed"])
        game = entry.make_game(config)
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{replay.path}: corrupt replay: its header has no usable game config ({exc})") from None
    outcomes = config.get("outcomes", "physics")
    tables = config.get("tables")
    if outcomes != "physics" and not tables:
        raise InputError(f"{replay.path}: this game's chance came from --outcomes {outcomes}, which cannot be "
                         f"re-simulated; only physics games and measured-table games can be verified")
    last = replay.turns[-1].number if replay.turns else 0
    if not 0 <= from_turn <= last:
        raise InputError(f"--from-turn: the replay holds turns {replay.turns[0].number if replay.turns else 0}"
                         f"-{last}, not {from_turn}")
    state = game.new_initial_state()
    physics = entry.physics()
    watched = WatchedOutcomes(physics, float(header.get("motion_rate", MOTION_RATE)))
    source = TableOutcomes(tables, fallback=watched) if tables else watched
    seeds = GameSeeds(seed)
    k = chances = frames = 0
    seen_events: set[str] = set()
    try:
        _compare_scene(header, *table_worlds(physics.table_for(state)))
        if list(state.events) != list(header.get("initial_events", [])):
            raise Divergence(f"the log before the first turn differs: {state.events}")
        seen = len(state.events)
        for turn in replay.turns:
            simulate = turn.number >= from_turn
            recorded_motions = turn.quantized_motions() if simulate else None
            for step in turn.steps:
                where = f"turn {turn.number}"
                action = decode_action(entry, step.get("action"))
                if "chance" in step:
                    event = step["chance"]
                    if not isinstance(action, ChanceOutcome) or state.chance_event != event:
                        raise Divergence(f"{where}: the replay has the {event} answer {action}, the rules "
                                         f"expect {state.chance_event or 'a move'}")
                    if simulate:
                        first_frame = from_turn == 0 or event in seen_events
                        if not first_frame and event not in (tables or {}):
                            _resume(physics, where, event, state, step)
                        frames += _resimulate(where, event, action, step, state, source, watched,
                                              seeds.chance(k), recorded_motions, first_frame)
                        seen_events.add(event)
                        chances += 1
                    k += 1
                elif isinstance(action, ChanceOutcome):
                    raise Divergence(f"{where}: {action} without a chance event")
                try:
                    state.apply(action)
                except IllegalMoveError as exc:
                    raise Divergence(f"{where}: the recorded action is illegal: {exc}") from None
                if state.events[seen:] != list(step.get("events", [])):
                    raise Divergence(f"{where}: after {action} the log says {state.events[seen:]}, "
                                     f"the replay says {step.get('events')}")
                seen = len(state.events)
                if turn.number != state.turn:
                    raise Divergence(f"{where}: the rules are at turn {state.turn} after {action}")
        if replay.end is not None:
            winner = entry.winner(state)
            if replay.end.get("result", {}).get("winner") != winner:
                raise Divergence(f"the result differs: the replay says {replay.end.get('result')}, "
                                 f"the re-driven game ends with winner {winner}")
            if replay.end.get("result", {}).get("turns") != state.turn:
                raise Divergence(f"the result differs: the replay says {replay.end.get('result')}, "
                                 f"the re-driven game ends after {state.turn} turns")
    finally:
        physics.close()
    return Verified(state.turn, chances, frames, from_turn)


def _resume(physics, where: str, event: str, state, step: dict) -> None:
    """Set the table as the turns before the recorded event left it (verify from a middle turn):
    the physics source's `resume(event, state, start)`, with the start the replay recorded."""
    try:
        physics.resume(event, state, step.get("start"))
    except ValueError as exc:
        raise Divergence(f"{where}: the {event}'s recorded start cannot be set: {exc}") from None


def _resimulate(where: str, event: str, action, step: dict, state, source, watched, rng,
                recorded_motions, first_frame: bool = True) -> int:
    """Answer one recorded chance event again; Divergence unless its start, label and motion are
    the recorded ones (without `first_frame`, from the motion's second frame on: verify from a
    middle turn compares the first frame of each device's first event no more, since it shows
    what the turns it did not simulate left behind, such as the last throw's die). Returns the
    frames compared."""
    before = len(watched.motions)
    watched.start = None
    try:
        label = source.outcome(event, state, rng)
    except (RuntimeError, ValueError) as exc:
        raise Divergence(f"{where}: the {event} could not be re-simulated: {exc}") from None
    if label != action.label:
        raise Divergence(f"{where}: the {event} gave {label!r} in the re-simulation, "
                         f"the replay says {action.label!r}")
    got = watched.motions[-1] if len(watched.motions) > before else None
    watched.motions.clear()
    if got is not None and watched.start != step.get("start"):
        raise Divergence(f"{where}: the {event} started from {watched.start} in the re-simulation, "
                         f"the replay says {step.get('start')}")
    if ("motion" in step) != (got is not None):
        raise Divergence(f"{where}: the {event} has {'a' if 'motion' in step else 'no'} "
                         f"recorded motion but {'a' if got is not None else 'no'} simulated one")
    if got is None:
        return 0
    expected, got = recorded_motions[step["motion"]], _quantized(got)
    if not first_frame:
        expected, got = _without_first_frame(expected), _without_first_frame(got)
    compare_motions(f"{where}, {event} motion", expected, got)
    return len(expected.frames)


def _without_first_frame(motion: QuantizedMotion) -> QuantizedMotion:
    return dataclasses.replace(motion, times=motion.times[1:], frames=motion.frames[1:])


def _verify_trials(replay: ReplayFile, from_turn: int = 0) -> Verified:
    from tabletop.games.devices import make_device

    header = replay.header
    try:
        name, config, seed = header["device"], header["config"], int(header["seed"])
        overrides = tuple(tuple(pair) for pair in config["overrides"])
        spec = config["spec"]
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{replay.path}: corrupt replay: its header has no usable device config ({exc})") from None
    if not Path(spec).exists():
        raise InputError(f"{replay.path}: the device spec it was recorded with is gone: {spec}")
    device = make_device(name, spec, overrides)
    frames = 0
    try:
        _compare_scene(header, device.world)
        for turn in replay.turns:
            recorded = turn.quantized_motions()
            for step in turn.steps:
                trial = step["trial"]
                i = int(trial["index"])
                if i < from_turn:
                    continue
                _, outcome, motion = _run_trial(device, seed, i)
                if (outcome.label, str(outcome.status)) != (trial["label"], trial["status"]):
                    raise Divergence(f"trial {i}: {outcome.label} ({outcome.status}) in the re-simulation, "
                                     f"the replay says {trial['label']} ({trial['status']})")
                expected = recorded[step["motion"]]
                compare_motions(f"trial {i} motion", expected, _quantized(motion))
                frames += len(expected.frames)
    finally:
        device.close()
    n = sum(1 for t in replay.turns if t.number >= from_turn)
    return Verified(n, n, frames, from_turn)
