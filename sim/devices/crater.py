"""King of the Hill's crater: a marble knocked off an edge seat spins round the funnel, drops
through the centre hole onto a splitter and rolls down one of three hidden tunnels into a
corner cave, where it stops on seat 1 or seat 2.

Everything the marble touches is the hill (tabletop.sim.devices.hill_shape: the crater shell,
the hole tube, the tunnel floor with its splitter and cave pockets, the tunnel ceiling), generated
from the spec (assets/king_of_the_hill/hill.toml) as one static concave triangle mesh; the marble
meets it as a distance field made from that mesh. This module adds what makes the hill a device:
the knock, the physics settings, the settle rule and the reading.

Gesture (`Knock`), sampled by `sample_gesture` from the spec's [knock] table:
edge seat uniform over the edge seats; impact speed uniform over knock.speed (m/s); direction
angle uniform over knock.angle (degrees from the inward radial, positive along the path).
The knock sets the marble's initial linear velocity (no spin: a central impact gives none).

The label is read physically after the marble settles: the cave seat region holding it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tabletop.sim.devices.base import Device, Outcome, Status, gesture_dict
from tabletop.sim.devices.hill_shape import MESH_VERSION, HillShape
from tabletop.sim.errors import SpecError
from tabletop.sim.meshes import cached_data, load_mesh
from tabletop.sim.readouts import SettleRule, region_of, run_until_settled
from tabletop.sim.sdf import cached_field
from tabletop.sim.spec import Table

if TYPE_CHECKING:
    from tabletop.sim.world import World

NAME = "crater"
DEFAULT_SPEC = "king_of_the_hill/hill.toml"
SUMMARY = "King of the Hill's crater: the cave and seat a knocked-in marble reaches"
#: what its outcomes are: a plot's axis, what the labels mean, what a lodged trial is (None: never)
OUTCOME_AXIS = "cave and seat the marble reaches"
OUTCOME_LABELS = "caveN/seatM: the cave (1-3) and the seat in it (seat1 or seat2) where the knocked-in marble stops"
OUTCOME_LODGED = "the marble came to rest outside every cave seat"

FIELD_VERSION = 1
MARBLE = "marble"
OBSTACLE = "obstacle:"          # prefix of the static marbles set by `set_obstacles`
HILL = "hill"


@dataclass(frozen=True)
class Knock:
    """The knock that sends a marble off an edge seat into the crater."""

    seat: str          # edge seat name, "edge1".."edgeN"
    speed: float       # impact speed given to the knocked marble, m/s
    angle: float       # degrees from the inward radial, positive along the path direction


class Crater(HillShape, Device):
    """The crater, its tunnels and caves, with one fresh marble per trial (see module docstring).

    Gesture distribution (`sample_gesture`, spec table [knock]): edge seat uniform over
    `edge_seats`; impact speed uniform over knock.speed (0.25-0.60 m/s); direction uniform over
    knock.angle (30-75 degrees from the inward radial, towards the direction of play). All draws
    come from the Generator passed in.
    """

    name = NAME
    # the bare loop of `tabletop bench` replays a knock per trial: a marble at rest on the field
    # steps faster than one swirling round the funnel, so one long loop would flatter the bare side
    bench_restart_each_trial = True

    def _read_spec(self, spec: Table) -> None:
        """The hill's tables (HillShape), then the device's own: the knock, the collision field's
        cell, the physics settings and the settle rule."""
        super()._read_spec(spec)
        r = self.marble_radius
        g = spec.table("knock")
        self.knock_speed = g.range("speed", 0.01, 5.0)
        self.knock_angle = g.range("angle", -89.0, 89.0)

        col = spec.table("collision")
        self.sdf_cell = col.number("sdf_cell", 0.0005, 0.004)

        p = spec.table("physics")
        self.timestep = p.number("timestep", 1e-5, 1.0 / 120.0)
        self.solver_iterations = p.integer("solver_iterations", 1, 1000)
        self.contact_erp = p.number("contact_erp", 0.001, 1.0) if "contact_erp" in p else None
        if self.knock_speed[1] * self.timestep > r:
            raise SpecError(f"{p.source}: physics.timestep: the fastest knock moves more than the marble's "
                            f"radius in one step; make the step smaller than {r / self.knock_speed[1]:.5f}")

        self.settle_rule = SettleRule.from_table(spec.table("settle"))

    def settle_spec(self):
        return self.settle_rule

    def gesture_ranges(self) -> tuple[str, ...]:
        return ("knock.speed", "knock.angle")

    def fastest_gesture(self) -> dict[str, str]:
        return {"knock.speed": "high"}     # the knock's direction sets no speed

    def mesh_refinements(self) -> tuple[tuple[str, str], ...]:
        """Twice the resolution of the generated hill: segments round the axis, rings along the
        funnel and the tube, the tunnel floor's height-field cell."""
        return (("crater.angular_segments", str(2 * self.angular_segments)),
                ("crater.ring_spacing", repr(self.ring_spacing / 2)),
                ("tube.ring_spacing", repr(self.tube_ring_spacing / 2)),
                ("tunnels.grid_step", repr(self.grid_step / 2)),
                ("collision.sdf_cell", repr(self.sdf_cell / 2)))

    def _field_region(self, p: np.ndarray) -> np.ndarray:
        """Where the knocked marble can be: over the ledge, the funnel and in the tube, and under the
        tunnel ceiling inside the base (the distance field is stored only there)."""
        from scipy.ndimage import minimum_filter

        if self._floor_grid is None:
            # the floor's lowest height within 2 mm of each point of a 2 mm grid (the floor's walls are steep)
            half = self.base_size / 2
            xs = np.arange(-half, half + 0.002, 0.002)
            z = minimum_filter(self.floor_height(*np.meshgrid(xs, xs, indexing="ij")), size=3, mode="nearest")
            self._floor_grid = (xs, z)
        xs, zf = self._floor_grid
        ij = np.clip(np.rint((p[:, :2] - xs[0]) / 0.002).astype(int), 0, len(xs) - 1)
        floor = zf[ij[:, 0], ij[:, 1]]
        rho = np.hypot(p[:, 0], p[:, 1])
        margin = 0.003
        top = ((rho <= self.path_outer_radius + 0.004) & (p[:, 2] >= self.tube_bottom_z - margin)
               & (p[:, 2] >= self._top_profile(rho) - self.dimple_depth - margin))
        tube = (rho <= self.hole_radius + margin) & (p[:, 2] >= self.ceiling_z - margin)
        under = ((p[:, 2] <= self.ceiling_z + margin) & (p[:, 2] >= floor - margin)
                 & (np.max(np.abs(p[:, :2]), axis=1) <= self.base_size / 2 - 0.002))
        return top | tube | under

    def __init__(self, spec_path: Path, world: World | None = None, overrides=()):
        """Build the hill into `world` (a new one of its own when None), the crater's axis at x = y = 0."""
        super().__init__(spec_path, overrides)
        self._floor_grid = None        # the floor's low bound on a 2 mm grid, built by _field_region
        self.attach_world(world, self.timestep, self.solver_iterations, self.contact_erp)
        try:
            rests = cached_data("koth-edge-rests", 1, self.geometry_params(),
                                lambda: {name: self._rest_on_edge_seat(name) for name in self.edge_seats})
            self.start_positions = {name: tuple(rests[name]) for name in self.edge_seats}
            # the marble meets the hill as a distance field made from the mesh (tabletop.sim.sdf): one
            # smooth contact a step instead of the edges of the triangles round it
            self.field_path = cached_field(
                "koth-crater-field", FIELD_VERSION,
                {**self.geometry_params(), "sdf_cell": self.sdf_cell, "mesh_version": MESH_VERSION},
                lambda: load_mesh(self.mesh_path), self.marble_radius, self.sdf_cell,
                list(self.start_positions.values()), self._field_region)
            self.world.add_sdf(HILL, self.field_path, self.hill_material, mesh=self.mesh_path)
        except BaseException:
            self.close()
            raise


    def sample_gesture(self, rng: np.random.Generator) -> Knock:
        seat = self.edge_seats[int(rng.integers(len(self.edge_seats)))]
        speed = float(rng.uniform(*self.knock_speed))
        angle = float(rng.uniform(*self.knock_angle))
        return Knock(seat=seat, speed=speed, angle=angle)

    def knock_velocity(self, knock: Knock) -> np.ndarray:
        x, y, _ = self.start_positions[knock.seat]
        inward = -np.array([x, y]) / np.hypot(x, y)
        along = self.path_direction * np.array([inward[1], -inward[0]])   # counter-clockwise for +1
        a = np.radians(knock.angle)
        v = knock.speed * (np.cos(a) * inward + np.sin(a) * along)
        return np.array([v[0], v[1], 0.0])

    def set_obstacles(self, positions: dict) -> None:
        """Static marbles (name -> centre) that a knocked marble meets: the game's other marbles on
        the hill, as the table puts them before a knock. Earlier obstacles not named are removed."""
        for name in [n for n in self.world.bodies if n.startswith(OBSTACLE)]:
            if name[len(OBSTACLE):] not in positions:
                self.world.remove(name)
        reset = self.world.client.resetBasePositionAndOrientation
        for name, pos in positions.items():
            key = OBSTACLE + name
            if key not in self.world.bodies:
                self.world.add_sphere(key, self.marble_radius, self.marble_material, [float(v) for v in pos],
                                      mass=0.0, rigid=True)
            reset(self.world.bodies[key], [float(v) for v in pos], [0, 0, 0, 1])

    def _add_marble(self, position, velocity) -> None:
        """A fresh marble body for every trial: no contact cache or state carries over."""
        if MARBLE in self.world.bodies:
            self.world.remove(MARBLE)
        self.world.add_sphere(MARBLE, self.marble_radius, self.marble_material, [float(v) for v in position],
                              rigid=True)
        self.world.set_velocity(MARBLE, [float(v) for v in velocity])

    def _place(self, knock: Knock) -> None:
        if knock.seat not in self.start_positions:
            raise ValueError(f"unknown edge seat {knock.seat!r}; choose one of: {', '.join(self.edge_seats)}")
        self._add_marble(self.start_positions[knock.seat], self.knock_velocity(knock))

    def place_for_benchmark(self, gesture: Knock | None = None) -> None:
        """Put a fresh marble on its edge seat with its knock velocity, exactly as `run` starts a trial."""
        self._place(gesture or Knock(self.edge_seats[0], float(np.mean(self.knock_speed)),
                                     float(np.mean(self.knock_angle))))

    def _escaped_check(self):
        lo, hi = self.bounds()
        x0, y0, z0 = (float(v) for v in lo - np.array([0.01, 0.01, 0.02]))
        x1, y1, z1 = (float(v) for v in hi + np.array([0.01, 0.01, 0.05]))
        get = self.world.client.getBasePositionAndOrientation
        body = self.world.bodies[MARBLE]

        def escaped() -> bool:
            x, y, z = get(body)[0]
            return not (x0 <= x <= x1 and y0 <= y <= y1 and z0 <= z <= z1)
        return escaped

    def run(self, rng: np.random.Generator, gesture: Knock | None = None) -> Outcome:
        knock = gesture if gesture is not None else self.sample_gesture(rng)
        self._place(knock)
        return self._finish(gesture_dict(knock), knock.seat)

    def release(self, position, velocity) -> Outcome:
        """A trial from any start: a fresh marble at `position` (m) with `velocity` (m/s), simulated
        and read like `run` (scenario tests and escape checks use it)."""
        self._add_marble(position, velocity)
        return self._finish({"position": [float(v) for v in position],
                             "velocity": [float(v) for v in velocity]}, None)

    def _finish(self, gesture: dict, group: str | None) -> Outcome:
        steps0 = self.world.steps
        settled, escaped = run_until_settled(self.world, [MARBLE], self.settle_rule, escaped=self._escaped_check())
        steps = self.world.steps - steps0
        pos = self.world.position(MARBLE)
        lin, _ = self.world.velocity(MARBLE)
        region = region_of(pos, self.seat_regions)
        if escaped:
            status, label = Status.ESCAPED, None
        elif not settled:
            status, label = Status.UNSETTLED, None
        elif region is None:
            status, label = Status.LODGED, None
        else:
            status, label = Status.OK, region
        nearest, distance = self._nearest_seat(pos)
        reading = {"position": [float(v) for v in pos], "region": region, "speed": float(np.linalg.norm(lin)),
                   "nearest_seat": nearest, "nearest_seat_distance": distance}
        return Outcome(label=label, status=status, sim_time=steps * self.timestep, steps=steps,
                       reading=reading, gesture=gesture, group=group)

    def _nearest_seat(self, pos: np.ndarray) -> tuple[str, float]:
        best = min(self.seat_regions.items(), key=lambda kv: float(np.linalg.norm(pos - np.array(kv[1].center))))
        return best[0], float(np.linalg.norm(pos - np.array(best[1].center)))

    def params(self) -> dict:
        return {
            "spec": str(self.spec_path),
            "geometry": {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.geometry_params().items()},
            "derived": {"lip_z": self.lip_z, "hole_z": self.hole_z,
                        "funnel_a": self.depth / (1.0 / self.hole_radius - 1.0 / self.lip_radius)},
            "edge_seats": dict(zip(self.edge_seats, self.seat_angles)),
            "path_direction": self.path_direction,
            "seat_regions": {k: {"center": list(v.center), "radius": v.radius} for k, v in self.seat_regions.items()},
            "knock": {"seat": "uniform over edge seats", "speed_uniform": list(self.knock_speed),
                      "angle_uniform_deg": list(self.knock_angle)},
            "materials": {"marble": self.marble_material.as_dict(), "hill": self.hill_material.as_dict()},
            "physics": self.world.settings.as_dict(),
            "settle": dict(self.settle_rule.__dict__),
        }

