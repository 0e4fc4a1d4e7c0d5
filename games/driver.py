"""The game loop shared by every game: seats choose actions, an outcome source answers chance.

One seed in: SeedSequence(seed) spawns one Generator for the seats' choices and one for chance,
so an AI's choices never shift the chance outcomes and vice versa.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from tabletop.games.chance import OutcomeSource

CHANCE = -1   # current_player of a chance node


@dataclass(frozen=True)
class Pass:
    """The only action when no move is legal: the turn is lost."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True)
class ChanceOutcome:
    """The answer to a chance node: a device's label ("J", "cave2/seat1", "3", ...)."""

    label: str

    def __str__(self) -> str:
        return f"outcome {self.label}"


class TurnLimitError(RuntimeError):
    """A game that did not end within the turn limit (a defect, never expected)."""


def replay(game, history):
    """A game's state re-driven from the start through its history of actions and chance outcomes."""
    state = game.new_initial_state()
    for action in history:
        state.apply(action)
    return state


def drive(state, seats: Sequence, source: OutcomeSource, seed: int,
          on_event: Callable[[str], None] | None = None, max_turns: int = 5000,
          after_action: Callable | None = None):
    """Play `state` (a Game/State of any game here) to its end and return it.

    `on_event` gets each new line of the state's human-readable log; `after_action` sees the
    state after every action (invariant checks); `max_turns` caps `state.turn`.
    """
    seat_ss, chance_ss = np.random.SeedSequence(seed).spawn(2)
    seat_rng, chance_rng = np.random.default_rng(seat_ss), np.random.default_rng(chance_ss)
    shown = 0
    while True:
        if on_event is not None:
            for text in state.events[shown:]:
                on_event(text)
            shown = len(state.events)
        if state.is_terminal():
            return state
        if state.turn > max_turns:
            raise TurnLimitError(f"no winner after {max_turns} turns")
        if state.is_chance_node():
            action = ChanceOutcome(source.outcome(state.chance_event, state, chance_rng))
        else:
            action = seats[state.current_player].choose(state, seat_rng)
        state.apply(action)
        if after_action is not None:
            after_action(state)
