"""`tabletop analyze`: whole games with table chance, their figures, seeds, resume, compare, bad input."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from tabletop.gamekit.analyze import GameTask, game_seed, resolve_outcomes
from tabletop.gamekit.registry import GAMES
from tabletop.cli import main
from tabletop.gamekit.match import Match
from tabletop.sim.checkpoint import Checkpoint, checkpoint_path
from tabletop.sim.stats import mean_difference_interval, newcombe_interval

KNOSSOS = ["analyze", "knossos", "--seats", "random,random", "--outcomes", "fair", "--quiet"]
HILL = ["analyze", "king-of-the-hill", "--seats", "ai,random", "--quiet"]


def run(tmp_path, args, name="out.json") -> dict:
    out = tmp_path / name
    assert main([*args, "--out", str(out)]) == 0
    return json.loads(out.read_text())


def test_the_json_has_every_figure(tmp_path):
    """Every seat's win rate, the first player's rate and advantage, the length's mean and quantiles,
    the sticks' 3s: each with a value inside its 95% interval; the win rates of the one-winner game
    sum to 1, and red (who starts the match) is the first player of every match."""
    result = run(tmp_path, [*KNOSSOS, "--games", "60", "--seed", "5", "--plot", str(tmp_path / "k.png")])
    figures = result["figures"]
    expected = {"win_rate.red", "win_rate.blue", "moved_first.red", "moved_first.blue", "first_player.win_rate",
                "first_player.advantage", "throws.mean", "games.mean", "sticks.threes.per_match",
                "game_starter.win_rate", "sticks.three_share"}
    expected |= {f"{name}.q{q:02d}" for name in ("throws", "games") for q in (5, 25, 50, 75, 95)}
    assert expected <= set(figures)
    for key, f in figures.items():
        lo, hi = f["ci95"]
        assert lo <= hi, key
        if f["method"] != "bootstrap":
            assert lo - 1e-12 <= f["value"] <= hi + 1e-12, key
    assert result["games"] == 60 and result["unit"] == "match"
    assert math.isclose(figures["win_rate.red"]["value"] + figures["win_rate.blue"]["value"], 1.0)
    assert figures["moved_first.red"]["value"] == 1.0
    assert figures["first_player.win_rate"]["value"] == figures["win_rate.red"]["value"]
    assert math.isclose(figures["first_player.advantage"]["value"], figures["win_rate.red"]["value"] - 0.5)
    assert (tmp_path / "k.png").stat().st_size > 10_000
    assert not checkpoint_path(tmp_path / "out.json").exists()


@pytest.mark.parametrize("outcomes, p_three", [("fair", 0.25), ("measured", None)])
def test_the_share_of_threes_is_the_sources(tmp_path, outcomes, p_three):
    """Over thousands of throws the share of 3s the observer counts lies near the source's own p(3):
    1/4 for two fair sticks, the measured sticks' p (0.183) for the default source."""
    if p_three is None:
        a = GAMES["knossos"].analysis()
        kind, files = resolve_outcomes(a, "measured")
        p_three = json.loads(Path(files[0]).read_text())["probabilities"]["3"]["p"]
    args = ["analyze", "knossos", "--seats", "random,random", "--outcomes", outcomes, "--quiet"]
    share = run(tmp_path, [*args, "--games", "80", "--seed", "2"])["figures"]["sticks.three_share"]
    assert share["n"] > 8000
    assert share["ci95"][0] <= p_three <= share["ci95"][1]


def test_figures_match_the_games_replayed():
    """A game's record says what the game did: its length and winner are those of the same game
    played again from its seed, and its crater knocks and Js those its log tells."""
    analysis = GAMES["king-of-the-hill"].analysis()
    sources = (resolve_outcomes(analysis, "measured"),)
    task = GameTask(GAMES["king-of-the-hill"], ("ai", "ai", "ai"), sources, {"variant": "standard"})
    records = task(7, range(12))
    assert sum(r["counts"]["crater.knocks"] for r in records) > 0
    for r in records:
        state = task.game.new_initial_state()
        Match(state, task.seats[id(task.sources[0])], task.sources[0], game_seed(7, r["index"])).play()
        assert r["lengths"]["turns"] == state.turn and r["winners"] == [state.winner]
        assert r["counts"]["crater.knocks"] == sum("into the crater" in e for e in state.events)
        assert r["counts"]["tipper.j"] == sum(e.startswith("turn ") and e.endswith(" tilts J") for e in state.events)
        first = next(e for e in state.events if e.endswith("goes first; play passes to the left"))
        assert first.startswith(("red", "blue", "green")[r["first"]])
        assert len(r["samples"]["crater.spaces"]) == r["counts"]["crater.knocks"]


