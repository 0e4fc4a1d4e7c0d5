"""Named physical readings that devices and rules use instead of raw PyBullet calls.

- `SettleWatch` / `run_until_settled`: bodies whose linear and angular speeds stay under
  tolerance for a hold time (our own thresholds, not Bullet's sleeping), with a cap.
- `region_of`: which named region holds a point.
- `is_upright`: whether a body's local up axis is within a tilt of world up.
- `displaced`: whether a body has left its pad.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

if TYPE_CHECKING:
    from tabletop.sim.world import World


@dataclass(frozen=True)
class SettleRule:
    """Speeds under `linear` (m/s) and `angular` (rad/s) for `hold` seconds, checked
    every `every` steps; give up after `cap` seconds."""

    linear: float = 0.005
    angular: float = 0.5
    hold: float = 0.25
    cap: float = 20.0
    every: int = 12

    @classmethod
    def from_table(cls, t) -> "SettleRule":
        """From a spec's [settle] table (a tabletop.sim.spec.Table), validated."""
        return cls(linear=t.number("linear", 1e-6, 1.0), angular=t.number("angular", 1e-4, 100.0),
                   hold=t.number("hold", 0.0, 10.0), cap=t.number("cap", 0.1, 600.0),
                   every=t.integer("every", 1, 1000))


class SettleWatch:
    """Tracks how long a set of bodies has been still; call `update` every few steps."""

    def __init__(self, world: World, names: Sequence[str], rule: SettleRule):
        self.world, self.names, self.rule = world, list(names), rule
        self.hold_steps = max(1, round(rule.hold / world.dt))
        self.still_since: int | None = None  # step count, so the reading never depends on absolute time
        self._get = world.client.getBaseVelocity
        self._ids = [world.bodies[name] for name in self.names]
        self._lin2, self._ang2 = rule.linear ** 2, rule.angular ** 2

    def still_now(self) -> bool:
        get = self._get
        for body in self._ids:
            lin, ang = get(body)
            if (lin[0] * lin[0] + lin[1] * lin[1] + lin[2] * lin[2] > self._lin2
                    or ang[0] * ang[0] + ang[1] * ang[1] + ang[2] * ang[2] > self._ang2):
                return False
        return True

    def update(self) -> bool:
        """True once the bodies have been still for the hold time."""
        now = self.world.steps
        if not self.still_now():
            self.still_since = None
            return False
        if self.still_since is None:
            self.still_since = now
        return now - self.still_since >= self.hold_steps


def run_until_settled(world: World, names: Sequence[str], rule: SettleRule,
                      escaped=None, start_step: int | None = None, decided=None) -> tuple[bool, bool]:
    """Step until the bodies settle, one escapes (`escaped()` is true), the outcome is decided
    (`decided()` is true, asked after the settle check at each check) or the cap passes.

    Returns (settled, escaped): (False, False) when decided or capped. The cap counts from
    `start_step` (default: now).
    """
    watch = SettleWatch(world, names, rule)
    end = (world.steps if start_step is None else start_step) + round(rule.cap / world.dt)
    while world.steps < end:
        world.step(rule.every)
        if escaped is not None and escaped():
            return False, True
        if watch.update():
            return True, False
        if decided is not None and decided():
            return False, False
    return False, False


@dataclass(frozen=True)
class Region:
    """A named region: an axis-aligned box (half extents) or a sphere (radius) about a centre."""

    center: tuple[float, float, float]
    radius: float | None = None
    half_extents: tuple[float, float, float] | None = None

    def contains(self, point: Sequence[float]) -> bool:
        # plain floats: a device asks this at every settle check, where numpy's overhead was a
        # tenth of the Tipper's trial
        (px, py, pz), (cx, cy, cz) = point, self.center
        dx, dy, dz = float(px) - cx, float(py) - cy, float(pz) - cz
        if self.radius is not None:
            return dx * dx + dy * dy + dz * dz <= self.radius ** 2
        hx, hy, hz = self.half_extents
        return abs(dx) <= hx and abs(dy) <= hy and abs(dz) <= hz


def region_of(point: Sequence[float], regions: Mapping[str, Region]) -> str | None:
    """The name of the first region containing the point, or None."""
    for name, region in regions.items():
        if region.contains(point):
            return name
    return None


def up_tilt_deg(orientation: Sequence[float], local_up: Sequence[float] = (0.0, 0.0, 1.0)) -> float:
    """Angle in degrees between a body's local up axis (rotated by a quaternion x,y,z,w) and world +Z."""
    x, y, z, w = orientation
    r = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])
    up = r @ np.asarray(local_up, float)
    return float(np.degrees(np.arccos(np.clip(up[2] / np.linalg.norm(up), -1.0, 1.0))))


def is_upright(orientation: Sequence[float], max_tilt_deg: float,
               local_up: Sequence[float] = (0.0, 0.0, 1.0)) -> bool:
    return up_tilt_deg(orientation, local_up) <= max_tilt_deg


def displaced(position: Sequence[float], pad_center: Sequence[float], tolerance: float) -> bool:
    """True when the body's horizontal distance from its pad centre exceeds the tolerance."""
    d = np.asarray(position[:2], float) - np.asarray(pad_center[:2], float)
    return float(np.hypot(*d)) > tolerance
