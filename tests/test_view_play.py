"""Every human turn playable in the window, and no hidden card shown: the hard cases a player
meets, played through the window's own mouse and key events (rendered offscreen, EGL).

- a lit space is always clickable, however many are lit (a King Kong 5 from Start lights dozens);
- the keys' numbers stand on the lit spaces when the keys reach them all (a King of the Hill J:
  ten), the numbered list shows where the keys go, the selected piece wears a halo;
- King Kong's cards: an AI seat's hand never reaches the screen (log, players panel, status,
  prompt, notice, menu); with two human seats a curtain passes the screen and each sees only
  their own hand.
"""
from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("panda3d")

from tabletop.gamekit.state import ChanceOutcome, Pass, SeatLine  # noqa: E402
from tests.test_view import click_at, open_window, step, until_human_moves, until_kong_turn  # noqa: E402,F401


def scripted(ctrl, label: str) -> None:
    """Answer the pending chance event with `label` (a script: the test chooses the roll)."""
    assert ctrl.state.is_chance_node()
    ctrl._apply(ChanceOutcome(label))
    ctrl.finish_animation()


def select_by_click(app, ctrl, piece) -> None:
    click_at(app, ctrl, ctrl.adapter.piece_positions(ctrl.state)[piece])
    assert ctrl.selected == piece, ctrl.hud.notice.getText()
    assert ctrl.adapter._halo is not None, "the selected piece is not highlighted"


def marker_keys(ctrl) -> list[str]:
    """The number key drawn on each lit space ('' where none)."""
    if not ctrl._keys:
        return [""] * len(ctrl._markers)
    assert len(ctrl._keys) == len(ctrl._markers)
    out = []
    for (_, node), (keyed, label, below) in zip(ctrl._markers, ctrl._keys):
        assert keyed == node
        film = ctrl.app.project(node.get_pos(ctrl.app.render))   # the key stands over its lit space ...
        x, y = label.getPos()
        assert film is not None and abs(x - film[0] * ctrl.hud.ar) < 0.02
        if below:                                                 # ... or, where a piece stands, below it
            assert film[1] - 0.3 < y < film[1] - 0.02
        else:
            assert abs(y - film[1]) < 0.05
        out.append(label.getText())
    return out


def menu_texts(ctrl) -> list[str]:
    return [b["text"] for b in ctrl.hud.menu]


def test_king_kong_a_roll_that_lights_dozens_of_spaces_is_played_by_a_click(open_window):
    """A 5 from Start lights far more spaces than there are number keys: clicking one moves the
    pawn there (it was refused: "more lit spaces than number keys")."""
    from tabletop.games.king_kong.rules import Move, Phase, Roll

    app, ctrl = open_window("king-kong", ["human", "ai"], seed=5, size=(1280, 720))
    until_kong_turn(ctrl)
    assert ctrl.state.phase is Phase.TURN
    me = ctrl.state.current_player
    assert ctrl.state.pos[me] == "start"
    ctrl.act(Roll())
    ctrl.finish_animation()
    scripted(ctrl, "5")
    select_by_click(app, ctrl, me)
    n = len(ctrl.destinations)
    assert n > 10
    assert marker_keys(ctrl) == [""] * n, "no key can reach them all: no numbers on the lit spaces"
    assert f"{n} lit spaces" in ctrl.hud.menu_title.getText() and menu_texts(ctrl) == []
    assert "click one of the" in ctrl.hud.prompt.getText()
    far = max((d for d in ctrl.destinations if isinstance(d.action, Move)),
              key=lambda d: d.position[1])     # the farthest up the towers
    click_at(app, ctrl, far.position)
    ctrl.finish_animation()
    assert ctrl.state.pos[me] == far.action.to
    assert ctrl.selected is None and not ctrl._markers


