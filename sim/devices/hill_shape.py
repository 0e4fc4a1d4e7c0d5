"""King of the Hill's hill as a shape: the crater, its hole and tube, the tunnels and the three caves,
from the spec (assets/king_of_the_hill/hill.toml); no World and no PyBullet.

Every dimension is read and checked here, the valleys and the cave seats are planned, and the
static collision geometry is generated (and cached) as one concave triangle mesh (`mesh_path`):

- the crater shell: a polar height field, the hyperbolic "wishing well" funnel
  z = z_lip - A (1/r - 1/r_lip) with the centre hole cut out, the rim ledge (the path) with one
  dimple per edge seat, and a low rim wall;
- the hole tube: a vertical cylinder from the hole down through the tunnel ceiling;
- the tunnel floor: ONE height field, the minimum of three U-shaped valleys that leave a
  central cone (the splitter under the tube) 120 degrees apart and curve down to three
  corners, clamped above the ceiling elsewhere; the sharp ridges between valleys are the
  splitter fins; each valley ends in a cave pocket: seat 1 (a low point at the tunnel mouth),
  a hump, and seat 2 in the rounded end;
- the tunnel ceiling: a flat downward-facing sheet with a hole under the tube.

Views and the game's layout draw the hill from this; the crater device
(tabletop.sim.devices.crater) simulates a knocked marble on it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import trimesh
from scipy.spatial import cKDTree

from tabletop.sim.errors import SpecError
from tabletop.sim.materials import Material, load_materials, pick_material
from tabletop.sim.meshes import cached_mesh, grid_surface, revolved_surface
from tabletop.sim.paths import assets_dir
from tabletop.sim.readouts import Region
from tabletop.sim.spec import Table, load_toml

MESH_VERSION = 8
SEATS = ("seat1", "seat2")


# -- geometry helpers ------------------------------------------------------------------------

def pchip(xk: np.ndarray, yk: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Monotone piecewise-cubic interpolation (Fritsch-Carlson): no overshoot, so the only
    extremes of the curve are at the control points; the end slopes are the end secants."""
    xk, yk, x = np.asarray(xk, float), np.asarray(yk, float), np.asarray(x, float)
    h = np.diff(xk)
    delta = np.diff(yk) / h
    d = np.zeros_like(yk)
    for k in range(1, len(xk) - 1):
        if delta[k - 1] * delta[k] > 0:
            w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
            d[k] = (w1 + w2) / (w1 / delta[k - 1] + w2 / delta[k])
    d[0], d[-1] = delta[0], delta[-1]
    xc = np.clip(x, xk[0], xk[-1])
    i = np.clip(np.searchsorted(xk, xc, side="right") - 1, 0, len(xk) - 2)
    t = (xc - xk[i]) / h[i]
    h00, h10 = 2 * t**3 - 3 * t**2 + 1, t**3 - 2 * t**2 + t
    h01, h11 = -2 * t**3 + 3 * t**2, t**3 - t**2
    return h00 * yk[i] + h10 * h[i] * d[i] + h01 * yk[i + 1] + h11 * h[i] * d[i + 1]


def _along_across(pts: np.ndarray, line: np.ndarray, s: np.ndarray, tree: cKDTree) -> tuple[np.ndarray, np.ndarray]:
    """Distance of each point (n, 2) from a polyline (m, 2) with arc lengths s (m,), and the arc
    length of its foot: the point projected onto the segments either side of its nearest vertex.
    Continuous in the point (the nearest vertex alone would give a staircase along the line: with
    0.2 mm between vertices a floor rising at slope 1 would step by 0.2 mm)."""
    _, i = tree.query(pts, workers=-1)
    best_d = np.full(len(pts), np.inf)
    best_s = np.zeros(len(pts))
    for j in (np.clip(i - 1, 0, len(line) - 2), np.clip(i, 0, len(line) - 2)):
        a, b = line[j], line[j + 1]
        ab = b - a
        t = np.clip(np.einsum("ij,ij->i", pts - a, ab) / np.einsum("ij,ij->i", ab, ab), 0.0, 1.0)
        d = np.linalg.norm(pts - (a + t[:, None] * ab), axis=1)
        closer = d < best_d
        best_d = np.where(closer, d, best_d)
        best_s = np.where(closer, s[j] + t * (s[j + 1] - s[j]), best_s)
    return best_d, best_s


