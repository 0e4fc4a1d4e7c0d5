"""Shared fixtures: materials, and worlds that always close."""
from __future__ import annotations

import pytest

from tabletop.sim.materials import load_materials
from tabletop.sim.paths import assets_dir
from tabletop.sim.world import PhysicsSettings, World


@pytest.fixture(scope="session")
def materials():
    return load_materials(assets_dir() / "materials.toml")


@pytest.fixture
def world():
    w = World(PhysicsSettings(timestep=1 / 480))
    yield w
    w.close()
