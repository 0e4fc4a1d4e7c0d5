"""Taking back a decision: Match.undo takes back the latest decision of the given seats since the
last chance event, and the decisions after it, with the seats' generator (so the same seats choose
the same again); never across a chance event. In the window: Ctrl+Z and Ctrl+Y (and their buttons),
the log and the table as before, and the recording keeps what was played, not what was taken back."""
from __future__ import annotations

import pytest

from tabletop.gamekit.match import Match
from tabletop.gamekit.record import encode_action
from tabletop.games.registry import GAMES
from tests.test_view import open_window, until_a_choice  # noqa: F401  (a fixture and a helper)


def _kk_match(seed: int):
    from tabletop.app.sources import play_outcomes

    definition = GAMES["king-kong"]
    source = definition.make_source(play_outcomes(definition, "measured"))
    config = definition.replay_config(["human", "random", "random"], "measured", {})
    state = definition.make_game(config).new_initial_state()
    seats = [None] + [definition.make_seat("random", source, {}) for _ in range(2)]
    return Match(state, seats, source, seed, undo=True), source


def _to_human_decision(match) -> None:
    while not match.is_over():
        s = match.state
        if s.chance_event is None and s.current_player == 0 and len(s.legal_actions()) > 1:
            return
        match.step() if s.chance_event is not None or s.current_player != 0 else match.apply(s.legal_actions()[0])


def test_undo_takes_back_the_humans_decision_and_the_seats_after_it_who_then_choose_the_same():
    match, source = _kk_match(4)
    try:
        for _ in range(6):                                   # several human decisions in one game
            _to_human_decision(match)
            if match.is_over():
                break
            before = (match.state.clone(), list(match.lines), match.seeds.seats.bit_generator.state)
            legal = match.state.legal_actions()
            action = legal[-1]
            match.apply(action)
            while not match.is_over() and match.state.chance_event is None and match.state.current_player != 0:
                match.step()                                 # the random seats answer, no chance between
            after = [encode_action(GAMES["king-kong"], a) for a in match.state.history]
            assert match.undo({0}) == action
            assert match.state.history == before[0].history and match.lines == before[1]
            assert match.seeds.seats.bit_generator.state == before[2]
            assert match.redo_action() == action
            match.apply(action)                              # played again: the seats choose the same
            while not match.is_over() and match.state.chance_event is None and match.state.current_player != 0:
                match.step()
            assert [encode_action(GAMES["king-kong"], a) for a in match.state.history] == after
            if match.state.chance_event is not None:
                match.step()
                assert match.undo({0}) is None               # never across a chance event
    finally:
        source.close()


@pytest.mark.slow
def test_the_window_takes_back_and_plays_again_and_records_only_what_was_played(open_window, tmp_path):  # noqa: F811
    from direct.showbase.MessengerGlobal import messenger

    from tabletop.gamekit.replay import verify
    from tabletop.sim.record import ReplayFile

    path = tmp_path / "undo.ttr"
    app, ctrl = open_window("knossos", ["human", "ai"], seed=5, record=path, options={"games_to_win": 1})
    until_a_choice(ctrl)                                 # a human decision with a choice of moves
    s = ctrl.state
    first, other = s.legal_actions()[0], s.legal_actions()[-1]
    assert first != other
    history, lines, log = list(s.history), list(ctrl.match.lines), list(ctrl.hud.lines)
    ctrl.act(first)                                      # a move (as a click on its lit space plays it)
    ctrl.finish_animation()
    moved = list(ctrl.state.history)
    assert moved != history and ctrl.hud.buttons["undo"]["state"] == "normal"
    messenger.send("control-z")
    assert ctrl.state.history == history and ctrl.match.lines == lines and ctrl.hud.lines == log
    assert ctrl.hud.notice.getText().startswith("taken back: ")
    assert ctrl.hud.buttons["redo"]["state"] == "normal"
    messenger.send("control-y")                          # played again
    ctrl.finish_animation()
    assert ctrl.state.history == moved
    ctrl.hud.buttons["undo"]["command"]()                # the button takes it back again
    assert ctrl.state.history == history
    ctrl.act(other)                                      # another move: nothing left to play again
    ctrl.finish_animation()
    taken = list(ctrl.state.history)
    messenger.send("control-y")
    assert ctrl.state.history == taken and "nothing to play again" in ctrl.hud.notice.getText()
    assert taken != moved and ctrl.state.is_chance_node()
    ctrl.chance()                                        # the AI's throw
    ctrl.finish_animation()
    thrown = list(ctrl.state.history)
    messenger.send("control-z")                          # after a throw: what chance gave stands
    assert ctrl.state.history == thrown and ctrl.hud.notice.getText().startswith("nothing to take back")
    assert ctrl.hud.buttons["undo"]["state"] == "disabled"
    ctrl.fast_forward(10 ** 6)
    ctrl.close()
    replay = ReplayFile.open(path)
    recorded = [step["action"] for turn in replay.turns for step in turn.steps]
    assert recorded == [encode_action(GAMES["knossos"], a) for a in ctrl.state.history]
    assert verify(replay, GAMES["knossos"]).turns == ctrl.state.turn
