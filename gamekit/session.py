"""Headless play of any game: one session, built from the game's definition.

`play_headless` is `play --headless` (and tabletop.play): the game, its outcome source, its seats,
its banner and result lines all come from the definition's hooks
(tabletop.gamekit.definition.GameDefinition), and the replay's config from
`GameDefinition.replay_config`, the one the window records too. The game is a
tabletop.gamekit.match.Match stepped to its end, the replay recorder (tabletop.gamekit.record)
one of its observers.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable

from tabletop.gamekit.chance import calibration_config, check_recorded_calibrations
from tabletop.gamekit.match import Match
from tabletop.gamekit.record import open_recorder


def _print_line(line: str) -> None:
    print(line, flush=True)


def play_headless(definition, seats, seed: int, outcomes: str, options: dict, record: Path | None = None,
                  emit: Callable[[str], None] | None = None, seeds=None, observers=()):
    """A whole game of `definition` (a GameDefinition) by its `seats` (seat kinds), chance from the
    source `outcomes` names, with the game's `options` (checked): the banner and every log line
    to `emit` (default: print them), the replay recorded to `record` (None: none) as it goes, the
    result lines last; the source is closed. Returns the final state.

    `seeds`: the match's seeds object (None: GameSeeds(seed)); tabletop.gamekit.commit.CommittedSeeds
    draws every chance event from a secret and the replay records each event's commitment and
    reveal (`seed` is then only the number the banner and the header show). `observers`: more
    MatchObservers of the match, told after the recorder (a server publishing commitments)."""
    emit = emit or _print_line
    seats = list(seats)
    options = definition.check_options(options)
    # a calibration file among the tables: the config keeps it, its digest and the tables it gave
    config = {**definition.replay_config(seats, outcomes, options), **calibration_config(outcomes)}
    game = definition.make_game(config)
    source = definition.make_source(outcomes)
    try:
        players = [definition.make_seat(kind, source, options) for kind in seats]
        banner = definition.banner(seats, seed, outcomes, options)
        emit(banner)
        state = game.new_initial_state()
        recorder = open_recorder(record, definition, config, seed, state, source, [banner], seeds)
        match = Match(state, players, recorder.source if recorder else source, seed, banner=[banner],
                      result_lines=definition.result_lines, observers=[recorder, *observers],
                      max_turns=definition.max_turns, seeds=seeds)
        _play_out(match, match.lines[1:], emit)
    finally:
        source.close()
    sys.stdout.flush()
    return match.state


def _play_out(match, first: list[str], emit: Callable[[str], None]) -> None:
    """Emit `first` (the lines so far not yet said), then step `match` to its end emitting each new
    line; the match is closed however it ends."""
    try:
        for line in first:
            emit(line)
        while not match.is_over():
            for line in match.step():
                emit(line)
    finally:
        match.close()


def resume_headless(definition, replay, from_turn: int | None, seats, record: Path | None = None,
                    emit: Callable[[str], None] | None = None):
    """`play --resume`: the recorded game `replay` (a ReplayFile of `definition`'s) played on from
    the start of `from_turn` (None: where the recording ends) by `seats` (seat kinds; None: the
    recorded ones), chance from the source the recording names; the lines so far and every new one
    to `emit`, the whole game (the turns before the break copied, then the new ones) recorded to
    `record` (None: none), its header naming the file it came from. Returns the final state. With
    the recorded seats the game goes on exactly as the recording did (tabletop.gamekit.resume)."""
    from tabletop.gamekit.record import GameRecorder
    from tabletop.gamekit.resume import take_up

    emit = emit or _print_line
    config = replay.header.get("config", {})
    check_recorded_calibrations(config, replay.path)     # its chance as it was, or refused
    source = definition.make_source(config.get("outcomes", "physics"))
    try:
        up = take_up(replay, definition, source, from_turn, seats)
        kinds = list(seats) if seats is not None else up.recorded_seats
        options = {o.name: up.config[o.name] for o in definition.options if o.name in up.config}
        players = [definition.make_seat(kind, source, options) for kind in kinds]
        recorder = None
        if record is not None:
            recorder = GameRecorder(record, definition, up.config, up.seed, up.state, source, up.banner,
                                    resume=up.resume)
            print(f"recording the replay to {record}", file=sys.stderr, flush=True)
        match = Match(up.state, players, recorder.source if recorder else source, up.seed, banner=up.banner,
                      result_lines=definition.result_lines, observers=[recorder], max_turns=definition.max_turns,
                      seeds=up.seeds)
        _play_out(match, match.lines, emit)
    finally:
        source.close()
    sys.stdout.flush()
    return match.state
