"""The shape of the code, read from its source with the standard library's ast:

- no import cycle among the package's modules, counting the imports made inside functions too
  (the registry reaches the games, the games reach the generic machinery, never the reverse);
- no generic module (the machinery, the application layer, the command line, the API, the
  environments, the view base) names a game or a game's option: each is handed a definition (only
  the two registries, of the games and of the devices, list them);
- the front ends are thin: the API imports neither argparse nor the command line; no command-line
  module is over 400 lines or holds simulation, statistics or a file format; the application layer
  parses no command line.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# import name -> folder, as pyproject.toml's package-dir lays the checkout out
PACKAGES = {"tabletop": ROOT / "tabletop", "tabletop.sim": ROOT / "sim", "tabletop.gamekit": ROOT / "gamekit",
            "tabletop.games": ROOT / "games"}
GAME_PACKAGES = ("king_of_the_hill", "knossos", "king_kong")
REGISTRIES = {"games/registry.py", "games/devices.py"}


def modules() -> dict[str, Path]:
    out = {}
    for prefix, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if prefix == "tabletop" and parts[0] in ("sim", "gamekit", "games"):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([prefix, *parts])] = path
    return out


def imports(name: str, path: Path, known: dict) -> set[str]:
    """The package's modules `name` imports anywhere in its source (module level or in a function)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                package = package[:len(package) - node.level + 1]
                base = ".".join(package + ([base] if base else []))
            targets = [base] + [f"{base}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle():
    known = modules()
    graph = {name: imports(name, path, known) for name, path in known.items()}
    assert graph["tabletop.gamekit.registry"] >= {f"tabletop.games.{g}" for g in GAME_PACKAGES}
    assert cycles(graph) == []


def generic_modules() -> list[Path]:
    """The machinery (gamekit/: the environments and the view base among it), the application layer,
    the command line and the API: every module of gamekit/, of games/ outside the games' own
    packages, and of tabletop/ (tabletop/app, tabletop/cli among it)."""
    files = list((ROOT / "gamekit").rglob("*.py"))
    files += [p for p in (ROOT / "games").rglob("*.py") if p.relative_to(ROOT / "games").parts[0] not in GAME_PACKAGES]
    files += [p for p in (ROOT / "tabletop").rglob("*.py")]
    return sorted(p for p in files if str(p.relative_to(ROOT)) not in REGISTRIES)


def words_of_games() -> set[str]:
    """What naming a game would take: its name (both spellings), its title, its package, its
    options' names and flags."""
    from tabletop.gamekit.registry import GAMES

    words = set(GAME_PACKAGES)
    for d in GAMES.values():
        words |= {d.name, d.name.replace("-", "_"), d.title}
        words |= {o.name for o in d.options} | {o.flag for o in d.options}
    return words


def named(path: Path, words: set[str]) -> list[str]:
    """Where a module's code (its docstrings and comments aside) names one of `words`: in a string,
    a name, an attribute, an argument, a keyword or an import."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            texts = [node.value]
        elif isinstance(node, ast.Name):
            texts = [node.id]
        elif isinstance(node, ast.Attribute):
            texts = [node.attr]
        elif isinstance(node, ast.arg):
            texts = [node.arg]
        elif isinstance(node, ast.keyword) and node.arg:
            texts = [node.arg]
        elif isinstance(node, ast.ImportFrom):
            texts = [node.module or ""] + [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            texts = [a.name for a in node.names]
        else:
            continue
        hits += [f"{path.relative_to(ROOT)}:{node.lineno}: {w!r} in {t[:60]!r}" for t in texts for w in words if w in t]
    return hits


def test_the_scan_sees_a_game_named():
    words = words_of_games()
    sample = ROOT / "games" / "registry.py"
    assert any("'knossos'" in hit for hit in named(sample, words))


@pytest.mark.parametrize("path", generic_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_generic_module_names_a_game(path):
    assert named(path, words_of_games()) == []


def test_the_machinery_reaches_the_games_only_through_their_registries():
    """gamekit/ imports nothing of tabletop.games but the registries (of the games, of the devices);
    sim/ imports neither."""
    known = modules()
    allowed = {"tabletop.games", "tabletop.gamekit.registry", "tabletop.gamekit.devices"}
    for name, path in known.items():
        reached = {m for m in imports(name, path, known) if m.startswith("tabletop.games")}
        if name.startswith("tabletop.gamekit"):
            assert reached <= allowed, (name, reached - allowed)
        if name.startswith("tabletop.sim"):
            assert not reached and not any(m.startswith("tabletop.gamekit") for m in imports(name, path, known)), name


def test_the_layers_below_the_application_import_none_of_it():
    """Data flows one way: the machinery (gamekit/), the games, the server and its clients (net/)
    and sim/ import nothing of the application layer (tabletop.app), the command line or the API;
    net/ is below app/, not above it."""
    known = modules()
    above = ("tabletop.app", "tabletop.cli", "tabletop.api")
    for name, path in known.items():
        if name.startswith(("tabletop.gamekit", "tabletop.games", "tabletop.net", "tabletop.sim")):
            reached = {m for m in imports(name, path, known) if m.startswith(above)}
            assert not reached, (name, sorted(reached))


def _imported(path: Path) -> set[str]:
    """Every module a file imports, anywhere in it, by its full dotted name (and each package above)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                 [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
                 if isinstance(node, ast.ImportFrom) else [])
        for n in names:
            parts = n.split(".")
            out |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
    return out


def test_the_api_builds_requests_not_command_lines():
    used = _imported(ROOT / "tabletop" / "api.py")
    assert "argparse" not in used and not any(m.startswith("tabletop.cli") for m in used), sorted(used)
    assert "tabletop.app.requests" in used


def test_the_application_layer_parses_no_command_line():
    for path in (ROOT / "tabletop" / "app").glob("*.py"):
        used = _imported(path)
        assert "argparse" not in used and not any(m.startswith("tabletop.cli") for m in used), path.name


# what the command line may not hold: simulation, statistics, file formats (the jobs do that; it may
# read a job's text helpers: describe_result, print_report, wrap_name)
NOT_IN_THE_CLI = {"tabletop.sim.batch", "tabletop.sim.stats", "tabletop.sim.checkpoint", "tabletop.sim.output",
                  "tabletop.sim.record", "tabletop.sim.sensitivity", "tabletop.sim.world", "tabletop.sim.spec",
                  "tabletop.gamekit.chance", "tabletop.gamekit.match", "numpy", "scipy", "json", "csv", "pybullet",
                  "matplotlib", "io", "tomllib"}


@pytest.mark.parametrize("path", sorted((ROOT / "tabletop" / "cli").glob("*.py")), ids=lambda p: p.name)
def test_a_command_line_module_is_thin(path):
    assert len(path.read_text().splitlines()) <= 400, f"{path.name}: over 400 lines"
    held = _imported(path) & NOT_IN_THE_CLI
    assert not held, f"{path.name} imports {sorted(held)}: the application layer's work"


def test_the_thinness_check_sees_a_fat_module(tmp_path):
    fat = tmp_path / "fat.py"
    fat.write_text("from tabletop.sim.batch import run_batch\nimport json\n")
    assert _imported(fat) & NOT_IN_THE_CLI == {"tabletop.sim.batch", "json"}
