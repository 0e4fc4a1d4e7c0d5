"""Monte Carlo runs of a device: per-trial seeds, executors and the result summary.

Trial i of a run with seed S draws everything from
`numpy.random.default_rng(SeedSequence(S, spawn_key=(i,)))`, the i-th child that
`SeedSequence(S).spawn` would give; a trial's outcome therefore depends on (S, i) alone, and a
run's counts do not depend on how many workers ran it or in which order.

Each worker process builds its device once (one PyBullet DIRECT client per process) and runs
chunks of trial indices; devices re-create their moving bodies every trial (and the Tipper, whose
jointed tray a re-creation alone does not make independent, renews its Bullet world), so a trial
does not depend on the trials run before it in the same world.

The same machinery runs work that is not a device's trials (`TaskRef`: whole games, `tabletop
analyze`): the ref builds, once per worker, a callable that gives the records of a chunk of indices.

A run may perturb its trials (`PairDraws`, `estimate --uncertainty`): trial i then draws the
world's material pair values from a second stream of its own, `SeedSequence(S, spawn_key=(i, 1))`,
so its gesture is the unperturbed trial's and the run stays deterministic for any number of workers.
"""
from __future__ import annotations

import concurrent.futures as cf
import contextlib
import importlib
import multiprocessing
import threading
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Sequence

import numpy as np

from tabletop.sim.devices.base import Device, Status
from tabletop.sim.errors import InputError
from tabletop.sim.materials import PAIR_FIELDS, PairTable
from tabletop.sim.stats import wilson_interval


@dataclass(frozen=True)
class Recipe:
    """A picklable recipe: a "module:function" factory and its arguments, built in each worker."""

    factory: str
    args: tuple = ()

    def build(self):
        module, func = self.factory.split(":")
        return getattr(importlib.import_module(module), func)(*self.args)


@dataclass(frozen=True)
class DeviceRef(Recipe):
    """A recipe for a device, whose chunks are its trials (`run_trials`)."""

    def run(self, device: Device, seed: int, indices: Sequence[int], perturb: "PairDraws | None") -> list[dict]:
        return run_trials(device, seed, indices, perturb)


@dataclass(frozen=True)
class TaskRef(Recipe):
    """A recipe for other work run in chunks: the factory builds a task, called as
    `task(seed, indices)` for one record per index (each with its "index"); it may have `close()`."""

    def run(self, task, seed: int, indices: Sequence[int], perturb: "PairDraws | None") -> list[dict]:
        if perturb is not None:
            raise ValueError("a task's runs take no perturbation")
        return task(seed, indices)


def trial_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))


