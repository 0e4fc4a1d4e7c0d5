"""Readouts: settled, region_of, is_upright, displaced."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop.sim.readouts import (Region, SettleRule, SettleWatch, displaced, is_upright, region_of,
                          run_until_settled, up_tilt_deg)


@pytest.mark.parametrize("point,expected", [
    ((0.0, 0.0, 0.0), "a"),
    ((0.011, 0.0, 0.0), None),
    ((0.1, 0.1, 0.0), "b"),
    ((0.1, 0.13, 0.0), None),
])
def test_region_of(point, expected):
    regions = {"a": Region((0, 0, 0), radius=0.01), "b": Region((0.1, 0.1, 0), half_extents=(0.02, 0.02, 0.02))}
    assert region_of(point, regions) == expected


def _quat(axis, deg):
    axis = np.asarray(axis, float) / np.linalg.norm(axis)
    s = np.sin(np.radians(deg) / 2)
    return (*(axis * s), np.cos(np.radians(deg) / 2))


@pytest.mark.parametrize("deg,upright", [(0, True), (10, True), (29, True), (31, False), (90, False), (180, False)])
def test_is_upright(deg, upright):
    q = _quat((1, 0.3, 0), deg)
    assert up_tilt_deg(q) == pytest.approx(deg, abs=1e-6)
    assert is_upright(q, 30.0) is upright


def test_displaced_uses_horizontal_distance():
    assert not displaced((0.004, 0.003, 0.5), (0, 0, 0), 0.006)
    assert displaced((0.004, 0.0045, 0.0), (0, 0, 0), 0.006)


def test_a_falling_ball_never_settles_and_the_cap_holds(world, materials):
    """A ball in free fall is never still: run_until_settled gives up at the cap and says so."""
    world.add_sphere("m", 0.008, materials["glass"], (0, 0, 0))
    settled, escaped = run_until_settled(world, ["m"], SettleRule(cap=0.5))
    assert (settled, escaped) == (False, False)
    assert world.time == pytest.approx(0.5, abs=0.03)


def test_escape_is_reported(world, materials):
    """The escape predicate stops the wait as soon as the body leaves the model."""
    world.add_sphere("m", 0.008, materials["glass"], (0, 0, 0))
    settled, escaped = run_until_settled(world, ["m"], SettleRule(cap=5.0),
                                         escaped=lambda: world.position("m")[2] < -0.1)
    assert (settled, escaped) == (False, True)
    assert world.time < 0.3


def test_settle_needs_the_hold_time(world, materials):
    """A body resting still counts as settled only after the hold time has passed."""
    world.add_sphere("m", 0.008, materials["glass"], (0, 0, 0), mass=0.0)  # a fixed body is always still
    watch = SettleWatch(world, ["m"], SettleRule(hold=0.25))
    assert not watch.update()
    world.step(130)
    assert watch.update()
