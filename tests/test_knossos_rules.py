"""Knossos Game rules (Hillbom), table-driven: every rule of the rulebook and every resolved ambiguity.

Pieces 0, 1 are red's (entering from the wing 6-7, safe space 12), 2, 3 blue's (wing 8-9, safe 13).
"""
from __future__ import annotations

import re

import pytest

from tabletop.gamekit.errors import IllegalMoveError
from tabletop.games.knossos.board import load_board
from tabletop.games.knossos.rules import (CHANCE, OFF, START, TERMINAL, ChanceOutcome, Game, Move, Pass, Phase,
                                 State)
from tabletop.sim.errors import SpecError

BOARD = load_board()
GAME = Game(board=BOARD)
AFTER_BRIDGE, APEX = BOARD.after_bridge, BOARD.apex


def position(pos=None, current=0, throw="2", game=GAME) -> State:
    """A state in the MOVE phase with pieces where `pos` says ({piece: position}); the rest at the start."""
    s = game.new_initial_state()
    for piece, at in (pos or {}).items():
        s.pos[piece] = at
    s.phase, s.current, s.throw = Phase.MOVE, current, throw
    return s


def destinations(s: State, piece: int) -> set[int]:
    return {a.to for a in s.legal_actions() if isinstance(a, Move) and a.piece == piece}


# -- the board: Ludii's site graph -------------------------------------------------------------
def test_tracks_follow_the_ludii_board():
    assert BOARD.central == {1, 2, 4, 5} and BOARD.bridge_from == {4, 5}
    assert (AFTER_BRIDGE, APEX) == (10, 11)
    red, blue = BOARD.tracks
    assert red.wing == (6, 7) and red.safe == 12 and blue.wing == (8, 9) and blue.safe == 13
    assert red.routes == ((6, 7, 0, 1, 4, 10, 12, 11), (6, 7, 0, 1, 2, 5, 10, 12, 11))
    assert blue.routes == ((8, 9, 3, 2, 5, 10, 13, 11), (8, 9, 3, 2, 1, 4, 10, 13, 11))
    # the players meet only in the central four, after the bridge and on the apex
    assert red.sites & blue.sites == {1, 2, 4, 5, 10, 11}


def test_sites_lie_on_the_museum_board():
    assert BOARD.size == (0.553, 0.965)
    xs, ys = zip(*BOARD.positions)
    assert max(map(abs, xs)) < 0.553 / 2 and max(map(abs, ys)) < 0.965 / 2
    assert max(ys) - min(ys) > 0.8 * 0.965 and max(xs) - min(xs) > 0.6 * 0.553   # spread over the board
    for track in BOARD.tracks:      # the wings run up to the row, the apex is the far end
        assert BOARD.positions[track.wing[0]][1] < BOARD.positions[track.wing[-1]][1] < BOARD.positions[1][1]
    assert BOARD.positions[APEX][1] == max(ys)


# -- the sticks --------------------------------------------------------------------------------
def test_every_move_starts_with_a_throw_of_the_sticks():
    s = GAME.new_initial_state()
    assert s.current_player == CHANCE and s.is_chance_node()
    assert s.chance_event == "sticks" and s.chance_outcomes() == ("1", "2", "3") and s.chance_player == 0
    s.apply(ChanceOutcome("2"))
    assert s.phase is Phase.MOVE and s.current_player == 0 and s.throw == "2"
    assert "red throws 2 (one flat side and one round side)" in s.events


# -- entering ----------------------------------------------------------------------------------
@pytest.mark.parametrize("current,throw,dest", [
    (0, "1", 6), (0, "2", 7), (0, "3", 0),
    (1, "1", 8), (1, "2", 9), (1, "3", 3),
])
def test_pieces_enter_from_the_end_of_their_wing(current, throw, dest):
    s = position(current=current, throw=throw)
    piece = 2 * current
    assert s.legal_actions() == [Move(piece, dest)]   # the two pieces at the start are one choice
    s.apply(Move(piece, dest))
    assert s.pos[piece] == dest


