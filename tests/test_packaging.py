"""Packaging: the distribution installs one import package, tabletop (sim/ as tabletop.sim, games/
as tabletop.games, assets/ as tabletop.assets, ...), and a plain wheel works without the checkout,
with a game published as a distribution of its own (tests/plugins/) installed beside it.

Nothing here lists a game, a device, a package or a data file by hand: the folders and packages come
from pyproject.toml's [tool.setuptools] tables, the files from the checkout (git's view of it), the
games and devices from the entry points that pyproject.toml and each plugin's pyproject.toml declare.

The wheel tests build the wheels once per test run (shared by the xdist workers), each from a copy
of its distribution's files, with `pip wheel --no-deps --no-build-isolation --no-index` (nothing is
downloaded). A fresh virtual environment gets the wheels with --no-deps and is lent this
environment's third-party packages through a .pth file naming a folder of links to this
environment's site-packages, less every distribution of tabletop's (tabletop itself, installed
editable here, and any plugin): a directory named in a .pth line is only appended to sys.path and
the .pth files inside it (an editable install's hook among them) are not run, and with the
distributions' metadata left out no entry point leads back to the checkout either. Every command
then runs from an empty folder.
"""
from __future__ import annotations

import configparser
import contextlib
import fnmatch
import importlib.metadata
import json
import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
# the checkout's folders and where they land in the wheel ({"sim": "tabletop/sim", ...})
FOLDERS = {folder: package.replace(".", "/") for package, folder in SETUPTOOLS["package-dir"].items()}
ENTRY_GROUPS = ("tabletop.games", "tabletop.devices")
# the plugin distributions under tests/plugins/ (a folder with a pyproject.toml each)
PLUGINS = sorted(p.parent for p in (ROOT / "tests" / "plugins").glob("*/pyproject.toml"))

CHECK = """
import importlib.metadata, importlib.util, json, sys
from pathlib import Path
import tabletop
from tabletop.gamekit import devices
from tabletop.gamekit.registry import GAMES
from tabletop.sim.paths import assets_dir

games = list(GAMES)
print(json.dumps({
    "tabletop": tabletop.__file__, "version": tabletop.__version__,
    "metadata_version": importlib.metadata.version("tabletop"),
    "dists": sorted(str(d.locate_file("")) for d in importlib.metadata.distributions()
                    if d.metadata["Name"] == "tabletop"),
    "path": sys.path,
    "sim": importlib.util.find_spec("sim") is not None,
    "games": importlib.util.find_spec("games") is not None,
    "assets": str(assets_dir()), "materials": (assets_dir() / "materials.toml").is_file(),
    "declared": GAMES.names(), "registered": games, "problems": GAMES.problems(),
    "seats": {name: list(GAMES[name].seats) for name in games},
    "modules": {name: sys.modules[type(GAMES[name]).__module__].__file__ for name in games},
    "devices": list(devices.DEVICES), "device_problems": devices.problems(),
    "specs": {name: [str(devices.default_spec(name)), devices.default_spec(name).is_file()]
              for name in devices.DEVICES},
}))
"""


