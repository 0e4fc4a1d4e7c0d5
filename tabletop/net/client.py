"""Clients of the game server (tabletop.net.server): make a room (`create_room`), and play or watch
one seat of a room with no window (`SeatClient`), reconnecting with backoff when the connection
drops: the seat is taken back with its token, the server sends the whole view again, and the game
goes on where it was.

A seat plays through `choose(view, legal, step)`: the seat's latest view (what it may know), its
legal actions (encoded as replays encode them) and the step they answer, returning one of them;
`random_chooser(seed)` picks uniformly with a Generator of its seed and the step, so that a seat
asked again at the same step (its action lost with a server that crashed, then restored) chooses
the same again.
"""
from __future__ import annotations

import asyncio
from typing import Callable
from urllib.parse import urlsplit

from tabletop.net import protocol as p
from tabletop.sim.errors import InputError

FIRST_DELAY_S = 0.25      # the first wait before reconnecting; doubled each failed try ...
MAX_DELAY_S = 5.0         # ... up to this
GIVE_UP_S = 60.0          # no connection for this long: the client gives up
FIRST_REACH_S = 5.0       # ... and this long where it never reached the server (a wrong address, none started)
CREATE_ANSWER_S = 30.0    # a room asked for and no answer in this long: the client gives up
MAX_REFUSALS = 10         # actions refused in a row before the client gives up
FATAL = {"unknown-room", "room-full", "bad-token", "version", "room-closed", "spectator", "not-joined"}


class NetError(RuntimeError):
    """The server could not be reached, or ended what was asked of it (one line)."""


class Refused(NetError):
    """The server refused a message: `code` (one of tabletop.net.protocol.ERRORS) and its message."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


def server_url(url: str, option: str = "--server") -> str:
    """A server's address, ws://HOST:PORT (or wss://); InputError naming `option` otherwise."""
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme not in ("ws", "wss") or not parts.hostname or parts.path not in ("", "/") \
            or parts.query or parts.fragment:
        raise InputError(f"{option}: expected a server address ws://HOST:PORT, got {url!r}")
    try:
        parts.port
    except ValueError:
        raise InputError(f"{option}: the port of {url!r} is not a number from 0 to 65535") from None
    return f"{parts.scheme}://{parts.netloc}"


def split_join_url(url: str) -> tuple[str, str]:
    """ws://HOST:PORT/CODE -> (the server's address, the room's code); InputError otherwise."""
    parts = urlsplit(url) if isinstance(url, str) else None
    code = parts.path.strip("/") if parts is not None else ""
    if parts is None or not code or "/" in code:
        raise InputError(f"url: expected ws://HOST:PORT/CODE (the address `tabletop host` printed), got {url!r}")
    return server_url(f"{parts.scheme}://{parts.netloc}", "url"), code


def chat_line(message) -> str:
    """A chat message as a line: "chat: red (Ann): text", a spectator's "chat: [watching] Dee: text"."""
    who = f"[watching] {message.name or 'a spectator'}" if message.spectator else \
        f"{message.seat}" + (f" ({message.name})" if message.name else "")
    return f"chat: {who}: {message.text}"


def random_chooser(seed: int) -> Callable:
    """A seat that picks uniformly among the legal actions: at step s from the Generator of
    SeedSequence(seed, spawn_key=(s,)), so the same seed, step and legal actions give the same choice
    however often the seat is asked (a restored room asks again for an action it lost)."""
    import numpy as np

    def choose(view: dict, legal: list, step: int):
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(step),)))
        return legal[int(rng.integers(len(legal)))]
    return choose


def game_of(view: dict):
    """(the game's definition, the replay config of its rules, its options, the view's seat or None)
    of a view that holds the room's `rules` (every view since the seat joined does)."""
    from tabletop.gamekit.registry import GAMES

    rules = view.get("rules") or {}
    definition = GAMES.get(rules.get("game"))
    if definition is None:
        raise NetError(f"the server's view names no game this client has ({rules.get('game')!r})")
    config = {k: v for k, v in rules.items() if k != "game"}
    options = {o.name: config[o.name] for o in definition.options if o.name in config}
    colour = view.get("seat")
    return definition, config, options, None if colour is None else definition.colours.index(colour)


