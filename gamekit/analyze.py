"""`tabletop analyze GAME`: whole games played by the rules alone, with table chance, measured.

No physics runs here (a physical game takes seconds to minutes): every chance event is drawn from a
table, the measured one (the published `estimate` results in assets/measured, the default), the idealised
`fair` one, or saved estimate files (`table:FILE.json[,FILE.json]`). The game comes from its
definition (tabletop.gamekit.definition): its rules (`make_game` of a replay's config), its seats
(`make_seat`, `seat_kinds`), its devices' measured tables (`devices`, read by `table_outcomes`), its
fair chance (`fair_tables`) and its turn cap (`max_turns`); what only analysis knows (an observer of
the rules state, who plays first, what the figures mean) is its `analysis()`, a GameAnalysis, or
for a game that gives none what every game has (`generic_analysis`).

Seeds: game i of a run with seed S plays with the seed `game_seed(S, i)`, an integer drawn from
SeedSequence(S, spawn_key=(i,)) that GameSeeds turns into the game's generators, so a result does
not depend on the number of workers or on the order the chunks ran in. With `--compare fair` both
runs play game i from the same seed and seats; the batch index j is then game j // 2 of run j % 2.

Figures: every seat's win rate (Wilson 95% interval); the first player's win rate and advantage
(win rate minus the fair share); the game's length (mean, normal interval; quantiles, percentile
bootstrap interval); what each gadget did, per game and per event. A difference between two runs
is Newcombe's hybrid score interval for proportions, the normal (Welch) interval for means and a
percentile bootstrap for quantiles; the runs are treated as independent samples.

A figure that does not come from played games (a solver's values, the planned `analyze knossos
--solve`) goes into the result beside "figures" (see `result_of`).
"""
from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from tabletop.gamekit.chance import measured_paths
from tabletop.gamekit.match import Match
from tabletop.sim.errors import InputError
from tabletop.sim.stats import (mean_difference_interval, mean_interval, newcombe_interval, quantile_difference_intervals,
                                quantile_intervals, wilson_interval)

OUTCOME_CHOICES = ("measured", "fair", "table:FILE.json[,FILE.json]")
COMPARE_CHOICES = ("fair",)
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_KEY = 0xB007       # the bootstrap's SeedSequence(S, spawn_key=(BOOTSTRAP_KEY, crc32(figure)))
SEEDS_DOC = "game i: the integer SeedSequence(S, spawn_key=(i,)).generate_state(1, uint64)[0], GameSeeds' seed"
INTERVALS_DOC = ("proportions: Wilson score; means: normal, mean +- 1.96 sd/sqrt(n); quantiles: percentile "
                 f"bootstrap ({BOOTSTRAP_RESAMPLES} resamples); differences of two runs (independent samples): "
                 "Newcombe's hybrid score (proportions), normal/Welch (means), bootstrap (quantiles)")


@dataclass(frozen=True)
class GameAnalysis:
    """What only analysis knows of one game (its definition's `analysis()` makes one); the rest
    (the rules, seats, sources, turn cap) analyze takes from `definition`.

    definition   the game's GameDefinition
    observer     () -> an Observer of one game (see Observer)
    first_rule   who plays first in this game, and so who "the first player" is
    fair_note    how `fair` chance is made for this game
    fair_measured  the devices with no fair odds, whose measured tables stay under `fair` (the
                 files the result names for it; `fair_source`)
    single_winner  every game has exactly one winning seat (the fair share is then 1/n)
    nobody       the name of a game no seat won ("kong": Kong reached the top), where one can be
    unit         what one record is: "game", or "match" (Knossos: first to win 3 games)
    what         figure name -> what it means (for the report)
    """

    definition: object
    observer: Callable[[], "Observer"]
    first_rule: str
    fair_note: str
    fair_measured: tuple[str, ...] = ()
    single_winner: bool = True
    nobody: str = ""
    unit: str = "game"
    what: dict = field(default_factory=dict)

    def source(self, kind: str, files: Sequence[str] = ()):
        """The outcome source of a run (`resolve_outcomes`): kind "table", the estimate results
        `files` (`table_source`); kind "fair", the definition's fair chance (`fair_source`; `files`
        are the measured results of `fair_measured` it names)."""
        if kind == "fair":
            return fair_source(self.definition)
        return table_source(self.definition, files)