def test_king_of_the_hill_a_j_offers_ten_spaces_numbered_and_clickable(open_window):
    """A J lets a marble go 1 to 10 spaces: ten lit seats numbered 1-9 and 0 on the board and
    in the numbered list; key 0 would take the tenth, and a click on the tenth takes it."""
    app, ctrl = open_window("king-of-the-hill", ["human", "ai"], seed=3, size=(1280, 720))
    scripted(ctrl, "J")              # turn order: the human tilts J, the AI a 1
    scripted(ctrl, "1")
    assert ctrl.human(ctrl.actor())
    scripted(ctrl, "J")
    s = ctrl.state
    marble = next(m for m in range(len(s.track)) if len(ctrl.adapter.destinations(s, m)) == 10)
    select_by_click(app, ctrl, marble)
    assert marker_keys(ctrl) == [str(k % 10) for k in range(1, 11)]
    items = menu_texts(ctrl)
    assert len(items) == 10 and items[0].startswith("1 ") and items[9].startswith("0 ")
    assert "goes to" in ctrl.hud.menu_title.getText()
    assert "press its number (1-9, 0)" in ctrl.hud.prompt.getText()
    tenth = ctrl.destinations[9]
    expected = s.clone()
    expected.apply(tenth.action)
    click_at(app, ctrl, tenth.position)
    ctrl.finish_animation()
    assert ctrl.state.track[marble] == expected.track[marble]


def test_knossos_a_move_by_click_with_its_number_and_the_list(open_window):
    """A Knossos piece: its lit spaces carry their keys, the list says where each goes, and a
    click on a lit space moves it there."""
    app, ctrl = open_window("knossos", ["human", "ai"], seed=5, size=(1280, 720))
    until_human_moves(ctrl)
    s = ctrl.state
    piece = next(p for p in range(len(s.pos)) if ctrl.adapter.destinations(s, p))
    select_by_click(app, ctrl, piece)
    n = len(ctrl.destinations)
    assert marker_keys(ctrl) == [str(k % 10) for k in range(1, n + 1)]
    assert len(menu_texts(ctrl)) == n and "goes to" in ctrl.hud.menu_title.getText()
    option = ctrl.destinations[-1]
    expected = s.clone()
    expected.apply(option.action)
    click_at(app, ctrl, option.position)
    ctrl.finish_animation()
    assert ctrl.state.pos[piece] == expected.pos[piece]


# -- hidden cards -------------------------------------------------------------------------------

def hud_texts(ctrl) -> dict[str, str]:
    hud = ctrl.hud
    return {"players": hud.players.getText(), "status": hud.status.getText(), "prompt": hud.prompt.getText(),
            "notice": hud.notice.getText(), "banner": hud.banner.getText(),
            "menu": "\n".join([hud.menu_title.getText()] + menu_texts(ctrl)), "log panel": hud.log_text.getText(),
            "curtain": hud.curtain_title.getText() if not hud.curtain.is_hidden() else ""}


def hand_rows(players_text: str) -> dict[str, str]:
    """colour -> the hand row under it in the players panel (wrapped rows joined)."""
    out, colour = {}, None
    for row in players_text.split("\n"):
        if row and not row.startswith(" "):
            colour = row.split()[0]
            out[colour] = ""
        elif colour is not None:
            out[colour] = (out[colour] + " " + row.strip()).strip()
    return out


def secret_names(s, viewers) -> set[str]:
    """Names of cards held by seats outside `viewers` and by no one the viewers see, nowhere public."""
    deck = s.game.deck
    public = {str(deck[c]) for p in viewers for c in s.hands[p]}
    public |= {str(deck[c]) for p in range(s.game.players) for c in list(s.kept[p]) + [s.played[p]] if c is not None}
    public |= {str(deck[c]) for c in s.discard}
    return {str(deck[c]) for p in range(s.game.players) if p not in viewers for c in s.hands[p]} - public


def check_nothing_hidden_shown(ctrl, viewers: set[int]) -> None:
    from tabletop.games.king_kong.rules import COLOURS

    s = ctrl.state
    shown = ctrl.hud.shown_lines()
    for raw in ctrl.hud.lines:
        if isinstance(raw, SeatLine) and raw.seat not in viewers:
            text = ctrl.hud.reader(raw)
            assert text == raw.public and text != str(raw) and str(raw) not in shown
    others = "|".join(COLOURS[p] for p in range(s.game.players) if p not in viewers)
    for text in shown:
        assert not re.search(rf"\b({others}) (draws|is dealt) (?!\d+ cards?$)", text), text
    texts = hud_texts(ctrl)
    for colour, hand in hand_rows(texts["players"]).items():
        if COLOURS.index(colour) not in viewers:
            assert re.fullmatch(r"\d+ cards?", hand), f"{colour}'s hand shown: {hand}"
    secret = secret_names(s, viewers)
    for where, text in texts.items():
        for name in secret:
            assert name not in text, f"{name} (an unseen hand's card) in the {where}: {text}"


