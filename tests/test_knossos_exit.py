"""Knossos's exit, read both ways (rules note 8, issue 27): the default reading (`--exit-rule
past-apex`: the exit is one step beyond the apex, so a 2 from the safe space or a 3 from 10 exits)
and the strict one (`--exit-rule strict`: only a 1 from the apex itself). The rules, the solver, the
solved seat, the window's lit spaces, the replay config and the command line follow the option; the
default is what it was. Also the README's claim that the match value does not depend on who starts
the next game."""
from __future__ import annotations

import json
from fractions import Fraction
from functools import lru_cache

import pytest

from tabletop.cli import main
from tabletop.gamekit.chance import TableOutcomes
from tabletop.gamekit.errors import IllegalMoveError
from tabletop.gamekit.match import Match
from tabletop.gamekit.seats import RandomSeat
from tabletop.gamekit.registry import game_spec  # noqa: E402
DEFINITION = game_spec("knossos")
from tabletop.games.knossos import solve as S
from tabletop.games.knossos.ai import make_seat
from tabletop.games.knossos.codec import KnossosCodec
from tabletop.games.knossos.playout import Playouts
from tabletop.games.knossos.rules import (EXIT_RULES, OFF, PAST_APEX, START, STICK_LABELS, STRICT, ChanceOutcome,
                                          Game, Move)
from tabletop.sim.errors import InputError
from tabletop.sim.record import ReplayFile
from tabletop.sim.scene import RecordedScene

DEFAULT, STRICT_GAME = Game(), Game(exit_rule=STRICT)
APEX, AFTER_BRIDGE = DEFAULT.board.apex, DEFAULT.board.after_bridge


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path / "cache"))


@pytest.fixture(autouse=True, scope="module")
def _memory():
    """The solutions this module solves stay in the solver's memory for its own tests only (another
    module's test may expect to solve afresh and write its cache)."""
    saved = dict(S._SOLVED)
    yield
    S._SOLVED.clear()
    S._SOLVED.update(saved)


def thrown(game: Game, red: tuple[int, int], blue: tuple[int, int], label: str, player: int = 0):
    state = S.state_of(game, (red, blue, player))
    state.apply(ChanceOutcome(label))
    return state


# -- the rules ---------------------------------------------------------------------------------
def test_the_default_reading_is_unchanged():
    """Past the apex: a 1 from the apex, a 2 from the safe space, a 3 from 10 bear off."""
    assert DEFAULT.exit_rule == PAST_APEX and DEFINITION.check_options({})["exit_rule"] == PAST_APEX
    for p, track in enumerate(DEFAULT.board.tracks):
        reach = DEFAULT.reach[p]
        exits = {(pos, label) for pos in reach for label in STICK_LABELS if any(r.to == OFF for r in reach[pos][label])}
        assert exits == {(APEX, "1"), (track.safe, "2"), (AFTER_BRIDGE, "3")}


def test_strict_exits_only_from_the_apex_with_a_1():
    """Strict: bearing off is a 1 from the apex and nothing else; every other move is the default's."""
    for p in range(2):
        for pos, by_label in DEFAULT.reach[p].items():
            for label, reach in by_label.items():
                strict = STRICT_GAME.reach[p][pos][label]
                assert any(r.to == OFF for r in strict) == (pos == APEX and label == "1"), (p, pos, label)
                assert strict == tuple(r for r in reach if r.to != OFF or pos == APEX), (p, pos, label)


def test_strict_in_play_a_2_from_the_safe_space_cannot_bear_off():
    """Red on its safe space (12) and on 10, blue far behind: with a 2 the default bears off from 12;
    strict, the 2 must take the piece on 10 to the apex, and a 3 from 10 has no move at all (a pass
    and a throw again). From the apex a 1 bears off under both."""
    safe = DEFAULT.board.tracks[0].safe
    red, blue = (AFTER_BRIDGE, safe), (START, START)
    default, strict = thrown(DEFAULT, red, blue, "2"), thrown(STRICT_GAME, red, blue, "2")
    on_safe, on_ten = default.pos.index(safe), default.pos.index(AFTER_BRIDGE)
    assert Move(on_safe, OFF) in default.legal_actions()
    assert strict.legal_actions() == [Move(on_ten, APEX)]
    with pytest.raises(IllegalMoveError, match=r"strict exit a piece bears off only from the apex \(11\)"):
        strict.apply(Move(on_safe, OFF))
    three = thrown(STRICT_GAME, red, blue, "3")
    assert [str(a) for a in three.legal_actions()] == ["pass"]
    assert Move(on_ten, OFF) in thrown(DEFAULT, red, blue, "3").legal_actions()
    for game in (DEFAULT, STRICT_GAME):
        s = thrown(game, (OFF, APEX), blue, "1")
        s.apply(Move(s.pos.index(APEX), OFF))
        assert s.game_winners == [0]


