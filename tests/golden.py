"""Helpers for golden playthroughs and cross-process determinism checks shared by the game tests."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def check_golden(path: Path, log: str) -> None:
    """Compare a log with its recorded golden file (TABLETOP_UPDATE_GOLDEN=1 re-records it)."""
    if os.environ.get("TABLETOP_UPDATE_GOLDEN"):
        path.write_text(log)
    assert log == path.read_text()


def log_in_fresh_process(module: str, seed: int) -> str:
    """`module._golden_log(seed)` computed in a new Python process."""
    code = f"from {module} import _golden_log; import sys; sys.stdout.write(_golden_log({seed}))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          check=True).stdout