def test_king_kong_no_ai_card_reaches_the_human(open_window):
    """One human and two AI seats, played to the end (or 60 turns) through the window (physics for every
    chance event, the human's choices by an AI stand-in through the window's own actions): no
    log line, HUD text or menu ever shows a card in an AI seat's hand; the human's own hand is
    on the panel and its own draws in the log."""
    from tabletop.games.king_kong.rules import COLOURS

    app, ctrl = open_window("king-kong", ["human", "ai", "ai"], seed=11)
    for _ in range(3000):
        s = ctrl.state
        if s.is_terminal() or s.turn > 60:    # (once over, every hand is shown)
            break
        check_nothing_hidden_shown(ctrl, {0})
        step(ctrl)
    own_draws = sum(1 for line in ctrl.hud.shown_lines() if re.match(r"red (draws|is dealt) [A-Z]", line))
    assert own_draws >= 1, "the human's own cards are named to it"
    hidden = [line for line in ctrl.hud.lines if isinstance(line, SeatLine) and line.seat != 0]
    assert len(hidden) >= 4, "the AI seats drew cards"
    hand = hand_rows(ctrl.hud.players.getText())[COLOURS[0]]
    s = ctrl.state
    if not s.is_terminal() and s.hands[0]:
        assert str(s.game.deck[s.hands[0][0]]) in hand


def test_king_kong_two_humans_pass_the_screen(open_window):
    """Two human seats at one screen: after a human's turn the table stays in view (every hand
    counted only: the mover may walk away) until Enter passes the screen; then it is covered until
    Enter again, and only the seat to act sees its hand; neither sees the other's draws in the log;
    no line of the hand-over stays once it is done."""
    from direct.showbase.MessengerGlobal import messenger

    app, ctrl = open_window("king-kong", ["human", "human", "ai"], seed=5)
    ctrl.curtain_hold = 0.0
    curtains, handovers = set(), set()
    for _ in range(2000):
        s = ctrl.state
        if s.is_terminal() or s.turn > 12:
            break
        if ctrl.curtain:
            human = ctrl._human_turn()
            curtains.add(human)
            check_nothing_hidden_shown(ctrl, set())
            assert not ctrl.hud.curtain.is_hidden() and "Pass the screen to" in ctrl.hud.curtain_title.getText()
            ctrl.hud.set_notice("")
            messenger.send("1")                               # keys do nothing behind the curtain
            assert ctrl.state is s and "pass the screen" in ctrl.hud.notice.getText()
            messenger.send("enter")
            assert not ctrl.curtain and ctrl.hud.curtain.is_hidden()
            assert ctrl.hud.notice.getText() == "" and "pass the screen" not in ctrl.hud.prompt.getText()
            check_nothing_hidden_shown(ctrl, {human})
            continue
        if ctrl.handing_over is not None:
            mover, human = ctrl.at_screen, ctrl.handing_over
            handovers.add((mover, human))
            assert mover != human and ctrl.hud.curtain.is_hidden()
            check_nothing_hidden_shown(ctrl, set())              # no hand: the mover may walk away
            assert ctrl.hud.banner.getText() == f"Pass the screen to {ctrl.adapter.seat_name(human)}: press Enter"
            assert not ctrl.choices and ctrl.hud.buttons["pass"]["text"] == "Pass the screen  [Enter]"
            messenger.send("1")                                   # nothing of the next player's to choose
            assert ctrl.state is s and "press Enter to pass the screen" in ctrl.hud.notice.getText()
            messenger.send("enter")
            assert ctrl.curtain and ctrl.handing_over is None and ctrl.hud.banner.getText() == ""
            assert ctrl.hud.notice.getText() == ""
            continue
        human = ctrl._human_turn()
        check_nothing_hidden_shown(ctrl, {human} if human is not None and human == ctrl.at_screen else set())
        step(ctrl)
    assert curtains == {0, 1} and {(0, 1), (1, 0)} <= handovers


