"""Recorded games and trials read back: their log, their figures, and their verification by
re-simulation.

Recording is tabletop.gamekit.record's (a game: the recorder, an observer of the match; the
actions' encoding) and tabletop.gamekit.trials' (a device's trials); the file format is
tabletop.sim.record's.

`verify` re-drives a recording: each recorded decision is applied as recorded, each chance event
is answered by a fresh physics table (or the recorded outcome table) with that event's own
Generator of the recorded seed, and every outcome, log line and pose (after the file's quantization) must
match; the first difference is named.

A committed game (format version 3, header `seeds` "committed": tabletop.gamekit.commit) is
re-simulated from each event's revealed seed instead, every reveal checked against its commitment
and every motion against its recorded hash; when the end record holds the game's secret, it is
checked against the header's commitment and every reveal against the secret.
"""
from __future__ import annotations

import dataclasses
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from tabletop.gamekit.chance import TableOutcomes, WatchedOutcomes
from tabletop.gamekit.commit import SCHEME, chance_generator, check_reveal, check_secret, derive_reveal
from tabletop.gamekit.definition import GameDefinition
from tabletop.gamekit.errors import IllegalMoveError
from tabletop.gamekit.record import MOTION_RATE, decode_action, recorded_tables, scene_of, table_worlds
from tabletop.gamekit.state import ChanceOutcome
from tabletop.gamekit.trials import run_trial
from tabletop.sim.errors import InputError
from tabletop.sim.record import VERSION as FORMAT_VERSION
from tabletop.sim.record import (TIME_UNIT, QuantizedMotion, ReplayFile, dequantize_pose, look_digest, motion_sha256,
                                  quantize_motion, quantize_pose)

__all__ = ["REVEALED", "Divergence", "Summary", "Verified", "check_game", "compare_motions", "describe", "finished",
           "game_turns", "spectator_lines", "summarize", "summary_lines", "verify"]


def check_game(replay: ReplayFile, game: GameDefinition) -> None:
    """InputError unless `replay` records a game of `game` (the definition its reader was handed)."""
    name = replay.header.get("game")
    if name != game.name:
        raise InputError(f"{replay.path}: the replay is of {name!r}, not {game.name}")


# -- reading back -------------------------------------------------------------------------------
def replay_config(replay: ReplayFile, games: dict) -> tuple:
    """(the game's definition, its seats, its options) a recorded game was played with; `games` the
    definitions by name (tabletop.gamekit.registry.GAMES)."""
    h = replay.header
    if h.get("kind") != "game":
        raise InputError(f"{replay.path}: a recording of device trials has no table to play back; "
                         f"use --summary or --verify")
    config = h.get("config", {})
    seats = list(config.get("seats") or ["ai"] * int(config.get("players", 2)))
    game = games.get(h.get("game"))
    if game is None:
        raise InputError(f"{replay.path}: the replay is of {h.get('game')!r}, which this tabletop cannot replay "
                         f"({', '.join(games)})")
    options = {o.name: config[o.name] for o in game.options if o.name in config}
    return game, seats, options


def review_rows(review: dict, reviewed: dict, i: int, steps: int) -> list[str]:
    """A review's panel at step i of a replay of `steps` steps (the window's and the replay page's):
    each seat's win probability before the step, then what the step is worth: a decision's grade and
    loss (and the best move where it was not played), a chance event's luck and its gadget's swing;
    at the end each player's accuracy, cost and luck. `reviewed`: the review's steps by index."""
    colours = review.get("colours", [])
    record = reviewed.get(i)
    exact = review.get("method") == "exact"
    rollouts = review.get("rollouts")
    how = "exact" if exact else f"{rollouts.get('n') if isinstance(rollouts, dict) else rollouts} rollouts a position"
    values = record["before"] if record is not None else review.get("end") if i >= steps else None
    rows = [f"REVIEW ({how})"]
    if values is not None:
        rows.append("win: " + "  ".join(f"{c} {100 * v:.1f}%" for c, v in zip(colours, values)))
    if record is None:
        if i >= steps:
            rows += [f"{p_row(colours, player)}" for player in review.get("players", [])]
        return rows
    seat = colours[record["seat"]] if record.get("seat") is not None and record["seat"] < len(colours) else "?"
    if record["kind"] == "decision":
        if record.get("forced"):
            rows.append(f"{seat}'s move: forced")
        elif record.get("grade") is None:
            rows.append(f"{seat}'s move: not graded (too few rollouts to tell)")
        else:
            rows.append(f"{seat}'s move: {record['grade']}, loss {100 * record['loss']:.1f}%")
            if record["grade"] != "best" and record.get("best_lines"):
                rows.append(f"  best: {record['best_lines'][0]}")
    else:
        m = record["seat"]
        luck = record.get("luck", [0.0] * len(colours))[m]
        row = f"{record.get('event', 'chance')} for {seat}: luck {100 * luck:+.1f}%"
        if record.get("swing") is not None:
            row += f", the gadget's bias {100 * record['swing'][m]:+.1f}%"
        rows.append(row)
    return rows


