"""Signed-distance-field collision shapes for Bullet (its `btSdfCollisionShape`, a URDF `<cdf>` geometry).

Why: a ball rolling on a triangle mesh in Bullet meets the edges and vertices of the triangles
next to the one it stands on; every crossing costs energy, and the finer the mesh, the more
crossings (tabletop measured 13 / 33 / 53 mJ/kg/s of spurious loss for a marble orbiting a funnel
meshed with 192 / 384 / 768 segments, at any time step). Against a distance field Bullet makes
ONE contact per sphere and step, at the distance and along the gradient of the field at the
sphere's centre: the ball rolls on a smooth surface, whatever the mesh the field was made from.

The field is the Discregrid format Bullet reads (btMiniSDF): a box of cubic cells, each with 32
nodes (8 corners and 2 nodes at the thirds of each of its 12 edges) of a cubic serendipity
element; cells without a field are skipped (a sphere there gets no contact). We store the field
only in a band of cells where a sphere of the given radius touching the surface can have its
centre, and only on the free side of the surface: the side that a flood fill from a seed point
(where the ball is known to be) reaches without coming nearer to the surface than half the radius.
So the mesh needs no consistent orientation and may be open, and thick material between two
surfaces is never mistaken for free space.

Distances are exact distances to the source mesh (closest point on the nearest triangles), so
the source mesh should be finer than the cells (its crease angles are then smoothed away).
"""
from __future__ import annotations

import os
import struct
import tempfile
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
import trimesh
from scipy import ndimage
from scipy.spatial import cKDTree

# node offsets, in thirds of a cell, of the 32 nodes in the order of btMiniSDF::shape_function_
_CORNERS = [(0, 0, 0), (3, 0, 0), (0, 3, 0), (3, 3, 0), (0, 0, 3), (3, 0, 3), (0, 3, 3), (3, 3, 3)]
_EDGES_X = [(a, b, c) for (b, c) in ((0, 0), (0, 3), (3, 0), (3, 3)) for a in (1, 2)]
_EDGES_Y = [(a, b, c) for (a, c) in ((0, 0), (3, 0), (0, 3), (3, 3)) for b in (1, 2)]
_EDGES_Z = [(a, b, c) for (a, b) in ((0, 0), (0, 3), (3, 0), (3, 3)) for c in (1, 2)]
NODE_OFFSETS = np.array(_CORNERS + _EDGES_X + _EDGES_Y + _EDGES_Z, dtype=np.int64)   # (32, 3)
NO_CELL = 0xFFFFFFFF
FORMAT_VERSION = 1          # of band_field's construction (part of the cache key)


