"""What a body's look is drawn as, with no renderer: its parts' triangles and its material's colour.

A look (tabletop.sim.scene.look) holds the parts the physics collides with; the Panda3D window
(tabletop.sim.view) and the glTF export for a browser (tabletop.sim.gltf) both draw them from the
triangles made here (boxes, spheres, cylinders and capsules tessellated; mesh parts from the OBJ the
World was built from, or the convex hull of the recorded vertices) and colour them by `LOOKS`. Flat-
shaded parts get one normal per face; curved ones smooth normals. No Panda3D is imported here.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import trimesh

SEGMENTS = 24   # around a cylinder or a sphere


@dataclass(frozen=True)
class Look:
    """How a material reads on screen: base colour, specular strength, shininess, opacity."""

    color: tuple[float, float, float]
    specular: float = 0.2
    shininess: float = 20.0
    alpha: float = 1.0


LOOKS = {
    "glass": Look((0.75, 0.85, 0.9), 0.9, 90.0, 0.85),
    "polystyrene": Look((0.30, 0.55, 0.25), 0.35, 30.0),
    "wood": Look((0.50, 0.35, 0.22), 0.08, 8.0),
    "hardwood": Look((0.45, 0.28, 0.15), 0.15, 12.0),
    "cardboard": Look((0.78, 0.70, 0.55), 0.03, 4.0),
    "plastic": Look((0.85, 0.25, 0.2), 0.4, 35.0),
}
DEFAULT_LOOK = Look((0.7, 0.7, 0.7))


def material_look(material: str | None) -> Look:
    """How a body of `material` (a look's "material") is drawn when nothing overrides its colour."""
    return LOOKS.get(material or "", DEFAULT_LOOK)


def _flat(mesh: trimesh.Trimesh) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One vertex per face corner, so every face is shaded flat."""
    v = mesh.vertices[mesh.faces].reshape(-1, 3)
    n = np.repeat(mesh.face_normals, 3, axis=0)
    return v, n, np.arange(len(v)).reshape(-1, 3)


def _smooth(mesh: trimesh.Trimesh) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.asarray(mesh.vertices), np.asarray(mesh.vertex_normals), np.asarray(mesh.faces)


@lru_cache(maxsize=64)
def _obj(path: str) -> trimesh.Trimesh:
    return trimesh.load(path, force="mesh", process=False)


def segments(radius: float) -> int:
    """Facets round a curved part: fewer for small parts (a peg), the full count from 8 mm up."""
    return 8 if radius < 0.003 else 12 if radius < 0.009 else SEGMENTS


@lru_cache(maxsize=None)
def _unit_box():
    return _flat(trimesh.creation.box(extents=[2.0, 2.0, 2.0]))


@lru_cache(maxsize=None)
def unit_sphere(n: int):
    """(vertices, normals, faces) of a smooth sphere of radius 1 with `n` facets round it."""
    return _smooth(trimesh.creation.uv_sphere(radius=1.0, count=[n // 2 + 1, n]))


@lru_cache(maxsize=None)
def _unit_cylinder(n: int):
    """Radius 1, height 1 about Z: smooth sides, flat caps."""
    mesh = trimesh.creation.cylinder(radius=1.0, height=1.0, sections=n)
    cap = np.abs(mesh.face_normals[:, 2]) > 0.99
    v1, n1, f1 = _flat(trimesh.Trimesh(mesh.vertices, mesh.faces[cap], process=False))
    side = trimesh.Trimesh(mesh.vertices, mesh.faces[~cap], process=False)
    radial = side.vertices.copy()
    radial[:, 2] = 0.0
    norm = np.linalg.norm(radial, axis=1, keepdims=True)
    radial = np.divide(radial, norm, out=np.zeros_like(radial), where=norm > 0)
    return np.vstack([v1, side.vertices]), np.vstack([n1, radial]), np.vstack([f1, side.faces + len(v1)])


def part_arrays(part: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices, normals, faces) of one part of a look, in the part's own frame. Boxes, spheres
    and cylinders scale cached unit shapes (building hundreds of parts stays fast)."""
    kind = part["kind"]
    if kind == "box":
        v, n, f = _unit_box()
        return v * np.asarray(part["half"]), n, f
    if kind == "sphere":
        r = part["radius"]
        v, n, f = unit_sphere(max(12, segments(r)))
        return v * r, n, f
    if kind == "cylinder":
        r = part["radius"]
        v, n, f = _unit_cylinder(segments(r))
        return v * np.array([r, r, part["length"]]), n, f
    if kind == "capsule":
        k = segments(part["radius"])
        return _smooth(trimesh.creation.capsule(radius=part["radius"], height=part["length"], count=[k, k]))
    if kind == "mesh":
        if "obj" in part:
            mesh = _obj(part["obj"])
            smooth = len(mesh.faces) > 200
        elif "hull" not in part:
            raise ValueError("a mesh part with no source: pass mesh= (an OBJ path or hull vertices) to "
                             "World.add_body for it")
        else:
            mesh, smooth = trimesh.convex.convex_hull(np.asarray(part["hull"], float)), False
        v, n, f = _smooth(mesh) if smooth else _flat(mesh)
        scale = np.asarray(part.get("scale", [1.0, 1.0, 1.0]))
        if np.any(np.abs(scale - 1.0) > 1e-12):
            v = v * scale
            n = n / scale
            n = n / np.linalg.norm(n, axis=1, keepdims=True)
        return v, n, f
    raise ValueError(f"cannot draw a {kind!r} part")


def track_arrays(parts: list[dict]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(vertices, normals, faces) of a track: all its parts, each at its frame in the track's."""
    verts, norms, faces, base = [], [], [], 0
    for part in parts:
        v, n, f = part_arrays(part)
        q = part["orn"]
        if q[3] < 1.0 - 1e-12:
            rot = trimesh.transformations.quaternion_matrix([q[3], q[0], q[1], q[2]])[:3, :3]
            v, n = v @ rot.T, n @ rot.T
        verts.append(v + np.asarray(part["pos"]))
        norms.append(n)
        faces.append(f + base)
        base += len(v)
    return np.vstack(verts), np.vstack(norms), np.vstack(faces)
