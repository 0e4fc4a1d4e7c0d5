"""Taking back a decision: Match.undo takes back the latest decision of the given seats since the
last chance event, and the decisions after it, with the seats' generator (so the same seats choose
the same again); never across a chance event. In the window: Ctrl+Z and Ctrl+Y (and their buttons),
the log and the table as before, and the recording keeps what was played, not what was taken back."""
from __future__ import annotations

import pytest

from tabletop.gamekit.match import Match
from tabletop.gamekit.record import encode_action
from tabletop.gamekit.registry import GAMES
from tests.test_view import open_window, until_a_choice  # noqa: F401  (a fixture and a helper)


def _kk_match(seed: int):
    from tabletop.gamekit.outcomes import play_outcomes

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


def _kk_hotseat_handover(open_window):  # noqa: F811
    """Hotseat King Kong (red and blue human, green AI) on to the moment red's turn is over with a
    decision of red's that Ctrl+Z could take back, blue to act next: the window asks red to pass
    the screen."""
    from direct.showbase.MessengerGlobal import messenger

    from tests.test_view import step

    app, ctrl = open_window("king-kong", ["human", "human", "ai"], seed=5)
    ctrl.curtain_hold = 0.0
    for _ in range(600):
        if ctrl.curtain:
            messenger.send("enter")                  # the player to act says they are ready
        elif ctrl.handing_over is not None and ctrl.match.can_undo({ctrl.at_screen}):
            return app, ctrl
        elif ctrl.handing_over is not None:
            messenger.send("enter")                  # passes the screen
        else:
            step(ctrl)
    raise AssertionError("no hand-over after an undoable decision")


@pytest.mark.slow
def test_blues_ctrl_z_in_hotseat_king_kong_cannot_take_back_reds_move(open_window):  # noqa: F811
    """Two humans at one screen (King Kong, red and blue): red's decisions since the last chance
    event stand once blue is at the screen. Blue's Ctrl+Z (and the Undo button) takes back nothing
    and says why; red's own Ctrl+Z, before passing the screen, takes back red's decision."""
    from direct.showbase.MessengerGlobal import messenger

    app, ctrl = _kk_hotseat_handover(open_window)
    red, blue = ctrl.at_screen, ctrl.handing_over
    assert (red, blue) == (0, 1)
    history = list(ctrl.state.history)
    assert ctrl.match.can_undo({red, blue})          # the old Ctrl+Z (every human seat's) would take it back
    messenger.send("enter")                          # red passes the screen
    assert ctrl.curtain and ctrl.at_screen is None
    messenger.send("control-z")                      # behind the curtain: nothing
    assert ctrl.state.history == history
    messenger.send("enter")                          # blue is ready
    assert not ctrl.curtain and ctrl.seat_at_screen() == blue
    assert ctrl.hud.buttons["undo"]["state"] == "disabled"
    messenger.send("control-z")
    assert ctrl.state.history == history, "blue's Ctrl+Z took back red's move"
    notice = ctrl.hud.notice.getText()
    assert notice.startswith("nothing to take back") and "blue may take back only blue's own" in notice, notice
    ctrl.hud.buttons["undo"]["command"]()            # the button alike
    assert ctrl.state.history == history
    messenger.send("control-y")
    assert ctrl.state.history == history


@pytest.mark.slow
def test_the_mover_takes_back_their_own_move_before_passing_the_screen(open_window):  # noqa: F811
    """Red's turn is over and red has not passed the screen yet: red's Ctrl+Z takes back red's own
    decision and the AI's after it (the hand-over is gone: red decides again), Ctrl+Y plays it again
    and the hand-over comes back."""
    from direct.showbase.MessengerGlobal import messenger

    app, ctrl = _kk_hotseat_handover(open_window)
    red = ctrl.at_screen
    after = list(ctrl.state.history)
    messenger.send("control-z")
    assert ctrl.hud.notice.getText().startswith("taken back: ")
    s = ctrl.state
    assert len(s.history) < len(after) and s.history == after[:len(s.history)]
    assert s.current_player == red and not s.is_chance_node() and ctrl.handing_over is None
    assert ctrl.choices and not ctrl.hud.banner.getText()
    messenger.send("control-y")
    ctrl.finish_animation()
    assert ctrl.hud.notice.getText().startswith("played again: ")
    while ctrl.handing_over is None and not ctrl.curtain:     # the AI's replies, the same again
        from tests.test_view import step
        step(ctrl)
    assert list(ctrl.state.history) == after and ctrl.handing_over is not None


def test_undo_never_takes_back_another_outside_seats_decision():
    """Match.undo({1}) takes back seat 1's latest decision and the AI seats' after it, never a
    decision of another seat the match does not play (seat 0, a human): then nothing."""
    match, source = _kk_match(4)
    try:
        match.seats[1] = None                        # two human seats: 0 and 1
        for _ in range(400):
            s = match.state
            if match.is_over():
                break
            players = [e[4] for e in match._undo]
            if 0 in players and 1 in players and players.index(1) < len(players) - 1 - players[::-1].index(0):
                break                                # seat 0 decided after seat 1
            if s.chance_event is not None:
                match.step()
            elif match.seats[s.current_player] is None:
                match.apply(s.legal_actions()[-1])
            else:
                match.step()
        else:
            raise AssertionError("no decision of seat 0 after seat 1's")
        history = list(match.state.history)
        assert not match.can_undo({1}) and match.undo({1}) is None and match.state.history == history
        assert match.can_undo({0}) and match.undo({0}) is not None
    finally:
        source.close()
