"""King Kong's figure on the board: pure plane geometry, no physics.

The figure (assets/king_kong/kong.toml) is a flat outline held parallel to the board by a ring on a
slide in the track. A pose is (climb notch, twist notch). From a pose this module decides, for each
groove at Kong's hands and feet, where on the board it lies (in one space, over a line between
spaces, over the track, or off the towers), which window spaces the figure covers, and which window
spaces the figure passes close to while it moves from one pose to the next.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from tabletop.games.king_kong.board import Board
from tabletop.games.king_kong.labels import LEFT, RIGHT
from tabletop.sim.errors import SpecError
from tabletop.sim.paths import assets_dir
from tabletop.sim.spec import Table, load_toml

KONG_FILE = assets_dir() / "king_kong" / "kong.toml"
GROOVES = ("left_hand", "right_hand", "left_foot", "right_foot")


@dataclass(frozen=True)
class Limb:
    groove: str
    start: tuple[float, float]      # where the limb leaves the body (figure frame, m)
    width: float


@dataclass(frozen=True)
class Kong:
    """The figure's geometry (see kong.toml)."""

    bottom: tuple[float, float]                     # ring centre at climb notch 0 (board frame, m)
    climb_step: float                               # m per climb notch, along +y
    top: int                                        # the climb notch at which Kong has reached the top
    notch_angle: float                              # degrees per twist notch
    twist_limit: int                                # notches either way from up
    grooves: dict[str, tuple[float, float]]         # groove -> offset from the ring centre (figure frame)
    body_centre: tuple[float, float]
    body_size: tuple[float, float]
    limbs: tuple[Limb, ...]
    clearance: float                                # underside of the figure above the board (m)
    thickness: float
    pawn_radius: float
    pawn_height: float
    margin: float                                   # sweep: distance that puts a pawn at risk (m)
    samples: int                                    # sweep: poses checked per notch

    @property
    def notches_per_turn(self) -> float:
        return 360.0 / self.notch_angle

    @cached_property
    def free_turning(self) -> bool:
        """Whether the ring turns all the way round (the limit is half a turn: +limit and -limit are
        one pose) rather than stopping at the limit."""
        return math.isclose(2 * self.twist_limit, self.notches_per_turn)

    def canonical_twist(self, twist: int) -> int:
        """A twist notch in (-limit, limit] when the ring turns freely; unchanged otherwise."""
        if not self.free_turning:
            return twist
        turn = 2 * self.twist_limit
        return (twist + self.twist_limit - 1) % turn - self.twist_limit + 1

    def step_twist(self, twist: int, direction: int) -> int | None:
        """The twist one notch on (+1 left, -1 right), or None where the limit stops it."""
        if self.free_turning:
            return self.canonical_twist(twist + direction)
        nxt = twist + direction
        return nxt if abs(nxt) <= self.twist_limit else None

    def twist_path(self, twist: int, direction: int, notches: int | None) -> tuple[int, ...]:
        """The notch steps of a twist from `twist` in `direction` (+1 left, -1 right): `notches` of them,
        or until Kong stands up (None); a stop at the twist limit cuts it short."""
        t, steps = twist, []
        while len(steps) != notches and not (notches is None and t == 0):
            t = self.step_twist(t, direction)
            if t is None:
                break
            steps.append(direction)
        return tuple(steps)

    def end_twist(self, twist: int, steps: tuple[int, ...]) -> int:
        """The twist after the notch `steps` from `twist`."""
        for d in steps:
            twist = self.step_twist(twist, d)
        return twist

    def up_ways(self, twist: int) -> list[int]:
        """The directions (+1 left, -1 right) that bring Kong back up from `twist` (none when he stands up)."""
        return [d for d in (LEFT, RIGHT) if (path := self.twist_path(twist, d, None)) and self.end_twist(twist, path) == 0]

    def ring_centre(self, climb: float) -> tuple[float, float]:
        return self.bottom[0], self.bottom[1] + climb * self.climb_step

    def to_board(self, offset, climb: float, twist: float) -> tuple[float, float]:
        """A figure-frame point on the board with Kong at (climb, twist)."""
        cx, cy = self.ring_centre(climb)
        a = math.radians(twist * self.notch_angle)
        c, s = math.cos(a), math.sin(a)
        return cx + offset[0] * c - offset[1] * s, cy + offset[0] * s + offset[1] * c

    def groove_point(self, groove: str, climb: float, twist: float) -> tuple[float, float]:
        return self.to_board(self.grooves[groove], climb, twist)

    def outline(self) -> tuple[tuple[np.ndarray, bool], ...]:
        """The figure's parts in the figure frame: (convex quadrilateral, counter-clockwise, as a 4 x 2
        array; whether it covers spaces): the body, then the limbs."""
        (bx, by), (w, h) = self.body_centre, self.body_size
        body = np.array([[bx - w / 2, by - h / 2], [bx + w / 2, by - h / 2],
                         [bx + w / 2, by + h / 2], [bx - w / 2, by + h / 2]])
        parts = [(body, True)]
        for limb in self.limbs:
            a, b = np.array(limb.start), np.array(self.grooves[limb.groove])
            d = (b - a) / np.linalg.norm(b - a)
            n = np.array([-d[1], d[0]]) * limb.width / 2
            parts.append((np.array([a - n, b - n, b + n, a + n]), False))
        return tuple(parts)


