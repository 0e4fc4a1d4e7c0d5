"""Throughput of a device beside a bare PyBullet loop stepping the same world, and the numerics the
devices were converged at on 2026-12-06 (`CONVERGED_2026_12`, `CONVERGED_2026_12_BEHAVIOUR`) and
before that (`LEGACY`), which `tabletop bench` runs each device at beside its spec.

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
from tabletop.sim.errors import InputError


#: the numerics every device ran at before the converged settings (1/480 s, 50 iterations)
LEGACY = (("physics.timestep", repr(1.0 / 480.0)), ("physics.solver_iterations", "50"))

#: each device's converged numerics as its spec gave them on 2026-12-06 (issue 40), frozen as `--set`
#: overrides: the time step and solver iterations, the crater's contact ERP, the settle rule and the
#: generated meshes' resolution, the numerics the speed work may change. `tabletop bench` runs every
#: device at these beside its spec, so that a spec changed later is measured against the settings it
#: replaced (while nothing has changed, the two are the same settings: new / converged is 1.0 within
#: the run-to-run noise). A device not named here has no converged figure.
CONVERGED_2026_12: dict[str, tuple[tuple[str, str], ...]] = {
    "crater": (("physics.timestep", "0.0005208333333333333"), ("physics.solver_iterations", "50"),
               ("physics.solver_residual_threshold", "1e-07"), ("physics.contact_erp", "0.8"),
               ("settle.linear", "0.005"), ("settle.angular", "0.6"), ("settle.hold", "0.25"),
               ("settle.cap", "30.0"), ("settle.every", "48"), ("crater.angular_segments", "384"),
               ("crater.ring_spacing", "0.00075"), ("tube.ring_spacing", "0.0015"), ("tunnels.grid_step", "0.0005"),
               ("collision.sdf_cell", "0.002")),
    "die": (("physics.timestep", "0.0010416666666666667"), ("physics.solver_iterations", "50"),
            ("physics.solver_residual_threshold", "1e-07"), ("settle.linear", "0.005"), ("settle.angular", "0.5"),
            ("settle.hold", "0.2"), ("settle.cap", "10.0"), ("settle.every", "12")),
    "kong-knockover": (("physics.timestep", "0.0010416666666666667"), ("physics.solver_iterations", "50"),
                       ("physics.solver_residual_threshold", "1e-07"), ("settle.linear", "0.005"),
                       ("settle.angular", "0.5"), ("settle.hold", "0.25"), ("settle.cap", "15.0"),
                       ("settle.every", "12")),
    "spinner": (("physics.timestep", "0.004166666666666667"), ("physics.solver_iterations", "50"),
                ("physics.solver_residual_threshold", "1e-07"), ("settle.linear", "0.002"),
                ("settle.angular", "0.03"), ("settle.hold", "0.1"), ("settle.cap", "20.0"), ("settle.every", "48")),
    "sticks": (("physics.timestep", "0.0010416666666666667"), ("physics.solver_iterations", "50"),
               ("physics.solver_residual_threshold", "1e-07"), ("settle.linear", "0.01"), ("settle.angular", "1.0"),
               ("settle.hold", "0.3"), ("settle.cap", "20.0"), ("settle.every", "12"), ("stick.segments", "33")),
    "throw": (("physics.timestep", "0.0010416666666666667"), ("physics.solver_iterations", "50"),
              ("physics.solver_residual_threshold", "1e-07"), ("settle.linear", "0.005"), ("settle.angular", "0.5"),
              ("settle.hold", "0.2"), ("settle.cap", "10.0"), ("settle.every", "12")),
    "tipper": (("physics.timestep", "0.0010416666666666667"), ("physics.solver_iterations", "50"),
               ("physics.solver_residual_threshold", "1e-07"), ("settle.linear", "0.005"),
               ("settle.angular", "0.5"), ("settle.hold", "0.25"), ("settle.cap", "10.0"), ("settle.every", "12"),
               # its posts and contact slop until physics version 3 (the spec's keys since)
               ("pegs.shape", "star"), ("physics.contact_slop", "1e-05")),
    # the test plugin's coin (tests/plugins/coin_race), benched wherever it is installed
    "coin": (("physics.timestep", "0.0010416666666666667"), ("physics.solver_iterations", "50"),
             ("physics.solver_residual_threshold", "1e-07"), ("settle.linear", "0.005"), ("settle.angular", "0.5"),
             ("settle.hold", "0.2"), ("settle.cap", "10.0"), ("settle.every", "12")),
}


#: what a device did in code on 2026-12-06, where a later change made it a switch: attributes set on
#: the built device for the converged run, so that a shortcut added since (the crater's trial that ends
#: as soon as its label cannot change, its settle checks stepped as Bullet substeps) is off there and
#: new / converged measures it. A device without a named attribute is not run at the converged numerics
#: (bench says why): the switch was renamed, and this table wants the new name.
CONVERGED_2026_12_BEHAVIOUR: dict[str, dict[str, object]] = {
    "crater": {"end_when_decided": False, "substeps": False},
    "tipper": {"tray_as_one_link": False, "substeps": False, "end_when_decided": False},
}


def converged_timestep(name: str) -> float | None:
    """The time step frozen in CONVERGED_2026_12 for `name` (None when none is)."""
    for key, value in CONVERGED_2026_12.get(name, ()):
        if key == "physics.timestep":
            return float(value)
    return None


def speed_ratios(fig: dict) -> dict:
    """new / converged and new / legacy trials per second of one device's figures (None where that
    run is missing), as `tabletop bench` puts them in its JSON."""
    def ratio(other):
        return fig["trials_per_s"] / other["trials_per_s"] if other and "trials_per_s" in other else None
    return {"new_vs_converged": ratio(fig.get("converged")), "new_vs_legacy": ratio(fig.get("legacy"))}


class _TimedDevice:
    """One device built for a bench run: trials run in chunks, their time and the time of every call
    that steps its world summed; `figures` steps the separate loop and closes it."""

    def __init__(self, build: Callable[[tuple], Device], seed: int, overrides=(), attributes: dict | None = None):
        self.overrides, self.attributes, self.seed = tuple(overrides), dict(attributes or {}), seed
        self.device = device = build(self.overrides)
        try:
            for attr, value in self.attributes.items():
                if not hasattr(device, attr):
                    raise InputError(f"{type(device).__name__} has no attribute {attr!r} to set for this run "
                                     f"(renamed? CONVERGED_2026_12_BEHAVIOUR in tabletop.sim.bench names it)")
                setattr(device, attr, value)
            run_trials(device, seed, range(2))  # warm caches (meshes, imports)
        except BaseException:
            device.close()
            raise
        self.records: list[dict] = []
        self.ours = 0.0
        self.stepping = 0.0

    def run(self, indices) -> None:
        """Run the trials `indices`, timing them and, inside them, every call that steps the world."""
        world = self.device.world
        world_step, engine_step = world.step, world.client.stepSimulation

        def timed_step(n: int = 1) -> None:
            t = time.perf_counter()
            world_step(n)
            self.stepping += time.perf_counter() - t

        def timed_engine_step(*args, **kwargs):
            t = time.perf_counter()
            out = engine_step(*args, **kwargs)
            self.stepping += time.perf_counter() - t
            return out

        # on these instances only, for the timed trials: World.step, and the engine's own step for a
        # device that calls it directly (several Bullet substeps in one call); World.step steps
        # through the call it fetched when it was made, so no step is timed twice
        world.step = timed_step
        world.client.stepSimulation = timed_engine_step
        try:
            t0 = time.perf_counter()
            self.records += run_trials(self.device, self.seed, indices)
            self.ours += time.perf_counter() - t0
        finally:
            del world.step
            del world.client.stepSimulation

    def figures(self) -> dict:
        """The run's figures, with the separate bare loop stepped now; closes the device."""
        device, records = self.device, self.records
        try:
            trials, ours, stepping = len(records), self.ours, self.stepping
            steps = sum(r["steps"] for r in records)
            device.place_for_benchmark()
            step = device.world.client.stepSimulation
            restart = bool(getattr(device, "bench_restart_each_trial", False))
            if restart:
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
            "overrides": dict(self.overrides),
            **({"attributes": self.attributes} if self.attributes else {}),
            "trials": trials,
            "steps": steps,
            "device_s": ours,
            "bare_s": stepping,
            "trials_per_s": trials / ours,
            "bare_trials_per_s": trials / stepping,
            "ratio_vs_bare": stepping / ours,
            "us_per_step": 1e6 * ours / steps,
            "separate_loop": {"bare_s": bare, "bare_trials_per_s": trials / bare, "ratio_vs_bare": bare / ours,
                              "restarted_each_trial": restart, "us_per_step": 1e6 * bare / steps},
        }


