"""`tabletop review`: a recorded game's review (tabletop.gamekit.review, tabletop.app.review).

What must hold: a Knossos review's win probabilities are the solved match's values (to 1e-9);
in every game's review the luck and the decisions add up to the result less the starting win
probability, for every seat (exactly where the values are exact: each decision's change is minus
its loss; with rollouts each term carries its interval); a rollout review of a solved game, played
out by solved seats, finds the solver's values within its intervals; the same seed gives the same
review whatever the number of workers; bad input is one line and exit 2.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop.app.games import play
from tabletop.app.requests import PlayRequest, ReviewRequest
from tabletop.app.review import review, review_source
from tabletop.cli import main
from tabletop.gamekit import review as rv
from tabletop.gamekit.record import decode_action
from tabletop.gamekit.registry import GAMES
from tabletop.sim.errors import InputError
from tabletop.sim.record import ReplayFile


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A recorded game of each kind, chance from the measured tables (no physics): name -> path."""
    folder = tmp_path_factory.mktemp("games")
    games = {"knossos": ("knossos", ("ai", "solved"), 3, {"games_to_win": 1}),
             "knossos-match": ("knossos", ("ai", "ai"), 4, {"games_to_win": 2}),
             "koth": ("king-of-the-hill", ("ai", "ai"), 1, {}),     # a solved seat here would solve the whole hill (minutes) in every fresh CI run
             "koth3": ("king-of-the-hill", ("ai", "plan", "ai"), 1, {}),
             "kong": ("king-kong", ("plan", "ai"), 2, {})}
    out = {}
    for key, (game, seats, seed, options) in games.items():
        out[key] = folder / f"{key}.ttr"
        play(PlayRequest(game, seats=seats, seed=seed, outcomes="measured", options=options, record=out[key]))
    return out


def _balance(result: dict, tolerance: float) -> None:
    """Each seat's end less start is its luck and every decision's change, to `tolerance`; where the
    values are exact a decision changes its mover's value by minus its loss, the other's by plus it,
    and a chance event's expectation is the value before it."""
    for p in result["players"]:
        assert abs(p["end"] - p["start"] - p["luck"] - p["own_decisions"] - p["others_decisions"]) <= tolerance
        assert abs(p["residual"]) <= tolerance
    if result["method"] != "exact":
        return
    for r in result["steps"]:
        if r["kind"] == "decision" and not r["forced"]:
            m = r["seat"]
            assert r["delta"][m] == pytest.approx(-r["loss"], abs=1e-9)
            assert r["loss"] >= -1e-12
        if r["kind"] == "chance":
            assert np.allclose(r["expected"], r["before"], atol=1e-9)
    if len(result["players"]) == 2:        # two players: luck less one's own cost plus the other's
        for p, q in (result["players"], result["players"][::-1]):
            assert p["end"] - p["start"] == pytest.approx(p["luck"] - p["cost"] + q["cost"], abs=tolerance)


def test_the_grades_and_accuracy():
    assert [rv.grade(x) for x in (0.0, 1e-10, 0.01, 0.03, 0.05, 0.08, 0.3)] == \
        ["best", "best", "good", "inaccuracy", "mistake", "blunder", "blunder"]
    assert rv.grade(-0.02) == "best"
    assert rv.accuracy(0.0) == pytest.approx(100.0, abs=1e-3)
    values = [rv.accuracy(x) for x in (0.0, 0.02, 0.08, 0.2, 1.0)]
    assert values == sorted(values, reverse=True) and values[-1] == 0.0
    assert 90 < rv.accuracy(0.02) < 92 and 69 < rv.accuracy(0.08) < 71


def test_a_knossos_review_is_the_solved_match(recorded):
    """Every position's values, every move's and every throw's expectation are the solver's."""
    from tabletop.games.knossos.solve import solve

    result = review(ReviewRequest(recorded["knossos-match"])).to_dict()
    assert result["method"] == "exact" and result["finished"]
    file = ReplayFile.open(recorded["knossos-match"])
    definition = GAMES["knossos"]
    game = definition.make_game(file.header["config"])
    solution = solve(file.header["config"]["tables"]["sticks"], game.games_to_win, exit_rule=game.exit_rule)
    table = file.header["config"]["tables"]["sticks"]
    state = game.new_initial_state()
    history = [decode_action(definition, a) for turn in file.turns for a in turn.actions]
    assert len(history) == len(result["steps"])
    value = lambda s: [solution.value(s, p) for p in (0, 1)]
    assert result["start"] == pytest.approx(value(state), abs=1e-9)
    for action, r in zip(history, result["steps"]):
        assert r["before"] == pytest.approx(value(state), abs=1e-9)
        if r["kind"] == "chance":
            expected = np.zeros(2)
            for label, p in table.items():
                s = state.fork()
                s.apply(decode_action(definition, ["outcome", label]))
                expected += p / sum(table.values()) * np.array(value(s))
            assert r["expected"] == pytest.approx(expected.tolist(), abs=1e-9)
        elif not r["forced"]:
            after = []
            for move in state.legal_actions():
                s = state.fork()
                s.apply(move)
                after.append(solution.value(s, r["seat"]))
            assert r["best_value"] == pytest.approx(max(after), abs=1e-9)
        state.apply(action)
        assert r["after"] == pytest.approx(value(state), abs=1e-9)
    assert result["end"] == [float(state.winner == p) for p in (0, 1)]
    _balance(result, 1e-9)


