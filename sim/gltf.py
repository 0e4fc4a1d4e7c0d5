"""A recorded scene's table as glTF 2.0 binary (GLB), for any renderer: a browser's three.js draws it.

The scene is what a replay's header holds (tabletop.gamekit.record.scene_of: every body's look and
pose). Each track (a body's base or one of its links: tabletop.sim.scene) becomes one mesh node,
named by the track, holding the track's parts as tabletop.sim.surface tessellates them for the window,
in its material's colour (tabletop.sim.surface.LOOKS) or the colour the window draws its body in
(`colors`), at its pose in the scene; besides, the board's static art (`art`: a game adapter's
`art_meshes`) as nodes of their own, on the board or under the track they move with. The tracks hang
under one root node, `ROOT`, that turns the table's frame (Z up, metres) into glTF's (Y up): a
renderer poses a track by setting its node's local transform to a pose of the table's frame.

The file is cached by the scene's digest under the mesh cache (tabletop.sim.meshes.cache_dir), so a
table is exported once per machine. Knows no game and imports no renderer.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from tabletop.sim.spec import digest
from tabletop.sim.surface import material_look, track_arrays

GLTF_VERSION = 3          # bump when the export changes: the cache key holds it
ROOT = "z-up"             # the root node: the table's frame (Z up) in glTF's (Y up)
CONTENT_TYPE = "model/gltf-binary"
Z_UP_TO_Y_UP = np.array([[1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, -1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])


def linear(rgb) -> list[float]:
    """sRGB colour components (as the window sets them) in the linear space glTF's colour factors are in."""
    return [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]


def pose_matrix(pose) -> np.ndarray:
    """The 4x4 transform of a pose (x, y, z, qx, qy, qz, qw)."""
    import trimesh

    x, y, z, qx, qy, qz, qw = (float(v) for v in pose)
    m = trimesh.transformations.quaternion_matrix([qw, qx, qy, qz])
    m[:3, 3] = (x, y, z)
    return m


def scene_tracks(scene: dict) -> dict[str, tuple[str, list]]:
    """{track: (body, parts)} of every track of the scene's looks that has parts."""
    return {track: (body, parts) for body, look in scene["looks"].items()
            for track, parts in look["tracks"].items() if parts}


def scene_bounds(scene: dict) -> tuple[list[float], list[float]]:
    """The (lowest, highest) corner of every track's parts at its pose, in the table's frame."""
    boxes = body_bounds(scene).values()
    return np.min([lo for lo, _ in boxes], axis=0).tolist(), np.max([hi for _, hi in boxes], axis=0).tolist()


def body_bounds(scene: dict) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{body: (lowest, highest) corner} of every body's parts at their poses, in the table's frame."""
    out: dict = {}
    for track, (body, parts) in scene_tracks(scene).items():
        v, _, _ = track_arrays(parts)
        m = pose_matrix(scene["poses"].get(track, (0, 0, 0, 0, 0, 0, 1)))
        w = v @ m[:3, :3].T + m[:3, 3]
        lo, hi = out.get(body, (np.full(3, np.inf), np.full(3, -np.inf)))
        out[body] = (np.minimum(lo, w.min(axis=0)), np.maximum(hi, w.max(axis=0)))
    return out


def frame_bounds(scene: dict) -> tuple[list[float], list[float]]:
    """The bounds a view frames: every body's, less a table top (a body under 5 cm thick under the
    middle of every other one), as the window frames its table (tabletop.sim.view.app's
    `_frame_points`)."""
    boxes = body_bounds(scene)

    def covers(lo, hi, other) -> bool:
        return all(lo[k] <= (other[0][k] + other[1][k]) / 2 <= hi[k] for k in range(2))

    tops = {name for name, (lo, hi) in boxes.items() if hi[2] - lo[2] < 0.05 and len(boxes) > 1
            and all(covers(lo, hi, box) for other, box in boxes.items() if other != name)}
    kept = [box for name, box in boxes.items() if name not in tops] or list(boxes.values())
    return (np.min([lo for lo, _ in kept], axis=0).tolist(), np.max([hi for _, hi in kept], axis=0).tolist())


def _material(name: str, rgba, specular: float, image=None):
    """A glTF PBR material of an sRGB colour (r, g, b[, a]), with `image` (an (h, w, 3) array in 0..1,
    row 0 at the top) painted over it where given."""
    from PIL import Image
    from trimesh.visual.material import PBRMaterial

    r, g, b, *a = rgba
    alpha = a[0] if a else 1.0
    texture = None if image is None else Image.fromarray((np.clip(image, 0.0, 1.0) * 255).astype(np.uint8), "RGB")
    return PBRMaterial(name=name, baseColorFactor=[*linear((r, g, b)), alpha], baseColorTexture=texture,
                       metallicFactor=0.0, roughnessFactor=max(0.25, 1.0 - specular),
                       alphaMode="BLEND" if alpha < 1.0 else "OPAQUE", doubleSided=False)


def art_arrays(art: dict):
    """(vertices, normals, faces) of one art mesh: its parts tessellated, or its own vertices and faces
    with smooth normals."""
    import trimesh

    if "parts" in art:
        return track_arrays(art["parts"])
    v, f = np.asarray(art["vertices"], float), np.asarray(art["faces"], np.int64)
    return v, trimesh.Trimesh(v, f, process=False).vertex_normals, f


def art_key(art) -> list:
    """What the cache's digest holds of the art meshes (their arrays by their own digests)."""
    import hashlib

    def plain(value):
        if isinstance(value, np.ndarray):
            return hashlib.sha256(np.ascontiguousarray(value, np.float64).tobytes()).hexdigest()
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(v) for v in value]
        return value

    return plain(list(art))


