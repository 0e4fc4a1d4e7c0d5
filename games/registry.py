"""Every game this tabletop plays: the command line, replays and the window iterate over GAMES.
A new game exports a GameSpec (tabletop.games.gamespec) from its package and is listed here."""
from __future__ import annotations

from tabletop.games.gamespec import GameSpec
from tabletop.games.king_kong import SPEC as KING_KONG
from tabletop.games.king_of_the_hill import SPEC as KING_OF_THE_HILL
from tabletop.games.knossos import SPEC as KNOSSOS
from tabletop.sim.errors import InputError

GAMES: dict[str, GameSpec] = {spec.name: spec for spec in (KING_OF_THE_HILL, KNOSSOS, KING_KONG)}


def game_spec(name: str) -> GameSpec:
    try:
        return GAMES[name]
    except KeyError:
        raise InputError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}") from None
