"""The Knossos table as it is laid out, from the board's data alone: where the board lies, the
pieces' names and sizes, and where each piece stands. No World: replay playback draws from it;
the physical table (tabletop.games.knossos.table) is one."""
from __future__ import annotations

from tabletop.games.knossos.rules import OFF, START

BOARD_CENTRE = (0.80, 0.0)      # the board lies beside the sticks' tray (tray centre at the origin)
BOARD_THICKNESS = 0.02          # a 2 cm wooden board
PIECE_RADIUS = 0.022            # conical pieces: 4.4 cm across the base, 5 cm tall
PIECE_HEIGHT = 0.05


class KnossosLayout:
    """The board (its data) and `pieces` pieces: their names and where they stand."""

    def __init__(self, pieces: int, board):
        self.board = board
        self.pieces = [f"knossos-piece-{i}" for i in range(pieces)]

    def piece_position(self, piece: int, site: int) -> tuple[float, float, float]:
        """Where a piece stands: on its site, beside its wing before entering, beside the apex once off."""
        player, k = divmod(piece, 2)
        if site == START:
            x, y = self.board.tracks[player].start
            x += (k - 0.5) * 2.2 * PIECE_RADIUS
        elif site == OFF:
            x, y = self.board.exit_at
            x += (piece - 1.5) * 2.2 * PIECE_RADIUS
        else:
            x, y = self.board.positions[site]
        return (BOARD_CENTRE[0] + x, BOARD_CENTRE[1] + y, BOARD_THICKNESS + PIECE_HEIGHT / 2)
