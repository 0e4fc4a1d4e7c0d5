"""Each seat's view (GameDefinition.seat_view): for every registered game a JSON-able dict with the
turn, whose decision it is, the log as that seat may read it and the public position; King Kong's
adds the seat's own hand and nothing of another's but its size."""
from __future__ import annotations

import json

import pytest

from tabletop.gamekit.seats import RandomSeat
from tabletop.gamekit.state import SeatLine
from tabletop.gamekit.registry import GAMES


def played(definition, turns: int, seed: int = 1):
    """A game of `definition` by random seats on the measured tables, `turns` turns in."""
    from tabletop.gamekit.outcomes import play_outcomes
    from tabletop.gamekit.match import Match

    lo, hi = definition.seats
    options = definition.check_options({})
    outcomes = play_outcomes(definition, "measured")
    seats = ["random"] * min(max(lo, 3), hi)
    state = definition.make_game(definition.replay_config(seats, outcomes, options)).new_initial_state()
    source = definition.make_source(outcomes)
    match = Match(state, [RandomSeat()] * len(seats), source, seed)
    while not match.is_over() and state.turn < turns:
        match.step()
    source.close()
    return state


@pytest.mark.parametrize("name", GAMES)
def test_every_game_has_a_view_for_each_seat_and_a_spectator(name):
    definition = GAMES[name]
    state = played(definition, 6)
    for seat in [*range(min(max(definition.seats[0], 3), definition.seats[1])), None]:
        view = definition.seat_view(state, seat)
        json.dumps(view)
        assert view["turn"] == state.turn and view["over"] == state.is_terminal()
        assert set(view) >= {"turn", "to_move", "chance", "over", "winner", "log", "position"}
        assert view["to_move"] in (None, *definition.colours)
        assert len(view["log"]) <= len(state.events)


@pytest.mark.parametrize("name", GAMES)
def test_a_view_since_a_line_holds_only_the_lines_after_it(name):
    definition = GAMES[name]
    state = played(definition, 4)
    whole = definition.seat_view(state, None)["log"]
    n = len(state.events) // 2
    assert definition.seat_view(state, None, since=len(state.events))["log"] == []
    tail = definition.seat_view(state, None, since=n)["log"]
    assert whole[len(whole) - len(tail):] == tail


def test_a_kong_seat_sees_its_own_hand_and_only_the_sizes_of_the_others():
    definition = GAMES["king-kong"]
    state = played(definition, 8)
    deck = state.game.deck
    for seat in range(state.game.players):
        view = definition.seat_view(state, seat)
        assert [c["card"] for c in view["hand"]] == sorted(state.hands[seat])
        assert [c["name"] for c in view["hand"]] == [str(deck[c]) for c in sorted(state.hands[seat])]
        sizes = view["position"]["hand_sizes"]
        assert sizes == {definition.colours[p]: len(state.hands[p]) for p in range(state.game.players)}
        assert view["position"]["draw_pile"] == len(state.draw)
        private = [line for line in state.events if isinstance(line, SeatLine)]
        assert private
        for line in private:
            if line.seat == seat:
                assert str(line) in view["log"]
            else:
                assert str(line) not in view["log"]
    spectator = definition.seat_view(state, None)
    assert "hand" not in spectator
    assert not any(str(line) in spectator["log"] for line in state.events if isinstance(line, SeatLine))
    text = json.dumps(definition.public_position(state))
    assert "hand\"" not in text and "phase" not in text


def test_the_shuffled_pile_is_in_no_view():
    """The shuffle's label is the whole draw pile in order: no view holds it."""
    definition = GAMES["king-kong"]
    state = played(definition, 3)
    shuffle = next(str(a.label) for a in state.history if hasattr(a, "label") and len(str(a.label).split()) > 10)
    for seat in [*range(state.game.players), None]:
        assert shuffle not in json.dumps(definition.seat_view(state, seat))
