"""Where the project's data files live."""
from __future__ import annotations

import os
from pathlib import Path


def assets_dir() -> Path:
    """The assets/ folder (part specs, materials); $TABLETOP_ASSETS overrides it."""
    env = os.environ.get("TABLETOP_ASSETS")
    return Path(env) if env else Path(__file__).resolve().parents[1] / "assets"
