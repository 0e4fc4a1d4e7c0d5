"""The hint (H in the window, off by default): the human's win probability, each choice's and the
best move lit, exact from the solved game (Knossos here: its solution's values to the last digit);
none in a game of hidden cards, none where the game is not solved (each says why)."""
from __future__ import annotations

from direct.showbase.MessengerGlobal import messenger

from tabletop.gamekit.chance import measured_tables
from tabletop.games.registry import GAMES
from tests.test_view import open_window, until_a_choice, until_human_moves  # noqa: F401  (a fixture, helpers)


def test_the_hint_gives_the_solved_values_and_lights_the_best_move(open_window):  # noqa: F811
    from tabletop.games.knossos.solve import solve

    app, ctrl = open_window("knossos", ["human", "ai"], seed=5)
    until_a_choice(ctrl)                                 # a human decision with a choice of moves
    s = ctrl.state
    assert not ctrl.hint and "hint" not in ctrl.hud.status.getText()          # off by default
    messenger.send("h")
    assert ctrl.hint and ctrl.hud.notice.getText().startswith("hint on")
    solution = solve(measured_tables(["sticks"])["sticks"], s.game.games_to_win, exit_rule=s.game.exit_rule)
    values = []
    for action in s.legal_actions():
        after = s.clone()
        after.apply(action)
        values.append(solution.value(after, 0))
    best = max(values)
    assert f"red wins {100 * solution.value(s, 0):.1f}% with the best move" in ctrl.hud.status.getText()
    marked = [text for text, _ in ctrl.choices if text.endswith("<- best")]
    assert len(marked) == 1 and f"({100 * best:.1f}%)" in marked[0]
    assert all("%)" in text for text, _ in ctrl.choices)
    messenger.send("h")                                                       # off again
    assert not ctrl.hint and not any("%)" in text for text, _ in ctrl.choices)
    assert "hint" not in ctrl.hud.status.getText()


def test_no_hint_where_it_would_see_hidden_cards(open_window):  # noqa: F811
    app, ctrl = open_window("king-kong", ["human", "ai", "ai"], seed=2)
    messenger.send("h")
    assert not ctrl.hint and "hidden cards" in ctrl.hud.notice.getText()


def test_no_hint_where_the_game_is_not_solved(open_window):  # noqa: F811
    app, ctrl = open_window("king-of-the-hill", ["human", "ai", "ai"], seed=2)
    until_human_moves(ctrl)
    messenger.send("h")
    assert "not solved" in ctrl.hud.notice.getText() and not any("%)" in text for text, _ in ctrl.choices)
    assert GAMES["king-of-the-hill"].solved_values(ctrl.state.game, measured_tables(["tipper", "crater"])) is None
