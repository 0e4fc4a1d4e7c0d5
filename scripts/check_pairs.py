"""Measure every material pair of assets/materials.toml in the engine and print it beside its values.

    python scripts/check_pairs.py [--steps 480,960,1920]

For each pair, on a fixed slab and on a link of a motor-held jointed body: the rebound of a ball
dropped 5 cm (restitution), the tilt at which a cube starts to slide (friction, as tan of the angle)
and how far a rolled ball goes against its rolling resistance (as a ratio to 1.4 v^2 r / (2 rolling g)).
tests/test_pairs.py asserts the same within 10%; docs/reconstruction.md quotes this table.
"""
import argparse
import math

from tabletop.sim.contact_check import (drop_rebound, friction_angle, predicted_roll_distance, roll_speed_for,
                               rolled_distance)
from tabletop.sim.materials import load_materials
from tabletop.sim.paths import assets_dir
from tabletop.sim.world import PhysicsSettings


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", default="480,960,1920", help="time steps as 1/N s, comma-separated")
    steps = [int(s) for s in ap.parse_args().steps.split(",")]
    m = load_materials(assets_dir() / "materials.toml")
    print(f"{'step':>6} {'pair':22} {'body':8} {'e':>13} {'mu':>13} {'roll ratio':>10}")
    for n in steps:
        st = PhysicsSettings(timestep=1.0 / n)
        for p in m.pairs:
            for jointed in (False, True):
                e = drop_rebound(m, p.a, p.b, jointed, st)
                mu = math.tan(math.radians(friction_angle(m, p.a, p.b, jointed, st)))
                v = roll_speed_for(p.rolling.value)
                d = rolled_distance(m, p.a, p.b, speed=v, jointed=jointed, settings=st)
                print(f"1/{n:<4} {p.key:22} {'jointed' if jointed else 'fixed':8} "
                      f"{e:.3f} / {p.restitution.value:.3f} {mu:.3f} / {p.friction.value:.3f} "
                      f"{d / predicted_roll_distance(p.rolling.value, v):10.3f}", flush=True)


if __name__ == "__main__":
    main()
