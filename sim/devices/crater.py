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

The label is read physically after the marble settles: the cave seat region holding it. A batch
trial (no recorder watching the world, no other marbles on the hill) ends sooner, as soon as its
label cannot change: the marble is inside a cave seat's region and its energy (height plus kinetic
energy over g) lies under the lowest pass out of that seat's basin of the tunnel floor, so it can
only come to rest on that seat (`seat_pass_levels`, docs/reconstruction-crater.md). The time it
would still take to rock to a stop is not simulated; the label is the one the settled marble gives.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tabletop.sim.bullet import pybullet
from tabletop.sim.devices.base import Device, Outcome, Status, gesture_dict
from tabletop.sim.devices.hill_shape import MESH_VERSION, HillShape
from tabletop.sim.errors import SpecError
from tabletop.sim.meshes import cached_data, load_mesh
from tabletop.sim.readouts import SettleRule, SettleWatch, region_of
from tabletop.sim.sdf import cached_field
from tabletop.sim.spec import Table, read_numerics

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
PASSES_VERSION = 1
#: m of height: a trial ends early only while the marble's energy height is this far under its seat's
#: pass level (energy rose by at most 2 micrometres in any step of the trials measured, and the
#: distance field's surface lies a few hundredths of a mm from the analytic floor the levels come from)
DECIDED_MARGIN = 0.001
PASS_GRID = 0.0005              # m: the grid the pass levels are found on
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
    #: end a trial as soon as its label cannot change (module docstring); never while a recorder
    #: watches the world (a replay plays the marble all the way to rest) or obstacles lie on the hill
    end_when_decided = True
    #: step a settle check's `every` steps in one engine call (Bullet's own substeps: the same
    #: steps, bit for bit, without a Python call and a command round trip each); never while a
    #: recorder watches the world, which sees every step
    substeps = True

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
        read_numerics(self, p, longest_step=1.0 / 120.0)
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
        self.attach_world(world, self.timestep, self.solver_iterations, self.contact_erp,
                          residual=self.solver_residual_threshold, contact_slop=self.contact_slop)
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
            passes = cached_data("koth-crater-passes", PASSES_VERSION,
                                 {**self.geometry_params(), "seat_region_radius": self.seat_region_radius,
                                  "grid": PASS_GRID}, self._seat_pass_levels)
            self.seat_pass_levels = {k: (None if v is None else float(v)) for k, v in passes.items()}
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

    def _outside_check(self):
        """A callable telling whether a marble centre (x, y, z) has left the model (an escape)."""
        lo, hi = self.bounds()
        x0, y0, z0 = (float(v) for v in lo - np.array([0.01, 0.01, 0.02]))
        x1, y1, z1 = (float(v) for v in hi + np.array([0.01, 0.01, 0.05]))

        def outside(pos) -> bool:
            x, y, z = pos
            return not (x0 <= x <= x1 and y0 <= y <= y1 and z0 <= z <= z1)
        return outside

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
        settled, escaped, decided = self._settle()
        steps = self.world.steps - steps0
        pos = self.world.position(MARBLE)
        lin, _ = self.world.velocity(MARBLE)
        region = region_of(pos, self.seat_regions)
        if escaped:
            status, label = Status.ESCAPED, None
        elif decided is not None:
            status, label = Status.OK, decided[0]
        elif not settled:
            status, label = Status.UNSETTLED, None
        elif region is None:
            status, label = Status.LODGED, None
        else:
            status, label = Status.OK, region
        nearest, distance = self._nearest_seat(pos)
        reading = {"position": [float(v) for v in pos], "region": region, "speed": float(np.linalg.norm(lin)),
                   "nearest_seat": nearest, "nearest_seat_distance": distance}
        if decided is not None:
            reading["decided"] = {"energy_height": decided[1], "seat_pass_level": self.seat_pass_levels[label]}
        return Outcome(label=label, status=status, sim_time=steps * self.timestep, steps=steps,
                       reading=reading, gesture=gesture, group=group)

    def _settle(self) -> tuple[bool, bool, tuple[str, float] | None]:
        """Step until the marble settles, escapes, its label is decided or the cap passes:
        (settled, escaped, (label, energy height) when decided, else None). The checks fall on the
        steps `run_until_settled` checks on, so a trial not decided ends exactly as there."""
        world, rule = self.world, self.settle_rule
        watch = SettleWatch(world, [MARBLE], rule)
        outside = self._outside_check()
        get_pos, body = world.client.getBasePositionAndOrientation, world.bodies[MARBLE]
        decided = self._decided_check() if self.ends_when_decided() else None
        top = max((v for v in self.seat_pass_levels.values() if v is not None), default=-np.inf)
        end = world.steps + round(rule.cap / world.dt)
        with self._stepping(rule.every) as step:
            while world.steps < end:
                step()
                pos = get_pos(body)[0]
                if outside(pos):
                    return False, True, None
                if watch.update():
                    return True, False, None
                if decided is not None and pos[2] < top:
                    found = decided(pos)
                    if found is not None:
                        return False, False, found
        return False, False, None

    def ends_when_decided(self) -> bool:
        """Whether the next trial ends as soon as its label cannot change: `end_when_decided`, and
        no recorder watches the world (a replay shows the marble come to rest) and no obstacle lies
        on the hill (another marble in a cave changes where this one can rest)."""
        return (self.end_when_decided and not self.world.watchers
                and not any(name.startswith(OBSTACLE) for name in self.world.bodies))

    @contextlib.contextmanager
    def _stepping(self, n: int):
        """A callable that advances the world `n` steps, in one engine call of `n` Bullet substeps
        where `substeps` is set and that is exact (`World.step`): Bullet applies gravity once and
        clears forces once per call; nothing else acts on the marble between its steps, so both
        give the same motion bit for bit (tests/test_crater_early.py). The hill's body sleeps
        meanwhile: it never moves, and Bullet then stops recomputing its bounding box every step."""
        world = self.world
        if not self.substeps or world.watchers or n < 2:
            yield lambda: world.step(n)
            return
        client, hill = world.client, world.bodies[HILL]
        was, world.substeps = world.substeps, True
        client.changeDynamics(hill, -1, activationState=pybullet.ACTIVATION_STATE_SLEEP)
        try:
            yield lambda: world.step(n)
        finally:
            world.substeps = was
            client.changeDynamics(hill, -1, activationState=pybullet.ACTIVATION_STATE_DISABLE_SLEEPING)

    def _decided_check(self):
        """A callable giving, for the marble centre (x, y, z), (label, energy height) once the marble
        can only come to rest on one cave seat, else None: it is inside the seat's region and its
        energy height (its centre's height plus its kinetic energy, rotation counted whole, over g)
        lies DECIDED_MARGIN under the seat's pass level (`seat_pass_levels`)."""
        get_vel, body = self.world.client.getBaseVelocity, self.world.bodies[MARBLE]
        g, spin = self.world.settings.gravity, 0.2 * self.marble_radius ** 2
        seats = [(name, *region.center, region.radius ** 2, self.seat_pass_levels[name] - DECIDED_MARGIN)
                 for name, region in self.seat_regions.items() if self.seat_pass_levels.get(name) is not None]

        def decided(pos) -> tuple[str, float] | None:
            x, y, z = pos
            for name, cx, cy, cz, r2, level in seats:
                if (x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2 <= r2:
                    (vx, vy, vz), (wx, wy, wz) = get_vel(body)
                    e = z + (0.5 * (vx * vx + vy * vy + vz * vz) + spin * (wx * wx + wy * wy + wz * wz)) / g
                    return (name, e) if e < level else None
            return None
        return decided

    def _seat_pass_levels(self) -> dict[str, float | None]:
        """Per cave seat, the energy height under which a marble inside the seat's region can come to
        rest on that seat alone (None: no such level).

        On a PASS_GRID grid over the base, C(x, y) is the lowest height the marble's centre can have
        over (x, y) in the tunnels: the floor dilated by the marble's lower hemisphere. A marble of
        energy height e (`_decided_check`) never rises above e and e never grows (energy only
        leaves), so it stays in its own connected part of {C < e}. A seat's level L (the highest a
        bisection finds) is one at which every grid point over the seat's region with C < L lies in
        the part holding the seat's own lowest point, that part holds no other seat's, and every
        local minimum of C in it (every place a marble can rest) lies inside the seat's region."""
        from scipy import ndimage

        h, r = PASS_GRID, self.marble_radius
        half = self.base_size / 2
        xs = np.arange(-half, half + h / 2, h)
        floor = self.floor_height(*np.meshgrid(xs, xs, indexing="ij"))
        n = int(np.ceil(r / h))
        ox, oy = np.meshgrid(np.arange(-n, n + 1) * h, np.arange(-n, n + 1) * h, indexing="ij")
        foot = ox ** 2 + oy ** 2 <= r * r
        cap = np.where(foot, np.sqrt(np.maximum(r * r - ox ** 2 - oy ** 2, 0.0)), 0.0)
        lowest = ndimage.grey_dilation(floor, footprint=foot, structure=cap, mode="nearest")
        lowest[np.hypot(*np.meshgrid(xs, xs, indexing="ij")) < self.hole_radius + r] = np.inf  # the tube: up into the crater
        local_min = ndimage.minimum_filter(lowest, size=3, mode="nearest") == lowest
        gx, gy = np.meshgrid(xs, xs, indexing="ij")

        def cell(p) -> tuple[int, int]:
            return tuple(int(v) for v in np.clip(np.rint((np.asarray(p[:2]) - xs[0]) / h), 0, len(xs) - 1))
        seats = {name: cell(region.center) for name, region in self.seat_regions.items()}

        def holds(name: str, level: float) -> bool:
            region = self.seat_regions[name]
            parts, _ = ndimage.label(lowest < level)
            own = parts[seats[name]]
            if own == 0 or any(parts[c] == own for other, c in seats.items() if other != name):
                return False
            cx, cy, cz = region.center
            over = (np.hypot(gx - cx, gy - cy) <= region.radius + h) & (lowest < level)
            if np.any(parts[over] != own):
                return False
            rests = (parts == own) & local_min
            d2 = (gx[rests] - cx) ** 2 + (gy[rests] - cy) ** 2 + (lowest[rests] - cz) ** 2
            return bool(np.all(d2 <= (region.radius - h) ** 2))

        out = {}
        for name in self.seat_regions:
            # the lowest levels split a flat floor into specks: scan up in 0.5 mm to the first level
            # that holds, on to the first above it that does not, then bisect between the two
            lo = hi = None
            for level in float(lowest[seats[name]]) + 0.0005 * np.arange(1, 200):
                if level >= self.ceiling_z - r:
                    break
                if holds(name, level):
                    lo = level
                elif lo is not None:
                    hi = level
                    break
            if lo is not None and hi is not None:
                for _ in range(24):
                    mid = 0.5 * (lo + hi)
                    lo, hi = (mid, hi) if holds(name, mid) else (lo, mid)
            out[name] = None if lo is None else float(lo)
        return out

    def _nearest_seat(self, pos: np.ndarray) -> tuple[str, float]:
        best = min(self.seat_regions.items(), key=lambda kv: float(np.linalg.norm(pos - np.array(kv[1].center))))
        return best[0], float(np.linalg.norm(pos - np.array(best[1].center)))

    def record_extra(self, outcome: Outcome) -> dict:
        """decided: the trial ended when its label could no longer change (only such trials carry it)."""
        return {"decided": True} if "decided" in outcome.reading else {}

    def summarize_extra(self, records: list[dict]) -> dict:
        """How many trials ended when their label could no longer change, before the marble rested."""
        return {"ended_when_decided": sum(1 for r in records if (r.get("extra") or {}).get("decided"))}

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
            "end_when_decided": {"enabled": self.end_when_decided, "margin": DECIDED_MARGIN,
                                 "seat_pass_levels": dict(self.seat_pass_levels)},
        }

