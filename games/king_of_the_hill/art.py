"""King of the Hill's hill as drawn, from the data the rules and physics read (board.toml, the
hill's and the Tipper's specs): a skin whose rings follow the crater's circles and the mesa's
square-ish contours (so the rim and the base are smooth curves, not the stair-steps a square grid
cuts into them), and its painted texture: the path joining the spaces in order, the seats, the
edge spaces' arrows, START, the Finish Zone's seats and the three caves over their seats."""
from __future__ import annotations

import numpy as np

from tabletop.games.king_of_the_hill.board import HILL_BREAKS, Board, hill_height
from tabletop.sim.devices.hill_shape import HillShape
from tabletop.sim.canvas import Canvas

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
CAVE_SEAT_RGB = (0.10, 0.07, 0.05)      # the ring round a path space above a cave seat
CAVE_FLOOR_RGB = (0.09, 0.07, 0.05)     # inside a cave: dark
CAVE_RIM_RGB = (0.62, 0.52, 0.34)       # the opening's cut edge
CAVE_MARK_RGB = (0.85, 0.72, 0.45)      # a cave seat's ring on the cave floor


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


def cave_names(crater: HillShape) -> tuple[str, ...]:
    return tuple(cave[0] for cave in crater.caves)


def _pocket_line(crater: HillShape, name: str, count: int, trim: float = 0.0) -> np.ndarray:
    """Points along cave `name`'s valley from a cave's radius before its mouth to its end wall,
    less `trim` at each end."""
    _, line, s, _, _, mouth, total = next(v for v in crater.valleys if v[0] == name)
    u = np.linspace(mouth - crater.cave_radius + trim, total - trim, count)
    return np.column_stack([np.interp(u, s, line[:, 0]), np.interp(u, s, line[:, 1])])


