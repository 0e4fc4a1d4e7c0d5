"""A small real physical randomizer for testing the core without a game.

The quadrant box: a square tray with walls and a four-sided pyramid in the middle. A glass
ball is dropped just above the apex with a small random offset; it lands on a face, rolls
down into one of the four quadrants and settles against the walls. Which quadrant holds it
is read physically with `region_of`. Small enough to run hundreds of trials in a test.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
import numpy as np
import trimesh

from tabletop.sim.devices.base import Device, Outcome, Status, gesture_dict
from tabletop.sim.materials import load_materials
from tabletop.sim.meshes import cached_mesh
from tabletop.sim.paths import assets_dir
from tabletop.sim.readouts import Region, SettleRule, region_of, run_until_settled
from tabletop.sim.world import PhysicsSettings, World

HALF = 0.06        # tray half width, m
WALL = 0.01        # wall thickness, m
RADIUS = 0.008     # ball radius, m
APEX = 0.02        # pyramid height, m


def _tray() -> trimesh.Trimesh:
    floor = trimesh.creation.box((2 * HALF + 2 * WALL, 2 * HALF + 2 * WALL, WALL))
    floor.apply_translation((0, 0, -WALL / 2))
    parts = [floor]
    for sx, sy, ex, ey in ((1, 0, WALL, 2 * HALF), (-1, 0, WALL, 2 * HALF), (0, 1, 2 * HALF, WALL), (0, -1, 2 * HALF, WALL)):
        wall = trimesh.creation.box((ex, ey, 0.04))
        wall.apply_translation((sx * (HALF + WALL / 2), sy * (HALF + WALL / 2), 0.02))
        parts.append(wall)
    pyramid = trimesh.creation.cone(radius=0.035, height=APEX, sections=4)
    pyramid.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 4, (0, 0, 1)))
    parts.append(pyramid)
    return trimesh.util.concatenate(parts)


@dataclass(frozen=True)
class Drop:
    dx: float
    dy: float
    vz: float


class QuadrantBox(Device):
    name = "quadrant"
    labels = ("NE", "NW", "SW", "SE")

    def __init__(self, timestep: float = 1 / 240):
        # a sticky, dead ball (high rolling resistance, low restitution and damping) so trials end quickly
        materials = load_materials(assets_dir() / "materials.toml",
                                   (("materials.pairs.glass/polystyrene.rolling", "7e-4"),
                                    ("materials.pairs.glass/polystyrene.restitution", "0.2")))
        self.material = replace(materials["glass"], linear_damping=0.5, angular_damping=0.5)
        self.plastic = materials["polystyrene"]
        self.world = World(PhysicsSettings(timestep=timestep))
        mesh = cached_mesh("test-quadrant-tray", 1, {"half": HALF, "wall": WALL, "apex": APEX}, _tray)
        self.world.add_static_mesh("tray", mesh, self.plastic)
        q = HALF / 2
        self.regions = {
            "NE": Region((q, q, 0.01), half_extents=(q, q, 0.02)),
            "NW": Region((-q, q, 0.01), half_extents=(q, q, 0.02)),
            "SW": Region((-q, -q, 0.01), half_extents=(q, q, 0.02)),
            "SE": Region((q, -q, 0.01), half_extents=(q, q, 0.02)),
        }
        self.rule = SettleRule(cap=8.0)

    def sample_gesture(self, rng: np.random.Generator) -> Drop:
        return Drop(dx=float(rng.normal(0, 0.002)), dy=float(rng.normal(0, 0.002)), vz=float(rng.uniform(-0.3, 0.0)))

    def place_for_benchmark(self) -> None:
        self._new_ball(Drop(0.0, 0.0, 0.0))

    def _new_ball(self, drop: Drop) -> None:
        if "ball" in self.world.bodies:
            self.world.remove("ball")
        self.world.add_sphere("ball", RADIUS, self.material, (drop.dx, drop.dy, APEX + RADIUS + 0.01))
        self.world.set_velocity("ball", (0, 0, drop.vz))

    def run(self, rng: np.random.Generator, gesture: Drop | None = None) -> Outcome:
        drop = gesture or self.sample_gesture(rng)
        self._new_ball(drop)
        s0 = self.world.steps

        def escaped() -> bool:
            p = self.world.position("ball")
            return p[2] < -0.05 or abs(p[0]) > HALF + 0.05 or abs(p[1]) > HALF + 0.05

        settled, esc = run_until_settled(self.world, ["ball"], self.rule, escaped)
        pos = self.world.position("ball")
        label = region_of(pos, self.regions) if settled else None
        status = (Status.ESCAPED if esc else Status.UNSETTLED if not settled
                  else Status.OK if label else Status.LODGED)
        return Outcome(label=label if status is Status.OK else None, status=status,
                       sim_time=(self.world.steps - s0) * self.world.dt, steps=self.world.steps - s0,
                       reading={"position": pos.tolist()}, gesture=gesture_dict(drop))

    def params(self) -> dict:
        return {"half": HALF, "radius": RADIUS, "apex": APEX, "glass": self.material.as_dict()}

    def close(self) -> None:
        self.world.close()


def make_quadrant(timestep: float = 1 / 240) -> QuadrantBox:
    return QuadrantBox(timestep)
