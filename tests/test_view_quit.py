"""Quitting asks first while a game is in progress: Q (or Esc) puts a question in a box over the
window; Q again or Y quits, any other key, a click on the table or the Stay button stays (and that
key does nothing else). A finished game quits at once. A window that plays elsewhere puts its own
words in the question (quit_question)."""
from __future__ import annotations

import pytest

pytest.importorskip("panda3d")

from direct.showbase.MessengerGlobal import messenger  # noqa: E402

from tests.test_view import open_window  # noqa: E402,F401  (a fixture)


def _quits(ctrl) -> list:
    quits = []
    ctrl.quit = lambda: quits.append(ctrl.state.turn)     # (the real one closes the window and exits)
    return quits


def test_q_asks_before_quitting_a_game_in_progress(open_window, tmp_path):  # noqa: F811
    app, ctrl = open_window("knossos", ["human", "ai"], seed=5, record=tmp_path / "k.ttr")
    quits = _quits(ctrl)
    history = list(ctrl.state.history)
    messenger.send("q")
    assert quits == [] and ctrl.question is not None
    shown = ctrl.hud.question_shown()
    assert shown.startswith("Quit the game?") and "not over" in shown and "k.ttr" in shown, shown
    assert "--continue" in shown
    assert ctrl.hud.question_yes["text"] == "Quit  [Q or Y]" and ctrl.hud.question_no["text"] == "Stay  [Esc]"
    messenger.send("escape")                         # Esc: stay
    assert quits == [] and ctrl.question is None and ctrl.hud.question_shown() == ""
    assert "stay" in ctrl.hud.notice.getText()
    messenger.send("q")
    messenger.send("space")                          # any other key: stay, and the key does nothing else
    assert quits == [] and ctrl.question is None and ctrl.state.history == history
    messenger.send("escape")                         # Esc asks too
    assert ctrl.question is not None
    ctrl.click(0.0, 0.0)                             # a click on the table: stay
    assert quits == [] and ctrl.question is None
    messenger.send("q")
    messenger.send("q")                              # Q again: quit
    assert quits == [0]
    quits.clear()
    messenger.send("q")
    messenger.send("y")                              # or Y
    assert len(quits) == 1
    quits.clear()
    messenger.send("q")
    ctrl.hud.question_no["command"]()                # the Stay button
    assert quits == [] and ctrl.question is None
    messenger.send("q")
    ctrl.hud.question_yes["command"]()               # the Quit button
    assert len(quits) == 1


def test_the_game_waits_while_the_question_is_asked(open_window):  # noqa: F811
    """An AI seat to act does not act while the quit question is on the screen."""
    from panda3d.core import ClockObject

    app, ctrl = open_window("knossos", ["ai", "ai"], seed=5)
    _quits(ctrl)
    ctrl.finish_animation()
    messenger.send("q")
    history = list(ctrl.state.history)
    task = type("Task", (), {"cont": 1})()
    for _ in range(30):
        ctrl._update(task)
        ClockObject.get_global_clock().tick()
    assert ctrl.state.history == history and ctrl.anim is None
    messenger.send("escape")
    for _ in range(5):
        ctrl._update(task)
    assert ctrl.state.history != history or ctrl.anim is not None


def test_a_finished_game_quits_at_once(open_window):  # noqa: F811
    app, ctrl = open_window("knossos", ["ai", "ai"], seed=5, options={"games_to_win": 1})
    quits = _quits(ctrl)
    assert ctrl.quit_question() is not None
    ctrl.fast_forward(10 ** 6)
    assert ctrl.state.is_terminal() and ctrl.quit_question() is None
    messenger.send("q")
    assert quits and ctrl.question is None


def test_a_window_puts_its_own_words_in_the_question(open_window):  # noqa: F811
    """quit_question() is the hook: the online window says its seat is kept, for how long."""
    app, ctrl = open_window("knossos", ["human", "ai"], seed=5)
    quits = _quits(ctrl)
    ctrl.quit_question = lambda: "Your seat is kept for 60 s: tabletop join takes it back."
    messenger.send("q")
    assert "Your seat is kept for 60 s" in ctrl.hud.question_shown()
    messenger.send("y")
    assert quits


def test_n_asks_before_leaving_a_game_in_progress_for_a_new_one(open_window, tmp_path):  # noqa: F811
    app, ctrl = open_window("knossos", ["human", "ai"], seed=5, record=tmp_path / "k.ttr")
    while not ctrl.state.history:                    # a game under way: its first throw made
        ctrl.chance()
        ctrl.finish_animation()
    history = list(ctrl.state.history)
    messenger.send("n")
    shown = ctrl.hud.question_shown()
    assert shown.startswith("Start a new game?") and "k.ttr" in shown and "--continue" in shown, shown
    messenger.send("escape")                         # stay: the same game
    assert ctrl.question is None and ctrl.state.history == history
    messenger.send("n")
    messenger.send("y")                              # yes: a new game, from its start
    assert ctrl.question is None and ctrl.state.history != history