def test_the_mover_sees_the_move_land_before_the_curtain(open_window):
    """Hotseat King Kong: a human's move by a click plays its hop, and the screen stays uncovered for
    as long as the mover looks (frames for 5 s of the clock): the curtain drops only on the mover's
    Enter, and a second Enter at once (a double press) does not lift it for the next player."""
    from direct.showbase.MessengerGlobal import messenger
    from tabletop.games.king_kong.rules import Move

    app, ctrl = open_window("king-kong", ["human", "human", "ai"], seed=5)
    ctrl.curtain_hold = 0.0
    for _ in range(600):                                    # on to a human's move of the pawn by a click
        s = ctrl.state
        if ctrl.curtain:
            messenger.send("enter")
        elif ctrl.handing_over is not None:
            messenger.send("enter")
        elif not s.is_chance_node() and ctrl.human(s.current_player) and \
                any(isinstance(a, Move) for a in s.legal_actions()):
            break
        else:
            step(ctrl)
    mover = ctrl.state.current_player
    ctrl.select(mover)
    dest = next(d for d in ctrl.destinations if isinstance(d.action, Move))
    click_at(app, ctrl, dest.position)
    assert ctrl.anim is not None and not ctrl.curtain       # the hop plays in view
    clock = 0.0
    while ctrl.anim is not None or ctrl.handing_over is None:
        if ctrl.anim is None:
            step(ctrl)                                      # the AI's replies and the throws after the move
        else:
            ctrl._advance(1 / 30)
            clock += 1 / 30
        assert not ctrl.curtain
    for _ in range(150):                                    # the mover looks at it for 5 s: no curtain
        ctrl._update(type("Task", (), {"cont": 1})())
    assert not ctrl.curtain and ctrl.handing_over is not None and ctrl.at_screen == mover
    ctrl.curtain_hold = 0.6
    messenger.send("enter")                                 # passes the screen
    assert ctrl.curtain
    messenger.send("enter")                                 # pressed twice at once: still covered
    assert ctrl.curtain
    ctrl._curtain_since -= 1.0
    messenger.send("enter")                                 # the next player, ready
    assert not ctrl.curtain and ctrl.at_screen == ctrl._human_turn() != mover
    assert ctrl.hud.notice.getText() == "" and not ctrl.hud.banner.getText()


def test_a_seat_line_is_read_whole_only_by_its_seat():
    from tabletop.gamekit.state import seen_by

    line = SeatLine("blue draws Safety Net", 1, "blue draws 1 card")
    assert line == "blue draws Safety Net"
    assert seen_by(line, {1}) == "blue draws Safety Net" and seen_by(line, {0, 2}) == "blue draws 1 card"
    assert seen_by("red rolls 5", set()) == "red rolls 5"
    import copy
    import pickle
    back = pickle.loads(pickle.dumps(line))
    assert isinstance(back, SeatLine) and back.public == line.public and back.seat == 1
    assert copy.deepcopy(line).public == line.public
    np.testing.assert_equal(len(line), len("blue draws Safety Net"))


@pytest.mark.parametrize("game, seats, seed, turns", [("king-kong", ["human", "human", "ai"], 5, 30),
                                                      ("knossos", ["human", "ai"], 5, 40),
                                                      ("king-of-the-hill", ["human", "ai"], 3, 40)])
def test_one_entry_per_distinct_choice(open_window, game, seats, seed, turns):
    """Every human decision's numbered choices say each distinct choice once: two copies of a card
    (King Kong's discard of "Attack Left Hand" from a hand that holds two) are one entry, and no
    legal action goes unlisted (each one's words are among the entries or its piece's)."""
    app, ctrl = open_window(game, seats, seed=seed)
    ctrl.curtain_hold = 0.0
    twins = 0
    for _ in range(3000):
        s = ctrl.state
        if s.is_terminal() or s.turn > turns:
            break
        if ctrl.curtain or ctrl.handing_over is not None:
            ctrl.pass_key()
            continue
        if ctrl.choices:
            texts = [text for text, _ in ctrl.choices]
            assert len(texts) == len(set(texts)), f"a choice listed twice: {texts}"
            said = {ctrl.adapter.action_text(s, a) for a in s.legal_actions() if a != Pass()}
            listed = {ctrl.adapter.action_text(s, a) for a in ctrl.menu}
            placed = {ctrl.adapter.action_text(s, d.action) for p in range(len(ctrl.adapter.piece_bodies))
                      for d in ctrl.adapter.destinations(s, p)}
            assert said <= listed | placed, f"a choice not offered: {said - listed - placed}"
            twins += len(s.legal_actions()) > len(ctrl.menu) + len(placed) and not placed
        step(ctrl)
    if game == "king-kong":
        assert twins, "no decision offered two copies of a card: the test saw nothing to merge"
