"""A jointed body of many boxes (and capsules) as a URDF, cached by its text.

PyBullet's createCollisionShapeArray takes at most 16 children per compound shape, so a body of
more boxes built through it needs several links welded together, and every link costs Bullet
broadphase, integration and solver work each step (the Tipper's tray: 17 links, 14.5 of its 23 us a
step, docs/physics-profile.md). A URDF link takes any number of <collision> elements into one
compound, so the same boxes load as one link. The file is written once into the cache
(tabletop.sim.meshes.cache_dir) under a digest of its text: the same geometry loads the same file,
a changed spec writes a new one.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Sequence

from tabletop.sim.bullet import pybullet
from tabletop.sim.meshes import cache_dir
from tabletop.sim.output import write_bytes_atomic

#: a box: (half extents, centre, orientation quaternion x, y, z, w) in its link's frame
Box = tuple[Sequence[float], Sequence[float], Sequence[float]]
#: a box, or a capsule: ("capsule", radius, length, centre, orientation)
Part = Box | tuple[str, float, float, Sequence[float], Sequence[float]]


#: a link without a <visual> gets one that PyBullet's renderer builds from each collision shape, and a
#: capsule costs it about 0.2 ms to build (60 of them took a tray 13.5 ms to load, 1.3 ms with this);
#: the project draws its bodies itself (tabletop.sim.scene), so a link's look is a point-sized box
_NO_LOOK = '<visual><geometry><box size="1e-6 1e-6 1e-6"/></geometry></visual>'


def _floats(values: Sequence[float]) -> str:
    # repr: the shortest text that reads back as the same double, so the file holds the exact geometry
    return " ".join(repr(float(v)) for v in values)


def _box(half: Sequence[float], pos: Sequence[float], orn: Sequence[float]) -> str:
    # URDF orients a frame by roll-pitch-yaw; Bullet turns it back into the quaternion within 1e-16
    rpy = pybullet.getEulerFromQuaternion(list(orn))
    return (f'<collision><origin xyz="{_floats(pos)}" rpy="{_floats(rpy)}"/>'
            f'<geometry><box size="{_floats([2.0 * h for h in half])}"/></geometry></collision>')


def _part(part: Part) -> str:
    """A box (half extents, centre, orientation) or a capsule ("capsule", radius, length, centre,
    orientation: its axis along the frame's Z, `length` between the centres of its end caps)."""
    if len(part) == 3:
        return _box(*part)
    kind, radius, length, pos, orn = part
    if kind != "capsule":
        raise ValueError(f"a URDF part is a box or a capsule, not {kind!r}")
    rpy = pybullet.getEulerFromQuaternion(list(orn))
    return (f'<collision><origin xyz="{_floats(pos)}" rpy="{_floats(rpy)}"/>'
            f'<geometry><capsule radius="{float(radius)!r}" length="{float(length)!r}"/></geometry></collision>')


def hinged_boxes_urdf(name: str, boxes: Sequence[Part], mass: float, inertia: Sequence[float],
                      axis: Sequence[float]) -> str:
    """A URDF of two links: a massless base without shape (load it with a fixed base) and, on a joint
    about `axis` through the base's origin with no limit, damping or friction, one link of `boxes`
    (boxes and capsules, `Part`) whose centre of mass is at the joint and whose principal inertia is
    `inertia` (load it with URDF_USE_INERTIA_FROM_FILE, or Bullet puts the link's bounding-box
    inertia in its place)."""
    lines = [
        '<?xml version="1.0"?>',
        f'<robot name="{name}">',
        '<link name="base"><inertial><mass value="0"/>'
        '<inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>',
        f'<link name="{name}"><inertial><origin xyz="0 0 0" rpy="0 0 0"/><mass value="{float(mass)!r}"/>'
        f'<inertia ixx="{float(inertia[0])!r}" ixy="0" ixz="0" iyy="{float(inertia[1])!r}" iyz="0" '
        f'izz="{float(inertia[2])!r}"/></inertial>',
        _NO_LOOK,
        *(_part(box) for box in boxes),
        '</link>',
        f'<joint name="hinge" type="continuous"><parent link="base"/><child link="{name}"/>'
        f'<axis xyz="{_floats(axis)}"/><dynamics damping="0" friction="0"/></joint>',
        '</robot>',
        '',
    ]
    return "\n".join(lines)


def cached_urdf(kind: str, text: str) -> Path:
    """The path of a URDF holding `text`, written into the cache when absent (atomically: a process
    beside this one reads either no file or the whole one). Its name carries a digest of the text."""
    folder = cache_dir() / "urdf"
    path = folder / f"{kind}-{hashlib.sha256(text.encode()).hexdigest()[:16]}.urdf"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(path, text.encode())
    return path
