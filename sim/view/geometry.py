"""Panda3D geometry built from a body's look (tabletop.sim.scene.look): the same parts the physics
collides with, as tabletop.sim.surface tessellates them (the glTF export for a browser draws the
same triangles)."""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from panda3d.core import Geom, GeomNode, GeomTriangles, GeomVertexData, GeomVertexFormat, LQuaternionf, NodePath

from tabletop.sim.surface import SEGMENTS, track_arrays, unit_sphere


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


def track_node(name: str, parts: list[dict]) -> NodePath:
    """One node for a track: all its parts merged into one GeomNode (cheap to draw)."""
    return NodePath(_geom(*track_arrays(parts), name))


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
    v, n, f = unit_sphere(count)
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
