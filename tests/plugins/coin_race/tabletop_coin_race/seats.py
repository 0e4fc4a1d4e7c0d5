"""The coin race's AI seats: "random" (any legal step) and "ai" (the longest step, which never
hurts in a race with no hazards)."""
from __future__ import annotations

from tabletop.gamekit.seats import RandomSeat, ScoringSeat

from tabletop_coin_race.rules import Step


class LongestStep(ScoringSeat):
    """Steps 2 unless 1 reaches the goal as well."""

    move_type = Step

    def score(self, state, move: Step) -> float:
        left = state.game.goal - state.pos[state.current]
        return min(move.spaces, left) - 0.01 * move.spaces


SEATS = {"ai": LongestStep, "random": RandomSeat}
