"""A job's progress on the terminal: rich bars and notes on stderr (no bars when `quiet`), the
result shown by the front end's `show`. The command line's reporter, and the API's with
progress=True."""
from __future__ import annotations

import contextlib
import os

from tabletop.app.longrun import Bar, Reporter

PIPED_WIDTH = 1000    # the columns rich lays out for a file or a pipe: a table there is never cut at 80


def console(stderr: bool = False):
    """A rich Console on stdout (or stderr): a terminal's width on a terminal; printed to a file or
    a pipe, PIPED_WIDTH columns (rich's 80 would cut a table's names, "materials.pairs.…"), unless
    COLUMNS says how wide."""
    from rich.console import Console

    out = Console(stderr=stderr)
    if not out.is_terminal and not os.environ.get("COLUMNS"):
        out = Console(stderr=stderr, width=PIPED_WIDTH)
    return out


class _RichBar(Bar):
    def __init__(self, progress, task):
        self.progress, self.task = progress, task

    def advance(self, n: int) -> None:
        self.progress.advance(self.task, n)

    def grow(self, total: int) -> None:
        self.progress.update(self.task, total=total)


class ConsoleReporter(Reporter):
    """Notes and warnings on stderr, progress bars there unless `quiet`, each step line on stderr
    (or stdout: `steps_out`), and the result shown by `show`."""

    def __init__(self, quiet: bool = False, show=None, steps_out: bool = False):
        self.err = console(stderr=True)
        self.quiet, self._show, self.steps_out = quiet, show, steps_out

    def note(self, text: str) -> None:
        self.err.print(text, soft_wrap=True)

    def warn(self, text: str) -> None:
        self.err.print(f"[yellow]warning: {text}[/yellow]")

    def step(self, text: str) -> None:
        if self.steps_out:
            print(text, flush=True)
        elif not self.quiet:
            self.err.print(text, soft_wrap=True)

    @contextlib.contextmanager
    def progress(self, total: int, title: str):
        if self.quiet:
            yield Bar()
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        columns = (TextColumn(title), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with Progress(*columns, console=self.err, transient=False) as progress:
            yield _RichBar(progress, progress.add_task("trials", total=total))

    def show(self, result) -> None:
        if self._show is not None:
            self._show(result)
