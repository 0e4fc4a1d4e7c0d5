"""Rules-only speed of the three games (`tabletop bench --rules`): whole games with table chance.

Each game is played `games` times (seeds 0, 1, ...; a Knossos game is a whole match to three won
games) through the one match loop (tabletop.games.match.Match) by `seats` seats ("random" or
"ai"), every chance event drawn from fixed tables (TableOutcomes: the fair tables `tabletop analyze`
uses for Knossos and King of the Hill, analysis.fair_tables; King Kong's shuffles
by ShuffleSource, Kong's moves by its stand-in knock-over table). The figures are per second of
this process's CPU time (time.process_time): games, decisions (actions of the seats) and chance
events. Load averages (os.getloadavg) before and after say how busy the machine was. With random
seats Knossos is also played on its position graph (knossos/playout.py: the same matches as the
rules give for the same uniforms, at many times the speed).
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Callable

from tabletop.games.chance import TableOutcomes
from tabletop.games.match import Match

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


def _knossos() -> RulesBench:
    from tabletop.games.knossos.ai import SEATS
    from tabletop.games.knossos.analysis import fair_tables
    from tabletop.games.knossos.rules import Game
    return RulesBench("knossos", 2, Game, lambda: TableOutcomes(fair_tables()), lambda: SEATS, 20000,
                      "sticks 1: 1/4, 2: 1/2, 3: 1/4")


def _king_of_the_hill() -> RulesBench:
    from tabletop.games.king_of_the_hill.ai import SEATS
    from tabletop.games.king_of_the_hill.analysis import fair_tables
    from tabletop.games.king_of_the_hill.rules import Game
    return RulesBench("king-of-the-hill", 4, lambda: Game(players=4), lambda: TableOutcomes(fair_tables()),
                      lambda: SEATS, 5000, "tipper's 7 slots and crater's 6 seats even")


def _king_kong() -> RulesBench:
    from tabletop.games.king_kong.ai import SEATS
    from tabletop.games.king_kong.play import UNIFORM_KNOCKOVER, KnockoverTable, ShuffleSource
    from tabletop.games.king_kong.rules import DIE_LABELS, INNER_LABELS, OUTER_LABELS, Game

    def source():
        even = {event: {label: 1 / len(labels) for label in labels}
                for event, labels in (("die", DIE_LABELS), ("spin-outer", OUTER_LABELS), ("spin-inner", INNER_LABELS))}
        return ShuffleSource(KnockoverTable(UNIFORM_KNOCKOVER, fallback=TableOutcomes(even)))

    return RulesBench("king-kong", 3, lambda: Game(players=3), source, lambda: SEATS, 5000,
                      "die and spinner circles even; Kong's moves the stand-in knock-over table")


BENCHES = (_knossos, _king_of_the_hill, _king_kong)


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


def bench_knossos_graph(matches: int) -> dict:
    """Random Knossos matches on the position graph (tabletop.games.knossos.playout), the sticks
    two fair coins; the graph's one-off build timed apart."""
    import numpy as np

    from tabletop.games.knossos.analysis import fair_tables
    from tabletop.games.knossos.playout import Playouts, Uniforms

    started = time.process_time()
    playouts = Playouts(fair_tables()["sticks"])
    built = time.process_time()
    u, throws = Uniforms(np.random.default_rng(0)), 0
    for _ in range(matches):
        throws += playouts.match(u)[1]
    cpu = max(time.process_time() - built, 1e-9)
    return {"games": matches, "players": 2, "seats": "random", "tables": "sticks 1: 1/4, 2: 1/2, 3: 1/4",
            "engine": "the rules' position graph (knossos/playout.py)", "build_cpu_s": round(built - started, 3),
            "cpu_s": round(cpu, 4), "games_per_s": round(matches / cpu, 2),
            "decisions_per_s": round(throws / cpu, 1), "chance_events_per_s": round(throws / cpu, 1),
            "decisions_per_game": round(throws / matches, 2), "chance_events_per_game": round(throws / matches, 2)}


def bench_rules(games: int, seats: str = "random", emit: Callable[[str], None] | None = None) -> dict:
    """Every game's figures, with the load averages before and after."""
    if seats not in SEAT_KINDS:
        raise ValueError(f"seats must be one of {', '.join(SEAT_KINDS)}, not {seats!r}")
    out = {"clock": "time.process_time (CPU seconds of this process)", "load_average_before": os.getloadavg(),
           "games": {}}
    for make in BENCHES:
        bench = make()
        out["games"][bench.name] = fig = bench_game(bench, games, seats)
        if emit is not None:
            unit = "matches" if bench.name == "knossos" else "games"
            emit(f"{bench.name}: {fig['games_per_s']:.1f} {unit}/s ({games} {unit}, {seats} seats, "
                 f"{fig['cpu_s']:.2f} s CPU), {fig['decisions_per_s']:.0f} decisions/s, "
                 f"{fig['chance_events_per_s']:.0f} chance events/s")
    if seats == "random":
        out["games"]["knossos-graph"] = fig = bench_knossos_graph(10 * games)
        if emit is not None:
            emit(f"knossos on the position graph: {fig['games_per_s']:.0f} matches/s ({10 * games} matches, random "
                 f"seats, {fig['cpu_s']:.2f} s CPU after a {fig['build_cpu_s']:.2f} s build), "
                 f"{fig['chance_events_per_s']:.0f} throws/s")
    out["load_average_after"] = os.getloadavg()
    if emit is not None:
        before, after = out["load_average_before"], out["load_average_after"]
        emit(f"load average (1, 5, 15 min): before {_load(before)}, after {_load(after)} "
             f"on {os.cpu_count()} cores")
    out["cpu_count"] = os.cpu_count()
    return out


def _load(avg) -> str:
    return ", ".join(f"{v:.2f}" for v in avg)