def cave_floor(crater: HillShape, name: str, along: int = 40, across: int = 11) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, faces) of cave `name`'s floor as the physics shapes it (HillShape.floor_height):
    the round-bottomed pocket along its valley from the tunnel's mouth to the end wall, over both
    seats and the hump between them, as wide as the pocket."""
    centre = _pocket_line(crater, name, along)
    t = np.gradient(centre, axis=0)
    t /= np.linalg.norm(t, axis=1, keepdims=True)
    left = np.column_stack([-t[:, 1], t[:, 0]])
    v = np.linspace(-1.0, 1.0, across) * crater.cave_radius
    X = centre[:, :1] + v[None, :] * left[:, :1]
    Y = centre[:, 1:] + v[None, :] * left[:, 1:]
    Z = np.minimum(crater.floor_height(X, Y), crater.ceiling_z)
    verts = np.column_stack([X.ravel(), Y.ravel(), Z.ravel()])
    idx = np.arange(X.size).reshape(X.shape)
    a, b, c, d = idx[:-1, :-1], idx[:-1, 1:], idx[1:, 1:], idx[1:, :-1]
    faces = np.concatenate([np.column_stack([a.ravel(), c.ravel(), b.ravel()]),
                            np.column_stack([a.ravel(), d.ravel(), c.ravel()])])     # facing up
    return verts, faces


def paint_caves(crater: HillShape, half: float, pixels: int = 512) -> Canvas:
    """The caves' floors' texture (top-down over [-half, half]^2), drawn unlit: each pocket a dark
    opening inside a pale rim (its cut edge, cave_floor's outline), and a pale ring round each cave
    seat where a marble comes to rest."""
    cv = Canvas(half, pixels, CAVE_RIM_RGB)
    R, rim = crater.cave_radius, 0.0015
    for name in cave_names(crater):
        cv.stroke(_pocket_line(crater, name, 24, trim=R), 2 * (R - rim), CAVE_FLOOR_RGB)
    for p in cave_seats(crater).values():
        cv.disc(p, 1.15 * crater.marble_radius, CAVE_MARK_RGB, ring=0.0012)
    return cv


def cave_sign_places(crater: HillShape, height: float) -> dict[str, list[tuple[float, float, float]]]:
    """Where each cave's name may stand, best first: beyond the end wall of its pocket, on along
    the valley, then to either side, then farther out (off the path's outer stretch, at the
    hill's foot), at the height of the pocket's floor (the view draws the cave and its name
    through the hill) or the hill's surface there, whichever is higher."""
    out = {}
    R = crater.cave_radius
    for name in cave_names(crater):
        line = _pocket_line(crater, name, 24)
        end, t = line[-1], (line[-1] - line[-2]) / np.linalg.norm(line[-1] - line[-2])
        n = np.array([-t[1], t[0]])
        floor = float(crater.floor_height(np.array([end[0]]), np.array([end[1]]))[0])
        spots = []
        for reach, side in ((1.6, 0.0), (2.4, 0.0), (1.2, 1.8), (1.2, -1.8), (3.2, 0.0), (2.4, 2.4), (2.4, -2.4),
                            (4.2, 0.0), (3.6, 2.4), (3.6, -2.4), (5.2, 0.0), (4.6, 3.0), (4.6, -3.0)):
            x, y = end + R * (reach * t + side * n)
            spots.append((float(x), float(y), max(surface_height(crater, x, y), floor) + 0.6 * height + 0.002))
        out[name] = spots
    return out


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
    for p in cave_seats(crater).values():         # the path space above a cave seat: a dark ring
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


class SurfaceGrid:
    """surface_height sampled on a square grid over the hill's base (and a little beyond), looked
    up bilinearly: many heights at once (a line of sight's samples) at numpy's speed."""

    def __init__(self, crater: HillShape, step: float = 0.0025):
        half = crater.base_size / 2 + 0.01
        self.lo, self.step = -half, step
        axis = np.arange(-half, half + step / 2, step)
        x, y = np.meshgrid(axis, axis, indexing="ij")
        inside = np.hypot(x, y) <= crater.outer_radius          # as surface_height, an array at a time
        self.z = np.empty_like(x)
        self.z[inside] = np.maximum(crater.shell_height(x[inside], y[inside]), crater.ceiling_z)   # the hole's tube
        self.z[~inside] = np.vectorize(hill_height)(x[~inside], y[~inside])

    def __call__(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        n = self.z.shape[0] - 1
        u = np.clip((np.asarray(x) - self.lo) / self.step, 0.0, n - 1e-9)
        v = np.clip((np.asarray(y) - self.lo) / self.step, 0.0, n - 1e-9)
        i, j = u.astype(int), v.astype(int)
        fu, fv = u - i, v - j
        z = self.z
        return ((1 - fu) * (1 - fv) * z[i, j] + fu * (1 - fv) * z[i + 1, j]
                + (1 - fu) * fv * z[i, j + 1] + fu * fv * z[i + 1, j + 1])


def hidden_from(ground: SurfaceGrid, points, eye, reach: float = 0.15, step: float = 0.002) -> np.ndarray:
    """Whether the drawn hill (`ground`) hides each of `points` from `eye`: the line of sight
    passes under the surface within `reach` of the point."""
    pts = np.asarray(points, float)
    d = np.asarray(eye, float)[None, :] - pts
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    t = np.arange(step, reach, step)
    ray = pts[:, None, :] + t[None, :, None] * d[:, None, :]
    return (ray[..., 2] < ground(ray[..., 0], ray[..., 1])).any(axis=1)


def sign_places(points, crater: HillShape, height: float, avoid=(),
                reaches=(1.45, 2.1)) -> list[list[tuple[float, float, float]]]:
    """Where the number of each seat of a route may stand, best first: beside the seat, across
    the route (so neither a marble on the seat nor a lit destination hides it), lifted clear of
    the surface; first on the side away from the nearest seat that is not a neighbour on the
    route (of this route or among `avoid`: where two stretches of path run side by side, their
    numbers stand on their outer sides), the side nearer the player in front (-y) on a tie;
    then the other side, then both farther out (`reaches`, in marble radii from the seat's
    centre), then each of those turned a little along the route."""
    pts = np.asarray(points, float)
    blockers = np.vstack([pts[:, :2]] + ([np.asarray(avoid, float)[:, :2]] if len(avoid) else []))
    r = crater.marble_radius
    out = []
    for i, p in enumerate(pts):
        t = pts[min(i + 1, len(pts) - 1)][:2] - pts[max(i - 1, 0)][:2]
        side = np.array([t[1], -t[0]]) / np.linalg.norm(t)
        if side[1] > 0 or (abs(side[1]) < 1e-9 and side @ p[:2] < 0):
            side = -side
        others = np.delete(blockers, [j for j in (i - 1, i, i + 1) if 0 <= j < len(pts)], axis=0)
        if len(others):
            clear = [np.min(np.linalg.norm(others - (p[:2] + 1.45 * r * sd), axis=1)) for sd in (side, -side)]
            if clear[1] > clear[0] + 0.002:
                side = -side
        along = t / np.linalg.norm(t)
        spots = []
        for turn in (0.0, 40.0, -40.0, 70.0, -70.0):
            c, sn = np.cos(np.radians(turn)), np.sin(np.radians(turn))
            for reach in reaches:
                for sd in (side, -side):
                    x, y = p[:2] + reach * r * (c * sd + sn * along)
                    spots.append((float(x), float(y), surface_height(crater, x, y) + 0.6 * height + 0.002))
        out.append(spots)
    return out
