"""Contact materials: every body gets explicit friction, rolling/spinning friction,
restitution and damping (PyBullet's defaults make a marble roll forever)."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path

from sim.errors import SpecError
from sim.spec import MATERIALS_PREFIX, Table, apply_overrides, load_toml


@dataclass(frozen=True)
class Material:
    name: str
    friction: float
    rolling_friction: float
    spinning_friction: float
    restitution: float
    linear_damping: float
    angular_damping: float
    density: float

    @classmethod
    def from_table(cls, name: str, t: Table) -> "Material":
        return cls(
            name=name,
            friction=t.number("friction", 0.0, 5.0),
            rolling_friction=t.number("rolling_friction", 0.0, 0.01),
            spinning_friction=t.number("spinning_friction", 0.0, 0.01),
            restitution=t.number("restitution", 0.0, 1.0),
            linear_damping=t.number("linear_damping", 0.0, 10.0),
            angular_damping=t.number("angular_damping", 0.0, 10.0),
            density=t.number("density", 1.0, 30000.0),
        )

    def as_dict(self) -> dict:
        return asdict(self)


def pick_material(t: Table, key: str, materials: dict[str, Material]) -> Material:
    """The material a spec names at `key`; an unknown name is a SpecError listing the known ones."""
    name = t.string(key)
    if name not in materials:
        raise SpecError(f"{t.source}: {t.prefix}{key}: unknown material {name!r}; "
                        f"choose one of: {', '.join(materials)}")
    return materials[name]


def load_materials(path: str | Path, overrides=()) -> dict[str, Material]:
    """All materials of a materials TOML file, by name; `--set materials.NAME.FIELD=VALUE` overrides."""
    spec = load_toml(path)
    if overrides:
        spec = Table(apply_overrides(spec.data, overrides, str(path), MATERIALS_PREFIX), spec.source)
    return {name: Material.from_table(name, spec.table(name)) for name in spec.data}
