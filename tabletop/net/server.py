"""The game server (`tabletop serve`): an asyncio websocket server holding rooms by code.

Each room's game runs in a worker process of its own (tabletop.net.room.run_room, started with
multiprocessing's spawn), so that one room's physics never stalls another room or the server's I/O;
the server reads each worker's pipe from its event loop and relays. The `Hub` is the server without
the network: it takes each connection's frames (`receive`), parses them (tabletop.net.protocol),
checks them against what it knows of the room (the seats' token hashes, whose turn it is, the
latest step, the acting seat's legal actions) and forwards only a legal action of the seat to act;
anything else gets an `error` message on that connection alone and reaches no room. After every
action the room's update gives each viewer its view (`view` messages: only the new log lines) and
the hub keeps each viewer's whole view, for a connection that joins or comes back.

With `inline` the rooms run in the hub's own process and thread, each command handled at once
(tests, fuzzing: no processes, no network).
"""
from __future__ import annotations

import asyncio
import itertools
import json
import signal
import time
from collections import deque
from pathlib import Path
from typing import Callable

from tabletop.net import protocol as p
from tabletop.net.room import RoomError, check_spec, new_code, new_token, token_hash, token_matches
from tabletop.sim.errors import InputError

OUTBOX_LIMIT = 2000        # messages waiting for a slow client before the server drops its connection
MAX_ROOMS = 64             # rooms whose game is not over, at most
FINISHED_KEEP_S = 600      # a finished room is kept this long (its result for those who come back), then let go
IDLE_UNLOAD_S = 1800       # an unfinished room nobody is connected to for this long is unloaded (its worker
                           # stopped, its journal kept) and taken up again when someone joins it
CHAT_FILE = "chat.jsonl"   # a room's chat, a message a line, beside its journal (never in the game's replay)
CHAT_KEEP = 100            # chat messages a room keeps to send one who joins
CHAT_WINDOW_S = 10.0       # chat rate limits: at most CHAT_PER_CONNECTION messages of one connection ...
CHAT_PER_CONNECTION = 5
CHAT_PER_ROOM = 20         # ... and CHAT_PER_ROOM of a whole room in any CHAT_WINDOW_S seconds


class Connection:
    """One client's connection: where its messages go (`deliver(text)`), the room and the viewer
    (a seat, or None: a spectator) it joined as."""

    _ids = itertools.count(1)

    def __init__(self, deliver: Callable[[str], None]):
        self.id = next(self._ids)
        self.deliver = deliver
        self.room: RoomHandle | None = None
        self.viewer: int | None = None
        self.name: str | None = None
        self.motion = False                 # joined with "motion": sent each revealed throw's motion (a browser)
        self.said: deque = deque()          # when its latest chat messages were taken (the rate limit)

    def post(self, message) -> None:
        self.deliver(p.encode(message))


class InlineRoom:
    """A room run in the hub's own thread: each command handled, then the room's own steps, at once."""

    def __init__(self, handle: "RoomHandle", spec, data: Path | None, secret: bytes | None, started: bool = True):
        from tabletop.net.room import open_room

        self.handle = handle
        self.room = open_room(spec, data, secret, handle.receive, started)
        handle.receive(("update", self.room.update()))
        self._run()

    def send(self, command: tuple) -> None:
        from tabletop.net.room import handle

        if command[0] == "stop":
            return self.close()
        for event in handle(self.room, command):
            self.handle.receive(event)
        self._run()

    def _run(self) -> None:
        while self.room.busy():
            self.room.advance()
            self.handle.receive(("update", self.room.update()))
        if self.room.over():
            self.room.close()

    def close(self) -> None:
        self.room.close()


class WorkerRoom:
    """A room run in a worker process of its own (spawned), its pipe read from the event loop."""

    def __init__(self, handle: "RoomHandle", spec, data: Path | None, secret: bytes | None, started: bool = True):
        import multiprocessing

        from tabletop.net.room import run_room

        self.handle = handle
        context = multiprocessing.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=run_room,
                                       args=(child, spec.to_dict(), None if data is None else str(data), secret,
                                             started),
                                       name=f"tabletop-room-{spec.code[:6]}", daemon=True)
        self.process.start()
        child.close()
        self.loop = asyncio.get_running_loop()
        self.loop.add_reader(self.conn.fileno(), self._readable)
        self.open = True

    def _readable(self) -> None:
        try:
            while self.open and self.conn.poll():
                event = self.conn.recv()
                try:
                    self.handle.receive(event)
                except Exception as exc:      # a defect in relaying: said, and the server goes on
                    self.handle.hub.note(f"room {self.handle.code}: internal error relaying {event[0]!r}: "
                                         f"{type(exc).__name__}: {exc}")
        except (EOFError, OSError):
            self._gone()

    def _gone(self) -> None:
        if self.open:
            self.open = False
            self.loop.remove_reader(self.conn.fileno())
            self.conn.close()
            self.handle.receive(("gone",))

    def send(self, command: tuple) -> None:
        if not self.open:
            return
        try:
            self.conn.send(command)
        except OSError:
            self._gone()

    def close(self) -> None:
        self.send(("stop",))
        self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)
        if self.open:
            self.open = False
            self.loop.remove_reader(self.conn.fileno())
            self.conn.close()


