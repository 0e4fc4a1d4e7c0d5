"""King of the Hill for agents: a Pass and a move of any of the mover's marbles by 1 to 10 spaces
(a J offers them all); the observation from the observer's side (its own marbles first)."""
from __future__ import annotations

import numpy as np

from tabletop.gamekit.codec import Codec, one_hot
from tabletop.games.king_of_the_hill.rules import DRAWER, IN_CRATER, J_MAX, Game, Move, Pass, Phase

ROLLS = ("1", "2", "3", "4", "5", "6", "J")


class HillCodec(Codec):
    def __init__(self, game: Game):
        self.game = game
        board = game.board
        self.places = [DRAWER, IN_CRATER, *range(board.path_length + len(board.zone_positions))]
        self.mpp = game.marbles_per_player
        self.size = 1 + self.mpp * J_MAX
        self.obs_size = game.players * self.mpp * len(self.places) + len(ROLLS) + game.players

    def _catalogue(self, state) -> list:
        first = state.current * self.mpp
        return [Pass()] + [Move(m, d) for m in range(first, first + self.mpp) for d in range(1, J_MAX + 1)]

    def observe(self, state, player: int) -> np.ndarray:
        g = self.game
        order = [player] + [p for p in range(g.players) if p != player]
        v: list[float] = []
        for p in order:
            for m in range(p * self.mpp, (p + 1) * self.mpp):
                v += one_hot(len(self.places), self.places.index(state.track[m]))
        rolled = state.roll if state.phase is Phase.MOVE else None
        v += one_hot(len(ROLLS), ROLLS.index(rolled) if rolled else None)
        v += [1.0 if state.current == p else 0.0 for p in order]
        return np.array(v, np.float32)