def table_source(definition, files: Sequence[str]):
    """A source sampling the saved estimates `files`, as the definition reads them (its
    `table_outcomes`, which checks they are tables of its devices); InputError when a plain table
    source leaves one of the game's chance events without a table (analyze simulates no physics)."""
    from tabletop.gamekit.chance import TableOutcomes

    source = definition.table_outcomes(list(files))
    if isinstance(source, TableOutcomes) and source.fallback is None:
        missing = [e for e in definition.chance_events if e not in source.tables]
        if missing:
            raise InputError(f"--outcomes: analyze simulates no physics, so {definition.title} needs a table for "
                             f"each of its chance events ({', '.join(definition.chance_events)}); missing: "
                             f"{', '.join(missing)}")
    return source


def fair_source(definition):
    """The game's fair chance: its `fair_tables`, and where they leave a chance event out (a device
    with no fair odds, or an event no table answers, such as a shuffle), the game's measured source
    behind them (the published estimates of its `devices`), which answers only those events.
    GameError (one line) where the game has no fair chance."""
    from tabletop.gamekit.chance import TableOutcomes

    tables = definition.fair_tables()
    if set(definition.chance_events) <= set(tables):
        return TableOutcomes(tables)
    if not definition.devices:
        left = [e for e in definition.chance_events if e not in tables]
        raise InputError(f"{definition.title}: its fair tables leave {', '.join(left)} out and it has no measured "
                         f"tables to draw them from")
    return TableOutcomes(tables, fallback=table_source(definition, measured_files(definition.devices)))


def generic_analysis(definition) -> GameAnalysis:
    """What every game has, for a game whose definition gives no analysis: who won (the seats whose
    `returns()` are positive), who made the first decision, and the game's length in turns,
    decisions and chance events. Several seats may share a win, so the first player's fair share is
    the seats' mean win rate."""
    return GameAnalysis(
        definition=definition, observer=GenericObserver, single_winner=False,
        first_rule="the seat that made the game's first decision",
        fair_note="the fair tables its definition gives (fair_tables)",
        what={"turns": "turns", "decisions": "decisions of the seats", "chance_events": "chance events"})


class Observer:
    """Watches one game through the match's `after_action` hook and says what happened.

    `start(state)` sees the first state; `__call__(state)` the state after every action (the action
    is `state.history[-1]`, the chance event it answered `self.event`, the pending event before it);
    `record(final)` gives the game's figures: {"winners": [seats], "first": seat, "lengths": {name:
    n}, "counts": {name: n per game}, "samples": {name: [value per event]}, "proportions": {name: [k,
    n]}}. A subclass fills `seen(state, action)` and `figures(final)`.
    """

    def __init__(self):
        self.event: str | None = None

    def start(self, state) -> None:
        self.event = state.chance_event

    def __call__(self, state) -> None:
        self.seen(state, state.history[-1])
        self.event = state.chance_event

    def seen(self, state, action) -> None:
        raise NotImplementedError

    def record(self, final) -> dict:
        raise NotImplementedError


class GenericObserver(Observer):
    """What every game has (`generic_analysis`): the winners by the rules' returns, the seat of the
    first decision, the turns, decisions and chance events."""

    def __init__(self):
        super().__init__()
        self.first: int | None = None
        self.decisions = self.chances = 0

    def start(self, state) -> None:
        super().start(state)
        self._decides(state)

    def seen(self, state, action) -> None:
        if self.event is not None:
            self.chances += 1
        else:
            self.decisions += 1
        self._decides(state)

    def _decides(self, state) -> None:
        if self.first is None and not state.is_terminal() and state.chance_event is None:
            self.first = state.current_player

    def record(self, final) -> dict:
        returns = final.returns()
        return {"winners": [p for p, r in enumerate(returns) if r > 0], "first": self.first,
                "lengths": {"turns": final.turn, "decisions": self.decisions, "chance_events": self.chances},
                "counts": {}, "samples": {}, "proportions": {}}


