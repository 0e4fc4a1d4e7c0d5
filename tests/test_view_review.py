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
    from tabletop.app.sources import play_outcomes
    from tabletop.games.registry import GAMES

    path = tmp_path / "kn.ttr"
    definition = GAMES["knossos"]
    definition.play_headless(["ai", "solved"], 3, play_outcomes(definition, "measured"), path,
                             {"games_to_win": 1}, lambda line: None)
    data = review(ReviewRequest(file=path, out=tmp_path / "review.json")).to_dict()
    return path, data


def test_the_review_panel_follows_the_playback_and_r_hides_it(reviewed, tmp_path):
    from tabletop.gamekit.view.playback import open_replay
    from tabletop.games.registry import GAMES

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