def test_king_kong_counts_kongs_climbs_and_wins(tmp_path):
    """Kong's climbs are his moves, his notches at most the top; a game Kong won has no seat winning."""
    result = run(tmp_path, ["analyze", "king-kong", "--seats", "ai,ai", "--games", "12", "--seed", "1", "--quiet"])
    f = result["figures"]
    seats = f["win_rate.red"]["value"] + f["win_rate.blue"]["value"]
    assert seats + f["win_rate.kong"]["value"] >= 1.0 - 1e-12
    if f["shared_victory"]["value"] == 0:
        assert math.isclose(seats + f["win_rate.kong"]["value"], 1.0)
    assert f["kong.climbs.per_game"]["value"] >= 1
    assert f["kong.notches.per_game"]["value"] >= f["kong.climbs.per_game"]["value"]


def test_same_seed_same_result_with_one_or_two_workers(tmp_path):
    args = [*HILL, "--games", "24", "--seed", "3"]
    one = run(tmp_path, [*args, "--workers", "1"], "one.json")
    two = run(tmp_path, [*args, "--workers", "2"], "two.json")
    assert one["figures"] == two["figures"]


def test_resume_continues_a_checkpoint_and_equals_one_run(tmp_path, monkeypatch, capsys):
    """Ctrl-C after the first chunk keeps it (one line, exit 130); --resume plays only the rest."""
    args = [*KNOSSOS, "--games", "40", "--seed", "9"]
    whole = run(tmp_path, args, "whole.json")
    out = tmp_path / "part.json"
    append = Checkpoint.append

    def interrupt(self, records):
        append(self, records)
        raise KeyboardInterrupt

    monkeypatch.setattr(Checkpoint, "append", interrupt)
    capsys.readouterr()
    assert main([*args, "--out", str(out)]) == 130
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--resume" in err
    kept = len(Checkpoint.resume(checkpoint_path(out), json.loads(
        checkpoint_path(out).read_text().splitlines()[0])).records)
    assert 0 < kept < 40 and not out.exists()
    monkeypatch.setattr(Checkpoint, "append", append)
    assert main([*args, "--out", str(out), "--resume"]) == 0
    assert f"resuming: {kept} games" in capsys.readouterr().err
    assert json.loads(out.read_text())["figures"] == whole["figures"]


def test_compare_fair_reports_every_difference(tmp_path):
    """The measured Tipper gives small numbers more often than 1/7 each, so games are longer than
    with fair chance: the difference in mean turns is positive beyond its interval."""
    result = run(tmp_path, [*HILL, "--games", "60", "--seed", "4", "--compare", "fair"])
    compare = result["compare"]
    assert compare["against"] == "fair" and compare["games"] == 60
    assert set(compare["differences"]) == set(result["figures"]) == set(compare["figures"])
    for key in ("win_rate.red", "turns.mean", "crater.knocks.per_game"):
        d = compare["differences"][key]
        assert math.isclose(d["value"], result["figures"][key]["value"] - compare["figures"][key]["value"])
    assert compare["differences"]["turns.mean"]["ci95"][0] > 0
    assert compare["differences"]["win_rate.red"]["method"] == "newcombe"


def test_interval_methods():
    """Newcombe's worked example (1998, method 10): 56/70 vs 48/80 gives [0.0524, 0.3339]."""
    lo, hi = newcombe_interval(56, 70, 48, 80)
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)
    d, (a, b) = mean_difference_interval([1.0, 2.0, 3.0, 4.0], [1.0, 1.0, 2.0, 2.0])
    assert d == 1.0 and math.isclose(b - d, d - a)
    assert math.isclose(b - d, 1.959963984540054 * math.sqrt((5 / 3) / 4 + (1 / 3) / 4))


