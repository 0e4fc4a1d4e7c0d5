"""Throughput of a device beside a bare PyBullet loop stepping the same world.

`bench_device` runs N trials through the device (the real estimate path) and times, inside those
trials, every call that steps the world: the bare loop of exactly the trials' own steps, from the
trials' own starts, with the device's work (placing bodies, reading, the settle and escape checks,
the motors' targets) taken out. The ratio stepping_time / device_time is our throughput as a
fraction of that bare loop's.

It also runs, in the same process and the same world, a separate bare loop: the bodies put in the
benchmark's start pose and `stepSimulation` called as many times with nothing else. That loop steps
other motion than the trials (a Tipper left resting once its one tilt is over steps faster than one
rocking its ball through the pegs; a motor held at one speed is not a hand's stroke), so its ratio
is reported beside the first, not instead of it. A device whose moving body stops early in every
trial and then rests (the spinner's pointer, the crater's marble) sets `bench_restart_each_trial`:
its separate loop restarts from the start pose for each trial's number of steps (the restarts
untimed), so that both loops step similar motion.
"""
from __future__ import annotations

import time
from typing import Callable

from tabletop.sim.batch import DeviceRef, run_trials
from tabletop.sim.devices.base import Device


#: the numerics every device ran at before the converged settings (1/480 s, 50 iterations)
LEGACY = (("physics.timestep", repr(1.0 / 480.0)), ("physics.solver_iterations", "50"))


def bench_device(build: Callable[[tuple], Device], trials: int, seed: int = 12345, overrides=()) -> dict:
    """Trials per second of the device `build(overrides)` makes (its spec with the `--set` pairs
    `overrides`) beside the bare loop. The caller knows the devices (tabletop.gamekit.devices);
    this module does not."""
    device = build(tuple(overrides))
    try:
        run_trials(device, seed, range(2))  # warm caches (meshes, imports)
        world = device.world
        world_step = world.step
        stepping = [0.0]

        def timed_step(n: int = 1) -> None:
            t = time.perf_counter()
            world_step(n)
            stepping[0] += time.perf_counter() - t

        world.step = timed_step               # on this instance only, for the timed trials
        try:
            t0 = time.perf_counter()
            records = run_trials(device, seed, range(trials))
            ours = time.perf_counter() - t0
        finally:
            del world.step
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
        "bare_s": stepping[0],
        "trials_per_s": trials / ours,
        "bare_trials_per_s": trials / stepping[0],
        "ratio_vs_bare": stepping[0] / ours,
        "us_per_step": 1e6 * ours / steps,
        "separate_loop": {"bare_s": bare, "bare_trials_per_s": trials / bare, "ratio_vs_bare": bare / ours,
                          "restarted_each_trial": bool(getattr(device, "bench_restart_each_trial", False)),
                          "us_per_step": 1e6 * bare / steps},
    }


def bench_scaling(ref: DeviceRef, name: str, trials: int, seed: int = 2024) -> dict:
    """Wall time of `trials` trials of the device `ref` builds (called `name` in the figures) with
    one local worker, two local workers and a two-worker Dask LocalCluster (when Dask is installed),
    and the speed-ups between them."""
    from tabletop.sim.batch import run_batch

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


def summary_rows(figures: dict) -> tuple[list[str], list[list[str]]]:
    """The device figures of a `tabletop bench` run as a table: (column titles, one row per device)
    (every figure, and the scaling runs', stays in the JSON of --out). Titles are short, on lines of
    their own, so that the table fits 80 columns uncut."""
    columns = ["device", "trials/s", "bare\ntrials/s", "ratio", "us/step", "separate\nloop ratio",
               "at 1/480 s\ntrials/s"]
    rows = []
    for name, fig in figures["devices"].items():
        old = fig.get("legacy")
        rows.append([name, f"{fig['trials_per_s']:.2f}", f"{fig['bare_trials_per_s']:.2f}",
                     f"{fig['ratio_vs_bare']:.3f}", f"{fig['us_per_step']:.1f}",
                     f"{fig['separate_loop']['ratio_vs_bare']:.3f}", f"{old['trials_per_s']:.2f}" if old else "-"])
    return columns, rows