def p_row(colours: list, player: dict) -> str:
    """A player's review summary in one row: accuracy, cost of its mistakes, luck."""
    name = colours[player["seat"]] if player["seat"] < len(colours) else "?"
    return (f"{name}: accuracy {player['accuracy']:.1f}, cost {100 * player['cost']:.1f}%, "
            f"luck {100 * player['luck']:+.1f}%")


def summary_lines(replay: ReplayFile) -> list[str]:
    """The lines `play` printed (banner, log, result), or a trial run's lines."""
    lines = list(replay.header.get("banner", [])) + list(replay.header.get("initial_events", []))
    for turn in replay.turns:
        lines.extend(turn.events)
    if replay.end is not None:
        lines.extend(replay.end.get("lines", []))
    return lines


REVEALED = "showing every hidden card (--reveal)"


def finished(replay: ReplayFile) -> bool:
    """Whether a recorded game was played to its end: its end record holds a result, and not one
    of a game left before its end. A game cut off (no end record) or left is unfinished."""
    end = replay.end
    return end is not None and not (end.get("result") or {}).get("unfinished")


def spectator_lines(replay: ReplayFile, game: GameDefinition) -> list[str] | None:
    """A recorded game's log (the lines after the banner, before the end record's) as a spectator
    reads it: the game re-driven by its rules from the recorded actions, and its log as the
    definition's `seat_view` gives it to no seat (viewer None, as the game server gives it to a
    spectator): a line a seat hides (a card dealt into a hand) in its public form, or left out
    where it has none. None when the rules do not re-drive the recording to the log it holds."""
    recorded = list(replay.header.get("initial_events", []))
    for turn in replay.turns:
        recorded.extend(turn.events)
    try:
        state = game.make_game(replay.header["config"]).new_initial_state()
        for turn in replay.turns:
            for step in turn.steps:
                if "action" in step:
                    state.apply(decode_action(game, step["action"]))
    except (InputError, IllegalMoveError, KeyError, TypeError, ValueError):
        return None
    if [str(line) for line in state.events] != recorded:
        return None
    return list(game.seat_view(state, None)["log"])


@dataclass
class Summary:
    """What `replay --summary` prints: `lines` (the banner, the log, the result); `hidden`, how many
    of the log's lines a seat hides (shown in their public form, or left out, unless `revealed`);
    `revealed`, whether they are shown whole (--reveal, where something is hidden); `note`, the line
    that says which (None when nothing is hidden)."""

    lines: list[str]
    hidden: int = 0
    revealed: bool = False

    @property
    def note(self) -> str | None:
        if not self.hidden:
            return None
        if self.revealed:
            return REVEALED
        return (f"the game is not over: {self.hidden} log line{'s' if self.hidden != 1 else ''} that a seat hides "
                f"shown only as the other seats saw them (--reveal shows every hidden card)")


