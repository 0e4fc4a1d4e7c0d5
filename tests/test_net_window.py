"""The window client (`tabletop join` without --headless): a seat of a room on a `tabletop serve`
process played in the 3D window (offscreen, EGL) with the window tests' event injection: each
game's human turn made by clicks and keys, sent to the server, applied there and shown back; every
physical throw re-simulated in the window from the seed the server revealed and checked. Skipped
where no graphics pipe can open."""
from __future__ import annotations

import time

import pytest

pytest.importorskip("panda3d")

import tabletop  # noqa: E402
from tests.test_net_play import server  # noqa: E402,F401  (the fixture: tabletop serve as a process)
from tests.test_view import SIZE, click_at  # noqa: E402

SEATS = {"knossos": ["remote", "ai"], "king-of-the-hill": ["remote", "ai"], "king-kong": ["remote", "ai", "ai"]}
OPTIONS = {"knossos": {"games_to_win": 1}}


@pytest.fixture
def remote():
    """remote(url, code, **kw) -> (app, window) of a seat of the room; closed after the test."""
    from tabletop.net.window import open_remote
    from tabletop.sim.view.app import ViewError

    opened = []

    def make(url, code, seat=None, spectate=False):
        try:
            app, win = open_remote(url, code, seat, "tester", spectate, size=SIZE, offscreen=True, pace=0.0)
        except ViewError as exc:
            pytest.skip(f"no graphics pipe: {exc}")
        opened.append((app, win))
        return app, win

    yield make
    for app, win in opened:
        win.close()
        win.adapter.close()
        app.destroy()


def pump(win, until, timeout: float = 120.0) -> None:
    """Let the window take what the server sent (each animation run to its end) until `until()`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        win.take_events()
        win.finish_animation()
        if until():
            return
        time.sleep(0.01)
    raise AssertionError(f"not reached in {timeout:g} s: {win.waiting()!r}, step {win.step}, throws checked "
                         f"{win.throws_checked}, mismatched {win.throws_mismatched}: {win.hud.notice.getText()!r}")


def my_turn(win) -> bool:
    return not win.state.is_terminal() and win.legal is not None and win.legal_step == win.step and not win.waiting()


def until_a_move(win) -> None:
    """On to a turn of the seat's with a piece to move (a forced pass is passed with Enter)."""
    from direct.showbase.MessengerGlobal import messenger

    for _ in range(40):
        pump(win, lambda: my_turn(win))
        if win.legal != [["pass"]]:
            return
        step = win.step
        messenger.send("enter")
        pump(win, lambda: win.step > step)
    raise AssertionError("the seat never had a move")


def play_on(win, until, most: int = 40) -> None:
    """The seat plays its first legal action at each of its turns until `until()` (or the end)."""
    for _ in range(most):
        pump(win, lambda: until() or my_turn(win) or win.state.is_terminal(), timeout=120)
        if until() or win.state.is_terminal():
            return
        step = win.step
        win.act(win.state.legal_actions()[0])
        pump(win, lambda: win.step > step, timeout=120)
    raise AssertionError("not reached")


def click_a_move(app, win) -> tuple[int, object]:
    """Click a piece that can move, then its first lit space: (the step it answers, the action)."""
    s = win.state
    piece = next(p for p in win.adapter.piece_positions(s) if win.adapter.destinations(s, p))
    click_at(app, win, win.adapter.piece_positions(s)[piece])
    assert win.selected == piece and win.destinations
    option = win.destinations[0]
    step = win.step
    click_at(app, win, option.position)
    assert win.sent_step == step            # sent, not applied here: the server applies it
    return step, option.action


@pytest.mark.slow
@pytest.mark.parametrize("game", ["knossos", "king-of-the-hill"])
def test_the_window_client_plays_a_human_turn_against_the_server(server, remote, game):  # noqa: F811
    url, data = server
    room = tabletop.host(game, url, SEATS[game], seed=3, outcomes="physics", **OPTIONS.get(game, {}))
    app, win = remote(url, room.code)
    assert win.seat == 0 and win.viewer() == {0}
    until_a_move(win)
    step, action = click_a_move(app, win)
    pump(win, lambda: win.step > step)
    assert win.state.history[step] == action       # the server applied the clicked move
    play_on(win, lambda: win.throws_checked >= 2)
    assert win.throws_checked >= 2 and win.throws_mismatched == 0, win.hud.notice.getText()
    assert "checked" in win.hud.status.getText()


