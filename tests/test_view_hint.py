"""The hint (H in the window, off by default): the human's win probability, each choice's and the
best move lit, exact from the solved game (Knossos here: its solution's values to the last digit);
none in a game of hidden cards, none where the game is not solved (each says why); where the solve
takes minutes (King of the Hill for two), H offers to make it in the background, with its progress
in the window, and the hint uses it from then on."""
from __future__ import annotations

import pytest
from direct.showbase.MessengerGlobal import messenger

from tabletop.gamekit.chance import measured_tables
from tabletop.games.king_of_the_hill import solve as koth_solve
from tabletop.gamekit.registry import GAMES
from tests.test_view import open_window, step, until_a_choice, until_human_moves  # noqa: F401  (a fixture, helpers)


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


# -- a solve that takes minutes, made in the background ----------------------------------------------

def quick_job(definition, config, tables, tell):
    """A stand-in for a solve (run in the other process by BackgroundSolve): its progress, its pid."""
    import os
    import time

    for fraction in (0.2, 0.5, 0.9):
        tell("progress", fraction, f"step {fraction} in process {os.getpid()}")
        time.sleep(0.3)


def failing_job(definition, config, tables, tell):
    tell("progress", 0.1, "about to fail")
    raise ValueError("the tables do not add up")


class FakeSolve:
    """The window's hint_solver, driven by the test: `result` None while it runs."""

    made: list = []

    def __init__(self, definition, config, tables):
        self.config, self.tables = config, tables
        self.doing, self.result, self.cancelled = "building", None, False
        FakeSolve.made.append(self)

    def poll(self):
        return self.result

    def line(self) -> str:
        return f"solving for the hint: {self.doing}  [####................] 0:07"

    def elapsed(self) -> str:
        return "3:58"

    def cancel(self) -> None:
        self.cancelled = True


def test_the_hint_offers_to_solve_in_the_background_and_uses_it_from_then_on(open_window, monkeypatch):  # noqa: F811
    """King of the Hill for two, its solve not made (minutes): H asks whether to solve it in the
    background; yes starts it and the game goes on (a move is played meanwhile) with its progress in
    the status panel; once it is done the hint shows the solved values, and H off and on again, or a
    new game, asks nothing more."""
    monkeypatch.setattr(koth_solve, "is_cached", lambda tables: False)    # the solve not made yet
    app, ctrl = open_window("king-of-the-hill", ["human", "ai"], seed=3)
    ctrl.hint_solver = FakeSolve
    FakeSolve.made.clear()
    until_human_moves(ctrl)
    messenger.send("h")
    assert not ctrl.hint and ctrl.question is not None
    shown = ctrl.hud.question_shown()
    assert shown.startswith("Solve the game for the hint?") and "background" in shown and "minutes" in shown
    assert "tabletop analyze" not in shown + ctrl.hud.notice.getText()
    messenger.send("escape")                                      # not now
    assert not ctrl.hint and not FakeSolve.made and "no hint" in ctrl.hud.notice.getText()
    messenger.send("h")
    messenger.send("y")                                           # solve it
    job, = FakeSolve.made
    assert ctrl.solving is job and ctrl.hint and set(job.tables) >= {"tipper", "crater"}
    assert "solving for the hint: building" in ctrl.hud.status.getText()
    turn = ctrl.state.turn
    step(ctrl)                                                    # the game goes on meanwhile
    until_human_moves(ctrl)
    assert ctrl.state.turn > turn
    job.doing = "values settling, sweep 40"
    ctrl._solve_task(type("Task", (), {"cont": 1})())
    assert "values settling, sweep 40" in ctrl.hud.status.getText()

    def values(state):
        return [0.625, 0.375]
    job.result = ("done", values)
    ctrl._solve_task(type("Task", (), {"cont": 1})())
    assert ctrl.solving is None and ctrl.hint
    assert "solved" in ctrl.hud.notice.getText() and "hint is on" in ctrl.hud.notice.getText()
    status = ctrl.hud.status.getText()
    assert "red wins 62.5% with the best move" in status and "solving" not in status
    assert all("(62.5%)" in text for text, _ in ctrl.choices)
    messenger.send("h")                                           # off, and on again: no question
    messenger.send("h")
    assert ctrl.hint and ctrl.question is None and "62.5%" in ctrl.hud.status.getText()
    ctrl.new_game()                                               # a new game of the same rules
    until_human_moves(ctrl)
    assert ctrl.hint and ctrl.question is None and "62.5%" in ctrl.hud.status.getText()
    assert len(FakeSolve.made) == 1


