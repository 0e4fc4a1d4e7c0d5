"""The golden playthroughs' check, shared by the game tests (the same log from another process:
tests/test_game_contracts.py, over every registered game)."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).parents[1]


def check_golden(path: Path, log: str) -> None:
    """Compare a log with its recorded golden file (TABLETOP_UPDATE_GOLDEN=1 re-records it)."""
    if os.environ.get("TABLETOP_UPDATE_GOLDEN"):
        path.write_text(log)
    assert log == path.read_text()
