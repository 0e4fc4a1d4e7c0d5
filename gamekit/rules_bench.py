"""Rules-only speed of every registered game (`tabletop bench --rules`): whole games with table chance.

Each game is played `games` times (seeds 0, 1, ...; a game that is a match plays whole matches)
through the one match loop (tabletop.gamekit.match.Match) by `seats` seats ("random" or "ai"), every
chance event drawn from the game's fair chance (its definition's `fair_tables`, the measured tables
behind them for what they leave out: tabletop.gamekit.analyze.fair_source), or for a game with no
fair chance from the published estimates of its devices. The bench is made from
the definition (`from_definition`, its `rules_bench` hook): its Game of the default options, its
seats by `make_seat`, its turn cap. The figures are per second of this process's CPU time
(time.process_time): games, decisions (actions of the seats) and chance events. Load averages
(os.getloadavg) before and after say how busy the machine was. A game may add benches of its own
engines (its definition's `extra_benches`).

A game that cannot be benched (no fair chance, no seat of the kind asked for, a hook that fails)
gets one line that says why, and every other game is benched.
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
    """One game's bench: its definition, the seats it plays with, what its chance is and what one of
    its games is called; the Game, the source, the seats and the turn cap come from the definition."""

    definition: object
    players: int
    tables: str                  # what its chance is, for the figures
    unit: str = "games"          # what one of its games is ("matches": a match of several games)
    chance: str = "fair"         # where its chance comes from: "fair" or "measured"

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def max_turns(self) -> int:
        return self.definition.max_turns

    @property
    def options(self) -> dict:
        return self.definition.check_options({})

    def make_game(self):
        """The rules' Game of `players` seats and the default options (as a replay's config gives it)."""
        d = self.definition
        return d.make_game(d.replay_config(("random",) * self.players, "fair", self.options))

    def make_source(self):
        """The game's fair chance (tabletop.gamekit.analyze.fair_source), or with `chance` "measured"
        the published estimates of its devices."""
        from tabletop.gamekit.analyze import fair_source, measured_files, table_source

        if self.chance == "measured":
            return table_source(self.definition, measured_files(self.definition.devices))
        return fair_source(self.definition)

    def make_seats(self, kind: str, source) -> list:
        """`players` seats of `kind` for chance from `source`; InputError (one line) when the game has
        no seat of that kind."""
        from tabletop.sim.errors import InputError

        if kind not in self.definition.seat_kinds:
            raise InputError(f"it has no {kind} seat (its seat kinds: {', '.join(self.definition.seat_kinds)})")
        return [self.definition.make_seat(kind, source, self.options) for _ in range(self.players)]


def from_definition(definition) -> RulesBench:
    """The bench a definition gives by default: the fewest seats it plays with, its fair chance (where
    it has none, the measured tables of its devices; GameError where it has neither), the unit its
    analysis counts in (a match of several games counts as one)."""
    from tabletop.gamekit.errors import GameError

    analysis = definition.analysis()
    unit = analysis.unit + ("es" if analysis.unit.endswith("ch") else "s")
    try:
        definition.fair_tables()
    except GameError:
        if not definition.devices:
            raise
        tables = f"measured chance (it has no fair chance): the published estimates of {', '.join(definition.devices)}"
        return RulesBench(definition, definition.seats[0], tables, unit, chance="measured")
    return RulesBench(definition, definition.seats[0], f"fair chance: {analysis.fair_note}", unit)


def benches(games) -> list[RulesBench]:
    """The bench of each of `games` (definitions: each one's `rules_bench`)."""
    return [d.rules_bench() for d in games]


def bench_game(bench: RulesBench, games: int, seats: str = "random") -> dict:
    """Play `games` whole games and time them (CPU seconds of this process)."""
    game, source = bench.make_game(), bench.make_source()
    players = bench.make_seats(seats, source)
    decisions = chances = 0
    started = time.process_time()
    for seed in range(games):
        match = Match(game.new_initial_state(), players, source, seed, max_turns=bench.max_turns)
        match.play()
        chances += match.chances
        decisions += len(match.state.history) - match.chances
    cpu = max(time.process_time() - started, 1e-9)
    return {"games": games, "players": bench.players, "seats": seats, "tables": bench.tables,
            "cpu_s": round(cpu, 4), "games_per_s": round(games / cpu, 2),
            "decisions_per_s": round(decisions / cpu, 1), "chance_events_per_s": round(chances / cpu, 1),
            "decisions_per_game": round(decisions / games, 2), "chance_events_per_game": round(chances / games, 2)}


def bench_rules(definitions, games: int, seats: str = "random", emit: Callable[[str], None] | None = None,
                problems: dict[str, str] | None = None) -> dict:
    """The figures of each game of `definitions`, with the load averages before and after. A game
    that cannot be benched is left out of "games" and named in "not_benched" with the one line that
    says why (as are the games of `problems`, name -> why, that could not be registered)."""
    if seats not in SEAT_KINDS:
        raise ValueError(f"seats must be one of {', '.join(SEAT_KINDS)}, not {seats!r}")
    out = {"clock": "time.process_time (CPU seconds of this process)", "load_average_before": os.getloadavg(),
           "games": {}, "not_benched": {}}

    def skip(name: str, why: str) -> None:
        out["not_benched"][name] = why
        if emit is not None:
            emit(f"{name}: not benched: {why}")

    for name, why in (problems or {}).items():
        skip(name, why)
    for definition in definitions:
        try:
            bench = definition.rules_bench()
            fig = bench_game(bench, games, seats)
        except Exception as exc:          # one game's failure is that game's: every other is benched
            skip(definition.name, _line(exc))
            continue
        out["games"][bench.name] = fig
        if emit is not None:
            unit = bench.unit
            emit(f"{bench.name}: {fig['games_per_s']:.1f} {unit}/s ({games} {unit}, {seats} seats, "
                 f"{fig['cpu_s']:.2f} s CPU), {fig['decisions_per_s']:.0f} decisions/s, "
                 f"{fig['chance_events_per_s']:.0f} chance events/s")
        try:
            extra = definition.extra_benches(games, seats)
        except Exception as exc:
            skip(f"{definition.name}'s own benches", _line(exc))
            continue
        for extra_name, (extra_fig, line) in extra.items():
            out["games"][extra_name] = extra_fig
            if emit is not None:
                emit(line)
    out["load_average_after"] = os.getloadavg()
    if emit is not None:
        before, after = out["load_average_before"], out["load_average_after"]
        emit(f"load average (1, 5, 15 min): before {_load(before)}, after {_load(after)} "
             f"on {os.cpu_count()} cores")
    out["cpu_count"] = os.cpu_count()
    return out


def _line(exc: BaseException) -> str:
    """An exception in one line: its message (an InputError's is already one), else its type and first line."""
    from tabletop.sim.errors import InputError

    text = str(exc).strip().splitlines()
    if isinstance(exc, InputError) and text:
        return text[0]
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def _load(avg) -> str:
    return ", ".join(f"{v:.2f}" for v in avg)
