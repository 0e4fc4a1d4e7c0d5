"""Where the gentle toss's odds move with the step: each trial thrown at 1/960, 1/1920 and 1/3840 s.

    python scripts/check_toss_steps.py [--trials 3000] [--seed 1] [--set NAME=VALUE ...]

The toss is validate's Kapitaniak case (a 16 mm polystyrene cube, +z up, 5.6-7.2 cm above wood,
<= 0.3 m/s, <= 5 rad/s about a level axis). Each trial's release is drawn once and thrown at the
three steps. The trials are grouped by the cube's tilt at its first touch (the angle between the
body axis nearest vertical and the vertical, from the release's spin and fall time): a cube landing
nearly flat strikes with two to four corners a fraction of a millisecond apart. Per group: how many
trials, the share whose face changed at each halving, and P(+z) at each step (+z is the face that
loses at every halving in `tabletop converge`). `--set` adds spec overrides, for example
`--set materials.pairs.polystyrene/wood.restitution=0`.
"""
from __future__ import annotations

import argparse

import numpy as np
from scipy.spatial.transform import Rotation

from tabletop.gamekit.devices import make_device
from tabletop.sim.batch import trial_rng
from tabletop.sim.spec import parse_overrides

TOSS = (("surface.material", "wood"), ("surface.wall_height", "0.1"), ("gesture.mode", "toss"),
        ("gesture.start", "+z"), ("gesture.spin", "[0, 5]"), ("gesture.speed", "[0, 0.3]"),
        ("gesture.elevation_deg", "[-30, 0]"), ("gesture.height", "[0.056, 0.072]"))
STEPS = (1 / 960, 1 / 1920, 1 / 3840)
TILT_BINS = (0, 2, 4, 6, 10, 20, 46)


def tilt_at_touch(release, half: float, gravity: float) -> float:
    """Degrees off flat when the cube's centre has fallen to `half` above the floor."""
    z0, vz = release.position[2], release.velocity[2]
    t = (vz + np.sqrt(vz * vz + 2 * gravity * (z0 - half))) / gravity
    turned = Rotation.from_rotvec(np.array(release.spin) * t) * Rotation.from_quat(release.orientation)
    return float(np.degrees(np.arccos(np.max(np.abs(turned.as_matrix()[2, :])))))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    args = ap.parse_args()
    extra = parse_overrides(args.set)
    devices = [make_device("throw", overrides=TOSS + extra + (("physics.timestep", repr(dt)),)) for dt in STEPS]
    labels, tilts = [], []
    try:
        for i in range(args.trials):
            release = devices[0].sample_gesture(trial_rng(args.seed, i))
            labels.append([str(d.run(trial_rng(args.seed, i), gesture=release).label) for d in devices])
            tilts.append(tilt_at_touch(release, 0.008, devices[0].world.settings.gravity))
    finally:
        for d in devices:
            d.close()
    lab, tilt = np.array(labels), np.array(tilts)
    steps = ", ".join(f"1/{round(1 / dt)} s" for dt in STEPS)
    print(f"{args.trials} trials, seed {args.seed}; P(+z) at {steps}: "
          + " ".join(f"{(lab[:, k] == '+z').mean():.3f}" for k in range(len(STEPS))))
    print("tilt at touch (deg) | trials | face changed at each halving | P(+z) at each step")
    for a, b in zip(TILT_BINS, TILT_BINS[1:]):
        m = (tilt >= a) & (tilt < b)
        if not m.any():
            continue
        changed = " ".join(f"{(lab[m, k] != lab[m, k + 1]).mean():.2f}" for k in range(len(STEPS) - 1))
        pz = " ".join(f"{(lab[m, k] == '+z').mean():.2f}" for k in range(len(STEPS)))
        print(f"{a:>2}-{b:<2} | {m.sum():5d} | {changed} | {pz}")


if __name__ == "__main__":
    main()
