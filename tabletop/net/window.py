"""The window client: one seat of a room on a game server played in the 3D window (or the game
watched), `tabletop join ws://HOST:PORT/CODE` without --headless.

The window is the local game's (tabletop.gamekit.view.controller.GameWindow) with the game's
adapter, but the server is the authority: the position shown is the seat's mirror of the game (the
view's `mirror`, the definition's `mirror_state`: what the seat may know, the rest stand-ins never
shown), the seat's decisions are sent to the server and shown once it has applied them, and the
other seats' moves come as the server's views. A physical chance event is re-simulated here from
the seed the server reveals once it has settled (the seed it committed to before the event):
the window plays back its own simulation, and marks the throw "checked" when this build's outcome
and motion hash are the server's, loudly when they are not.

The seat's client (tabletop.net.client.SeatClient) runs on an asyncio loop in a thread of its own
and hands each message to the window's frame task through a queue, so a slow network never stalls
the window and the window never stalls the connection.
"""
from __future__ import annotations

import math
import queue
import threading
import time

from tabletop.gamekit.view.controller import HOP_SECONDS, HOP_HEIGHT, Animation, GameWindow
from tabletop.net.client import NetError, SeatClient, game_of, mirror_of

FIRST_VIEW_S = 60.0        # how long `join` waits for the room's first view before giving up
FIRST_REACH_S = 5.0        # ... and for the server to answer at all (later drops: the client's own wait)


class Link:
    """A SeatClient on its own thread and event loop; what it hears, in a queue for the window."""

    def __init__(self, server: str, room: str, seat: str | None, name: str | None, spectate: bool,
                 token: str | None = None, keep=None, kept: tuple[str, ...] = ()):
        self.events: queue.Queue = queue.Queue()
        self.arrivals: dict[tuple[str, int], float] = {}   # ("commit" | "reveal", chance event) -> when it came
        self.client = SeatClient(server, room, seat, name, spectate, choose=lambda view, legal, step: None,
                                 note=lambda text: self.events.put(("note", text)),
                                 on_event=self._heard, give_up_s=FIRST_REACH_S, token=token, keep=keep,
                                 kept=kept)
        self.thread = threading.Thread(target=self._run, name="tabletop-join", daemon=True)

    def _heard(self, kind: str, *data) -> None:
        from tabletop.net import protocol as p

        message = data[0] if data else None
        if isinstance(message, (p.Commit, p.Reveal)):
            self.arrivals.setdefault((message.TYPE, message.chance), time.perf_counter())
        self.events.put((kind, *data))

    def start(self) -> "Link":
        self.thread.start()
        return self

    def _run(self) -> None:
        import asyncio

        try:
            view = asyncio.run(self.client.run())
        except Exception as exc:     # the window says it; the seat's game goes on without this client
            self.events.put(("failed", exc))
        else:
            self.events.put(("done", view))

    def first_view(self, timeout: float = FIRST_VIEW_S) -> tuple[list, dict]:
        """Wait for the room's first view: (every event so far, the joined message), the first
        view's event last. NetError (or the client's own error) when it does not come."""
        from tabletop.net import protocol as p

        held, joined = [], None
        deadline = time.monotonic() + timeout
        while True:
            try:
                event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                self.close()
                raise NetError(f"no view of the room came in {timeout:g} s") from None
            if event[0] == "failed":
                raise event[1]
            held.append(event)
            if event[0] == "message" and isinstance(event[1], p.Joined):
                joined = event[1]
            if event[0] == "view":
                from tabletop.net.client import GIVE_UP_S

                self.client.give_up_s = GIVE_UP_S     # reached once: a drop is waited out as headless seats do
                return held, joined

    def close(self) -> None:
        self.client.stop()


class MirrorMatch:
    """What the window asks of its Match, for a game the server plays: the mirror's state and the
    log lines shown; nothing is taken back in a room."""

    def __init__(self, state, lines: list[str]):
        self.state, self.lines, self.result = state, lines, None

    def can_undo(self, humans) -> bool:
        return False

    def redo_action(self):
        return None

    def leave(self) -> None:
        pass

    def close(self) -> None:
        pass


