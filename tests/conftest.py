"""Shared fixtures: materials, and worlds that always close; every long test is slow too."""
from __future__ import annotations

import pytest
from threadpoolctl import threadpool_limits

from tabletop.sim.materials import load_materials
from tabletop.sim.paths import assets_dir
from tabletop.sim.world import PhysicsSettings, World


# One BLAS thread per test process: pytest-xdist already runs one process per core, and OpenBLAS's
# own threads in each would only wait on each other (the calibration tests' small fits: 30x slower).
threadpool_limits(1, user_api="blas")


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


# The modules whose tests take longest (whole games in a browser, in the window, reviewed, ten
# thousand messages) run first: on 2 cores (pytest-xdist, --dist worksteal) the short tests then
# fill the end of the run on both, instead of one core finishing a 30-second game alone.
FIRST = ("test_web.py", "test_match.py", "test_kk_review.py", "test_net_room.py", "test_replay_games.py")


def pytest_collection_modifyitems(config, items):
    """A `long` test (minutes) is `slow` too, so that `-m "not slow"` leaves it out as well; the
    FIRST modules' tests first, each module's in its order (the same order in every worker)."""
    for item in items:
        if item.get_closest_marker("long") is not None and item.get_closest_marker("slow") is None:
            item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(FIRST)))
