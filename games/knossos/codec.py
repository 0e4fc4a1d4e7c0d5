"""Knossos for agents: a Pass and a move of either of the mover's pieces to any site or off the
board (31 numbers); the observation from the observer's side (its own pieces first)."""
from __future__ import annotations

import numpy as np

from tabletop.gamekit.codec import Codec, one_hot
from tabletop.games.knossos.rules import OFF, PIECES_PER_PLAYER, START, STICK_LABELS, Game, Move, Pass


class KnossosCodec(Codec):
    def __init__(self, game: Game):
        self.game = game
        self.sites = len(game.board.positions)
        self.places = [START, *range(self.sites), OFF]        # where a piece can be
        self.size = 1 + PIECES_PER_PLAYER * (self.sites + 1)
        pieces = game.players * PIECES_PER_PLAYER
        self.obs_size = pieces * len(self.places) + len(STICK_LABELS) + 2 * game.players

    def _catalogue(self, state) -> list:
        mine = list(self.game.pieces_of(state.current))
        return [Pass()] + [Move(piece, to) for piece in mine for to in [*range(self.sites), OFF]]

    def observe(self, state, player: int) -> np.ndarray:
        g = self.game
        order = [player] + [p for p in range(g.players) if p != player]
        v: list[float] = []
        for p in order:
            for piece in g.pieces_of(p):
                v += one_hot(len(self.places), self.places.index(state.pos[piece]))
        v += one_hot(len(STICK_LABELS), STICK_LABELS.index(state.throw) if state.throw else None)
        v += [float(state.score[p]) / g.games_to_win for p in order]
        v += [1.0 if state.current == p else 0.0 for p in order]
        return np.array(v, np.float32)
