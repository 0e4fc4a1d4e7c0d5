"""Panda3D geometry built from a body's look (tabletop.sim.scene.look): the same parts the physics
collides with.

Boxes, spheres, cylinders and capsules are tessellated here; mesh parts load the OBJ the World
was built from (cached per process) or take the convex hull of the recorded vertices. Flat-shaded
parts get one normal per face; curved ones smooth normals.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import trimesh
from panda3d.core import Geom, GeomNode, GeomTriangles, GeomVertexData, GeomVertexFormat, LQuaternionf, NodePath

SEGMENTS = 24   # around a cylinder or a sphere


def _geom(vertices: np.ndarray, normals: np.ndarray, faces: np.ndarray, name: str,
          uvs: np.ndarray | None = None) -> GeomNode:
    fmt = GeomVertexFormat.get_v3n3() if uvs is None else GeomVertexFormat.get_v3n3t2()
    data = GeomVertexData(name, fmt, Geom.UH_static)
    data.unclean_set_num_rows(len(vertices))
    arr = np.ascontiguousarray(np.hstack([vertices, normals] + ([] if uvs is None else [uvs])).astype(np.float32))
    data.modify_array(0).modify_handle().copy_data_from(arr.tobytes())
    tris = GeomTriangles(Geom.UH_static)
    tris.set_index_type(Geom.NT_uint32)
    idx = np.ascontiguousarray(faces.astype(np.uint32).ravel())
    handle = tris.modify_vertices()
    handle.unclean_set_num_rows(len(idx))
    handle.modify_handle().copy_data_from(idx.tobytes())
    geom = Geom(data)
    geom.add_primitive(tris)
    node = GeomNode(name)
    node.add_geom(geom)
    return node


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
def _unit_sphere(n: int):
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
        v, n, f = _unit_sphere(max(12, segments(r)))
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


def track_node(name: str, parts: list[dict]) -> NodePath:
    """One node for a track: all its parts merged into one GeomNode (cheap to draw)."""
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
    return NodePath(_geom(np.vstack(verts), np.vstack(norms), np.vstack(faces), name))


def set_pose(node: NodePath, pose) -> None:
    """Put a node at a pose (x, y, z, qx, qy, qz, qw) in world coordinates."""
    node.set_pos(pose[0], pose[1], pose[2])
    node.set_quat(LQuaternionf(pose[6], pose[3], pose[4], pose[5]))


def disc(radius: float, height: float, name: str = "disc") -> NodePath:
    """A flat cylinder standing on z=0 (markers, seats), with segments(radius) facets."""
    return track_node(name, [{"kind": "cylinder", "radius": radius, "length": height,
                              "pos": [0.0, 0.0, height / 2], "orn": [0.0, 0.0, 0.0, 1.0]}])


@lru_cache(maxsize=None)
def ring(inner: float, outer: float, name: str = "ring", count: int = 32) -> NodePath:
    """A flat annulus in the plane z=0 facing up (a lit destination's rim, a selected piece's halo)."""
    a = np.linspace(0.0, 2 * np.pi, count, endpoint=False)
    rim = np.stack([np.cos(a), np.sin(a), np.zeros(count)], axis=1)
    v = np.vstack([rim * inner, rim * outer])
    n = np.tile([0.0, 0.0, 1.0], (2 * count, 1))
    i = np.arange(count)
    j = (i + 1) % count
    f = np.vstack([np.stack([i, count + i, count + j], axis=1), np.stack([i, count + j, j], axis=1)])
    return NodePath(_geom(v, n, f, name))


def sphere(radius: float, name: str = "sphere", count: int = SEGMENTS) -> NodePath:
    """A smooth sphere about the origin with `count` facets round it (a marble seen up close)."""
    v, n, f = _unit_sphere(count)
    return NodePath(_geom(v * radius, n, f, name))


def textured_node(name: str, vertices: np.ndarray, normals: np.ndarray, faces: np.ndarray,
                  uvs: np.ndarray) -> NodePath:
    """One node of triangles with texture coordinates."""
    return NodePath(_geom(vertices, normals, faces, name, uvs))


def vertex_normals(vertices: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """Smooth normals: the area-weighted mean of the faces round each vertex."""
    tri = vertices[faces]
    fn = np.cross(tri[:, 1] - tri[:, 0], tri[:, 2] - tri[:, 0])
    n = np.zeros_like(vertices)
    for k in range(3):
        np.add.at(n, faces[:, k], fn)
    length = np.linalg.norm(n, axis=1, keepdims=True)
    return np.divide(n, length, out=np.tile([0.0, 0.0, 1.0], (len(n), 1)), where=length > 0)