class RemoteWindow(GameWindow):
    """The window of one seat of a room (`seat` its index; None: a spectator)."""

    CHAT_ROWS = 6            # chat lines shown

    def __init__(self, app, game, adapter, kinds: list[str], seat: int | None, link: Link, events: list,
                 outcomes: str, pace: float = 0.8, joined=None, chat: bool = True):
        self.link = link
        self.seat = seat
        self.joined = joined                 # the room's `joined` message: its lobby, what becomes of a seat left
        self.names = {} if joined is None else {s.get("colour"): s.get("name") for s in joined.seats}
        self.started = True if joined is None else joined.started
        self.chat_on = chat                  # False: the room's chat not shown (C toggles it)
        self.chat_lines: list[str] = []
        self.typing = None                   # the chat entry while a message is typed
        self.unsent: str | None = None       # the action held while the connection is down, in words
        self._pending = list(events)     # events taken before the window opened (the first view last)
        self._mirror_cache: dict = {}
        self._reveals: dict[str, object] = {}     # chance event's kind -> its latest reveal, until shown
        self.physics = outcomes == "physics"
        self.throws_checked = 0
        self.throws_mismatched = 0
        self.throws_unchecked = 0
        self.throw_times: list[dict] = []   # each checked throw: from its commitment, and from its reveal, to its motion
        self.joined_mid_game = False
        self.legal, self.legal_step, self.sent_step = None, None, None
        self.step = -1
        self.connection = "connected"
        self.ended: str | None = None
        kinds = [("human" if p == seat else k) for p, k in enumerate(kinds)]
        super().__init__(app, game, adapter, kinds, 0, pace=pace, options=None)
        self._chat_text = self._chat_panel()
        self._show_chat()
        self.hud.relabel("chance", "The server throws")
        for key, fn in (("t", self.open_chat), ("c", self.toggle_chat), ("s", self.start_room)):
            self._keys_bound.add(key)
            self.app.base.accept(key, self.key, [key, fn])

    # -- the game: the server's -------------------------------------------------------------------
    def new_game(self) -> None:
        if self.match is not None:
            self.hud.set_notice("the room plays one game: join another room for a new one")
            return
        from tabletop.gamekit.chance import WatchedOutcomes

        *before, first = self._pending
        self._pending = before
        _, message, view = first
        definition, config, _, _ = game_of(view)
        self.config = config
        self.source = WatchedOutcomes(self.adapter.physics_source()) if self.physics else None
        state = mirror_of(definition, config, view["mirror"], self.seat, self._mirror_cache)
        self.match = MirrorMatch(state, list(view["log"]))
        self.step = message.step
        self.joined_mid_game = message.step > 0 and not self._catch_up(state)
        self._take_legal(message)
        self.anim = None
        self._clear_selection()
        self.hud.clear_log()
        self.hud.set_banner("")
        self.adapter.place_pieces(self.app, state)
        for line in self.match.lines:
            self.hud.log(line)
        self._refresh()

    CATCH_UP_MOST = 40      # past throws re-simulated at a join to set the table as the server's

    def _catch_up(self, state) -> bool:
        """A seat that joins a game under way: its table set as the server's by re-simulating every
        throw so far from its revealed seed, in order (a device may start where its last throw left
        it: the Tipper's ball). Only a history mirror can (it holds the positions), and only up to
        CATCH_UP_MOST throws; whether it did. Each throw whose outcome is the server's is checked."""
        from tabletop.gamekit.commit import chance_generator
        from tabletop.gamekit.state import ChanceOutcome

        if self.source is None:
            return True
        throws = [a for a in state.history if isinstance(a, ChanceOutcome)]
        if not state.history or len(throws) > self.CATCH_UP_MOST:
            return False
        reveals = {e[1].chance: e[1] for e in self._pending if e[0] == "reveal"}
        s = self.game.make_game(self.config).new_initial_state()
        k = 0
        for action in state.history:
            if isinstance(action, ChanceOutcome):
                reveal = reveals.get(k)
                if reveal is None or reveal.outcome is None:
                    return False
                if self.source.outcome(s.chance_event, s.clone(), chance_generator(reveal.seed)) == reveal.outcome:
                    self.throws_checked += 1
                else:
                    self.throws_mismatched += 1
                k += 1
            s.apply(action)
        return True

    def human(self, player: int) -> bool:
        """The seat this window plays, at its own decision (the server throws every chance event)."""
        return self.seat is not None and player == self.seat and self.match is not None and \
            not self.state.is_chance_node()

    def viewer(self) -> set[int]:
        """The seats whose cards the screen may show: this seat's alone (a spectator's: none), the
        game over or not: the others' hands here are stand-ins."""
        return set() if self.seat is None else {self.seat}

    def _take_legal(self, message) -> None:
        self.legal = None if message.legal is None else [list(a) for a in message.legal]
        self.legal_step = message.step if message.legal is not None else None

    # -- the frame task ---------------------------------------------------------------------------------
    def _update(self, task):
        from panda3d.core import ClockObject

        dt = min(ClockObject.get_global_clock().get_dt(), 0.1)
        if self.anim is not None:
            self._advance(dt * self.speed)
            return task.cont
        if self._camera_back is not None:
            target, distance = self._camera_back
            self.app.camera.approach(target, distance, min(1.0, 5.0 * dt))
            if (self.app.camera.target - target).length() < 1e-3:
                self._camera_back = None
        self.take_events()
        return task.cont

    def take_events(self, most: int = 64) -> int:
        """Handle what the client heard, in order, until an animation starts; the events handled."""
        handled = 0
        while self.anim is None and handled < most:
            if self._pending:
                event = self._pending.pop(0)
            else:
                try:
                    event = self.link.events.get_nowait()
                except queue.Empty:
                    break
            handled += 1
            self._event(event)
        return handled

    def _event(self, event: tuple) -> None:
        from tabletop.net import protocol as p

        kind = event[0]
        if kind == "view":
            self._view(event[1], event[2])
        elif kind == "reveal":
            reveal, ok = event[1], event[2]
            if not ok:
                self.hud.set_notice(f"WARNING: chance event {reveal.chance} ({reveal.event}) does not match the "
                                    f"commitment the server published before it")
            held = self._reveals.get(reveal.event)
            if held is None or held.chance < reveal.chance:
                self._reveals[reveal.event] = reveal
        elif kind == "message" and isinstance(event[1], p.Notice):
            self.hud.set_notice(event[1].text)
            self.names = {seat.get("colour"): seat.get("name") for seat in event[1].seats}
            self._show_players()
            if self.started != event[1].started:
                self.started = event[1].started
                self._refresh()
        elif kind == "message" and isinstance(event[1], p.Chat):
            self._chat(event[1])
        elif kind == "unsent":
            self.sent_step = None
            self.unsent = self.adapter.action_text(self.state, self._decoded(event[2]))
            self.hud.set_prompt(f"NOT SENT: {self.unsent} - the connection is down; it is sent when the connection "
                                f"is back, if it is still legal")
        elif kind == "resent":
            self.hud.set_notice(f"sent now that the connection is back: {self.unsent or 'your move'}")
            self.unsent = None
            self.sent_step = event[1]
        elif kind == "unsent-dropped":
            self.hud.set_notice(f"your move ({self.unsent or 'held'}) was not sent: {event[3]}; choose again")
            self.unsent = None
            self._refresh()
        elif kind == "chat-unsent":
            self.hud.set_notice(f"chat not sent (no connection): {event[1][:60]}")
        elif kind == "message" and isinstance(event[1], p.Error):
            if event[1].about == "act":
                self.sent_step = None
            self.hud.set_notice(f"the server refused: {event[1].message}")
            self._refresh()
        elif kind == "lost":
            self.connection = "reconnecting"
            self.hud.set_notice(f"connection lost ({event[1]}): reconnecting...")
        elif kind == "note" and event[1].startswith("cannot reach"):
            self.hud.set_notice(event[1])
        elif kind == "failed":
            self.ended = f"the connection ended: {event[1]}"
            self.hud.set_notice(self.ended)
            self.hud.set_prompt("press Q to quit")
        elif kind == "done":              # the client's game is over: the views say the rest
            pass

    def _decoded(self, encoded):
        from tabletop.gamekit.record import decode_action

        return decode_action(self.game, encoded)

    def _view(self, message, view: dict) -> None:
        """A view of the server's: the position it gives shown, from the one shown (a move hopped
        there, a chance event played back from its re-simulation), the new log lines. A view of an
        earlier step than the one shown (a server restarted from its journal plays again what it
        lost) is not shown: the window stays where it was until the room is past it."""
        definition = self.game
        before = self.state
        if self.connection != "connected":
            self.connection = "connected"
            self.hud.set_notice("reconnected: the game goes on")
        if message.step < self.step:
            mirror_of(definition, self.config, view["mirror"], self.seat, self._mirror_cache)
            self.hud.set_notice(f"the server catches up from its journal (step {message.step} of the {self.step} "
                                f"shown here)")
            return
        after = mirror_of(definition, self.config, view["mirror"], self.seat, self._mirror_cache)
        lines = list(view["log"])
        held = self.match.lines
        if lines[:len(held)] == held:
            new = lines[len(held):]
        else:
            self.hud.clear_log()
            new = lines
        self.match.lines = lines
        self._take_legal(message)
        if message.step != self.sent_step:
            self.sent_step = None
        chance = message.step == self.step + 1 and before.is_chance_node()
        event = before.chance_event if chance else None
        self.step = message.step
        if view.get("over"):
            self.match.result = view.get("result")

        def shown() -> None:
            self.match.state = after
            for line in new:
                self.hud.log(line)
            self.adapter.place_pieces(self.app, after)
            self._refresh()

        if chance:
            motion = self._replayed(before, event, after)
            if motion is not None:
                self.watch(before, event, motion, shown)
                return
        self._hop(before, after, shown)

    # -- showing what happened ------------------------------------------------------------------------
    def _hop(self, before, after, done) -> None:
        """The pieces that moved hop from where `before` has them to where `after` does."""
        a0 = self.adapter.piece_positions(before)
        a1 = self.adapter.piece_positions(after)
        moved = {p: (a0[p], a1[p]) for p in a1 if p in a0 and a0[p] != a1[p]}
        if not moved:
            done()
            return

        def show(t: float) -> None:
            u = min(1.0, t / HOP_SECONDS)
            for piece, (a, b) in moved.items():
                lift = HOP_HEIGHT * math.sin(math.pi * u)
                self.adapter.put_piece(self.app, piece, tuple(a[k] + (b[k] - a[k]) * u for k in range(2)) +
                                       (a[2] + (b[2] - a[2]) * u + lift,))

        self.match.state = after                  # the rules' position is the new one while it hops
        self.anim = Animation(HOP_SECONDS, show, done)

    def _replayed(self, before, event: str, after):
        """This build's simulation of the chance event the server answered at `before`, from the
        seed it revealed: its Motion when the outcome (and the motion's hash) are the server's,
        else None, with a notice saying why (a mismatch loudly)."""
        from tabletop.gamekit.commit import chance_generator
        from tabletop.sim.record import motion_sha256, quantize_motion

        if not self.physics:
            return None
        reveal = self._reveals.pop(event, None)   # (it comes just before the view that applies it)
        if reveal is None or reveal.outcome is None:
            return None                    # a hidden event (a shuffle): nothing to throw, revealed at the end
        label = self.source.outcome(event, before.clone(), chance_generator(reveal.seed))
        motion = self.source.motions[-1]
        same_hash = reveal.motion_sha256 is None or not motion.frames or \
            motion_sha256(quantize_motion(motion)) == reveal.motion_sha256
        if label == reveal.outcome and same_hash:
            self.throws_checked += 1
            now = time.perf_counter()
            came = self.link.arrivals
            self.throw_times.append({"event": event,
                                     "commit_to_motion_s": now - came.get(("commit", reveal.chance), now),
                                     "reveal_to_motion_s": now - came.get(("reveal", reveal.chance), now)})
            self.hud.set_notice(f"{event} {label}: checked - re-simulated here from the seed committed before it, "
                                f"the same outcome and motion ({self.throws_checked} checked)")
            return motion
        if self.joined_mid_game and self.source.start is not None:   # a device that starts where it last stopped
            self.throws_unchecked += 1
            self.hud.set_notice(f"{event} {reveal.outcome}: not checked (joined mid-game: the table before it "
                                f"is not known here)")
            return None
        self.throws_mismatched += 1
        self.hud.set_notice(f"MISMATCH: {event} re-simulated here gives {label}"
                            f"{'' if same_hash else ' and another motion'}, the server said {reveal.outcome} "
                            f"(another build, or not the throw it committed to)")
        return None

    # -- the seat's decisions: sent to the server ---------------------------------------------------
    def act(self, action) -> None:
        """Send the seat's decision; the server's next view shows it applied."""
        from tabletop.gamekit.record import encode_action
        from tabletop.net import protocol as p

        if self.anim is not None or self.sent_step is not None:
            return
        if self.legal is None or self.legal_step != self.step:
            self.hud.set_notice(self.waiting() or "not your decision now")
            return
        encoded = encode_action(self.game, action)
        key = p.action_key(encoded)
        offered = next((a for a in self.legal if p.action_key(a) == key), None)
        if offered is None:
            self.hud.set_notice(f"{self.adapter.action_text(self.state, action)}: not an action the server offers")
            return
        self._clear_selection()
        self.hud.set_menu("", [])
        self.sent_step = self.step
        self.link.client.submit(self.step, offered)
        self.hud.set_prompt(f"sent: {self.adapter.action_text(self.state, action)} - waiting for the server")

    def waiting(self) -> str:
        if self.match is None:
            return "waiting for the room"
        if not self.started:
            return self._lobby_line()
        if self.ended is not None and not self.state.is_terminal():
            return f"{self.ended}: press Q to quit"
        if self.sent_step is not None:
            return "wait: your move is on its way to the server"
        s = self.state
        if self.anim is not None:
            return "wait until the pieces stop moving"
        if s.is_terminal():
            return "the game is over: press Q to quit"
        if s.is_chance_node():
            return f"wait: the server throws ({self.adapter.status(s)})"
        if self.seat is None:
            return f"you are watching: {self.adapter.status(s)}"
        if s.current_player != self.seat:
            return f"wait for {self.adapter.seat_name(s.current_player)}: {self.adapter.status(s)}"
        if self.legal is None:
            return "wait for the server's view"
        return ""

    def _refresh(self) -> None:
        super()._refresh()
        s = self.state
        who = "watching" if self.seat is None else f"you play {self.adapter.seat_name(self.seat)}"
        throws = ""
        if self.physics:
            throws = f"; throws checked {self.throws_checked}" + \
                (f", MISMATCHED {self.throws_mismatched}" if self.throws_mismatched else "")
        self.hud.set_status(f"{self.adapter.status(s)}\n{who} (online{throws})")
        self._show_players()
        self.hud.enable("new", False)          # one game a room
        if not self.started:
            self.hud.set_prompt(self._lobby_line())
        elif self.unsent is not None:
            self.hud.set_prompt(f"NOT SENT: {self.unsent} - the connection is down; it is sent when the connection "
                                f"is back, if it is still legal")
        elif s.is_terminal():
            self.hud.set_prompt("the game is over: press Q to quit")
        elif s.is_chance_node():
            self.hud.set_prompt(f"the server throws: {self.adapter.status(s)}")
        elif self.seat is not None and not self.human(s.current_player) and not s.is_chance_node():
            self.hud.set_prompt(f"waiting for {self.adapter.seat_name(s.current_player)}")

    def chance(self) -> None:
        self.hud.set_notice(self.waiting() or "the server throws every chance event")

    def chance_key(self) -> None:
        self.chance()

    def _show_players(self) -> None:
        """The players' panel with each seat's player named (as the room tells them), this seat "you"."""
        if self.match is None:
            return
        colours = self.game.colours
        shown = []
        for p, kind in enumerate(self.seat_kinds):
            name = self.names.get(colours[p]) if p < len(colours) else None
            if p == self.seat:
                shown.append(f"you{' (' + name + ')' if name else ''}")
            elif kind == "remote":
                shown.append(name or "(a player)")
            else:
                shown.append(kind)
        self.hud.set_players(self.adapter.players(self.state, shown, self.viewer()))

    def _lobby_line(self) -> str:
        host = " - press S to start now with the AI in the empty seats" if self._host_key() else ""
        return f"the room waits for its players (the host may start it){host}"

    def _host_key(self) -> str | None:
        from tabletop.net.keep import kept_host_key

        try:
            return kept_host_key(self.link.client.server, self.link.client.room)
        except OSError:
            return None

    def start_room(self) -> None:
        """S: the host starts the room now (the AI in the seats not taken)."""
        key = self._host_key()
        if self.started:
            self.hud.set_notice("the game has started")
        elif key is None:
            self.hud.set_notice("only the room's host can start it before every seat is taken")
        else:
            self.link.client.start(key)
            self.hud.set_notice("starting the room ...")

    def new_game_key(self) -> None:
        self.new_game()                       # (says the room plays one game)

    def quit_question(self) -> str | None:
        """Q online: what becomes of the seat (kept for its player, who takes it back with the same
        join on this machine)."""
        if self.match is None or self.seat is None or self.state.is_terminal() or self.ended is not None:
            return None
        j = self.joined
        colour = self.adapter.seat_name(self.seat)
        url = f"{self.link.client.server}/{self.link.client.room}"
        if j is None or not self.started:
            then = "The room keeps it for you while it waits for its players."
        else:
            after = "the AI plays it until you are back" if j.on_drop == "ai" else "the room pauses until you are back"
            then = f"The room waits {j.drop_wait} s for you, then {after}."
        return f"Your seat ({colour}) is kept. {then} `tabletop join {url}` on this machine takes it back."

    # -- chat ------------------------------------------------------------------------------------------
    CHAT_BOX = (0.03, 0.95, 0.50, 0.80)     # left, right, bottom, top: above the log, on the bare table's edge

    def _chat_panel(self):
        from direct.gui.DirectGui import DirectFrame
        from direct.gui.OnscreenText import OnscreenText
        from panda3d.core import TextNode

        left, right, bottom, top = self.CHAT_BOX
        self._chat_frame = DirectFrame(parent=self.app.base.a2dBottomLeft, frameColor=(0.07, 0.08, 0.11, 0.82),
                                       frameSize=(left, right, bottom, top))
        return OnscreenText(text="", parent=self._chat_frame, pos=(left + 0.025, top - 0.04), scale=0.032,
                            align=TextNode.A_left, fg=(0.95, 0.92, 0.78, 1), mayChange=True)

    def _chat(self, message) -> None:
        from tabletop.net.client import chat_line

        self.chat_lines.append(chat_line(message)[len("chat: "):])
        self._show_chat()

    def _show_chat(self) -> None:
        import textwrap

        if not self.chat_on:
            self._chat_text.setText("chat muted: C shows it" if self.chat_lines else "")
            return
        rows = [r for line in self.chat_lines[-self.CHAT_ROWS:]
                for r in textwrap.wrap(line, 52, subsequent_indent="  ")][-self.CHAT_ROWS:]
        hint = "chat - T: type a message, C: mute"
        self._chat_text.setText("\n".join([hint, *rows]))

    def toggle_chat(self) -> None:
        """C: the room's chat shown or muted."""
        self.chat_on = not self.chat_on
        self.hud.set_notice("chat shown" if self.chat_on else "chat muted (C shows it again)")
        self._show_chat()

    def open_chat(self) -> None:
        """T: type a chat message (Enter sends it, Esc closes the line)."""
        from direct.gui.DirectGui import DirectEntry

        if self.typing is not None:
            return
        left, right, bottom, _ = self.CHAT_BOX
        self.typing = DirectEntry(parent=self.app.base.a2dBottomLeft, pos=(left + 0.02, 0, bottom + 0.02),
                                  scale=0.032, width=(right - left - 0.04) / 0.032, numLines=1, focus=1,
                                  command=self._send_chat, initialText="", frameColor=(0.2, 0.22, 0.3, 1),
                                  text_fg=(1, 1, 1, 1))
        self.hud.set_notice("type a chat message: Enter sends it, Esc closes the line")

    def _send_chat(self, text: str) -> None:
        self.close_chat()
        if text.strip():
            self.link.client.say(text)

    def close_chat(self) -> None:
        if self.typing is not None:
            self.typing.destroy()
            self.typing = None

    def key(self, name: str, fn) -> None:
        """While a chat message is typed the keys are the line's (Esc closes it), not the game's."""
        if self.typing is not None:
            if name == "escape":
                self.close_chat()
            return
        super().key(name, fn)

    def undo(self) -> None:
        self.hud.set_notice("nothing is taken back in a room: every seat has seen it")

    def redo(self) -> None:
        self.undo()

    def close(self) -> None:
        self.close_chat()
        self.link.close()
        if self.source is not None:
            self.source.close()
            self.source = None