def test_a_player_chooses_between_entering_and_moving():
    s = position({0: 7}, throw="1")
    assert set(s.legal_actions()) == {Move(0, 0), Move(1, 6)}


# -- the direction rule in the central four -------------------------------------------------------
@pytest.mark.parametrize("current,piece,at,throw,dests", [
    (0, 0, 1, "1", {4, 2}),       # red on its first central space: turn upward, or go on to the second
    (0, 0, 0, "2", {4, 2}),
    (0, 0, 7, "3", {4, 2}),
    (0, 0, 2, "1", {5}),          # on the second it must turn upward now
    (0, 0, 1, "2", {5}),          # 1 -> 4 -> bridge needs a 3, so only along the row and up
    (0, 0, 4, "1", set()),        # upward: the bridge is the only way on
    (0, 0, 5, "2", set()),
    (1, 2, 2, "1", {5, 1}),       # blue's first central space is 2
    (1, 2, 3, "2", {5, 1}),
    (1, 2, 1, "1", {4}),
    (1, 2, 1, "2", set()),
])
def test_turn_upward_on_the_first_or_second_central_space_only(current, piece, at, throw, dests):
    s = position({piece: at}, current=current, throw=throw)
    assert destinations(s, piece) == dests


@pytest.mark.parametrize("at,to,throw,match", [
    (2, 1, "1", "never changes direction again: from space 2 it goes on only to space 5"),
    (4, 5, "1", "never changes direction again"),
    (5, 4, "1", "never changes direction again"),
    (2, 3, "1", "space 3 is not on red's track"),
    (4, 1, "1", "never changes direction again"),
    (2, 0, "2", "pieces only move forward"),
])
def test_changing_direction_again_is_illegal(at, to, throw, match):
    s = position({0: at, 1: 7}, throw=throw)
    with pytest.raises(IllegalMoveError, match=match):
        s.apply(Move(0, to))


# -- the bridge --------------------------------------------------------------------------------
@pytest.mark.parametrize("at,dests,left", [
    (0, {10, 5}, 0),      # 0 -> 1 -> 4 -> 10 exactly, or along the row to 5
    (1, {10}, 1),         # via 4 (or 2 and 5): either way the crossing stops on 10
    (2, {10}, 1),
    (4, {10}, 2),
    (5, {10}, 2),
])
def test_a_three_crosses_the_bridge_and_always_stops_after_it(at, dests, left):
    s = position({0: at}, throw="3")
    assert destinations(s, 0) == dests
    s.apply(Move(0, AFTER_BRIDGE))
    assert s.pos[0] == AFTER_BRIDGE
    assert "across the bridge" in s.events[-1]
    assert (f"with {left} left over" in s.events[-1]) is (left > 0)


@pytest.mark.parametrize("at,throw", [(4, "1"), (4, "2"), (5, "1"), (5, "2")])
def test_the_bridge_needs_a_three(at, throw):
    s = position({0: at}, throw=throw)
    assert destinations(s, 0) == set()
    with pytest.raises(IllegalMoveError, match="crossing the bridge needs a throw of 3"):
        s.apply(Move(0, AFTER_BRIDGE))


def test_a_three_short_of_the_bridge_is_an_ordinary_move():
    s = position({0: 6}, throw="3")
    assert destinations(s, 0) == {1}


@pytest.mark.parametrize("occupant,match", [
    (2, "blue-1 stands on space 10 after the bridge, where no piece is taken, so the bridge is closed"),
    (1, "space 10 is held by red-2"),
])
def test_no_piece_is_taken_after_the_bridge_so_an_occupied_space_closes_it(occupant, match):
    s = position({0: 4, occupant: AFTER_BRIDGE}, throw="3")
    assert AFTER_BRIDGE not in destinations(s, 0)
    with pytest.raises(IllegalMoveError, match=match):
        s.apply(Move(0, AFTER_BRIDGE))


