"""Playing a game to its end headless: a loop over tabletop.gamekit.match.Match.step().

The rules' shared vocabulary (CHANCE, TERMINAL, Pass, ChanceOutcome, replay) lives in
tabletop.gamekit.state and is re-exported here; the seeds are tabletop.gamekit.match.GameSeeds'.
"""
from __future__ import annotations

from typing import Callable, Sequence

from tabletop.gamekit.chance import OutcomeSource
from tabletop.gamekit.match import Match, TurnLimitError
from tabletop.gamekit.state import CHANCE, TERMINAL, ChanceOutcome, Pass, replay

__all__ = ["CHANCE", "TERMINAL", "ChanceOutcome", "Pass", "TurnLimitError", "drive", "replay"]


def drive(state, seats: Sequence, source: OutcomeSource, seed: int,
          on_event: Callable[[str], None] | None = None, max_turns: int = 5000,
          after_action: Callable | None = None):
    """Play `state` (a Game/State of any game here) to its end and return it.

    `on_event` gets each new line of the state's human-readable log; `after_action` sees the
    state after every action (invariant checks); `max_turns` caps `state.turn`.
    """
    return Match(state, seats, source, seed, max_turns=max_turns, after_action=after_action).play(on_event)