def smooth_min(values: list[np.ndarray], k: float) -> np.ndarray:
    """-k log sum exp(-v/k): the minimum with its creases rounded over a few k (k = 0: the minimum).
    A moulded part has no knife edges, and a rounded ridge is resolved by a mesh finer than k, so
    its height does not depend on where the mesh's vertices fall."""
    v = np.stack([np.asarray(x, float) for x in values])
    m = v.min(axis=0)
    if k <= 0:
        return m
    return m - k * np.log(np.exp(-(v - m) / k).sum(axis=0))


def _dilate(mask: np.ndarray, n: int) -> np.ndarray:
    out = mask.copy()
    for _ in range(n):
        m = out.copy()
        m[1:, :] |= out[:-1, :]
        m[:-1, :] |= out[1:, :]
        m[:, 1:] |= out[:, :-1]
        m[:, :-1] |= out[:, 1:]
        out = m
    return out


def _unit(angle_deg: float) -> np.ndarray:
    a = np.radians(angle_deg)
    return np.array([np.cos(a), np.sin(a)])


# -- the hill's shape ----------------------------------------------------------------------

class HillShape:
    """The hill's geometry from its spec: every dimension, the plan and the triangle mesh (`mesh_path`,
    generated and cached); no World. What a view draws the hill from; the Crater
    (tabletop.sim.devices.crater) simulates on it and reads the device's own tables besides."""

    def __init__(self, spec_path: Path, overrides=()):
        self.spec_path = Path(spec_path)
        self.overrides = tuple(overrides)
        spec = load_toml(self.spec_path, self.overrides)
        self._read_spec(spec)
        self._plan_geometry()
        self.mesh_path = cached_mesh("koth-crater", MESH_VERSION, self.geometry_params(), self._build_mesh)

    # -- spec -------------------------------------------------------------------------------
    def _read_spec(self, spec: Table) -> None:
        """The hill's tables: the marble, the hill, the crater, the edge seats, the tube, the tunnels
        and the caves (the Crater reads the knock, physics and settle tables besides)."""
        materials = load_materials(assets_dir() / "materials.toml", self.overrides)

        def material(t: Table, key: str) -> Material:
            return pick_material(t, key, materials)

        m = spec.table("marble")
        self.marble_radius = m.number("radius", 0.004, 0.02)
        self.marble_material = material(m, "material")

        h = spec.table("hill")
        self.base_size = h.number("base_size", 0.1, 1.0)
        self.height = h.number("height", 0.03, 0.5)
        self.hill_material = material(h, "material")

        c = spec.table("crater")
        self.lip_radius = c.number("lip_radius", 0.02, 0.2)
        self.hole_radius = c.number("hole_radius", 0.0, 0.1)
        self.depth = c.number("depth", 0.005, 0.2)
        self.path_outer_radius = c.number("path_outer_radius", 0.0, 0.3)
        self.path_slope = c.number("path_slope", 0.0, 0.5)
        self.wall_height = c.number("wall_height", 0.002, 0.05)
        self.outer_radius = c.number("outer_radius", 0.0, 0.4)
        self.angular_segments = c.integer("angular_segments", 24, 1024)
        self.ring_spacing = c.number("ring_spacing", 0.0003, 0.01)
        r = self.marble_radius
        if self.hole_radius < r * 1.25:
            raise SpecError(f"{c.source}: crater.hole_radius: {self.hole_radius} does not pass a marble of "
                            f"radius {r} with margin (needs >= {1.25 * r:.4f})")
        if self.lip_radius <= self.hole_radius + 0.01:
            raise SpecError(f"{c.source}: crater.lip_radius: must exceed hole_radius by more than 0.01")
        if self.path_outer_radius < self.lip_radius + 2 * r:
            raise SpecError(f"{c.source}: crater.path_outer_radius: the rim ledge must be at least a marble wide")
        if self.outer_radius <= self.path_outer_radius + 0.005:
            raise SpecError(f"{c.source}: crater.outer_radius: must exceed path_outer_radius by more than 0.005")
        if 2 * self.outer_radius >= self.base_size:
            raise SpecError(f"{c.source}: crater.outer_radius: the crater must fit on the hill's base")

        e = spec.table("edge_seats")
        self.seat_radius = e.number("radius", self.lip_radius + r, self.path_outer_radius - r)
        self.dimple_radius = e.number("dimple_radius", 0.002, 0.03)
        self.dimple_depth = e.number("dimple_depth", 0.0, 0.005)
        self.seat_angles = e.numbers("angles")
        xy = [self.seat_radius * _unit(a) for a in self.seat_angles]
        if any(np.linalg.norm(p - q) < 2 * self.dimple_radius for i, p in enumerate(xy) for q in xy[:i]):
            raise SpecError(f"{e.source}: edge_seats.angles: two edge seats overlap; space them at least "
                            f"{2 * self.dimple_radius} m apart along the rim")
        self.path_direction = e.integer("path_direction", -1, 1)
        if self.path_direction == 0:
            raise SpecError(f"{e.source}: edge_seats.path_direction: must be +1 or -1")

        t = spec.table("tube")
        self.tube_ring_spacing = t.number("ring_spacing", 0.0005, 0.02)
        tb = t.number("bottom_z", 0.0, self.height)

        u = spec.table("tunnels")
        self.ceiling_z = u.number("ceiling_z", 0.0, self.height)
        self.apex_z = u.number("apex_z", 0.0, self.height)
        self.cone_slope = u.number("cone_slope", 0.1, 3.0)
        self.cone_length = u.number("cone_length", 0.002, 0.05)
        self.valley_radius = u.number("valley_radius", r * 1.1, 0.05)
        self.wall_slope = u.number("wall_slope", 2.0, 100.0)
        self.grid_step = u.number("grid_step", 0.0002, 0.01)
        self.edge_round = u.number("edge_round", 0.0, 0.005)
        self.bend_length = u.number("bend_length", 0.0, 0.2)
        self.tube_bottom_z = tb

        self.caves = []
        for cv in spec.tables("caves"):
            self.caves.append((cv.string("name"), cv.number("start_angle", -360.0, 360.0),
                               cv.number("corner_angle", -360.0, 360.0), cv.number("crest_height", 0.0, 0.1)))
        if len(self.caves) != 3 or len({cv[0] for cv in self.caves}) != 3:
            raise SpecError(f"{spec.source}: caves: expected three caves with distinct names")

        k = spec.table("cave")
        self.cave_end_radius = k.number("end_radius", 0.05, 0.5)
        self.cave_radius = k.number("radius", r * 1.1, 0.05)
        self.cave_length = k.number("length", 0.02, 0.2)
        self.seat1_z = k.number("seat1_z", 0.0, self.height)
        self.seat1_at = k.number("seat1_at", 0.0, self.cave_length)
        self.seat1_dip = k.number("seat1_dip", 0.0, 0.02)
        self.seat1_run = k.number("seat1_run", 0.002, 0.05)
        self.crest_at = k.number("crest_at", 0.0, self.cave_length)
        self.seat2_z = k.number("seat2_z", 0.0, self.height)
        self.seat2_at = k.number("seat2_at", 0.0, self.cave_length)
        self.seat_region_radius = k.number("seat_region_radius", 0.002, 0.05)
        if not self.seat1_at < self.crest_at < self.seat2_at <= self.cave_length:
            raise SpecError(f"{k.source}: cave: need seat1_at < crest_at < seat2_at <= length")

        # cross-checks between tables
        self.lip_z = self.height - self.wall_height - self.path_slope * (self.path_outer_radius - self.lip_radius)
        self.hole_z = self.lip_z - self.depth
        if not self.ceiling_z - 0.004 < self.tube_bottom_z < self.ceiling_z:
            raise SpecError(f"{t.source}: tube.bottom_z: must end within 4 mm under tunnels.ceiling_z")
        if self.hole_z - self.ceiling_z < 0.005:
            raise SpecError(f"{c.source}: crater.depth: the hole ({self.hole_z:.4f} m) must lie at least 5 mm "
                            f"above the tunnel ceiling ({self.ceiling_z})")
        if self.ceiling_z - self.apex_z < 2 * r + 0.002:
            raise SpecError(f"{u.source}: tunnels.apex_z: leaves no room for the marble under the ceiling")
        for i, (name, _, _, crest) in enumerate(self.caves):
            if self.ceiling_z - (self.seat1_z + crest) < 2 * r + 0.004:
                raise SpecError(f"{spec.source}: caves[{i}].crest_height: leaves no room for the marble "
                                f"under the ceiling in {name}")

    # -- geometry ---------------------------------------------------------------------------
    @property
    def edge_seats(self) -> tuple[str, ...]:
        return tuple(f"edge{i + 1}" for i in range(len(self.seat_angles)))

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(f"{cave[0]}/{seat}" for cave in self.caves for seat in SEATS)

    def geometry_params(self) -> dict:
        keys = ("marble_radius", "base_size", "height", "lip_radius", "hole_radius", "depth",
                "path_outer_radius", "path_slope", "wall_height", "outer_radius", "angular_segments",
                "ring_spacing", "seat_radius", "dimple_radius", "dimple_depth", "seat_angles",
                "tube_ring_spacing", "tube_bottom_z", "ceiling_z", "apex_z", "cone_slope", "cone_length",
                "valley_radius", "wall_slope", "grid_step", "edge_round", "bend_length", "caves", "cave_end_radius",
                "cave_radius", "cave_length", "seat1_z", "seat1_at", "seat1_dip", "seat1_run", "crest_at",
                "seat2_z", "seat2_at")
        return {k: getattr(self, k) for k in keys}

    def _plan_geometry(self) -> None:
        """Centre lines and floor profiles of the three valleys, and the seat regions."""
        r = self.marble_radius
        self.valleys = []
        self._line_trees = []          # a KD-tree of each valley's centre line (floor_height's lookups)
        self.seat_regions: dict[str, Region] = {}
        for name, start, corner, crest in self.caves:
            p0 = np.zeros(2)
            p1 = self.bend_length * _unit(start)
            p2 = self.cave_end_radius * _unit(corner)
            t = np.linspace(0.0, 1.0, 1201)[:, None]
            pts = (1 - t) ** 2 * p0 + 2 * (1 - t) * t * p1 + t ** 2 * p2
            s = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(pts, axis=0), axis=1))])
            total = s[-1]
            mouth = total - self.cave_length
            if mouth < self.cone_length + 0.02:
                raise SpecError(f"{self.spec_path}: cave.length: the tunnel to {name} is too short for its cave")
            cone_end_z = self.apex_z - self.cone_slope * self.cone_length
            if cone_end_z <= self.seat1_z + 0.005:
                raise SpecError(f"{self.spec_path}: tunnels.cone_slope: the splitter cone ends below the caves")
            # apex, cone foot, the lip of seat 1's dip, seat 1, crest, seat 2 (the crest is sk[4])
            sk = [0.0, self.cone_length, mouth + self.seat1_at - self.seat1_run, mouth + self.seat1_at,
                  mouth + self.crest_at, mouth + self.seat2_at]
            zk = [self.apex_z, cone_end_z, self.seat1_z + self.seat1_dip, self.seat1_z, self.seat1_z + crest,
                  self.seat2_z]
            if not sk[1] < sk[2] or not zk[1] > zk[2]:
                raise SpecError(f"{self.spec_path}: cave.seat1_dip: the tunnel to {name} must descend to seat 1's dip")
            if self.seat2_at < self.cave_length:
                sk.append(total)
                zk.append(self.seat2_z)
            self.valleys.append((name, pts, s, np.array(sk), np.array(zk), mouth, total))
            self._line_trees.append(cKDTree(pts))
            for seat, at, z in (("seat1", self.seat1_at, self.seat1_z), ("seat2", self.seat2_at, self.seat2_z)):
                xy = pts[np.searchsorted(s, min(mouth + at, total))]
                self.seat_regions[f"{name}/{seat}"] = Region(center=(float(xy[0]), float(xy[1]), z + r),
                                                             radius=self.seat_region_radius)

    def _top_profile(self, rr: np.ndarray) -> np.ndarray:
        """Height of the crater shell (funnel, ledge, rim wall, hill top) at radius rr."""
        a = self.depth / (1.0 / self.hole_radius - 1.0 / self.lip_radius)
        funnel = self.lip_z - a * (1.0 / np.maximum(rr, 1e-6) - 1.0 / self.lip_radius)
        ledge = self.lip_z + self.path_slope * (rr - self.lip_radius)
        wall_run = 0.002
        ledge_top = self.height - self.wall_height
        wall = ledge_top + self.wall_height * np.clip((rr - self.path_outer_radius) / wall_run, 0.0, 1.0)
        return np.where(rr <= self.lip_radius, funnel, np.where(rr <= self.path_outer_radius, ledge, wall))

    def _seat_xy(self, i: int) -> np.ndarray:
        return self.seat_radius * _unit(self.seat_angles[i])

    def _shell_mesh(self) -> trimesh.Trimesh:
        """The crater shell as a polar height field: rings from the hole out to the hill top."""
        # rings along the funnel at equal surface length, then the ledge, the wall and the top
        dense = np.linspace(self.hole_radius, self.lip_radius, 4000)
        zd = self._top_profile(dense)
        arc = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(dense), np.diff(zd)))])
        n_f = max(int(np.ceil(arc[-1] / self.ring_spacing)), 4)
        funnel_r = np.interp(np.linspace(0.0, arc[-1], n_f + 1), arc, dense)
        n_l = max(int(np.ceil((self.path_outer_radius - self.lip_radius) / self.ring_spacing)), 2)
        ledge_r = np.linspace(self.lip_radius, self.path_outer_radius, n_l + 1)[1:]
        rings = np.concatenate([funnel_r, ledge_r,
                                [self.path_outer_radius + 0.002, self.path_outer_radius + 0.004, self.outer_radius]])
        m = self.angular_segments
        theta = np.linspace(0.0, 2 * np.pi, m, endpoint=False)
        x = rings[:, None] * np.cos(theta)[None, :]
        y = rings[:, None] * np.sin(theta)[None, :]
        z = self.shell_height(x, y)
        verts = np.column_stack([x.ravel(), y.ravel(), z.ravel()])
        idx = np.arange(len(rings) * m).reshape(len(rings), m)
        nxt = np.roll(idx, -1, axis=1)
        a, b, c, d = idx[:-1], nxt[:-1], nxt[1:], idx[1:]
        faces = np.concatenate([np.column_stack([a.ravel(), b.ravel(), c.ravel()]),
                                np.column_stack([a.ravel(), c.ravel(), d.ravel()])])
        mesh = trimesh.Trimesh(verts, faces, process=False)
        if mesh.face_normals[:, 2].mean() < 0:
            mesh.faces = mesh.faces[:, ::-1]
        return mesh

    def _tube_mesh(self) -> trimesh.Trimesh:
        n = max(int(np.ceil((self.hole_z - self.tube_bottom_z) / self.tube_ring_spacing)), 1)
        heights = np.linspace(self.hole_z, self.tube_bottom_z, n + 1)
        return revolved_surface(np.full(n + 1, self.hole_radius), heights, self.angular_segments, inward=True)

    def floor_height(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The tunnel floor: min over the three valleys, clamped just above the ceiling."""
        clamp = self.ceiling_z + 0.004
        pts = np.column_stack([np.ravel(x), np.ravel(y)])
        surfaces = [np.full(len(pts), clamp)]
        for (_, line, s, sk, zk, mouth, total), tree in zip(self.valleys, self._line_trees):
            across, along = _along_across(pts, line, s, tree)
            radius = self.valley_radius + (self.cave_radius - self.valley_radius) * np.clip(
                (along - (mouth - 0.01)) / 0.01, 0.0, 1.0)
            inside = across < radius
            cross = np.where(inside, radius - np.sqrt(np.maximum(radius ** 2 - across ** 2, 0.0)),
                             radius + self.wall_slope * (across - radius))
            # the channel's cross-section is square to its floor, as a moulded channel's is: on a
            # floor rising at angle t the U is deeper by 1/cos t, measured vertically. (A U laid
            # vertically on a 45-degree hump curves at its walls with radius R cos^2 t = 5.8 mm,
            # tighter than the 8 mm marble: the marble's distance field creased there, and the
            # cave seats moved when its cells were halved.)
            profile = self._valley_profile(sk, zk, along)
            slope = (self._valley_profile(sk, zk, along + 1e-5)
                     - self._valley_profile(sk, zk, along - 1e-5)) / 2e-5
            surfaces.append(profile + cross * np.sqrt(1.0 + slope ** 2))
        # the valleys meet in rounded fins (the splitter's, and the walls between tunnels)
        return smooth_min(surfaces, self.edge_round).reshape(np.shape(x))

    def _valley_profile(self, sk: np.ndarray, zk: np.ndarray, along: np.ndarray) -> np.ndarray:
        """The floor's height along a valley's centre line. The hump is a ridge: two profiles
        meeting at an angle (each carried on straight past the crest), its top rounded like the
        fins, so no marble can balance on it."""
        up = np.where(along <= sk[4], pchip(sk[:5], zk[:5], along),
                      zk[4] + (zk[4] - zk[3]) / (sk[4] - sk[3]) * (along - sk[4]))
        down = np.where(along >= sk[4], pchip(sk[4:], zk[4:], along),
                        zk[4] + (zk[5] - zk[4]) / (sk[5] - sk[4]) * (along - sk[4]))
        return smooth_min([up, down], self.edge_round)

    def _tunnel_meshes(self) -> list[trimesh.Trimesh]:
        half = self.base_size / 2 - 0.005
        n = int(np.floor(2 * half / self.grid_step)) + 1
        xs = -half + self.grid_step * np.arange(n)
        ys = xs.copy()
        x, y = np.meshgrid(xs, ys)
        z = self.floor_height(x, y)
        clamp = self.ceiling_z + 0.004
        open_floor = z < clamp - 1e-9
        xm = xs[:-1] + 0.5 * self.grid_step
        z_mid = self.floor_height(*np.meshgrid(xm, xm))
        floor = grid_surface(xs, ys, z, keep=_dilate(open_floor, 1), z_mid=z_mid)
        rho = np.hypot(x, y)
        ceiling_keep = _dilate(z < self.ceiling_z + 0.002, 2) & (rho >= self.hole_radius)
        ceiling = grid_surface(xs, ys, np.full_like(z, self.ceiling_z), keep=ceiling_keep, up=False)
        return [floor, ceiling]

    def _build_mesh(self) -> trimesh.Trimesh:
        parts = [self._shell_mesh(), self._tube_mesh(), *self._tunnel_meshes()]
        mesh = trimesh.util.concatenate(parts)
        mesh.merge_vertices()
        return mesh

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """The model's bounding box; a marble outside it (plus a margin) has escaped."""
        h = self.base_size / 2
        return np.array([-h, -h, 0.0]), np.array([h, h, self.height])

    # -- where a marble lies -----------------------------------------------------------------
    def shell_height(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """The crater shell's height at (x, y), seat dimples included."""
        z = self._top_profile(np.hypot(x, y))
        for i in range(len(self.seat_angles)):
            sx, sy = self._seat_xy(i)
            rho = np.hypot(x - sx, y - sy) / self.dimple_radius
            z = z - self.dimple_depth * np.where(rho < 1.0, (1.0 - rho ** 2) ** 2, 0.0)
        return z

    def _rest_on_edge_seat(self, name: str) -> tuple[float, float, float]:
        """Where a marble rests in an edge seat's dimple: the lowest centre position of a sphere
        touching the shell near the seat (a geometric search, found once at build time), lifted
        0.1 mm so that it starts clear of the faceted mesh."""
        i = self.edge_seats.index(name)
        sx, sy = self._seat_xy(i)
        r = self.marble_radius
        offs = np.linspace(-r, r, 41)
        px, py = np.meshgrid(offs, offs)
        inside = px ** 2 + py ** 2 < r ** 2
        px, py = px[inside], py[inside]
        cap = np.sqrt(r ** 2 - px ** 2 - py ** 2)

        def centre_z(cx: float, cy: float) -> float:
            return float(np.max(self.shell_height(cx + px, cy + py) + cap))

        # descend from the dimple's centre to the nearest local minimum, then refine the step
        cx, cy, z = sx, sy, centre_z(sx, sy)
        moves = [(a, b) for a in (-1, 0, 1) for b in (-1, 0, 1) if a or b]
        step = 0.0005
        while step > 1e-6:
            trial = min((centre_z(cx + a * step, cy + b * step), cx + a * step, cy + b * step) for a, b in moves)
            if trial[0] < z:
                z, cx, cy = trial
            else:
                step /= 2
        if np.hypot(cx - sx, cy - sy) > 0.9 * self.dimple_radius:
            raise SpecError(f"{self.spec_path}: edge_seats.dimple_depth: a marble does not rest in edge seat "
                            f"{name} (make the dimple deeper or crater.path_slope smaller)")
        return float(cx), float(cy), z + 1e-4

    def mouth_along(self, cave: str) -> float:
        """Distance along `cave`'s valley from the splitter apex to the cave's mouth."""
        for name, *_, mouth, _total in self.valleys:
            if name == cave:
                return float(mouth)
        raise ValueError(f"unknown cave {cave!r}; choose one of: {', '.join(c[0] for c in self.caves)}")

    def valley_point(self, cave: str, along: float) -> tuple[np.ndarray, np.ndarray]:
        """Where a marble resting on `cave`'s valley floor, `along` metres from the splitter apex,
        has its centre, and the valley's horizontal unit direction there (towards the cave)."""
        for name, line, s, *_ in self.valleys:
            if name == cave:
                i = int(np.clip(np.searchsorted(s, along), 1, len(s) - 1))
                xy = line[i]
                tangent = (line[i] - line[i - 1]) / np.linalg.norm(line[i] - line[i - 1])
                z = float(self.floor_height(np.array([xy[0]]), np.array([xy[1]]))[0]) + self.marble_radius
                return np.array([xy[0], xy[1], z]), np.array([tangent[0], tangent[1], 0.0])
        raise ValueError(f"unknown cave {cave!r}; choose one of: {', '.join(c[0] for c in self.caves)}")

