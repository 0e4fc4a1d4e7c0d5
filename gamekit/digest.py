"""A digest of a game's rules as source, for the solvers' caches."""
from __future__ import annotations

import hashlib
from pathlib import Path


def rules_digest(folder: Path, names) -> str:
    """The files `names` in `folder` (rules, board data) and the machinery's state.py (the base every
    rules state stands on), hashed: a solver keys its cached solutions on it, so that a solution of
    other rules is never used."""
    from tabletop.gamekit import state

    h = hashlib.sha256()
    for path in [Path(folder) / name for name in names] + [Path(state.__file__)]:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]