def bench_device(build: Callable[[tuple], Device], trials: int, seed: int = 12345, overrides=(),
                 attributes: dict | None = None) -> dict:
    """Trials per second of the device `build(overrides)` makes (its spec with the `--set` pairs
    `overrides`, then each of `attributes` set on it) beside the bare loop. The caller knows the
    devices (tabletop.gamekit.devices); this module does not. Overrides or attributes the device
    refuses raise InputError."""
    fig = bench_devices(build, trials, {"run": (overrides, attributes)}, seed)["run"]
    if "missing" in fig:
        raise InputError(fig["missing"])
    return fig


def bench_devices(build: Callable[[tuple], Device], trials: int, runs: dict[str, tuple], seed: int = 12345,
                  rounds: int = 10) -> dict[str, dict]:
    """`bench_device`'s figures for several runs of one device, name -> (overrides, attributes), each
    over the same trials, interleaved: the trials go in `rounds` chunks, each chunk through every run
    in turn (the order rotated from chunk to chunk), so that a machine whose load changes during the
    bench slows every run alike and their ratios hold. A run that cannot be built (its overrides or
    attributes refused) gets {"overrides", "missing": why} and the others go on."""
    built: dict[str, _TimedDevice] = {}
    out: dict[str, dict] = {}
    try:
        for name, (overrides, attributes) in runs.items():
            try:
                built[name] = _TimedDevice(build, seed, overrides, attributes)
            except InputError as exc:
                out[name] = {"overrides": dict(overrides), "missing": str(exc)}
        size = max(1, -(-trials // rounds))
        chunks = [range(i, min(i + size, trials)) for i in range(0, trials, size)]
        order = list(built)
        for k, chunk in enumerate(chunks):
            for name in order[k % len(order):] + order[:k % len(order)] if order else ():
                built[name].run(chunk)
        for name in list(built):
            out[name] = built.pop(name).figures()
    finally:
        for timed in built.values():
            timed.device.close()
    return {name: out[name] for name in runs}


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
    """The device figures of a `tabletop bench` run as a table: (column titles, one row per device):
    trials per second at the spec's settings (new), at CONVERGED_2026_12 and at LEGACY, the two
    ratios, the bare loop of the new trials' own steps (trials per second) and the new trials' speed
    as a fraction of it (every figure, and the scaling runs', stays in the JSON of --out). Titles
    are short, on lines of their own, so that the table fits 80 columns uncut."""
    columns = ["device", "new", "conv-\nerged", "at\n1/480", "new/\nconv", "new/\n1/480", "bare", "to\nbare"]
    rows = []

    def speed(run):
        if not run or "trials_per_s" not in run:
            return "-"
        v = run["trials_per_s"]
        return f"{v:.1f}" if v >= 10 else f"{v:.2f}"

    def times(r):
        return f"{r:.2f}" if r is not None else "-"
    for name, fig in figures["devices"].items():
        r = fig.get("ratios") or speed_ratios(fig)
        rows.append([name, speed(fig), speed(fig.get("converged")), speed(fig.get("legacy")),
                     times(r["new_vs_converged"]), times(r["new_vs_legacy"]),
                     speed({"trials_per_s": fig["bare_trials_per_s"]}), f"{fig['ratio_vs_bare']:.2f}"])
    return columns, rows
