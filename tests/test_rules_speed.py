"""The rules' fast paths: table chance drawn from a cumulative table, the first uniform of a chance
event's generator computed from the seed, the legal moves listed once per decision, and
`tabletop bench --rules`. Every fast path must give exactly what the plain path gives. The games
are those of the registry (none named here), each bench made when its test runs, so that a game
that cannot bench fails its own test and nothing else."""
import json

import numpy as np
import pytest
from scipy.stats import chisquare

from tabletop.gamekit.chance import Cumulative, TableOutcomes
from tabletop.cli import main
from tabletop.gamekit.definition import GameDefinition
from tabletop.gamekit.match import GameSeeds, Match
from tabletop.gamekit import registry
from tabletop.gamekit.registry import GAMES
from tabletop.gamekit.rules_bench import bench_rules
from tabletop.gamekit.errors import IllegalMoveError
from tabletop.gamekit.state import ChanceOutcome

TABLES = [("1", "2", "3"), (0.25, 0.5, 0.25)], [tuple("123456J"), (0.1, 0.2, 0.05, 0.3, 0.0, 0.15, 0.2)]


@pytest.mark.parametrize("labels, p", TABLES)
def test_a_cumulative_table_draws_the_label_numpy_choice_draws(labels, p):
    p = np.array(p) / np.sum(p)
    table = Cumulative(labels, p)
    for seed in range(2000):
        expected = labels[int(np.random.default_rng(seed).choice(len(labels), p=p))]
        assert table.draw(np.random.default_rng(seed)) == expected


@pytest.mark.parametrize("labels, p", TABLES)
def test_table_draws_follow_the_table(labels, p):
    """20,000 chance events of a game, each from its own generator, against the table (chi-square)."""
    seeds, table, n = GameSeeds(3), TableOutcomes({"e": dict(zip(labels, p))}), 20000
    draws = [table.outcome("e", None, seeds.chance(k)) for k in range(n)]
    counts = np.array([draws.count(label) for label in labels])
    expected = np.array(p) / np.sum(p) * n
    assert counts[expected == 0].sum() == 0
    assert chisquare(counts[expected > 0], expected[expected > 0]).pvalue > 1e-4


def test_same_seed_same_labels_and_another_seed_others():
    table = TableOutcomes({"e": dict(zip(*TABLES[1]))})

    def labels(seed):
        seeds = GameSeeds(seed)
        return [table.outcome("e", None, seeds.chance(k)) for k in range(200)]

    assert labels(9) == labels(9) != labels(10)


@pytest.mark.parametrize("name", GAMES.names())
def test_the_listed_moves_never_go_stale(name):
    """Along random games: after every apply and in every clone the legal actions are those of the
    same game re-driven afresh from its history, and a move listed before an apply that is not
    legal after it is refused."""
    bench = GAMES[name].rules_bench()
    game, source, rng = bench.make_game(), bench.make_source(), np.random.default_rng(1)
    state, seeds, k, decisions, previous = game.new_initial_state(), GameSeeds(1), 0, 0, []
    while not state.is_terminal() and decisions < 150:
        if state.chance_event is not None:
            state.apply(ChanceOutcome(source.outcome(state.chance_event, state, seeds.chance(k))))
            k += 1
            continue
        fresh = game.replay(state.history).legal_actions() if decisions % 10 == 0 else None
        if fresh is not None:
            for old in previous:           # listed before the last apply, before any listing now
                if old not in fresh:
                    with pytest.raises(IllegalMoveError):
                        state.apply(old)
        legal = state.legal_actions()
        if fresh is not None:
            assert legal == fresh == state.clone().legal_actions()
        twin = state.clone()
        choice = legal[int(rng.integers(len(legal)))]
        twin.apply(choice)                     # an action of the original's list, checked in full
        state.apply(choice)
        assert state.events == twin.events and str(state) == str(twin)
        previous, decisions = legal, decisions + 1
    assert decisions or state.is_terminal()


