"""King of the Hill rules, table-driven: every rule of the rulebook and every resolved ambiguity."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest

from tabletop.gamekit.errors import IllegalMoveError
from tabletop.games.king_of_the_hill.board import CRATER_LABELS, load_board
from tabletop.games.king_of_the_hill.rules import (CHANCE, IN_CRATER, TIPPER_LABELS, ChanceOutcome, Game, Move,
                                                  Pass, Phase, State, Variant)
from tabletop.sim.errors import SpecError

BOARD = load_board()
L = BOARD.path_length          # first Finish Zone seat (#1) is track L
E1 = BOARD.edges["edge1"]      # an edge space
ZONE = {k: L + k - 1 for k in range(1, 6)}


def position(players=2, track=None, current=0, roll="3", variant=Variant.STANDARD, board=BOARD) -> State:
    """A state in the MOVE phase with marbles where `track` says ({marble: track index})."""
    game = Game(players, variant, board)
    s = game.new_initial_state()
    for m, t in (track or {}).items():
        s.track[m] = t
    s.phase, s.current, s.roll = Phase.MOVE, current, roll
    return s


# -- turn order -------------------------------------------------------------------------------
@pytest.mark.parametrize("tilts,first", [
    (["3", "5", "1", "2"], 1),
    (["J", "6", "6", "6"], 0),          # J is higher than 6
    (["2", "6", "1", "J"], 3),
    (["4", "4", "1", "2", "3", "5"], 1),  # red and blue tie on 4: they tilt again, blue wins
    (["6", "1", "6", "6", "3", "3", "1", "2", "J"], 2),  # two rounds of ties among the tied only
])
def test_turn_order_by_tipper(tilts, first):
    s = Game(4).new_initial_state()
    for label in tilts:
        assert s.current_player == CHANCE and s.chance_event == "tipper"
        s.apply(ChanceOutcome(label))
    assert s.phase is Phase.ROLL and s.current == first


def test_tie_break_only_among_the_tied():
    s = Game(4).new_initial_state()
    for label in ["5", "2", "5", "1"]:
        s.apply(ChanceOutcome(label))
    assert s.phase is Phase.ORDER and s.order_contenders == [0, 2]
    assert s.chance_player == 0


def test_play_passes_to_the_left():
    s = position(players=3, track={0: 2, 1: 3, 2: 8, 3: 9, 4: 16, 5: 17}, current=1, roll="1")
    s.apply(Move(2, 1))
    assert s.phase is Phase.ROLL and s.current == 2
    s.apply(ChanceOutcome("1"))
    s.apply(Move(4, 1))
    assert s.current == 0


# -- entering and choosing ----------------------------------------------------------------------
@pytest.mark.parametrize("roll,dest", [("1", 0), ("2", 1), ("6", 5)])
def test_start_counts_as_the_first_space(roll, dest):
    s = position(roll=roll)
    s.apply(Move(0, int(roll)))
    assert s.track[0] == dest


def test_the_drawer_marble_enters_before_choosing():
    s = position(track={0: 10}, roll="2")
    assert s.legal_actions() == [Move(1, 2)]
    s2 = position(track={0: 10, 1: 4}, roll="2")
    assert set(s2.legal_actions()) == {Move(0, 2), Move(1, 2)}


def test_j_lets_the_player_choose_one_to_ten():
    s = position(track={0: 10, 1: 4}, roll="J")
    assert {a.distance for a in s.legal_actions()} == set(range(1, 11))
    s.apply(Move(1, 7))
    assert s.track[1] == 11


# -- hopping and knocking ----------------------------------------------------------------------
@pytest.mark.parametrize("track,move,dest", [
    ({0: 3, 1: 5, 2: 6, 3: 7}, Move(0, 2), 8),       # a whole line of marbles is hopped
    ({0: 3, 1: 5, 2: 10, 3: 12}, Move(0, 2), 6),     # one marble hopped, next space empty
    ({0: 3, 1: 5}, Move(0, 2), 6),                    # own marble hopped too
    ({0: 3, 1: 6}, Move(0, 2), 5),                    # empty space: no hop
])
def test_hopping_forward(track, move, dest):
    s = position(track=track, roll=str(move.distance))
    s.apply(move)
    assert s.track[move.marble] == dest
    assert s.phase is Phase.ROLL


@pytest.mark.parametrize("occupant", [2, 1])  # an opponent's marble, or the player's own
def test_landing_on_an_occupied_edge_space_knocks_the_occupant(occupant):
    track = {0: E1 - 3, 1: 2, 2: 3, 3: 4}
    track[occupant] = E1
    s = position(track=track)
    s.apply(Move(0, 3))
    assert s.track[0] == E1 and s.track[occupant] == IN_CRATER
    assert s.phase is Phase.CRATER and s.chance_event == "crater" and s.current_player == CHANCE


def test_a_hop_passes_an_occupied_edge_space_inside_the_line():
    """Rulebook: "hop it to the empty space immediately beyond"; the knock is for the space the
    marble would land on, so a taken edge space inside the hopped line is hopped, knocking nothing."""
    s = position(track={0: E1 - 3, 1: E1 - 1, 2: E1, 3: 2}, roll="2")
    s.apply(Move(0, 2))  # lands on E1-1 (taken), hops the line E1-1, E1 (a taken edge space too)
    assert s.track[0] == E1 + 1 and s.track[2] == E1 and s.phase is Phase.ROLL
    assert "knocks" not in s.events[-1]


def test_a_hop_that_lands_beyond_a_line_onto_a_free_edge_space_is_plain():
    s = position(track={0: E1 - 3, 1: E1 - 2, 2: E1 - 1, 3: 2}, roll="1")
    s.apply(Move(0, 1))  # lands on E1-2 (taken), hops the line E1-2, E1-1 to the free edge space E1
    assert s.track[0] == E1 and s.phase is Phase.ROLL


def test_an_empty_edge_space_is_an_ordinary_space():
    s = position(track={0: E1 - 2, 1: 2}, roll="2")
    s.apply(Move(0, 2))
    assert s.track[0] == E1 and s.phase is Phase.ROLL


@pytest.mark.parametrize("cave,taken,placed", [
    ("cave1/seat1", {}, BOARD.caves["cave1/seat1"]),
    ("cave3/seat2", {}, BOARD.caves["cave3/seat2"]),
    ("cave2/seat1", {3: BOARD.caves["cave2/seat1"]}, BOARD.caves["cave2/seat1"] + 1),
    ("cave2/seat1", {3: BOARD.caves["cave2/seat1"], 1: BOARD.caves["cave2/seat1"] + 1},
     BOARD.caves["cave2/seat1"] + 2),
])
def test_the_crater_places_the_marble_above_its_cave_seat(cave, taken, placed):
    track = {0: E1 - 3, 2: E1, 1: 30, 3: 31}
    track.update(taken)
    s = position(track=track)
    s.apply(Move(0, 3))
    s.apply(ChanceOutcome(cave))
    assert s.track[2] == placed
    assert s.phase is Phase.ROLL and s.current == 1  # the mover's turn is over


# -- the Finish Zone ---------------------------------------------------------------------------
@pytest.mark.parametrize("roll,legal", [
    ("1", True), ("2", True), ("3", True), ("4", True), ("5", False), ("6", False)])
def test_rulebook_finish_zone_example(roll, legal):
    """Two spaces from the Zone, #5 #4 #3 taken: only a 3, a 4 (or a J as 3 or 4) enters;
    a 1 or 2 stays on the path; a 5 or 6 cannot be played with that marble."""
    # red's marble 0 is two spaces away: path spaces L-2 and L-1 still lie ahead of it
    s = position(track={0: L - 3, 1: 5, 2: ZONE[5], 3: ZONE[4], 4: ZONE[3]}, players=3, roll=roll)
    moves = [a for a in s.legal_actions() if isinstance(a, Move) and a.marble == 0]
    assert bool(moves) is legal
    if roll in ("3", "4"):
        s.apply(Move(0, int(roll)))
        assert s.track[0] == ZONE[int(roll) - 2]


def test_rulebook_example_with_j():
    s = position(track={0: L - 3, 1: 5, 2: ZONE[5], 3: ZONE[4], 4: ZONE[3]}, players=3, roll="J")
    into_zone = sorted(a.distance for a in s.legal_actions()
                       if a.marble == 0 and s.destination(0, a.distance)[0] >= L)
    assert into_zone == [3, 4]


# the real board ends with an edge stretch (a hop stops there); this one has ordinary last spaces
NO_END_EDGES = replace(BOARD, edges={k: v for k, v in BOARD.edges.items() if v < L - 5})


@pytest.mark.parametrize("track,roll,reason", [
    ({0: L - 1, 1: ZONE[1]}, "6", "overshoot"),
    ({0: L - 1, 1: ZONE[2], 2: 3}, "2", "seat #2 is taken"),
    ({0: L - 3, 2: L - 2, 3: L - 1, 1: ZONE[1]}, "1", "run past the last path space"),
])
def test_finish_zone_only_by_exact_count_onto_a_free_seat(track, roll, reason):
    s = position(track=track, roll=roll, board=NO_END_EDGES)
    dest, _, why = s.destination(0, int(roll))
    assert dest is None and reason in why
    assert s.legal_actions() == [Pass()]
    s.apply(Pass())  # no legal move: the turn is lost
    assert s.phase is Phase.ROLL and s.current == 1 and s.track[0] == track[0]


def test_marbles_in_the_zone_never_move():
    s = position(track={0: ZONE[1], 1: 10}, roll="2")
    assert s.legal_actions() == [Move(1, 2)]


def test_both_marbles_in_wins():
    s = position(track={0: ZONE[1], 1: L - 1, 2: 3, 3: 4}, roll="3")
    s.apply(Move(1, 3))
    assert s.is_terminal() and s.winner == 0 and s.returns() == [1.0, -1.0]
    with pytest.raises(IllegalMoveError, match="game is over"):
        s.apply(ChanceOutcome("3"))


# -- the Special 2 Player Game -----------------------------------------------------------------
def test_special_two_player_alternates_sets():
    game = Game(2, Variant.SPECIAL_TWO_PLAYER)
    assert [game.marble_set(m) for m in range(8)] == [0, 0, 1, 1, 0, 0, 1, 1]
    s = position(track={0: 5, 1: 6, 2: 7, 3: 8, 4: 30, 5: 31, 6: 32, 7: 33}, variant=Variant.SPECIAL_TWO_PLAYER,
                 roll="1")
    assert {a.marble for a in s.legal_actions()} == {0, 1}      # set A first
    s.apply(Move(0, 1))
    s.apply(ChanceOutcome("1"))
    s.apply(Move(4, 1))
    s.apply(ChanceOutcome("1"))
    assert {a.marble for a in s.legal_actions()} == {2, 3}      # then set B


def test_special_two_player_skips_a_finished_set_and_wins_with_three():
    s = position(track={0: ZONE[1], 1: ZONE[2], 2: L - 1, 3: 8, 4: 30, 5: 31, 6: 32, 7: 33},
                 variant=Variant.SPECIAL_TWO_PLAYER, roll="3")
    assert {a.marble for a in s.legal_actions()} == {2, 3}      # set A is home: set B moves
    s.apply(Move(2, 3))
    assert s.is_terminal() and s.winner == 0


def test_special_two_player_needs_two_players():
    with pytest.raises(ValueError, match="exactly 2 players"):
        Game(3, Variant.SPECIAL_TWO_PLAYER)


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players(players):
    with pytest.raises(ValueError, match="2-4 players"):
        Game(players)


# -- illegal moves -----------------------------------------------------------------------------
@pytest.mark.parametrize("action,match", [
    (Move(2, 3), "belongs to blue, not to red"),
    (Move(0, 4), "the Tipper gave 3, so the distance must be 3"),
    (Move(9, 3), "there is no marble 9"),
    (ChanceOutcome("3"), "no chance event is pending"),
    (Pass(), "a legal move exists"),
])
def test_illegal_moves_raise_and_leave_the_state_unchanged(action, match):
    s = position(track={0: 10, 1: 12, 2: 3, 3: 4})
    before = (str(s), list(s.history), list(s.events))
    with pytest.raises(IllegalMoveError, match=match):
        s.apply(action)
    assert (str(s), list(s.history), list(s.events)) == before


# -- what a player reads names marbles as players do (issue 36) ---------------------------------------
NUMBERED = r"marble \d|\b(red|blue|green|yellow)-[AB]?\d"       # "marble 0", "red-1", "red-A1"


@pytest.mark.parametrize("setup, action, message", [
    (dict(track={1: 10}), Move(1, 3),
     "red's second marble cannot move now: red's first marble is still in the drawer and must enter first"),
    (dict(), Move(1, 3), "red's second marble waits in the drawer: red's first marble enters first"),
    (dict(track={0: 10, 1: 12}), Move(2, 3), "blue's first marble belongs to blue, not to red"),
    (dict(track={0: 10, 1: 12}), Move(0, 4),
     "red's first marble cannot move 4: the Tipper gave 3, so the distance must be 3"),
    (dict(track={0: ZONE[1], 1: 10}), Move(0, 3), "red's first marble is safe in the Finish Zone and never moves "
                                                  "again"),
    (dict(track={0: L - 1, 1: 10}, roll="6"), Move(0, 6),
     "red's first marble cannot move 6: it would overshoot the Finish Zone (seat #6 does not exist)"),
    (dict(track={0: 5, 1: 6, 2: 7, 3: 8, 4: 30, 5: 31, 6: 32, 7: 33}, variant=Variant.SPECIAL_TWO_PLAYER),
     Move(2, 3), "red's first marble of set B cannot move now: red moves a marble of set A this turn "
                 "(the sets take turns)"),
    (dict(track={0: 10, 1: 12}), Pass(), "red cannot pass: a legal move exists"),
])
def test_a_refused_move_names_the_marble_as_players_do(setup, action, message):
    """The rules' reason names the marble ("red's first marble"), never its number, and says why."""
    s = position(**setup)
    with pytest.raises(IllegalMoveError) as refused:
        s.apply(action)
    assert str(refused.value) == message
    assert not re.search(NUMBERED, message)


