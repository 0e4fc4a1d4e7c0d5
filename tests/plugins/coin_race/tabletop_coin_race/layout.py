"""The coin race's table as it is laid out, from the goal alone: the coin's tray at the origin, the
board beside it (a lane of squares 0 to the goal for each pawn) and where each pawn stands. No
World: replay playback draws from it; the physical table (tabletop_coin_race.table) is one."""
from __future__ import annotations

TRAY_HALF = 0.08 + 0.02         # the coin's tray (coin.toml: half_x and the rim's thickness)
SQUARE = 0.05                   # one square of a lane (m)
MARGIN = 0.02                   # the board's edge beyond the squares
LANE = 0.03                     # each lane's centre off the board's axis: red's below, blue's above
BOARD_THICKNESS = 0.01
BOARD_HALF_Y = LANE + SQUARE / 2 + MARGIN
PAWN_RADIUS = 0.012
PAWN_HEIGHT = 0.03
GAP = 0.04                      # between the tray's rim and the board


class CoinLayout:
    """The board of a race to `goal`, and the two pawns' names and places."""

    def __init__(self, goal: int):
        self.goal = goal
        self.pawns = ["pawn-red", "pawn-blue"]
        self.length = (goal + 1) * SQUARE + 2 * MARGIN
        self.centre = (TRAY_HALF + GAP + self.length / 2, 0.0)

    def square(self, player: int, square: int) -> tuple[float, float]:
        """The centre of `square` (0 to the goal) of `player`'s lane, on the board's face."""
        x0 = self.centre[0] - self.length / 2 + MARGIN + SQUARE / 2
        return (x0 + square * SQUARE, (-LANE if player == 0 else LANE))

    def pawn_position(self, player: int, square: int) -> tuple[float, float, float]:
        """Where a pawn's centre stands on its square."""
        x, y = self.square(player, square)
        return (x, y, BOARD_THICKNESS + PAWN_HEIGHT / 2)