class RoomHandle:
    """The server's side of a room: its spec, the claimed seats' token hashes and names, the
    connections of each viewer, each viewer's whole view so far, and what the room waits for."""

    def __init__(self, hub: "Hub", spec, data: Path | None, inline: bool, meta: dict | None = None):
        """A new room (its secret and room.json written under `data` before its game starts), or,
        with `meta` (a room.json), the room journaled there taken up again."""
        from tabletop.gamekit.commit import CommittedSeeds
        from tabletop.gamekit.registry import game_spec
        from tabletop.net.room import now, write_secret

        self.hub, self.spec, self.code = hub, spec, spec.code
        self.definition = game_spec(spec.game)
        self.colours = self.definition.colours[:len(spec.seats)]
        self.folder = None if data is None else Path(data) / spec.code
        self.tokens: dict[int, str] = {self.colours.index(c): h for c, h in (meta or {}).get("tokens", {}).items()}
        self.names: dict[int, str | None] = {self.colours.index(c): n for c, n in (meta or {}).get("names", {}).items()}
        self.created = (meta or {}).get("created") or now()
        remote = [s for s, kind in enumerate(spec.seats) if kind == "remote"]
        self.started = bool((meta or {}).get("started", True)) if meta is not None else not remote
        self.host_hash: str | None = (meta or {}).get("host")
        self.host_key: str | None = None           # a new room's, for its `created` message alone
        self.chat: deque = deque(maxlen=CHAT_KEEP)
        self.chat_times: deque = deque()
        secret = None
        if meta is None:
            secret = CommittedSeeds.new().secret
            self.host_key = new_token()
            self.host_hash = token_hash(self.host_key)
            if self.folder is not None:
                write_secret(self.folder, secret)
                self.write_meta()
        else:
            self._read_chat()
        self.viewers: dict[int | None, set[Connection]] = {}
        self.views: dict[int | None, dict] = {}
        self.step, self.to_act, self.over = 0, None, False
        self.kinds = list(spec.seats)              # who plays each seat now (the worker's word): "ai" for a dropped one
        self.timers: dict[int, object] = {}        # a dropped seat -> the wait before on_drop
        self.paused_for: set[int] = set()          # dropped seats the room is paused for
        self.legal: list | None = None
        self.legal_keys: frozenset[str] = frozenset()
        self.in_flight: int | None = None          # the connection whose action the room is applying
        self.closed: str | None = None             # why the room stopped before its end
        self.proofs: list = []                     # every Commit and Reveal sent so far
        self.thrown: dict[str, dict] = {}          # body -> look of every body a throw moved (bodies.glb)
        self.backend = (InlineRoom if inline else WorkerRoom)(self, spec, data, secret, self.started)

    def write_meta(self) -> None:
        """room.json as the server knows the room now: written before a client is told of a seat,
        so that a restarted server knows every token a client holds."""
        from tabletop.net.room import room_meta, write_meta

        if self.folder is not None:
            write_meta(self.folder, room_meta(self.spec, self.definition, self.created, self.tokens, self.names,
                                              self.started, self.host_hash))

    # -- the lobby ----------------------------------------------------------------------------------
    def waiting_for_seats(self) -> list[int]:
        """The remote seats no player has taken."""
        return [s for s, kind in enumerate(self.spec.seats) if kind == "remote" and s not in self.tokens]

    def start(self, by_host: bool = False) -> None:
        """The game begins: journaled first (room.json), then the worker told; every remote seat not
        taken is played by the AI until a player takes it; a taken seat whose player is not here is
        waited for as one that dropped."""
        if self.started:
            return
        fill = tuple(self.waiting_for_seats())
        if fill and "ai" not in self.definition.seat_kinds:
            raise RoomError("bad-request", f"{self.definition.title} has no AI seat to play the seats not taken")
        self.started = True
        try:
            self.write_meta()
        except OSError as exc:
            self.started = False
            raise RoomError("internal", f"the server cannot journal the start: {exc}") from None
        self.backend.send(("start", fill))
        for seat in fill:
            self.kinds[seat] = "ai"
        filled = f": the AI plays {', '.join(self.colours[s] for s in fill)} until a player takes it" if fill else ""
        self.notice(("the host started the game" if by_host else "every seat is taken: the game starts") + filled)
        for seat, digest in sorted(self.tokens.items()):
            if not self.viewers.get(seat):
                self.dropped(seat)

    def lobby_line(self) -> str:
        """Who the lobby waits for, in words."""
        waiting = self.waiting_for_seats()
        taken = sum(1 for kind in self.spec.seats if kind == "remote") - len(waiting)
        return (f"{taken} of {taken + len(waiting)} seats taken; waiting for "
                f"{', '.join(self.colours[s] for s in waiting)} (or the host to start with the AI in their place)")

    # -- chat -----------------------------------------------------------------------------------------
    def _read_chat(self) -> None:
        """A restored room's latest chat messages, from its chat journal."""
        if self.folder is None:
            return
        try:
            lines = (self.folder / CHAT_FILE).read_text().split("\n")[:-1]
        except (OSError, UnicodeDecodeError):
            return
        for line in lines[-CHAT_KEEP:]:
            try:
                data = json.loads(line)
                self.chat.append(p.Chat(self.code, data["seat"], data["name"], bool(data["spectator"]),
                                        str(data["text"]), str(data["at"])))
            except (ValueError, KeyError, TypeError):
                continue              # a line cut off by a crash, or not ours: left out

    def say(self, conn: Connection, text: str, clock: float) -> None:
        """A chat message of `conn`'s, cleaned, checked against the limits, journaled (chat.jsonl) and
        sent to everyone in the room; RoomError `chat-limit` (nothing sent) otherwise."""
        from tabletop.net.room import now

        cleaned = p.clean_text(text, p.CHAT_RAW_MOST)
        if not cleaned:
            raise RoomError("chat-limit", "the message is empty once control characters are removed")
        if len(cleaned) > p.CHAT_MOST:
            raise RoomError("chat-limit", f"a chat message holds at most {p.CHAT_MOST} characters, not "
                                          f"{len(cleaned)}")
        for times in (conn.said, self.chat_times):
            while times and clock - times[0] > CHAT_WINDOW_S:
                times.popleft()
        if len(conn.said) >= CHAT_PER_CONNECTION:
            raise RoomError("chat-limit", f"at most {CHAT_PER_CONNECTION} messages in {CHAT_WINDOW_S:g} s: "
                                          f"wait a moment")
        if len(self.chat_times) >= CHAT_PER_ROOM:
            raise RoomError("chat-limit", f"the room takes at most {CHAT_PER_ROOM} messages in {CHAT_WINDOW_S:g} s: "
                                          f"wait a moment")
        seat = conn.viewer
        name = self.names.get(seat) if seat is not None else conn.name
        message = p.Chat(self.code, self.colour(seat), name, seat is None, cleaned, now())
        if self.folder is not None:
            try:
                with open(self.folder / CHAT_FILE, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps({"seat": message.seat, "name": message.name, "spectator": message.spectator,
                                         "text": message.text, "at": message.at}, ensure_ascii=False) + "\n")
            except OSError as exc:
                raise RoomError("internal", f"the server cannot journal the message: {exc}") from None
        conn.said.append(clock)
        self.chat_times.append(clock)
        self.chat.append(message)
        for conns in self.viewers.values():
            for other in conns:
                other.post(message)

    def listing(self) -> dict:
        """The room as `rooms` lists it."""
        return {"code": self.code, "game": self.spec.game, "started": self.started,
                "seats": [{k: seat[k] for k in ("colour", "kind", "taken", "name")} for seat in self.seats()]}

    def colour(self, viewer: int | None) -> str | None:
        return None if viewer is None else self.colours[viewer]

    def seats(self) -> list[dict]:
        out = []
        for s, (c, k) in enumerate(zip(self.colours, self.spec.seats)):
            seat = {"colour": c, "kind": k, "taken": s in self.tokens, "name": self.names.get(s)}
            if k == "remote" and s not in self.tokens and self.kinds[s] == "ai":
                seat["kind"] = "ai"           # a seat no player took when the host started: the AI's until one does
            if k == "remote":
                connected = bool(self.viewers.get(s))
                seat.update(connected=connected,
                            played_by="ai" if self.kinds[s] == "ai" else "client" if connected else "nobody")
            out.append(seat)
        return out

    def notice(self, text: str) -> None:
        """Tell every viewer of a change of the seats (and the server's log)."""
        self.hub.note(f"room {self.code}: {text}")
        message = p.Notice(self.code, text, tuple(self.seats()), bool(self.paused_for), self.started)
        for conns in self.viewers.values():
            for conn in conns:
                conn.post(message)

    # -- a seat that drops --------------------------------------------------------------------------
    def dropped(self, seat: int) -> None:
        """The last connection of remote `seat` went: wait `drop_wait` seconds for it, then what the
        host chose (the AI plays the seat, or the room pauses)."""
        if self.over or self.closed is not None or self.spec.seats[seat] != "remote" or seat in self.timers:
            return
        if not self.started:             # the lobby keeps a seat for its player, however long
            self.notice(f"{self.colours[seat]} left the lobby: the seat is kept for its player; {self.lobby_line()}")
            return
        then = "the AI plays it" if self.spec.on_drop == "ai" else "the room pauses"
        self.notice(f"{self.colours[seat]} dropped: waiting {self.spec.drop_wait} s for it to come back, then {then}")
        self.timers[seat] = self.hub.schedule(self.spec.drop_wait, lambda: self._waited(seat))

    def connected(self) -> bool:
        """Whether anyone (a seat or a spectator) is connected to the room."""
        return any(self.viewers.values())

    def _waited(self, seat: int) -> None:
        self.timers.pop(seat, None)
        if self.viewers.get(seat) or self.over or self.closed is not None:
            return
        if not self.connected():     # nobody left to play for: no AI plays the game out alone; wait on
            self.timers[seat] = self.hub.schedule(self.spec.drop_wait, lambda: self._waited(seat))
            return
        if self.spec.on_drop == "ai":
            self.backend.send(("seat", seat, "ai"))
            self.kinds[seat] = "ai"
            self.notice(f"{self.colours[seat]} did not come back: the AI plays it until it does")
        else:
            self.paused_for.add(seat)
            self.notice(f"{self.colours[seat]} did not come back: the room is paused until it does")

    def returned(self, seat: int) -> None:
        """Remote `seat`'s client is back: no more waiting, its seat its own again, the room on."""
        timer = self.timers.pop(seat, None)
        if timer is not None:
            timer.cancel()
        back = []
        if self.kinds[seat] == "ai":
            self.backend.send(("seat", seat, "remote"))
            self.kinds[seat] = "remote"
            back.append("plays its seat again")
        if seat in self.paused_for:
            self.paused_for.discard(seat)
            back.append("the room goes on" if not self.paused_for else "the room still waits for "
                        + ", ".join(self.colours[s] for s in sorted(self.paused_for)))
        if timer is not None or back:
            self.notice(f"{self.colours[seat]} is back" + (": " + "; ".join(back) if back else ""))

    def view_message(self, viewer: int | None, log_from: int, view: dict) -> p.View:
        legal = self.legal if viewer is not None and viewer == self.to_act else None
        return p.View(self.code, self.colour(viewer), self.step, log_from, view, legal)

    def receive(self, event: tuple) -> None:
        """An event of the room's worker: an update, an action refused, the room failed or gone."""
        kind = event[0]
        if kind == "update":
            self._update(event[1])
        elif kind in ("commit", "reveal"):
            self._proof(event)
        elif kind == "motion":                 # after its reveal; kept for nobody, sent to those who asked
            _, k, chance, motion = event
            for body, look in (motion.get("looks") or {}).items():
                self.thrown.setdefault(body, look)      # what a browser's table lacks comes from these
            message = p.Motion(self.code, k, chance, tuple(motion["tracks"]), motion["frames"], motion["data"])
            for conns in self.viewers.values():
                for conn in conns:
                    if conn.motion:
                        conn.post(message)
        elif kind == "refused":
            _, client, code, message = event
            self.in_flight = None
            conn = self.hub.connections.get(client)
            if conn is not None and conn.room is self:
                conn.post(p.Error(code, message, "act"))
            else:
                # the connection that acted has gone: the seat's others are told (one that came back
                # and was refused as busy acts again); a refused action left the seat to act
                for other in self.viewers.get(self.to_act, ()):
                    other.post(p.Error(code, message, "act"))
        elif kind in ("failed", "gone") and not self.over and self.closed is None:
            self.closed = event[1] if kind == "failed" else "the room's worker stopped"
            self.in_flight, self.to_act = None, None
            self.hub.note(f"room {self.code}: stopped: {self.closed}")
            for conns in self.viewers.values():
                for conn in conns:
                    conn.post(p.Error("room-closed", f"the room stopped: {self.closed}"))

    def _proof(self, event: tuple) -> None:
        """A chance event's commitment (before it is drawn) or reveal (after it: its seed and salt),
        to every viewer; kept, so that one who joins later gets them all."""
        if event[0] == "commit":
            _, k, kind, commitment = event
            message = p.Commit(self.code, k, kind, commitment)
        else:
            _, k, kind, reveal, outcome, motion = event
            message = p.Reveal(self.code, k, kind, reveal["seed"], reveal["salt"], outcome, motion)
        self.proofs.append(message)
        for conns in self.viewers.values():
            for conn in conns:
                conn.post(message)

    def _update(self, update: dict) -> None:
        self.step, self.to_act, self.over = update["step"], update["to_act"], update["over"]
        self.kinds = list(update.get("kinds", self.kinds))
        self.legal = update["legal"]
        self.legal_keys = frozenset(p.action_key(a) for a in self.legal or ())
        self.in_flight = None
        for viewer, delta in update["views"].items():
            kept = self.views.get(viewer)
            log_from = 0 if kept is None else len(kept["log"])
            self.views[viewer] = p.merge_view(kept, delta)
            for conn in list(self.viewers.get(viewer, ())):
                conn.post(self.view_message(viewer, log_from, delta))
        if self.over:
            self.hub.note(f"room {self.code}: over: {' '.join(update['views'][None].get('result', []))}")
            for timer in self.timers.values():
                timer.cancel()
            self.timers.clear()
            self.hub.schedule(FINISHED_KEEP_S, lambda: self.hub.forget(self, "finished"))