def test_a_move_refused_before_the_tilt_or_after_the_end_names_the_marble():
    """The checks every game shares (a chance event pending, the game over) name the move as the
    log does, not by the marble's number."""
    s = Game(2).new_initial_state()
    with pytest.raises(IllegalMoveError, match="^red's first marble enters 1: the tipper must be answered first$"):
        s.apply(Move(0, 1))
    s = position(track={0: ZONE[1], 1: L - 1, 2: 3, 3: 4}, roll="3")
    s.apply(Move(1, 3))
    with pytest.raises(IllegalMoveError, match="^blue's first marble moves 3: the game is over$"):
        s.apply(Move(2, 3))


def test_every_log_line_of_a_game_names_marbles_as_players_do():
    """A whole 4-player game and a Special 2 Player Game, knocks into the crater included: the log
    names each marble "red's first marble" ("... of set A"), never by a number."""
    from tabletop.gamekit.chance import TableOutcomes
    from tabletop.gamekit.match import Match
    from tabletop.games.king_of_the_hill.ai import GreedySeat

    source = TableOutcomes({"tipper": {label: 1 / 7 for label in TIPPER_LABELS},
                            "crater": {label: 1 / len(CRATER_LABELS) for label in CRATER_LABELS}})
    for players, variant in ((4, Variant.STANDARD), (2, Variant.SPECIAL_TWO_PLAYER)):
        match = Match(Game(players, variant).new_initial_state(), [GreedySeat() for _ in range(players)], source,
                      seed=3)
        match.play()
        events = match.state.events
        assert match.state.is_terminal() and any("knocks" in line for line in events)
        assert not [line for line in events if re.search(NUMBERED, line)]
        assert all(any(re.match(f"{c}'s first marble( of set A)? enters ", line) for line in events)
                   for c in ("red", "blue", "green", "yellow")[:players])
        if variant is Variant.SPECIAL_TWO_PLAYER:
            assert any("'s second marble of set B " in line for line in events)