def test_the_background_solve_runs_in_another_process_while_the_window_draws(open_window):  # noqa: F811
    """BackgroundSolve: the job runs in another process, its progress comes back in order while the
    window draws its frames, then the solution is loaded here (Knossos's, quick)."""
    import os
    import time

    from tabletop.gamekit.view.solving import BackgroundSolve

    app, ctrl = open_window("knossos", ["human", "ai"], seed=5)
    definition = GAMES["knossos"]
    job = BackgroundSolve(definition, ctrl.config, measured_tables(["sticks"]), job="tests.test_view_hint:quick_job")
    seen, frames = [], []
    deadline = time.monotonic() + 60
    while job.poll() is None and time.monotonic() < deadline:
        began = time.monotonic()
        app.render_frame()
        frames.append(time.monotonic() - began)
        if not seen or seen[-1] != job.doing:
            seen.append(job.doing)
        time.sleep(0.01)
    kind, values = job.poll()
    assert kind == "done", values
    pids = {text.rsplit(" ", 1)[1] for text in seen if text.startswith("step")}
    assert [text.split(" in ")[0] for text in seen if text.startswith("step")] == ["step 0.2", "step 0.5", "step 0.9"]
    assert pids and str(os.getpid()) not in pids                  # another process
    assert len(frames) > 20 and max(frames) < 1.0                  # the window drew on meanwhile
    v = values(ctrl.state)
    assert len(v) == 2 and abs(sum(v) - 1.0) < 1e-9


def test_a_failed_background_solve_is_one_line_in_the_window(open_window, monkeypatch):  # noqa: F811
    import time

    from tabletop.gamekit.view.solving import BackgroundSolve

    monkeypatch.setattr(koth_solve, "is_cached", lambda tables: False)
    app, ctrl = open_window("king-of-the-hill", ["human", "ai"], seed=3)
    ctrl.hint_solver = lambda d, c, t: BackgroundSolve(d, c, t, job="tests.test_view_hint:failing_job")
    until_human_moves(ctrl)
    messenger.send("h")
    messenger.send("enter")                                       # Enter says yes too
    deadline = time.monotonic() + 60
    while ctrl.solving is not None and time.monotonic() < deadline:
        app.render_frame()
        time.sleep(0.02)
    notice = ctrl.hud.notice.getText()
    assert notice == "the solve failed: ValueError: the tables do not add up" and not ctrl.hint
    assert "Traceback" not in notice and "\n" not in notice


def test_king_of_the_hills_solve_tells_its_progress(monkeypatch, tmp_path):
    """The solve the hint makes in the background tells its progress (a small hill, solved afresh):
    from 0 while the table of positions is built, rising with the sweeps, to "values settled"."""
    from tabletop.games.king_of_the_hill.rules import Game
    from tests.test_koth_solve import SKEWED, SMALL

    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path))           # (no hill mesh is built: rules alone)
    monkeypatch.setattr(koth_solve, "_SOLVED", {})
    told = []
    values = GAMES["king-of-the-hill"].solved_values(Game(players=2, board=SMALL), SKEWED,
                                                     progress=lambda f, doing: told.append((f, doing)))
    fractions = [f for f, _ in told]
    assert told[0] == (0.0, "building the table of every position")
    assert fractions == sorted(fractions) and len(told) >= 4
    assert told[-1] == (0.9, "values settled; the best moves worked out and saved")
    assert any(doing.startswith("values settling, sweep ") for _, doing in told)
    state = Game(players=2, board=SMALL).new_initial_state()
    assert sum(values(state)) == pytest.approx(1.0)
