"""Measure what the materials in assets/materials.toml do to a rolling marble.

    python scripts/calibrate_rolling.py [--speed 0.3] [--radius 0.008]

Rolls a glass ball on a level polystyrene plane and prints its deceleration, the rolling
resistance coefficient it implies (c_rr = a * (1 + I/(m r^2)) / g = 1.4 a / g for a solid
sphere), the distance and the time to stop. The numbers in docs/reconstruction.md come from it.
"""
import argparse

from sim.bullet import pybullet

from sim.materials import load_materials
from sim.paths import assets_dir
from sim.world import PhysicsSettings, World


def measure(speed: float, radius: float) -> dict:
    m = load_materials(assets_dir() / "materials.toml")
    with World(PhysicsSettings(timestep=1 / 480)) as w:
        shape = w.client.createCollisionShape(pybullet.GEOM_BOX, halfExtents=[50, 50, 0.01])
        w.add_body("floor", w.client.createMultiBody(0, shape, basePosition=[0, 0, -0.01]), m["polystyrene"])
        w.add_sphere("ball", radius, m["glass"], (0, 0, radius))
        w.set_velocity("ball", (speed, 0, 0), (0, speed / radius, 0))
        w.step(240)
        v1, t1 = w.velocity("ball")[0][0], w.time
        w.step(240)
        v2, t2 = w.velocity("ball")[0][0], w.time
        while w.velocity("ball")[0][0] > 1e-4 and w.time < 120:
            w.step(24)
        decel = (v1 - v2) / (t2 - t1)
        return {"deceleration_m_s2": decel, "c_rr": 1.4 * decel / 9.81,
                "stop_distance_m": float(w.position("ball")[0]), "stop_time_s": w.time}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--speed", type=float, default=0.3)
    ap.add_argument("--radius", type=float, default=0.008)
    a = ap.parse_args()
    for k, v in measure(a.speed, a.radius).items():
        print(f"{k:20s} {v:.4f}")
