"""What `tabletop analyze king-of-the-hill` measures: the Tipper's J and the crater's knocks.

The first player is the one the turn-order tilts put first (the highest tilt, J beating 6): the
Tipper decides the order, so who moves first differs from game to game. A crater knock moves the
knocked marble from the edge space it stood on to the path space above the cave seat it came out
of (or beyond it, when that is taken): the spaces it gained (positive) or lost (negative).
"""
from __future__ import annotations

from tabletop.gamekit.analyze import GameAnalysis, Observer
from tabletop.games.king_of_the_hill.board import CRATER_LABELS
from tabletop.games.king_of_the_hill.rules import TIPPER_LABELS, Phase
from tabletop.gamekit.state import ChanceOutcome


def fair_tables() -> dict[str, dict[str, float]]:
    """The idealised chance (the definition's `fair_tables`): each Tipper slot (1-6, J) 1/7, each
    cave seat 1/6."""
    return {"tipper": {label: 1 / len(TIPPER_LABELS) for label in TIPPER_LABELS},
            "crater": {label: 1 / len(CRATER_LABELS) for label in CRATER_LABELS}}


class HillObserver(Observer):
    """The first player, the Tipper's tilts and Js in the turns, and every crater knock's gain."""

    def __init__(self):
        super().__init__()
        self.first: int | None = None
        self.tilts = self.js = 0
        self.gains: list[int] = []
        self.knocked: tuple[int, int] | None = None     # (marble, the edge space it was knocked from)

    def seen(self, state, action) -> None:
        if self.first is None and state.phase is Phase.ROLL:      # the turn-order tilts are over
            self.first = state.current
        if isinstance(action, ChanceOutcome):
            if self.event == "tipper" and state.phase is Phase.MOVE:   # a turn's tilt (not one for the order)
                self.tilts += 1
                self.js += action.label == "J"
            elif self.event == "crater":
                marble, before = self.knocked
                self.gains.append(state.track[marble] - before)
                self.knocked = None
        elif state.phase is Phase.CRATER:
            self.knocked = (state.pending_marble, state.track[action.marble])

    def record(self, final) -> dict:
        return {"winners": [final.winner], "first": self.first, "lengths": {"turns": final.turn},
                "counts": {"crater.knocks": len(self.gains), "tipper.j": self.js},
                "samples": {"crater.spaces": self.gains},
                "proportions": {"crater.gained": [sum(g > 0 for g in self.gains), len(self.gains)],
                                "crater.lost": [sum(g < 0 for g in self.gains), len(self.gains)],
                                "tipper.j_share": [self.js, self.tilts]}}


def analysis(definition) -> GameAnalysis:
    """What analyze measures of the game `definition` (King of the Hill's) defines."""
    return GameAnalysis(
        definition=definition, observer=HillObserver,
        first_rule="the seat the turn-order tilts put first (every player tilts, the highest goes first, J beats 6, "
                   "ties tilt again); play then passes to the left",
        fair_note="each Tipper slot 1, 2, 3, 4, 5, 6, J 1/7; each cave seat 1/6",
        what={"turns": "turns (Tipper tilts in play)", "crater.knocks": "crater knocks",
              "tipper.j": "Tipper J results in the turns",
              "crater.spaces": "spaces a knocked marble gained (+) or lost (-) through the crater",
              "crater.gained": "share of crater knocks that moved the marble forward",
              "crater.lost": "share of crater knocks that moved the marble back",
              "tipper.j_share": "share of the turns' tilts that gave J"})
