"""Load and validate parametric part specs (TOML, SI units, Z up).

A spec is a TOML file; values are read through `Table`, which names the file and
the dotted key in every error, so a user can fix a typo in one look.
"""
from __future__ import annotations

import hashlib
import json
import math
import re
import tomllib
from pathlib import Path
from typing import Any

from tabletop.sim.errors import SpecError

_MISSING = object()


class Table:
    """A validated view of one TOML table, remembering where it came from."""

    def __init__(self, data: dict, source: str, prefix: str = ""):
        self.data = data
        self.source = source
        self.prefix = prefix

    def _where(self, key: str) -> str:
        return f"{self.source}: {self.prefix}{key}"

    def __contains__(self, key: str) -> bool:
        return key in self.data

    def table(self, key: str) -> "Table":
        value = self.data.get(key, _MISSING)
        if not isinstance(value, dict):
            raise SpecError(f"{self._where(key)}: expected a table")
        return Table(value, self.source, f"{self.prefix}{key}.")

    def tables(self, key: str) -> list["Table"]:
        value = self.data.get(key, _MISSING)
        if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
            raise SpecError(f"{self._where(key)}: expected a non-empty array of tables")
        return [Table(v, self.source, f"{self.prefix}{key}[{i}].") for i, v in enumerate(value)]

    def number(self, key: str, lo: float = -math.inf, hi: float = math.inf, default: Any = _MISSING) -> float:
        value = self.data.get(key, default)
        if value is _MISSING:
            raise SpecError(f"{self._where(key)}: missing")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise SpecError(f"{self._where(key)}: expected a number, got {value!r}")
        if not lo <= value <= hi:
            raise SpecError(f"{self._where(key)}: {value} is outside [{lo}, {hi}]")
        return float(value)

    def integer(self, key: str, lo: int = -(2**62), hi: int = 2**62, default: Any = _MISSING) -> int:
        value = self.data.get(key, default)
        if value is _MISSING:
            raise SpecError(f"{self._where(key)}: missing")
        if isinstance(value, bool) or not isinstance(value, int):
            raise SpecError(f"{self._where(key)}: expected an integer, got {value!r}")
        if not lo <= value <= hi:
            raise SpecError(f"{self._where(key)}: {value} is outside [{lo}, {hi}]")
        return value

    def string(self, key: str, default: Any = _MISSING) -> str:
        value = self.data.get(key, default)
        if value is _MISSING:
            raise SpecError(f"{self._where(key)}: missing")
        if not isinstance(value, str) or not value:
            raise SpecError(f"{self._where(key)}: expected a non-empty string, got {value!r}")
        return value

    def range(self, key: str, lo: float = -math.inf, hi: float = math.inf) -> tuple[float, float]:
        """A [low, high] pair of numbers inside [lo, hi] with low <= high."""
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            raise SpecError(f"{self._where(key)}: missing")
        if (not isinstance(value, list) or len(value) != 2
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
            raise SpecError(f"{self._where(key)}: expected [low, high], got {value!r}")
        a, b = float(value[0]), float(value[1])
        if not (lo <= a <= b <= hi):
            raise SpecError(f"{self._where(key)}: [{a}, {b}] must satisfy {lo} <= low <= high <= {hi}")
        return a, b

    def numbers(self, key: str) -> tuple[float, ...]:
        """A non-empty list of numbers."""
        value = self.data.get(key, _MISSING)
        if (not isinstance(value, list) or not value
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
            raise SpecError(f"{self._where(key)}: expected a non-empty list of numbers, got {value!r}")
        return tuple(float(v) for v in value)

    def vector(self, key: str, n: int = 3) -> tuple[float, ...]:
        value = self.data.get(key, _MISSING)
        if (not isinstance(value, list) or len(value) != n
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
            raise SpecError(f"{self._where(key)}: expected {n} numbers, got {value!r}")
        return tuple(float(v) for v in value)


MATERIALS_PREFIX = "materials."

#: PyBullet's own solver residual threshold, where a spec names none (tabletop.sim.world.PhysicsSettings)
DEFAULT_SOLVER_RESIDUAL = 1e-7
#: PyBullet's contact slop (m), where a spec names none (tabletop.sim.world.PhysicsSettings says what it costs)
DEFAULT_CONTACT_SLOP = 1e-5


def read_numerics(part, physics: Table, longest_step: float = 1.0 / 60.0) -> None:
    """A spec's [physics] numerics kept on `part` (a device, or the shape it is built from):
    `timestep`, `solver_iterations` and the optional `solver_residual_threshold` and `contact_slop`."""
    part.timestep = physics.number("timestep", 1e-5, longest_step)
    part.solver_iterations = physics.integer("solver_iterations", 1, 1000)
    part.solver_residual_threshold = physics.number("solver_residual_threshold", 1e-12, 1e-3,
                                                    default=DEFAULT_SOLVER_RESIDUAL)
    part.contact_slop = physics.number("contact_slop", 0.0, 1e-3, default=DEFAULT_CONTACT_SLOP)


def parse_overrides(items) -> tuple[tuple[str, str], ...]:
    """`NAME=VALUE` strings (VALUE in TOML syntax: 0.3, [0.2, 0.5], "glass") -> hashable pairs."""
    out = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise SpecError(f"--set: expected NAME=VALUE, got {item!r}")
        out.append((name.strip(), value.strip()))
    return tuple(out)


def override_value(name: str, text: str) -> Any:
    """The TOML value `text`; a bare word (letters, digits, _, + and -, starting with a letter or
    a sign) is taken as text, so that `--set shape.kind=cylinder` or `--set gesture.start=+z`
    needs no shell-quoted quotes."""
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        if re.fullmatch(r"[A-Za-z+\-][A-Za-z0-9_+\-]*", text) and re.search(r"[A-Za-z]", text):
            return text
        raise SpecError(f"--set {name}: {text!r} is not a TOML value (a number, [a, b] or \"text\")") from None


def leaf_names(data: Any, prefix: str = "") -> list[str]:
    """Every settable dotted name in a spec: table keys, with array-of-table indices."""
    if isinstance(data, dict):
        return [n for k, v in data.items() for n in leaf_names(v, f"{prefix}{k}.")]
    if isinstance(data, list) and data and all(isinstance(v, dict) for v in data):
        return [n for i, v in enumerate(data) for n in leaf_names(v, f"{prefix}{i}.")]
    return [prefix[:-1]]


def apply_overrides(data: dict, overrides, source: str, prefix: str = "") -> dict:
    """A copy of `data` with the overrides whose names start with `prefix` set; an unknown
    name is a SpecError listing the valid ones."""
    import copy

    data = copy.deepcopy(data)
    valid = set(leaf_names(data))
    for name, text in overrides:
        if not name.startswith(prefix) or (not prefix and name.startswith(MATERIALS_PREFIX)):
            continue
        key = name[len(prefix):]
        if key not in valid:
            import difflib

            names = sorted(prefix + n for n in valid)
            close = difflib.get_close_matches(name, names, n=6, cutoff=0.5)
            listing = (f"did you mean: {', '.join(close)}" if close and len(names) > 30
                       else f"valid: {', '.join(names)}" if len(names) <= 30
                       else f"see {source} for the {len(names)} names")
            raise SpecError(f"--set: unknown parameter {name!r} for {source}; {listing}"
                            + ("" if prefix else f"; and {MATERIALS_PREFIX}NAME.FIELD for a material"))
        *path, last = key.split(".")
        node = data
        for part in path:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[last] = override_value(name, text)
    return data


def load_toml(path: str | Path, overrides=()) -> Table:
    """Read a TOML spec file with optional `--set` overrides; a missing or malformed file (or an
    unknown override) raises SpecError."""
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except FileNotFoundError:
        raise SpecError(f"spec file not found: {path}") from None
    except IsADirectoryError:
        raise SpecError(f"spec path is a folder, not a file: {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise SpecError(f"{path}: invalid TOML: {exc}") from None
    except OSError as exc:
        raise SpecError(f"cannot read spec file {path}: {exc.strerror}") from None
    if overrides:
        data = apply_overrides(data, overrides, str(path))
    return Table(data, str(path))


def digest(obj: Any) -> str:
    """A stable short hash of JSON-able data (used to key mesh caches)."""
    blob = json.dumps(obj, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def read_spec(part, spec_path: str | Path, overrides=()) -> None:
    """Read `part`'s spec: keep its path and `--set` overrides on it and hand the loaded Table to
    its `_load`, which checks the values and keeps what it needs."""
    part.spec_path = Path(spec_path)
    part.overrides = tuple(overrides)
    part._load(load_toml(part.spec_path, part.overrides))


class SpecShape:
    """A part whose dimensions and materials come from a spec file (with `--set` overrides), read
    by the subclass's `_load`: the shapes views draw without PyBullet, and the devices built on them."""

    def __init__(self, spec_path: str | Path, overrides=()):
        read_spec(self, spec_path, overrides)

    def _load(self, spec: Table) -> None:
        raise NotImplementedError
