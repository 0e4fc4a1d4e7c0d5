"""Parts several devices share, built into a World from spec numbers."""
from __future__ import annotations

from tabletop.sim.bullet import pybullet


def add_open_box(world, name: str, origin, half_x: float, half_y: float, wall_thickness: float,
                 wall_height: float, floor_thickness: float, material) -> tuple[float, ...]:
    """A static open box (a tray, a box lid turned over): one compound of boxes, the floor's top at
    `origin`, walls laid outward from the inner faces. Returns the escape bounds
    (x0, x1, y0, y1, rim top z, floor z - 1 cm): a body whose centre is outside the footprint below
    the rim has left over a wall; one below the floor has passed through it."""
    c = world.client
    hx, hy, wt, wh, ft = half_x, half_y, wall_thickness, wall_height, floor_thickness
    boxes = [((hx + wt, hy + wt, ft / 2), (0.0, 0.0, -ft / 2))]
    if wh > 0:
        hz = (wh + ft) / 2
        zc = (wh - ft) / 2
        boxes += [((wt / 2, hy + wt, hz), (hx + wt / 2, 0.0, zc)), ((wt / 2, hy + wt, hz), (-hx - wt / 2, 0.0, zc)),
                  ((hx, wt / 2, hz), (0.0, hy + wt / 2, zc)), ((hx, wt / 2, hz), (0.0, -hy - wt / 2, zc))]
    shape = c.createCollisionShapeArray(
        [pybullet.GEOM_BOX] * len(boxes), halfExtents=[list(h) for h, _ in boxes],
        collisionFramePositions=[list(p) for _, p in boxes])
    body = c.createMultiBody(baseMass=0.0, baseCollisionShapeIndex=shape, basePosition=list(origin))
    world.add_body(name, body, material)
    ox, oy, oz = origin
    return (ox - hx - wt, ox + hx + wt, oy - hy - wt, oy + hy + wt, oz + wh, oz - 0.01)


def left_open_box(world, names, bounds):
    """A function: whether any of the bodies `names` has left the open box whose escape `bounds`
    `add_open_box` returned (outside the footprint below the rim, or through the floor)."""
    x0, x1, y0, y1, z_rim, z_floor = bounds
    get = world.client.getBasePositionAndOrientation
    bodies = [world.bodies[n] for n in names]

    def escaped() -> bool:
        for b in bodies:
            x, y, z = get(b)[0]
            if z < z_floor or (z < z_rim and not (x0 <= x <= x1 and y0 <= y <= y1)):
                return True
        return False
    return escaped