def test_the_window_says_why_a_marble_cannot_move_in_the_rules_words_once():
    """The window's reason for a click on the player's own marble is the rules' own sentence,
    which names the marble once; its numbered choices name the marble too."""
    pytest.importorskip("panda3d")
    from tabletop.games.king_of_the_hill.view import HillAdapter
    from tabletop.sim.scene import RecordedScene

    adapter = HillAdapter(2, "standard", RecordedScene({}))
    s = position(track={1: 10})
    assert adapter.why_not(s, 1) == ("red's second marble cannot move now: red's first marble is still in the "
                                     "drawer and must enter first")
    assert adapter.why_not(s, 2) == "blue's first marble cannot move: it belongs to blue; you play red"
    assert [text for _, text, _ in adapter.piece_choices(s)] == ["red's first marble: enter from the drawer, 3 "
                                                                 "spaces to space 2"]


def test_chance_outcomes_are_checked():
    s = Game(2).new_initial_state()
    with pytest.raises(IllegalMoveError, match="the tipper cannot give '7'"):
        s.apply(ChanceOutcome("7"))
    with pytest.raises(IllegalMoveError, match="must be answered first"):
        s.apply(Move(0, 1))


def test_a_game_can_be_redriven_from_its_history():
    from tabletop.gamekit.chance import TableOutcomes
    from tabletop.games.king_of_the_hill.ai import GreedySeat
    from tabletop.gamekit.match import Match

    src = TableOutcomes({"tipper": {l: 1 / 7 for l in "123456J"},
                         "crater": {f"cave{c}/seat{s}": 1 / 6 for c in (1, 2, 3) for s in (1, 2)}})
    final = Match(Game(3).new_initial_state(), [GreedySeat()] * 3, src, 4).play()
    again = Game(3).replay(final.history)
    assert again.track == final.track and again.winner == final.winner and again.events == final.events


# -- board data --------------------------------------------------------------------------------
@pytest.mark.parametrize("edit,match", [
    (("edge2 = 26", "edge2 = 25"), "two edge seats share"),
    (('"cave1/seat1" = 39', '"cave1/seat1" = 25'), "both an edge space"),
    (('"cave1/seat1" = 39', '"cave9/seat1" = 39'), "expected exactly"),
    (("path_length = 67", "path_length = 4"), "outside"),
    (("path_length = 67", "path_length = 68"), "positions.path: expected 68 points"),
])
def test_bad_board_files_are_rejected(tmp_path, edit, match):
    from tabletop.games.king_of_the_hill.board import BOARD_FILE

    bad = tmp_path / "board.toml"
    bad.write_text(BOARD_FILE.read_text().replace(*edit))
    with pytest.raises(SpecError, match=match):
        load_board(bad)
