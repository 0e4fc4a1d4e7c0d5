"""King of the Hill's hill as drawn, from the data the rules and physics read (board.toml, the
hill's and the Tipper's specs): a skin whose rings follow the crater's circles and the mesa's
square-ish contours (so the rim and the base are smooth curves, not the stair-steps a square grid
cuts into them), and its painted texture: the path joining the spaces in order, the seats, the
edge spaces' arrows, START, the Finish Zone's seats and the three caves over their seats."""
from __future__ import annotations

import numpy as np

from tabletop.games.king_of_the_hill.board import HILL_BREAKS, Board, hill_height
from tabletop.games.king_of_the_hill.crater import HillShape
from tabletop.sim.view.art import Canvas

SKIN_SEGMENTS = 256      # round the axis: 2 mm chords at the rim wall
TEXTURE_PIXELS = 2048    # 0.17 mm a texel over the 35 cm base
HILL_RGB = (0.36, 0.55, 0.27)
CRATER_RGB = (0.20, 0.33, 0.16)
PATH_RGB = (0.93, 0.86, 0.64)
PATH_EDGE_RGB = (0.45, 0.36, 0.20)
SEAT_RGB = (0.62, 0.48, 0.28)
EDGE_RGB = (0.80, 0.16, 0.12)
ZONE_RGB = (0.98, 0.80, 0.22)
START_RGB = (0.97, 0.97, 0.95)
CAVE_RGB = (0.22, 0.17, 0.11)
CAVE_SEAT_RGB = (0.10, 0.07, 0.05)


def skin(crater: HillShape) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, faces) of the hill's top skin: a short dark tube down the centre hole, the
    crater's rings (funnel, ledge with its seat dimples, rim wall) out to its outer radius, then
    rings along the mesa's contours (board.hill_height) down to the base on the table."""
    theta = np.linspace(0.0, 2 * np.pi, SKIN_SEGMENTS, endpoint=False)
    c, s = np.cos(theta), np.sin(theta)
    funnel = crater.hole_radius * (crater.lip_radius / crater.hole_radius) ** np.linspace(0.0, 1.0, 14)
    ledge = np.linspace(crater.lip_radius, crater.path_outer_radius, 6)[1:]
    rings = np.concatenate([funnel, ledge, [crater.path_outer_radius + 0.002, crater.outer_radius]])
    x, y = rings[:, None] * c, rings[:, None] * s
    z = crater.shell_height(x, y)
    top, foot, base = HILL_BREAKS
    n = np.concatenate([np.linspace(top, foot, 7), np.linspace(foot, base, 4)[1:]])
    r = np.maximum(n[:, None] / (c ** 4 + s ** 4) ** 0.25, crater.outer_radius)
    xm, ym = r * c, r * s
    zm = np.vectorize(hill_height)(xm, ym)
    X = np.vstack([crater.hole_radius * c[None, :], x, xm])
    Y = np.vstack([crater.hole_radius * s[None, :], y, ym])
    Z = np.vstack([np.full((1, len(theta)), crater.ceiling_z), z, zm])
    verts = np.column_stack([X.ravel(), Y.ravel(), Z.ravel()])
    idx = np.arange(X.size).reshape(X.shape)
    nxt = np.roll(idx, -1, axis=1)
    a, b, cc, d = idx[:-1], nxt[:-1], nxt[1:], idx[1:]
    faces = np.concatenate([np.column_stack([a.ravel(), cc.ravel(), b.ravel()]),
                            np.column_stack([a.ravel(), d.ravel(), cc.ravel()])])     # facing up
    return verts, faces


def cave_seats(crater: HillShape) -> dict[str, tuple[float, float, float]]:
    """Where a marble rests in each cave seat ("caveC/seatS"), from the hill's seat regions."""
    return {name: region.center for name, region in crater.seat_regions.items()}


