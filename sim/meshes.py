"""Generated meshes, built with trimesh from spec parameters and cached as OBJ files.

A mesh is keyed by the hash of its builder's name, version and parameters, so a change to
a spec rebuilds it and an unchanged spec loads in milliseconds. The cache lives in
$TABLETOP_CACHE, else $XDG_CACHE_HOME/tabletop, else ~/.cache/tabletop.
"""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import trimesh

from tabletop.sim.spec import digest


def cache_dir() -> Path:
    root = os.environ.get("TABLETOP_CACHE")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "tabletop"


@contextmanager
def build_lock(path: Path) -> Iterator[None]:
    """Hold the build of the cached file `path` alone among processes (an advisory lock on
    `path`.lock): processes that want the same file at once, such as a run's workers or the test
    suite's on a fresh machine, build it once; the others wait for it, then read it. Where the
    system has no flock, each process builds it (the writes are atomic, so nothing tears)."""
    try:
        import fcntl
    except ImportError:            # pragma: no cover - not on the systems the project runs on
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def cached_mesh(kind: str, version: int, params: dict, build: Callable[[], trimesh.Trimesh]) -> Path:
    """Path of the OBJ for (kind, version, params), building and caching it when absent."""
    folder = cache_dir() / "meshes"
    path = folder / f"{kind}-{digest({'kind': kind, 'version': version, 'params': params})}.obj"
    if path.exists():
        return path
    with build_lock(path):
        if path.exists():          # built by another process while this one waited
            return path
        mesh = build()
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".obj.tmp")
        os.close(fd)
        try:
            Path(tmp).write_text(trimesh.exchange.obj.export_obj(mesh, include_normals=False, include_texture=False))
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return path


def cached_data(kind: str, version: int, params: dict, build: Callable[[], object]):
    """JSON-able data derived from spec parameters (a slow geometric search), cached beside
    the meshes under the same kind of key; floats round-trip exactly through JSON."""
    import json

    folder = cache_dir() / "meshes"
    path = folder / f"{kind}-{digest({'kind': kind, 'version': version, 'params': params})}.json"
    def read():
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None       # absent, or a torn file from a killed run: build it again

    if (found := read()) is not None:
        return found
    with build_lock(path):
        if (found := read()) is not None:      # built by another process while this one waited
            return found
        data = build()
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".json.tmp")
        os.close(fd)
        try:
            Path(tmp).write_text(json.dumps(data))
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return json.loads(json.dumps(data))


def load_mesh(path: str | Path) -> trimesh.Trimesh:
    return trimesh.load(str(path), force="mesh", process=False)


def grid_surface(xs: np.ndarray, ys: np.ndarray, z: np.ndarray, keep: np.ndarray | None = None,
                 up: bool = True, z_mid: np.ndarray | None = None) -> trimesh.Trimesh:
    """A height-field surface z[j, i] over the grid (xs[i], ys[j]).

    Cells are kept where all four corners are in `keep` (default: all). Faces point up
    (+Z) when `up`, down otherwise, so a body touching the surface meets its front side.

    With `z_mid` (the true height at each cell's centre) each cell is split along the diagonal
    whose midpoint lies closer to it. A fixed diagonal cuts a valley that runs across it into a
    washboard: in a U channel at 45 degrees to the grid, one diagonal's corners lie on the
    channel's centre line and the other's 1.4 mm out, leaving a 0.1 mm ridge every 2.8 mm of a
    2 mm grid, which shakes a rolling marble into hops (docs/reconstruction-crater.md).
    """
    ny, nx = z.shape
    X, Y = np.meshgrid(xs, ys)
    vertices = np.column_stack([X.ravel(), Y.ravel(), z.ravel()])
    idx = np.arange(nx * ny).reshape(ny, nx)
    a, b = idx[:-1, :-1], idx[:-1, 1:]
    c, d = idx[1:, 1:], idx[1:, :-1]
    cells = np.ones((ny - 1, nx - 1), bool)
    if keep is not None:
        cells = keep[:-1, :-1] & keep[:-1, 1:] & keep[1:, 1:] & keep[1:, :-1]
    if z_mid is None:
        a, b, c, d = a[cells], b[cells], c[cells], d[cells]
        faces = np.concatenate([np.column_stack([a, b, c]), np.column_stack([a, c, d])])
    else:
        za, zb, zc, zd = z[:-1, :-1], z[:-1, 1:], z[1:, 1:], z[1:, :-1]
        use_ac = np.abs(0.5 * (za + zc) - z_mid) <= np.abs(0.5 * (zb + zd) - z_mid)
        ac, bd = cells & use_ac, cells & ~use_ac
        faces = np.concatenate([np.column_stack([a[ac], b[ac], c[ac]]), np.column_stack([a[ac], c[ac], d[ac]]),
                                np.column_stack([a[bd], b[bd], d[bd]]), np.column_stack([b[bd], c[bd], d[bd]])])
    if not up:
        faces = faces[:, ::-1]
    mesh = trimesh.Trimesh(vertices, faces, process=False)
    mesh.remove_unreferenced_vertices()
    return mesh