@pytest.mark.parametrize("extra, message", [
    (["analyze", "chess"], "unknown game"),
    (["analyze", "knossos", "--seats", "ai,wizard"], "unknown seat kind 'wizard'"),
    (["analyze", "knossos", "--seats", "ai"], "exactly 2 seats"),
    (["analyze", "king-of-the-hill", "--seats", "human,ai"], "unknown seat kind 'human'"),
    (["analyze", "knossos", "--outcomes", "physics"], "analyze simulates no physics"),
    (["analyze", "knossos", "--outcomes", "table:/nonexistent/sticks.json"], "not found"),
    (["analyze", "king-of-the-hill", "--outcomes", "table:assets/measured/sticks-10k-seed1.json"],
     "does not answer King of the Hill"),
    (["analyze", "king-of-the-hill", "--outcomes", "table:assets/measured/tipper-10k-seed1.json"],
     "missing: crater"),
    (["analyze", "knossos", "--outcomes", "fair", "--compare", "fair"], "already"),
    (["analyze", "knossos", "--compare", "uniform"], "invalid choice"),
    (["analyze", "knossos", "--out", "/proc/x.json"], "--out /proc/x.json"),
    (["analyze", "knossos", "--plot", "/nonexistent/dir/x.png"], "--plot"),
    (["analyze", "knossos", "--resume"], "--resume needs --out"),
    (["analyze", "knossos", "--games", "0"], "--games"),
    (["analyze", "king-kong", "--games-to-win", "2"], "only for knossos"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, monkeypatch, tmp_path, extra, message):
    monkeypatch.chdir(Path(__file__).parents[1])
    assert main([*extra, "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("tabletop: error:") and message in err, err


def test_solve_prints_perfect_play_for_the_sticks_and_fair_coins_and_saves_the_policy(tmp_path, capsys):
    from tabletop.games.knossos.solve import FAIR, Solution, solve

    out, policy = tmp_path / "solve.json", tmp_path / "policy.npz"
    assert main(["analyze", "knossos", "--solve", "--out", str(out), "--policy", str(policy)]) == 0
    printed = capsys.readouterr().out.splitlines()
    result = json.loads(out.read_text())["solve"]
    assert list(result) == ["sticks", "fair"] and len(printed) == 3
    fair = solve(dict(FAIR))
    assert result["fair"]["first_player_match"] == pytest.approx(fair.first_player_match, abs=1e-12)
    assert 0.5 < result["sticks"]["first_player_match"] < 0.52 and f"{fair.first_player_match:.6f}" in printed[1]
    assert Solution.load(policy).first_player_match == pytest.approx(result["sticks"]["first_player_match"])


@pytest.mark.parametrize("argv,message", [
    (["analyze", "king-kong", "--solve"], "only king-of-the-hill, knossos"),
    (["analyze", "knossos", "--policy", "p.npz"], "--policy: only with --solve"),
    (["analyze", "knossos", "--solve", "--compare", "fair"], "drop --compare"),
    (["analyze", "knossos", "--solve", "--out", "/proc/x.json"], "--out"),
])
def test_bad_solve_options_are_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


# -- what analyze takes from the definition -------------------------------------------------------

def _bare(definition):
    """`definition` as a game that gives no analysis and no fair chance (the contract's defaults)."""
    from tabletop.gamekit.definition import GameDefinition

    class Bare(type(definition)):
        analysis = GameDefinition.analysis
        fair_tables = GameDefinition.fair_tables

    return Bare()


@pytest.mark.parametrize("name", GAMES.names())
def test_a_game_without_an_analysis_is_analysed_for_what_every_game_has(name):
    """The generic analysis: the winners by the rules' returns, the seat of the first decision, the
    turns, decisions and chance events, on the game the definition makes with the seats it makes."""
    definition = GAMES[name]
    bare = _bare(definition)
    seats = (next(k for k in definition.seat_kinds if k != "human"),) * definition.seats[0]
    task = GameTask(bare, seats, (resolve_outcomes(bare.analysis(), "measured"),), definition.check_options({}))
    for r in task(3, range(2)):
        state = task.game.new_initial_state()
        Match(state, task.seats[id(task.sources[0])], task.sources[0], game_seed(3, r["index"]),
              max_turns=definition.max_turns).play()
        chances = sum(type(a).__name__ == "ChanceOutcome" for a in state.history)
        assert r["winners"] == [p for p, v in enumerate(state.returns()) if v > 0]
        assert r["lengths"] == {"turns": state.turn, "decisions": len(state.history) - chances,
                                "chance_events": chances}
        assert r["first"] is None or 0 <= r["first"] < len(seats)


@pytest.mark.parametrize("name", GAMES.names())
def test_fair_chance_comes_from_the_definition_or_is_one_line(name):
    """`--outcomes fair` draws every fair table the definition gives; a game with none says so."""
    from tabletop.gamekit.analyze import fair_source
    from tabletop.gamekit.chance import table_dicts
    from tabletop.gamekit.definition import GameError

    definition = GAMES[name]
    try:
        tables = definition.fair_tables()
    except GameError as exc:
        assert str(exc).count("\n") == 0 and "has no fair chance" in str(exc)
        return
    drawn = table_dicts(fair_source(definition))
    for event, table in tables.items():
        assert drawn[event] == pytest.approx({k: v / sum(table.values()) for k, v in table.items()})
    with pytest.raises(GameError, match="has no fair chance"):
        fair_source(_bare(definition))