# -- after the bridge: the safe space, the apex, the exit ----------------------------------------
@pytest.mark.parametrize("current,at,throw,dest", [
    (0, 10, "1", 12), (0, 10, "2", 11), (0, 10, "3", OFF),
    (0, 12, "1", 11), (0, 12, "2", OFF), (0, 12, "3", None),
    (0, 11, "1", OFF), (0, 11, "2", None), (0, 11, "3", None),
    (1, 10, "1", 13), (1, 13, "2", OFF), (1, 11, "1", OFF),
])
def test_safe_space_then_apex_then_exit_by_the_exact_throw(current, at, throw, dest):
    piece = 2 * current
    s = position({piece: at, piece + 1: 7 if current == 0 else 9}, current=current, throw=throw)
    assert destinations(s, piece) == ({dest} if dest is not None else set())
    if dest is None:
        with pytest.raises(IllegalMoveError, match="bearing off needs an exact throw"):
            s.apply(Move(piece, OFF))


def test_the_safe_space_is_out_of_the_opponents_reach():
    red_safe, blue_safe = (t.safe for t in BOARD.tracks)
    for player, other_safe in ((0, blue_safe), (1, red_safe)):
        for table in GAME.reach[player].values():
            assert all(r.to != other_safe for reaches in table.values() for r in reaches)
    s = position({2: 10, 0: red_safe}, current=1, throw="1")
    assert destinations(s, 2) == {blue_safe}


def test_own_piece_on_the_safe_space_blocks_landing_there():
    s = position({0: 10, 1: 12}, throw="1")
    assert destinations(s, 0) == set()
    with pytest.raises(IllegalMoveError, match="space 12 is held by red-2"):
        s.apply(Move(0, 12))


# -- taking ------------------------------------------------------------------------------------
@pytest.mark.parametrize("at,throw,target", [
    (0, "1", 1), (0, "2", 2), (0, "2", 4), (1, "2", 5),    # each of the central four
    (10, "2", APEX), (12, "1", APEX),                      # the apex
])
def test_landing_on_an_opponent_in_the_central_four_or_on_the_apex_takes_it(at, throw, target):
    s = position({0: at, 1: 6, 2: target, 3: 9}, throw=throw)
    s.apply(Move(0, target))
    assert s.pos[0] == target and s.pos[2] == START
    assert "takes blue-1, which goes back to the start" in s.events[-1]


def test_a_taken_piece_enters_again_from_its_wing():
    s = position({0: 0, 2: 1, 3: 9}, throw="1")
    s.apply(Move(0, 1))
    s.apply(ChanceOutcome("1"))
    assert s.current == 1 and destinations(s, 2) == {8}     # blue-1 is back at the start


def test_pieces_pass_over_others_and_only_the_landing_space_counts():
    s = position({0: 0, 2: 1, 3: 2}, throw="2")
    s.apply(Move(0, 4))
    assert s.pos == [4, START, 1, 2]


def test_a_player_never_lands_on_its_own_piece():
    s = position({0: 0, 1: 1}, throw="1")
    assert destinations(s, 0) == set()
    with pytest.raises(IllegalMoveError, match="space 1 is held by red-2"):
        s.apply(Move(0, 1))


# -- the extra throw and passing ---------------------------------------------------------------
@pytest.mark.parametrize("throw,next_player", [("1", 1), ("2", 1), ("3", 0)])
def test_a_three_throws_again(throw, next_player):
    s = position({0: 6}, throw=throw)
    s.apply(s.legal_actions()[0])
    assert s.phase is Phase.THROW and s.current == next_player


@pytest.mark.parametrize("throw,next_player,text", [
    ("1", 1, "red cannot use the 1 and passes"),
    ("3", 0, "red cannot use the 3 and throws again"),
])
def test_pass_only_without_a_legal_move_and_a_three_still_throws_again(throw, next_player, text):
    s = position({0: 4, 1: 5, 2: 10}, throw=throw)      # a 1 cannot cross; blue on 10 closes the bridge
    assert s.legal_actions() == [Pass()]
    s.apply(Pass())
    assert s.phase is Phase.THROW and s.current == next_player and s.events[-1] == text