def _env(tmp: Path) -> dict[str, str]:
    """This process's environment without paths that could lead back to the checkout; caches and
    recorded games go under `tmp`."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "TABLETOP_ASSETS")}
    env["TABLETOP_CACHE"] = str(tmp / "cache")
    env["TABLETOP_DATA"] = str(tmp / "data")
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"
    return env


def _run(args: list, cwd: Path, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"{args}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def _files(folder: Path) -> list[Path]:
    """Every file of `folder` that the checkout holds (tracked, or new and not ignored), no bytecode."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", "."],
                                cwd=folder, capture_output=True, text=True, check=True).stdout
        paths = {folder / name for name in listed.split("\0") if name}
    except (OSError, subprocess.CalledProcessError):     # not a git checkout (an sdist): every file there
        paths = set(folder.rglob("*"))
    return sorted(p for p in paths if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def _checkout_files() -> dict[str, Path]:
    """Where each module and data file of the checkout's package folders lands in the wheel -> the file."""
    return {f"{target}/{path.relative_to(ROOT / folder).as_posix()}": path
            for folder, target in FOLDERS.items() for path in _files(ROOT / folder)}


def _entry_points(text: str) -> dict[str, dict[str, str]]:
    parser = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    parser.optionxform = str      # entry-point names keep their case
    parser.read_string(text)
    return {group: {k: v.replace(" ", "") for k, v in parser[group].items()} for group in parser.sections()}


def _declared_entry_points(pyproject: dict) -> dict[str, dict[str, str]]:
    project = pyproject["project"]
    declared = {group: {k: v.replace(" ", "") for k, v in points.items()}
                for group, points in project.get("entry-points", {}).items()}
    if project.get("scripts"):
        declared["console_scripts"] = {k: v.replace(" ", "") for k, v in project["scripts"].items()}
    return declared


def _plugin_pyproject(plugin: Path) -> dict:
    return tomllib.loads((plugin / "pyproject.toml").read_text())


def _declared_names(pyprojects, group: str) -> set[str]:
    return {name for p in pyprojects for name in p["project"].get("entry-points", {}).get(group, {})}


# -- fast: the package lists of pyproject.toml against the checkout ---------------------------------

def test_pyproject_lists_every_package_of_the_checkout():
    """Every folder of the checkout's package folders that holds a file is a package listed in
    [tool.setuptools] packages, and every listed package is such a folder (setuptools ships only
    the packages it is told)."""
    found = {".".join([package, *path.parent.relative_to(ROOT / folder).parts])
             for package, folder in SETUPTOOLS["package-dir"].items() for path in _files(ROOT / folder)}
    listed = set(SETUPTOOLS["packages"])
    assert not found - listed, \
        f"list these packages in pyproject.toml's [tool.setuptools] packages: {sorted(found - listed)}"
    assert not listed - found, f"pyproject.toml lists packages the checkout lacks: {sorted(listed - found)}"


def _matches(rel: str, pattern: str) -> bool:
    """Whether a package-relative path matches a package-data glob (a `*` stays within one folder)."""
    names, globs = rel.split("/"), pattern.split("/")
    return len(names) == len(globs) and all(fnmatch.fnmatchcase(n, g) for n, g in zip(names, globs))


def test_pyproject_ships_every_data_file_of_the_checkout():
    """Every file of the checkout's package folders that is not a module matches a
    [tool.setuptools.package-data] pattern ("*"'s or a package's, relative to that package's folder)
    of the package that holds it or of one above it."""
    patterns = SETUPTOOLS.get("package-data", {})
    unshipped = []
    for package, folder in SETUPTOOLS["package-dir"].items():
        for path in _files(ROOT / folder):
            if path.suffix == ".py":
                continue
            parts = path.relative_to(ROOT / folder).parts
            owners = {".".join([package, *parts[:i]]): "/".join(parts[i:]) for i in range(len(parts))}
            if not any(_matches(rel, pattern) for owner, rel in owners.items()
                       for pattern in (*patterns.get("*", ()), *patterns.get(owner, ()))):
                unshipped.append(path.relative_to(ROOT).as_posix())
    assert not unshipped, f"add these to pyproject.toml's [tool.setuptools.package-data]: {unshipped}"


def test_the_editable_install_puts_no_sim_or_games_on_the_path(tmp_path):
    """In this environment, from another folder, tabletop.sim and tabletop.games import and no
    top-level `sim` or `games` can be found."""
    code = ("import importlib.util, tabletop.sim, tabletop.games; "
            "print(importlib.util.find_spec('sim'), importlib.util.find_spec('games'))")
    proc = _run([sys.executable, "-c", code], tmp_path, _env(tmp_path))
    assert proc.stdout.split() == ["None", "None"]


# -- the wheels, built once per run -------------------------------------------------------------------

@contextlib.contextmanager
def _locked(path: Path):
    """Hold an exclusive lock on `path` (POSIX; elsewhere no lock: each worker builds its own)."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(path, "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _wheel(tmp_path_factory, name: str, files: dict[str, Path]) -> Path:
    """The wheel of the distribution made of `files` (where each goes in the source tree -> the file),
    built once per test run: the xdist workers of one run share it."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent            # the run's folder, above each worker's own
    built = shared / f"wheel-{name}"
    with _locked(shared / f"wheel-{name}.lock"):
        wheels = sorted((built / "dist").glob("*.whl"))
        if not (built / "done").is_file():
            shutil.rmtree(built, ignore_errors=True)
            src = built / "src"      # a copy: the checkout gets no build/ or egg-info, none leaks in
            for target, path in files.items():
                (src / target).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, src / target)
            _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                  "-w", built / "dist", src], built, _env(built), timeout=300)
            wheels = sorted((built / "dist").glob("*.whl"))
            (built / "done").write_text("\n".join(w.name for w in wheels))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _lent(tmp: Path) -> list[Path]:
    """Folders of links to this environment's site-packages, less every distribution of tabletop's
    (tabletop and each distribution with an entry point in ENTRY_GROUPS): its files, its metadata."""
    sites = [Path(p) for p in (*site.getsitepackages(), site.getusersitepackages(), sysconfig.get_path("purelib"),
                               *(q for q in sys.path if Path(q).name in ("site-packages", "dist-packages")))
             if p in sys.path and Path(p).is_dir()]
    left_out: set[Path] = set()
    for dist in importlib.metadata.distributions():
        if not (dist.metadata["Name"] or "").lower() == "tabletop" and not any(
                ep.group in ENTRY_GROUPS for ep in dist.entry_points):
            continue
        base = Path(dist.locate_file(""))
        for file in dist.files or ():
            if file.parts and file.parts[0] != "..":
                left_out.add(base / file.parts[0])
        left_out.add(Path(str(dist._path)) if hasattr(dist, "_path") else base)
    folders = []
    for i, path in enumerate(dict.fromkeys(sites)):
        folder = tmp / "lent" / str(i)
        folder.mkdir(parents=True)
        for entry in path.iterdir():
            if entry not in left_out and entry.suffix != ".pth" and entry.name != "__pycache__":
                (folder / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
        folders.append(folder)
    return folders


def _venv(tmp: Path, wheels: list[Path], lent: list[Path]) -> Path:
    """A fresh venv under `tmp` with `wheels` installed (no deps) and `lent` on its path."""
    env, venv = _env(tmp), tmp / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp, env)
    python = venv / "bin" / "python"
    _run([sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", *wheels],
         tmp, env, timeout=300)
    purelib = Path(_run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp, env)
                   .stdout.strip())
    (purelib / "_tabletop_test_deps.pth").write_text("".join(f"{p}\n" for p in lent))
    return venv


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """tabletop's wheel, built from this checkout's files."""
    files = {f"{folder}/{path.relative_to(ROOT / folder).as_posix()}": path
             for folder in FOLDERS for path in _files(ROOT / folder)}
    files.update({name: ROOT / name for name in ("pyproject.toml", "README.md")})
    return _wheel(tmp_path_factory, "tabletop", files)


