"""`tabletop replay`, `play --record/--no-record` and `estimate --record-trials` on the command line:
bad files and options get one line and exit code 2, a game cut off mid-way still reads."""
from __future__ import annotations

import contextlib
import io
import json
import re

import pytest

from tabletop.cli import main
from tabletop.sim.record import ReplayFile


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def sticks_table(tmp_path):
    path = tmp_path / "sticks.json"
    path.write_text(json.dumps({"device": "sticks", "probabilities": {"1": {"p": 0.3}, "2": {"p": 0.5},
                                                                      "3": {"p": 0.2}}}))
    return f"table:{path}"


@pytest.fixture
def table_replay(tmp_path, sticks_table):
    path = tmp_path / "match.ttr"
    rc, out, err = run("play", "knossos", "--headless", "--seats", "ai,random", "--seed", "4",
                       "--games-to-win", "1", "--outcomes", sticks_table, "--record", path)
    assert rc == 0, err
    return path, out


def _one_line_error(rc, out, err, message):
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("tabletop: error: ") and message in err, err


@pytest.mark.parametrize("content, message", [
    (b"\x89PNG\r\n\x1a\n" + bytes(64), "not a tabletop replay"),
    (b"", "empty file"),
])
def test_a_foreign_file_is_refused(tmp_path, content, message):
    path = tmp_path / "x.ttr"
    path.write_bytes(content)
    for flag in ("--summary", "--verify"):
        _one_line_error(*run("replay", path, flag), message)


def test_a_future_version_and_a_corrupt_file_are_refused(table_replay, tmp_path):
    path, _ = table_replay
    data = path.read_bytes()
    future = tmp_path / "future.ttr"
    future.write_bytes(data[:16] + (9).to_bytes(2, "little") + data[18:])
    _one_line_error(*run("replay", future, "--summary"), "replay format version 9 is newer than this tabletop")
    corrupt = tmp_path / "corrupt.ttr"
    middle = len(data) // 2
    corrupt.write_bytes(data[:middle] + bytes([data[middle] ^ 0x55]) + data[middle + 1:])
    rc, out, err = run("replay", corrupt, "--verify")
    _one_line_error(rc, out, err, "corrupt replay: ")
    assert re.search(r"chunk \d+ at byte \d+, after turn \d+ fails its CRC check", err)


def test_missing_file_folder_and_no_display(tmp_path, table_replay, monkeypatch):
    _one_line_error(*run("replay", tmp_path / "nope.ttr", "--summary"), "replay not found")
    _one_line_error(*run("replay", tmp_path, "--summary"), "is a folder")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    _one_line_error(*run("replay", table_replay[0]), "no display available")
    _one_line_error(*run("replay", table_replay[0], "--frames", tmp_path / "f", "--fps", "0"), "--fps")
    _one_line_error(*run("replay", table_replay[0], "--frames", tmp_path / "no" / "f"), "--frames")