def summarize(replay: ReplayFile, game: GameDefinition | None = None, reveal: bool = False) -> Summary:
    """The summary of a replay: the lines `play` printed (`summary_lines`), except that while the
    recorded game is not over (`finished`) what its seats hide is shown only as a spectator sees it
    (`spectator_lines`: the definition's own notion of what a viewer may know), unless `reveal`.
    A finished game's replay shows everything: the game is over, its hands may be known. `game`
    is the recorded game's definition (None: a recording of device trials, which hides nothing).
    InputError when the game has private chance (`private_chance`) and the rules cannot re-drive
    the recording, so what it hides cannot be told."""
    lines = summary_lines(replay)
    if game is None or replay.header.get("kind") == "trials" or finished(replay):
        return Summary(lines)
    shown = spectator_lines(replay, game)
    if shown is None:
        if game.private_chance and not reveal:
            raise InputError(f"{replay.path}: the rules do not re-drive this unfinished {game.name} game as "
                             f"recorded, so what its seats hide cannot be told apart (--reveal prints the log "
                             f"as recorded, every hidden card with it)")
        return Summary(lines)
    banner = list(replay.header.get("banner", []))
    log = lines[len(banner):len(lines) - len((replay.end or {}).get("lines", []))]
    hidden = sum((Counter(log) - Counter(shown)).values())     # the lines a spectator does not read whole
    if not hidden or reveal:
        return Summary(lines, hidden, reveal and bool(hidden))
    return Summary(banner + shown + lines[len(banner) + len(log):], hidden)


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
    if expected.contacts and expected.contacts != got.contacts:     # (a file recorded before contacts: none)
        k = next((k for k, (a, b) in enumerate(zip(expected.contacts, got.contacts)) if a != b),
                 min(len(expected.contacts), len(got.contacts)))
        a = expected.contacts[k] if k < len(expected.contacts) else "none"
        b = got.contacts[k] if k < len(got.contacts) else "none"
        raise Divergence(f"{where}, contact event {k}: expected {a}, got {b}")


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
    """What verify checked: `chance_events` and `frames` re-simulated; for a committed game,
    `commitments` checked (every chance event's, those before `from_turn` too) and whether its
    revealed `secret` was checked (every seed derived from it)."""

    turns: int
    chance_events: int
    frames: int
    from_turn: int = 0
    commitments: int | None = None      # None: not a committed game
    secret: bool = False

    def __str__(self) -> str:
        start = f" from turn {self.from_turn}" if self.from_turn else ""
        line = f"verified{start}: {self.turns} turns, {self.chance_events} chance events, {self.frames} frames"
        if self.commitments is not None:
            line += f", {self.commitments} commitments checked"
            line += ", every seed from the revealed secret" if self.secret else " (the game's secret not revealed)"
        return line


def check_physics_version(replay: ReplayFile) -> None:
    """InputError unless `replay` was recorded at this build's physics version (a replay from before
    versions were recorded is version 1): another version's motion cannot be re-simulated."""
    from tabletop.sim.world import PHYSICS_HISTORY, PHYSICS_VERSION

    versions = replay.header.get("versions")
    recorded = versions.get("physics", 1) if isinstance(versions, dict) else 1
    if recorded != PHYSICS_VERSION:
        what = PHYSICS_HISTORY.get(recorded, "unknown to this build") if isinstance(recorded, int) else "unknown"
        raise InputError(f"{replay.path}: recorded at physics version {recorded} ({what}); this build simulates "
                         f"physics version {PHYSICS_VERSION}, so it cannot re-simulate it (it still plays back "
                         f"and --summary works)")


def verify(replay: ReplayFile, game: GameDefinition | None = None, from_turn: int = 0) -> Verified:
    """Re-simulate `replay`; Divergence names the first difference. With `from_turn` N the turns
    before N are re-driven by the rules from their recorded actions (their log lines checked, their
    chance events not simulated) and re-simulation starts at turn N: chance event k draws from its
    own seed, so it needs nothing of the events before it. A game's replay needs its `game`
    definition (a recording of device trials none).

    A committed game's chance event k is re-simulated from the seed its step reveals (with
    `from_turn`, the commitments of the turns before are checked too); a reveal that does not hash
    to its commitment, a motion that does not hash to its recorded hash, or a revealed secret that
    does not give every reveal is a Divergence naming the turn and the event."""
    from tabletop.gamekit.match import GameSeeds

    check_physics_version(replay)
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
    committed = header.get("seeds") == SCHEME
    try:
        config = header["config"]
        seed = None if committed else int(header["seed"])
        game = entry.make_game(config)
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{replay.path}: corrupt replay: its header has no usable game config ({exc})") from None
    outcomes = config.get("outcomes", "physics")
    tables = recorded_tables(config)
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
    seeds = None if committed else GameSeeds(seed)
    reveals: list[tuple[str, int, dict]] = []     # (where, k, reveal): a committed game's, checked
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
                    rng = None
                    if committed:      # named by the event's number too, as its commitment was published
                        where = f"{where}, chance event {k} ({event})"
                        rng = _check_commitment(where, step, reveals, k)
                        if simulate and "motion" in step:
                            _check_motion_hash(where, step, recorded_motions)
                    if simulate:
                        first_frame = from_turn == 0 or event in seen_events
                        if not first_frame and event not in (tables or {}):
                            _resume(physics, where, event, state, step)
                        frames += _resimulate(where, event, action, step, state, source, watched,
                                              rng if rng is not None else seeds.chance(k), recorded_motions,
                                              first_frame)
                        seen_events.add(event)
                        chances += 1
                    k += 1
                elif isinstance(action, ChanceOutcome):
                    raise Divergence(f"{where}: {action} without a chance event")
                said = state.describe(action)      # in the players' words, before it changes the position
                try:
                    state.apply(action)
                except IllegalMoveError as exc:
                    raise Divergence(f"{where}: the recorded action is illegal: {exc}") from None
                if state.events[seen:] != list(step.get("events", [])):
                    raise Divergence(f"{where}: after {said} the log says {state.events[seen:]}, "
                                     f"the replay says {step.get('events')}")
                seen = len(state.events)
                if turn.number != state.turn:
                    raise Divergence(f"{where}: the rules are at turn {state.turn} after {said}")
        if replay.end is not None:
            winner = entry.winner(state)
            if replay.end.get("result", {}).get("winner") != winner:
                raise Divergence(f"the result differs: the replay says {replay.end.get('result')}, "
                                 f"the re-driven game ends with winner {winner}")
            if replay.end.get("result", {}).get("turns") != state.turn:
                raise Divergence(f"the result differs: the replay says {replay.end.get('result')}, "
                                 f"the re-driven game ends after {state.turn} turns")
        secret = _check_secret(header, replay.end, reveals) if committed else False
    finally:
        physics.close()
    return Verified(state.turn, chances, frames, from_turn, len(reveals) if committed else None, secret)


