"""Throughput of a device beside a bare PyBullet loop stepping the same world.

`bench_device` runs N trials through the device (the real estimate path) and counts the
physics steps they took; then, in the same process and the same world, it puts the bodies in
their start pose and calls `stepSimulation` that many times with nothing else. The ratio
bare_time / device_time is our throughput as a fraction of the bare loop's.
"""
from __future__ import annotations

import time

from sim.batch import run_trials


def bench_device(name: str, trials: int, seed: int = 12345) -> dict:
    from games.devices import make_device

    device = make_device(name)
    try:
        run_trials(device, seed, range(2))  # warm caches (meshes, imports)
        t0 = time.perf_counter()
        records = run_trials(device, seed, range(trials))
        ours = time.perf_counter() - t0
        steps = sum(r["steps"] for r in records)
        device.place_for_benchmark()
        step = device.world.client.stepSimulation
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        bare = time.perf_counter() - t0
    finally:
        device.close()
    return {
        "trials": trials,
        "steps": steps,
        "device_s": ours,
        "bare_s": bare,
        "trials_per_s": trials / ours,
        "bare_trials_per_s": trials / bare,
        "ratio_vs_bare": bare / ours,
        "us_per_step": 1e6 * ours / steps,
    }
