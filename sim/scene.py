"""What a body looks like and where it is, read from a World, for views and replays.

A view never has its own copy of a part's geometry: a body's *look* is read back from the
collision shapes PyBullet holds (boxes, spheres, cylinders, capsules, with their local frames)
and, for mesh shapes, from the source the World was given when the body was added (an OBJ file
or the vertices of a convex hull). Looks and poses are plain JSON-able data, so the same
description drives the live window and a replay file, and playback needs no PyBullet.

Poses are (x, y, z, qx, qy, qz, qw) of a *track*: a body's base ("name") or one of its links
("name:3"), in the frame the look's part frames are relative to (the inertial frame).

A RecordedScene (a replay header's scene: every table body's look and pose) answers `look` and
`poses` as a World does, so views draw a replay from it with no World and no PyBullet.
"""
from __future__ import annotations

# PyBullet's enum values, written out so that this module (and replay playback, which reads looks
# and poses) never imports PyBullet; tests/test_layers.py checks them against pybullet's own.
GEOM_SPHERE, GEOM_BOX, GEOM_CYLINDER, GEOM_MESH, GEOM_PLANE, GEOM_CAPSULE = 2, 3, 4, 5, 6, 7
JOINT_FIXED = 4

_KINDS = {GEOM_BOX: "box", GEOM_SPHERE: "sphere", GEOM_CYLINDER: "cylinder",
          GEOM_CAPSULE: "capsule", GEOM_MESH: "mesh", GEOM_PLANE: "plane"}


def track_name(body: str, link: int) -> str:
    return body if link < 0 else f"{body}:{link}"


def split_track(track: str) -> tuple[str, int]:
    body, _, link = track.rpartition(":")
    if body and link.isdigit():
        return body, int(link)
    return track, -1


def _part(data: tuple, mesh_source) -> dict:
    kind = _KINDS.get(data[2], "unknown")
    dims = [float(v) for v in data[3]]
    part = {"kind": kind, "pos": [float(v) for v in data[5]], "orn": [float(v) for v in data[6]]}
    if kind == "box":
        part["half"] = [d / 2 for d in dims]           # PyBullet reports full extents
    elif kind == "sphere":
        part["radius"] = dims[0]
    elif kind in ("cylinder", "capsule"):
        part["length"], part["radius"] = dims[0], dims[1]
    elif kind == "mesh":
        part["scale"] = dims
        if isinstance(mesh_source, str):
            part["obj"] = mesh_source
        elif mesh_source is not None:
            part["hull"] = [[float(v) for v in p] for p in mesh_source]
    return part


def _welded(c, body: int) -> dict[int, int]:
    """link -> the link (or -1, the base) it moves with exactly: a fixed joint with no offset
    welds a link onto its parent, so both share one track (a compound split into links)."""
    rep = {-1: -1}
    for link in range(c.getNumJoints(body)):
        info = c.getJointInfo(body, link)
        parent = info[16]
        still = (info[2] == JOINT_FIXED and max(abs(v) for v in info[14]) < 1e-12
                 and max(abs(v) for v in info[15][:3]) < 1e-12
                 and max(abs(v) for v in c.getDynamicsInfo(body, link)[3]) < 1e-12)
        rep[link] = rep[parent] if still and parent >= 0 else link
    return rep


class RecordedScene:
    """The bodies of a recorded scene ({"looks": {name: look}, "poses": {track: pose}}), read
    like a World's by `look` and `poses`: what replay playback draws the table from."""

    def __init__(self, scene: dict):
        self.looks: dict = dict(scene.get("looks", {}))
        self.poses: dict = {track: tuple(float(v) for v in p) for track, p in scene.get("poses", {}).items()}
        self.bodies = {name: name for name in self.looks}

    def look(self, name: str) -> dict:
        return self.looks[name]

    def body_poses(self, name: str) -> dict[str, tuple[float, ...]]:
        return {track: p for track, p in self.poses.items() if split_track(track)[0] == name}


def look(world, name: str) -> dict:
    """{"material": name, "tracks": {track: [part, ...]}} for the body `name` of `world`."""
    if isinstance(world, RecordedScene):
        return world.look(name)
    c = world.client
    body = world.bodies[name]
    source = world.mesh_sources.get(name)
    rigid = getattr(world, "rigid_parts", {}).get(name)
    if rigid is not None:
        return {"material": world.materials.get(name), "tracks": {track_name(name, -1): [dict(p) for p in rigid]}
                if rigid else {}}
    tracks: dict[str, list] = {}
    for link, rep in _welded(c, body).items():
        parts = [_part(d, source) for d in c.getCollisionShapeData(body, link)]
        parts = [p for p in parts if p["kind"] != "unknown"]
        if parts:
            tracks.setdefault(track_name(name, rep), []).extend(parts)
    return {"material": world.materials.get(name), "tracks": tracks}


def is_static(world, name: str) -> bool:
    """A body the physics never moves: no mass and no joints (kinematic pieces count as static)."""
    c = world.client
    body = world.bodies[name]
    return c.getNumJoints(body) == 0 and c.getDynamicsInfo(body, -1)[0] == 0.0


def moving_links(world, name: str) -> tuple[bool, list[int]]:
    """(whether the base carries parts, the links that carry their own track) of body `name`."""
    c = world.client
    body = world.bodies[name]
    rigid = getattr(world, "rigid_parts", {}).get(name)
    if rigid is not None:
        return bool(rigid), []
    return (bool(c.getCollisionShapeData(body, -1)),
            sorted({rep for rep in _welded(c, body).values() if rep >= 0}))


def poses(world, name: str, tracks: tuple[bool, list[int]] | None = None) -> dict[str, tuple[float, ...]]:
    """{track: (x, y, z, qx, qy, qz, qw)} of every part-carrying track of the body `name`
    (`tracks`: its `moving_links`, when the caller has them already)."""
    if isinstance(world, RecordedScene):
        return world.body_poses(name)
    c = world.client
    body = world.bodies[name]
    base, links = tracks or moving_links(world, name)
    out = {}
    if base:
        p, q = c.getBasePositionAndOrientation(body)
        out[name] = (*p, *q)
    if links:
        for link, state in zip(links, c.getLinkStates(body, links)):
            out[track_name(name, link)] = (*state[0], *state[1])
    return out