def test_passing_is_not_allowed_when_a_move_exists():
    s = position({0: 6}, throw="1")
    with pytest.raises(IllegalMoveError, match="pass: a legal move exists"):
        s.apply(Pass())


# -- winning a game, and the match ---------------------------------------------------------------
def test_bearing_off_both_pieces_wins_the_game_and_the_loser_starts_the_next():
    s = position({0: OFF, 1: 11, 2: 5, 3: 9}, throw="1")
    s.apply(Move(1, OFF))
    assert s.score == [1, 0] and s.game_winners == [0] and not s.is_terminal()
    assert s.game_number == 2 and s.pos == [START] * 4
    assert s.phase is Phase.THROW and s.current == 1
    assert s.events[-2:] == ["red wins game 1 (match: red 1, blue 0)", "game 2: blue starts"]


def test_a_winning_three_ends_the_game_without_the_extra_throw():
    s = position({0: OFF, 1: 10}, throw="3")
    s.apply(Move(1, OFF))
    assert s.game_number == 2 and s.current == 1 and s.phase is Phase.THROW


def test_the_third_game_won_wins_the_match():
    s = position({0: OFF, 1: 12, 2: 10}, throw="2")
    s.score = [2, 2]
    s.apply(Move(1, OFF))
    assert s.is_terminal() and s.winner == 0 and s.score == [3, 2]
    assert s.current_player == TERMINAL and s.returns() == [1.0, -1.0]
    assert s.events[-1] == "red wins the match 3-2"
    with pytest.raises(IllegalMoveError, match="the match is over"):
        s.apply(ChanceOutcome("1"))


def test_a_whole_match_to_three_with_the_loser_starting_each_game():
    """Every throw a 3: the starter enters (0), crosses (10), bears off, twice, without the other
    player ever throwing; so the games alternate and red, who starts, wins 3-2."""
    s = GAME.new_initial_state()
    while not s.is_terminal():
        s.apply(ChanceOutcome("3") if s.is_chance_node() else s.legal_actions()[0])
    assert s.game_winners == [0, 1, 0, 1, 0] and s.winner == 0 and s.score == [3, 2]
    assert [e for e in s.events if e.startswith("game ")] == [
        "game 1: red starts", "game 2: blue starts", "game 3: red starts", "game 4: blue starts",
        "game 5: red starts"]


@pytest.mark.parametrize("games_to_win", [1, 2, 5])
def test_games_to_win_is_configurable(games_to_win):
    s = Game(games_to_win=games_to_win).new_initial_state()
    while not s.is_terminal():
        s.apply(ChanceOutcome("3") if s.is_chance_node() else s.legal_actions()[0])
    assert max(s.score) == games_to_win and len(s.game_winners) == 2 * games_to_win - 1