def game_seed(seed: int, index: int) -> int:
    """Game `index`'s own seed in a run with `seed`: from SeedSequence(seed, spawn_key=(index,))."""
    return int(np.random.SeedSequence(seed, spawn_key=(index,)).generate_state(1, np.uint64)[0])


def seat_kinds(spec) -> tuple[str, ...]:
    """The seat kinds analyze can play (no humans)."""
    return tuple(k for k in spec.seat_kinds if k != "human")


def measured_files(devices: Sequence[str]) -> tuple[str, ...]:
    """The published measured odds of these devices (assets/measured, package data)."""
    return tuple(str(path) for path in measured_paths(devices))


def resolve_outcomes(analysis: GameAnalysis, outcomes: str) -> tuple[str, tuple[str, ...]]:
    """(kind, files) of an --outcomes value: ("table", files) for measured (the published estimates
    of the definition's `devices`) and table:..., ("fair", the measured files of the devices with no
    fair chance) for fair; anything else is an InputError."""
    if outcomes == "measured":
        devices = analysis.definition.devices
        if not devices:
            raise InputError(f"--outcomes measured: {analysis.definition.title} has no devices, so no measured "
                             f"tables; use fair or table:FILE.json")
        return "table", measured_files(devices)
    if outcomes == "fair":
        return "fair", measured_files(analysis.fair_measured)
    if outcomes.startswith("table:") and outcomes[6:].strip(","):
        return "table", tuple(f for f in outcomes[6:].split(",") if f)
    raise InputError(f"--outcomes: expected one of {', '.join(OUTCOME_CHOICES)}, got {outcomes!r} "
                     f"(analyze simulates no physics)")


def files_digest(files: Sequence[str]) -> str:
    """A digest of the table files' contents: a checkpoint of other tables is not resumed."""
    h = hashlib.sha256()
    for f in files:
        h.update(Path(f).read_bytes())
    return h.hexdigest()[:16]


class GameTask:
    """Plays the batch indices of a run: index j is game j // len(sources), from source j % len(sources)."""

    def __init__(self, game, seats: tuple[str, ...], sources: tuple[tuple[str, tuple[str, ...]], ...],
                 options: dict):
        self.definition = game
        self.analysis = game.analysis()
        # the rules' Game a replay of such a game would record (its seats and options)
        self.game = game.make_game(game.replay_config(seats, sources[0][0], dict(options)))
        self.sources = [self.analysis.source(kind, files) for kind, files in sources]
        # each run's seats, made once (they keep nothing of a game; a solved seat keeps its solution)
        self.seats = {id(src): [game.make_seat(k, src, dict(options)) for k in seats] for src in self.sources}

    def play(self, seed: int, index: int, source) -> dict:
        """Game `index` of the run with `seed`, from `source`: its observer's record."""
        state = self.game.new_initial_state()
        observer = self.analysis.observer()
        observer.start(state)
        Match(state, self.seats[id(source)], source, game_seed(seed, index),
              max_turns=self.definition.max_turns, after_action=observer).play()
        return observer.record(state)

    def __call__(self, seed: int, indices: Sequence[int]) -> list[dict]:
        out = []
        for j in indices:
            i, run = divmod(j, len(self.sources))
            out.append({"index": j, **self.play(seed, i, self.sources[run])})
        return out


# -- figures ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Prop:
    """k of n, shown less `offset` (the first player's advantage: its win rate less the fair share)."""

    k: int
    n: int
    offset: float = 0.0

    def estimate(self, key: str, seed: int) -> dict:
        lo, hi = wilson_interval(self.k, self.n)
        return {key: _entry(self.k / self.n - self.offset if self.n else 0.0, (lo - self.offset, hi - self.offset),
                            "wilson", self.n, k=self.k)}

    def difference(self, other: "Prop", key: str, seed: int) -> dict:
        lo, hi = newcombe_interval(self.k, self.n, other.k, other.n)
        shift = self.offset - other.offset
        d = (self.k / self.n if self.n else 0.0) - (other.k / other.n if other.n else 0.0) - shift
        return {key: _entry(d, (lo - shift, hi - shift), "newcombe")}


