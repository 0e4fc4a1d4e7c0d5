"""King Kong's spinner as its spec (assets/king_kong/spinner.toml) gives it: the card, the post, the
pointer's kite and its mass properties, the joint's friction, the gesture's ranges and the two
printed circles of sectors; no World, so views draw the card and the pointer (`scene`) without
PyBullet. tabletop.sim.devices.spinner builds it and spins it."""
from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trimesh

from tabletop.sim.errors import SpecError
from tabletop.sim.materials import load_materials, pick_material
from tabletop.sim.paths import assets_dir
from tabletop.sim.readouts import SettleRule
from tabletop.sim.scene import RecordedScene, track_name
from tabletop.sim.spec import SpecShape, Table, read_numerics

CARD = "spinner_card"
POINTER = "spinner_pointer"       # the fixed-base multibody: base = the post, link 0 = the pointer
OUTER_LABELS = ("L1", "L2", "R1", "R2", "LR1", "LR2", "UP")    # twist: left, right, choice, return to up
INNER_LABELS = ("U1", "U2", "U3", "U1-2", "U2-3")              # climb: notches up, and choices


@dataclass(frozen=True)
class Circle:
    """One printed circle: sectors counter-clockwise from `start_deg`, with labels and widths."""

    name: str
    start_deg: float
    labels: tuple[str, ...]
    widths_deg: tuple[float, ...]

    @functools.cached_property
    def edges(self) -> tuple[float, ...]:
        """Where each sector begins, in degrees counter-clockwise from `start_deg`."""
        out, a = [], 0.0
        for w in self.widths_deg:
            out.append(a)
            a += w
        return tuple(out)

    def sector_at(self, angle_deg: float) -> int:
        """Index of the sector holding `angle_deg`; an angle on a line belongs to the sector that
        begins there (counter-clockwise of it)."""
        rel = (angle_deg - self.start_deg) % 360.0
        if rel >= 360.0:            # a tiny negative remainder rounds up to 360.0
            rel = 0.0
        return bisect.bisect_right(self.edges, rel) - 1

    def label_at(self, angle_deg: float) -> str:
        return self.labels[self.sector_at(angle_deg)]

    def share(self) -> dict[str, float]:
        """Each label's share of the circle (its sectors' widths over 360 degrees), in first-seen order."""
        out: dict[str, float] = {}
        for label, w in zip(self.labels, self.widths_deg):
            out[label] = out.get(label, 0.0) + w / 360.0
        return out

    def as_dict(self) -> dict:
        return {"start_deg": self.start_deg,
                "sectors": [{"label": lb, "width_deg": w, "from_deg": (self.start_deg + e) % 360.0}
                            for lb, w, e in zip(self.labels, self.widths_deg, self.edges)]}


def load_circle(t: Table, name: str, vocabulary: tuple[str, ...]) -> Circle:
    """A circle from its spec table, validated: known labels, positive widths covering 360 degrees."""
    start = t.number("start_deg", -360.0, 360.0)
    labels, widths = [], []
    for s in t.tables("sectors"):
        label = s.string("label")
        if label not in vocabulary:
            raise SpecError(f"{s.source}: {s.prefix}label: {label!r} is not a label of the {name} circle; "
                            f"use one of: {', '.join(vocabulary)}")
        labels.append(label)
        widths.append(s.number("width_deg", 0.5, 360.0))
    total = sum(widths)
    if abs(total - 360.0) > 1e-6:
        raise SpecError(f"{t.source}: {t.prefix}sectors: the widths add up to {total:g} degrees; "
                        f"they must cover the circle, 360")
    return Circle(name, start, tuple(labels), tuple(widths))


def pointer_outline(tip: float, tail: float, tail_width: float, shoulder: float,
                    shoulder_width: float) -> list[tuple[float, float]]:
    """The pointer's kite outline in its plane (x along the pointer, toward the tip), counter-clockwise."""
    return [(-tail, -tail_width / 2), (shoulder, -shoulder_width / 2), (tip, 0.0),
            (shoulder, shoulder_width / 2), (-tail, tail_width / 2)]


