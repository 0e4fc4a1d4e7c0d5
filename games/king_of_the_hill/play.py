"""Drive a King of the Hill game: seats choose moves, an outcome source answers chance."""
from __future__ import annotations

from typing import Callable, Sequence

from tabletop.gamekit.chance import OutcomeSource
from tabletop.gamekit.driver import TurnLimitError, drive
from tabletop.games.king_of_the_hill.rules import Game, State

__all__ = ["play_game", "TurnLimitError"]


def play_game(game: Game, seats: Sequence, source: OutcomeSource, seed: int,
              on_event: Callable[[str], None] | None = None, max_turns: int = 5000,
              after_action: Callable[[State], None] | None = None) -> State:
    """Play a whole game from the start and return its final state (see tabletop.gamekit.driver.drive)."""
    return drive(game.new_initial_state(), seats, source, seed, on_event, max_turns, after_action)
