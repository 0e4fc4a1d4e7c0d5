"""Rules-only speed of every registered game (`tabletop bench --rules`): whole games with table chance.

Each game is played `games` times (seeds 0, 1, ...; a game that is a match plays whole matches)
through the one match loop (tabletop.gamekit.match.Match) by `seats` seats ("random" or "ai"), every
chance event drawn from the fixed tables its definition's `rules_bench` gives. The figures are per
second of this process's CPU time (time.process_time): games, decisions (actions of the seats) and
chance events. Load averages (os.getloadavg) before and after say how busy the machine was. A
game may add benches of its own engines (its definition's `extra_benches`).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable

from tabletop.gamekit.match import Match

SEAT_KINDS = ("random", "ai")


@dataclass(frozen=True)
class RulesBench:
    """One game's bench: its Game, its table source, its seats by kind and its turn cap."""

    name: str
    players: int
    make_game: Callable[[], object]
    make_source: Callable[[], object]
    seats: Callable[[], dict]
    max_turns: int
    tables: str
    unit: str = "games"          # what one of its games is ("matches": a match of several games)


def benches(games) -> list[RulesBench]:
    """The bench of each of `games` (definitions: each one's `rules_bench`)."""
    return [d.rules_bench() for d in games]


def bench_game(bench: RulesBench, games: int, seats: str = "random") -> dict:
    """Play `games` whole games and time them (CPU seconds of this process)."""
    game, source, kinds = bench.make_game(), bench.make_source(), bench.seats()
    decisions = chances = 0
    started = time.process_time()
    for seed in range(games):
        match = Match(game.new_initial_state(), [kinds[seats]() for _ in range(bench.players)], source, seed,
                      max_turns=bench.max_turns)
        match.play()
        chances += match.chances
        decisions += len(match.state.history) - match.chances
    cpu = max(time.process_time() - started, 1e-9)
    return {"games": games, "players": bench.players, "seats": seats, "tables": bench.tables,
            "cpu_s": round(cpu, 4), "games_per_s": round(games / cpu, 2),
            "decisions_per_s": round(decisions / cpu, 1), "chance_events_per_s": round(chances / cpu, 1),
            "decisions_per_game": round(decisions / games, 2), "chance_events_per_game": round(chances / games, 2)}


def bench_rules(definitions, games: int, seats: str = "random", emit: Callable[[str], None] | None = None) -> dict:
    """The figures of each game of `definitions`, with the load averages before and after."""
    if seats not in SEAT_KINDS:
        raise ValueError(f"seats must be one of {', '.join(SEAT_KINDS)}, not {seats!r}")
    out = {"clock": "time.process_time (CPU seconds of this process)", "load_average_before": os.getloadavg(),
           "games": {}}
    for definition in definitions:
        bench = definition.rules_bench()
        out["games"][bench.name] = fig = bench_game(bench, games, seats)
        if emit is not None:
            unit = bench.unit
            emit(f"{bench.name}: {fig['games_per_s']:.1f} {unit}/s ({games} {unit}, {seats} seats, "
                 f"{fig['cpu_s']:.2f} s CPU), {fig['decisions_per_s']:.0f} decisions/s, "
                 f"{fig['chance_events_per_s']:.0f} chance events/s")
        for name, (fig, line) in definition.extra_benches(games, seats).items():
            out["games"][name] = fig
            if emit is not None:
                emit(line)
    out["load_average_after"] = os.getloadavg()
    if emit is not None:
        before, after = out["load_average_before"], out["load_average_after"]
        emit(f"load average (1, 5, 15 min): before {_load(before)}, after {_load(after)} "
             f"on {os.cpu_count()} cores")
    out["cpu_count"] = os.cpu_count()
    return out


def _load(avg) -> str:
    return ", ".join(f"{v:.2f}" for v in avg)
