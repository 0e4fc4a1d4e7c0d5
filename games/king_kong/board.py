"""The King Kong board, loaded and validated from board.toml.

Two towers of window spaces either side of a track slot up the middle, an elevator (one long
space) on each tower's outer side and one long Start space across the bottom. Spaces are
rectangles in the board frame (m), so that the rules' geometry, the physics and the view place
them alike. Adjacency is orthogonal; nothing is adjacent across the track (only through Start).
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from tabletop.sim.errors import SpecError
from tabletop.sim.spec import load_toml

BOARD_FILE = Path(__file__).with_name("board.toml")
START = "start"
TOWERS = ("L", "R")              # left (x < 0) and right (x > 0) of the track, seen by the players
MAX_ROWS, MAX_COLUMNS = 40, 10


@dataclass(frozen=True)
class Space:
    name: str
    kind: str                                   # "window", "elevator" or "start"
    rect: tuple[float, float, float, float]     # x0, x1, y0, y1 (m)
    tower: str | None = None                    # "L" or "R"
    column: int | None = None                   # window spaces: 1 next to the track, counting outward
    row: int | None = None                      # window spaces: 1 at the bottom

    @property
    def centre(self) -> tuple[float, float]:
        x0, x1, y0, y1 = self.rect
        return (x0 + x1) / 2, (y0 + y1) / 2

    @property
    def is_window(self) -> bool:
        return self.kind == "window"


@dataclass(frozen=True)
class Board:
    size: tuple[float, float]                        # board extent along x and y (m)
    spaces: tuple[Space, ...]
    track: tuple[float, float, float, float]         # the slot up the middle: x0, x1, y0, y1 (m)
    area: tuple[float, float, float, float]          # everything the spaces and the track tile (m)
    adjacency: dict[str, tuple[str, ...]]
    rows: int
    window_columns: int

    def __post_init__(self):
        object.__setattr__(self, "names", tuple(s.name for s in self.spaces))
        object.__setattr__(self, "_index", {s.name: s for s in self.spaces})
        object.__setattr__(self, "_distances", {})

    def space(self, name: str) -> Space:
        return self._index[name]

    def __contains__(self, name: str) -> bool:
        return name in self._index

    def windows(self) -> tuple[Space, ...]:
        return tuple(s for s in self.spaces if s.is_window)

    def distances(self, origin: str, blocked: Iterable[str] = ()) -> dict[str, int]:
        """Fewest orthogonal steps from `origin` to every space reachable without entering a space in
        `blocked` (the origin itself may be blocked: a pawn may always step off its own space)."""
        blocked = frozenset(blocked)
        key = (origin, blocked)
        if key not in self._distances:
            self._distances[key] = self._walk(origin, blocked)
        return self._distances[key]

    def _walk(self, origin: str, blocked: frozenset[str]) -> dict[str, int]:
        dist = {origin: 0}
        queue = deque([origin])
        while queue:
            here = queue.popleft()
            for nxt in self.adjacency[here]:
                if nxt not in dist and nxt not in blocked:
                    dist[nxt] = dist[here] + 1
                    queue.append(nxt)
        return dist


def window_name(tower: str, column: int, row: int) -> str:
    return f"{tower}{column}-{row}"


def elevator_name(tower: str) -> str:
    return f"{tower}-elevator"


def load_board(path: str | Path = BOARD_FILE) -> Board:
    spec = load_toml(path)
    size = spec.vector("size", 2)
    if min(size) <= 0:
        raise SpecError(f"{spec.source}: size: both extents must be positive, got {list(size)}")
    bottom = spec.number("bottom")
    start_h = spec.table("start").number("height", 1e-3, 1.0)
    track_w = spec.table("track").number("width", 1e-3, 1.0)
    towers = spec.table("towers")
    rows = towers.integer("rows", 1, MAX_ROWS)
    columns = towers.integer("window_columns", 1, MAX_COLUMNS)
    col_w = towers.number("column_width", 1e-3, 1.0)
    row_h = towers.number("row_height", 1e-3, 1.0)
    lift_w = towers.number("elevator_width", 1e-3, 1.0)
    half = track_w / 2 + columns * col_w + lift_w
    top = bottom + start_h + rows * row_h
    if half > size[0] / 2:
        raise SpecError(f"{spec.source}: towers: track, {columns} window columns and the elevators are "
                        f"{2 * half:.3f} m wide, wider than the board ({size[0]} m)")
    if bottom < -size[1] / 2 or top > size[1] / 2:
        raise SpecError(f"{spec.source}: bottom: Start and {rows} floors span y {bottom:.3f}..{top:.3f} m, "
                        f"off the board (y within +-{size[1] / 2} m)")
    floor = bottom + start_h
    spaces = [Space(START, "start", (-half, half, bottom, floor))]
    adjacency: dict[str, list[str]] = {START: []}

    def link(a: str, b: str) -> None:
        adjacency.setdefault(a, []).append(b)
        adjacency.setdefault(b, []).append(a)

    for tower, sign in (("L", -1.0), ("R", 1.0)):
        for c in range(1, columns + 1):
            inner = track_w / 2 + (c - 1) * col_w
            x0, x1 = sorted((sign * inner, sign * (inner + col_w)))
            for r in range(1, rows + 1):
                y0 = floor + (r - 1) * row_h
                name = window_name(tower, c, r)
                spaces.append(Space(name, "window", (x0, x1, y0, y0 + row_h), tower, c, r))
                adjacency.setdefault(name, [])
                if r == 1:
                    link(name, START)
                else:
                    link(name, window_name(tower, c, r - 1))
                if c > 1:
                    link(name, window_name(tower, c - 1, r))
        lift = elevator_name(tower)
        inner = track_w / 2 + columns * col_w
        x0, x1 = sorted((sign * inner, sign * (inner + lift_w)))
        spaces.append(Space(lift, "elevator", (x0, x1, floor, top), tower))
        link(lift, START)
        for r in range(1, rows + 1):
            link(lift, window_name(tower, columns, r))
    return Board(size, tuple(spaces), (-track_w / 2, track_w / 2, floor, top), (-half, half, bottom, top),
                 {k: tuple(v) for k, v in adjacency.items()}, rows, columns)
