"""Headless Knossos matches for the command line: seats, outcome source, log."""
from __future__ import annotations

import sys

from games.chance import OutcomeSource, TableOutcomes
from games.knossos.ai import SEATS
from games.knossos.play import play_match
from games.knossos.rules import COLOURS, Game
from sim.errors import InputError


def make_source(spec: str) -> OutcomeSource:
    """`physics` (throw the sticks on the table), or `table:FILE.json` (a saved sticks estimate)."""
    if spec == "physics":
        from games.knossos.table import PhysicsOutcomes
        return PhysicsOutcomes()
    if spec.startswith("table:") and spec[6:]:
        tables = TableOutcomes.from_files([f for f in spec[6:].split(",") if f])
        if set(tables.tables) != {"sticks"}:
            raise InputError("--outcomes: Knossos needs a sticks table (tabletop estimate sticks --out FILE.json)")
        return tables
    raise InputError(f"--outcomes: expected physics or table:FILE.json, got {spec!r}")


def play_headless(seats: list[str], seed: int, games_to_win: int, outcomes: str) -> int:
    if len(seats) != 2:
        raise InputError(f"--seats: the Knossos Game needs exactly 2 seats, not {len(seats)}")
    if games_to_win < 1:
        raise InputError(f"--games-to-win: must be at least 1, got {games_to_win}")
    source = make_source(outcomes)
    game = Game(games_to_win=games_to_win)
    players = [SEATS[kind]() for kind in seats]
    print(f"Knossos (Hillbom), first to {games_to_win}, seats "
          f"{', '.join(f'{COLOURS[i]}={k}' for i, k in enumerate(seats))}, seed {seed}, outcomes {outcomes}",
          flush=True)
    try:
        play_match(game, players, source, seed, on_event=lambda line: print(line, flush=True))
    finally:
        close = getattr(source, "close", None)
        if close:
            close()
    sys.stdout.flush()
    return 0
