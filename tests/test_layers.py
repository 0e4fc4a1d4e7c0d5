"""The layers hold (issue 14, item 5): tabletop.sim knows no game, the physics core and every
registered game's rules load no Panda3D, the device registry loads no device, and reading a replay
(`replay --summary`, a game's playback adapter) loads no PyBullet. Each check imports in a fresh
interpreter and reads its sys.modules, as tests/test_kk_cli.py does for the King Kong rules. (What
each package may import, read from the source: tests/test_architecture.py.)"""
from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.gamekit import devices
from tabletop.gamekit.definition import GameDefinition
from tabletop.gamekit.registry import GAMES, ordered

ROOT = Path(__file__).resolve().parents[1]
STICKS_TABLE = ROOT / "assets" / "measured" / "sticks-10k-seed1.json"


def _modules(package: str, folder: Path) -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages([str(folder)], prefix=f"{package}."))


def _rules_game(definition):
    """The rules' Game of a registered game's shortest config (its fewest seats, its default options)."""
    seats = ["random"] * definition.seats[0]
    return definition.make_game(definition.replay_config(seats, "physics", definition.check_options({})))


SIM_MODULES = ["tabletop.sim", *_modules("tabletop.sim", ROOT / "sim")]
# every registered game's rules: the module of the Game its definition makes (plugin games too)
RULES_MODULES = sorted({type(_rules_game(GAMES[name])).__module__ for name in GAMES})


def _loaded_after(code: str, cwd: Path) -> set[str]:
    """The names in sys.modules once `code` has run in a fresh interpreter (cwd `cwd`)."""
    probe = f"{code}\nimport sys, json\nprint(json.dumps(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=cwd, timeout=120)
    assert run.returncode == 0, run.stderr
    return set(json.loads(run.stdout.strip().splitlines()[-1]))


def _matching(names: set[str], *prefixes: str) -> list[str]:
    return sorted(n for n in names if any(n == p or n.startswith(p + ".") for p in prefixes))


def test_the_module_lists_are_complete():
    """The walk finds the physics core, its devices and view, and every registered game's rules,
    tabletop's three among them (a test over an empty list would pass whatever the imports did)."""
    assert {"tabletop.sim.batch", "tabletop.sim.scene", "tabletop.sim.bench", "tabletop.sim.devices.die",
            "tabletop.sim.devices.tipper", "tabletop.sim.devices.tipper_shape", "tabletop.sim.devices.crater",
            "tabletop.sim.devices.hill_shape", "tabletop.sim.view.app"} <= set(SIM_MODULES)
    assert {"tabletop.games.king_kong.rules", "tabletop.games.king_of_the_hill.rules",
            "tabletop.games.knossos.rules"} <= set(RULES_MODULES)
    assert len(RULES_MODULES) == len(GAMES)


def test_sim_imports_nothing_from_games(tmp_path):
    """Every module of tabletop.sim, the view included, imports without tabletop.games."""
    loaded = _loaded_after("\n".join(f"import {m}" for m in SIM_MODULES), tmp_path)
    assert set(SIM_MODULES) <= loaded
    assert _matching(loaded, "tabletop.games") == []


def test_the_knockover_device_and_the_rig_know_neither_the_rules_nor_the_table(tmp_path):
    """The kong-knockover device builds on the rig (rig.py) and the rules' words (labels.py), as the
    game's table does: it loads neither King Kong's rules nor its table, and the rig loads no rules."""
    loaded = _loaded_after("import tabletop.games.king_kong.knockover", tmp_path)
    assert {"tabletop.games.king_kong.rig", "tabletop.games.king_kong.labels"} <= loaded
    assert _matching(loaded, "tabletop.games.king_kong.rules", "tabletop.games.king_kong.table") == []
    rig = _imports(ROOT / "games" / "king_kong" / "rig.py") | _imports(ROOT / "games" / "king_kong" / "knockover.py")
    assert not {n for n in rig if n.endswith(("king_kong.rules", "king_kong.table"))}


