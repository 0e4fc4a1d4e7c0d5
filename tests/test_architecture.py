"""The shape of the code, read from its source with the standard library's ast (docs/architecture.md):

- no import cycle among the package's modules and the installed games' (a plugin game's package
  too), counting the imports made inside functions;
- the layers: data flows one way, sim -> gamekit -> the games -> net -> app -> the command line and
  the API. Each layer imports only those below it (LAYERS): sim/ nothing above it, gamekit/ no game
  and nothing of net, app, cli or the API, the games (every registered game's package, wherever it is
  installed) nothing of net, app, cli or the API, net/ nothing of app, cli or the API; and nothing
  above gamekit imports a game: a game is reached through its registry (the entry points);
- no generic module (gamekit/, tabletop/: the application layer, the command line, the server, the
  API) names a game in its code (strings and names; its docstrings and comments may): each
  registered game's name, title, package and options, taken from the registry, so a plugin game is
  looked for too;
- the front ends are thin: the API imports neither argparse nor the command line; no command-line
  module is over 400 lines or holds simulation, statistics or a file format; the application layer
  parses no command line.

Each check is tried on a planted violation first, so that none passes because it looks at nothing.
"""
from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from tabletop.gamekit.registry import GAMES

ROOT = Path(__file__).resolve().parents[1]
# import name -> folder, as pyproject.toml's package-dir lays the checkout out
PACKAGES = {"tabletop": ROOT / "tabletop", "tabletop.sim": ROOT / "sim", "tabletop.gamekit": ROOT / "gamekit",
            "tabletop.games": ROOT / "games"}

# what each layer's modules may import of the package (a module outside them is no layer's); a
# registered game outside tabletop.games (a plugin) is in the games' layer
GAMES_LAYER = "tabletop.games"
LAYERS = {
    "tabletop.sim": {"tabletop.sim"},
    "tabletop.gamekit": {"tabletop.sim", "tabletop.gamekit"},
    GAMES_LAYER: {"tabletop.sim", "tabletop.gamekit", GAMES_LAYER},
    "tabletop.net": {"tabletop.sim", "tabletop.gamekit", "tabletop.net"},
    "tabletop.app": {"tabletop.sim", "tabletop.gamekit", "tabletop.net", "tabletop.app"},
    "tabletop.cli": {"tabletop.sim", "tabletop.gamekit", "tabletop.app", "tabletop.cli"},
    "tabletop.api": {"tabletop.sim", "tabletop.gamekit", "tabletop.app", "tabletop.api"},
}


def within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


# -- the games, from their registry ----------------------------------------------------------------
def game_package(definition) -> str:
    """The import package of a registered game: tabletop.games.NAME for tabletop's own, else the
    top-level package its definition's module is in (a plugin's)."""
    module = type(definition).__module__
    parts = module.split(".")
    return ".".join(parts[:3]) if within(module, "tabletop.games") else parts[0]


def game_packages() -> dict[str, Path]:
    """Every registered game's package -> its folder."""
    out = {}
    for name in GAMES:
        package = game_package(GAMES[name])
        out[package] = Path(importlib.util.find_spec(package).submodule_search_locations[0])
    return out


def plugin_packages() -> dict[str, Path]:
    """The registered games installed from outside the checkout (plugins) -> their folders."""
    return {package: folder for package, folder in game_packages().items() if not within(package, "tabletop")}


def modules() -> dict[str, Path]:
    """Every module of the package and of the plugin games, by its import name."""
    out = {}
    for prefix, folder in {**PACKAGES, **plugin_packages()}.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if prefix == "tabletop" and parts[0] in ("sim", "gamekit", "games"):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join([prefix, *parts])] = path
    return out


def layer_of(name: str, plugins=()) -> str | None:
    """The layer of a module: the longest LAYERS prefix it is within; a plugin game's is the games'."""
    if any(within(name, p) for p in plugins):
        return GAMES_LAYER
    found = [prefix for prefix in LAYERS if within(name, prefix)]
    return max(found, key=len) if found else None


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
    assert len(graph) > 100 and sum(map(len, graph.values())) > 300       # the scan sees the imports
    assert set(plugin_packages()) <= set(graph)                           # and the plugin games'
    found = [{a: sorted(graph[a] & set(component)) for a in component} for component in cycles(graph)]
    assert found == [], f"import cycles (each module -> those of its cycle it imports): {found}"


def layer_breaches(known: dict[str, Path], plugins=()) -> list[str]:
    """Each import of a module of `known` that its layer may not make (LAYERS): "module -> module"."""
    out = []
    for name, path in sorted(known.items()):
        layer = layer_of(name, plugins)
        if layer is None:
            continue
        allowed = LAYERS[layer]
        for target in sorted(imports(name, path, known)):
            target_layer = layer_of(target, plugins)
            if target_layer is not None and target_layer not in allowed:
                out.append(f"{name} -> {target}")
    return out


def test_each_layer_imports_only_the_layers_below_it():
    """sim/ imports nothing above it; gamekit/ no game and nothing of net, app, cli or the API; the
    games (plugins too) nothing of net, app, cli or the API; net/ nothing of app, cli or the API; app,
    cli and the API no game (each reaches the games through the registry)."""
    known = modules()
    assert {layer_of(name, plugin_packages()) for name in known} >= set(LAYERS)     # every layer is seen
    assert layer_breaches(known, plugin_packages()) == []


