"""Leave and come back (tabletop/net/keep.py, the window client, `tabletop join`): a window seat
that quits a room in progress (Q, confirmed) or a `join` killed with kill -9 is taken back by the
same `tabletop join URL/CODE` on the same machine with no token typed, and the game ends normally;
two joins on one machine play two seats; a server killed while the window holds an action it
could not send: the action is sent and applied after the restart, and the window never shows an
earlier position than it had shown. Each test runs `tabletop serve` as a process."""
from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

import tabletop
from tabletop.app.requests import JoinRequest
from tests.test_net_play import server, tabletop_process  # noqa: F401  (the fixture: tabletop serve as a process)

GAME = "king-kong"


def kept_files(url: str, code: str) -> list[dict]:
    from tabletop.net.keep import kept_seats

    return kept_seats(url, code)


def join_process(join: str, *args: str, cwd) -> subprocess.Popen:
    return tabletop_process("join", join, "--headless", "--as", "random", *args, cwd=cwd)


@pytest.fixture
def window():
    """window(url, code) -> (app, win): the app layer's window of a seat (offscreen), closed after."""
    from tabletop.app.net import open_window
    from tabletop.sim.view.app import ViewError

    pytest.importorskip("panda3d")
    opened = []

    def make(url: str):
        try:
            app, win = open_window(JoinRequest(url=url, name="tester"), size=(960, 540), offscreen=True, pace=0.0)
        except ViewError as exc:
            pytest.skip(f"no graphics pipe: {exc}")
        opened.append((app, win))
        return app, win

    yield make
    for app, win in opened:
        win.close()
        win.adapter.close()
        app.destroy()


