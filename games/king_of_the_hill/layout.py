"""King of the Hill's table as it is laid out, from the data files alone: the hill's and the
Tipper's shapes, where the Tipper stands, the drawer and every marble's seat. No World: replay
playback draws from it; the physical table (tabletop.games.king_of_the_hill.table) is one."""
from __future__ import annotations

from tabletop.gamekit.devices import default_spec
from tabletop.games.king_of_the_hill.board import Board, load_board
from tabletop.games.king_of_the_hill.rules import DRAWER, IN_CRATER
from tabletop.sim.devices.hill_shape import HillShape
from tabletop.sim.devices.tipper_shape import TipperShape

TIPPER_ORIGIN = (0.0, -0.30, 0.0)   # the Tipper stands on the table in front of the hill
DRAWER_Y = -0.205                   # the open drawer: marbles not yet entered lie in a row in front of the hill


class HillLayout:
    """The hill (`crater`), the Tipper (`tipper`) and `marbles` game marbles: their names and seats."""

    def __init__(self, marbles: int, board: Board | None, crater: HillShape, tipper: TipperShape):
        self.board = board or load_board()
        self.crater, self.tipper = crater, tipper
        r = crater.marble_radius
        self.drawer = [(-0.12 + 0.024 * i, DRAWER_Y, r) for i in range(marbles)]
        self.marbles = [f"koth-marble-{i}" for i in range(marbles)]

    @classmethod
    def from_specs(cls, marbles: int, board: Board | None = None) -> HillLayout:
        """The layout of the default specs' hill and Tipper, for drawing only."""
        return cls(marbles, board, HillShape(default_spec("crater")), TipperShape(default_spec("tipper")))

    def seat_position(self, marble: int, track: int) -> tuple[float, float, float]:
        if track == DRAWER or track == IN_CRATER:
            return self.drawer[marble]
        if track < self.board.path_length:
            return self.board.path_positions[track]
        return self.board.zone_positions[track - self.board.path_length]