class _NoTimer:
    def cancel(self) -> None:
        pass


def _call_later(delay: float, callback: Callable[[], None]):
    """The running event loop's call_later; with no loop running (a hub driven by hand) no timer:
    a dropped seat is then waited for until it comes back."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return _NoTimer()
    return loop.call_later(delay, callback)


class Hub:
    """The rooms by code and the connections by id; `receive(conn, frame)` answers one frame."""

    def __init__(self, data: Path | None = None, inline: bool = False, note: Callable[[str], None] | None = None,
                 max_rooms: int = MAX_ROOMS, schedule: Callable | None = None, listing: bool = False,
                 clock: Callable[[], float] = time.monotonic):
        """`schedule(seconds, callback)` runs `callback` later and returns what `.cancel()`s it (the
        event loop's call_later by default; a test's clock); `clock()` the seconds chat's rate
        limits count in; `listing` whether `list` is answered with the open rooms."""
        self.schedule = schedule or _call_later
        self.clock = clock
        self.listing = listing
        self.data = None if data is None else Path(data)
        self.inline = inline
        self.note = note or (lambda text: None)
        self.max_rooms = max_rooms
        self.rooms: dict[str, RoomHandle] = {}
        self.connections: dict[int, Connection] = {}

    def restore(self) -> int:
        """Take up every room journaled under the data folder whose game is not over (a server
        restarted after a crash or a stop): each goes on from the last turn its journal holds whole,
        its seats waiting for their clients to come back with their tokens. A journal that cannot
        be taken up is said and left as it is. Returns the rooms restored."""
        if self.data is None or not self.data.is_dir():
            return 0
        return sum(self._load(folder.name) is not None for folder in sorted(self.data.iterdir())
                   if folder.name not in self.rooms)

    def _load(self, code: str) -> RoomHandle | None:
        """The unfinished room journaled in DATA/CODE taken up (None: no such room, or it is over)."""
        import json

        from tabletop.net.room import META_FILE, REPLAY_FILE, RoomSpec
        from tabletop.sim.record import ReplayFile

        if self.data is None or not isinstance(code, str) or not code or code.startswith(".") or "/" in code \
                or "\\" in code:
            return None
        folder = self.data / code
        if not (folder / META_FILE).is_file():
            return None
        try:
            meta = json.loads((folder / META_FILE).read_text())
            spec = RoomSpec.from_dict(meta)
            if spec.code != folder.name:
                raise ValueError(f"its room.json is room {spec.code!r}'s")
            journal = folder / REPLAY_FILE
            if journal.exists() and ReplayFile.open(journal).end is not None:
                return None                 # over: nothing to take up
            handle = self.rooms[spec.code] = RoomHandle(self, spec, self.data, self.inline, meta)
        except (OSError, ValueError, KeyError, TypeError, InputError) as exc:
            self.note(f"room {folder.name}: not restored: {exc}")
            return None
        self.note(f"room {spec.code}: restored ({spec.game}, seats {','.join(spec.seats)})")
        for seat in sorted(handle.tokens):    # each client is waited for, as after a drop
            handle.dropped(seat)
        return handle

    # -- connections -------------------------------------------------------------------------------
    def connect(self, deliver: Callable[[str], None]) -> Connection:
        conn = Connection(deliver)
        self.connections[conn.id] = conn
        return conn

    def leave(self, conn: Connection) -> None:
        self.connections.pop(conn.id, None)
        if conn.room is not None:
            handle, seat = conn.room, conn.viewer
            handle.viewers.get(seat, set()).discard(conn)
            conn.room = None
            if seat is not None and not handle.viewers.get(seat):
                handle.dropped(seat)
            if not handle.connected() and not handle.over:
                self.schedule(IDLE_UNLOAD_S, lambda: self._idle(handle))

    def _idle(self, handle: RoomHandle) -> None:
        """Unload a room nobody came back to (its journal stays: it is taken up again on a join)."""
        if self.rooms.get(handle.code) is handle and not handle.connected() and not handle.over:
            self.forget(handle, f"nobody connected for {IDLE_UNLOAD_S} s; taken up again when someone joins")

    def forget(self, handle: RoomHandle, why: str) -> None:
        """Let a room go: its worker stopped, its timers cancelled, its journal kept."""
        if self.rooms.get(handle.code) is not handle:
            return
        del self.rooms[handle.code]
        for timer in handle.timers.values():
            timer.cancel()
        handle.timers.clear()
        for conns in handle.viewers.values():
            for conn in list(conns):
                conn.room = None
        try:
            handle.backend.close()
        except Exception as exc:        # one room failing to stop keeps no other from going on
            self.note(f"room {handle.code}: {type(exc).__name__} while stopping: {exc}")
        self.note(f"room {handle.code}: let go ({why})")

    def receive(self, conn: Connection, frame) -> None:
        """Answer one frame of `conn`: a refused one gets an `error` message on `conn` alone and
        changes nothing; no exception leaves here."""
        about = None
        try:
            message = p.parse(frame, "client")
            about = message.TYPE
            {"create": self._create, "join": self._join, "act": self._act, "start": self._start, "say": self._say,
             "list": self._list}[about](conn, message)
        except p.ProtocolError as exc:
            conn.post(exc.reply())
        except RoomError as exc:
            conn.post(p.Error(exc.code, exc.message, about))
        except Exception as exc:        # a defect: the connection is told, the server goes on
            self.note(f"internal error on a {about or 'bad'} message: {type(exc).__name__}: {exc}")
            conn.post(p.Error("internal", f"the server failed on the message ({type(exc).__name__}); "
                                          f"nothing was changed", about))

    # -- the messages ------------------------------------------------------------------------------
    def _create(self, conn: Connection, message: p.Create) -> None:
        open_rooms = sum(1 for h in self.rooms.values() if not h.over and h.closed is None)
        if open_rooms >= self.max_rooms:
            raise p.ProtocolError("bad-request", f"the server holds its most rooms ({self.max_rooms}) now; "
                                                 f"try later", "create")
        try:
            spec = check_spec(new_code(), message.game, message.seats, message.seed, message.outcomes,
                              message.options, message.on_drop, message.drop_wait)
        except InputError as exc:
            raise p.ProtocolError("bad-request", str(exc), "create") from None
        handle = RoomHandle(self, spec, self.data, self.inline)
        self.rooms[spec.code] = handle
        self.note(f"room {spec.code}: {spec.game}, seats {','.join(spec.seats)}, seed {spec.seed}, "
                  f"outcomes {spec.outcomes}")
        conn.post(p.Created(spec.code, spec.game, tuple(handle.seats()), handle.host_key))

    def _start(self, conn: Connection, message: p.Start) -> None:
        handle = self.rooms.get(message.room) or self._load(message.room)
        if handle is None:
            raise RoomError("unknown-room", "no room has that code")
        if not token_matches(message.host_key, handle.host_hash):
            raise RoomError("not-host", "the key is not this room's host's")
        if handle.over or handle.closed is not None:
            raise RoomError("room-closed", "the game is over")
        if handle.started:
            return conn.post(p.Notice(handle.code, "the game has started already", tuple(handle.seats()),
                                      bool(handle.paused_for), True))
        handle.start(by_host=True)
        if conn.room is not handle:                # the host's own connection hears it too
            conn.post(p.Notice(handle.code, "the game starts", tuple(handle.seats()), bool(handle.paused_for), True))

    def _say(self, conn: Connection, message: p.Say) -> None:
        if conn.room is None:
            raise RoomError("not-joined", "join a room before chatting")
        conn.room.say(conn, message.text, self.clock())

    def _list(self, conn: Connection, message: p.List) -> None:
        if not self.listing:
            raise RoomError("no-listing", "this server does not list its rooms: ask the host for the room's address")
        rooms = [h.listing() for h in self.rooms.values() if not h.over and h.closed is None]
        conn.post(p.Rooms(tuple(rooms)))

    def _join(self, conn: Connection, message: p.Join) -> None:
        handle = self.rooms.get(message.room) or self._load(message.room)
        if handle is None:
            raise RoomError("unknown-room", "no room has that code")
        colours = handle.colours
        token = None
        name = p.clean_text(message.name, 40) or None if message.name is not None else None
        if message.spectate:
            if message.seat is not None or message.token is not None:
                raise RoomError("bad-message", "a spectator takes no seat and needs no token")
            viewer = None
        elif message.token is not None:
            viewer = next((s for s, digest in handle.tokens.items() if token_matches(message.token, digest)), None)
            if viewer is None or (message.seat is not None and message.seat != colours[viewer]):
                raise RoomError("bad-token", "the token is not one of this room's seats'" if viewer is None
                                else f"the token is not {message.seat}'s")
            if message.away and handle.viewers.get(viewer):
                raise RoomError("seat-held", f"{colours[viewer]} is played on another connection now")
            token = message.token
        else:
            viewer = self._free_seat(handle, message.seat)
            token = new_token()
            handle.tokens[viewer], handle.names[viewer] = token_hash(token), name
            try:
                handle.write_meta()
            except OSError as exc:         # not journaled, not given: the seat stays free
                del handle.tokens[viewer], handle.names[viewer]
                raise RoomError("internal", f"the server cannot journal the seat: {exc}") from None
            handle.backend.send(("claim", viewer, handle.tokens[viewer], name))
        self.leave(conn)
        self.connections[conn.id] = conn
        conn.room, conn.viewer, conn.name = handle, viewer, name
        conn.motion = message.motion
        handle.viewers.setdefault(viewer, set()).add(conn)
        conn.post(p.Joined(handle.code, handle.spec.game, handle.colour(viewer), token, tuple(handle.seats()),
                           handle.started, handle.spec.on_drop, handle.spec.drop_wait, handle.definition.title))
        for said in handle.chat:                    # the room's latest chat
            conn.post(said)
        start_now = False
        if viewer is not None and message.token is None:
            who = f"{colours[viewer]} taken" + (f" by {name}" if name else "")
            if handle.started and handle.kinds[viewer] == "ai":       # a seat the AI held since the start
                handle.backend.send(("seat", viewer, "remote"))
                handle.kinds[viewer] = "remote"
                handle.notice(f"{who}: the player plays it from now on, in place of the AI")
            elif handle.started:
                handle.notice(who)
            elif handle.waiting_for_seats():
                handle.notice(f"{who}; {handle.lobby_line()}")
            else:
                handle.notice(who)
                start_now = True
        elif viewer is not None and message.token is not None:
            if handle.started:
                handle.returned(viewer)
            else:
                handle.notice(f"{colours[viewer]} is back in the lobby; {handle.lobby_line()}")
        for proof in handle.proofs:                # every commitment and reveal so far
            conn.post(proof)
        if viewer in handle.views:
            conn.post(handle.view_message(viewer, 0, handle.views[viewer]))
        if handle.closed is not None:
            conn.post(p.Error("room-closed", f"the room stopped: {handle.closed}", "join"))
        if start_now:                              # the last seat taken: the game begins
            handle.start()

    def _free_seat(self, handle: RoomHandle, colour: str | None) -> int:
        """The seat a join with no token takes: the one it names, else the first free remote seat."""
        if handle.over or handle.closed is not None:
            raise RoomError("room-closed", "the game is over: join as a spectator to see it")
        kinds, colours = handle.spec.seats, handle.colours
        if colour is not None:
            if colour not in colours:
                raise RoomError("room-full", f"the room has no seat {colour!r} (its seats: {', '.join(colours)})")
            seat = colours.index(colour)
            if kinds[seat] != "remote":
                raise RoomError("room-full", f"{colour} is played in the room ({kinds[seat]})")
            if seat in handle.tokens:
                raise RoomError("room-full", f"{colour} is taken: the machine that took it takes it back with the "
                                             f"same `tabletop join`; from another machine give its --token")
            return seat
        free = [s for s, kind in enumerate(kinds) if kind == "remote" and s not in handle.tokens]
        if not free:
            raise RoomError("room-full", "every remote seat is taken")
        return free[0]

    def _act(self, conn: Connection, message: p.Act) -> None:
        handle = conn.room
        if handle is None:
            raise RoomError("not-joined", "join a room before acting")
        if conn.viewer is None:
            raise RoomError("spectator", "a spectator cannot act")
        seat = conn.viewer
        if handle.over or handle.closed is not None:
            raise RoomError("room-closed", "the game is over" if handle.over else f"the room stopped: {handle.closed}")
        if not token_matches(message.token, handle.tokens.get(seat)):
            raise RoomError("bad-token", f"the token is not {handle.colours[seat]}'s")
        if not handle.started:
            raise RoomError("not-started", "the game has not started: " + handle.lobby_line())
        if handle.paused_for:
            raise RoomError("paused", "the room is paused until " + ", ".join(handle.colours[s] for s in
                                                                              sorted(handle.paused_for))
                            + " comes back")
        if handle.in_flight is not None:
            raise RoomError("busy", "the last action is still being applied")
        if handle.to_act != seat:
            raise RoomError("not-your-turn", f"{handle.colours[seat]} is not to act now")
        if message.step != handle.step:
            raise RoomError("stale", f"the action answers step {message.step}; the game is at step {handle.step}")
        if p.action_key(message.action) not in handle.legal_keys:
            raise RoomError("illegal", f"{list(message.action)!r} is not one of {handle.colours[seat]}'s "
                                       f"{len(handle.legal_keys)} legal actions now")
        handle.in_flight = conn.id
        handle.backend.send(("act", conn.id, seat, message.token, message.action, message.step))

    def close(self) -> None:
        """Stop every room's worker (a game not over stays cut off in its journal)."""
        for handle in self.rooms.values():
            try:
                handle.backend.close()
            except Exception as exc:       # one room failing to stop keeps no other running
                self.note(f"room {handle.code}: {type(exc).__name__} while stopping: {exc}")


