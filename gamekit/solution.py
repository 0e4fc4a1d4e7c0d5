"""A solver's solution file, for the games that are solved (their solve.py): an .npz of named
arrays and a JSON `meta` that names its format, the solver's version and the rules' digest
(tabletop.gamekit.digest), so that a file of another game, solver or rules is refused."""
from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np

from tabletop.sim.errors import InputError


def write_solution(path: str | Path, meta: dict, **arrays: np.ndarray) -> None:
    """Write `meta` (JSON) and `arrays` as a compressed .npz (temp file, then renamed into place)."""
    from tabletop.sim.output import write_bytes_atomic

    buf = io.BytesIO()
    np.savez_compressed(buf, meta=np.array(json.dumps(meta)), **arrays)
    write_bytes_atomic(path, buf.getvalue())


def read_solution(path: str | Path, game: str, fmt: str, version, rules: str, names) -> tuple[dict, dict]:
    """(meta, {name: array}) of a saved solution of `game` with the arrays `names`; a missing file,
    one of another format or solver version (`fmt`, `version`) or of other rules (`rules`, the
    digest it was solved for) is an InputError, one line."""
    try:
        with np.load(path) as f:
            meta = json.loads(str(f["meta"]))
            arrays = {name: f[name] for name in names}
    except FileNotFoundError:
        raise InputError(f"solution file not found: {path}") from None
    except (OSError, ValueError, KeyError, EOFError):
        raise InputError(f"{path}: not a {game} solution file") from None
    if meta.get("format") != fmt or meta.get("version") != version:
        raise InputError(f"{path}: not a {game} solution of this version ({version})")
    if meta.get("rules") != rules:
        raise InputError(f"{path}: solved for other rules than these; solve again")
    return meta, arrays