def draw_rng(seed: int, index: int) -> np.random.Generator:
    """Trial `index`'s stream for perturbations, apart from its own `trial_rng`."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index, 1)))


def pair_parameter(pair: str, field: str) -> str:
    """The `--set` name of one value of a material pair ("a/b")."""
    return f"materials.pairs.{pair}.{field}"


@dataclass(frozen=True)
class PairDraws:
    """A picklable per-trial perturbation: every field of each named material pair drawn
    uniformly from its range (independently per trial) and set on the device's world; the
    `pinned` values (`--set` name, value) set as given instead (a calibration's held-out point),
    every value still drawn so that the others' stream is the same."""

    pairs: tuple[str, ...]
    pinned: tuple[tuple[str, float], ...] = ()

    def apply(self, world, base: PairTable, seed: int, index: int) -> dict[str, float]:
        """Give `world` trial `index`'s draw from `base`; returns the drawn values by `--set` name."""
        rng = draw_rng(seed, index)
        pinned = dict(self.pinned)
        pairs, drawn = dict(base.pairs), {}
        for key in self.pairs:
            pair = base.pairs[key]
            values = {}
            for field in PAIR_FIELDS:
                pv = getattr(pair, field)
                name = pair_parameter(key, field)
                value = float(rng.uniform(pv.low, pv.high))
                values[field] = replace(pv, value=float(pinned.get(name, value)))
                drawn[name] = values[field].value
            pairs[key] = replace(pair, **values)
        world.set_pair_table(PairTable(pairs, base.source))
        return drawn


def run_trials(device: Device, seed: int, indices: Iterable[int], perturb: PairDraws | None = None) -> list[dict]:
    """Run the given trial indices on a built device; one compact record per trial. With
    `perturb`, each trial first gets its draw (kept in the record as `drawn`); the device's own
    pair values are put back afterwards."""
    base = device.world.pair_table if perturb is not None else None
    out = []
    try:
        for i in indices:
            drawn = perturb.apply(device.world, base, seed, i) if perturb is not None else None
            rng = trial_rng(seed, i)
            outcome = device.run(rng, device.sample_gesture(rng))
            record = {"index": i, "label": outcome.label, "status": str(outcome.status),
                      "group": outcome.group, "sim_time": outcome.sim_time, "steps": outcome.steps}
            extra = device.record_extra(outcome)
            if extra:
                record["extra"] = extra
            if drawn is not None:
                record["drawn"] = drawn
            out.append(record)
    finally:
        if perturb is not None:
            device.world.set_pair_table(base)
    return out


_worker = threading.local()   # one device per worker thread (a Dask worker may run several threads)


def _run_chunk(ref: DeviceRef | TaskRef, seed: int, indices: Sequence[int], perturb: PairDraws | None) -> list[dict]:
    devices = getattr(_worker, "devices", None)
    if devices is None:
        devices = _worker.devices = {}
    device = devices.get(ref)
    if device is None:
        device = devices[ref] = ref.build()
    return ref.run(device, seed, indices, perturb)


def _executor_slots(executor: cf.Executor) -> int:
    """How many chunks an executor runs at once (a Dask cluster's threads; else 2)."""
    client = getattr(executor, "_client", None)
    try:
        return max(1, sum(client.nthreads().values())) if client is not None else 2
    except Exception:  # noqa: BLE001 - a cluster that cannot say: assume two
        return 2


@contextlib.contextmanager
def dask_executor(address: str, timeout: float = 10.0):
    """A concurrent.futures executor on the Dask cluster at `address` (tcp://HOST:PORT).

    An unreachable scheduler is an InputError naming the address."""
    import re

    if not re.fullmatch(r"(?:(?:tcp|tls)://)?[\w.\-]+:\d{1,5}", address):
        raise InputError(f"--scheduler: expected tcp://HOST:PORT, got {address!r}")
    try:
        from distributed import Client
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install -e '.[dist]'") from None
    try:
        client = Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(f"--scheduler: cannot reach the Dask scheduler at {address} "
                         f"({type(exc).__name__})") from None
    try:
        yield client.get_executor(pure=False)
    finally:
        client.close()


def _ignore_sigint() -> None:
    """Worker initializer: Ctrl-C goes to the parent, which stops the run and says how to resume."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_batch(ref: DeviceRef | TaskRef, trials: int, seed: int, workers: int = 1,
              device: Device | None = None, chunk_size: int | None = None,
              progress: Callable[[int], None] | None = None, skip: Iterable[int] = (),
              on_chunk: Callable[[list[dict]], None] | None = None,
              executor: cf.Executor | None = None, perturb: PairDraws | None = None) -> list[dict]:
    """Run trials 0..trials-1, except those in `skip`, and return their records in index order.
    `ref` is a DeviceRef (a device's trials) or a TaskRef (any other work, e.g. whole games).

    With an `executor` (e.g. a Dask cluster's) the chunks run there; else with workers == 1 in
    this process (on `device` when given); otherwise in a pool of `workers` spawned processes,
    each building its own device. `on_chunk` gets each finished chunk's records as it completes
    (checkpoints append them). `perturb` goes with every chunk (see `run_trials`).
    """
    done = set(skip)
    todo = [i for i in range(trials) if i not in done]
    if chunk_size is None:
        slots = _executor_slots(executor) if executor is not None else workers
        chunk_size = max(1, min(50 if executor is None else 20, len(todo) // (slots * 8) or 1))
    chunks = [todo[a:a + chunk_size] for a in range(0, len(todo), chunk_size)]
    records: list[dict] = []

    def finished(part: list[dict]) -> None:
        records.extend(part)
        if on_chunk:
            on_chunk(part)
        if progress:
            progress(len(part))

    if executor is not None:
        futures = [executor.submit(_run_chunk, ref, seed, chunk, perturb) for chunk in chunks]
        try:
            for fut in cf.as_completed(futures):
                finished(fut.result())
        finally:
            for fut in futures:
                fut.cancel()
    elif workers == 1:
        own = device is None
        device = device or ref.build()
        try:
            for chunk in chunks:
                finished(ref.run(device, seed, chunk, perturb))
        finally:
            close = getattr(device, "close", None)
            if own and close is not None:
                close()
    else:
        ctx = multiprocessing.get_context("spawn")
        pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_ignore_sigint)
        try:
            futures = [pool.submit(_run_chunk, ref, seed, chunk, perturb) for chunk in chunks]
            for fut in cf.as_completed(futures):
                finished(fut.result())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    records.sort(key=lambda r: r["index"])
    return records


def _label_table(labels: Sequence[str], records: Sequence[dict]) -> dict:
    counts = {label: 0 for label in labels}
    for r in records:
        if r["status"] == Status.OK:
            counts[r["label"]] += 1
    n = sum(counts.values())
    probs = {}
    for label, k in counts.items():
        lo, hi = wilson_interval(k, n)
        probs[label] = {"p": k / n if n else 0.0, "ci95": [lo, hi]}
    return {"labelled": n, "counts": counts, "probabilities": probs}


def summarize(labels: Sequence[str], records: Sequence[dict]) -> dict:
    """Counts by status and by label, with 95% Wilson intervals.

    Probabilities are among the trials that produced a label (status ok); the trials that
    did not (unsettled, escaped, lodged) are counted beside them, never dropped.
    """
    status = {s.value: 0 for s in Status}
    for r in records:
        status[r["status"]] += 1
    summary = {
        "trials": len(records),
        "settled": status[Status.OK] + status[Status.LODGED],
        "unsettled": status[Status.UNSETTLED],
        "escaped": status[Status.ESCAPED],
        "lodged": status[Status.LODGED],
        **_label_table(labels, records),
        "mean_sim_time_s": float(np.mean([r["sim_time"] for r in records])) if records else 0.0,
        "steps": int(sum(r["steps"] for r in records)),
    }
    groups = sorted({r["group"] for r in records if r["group"] is not None})
    if groups:
        by_group = {}
        for g in groups:
            sub = [r for r in records if r["group"] == g]
            by_group[g] = {"trials": len(sub), **_label_table(labels, sub)}
        summary["by_group"] = by_group
    return summary
