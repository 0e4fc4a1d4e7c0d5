"""King Kong's table as it is laid out, from the data files alone: the bodies' names, the board's
top, the pawns' shape and spots, and Kong's pose at any (climb, twist) from the figure's geometry.
No World: replay playback draws from it; the physical rig (rig.py) and table (table.py) build on it."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from tabletop.gamekit.devices import default_spec
from tabletop.games.king_kong.board import Board, load_board
from tabletop.games.king_kong.geometry import Kong, load_kong
from tabletop.sim.errors import SpecError
from tabletop.sim.materials import Material, load_materials, pick_material
from tabletop.sim.paths import assets_dir
from tabletop.sim.spec import load_toml

BOARD = "kk_board"
TABLE = "kk_table"                # the table the board lies on (a pawn pushed off the board's edge lands on it)
KONG = "kk_kong"                  # base: the track's foot; links: the slide, the ring's play, the figure
SLIDE, LIFT, FIGURE = 0, 1, 2
BOARD_TOP = 0.0                   # the board's top (z): the rig's slab is built under it
DIE_ORIGIN = (0.55, 0.0, 0.0)     # the box lid lies on the table beside the board's right edge


def pawn_name(i: int) -> str:
    return f"kk_pawn_{i}"


@dataclass(frozen=True)
class PawnShape:
    """An Attack Team pawn (pawn.toml; base radius and height from kong.toml's [pawn])."""

    base_radius: float
    base_thickness: float
    body_radius: float
    head_radius: float
    height: float
    material: Material
    mass: float
    com_z: float                        # centre of mass above the underside (m)
    inertia: tuple[float, float, float]  # principal, about the centre of mass

    @property
    def parts(self) -> list[tuple[str, tuple, float]]:
        """(kind, dims, centre height above the underside): base cylinder, body cylinder, head sphere."""
        t, top = self.base_thickness, self.height - self.head_radius
        return [("cylinder", (self.base_radius, t), t / 2),
                ("cylinder", (self.body_radius, top - t), (t + top) / 2),
                ("sphere", (self.head_radius,), top)]


def load_pawn(path: str | Path, kong: Kong, overrides=()) -> PawnShape:
    """The pawn from pawn.toml; `overrides` are those of assets/materials.toml (`materials.NAME.FIELD`)."""
    spec = load_toml(path)
    materials = load_materials(assets_dir() / "materials.toml", overrides)
    t = spec.table("pawn")
    r, h = kong.pawn_radius, kong.pawn_height
    base_t = t.number("base_thickness", 5e-4, h / 4)
    body_r = t.number("body_radius", 5e-4, r)
    head_r = t.number("head_radius", body_r, r)
    if h - 2 * head_r <= base_t:
        raise SpecError(f"{spec.source}: pawn.head_radius: a {2 * head_r} m head on a {base_t} m base does not "
                        f"fit the pawn's height ({h} m, kong.toml pawn.height)")
    mat = pick_material(t, "material", materials)
    if kong.clearance + kong.thickness > h - 2 * head_r or kong.clearance < base_t:
        raise SpecError(f"{spec.source}: pawn: the figure ({kong.clearance}..{kong.clearance + kong.thickness} m "
                        f"above the board, kong.toml) must pass between the pawn's base and its head")
    top = h - head_r
    vols = [(math.pi * r * r * base_t, base_t / 2), (math.pi * body_r ** 2 * (top - base_t), (base_t + top) / 2),
            (4 / 3 * math.pi * head_r ** 3, top)]
    vol = sum(v for v, _ in vols)
    mass = mat.density * vol
    com = sum(v * z for v, z in vols) / vol
    # principal inertia about the centre of mass: solid cylinders and a sphere, parallel axes
    ixx = izz = 0.0
    for (v, z), (rad, length) in zip(vols[:2], ((r, base_t), (body_r, top - base_t))):
        m = mat.density * v
        ixx += m * (3 * rad * rad + length * length) / 12 + m * (z - com) ** 2
        izz += m * rad * rad / 2
    m = mat.density * vols[2][0]
    ixx += 2 / 5 * m * head_r ** 2 + m * (top - com) ** 2
    izz += 2 / 5 * m * head_r ** 2
    return PawnShape(r, base_t, body_r, head_r, h, mat, mass, com, (ixx, ixx, izz))


def start_spot(board: Board, i: int) -> tuple[float, float]:
    """Where pawn `i` stands on Start: side by side along it, by seat."""
    x0, x1, y0, y1 = board.space("start").rect
    return (x0 + 0.04 + 0.03 * i, (y0 + y1) / 2)


def kong_poses(kong: Kong, climb: float, twist: float) -> dict[str, tuple[float, ...]]:
    """The poses of Kong's tracks (the slide, the ring's play, the figure) at rest at (climb, twist)
    notches: the slide climbs the track along +y from the track's foot, the figure turns about +z."""
    bx, by = kong.bottom
    at = (bx, by + climb * kong.climb_step, 0.0)
    half = math.radians(twist * kong.notch_angle) / 2
    still = (0.0, 0.0, 0.0, 1.0)
    return {f"{KONG}:{SLIDE}": (*at, *still), f"{KONG}:{LIFT}": (*at, *still),
            f"{KONG}:{FIGURE}": (*at, 0.0, 0.0, math.sin(half), math.cos(half))}


class KongLayout:
    """The board, Kong's figure and `players` pawns: their names, the pawns' shape and spots."""

    def __init__(self, players: int, board: Board | None = None, kong: Kong | None = None,
                 pawn: PawnShape | None = None):
        self.board = board or load_board()
        self.kong = kong or load_kong()
        if pawn is None:
            path = default_spec("kong-knockover")
            pawn = load_pawn(path.parent / load_toml(path).string("pawn"), self.kong)
        self.pawn = pawn
        self.pawns = [pawn_name(i) for i in range(players)]

    def start_spot(self, p: int) -> tuple[float, float]:
        return start_spot(self.board, p)

    def safe_spot(self, space, p: int) -> tuple[float, float]:
        """Start and the elevators are long spaces, far from Kong: pawns stand along them by seat."""
        x0, x1, y0, y1 = space.rect
        if space.kind == "start":
            return self.start_spot(p)
        return ((x0 + x1) / 2, y0 + 0.04 + 0.03 * p)

    def kong_poses(self, climb: float, twist: float) -> dict[str, tuple[float, ...]]:
        return kong_poses(self.kong, climb, twist)