@pytest.mark.parametrize("kwargs,match", [({"players": 3}, "for 2 players"), ({"games_to_win": 0}, "at least 1")])
def test_bad_configuration(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Game(**kwargs)


# -- illegal moves -----------------------------------------------------------------------------
@pytest.mark.parametrize("action,match", [
    (Move(2, 5), "blue-1 belongs to blue, not to red"),
    (Move(9, 7), "there is no piece 9"),
    (Move(3, 7), "belongs to blue"),
    (Move(1, 7), "red-2 is already borne off"),
    (Move(0, 3), "space 3 is not on red's track"),
    (Move(0, 1), "never changes direction again"),
    (Move(0, 0), "pieces only move forward"),
    (Move(0, 11), r"space 11 is not 1 space on from space 2 \(with 1 it can reach space 5\)"),
    (Move(0, OFF), "bearing off needs an exact throw: space 2 is 5 spaces from the exit, not 1"),
    (ChanceOutcome("2"), "no throw is pending"),
    (Pass(), "a legal move exists"),
])
def test_illegal_moves_raise_and_leave_the_state_unchanged(action, match):
    s = position({0: 2, 1: OFF, 2: 4, 3: 9}, throw="1")
    before = (str(s), list(s.pos), list(s.history), list(s.events))
    with pytest.raises(IllegalMoveError, match=match) as err:
        s.apply(action)
    assert str(err.value).startswith(s.describe(action) + ": ")       # the piece named as players do:
    assert action == Move(9, 7) or not re.search(r"piece \d", str(err.value))     # "red-1", never "piece 0"
    assert (str(s), list(s.pos), list(s.history), list(s.events)) == before


def test_only_the_first_piece_at_the_start_is_offered():
    s = position(throw="1")
    with pytest.raises(IllegalMoveError, match="red-2 waits at the start behind red-1"):
        s.apply(Move(1, 6))


def test_throws_are_checked():
    s = GAME.new_initial_state()
    with pytest.raises(IllegalMoveError, match="the sticks cannot give '4'"):
        s.apply(ChanceOutcome("4"))
    with pytest.raises(IllegalMoveError, match="red must throw the sticks first"):
        s.apply(Move(0, 6))
    assert s.history == [] and s.events == ["game 1: red starts"]


# -- replay --------------------------------------------------------------------------------------
def test_a_match_can_be_redriven_from_its_history():
    from tabletop.gamekit.chance import TableOutcomes
    from tabletop.games.knossos.ai import HeuristicSeat, RandomSeat
    from tabletop.gamekit.match import Match

    src = TableOutcomes({"sticks": {"1": 0.25, "2": 0.5, "3": 0.25}})
    final = Match(GAME.new_initial_state(), [HeuristicSeat(), RandomSeat()], src, 4, max_turns=20000).play()
    again = GAME.replay(final.history)
    assert (again.pos, again.score, again.game_winners, again.winner, again.events) == \
        (final.pos, final.score, final.game_winners, final.winner, final.events)


# -- board data ----------------------------------------------------------------------------------
@pytest.mark.parametrize("edit,match", [
    (("central = [1, 2, 4, 5]", "central = [1, 2, 4, 4]"), "central: expected four different sites"),
    (("apex = 11", ""), "apex: missing"),
    (("[ 0.000,  0.420],   # 11", "[ 0.000,  0.490],   # 11"), "sites: site 11 .* lies off the board"),
    (("[ 0.065, -0.105],   # 5", "[-0.050, -0.105],   # 5"), "sites: sites 4 and 5 are closer"),
    (("from = [4, 5]", "from = [4, 10]"), "bridge.from: the bridge starts from the central four"),
    (("to = 10", "to = 2"), "bridge.to"),
    (("wing = [6, 7]", "wing = [6, 17]"), r"players\[0\]\.wing: site 17 does not exist"),
    (("[6, 7, 0, 1, 4, 10, 12, 11]", "[6, 7, 0, 1, 4, 5, 10, 12, 11]"), r"players\[0\]\.routes: in the central four"),
    (("[6, 7, 0, 1, 4, 10, 12, 11]", "[6, 7, 0, 1, 4, 10, 13, 11]"), r"players\[0\]\.routes\[0\]: must end with"),
    (("safe = 12", "safe = 1"), r"players\[0\]\.routes\[0\]: must end with"),
    (("[8, 9, 3, 2, 5, 10, 13, 11]", "[8, 9, 3, 2, 5, 2, 13, 11]"), r"players\[1\]\.routes\[0\]: a site appears twice"),
    (("from = 11", "from = 10"), "exit.from: pieces exit from the apex"),
    (("size = [0.553, 0.965]", "size = [0.553]"), "size: expected 2 numbers"),
])
def test_bad_board_files_are_rejected(tmp_path, edit, match):
    from tabletop.games.knossos.board import BOARD_FILE

    text = BOARD_FILE.read_text()
    assert edit[0] in text
    bad = tmp_path / "board.toml"
    bad.write_text(text.replace(edit[0], edit[1], 1))
    with pytest.raises(SpecError, match=match):
        load_board(bad)
