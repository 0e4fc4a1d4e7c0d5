"""Every game this tabletop plays, found as plugins: the entry-point group `tabletop.games`.

A game is a package that declares, in its distribution's metadata, one entry point in the group
`tabletop.games`: its name as the command line writes it, and its GameDefinition subclass (or an
instance of one), "package.module:Class". tabletop's own three games register themselves so
(pyproject.toml), and a game published as its own distribution (`pip install tabletop-somegame`)
the same way, with no line of tabletop changed (docs/adding-a-game.md).

Importing this module imports no game: the names come from the installed metadata, and a game's
package is imported when it is first asked for (`GAMES[name]`, `game_spec`, iterating GAMES).
A definition is checked then (tabletop.gamekit.definition.check_definition): a game that does not
import, does not fill a required hook or says something inconsistent is not registered, and every
ask for it is one line naming what is wrong (`GameError`); every other game is unaffected (a
listing of the games leaves it out and says why in `problems()`).
"""
from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from importlib.metadata import EntryPoint, entry_points

from tabletop.gamekit.definition import GameDefinition, GameError, check_definition
from tabletop.sim.errors import InputError

GROUP = "tabletop.games"
HOME = "tabletop"            # the distribution whose games and devices are listed first


def ordered(group: str) -> list[EntryPoint]:
    """The entry points of `group`: tabletop's own first, then every other distribution's by its
    name, each distribution's as its metadata lists them (by name: setuptools writes them sorted),
    so that the order is the same on every machine. Where a name is declared twice the first is kept."""
    found = list(entry_points(group=group))

    def key(item):
        i, ep = item
        dist = ep.dist.name if ep.dist is not None else ""
        return (dist != HOME, dist.lower(), i)

    return [ep for _, ep in sorted(enumerate(found), key=key)]


class Registry(Mapping):
    """name -> GameDefinition of every installed game, each imported and checked on first use.

    Iterating gives the names of the games that register (importing each, light by contract: a
    game's top module declares, its hooks import the heavy parts); `name in GAMES` is true for
    every declared name, so that asking for a broken one says what is wrong rather than "unknown".
    """

    def __init__(self, group: str = GROUP):
        self.group = group
        self._loaded: dict[str, GameDefinition] = {}
        self._broken: dict[str, str] = {}

    @functools.cached_property
    def _points(self) -> dict[str, EntryPoint]:
        points: dict[str, EntryPoint] = {}
        for ep in ordered(self.group):
            points.setdefault(ep.name, ep)
        return points

    def names(self) -> list[str]:
        """Every declared game's name, none imported (a broken one among them)."""
        return list(self._points)

    def __contains__(self, name) -> bool:
        return name in self._points

    def __getitem__(self, name: str) -> GameDefinition:
        if name in self._loaded:
            return self._loaded[name]
        if name in self._broken:
            raise GameError(self._broken[name])
        point = self._points.get(name)
        if point is None:
            raise KeyError(name)
        try:
            definition = load(point)
        except GameError as exc:
            self._broken[name] = str(exc)
            raise
        self._loaded[name] = definition
        return definition

    def __iter__(self) -> Iterator[str]:
        for name in self._points:
            try:
                self[name]
            except GameError:
                continue
            yield name

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def problems(self) -> dict[str, str]:
        """name -> the one line that says why it is not registered, for every declared game that is not."""
        for _ in self:
            pass
        return dict(self._broken)

    def origin(self, name: str) -> str:
        """Where the game `name` comes from: its distribution and version ("tabletop 0.9.0"), or
        "this process" for one added with `add`."""
        point = self._points[name]
        return f"{point.dist.name} {point.dist.version}" if point.dist is not None else "this process"

    def add(self, definition: GameDefinition) -> None:
        """Register a definition made in this process (tests, scripts), checked as an installed one is."""
        check_definition(definition)
        self._loaded[definition.name] = definition
        self._points.setdefault(definition.name, EntryPoint(definition.name, "", self.group))


def load(point: EntryPoint) -> GameDefinition:
    """The checked definition an entry point names; GameError (one line) when there is none."""
    where = f"game {point.name!r} ({point.value}{_from(point)})"
    try:
        found = point.load()
    except Exception as exc:          # any failure of a plugin's import is that plugin's, said in one line
        raise GameError(f"{where} cannot be registered: its import fails: {_line(exc)}") from None
    if isinstance(found, type) and issubclass(found, GameDefinition):
        missing = sorted(getattr(found, "__abstractmethods__", ()))
        if missing:
            raise GameError(f"{where} cannot be registered: it does not fill the required "
                            f"hook{'s' if len(missing) > 1 else ''} {', '.join(missing)}")
        try:
            found = found()
        except Exception as exc:
            raise GameError(f"{where} cannot be registered: making its definition fails: {_line(exc)}") from None
    if not isinstance(found, GameDefinition):
        raise GameError(f"{where} cannot be registered: it names {type(found).__name__}, not a GameDefinition "
                        f"(tabletop.gamekit.definition)")
    try:
        check_definition(found, point.name)
    except GameError as exc:
        raise GameError(f"{where} cannot be registered: {exc}") from None
    return found


def _from(point: EntryPoint) -> str:
    dist = point.dist
    return f", from {dist.name} {dist.version}" if dist is not None else ""


def _line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


#: every installed game by name (tabletop's three first)
GAMES = Registry()


def game_spec(name: str) -> GameDefinition:
    """The definition of the game `name`: InputError (one line) when no game has that name, GameError
    (one line, an InputError) when the game that has it cannot be registered."""
    if name not in GAMES:
        raise InputError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}")
    return GAMES[name]


def analyze_task(game: str, seats, sources, options):
    """The TaskRef factory of `analyze` (tabletop.sim.batch): a worker's GameTask for the game named
    `game` (`options`: the game's options as (name, value) pairs, so that the reference hashes)."""
    from tabletop.gamekit.analyze import GameTask

    return GameTask(game_spec(game), tuple(seats), tuple((k, tuple(f)) for k, f in sources), dict(options))
