"""The die and its box lid as their spec (assets/king_kong/die.toml) gives them: the die's size,
edge rounding, material and the labels of its faces, the lid's dimensions; no World, so views draw
the die's pips without PyBullet. tabletop.sim.devices.die builds the lid and throws the die."""
from __future__ import annotations


from tabletop.sim.errors import SpecError
from tabletop.sim.materials import load_materials, pick_material
from tabletop.sim.paths import assets_dir
from tabletop.sim.spec import SpecShape, Table

LABELS = ("1", "2", "3", "4", "5", "6")
AXES = ("+x", "-x", "+y", "-y", "+z", "-z")       # the order of `die.faces`


class DieShape(SpecShape):
    """The die (edge `size`, faces `faces` labelling +X, -X, +Y, -Y, +Z, -Z) and the lid, read
    and checked from the spec."""

    def _load(self, spec: Table) -> None:
        src = spec.source
        materials = load_materials(assets_dir() / "materials.toml", self.overrides)

        d = spec.table("die")
        self.size = d.number("size", 0.005, 0.05)
        self.edge_radius = d.number("edge_radius", 0.0002, self.size / 4)
        self.die_material = pick_material(d, "material", materials)
        faces = d.data.get("faces")
        if (not isinstance(faces, list) or len(faces) != 6 or sorted(map(str, faces)) != list(LABELS)
                or not all(isinstance(f, str) for f in faces)):
            raise SpecError(f"{src}: die.faces: expected the six labels \"1\"..\"6\" once each, for "
                            f"+X, -X, +Y, -Y, +Z, -Z, got {faces!r}")
        for axis in range(3):
            a, b = faces[2 * axis], faces[2 * axis + 1]
            if int(a) + int(b) != 7:
                raise SpecError(f"{src}: die.faces: opposite faces {AXES[2 * axis]} ({a}) and "
                                f"{AXES[2 * axis + 1]} ({b}) must sum to 7")
        self.faces = tuple(faces)

        t = spec.table("lid")
        self.lid_material = pick_material(t, "material", materials)
        self.half_x = t.number("half_x", 0.05, 2.0)
        self.half_y = t.number("half_y", 0.05, 2.0)
        self.wall_height = t.number("wall_height", 0.0, 0.5)
        self.wall_thickness = t.number("wall_thickness", 0.005, 0.2)
        self.floor_thickness = t.number("floor_thickness", 0.005, 0.2)

    @property
    def labels(self) -> tuple[str, ...]:
        return LABELS
