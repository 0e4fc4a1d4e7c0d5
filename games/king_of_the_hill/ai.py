"""Baseline AI seats for King of the Hill: random, and a greedy heuristic."""
from __future__ import annotations

from tabletop.games.seats import RandomSeat, ScoringSeat
from tabletop.games.king_of_the_hill.rules import DRAWER, Move, State


class GreedySeat(ScoringSeat):
    """Scores each legal move one ply ahead: finishing first, then knocking opponents into the
    crater, progress along the path, and staying off exposed edge spaces; ties at random."""

    name = "ai"
    move_type = Move
    FINISH, KNOCK_OPPONENT, KNOCK_OWN = 1000.0, 60.0, -80.0
    PROGRESS, ON_EDGE, OFF_EDGE = 2.0, -25.0, 15.0

    def score(self, state: State, move: Move) -> float:
        board, game = state.game.board, state.game
        start = state.track[move.marble]
        dest, knocked, _ = state.destination(move.marble, move.distance)
        if dest >= board.path_length:
            return self.FINISH + dest
        score = self.PROGRESS * (dest - (start if start != DRAWER else -1))
        if knocked is not None:
            score += self.KNOCK_OWN if game.owner(knocked) == state.current else self.KNOCK_OPPONENT
        if dest in board.edge_spaces:
            score += self.ON_EDGE
        if start in board.edge_spaces:
            score += self.OFF_EDGE
        return score



SEATS = {"ai": GreedySeat, "random": RandomSeat}