class SpinnerShape(SpecShape):
    """The spinner's dimensions, circles and pointer, read and checked from its spec, with the
    card's top centre at `origin` (device frame: Z up, angles counter-clockwise from +X)."""

    def __init__(self, spec_path: Path, origin: tuple[float, float, float] = (0.0, 0.0, 0.0), overrides=()):
        super().__init__(spec_path, overrides)
        self.origin = tuple(float(v) for v in origin)

    # -- spec -------------------------------------------------------------------------------
    def _load(self, spec: Table) -> None:
        src = spec.source
        materials = load_materials(assets_dir() / "materials.toml", self.overrides)

        c = spec.table("card")
        self.card_material = pick_material(c, "material", materials)
        self.card_radius = c.number("radius", 0.02, 0.5)
        self.card_thickness = c.number("thickness", 0.0002, 0.01)

        p = spec.table("post")
        self.post_material = pick_material(p, "material", materials)
        self.post_radius = p.number("radius", 0.0005, 0.02)
        self.post_height = p.number("height", 0.002, 0.05)

        t = spec.table("pointer")
        self.pointer_material = pick_material(t, "material", materials)
        self.tip = t.number("tip", 0.01, self.card_radius)
        self.tail = t.number("tail", 0.0, self.tip)
        self.tail_width = t.number("tail_width", 0.001, 0.1)
        self.shoulder = t.number("shoulder", -self.tail, self.tip)
        if self.shoulder <= -self.tail or self.shoulder >= self.tip:
            raise SpecError(f"{src}: pointer.shoulder: {self.shoulder} must lie between the tail "
                            f"({-self.tail}) and the tip ({self.tip})")
        self.shoulder_width = t.number("shoulder_width", self.tail_width, 0.1)
        self.thickness = t.number("thickness", 0.0005, 0.02)
        self.clearance = t.number("clearance", 0.0, 0.02)
        if self.clearance + self.thickness > self.post_height:
            raise SpecError(f"{src}: pointer: clearance + thickness ({self.clearance + self.thickness}) must not "
                            f"exceed post.height ({self.post_height}): the pointer rides on the post")
        self._pointer_mass_properties()

        j = spec.table("joint")
        self.dry_torque = j.number("dry_torque", 0.0, 1.0)
        self.viscous = j.number("viscous", 0.0, 1.0)
        if self.dry_torque == 0.0 and self.viscous == 0.0:
            raise SpecError(f"{src}: joint: dry_torque and viscous are both 0: a flicked pointer would never stop")

        g = spec.table("gesture")
        self.start_range = g.range("start_deg", -360.0, 720.0)
        self.speed_range = g.range("speed", 0.01, 200.0)
        self.ccw_fraction = g.number("ccw_fraction", 0.0, 1.0)

        self.outer = load_circle(spec.table("outer"), "outer", OUTER_LABELS)
        self.inner = load_circle(spec.table("inner"), "inner", INNER_LABELS)

        ph = spec.table("physics")
        read_numerics(self, ph)
        self.settle = SettleRule.from_table(spec.table("settle"))

    def _pointer_mass_properties(self) -> None:
        """Mass, centre of mass and principal inertia of the kite plate (symmetric about its long
        axis, so its principal axes are the pointer's X, Y, Z)."""
        outline = pointer_outline(self.tip, self.tail, self.tail_width, self.shoulder, self.shoulder_width)
        self.vertices = [[x, y, z] for x, y in outline for z in (0.0, self.thickness)]
        hull = trimesh.convex.convex_hull(np.array(self.vertices))
        self.mass = self.pointer_material.density * float(hull.volume)
        com = hull.center_mass
        self.com = (float(com[0]), 0.0, float(com[2]))
        inertia = np.diag(hull.moment_inertia) * self.pointer_material.density
        self.inertia_com = tuple(float(v) for v in inertia)
        self.inertia_axis = self.inertia_com[2] + self.mass * self.com[0] ** 2   # about the post's axis

    @property
    def labels(self) -> tuple[str, ...]:
        """The outer circle's labels present on the card, in the vocabulary's order."""
        return tuple(lb for lb in OUTER_LABELS if lb in self.outer.labels)

    @property
    def inner_labels(self) -> tuple[str, ...]:
        return tuple(lb for lb in INNER_LABELS if lb in self.inner.labels)

    # -- looks ------------------------------------------------------------------------------
    def scene(self) -> RecordedScene:
        """The card's and the post-and-pointer's looks and poses, as `look` and `poses` read them
        from a freshly built spinner's World (the pointer at angle 0): what a view draws with no World."""
        ox, oy, oz = self.origin
        still = [0.0, 0.0, 0.0, 1.0]
        cx, _, cz = self.com

        def cylinder(length: float, radius: float) -> dict:
            return {"kind": "cylinder", "pos": [0.0, 0.0, 0.0], "orn": list(still), "length": length, "radius": radius}

        pointer = track_name(POINTER, 0)
        hull = {"kind": "mesh", "pos": [-cx, 0.0, -cz], "orn": list(still), "scale": [1.0, 1.0, 1.0],
                "hull": [list(v) for v in self.vertices]}
        looks = {CARD: {"material": self.card_material.name,
                        "tracks": {CARD: [cylinder(self.card_thickness, self.card_radius)]}},
                 POINTER: {"material": self.pointer_material.name,
                           "tracks": {POINTER: [cylinder(self.post_height, self.post_radius)], pointer: [hull]}}}
        poses = {CARD: [ox, oy, oz - self.card_thickness / 2, *still],
                 POINTER: [ox, oy, oz + self.post_height / 2, *still],
                 pointer: [ox + cx, oy, oz + self.clearance + cz, *still]}
        return RecordedScene({"looks": looks, "poses": poses})
