"""Does a Tipper trial keep its slot when the step is halved, and where do the two paths part?

    python scripts/check_tipper_paths.py [--trials 3000] [--seed 1] [--from 0]

Each trial (the spec's Tipper, seed and index as in `tabletop estimate`) runs at 1/960 s and at
1/1920 s with the ball's centre recorded in the tray's frame every 1/960 s. Printed: the slot at the
step against the slot at half of it (a table of counts), how many trials kept their slot against
how many two independent draws from the same odds would, and, for the trials that changed between
two given slots (`--pair 6,4`, both ways), the part of the tray where their paths first lie more than
1 mm apart (the start's slots, its peg field, the waist and flares, the far peg field, the far
slots; by the -Y edge, the middle or the +Y edge). With `--from N` the trials start at index N (to
split a run over processes).
"""
from __future__ import annotations

import argparse
from collections import Counter

import numpy as np

from tabletop.gamekit.devices import make_device
from tabletop.sim.batch import trial_rng

STEPS = (1 / 960, 1 / 1920)


def region(x: float, y: float, half: float, slot_len: float, field_end: float, edge: float) -> str:
    """The part of the tray at tray-frame (x, y): the ball starts at end A (-X)."""
    if x < -(half - slot_len):
        part = "start slots"
    elif x < -field_end:
        part = "start peg field"
    elif x < field_end:
        part = "waist and flares"
    elif x < half - slot_len:
        part = "far peg field"
    else:
        part = "far slots"
    side = "-Y edge" if y < -edge else "+Y edge" if y > edge else "middle"
    return f"{part}, {side}"


def paths(device, index: int, seed: int, every: int) -> tuple[str | None, np.ndarray]:
    """A trial's slot and its ball's tray-frame path, one point every `every` steps."""
    path: list = []

    def watch(world):
        if world.steps % every == 0:
            path.append(device.ball_in_tray())
    device.world.watchers.append(watch)
    try:
        outcome = device.run(trial_rng(seed, index))
    finally:
        device.world.watchers.remove(watch)
    return outcome.label, np.array(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--from", dest="start", type=int, default=0)
    ap.add_argument("--pair", default="6,4", help="two slots: where do trials moving between them part")
    args = ap.parse_args()
    pair = tuple(args.pair.split(","))
    devices = [make_device("tipper", overrides=(("physics.timestep", repr(dt)),)) for dt in STEPS]
    tipper = devices[0]
    half, slot_len = tipper.half_length, tipper.half_length - tipper.x_slots
    field_end = tipper.waist_half_length + tipper.flare_length
    edge = tipper.width / 2 - tipper.slot_widths[0]         # the edge slots' inner sides
    moves, parted = Counter(), Counter()
    try:
        for i in range(args.start, args.start + args.trials):
            (a, pa), (b, pb) = (paths(d, i, args.seed, every) for d, every in zip(devices, (1, 2)))
            moves[(a, b)] += 1
            if {a, b} == set(pair) and a != b:
                n = min(len(pa), len(pb))
                apart = np.linalg.norm(pa[:n, :2] - pb[:n, :2], axis=1) > 0.001
                if apart.any():
                    k = int(np.argmax(apart))
                    parted[region(pa[k, 0], pa[k, 1], half, slot_len, field_end, edge)] += 1
    finally:
        for d in devices:
            d.close()
    labels = list(tipper.slot_order) + [None]
    print(f"{args.trials} trials from index {args.start}, seed {args.seed}: the slot at 1/960 s (rows) "
          f"against 1/1920 s (columns)")
    print("      " + " ".join(f"{str(b):>5}" for b in labels))
    for a in labels:
        print(f"{str(a):>5} " + " ".join(f"{moves[(a, b)]:5d}" for b in labels))
    kept = sum(moves[(a, a)] for a in labels)
    p = np.array([sum(moves[(a, b)] for b in labels) for a in labels]) / args.trials
    print(f"kept their slot: {kept} ({kept / args.trials:.3f}); two independent draws would: {float(p @ p):.3f}")
    print(f"{pair[0]} -> {pair[1]}: {moves[pair]}, {pair[1]} -> {pair[0]}: {moves[pair[::-1]]}; "
          "where their paths first lay 1 mm apart:")
    for where, n in parted.most_common():
        print(f"  {where}: {n}")


if __name__ == "__main__":
    main()
