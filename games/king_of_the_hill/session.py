"""Headless King of the Hill sessions for the command line: seats, outcome source, log."""
from __future__ import annotations

from pathlib import Path

from tabletop.gamekit.chance import OutcomeSource, TableOutcomes
from tabletop.games.king_of_the_hill.ai import make_seat
from tabletop.games.king_of_the_hill.rules import COLOURS, Game, Variant
from tabletop.sim.errors import InputError

CHANCE_EVENTS = ("tipper", "crater")


def make_game(players: int, variant: str) -> Game:
    try:
        v = Variant(variant)
    except ValueError:
        raise InputError(f"--variant: unknown variant {variant!r}; use "
                         f"{', '.join(x.value for x in Variant)}") from None
    if v is Variant.SPECIAL_TWO_PLAYER and players != 2:
        raise InputError(f"--seats: the Special 2 Player Game needs exactly 2 seats, not {players}")
    return Game(players, v)


def make_source(spec: str) -> OutcomeSource:
    """`physics`, or `table:FILE.json[,FILE.json]` (events without a table use physics)."""
    if spec == "physics":
        from tabletop.games.king_of_the_hill.table import PhysicsOutcomes
        return PhysicsOutcomes()
    if spec.startswith("table:") and spec[6:]:
        tables = table_outcomes([f for f in spec[6:].split(",") if f])
        if set(CHANCE_EVENTS) - set(tables.tables):
            from tabletop.games.king_of_the_hill.table import PhysicsOutcomes
            tables.fallback = PhysicsOutcomes()
        return tables
    raise InputError(f"--outcomes: expected physics or table:FILE.json, got {spec!r}")


def table_outcomes(files) -> TableOutcomes:
    """A source sampling saved tipper and crater estimates; another device's table is an InputError."""
    tables = TableOutcomes.from_files(files)
    unknown = set(tables.tables) - set(CHANCE_EVENTS)
    if unknown:
        raise InputError(f"--outcomes: a {sorted(unknown)[0]} table does not answer King of the Hill events")
    return tables


def play_headless(definition, seats: list[str], seed: int, variant: str, outcomes: str, record: Path | None = None, emit=None):
    """Play to the end, printing the log (or giving each line to `emit`); with `record`, write the
    replay there as it goes. Returns the final state."""
    from tabletop.gamekit.replay import play_recorded

    game = make_game(len(seats), variant)
    source = make_source(outcomes)
    players = [make_seat(kind, source) for kind in seats]
    config = {"players": len(seats), "variant": variant, "seats": seats, "outcomes": outcomes}
    return play_recorded(definition, game, players, source, seed, banner(seats, seed, variant, outcomes), config,
                         record, result_lines, max_turns=5000, emit=emit)


def banner(seats: list[str], seed: int, variant: str, outcomes: str) -> str:
    """The game's first log line, headless and in the window."""
    return (f"King of the Hill, {variant}, seats {', '.join(f'{COLOURS[i]}={k}' for i, k in enumerate(seats))}, "
            f"seed {seed}, outcomes {outcomes}")


def result_lines(final) -> list[str]:
    """The game's last log line, headless and in the window."""
    return [f"winner: {COLOURS[final.winner]} after {final.turn} turns"]