@pytest.mark.slow
def test_the_window_client_plays_a_king_kong_turn_and_shows_no_other_hand(server, remote):  # noqa: F811
    """King Kong: the server rolls the seat's die (the window re-simulates it and checks it), or
    the seat holding a Helicopter Ride chooses "roll" from the numbered menu; then it clicks its
    pawn and a lit space. The players panel shows its own cards and only counts of the others'."""
    from direct.showbase.MessengerGlobal import messenger

    from tabletop.games.king_kong.rules import COLOURS, Move, Phase, Roll

    url, data = server
    room = tabletop.host("king-kong", url, SEATS["king-kong"], seed=5, outcomes="physics")
    app, win = remote(url, room.code)
    me = win.seat
    menu_rolls = 0
    for _ in range(100):
        pump(win, lambda: my_turn(win) or win.state.is_terminal())
        s = win.state
        assert not s.is_terminal(), "the seat never had a move to make"
        step = win.step
        if s.phase is Phase.MOVE and any(isinstance(a, Move) for a in s.legal_actions()):
            break
        if s.phase is Phase.TURN and Roll() in win.menu:
            messenger.send(str(win.menu.index(Roll()) + 1))      # roll, by its number key
            menu_rolls += 1
        else:
            win.act(s.legal_actions()[-1])
        pump(win, lambda: win.step > step)
    assert win.throws_checked >= 1 and win.throws_mismatched == 0, win.hud.notice.getText()
    s = win.state
    click_at(app, win, win.adapter.piece_positions(s)[me])
    assert win.selected == me
    option = next(d for d in win.destinations if isinstance(d.action, Move))
    step = win.step
    click_at(app, win, option.position)
    assert win.sent_step == step
    pump(win, lambda: win.step > step)
    assert win.state.pos[me] == option.action.to        # the server moved the pawn where it was clicked
    text = " ".join(win.hud.players.getText().split())      # the players panel as drawn (rows unwrapped)
    deck = s.game.deck
    own = {str(deck[c]) for c in win.state.hands[me]}
    assert own and all(name in text for name in own)
    for p in range(3):
        if p != me:                   # (the others' hands here are stand-ins: never shown, only counted)
            assert f"{COLOURS[p]}" in text
            assert not [name for name in {str(deck[c]) for c in win.state.hands[p]} - own if name in text]


@pytest.mark.slow
def test_the_window_reconnects_by_itself_and_plays_on(server, remote):  # noqa: F811
    """The window's connection drops mid-game: it says so, its client joins again with the seat's
    token, the window takes the whole view again (no line twice) and the seat plays on."""
    import asyncio

    url, data = server
    room = tabletop.host("king-kong", url, SEATS["king-kong"], seed=7, outcomes="measured")
    app, win = remote(url, room.code)
    pump(win, lambda: my_turn(win))
    lines, step = list(win.match.lines), win.step
    client = win.link.client
    asyncio.run_coroutine_threadsafe(client.connection.close(), client._loop).result(10)
    pump(win, lambda: client.reconnects >= 1 and win.connection == "connected" and my_turn(win))
    assert "reconnected" in win.hud.notice.getText()
    assert win.step == step and win.match.lines == lines
    assert win.hud.lines == lines                 # the log as shown: each line once
    win.act(win.state.legal_actions()[0])
    pump(win, lambda: win.step > step)


@pytest.mark.slow
def test_a_spectators_window_shows_no_card(server, remote):  # noqa: F811
    url, data = server
    room = tabletop.host("king-kong", url, ["ai", "ai", "ai"], seed=2, outcomes="measured")
    app, win = remote(url, room.code, spectate=True)
    assert win.seat is None and win.viewer() == set()
    pump(win, lambda: win.state.is_terminal() or win.state.round >= 2)
    deck = win.state.game.deck
    panel = " ".join(win.hud.players.getText().split())
    assert "cards" in panel and not [c for c in {str(c) for c in deck.cards} if c in panel]
    assert "watching" in win.hud.status.getText()