@pytest.mark.slow
def test_a_window_seat_that_quits_is_taken_back_by_the_same_join_with_no_token_typed(server, window, tmp_path):  # noqa: F811
    from direct.showbase.MessengerGlobal import messenger

    from tests.test_net_window import my_turn, pump

    url, data = server
    room = tabletop.host(GAME, url, ["remote", "ai", "ai"], seed=4, outcomes="measured")
    app, win = window(room.url)
    assert win.seat == 0
    [kept] = kept_files(url, room.code)
    assert kept["seat"] == "red" and kept["token"] == win.link.client.token
    pump(win, lambda: my_turn(win))
    step = win.step
    win.act(win.state.legal_actions()[0])
    pump(win, lambda: win.step > step)
    # Q asks first, saying the seat is kept and how it is taken back; Esc stays, Q then Y quits
    quitted = []
    win.quit = lambda: quitted.append(True)
    messenger.send("q")
    asked = " ".join(win.hud.question_shown().split())      # (its rows wrapped to the box)
    assert "kept" in asked and "60 s" in asked and f"tabletop join {room.url}" in asked and not quitted
    messenger.send("escape")
    assert not quitted and not win.hud.question_shown()
    messenger.send("q")
    messenger.send("y")
    assert quitted == [True]
    win.close()
    # the same `tabletop join` on this machine, no token typed: red again, the game played to its end
    again = subprocess.run([sys.executable, "-m", "tabletop.cli", "join", room.url, "--headless", "--as", "ai"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert "took back red" in again.stderr and "joined room" in again.stderr and " as red" in again.stderr
    assert "result:" in again.stdout.splitlines()[-1] or "wins" in again.stdout.splitlines()[-1]
    meta = json.loads((data / room.code / "room.json").read_text())
    assert list(meta["tokens"]) == ["red"]              # no second seat was taken


@pytest.mark.slow
def test_a_join_killed_with_kill_9_is_taken_back_by_the_same_join_and_the_game_ends(server, tmp_path):  # noqa: F811
    from tabletop.sim.record import ReplayFile

    url, data = server
    room = tabletop.host(GAME, url, ["remote", "ai", "ai"], seed=6, outcomes="measured", drop_wait=600)
    first = join_process(room.url, "--seed", "1", cwd=tmp_path)
    journal = data / room.code / "game.ttr"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            turns = len(ReplayFile.open(journal).turns)
        except Exception:
            turns = 0
        if turns >= 3:
            break
        time.sleep(0.02)
    first.kill()                                           # kill -9: no goodbye, no file written at the end
    first.wait(10)
    assert first.returncode == -9
    [kept] = kept_files(url, room.code)
    assert kept["seat"] == "red"
    again = join_process(room.url, "--seed", "1", cwd=tmp_path)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert "took back red" in err and "Traceback" not in err
    assert ReplayFile.open(journal).end is not None
    assert list(json.loads((data / room.code / "room.json").read_text())["tokens"]) == ["red"]


@pytest.mark.slow
def test_two_joins_on_one_machine_play_two_seats_and_a_token_by_hand_takes_a_seat_from_another(server, tmp_path):  # noqa: F811
    url, data = server
    room = tabletop.host("knossos", url, ["remote", "remote"], seed=2, outcomes="measured", games_to_win=1)
    a = join_process(room.url, "--seed", "1", cwd=tmp_path)
    deadline = time.monotonic() + 60
    while not kept_files(url, room.code) and time.monotonic() < deadline:
        time.sleep(0.02)
    b = join_process(room.url, "--seed", "2", cwd=tmp_path)
    (out_a, err_a), (out_b, err_b) = a.communicate(timeout=300), b.communicate(timeout=300)
    assert (a.returncode, b.returncode) == (0, 0), (err_a, err_b)
    assert " as red" in err_a and " as blue" in err_b and "took back" not in err_b
    assert sorted(s["seat"] for s in kept_files(url, room.code)) == ["blue", "red"]
    # a token by hand that is not the room's: one line, exit 2
    bad = subprocess.run([sys.executable, "-m", "tabletop.cli", "join", room.url, "--headless", "--token", "nope"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--token" in bad.stderr


@pytest.mark.slow
def test_a_server_killed_while_the_window_holds_an_unsent_action_applies_it_after_the_restart_never_going_back(
        tmp_path, window):
    """King of the Hill: with the seat's move to make, the server is killed (kill -9). The window
    holds the move it could not send and says so; the restarted server takes the room up from its
    journal, the window's client joins again and sends the held move, still legal, and the room
    applies it. The window shows nothing going back: the step it shows and its log only grow
    (a view of an earlier step, which a restarted room sends while it plays again what it lost, is
    not shown)."""
    from tabletop.gamekit.record import encode_action
    from tabletop.sim.record import ReplayFile
    from tests.test_net_window import my_turn, pump

    data = tmp_path / "rooms"
    first = tabletop_process("serve", "--port", "0", "--data", str(data), cwd=tmp_path)
    url = first.stdout.readline().split()[2]
    port = url.rsplit(":", 1)[1]
    second = None
    try:
        room = tabletop.host("king-of-the-hill", url, ["remote", "ai"], seed=8, outcomes="measured")
        app, win = window(room.url)
        shown: list[int] = []
        lines: list[int] = []
        take = win.take_events

        def watched(most: int = 64) -> int:
            handled = take(most)
            shown.append(win.step)
            lines.append(len(win.hud.lines))
            return handled
        win.take_events = watched
        for _ in range(3):                                 # a few of the seat's own moves first
            pump(win, lambda: my_turn(win))
            step = win.step
            win.act(win.state.legal_actions()[0])
            pump(win, lambda: win.step > step)
        pump(win, lambda: my_turn(win))
        step = win.step
        first.kill()
        first.wait(10)
        pump(win, lambda: win.connection == "reconnecting", timeout=30)
        action = win.state.legal_actions()[-1]
        win.act(action)
        pump(win, lambda: win.unsent is not None, timeout=10)
        assert "NOT SENT" in win.hud.prompt.getText()
        second = tabletop_process("serve", "--port", port, "--data", str(data), cwd=tmp_path)
        assert second.stdout.readline().startswith("serving on ")
        pump(win, lambda: win.step > step, timeout=120)
        assert win.state.history[step] == action and win.unsent is None
        assert all(b >= a for a, b in zip(shown, shown[1:])), shown
        assert all(b >= a for a, b in zip(lines, lines[1:])), lines
        journal = data / room.code / "game.ttr"
        deadline = time.monotonic() + 120
        recorded: list = []
        while time.monotonic() < deadline and len(recorded) <= step:
            win.take_events()
            win.finish_animation()
            recorded = [s["action"] for turn in ReplayFile.open(journal).turns for s in turn.steps]
            time.sleep(0.05)
        assert recorded[step] == json.loads(json.dumps(encode_action(win.game, action)))
    finally:
        for proc in (first, second):
            if proc is not None and proc.poll() is None:
                proc.terminate()
                proc.wait(30)


@pytest.mark.slow
def test_the_window_shows_the_rooms_chat_and_its_players_names_types_a_message_and_mutes_it(server, window):  # noqa: F811
    from direct.showbase.MessengerGlobal import messenger

    from tests.test_net_window import pump

    url, data = server
    room = tabletop.host(GAME, url, ["remote", "remote", "ai"], seed=4, outcomes="measured")
    app, win = window(room.url)
    assert "waits for its players" in win.hud.prompt.getText()
    other = subprocess.Popen([sys.executable, "-c", (
        "import asyncio, tabletop.net.client as c\n"
        f"s = c.SeatClient({url!r}, {room.code!r}, name='Bo', choose=c.random_chooser(1))\n"
        "async def go():\n"
        "    task = asyncio.ensure_future(s.run())\n"
        "    while s.token is None: await asyncio.sleep(0.05)\n"
        "    await s.connection.send(c.p.encode(c.p.Say('hi red \\x1b[31m')))\n"
        "    await task\n"
        "asyncio.run(go())\n")])
    try:
        pump(win, lambda: any("hi red" in line for line in win.chat_lines), timeout=60)
        assert "blue (Bo): hi red" in win._chat_text.getText()
        assert "Bo" in win.hud.players.getText() and "you" in win.hud.players.getText()
        messenger.send("t")                       # T: a line to type in; the game's keys are the line's now
        assert win.typing is not None
        messenger.send("q")
        assert not win.hud.question_shown()
        win._send_chat("good luck, Bo")           # Enter on the line
        assert win.typing is None
        pump(win, lambda: any("good luck, Bo" in line for line in win.chat_lines), timeout=30)
        messenger.send("c")                       # C mutes the chat
        assert "muted" in win._chat_text.getText() and "Bo" not in win._chat_text.getText()
        replay = (data / room.code / "game.ttr").read_bytes()
        assert b"good luck" not in replay and b"hi red" not in replay
    finally:
        other.kill()
        other.wait(10)


@pytest.mark.slow
def test_rooms_lists_a_listing_servers_open_rooms_and_start_starts_one_from_the_machine_that_made_it(tmp_path):
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tabletop.cli", *args], cwd=tmp_path, capture_output=True,
                              text=True, timeout=60)

    listing = tabletop_process("serve", "--port", "0", "--data", str(tmp_path / "rooms"), "--list", cwd=tmp_path)
    plain = tabletop_process("serve", "--port", "0", "--data", str(tmp_path / "plain"), cwd=tmp_path)
    try:
        url = listing.stdout.readline().split()[2]
        other = plain.stdout.readline().split()[2]
        host = run("host", GAME, "--server", url, "--seats", "remote,remote,ai", "--outcomes", "measured")
        join = host.stdout.splitlines()[-1].split()[1]
        assert f"the room waits until red, blue are taken; `tabletop start {join}`" in host.stdout
        listed = run("rooms", "--server", url)
        assert listed.returncode == 0 and join in listed.stdout and "waiting" in listed.stdout, listed.stderr
        refused = run("rooms", "--server", other)
        assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "list" in refused.stderr
        elsewhere = run("start", join, "--host-key", "not-the-key")
        assert elsewhere.returncode == 2 and "host" in elsewhere.stderr
        started = run("start", join)                      # the key this machine kept when it made the room
        assert started.returncode == 0 and "the game starts" in started.stdout, started.stderr
        after = run("rooms", "--server", url).stdout      # playing, or already over (the AI in every seat)
        assert "waiting" not in after and ("playing" in after or "no open rooms" in after)
    finally:
        for proc in (listing, plain):
            proc.terminate()
            proc.wait(30)


@pytest.mark.slow
def test_a_view_of_an_earlier_step_is_not_shown_and_the_window_goes_on_from_where_it_was(server, window):  # noqa: F811
    """What a restarted room sends while it plays again what its journal lost: views of steps the
    window has shown already. Given one (an earlier view of this very room, sent again), the window
    keeps its position, its step and its log, and takes the next real view as usual."""
    from tests.test_net_window import my_turn, pump

    url, data = server
    room = tabletop.host("king-of-the-hill", url, ["remote", "ai"], seed=5, outcomes="measured")
    app, win = window(room.url)
    views = []
    handle = win._event

    def keep(event):
        if event[0] == "view":
            views.append(event)
        handle(event)
    win._event = keep
    for _ in range(3):
        pump(win, lambda: my_turn(win))
        step = win.step
        win.act(win.state.legal_actions()[0])
        pump(win, lambda: win.step > step)
    pump(win, lambda: my_turn(win))
    step, history, lines = win.step, list(win.state.history), list(win.hud.lines)
    old = next(v for v in views if v[1].step < step - 2)
    win.link.events.put(old)                       # the room going back, as a restored one does
    pump(win, lambda: win.link.events.empty())
    assert win.step == step and win.state.history == history and win.hud.lines == lines
    assert "catches up" in win.hud.notice.getText()
    win.act(win.state.legal_actions()[0])          # and on from where it was
    pump(win, lambda: win.step > step)
    assert win.state.history[:step] == history and win.hud.lines[:len(lines)] == lines


def test_a_headless_seat_tells_each_log_line_once_when_a_restored_room_sends_an_earlier_log():
    from tabletop.net import protocol as p
    from tabletop.net.client import SeatClient

    told: list[str] = []
    client = SeatClient("ws://127.0.0.1:1", "room", emit=told.append)

    def view(step: int, log_from: int, lines: list[str]) -> p.View:
        return p.View("room", "red", step, log_from, {"log": lines, "turn": step})

    assert client._merge(view(3, 0, ["a", "b", "c"]))
    assert client._merge(view(4, 3, ["d"]))
    assert client._merge(view(2, 0, ["a", "b"]))          # a restored room, back at its journal's last turn
    assert client._merge(view(3, 2, ["c"])) and client._merge(view(4, 3, ["d"]))
    assert client._merge(view(5, 4, ["e"]))
    assert told == ["a", "b", "c", "d", "e"] and client.log == ["a", "b", "c", "d", "e"]
    assert client._merge(view(5, 0, ["x", "y"]))          # another log altogether: told from its start
    assert told[-2:] == ["x", "y"]