@pytest.fixture(scope="module")
def lent(tmp_path_factory) -> list[Path]:
    return _lent(tmp_path_factory.mktemp("lent"))


@pytest.fixture(scope="module")
def installed(wheel, lent, tmp_path_factory):
    """(wheel, venv): the wheel built from this checkout and a fresh venv that has it installed."""
    return wheel, _venv(tmp_path_factory.mktemp("packaging"), [wheel], lent)


@pytest.fixture(scope="module")
def plugins(wheel, lent, tmp_path_factory):
    """(plugin wheels, venv): the wheel of each distribution under tests/plugins/, and a fresh venv that
    has them installed beside tabletop's."""
    if not PLUGINS:
        pytest.skip("no plugin distribution under tests/plugins/")
    wheels = [_wheel(tmp_path_factory, plugin.name, {
        path.relative_to(plugin).as_posix(): path for path in _files(plugin)}) for plugin in PLUGINS]
    return wheels, _venv(tmp_path_factory.mktemp("plugins"), [wheel, *wheels], lent)


def _check(venv: Path, tmp: Path) -> dict:
    """What the venv's tabletop says of itself and its registries (run from `tmp`)."""
    return json.loads(_run([venv / "bin" / "python", "-c", CHECK], tmp, _env(tmp)).stdout)