@dataclass(frozen=True)
class Avg:
    """The mean of per-game (or per-event) values."""

    values: tuple[float, ...]

    def estimate(self, key: str, seed: int) -> dict:
        mean, ci, _ = mean_interval(self.values)
        return {key: _entry(mean, ci, "normal", len(self.values))}

    def difference(self, other: "Avg", key: str, seed: int) -> dict:
        d, ci = mean_difference_interval(self.values, other.values)
        return {key: _entry(d, ci, "welch-normal")}


@dataclass(frozen=True)
class Quantiles:
    """The QUANTILES of per-game (or per-event) values, each a figure `<key>.qNN`."""

    values: tuple[float, ...]

    def keys(self, key: str) -> list[str]:
        return [f"{key}.q{round(q * 100):02d}" for q in QUANTILES]

    def estimate(self, key: str, seed: int) -> dict:
        rows = quantile_intervals(self.values, QUANTILES, _bootstrap_rng(seed, key), BOOTSTRAP_RESAMPLES)
        return {k: _entry(v, (lo, hi), "bootstrap", len(self.values)) for k, (v, lo, hi) in zip(self.keys(key), rows)}

    def difference(self, other: "Quantiles", key: str, seed: int) -> dict:
        rows = quantile_difference_intervals(self.values, other.values, QUANTILES, _bootstrap_rng(seed, key),
                                             BOOTSTRAP_RESAMPLES)
        return {k: _entry(v, (lo, hi), "bootstrap") for k, (v, lo, hi) in zip(self.keys(key), rows)}


def _bootstrap_rng(seed: int, key: str) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(BOOTSTRAP_KEY, zlib.crc32(key.encode()))))


def _entry(value: float, ci, method: str, n: int | None = None, **more) -> dict:
    out = {"value": float(value), "ci95": [float(ci[0]), float(ci[1])], "method": method}
    if n is not None:
        out["n"] = n
    out.update(more)
    return out


def measures(records: Sequence[dict], analysis: GameAnalysis, colours: Sequence[str]) -> dict:
    """figure key -> (what it means, its measure) for one run's game records (in index order)."""
    n, players = len(records), len(colours)
    out: dict[str, tuple[str, object]] = {}
    for p, colour in enumerate(colours):
        out[f"win_rate.{colour}"] = (f"{colour}'s win rate", Prop(sum(p in r["winners"] for r in records), n))
    if analysis.nobody:
        out[f"win_rate.{analysis.nobody}"] = (analysis.what.get(f"win_rate.{analysis.nobody}", "no seat won"),
                                              Prop(sum(not r["winners"] for r in records), n))
    if not analysis.single_winner:
        out["shared_victory"] = (f"{analysis.unit}s won by more than one seat",
                                 Prop(sum(len(r["winners"]) > 1 for r in records), n))
    for p, colour in enumerate(colours):
        out[f"moved_first.{colour}"] = (f"{colour} moved first", Prop(sum(r["first"] == p for r in records), n))
    first_won = [r["first"] in r["winners"] for r in records]
    out["first_player.win_rate"] = ("the first player's win rate", Prop(sum(first_won), n))
    if analysis.single_winner:
        out["first_player.advantage"] = (f"the first player's win rate less the fair share 1/{players}",
                                         Prop(sum(first_won), n, 1.0 / players))
    else:
        out["first_player.advantage"] = ("the first player's win rate less the seats' mean win rate",
                                         Avg(tuple(float(w) - len(r["winners"]) / players
                                                   for w, r in zip(first_won, records))))
    for block, per in (("lengths", f"per {analysis.unit}"), ("samples", "per event")):
        for name in _names(records, block):
            values = tuple(float(v) for r in records for v in _as_list(r[block][name]))
            what = analysis.what.get(name, name)
            out[f"{name}.mean"] = (f"{what} {per}: mean", Avg(values))
            out[name] = (f"{what} {per}", Quantiles(values))
    for name in _names(records, "counts"):
        out[f"{name}.per_{analysis.unit}"] = (analysis.what.get(name, name) + f" per {analysis.unit}",
                                   Avg(tuple(float(r["counts"][name]) for r in records)))
    for name in _names(records, "proportions"):
        k = sum(r["proportions"][name][0] for r in records)
        m = sum(r["proportions"][name][1] for r in records)
        out[name] = (analysis.what.get(name, name), Prop(k, m))
    return out