def revolved_surface(radii: np.ndarray, heights: np.ndarray, segments: int,
                     center: tuple[float, float] = (0.0, 0.0), inward: bool = True) -> trimesh.Trimesh:
    """A surface of revolution about a vertical axis through `center` from a profile
    (radii[k], heights[k]); normals face the axis when `inward`."""
    theta = np.linspace(0.0, 2 * np.pi, segments, endpoint=False)
    n = len(radii)
    ct, st = np.cos(theta), np.sin(theta)
    verts = np.empty((n, segments, 3))
    verts[..., 0] = center[0] + radii[:, None] * ct[None, :]
    verts[..., 1] = center[1] + radii[:, None] * st[None, :]
    verts[..., 2] = heights[:, None]
    idx = np.arange(n * segments).reshape(n, segments)
    nxt = np.roll(idx, -1, axis=1)
    a, b, c, d = idx[:-1], nxt[:-1], nxt[1:], idx[1:]
    faces = np.concatenate([np.column_stack([a.ravel(), b.ravel(), c.ravel()]),
                            np.column_stack([a.ravel(), c.ravel(), d.ravel()])])
    mesh = trimesh.Trimesh(verts.reshape(-1, 3), faces, process=False)
    # orient: for a profile of increasing radius and height the winding above faces outward-down;
    # fix it numerically by checking one face normal against the axis direction.
    f0 = mesh.face_normals[0]
    centroid = mesh.triangles_center[0]
    to_axis = np.array([center[0] - centroid[0], center[1] - centroid[1], 0.0])
    if (np.dot(f0, to_axis) > 0) != inward:
        mesh.faces = mesh.faces[:, ::-1]
    return mesh


def top_heights(mesh: trimesh.Trimesh, xs, ys, ground: float = 0.0) -> np.ndarray:
    """Heights z[j, i] of `mesh`'s top surface over the grid (xs[i], ys[j], both increasing): the
    highest triangle over each point (the first hit of a vertical ray from above), `ground` where
    none is. Draws a mesh that has only the surfaces things touch as one skin seen from above."""
    xs, ys = np.asarray(xs, float), np.asarray(ys, float)
    tri = np.asarray(mesh.triangles, float)
    z = np.full(len(ys) * len(xs), -np.inf)
    lo, hi = tri[:, :, :2].min(axis=1), tri[:, :, :2].max(axis=1)
    i0, i1 = np.searchsorted(xs, lo[:, 0], "left"), np.searchsorted(xs, hi[:, 0], "right")
    j0, j1 = np.searchsorted(ys, lo[:, 1], "left"), np.searchsorted(ys, hi[:, 1], "right")
    ni, nj = np.maximum(i1 - i0, 0), np.maximum(j1 - j0, 0)
    count = ni * nj
    t = np.repeat(np.arange(len(tri)), count)                # one (triangle, grid point) pair per candidate
    k = np.arange(len(t)) - np.repeat(np.cumsum(count) - count, count)
    i, j = i0[t] + k % ni[t], j0[t] + k // ni[t]
    px, py = xs[i], ys[j]
    a, b, c = tri[t, 0], tri[t, 1], tri[t, 2]
    d = (b[:, 1] - c[:, 1]) * (a[:, 0] - c[:, 0]) + (c[:, 0] - b[:, 0]) * (a[:, 1] - c[:, 1])
    ok = np.abs(d) > 1e-18                                   # triangles seen edge-on from above have no top
    d = np.where(ok, d, 1.0)
    u = ((b[:, 1] - c[:, 1]) * (px - c[:, 0]) + (c[:, 0] - b[:, 0]) * (py - c[:, 1])) / d
    v = ((c[:, 1] - a[:, 1]) * (px - c[:, 0]) + (a[:, 0] - c[:, 0]) * (py - c[:, 1])) / d
    w = 1.0 - u - v
    eps = 1e-9
    ok &= (u >= -eps) & (v >= -eps) & (w >= -eps)
    np.maximum.at(z, (j * len(xs) + i)[ok], (u * a[:, 2] + v * b[:, 2] + w * c[:, 2])[ok])
    return np.maximum(z, ground).reshape(len(ys), len(xs))
