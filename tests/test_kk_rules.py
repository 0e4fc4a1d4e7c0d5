"""King Kong rules, table-driven: the board and deck data, Kong's geometry, and every rule of the
rulebook with every resolved ambiguity (see games/king_kong/rules.py).

Three players: red 0, blue 1, green 2. Kong's test pose (4, 0): the left hand's groove lies in R2-5,
the right hand's in L2-5, the left foot's over the line R1-2/R1-3, the right foot's over L1-2/L1-3.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tabletop.gamekit.state import CHANCE, ChanceOutcome, Pass
from tabletop.gamekit.errors import IllegalMoveError
from tabletop.games.king_kong.board import BOARD_FILE, START, load_board
from tabletop.games.king_kong.cards import DECK_FILE, Kind, load_deck
from tabletop.games.king_kong.geometry import KONG_FILE, GROOVES, Geometry, load_kong
from tabletop.games.king_kong.rules import (COLOURS, LEFT, RIGHT, Attack, Climb, Decline, Discard, EndTurn, Escape, Fly,
                                   Game, Move, Phase, Roll, SafetyNet, Twist)
from tabletop.sim.errors import SpecError

BOARD, KONG, DECK = load_board(), load_kong(), load_deck()
GAME = Game(players=3, board=BOARD, kong=KONG, deck=DECK)
# first card number of each kind in deck.toml's order
A_LH, A_RH, A_LF, A_RF, HELI, ESC1, ESC2, ESC3, NET, SPECIAL = 0, 5, 10, 15, 20, 26, 28, 30, 32, 37
POSE = (4, 0)


def position(phase=Phase.TURN, pos=None, hands=None, kong=POSE, current=0, roll=None, game=GAME, played=None,
             grooves=None):
    """A state in round 1 (spinner with red, order red, blue, green) in `phase`; hands as given,
    every other card in the draw pile."""
    s = game.new_initial_state()
    s.apply(ChanceOutcome(" ".join(str(c) for c in range(len(game.deck)))))
    hands = hands or {}
    s.hands = [list(hands.get(p, [])) for p in range(game.players)]
    s.played = [None] * game.players
    for p, card in (played or {}).items():
        s.played[p] = card
    held = {c for h in s.hands for c in h} | {c for c in s.played if c is not None}
    s.draw = [c for c in range(len(game.deck)) if c not in held]
    for p, where in (pos or {}).items():
        s.pos[p] = where
    for p, groove in (grooves or {}).items():
        s.groove[p] = groove
    s.climb, s.twist = kong
    s.round, s.spinner, s.order = 1, 0, list(range(game.players))
    s.current = s.turn_index = current
    s.roll, s.phase = roll, phase
    return s


def kong_game(tmp_path, **ring) -> Game:
    """A game whose Kong has other [ring] values (e.g. a twist stop)."""
    text = KONG_FILE.read_text()
    for key, value in ring.items():
        text = "\n".join(f"{key} = {value}" if line.startswith(f"{key} ") else line for line in text.splitlines())
    path = tmp_path / "kong.toml"
    path.write_text(text)
    return Game(players=3, board=BOARD, kong=load_kong(path), deck=DECK)


def spaces(actions, kind=Move) -> set[str]:
    return {a.to for a in actions if isinstance(a, kind)}


# -- the board -----------------------------------------------------------------------------------
def test_the_board_is_two_towers_an_elevator_each_a_track_and_start():
    windows = BOARD.windows()
    assert len(windows) == 2 * 3 * 12 and len(BOARD.spaces) == 75
    assert {s.kind for s in BOARD.spaces} == {"window", "elevator", "start"}
    assert 0.75 <= BOARD.size[1] <= 0.85                      # about 80 cm long
    start = BOARD.space(START)
    x0, x1, _, _ = BOARD.area
    assert start.rect[:2] == (x0, x1)                         # Start spans both towers and the track
    for tower, sign in (("L", -1), ("R", 1)):
        lift = BOARD.space(f"{tower}-elevator")
        assert lift.rect[3] - lift.rect[2] == pytest.approx(12 * 0.06)   # one long space, all floors
        assert sign * lift.centre[0] > max(sign * BOARD.space(f"{tower}3-{r}").centre[0] for r in (1, 12))
    assert BOARD.track[0] < 0 < BOARD.track[1]
    for s in BOARD.spaces:                                    # spaces lie on the board, never over the track
        sx0, sx1, sy0, sy1 = s.rect
        assert abs(sx0) <= BOARD.size[0] / 2 and abs(sx1) <= BOARD.size[0] / 2 and abs(sy1) <= BOARD.size[1] / 2
        if s.kind == "window":
            assert sx1 <= BOARD.track[0] or sx0 >= BOARD.track[1]


@pytest.mark.parametrize("a,b,adjacent", [
    ("L1-1", "L1-2", True), ("L1-1", "L2-1", True), ("L1-1", START, True), ("R3-1", START, True),
    ("L3-7", "L-elevator", True), ("R3-12", "R-elevator", True), ("L-elevator", START, True),
    ("L1-1", "L2-2", False),              # diagonal
    ("L1-5", "R1-5", False),              # across the track
    ("L2-7", "L-elevator", False),        # the elevator borders only the outer window column
    ("L1-2", START, False),
    ("L-elevator", "R-elevator", False),
])
def test_adjacency_is_orthogonal_and_never_across_the_track(a, b, adjacent):
    assert (b in BOARD.adjacency[a]) is adjacent
    assert (a in BOARD.adjacency[b]) is adjacent


@pytest.mark.parametrize("a,b,steps", [
    ("L1-5", "R1-5", 8),                  # out along the elevators and across Start
    ("L3-1", "L3-12", 2),                 # one long elevator space
    (START, "R3-9", 2),
    ("L1-1", "R1-1", 2),                  # Start counts as one space
])
def test_distances_go_through_start_and_the_elevators(a, b, steps):
    assert BOARD.distances(a)[b] == steps


@pytest.mark.parametrize("field,text,message", [
    ("size", "size = [0.5]", "size: expected 2 numbers"),
    ("towers.rows", "rows = 0", "towers.rows: 0 is outside"),
    ("towers.column_width", "column_width = 0.5", "wider than the board"),
    ("bottom", "bottom = -0.6", "off the board"),
    ("track.width", "width = \"wide\"", "track.width: expected a number"),
])
def test_a_bad_board_file_names_file_and_field(tmp_path, field, text, message):
    key = text.split(" = ")[0]
    lines = [text if line.startswith(f"{key} ") else line for line in BOARD_FILE.read_text().splitlines()]
    path = tmp_path / "board.toml"
    path.write_text("\n".join(lines))
    with pytest.raises(SpecError, match=message) as err:
        load_board(path)
    assert str(path) in str(err.value) and "\n" not in str(err.value)


# -- the deck ------------------------------------------------------------------------------------
def test_the_deck_holds_every_kind_and_exactly_one_special_mission():
    kinds = [c.kind for c in DECK.cards]
    assert kinds.count(Kind.SPECIAL) == 1
    special = DECK[SPECIAL]
    assert special.groove == "right_hand" and special.title == "Rescue Girl in Right Hand"
    for groove in GROOVES:
        assert sum(1 for c in DECK.cards if c.kind is Kind.ATTACK and c.groove == groove) >= 3
    assert {c.spaces for c in DECK.cards if c.kind is Kind.ESCAPE} == {1, 2, 3}
    assert kinds.count(Kind.HELICOPTER) >= 1 and kinds.count(Kind.SAFETY_NET) >= 1
    assert [str(DECK[c]) for c in (A_LH, A_RF, HELI, ESC2, NET)] == [
        "Attack Left Hand", "Attack Right Foot", "Helicopter Ride", "Escape Equipment 2", "Safety Net"]


@pytest.mark.parametrize("text,message", [
    ('[[cards]]\nkind = "special"\ngroove = "right_hand"\ntitle = "x"\ncount = 1\n', "exactly one Special Mission"),
    ('[[cards]]\nkind = "joker"\ncount = 1\n', "cards[10].kind: unknown card kind 'joker'"),
    ('[[cards]]\nkind = "attack"\ngroove = "tail"\ncount = 1\n', "cards[10].groove: unknown groove 'tail'"),
    ('[[cards]]\nkind = "escape"\nspaces = 9\ncount = 1\n', "cards[10].spaces: 9 is outside"),
    ('[[cards]]\nkind = "safety_net"\nspaces = 2\ncount = 1\n', "cards[10].spaces: a safety_net card has no spaces"),
])
def test_a_bad_deck_file_names_file_and_field(tmp_path, text, message):
    path = tmp_path / "deck.toml"
    path.write_text(DECK_FILE.read_text() + "\n" + text)
    with pytest.raises(SpecError, match=re.escape(message)) as err:
        load_deck(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize("old,new,message", [
    ("twist_limit = 6", "twist_limit = 7", "ring.twist_limit: 7 notches of 30.0 deg is more than half a turn"),
    ("left_foot = [0.045, -0.085]", "tail = [0.0, -0.1]", "grooves.tail: unknown groove"),
    ('groove = "left_foot"', 'groove = "right_foot"', "limbs: expected one limb for each groove"),
    ("notches_to_top = 24", "notches_to_top = 0", "ring.notches_to_top: 0 is outside"),
])
def test_a_bad_kong_file_names_file_and_field(tmp_path, old, new, message):
    path = tmp_path / "kong.toml"
    assert old in KONG_FILE.read_text()
    path.write_text(KONG_FILE.read_text().replace(old, new, 1))
    with pytest.raises(SpecError, match=message) as err:
        load_kong(path)
    assert str(path) in str(err.value)


# -- Kong's geometry -----------------------------------------------------------------------------
def test_a_groove_is_the_ring_centre_plus_its_offset_turned_by_the_twist():
    cx, cy = KONG.ring_centre(4)
    assert cy == pytest.approx(KONG.bottom[1] + 4 * KONG.climb_step)
    ox, oy = KONG.grooves["right_hand"]
    assert KONG.groove_point("right_hand", 4, 0) == pytest.approx((cx + ox, cy + oy))
    # three notches left = a quarter turn counter-clockwise: (x, y) -> (-y, x)
    assert KONG.groove_point("right_hand", 4, 3) == pytest.approx((cx - oy, cy + ox))
    assert KONG.groove_point("right_hand", 4, -3) == pytest.approx((cx + oy, cy - ox))
    assert ox < 0     # Kong faces the players: his right hand is on their left


@pytest.mark.parametrize("pose,groove,kind,where", [
    ((4, 0), "left_hand", "space", ("R2-5",)),
    ((4, 0), "right_hand", "space", ("L2-5",)),
    ((4, 0), "left_foot", "line", ("R1-2", "R1-3")),
    ((4, 0), "right_foot", "line", ("L1-2", "L1-3")),
    ((0, 3), "right_hand", "line", ("L1-1", "L2-1")),
    ((4, -1), "left_foot", "track", ()),
    ((10, 1), "right_foot", "track", ()),
])
def test_where_each_groove_lies(pose, groove, kind, where):
    place = GAME.geometry.place(groove, *pose)
    assert place.kind == kind and set(place.spaces) == set(where)
    assert place.attackable is (kind in ("space", "line"))


@pytest.mark.parametrize("point,kind", [
    ((0.0, 0.0), "track"), ((0.5, 0.0), "off"), ((-0.1, 0.389), "off"), ((-0.1025, -0.31), "space"),
    ((-0.075, -0.31), "line"), ((-0.185, 0.0), "line"),     # between L3 and the elevator
])
def test_locating_points(point, kind):
    assert GAME.geometry.locate(point).kind == kind


@pytest.mark.parametrize("pose,covered", [
    ((0, 0), set()), ((0, 3), {"L1-2", "R1-2"}), ((0, -3), {"L1-2", "R1-2"}), ((10, 1), {"L1-7"}),
])
def test_kongs_body_covers_the_window_spaces_under_it(pose, covered):
    assert GAME.geometry.covered(*pose) == covered


def test_the_sweep_reaches_the_spaces_next_to_kongs_path_only():
    swept = GAME.geometry.swept(4, 0, (), 1)
    assert {"L1-4", "R1-4", "L2-5", "R2-5"} <= swept
    assert not swept & {"L3-5", "L2-9", "R3-1"}
    assert all(BOARD.space(s).is_window for s in GAME.geometry.swept(0, 0, (1, 1, 1), 3))
    assert GAME.geometry.swept(4, 0, (LEFT, LEFT), 1) > GAME.geometry.swept(4, 0, (), 1) - {"R2-5"}


def test_the_ring_turns_freely_half_a_turn_each_way():
    assert KONG.free_turning
    assert [KONG.canonical_twist(t) for t in (-6, 6, 7, -7, 12)] == [6, 6, -5, 5, 0]
    assert KONG.step_twist(6, LEFT) == -5 and KONG.step_twist(-5, RIGHT) == 6


# -- set-up and the first player -------------------------------------------------------------------
def test_set_up_shuffles_and_deals_three_cards_each_then_everyone_rolls():
    s = GAME.new_initial_state()
    assert s.current_player == CHANCE and s.chance_event == "shuffle" and s.shuffle_pile() == list(range(len(DECK)))
    order = list(reversed(range(len(DECK))))
    s.apply(ChanceOutcome(" ".join(map(str, order))))
    assert s.hands == [[37, 34, 31], [36, 33, 30], [35, 32, 29]]       # one card at a time, in seat order
    assert s.draw == order[9:] and s.pos == [START] * 3
    assert s.chance_event == "die" and s.chance_player == 0


@pytest.mark.parametrize("label,message", [
    ("0 1 2", "exactly the 38 cards of the deck"),
    (" ".join(["0"] * 38), "exactly the 38 cards"),
    ("a b", "a list of card numbers"),
])
def test_a_bad_shuffle_is_refused(label, message):
    s = GAME.new_initial_state()
    with pytest.raises(IllegalMoveError, match=message):
        s.apply(ChanceOutcome(label))
    assert s.history == [] and s.phase is Phase.SHUFFLE


@pytest.mark.parametrize("rolls,first,again", [
    (["3", "5", "2"], 1, []),
    (["6", "2", "6", "1", "4"], 2, ["red and green tie with 6 and roll again"]),   # red 1, green 4
    (["4", "4", "4", "2", "5", "1"], 1, ["red and blue and green tie with 4 and roll again"]),
])
def test_the_highest_roller_takes_the_spinner_ties_roll_again_among_themselves(rolls, first, again):
    s = GAME.new_initial_state()
    s.apply(ChanceOutcome(" ".join(str(c) for c in range(len(DECK)))))
    for label in rolls:
        s.apply(ChanceOutcome(label))
    assert s.spinner == first and s.phase is Phase.SPIN_OUTER and s.current == first
    assert all(line in s.events for line in again)
    assert f"{COLOURS[first]} rolls highest, takes the spinner and moves Kong before play begins" in s.events


def test_the_first_player_moves_kong_before_play_then_plays_first_and_spins_after_round_one():
    s = GAME.new_initial_state()
    for label in [" ".join(str(c) for c in range(len(DECK))), "2", "6", "1", "L1", "U2", "none"]:
        s.apply(ChanceOutcome(label))
    assert (s.climb, s.twist) == (2, 1)
    assert s.round == 1 and s.spinner == 1 and s.order == [1, 2, 0] and s.current == 1
    assert s.hands == [[0, 3, 6], [1, 4, 7], [2, 5, 8]]                 # no discards before round 1
    assert s.phase is Phase.DIE
    for label in ["1", "2", "3"]:           # each player moves one space from Start: nobody can attack
        s.apply(ChanceOutcome(label))
        s.apply(s.legal_actions()[0])
    assert s.phase is Phase.SPIN_OUTER and s.current == 1
    assert "end of round 1: blue moves Kong" in s.events


# -- Kong's move: the spinner --------------------------------------------------------------------
@pytest.mark.parametrize("twist,label,choice,end,steps", [
    (0, "L1", None, 1, 1), (0, "L2", None, 2, 2), (0, "R1", None, -1, 1), (1, "R2", None, -1, 2),
    (0, "LR1", Twist(RIGHT), -1, 1), (0, "LR2", Twist(LEFT), 2, 2),
    (2, "UP", Twist(RIGHT), 0, 2), (2, "UP", Twist(LEFT), 0, 10),     # the long way round
    (-1, "UP", Twist(LEFT), 0, 1), (0, "UP", None, 0, 0),             # already up: no choice, no twist
    (6, "L2", None, -4, 2), (-5, "R1", None, 6, 1),                   # the ring turns freely
])
def test_the_outer_circle_twists_kong(twist, label, choice, end, steps):
    s = position(Phase.SPIN_OUTER, kong=(4, twist))
    s.apply(ChanceOutcome(label))
    if choice is None:
        assert s.phase is Phase.SPIN_INNER
    else:
        assert s.phase is Phase.TWIST and s.current == 0 and set(s.legal_actions()) == {Twist(LEFT), Twist(RIGHT)}
        s.apply(choice)
    assert len(s.twist_steps) == steps
    s.apply(ChanceOutcome("U1"))
    assert (s.climb, s.twist) == (5, end)
    assert s.kong_move.twist_key == ("0" if not steps else f"{'L' if s.twist_steps[0] == LEFT else 'R'}{steps}")


@pytest.mark.parametrize("twist,label,offered,end,note", [
    (2, "L2", None, 3, "(stopped at the twist limit)"),
    (3, "L1", None, 3, "Kong does not twist (he is at the twist limit)"),
    (2, "UP", None, 0, "Kong will twist right 2 notches"),        # only the short way: the long way meets the stop
    (-3, "LR2", Twist(RIGHT), -3, "Kong does not twist"),
])
def test_with_a_twist_stop_a_twist_ends_at_the_limit(tmp_path, twist, label, offered, end, note):
    game = kong_game(tmp_path, twist_limit=3)
    assert not game.kong.free_turning
    s = position(Phase.SPIN_OUTER, kong=(4, twist), game=game)
    s.apply(ChanceOutcome(label))
    if offered is not None:
        s.apply(offered)
    s.apply(ChanceOutcome("U1"))
    assert s.twist == end and any(note in line for line in s.events)


@pytest.mark.parametrize("label,choices,climb", [
    ("U1", None, 5), ("U2", None, 6), ("U3", None, 7),
    ("U1-2", (Climb(1), Climb(2)), 5), ("U2-3", (Climb(2), Climb(3)), 7),
])
def test_the_inner_circle_climbs_kong(label, choices, climb):
    s = position(Phase.SPIN_INNER)
    s.apply(ChanceOutcome(label))
    if choices:
        assert s.phase is Phase.CLIMB and s.legal_actions() == list(choices)
        s.apply(Climb(climb - 4))
    assert s.climb == climb and s.phase is Phase.KONG_MOVE


def test_kong_wins_on_reaching_the_top_even_over_a_winning_player():
    s = position(Phase.SPIN_INNER, kong=(KONG.top - 2, 0), grooves={0: "left_hand"}, played={0: A_LH},
                 pos={0: "R2-5"})
    s.kept[0] = [A_RH, A_RH + 1, A_LF, A_RF]                  # a fifth mission would win
    s.apply(ChanceOutcome("U3"))
    assert s.is_terminal() and s.kong_won and s.winners == [] and s.climb == KONG.top
    assert s.returns() == [-1.0, -1.0, -1.0]
    assert "Kong climbs 3 notches to the top of the World Trade Center: Kong wins" in s.events


# -- moving --------------------------------------------------------------------------------------
@pytest.mark.parametrize("at,roll,inside,outside", [
    (START, 1, {"L1-1", "L3-1", "R2-1", "L-elevator", "R-elevator"}, {START, "L1-2"}),
    (START, 2, {"L3-12", "R3-7", "L1-2"}, {START}),            # up the elevator and off it
    ("L1-5", 6, {"L1-1", START, "R1-1"}, {"R1-5", "R2-3"}),    # no crossing the track but through Start
    ("L1-5", 2, {"L1-3", "L2-6"}, {"L1-5"}),                     # never end on the starting space
    ("L-elevator", 1, {f"L3-{r}" for r in range(1, 13)} | {START}, {"L2-5"}),
])
def test_a_pawn_moves_up_to_the_die_orthogonally(at, roll, inside, outside):
    s = position(Phase.MOVE, pos={0: at}, roll=roll)
    dests = spaces(s.legal_actions())
    assert inside <= dests and not outside & dests


@pytest.mark.parametrize("to,roll,message", [
    ("R1-5", 6, "R1-5 is 8 spaces from L1-5 (the towers connect only through Start), more than 6"),
    ("L1-5", 3, "a pawn must move at least one space"),
    ("L1-9", 3, "L1-9 is 4 spaces from L1-5, more than 3"),
    ("Z9-9", 3, "there is no space 'Z9-9'"),
])
def test_moves_beyond_the_rules_are_refused_with_the_reason(to, roll, message):
    s = position(Phase.MOVE, pos={0: "L1-5"}, roll=roll)
    before = str(s), list(s.events)
    with pytest.raises(IllegalMoveError, match=re.escape(message)):
        s.apply(Move(to))
    assert (str(s), s.events) == before and s.history == [ChanceOutcome(" ".join(str(c) for c in range(38)))]


def test_no_pawn_enters_or_crosses_a_space_kong_covers():
    s = position(Phase.MOVE, pos={0: "L1-1"}, roll=2, kong=(0, 3))       # L1-2 covered
    assert "L1-2" not in spaces(s.legal_actions()) and "L1-3" not in spaces(s.legal_actions())
    with pytest.raises(IllegalMoveError, match="L1-2 is covered by Kong"):
        s.apply(Move("L1-2"))
    with pytest.raises(IllegalMoveError, match=r"L1-3 is 4 spaces from L1-1 \(Kong covers the shorter ways\)"):
        s.apply(Move("L1-3"))
    s.roll = 4
    assert "L1-3" in spaces(s.legal_actions())


def test_a_pawn_on_a_covered_space_may_step_off_it():
    s = position(Phase.MOVE, pos={0: "L1-2"}, roll=1, kong=(0, 3))
    assert spaces(s.legal_actions()) == {"L1-1", "L2-2", "L1-3"}


def test_pawns_move_through_and_onto_each_other():
    s = position(Phase.MOVE, pos={0: "L1-3", 1: "L1-4", 2: "L1-5"}, roll=2)
    assert "L1-5" in spaces(s.legal_actions())
    s.apply(Move("L1-5"))
    assert s.pos[0] == s.pos[2] == "L1-5"


def test_a_roll_that_allows_no_move_loses_the_turn(monkeypatch):
    s = position(Phase.MOVE, pos={0: "L1-1"}, roll=1)
    monkeypatch.setattr(s, "covered", lambda: frozenset({"L2-1", START, "L1-2"}))   # boxed in
    assert s.legal_actions() == [Pass()]
    s.apply(Pass())
    assert s.current == 1 and "red cannot move with a 1 and loses the turn" in s.events


# -- helicopter ----------------------------------------------------------------------------------
def test_a_helicopter_ride_replaces_the_roll_to_any_uncovered_space():
    s = position(Phase.TURN, hands={0: [HELI, A_RH]}, kong=(0, 3))
    legal = s.legal_actions()
    assert Roll() in legal
    assert spaces(legal, Fly) == set(BOARD.names) - {START, "L1-2", "R1-2"}
    s.apply(Fly(HELI, "L2-1"))                # straight into a space from which it can attack
    assert s.pos[0] == "L2-1" and HELI in s.discard and s.phase is Phase.ATTACK


def test_without_a_helicopter_card_the_player_rolls():
    s = position(Phase.DIE, hands={0: [A_RH]})
    s.current, s.phase = 0, Phase.TURN
    s._begin_turn(0)
    assert s.phase is Phase.DIE and s.current_player == CHANCE


def test_no_helicopter_after_rolling():
    s = position(Phase.TURN, hands={0: [HELI]})
    s.apply(Roll())
    s.apply(ChanceOutcome("3"))
    with pytest.raises(IllegalMoveError, match="has rolled the die and cannot change its mind"):
        s.apply(Fly(HELI, "L2-5"))


# -- attacking -----------------------------------------------------------------------------------
@pytest.mark.parametrize("at,card,groove,ok", [
    ("R2-5", A_LH, "left_hand", True),          # the groove lies in this space
    ("L2-5", A_RH, "right_hand", True),
    ("L2-5", SPECIAL, "right_hand", True),      # the Special Mission is an Attack Right Hand
    ("R1-2", A_LF, "left_foot", True),          # over a line: from either space bordering it
    ("R1-3", A_LF, "left_foot", True),
    ("R1-4", A_LF, "left_foot", False),
    ("L2-5", A_LH, "right_hand", False),        # the card must name the groove
    ("R2-4", A_LH, "left_hand", False),
])
def test_attacking_a_groove_named_on_a_card_from_where_it_lies(at, card, groove, ok):
    s = position(Phase.ATTACK, pos={0: at}, hands={0: [card]})
    assert (Attack(groove, card) in s.attacks(0)) is ok


def test_an_attack_ends_the_move_in_the_groove_with_the_card_face_up():
    s = position(Phase.MOVE, pos={0: "R2-3"}, roll=2, hands={0: [A_LH, A_LH + 1, HELI]})
    s.apply(Move("R2-5"))
    assert s.phase is Phase.ATTACK and s.legal_actions() == [Attack("left_hand", A_LH), EndTurn()]
    s.apply(Attack("left_hand", A_LH))
    assert s.groove[0] == "left_hand" and s.played[0] == A_LH and s.pos[0] == "R2-5"
    assert s.hands[0] == [A_LH + 1, HELI] and s.current == 1
    assert "red attacks Kong's left hand (in R2-5) from R2-5 with Attack Left Hand" in s.events


def test_attacking_is_optional():
    s = position(Phase.MOVE, pos={0: "R2-3"}, roll=2, hands={0: [A_LH]})
    s.apply(Move("R2-5"))
    s.apply(EndTurn())
    assert s.groove[0] is None and s.hands[0] == [A_LH] and "red does not attack" in s.events


@pytest.mark.parametrize("setup,attack,message", [
    (dict(kong=(4, -1), pos={0: "R1-2"}, hands={0: [A_LF]}), Attack("left_foot", A_LF),
     "the left foot groove is over the track: no pawn fits there"),
    (dict(pos={0: "R2-5", 1: "R2-5"}, hands={0: [A_LH]}, grooves={1: "left_hand"}), Attack("left_hand", A_LH),
     "blue is already in the left hand groove"),
    (dict(pos={0: "R2-5"}, hands={0: [A_RH]}), Attack("left_hand", A_RH),
     "red holds no such card naming the left hand"),
    (dict(pos={0: "R2-4"}, hands={0: [A_LH, A_RF]}), Attack("left_hand", A_LH),
     "the left hand groove is in R2-5, not reachable from R2-4"),
    (dict(pos={0: "R2-5"}, hands={0: [A_LH]}), Attack("tail", A_LH), "Kong has no groove 'tail'"),
])
def test_illegal_attacks_are_refused_with_the_reason(setup, attack, message):
    s = position(Phase.ATTACK, **setup)
    before = str(s)
    with pytest.raises(IllegalMoveError, match=message):
        s.apply(attack)
    assert str(s) == before


# -- escaping ------------------------------------------------------------------------------------
def test_escape_equipment_moves_the_pawn_out_of_the_groove_right_after_the_attack():
    s = position(Phase.ATTACK, pos={0: "R2-5"}, hands={0: [A_LH, ESC2, ESC2 + 1]})
    s.apply(Attack("left_hand", A_LH))
    assert s.phase is Phase.ESCAPE and s.current == 0
    assert spaces(s.legal_actions(), Escape) == set(s.reachable("R2-5", 2))
    assert {a.card for a in s.legal_actions() if isinstance(a, Escape)} == {ESC2}
    with pytest.raises(IllegalMoveError, match="R2-8 is 3 spaces from R2-5, more than 2"):
        s.apply(Escape(ESC2, "R2-8"))
    s.apply(Escape(ESC2, "R3-6"))
    assert s.pos[0] == "R3-6" and s.groove[0] is None and s.played[0] == A_LH and ESC2 in s.discard
    assert s.current == 1


def test_no_escape_or_safety_net_with_the_special_mission():
    s = position(Phase.ATTACK, pos={0: "L2-5"}, hands={0: [SPECIAL, ESC2, NET]})
    s.apply(Attack("right_hand", SPECIAL))
    assert s.current == 1 and s.phase is not Phase.ESCAPE
    s.current, s.phase = 0, Phase.ESCAPE
    with pytest.raises(IllegalMoveError, match="no Escape Equipment with the Special Mission"):
        s.apply(Escape(ESC2, "L2-6"))


# -- Kong's move: who is at risk, and what happens -----------------------------------------------
def test_pawns_in_grooves_and_beside_kongs_path_are_at_risk_elevators_and_start_are_safe():
    s = position(Phase.SPIN_INNER, pos={0: "R2-5", 1: "L1-4", 2: "L-elevator"}, grooves={0: "left_hand"},
                 played={0: A_LH})
    s.twist_steps = ()
    s.apply(ChanceOutcome("U1"))
    risk = s.kong_move.at_risk
    assert [(r.player, r.where, r.group) for r in risk] == [(0, "left_hand", "left_hand"), (1, "L1-4", "adjacent")]
    assert s.chance_event == "kong-move" and len(s.chance_outcomes()) == 9
    assert "red:standing blue:knocked" in s.chance_outcomes()
    assert "Kong will climb 1 notch to notch 5 of 24; at risk: red in the left hand groove, blue on L1-4" in s.events


def test_when_no_pawn_is_at_risk_kongs_move_gives_none():
    s = position(Phase.SPIN_INNER, pos={0: "L3-9", 1: START, 2: "R-elevator"})
    s.apply(ChanceOutcome("U1"))
    assert s.kong_move.at_risk == () and s.chance_outcomes() == ("none",)


@pytest.mark.parametrize("label,message", [
    ("red:standing", "a fate .* for each pawn at risk, in this order: red:FATE blue:FATE"),
    ("blue:standing red:standing", "in this order: red:FATE blue:FATE"),
    ("red:standing blue:flying", "for each pawn at risk"),
    ("none", "for each pawn at risk"),
])
def test_a_kong_move_label_must_give_each_pawn_at_risk_a_fate(label, message):
    s = position(Phase.SPIN_INNER, pos={0: "R2-5", 1: "L1-4"}, grooves={0: "left_hand"}, played={0: A_LH})
    s.apply(ChanceOutcome("U1"))
    with pytest.raises(IllegalMoveError, match=message):
        s.apply(ChanceOutcome(label))
    assert s.phase is Phase.KONG_MOVE


def kong_moves(fates: str, hands=None, played=None, grooves=None, pos=None):
    s = position(Phase.SPIN_INNER, pos=pos or {0: "R2-5", 1: "L2-5", 2: "L1-4"},
                 grooves={0: "left_hand", 1: "right_hand"} if grooves is None else grooves,
                 played=played or {0: A_LH, 1: A_RH},
                 hands=hands)
    s.apply(ChanceOutcome("U1"))
    s.apply(ChanceOutcome(fates))
    return s


def test_a_pawn_left_standing_completes_its_mission_and_stays_on_its_space():
    s = kong_moves("red:standing blue:standing green:standing")
    assert s.kept[:2] == [[A_LH], [A_RH]] and s.played == [None] * 3
    assert s.pos == ["R2-5", "L2-5", "L1-4"] and s.groove == [None] * 3     # the groove has moved away
    assert "red completes the mission (Attack Left Hand): 1 mission" in s.events


@pytest.mark.parametrize("fate", ["knocked", "pushed"])
def test_a_fallen_pawn_goes_back_to_start_and_loses_its_card(fate):
    s = kong_moves(f"red:{fate} blue:standing green:{fate}")
    assert s.pos == [START, "L2-5", START] and s.kept[0] == [] and A_LH in s.discard
    assert "red fails the mission and discards Attack Left Hand" in s.events


def test_a_safety_net_keeps_the_mission_but_the_pawn_goes_back_to_start():
    s = kong_moves("red:knocked blue:pushed green:standing", hands={0: [NET], 1: [NET + 1]})
    assert s.phase is Phase.SAFETY_NET and s.current == 0
    assert s.legal_actions() == [SafetyNet(NET), Decline()]
    s.apply(SafetyNet(NET))
    assert s.kept[0] == [A_LH] and NET in s.discard and s.pos[0] == START
    assert s.phase is Phase.SAFETY_NET and s.current == 1
    s.apply(Decline())
    assert s.kept[1] == [] and A_RH in s.discard and NET + 1 in s.hands[1]
    assert s.round == 2


def test_an_escaped_attacker_completes_the_mission_if_it_stands():
    s = kong_moves("none", grooves={}, played={0: A_LH}, pos={0: "R3-9"})
    assert s.kept[0] == [A_LH]


def test_a_failed_special_mission_is_discarded_even_with_a_safety_net():
    s = kong_moves("red:standing blue:knocked green:standing", hands={1: [NET]}, played={0: A_LH, 1: SPECIAL})
    assert s.phase is not Phase.SAFETY_NET and SPECIAL in s.discard and s.hands[1] == [NET]


# -- winning -------------------------------------------------------------------------------------
@pytest.mark.parametrize("kept,played,fates,winners", [
    ({0: [0, 1, 2, 5]}, {0: A_LH + 3}, "red:standing blue:standing", [0]),                  # five missions
    ({0: [SPECIAL]}, {0: A_LH}, "red:standing blue:standing", [0]),                        # special + one
    ({0: [0, 1, 2, 5], 1: [SPECIAL]}, {0: A_LH + 3, 1: A_RH}, "red:standing blue:standing", [0, 1]),  # shared
    ({0: [0, 1, 2, 5]}, {0: A_LH + 3}, "red:knocked blue:standing", []),
    ({0: [0, 1, 2]}, {0: A_LH + 3}, "red:standing blue:standing", []),
])
def test_winning_at_the_end_of_the_round(kept, played, fates, winners):
    s = position(Phase.SPIN_INNER, pos={0: "R2-5", 1: "L2-5"}, grooves={0: "left_hand", 1: "right_hand"},
                 played=played)
    for p, cards in kept.items():
        s.kept[p] = list(cards)
        s.draw = [c for c in s.draw if c not in cards]
    s.apply(ChanceOutcome("U1"))
    s.apply(ChanceOutcome(fates))
    assert s.winners == winners and s.is_terminal() is bool(winners)
    if len(winners) == 2:
        assert "end of round 1: red and blue share the victory" in s.events


def test_no_win_before_the_end_of_the_round():
    s = position(Phase.ATTACK, pos={0: "R2-5"}, hands={0: [A_LH]})
    s.kept[0] = [A_LH + 1, A_LH + 2, A_LH + 3, A_LH + 4]
    s.apply(Attack("left_hand", A_LH))
    assert not s.is_terminal() and s.current == 1


# -- a new round: the spinner passes, discards, refills ----------------------------------------------
def test_the_spinner_passes_left_and_the_new_round_starts_with_discards_then_refills():
    s = kong_moves("red:standing blue:standing green:standing", hands={0: [HELI], 1: [NET, ESC1], 2: []})
    assert s.spinner == 1 and s.round == 2 and s.order == [1, 2, 0]
    assert "red passes the spinner to blue" in s.events
    assert s.phase is Phase.DISCARD and s.current == 1                  # green has no cards: skipped
    assert s.legal_actions() == [Discard(()), Discard((ESC1,)), Discard((NET,)), Discard((ESC1, NET))]
    s.apply(Discard((NET,)))
    assert s.current == 0
    s.apply(Discard(()))
    assert [len(h) for h in s.hands] == [3, 3, 3] and NET in s.discard
    assert s.current == 1 and s.phase in (Phase.TURN, Phase.DIE)


def test_a_reshuffle_happens_mid_refill():
    s = position(Phase.SPIN_INNER, pos={0: "R2-5"}, grooves={0: "left_hand"}, played={0: A_LH})
    s.discard, s.draw = s.draw[2:], s.draw[:2]
    s.apply(ChanceOutcome("U1"))
    s.apply(ChanceOutcome("red:standing"))
    assert s.phase is Phase.SHUFFLE and len(s.hands[1]) == 2 and s.hands[2] == []   # blue drew two
    pile = s.shuffle_pile()
    assert pile == sorted(pile) and len(pile) == 38 - 1 - 2
    s.apply(ChanceOutcome(" ".join(map(str, reversed(pile)))))
    assert [len(h) for h in s.hands] == [3, 3, 3] and s.discard == []
    assert "the draw pile is empty: the discard pile (35 cards) is shuffled into a new draw pile" in s.events


# -- illegal actions, replay ---------------------------------------------------------------------
@pytest.mark.parametrize("phase,action,message", [
    (Phase.DIE, Move("L1-1"), "the die must be answered first"),
    (Phase.MOVE, ChanceOutcome("3"), "no chance event is pending"),
    (Phase.MOVE, Pass(), "a legal move exists, so the 3 must be used"),
    (Phase.MOVE, Attack("left_hand", A_LH), "red must now decide move"),
    (Phase.TURN, Fly(A_LH, "L1-1"), "^fly by Helicopter Ride to L1-1: red holds no such Helicopter Ride card$"),
    (Phase.TURN, Fly(HELI, START), "a pawn must move at least one space"),
    (Phase.SPIN_OUTER, ChanceOutcome("L3"), "the spin-outer cannot give 'L3'"),
    (Phase.SPIN_INNER, ChanceOutcome("U4"), "the spin-inner cannot give 'U4'"),
    (Phase.DISCARD, Discard((A_RH,)), r"^discard Attack Right Hand: red does not hold all of these cards \(hand: "
                                      r"Attack Left Hand, Helicopter Ride, Safety Net\)$"),
    (Phase.SAFETY_NET, SafetyNet(A_LH), "^play the Safety Net: red holds no such Safety Net card$"),
])
def test_illegal_actions_raise_and_leave_the_state_unchanged(phase, action, message):
    s = position(phase, hands={0: [A_LH, HELI, NET]}, roll=3, played={0: A_LF})
    before = (str(s), list(s.events), list(s.history), list(s.draw), list(s.discard))
    with pytest.raises(IllegalMoveError, match=message) as refused:
        s.apply(action)
    assert not re.search(r"card \d|cards? \[", str(refused.value))     # cards by name, never by number
    assert (str(s), list(s.events), list(s.history), list(s.draw), list(s.discard)) == before


def test_a_finished_game_refuses_every_action():
    s = position(Phase.SPIN_INNER, kong=(KONG.top - 1, 0))
    s.apply(ChanceOutcome("U1"))
    with pytest.raises(IllegalMoveError, match="the game is over"):
        s.apply(ChanceOutcome("1"))


def test_players_and_files_are_checked():
    with pytest.raises(ValueError, match="2-6 players, not 7"):
        Game(players=7)
    with pytest.raises(ValueError, match="2-6 players, not 1"):
        Game(players=1)
    assert Path(BOARD_FILE).exists() and Game(players=6).players == 6
    assert isinstance(GAME.geometry, Geometry)