def _names(records: Sequence[dict], block: str) -> list[str]:
    return list(records[0][block]) if records else []


def _as_list(value) -> list:
    return value if isinstance(value, list) else [value]


def figures(measured: dict, seed: int) -> dict:
    """Every figure's value, 95% interval, method and count, with what it means."""
    out = {}
    for key, (what, m) in measured.items():
        for k, entry in m.estimate(key, seed).items():
            quantile = f": {int(k.rsplit('.q', 1)[1])}% quantile" if isinstance(m, Quantiles) else ""
            out[k] = {"what": what + quantile, **entry}
    return out


def differences(a: dict, b: dict, seed: int) -> dict:
    """Every figure of run `a` less run `b` (same keys), with its 95% interval and method."""
    out = {}
    for key, (what, m) in a.items():
        if key in b:
            out.update(m.difference(b[key][1], key, seed))
    return out


def lengths_of(records: Sequence[dict], name: str) -> list[float]:
    return [float(r["lengths"][name]) for r in records]


# -- the result, the report and the plot ----------------------------------------------------------

def runs_of(records: Sequence[dict], runs: int) -> list[list[dict]]:
    """The batch's records split by run (index j belongs to run j % runs), each in game order."""
    out = [[] for _ in range(runs)]
    for r in sorted(records, key=lambda r: r["index"]):
        out[r["index"] % runs].append(r)
    return out


def result_of(spec, analysis: GameAnalysis, seats: Sequence[str], outcomes: Sequence[str], runs: list[list[dict]],
              seed: int) -> dict:
    """The figures of the run (and with a second run, `--compare`'s: its figures and the differences).
    A block that does not come from these games (a solver's, `--solve`) is added beside "figures"."""
    colours = spec.colours[:len(seats)]
    measured = [measures(r, analysis, colours) for r in runs]
    out = {"games": len(runs[0]), "unit": analysis.unit, "colours": list(colours), "first_player": analysis.first_rule, "figures": figures(measured[0], seed)}
    if len(runs) > 1:
        out["compare"] = {"against": outcomes[1], "games": len(runs[1]), "figures": figures(measured[1], seed),
                          "differences": differences(measured[0], measured[1], seed),
                          "note": f"{outcomes[0]} less {outcomes[1]}: the effect of the measured gadgets, same game "
                                  f"seeds and seats, the runs taken as independent samples"}
    return out


def _fmt(value: float) -> str:
    return f"{value:.4f}" if abs(value) < 10 else f"{value:.2f}"


def _ci(ci) -> str:
    return f"[{_fmt(ci[0])}, {_fmt(ci[1])}]"


def print_report(console, result: dict) -> None:
    """Every figure with its 95% interval (and, with --compare, the other run's and the difference)."""
    from rich.table import Table

    compare = result.get("compare")
    title = (f"{result['title']}: {_units(result, result['games'])}, seats {','.join(result['seats'])}, outcomes "
             f"{result['outcomes']['name']}, seed {result['seed']}")
    table = Table(title=title)
    keys = max(map(len, result["figures"]))
    name = result["outcomes"]["name"]
    if not compare:
        # a figure's key is never cut (no_wrap, as wide as the longest); the explanation takes the
        # width left and wraps between words; the numbers keep a line each
        table.add_column("figure", no_wrap=True, min_width=keys)
        table.add_column("what", ratio=1, min_width=12)
        table.add_column(name if len(name) <= 12 else "value", justify="right", no_wrap=True)
        table.add_column("95% interval", justify="right", no_wrap=True)
        for key, f in result["figures"].items():
            table.add_row(key, f["what"], _fmt(f["value"]), _ci(f["ci95"]))
    else:
        # three rows a figure (this run, the other, the difference), the explanation under the key
        # (a key is never cut: the column is at least as wide as the longest):
        # four columns fit 80 characters, where seven side by side did not
        from rich.text import Text

        table.add_column("figure", ratio=1, min_width=keys)
        table.add_column("run", overflow="fold", max_width=max(10, min(len(name), 24)))
        table.add_column("value", justify="right", no_wrap=True)
        table.add_column("95% interval", justify="right", no_wrap=True)
        for key, f in result["figures"].items():
            g, d = compare["figures"].get(key), compare["differences"].get(key)
            table.add_row(key, name, _fmt(f["value"]), _ci(f["ci95"]))
            table.add_row(Text(f["what"], style="dim"), compare["against"],
                          *([_fmt(g["value"]), _ci(g["ci95"])] if g else ["", ""]))
            table.add_row("", "difference", *([f"{d['value']:+.4f}", _ci(d["ci95"])] if d else ["", ""]),
                          end_section=True)
    console.print(table)
    console.print(f"first player: {result['first_player']}")
    console.print(f"intervals: {INTERVALS_DOC}", soft_wrap=True)
    workers = (f"the Dask cluster at {result['scheduler']}" if result.get("scheduler") else
               f"{result['workers']} worker" + ("s" if result["workers"] != 1 else ""))
    console.print(f"{_units(result, result['games'] * result['runs'])} in {result['elapsed_s']:.1f} s "
                  f"({result['games_per_s']:.1f} {_units(result)}/s, {workers})")


