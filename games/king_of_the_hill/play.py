"""Drive a King of the Hill game: seats choose moves, an outcome source answers chance."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from games.chance import OutcomeSource
from games.king_of_the_hill.rules import ChanceOutcome, Game, State


class TurnLimitError(RuntimeError):
    """A game that did not end within the turn limit (a defect, never expected)."""


def play_game(game: Game, seats: Sequence, source: OutcomeSource, seed: int,
              on_event: Callable[[str], None] | None = None, max_turns: int = 5000,
              after_action: Callable[[State], None] | None = None) -> State:
    """Play a whole game and return its final state.

    One seed in: SeedSequence(seed) spawns one Generator for the seats' choices and one for
    chance, so an AI's choices never shift the chance outcomes and vice versa.
    """
    seat_ss, chance_ss = np.random.SeedSequence(seed).spawn(2)
    seat_rng, chance_rng = np.random.default_rng(seat_ss), np.random.default_rng(chance_ss)
    state = game.new_initial_state()
    shown = 0
    while not state.is_terminal():
        if state.turn > max_turns:
            raise TurnLimitError(f"no winner after {max_turns} turns")
        if state.is_chance_node():
            action = ChanceOutcome(source.outcome(state.chance_event, state, chance_rng))
        else:
            action = seats[state.current_player].choose(state, seat_rng)
        state.apply(action)
        if after_action is not None:
            after_action(state)
        if on_event is not None:
            for text in state.events[shown:]:
                on_event(text)
            shown = len(state.events)
    return state
