"""The King of the Hill board, loaded and validated from board.toml."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tabletop.sim.errors import SpecError
from tabletop.sim.spec import load_toml

BOARD_FILE = Path(__file__).with_name("board.toml")
CRATER_LABELS = tuple(f"cave{c}/seat{s}" for c in (1, 2, 3) for s in (1, 2))
HILL_BREAKS = (0.095, 0.168, 0.175)    # hill_height's creases in the 4-norm: mesa edge, foot of the slope, base


def hill_height(x: float, y: float) -> float:
    """Height of the hill's surface outside the crater top, where the path seats lie: a square-based
    mesa falling from the crater's outer edge (12 cm) to 5.5 cm at the caves' corners (above the
    tunnel ceiling at 5 cm), then a steep skirt to the table. n is the 4-norm of (x, y), square-ish
    like the base. scripts/layout_board.py seats the path on it and the window draws it."""
    n = (x ** 4 + y ** 4) ** 0.25
    top, foot, base = HILL_BREAKS
    if n <= top:
        return 0.12
    if n <= foot:
        return 0.12 - 0.065 * (n - top) / (foot - top)
    return max(0.0, 0.055 * (base - n) / (base - foot))


@dataclass(frozen=True)
class Board:
    path_length: int                 # path spaces 0 (Start) .. path_length - 1
    zone_seats: int                  # Finish Zone seats #1..#zone_seats after the path
    edges: dict[str, int]            # edge seat name -> path space (arrow spaces on the crater rim)
    caves: dict[str, int]            # "caveC/seatS" -> path space directly above that cave seat
    path_positions: tuple[tuple[float, float, float], ...] = ()   # seat centres on the hill model (m)
    zone_positions: tuple[tuple[float, float, float], ...] = ()

    @property
    def edge_spaces(self) -> frozenset[int]:
        return frozenset(self.edges.values())

    def edge_name(self, space: int) -> str:
        return next(name for name, s in self.edges.items() if s == space)

    def zone_index(self, seat: int) -> int:
        """Track index of Finish Zone seat #seat (1-based)."""
        return self.path_length + seat - 1

    def describe(self, track: int) -> str:
        if track == -2:
            return "the crater"
        if track < 0:
            return "the drawer"
        if track == 0:
            return "Start"
        if track < self.path_length:
            return f"space {track}" + (" (edge)" if track in self.edge_spaces else "")
        return f"Finish Zone #{track - self.path_length + 1}"


def load_board(path: str | Path = BOARD_FILE) -> Board:
    spec = load_toml(path)
    length = spec.integer("path_length", 12, 500)
    zone = spec.integer("zone_seats", 1, 20)
    edges_t, caves_t = spec.table("edges"), spec.table("caves")
    edges = {name: edges_t.integer(name, 1, length - 1) for name in edges_t.data}
    caves = {name: caves_t.integer(name, 1, length - 1) for name in caves_t.data}
    if not edges:
        raise SpecError(f"{path}: edges: at least one edge space is needed")
    if len(set(edges.values())) != len(edges):
        raise SpecError(f"{path}: edges: two edge seats share a path space")
    if set(caves) != set(CRATER_LABELS):
        raise SpecError(f"{path}: caves: expected exactly {', '.join(CRATER_LABELS)}")
    if len(set(caves.values())) != len(caves):
        raise SpecError(f"{path}: caves: two cave seats lie under the same path space")
    clash = set(caves.values()) & set(edges.values())
    if clash:
        raise SpecError(f"{path}: caves: space {min(clash)} is both an edge space and above a cave seat")
    pos = spec.table("positions")
    path_pos, zone_pos = _points(pos, "path", length), _points(pos, "zone", zone)
    return Board(length, zone, dict(sorted(edges.items(), key=lambda kv: kv[1])), caves, path_pos, zone_pos)


def _points(table, key: str, count: int) -> tuple[tuple[float, float, float], ...]:
    value = table.data.get(key)
    if (not isinstance(value, list) or len(value) != count
            or not all(isinstance(p, list) and len(p) == 3
                       and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p) for p in value)):
        raise SpecError(f"{table.source}: positions.{key}: expected {count} points [x, y, z]")
    return tuple(tuple(float(v) for v in p) for p in value)
