"""Real clicks in a real window: a virtual screen (Xvfb), the game in a Panda3D window on it, the
mouse moved and clicked by the X server's test extension (xdotool), as a player's hand would.

Skipped where Xvfb or xdotool is missing (.ci/run installs both where it can)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(not (shutil.which("Xvfb") and shutil.which("xdotool")),
                                reason="needs Xvfb and xdotool (Debian packages xvfb, xdotool)")

CLICKER = textwrap.dedent('''
    import subprocess, time


    def clicker(app):
        """click(point): the mouse moved to a 3D point of the table and clicked, by the X server's test
        extension, then frames drawn until the window has taken the click."""
        for _ in range(3):
            app.render_frame()
        w = app.base.win
        wid = subprocess.run(["xdotool", "search", "--name", "tabletop"], capture_output=True, text=True,
                             check=True).stdout.split()[0]

        def click(point):
            fx, fy = app.project(point)
            x, y = int((fx + 1) / 2 * w.get_x_size()), int((1 - fy) / 2 * w.get_y_size())
            subprocess.run(["xdotool", "mousemove", "--window", wid, str(x), str(y)], check=True)
            for _ in range(3):
                app.render_frame()
            subprocess.run(["xdotool", "click", "--window", wid, "1"], check=True)
            for _ in range(20):
                app.render_frame()
                time.sleep(0.02)
        return click
''')

SCRIPT = CLICKER + textwrap.dedent('''
    import json, subprocess, sys, time
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.view.window import open_game
    from tabletop.games.king_kong.rules import Move, Phase, Roll
    from tabletop.gamekit.state import ChanceOutcome

    app, ctrl = open_game(GAMES["king-kong"], ["human", "ai"], seed=5, size=(1280, 720), offscreen=False, pace=0.0)
    for _ in range(400):                      # on to the human's turn
        s = ctrl.state
        if not s.is_chance_node() and ctrl.human(s.current_player) and s.phase is Phase.TURN:
            break
        if s.is_chance_node():
            ctrl.chance()
        else:
            seat = ctrl.seats[s.current_player] or ctrl.adapter.make_seats(["ai"])[0]
            ctrl.act(seat.choose(s, ctrl.seat_rng))
        ctrl.finish_animation()
    me = ctrl.state.current_player
    ctrl.act(Roll())
    ctrl.finish_animation()
    ctrl._apply(ChanceOutcome("5"))           # the test's roll: a 5 from Start
    ctrl.finish_animation()
    click = clicker(app)

    click(ctrl.adapter.piece_positions(ctrl.state)[me])
    lit = len(ctrl.destinations)
    selected = ctrl.selected
    far = max((d for d in ctrl.destinations if isinstance(d.action, Move)), key=lambda d: d.position[1])
    click(far.position)
    ctrl.finish_animation()
    print(json.dumps({"selected": selected, "me": me, "lit": lit, "to": far.action.to,
                      "at": ctrl.state.pos[me], "notice": ctrl.hud.notice.getText()}))
    ctrl.adapter.close()
    app.destroy()
''')


@pytest.fixture
def display():
    """A fresh virtual screen; its DISPLAY name."""
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                            pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    with os.fdopen(read) as f:
        number = f.readline().strip()
    yield f":{number}"
    xvfb.terminate()
    xvfb.wait(10)


@pytest.mark.slow
def test_king_kong_dozens_of_lit_spaces_real_clicks(display, tmp_path):
    """A King Kong 5 from Start lights dozens of spaces: a real click on the pawn selects it, a
    real click on the farthest lit space moves it there."""
    env = dict(os.environ, DISPLAY=display)
    run = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=240,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["selected"] == out["me"] and out["lit"] > 10
    assert out["at"] == out["to"], out["notice"]


UNDO_SCRIPT = textwrap.dedent('''
    import json, subprocess, sys, time
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.view.window import open_game

    app, ctrl = open_game(GAMES["knossos"], ["human", "ai"], seed=5, size=(1280, 720), offscreen=False, pace=0.0,
                          options={"games_to_win": 1})
    for _ in range(400):                      # on to a human decision with two moves or more
        s = ctrl.state
        if not s.is_chance_node() and ctrl.human(s.current_player) and len(s.legal_actions()) > 1:
            break
        if s.is_chance_node():
            ctrl.chance()
        elif ctrl.human(s.current_player):
            ctrl.act(s.legal_actions()[0])
        else:
            ctrl.act(ctrl.seats[s.current_player].choose(s, ctrl.seat_rng))
        ctrl.finish_animation()
    before = len(ctrl.state.history)
    ctrl.act(ctrl.state.legal_actions()[-1])
    ctrl.finish_animation()
    moved = len(ctrl.state.history)
    for _ in range(3):
        app.render_frame()
    win, a2d = app.base.win, app.base.aspect2d
    ar = app.base.getAspectRatio()
    wid = subprocess.run(["xdotool", "search", "--name", "tabletop"], capture_output=True, text=True,
                         check=True).stdout.split()[0]

    def settle():
        for _ in range(20):                  # until the window has taken the input
            app.render_frame()
            time.sleep(0.02)

    def click_button(key):
        pos = ctrl.hud.buttons[key].getPos(a2d)
        x = int((pos[0] / ar + 1) / 2 * win.get_x_size())
        y = int((1 - (pos[2] + 0.0125)) / 2 * win.get_y_size())
        subprocess.run(["xdotool", "mousemove", "--window", wid, str(x), str(y)], check=True)
        for _ in range(3):
            app.render_frame()
        subprocess.run(["xdotool", "click", "--window", wid, "1"], check=True)
        settle()

    click_button("undo")
    undone = len(ctrl.state.history)
    subprocess.run(["xdotool", "key", "--window", wid, "ctrl+y"], check=True)
    settle()
    ctrl.finish_animation()
    redone = len(ctrl.state.history)
    subprocess.run(["xdotool", "key", "--window", wid, "ctrl+z"], check=True)
    settle()
    print(json.dumps({"before": before, "moved": moved, "undone": undone, "redone": redone,
                      "again": len(ctrl.state.history), "notice": ctrl.hud.notice.getText()}))
    ctrl.adapter.close()
    app.destroy()
''')


@pytest.mark.slow
def test_undo_and_redo_by_a_real_click_and_real_keys(display, tmp_path):
    """Knossos: a human move taken back by a real click on the Undo button, played again by a real
    Ctrl+Y and taken back again by a real Ctrl+Z."""
    env = dict(os.environ, DISPLAY=display)
    run = subprocess.run([sys.executable, "-c", UNDO_SCRIPT], capture_output=True, text=True, env=env, timeout=240,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["moved"] == out["before"] + 1, out
    assert out["undone"] == out["before"] and out["redone"] == out["moved"] and out["again"] == out["before"], out


ONLINE_SCRIPT = CLICKER + textwrap.dedent('''
    import json, subprocess, sys, time
    import tabletop
    from tabletop.net.window import open_remote
    from tabletop.games.king_kong.rules import Move, Phase

    server = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "serve", "--port", "0", "--data", "rooms"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = server.stdout.readline().split()[2]
    room = tabletop.host("king-kong", url, ["remote", "ai", "ai"], seed=5, outcomes="physics")
    app, win = open_remote(url, room.code, None, "Ann", False, size=(1280, 720), offscreen=False, pace=0.0)

    def pump(until, limit=120.0):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and not until():
            win.take_events()
            win.finish_animation()
            app.render_frame()
        return until()

    def mine():
        return win.legal is not None and win.legal_step == win.step and not win.waiting()

    me = win.seat
    for _ in range(100):                       # on to a move of the pawn's (the server rolls its die)
        pump(lambda: mine() or win.state.is_terminal())
        s = win.state
        if s.phase is Phase.MOVE and sum(isinstance(a, Move) for a in s.legal_actions()) > 1:
            break
        step = win.step
        win.act(s.legal_actions()[-1])
        pump(lambda: win.step > step)
    click = clicker(app)

    click(win.adapter.piece_positions(win.state)[me])
    lit, selected = len(win.destinations), win.selected
    far = max((d for d in win.destinations if isinstance(d.action, Move)), key=lambda d: d.position[1])
    step = win.step
    click(far.position)
    pump(lambda: win.step > step)
    print(json.dumps({"selected": selected, "me": me, "lit": lit, "to": far.action.to, "step": step,
                      "at": win.state.pos[me], "checked": win.throws_checked, "mismatched": win.throws_mismatched,
                      "notice": win.hud.notice.getText()}))
    win.close()
    app.destroy()
    server.terminate()
    server.wait(30)
''')


@pytest.mark.slow
def test_a_king_kong_move_in_the_online_window_by_real_clicks(display, tmp_path):
    """`tabletop join`'s window on a King Kong seat of a room on a `tabletop serve` process: a real
    click on the pawn lights its spaces, a real click on the farthest one sends the move, and the
    server's next view has the pawn there; every throw re-simulated in the window matched."""
    env = dict(os.environ, DISPLAY=display)
    run = subprocess.run([sys.executable, "-c", ONLINE_SCRIPT], capture_output=True, text=True, env=env, timeout=240,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["selected"] == out["me"] and out["lit"] > 1, out
    assert out["at"] == out["to"], out["notice"]
    assert out["checked"] >= 1 and out["mismatched"] == 0, out


@pytest.mark.slow
def test_play_online_opens_the_window_on_the_human_seat_and_q_quits(display, tmp_path):
    """`tabletop play knossos --online URL --seats human,ai`: the room is made, its address printed,
    a real window opens on the human seat (its title says online); a real Q asks first (the game
    is in progress: the window stays open), a real Y then closes it, exit 0."""
    env = dict(os.environ, DISPLAY=display)
    server = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "serve", "--port", "0", "--data", "rooms"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=tmp_path)
    try:
        url = server.stdout.readline().split()[2]
        play = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "play", "knossos", "--online", url, "--seats",
                                 "human,ai", "--games-to-win", "1", "--outcomes", "measured"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path)
        found = subprocess.run(["xdotool", "search", "--sync", "--name", "tabletop - Knossos"], capture_output=True,
                               text=True, env=env, timeout=120)
        assert found.stdout.split(), found.stderr
        title, out, err, alive_after_q = "", "", "", False
        for _ in range(20):                 # the window, once it draws (its id as the game's window has it)
            time.sleep(0.5)
            ids = subprocess.run(["xdotool", "search", "--name", "tabletop - Knossos"], capture_output=True,
                                 text=True, env=env).stdout.split()
            if not ids:
                continue
            title = subprocess.run(["xdotool", "getwindowname", ids[-1]], capture_output=True, text=True,
                                   env=env).stdout
            subprocess.run(["xdotool", "key", "--window", ids[-1], "q"], capture_output=True, env=env)
            time.sleep(1.0)
            alive_after_q = play.poll() is None          # a game in progress: Q asks first
            # (xdotool may say BadWindow: the window closed on the key before it was done with it)
            subprocess.run(["xdotool", "key", "--window", ids[-1], "y"], capture_output=True, env=env)
            try:
                out, err = play.communicate(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        else:
            play.kill()
            out, err = play.communicate()
    finally:
        server.kill()                       # (its graceful stop is another test's)
        server.wait(30)
    assert "(online)" in title, title
    assert alive_after_q, "Q quit the game in progress without asking"
    assert play.returncode == 0, err[-2000:]
    assert "join: ws://" in out and "Traceback" not in err, (out, err)


HOTSEAT_SCRIPT = CLICKER + textwrap.dedent('''
    import json, subprocess, sys, time
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.view.window import open_game
    from tabletop.games.king_kong.rules import Move

    app, ctrl = open_game(GAMES["king-kong"], ["human", "human", "ai"], seed=5, size=(1280, 720), offscreen=False,
                          pace=0.0)
    click = clicker(app)
    wid = subprocess.run(["xdotool", "search", "--name", "tabletop"], capture_output=True, text=True,
                         check=True).stdout.split()[0]
    out = {}

    def key(*keys, settle=20):
        for k in keys:
            subprocess.run(["xdotool", "key", "--window", wid, k], check=True)
            for _ in range(settle):
                app.render_frame()
                time.sleep(0.02)

    def tell(**kw):
        out.update(kw)
        print(json.dumps(out), flush=True)

    def on_to(until, limit=3000):
        for _ in range(limit):
            if until():
                return
            s = ctrl.state
            if ctrl.curtain:
                ctrl._curtain_since -= 10
                ctrl.pass_key()
            elif ctrl.handing_over is not None:
                ctrl.pass_key()
            elif s.is_chance_node():
                ctrl.chance()
            else:
                seat = ctrl.seats[s.current_player] or ctrl.adapter.make_seats(["ai"])[0]
                ctrl.act(seat.choose(s, ctrl.seat_rng))
            ctrl.finish_animation()
            app.render_frame()
        raise SystemExit("never got there")

    def red_moves():   # red, at the screen, to move the pawn
        s = ctrl.state
        return (not ctrl.curtain and ctrl.handing_over is None and not s.is_chance_node()
                and s.current_player == 0 and ctrl.at_screen == 0 and any(isinstance(a, Move) for a in s.legal_actions()))

    on_to(red_moves)
    click(ctrl.adapter.piece_positions(ctrl.state)[0])                       # red's pawn, by a real click
    dest = next(d for d in ctrl.destinations if isinstance(d.action, Move))
    click(dest.position)                                                     # ... and a lit space
    ctrl.finish_animation()
    on_to(lambda: ctrl.handing_over is not None or (ctrl.curtain and ctrl._human_turn() == 0) or red_moves())
    tell(moved=ctrl.state.pos[0] == dest.action.to, handing_over=ctrl.handing_over, curtain=ctrl.curtain,
         banner=ctrl.hud.banner.getText())
    history = len(ctrl.state.history)
    undoable = ctrl.match.can_undo({0})
    # A second Enter within `curtain_hold` of the first passes only. In play the hold is 0.6 s; here
    # 2 s, so that a loaded machine (a software-rendered frame can take 0.2 s) still presses twice
    # inside it. The first press is waited for, frame by frame, before the second.
    ctrl.curtain_hold = 2.0
    key("Return", settle=1)                                                  # red passes the screen ...
    for _ in range(100):
        if ctrl.curtain:
            break
        app.render_frame()
        time.sleep(0.02)
    tell(curtain_after_pass=ctrl.curtain)
    key("Return", settle=5)                                                  # ... pressed twice at once
    tell(curtain_after_double=ctrl.curtain)
    time.sleep(2.1)
    key("Return")                                                            # blue, ready
    tell(curtain_after_ready=ctrl.curtain, at_screen=ctrl.at_screen, notice=ctrl.hud.notice.getText(),
         undoable_by_red=undoable)
    key("ctrl+z")                                                            # blue's Ctrl+Z
    tell(history_kept=len(ctrl.state.history) == history, undo_notice=ctrl.hud.notice.getText())
    key("q")                                                                 # quit? ...
    tell(question=ctrl.hud.question_shown())
    key("x")                                                                 # ... any other key: stay
    tell(stayed=ctrl.question is None and ctrl.hud.question_shown() == "", stay_notice=ctrl.hud.notice.getText())
    key("q")
    tell(asked_again=ctrl.question is not None)
    key("q")                                                                 # Q again: quits (exit 0)
    tell(still_open=True)
''')


@pytest.mark.slow
def test_hotseat_king_kong_by_real_keys(display, tmp_path):
    """Hotseat King Kong in a real window: red's move by real clicks lands and the window asks red to
    pass the screen (the table still in view); a real Enter covers it, a second Enter at once does
    not uncover it, blue's Enter does; blue's real Ctrl+Z takes back nothing of red's; a real Q asks
    first, a real X (a key the window does not use) stays, Q and Q again quit with exit 0."""
    env = dict(os.environ, DISPLAY=display)
    run = subprocess.run([sys.executable, "-c", HOTSEAT_SCRIPT], capture_output=True, text=True, env=env,
                         timeout=300, cwd=tmp_path)
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert run.returncode == 0, (out, run.stderr[-2000:])
    assert out["moved"] and out["handing_over"] == 1 and not out["curtain"], out
    assert out["banner"] == "Pass the screen to blue: press Enter", out
    assert out["curtain_after_pass"] and out["curtain_after_double"] and not out["curtain_after_ready"], out
    assert out["at_screen"] == 1 and out["notice"] == "", out
    assert out["undoable_by_red"], "red's move could not be taken back by anyone: the check below proves nothing"
    assert out["history_kept"] and out["undo_notice"].startswith("nothing to take back"), out
    assert out["question"].startswith("Quit the game?"), out
    assert out["stayed"] and out["asked_again"] and "still_open" not in out, out


CHAT_SCRIPT = textwrap.dedent('''
    import asyncio, json, subprocess, sys, threading, time
    import tabletop
    from tabletop.net.client import SeatClient, random_chooser
    from tabletop.net.window import open_remote

    server = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "serve", "--port", "0", "--data", "rooms"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = server.stdout.readline().split()[2]
    room = tabletop.host("king-kong", url, ["remote", "remote", "ai"], seed=5, outcomes="measured")
    app, win = open_remote(url, room.code, None, "Ann", False, size=(1280, 720), offscreen=False, pace=0.0)
    # Bo plays (its first choice), so that red's decision comes whoever the dice let start
    bo = SeatClient(url, room.code, name="Bo", choose=random_chooser(1))
    threading.Thread(target=lambda: asyncio.run(bo.run()), daemon=True).start()

    def pump(until, limit=60.0):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and not until():
            win.take_events()
            win.finish_animation()
            app.render_frame()
            time.sleep(0.01)
        return until()

    decision = pump(lambda: win.started and win.legal is not None and win.legal_step == win.step
                    and not win.waiting())
    wid = subprocess.run(["xdotool", "search", "--name", "tabletop"], capture_output=True, text=True,
                         check=True).stdout.split()[0]
    step = win.step

    def keys(*args):
        subprocess.run(["xdotool", *args], check=True)
        for _ in range(10):
            app.render_frame()
            time.sleep(0.02)

    keys("key", "--window", wid, "t")
    typing = win.typing is not None
    keys("type", "--window", wid, "--delay", "40", "gl hf q1")   # q and 1 are the game's keys elsewhere
    asked = win.hud.question_shown()
    keys("key", "--window", wid, "Return")
    pump(lambda: any("gl hf q1" in line for line in win.chat_lines), 30)
    bo.say("thanks Ann")
    pump(lambda: any("thanks Ann" in line for line in win.chat_lines), 30)
    app.screenshot("chat.png")
    print(json.dumps({"decision": decision, "typing": typing, "asked": asked, "step": step, "now": win.step,
                      "lines": win.chat_lines,
                      "closed": win.typing is None, "players": win.hud.players.getText()}))
    bo.stop()
    win.close()
    app.destroy()
    server.terminate()
    server.wait(30)
''')


@pytest.mark.slow
def test_a_chat_message_typed_in_the_online_window_by_real_keys(display, tmp_path):
    """`tabletop join`'s window on a King Kong seat whose room has another player: a real T opens the
    chat line, the message typed key by key (its q and 1 the line's, not the game's: no question,
    no choice made), a real Enter sends it; it comes back from the server to the window, as does the
    other player's answer, each under its player's name."""
    env = dict(os.environ, DISPLAY=display)
    run = subprocess.run([sys.executable, "-c", CHAT_SCRIPT], capture_output=True, text=True, env=env, timeout=240,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert out["decision"], out           # red had a decision to make: its q and 1 would have acted
    assert out["typing"] and not out["asked"] and out["closed"] and out["now"] == out["step"], out
    assert "red (Ann): gl hf q1" in out["lines"] and "blue (Bo): thanks Ann" in out["lines"], out
    assert "Bo" in out["players"] and "you (Ann)" in out["players"], out


def test_ctrl_c_in_the_window_says_one_line_exits_130_and_keeps_the_replay(display, tmp_path):
    """`tabletop play` in a real window (its audio path tried too: this machine has no device),
    Ctrl-C once it is drawing: one line on stderr, exit 130, nothing on stdout from Panda3D, and the
    replay of the turns played so far kept and readable."""
    import signal
    import time

    replay = tmp_path / "k.ttr"
    env = dict(os.environ, DISPLAY=display)
    env.pop("TABLETOP_AUDIO", None)
    proc = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "play", "knossos", "--seats", "ai,ai",
                             "--record", str(replay)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=tmp_path, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (replay.exists() and replay.stat().st_size > 200):
        time.sleep(0.2)                       # a turn recorded: the window is up and playing
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if not line.startswith("recording the replay to")]
    assert lines == ["tabletop: interrupted"], err
    assert "interrupt" not in out, out
    summary = subprocess.run([sys.executable, "-m", "tabletop.cli", "replay", str(replay), "--summary"],
                             capture_output=True, text=True, timeout=60)
    assert summary.returncode == 0 and "turns" in summary.stdout, summary.stderr