def test_play_records_to_the_default_path_unless_told_not_to(tmp_path, monkeypatch, sticks_table):
    """By default a game is recorded to the user's games folder (here TABLETOP_DATA's), not the
    folder the command ran in."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    args = ["play", "knossos", "--headless", "--seed", "4", "--games-to-win", "1", "--outcomes", sticks_table]
    rc, out, err = run(*args, "--no-record")
    assert rc == 0 and not (tmp_path / "data").exists() and "recording" not in err
    rc, out2, err = run(*args)
    assert rc == 0 and out2 == out
    (made,) = (tmp_path / "data" / "games").iterdir()
    assert re.fullmatch(r"knossos-seed4-\d{8}-\d{6}\.ttr", made.name)
    assert f"recording the replay to {tmp_path / 'data' / 'games' / made.name}" in err
    assert not (tmp_path / "replays").exists()
    assert run("replay", made, "--summary")[1] == out


@pytest.mark.parametrize("extra, message", [
    (["--record", "x.ttr", "--no-record"], "--record and --no-record contradict"),
    (["--record", "/nonexistent/x.ttr"], "folder /nonexistent does not exist"),
])
def test_bad_record_options(extra, message):
    _one_line_error(*run("play", "knossos", "--headless", *extra), message)


def test_a_game_cut_off_mid_way_keeps_its_finished_turns(tmp_path, monkeypatch, sticks_table):
    """A crash (here Ctrl-C in a seat) leaves the replay readable up to the last finished turn."""
    from tabletop.games.knossos import ai

    class Stops(ai.SEATS["ai"]):
        calls = 0

        def choose(self, state, rng):
            Stops.calls += 1
            if Stops.calls > 12:
                raise KeyboardInterrupt
            return super().choose(state, rng)

    monkeypatch.setitem(ai.SEATS, "ai", Stops)
    path = tmp_path / "cut.ttr"
    rc, out, err = run("play", "knossos", "--headless", "--seed", "4", "--outcomes", sticks_table, "--record", path)
    assert rc == 130 and err.endswith("tabletop: interrupted\n")       # one line, no traceback
    replay = ReplayFile.open(path)
    assert replay.end is None and len(replay.turns) >= 12
    assert replay.warnings == [f"{path}: truncated after turn {replay.turns[-1].number} "
                               "(the recording stops there, with no result)"]
    rc, out, err = run("replay", path, "--verify")
    assert rc == 0 and "truncated after turn" in err


def test_estimate_records_its_first_trials(tmp_path):
    path = tmp_path / "trials.ttr"
    rc, out, err = run("estimate", "sticks", "--trials", "6", "--workers", "1", "--seed", "5", "--quiet",
                       "--record-trials", "3", "--record", path)
    assert rc == 0, err
    assert f"recorded 3 trials in {path}" in err.replace("\n", "") and "warning" not in err
    replay = ReplayFile.open(path)
    assert replay.header["kind"] == "trials" and replay.header["device"] == "sticks"
    assert [t.steps[0]["trial"]["index"] for t in replay.turns] == [0, 1, 2]
    assert all(t.steps[0]["trial"]["gesture"] and len(t.motions) == 1 for t in replay.turns)
    rc, out, err = run("replay", path, "--summary")
    lines = out.splitlines()
    assert rc == 0 and lines[0] == "sticks: trials 0-2 of seed 5" and len(lines) == 5
    assert lines[1].startswith("trial 0: ") and lines[4].startswith("3 trials, by outcome: ")
    rc, out, err = run("replay", path, "--verify")
    assert rc == 0 and re.fullmatch(r"verified: 3 turns, 3 chance events, \d+ frames\n", out), err


@pytest.mark.parametrize("extra, message", [
    (["--record", "x.ttr"], "--record needs --record-trials"),
    (["--trials", "5", "--record-trials", "6"], "--record-trials: 6 is more than the 5 trials"),
])
def test_bad_record_trials_options(extra, message):
    _one_line_error(*run("estimate", "sticks", *extra), message)


# -- what a replay of a game with hidden hands shows (issue 36) -------------------------------------------
@pytest.fixture
def unfinished_kong(tmp_path, monkeypatch):
    """A 3-player King Kong game cut off (Ctrl-C in a seat) after its first rounds: its replay
    has no end record, and the log holds every hand dealt and every card drawn. Returns the file,
    and the rules' state re-driven from its history (its hidden log lines are SeatLines)."""
    import tabletop
    from tabletop.games.king_kong import ai
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.state import replay as redrive

    class Stops(ai.SEATS["ai"]):
        calls = 0

        def choose(self, state, rng):
            Stops.calls += 1
            if Stops.calls > 15:
                raise KeyboardInterrupt
            return super().choose(state, rng)

    monkeypatch.setitem(ai.SEATS, "ai", Stops)
    path = tmp_path / "kong.ttr"
    rc, out, err = run("play", "king-kong", "--headless", "--seats", "ai,ai,ai", "--seed", "3", "--outcomes",
                       "uniform", "--record", path)
    assert rc == 130 and ReplayFile.open(path).end is None
    replay = tabletop.open_replay(path)
    state = redrive(GAMES["king-kong"].make_game(replay.config), replay.history)
    assert not state.is_terminal()
    return path, state


