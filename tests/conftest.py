"""Shared fixtures: materials, and worlds that always close; every long test is slow too."""
from __future__ import annotations

import pytest

from tabletop.sim.materials import load_materials
from tabletop.sim.paths import assets_dir
from tabletop.sim.world import PhysicsSettings, World


@pytest.fixture(autouse=True, scope="session")
def games_folder(tmp_path_factory):
    """Recorded games go to a folder of the test run's (TABLETOP_DATA), never the user's own data
    folder; commands the tests start as processes inherit it."""
    import os

    folder = tmp_path_factory.mktemp("data")
    before = os.environ.get("TABLETOP_DATA")
    os.environ["TABLETOP_DATA"] = str(folder)
    yield folder / "games"
    if before is None:
        del os.environ["TABLETOP_DATA"]
    else:
        os.environ["TABLETOP_DATA"] = before


@pytest.fixture(scope="session")
def materials():
    return load_materials(assets_dir() / "materials.toml")


@pytest.fixture
def world():
    w = World(PhysicsSettings(timestep=1 / 480))
    yield w
    w.close()


def pytest_collection_modifyitems(config, items):
    """A `long` test (minutes) is `slow` too, so that `-m "not slow"` leaves it out as well."""
    for item in items:
        if item.get_closest_marker("long") is not None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)