def _check_commitment(where: str, step: dict, reveals: list, k: int):
    """The Generator of a committed game's chance event from its step's reveal, once the reveal is
    checked against the step's commitment (Divergence when it is missing or does not match)."""
    commitment, reveal = step.get("commitment"), step.get("reveal")
    if commitment is None or reveal is None:
        raise Divergence(f"{where}: no {'commitment' if commitment is None else 'reveal'} recorded")
    if not check_reveal(commitment, reveal):
        raise Divergence(f"{where}: the revealed seed and salt do not hash to the commitment "
                         f"{str(commitment)[:16]}...")
    reveals.append((where, k, reveal))
    return chance_generator(reveal["seed"])


def _check_motion_hash(where: str, step: dict, recorded_motions) -> None:
    """The recorded motion's frames against the step's `motion_sha256`, when it has one."""
    digest = step.get("motion_sha256")
    if digest is not None and motion_sha256(recorded_motions[step["motion"]]) != digest:
        raise Divergence(f"{where}: the recorded motion's frames do not hash to its motion_sha256 "
                         f"{str(digest)[:16]}...")


def _check_secret(header: dict, end: dict | None, reveals: list) -> bool:
    """A committed game's revealed secret (its end record's) against the header's commitment, and
    every reveal against the secret; False when no secret was revealed (a game cut off)."""
    if end is None or "secret" not in end:
        return False
    secret = check_secret(end["secret"], header.get("secret_commitment"))
    if secret is None:
        raise Divergence("the end record's secret does not hash to the header's secret_commitment")
    for where, k, reveal in reveals:
        if derive_reveal(secret, k) != {"seed": str(reveal.get("seed")).lower(),
                                        "salt": str(reveal.get("salt")).lower()}:
            raise Divergence(f"{where}: the reveal is not the one the game's revealed secret gives")
    return True


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
    # (its contact events are not compared either: the contacts it starts from are left behind too)
    return dataclasses.replace(motion, times=motion.times[1:], frames=motion.frames[1:], contacts=[])


def _verify_trials(replay: ReplayFile, from_turn: int = 0) -> Verified:
    from tabletop.gamekit.devices import make_device

    header = replay.header
    try:
        name, config, seed = header["device"], header["config"], int(header["seed"])
        overrides = tuple(tuple(pair) for pair in config["overrides"])
        spec = config["spec"]
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{replay.path}: corrupt replay: its header has no usable device config ({exc})") from None
    if not Path(spec).exists():
        raise InputError(f"{replay.path}: the device spec it was recorded with is gone: {spec}")
    last = replay.turns[-1].number if replay.turns else 0
    if not 0 <= from_turn <= last:
        raise InputError(f"--from-turn: the replay holds trials {replay.turns[0].number if replay.turns else 0}"
                         f"-{last}, not {from_turn}")
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
                    if i == from_turn - 1:   # run, not compared: it leaves the body where the next trial's
                        run_trial(device, seed, i)   # first frame finds it (each trial is its own otherwise)
                    continue
                _, outcome, motion = run_trial(device, seed, i)
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
