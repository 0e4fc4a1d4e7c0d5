"""Contact materials as PAIRS, and the per-body values that make Bullet produce them.

A contact's sliding friction, restitution and rolling and spinning resistance belong to the
pair of materials that touch (assets/materials.toml, `[pairs."a/b"]`, each value with a
plausible range and a source). A material itself carries only bulk properties (density, air
drag stand-ins). Bullet, however, keeps one value per body (per link of a jointed body) and
combines two bodies' values at a contact (btManifoldResult):

    friction     mu_ab = f_a * f_b                    (clamped to 10)
    restitution  e_ab  = e_a * e_b
    rolling      r_ab  = r_a * f_b + r_b * f_a        (a length, metres)
    spinning     s_ab  = s_a * f_b + s_b * f_a        (a length, metres)

`solve_contact_values` inverts those rules for the material pairs that occur in one World:
friction and restitution by least squares on their logarithms (exact whenever the pairs that
occur form no odd cycle that disagrees, e.g. glass on glass and glass on polystyrene), rolling
and spinning by non-negative least squares once the frictions are known. Whatever cannot be
met exactly is reported (`ContactSolution.unmet`), never hidden.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from tabletop.sim.errors import SpecError
from tabletop.sim.spec import MATERIALS_PREFIX, Table, apply_overrides, load_toml

PAIR_FIELDS = ("friction", "restitution", "rolling", "spinning")
PAIRS_KEY = "pairs"
_BOUNDS = {"friction": (0.0, 5.0), "restitution": (0.0, 1.0), "rolling": (0.0, 0.01), "spinning": (0.0, 0.01)}
MAX_FRICTION = 10.0          # Bullet clamps combined friction to [-10, 10]
_FLOOR = 1e-6                # smallest per-body friction / restitution (the logarithm needs > 0)


@dataclass(frozen=True)
class PairValue:
    """One contact property of a pair: the value used, its plausible range and where it comes from."""

    value: float
    low: float
    high: float
    source: str

    def as_dict(self) -> dict:
        return {"value": self.value, "range": [self.low, self.high], "source": self.source}


@dataclass(frozen=True)
class Pair:
    """The contact of two materials (names sorted, "a/b")."""

    a: str
    b: str
    friction: PairValue
    restitution: PairValue
    rolling: PairValue
    spinning: PairValue
    note: str = ""
    weight: float = 1.0

    @property
    def key(self) -> str:
        return pair_key(self.a, self.b)

    def value(self, name: str) -> float:
        return getattr(self, name).value

    def as_dict(self) -> dict:
        out = {f: getattr(self, f).as_dict() for f in PAIR_FIELDS}
        if self.note:
            out["note"] = self.note
        if self.weight != 1.0:
            out["weight"] = self.weight
        return out


def pair_key(a: str, b: str) -> str:
    x, y = sorted((a, b))
    return f"{x}/{y}"


@dataclass(frozen=True)
class Material:
    """A material's bulk properties; its contact properties live in the pairs it belongs to.

    `pairs` is the pair table the material was loaded with (shared by every material of one
    file), so a World that receives bodies of these materials can derive their contact values."""

    name: str
    linear_damping: float
    angular_damping: float
    density: float
    source: str = ""
    pairs: "PairTable | None" = field(default=None, compare=False, repr=False)

    @classmethod
    def from_table(cls, name: str, t: Table, pairs: "PairTable | None" = None) -> "Material":
        for old in ("friction", "rolling_friction", "spinning_friction", "restitution"):
            if old in t:
                raise SpecError(f"{t.source}: {t.prefix}{old}: contact properties belong to a pair of "
                                f"materials; set them in [pairs.\"{name}/OTHER\"] of assets/materials.toml")
        return cls(
            name=name,
            linear_damping=t.number("linear_damping", 0.0, 10.0),
            angular_damping=t.number("angular_damping", 0.0, 10.0),
            density=t.number("density", 1.0, 30000.0),
            source=str(t.data.get("source", "")),
            pairs=pairs,
        )

    def as_dict(self) -> dict:
        d = asdict(self)
        d.pop("pairs")
        return d


class PairTable:
    """Every pair of assets/materials.toml (after `--set` overrides), by "a/b" key."""

    def __init__(self, pairs: dict[str, Pair], source: str = ""):
        self.pairs = pairs
        self.source = source

    def get(self, a: str, b: str) -> Pair | None:
        return self.pairs.get(pair_key(a, b))

    def __contains__(self, key) -> bool:
        return (pair_key(*key) if isinstance(key, tuple) else key) in self.pairs

    def __iter__(self):
        return iter(self.pairs.values())

    def as_dict(self) -> dict:
        return {k: p.as_dict() for k, p in self.pairs.items()}


def _pair_from_table(key: str, t: Table, names: Iterable[str]) -> Pair:
    a, sep, b = key.partition("/")
    if not sep or not a or not b:
        raise SpecError(f"{t.source}: pairs.{key}: a pair is named \"MATERIAL/MATERIAL\"")
    names = set(names)
    for m in (a, b):
        if m not in names:
            raise SpecError(f"{t.source}: pairs.{key}: unknown material {m!r}; known: {', '.join(sorted(names))}")
    if key != pair_key(a, b):
        raise SpecError(f"{t.source}: pairs.{key}: name the pair in alphabetical order, \"{pair_key(a, b)}\"")
    values = {}
    for f in PAIR_FIELDS:
        lo, hi = _BOUNDS[f]
        v = t.number(f, lo, hi)
        rlo, rhi = t.range(f"{f}_range", lo, hi)   # a --set value may leave it (a sweep, a what-if)
        src = t.string(f"{f}_source")
        values[f] = PairValue(v, rlo, rhi, src)
    return Pair(a, b, note=str(t.data.get("note", "")), weight=t.number("weight", 1e-3, 1e3, default=1.0), **values)


class MaterialSet(dict):
    """Materials by name (a dict), with the pair table they share as `.pairs`."""

    pairs: PairTable


def load_materials(path: str | Path, overrides=()) -> MaterialSet:
    """All materials and pairs of a materials TOML file; `--set materials.NAME.FIELD=VALUE` sets a
    material's bulk property, `--set materials.pairs.A/B.FIELD=VALUE` a pair's value."""
    spec = load_toml(path)
    if overrides:
        spec = Table(apply_overrides(spec.data, overrides, str(path), MATERIALS_PREFIX), spec.source)
    names = [n for n in spec.data if n != PAIRS_KEY]
    raw = spec.data.get(PAIRS_KEY, {})
    if not isinstance(raw, dict):
        raise SpecError(f"{spec.source}: pairs: expected a table of pairs")
    ptable = spec.table(PAIRS_KEY) if raw else None
    pairs = {k: _pair_from_table(k, ptable.table(k), names) for k in raw}
    table = PairTable(pairs, str(path))
    out = MaterialSet((n, Material.from_table(n, spec.table(n), table)) for n in names)
    out.pairs = table
    return out


def pick_material(t: Table, key: str, materials: dict[str, Material]) -> Material:
    """The material a spec names at `key`; an unknown name is a SpecError listing the known ones."""
    name = t.string(key)
    if name not in materials:
        raise SpecError(f"{t.source}: {t.prefix}{key}: unknown material {name!r}; "
                        f"choose one of: {', '.join(materials)}")
    return materials[name]


# -- from pair values to per-body values -------------------------------------------------------

@dataclass(frozen=True)
class BodyValues:
    """The values one body (or link) of a material gets from changeDynamics."""

    friction: float
    restitution: float
    rolling: float
    spinning: float


@dataclass
class ContactSolution:
    """Per-material values for the pairs that occur in one World, and how well they meet them."""

    values: dict[str, BodyValues]
    pairs: list[str]                                  # the pairs fitted
    achieved: dict[str, dict[str, float]]             # pair -> field -> the value Bullet will combine
    unmet: list[str] = field(default_factory=list)    # "pair field: wanted W, gets G"
    missing: list[str] = field(default_factory=list)  # pairs that occur but have no entry

    def report(self) -> dict:
        return {"pairs": self.pairs, "achieved": self.achieved, "unmet": self.unmet, "missing": self.missing,
                "per_material": {m: asdict(v) for m, v in self.values.items()}}


def combine(a: BodyValues, b: BodyValues) -> dict[str, float]:
    """What Bullet makes of two bodies' values at a contact (btManifoldResult's rules)."""
    f = max(-MAX_FRICTION, min(MAX_FRICTION, a.friction * b.friction))
    return {"friction": f, "restitution": a.restitution * b.restitution,
            "rolling": min(MAX_FRICTION, a.rolling * b.friction + b.rolling * a.friction),
            "spinning": min(MAX_FRICTION, a.spinning * b.friction + b.spinning * a.friction)}


def solve_contact_values(materials: Iterable[str], occurring: Iterable[tuple[str, str]],
                         table: PairTable, rel_tol: float = 1e-3) -> ContactSolution:
    """Per-material body values whose Bullet combinations give the table's pair values for the
    `occurring` material pairs. A material in no fitted pair keeps friction and restitution 1 and
    no rolling or spinning resistance (it touches nothing that matters)."""
    from scipy.optimize import nnls

    mats = sorted(set(materials))
    idx = {m: i for i, m in enumerate(mats)}
    keys, missing = [], []
    for a, b in sorted({tuple(sorted(p)) for p in occurring}):
        (keys if table.get(a, b) is not None else missing).append((a, b))
    n = len(mats)
    logs = {}
    for fname in ("friction", "restitution"):
        if not keys:
            logs[fname] = np.zeros(n)
            continue
        A = np.zeros((len(keys), n))
        y = np.zeros(len(keys))
        for row, (a, b) in enumerate(keys):
            w = math.sqrt(table.get(a, b).weight)
            A[row, idx[a]] += w
            A[row, idx[b]] += w
            y[row] = w * math.log(max(table.get(a, b).value(fname), _FLOOR ** 2))
        x, *_ = np.linalg.lstsq(A, y, rcond=None)
        logs[fname] = x
    fr = np.maximum(np.exp(logs["friction"]), _FLOOR)
    re = np.maximum(np.exp(logs["restitution"]), _FLOOR)
    lin = {}
    for fname in ("rolling", "spinning"):
        if not keys:
            lin[fname] = np.zeros(n)
            continue
        A = np.zeros((len(keys), n))
        y = np.zeros(len(keys))
        for row, (a, b) in enumerate(keys):
            w = math.sqrt(table.get(a, b).weight)
            A[row, idx[a]] += w * fr[idx[b]]
            A[row, idx[b]] += w * fr[idx[a]]
            y[row] = w * table.get(a, b).value(fname)
        lin[fname] = nnls(A, y)[0]
    values = {m: BodyValues(float(fr[i]), float(re[i]), float(lin["rolling"][i]), float(lin["spinning"][i]))
              for m, i in idx.items()}
    achieved, unmet = {}, []
    for a, b in keys:
        got = combine(values[a], values[b])
        k = pair_key(a, b)
        achieved[k] = got
        for fname in PAIR_FIELDS:
            want = table.get(a, b).value(fname)
            if abs(got[fname] - want) > rel_tol * max(abs(want), 1e-9):
                unmet.append(f"{k} {fname}: wanted {want:.4g}, gets {got[fname]:.4g}")
    return ContactSolution(values, [pair_key(a, b) for a, b in keys], achieved, unmet,
                           [pair_key(a, b) for a, b in missing])