def zone_centre(board: Board) -> np.ndarray:
    """The middle of the Finish Zone's seats."""
    return np.mean(np.asarray(board.zone_positions), axis=0)


def paint_hill(board: Board, crater: HillShape, half: float) -> Canvas:
    """The hill's texture (top-down over [-half, half]^2): the crater darkening to its hole, the
    caves under their path spaces, the path from START through every space to the Finish Zone,
    seats, and an arrow on every edge space pointing into the crater."""
    r = crater.marble_radius
    cv = Canvas(half, TEXTURE_PIXELS, HILL_RGB)
    window, x, y = cv.window((-crater.outer_radius,) * 2, (crater.outer_radius,) * 2)
    rho = np.hypot(x, y)
    cv.blend(window, np.clip((crater.path_outer_radius - rho) / (crater.path_outer_radius - crater.hole_radius),
                             0.0, 1.0) ** 0.7, CRATER_RGB)
    cv.disc((0, 0), crater.hole_radius + 0.0008, (0.02, 0.02, 0.02))
    cv.disc((0, 0), crater.path_outer_radius + 0.0025, (0.28, 0.42, 0.20), ring=0.0025)   # the rim wall's top
    seats = cave_seats(crater)
    for name in ("cave1", "cave2", "cave3"):
        ends = [seats[f"{name}/seat1"], seats[f"{name}/seat2"]]
        cv.stroke(ends, 2 * crater.cave_radius + 0.014, CAVE_RGB)
        for p in ends:
            cv.disc(p, 1.5 * r, CAVE_SEAT_RGB, ring=0.0022)
    path = np.asarray(board.path_positions)
    zone = np.asarray(board.zone_positions)
    route = np.vstack([path, zone[:1]])
    cv.stroke(route, 2.4 * r, PATH_EDGE_RGB)
    cv.stroke(route, 2.0 * r, PATH_RGB)
    cv.stroke(zone, 2.6 * r, PATH_EDGE_RGB)
    cv.stroke(zone, 2.2 * r, ZONE_RGB)
    for i, p in enumerate(path):
        if i == 0:
            cv.disc(p, 1.25 * r, START_RGB)
            cv.disc(p, 1.25 * r, EDGE_RGB, ring=0.0012)
        elif i in board.edge_spaces:
            cv.disc(p, 1.1 * r, EDGE_RGB)
            inward = -p[:2] / np.linalg.norm(p[:2])
            cv.arrow(p[:2] - 1.5 * r * inward, p[:2] + 2.1 * r * inward, 1.3 * r, START_RGB)
        else:
            cv.disc(p, 0.95 * r, SEAT_RGB)
    for p in zone:
        cv.disc(p, 1.05 * r, (0.80, 0.55, 0.10))
    return cv


def surface_height(crater: HillShape, x: float, y: float) -> float:
    """Height of the drawn hill at (x, y): the crater shell inside its outer radius, the mesa outside."""
    if np.hypot(x, y) <= crater.outer_radius:
        return float(crater.shell_height(np.array(x), np.array(y)))
    return hill_height(x, y)


def sign_spots(points, crater: HillShape, height: float) -> list[tuple[float, float, float]]:
    """Where the number of each seat of a route stands: beside the seat, across the route on the
    side nearer the player in front (-y), lifted clear of the surface, so neither a marble on the
    seat nor a lit destination hides it."""
    pts = np.asarray(points, float)
    r = crater.marble_radius
    out = []
    for i, p in enumerate(pts):
        t = pts[min(i + 1, len(pts) - 1)][:2] - pts[max(i - 1, 0)][:2]
        side = np.array([t[1], -t[0]]) / np.linalg.norm(t)
        if side[1] > 0 or (abs(side[1]) < 1e-9 and side @ p[:2] < 0):
            side = -side
        x, y = p[:2] + 1.45 * r * side
        out.append((float(x), float(y), surface_height(crater, x, y) + 0.6 * height + 0.002))
    return out