def test_every_game_balances(recorded):
    """Knossos and two-player King of the Hill exactly (if the hill's solution is cached: a first
    solve takes minutes), three-player King of the Hill and King Kong by rollouts."""
    from tabletop.games.king_of_the_hill.solve import is_cached, measured_tables

    knossos = review(ReviewRequest(recorded["knossos"])).to_dict()
    _balance(knossos, 1e-9)
    assert all(p["gadgets"] is not None for p in knossos["players"])     # the sticks differ from fair coins
    assert knossos["players"][0]["gadgets"] == pytest.approx(-knossos["players"][1]["gadgets"], abs=1e-12)
    if is_cached(measured_tables()):
        koth = review(ReviewRequest(recorded["koth"])).to_dict()
        assert koth["method"] == "exact" and koth["start"] == pytest.approx([0.5, 0.5], abs=1e-12)
        _balance(koth, 1e-9)
    kong = review(ReviewRequest(recorded["kong"], rollouts=8, rollout_seat="random")).to_dict()
    assert kong["method"] == "rollouts" and kong["rollouts"]["n"] == 8
    _balance(kong, 1e-9)
    assert any(p["luck_se"] > 0 for p in kong["players"])
    assert all(np.isfinite([p["luck_se"], p["cost_se"], p["own_decisions_se"]]).all() for p in kong["players"])
    for r in kong["steps"]:
        assert len(r["after_ci95"]) == 2 and all(lo <= v <= hi for v, (lo, hi) in zip(r["after"], r["after_ci95"]))


def test_a_small_hill_solved_exactly(tmp_path, monkeypatch):
    """The hook's turn-order tilts and its values on a small hill (solved in a second): the review
    balances to 1e-9 and every seat's values sum to 1."""
    from tabletop.gamekit.chance import TableOutcomes
    from tabletop.gamekit.match import Match
    from tabletop.games.king_of_the_hill.board import Board
    from tabletop.games.king_of_the_hill.rules import Game

    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path / "cache"))
    small = Board(10, 3, {"edge1": 4, "edge2": 8, "edge3": 9},
                  {"cave1/seat1": 6, "cave1/seat2": 1, "cave2/seat1": 7, "cave2/seat2": 2, "cave3/seat1": 5,
                   "cave3/seat2": 3})
    tables = {"tipper": dict(zip(("1", "2", "3", "4", "5", "6", "J"), (0.3, 0.2, 0.15, 0.1, 0.1, 0.1, 0.05))),
              "crater": {f"cave{c}/seat{s}": 1 / 6 for c in (1, 2, 3) for s in (1, 2)}}
    definition = GAMES["king-of-the-hill"]
    game, source = Game(players=2, board=small), TableOutcomes(tables)
    final = Match(game.new_initial_state(), [definition.make_seat("ai", source, {})] * 2, source, 5).play()
    solved = definition.solved_values(game, tables)
    reviewer = rv.Reviewer(definition, game, final.history, source, TableOutcomes({"tipper": {
        k: 1 / 7 for k in tables["tipper"]}, "crater": tables["crater"]}), solved)
    result = rv.review(reviewer)
    _balance(result, 1e-9)
    first = [r for r in result["steps"] if r["kind"] == "chance"][0]
    assert first["before"] == [0.5, 0.5] and first["after"] != [0.5, 0.5]   # the first tilt for turn order
    assert all(abs(sum(r["after"]) - 1) < 1e-12 for r in result["steps"])
    assert any("swing" in r for r in result["steps"] if r["kind"] == "chance" and r["event"] == "tipper")


def test_rollouts_find_the_solved_values(recorded):
    """A Knossos game estimated by rollouts of solved seats (whose play is the solution's) against
    the exact review: the start, each seat's luck and decisions within 4 standard errors, and most
    positions' exact values within their 95% intervals."""
    exact = review(ReviewRequest(recorded["knossos"])).to_dict()
    est = review(ReviewRequest(recorded["knossos"], estimate=True, rollout_seat="solved", rollouts=48,
                               seed=1)).to_dict()
    assert est["method"] == "rollouts"
    _balance(est, 1e-9)
    for pe, pa in zip(est["players"], exact["players"]):
        for key in ("luck", "own_decisions", "others_decisions"):
            assert abs(pe[key] - pa[key]) <= 4 * pe[f"{key}_se"] + 1e-9, key
    inside = [lo <= a <= hi for re, ra in zip(est["steps"], exact["steps"])
              for a, (lo, hi) in zip(ra["after"], re["after_ci95"])]
    assert np.mean(inside) >= 0.8
    swings = [(re["swing"][re["seat"]], re["swing_se"][re["seat"]], ra["swing"][ra["seat"]])
              for re, ra in zip(est["steps"], exact["steps"]) if "swing" in re]
    assert swings and np.mean([abs(e - a) <= 3 * se + 1e-9 for e, se, a in swings]) >= 0.9


