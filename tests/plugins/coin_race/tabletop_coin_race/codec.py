"""The coin race for agents: two actions (step 1, step 2); the observation is both pawns' progress,
the observer's first, and whether the observer is to step."""
from __future__ import annotations

import numpy as np

from tabletop.gamekit.codec import Codec

from tabletop_coin_race.rules import Step


class RaceCodec(Codec):
    size = 2
    obs_size = 3

    def __init__(self, game):
        self.game = game

    def _catalogue(self, state) -> list:
        return [Step(1), Step(2)]

    def observe(self, state, player: int) -> np.ndarray:
        goal = self.game.goal
        mine = float(state.current == player and state.flipped)
        return np.array([state.pos[player] / goal, state.pos[1 - player] / goal, mine], np.float32)
