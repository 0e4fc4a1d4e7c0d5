"""Drive a Knossos match: seats choose moves, an outcome source answers the sticks."""
from __future__ import annotations

from typing import Callable, Sequence

from tabletop.gamekit.chance import OutcomeSource
from tabletop.gamekit.driver import TurnLimitError, drive
from tabletop.games.knossos.rules import Game, State

__all__ = ["play_match", "TurnLimitError"]


def play_match(game: Game, seats: Sequence, source: OutcomeSource, seed: int,
               on_event: Callable[[str], None] | None = None,
               after_action: Callable[[State], None] | None = None, max_turns: int = 20000) -> State:
    """Play a whole match from the start and return its final state; `max_turns` caps the throws."""
    return drive(game.new_initial_state(), seats, source, seed, on_event, max_turns, after_action)