def _imports(path: Path) -> set[str]:
    """Every module an `import` or `from ... import` anywhere in the file names (inside functions too)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_no_sim_source_imports_games_even_lazily():
    """An import inside a function (sim/bench.py once built its devices so) counts as much as one at
    the top: no file under sim/ imports tabletop.games."""
    found = {str(p.relative_to(ROOT)): sorted(n for n in _imports(p) if n.split(".")[:2] == ["tabletop", "games"])
             for p in sorted((ROOT / "sim").rglob("*.py"))}
    assert len(found) > 20
    assert {path: names for path, names in found.items() if names} == {}
    # nor a "module:function" recipe that importlib would load (a DeviceRef's factory)
    recipes = {str(p.relative_to(ROOT)): sorted(n.value for n in ast.walk(ast.parse(p.read_text()))
                                                 if isinstance(n, ast.Constant) and isinstance(n.value, str)
                                                 and n.value.startswith("tabletop.games"))
               for p in sorted((ROOT / "sim").rglob("*.py"))}
    assert {path: names for path, names in recipes.items() if names} == {}


@pytest.mark.parametrize("modules", [
    pytest.param([m for m in SIM_MODULES if not m.startswith("tabletop.sim.view")], id="sim-core"),
    pytest.param(RULES_MODULES, id="rules"),
])
def test_the_physics_core_and_the_rules_load_no_panda3d(tmp_path, modules):
    """Only tabletop.sim.view and the games' view modules draw; the physics core (every module of
    tabletop.sim outside its view package) and each game's rules import no Panda3D."""
    loaded = _loaded_after("\n".join(f"import {m}" for m in modules), tmp_path)
    assert set(modules) <= loaded
    assert _matching(loaded, "panda3d", "direct") == []


def test_scene_loads_no_pybullet_and_its_constants_are_pybullets(tmp_path):
    loaded = _loaded_after("import tabletop.sim.scene, tabletop.sim.motion, tabletop.sim.record", tmp_path)
    assert _matching(loaded, "pybullet", "pybullet_utils", "tabletop.sim.bullet") == []
    from tabletop.sim import scene
    from tabletop.sim.bullet import pybullet

    for name in ("GEOM_SPHERE", "GEOM_BOX", "GEOM_CYLINDER", "GEOM_MESH", "GEOM_PLANE", "GEOM_CAPSULE",
                 "JOINT_FIXED"):
        assert getattr(scene, name) == getattr(pybullet, name), name


def test_the_devices_shapes_load_no_pybullet(tmp_path):
    """What views read of the Tipper, the hill, the spinner and the die (their shapes, from the specs)
    comes without PyBullet, and the hill's shape without the crater device; the devices built on
    them load PyBullet."""
    shapes = ("tabletop.sim.devices.tipper_shape", "tabletop.sim.devices.hill_shape",
              "tabletop.sim.devices.spinner_shape", "tabletop.sim.devices.die_shape")
    loaded = _loaded_after("\n".join(f"import {m}" for m in shapes), tmp_path)
    assert set(shapes) <= loaded
    assert _matching(loaded, "pybullet", "pybullet_utils", "tabletop.sim.bullet", "tabletop.sim.devices.crater",
                     "tabletop.sim.devices.tipper") == []
    loaded = _loaded_after("import tabletop.sim.devices.spinner, tabletop.sim.devices.die, "
                           "tabletop.sim.devices.tipper", tmp_path)
    assert _matching(loaded, "pybullet", "tabletop.sim.bullet")


def test_the_device_registry_imports_no_device(tmp_path):
    """Every device's name, default spec and summary come from the registry (gamekit/devices.py, the
    entry points of tabletop.devices, plugins' too) without importing a device module, so PyBullet
    stays unloaded; building one imports its module."""
    points = ordered(devices.GROUP)
    code = ("from tabletop.gamekit.devices import DEVICES, default_spec\n"
            f"assert len(DEVICES) == {len(points)}\n"
            "assert all(default_spec(name).is_file() and e.summary for name, e in DEVICES.items())")
    loaded = _loaded_after(code, tmp_path)
    modules = [point.module for point in points]
    assert _matching(loaded, "pybullet", "pybullet_utils", "tabletop.sim.bullet", "tabletop.sim.world", *modules) == []


def test_only_the_knockover_device_lives_with_a_game():
    """Every device of tabletop's own but King Kong's knock-over (built on his rig) lives in
    tabletop.sim.devices, and no game package of tabletop's keeps a device module of its own
    outside the registry. (A plugin's devices live with it.)"""
    own = [point.value for point in ordered(devices.GROUP) if point.dist is not None and point.dist.name == "tabletop"]
    outside = [t for t in own if not t.startswith("tabletop.sim.devices.")]
    assert outside == ["tabletop.games.king_kong.knockover:KongKnockover"]
    declaring = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "games").rglob("*.py")
                       if any(isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "DEFAULT_SPEC"
                                                                for t in n.targets)
                              for n in ast.parse(p.read_text()).body))
    assert declaring == ["games/king_kong/knockover.py"]