def load_kong(path: str | Path = KONG_FILE) -> Kong:
    spec = load_toml(path)
    ring = spec.table("ring")
    bottom = ring.vector("bottom", 2)
    step = ring.number("climb_step", 1e-3, 0.2)
    top = ring.integer("notches_to_top", 1, 200)
    angle = ring.number("notch_angle_deg", 1.0, 180.0)
    limit = ring.integer("twist_limit", 0, 360)
    if limit * angle > 180.0 + 1e-9:
        raise SpecError(f"{spec.source}: ring.twist_limit: {limit} notches of {angle} deg is more than half a turn")
    grooves_t = spec.table("grooves")
    unknown = sorted(set(grooves_t.data) - set(GROOVES))
    if unknown:
        raise SpecError(f"{spec.source}: grooves.{unknown[0]}: unknown groove; Kong's grooves are "
                        f"{', '.join(GROOVES)}")
    grooves = {g: grooves_t.vector(g, 2) for g in GROOVES}
    for g, (x, y) in grooves.items():
        if math.hypot(x, y) < 1e-3:
            raise SpecError(f"{spec.source}: grooves.{g}: a groove cannot sit at the ring centre")
    body = spec.table("body")
    centre, size = body.vector("centre", 2), body.vector("size", 2)
    if min(size) <= 0:
        raise SpecError(f"{spec.source}: body.size: both extents must be positive, got {list(size)}")
    limbs = tuple(_limb(t, grooves) for t in spec.tables("limbs"))
    named = [limb.groove for limb in limbs]
    if sorted(named) != sorted(GROOVES):
        raise SpecError(f"{spec.source}: limbs: expected one limb for each groove ({', '.join(GROOVES)}), "
                        f"got {named}")
    figure, pawn, sweep = spec.table("figure"), spec.table("pawn"), spec.table("sweep")
    return Kong(bottom, step, top, angle, limit, grooves, centre, size, limbs,
                figure.number("clearance", 0.0, 0.2), figure.number("thickness", 1e-4, 0.05),
                pawn.number("radius", 1e-3, 0.05), pawn.number("height", 1e-3, 0.2),
                sweep.number("margin", 0.0, 0.2), sweep.integer("samples_per_notch", 1, 32))


def _limb(t: Table, grooves: dict) -> Limb:
    groove = t.string("groove")
    if groove not in grooves:
        raise SpecError(f"{t.source}: {t.prefix}groove: unknown groove {groove!r}; use {', '.join(GROOVES)}")
    start = t.vector("from", 2)
    if math.dist(start, grooves[groove]) < 1e-3:
        raise SpecError(f"{t.source}: {t.prefix}from: the limb starts at its own groove")
    return Limb(groove, start, t.number("width", 1e-3, 0.1))


@dataclass(frozen=True)
class GroovePlace:
    """Where a groove lies on the board. kind: "space" (inside `spaces[0]`), "line" (over the line or
    lines between `spaces`: attackable from any of them), "track" (over the track slot: never
    attackable) or "off" (beyond the towers: never attackable)."""

    kind: str
    spaces: tuple[str, ...] = ()

    @property
    def attackable(self) -> bool:
        return self.kind in ("space", "line")

    def __str__(self) -> str:
        if self.kind == "space":
            return f"in {self.spaces[0]}"
        if self.kind == "line":
            return f"over the line between {', '.join(self.spaces)}"
        return "over the track" if self.kind == "track" else "off the towers"


