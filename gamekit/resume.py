"""A recorded game taken up again: its rules state, seats' generator and physical table put back
where the recording leaves them (or where it stood at the start of a chosen turn), so that the game
goes on exactly as it went on (or would have gone on) without the break.

`redrive(replay, game, state, seeds, seats, physics, upto_turn)` re-drives `state` (the game's
initial state, made from the replay's config) through the recorded turns before `upto_turn` (None:
every turn the file holds whole):

- a chance event is answered by its recorded outcome, not simulated again (`verify` does that);
- a decision of a seat played by the program (`seats[player]` not None: an AI, a planner, a random
  seat, made as the recording's seats were) is chosen again, from the seeds' one seats stream, and
  must be the recorded one: that both checks this build against the recording and leaves the
  seats' stream where the original game's was, so the seats' next choices are the ones they made
  (or would have made); a decision of a seat played by a person (None) is applied as recorded;
- the physical table: each kind of physical event has its last recorded occurrence before the
  break simulated again, in the order they came, from the rules state before it, its recorded
  start (where one is recorded: King of the Hill's Tipper ball, `physics.resume`) and its own seed.
  That leaves every device exactly as the game left it: the Tipper's ball where the next tilt
  starts, and the bodies at rest where the next event's first frame shows them (a spinner's
  pointer, a thrown stick), so even the motions recorded after the break are the ones the game
  without a break records, bit for bit.

The recording of the game taken up (tabletop.gamekit.record.GameRecorder with `resume=`) starts
with the recording's own header and its turns before the break, copied chunk for chunk, motions
included, so the new file is a whole game that reads, plays back and verifies from its first turn.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from tabletop.gamekit.errors import IllegalMoveError
from tabletop.gamekit.record import decode_action, encode_action
from tabletop.gamekit.state import ChanceOutcome
from tabletop.sim.errors import InputError


@dataclass
class Redriven:
    """What re-driving a recording gave: the turns taken over (the replay's Turn objects, whole
    chunks), the chance events answered (`chances`), each chance event as (k, event, step) in order
    (a server re-publishes their commitments and reveals), and the turn the game goes on from."""

    turns: list = field(default_factory=list)
    chances: int = 0
    events: list = field(default_factory=list)
    from_turn: int = 0


def redrive(replay, game, state, seeds, seats, physics=None, upto_turn: int | None = None) -> Redriven:
    """Re-drive `state` through `replay`'s turns before `upto_turn` (None: all it holds whole); see
    the module's docstring. `seeds`: the game's seeds object (GameSeeds of the recorded seed, or a
    committed game's CommittedSeeds); `seats`: per player, the seat that chose for it in the
    recording (None: a person's), or a function of the step (the actions applied so far) giving
    that list, where who played a seat changed during the game; `physics`: the PhysicsSource that answers the game's physical
    events from here on (None: none to set). InputError (one line) when the recording does not
    re-drive in this build."""
    done = Redriven()
    last_moved: dict[str, tuple] = {}          # event -> (state before it, its step, k): its latest simulated one
    turns = list(replay.turns)
    last = turns[-1].number if turns else 0
    if upto_turn is not None and not 0 <= upto_turn <= last + 1:
        raise InputError(f"--from-turn: {replay.path} holds turns {turns[0].number if turns else 0}-{last}: "
                         f"give 0 to {last + 1}, not {upto_turn}")
    for turn in turns:
        if upto_turn is not None and turn.number >= upto_turn:
            break
        for step in turn.steps:
            where = f"{replay.path}: turn {turn.number}"
            action = decode_action(game, step.get("action"))
            if "chance" in step:
                if not isinstance(action, ChanceOutcome) or state.chance_event != step["chance"]:
                    raise InputError(f"{where}: the recording answers a {step['chance']} with {action}; the rules "
                                     f"expect {state.chance_event or 'a decision'}")
                if "motion" in step and physics is not None:
                    last_moved[step["chance"]] = (state.clone(), step, done.chances)
                done.events.append((done.chances, step["chance"], step))
                done.chances += 1
            elif state.chance_event is None and not state.is_terminal():
                now = seats(len(state.history)) if callable(seats) else seats
                seat = now[state.current_player] if state.current_player < len(now) else None
                if seat is not None:
                    again = seat.choose(state, seeds.seats)
                    if encode_action(game, again) != encode_action(game, action):
                        raise InputError(f"{where}: the seat that chose {action} chooses {again} in this build: "
                                         f"the game cannot be taken up exactly (a recording of another build?)")
                    action = again
            seen = len(state.events)
            try:
                state.apply(action)
            except IllegalMoveError as exc:
                raise InputError(f"{where}: the recorded action is illegal: {exc}") from None
            if state.events[seen:] != list(step.get("events", [])):
                raise InputError(f"{where}: after {action} the rules log differs from the recording's")
        done.turns.append(turn)
    done.from_turn = done.turns[-1].number + 1 if done.turns else (turns[0].number if turns else 0)
    for event, (before, step, k) in sorted(last_moved.items(), key=lambda item: item[1][2]):
        _set_table(physics, event, before, step, seeds.chance(k), replay.path)
    return done


def _set_table(physics, event: str, before, step: dict, rng, path) -> None:
    """Simulate a recorded event again (from its recorded start, if it has one): the table as it left it."""
    try:
        if "start" in step:
            physics.resume(event, before, step["start"])
        physics.prepare(event, before)
        label = physics.outcome(event, before, rng)
    except (RuntimeError, ValueError) as exc:
        raise InputError(f"{path}: the last {event} before the break cannot be simulated again: {exc}") from None
    recorded = decode_action_label(step)
    if label != recorded:
        raise InputError(f"{path}: the last {event} before the break gives {label!r} in this build, the recording "
                         f"{recorded!r}: the table cannot be set as the game left it")


def decode_action_label(step: dict) -> str | None:
    """The outcome label of a recorded chance step (its action [tag, label])."""
    action = step.get("action")
    return action[1] if isinstance(action, list) and len(action) == 2 else None


def physics_of(source):
    """The PhysicsSource at the bottom of `source` (a watched or table source passes events on to
    it), or None when chance comes from tables alone."""
    from tabletop.gamekit.chance import PhysicsSource, WatchedOutcomes

    seen = 0
    while source is not None and seen < 8:
        if isinstance(source, PhysicsSource):
            return source
        source = source.source if isinstance(source, WatchedOutcomes) else source.wrapped()
        seen += 1
    return None


@dataclass
class TakenUp:
    """A recorded game ready to go on: its `state` and `seeds` where the recording leaves them (the
    start of `from_turn`), the seat kinds it was recorded with, and what its new recording starts
    with (`resume`: the header, which names the file it came from, the looks and the turns before
    the break, for tabletop.gamekit.record.GameRecorder)."""

    state: object
    seeds: object
    config: dict
    seed: int
    recorded_seats: list
    from_turn: int
    resume: tuple
    banner: list


def take_up(replay, game, source, from_turn: int | None = None, seats=None) -> TakenUp:
    """`replay` (a recorded game of `game`, a GameDefinition) re-driven to the start of `from_turn`
    (None: the end of the turns it holds whole) with its chance now from `source` (its physical
    table set as the game left it); `seats` the seat kinds it goes on with (None: the recorded
    ones), only named in the new recording's header. InputError (one line) for a recording that
    cannot be taken up: a trials file, another game's, a committed (server) game, a finished game
    with no --from-turn."""
    from tabletop.gamekit.commit import SCHEME
    from tabletop.gamekit.match import GameSeeds

    header = replay.header
    if header.get("kind") != "game":
        raise InputError(f"{replay.path}: a recording of trials, not of a game: nothing to play on")
    if header.get("game") != game.name:
        raise InputError(f"{replay.path}: the replay is of {header.get('game')!r}, not {game.name}")
    if header.get("seeds") == SCHEME:
        raise InputError(f"{replay.path}: a game server's room (committed seeds): its server takes it up after a "
                         f"restart; play it on there")
    if replay.version < 2:
        raise InputError(f"{replay.path}: replay format version {replay.version} drew all chance from one stream; "
                         f"only newer recordings can be played on")
    if replay.end is not None and not replay.end.get("result", {}).get("unfinished") and from_turn is None:
        raise InputError(f"{replay.path}: the game is over; give --from-turn N to play it on from turn N")
    try:
        config, seed = dict(header["config"]), int(header["seed"])
        recorded = list(config["seats"])
        state = game.make_game(config).new_initial_state()
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"{replay.path}: corrupt replay: its header has no usable game config ({exc})") from None
    seeds = GameSeeds(seed)
    options = {o.name: config[o.name] for o in game.options if o.name in config}
    chooser = [None if kind == "human" else game.make_seat(kind, source, options) for kind in recorded]
    done = redrive(replay, game, state, seeds, chooser, physics_of(source), from_turn)
    now = list(seats) if seats is not None else recorded
    note = (f"resumed from {replay.path.name} at turn {done.from_turn}"
            + (f", seats {', '.join(f'{game.colours[i]}={k}' for i, k in enumerate(now))}" if now != recorded else ""))
    new_header = {**header, "config": {**config, "seats": now}, "banner": [*header.get("banner", []), note],
                  "resumed_from": {"file": replay.path.name, "turn": done.from_turn}}
    return TakenUp(state, seeds, config, seed, recorded, done.from_turn,
                   (new_header, replay.looks, [t.payload for t in done.turns]), new_header["banner"])