def test_a_bad_exit_rule_is_refused():
    with pytest.raises(ValueError, match="exit_rule must be one of past-apex, strict"):
        Game(exit_rule="sideways")
    with pytest.raises(InputError, match="--exit-rule: unknown exit rule 'sideways'"):
        DEFINITION.make_game({"games_to_win": 3, "exit_rule": "sideways"})
    assert EXIT_RULES == (PAST_APEX, STRICT)


# -- the definition: config, replay, banner, window ----------------------------------------------
def test_a_default_config_is_recorded_as_before_and_strict_names_its_rule():
    """A default game's replay config is the config of before the option (no key), and a config
    without the key (every older replay) makes the default game; a strict one records its rule."""
    default = DEFINITION.replay_config(["ai", "ai"], "physics", DEFINITION.check_options({}))
    assert default == {"games_to_win": 3, "seats": ["ai", "ai"], "outcomes": "physics"}
    assert DEFINITION.make_game(default).exit_rule == PAST_APEX
    options = DEFINITION.check_options({"exit_rule": "strict"})
    strict = DEFINITION.replay_config(["ai", "ai"], "physics", options)
    assert strict == {**default, "exit_rule": STRICT} and DEFINITION.make_game(strict).exit_rule == STRICT
    assert DEFINITION.banner(["ai", "random"], 4, "physics", DEFINITION.check_options({})).startswith(
        "Knossos (Hillbom), first to 3, seats red=ai, blue=random")
    assert DEFINITION.banner(["ai", "random"], 4, "physics", options).startswith("Knossos (Hillbom, strict exit), ")


@pytest.mark.parametrize("rule", EXIT_RULES)
def test_the_window_lights_the_exit_the_rule_allows(rule):
    """The adapter's game is the option's: from the safe space with a 2 'off' is lit only by
    default; from the apex with a 1 under both."""
    adapter = DEFINITION.window_adapter(["human", "ai"], DEFINITION.check_options({"exit_rule": rule}),
                                        RecordedScene({}))
    assert adapter.game.exit_rule == rule
    safe = DEFAULT.board.tracks[0].safe
    state = adapter.new_state()
    for piece, at in zip((0, 1), (safe, AFTER_BRIDGE)):
        state.pos[piece] = at
    state.apply(ChanceOutcome("2"))
    lit = {d.text for d in adapter.destinations(state, 0)}
    assert lit == ({"off"} if rule == PAST_APEX else set())
    assert {d.text for d in adapter.destinations(state, 1)} == {str(APEX)}
    state = adapter.new_state()
    state.pos[0] = APEX
    state.apply(ChanceOutcome("1"))
    assert {d.text for d in adapter.destinations(state, 0)} == {"off"}
    assert any("strict" in line for line in adapter.help_lines) == (rule == STRICT)


def test_the_agents_catalogue_is_the_same_under_either_rule():
    """A move names its destination (any site or off), so the codec's 31 actions serve both."""
    assert KnossosCodec(STRICT_GAME).size == KnossosCodec(DEFAULT).size == 31


# -- the solver ----------------------------------------------------------------------------------
def test_the_strict_game_has_7290_positions_and_gives_the_first_player_0_510993():
    """The strict reading's graph (7,290 positions, against 7,352) and its single game with fair
    coins under perfect play (0.510993, against 0.518237 by default)."""
    strict, default = S.solve(S.FAIR, 1, exit_rule=STRICT), S.solve(S.FAIR, 1)
    assert len(strict.keys) == 7290 and len(default.keys) == 7352
    assert strict.exit_rule == STRICT and default.exit_rule == PAST_APEX
    assert strict.first_player_game == pytest.approx(0.510993, abs=1e-6)
    assert default.first_player_game == pytest.approx(0.518237, abs=1e-6)
    assert Playouts(S.FAIR, 1, STRICT).n == 7290


def test_a_strict_solution_is_cached_apart_and_round_trips(tmp_path):
    strict = S.solve(S.FAIR, 1, exit_rule=STRICT)
    assert S._cache_path(S.check_table(S.FAIR), 1, STRICT) != S._cache_path(S.check_table(S.FAIR), 1)
    strict.save(tmp_path / "s.npz")
    back = S.Solution.load(tmp_path / "s.npz")
    assert back.exit_rule == STRICT and back.first_player_game == strict.first_player_game
    with pytest.raises(InputError, match="exit rule must be one of"):
        S.solve(S.FAIR, 1, exit_rule="sideways")


def test_strict_with_no_ones_never_ends():
    """Strict, a table without 1s lets no piece leave the apex: no game ends, which solve refuses."""
    with pytest.raises(InputError, match="a game need not end"):
        S.solve({"1": 0.0, "2": 0.5, "3": 0.5}, 1, cache=False, exit_rule=STRICT)


