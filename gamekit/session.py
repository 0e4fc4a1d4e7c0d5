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
    config = definition.replay_config(seats, outcomes, options)
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
        try:
            for line in match.lines[1:]:
                emit(line)
            while not match.is_over():
                for line in match.step():
                    emit(line)
        finally:
            match.close()
    finally:
        source.close()
    sys.stdout.flush()
    return match.state