class Geometry:
    """The board and Kong together, with the answers cached per pose (poses repeat all game)."""

    def __init__(self, board: Board, kong: Kong):
        self.board, self.kong = board, kong
        self.windows = board.windows()
        self.centres = np.array([w.centre for w in self.windows])
        self.rects = np.array([s.rect for s in board.spaces])
        parts = kong.outline()
        self._quads = np.array([poly for poly, _ in parts])
        self._covers = np.array([covers for _, covers in parts])
        self._reach = np.linalg.norm(self._quads, axis=2).max() + kong.margin    # farthest the figure reaches
        self._places: dict = {}
        self._covered: dict = {}
        self._near: dict = {}

    def place(self, groove: str, climb: int, twist: int) -> GroovePlace:
        key = (groove, climb, self.kong.canonical_twist(twist))
        if key not in self._places:
            self._places[key] = self.locate(self.kong.groove_point(groove, climb, twist))
        return self._places[key]

    def locate(self, p: tuple[float, float]) -> GroovePlace:
        """Where a groove at board point p lies (a fitted pawn's base reaches a pawn radius round p)."""
        r = self.kong.pawn_radius
        x0, x1, y0, y1 = self.board.area
        if p[0] - r < x0 or p[0] + r > x1 or p[1] - r < y0 or p[1] + r > y1:
            return GroovePlace("off")
        if _rect_distance(p, np.array([self.board.track]))[0] < r:
            return GroovePlace("track")
        near = np.flatnonzero(_rect_distance(p, self.rects) < r)
        names = tuple(self.board.spaces[i].name for i in near)
        return GroovePlace("space" if len(names) == 1 else "line", names)

    def covered(self, climb: int, twist: int) -> frozenset[str]:
        """Window spaces whose centre lies under the figure's body: no pawn may enter or cross them.
        (The long spaces, elevators and Start, are never covered: a pawn goes round Kong on them.)"""
        key = (climb, self.kong.canonical_twist(twist))
        if key not in self._covered:
            d = _quad_distances(self.centres, self._posed(climb, twist))
            inside = (d[:, self._covers] == 0.0).any(axis=1)
            self._covered[key] = frozenset(w.name for w, i in zip(self.windows, inside) if i)
        return self._covered[key]

    def near(self, climb_q: int, twist_q: int) -> frozenset[str]:
        """Window spaces whose centre lies within the sweep margin of the figure's outline, with Kong at
        climb climb_q / samples and twist twist_q / samples notches."""
        s = self.kong.samples
        turn = round(self.kong.notches_per_turn * s)
        key = (climb_q, twist_q % turn)
        if key not in self._near:
            ring = np.array(self.kong.ring_centre(climb_q / s))
            close = np.flatnonzero(np.linalg.norm(self.centres - ring, axis=1) < self._reach)
            d = _quad_distances(self.centres[close], self._posed(climb_q / s, twist_q / s)).min(axis=1)
            self._near[key] = frozenset(self.windows[i].name for i, dist in zip(close, d) if dist < self.kong.margin)
        return self._near[key]

    def swept(self, climb: int, twist: int, twist_steps: tuple[int, ...], climb_steps: int) -> frozenset[str]:
        """Window spaces the figure passes over or close to while it twists notch by notch
        (`twist_steps`: +1 left, -1 right) and then climbs `climb_steps` notches from (climb, twist)."""
        s = self.kong.samples
        out: set[str] = set(self.near(climb * s, twist * s))
        t = twist * s
        for step in twist_steps:
            for _ in range(s):
                t += step
                out |= self.near(climb * s, t)
        c = climb * s
        for _ in range(climb_steps * s):
            c += 1
            out |= self.near(c, t)
        return frozenset(out)

    def _posed(self, climb: float, twist: float) -> np.ndarray:
        """The figure's parts (P x 4 x 2) on the board with Kong at (climb, twist)."""
        cx, cy = self.kong.ring_centre(climb)
        a = math.radians(twist * self.kong.notch_angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return self._quads @ rot.T + (cx, cy)


def _rect_distance(p, rects: np.ndarray) -> np.ndarray:
    """Distance from point p to each rectangle (x0, x1, y0, y1); 0 inside."""
    dx = np.maximum(np.maximum(rects[:, 0] - p[0], p[0] - rects[:, 1]), 0.0)
    dy = np.maximum(np.maximum(rects[:, 2] - p[1], p[1] - rects[:, 3]), 0.0)
    return np.hypot(dx, dy)


def _quad_distances(points: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Distance (n x P) from each point to each counter-clockwise convex quadrilateral; 0 inside."""
    a, b = quads, np.roll(quads, -1, axis=1)                     # P x 4 x 2
    ab = b - a
    ap = points[:, None, None, :] - a[None]                      # n x P x 4 x 2
    cross = ab[None, ..., 0] * ap[..., 1] - ab[None, ..., 1] * ap[..., 0]
    inside = (cross >= 0).all(axis=2)
    t = np.clip((ap * ab[None]).sum(-1) / (ab * ab).sum(-1)[None], 0.0, 1.0)
    closest = a[None] + t[..., None] * ab[None]
    d = np.linalg.norm(ap + a[None] - closest, axis=-1).min(axis=2)
    return np.where(inside, 0.0, d)