def _outside_the_checkout(out: dict, venv: Path) -> None:
    assert Path(out["tabletop"]).is_relative_to(venv), out["tabletop"]
    assert [Path(d).is_relative_to(venv) for d in out["dists"]] == [True], out["dists"]
    assert not [p for p in out["path"] if p and Path(p).resolve().is_relative_to(ROOT.resolve())]
    assert not out["sim"] and not out["games"]


# -- the wheel ---------------------------------------------------------------------------------------

@pytest.mark.slow
def test_the_wheel_holds_the_one_package_and_every_data_file(installed):
    """Every module and data file of the checkout's package folders, nothing else, and the entry points
    that pyproject.toml declares (the command, the games, the devices)."""
    wheel, venv = installed
    archive = zipfile.ZipFile(wheel)
    names = archive.namelist()
    info = f"{wheel.name.split('-py')[0]}.dist-info"
    assert {n.split("/")[0] for n in names} == {"tabletop", info}
    shipped = {n for n in names if not n.startswith(info + "/")}
    expected = set(_checkout_files())
    assert not expected - shipped, ("not in the wheel (list the package or its data in pyproject.toml): "
                                    f"{sorted(expected - shipped)}")
    assert not shipped - expected, f"in the wheel but not in the checkout: {sorted(shipped - expected)}"
    points = _entry_points(archive.read(f"{info}/entry_points.txt").decode())
    assert points == _declared_entry_points(PYPROJECT)
    assert set(ENTRY_GROUPS) <= set(points) and all(points[g] for g in ENTRY_GROUPS)
    assert points["console_scripts"] == {"tabletop": "tabletop.cli:main"}
    purelib = next((venv / "lib").glob("python*/site-packages"))
    assert not {"sim", "gamekit", "games", "assets", "sim.py", "games.py"} & {p.name for p in purelib.iterdir()}


@pytest.mark.slow
def test_the_installed_package_works_without_the_checkout(installed, tmp_path):
    """The venv's tabletop is the wheel's alone; its registries hold the games and devices that
    pyproject.toml declares, every one importing and checked, each device's default spec installed."""
    _, venv = installed
    out = _check(venv, tmp_path)
    _outside_the_checkout(out, venv)
    assert out["version"] == out["metadata_version"]
    assert Path(out["assets"]).is_relative_to(venv) and out["materials"]
    games = set(PYPROJECT["project"]["entry-points"]["tabletop.games"])
    assert set(out["declared"]) == set(out["registered"]) == games and not out["problems"]
    assert all(Path(m).is_relative_to(venv) for m in out["modules"].values())
    assert set(out["devices"]) == set(PYPROJECT["project"]["entry-points"]["tabletop.devices"])
    assert not out["device_problems"]
    assert all(found and Path(spec).is_relative_to(venv) for spec, found in out["specs"].values()), out["specs"]


@pytest.mark.slow
def test_the_installed_command_plays_estimates_and_analyzes(installed, tmp_path):
    """The wheel's own `tabletop` script, run from an empty folder with the installed specs, boards and
    measured tables: a headless Knossos game of AI seats (physics: the sticks simulated), a 50-trial
    estimate of the die and 20 games of King Kong analysed (chance from the packaged measured tables)."""
    _, venv = installed
    env, tabletop = _env(tmp_path), venv / "bin" / "tabletop"
    play = _run([tabletop, "play", "knossos", "--headless", "--seed", "3", "--games-to-win", "1",
                 "--record", "k.ttr"], tmp_path, env)
    assert re.search(r"^(red|blue) wins the match 1-0$", play.stdout, re.M), play.stdout[-2000:]
    assert "throws" in play.stdout and (tmp_path / "k.ttr").is_file()
    estimate = _run([tabletop, "estimate", "die", "--trials", "50", "--seed", "1", "--out", "x.json"], tmp_path, env)
    assert "die: 50 trials, seed 1" in estimate.stdout, estimate.stdout
    result = json.loads((tmp_path / "x.json").read_text())
    assert result["trials"] == 50 and Path(result["spec"]).is_relative_to(venv)
    assert set(result["counts"]) <= set("123456") and sum(result["counts"].values()) == result["labelled"] > 40
    analyze = _run([tabletop, "analyze", "king-kong", "--games", "20", "--seed", "1", "--out", "a.json"],
                   tmp_path, env)
    assert re.search(r"^20 games in ", analyze.stdout, re.M) and "win_rate.red" in analyze.stdout, analyze.stdout
    report = json.loads((tmp_path / "a.json").read_text())
    assert report["games"] == 20, report.keys()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "cache", "k.ttr", "x.json"]


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


