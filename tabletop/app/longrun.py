"""What every long run shares: the executor, the checkpoint and --resume, progress, Ctrl-C, and
writing the result (whole or not at all) before the plot.

A job tells its front end what happens through a `Reporter`: `note` (a line the command prints on
stderr), `warn`, `progress(total, title)` (a bar whose `advance(n)` and `grow(total)` the job
calls) and `show(result)` (the result, before --out is written). `Reporter()` itself is silent:
the API's default.
"""
from __future__ import annotations

import contextlib
import json
from pathlib import Path

from tabletop.sim.errors import InputError


class Bar:
    """A progress bar: the silent one counts nothing."""

    def advance(self, n: int) -> None:
        pass

    def grow(self, total: int) -> None:
        pass


class Reporter:
    """What a job tells its front end; this one tells nothing."""

    def note(self, text: str) -> None:
        pass

    def warn(self, text: str) -> None:
        pass

    def step(self, text: str) -> None:
        """A line of progress (a sweep's value done): shown where a bar would be."""

    @contextlib.contextmanager
    def progress(self, total: int, title: str):
        yield Bar()

    def show(self, result) -> None:
        pass


class Interrupted(KeyboardInterrupt):
    """Ctrl-C in a long run once what it finished is safe: `checkpoint` is the file that keeps it
    (None: nothing was kept), `done` how many `unit`s it holds, `resumed` whether the run was a
    --resume already. The front end says how to resume (the command line repeats its argv)."""

    def __init__(self, checkpoint: Path | None, done: int, unit: str, resumed: bool, resumable: bool = True):
        super().__init__()
        self.checkpoint, self.done, self.unit, self.resumed = checkpoint, done, unit, resumed
        self.resumable = resumable   # whether --out would have kept a checkpoint


def executor(scheduler: str | None):
    """The Dask executor `scheduler` names (None without it), as a context manager."""
    from tabletop.sim.batch import dask_executor

    return dask_executor(scheduler) if scheduler else contextlib.nullcontext(None)


def check_outputs(**paths) -> None:
    """Each given output (`out=`, `csv=`, `record=`, `policy=`: a file; `plot=`: a figure whose
    format its suffix names) checked before any work: its folder exists, it is no folder itself."""
    from tabletop.sim.output import check_output_path, check_plot_path

    for name, path in paths.items():
        if path is not None:
            (check_plot_path if name == "plot" else check_output_path)(path, f"--{name}")


def open_checkpoint(out: Path | None, header: dict, resume: bool, created: dict | None = None):
    """The checkpoint beside `out` (None without --out): resumed, or made afresh with `header` and
    `created`'s fields (kept only in a new one's header)."""
    from tabletop.sim.checkpoint import Checkpoint, checkpoint_path

    if out is None:
        if resume:
            raise InputError("--resume needs --out: the checkpoint lives beside the result file")
        return None
    path = checkpoint_path(out)
    if resume:
        return Checkpoint.resume(path, header)
    return Checkpoint.create(path, {**header, **(created or {})})


def interrupted(checkpoint, unit: str, resumed: bool):
    """Ctrl-C: the Interrupted that says what is kept."""
    if checkpoint is None:
        return Interrupted(None, 0, unit, resumed)
    return Interrupted(checkpoint.path, len(checkpoint.records), unit, resumed)


def write_file(write, option: str, path: Path, kept: str) -> None:
    """`write()` (a whole file, by a temp file and a rename); an OSError then (a full disk, a lost
    permission) is one InputError saying what is kept."""
    try:
        write()
    except OSError as exc:
        raise InputError(f"{option} {path}: could not write it ({exc.strerror or exc}); {kept}") from None


def draw(plot, path: Path, result, out: Path | None) -> None:
    """`plot()` drawn to `path`; a failure is one InputError (the result kept as its `.result`)."""
    try:
        plot()
    except (OSError, ValueError, RuntimeError) as exc:
        reason = (exc.strerror or str(exc)) if isinstance(exc, OSError) else str(exc).splitlines()[0]
        kept = f"the result is in {out}" if out is not None else "the result is shown above; give --out to keep it"
        error = InputError(f"--plot {path}: could not write the plot ({reason}); {kept}")
        error.result = result
        raise error from None


def finish(result, out: Path | None, plot_path: Path | None, plot, checkpoint, reporter: Reporter,
           keep_checkpoint: bool = False):
    """A long run's end: show the result, write `out` (the JSON, whole or not at all; the checkpoint
    then goes, the result being safe, unless `keep_checkpoint`: a run that more trials would extend),
    then draw `plot()` to `plot_path`; returns the result. A plot that fails now is one InputError that
    says where the result is, carrying it as `.result`."""
    from tabletop.sim.output import write_json_atomic

    reporter.show(result)
    if out is not None:
        kept = (f"the finished work is kept in {checkpoint.path}: the same command with --resume writes it"
                if checkpoint is not None else "nothing was written")
        write_file(lambda: write_json_atomic(out, result.to_dict()), "--out", out, kept)
        if checkpoint is not None and not keep_checkpoint:
            checkpoint.remove()
        reporter.note(f"wrote {out}")
    if plot_path is not None:
        draw(plot, plot_path, result, out)
        reporter.note(f"wrote {plot_path}")
    return result


def jsonable(value):
    """`value` as its JSON text reads back (what a checkpoint header keeps)."""
    return json.loads(json.dumps(value, default=str))