def test_replay_summary_loads_no_pybullet(tmp_path):
    """A game recorded (its header holds the table's scene) and read back with `replay --summary` in a
    fresh interpreter: the log comes back, and neither PyBullet nor a device or table module loaded."""
    play = subprocess.run([sys.executable, "-m", "tabletop.cli", "play", "knossos", "--headless", "--seed", "3",
                           "--outcomes", f"table:{STICKS_TABLE}", "--record", "k.ttr"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert play.returncode == 0, play.stderr
    code = ("import contextlib, io\nfrom tabletop.cli import main\nout = io.StringIO()\n"
            "with contextlib.redirect_stdout(out):\n    assert main(['replay', 'k.ttr', '--summary']) == 0\n"
            "open('summary.txt', 'w').write(out.getvalue())")
    loaded = _loaded_after(code, tmp_path)
    assert (tmp_path / "summary.txt").read_text() == play.stdout
    assert _matching(loaded, "pybullet", "pybullet_utils", "tabletop.sim.bullet", "tabletop.sim.world",
                     "tabletop.games.knossos.table", "panda3d", "direct") == []


def test_the_playback_modules_load_no_pybullet(tmp_path):
    """Replay playback's own modules (the timeline, the window's loop, tabletop.sim.scene and motion)
    import no PyBullet; nor do the games' playback adapters (the next test)."""
    pytest.importorskip("panda3d")
    loaded = _loaded_after("import tabletop.gamekit.view.playback, tabletop.gamekit.view.window", tmp_path)
    assert {"tabletop.gamekit.view.playback", "tabletop.sim.scene", "tabletop.sim.motion"} <= loaded
    assert _matching(loaded, "pybullet", "pybullet_utils", "tabletop.sim.bullet") == []


@pytest.fixture(scope="module")
def small_replays(tmp_path_factory):
    """One short recorded game of each registered game, its chance drawn from its devices' measured
    tables (fast)."""
    folder = tmp_path_factory.mktemp("replays")
    out = {}
    for game in GAMES:
        path = folder / f"{game}.ttr"
        play = subprocess.run([sys.executable, "-m", "tabletop.cli", "play", game, "--headless", "--seed", "3",
                               "--outcomes", "measured", "--record", str(path)],
                              capture_output=True, text=True, cwd=folder, timeout=300)
        assert play.returncode == 0, play.stderr
        out[game] = path
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game", list(GAMES))
def test_a_replays_adapter_loads_no_pybullet(tmp_path, small_replays, game):
    """A game's playback adapter, made from a recorded replay's scene (every body it holds), its
    timeline re-driven to the end and two PNG frames rendered from it (`replay --frames`), loads
    neither PyBullet nor the physical table (its package's `table` module)."""
    pytest.importorskip("panda3d")
    definition = GAMES[game]
    if type(definition).window_adapter is GameDefinition.window_adapter:
        pytest.skip(f"{game} has no window")
    package = type(definition).__module__
    package = package if hasattr(sys.modules[package], "__path__") else package.rpartition(".")[0]
    path, frames = str(small_replays[game]), str(tmp_path / "frames")
    code = ("from tabletop.cli import main\n"
            "from tabletop.gamekit.view.playback import Timeline, replay_config\n"
            "from tabletop.gamekit.view.window import make_adapter\n"
            "from tabletop.gamekit.registry import GAMES\n"
            "from tabletop.sim.record import ReplayFile\n"
            "from tabletop.sim.scene import RecordedScene\n"
            f"replay = ReplayFile.open({path!r})\n"
            "game, seats, options = replay_config(replay, GAMES)\n"
            "adapter = make_adapter(game, seats, options, RecordedScene(replay.header['scene']))\n"
            "assert set(adapter.worlds[0].bodies) == set(replay.header['scene']['looks'])\n"
            "assert Timeline(replay, adapter, game).final.is_terminal()\n"
            "adapter.close()\n"
            f"rc = main(['replay', {path!r}, '--frames', {frames!r}, '--max-frames', '2', '--size', '160x90'])\n"
            "open('rc.txt', 'w').write(str(rc))")
    loaded = _loaded_after(code, tmp_path)
    assert "tabletop.gamekit.view.playback" in loaded
    assert _matching(loaded, "pybullet", "pybullet_utils", "tabletop.sim.bullet", "tabletop.sim.world",
                     f"{package}.table") == []
    rc = int((tmp_path / "rc.txt").read_text())
    if rc == 2 and not (tmp_path / "frames").exists():
        pytest.skip("no graphics pipe: the frames were not rendered")
    assert rc == 0 and len(list((tmp_path / "frames").glob("frame-*.png"))) == 2