def open_remote(server: str, room: str, seat: str | None, name: str | None, spectate: bool,
                size=(1280, 720), offscreen: bool = False, pace: float = 0.8, note=None, token: str | None = None,
                keep=None, chat: bool = True, kept: tuple[str, ...] = ()):
    """(app, window) of a seat of a room, once its first view came (`note` told while waiting);
    `token` takes the seat back, `keep(colour, token)` is told the seat's token (SeatClient)."""
    from tabletop.gamekit.view.window import make_adapter
    from tabletop.sim.view.app import TableApp

    link = Link(server, room, seat, name, spectate, token, keep, kept).start()
    if note is not None:
        note(f"joining room {room} on {server} ...")
    try:
        events, joined = link.first_view()
    except BaseException:
        link.close()
        raise
    view = events[-1][2]
    definition, config, options, index = game_of(view)
    kinds = [s["kind"] for s in joined.seats] if joined is not None else list(config.get("seats", ()))
    adapter = make_adapter(definition, kinds, options)
    try:
        app = TableApp(size=size, offscreen=offscreen, title=f"tabletop - {adapter.title} (online)")
    except BaseException:
        adapter.close()
        link.close()
        raise
    window = RemoteWindow(app, definition, adapter, kinds, index, link, events, config.get("outcomes", ""),
                          pace=pace, joined=joined, chat=chat)
    return app, window