def check_bot(definition, kind: str) -> None:
    """InputError where `definition`'s game has no seat of `kind` that a client can play (`--as`)."""
    if kind not in definition.seat_kinds or kind == "human":
        raise InputError(f"--as: {definition.name} has no {kind!r} seat (its seats: "
                         f"{', '.join(k for k in definition.seat_kinds if k != 'human')})")


def bot_chooser(kind: str, seed: int) -> Callable:
    """A seat played by the game's own seat of `kind` ("ai", "plan", ... as `play --seats` names
    them) on the client's mirror of the game (the view's `mirror`: what the seat may know, the rest
    stand-ins), at step s with the Generator of SeedSequence(seed, spawn_key=(s,)) like
    `random_chooser`; its choice must be one of the legal actions the server offered."""
    import numpy as np

    from tabletop.gamekit.record import encode_action

    made: dict = {}

    def choose(view: dict, legal: list, step: int):
        definition, config, options, seat = game_of(view)
        if "seat" not in made:
            check_bot(definition, kind)
            from tabletop.gamekit.outcomes import play_outcomes

            made["source"] = definition.make_source(play_outcomes(definition, "measured"))
            made["seat"] = definition.make_seat(kind, made["source"], options)
        state = mirror_of(definition, config, view["mirror"], seat, made)
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(step),)))
        key = p.action_key(encode_action(definition, made["seat"].choose(state, rng)))
        for action in legal:
            if p.action_key(action) == key:
                return action
        raise NetError(f"the {kind} seat chose {key}, which the server does not offer (another build?)")
    return choose


def mirror_of(definition, config: dict, mirror: dict, seat, cache: dict):
    """The position of a view's `mirror`, built again only when it must be: a history mirror's new
    steps are applied to a copy of the one built last (kept in `cache`): a position returned is never
    changed after (the window holds it as the one shown until the next is played out)."""
    from tabletop.gamekit.record import decode_action

    held = cache.get("mirror")
    if "history" in mirror and held is not None and held[0] <= len(mirror["history"]) and \
            mirror["history"][:held[0]][-1:] == held[1]:
        state = held[2].clone()
        for encoded in mirror["history"][held[0]:]:
            state.apply(decode_action(definition, encoded))
    else:
        state = definition.mirror_state(config, mirror, seat)
    if "history" in mirror:
        cache["mirror"] = (len(mirror["history"]), mirror["history"][-1:], state)
    return state


async def _connect(server: str):
    from websockets.asyncio.client import connect

    return await connect(server, max_size=p.MAX_SERVER_FRAME, open_timeout=10, proxy=None)


async def create_room(server: str, game: str, seats, seed: int, outcomes: str, options: dict, on_drop: str = "ai",
                      drop_wait: int = 60) -> p.Created:
    """Make a room on `server`; its `created` message. Refused when the server will not make it,
    NetError when the server cannot be reached."""
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    try:
        ws = await _connect(server)
    except InvalidHandshake as exc:      # something answers there, not a websocket server
        raise InputError(f"{server} is not a tabletop game server (it answered, but not as a websocket server "
                         f"does: {exc})") from None
    except (OSError, TimeoutError) as exc:
        raise NetError(f"cannot reach the server at {server}: {exc}") from None
    try:
        await ws.send(p.encode(p.Create(game, tuple(seats), seed, outcomes, dict(options), on_drop, drop_wait)))
        answer = p.parse(await asyncio.wait_for(ws.recv(), CREATE_ANSWER_S), "server")
    except TimeoutError:
        raise NetError(f"the server at {server} did not answer the room asked for in {CREATE_ANSWER_S:g} s") \
            from None
    except p.ProtocolError as exc:       # a websocket server that speaks something else
        raise InputError(f"{server} is not a tabletop game server (it does not speak this protocol: {exc})") \
            from None
    except ConnectionClosed as exc:
        raise InputError(f"{server} is not a tabletop game server (it closed the connection without answering "
                         f"the room asked for: {exc})") from None
    finally:
        await ws.close()
    if isinstance(answer, p.Error):
        raise Refused(answer.code, answer.message)
    if not isinstance(answer, p.Created):
        raise NetError(f"the server answered a create with {answer.TYPE}")
    return answer


