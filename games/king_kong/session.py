"""Headless King Kong games for the command line: seats, outcome source, log."""
from __future__ import annotations

import sys

from games.king_kong.ai import SEATS
from games.king_kong.play import UNIFORM_DESCRIPTION, play_game, table_source, uniform_source
from games.king_kong.rules import COLOURS, Game
from sim.errors import InputError

NO_PHYSICS = ("--outcomes: the King Kong physics is not built yet; use --outcomes table:DIE.json,SPINNER.json,"
              "KNOCK.json (saved estimates) or --outcomes uniform (a stand-in, not physics)")


def make_source(spec: str):
    """`uniform` (the documented stand-in) or `table:DIE.json,SPINNER.json,KNOCK.json`; `physics`
    is refused until the King Kong physics exists."""
    if spec == "physics":
        raise InputError(NO_PHYSICS)
    if spec == "uniform":
        return uniform_source()
    if spec.startswith("table:") and spec[6:]:
        return table_source([f for f in spec[6:].split(",") if f])
    raise InputError(f"--outcomes: expected uniform or table:DIE.json,SPINNER.json,KNOCK.json, got {spec!r}")


def play_headless(seats: list[str], seed: int, outcomes: str) -> int:
    if not 2 <= len(seats) <= len(COLOURS):
        raise InputError(f"--seats: King Kong needs 2-{len(COLOURS)} seats, not {len(seats)}")
    source = make_source(outcomes)
    game = Game(players=len(seats))
    players = [SEATS[kind]() for kind in seats]
    described = UNIFORM_DESCRIPTION if outcomes == "uniform" else outcomes
    print(f"King Kong, seats {', '.join(f'{COLOURS[i]}={k}' for i, k in enumerate(seats))}, seed {seed}, "
          f"outcomes {described}", flush=True)
    try:
        final = play_game(game, players, source, seed, on_event=lambda line: print(line, flush=True))
    finally:
        source.close()
    if final.kong_won:
        result = "Kong wins"
    elif len(final.winners) == 1:
        result = f"{COLOURS[final.winners[0]]} wins"
    else:
        result = f"shared victory: {', '.join(COLOURS[p] for p in final.winners)}"
    print(f"result: {result} after {final.round} rounds and {final.turn} turns")
    sys.stdout.flush()
    return 0


SEAT_KINDS = tuple(SEATS)


def play_command(seats_text: str, headless: bool, seed: int, outcomes: str) -> int:
    """`tabletop play king-kong`: checks the seats and the window option, then plays headless."""
    seats = [s.strip() for s in seats_text.split(",")]
    unknown = [s for s in seats if s not in SEAT_KINDS + ("human",)]
    if unknown:
        raise InputError(f"--seats: unknown seat kind {unknown[0]!r}; use {', '.join(SEAT_KINDS + ('human',))}")
    if "human" in seats or not headless:
        raise InputError("King Kong has no 3D window yet: use --headless with ai or random seats")
    return play_headless(seats, seed, outcomes)
