"""The coin race's rules: pure, no physics, no Panda3D.

Two pawns, red's and blue's, race from square 0 to the goal. Each turn the mover flips the coin: on
top they step 1 or 2 squares (their choice; a step past the goal stops on it), on bottom or side
the turn passes. The first pawn on the goal wins. Red flips first.
"""
from __future__ import annotations

from dataclasses import dataclass

from tabletop.gamekit.state import Game, State

COLOURS = ("red", "blue")
COIN = ("top", "bottom", "side")      # the coin device's labels


@dataclass(frozen=True)
class Step:
    """The mover's pawn steps `spaces` squares."""

    spaces: int

    def __str__(self) -> str:
        return f"step {self.spaces}"


class Race(Game):
    """A race to `goal` for two seats."""

    players = 2

    def __init__(self, goal: int):
        self.goal = goal

    def new_initial_state(self) -> "RaceState":
        return RaceState(self)

    def piece_name(self, piece: int) -> str:
        return f"{COLOURS[piece]}'s pawn"


class RaceState(State):
    def __init__(self, game: Race):
        super().__init__(game)
        self.pos = [0, 0]
        self.flipped = False              # the mover's coin came up top: they step next
        self.last: str | None = None      # the last flip's label
        self.winner: int | None = None

    def __str__(self) -> str:
        doing = "step" if self.flipped else "flip"
        return f"red {self.pos[0]}, blue {self.pos[1]}, {COLOURS[self.current]} to {doing}"

    def is_terminal(self) -> bool:
        return self.winner is not None

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0 if p == self.winner else -1.0 for p in range(2)]

    @property
    def chance_event(self) -> str | None:
        return None if self.is_terminal() or self.flipped else "coin"

    def chance_outcomes(self) -> tuple[str, ...]:
        return COIN

    def _moves(self) -> list:
        return [Step(1), Step(2)]

    def _apply_chance(self, label: str) -> None:
        self.last = label
        self._log(f"{COLOURS[self.current]} flips {label}")
        if label == "top":
            self.flipped = True
        else:
            self._next()

    def _apply_action(self, action: Step) -> None:
        p = self.current
        self.pos[p] = min(self.game.goal, self.pos[p] + action.spaces)
        self._log(f"{COLOURS[p]} steps {action.spaces} to {self.pos[p]}")
        if self.pos[p] == self.game.goal:
            self.winner = p
            self._log(f"{COLOURS[p]} wins")
        self._next()

    def _next(self) -> None:
        self.flipped = False
        if not self.is_terminal():
            self.current = 1 - self.current
            self.turn += 1
