"""Packaging: the distribution installs one import package, tabletop (sim/ as tabletop.sim, games/
as tabletop.games, assets/ as tabletop.assets), and a plain wheel works without the checkout.

The wheel test builds the wheel from a copy of the checkout's package folders, installs it with
--no-deps into a fresh virtual environment and lends that environment this one's site-packages
through a .pth file (nothing is downloaded). A directory named in a .pth line is only appended to
sys.path; the .pth files inside it (an editable install's hook among them) are not run, so the
checkout cannot leak in. Every command then runs from an empty folder.
"""
from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
# the checkout's folders and where they land in the wheel
FOLDERS = {"tabletop": "tabletop", "sim": "tabletop/sim", "gamekit": "tabletop/gamekit", "games": "tabletop/games",
           "assets": "tabletop/assets"}
DATA = ("*.toml",)   # data files of those folders, each of which must ship

CHECK = """
import importlib.metadata, importlib.util, json, sys
import tabletop, tabletop.sim, tabletop.games
from tabletop.games.knossos.rules import Game
from tabletop.sim.paths import assets_dir

print(json.dumps({
    "tabletop": tabletop.__file__, "version": tabletop.__version__,
    "metadata_version": importlib.metadata.version("tabletop"),
    "sim": importlib.util.find_spec("sim") is not None,
    "games": importlib.util.find_spec("games") is not None,
    "assets": str(assets_dir()), "materials": (assets_dir() / "materials.toml").is_file(),
    "game": Game().players,
}))
"""


def _env(tmp: Path) -> dict[str, str]:
    """This process's environment without paths that could lead back to the checkout."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "TABLETOP_ASSETS")}
    env["TABLETOP_CACHE"] = str(tmp / "cache")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def _run(args: list, cwd: Path, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{args}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _checkout_files() -> list[str]:
    """Where each module and data file of the checkout's package folders lands in the wheel."""
    out = []
    for folder, target in FOLDERS.items():
        for pattern in ("*.py", *DATA):
            for path in (ROOT / folder).rglob(pattern):
                if "__pycache__" not in path.parts:
                    out.append(f"{target}/{path.relative_to(ROOT / folder).as_posix()}")
    return sorted(out)


def test_the_editable_install_puts_no_sim_or_games_on_the_path(tmp_path):
    """In this environment, from another folder, tabletop.sim and tabletop.games import and no
    top-level `sim` or `games` can be found."""
    code = ("import importlib.util, tabletop.sim, tabletop.games; "
            "print(importlib.util.find_spec('sim'), importlib.util.find_spec('games'))")
    proc = _run([sys.executable, "-c", code], tmp_path, _env(tmp_path))
    assert proc.stdout.split() == ["None", "None"]


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(wheel, venv): the wheel built from this checkout and a fresh venv that has it installed."""
    tmp = tmp_path_factory.mktemp("packaging")
    env = _env(tmp)
    src, dist, venv = tmp / "src", tmp / "dist", tmp / "venv"
    # build from a copy, so the checkout gets no build/ and no stale build/ folder leaks into the wheel
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for folder in FOLDERS:
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
          "-w", dist, src], tmp, env, timeout=300)
    (wheel,) = dist.glob("tabletop-*.whl")
    _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp, env)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", wheel],
         tmp, env, timeout=300)
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp, env)
                   .stdout.strip())
    # this environment's site dirs, and any site-packages on its path (a venv that lends itself
    # another environment's through a .pth, as this one may, lists those only on sys.path)
    lent = [p for p in (*site.getsitepackages(), site.getusersitepackages(), sysconfig.get_path("purelib"),
                        *(q for q in sys.path if Path(q).name in ("site-packages", "dist-packages")))
            if p in sys.path and Path(p).is_dir()]
    (purelib / "_tabletop_test_deps.pth").write_text("".join(f"{p}\n" for p in dict.fromkeys(lent)))
    return wheel, venv


@pytest.mark.slow
def test_the_wheel_holds_the_one_package_and_every_data_file(installed):
    wheel, venv = installed
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"tabletop", f"{wheel.name.split('-py')[0]}.dist-info"}
    missing = sorted(set(_checkout_files()) - set(names))
    assert not missing, f"not in the wheel (list the package or its data in pyproject.toml): {missing}"
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "tabletop = tabletop.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    purelib = next((venv / "lib").glob("python*/site-packages"))
    assert not {"sim", "gamekit", "games", "assets", "sim.py", "games.py"} & {p.name for p in purelib.iterdir()}


def test_the_installed_package_works_without_the_checkout(installed, tmp_path):
    _, venv = installed
    env = _env(tmp_path)
    out = json.loads(_run([venv / "bin" / "python", "-c", CHECK], tmp_path, env).stdout)
    assert Path(out["tabletop"]).is_relative_to(venv)
    assert out["version"] == out["metadata_version"]
    assert not out["sim"] and not out["games"]
    assert Path(out["assets"]).is_relative_to(venv) and out["materials"]
    assert out["game"] == 2


@pytest.mark.slow
def test_the_installed_command_plays_and_estimates(installed, tmp_path):
    """The wheel's own `tabletop` script: a headless Knossos game of AI seats, and a 20-trial
    estimate, both run with the installed specs and boards."""
    _, venv = installed
    env, tabletop = _env(tmp_path), venv / "bin" / "tabletop"
    play = _run([tabletop, "play", "knossos", "--headless", "--seats", "ai,ai", "--seed", "3",
                 "--games-to-win", "1", "--record", "k.ttr"], tmp_path, env)
    assert "wins the match" in play.stdout and (tmp_path / "k.ttr").is_file()
    _run([tabletop, "estimate", "spinner", "--trials", "20", "--seed", "1", "--workers", "2", "--out", "x.json",
          "--quiet"], tmp_path, env)
    result = json.loads((tmp_path / "x.json").read_text())
    assert result["trials"] == 20 and Path(result["spec"]).is_relative_to(venv)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "k.ttr", "x.json"]


@pytest.mark.slow
def test_the_installed_python_api(installed, tmp_path):
    """The wheel's tabletop.estimate gives the installed command's counts; tabletop.play finishes a game."""
    _, venv = installed
    env = _env(tmp_path)
    _run([venv / "bin" / "tabletop", "estimate", "die", "--trials", "6", "--seed", "2", "--out", "x.json", "--quiet"],
         tmp_path, env)
    code = ("import json, tabletop\n"
            "r = tabletop.estimate('die', trials=6, seed=2)\n"
            "g = tabletop.play('king-kong', seats=['ai', 'ai'], seed=1, outcomes='uniform')\n"
            "print(json.dumps({'counts': r.counts, 'spec': r['spec'], 'over': g.state.is_terminal(),"
            " 'api': tabletop.api.__file__}))")
    out = json.loads(_run([venv / "bin" / "python", "-c", code], tmp_path, env).stdout)
    assert out["counts"] == json.loads((tmp_path / "x.json").read_text())["counts"]
    assert Path(out["spec"]).is_relative_to(venv) and Path(out["api"]).is_relative_to(venv) and out["over"]
