"""The review panel of the playback window (`tabletop replay FILE --review [REVIEW.json]`): at each
step the seats' win probabilities before it and what the step is worth (a decision's grade and
loss, the best move where another was played; a chance event's luck and its gadget's bias), the
players' summary at the end; R shows and hides it."""
from __future__ import annotations

import json

import pytest
from direct.showbase.MessengerGlobal import messenger

from tabletop.sim.errors import InputError
from tabletop.sim.view.app import ViewError


@pytest.fixture
def reviewed(tmp_path):
    """A short Knossos game recorded and reviewed (exact): (the replay, the review)."""
    from tabletop.app.requests import ReviewRequest
    from tabletop.app.review import review
    from tabletop.gamekit.outcomes import play_outcomes
    from tabletop.gamekit.registry import GAMES

    path = tmp_path / "kn.ttr"
    definition = GAMES["knossos"]
    definition.play_headless(["ai", "solved"], 3, play_outcomes(definition, "measured"), path,
                             {"games_to_win": 1}, lambda line: None)
    data = review(ReviewRequest(file=path, out=tmp_path / "review.json")).to_dict()
    return path, data


def test_the_review_panel_follows_the_playback_and_r_hides_it(reviewed, tmp_path):
    from tabletop.gamekit.view.playback import open_replay
    from tabletop.gamekit.registry import GAMES

    path, data = reviewed
    try:
        app, window, _ = open_replay(path, GAMES, size=(1280, 720), offscreen=True, review=data)
    except ViewError as exc:
        pytest.skip(f"no graphics pipe: {exc}")
    try:
        graded = next(r for r in data["steps"] if r["kind"] == "decision" and r.get("grade") is not None)
        chance = next(r for r in data["steps"] if r["kind"] == "chance")
        window.seek(window.timeline.steps[graded["index"]].start + 1e-6)
        text = window.hud.status.getText()
        colour = data["colours"][graded["seat"]]
        assert "REVIEW (exact)" in text and f"{colour}'s move: {graded['grade']}, loss" in text.replace("\n", " ")
        assert f"{data['colours'][0]} {100 * graded['before'][0]:.1f}%" in text
        window.seek(window.timeline.steps[chance["index"]].start + 1e-6)
        assert f"luck {100 * chance['luck'][chance['seat']]:+.1f}%" in window.hud.status.getText().replace("\n", " ")
        window.seek(window.timeline.duration)
        assert "accuracy" in window.hud.status.getText()
        app.render_frame()
        app.screenshot(tmp_path / "review-panel.png")
        messenger.send("r")
        assert "REVIEW" not in window.hud.status.getText()
        messenger.send("r")
        assert "REVIEW" in window.hud.status.getText()
    finally:
        app.destroy()


def test_a_review_of_another_game_or_no_review_at_all_is_one_line(reviewed, tmp_path):
    from tabletop.app.review import playback_review as _review_of
    from tabletop.app.requests import ReplayRequest

    path, data = reviewed
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**data, "file": "another.ttr"}))
    with pytest.raises(InputError, match="reviews another.ttr, not kn.ttr"):
        _review_of(ReplayRequest(file=path, review=str(other)))
    (tmp_path / "bad.json").write_text("[]")
    with pytest.raises(InputError, match="is not a review"):
        _review_of(ReplayRequest(file=path, review=str(tmp_path / "bad.json")))
    with pytest.raises(InputError, match="only in the playback window"):
        ReplayRequest(file=path, review="", summary=True)
    assert _review_of(ReplayRequest(file=path, review=str(tmp_path / "review.json")))["steps"] == data["steps"]


def test_a_review_worked_out_while_the_window_is_open_shows_its_progress(reviewed):
    """replay FILE --review with no file: the window opens at once, the review panel shows the
    review's progress (its time left) until the review comes, then the review; R hides either."""
    from tabletop.app.replays import follow_review
    from tabletop.gamekit.view.playback import open_replay
    from tabletop.gamekit.registry import GAMES

    path, data = reviewed

    class Pending:                  # a BackgroundReview that is told what to say
        finished = False
        said = (None, "reviewing: 40% done in 12 s, about 18 s left")

        def poll(self):
            return self.said

    pending = Pending()
    try:
        app, window, _ = open_replay(path, GAMES, size=(1280, 720), offscreen=True)
    except ViewError as exc:
        pytest.skip(f"no graphics pipe: {exc}")
    try:
        status = lambda: window.hud.status.getText().replace("\n", " ")
        assert "REVIEW" not in status()
        follow_review(app, window, pending)
        assert "REVIEW reviewing: 40% done in 12 s, about 18 s left" in status()
        messenger.send("r")
        assert "REVIEW" not in status()
        messenger.send("r")
        pending.said = (None, "reviewing: 90% done in 27 s, about 3 s left")
        app.base.task_mgr.step()
        assert "about 3 s left" in status()
        pending.said, pending.finished = (data, ""), True
        app.base.task_mgr.step()
        assert "REVIEW (exact)" in status() and "about 3 s left" not in status()
        assert not app.base.task_mgr.getTasksNamed("review-progress")
    finally:
        app.destroy()


def test_the_background_review_is_the_review_and_says_why_it_failed(reviewed, tmp_path):
    """The review worked out in a process of its own is `tabletop review --out`'s; a file it cannot
    review is one line in the panel (and on the terminal)."""
    from tabletop.app.review import BackgroundReview

    path, data = reviewed
    heard = []
    job = BackgroundReview(path, echo=heard.append)
    job.wait(120)
    review, note = job.poll()
    assert review is not None and review["steps"] == data["steps"] and note == ""
    bad = tmp_path / "bad.ttr"
    bad.write_text("not a replay")
    job = BackgroundReview(bad, echo=heard.append)
    job.wait(120)
    review, note = job.poll()
    assert review is None and note.startswith("no review: ") and "not a tabletop replay" in note
    assert any(line.startswith("tabletop: error:") for line in heard)
