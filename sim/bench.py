"""Throughput of a device beside a bare PyBullet loop stepping the same world.

`bench_device` runs N trials through the device (the real estimate path) and counts the
physics steps they took; then, in the same process and the same world, it puts the bodies in
their start pose and calls `stepSimulation` that many times with nothing else. The ratio
bare_time / device_time is our throughput as a fraction of the bare loop's.

A device whose moving body stops early in every trial and then rests (the spinner's pointer, which
touches nothing, turns for most of a trial's steps and Bullet steps it ~7% slower turning than at
rest) sets `bench_restart_each_trial`: its bare loop restarts from the start pose for each trial's
number of steps (the restarts untimed), so that both loops step the same motion.
"""
from __future__ import annotations

import time

from sim.batch import run_trials


#: the numerics every device ran at before the converged settings (1/480 s, 50 iterations)
LEGACY = (("physics.timestep", repr(1.0 / 480.0)), ("physics.solver_iterations", "50"))


def bench_device(name: str, trials: int, seed: int = 12345, overrides=()) -> dict:
    """Trials per second of device `name` (its spec with `overrides`) beside the bare loop."""
    from games.devices import make_device

    device = make_device(name, overrides=tuple(overrides))
    try:
        run_trials(device, seed, range(2))  # warm caches (meshes, imports)
        t0 = time.perf_counter()
        records = run_trials(device, seed, range(trials))
        ours = time.perf_counter() - t0
        steps = sum(r["steps"] for r in records)
        device.place_for_benchmark()
        step = device.world.client.stepSimulation
        if getattr(device, "bench_restart_each_trial", False):
            bare = 0.0
            for r in records:
                device.place_for_benchmark()
                t0 = time.perf_counter()
                for _ in range(r["steps"]):
                    step()
                bare += time.perf_counter() - t0
        else:
            t0 = time.perf_counter()
            for _ in range(steps):
                step()
            bare = time.perf_counter() - t0
    finally:
        device.close()
    return {
        "overrides": dict(overrides),
        "trials": trials,
        "steps": steps,
        "device_s": ours,
        "bare_s": bare,
        "trials_per_s": trials / ours,
        "bare_trials_per_s": trials / bare,
        "ratio_vs_bare": bare / ours,
        "bare_restarted_each_trial": bool(getattr(device, "bench_restart_each_trial", False)),
        "us_per_step": 1e6 * ours / steps,
    }


def bench_scaling(name: str, trials: int, seed: int = 2024) -> dict:
    """Wall time of `trials` trials with one local worker, two local workers and a two-worker Dask
    LocalCluster (when Dask is installed), and the speed-ups between them."""
    from sim.batch import DeviceRef, run_batch

    ref = DeviceRef("games.devices:make_device", (name,))
    out: dict = {"device": name, "trials": trials}
    for workers in (1, 2):
        t0 = time.perf_counter()
        run_batch(ref, trials, seed, workers=workers)
        out[f"local_{workers}_s"] = time.perf_counter() - t0
    out["speedup_2_vs_1"] = out["local_1_s"] / out["local_2_s"]
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        return out
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as client:
        t0 = time.perf_counter()
        run_batch(ref, trials, seed, executor=client.get_executor(pure=False))
        out["dask_2_s"] = time.perf_counter() - t0
    out["dask_vs_local_2"] = out["local_2_s"] / out["dask_2_s"]
    return out
