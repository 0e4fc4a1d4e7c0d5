"""Every game this tabletop plays: the command line, the API and the environments turn a game's name
into its definition here (GAMES); everything else is handed the definition. A new game is its
package, whose DEFINITION (a tabletop.gamekit.definition.GameDefinition) is listed here."""
from __future__ import annotations

from tabletop.gamekit.definition import GameDefinition
from tabletop.games.king_kong import DEFINITION as KING_KONG
from tabletop.games.king_of_the_hill import DEFINITION as KING_OF_THE_HILL
from tabletop.games.knossos import DEFINITION as KNOSSOS
from tabletop.sim.errors import InputError

GAMES: dict[str, GameDefinition] = {d.name: d for d in (KING_OF_THE_HILL, KNOSSOS, KING_KONG)}


def analyze_task(game: str, seats, sources, options):
    """The TaskRef factory of `analyze` (tabletop.sim.batch): a worker's GameTask for the game named
    `game` (`options`: the game's options as (name, value) pairs, so that the reference hashes)."""
    from tabletop.gamekit.analyze import GameTask

    return GameTask(game_spec(game), tuple(seats), tuple((k, tuple(f)) for k, f in sources), dict(options))


def game_spec(name: str) -> GameDefinition:
    try:
        return GAMES[name]
    except KeyError:
        raise InputError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}") from None
