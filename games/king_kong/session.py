"""Headless King Kong games for the command line: seats, outcome source, log."""
from __future__ import annotations

from pathlib import Path

from tabletop.games.king_kong.ai import make_seat
from tabletop.games.king_kong.play import UNIFORM_DESCRIPTION, table_source, uniform_source
from tabletop.games.king_kong.rules import COLOURS, Game
from tabletop.sim.errors import InputError

PHYSICS_DESCRIPTION = ("physics: the die thrown into the box lid, the spinner flicked, Kong moved among the "
                       "pawns on the simulated board")


def make_source(spec: str):
    """`physics` (every die, spin and Kong move simulated: games/king_kong/table.py), `uniform` (the
    documented stand-in) or `table:DIE.json,SPINNER.json,KNOCK.json` (saved estimates)."""
    if spec == "physics":
        from tabletop.games.king_kong.source import KongSource

        return KongSource()
    if spec == "uniform":
        return uniform_source()
    if spec.startswith("table:") and spec[6:]:
        return table_source([f for f in spec[6:].split(",") if f])
    raise InputError(f"--outcomes: expected physics, uniform or table:DIE.json,SPINNER.json,KNOCK.json, got {spec!r}")


def play_headless(definition, seats: list[str], seed: int, outcomes: str, record: Path | None = None, emit=None):
    """Play to the end, printing the log (or giving each line to `emit`); with `record`, write the
    replay there as it goes. Returns the final state."""
    from tabletop.gamekit.replay import play_recorded

    source = make_source(outcomes)
    game = Game(players=len(seats))
    players = [make_seat(kind, source) for kind in seats]
    config = {"players": len(seats), "seats": seats, "outcomes": outcomes}
    return play_recorded(definition, game, players, source, seed, banner(seats, seed, outcomes), config, record,
                         result_lines, max_turns=5000, emit=emit)


def banner(seats: list[str], seed: int, outcomes: str) -> str:
    """The game's first log line, headless and in the window."""
    described = {"uniform": UNIFORM_DESCRIPTION, "physics": PHYSICS_DESCRIPTION}.get(outcomes, outcomes)
    return (f"King Kong, seats {', '.join(f'{COLOURS[i]}={k}' for i, k in enumerate(seats))}, seed {seed}, "
            f"outcomes {described}")


def result_lines(final) -> list[str]:
    """The game's last log line, headless and in the window."""
    return [result_line(final)]


def result_line(final) -> str:
    if final.kong_won:
        result = "Kong wins"
    elif len(final.winners) == 1:
        result = f"{COLOURS[final.winners[0]]} wins"
    else:
        result = f"shared victory: {', '.join(COLOURS[p] for p in final.winners)}"
    return f"result: {result} after {final.round} rounds and {final.turn} turns"