async def _ask(server: str, message, answers: tuple):
    """Send one message on a connection of its own; the server's first answer of the types
    `answers` (a refusal: Refused). NetError when the server cannot be reached or does not answer."""
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    try:
        ws = await _connect(server)
    except InvalidHandshake as exc:
        raise InputError(f"{server} is not a tabletop game server ({exc})") from None
    except (OSError, TimeoutError) as exc:
        raise NetError(f"cannot reach the server at {server}: {exc}") from None
    try:
        await ws.send(p.encode(message))
        while True:
            answer = p.parse(await asyncio.wait_for(ws.recv(), CREATE_ANSWER_S), "server")
            if isinstance(answer, p.Error):
                raise Refused(answer.code, answer.message)
            if isinstance(answer, answers):
                return answer
    except TimeoutError:
        raise NetError(f"the server at {server} did not answer in {CREATE_ANSWER_S:g} s") from None
    except (p.ProtocolError, ConnectionClosed) as exc:
        raise InputError(f"{server} is not a tabletop game server ({exc})") from None
    finally:
        await ws.close()


async def start_room(server: str, room: str, host_key: str) -> str:
    """Start `room` now with its host's key; the server's notice, in words."""
    return (await _ask(server, p.Start(room, host_key), (p.Notice,))).text


async def list_rooms(server: str) -> list[dict]:
    """The open rooms of a server that lists them (Refused `no-listing` otherwise)."""
    return [dict(room) for room in (await _ask(server, p.List(), (p.Rooms,))).rooms]


async def room_game(server: str, room: str) -> str | None:
    """The game of `room` on `server`, asked as a spectator that leaves at once (no seat is taken);
    None where the server cannot be asked now (the seat's own connection then tries again and says
    why). Refused when the server refuses the room (an unknown code)."""
    from websockets.exceptions import ConnectionClosed, InvalidHandshake

    try:
        ws = await _connect(server)
    except (OSError, TimeoutError, InvalidHandshake):
        return None
    try:
        await ws.send(p.encode(p.Join(room, spectate=True)))
        while True:
            answer = p.parse(await asyncio.wait_for(ws.recv(), CREATE_ANSWER_S), "server")
            if isinstance(answer, p.Error):
                raise Refused(answer.code, answer.message)
            if isinstance(answer, p.Joined):
                return answer.game
    except (p.ProtocolError, ConnectionClosed, TimeoutError, OSError):
        return None
    finally:
        await ws.close()


