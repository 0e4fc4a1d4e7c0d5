"""Where the project's data files live."""
from __future__ import annotations

import os
from importlib import resources
from pathlib import Path


def assets_dir() -> Path:
    """The assets folder (part specs, materials): the tabletop.assets package, which is assets/ in
    a checkout and tabletop/assets/ in an installed wheel; $TABLETOP_ASSETS overrides it."""
    env = os.environ.get("TABLETOP_ASSETS")
    return Path(env) if env else Path(str(resources.files("tabletop.assets")))