async def serve(host: str, port: int, data: Path | None, on_ready: Callable[[str], None] | None = None,
                note: Callable[[str], None] | None = None, inline: bool = False,
                stop: asyncio.Event | None = None, listing: bool = False) -> None:
    """Serve rooms on ws://host:port (port 0: a free one), and the browser's room page on http:// of
    the same port (tabletop.net.http), until `stop` is set, SIGTERM comes or the task is cancelled
    (Ctrl-C); `on_ready(url)` is told the address once it listens. Every room's worker is stopped
    on the way out (a game not over stays cut off in its journal: restorable)."""
    from websockets.asyncio.server import serve as ws_serve
    from websockets.exceptions import ConnectionClosed

    from tabletop.net.http import respond

    hub = Hub(data, inline, note, listing=listing)
    hub.restore()

    async def connection(ws) -> None:
        outbox: asyncio.Queue = asyncio.Queue()

        def deliver(text: str) -> None:
            if outbox.qsize() >= OUTBOX_LIMIT:
                asyncio.ensure_future(ws.close(1008, "too many messages waiting: reconnect"))
                return
            outbox.put_nowait(text)

        async def pump() -> None:
            try:
                while True:
                    await ws.send(await outbox.get())
            except ConnectionClosed:
                pass

        conn = hub.connect(deliver)
        sender = asyncio.ensure_future(pump())
        try:
            async for frame in ws:
                hub.receive(conn, frame)
        except ConnectionClosed:
            pass
        finally:
            hub.leave(conn)
            sender.cancel()

    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)     # `kill`: stop the rooms' workers, then end
    try:
        async with ws_serve(connection, host, port, max_size=p.MAX_CLIENT_FRAME,
                            process_request=lambda _, request: respond(hub, request)) as server:
            bound = server.sockets[0].getsockname()
            if on_ready is not None:
                on_ready(f"ws://{host}:{bound[1]}")
            try:
                await stop.wait()
            finally:
                hub.close()
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
