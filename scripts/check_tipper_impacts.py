"""How a ball leaves one of the Tipper's posts, at several time steps: does a single bounce converge?

    python scripts/check_tipper_impacts.py [--speeds 0.15,0.3,0.5] [--steps 960,1920,3840,7680]
                                           [--set NAME=VALUE ...]

The tray is held level and a ball rolls (without slipping) along +X at each speed toward the first
row's post nearest the centre line, its path offset sideways by 0.05 to 7.45 mm in 0.1 mm steps.
6 ms after it would reach the post's centre line it is read: the direction it moves in, in degrees.
For each speed the script prints, for each halving of the step, at how many offsets that direction
moved by more than 5 degrees and the mean move. A converged contact model moves less at each
halving. `--set` overrides the Tipper's spec as `tabletop estimate` does: `--set pegs.shape=star
--set physics.contact_slop=1e-5` builds the posts and the slop of physics version 2, whose bounces
moved more at each halving (docs/physics-profile.md, issue 40 part 4).
"""
import argparse
import math

import numpy as np

from tabletop.gamekit.devices import default_spec
from tabletop.sim.devices.tipper import Tipper


def leaving_angle(overrides, dt: float, offset: float, speed: float) -> float:
    """The direction (degrees, 0 along +X) a ball rolled at `speed` past the post at `offset` leaves in."""
    t = Tipper(default_spec("tipper"), overrides=(*overrides, ("physics.timestep", repr(dt))))
    try:
        t.place("B", t.slot_order[0])
        c, r = t.world.client, t.ball_radius
        c.resetJointState(t._tray, 0, 0.0, 0.0)
        t._hold(0.0)
        xp, yp = min(t.pegs, key=lambda p: (p[0], abs(p[1])))
        ball = t.world.bodies["ball"]
        c.resetBasePositionAndOrientation(ball, t._tray_to_world((xp - 0.015, yp + offset, r), 0.0), (0, 0, 0, 1))
        c.resetBaseVelocity(ball, (speed, 0.0, 0.0), (0.0, speed / r, 0.0))
        t.world.step(int(round((0.015 / speed + 0.006) / dt)))
        vx, vy, _ = c.getBaseVelocity(ball)[0]
        return math.degrees(math.atan2(vy, vx))
    finally:
        t.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--speeds", default="0.15,0.3,0.5", help="ball speeds in m/s, comma-separated")
    ap.add_argument("--steps", default="960,1920,3840,7680", help="time steps as 1/N s, comma-separated")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="override the spec")
    a = ap.parse_args()
    overrides = tuple(tuple(s.split("=", 1)) for s in a.set)
    steps = [int(s) for s in a.steps.split(",")]
    offsets = np.arange(0.05, 7.5, 0.1) * 1e-3
    print(f"{'speed':>6}  " + "  ".join(f"1/{n} -> 1/{m}: > 5 deg, mean" for n, m in zip(steps, steps[1:])))
    for speed in (float(s) for s in a.speeds.split(",")):
        angles = np.array([[leaving_angle(overrides, 1.0 / n, b, speed) for n in steps] for b in offsets])
        moved = np.abs((angles[:, 1:] - angles[:, :-1] + 180.0) % 360.0 - 180.0)
        print(f"{speed:6.2f}  " + "  ".join(f"{int((moved[:, k] > 5).sum()):>14} of {len(offsets)}, {moved[:, k].mean():5.2f}"
                                            for k in range(len(steps) - 1)), flush=True)


if __name__ == "__main__":
    main()