def table_glb(scene: dict, colors: dict | None = None, art=()) -> bytes:
    """The GLB of a scene's table: a mesh node per track under the root node `ROOT`, each body in its
    colour from `colors` (body or track -> sRGB, as the window sets it) or else its material's; then
    each of `art` (module docstring) a node of its own, under its parent track's node where it names
    one that the scene has (else left out, as the window leaves it)."""
    import trimesh
    from trimesh.visual.texture import TextureVisuals

    colors = colors or {}
    tracks = scene_tracks(scene)
    if ROOT in tracks:
        raise ValueError(f"a body's track is named {ROOT!r}, the name of the glTF export's root node")
    out = trimesh.Scene()
    out.graph.update(frame_from=out.graph.base_frame, frame_to=ROOT, matrix=Z_UP_TO_Y_UP)
    for track, (body, parts) in tracks.items():
        v, n, f = track_arrays(parts)
        material = scene["looks"][body].get("material")
        look = material_look(material)
        rgba = colors.get(track) or colors.get(body) or (*look.color, look.alpha)
        mesh = trimesh.Trimesh(v.astype(np.float32), f.astype(np.uint32), vertex_normals=n.astype(np.float32),
                               visual=TextureVisuals(material=_material(material or "default", rgba, look.specular)),
                               process=False)
        out.add_geometry(mesh, node_name=track, geom_name=track, parent_node_name=ROOT,
                         transform=pose_matrix(scene["poses"].get(track, (0, 0, 0, 0, 0, 0, 1))))
    for item in art:
        name, parent = item["name"], item.get("parent") or ROOT
        if parent != ROOT and parent not in tracks:
            continue
        if name == ROOT or name in tracks:
            raise ValueError(f"an art mesh is named {name!r}, as a track or the root node is")
        v, n, f = art_arrays(item)
        uv = item.get("uv")
        visual = TextureVisuals(uv=None if uv is None else np.asarray(uv, np.float32),
                                material=_material(f"art-{name}", item["color"], 0.2, item.get("image")))
        mesh = trimesh.Trimesh(v.astype(np.float32), f.astype(np.uint32), vertex_normals=np.asarray(n, np.float32),
                               visual=visual, process=False)
        out.add_geometry(mesh, node_name=name, geom_name=name, parent_node_name=parent)
    return trimesh.exchange.gltf.export_glb(out, include_normals=True)


def cached_table_glb(scene: dict, colors: dict | None = None, art=()) -> bytes:
    """`table_glb` of a scene, read from the cache when a scene of the same digest, colours and art was
    exported before (written whole: a temp file, then a rename)."""
    from tabletop.sim.meshes import cache_dir

    key = digest({"gltf": GLTF_VERSION, "looks": scene["looks"], "poses": scene["poses"],
                  "colors": {k: list(v) for k, v in sorted((colors or {}).items())}, "art": art_key(art)})
    path = cache_dir() / "gltf" / f"table-{key}.glb"
    if path.exists():
        return path.read_bytes()
    data = table_glb(scene, colors, art)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".glb.tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return data
