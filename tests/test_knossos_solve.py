"""The solved Knossos match (games/knossos/solve.py) checked against hand-computed values and against
the readable rules themselves: every value is the best of what the rules' legal actions lead to."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop.gamekit.chance import TableOutcomes
from tabletop.games.knossos import solve as S
from tabletop.games.knossos.ai import SEATS, make_seat
from tabletop.games.knossos.rules import OFF, START, STICK_LABELS, ChanceOutcome, Game, Move
from tabletop.gamekit.match import Match
from tabletop.gamekit.seats import RandomSeat
from tabletop.sim.errors import InputError

STICKS = S.measured_table()
NO_ONES = {"1": 0.0, "2": 0.35, "3": 0.65}     # no 1s: from 10 a 3 exits, a 2 ends on the apex for good


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path / "cache"))


def test_a_position_one_throw_from_the_end_has_its_hand_computed_value():
    """Red: one piece off, one on 10; blue: one off, one on its safe space 13; one game. Red throws:
    a 3 bears off and wins; a 2 (the only other throw here) must take the piece to the apex, from
    which only a 1 exits, so red can never move again while blue's 2 bears off (its 3s are thrown
    again). Red's value is p3 = 0.65; blue to throw there, blue wins for sure."""
    sol = S.solve(NO_ONES, games_to_win=1, cache=False)
    game = Game(games_to_win=1)
    red_throws = S.state_of(game, ((OFF, 10), (OFF, 13), 0))
    assert sol.value(red_throws, 0) == pytest.approx(0.65, abs=1e-11)
    assert sol.value(red_throws, 1) == pytest.approx(0.35, abs=1e-11)
    assert sol.value(S.state_of(game, ((OFF, 10), (OFF, 13), 1)), 0) == pytest.approx(0.0, abs=1e-11)
    red_throws.apply(ChanceOutcome("3"))
    assert sol.value(red_throws) == 1.0
    assert sol.best_action(red_throws) == Move(red_throws.pos.index(10), OFF)


def test_values_are_probabilities_and_both_players_sum_to_one():
    """Each player's single-game chances are solved on their own (each maximising its own): they sum
    to 1 (every game ends) at every position, among them the last throws of a game."""
    sol = S.solve(S.FAIR)
    for values in (sol.throw_values, sol.move_values, sol.game_values):
        assert values.min() >= 0.0 and values.max() <= 1.0
    np.testing.assert_allclose(sol.game_values.sum(axis=0), 1.0, atol=1e-9)
    s = S.state_of(Game(), ((OFF, 11), (OFF, 13), 1), score=(2, 2))
    s.apply(ChanceOutcome("1"))          # blue takes red on the apex, or ...
    assert sol.value(s, 0) + sol.value(s, 1) == pytest.approx(1.0)
    s2 = S.state_of(Game(), ((OFF, 11), (OFF, 13), 1), score=(2, 2))
    s2.apply(ChanceOutcome("2"))         # ... bears off and wins the match
    assert sol.value(s2, 1) == 1.0 and sol.value(s2, 0) == 0.0


def test_a_won_game_is_worth_the_match_value_of_the_next_game():
    """Red bearing off its last piece at 0-0 is worth red's value at the start of game 2 (1-0, blue
    to throw: the loser starts); at 2-x it wins the match."""
    sol, game = S.solve(S.FAIR), Game()
    for score, expected in (((0, 0), sol.value(S.state_of(game, ((START, START), (START, START), 1), (1, 0)), 0)),
                            ((2, 1), 1.0)):
        s = S.state_of(game, ((OFF, 11), (START, START), 0), score)
        s.apply(ChanceOutcome("1"))
        assert sol.value(s, 0) == pytest.approx(expected, abs=1e-12)
    assert 0.5 < sol.first_player_match < 1.0