def test_bench_rules_writes_the_three_figures(tmp_path, capsys):
    """Every registered game is benched or named with the line that says why not; a game's own
    benches (`extra_benches`) stand beside its rules'."""
    out = tmp_path / "rules.json"
    assert main(["bench", "--rules", "--rules-games", "2", "--out", str(out)]) == 0
    figures = json.loads(out.read_text())
    names = GAMES.names()
    assert set(figures["games"]) | set(figures["not_benched"]) >= set(names)
    own = {n for n in names if n in figures["games"]}
    extra = set(figures["games"]) - own
    assert own and not extra & set(names)
    for name in own:
        fig = figures["games"][name]
        assert fig["games"] == 2 and fig["games_per_s"] > 0
        assert fig["decisions_per_s"] + fig["chance_events_per_s"] > 0
        assert fig["decisions_per_game"] + fig["chance_events_per_game"] > 0
    assert len(figures["load_average_before"]) == len(figures["load_average_after"]) == 3
    printed = capsys.readouterr().out
    assert "load average" in printed
    for name in own:
        assert f"{name}: " in printed and f"{figures['games'][name]['games_per_s']:.1f} " in printed
    for name, why in figures["not_benched"].items():
        assert f"{name}: not benched: {why}" in printed


def test_a_game_that_cannot_bench_gets_one_line_and_the_others_are_benched(monkeypatch, capsys):
    """A game with no fair chance and no devices, and a game that could not be registered: each one
    line, every other game benched (`tabletop bench --rules` exits 0)."""
    first = GAMES[GAMES.names()[0]]

    class Unbenchable(type(first)):
        name, devices = "unbenchable", ()

        def fair_tables(self):
            return GameDefinition.fair_tables(self)

    class Games(dict):
        def problems(self):
            return {"broken": "game 'broken' (x:Y) cannot be registered: its import fails: ImportError: no x"}

    games = Games({"unbenchable": Unbenchable(), first.name: first})
    monkeypatch.setattr(registry, "GAMES", games)
    assert main(["bench", "--rules", "--rules-games", "1"]) == 0
    printed = capsys.readouterr().out
    lines = [line for line in printed.splitlines() if ": not benched: " in line]
    assert any(line.startswith("unbenchable: not benched: ") and "has no fair chance" in line for line in lines)
    assert any(line.startswith("broken: not benched: game 'broken'") for line in lines)
    assert f"{first.name}: " in printed
    figures = bench_rules(games.values(), 1)
    assert first.name in figures["games"] and set(figures["not_benched"]) == {"unbenchable"}


@pytest.mark.parametrize("argv, words", [
    (["bench", "--rules", "--rules-games", "1", "--out", "/proc/x.json"], "/proc"),
    (["bench", "--rules-games", "3"], "only with --rules"),
    (["bench", "--rules", "--rules-seats", "human"], "--rules-seats"),
    (["bench", "--rules", "--rules-games", "0"], "--rules-games"),
])
def test_bench_rules_bad_input_is_one_line_before_any_work(argv, words, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_bench_help_lists_rules(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "--rules" in capsys.readouterr().out


@pytest.mark.parametrize("name", GAMES.names())
def test_a_match_on_tables_is_the_same_whichever_generator_answers(name):
    """Match.draw's stand-in generator and the event's own Generator give the same match."""
    bench = GAMES[name].rules_bench()

    class Real(GameSeeds):
        def event(self, k):
            return self.chance(k)

    def play(seeds_class):
        import tabletop.gamekit.match as match
        saved, match.GameSeeds = match.GameSeeds, seeds_class
        try:
            source = bench.make_source()
            m = Match(bench.make_game().new_initial_state(), bench.make_seats("random", source), source, 4,
                      max_turns=bench.max_turns)
            return m.play().events
        finally:
            match.GameSeeds = saved

    assert play(GameSeeds) == play(Real)
