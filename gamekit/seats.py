"""AI seats shared by the games: a random seat, and a base for one-ply scoring heuristics."""
from __future__ import annotations

import numpy as np


class RandomSeat:
    """Picks uniformly among the legal actions."""

    name = "random"

    def choose(self, state, rng: np.random.Generator):
        legal = state.legal_actions()
        return legal[int(rng.integers(len(legal)))]


class ScoringSeat:
    """Scores every legal move with `score(state, move)` and plays a best one, ties at random.
    With a single legal action (or only a Pass) it plays that."""

    name = "ai"
    move_type: type = object

    def score(self, state, move) -> float:
        raise NotImplementedError

    def choose(self, state, rng: np.random.Generator):
        legal = state.legal_actions()
        if len(legal) == 1 or not isinstance(legal[0], self.move_type):
            return legal[0]
        scores = np.array([self.score(state, m) for m in legal])
        best = np.flatnonzero(scores == scores.max())
        return legal[int(best[rng.integers(len(best))])]