def test_the_layer_check_sees_a_planted_breach(tmp_path):
    """A gamekit module that imports the application layer (inside a function) and a game, a sim
    module that imports gamekit, a net module that imports the command line, and a plugin game that
    imports the application layer are each caught; an import a layer may make is not."""
    known = modules()
    planted = {"tabletop.gamekit.planted": "def f():\n    from tabletop.app.games import play\n"
                                           "    import tabletop.games.knossos.rules\n",
               "tabletop.sim.planted": "from tabletop.gamekit.definition import Option\nfrom tabletop.sim import world\n",
               "tabletop.net.planted": "from tabletop.cli.parser import build_parser\n",
               "someone_elses_game.view": "from tabletop.app.games import play\nfrom tabletop.gamekit import state\n"}
    for name, text in planted.items():
        known[name] = tmp_path / f"{name}.py"
        known[name].write_text(text)
    breaches = [b for b in layer_breaches(known, (*plugin_packages(), "someone_elses_game")) if "planted" in b
                or "someone_elses_game" in b]
    assert breaches == ["someone_elses_game.view -> tabletop.app.games",
                        "tabletop.gamekit.planted -> tabletop.app.games",
                        "tabletop.gamekit.planted -> tabletop.games.knossos.rules",
                        "tabletop.net.planted -> tabletop.cli.parser",
                        "tabletop.sim.planted -> tabletop.gamekit.definition"]


def test_every_game_package_of_the_checkout_is_registered():
    """Every package under games/ is a registered game's (its entry point in pyproject.toml): the scans
    below leave out exactly the registered games' packages, and a game that registers no entry point
    would not be played."""
    folders = {p.parent for p in (ROOT / "games").glob("*/__init__.py")}
    registered = {folder for package, folder in game_packages().items() if within(package, "tabletop.games")}
    assert folders and folders == registered


def generic_modules() -> list[Path]:
    """The machinery (gamekit/: the environments and the view base among it), the application layer,
    the command line, the server and the API: every module of gamekit/, of tabletop/ (tabletop/app,
    tabletop/cli, tabletop/net among it) and of games/ outside the registered games' own packages."""
    own = set(game_packages().values())
    files = list((ROOT / "gamekit").rglob("*.py")) + list((ROOT / "tabletop").rglob("*.py"))
    files += [p for p in (ROOT / "games").rglob("*.py") if not any(folder in p.parents for folder in own)]
    return sorted(files)


def words_of_games() -> dict[str, str]:
    """What naming a game would take -> the game: each registered game's name (both spellings), its
    title, its package's name, its options' names and flags."""
    words = {}
    for name in GAMES:
        d = GAMES[name]
        for word in (d.name, d.name.replace("-", "_"), d.title, game_package(d).rpartition(".")[2],
                     *(o.name for o in d.options), *(o.flag for o in d.options)):
            words[word] = name
    return words


def _pattern(words) -> re.Pattern:
    """Any of `words` as a whole word (not inside a longer name: "knossos" in "knossos_table" and in
    "tabletop.games.knossos", not in "knossosx"), case aside."""
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])", re.IGNORECASE)


def named(path: Path, words) -> list[str]:
    """Where a module's code (its docstrings and comments aside) names one of `words`: in a string,
    a name, an attribute, an argument, a keyword or an import."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    pattern = _pattern(words)
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
        hits += [f"{path.name}:{node.lineno}: {m.group(0)!r} in {t[:60]!r}" for t in texts for m in pattern.finditer(t)]
    return hits


def test_the_scan_sees_a_game_named(tmp_path):
    """A planted module names games in a string, an f-string, an argument, an attribute and an
    import: each is found, and its docstrings and comments are not; every registered game's name and
    title is found where planted."""
    words = words_of_games()
    sample = tmp_path / "planted.py"
    sample.write_text('"""The module\'s docstring may say knossos and King Kong."""\n'
                      "import tabletop.games.king_kong.rules\n"          # line 2
                      "# a comment may say king-of-the-hill\n"
                      "def f(king_of_the_hill, other):\n"                # line 4
                      '    """So may a function\'s: Knossos."""\n'
                      "    other.knossos_table = f'{other} King Kong'\n"  # line 6
                      "    return 'knossosx', 'the game: knossos'\n")     # line 7
    hits = named(sample, words)
    assert [h.split(":")[1] for h in hits] == ["2", "4", "6", "6", "7"], hits
    for name in GAMES:
        for word in (name, GAMES[name].title):
            sample.write_text(f"NAME = {word!r}\n")
            assert named(sample, words) == [f"planted.py:1: {word!r} in {word!r}"]


@pytest.mark.parametrize("path", generic_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_generic_module_names_a_game(path):
    assert named(path, words_of_games()) == []


def test_the_generic_scan_covers_the_front_ends_and_the_machinery():
    scanned = {str(p.relative_to(ROOT)).split("/")[0] + "/" + p.relative_to(ROOT).parts[1] for p in generic_modules()
               if len(p.relative_to(ROOT).parts) > 2}
    assert {"gamekit/view", "tabletop/app", "tabletop/cli", "tabletop/net"} <= scanned
    assert len(generic_modules()) > 60


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