class SeatClient:
    """One seat of a room (or a spectator, with `spectate`) played through `choose` (None: it only
    watches). Each new log line goes to `emit`, what happens to the connection to `note`, every
    frame received to `on_frame`. `run()` returns the last view once the game is over."""

    def __init__(self, server: str, room: str, seat: str | None = None, name: str | None = None,
                 spectate: bool = False, choose: Callable | None = None, emit: Callable[[str], None] | None = None,
                 note: Callable[[str], None] | None = None, give_up_s: float = GIVE_UP_S,
                 on_frame: Callable[[str], None] | None = None, on_event: Callable | None = None,
                 token: str | None = None, keep: Callable[[str, str], None] | None = None,
                 on_chat: Callable | None = None, kept: tuple[str, ...] = ()):
        """`token`: the seat's token (given by hand) to take the seat back with; `kept`: the tokens
        of the seats this machine keeps in the room, each tried in turn (taken back only if nobody
        plays it now), then a free seat; `keep(colour, token)` is told the seat's token once the room gives or takes it (the
        app keeps it in the user's data folder); `on_chat(message)` each chat message (a
        tabletop.net.protocol.Chat)."""
        self.server, self.room, self.seat, self.name = server, room, seat, name
        self.spectate, self.choose = spectate, choose
        self.emit = emit or (lambda line: None)
        self.note = note or (lambda line: None)
        self.give_up_s = give_up_s
        self.on_frame = on_frame         # told every frame received, raw (tests scan them)
        self.on_event = on_event         # told each message as read (the window), or None
        self._loop = None                # the event loop run() runs on (submit() reaches it from any thread)
        self._stopping = False
        self.connection = None           # the websocket now open, if any
        self.token: str | None = token
        self.kept = list(kept) if token is None else []
        self._trying = False                     # the join now sent tries a kept token (away only)
        self.keep = keep
        self.on_chat = on_chat
        self.chat: list = []                     # the room's chat messages heard (each once)
        self.started = True                      # the room's lobby is over (its `joined` and notices say)
        self.colour: str | None = None
        self.sent: dict[int, list] = {}          # step -> the action this seat sent answering it
        self.held: tuple[int, list] | None = None   # an action that could not be sent (no connection), kept
        self.commitments: dict[int, str] = {}   # chance event -> its commitment, as published before it
        self.checked = 0                         # reveals that hashed to their commitments
        self._revealed: dict[int, tuple] = {}    # chance event -> the seed and salt revealed
        self.mismatched: list[int] = []          # chance events whose reveal did not
        self.log: list[str] = []                 # the room's log as the server holds it now
        self.shown: list[str] = []               # the lines told to `emit` (a restored room's again: not twice)
        self.view: dict = {}
        self.reconnects = 0
        self.paused = False                      # the room is paused for a dropped seat (its notices say)
        self._acted_step: int | None = None      # the step the seat last acted at
        self._legal: list | None = None          # the seat's legal actions at the latest view, and its step
        self._legal_step = 0
        self._refusals = 0

    async def run(self) -> dict:
        """Play (or watch) until the game is over; reconnect with backoff when the connection drops."""
        from websockets.exceptions import ConnectionClosed

        loop = self._loop = asyncio.get_running_loop()
        delay, lost_at = FIRST_DELAY_S, None
        from websockets.exceptions import InvalidHandshake

        reached = False                  # a connection was up once: a drop is waited out for give_up_s
        while not self._stopping:
            try:
                ws = await _connect(self.server)
            except (OSError, TimeoutError, InvalidHandshake) as exc:   # (a server starting: no answer yet)
                lost_at = lost_at or loop.time()
                limit = self.give_up_s if reached else min(self.give_up_s, FIRST_REACH_S)
                if loop.time() - lost_at > limit:
                    if not reached and isinstance(exc, InvalidHandshake):
                        raise InputError(f"{self.server} is not a tabletop game server (it answered, but not as "
                                         f"a websocket server does: {exc})") from None
                    raise NetError(f"cannot reach the server at {self.server} (for {limit:g} s): {exc}") from None
                wait = max(0.05, min(delay, limit - (loop.time() - lost_at) + 0.05))
                if reached:                  # (never reached: one line at the end, if it comes to that)
                    self.note(f"cannot reach the server ({exc}): trying again in {wait:.2g} s")
                await asyncio.sleep(wait)
                delay = min(delay * 2, MAX_DELAY_S)
                continue
            reached = True
            self.connection = ws
            try:
                if await self._session(ws):
                    return self.view
                delay, lost_at = FIRST_DELAY_S, None
            except (ConnectionClosed, OSError) as exc:
                if self._stopping:
                    return self.view
                delay, lost_at = FIRST_DELAY_S, lost_at or loop.time()
                self.note(f"connection lost ({exc}): reconnecting")
                self._tell("lost", str(exc))
            finally:
                self.connection = None
                await ws.close()
            self.reconnects += 1
        return self.view

    def _join_message(self) -> p.Join:
        if self.spectate:
            return p.Join(self.room, name=self.name, spectate=True)
        if self.token is None and self.kept:
            self._trying = True
            return p.Join(self.room, seat=self.seat, name=self.name, token=self.kept[0], away=True)
        self._trying = False
        return p.Join(self.room, seat=self.colour or self.seat, name=self.name, token=self.token)

    async def _session(self, ws) -> bool:
        """One connection: join, then follow the views; True once the game is over, False to
        join again (the views went out of step)."""
        await ws.send(p.encode(self._join_message()))
        self._acted_step = None
        async for frame in ws:
            if self.on_frame is not None:
                self.on_frame(frame)
            try:
                message = p.parse(frame, "server")
            except p.ProtocolError as exc:
                raise NetError(f"the server sent a message this client cannot read: {exc}") from None
            self._tell("message", message)
            if isinstance(message, p.Error):
                if self._trying and message.about == "join" and message.code in ("seat-held", "bad-token"):
                    self.kept.pop(0)              # played here now, or not the room's: the next one, or a free seat
                    await ws.send(p.encode(self._join_message()))
                    continue
                if message.code in FATAL:
                    raise Refused(message.code, message.message)
                self.note(f"the server refused an action: {message.code}: {message.message}")
                # an illegal action: choose again; busy, stale or out of turn: the next view says what now
                if message.about == "act" and message.code == "illegal" and self._legal:
                    self._refusals += 1
                    if self._refusals > MAX_REFUSALS:
                        raise Refused(message.code, f"{message.message} ({MAX_REFUSALS} actions refused in a row)")
                    await self._act(ws, self._legal_step, self._legal)
            elif isinstance(message, p.Notice):
                self.note(message.text)
                self.paused = message.paused
                self.started = message.started
            elif isinstance(message, p.Chat):
                self._heard(message)
            elif isinstance(message, p.Commit):
                self.commitments.setdefault(message.chance, message.commitment)
            elif isinstance(message, p.Reveal):
                self._check(message)
            elif isinstance(message, p.Joined):
                first = self.colour is None and not self.log
                self.token, self.colour = message.token, message.seat
                if self._trying:
                    self._trying = False
                    self.note(f"took back {message.seat}, the seat this machine holds in room {message.room}")
                self.started = message.started
                if self.keep is not None and message.token is not None:
                    self.keep(message.seat, message.token)
                if first:
                    self.note(f"joined room {message.room} as {message.seat or 'a spectator'}")
                    if not message.started:
                        self.note("the room waits for its other players (or its host to start it)")
            elif isinstance(message, p.View):
                if not self._merge(message):
                    return False
                self._tell("view", message, {**self.view, "log": list(self.log)})
                if self.view.get("over"):
                    for line in self.view.get("result", []):
                        self.emit(line)
                    self.note(f"{self.checked} chance events checked against the commitments published before "
                              f"them" + (f"; {len(self.mismatched)} did NOT match" if self.mismatched else ""))
                    return True
                self._legal = [list(a) for a in message.legal] if message.legal else None
                self._legal_step = message.step
                if self._legal and self._acted_step != message.step:
                    self._refusals = 0
                    if not await self._again(ws, message.step, self._legal):
                        await self._act(ws, message.step, self._legal)
        raise OSError("the server closed the connection")

    def _check(self, reveal: p.Reveal) -> None:
        """A reveal checked against the commitment published before its chance event (any build can:
        SHA-256 alone); a mismatch, or a reveal of no commitment, is said loudly."""
        from tabletop.gamekit.commit import check_reveal

        again = self._revealed.get(reveal.chance)
        if again is not None and again == (reveal.seed, reveal.salt):
            return                    # sent again on a reconnection (or by a restored room): checked once
        self._revealed[reveal.chance] = (reveal.seed, reveal.salt)
        commitment = self.commitments.get(reveal.chance)
        if commitment is not None and check_reveal(commitment, {"seed": reveal.seed, "salt": reveal.salt}):
            self.checked += 1
            self._tell("reveal", reveal, True)
            return
        self.mismatched.append(reveal.chance)
        self._tell("reveal", reveal, False)
        self.note(f"WARNING: chance event {reveal.chance} ({reveal.event}) does not match "
                  + ("its commitment" if commitment is not None else "any commitment published before it"))

    async def _act(self, ws, step: int, legal: list) -> None:
        """Choose among `legal` and send it, answering the view of `step` (a spectator does not act)."""
        if self.choose is None or self.spectate:
            return
        action = self.choose(self.view, legal, step)
        if action is None:               # the seat decides later (a person at the window): submit()
            return
        await self._put(ws, step, action)

    def _tell(self, kind: str, *data) -> None:
        if self.on_event is not None:
            self.on_event(kind, *data)

    async def _again(self, ws, step: int, legal: list) -> bool:
        """The seat is asked at a step it has answered already (a restarted server asks again for
        what it lost), or holds an action it could not send: the same action sent again when it
        is still legal (told "resent"); an action held for another step, or no longer legal, is
        dropped and told ("unsent-dropped", why). Whether an action was sent."""
        held, self.held = self.held, None
        if held is not None:
            at, action = held
            if at == step and any(p.action_key(a) == p.action_key(action) for a in legal):
                self._tell("resent", step, action)
                await self._put(ws, step, action)
                return True
            self._tell("unsent-dropped", at, action, "the game moved on while it was not sent" if at != step
                       else "it is no longer one of the seat's actions")
        action = self.sent.get(step)
        if action is not None and any(p.action_key(a) == p.action_key(action) for a in legal):
            await self._put(ws, step, action)
            return True
        return False

    async def _put(self, ws, step: int, action) -> None:
        self._acted_step = step
        self.sent[step] = list(action)
        await ws.send(p.encode(p.Act(self.token, step, tuple(action))))

    def submit(self, step: int, action) -> None:
        """Send the seat's action (encoded), answering the view of `step`, from any thread (the
        window's); the next view, or an error, says what became of it. With no connection now the
        action is held (told "unsent") and sent once the connection is back if it is still legal."""
        if self._loop is None:
            raise NetError("the client is not running")
        asyncio.run_coroutine_threadsafe(self._send(step, action), self._loop)

    async def _send(self, step: int, action) -> None:
        ws = self.connection
        if ws is not None:
            try:
                await self._put(ws, step, action)
                return
            except Exception:             # the connection went as it was sent: held, as with none
                pass
        self.held = (step, list(action))
        self._tell("unsent", step, list(action))
        self.note("not connected: the action is held and sent once the connection is back, if still legal")

    def say(self, text: str) -> None:
        """Send a chat message to the room, from any thread; a refused one comes back as an error."""
        if self._loop is None:
            raise NetError("the client is not running")

        async def send() -> None:
            ws = self.connection
            if ws is None:
                self._tell("chat-unsent", text)
                return
            try:
                await ws.send(p.encode(p.Say(text)))
            except Exception:
                self._tell("chat-unsent", text)
        asyncio.run_coroutine_threadsafe(send(), self._loop)

    def start(self, host_key: str) -> None:
        """Start the room now (its host's key), from any thread."""
        if self._loop is None:
            raise NetError("the client is not running")

        async def send() -> None:
            if self.connection is not None:
                await self.connection.send(p.encode(p.Start(self.room, host_key)))
        asyncio.run_coroutine_threadsafe(send(), self._loop)

    def _heard(self, message) -> None:
        """A chat message, once (a reconnection sends the room's latest again)."""
        key = (message.at, message.seat, message.name, message.text)
        if key in {(m.at, m.seat, m.name, m.text) for m in self.chat[-200:]}:
            return
        self.chat.append(message)
        if self.on_chat is not None:
            self.on_chat(message)

    def stop(self) -> None:
        """End run() from any thread: the connection closed, the seat left to the room's rules for
        a dropped seat."""
        self._stopping = True
        if self._loop is not None and self.connection is not None:
            asyncio.run_coroutine_threadsafe(self.connection.close(), self._loop)

    def _merge(self, message: p.View) -> bool:
        """Take a view's new lines (emitted) and fields; False when it does not follow the lines held."""
        lines = list(message.view.get("log", []))
        if message.log_from == 0 and self.log:
            held = len(self.log)
            if lines[:held] != self.log:          # not the lines held: start the log again
                self.log, held = [], 0
            new = lines[held:]
        elif message.log_from == len(self.log):
            new = lines
        else:
            return False
        held = {**self.view, "log": []}
        if not p.mirror_follows(held, message.view):
            return False
        self.log.extend(new)
        self.view = {**p.merge_view(held, {**message.view, "log": []}), "log": self.log, "seat": message.seat}
        # a restarted room's log goes back to its journal's last whole turn and on again, the same
        # lines: each told once
        if self.log[:len(self.shown)] == self.shown:
            fresh = self.log[len(self.shown):]
        elif self.shown[:len(self.log)] == self.log:
            fresh = []
        else:
            self.shown, fresh = [], list(self.log)
        self.shown.extend(fresh)
        for line in fresh:
            self.emit(line)
        return True
