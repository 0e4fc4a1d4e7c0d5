"""What `tabletop analyze knossos` measures: matches, the games in them, and the sticks' 3s.

A record is one match (first to `games_to_win` games). The first player of the match is red, who
starts its first game (rules note 10); the loser of each game starts the next, so the starter of
each game within a match is counted too ("game_starter.win_rate": the games won by the player who
started them; games of one match are not independent draws). A throw of 3 gives an extra throw.
"""
from __future__ import annotations

from math import comb

from tabletop.gamekit.analyze import GameAnalysis, Observer
from tabletop.games.knossos.rules import EXTRA_THROW, STICK_LABELS
from tabletop.gamekit.state import ChanceOutcome


def fair_tables() -> dict[str, dict[str, float]]:
    """Two fair sticks (each flat side up half the time; the definition's `fair_tables`): label k + 1
    is k flat sides up, C(2, k)/4."""
    sticks = len(STICK_LABELS) - 1
    return {"sticks": {label: comb(sticks, k) / 2 ** sticks for k, label in enumerate(STICK_LABELS)}}


class KnossosObserver(Observer):
    """The starter of every game of the match and the sticks' 3s."""

    def __init__(self):
        super().__init__()
        self.starters: list[int] = []
        self.threes = 0

    def start(self, state) -> None:
        super().start(state)
        self.starters.append(state.current)

    def seen(self, state, action) -> None:
        if isinstance(action, ChanceOutcome):
            self.threes += action.label == EXTRA_THROW
        elif len(state.game_winners) == len(self.starters) and not state.is_terminal():
            self.starters.append(state.current)        # a game ended and the next one begins

    def record(self, final) -> dict:
        won = sum(s == w for s, w in zip(self.starters, final.game_winners))
        return {"winners": [final.winner], "first": self.starters[0],
                "lengths": {"throws": final.turn, "games": len(final.game_winners)},
                "counts": {"sticks.threes": self.threes},
                "samples": {},
                "proportions": {"game_starter.win_rate": [won, len(final.game_winners)],
                                "sticks.three_share": [self.threes, final.turn]}}


def analysis(definition) -> GameAnalysis:
    """What analyze measures of the game `definition` (Knossos's) defines."""
    return GameAnalysis(
        definition=definition, observer=KnossosObserver, unit="match",
        first_rule="red, who starts the first game of the match (the loser of each game starts the next)",
        fair_note="two fair sticks: 1 (two round sides) 1/4, 2 (one of each) 1/2, 3 (two flat sides) 1/4",
        what={"throws": "throws of the sticks", "games": "games", "sticks.threes": "throws of 3 (each an extra "
              "throw)", "game_starter.win_rate": "games won by the player who started them",
              "sticks.three_share": "share of throws that gave 3"})