@lru_cache(maxsize=None)
def race(q, n: int, next_starter: str, red_starts: bool = True, a: int = 0, b: int = 0):
    """Red's chance of winning a race to `n` games in which a game's starter wins it with
    probability `q`; red starts the first, and the next game is started by its loser, its winner,
    or each in turn (`next_starter`)."""
    if a == n or b == n:
        return q * 0 + (a == n)
    red = q if red_starts else 1 - q
    after = {"loser": (False, True), "winner": (True, False), "alternate": (not red_starts,) * 2}[next_starter]
    return (red * race(q, n, next_starter, after[0], a + 1, b)
            + (1 - red) * race(q, n, next_starter, after[1], a, b + 1))


def test_who_starts_the_next_game_does_not_change_the_match_value():
    """With exact fractions a race to n gives red the same chance whether the loser, the winner or
    each in turn starts the next game; and the solver's match values (both readings, the measured
    sticks and fair coins) are that race on its single-game value, to the solver's 1e-11. So the
    match's smaller first-player edge is not the loser's start of the next game (README)."""
    for q in (Fraction(518237, 1000000), Fraction(2, 3), Fraction(1, 7)):
        for n in range(1, 6):
            assert race(q, n, "loser") == race(q, n, "winner") == race(q, n, "alternate")
    for rule in EXIT_RULES:
        for table in (S.measured_table(), S.FAIR):
            sol = S.solve(table, 3, exit_rule=rule)
            assert sol.first_player_match == pytest.approx(race(sol.first_player_game, 3, "loser"), abs=1e-10)


# -- seats ---------------------------------------------------------------------------------------
def test_the_solved_seat_plays_the_strict_solution():
    """A solved seat in a strict match solves the strict rules (its every choice legal there) and
    beats random play over a few matches."""
    source = TableOutcomes({"sticks": dict(S.FAIR)})
    seat = make_seat("solved", source)
    wins = 0
    for seed in range(6):
        seats = [seat, RandomSeat()] if seed % 2 == 0 else [RandomSeat(), seat]
        final = Match(Game(games_to_win=1, exit_rule=STRICT).new_initial_state(), seats, source, seed,
                      max_turns=20000).play()
        wins += final.winner == seed % 2
    assert set(seat._solved) == {(1, STRICT)} and seat._solved[(1, STRICT)].exit_rule == STRICT
    assert wins >= 4


# -- the command line ----------------------------------------------------------------------------
def test_analyze_solve_with_the_strict_exit(tmp_path, capsys):
    """`tabletop analyze knossos --solve --exit-rule strict`: the measured sticks' and fair coins'
    values of the strict reading, named as such, in print and in --out."""
    out = tmp_path / "s.json"
    assert main(["analyze", "knossos", "--solve", "--exit-rule", "strict", "--out", str(out)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2 and all("(exit rule strict: a piece exits only from the apex, with a 1)" in x
                                   for x in lines)
    assert lines[0].startswith("sticks ") and lines[1].startswith("fair ")
    assert "with probability 0.504124 (a single game: 0.510993); 7290 positions" in lines[1]
    result = json.loads(out.read_text())
    assert result["exit_rule"] == STRICT
    assert result["solve"]["fair"]["first_player_game"] == pytest.approx(0.510993, abs=1e-6)
    assert result["solve"]["sticks"]["positions"] == 7290
    assert main(["analyze", "knossos", "--solve", "--outcomes", "fair"]) == 0
    default = capsys.readouterr().out
    assert "exit rule" not in default and "0.506845 (a single game: 0.518237); 7352 positions" in default


@pytest.mark.parametrize("args,message", [
    (["play", "knossos", "--headless", "--exit-rule", "sideways"], "--exit-rule: unknown exit rule 'sideways'"),
    (["play", "king-kong", "--headless", "--exit-rule", "strict"], "--exit-rule: only for knossos"),
    (["analyze", "king-of-the-hill", "--solve", "--exit-rule", "strict"], "--exit-rule: only for knossos"),
])
def test_bad_exit_rules_on_the_command_line(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def _play_and_verify(tmp_path, capsys, *args):
    path = tmp_path / "m.ttr"
    assert main(["play", "knossos", "--headless", "--seats", "solved,ai", "--seed", "3", "--games-to-win", "1",
                 "--exit-rule", "strict", "--record", str(path), *args]) == 0
    log = capsys.readouterr().out
    assert log.startswith("Knossos (Hillbom, strict exit), first to 1")
    bear_offs = [line for line in log.splitlines() if " bears off " in line]
    assert bear_offs and all("bears off with 1 from space 11 (the apex)" in line for line in bear_offs)
    assert ReplayFile.open(path).header["config"]["exit_rule"] == STRICT
    assert main(["replay", str(path), "--verify"]) == 0
    assert "verified" in capsys.readouterr().out
    return path


def test_a_strict_game_from_the_measured_table_records_and_verifies(tmp_path, capsys):
    _play_and_verify(tmp_path, capsys, "--outcomes", "measured")


@pytest.mark.slow
def test_a_strict_game_with_the_physical_sticks_records_and_verifies(tmp_path, capsys):
    """Every throw simulated (a game of about 35 throws: 3 s, and 3 s to verify)."""
    _play_and_verify(tmp_path, capsys)
