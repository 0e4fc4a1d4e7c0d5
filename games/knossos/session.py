"""Headless Knossos matches for the command line: seats, outcome source, log."""
from __future__ import annotations

from pathlib import Path

from tabletop.gamekit.chance import OutcomeSource, TableOutcomes
from tabletop.games.knossos.ai import make_seat
from tabletop.games.knossos.rules import COLOURS, Game
from tabletop.games.knossos.solve import check_table, table_of
from tabletop.sim.errors import InputError


def make_game(games_to_win: int) -> Game:
    if games_to_win < 1:
        raise InputError(f"--games-to-win: must be at least 1, got {games_to_win}")
    return Game(games_to_win=games_to_win)


def make_source(spec: str) -> OutcomeSource:
    """`physics` (throw the sticks on the table), or `table:FILE.json` (a saved sticks estimate)."""
    if spec == "physics":
        from tabletop.games.knossos.table import PhysicsOutcomes
        return PhysicsOutcomes()
    if spec.startswith("table:") and spec[6:]:
        return table_outcomes([f for f in spec[6:].split(",") if f])
    raise InputError(f"--outcomes: expected physics or table:FILE.json, got {spec!r}")


def table_outcomes(files) -> TableOutcomes:
    """A source sampling a saved sticks estimate; any other table is an InputError."""
    tables = TableOutcomes.from_files(files)
    if set(tables.tables) != {"sticks"}:
        raise InputError("--outcomes: Knossos needs a sticks table (tabletop estimate sticks --out FILE.json)")
    check_table(table_of(tables))
    return tables


def play_headless(definition, seats: list[str], seed: int, games_to_win: int, outcomes: str, record: Path | None = None, emit=None):
    """Play a match to its end, printing the log; with `record`, write the replay there as it goes."""
    from tabletop.gamekit.replay import play_recorded

    game = make_game(games_to_win)
    source = make_source(outcomes)
    players = [make_seat(kind, source) for kind in seats]
    config = {"games_to_win": games_to_win, "seats": seats, "outcomes": outcomes}
    return play_recorded(definition, game, players, source, seed, banner(seats, seed, games_to_win, outcomes), config,
                         record, result_lines, emit=emit)


def banner(seats: list[str], seed: int, games_to_win: int, outcomes: str) -> str:
    """The match's first log line, headless and in the window."""
    return (f"Knossos (Hillbom), first to {games_to_win}, seats "
            f"{', '.join(f'{COLOURS[i]}={k}' for i, k in enumerate(seats))}, seed {seed}, outcomes {outcomes}")


def result_lines(final) -> list[str]:
    """None: the match's last log line already names the winner."""
    return []
