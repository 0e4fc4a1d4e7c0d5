"""The Tipper's shape from its spec (assets/king_of_the_hill/tipper.toml): every dimension, the
slots, the pegs and where a ball rests in each slot; no World, so views draw from it (the slot
numbers on the tray) without PyBullet. tabletop.sim.devices.tipper builds and tilts it."""
from __future__ import annotations

import math

from tabletop.sim.errors import SpecError
from tabletop.sim.materials import Material, load_materials, pick_material
from tabletop.sim.paths import assets_dir
from tabletop.sim.readouts import SettleRule
from tabletop.sim.spec import SpecShape, Table, read_numerics


def rot_y(v, angle):
    """Rotate vector v about +Y by angle."""
    c, s = math.cos(angle), math.sin(angle)
    x, y, z = v
    return (c * x + s * z, y, -s * x + c * z)


def _seg_dist(p, a, b):
    """Distance from point p to segment ab (2D)."""
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)
    t = min(1.0, max(0.0, t))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)


class TipperShape(SpecShape):
    """The Tipper's dimensions and slot geometry, read and checked from its spec (tray frame: X along
    the beam, end "A" at -X and "B" at +X, Y across, Z up, origin on the floor at the centre)."""

    # -- spec -------------------------------------------------------------------------------
    def _load(self, spec: Table) -> None:
        src = spec.source
        mats_path = assets_dir() / "materials.toml"
        materials = load_materials(mats_path, self.overrides)

        def material(t: Table) -> Material:
            return pick_material(t, "material", materials)

        b = spec.table("ball")
        self.ball_radius = b.number("radius", 0.002, 0.02)
        self.ball_material = material(b)

        t = spec.table("tray")
        self.tray_material = material(t)
        self.tray_mass = t.number("mass", 0.01, 10.0)
        self.half_length = t.number("half_length", 0.05, 1.0)
        self.height = t.number("height", 0.0, 0.1)
        self.wall = t.number("wall_thickness", 0.001, 0.05)
        self.floor_thickness = t.number("floor_thickness", 0.001, 0.05)
        self.slope = math.radians(t.number("floor_slope_deg", 0.0, 10.0))
        self.rest_angle = math.radians(t.number("rest_angle_deg", 0.5, 20.0))
        self.pivot_height = t.number("pivot_height", -0.05, 0.05)
        self.base_height = t.number("base_height", 0.0, 1.0)
        r = self.ball_radius
        if self.height < 2 * r + 0.0005:
            raise SpecError(f"{src}: tray.height: {self.height} leaves no room for a ball of radius {r}")
        if self.height > 4 * r:
            raise SpecError(f"{src}: tray.height: {self.height} is more than two ball diameters: "
                            f"the ball could hop a peg or a divider")

        w = spec.table("waist")
        self.waist_half_length = w.number("half_length", 0.0, 0.5)
        self.waist_width = w.number("width", 2 * r + 0.001, 0.5)
        self.flare_length = spec.table("flare").number("length", 0.005, 0.5)

        s = spec.table("slots")
        self.slot_order = self._labels_list(s, src)
        n = len(self.slot_order)
        self.slot_widths = s.vector("widths", n)
        self.slot_depths = s.vector("depths", n)
        for i, wd in enumerate(self.slot_widths):
            if not 2 * r + 0.001 <= wd <= 0.1:
                raise SpecError(f"{src}: slots.widths[{i}]: {wd} must lie in [{2 * r + 0.001}, 0.1] "
                                f"(wider than the ball)")
        for i, d in enumerate(self.slot_depths):
            if not 0.0 <= d <= r / 2:
                raise SpecError(f"{src}: slots.depths[{i}]: {d} must lie in [0, {r / 2}]")
        self.slot_length = s.number("length", 2 * r, 0.3)
        self.divider = s.number("divider_thickness", 0.0005, 0.01)
        self.pocket_ramp = s.number("pocket_ramp", 0.001, 0.05)
        self.pocket_offset = s.number("pocket_offset", r, 0.1)
        if self.pocket_offset > self.slot_length - r or self.pocket_offset < self.pocket_ramp + r + 0.002:
            raise SpecError(f"{src}: slots.pocket_offset: {self.pocket_offset} puts the pocket's ramp "
                            f"outside the slot (length {self.slot_length}) or under the resting ball")
        self.width = sum(self.slot_widths) + (n - 1) * self.divider

        p = spec.table("pegs")
        self.peg_radius = p.number("radius", 0.0005, 0.02)
        self.peg_shape = p.string("shape", default="star")
        if self.peg_shape not in ("star", "capsule"):
            raise SpecError(f"{src}: pegs.shape: {self.peg_shape!r} is not one of 'star', 'capsule'")
        self.peg_start = p.number("start", 0.0, 0.2)
        self.peg_rows = p.integer("rows", 0, 20)
        self.peg_row_pitch = p.number("row_pitch", 0.001, 0.1)
        self.peg_pitch = p.number("pitch", 0.001, 0.2)
        self.peg_offsets = p.numbers("offsets")
        self.peg_min_gap = p.number("min_gap", 2 * r, 0.1)

        rg = spec.table("ridges")
        self.ridge_height = rg.number("height", 0.0, r)
        self.ridge_length = rg.number("length", 0.001, 0.05)

        self.x_flare_end = self.waist_half_length + self.flare_length
        self.x_slots = self.half_length - self.slot_length
        if self.x_slots <= self.x_flare_end:
            raise SpecError(f"{src}: slots.length: {self.slot_length}: the slots overlap the flare "
                            f"(tray.half_length {self.half_length}, waist + flare {self.x_flare_end})")
        if self.waist_width >= self.width:
            raise SpecError(f"{src}: waist.width: {self.waist_width} is not narrower than the tray ({self.width:.4f})")
        self.wall_bumps = bool(p.integer("wall_bumps", 0, 1))
        self.pegs = self._peg_positions()
        self.bumps = self._bump_positions()
        self._check_gaps(src)

        g = spec.table("gesture")
        self.angle_range = g.range("angle_deg", 0.5, 45.0)
        self.speed_range = g.range("speed_dps", 1.0, 2000.0)
        if self.speed_range[0] <= 0:
            raise SpecError(f"{src}: gesture.speed_dps: must be positive")
        self.hold_range = g.range("hold_s", 0.0, 10.0)
        self.max_force = g.number("max_force", 0.01, 1e4)

        ph = spec.table("physics")
        read_numerics(self, ph)

        self.settle = SettleRule.from_table(spec.table("settle"))

    @staticmethod
    def _labels_list(s: Table, src: str) -> tuple[str, ...]:
        value = s.data.get("order")
        want = {"1", "2", "3", "4", "5", "6", "J"}
        if (not isinstance(value, list) or not all(isinstance(v, str) for v in value)
                or len(value) != 7 or set(value) != want):
            raise SpecError(f"{src}: {s.prefix}order: expected the seven labels 1-6 and J, each once, "
                            f"got {value!r}")
        return tuple(value)

    # -- geometry ---------------------------------------------------------------------------
    def _slot_spans(self) -> list[tuple[float, float]]:
        """(y_low, y_high) of each slot's opening, in `slot_order`."""
        y = -self.width / 2
        spans = []
        for wd in self.slot_widths:
            spans.append((y, y + wd))
            y += wd + self.divider
        return spans

    def _divider_ys(self) -> list[float]:
        spans = self._slot_spans()
        return [(spans[i][1] + spans[i + 1][0]) / 2 for i in range(len(spans) - 1)]

    def _peg_positions(self) -> list[tuple[float, float]]:
        """Peg centres (x, y) in the half-local frame of the +X half."""
        pegs = []
        half_w = self.width / 2
        for row in range(self.peg_rows):
            x = self.x_flare_end + self.peg_start + row * self.peg_row_pitch
            off = self.peg_offsets[row % len(self.peg_offsets)]
            k0 = -int(math.ceil((half_w + off) / self.peg_pitch)) - 1
            k1 = int(math.ceil((half_w - off) / self.peg_pitch)) + 1
            for k in range(k0, k1 + 1):
                y = off + k * self.peg_pitch
                if abs(y) + self.peg_radius + self.peg_min_gap <= half_w:
                    pegs.append((x, y))
        return pegs

    def _bump_positions(self) -> list[tuple[float, float]]:
        """Half pegs set into the side walls, one per row where the row leaves the wall open:
        a ball running along a wall is kicked back into the field (with its centre 5 mm from
        the wall it meets a bump well off-centre, so it can never stop against one)."""
        bumps = []
        if not self.wall_bumps:
            return bumps
        hw = self.width / 2
        for row in range(self.peg_rows):
            x = self.x_flare_end + self.peg_start + row * self.peg_row_pitch
            ys = [abs(py) for px, py in self.pegs if px == x]
            outer = max(ys) if ys else 0.0
            if (hw - self.peg_radius - (outer + self.peg_radius) >= self.peg_min_gap
                    and x - self.peg_radius - self.x_flare_end >= self.peg_min_gap):
                bumps += [(x, hw), (x, -hw)]
        return bumps

    def _check_gaps(self, src: str) -> None:
        """Every opening between pegs, divider tips and walls is wider than pegs.min_gap or closed."""
        hw = self.width / 2
        posts = [((x, y), self.peg_radius, f"peg at ({x * 1000:.1f}, {y * 1000:.1f}) mm") for x, y in self.pegs]
        posts += [((x, y), self.peg_radius, f"wall bump at ({x * 1000:.1f}, {y * 1000:.1f}) mm") for x, y in self.bumps]
        posts += [((self.x_slots, y), self.divider / 2, f"divider tip at y={y * 1000:.1f} mm") for y in self._divider_ys()]
        walls = []
        for sgn in (1.0, -1.0):
            walls.append((((self.x_flare_end, sgn * hw), (self.half_length, sgn * hw)), 0.0, "side wall"))
            walls.append((((self.waist_half_length, sgn * self.waist_width / 2), (self.x_flare_end, sgn * hw)), 0.0,
                          "flare wall"))
        for y in self._divider_ys():
            walls.append((((self.x_slots, y), (self.half_length, y)), self.divider / 2, f"divider at y={y * 1000:.1f} mm"))
        gap_min = self.peg_min_gap
        for i, (c1, r1, n1) in enumerate(posts):
            if c1[0] - r1 < self.x_flare_end or c1[0] + r1 > self.x_slots:
                if n1.startswith("peg"):
                    raise SpecError(f"{src}: pegs: {n1} lies outside the peg field "
                                    f"({self.x_flare_end * 1000:.1f} to {self.x_slots * 1000:.1f} mm)")
            for c2, r2, n2 in posts[i + 1:]:
                if n1.startswith("wall bump") and n2.startswith("wall bump") and c1[1] == c2[1]:
                    continue                  # bumps on one wall: the wall closes the space between them
                gap = math.dist(c1, c2) - r1 - r2
                if 0.0 < gap < gap_min:
                    raise SpecError(f"{src}: pegs: the gap between the {n1} and the {n2} is "
                                    f"{gap * 1000:.2f} mm, narrower than pegs.min_gap ({gap_min * 1000:.2f} mm): "
                                    f"the ball could wedge there")
            for (a, b), r2, n2 in walls:
                if n1 == n2 or (n1.startswith("divider tip") and n2.startswith("divider")
                                and n1.split("=")[1] == n2.split("=")[1]):
                    continue
                gap = _seg_dist(c1, a, b) - r1 - r2
                if 0.0 < gap < gap_min:
                    raise SpecError(f"{src}: pegs: the gap between the {n1} and the {n2} is "
                                    f"{gap * 1000:.2f} mm, narrower than pegs.min_gap ({gap_min * 1000:.2f} mm): "
                                    f"the ball could wedge there")

    def slot_rest_point(self, end: str, label: str):
        """Tray-frame point where a ball rests in the pocket of a slot at an end."""
        i = self.slot_order.index(label)
        y0, y1 = self._slot_spans()[i]
        r = self.ball_radius
        local = (self.half_length - r - 0.0005, (y0 + y1) / 2, r + 1e-5)
        p = rot_y(local, self.slope)
        if end == "A":
            p = (-p[0], p[1], p[2])
        return p
