"""What the command says when a long run is interrupted."""
from __future__ import annotations

import shlex
import sys

from tabletop.app.longrun import Interrupted


def say_interrupted(exc: Interrupted, argv: list[str]) -> int:
    """Ctrl-C in a long run: one line (where the checkpoint is and the command that resumes it);
    exit 130."""
    from tabletop.app.console import console

    err = console(stderr=True)
    if exc.checkpoint is None:
        hint = " (give --out to keep a checkpoint)" if exc.resumable else ""
        err.print(f"[yellow]interrupted: no result written{hint}[/yellow]", soft_wrap=True)
    else:
        again = shlex.join(["tabletop", *argv] + ([] if exc.resumed else ["--resume"]))
        err.print(f"[yellow]interrupted after {exc.done} {exc.unit}, kept in {exc.checkpoint}; "
                  f"resume with: {again}[/yellow]", soft_wrap=True)
    return 130


def stderr(text: str) -> None:
    print(text, file=sys.stderr)
