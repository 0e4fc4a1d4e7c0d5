"""`tabletop estimate throw`: any shape of sim/throwable.py thrown onto a surface, read from the
side it comes to rest on.

The shape, its material, the surface (a table top by default: a large tray with low rims, so that
nothing rolls off and a body that ends leaning on a rim is counted as lodged) and the gesture come
from the spec (assets/throw.toml), with `--set` like every device. Device frame: origin at the
centre of the surface's top, Z up.

Statuses: OK with the rest state's label; LODGED when the body rests in no rest state (leaning on a
rim, balanced on an edge or a corner); UNSETTLED when it does not settle within `settle.cap`;
ESCAPED when it leaves the surface (a defect). Every trial's start (orientation, spin, the side up
at release) is in its gesture, and the result's `start` block tables the outcome by the side up at
release (`by_group` too), which is what a fixed-start toss is about.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from tabletop.sim.devices.base import Device, Outcome, Status
from tabletop.sim.errors import SpecError
from tabletop.sim.materials import load_materials, pick_material
from tabletop.sim.parts import add_open_box, left_open_box
from tabletop.sim.paths import assets_dir
from tabletop.sim.readouts import SettleRule, run_until_settled
from tabletop.sim.spec import Table, read_numerics
from tabletop.sim.throwable import Gesture, Release, check_set, load_shape
from tabletop.sim.world import World

NAME = "throw"
DEFAULT_SPEC = "throw.toml"
SUMMARY = ("any shape (cuboid, cylinder, half-cylinder) dropped, tossed or rolled onto a table: the side "
           "it rests on (assets/throw.toml; --set shape.kind=...)")
#: what its outcomes are: a plot's axis, what the labels mean, what a lodged trial is (None: never)
OUTCOME_AXIS = "side the body rests on"
OUTCOME_LABELS = ("the body's rest state: for a cuboid the body axis (+x ... -z) pointing up, for a "
                  "cylinder top, bottom or side, for a half-cylinder flat or round "
                  "(assets/throw.toml)")
OUTCOME_LODGED = "the body rests in no rest state (leaning on a rim, balanced on an edge or a corner)"

BODY = "thrown"
SURFACE = "surface"


class Throw(Device):
    """A body of the spec's shape, thrown by the spec's gesture: labels from the shape."""

    name = NAME

    def gesture_ranges(self) -> tuple[str, ...]:
        return self.gesture.ranges()

    def fastest_gesture(self) -> dict[str, str]:
        # every range of the gesture (speed, spin, release height, elevation) is fastest at its high end
        return dict.fromkeys(self.gesture.ranges(), "high")

    def __init__(self, spec_path: Path, world: World | None = None,
                 origin: tuple[float, float, float] = (0.0, 0.0, 0.0), overrides=()):
        self.setup(spec_path, overrides, world, origin)
        self._bounds = add_open_box(self.world, SURFACE, self.origin, self.half_x, self.half_y, self.wall_thickness,
                                    self.wall_height, self.floor_thickness, self.surface_material)
        self._shape_id = self.shape.collision_shape(self.world.client)

    # -- spec -------------------------------------------------------------------------------
    def _load(self, spec: Table) -> None:
        materials = load_materials(assets_dir() / "materials.toml", self.overrides)
        s = spec.table("shape")
        self.body_material = pick_material(s, "material", materials)
        self.shape = load_shape(s, self.body_material.density)
        t = spec.table("surface")
        self.surface_material = pick_material(t, "material", materials)
        self.half_x = t.number("half_x", 0.05, 5.0)
        self.half_y = t.number("half_y", 0.05, 5.0)
        if min(self.half_x, self.half_y) < 4 * self.shape.radius:
            raise SpecError(f"{spec.source}: surface: the floor ({2 * self.half_x} x {2 * self.half_y} m) must be at "
                            f"least eight body radii ({8 * self.shape.radius:.3f} m) across")
        self.wall_height = t.number("wall_height", 0.0, 0.5)
        self.wall_thickness = t.number("wall_thickness", 0.005, 0.2)
        self.floor_thickness = t.number("floor_thickness", 0.005, 0.2)
        self.gesture = Gesture(spec.table("gesture"), self.shape)
        check_set(self.overrides, self.shape.kind, self.gesture.mode)
        rd = spec.table("reading")
        self.tilt_tol = rd.number("tilt_deg", 0.5, 30.0)
        self.height_tol = rd.number("height_tol", 1e-5, 0.05)
        ph = spec.table("physics")
        read_numerics(self, ph)
        self.settle = SettleRule.from_table(spec.table("settle"))

    @property
    def labels(self) -> tuple[str, ...]:
        return self.shape.labels

    # -- bodies -----------------------------------------------------------------------------
    def sample_gesture(self, rng: np.random.Generator) -> Release:
        return self.gesture.sample(rng, self.world.settings.gravity)

    def place(self, release: Release) -> None:
        """A fresh body at the release state (device frame): no contact cache carries over."""
        w, c = self.world, self.world.client
        if BODY in w.bodies:
            w.remove(BODY)
        ox, oy, oz = self.origin
        p = release.position
        body = c.createMultiBody(baseMass=self.shape.mass, baseCollisionShapeIndex=self._shape_id,
                                 basePosition=[ox + p[0], oy + p[1], oz + p[2]],
                                 baseOrientation=list(release.orientation))
        w.add_body(BODY, body, self.body_material, mesh=self.shape.look())
        c.changeDynamics(body, -1, localInertiaDiagonal=list(self.shape.inertia), collisionMargin=self.shape.margin)
        c.resetBaseVelocity(body, list(release.velocity), list(release.spin))

    def place_for_benchmark(self) -> None:
        self.place(self.sample_gesture(np.random.default_rng(0)))

    def _escaped_check(self):
        return left_open_box(self.world, (BODY,), self._bounds)

    # -- trials -----------------------------------------------------------------------------
    def read_body(self) -> dict:
        pos, orn = self.world.client.getBasePositionAndOrientation(self.world.bodies[BODY])
        height = pos[2] - self.origin[2]
        r = self.shape.read(orn, height, self.tilt_tol, self.height_tol)
        return {"label": r["label"], "nearest": r["nearest"], "tilt_deg": round(r["tilt_deg"], 4),
                "height": height, "position": [float(v) for v in pos]}

    def run(self, rng: np.random.Generator, gesture: Release | None = None) -> Outcome:
        release = gesture if gesture is not None else self.sample_gesture(rng)
        self.place(release)
        w = self.world
        s0 = w.steps
        settled, escaped = run_until_settled(w, (BODY,), self.settle, escaped=self._escaped_check())
        reading = self.read_body()
        if escaped:
            status = Status.ESCAPED
        elif not settled:
            status = Status.UNSETTLED
        elif reading["label"] is None:
            status = Status.LODGED
        else:
            status = Status.OK
        steps = w.steps - s0
        start = {"position": list(release.position), "orientation": list(release.orientation),
                 "velocity": list(release.velocity), "spin": list(release.spin), "start": release.start}
        return Outcome(label=reading["label"] if status is Status.OK else None, status=status,
                       sim_time=steps * w.dt, steps=steps, reading=reading, gesture=start,
                       group=f"start {release.start}")

    # -- results ----------------------------------------------------------------------------
    def record_extra(self, outcome: Outcome) -> dict:
        g = outcome.gesture
        return {"start": g["start"], "spin": round(math.sqrt(sum(v * v for v in g["spin"])), 6),
                "speed": round(math.sqrt(sum(v * v for v in g["velocity"])), 6)}

    def summarize_extra(self, records: list[dict]) -> dict:
        """The `start` block: how the trials started (the side up at release, the spin rate and
        the launch speed) and each label's count by the side up at release."""
        by_start: dict[str, dict[str, int]] = {}
        spins, speeds = [], []
        for r in records:
            x = r.get("extra") or {}
            if "spin" in x:
                spins.append(x["spin"])
                speeds.append(x["speed"])
            row = by_start.setdefault(x.get("start", "?"), {label: 0 for label in self.labels})
            if r["status"] == Status.OK:
                row[r["label"]] += 1
        block: dict = {"mode": self.gesture.mode, "by_start": dict(sorted(by_start.items()))}
        if spins:
            block["spin_rad_s"] = {"mean": float(np.mean(spins)), "min": float(np.min(spins)),
                                   "max": float(np.max(spins))}
            block["speed_m_s"] = {"mean": float(np.mean(speeds)), "min": float(np.min(speeds)),
                                  "max": float(np.max(speeds))}
        return {"start": block}

    def params(self) -> dict:
        return {
            "spec": str(self.spec_path),
            "shape": {**self.shape.params(), "material": self.body_material.as_dict(),
                      "collision": ("Bullet's cylinder, rims rounded by the collision margin"
                                    if self.shape.kind == "cylinder" else
                                    "convex hull, collision margin as given")},
            "surface": {"half_x": self.half_x, "half_y": self.half_y, "wall_height": self.wall_height,
                        "wall_thickness": self.wall_thickness, "floor_thickness": self.floor_thickness,
                        "material": self.surface_material.as_dict(), "origin": list(self.origin)},
            "gesture": self.gesture.params(),
            "reading": {"tilt_deg": self.tilt_tol, "height_tol": self.height_tol},
            "physics": self.world.settings.as_dict(),
            "settle": dict(self.settle.__dict__),
        }