# -- a plugin's wheel beside it ----------------------------------------------------------------------

@pytest.mark.slow
def test_a_plugins_wheel_installed_beside_registers_and_plays(plugins, tmp_path):
    """Each plugin distribution's wheel, installed beside tabletop's: its games and devices join the
    registries from its entry points (tabletop's own still all there), each game plays headless with
    random seats and physics chance, each device estimates with the spec its wheel installed."""
    wheels, venv = plugins
    declared = [_plugin_pyproject(p) for p in PLUGINS]
    for plugin, wheel, pyproject in zip(PLUGINS, wheels, declared):
        archive = zipfile.ZipFile(wheel)
        (points,) = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        assert _entry_points(archive.read(points).decode()) == _declared_entry_points(pyproject)
        packages = pyproject.get("tool", {}).get("setuptools", {}).get("packages")
        if isinstance(packages, list):     # listed by hand: each of their modules and data files ships
            shipped = {n for n in archive.namelist() if ".dist-info/" not in n}
            expected = {p.relative_to(plugin).as_posix() for p in _files(plugin)
                        if p.parent.relative_to(plugin).as_posix() in {k.replace(".", "/") for k in packages}}
            assert expected <= shipped, f"{plugin.name}'s wheel lacks {sorted(expected - shipped)}"
    out = _check(venv, tmp_path)
    _outside_the_checkout(out, venv)
    games = _declared_names(declared, "tabletop.games")
    devices = _declared_names(declared, "tabletop.devices")
    assert games and not games & set(PYPROJECT["project"]["entry-points"]["tabletop.games"])
    assert set(out["declared"]) == set(out["registered"]) == games | set(
        PYPROJECT["project"]["entry-points"]["tabletop.games"]) and not out["problems"], out["problems"]
    assert set(out["devices"]) == devices | set(PYPROJECT["project"]["entry-points"]["tabletop.devices"])
    assert not out["device_problems"], out["device_problems"]
    for name in games:
        assert Path(out["modules"][name]).is_relative_to(venv)
    for name in devices:
        spec, found = out["specs"][name]
        assert found and Path(spec).is_relative_to(venv), (name, spec)
    env, tabletop = _env(tmp_path), venv / "bin" / "tabletop"
    listing = _run([tabletop, "plugins"], tmp_path, env).stdout      # each with the distribution it comes from
    dists = {n: p["project"]["name"] for p in declared for g in ENTRY_GROUPS
             for n in p["project"]["entry-points"].get(g, {})}
    for name in sorted(games | devices):
        assert re.search(rf"^  {re.escape(name)} .*\({re.escape(dists[name])} ", listing, re.M), listing
    usage = _run([tabletop, "play", "--help"], tmp_path, env).stdout
    for name in sorted(games):
        assert name in usage
        seats = ",".join(["random"] * out["seats"][name][0])
        play = _run([tabletop, "play", name, "--headless", "--seats", seats, "--seed", "1", "--record",
                     f"{name}.ttr"], tmp_path, env)
        assert re.search(r"\bwins\b", play.stdout), play.stdout[-2000:]
        assert (tmp_path / f"{name}.ttr").is_file()
    for name in sorted(devices):
        _run([tabletop, "estimate", name, "--trials", "10", "--seed", "1", "--out", f"{name}.json", "--quiet"],
             tmp_path, env)
        result = json.loads((tmp_path / f"{name}.json").read_text())
        assert result["trials"] == 10 and Path(result["spec"]).is_relative_to(venv)