def _units(result: dict, n: int | None = None) -> str:
    """'200 matches', 'games', ...: the run's records in words."""
    unit = result["unit"] + ("es" if result["unit"] == "match" else "s")
    return unit if n is None else f"{n} {unit}"


def plot_result(result: dict, runs: list[list[dict]], length: str, path) -> None:
    """Win rates with their 95% intervals (both runs with --compare) and the histogram of `length`."""
    from tabletop.sim.analysis import pyplot, save_figure

    plt = pyplot()
    names = [result["outcomes"]["name"]] + ([result["compare"]["against"]] if "compare" in result else [])
    blocks = [result["figures"]] + ([result["compare"]["figures"]] if "compare" in result else [])
    keys = [k for k in blocks[0] if k.startswith("win_rate.")] + ["first_player.win_rate"]
    labels = [k.split(".", 1)[1] if k.startswith("win_rate.") else "first player" for k in keys]
    fig, (ax, hx) = plt.subplots(1, 2, figsize=(11.0, 4.2))
    width = 0.8 / len(blocks)
    colours = ("#4C72B0", "#DD8452")
    for b, (name, block) in enumerate(zip(names, blocks)):
        x = [i + (b - (len(blocks) - 1) / 2) * width for i in range(len(keys))]
        p = [block[k]["value"] for k in keys]
        err = [[v - block[k]["ci95"][0] for v, k in zip(p, keys)], [block[k]["ci95"][1] - v for v, k in zip(p, keys)]]
        ax.bar(x, p, width, yerr=err, capsize=3, color=colours[b], ecolor="#222222", label=f"{name}, 95% interval")
    seat_keys = [f"win_rate.{c}" for c in result["colours"]]
    fair = sum(blocks[0][k]["value"] for k in seat_keys) / len(seat_keys)
    ax.axhline(fair, color="#555555", linestyle="--", linewidth=1,
               label=f"fair share: the seats' mean win rate ({result['outcomes']['name']})")
    ax.set_xticks(range(len(keys)), labels)
    ax.set_ylabel("win rate")
    ax.set_ylim(0, min(1.0, max(block[k]["ci95"][1] for block in blocks for k in keys) * 1.3))
    ax.set_title(f"{result['title']}: {_units(result, result['games'])}, seats {','.join(result['seats'])}")
    ax.legend(fontsize=8, loc="upper right")
    values = [lengths_of(r, length) for r in runs]
    lo, hi = min(min(v) for v in values), max(max(v) for v in values)
    width = max(1, int(np.ceil((hi - lo + 1) / 50)))
    bins = np.arange(lo, hi + width + 1, width) - 0.5
    for b, (name, v) in enumerate(zip(names, values)):
        hx.hist(v, bins=bins, histtype="step" if b else "stepfilled", alpha=1.0 if b else 0.6, color=colours[b],
                linewidth=1.5, label=f"{name}: mean {np.mean(v):.1f}, median {np.median(v):.0f}")
    hx.set_xlabel(result["what_lengths"][length])
    hx.set_ylabel(_units(result))
    hx.set_title(f"length of a {result['unit']}")
    hx.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)