def test_replay_summary_of_an_unfinished_king_kong_game_prints_no_hidden_card(unfinished_kong):
    """`replay --summary` of a King Kong game that is not over prints every line as a spectator
    reads it: the hands dealt and the cards drawn (the AI's included) by their number alone, and
    says so on stderr; `--reveal` prints them whole and says "showing every hidden card"."""
    from tabletop.gamekit.state import SeatLine

    path, state = unfinished_kong
    hidden = [line for line in state.events if isinstance(line, SeatLine)]
    assert len(hidden) >= 4 and any(" is dealt " in line for line in hidden) \
        and any(" draws " in line for line in hidden)
    banner = ReplayFile.open(path).header["banner"]
    rc, out, err = run("replay", path, "--summary")
    assert rc == 0
    lines = out.splitlines()
    assert lines == banner + [line.public if isinstance(line, SeatLine) else line for line in state.events
                              if not isinstance(line, SeatLine) or line.public]
    assert not any(line in lines for line in hidden)
    assert all(re.fullmatch(r"\w+ (is dealt|draws) \d+ cards?", line.public) for line in hidden)
    assert f"the game is not over: {len(hidden)} log lines that a seat hides" in err and "--reveal" in err
    assert "showing every hidden card" not in err

    rc, out, err = run("replay", path, "--summary", "--reveal")
    assert rc == 0 and out.splitlines() == banner + list(state.events)
    assert all(line in out.splitlines() for line in hidden)
    assert "showing every hidden card (--reveal)\n" in err and "not over" not in err


def test_replay_summary_of_a_finished_king_kong_game_shows_every_hand(tmp_path):
    """The game is over: its replay hides nothing (the lines play printed, hands and all), with or
    without --reveal, and says nothing about hidden cards."""
    path = tmp_path / "done.ttr"
    rc, played, err = run("play", "king-kong", "--headless", "--seats", "ai,ai", "--seed", "3", "--outcomes",
                          "uniform", "--record", path)
    assert rc == 0 and re.search(r" is dealt (Attack|Escape|Safety|Special|Helicopter)", played)
    for extra in ((), ("--reveal",)):
        rc, out, err = run("replay", path, "--summary", *extra)
        assert rc == 0 and out == played and "hidden" not in err


def test_a_game_left_before_its_end_is_not_finished():
    """A replay's game is finished only by an end record with a result that is not a game left."""
    from types import SimpleNamespace

    from tabletop.gamekit.replay import finished

    assert not finished(SimpleNamespace(end=None))
    assert not finished(SimpleNamespace(end={"lines": [], "result": {"winner": None, "turns": 5,
                                                                       "unfinished": True}}))
    assert finished(SimpleNamespace(end={"lines": [], "result": {"winner": "red", "turns": 5}}))


@pytest.mark.parametrize("extra", [["--verify"], ["--frames", "frames"]])
def test_reveal_where_it_shows_nothing_is_refused(unfinished_kong, tmp_path, extra):
    path, _ = unfinished_kong
    _one_line_error(*run("replay", path, "--reveal", *extra), "--reveal: only with --summary, --html or in the "
                                                              "playback window")


def test_the_playback_window_of_an_unfinished_king_kong_game_hides_the_hands(unfinished_kong):
    """The window's log and players' panel show only what no seat hides while the game is not
    over, and say so; with reveal they show every hand and say "showing every hidden card"."""
    pytest.importorskip("panda3d")
    from tabletop.games.king_kong.labels import COLOURS
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.replay import REVEALED
    from tabletop.gamekit.state import SeatLine
    from tabletop.gamekit.view.playback import open_replay
    from tabletop.sim.view.app import ViewError

    path, state = unfinished_kong
    hidden = [line for line in state.events if isinstance(line, SeatLine)]
    for reveal in (False, True):
        try:
            app, window, _ = open_replay(path, GAMES, size=(480, 270), offscreen=True, reveal=reveal)
        except ViewError as exc:
            pytest.skip(f"no graphics pipe: {exc}")
        try:
            panels = []
            window.hud.set_players = panels.append          # what the players' panel is given to show
            window.show(window.timeline.duration)
            shown, rows, panel = list(window.hud.lines), window.hidden_rows(), panels[-1]
            kinds = window.replay.header["config"]["seats"]
            every, none = (window.adapter.players(window.timeline.final, kinds, seats) for seats in (range(3), ()))
        finally:
            window.adapter.close()
            app.destroy()
        assert every != none and all(colour in panel for colour in COLOURS[:3])
        if reveal:
            assert all(line in shown for line in hidden) and rows == [REVEALED] and panel == every
        else:
            assert not any(line in shown for line in hidden)
            assert all(line.public in shown for line in hidden if line.public)
            assert "the game is not over" in rows[0] and "--reveal" in rows[-1] and panel == none