def point_triangle_distance(p: np.ndarray, a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Distance from each point p[i] to the triangle (a[i], b[i], c[i]); arrays of shape (n, 3).
    The closest-point regions of Ericson, Real-Time Collision Detection, 5.1.5, vectorised."""
    ab, ac, ap = b - a, c - a, p - a
    d1, d2 = np.einsum("ij,ij->i", ab, ap), np.einsum("ij,ij->i", ac, ap)
    bp = p - b
    d3, d4 = np.einsum("ij,ij->i", ab, bp), np.einsum("ij,ij->i", ac, bp)
    cp = p - c
    d5, d6 = np.einsum("ij,ij->i", ab, cp), np.einsum("ij,ij->i", ac, cp)
    va = d3 * d6 - d5 * d4
    vb = d5 * d2 - d1 * d6
    vc = d1 * d4 - d3 * d2
    with np.errstate(divide="ignore", invalid="ignore"):
        # inside the face by default
        denom = va + vb + vc
        v = np.where(denom != 0, vb / denom, 0.0)
        w = np.where(denom != 0, vc / denom, 0.0)
        q = a + ab * v[:, None] + ac * w[:, None]
        # edge bc
        m = (va <= 0) & ((d4 - d3) >= 0) & ((d5 - d6) >= 0)
        t = (d4 - d3) / ((d4 - d3) + (d5 - d6))
        q = np.where(m[:, None], b + (c - b) * t[:, None], q)
        # edge ac
        m = (vb <= 0) & (d2 >= 0) & (d6 <= 0)
        t = d2 / (d2 - d6)
        q = np.where(m[:, None], a + ac * t[:, None], q)
        # edge ab
        m = (vc <= 0) & (d1 >= 0) & (d3 <= 0)
        t = d1 / (d1 - d3)
        q = np.where(m[:, None], a + ab * t[:, None], q)
        # vertices
        q = np.where(((d6 >= 0) & (d5 <= d6))[:, None], c, q)
        q = np.where(((d3 >= 0) & (d4 <= d3))[:, None], b, q)
        q = np.where(((d1 <= 0) & (d2 <= 0))[:, None], a, q)
    return np.linalg.norm(p - q, axis=1)


class MeshDistance:
    """Unsigned distance from points to a triangle mesh: the exact minimum over the triangles
    whose centroids are among the `k` nearest to the point (a KD-tree of the centroids)."""

    def __init__(self, mesh: trimesh.Trimesh, k: int = 24):
        self.tri = np.asarray(mesh.triangles, dtype=float)
        self.tree = cKDTree(self.tri.mean(axis=1))
        self.k = min(k, len(self.tri))

    def approx(self, points: np.ndarray) -> np.ndarray:
        """Distance to the nearest centroid: within a triangle's size of the true distance."""
        return self.tree.query(points, k=1, workers=-1)[0]

    def __call__(self, points: np.ndarray, chunk: int = 50_000) -> np.ndarray:
        out = np.empty(len(points))
        for s in range(0, len(points), chunk):
            p = points[s:s + chunk]
            _, idx = self.tree.query(p, k=self.k, workers=-1)
            idx = idx.reshape(len(p), -1)
            n, k = idx.shape
            pp = np.repeat(p, k, axis=0)
            t = self.tri[idx.ravel()]
            d = point_triangle_distance(pp, t[:, 0], t[:, 1], t[:, 2]).reshape(n, k)
            out[s:s + chunk] = d.min(axis=1)
        return out


def band_field(mesh: trimesh.Trimesh, radius: float, cell: float, seeds: Sequence[Sequence[float]],
               region: Callable[[np.ndarray], np.ndarray] | None = None,
               inner: float | None = None, outer: float | None = None):
    """The cells and node values of a distance field for a sphere of `radius` on `mesh`.

    Cells hold the field where the sphere's centre can be while it touches the surface: distance
    between radius - inner and radius + outer (defaults: 0.3 and 0.05 of the radius; 2.4 mm of
    penetration for a 16 mm ball is far beyond any contact's), on the free side that `seeds` lie
    in, and, with `region` (points (n, 3) -> bool (n,)), only where the ball can go (the flood fill
    stays inside it too, so free space it cannot reach costs no cells). Returns a dict for
    `write_cdf`."""
    inner = 0.3 * radius if inner is None else inner
    outer = 0.05 * radius if outer is None else outer
    lo = np.asarray(mesh.bounds[0]) - (radius + 2 * cell)
    hi = np.asarray(mesh.bounds[1]) + (radius + 2 * cell)
    res = np.ceil((hi - lo) / cell).astype(np.int64)
    hi = lo + res * cell
    dist = MeshDistance(mesh)
    # free space: cells whose centres keep half a radius from the surface, connected to a seed
    # (by the nearest-centroid distance, within a triangle's size of the true one)
    axes = [lo[i] + cell * (np.arange(res[i]) + 0.5) for i in range(3)]
    centres = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    inside = np.ones(len(centres), bool) if region is None else np.asarray(region(centres), bool)
    d_approx = np.full(len(centres), -1.0)
    d_approx[inside] = dist.approx(centres[inside])
    d_approx = d_approx.reshape(tuple(res))
    del centres
    open_ = d_approx >= 0.5 * radius
    labels, _ = ndimage.label(open_)
    free_labels = set()
    for s in seeds:
        ijk = tuple(np.clip(((np.asarray(s) - lo) // cell).astype(np.int64), 0, res - 1))
        if labels[ijk] == 0:
            raise ValueError(f"seed {tuple(float(v) for v in s)} is not in free space (within half a radius of the surface)")
        free_labels.add(int(labels[ijk]))
    free = np.isin(labels, sorted(free_labels))
    # a free region grown by the cells next to it, so that the band reaches under radius/2
    free = ndimage.binary_dilation(free, iterations=int(np.ceil(0.5 * radius / cell)) + 1) & (d_approx >= 0)
    # the band: first by the approximate distance with a triangle's size of slack, then exactly
    half_diag = 0.5 * np.sqrt(3) * cell
    slack = float(np.max(np.linalg.norm(dist.tri - dist.tri.mean(axis=1, keepdims=True), axis=2)))
    near = free & (d_approx >= radius - inner - half_diag - slack) & (d_approx <= radius + outer + half_diag + slack)
    cells = np.argwhere(near)                                    # (m, 3) multi-indices i, j, k
    d_exact = dist(lo + cell * (cells + 0.5))
    cells = cells[(d_exact >= radius - inner - half_diag) & (d_exact <= radius + outer + half_diag)]
    # exact distances at the nodes the band's cells use, on the lattice of thirds of a cell
    lattice = res * 3 + 1
    nodes3 = (cells[:, None, :] * 3 + NODE_OFFSETS[None, :, :]).reshape(-1, 3)
    flat = np.ravel_multi_index(nodes3.T, tuple(lattice))
    uniq, inverse = np.unique(flat, return_inverse=True)
    pos = lo + np.stack(np.unravel_index(uniq, tuple(lattice)), axis=1) * (cell / 3.0)
    values = dist(pos)
    # Bullet numbers cells i fastest (single index = rx*ry*k + rx*j + i)
    single = cells[:, 2] * res[0] * res[1] + cells[:, 1] * res[0] + cells[:, 0]
    order = np.argsort(single)
    cell_nodes = inverse.reshape(-1, 32)[order].astype(np.uint32)
    cell_map = np.full(int(np.prod(res)), NO_CELL, dtype=np.uint32)
    cell_map[single[order]] = np.arange(len(order), dtype=np.uint32)
    return {"lo": lo, "hi": hi, "res": res, "cell": cell, "values": values,
            "cells": cell_nodes, "cell_map": cell_map}


def write_cdf(path: str | Path, field: dict) -> Path:
    """Write a field from `band_field` in the layout btMiniSDF::load reads (atomically)."""
    path = Path(path)
    lo, hi, res, cell = field["lo"], field["hi"], field["res"], field["cell"]
    parts = [struct.pack("<6d", *lo, *hi), struct.pack("<3I", *(int(r) for r in res)),
             struct.pack("<3d", cell, cell, cell), struct.pack("<3d", 1 / cell, 1 / cell, 1 / cell),
             struct.pack("<Q", int(np.prod(res))), struct.pack("<Q", 1),
             struct.pack("<Q", 1), struct.pack("<Q", len(field["values"])),
             np.asarray(field["values"], dtype="<f8").tobytes(),
             struct.pack("<Q", 1), struct.pack("<Q", len(field["cells"])),
             np.ascontiguousarray(field["cells"], dtype="<u4").tobytes(),
             struct.pack("<Q", 1), struct.pack("<Q", len(field["cell_map"])),
             np.asarray(field["cell_map"], dtype="<u4").tobytes()]
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".cdf.tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            for part in parts:
                f.write(part)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return path


def sdf_urdf(cdf_path: str | Path) -> str:
    """A one-link URDF whose collision geometry is the field (PyBullet loads `<cdf>` only from URDF)."""
    return ('<?xml version="1.0"?>\n<robot name="sdf">\n <link name="base">\n'
            '  <inertial><mass value="0"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>\n'
            f'  <collision><geometry><cdf filename="{Path(cdf_path).resolve()}"/></geometry></collision>\n'
            ' </link>\n</robot>\n')


def cached_field(kind: str, version: int, params: dict, mesh: Callable[[], trimesh.Trimesh], radius: float,
                 cell: float, seeds, region=None) -> Path:
    """The .cdf of `band_field` for (kind, version, params), built once and cached beside the meshes."""
    from tabletop.sim.meshes import build_lock, cache_dir
    from tabletop.sim.spec import digest

    key = {"kind": kind, "version": version, "params": params, "radius": radius, "cell": cell,
           "seeds": [[float(v) for v in s] for s in seeds], "format": FORMAT_VERSION}
    path = cache_dir() / "meshes" / f"{kind}-{digest(key)}.cdf"
    if not path.exists():
        with build_lock(path):
            if not path.exists():      # else built by another process while this one waited
                write_cdf(path, band_field(mesh(), radius, cell, seeds, region))
    return path