def test_a_three_player_hill_by_rollouts_is_deterministic(recorded):
    """Part of a three-player game (the review of a recording cut short): the ai seat rolls out,
    the same seed gives the same review, and the sums balance."""
    file = ReplayFile.open(recorded["koth3"])
    definition = GAMES["king-of-the-hill"]
    game = definition.make_game(file.header["config"])
    history = [decode_action(definition, a) for turn in file.turns for a in turn.actions][:30]
    source, _ = review_source(definition, file.header["config"])

    def once():
        seats = [definition.make_seat(definition.review_seat, source, {"variant": "standard"})] * 3
        reviewer = rv.Reviewer(definition, game, history, source, None, None, rv.Rollouts(seats, source, 7, 5000),
                               8)
        return rv.review(reviewer)

    a, b = once(), once()
    assert definition.review_seat == "ai" and not a["finished"]
    a.pop("seconds"), b.pop("seconds")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    _balance(a, 1e-9)
    assert len(a["players"]) == 3 and all(len(r["after"]) == 3 for r in a["steps"])


@pytest.mark.slow
def test_workers_give_the_same_review(recorded):
    one = review(ReviewRequest(recorded["kong"], rollouts=4, rollout_seat="random", seed=3)).to_dict()
    two = review(ReviewRequest(recorded["kong"], rollouts=4, rollout_seat="random", seed=3, workers=2)).to_dict()
    one.pop("seconds"), two.pop("seconds")
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_the_command_prints_writes_and_draws(recorded, tmp_path, capsys):
    out, plot = tmp_path / "r.json", tmp_path / "r.png"
    assert main(["review", str(recorded["knossos"]), "--out", str(out), "--plot", str(plot), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"review of {recorded['knossos']}: Knossos, seats red=ai, blue=solved")
    assert "balance (end less start" in printed and "the luckiest chance events" in printed
    data = json.loads(out.read_text())
    assert data["game"] == "knossos" and data["method"] == "exact" and data["players"][1]["end"] == 1.0
    assert set(data["definitions"]) == {"grades", "accuracy", "luck"}
    assert plot.stat().st_size > 10_000


def test_the_sources_of_a_review():
    definition = GAMES["knossos"]
    source, what = review_source(definition, {"outcomes": "physics"})
    assert "physics" in what and "measured" in what and "sticks" in source.tables
    source, what = review_source(definition, {"outcomes": "table:x.json", "tables": {"sticks": {"1": 1, "2": 2,
                                                                                                "3": 1}}})
    assert what == "the recorded tables" and list(source.tables["sticks"][1]) == [1, 2, 1]


def test_bad_input_is_one_line(recorded, tmp_path, capsys, monkeypatch):
    from tabletop.gamekit import registry

    garbage = tmp_path / "bad.ttr"
    garbage.write_text("not a replay")
    cases = [([str(tmp_path / "none.ttr")], "replay not found"),
             ([str(garbage)], "not a tabletop replay"),
             ([str(recorded["kong"]), "--rollout-seat", "solved"], "has no 'solved' seat"),
             ([str(recorded["kong"]), "--rollouts", "1"], "--rollouts: at least 2"),
             ([str(recorded["kong"]), "--precision", "0"], "--precision: a decision's loss measured to a 95%"),
             ([str(recorded["knossos"]), "--precision", "0.2"], "--precision: knossos is solved here"),
             ([str(recorded["knossos"]), "--plot", str(tmp_path / "x.nope")], "--plot")]
    for argv, message in cases:
        assert main(["review", *argv]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    others = registry.Registry("tabletop.no-games")         # every installed game but Knossos
    for name in registry.GAMES:
        if name != "knossos":
            others.add(registry.GAMES[name])
    monkeypatch.setattr(registry, "GAMES", others)
    assert main(["review", str(recorded["knossos"])]) == 2
    assert "which this tabletop cannot replay" in capsys.readouterr().err
    with pytest.raises(InputError, match="--workers"):
        ReviewRequest("a.ttr", workers=0)


def test_a_trials_recording_is_refused(tmp_path, capsys):
    path = tmp_path / "t.ttr"
    assert main(["estimate", "die", "--trials", "1", "--record-trials", "1", "--record", str(path), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["review", str(path)]) == 2
    assert "a recording of a device's trials, not of a game" in capsys.readouterr().err