def _check_bellman(sol, state, p):
    """The state's value is what the rules' actions (or throws) lead to, valued by the solution (each
    action applied to a fresh State of the same position, which a long match's history does not slow)."""
    def after(action):
        t = S.state_of(state.game, S.key_of(state), state.score)
        if state.throw is not None:
            t.apply(ChanceOutcome(state.throw))
            action = next(a for a in t.legal_actions() if S.move_code(t, a) == S.move_code(state, action))
        t.apply(action)
        return sol.value(t, 0)

    if state.is_chance_node():
        assert sol.value(state, 0) == pytest.approx(sum(p[lab] * after(ChanceOutcome(lab)) for lab in STICK_LABELS),
                                                    abs=1e-10)
        return
    legal = state.legal_actions()
    best = sol.best_action(state)
    assert best in legal
    values = [after(a) for a in legal]
    target = max(values) if state.current == 0 else min(values)
    assert after(best) == pytest.approx(target, abs=1e-12)
    assert sol.value(state, 0) == pytest.approx(target, abs=1e-12)


def test_the_policy_is_legal_and_best_over_random_playouts():
    """Random matches driven by the rules: at every throw and decision the solution agrees with the
    values of what the legal actions lead to, and its move is among them."""
    sol = S.solve(STICKS)
    source = TableOutcomes({"sticks": STICKS})
    for seed in range(4):
        match = Match(Game().new_initial_state(), [RandomSeat(), RandomSeat()], source, seed)
        while not match.is_over():
            _check_bellman(sol, match.state, sol.table)
            match.step()


def test_solved_beats_random():
    """Over 200 matches (each side first in half) the solved seat wins well over half; an inverted
    policy would lose most."""
    from tabletop.games.knossos.ai import head_to_head

    r = head_to_head("solved", "random", STICKS, 200)
    assert r["ci95"][0] > 0.6


def test_save_and_load_round_trip(tmp_path):
    sol = S.solve(S.FAIR)
    path = tmp_path / "fair.npz"
    sol.save(path)
    back = S.Solution.load(path)
    assert back.table == sol.table and back.games_to_win == 3 and back.keys == sol.keys
    for name in ("throw_values", "move_values", "choice", "game_values"):
        np.testing.assert_array_equal(getattr(back, name), getattr(sol, name))
    assert back.first_player_match == sol.first_player_match
    (tmp_path / "bad.npz").write_bytes(b"not a solution")
    with pytest.raises(InputError, match="not a Knossos solution"):
        S.Solution.load(tmp_path / "bad.npz")


def test_the_cache_gives_the_same_solution(tmp_path):
    first = S.solve(S.FAIR, games_to_win=1)
    assert list((tmp_path / "cache" / "knossos-solve").glob("*.npz"))
    S._SOLVED.clear()
    again = S.solve(S.FAIR, games_to_win=1)
    assert again is not first and again.first_player_match == first.first_player_match


def test_a_changed_table_changes_the_value():
    sticks, fair = S.solve(STICKS), S.solve(S.FAIR)
    assert abs(sticks.first_player_match - fair.first_player_match) > 1e-4
    assert abs(sticks.first_player_game - fair.first_player_game) > 1e-4
    report = S.solve_report({"sticks": STICKS, "fair": S.FAIR})
    assert report["fair"]["first_player_match"] == fair.first_player_match
    assert report["sticks"]["first_player_game"] == sticks.first_player_game


@pytest.mark.parametrize("table, message", [
    ({"1": 0.5, "2": 0.5}, "exactly the labels"),
    ({"1": 0.5, "2": 0.5, "3": 0.0}, "no chance of a 3"),
    ({"1": -1, "2": 0.5, "3": 0.5}, "non-negative"),
    ({"1": "x", "2": 0.5, "3": 0.5}, "numbers"),
])
def test_bad_tables_are_input_errors(table, message):
    with pytest.raises(InputError, match=message):
        S.solve(table)


def test_the_solved_seat_solves_for_the_table_chance_comes_from():
    assert "solved" in SEATS
    seat = make_seat("solved", TableOutcomes({"sticks": S.FAIR}))
    assert seat.table == S.FAIR
    assert make_seat("solved").table is None          # the measured table, found at its first move
