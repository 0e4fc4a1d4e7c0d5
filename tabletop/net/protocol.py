"""The wire protocol between the game server (tabletop.net.server) and its clients: its version,
every message, and parsing with size limits and type checks (docs/protocol.md is its document).

Every message is one JSON object in one websocket text frame, with `"v"` (the protocol's version)
and `"type"`. A client sends `create` (a room), `join` (a seat, or to watch), `act` (its seat's
action), `start` (the host starts a room before its seats are taken), `say` (a chat message) and
`list` (the open rooms); the server answers `created`, `joined`, `view` (what that connection's
seat may know, after every action), `commit` and `reveal` (each chance event's proof), `motion`
(a revealed throw's motion, to a browser), `notice` (the seats and the lobby), `chat`, `rooms` and
`error`. `parse` turns a frame into one of the message dataclasses below or
raises `ProtocolError` (its `code` one of ERRORS); the server answers that with an `error` message
(`ProtocolError.reply()`), so a bad frame never reaches the connection loop as an exception.
"""
from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Callable, ClassVar

VERSION = 2
MAX_MESSAGE_BYTES = 16 * 1024        # the most a client's message may hold; larger: error "too-large"
MAX_CLIENT_FRAME = 1024 * 1024       # a client's frame over this closes its connection (websocket code 1009)
MAX_SERVER_FRAME = 16 * 1024 * 1024  # the most a server's message may hold (a whole view of a long game)

# every error code a server sends, and what it means
ERRORS = {
    "bad-message": "not a message of this protocol: not JSON, not an object, or a field missing or of the "
                   "wrong type",
    "too-large": f"the message is over {MAX_MESSAGE_BYTES} bytes",
    "version": f"the message is of another protocol version than {VERSION}",
    "unknown-type": "no such message type",
    "bad-request": "a room cannot be made as asked (unknown game, seats, options or outcomes)",
    "unknown-room": "no room has that code",
    "room-full": "no seat of the room is free to take (or the seat asked for is another's)",
    "not-joined": "join a room before acting",
    "spectator": "a spectator cannot act",
    "bad-token": "the token is not the seat's",
    "not-your-turn": "another seat (or a chance event) is to act",
    "stale": "the action answers a view that is no longer the latest (its step is old)",
    "illegal": "the action is not one of the seat's legal actions now",
    "busy": "the seat's last action is still being applied",
    "room-closed": "the room's game is over or its worker has stopped",
    "paused": "the room is paused until a seat that dropped comes back (its host chose to pause)",
    "seat-held": "the seat the token is for is played on another connection now (a join with \"away\" takes a "
                 "seat back only from nobody)",
    "not-started": "the room waits for its seats to be taken (or for its host to start it)",
    "not-host": "only the room's host (the key `create` gave) can start it",
    "chat-limit": "a chat message too long, empty once cleaned, or one too many in a short time",
    "no-listing": "this server does not list its rooms (`tabletop serve --list` does)",
    "internal": "the server failed on the message; the room is unchanged",
}


class ProtocolError(ValueError):
    """A message refused: `code` (one of ERRORS) and a one-line `message`; `about` the refused
    message's type where it is known."""

    def __init__(self, code: str, message: str, about: str | None = None):
        super().__init__(message)
        self.code, self.message, self.about = code, message, about

    def reply(self) -> "Error":
        return Error(self.code, self.message, self.about)


# -- field checks ------------------------------------------------------------------------------
def _text(limit: int, optional: bool = False) -> Callable:
    def check(value, name):
        if value is None and optional:
            return None
        if not isinstance(value, str) or not value or len(value) > limit:
            raise ProtocolError("bad-message", f"{name}: expected a text of 1 to {limit} characters")
        return value
    return check


def _whole(lo: int, hi: int) -> Callable:
    def check(value, name):
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            raise ProtocolError("bad-message", f"{name}: expected a whole number from {lo} to {hi}")
        return value
    return check


def _switch(value, name):
    if not isinstance(value, bool):
        raise ProtocolError("bad-message", f"{name}: expected true or false")
    return value


def _texts(limit: int, most: int) -> Callable:
    one = _text(limit)

    def check(value, name):
        if not isinstance(value, list) or not 1 <= len(value) <= most:
            raise ProtocolError("bad-message", f"{name}: expected a list of 1 to {most} texts")
        return tuple(one(v, name) for v in value)
    return check


def _options(value, name):
    """A game's options by name: texts or whole numbers (the game checks them)."""
    if not isinstance(value, dict) or len(value) > 16:
        raise ProtocolError("bad-message", f"{name}: expected an object of at most 16 options")
    for key, v in value.items():
        _text(40)(key, f"{name} key")
        number = isinstance(v, int) and not isinstance(v, bool) and abs(v) <= 2**31
        if not number and not (isinstance(v, str) and len(v) <= 40):
            raise ProtocolError("bad-message", f"{name}.{key}: expected a short text or a whole number")
    return dict(value)


ACTION_ITEMS = 8


def _action(value, name):
    """An action as replays encode it (tabletop.gamekit.record.encode_action): [tag, *fields], each
    field a whole number, a short text or a short list of whole numbers."""
    if not isinstance(value, list) or not 1 <= len(value) <= ACTION_ITEMS or not isinstance(value[0], str) \
            or not 0 < len(value[0]) <= 24:
        raise ProtocolError("bad-message", f"{name}: expected [tag, field, ...] with at most {ACTION_ITEMS} items")
    small = _whole(-2**31, 2**31)
    for v in value[1:]:
        if isinstance(v, list):
            if len(v) > 16:
                raise ProtocolError("bad-message", f"{name}: a list field holds at most 16 numbers")
            for x in v:
                small(x, name)
        elif isinstance(v, str):
            if len(v) > 64:
                raise ProtocolError("bad-message", f"{name}: a text field holds at most 64 characters")
        else:
            small(v, name)
    return tuple(tuple(v) if isinstance(v, list) else v for v in value)


def _object(value, name):
    if not isinstance(value, dict):
        raise ProtocolError("bad-message", f"{name}: expected an object")
    return value


def _objects(value, name):
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ProtocolError("bad-message", f"{name}: expected a list of objects")
    return tuple(value)


def _actions(value, name):
    if value is None:
        return None
    if not isinstance(value, list):
        raise ProtocolError("bad-message", f"{name}: expected a list of actions")
    return tuple(_action(v, name) for v in value)


def _point(value, name):
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 3 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise ProtocolError("bad-message", f"{name}: expected [x, y, z] or null")
    return tuple(value)


def _choices(value, name):
    """The acting seat's legal actions said for a browser, one a legal action: {"text", "piece" (an
    index or null), "at" ([x, y, z] or null)}."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, dict) and set(v) == {"text", "piece", "at"}
                                              for v in value):
        raise ProtocolError("bad-message", f'{name}: expected a list of {{"text", "piece", "at"}}')
    piece = _whole(0, 2**31)
    for v in value:
        _text(2000)(v["text"], name)
        if v["piece"] is not None:
            piece(v["piece"], name)
        _point(v["at"], name)
    return value


def _pieces(value, name):
    """{track: [x, y, z, qx, qy, qz, qw]}: where each piece stands, for a browser."""
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(p, list) and len(p) == 7
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p) for k, p in value.items()):
        raise ProtocolError("bad-message", f"{name}: expected {{track: [x, y, z, qx, qy, qz, qw]}}")
    return value


def _view(value, name):
    """A view: an object, its `pieces` and `choices` (a browser's) checked where present."""
    _object(value, name)
    if "pieces" in value:
        _pieces(value["pieces"], f"{name}.pieces")
    if "choices" in value:
        _choices(value["choices"], f"{name}.choices")
    return value


def _error_code(value, name):
    if value not in ERRORS:
        raise ProtocolError("bad-message", f"{name}: expected one of {', '.join(ERRORS)}")
    return value


MAX_DROP_WAIT_S = 86400
TOKEN = _text(128)
CODE = _text(64)
SEED_MAX = 2**63 - 1


# -- the messages ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Create:
    """client -> server: make a room. `seats` one kind a seat ("remote": a client plays it; "ai",
    "random": played in the room); `outcomes` "physics" or "measured"; `options` the game's own.
    A remote seat whose every connection drops is waited for `drop_wait` seconds; then `on_drop`:
    "ai" (the game's AI plays the seat until its client comes back) or "pause" (no seat acts until
    it comes back)."""

    TYPE: ClassVar[str] = "create"
    CHECKS: ClassVar[dict] = {"game": _text(40), "seats": _texts(16, 8), "seed": _whole(0, SEED_MAX),
                              "outcomes": _text(20), "options": _options, "on_drop": _text(20),
                              "drop_wait": _whole(0, MAX_DROP_WAIT_S)}
    game: str
    seats: tuple[str, ...]
    seed: int = 0
    outcomes: str = "physics"
    options: dict = field(default_factory=dict)
    on_drop: str = "ai"
    drop_wait: int = 60


@dataclass(frozen=True)
class Join:
    """client -> server: take a seat of `room` (`seat` a colour, or the first free remote seat), or
    take it back with its `token` (reconnecting), or watch (`spectate`). With `away` a token takes
    its seat back only when no connection plays it now (else `seat-held`): a seat kept on a
    machine is taken back by a second join there only once its first has left. With `motion` the
    connection is sent each revealed throw's `motion` too (a browser, which does not re-simulate)."""

    TYPE: ClassVar[str] = "join"
    CHECKS: ClassVar[dict] = {"room": CODE, "seat": _text(16, optional=True), "name": _text(40, optional=True),
                              "token": _text(128, optional=True), "spectate": _switch, "away": _switch,
                              "motion": _switch}
    room: str
    seat: str | None = None
    name: str | None = None
    token: str | None = None
    spectate: bool = False
    away: bool = False
    motion: bool = False


@dataclass(frozen=True)
class Act:
    """client -> server: the joined seat's `action` (encoded as replays encode it, one of the
    `legal` actions of its latest view), answering the view of `step`, with the seat's `token`."""

    TYPE: ClassVar[str] = "act"
    CHECKS: ClassVar[dict] = {"token": TOKEN, "step": _whole(0, 2**31), "action": _action}
    token: str
    step: int
    action: tuple


@dataclass(frozen=True)
class Created:
    """server -> client: the room is made; `room` its code (the join code), `seats` each seat's
    colour and kind; `host_key` the secret that starts the room before its seats are all taken
    (`start`)."""

    TYPE: ClassVar[str] = "created"
    CHECKS: ClassVar[dict] = {"room": CODE, "game": _text(40), "seats": _objects, "host_key": _text(128, optional=True)}
    room: str
    game: str
    seats: tuple
    host_key: str | None = None


@dataclass(frozen=True)
class Joined:
    """server -> client: the connection plays `seat` (a colour; None: it watches) of `room`; `token`
    is the seat's secret, to act and to take the seat back after a drop (None for a spectator);
    `started` whether the game has begun (False: the room's lobby, waiting for its seats); a seat
    whose connections all drop is kept `drop_wait` seconds, then `on_drop` ("ai": the AI plays it
    until its player is back; "pause": the room waits); `title` the game's title as a page heads it
    (None from an older server: the page says `game`)."""

    TYPE: ClassVar[str] = "joined"
    CHECKS: ClassVar[dict] = {"room": CODE, "game": _text(40), "seat": _text(16, optional=True),
                              "token": _text(128, optional=True), "seats": _objects, "started": _switch,
                              "on_drop": _text(20), "drop_wait": _whole(0, 86400), "title": _text(80, optional=True)}
    room: str
    game: str
    seat: str | None
    token: str | None
    seats: tuple
    started: bool = True
    on_drop: str = "ai"
    drop_wait: int = 60
    title: str | None = None


@dataclass(frozen=True)
class View:
    """server -> client: what the connection's seat may know after `step` actions (the game
    definition's `seat_view`): its `log` holds the seat's log lines from `log_from` on (0: the
    whole log; else the lines after those already sent). `legal` lists the seat's legal actions
    when it is to act (None otherwise). Where the game has a window the view holds, for a browser,
    `pieces` (each piece's pose) and, in a seat's view, `choices` (one for each legal action: its text,
    the piece it moves and the lit place it goes to; null when the seat is not to act): both checked
    when present (tabletop.net.browser makes them); a client with no use for them ignores them."""

    TYPE: ClassVar[str] = "view"
    CHECKS: ClassVar[dict] = {"room": CODE, "seat": _text(16, optional=True), "step": _whole(0, 2**31),
                              "log_from": _whole(0, 2**31), "view": _view, "legal": _actions}
    room: str
    seat: str | None
    step: int
    log_from: int
    view: dict
    legal: tuple | None = None


@dataclass(frozen=True)
class Error:
    """server -> client: the connection's last message was refused and changed nothing; `code` one
    of ERRORS, `about` the refused message's type (None when it had none)."""

    TYPE: ClassVar[str] = "error"
    CHECKS: ClassVar[dict] = {"code": _error_code, "message": _text(2000), "about": _text(40, optional=True)}
    code: str
    message: str
    about: str | None = None


HEX64 = _text(64)


@dataclass(frozen=True)
class Commit:
    """server -> client: before chance event `chance` (0 the game's first) of kind `event` is drawn,
    the SHA-256 `commitment` of its seed and salt (tabletop.gamekit.commit)."""

    TYPE: ClassVar[str] = "commit"
    CHECKS: ClassVar[dict] = {"room": CODE, "chance": _whole(0, 2**31), "event": _text(40), "commitment": HEX64}
    room: str
    chance: int
    event: str
    commitment: str


@dataclass(frozen=True)
class Reveal:
    """server -> client: after chance event `chance` settled, its `seed` and `salt` (hex), which hash
    to its commitment; `outcome` its label and `motion_sha256` the hash of its recorded motion (None:
    none). An event whose outcome is hidden (a shuffled pile) is revealed only when the game ends,
    with `outcome` None."""

    TYPE: ClassVar[str] = "reveal"
    CHECKS: ClassVar[dict] = {"room": CODE, "chance": _whole(0, 2**31), "event": _text(40), "seed": HEX64,
                              "salt": HEX64, "outcome": _text(200, optional=True),
                              "motion_sha256": _text(64, optional=True)}
    room: str
    chance: int
    event: str
    seed: str
    salt: str
    outcome: str | None = None
    motion_sha256: str | None = None


MOTION_ENCODING = "zlib-u32le"


def _motion_data(value, name):
    """A motion's `data`: base64 text, at most the largest server message."""
    if not isinstance(value, str) or not value or len(value) > MAX_SERVER_FRAME:
        raise ProtocolError("bad-message", f"{name}: expected base64 text")
    return value


def _encoding(value, name):
    if value != MOTION_ENCODING:
        raise ProtocolError("bad-message", f"{name}: expected {MOTION_ENCODING!r}")
    return value


@dataclass(frozen=True)
class Motion:
    """server -> client (one that joined with `motion`): the recorded motion of chance event
    `chance`, sent after its reveal. `data` is base64 of the zlib stream of the exact bytes whose
    SHA-256 is the reveal's `motion_sha256` (tabletop.sim.record.motion_sha256: little-endian uint32,
    zigzag: the `frames` time steps in microseconds, each frame's count of entries, each entry's code
    2 * track index + (1: hidden), then the poses' second-order residuals column by column, in
    POSITION_UNIT and QUATERNION_SCALE); `tracks` names the track indices (not hashed)."""

    TYPE: ClassVar[str] = "motion"
    CHECKS: ClassVar[dict] = {"room": CODE, "chance": _whole(0, 2**31), "event": _text(40),
                              "tracks": _texts(200, 4096), "frames": _whole(1, 2**31), "encoding": _encoding,
                              "data": _motion_data}
    room: str
    chance: int
    event: str
    tracks: tuple[str, ...]
    frames: int
    data: str
    encoding: str = MOTION_ENCODING


@dataclass(frozen=True)
class Notice:
    """server -> client: something about the room's seats, in words (`text`: a seat dropped, is
    played by the AI, came back; the room paused or goes on), with every seat as it is now
    (`seats`: colour, kind, taken, name, `connected` and `played_by`: "client", "ai" or "nobody"
    while the room waits) and whether the room is `paused`."""

    TYPE: ClassVar[str] = "notice"
    CHECKS: ClassVar[dict] = {"room": CODE, "text": _text(400), "seats": _objects, "paused": _switch,
                              "started": _switch}
    room: str
    text: str
    seats: tuple
    paused: bool = False
    started: bool = True


CHAT_MOST = 300            # characters of a chat message, once cleaned
CHAT_RAW_MOST = 4000       # characters a `say` may hold before cleaning


@dataclass(frozen=True)
class Start:
    """client -> server: the host starts room `room` now, with the key `created` gave it: every
    remote seat not yet taken is played by the room's AI until a player takes it."""

    TYPE: ClassVar[str] = "start"
    CHECKS: ClassVar[dict] = {"room": CODE, "host_key": _text(128)}
    room: str
    host_key: str


@dataclass(frozen=True)
class Say:
    """client -> server: a chat message to everyone in the connection's room (a seat's, or a
    spectator's, marked so). The server removes control characters and runs of white space and
    refuses one that is empty then, longer than CHAT_MOST characters, or one too many in a short
    time (`chat-limit`)."""

    TYPE: ClassVar[str] = "say"
    CHECKS: ClassVar[dict] = {"text": _text(CHAT_RAW_MOST)}
    text: str


@dataclass(frozen=True)
class List:
    """client -> server: the server's open rooms (a server that lists them: `rooms`; else
    `no-listing`)."""

    TYPE: ClassVar[str] = "list"
    CHECKS: ClassVar[dict] = {}


@dataclass(frozen=True)
class Chat:
    """server -> client: a chat message of room `room`, from seat `seat` (a colour; None: a
    spectator, `spectator` True) with its player's `name`, cleaned; `at` when the server took it
    (ISO 8601). Chat is journaled with the room (chat.jsonl), never in the game's replay."""

    TYPE: ClassVar[str] = "chat"
    CHECKS: ClassVar[dict] = {"room": CODE, "seat": _text(16, optional=True), "name": _text(40, optional=True),
                              "spectator": _switch, "text": _text(CHAT_MOST), "at": _text(40)}
    room: str
    seat: str | None
    name: str | None
    spectator: bool
    text: str
    at: str


@dataclass(frozen=True)
class Rooms:
    """server -> client: the open rooms (a game not over): each its `code`, `game`, `seats` (colour,
    kind, taken, name) and whether it has `started`."""

    TYPE: ClassVar[str] = "rooms"
    CHECKS: ClassVar[dict] = {"rooms": _objects}
    rooms: tuple


def clean_text(text: str, most: int) -> str:
    """`text` as a room shows it: control and format characters (and lone surrogates, private and
    unassigned code points) removed, every run of white space one space, trimmed; then at most
    `most` characters."""
    import unicodedata

    kept = []
    for c in text:
        if c.isspace():
            kept.append(" ")
        elif unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Cn"):
            kept.append(c)
    return " ".join("".join(kept).split())[:most]


CLIENT_MESSAGES = {m.TYPE: m for m in (Create, Join, Act, Start, Say, List)}
SERVER_MESSAGES = {m.TYPE: m for m in (Created, Joined, View, Error, Commit, Reveal, Motion, Notice, Chat, Rooms)}
MESSAGES = {**CLIENT_MESSAGES, **SERVER_MESSAGES}


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse(raw: Any, sender: str = "client"):
    """The message a frame holds, checked: one of CLIENT_MESSAGES (`sender` "client": what a server
    reads) or SERVER_MESSAGES ("server"); ProtocolError when it is none of them."""
    if not isinstance(raw, str):
        raise ProtocolError("bad-message", "binary frames are not part of the protocol: send a JSON text frame")
    limit = MAX_MESSAGE_BYTES if sender == "client" else MAX_SERVER_FRAME
    if len(raw) > limit or (len(raw) * 4 > limit and len(raw.encode("utf-8", "surrogatepass")) > limit):
        raise ProtocolError("too-large", f"the message is over {limit} bytes")
    try:
        data = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise ProtocolError("bad-message", "not a JSON text") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad-message", "a message is a JSON object")
    kind = data.get("type")
    about = kind if isinstance(kind, str) and kind in MESSAGES else None
    version = data.get("v")
    if isinstance(version, bool) or not isinstance(version, int):
        raise ProtocolError("bad-message", 'every message has "v", the protocol version (a whole number)', about)
    if version != VERSION:
        raise ProtocolError("version", f"protocol version {version} is not spoken here: this is version {VERSION}",
                            about)
    known = CLIENT_MESSAGES if sender == "client" else SERVER_MESSAGES
    if not isinstance(kind, str) or kind not in known:
        raise ProtocolError("unknown-type", f"unknown message type {repr(kind)[:40]}: a {sender} sends "
                                            f"{', '.join(known)}", about)
    cls = known[kind]
    given = {k: v for k, v in data.items() if k not in ("v", "type")}
    extra = sorted(set(given) - set(cls.CHECKS))
    if extra:
        raise ProtocolError("bad-message", f"{kind}: unknown field {extra[0][:40]!r}", about)
    values = {}
    for f in fields(cls):
        if f.name not in given:
            if f.default is MISSING and f.default_factory is MISSING:
                raise ProtocolError("bad-message", f"{kind}: the field {f.name!r} is missing", about)
            continue
        try:
            values[f.name] = cls.CHECKS[f.name](given[f.name], f"{kind}.{f.name}")
        except ProtocolError as exc:
            raise ProtocolError(exc.code, exc.message, about) from None
    return cls(**values)


def _plain(value):
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def to_dict(message) -> dict:
    """A message as the JSON object it is sent as (tuples as lists)."""
    return {"v": VERSION, "type": message.TYPE, **{f.name: _plain(getattr(message, f.name)) for f in fields(message)}}


def encode(message) -> str:
    """The frame of a message."""
    return json.dumps(to_dict(message), separators=(",", ":"), ensure_ascii=False)


def action_key(action) -> str:
    """One text for an encoded action, equal for equal actions (a tuple and a list alike)."""
    return json.dumps(_plain(list(action)), separators=(",", ":"))


def merge_view(held: dict | None, delta: dict) -> dict:
    """A view's fields after a `view` message: its `log` lines appended to the lines held, its
    `mirror` (the definition's `seat_mirror`) appended when it continues the history held (its
    "from" the number of steps held), else taken whole; every other field replaced. The server
    keeps each viewer's whole view so; a client holds its own so (a client first checks that
    `log_from` is the number of lines it holds)."""
    if held is None:
        return dict(delta)
    merged = {**held, **delta, "log": list(held.get("log", [])) + list(delta.get("log", []))}
    old, new = held.get("mirror"), delta.get("mirror")
    if isinstance(old, dict) and isinstance(new, dict) and "from" in new and new.get("from", 0) > 0:
        merged["mirror"] = {**new, "from": old.get("from", 0), "history": list(old.get("history", []))
                            + list(new.get("history", []))}
    return merged


def mirror_follows(held: dict | None, delta: dict) -> bool:
    """Whether a view's `mirror` can be taken onto the one held: it is whole (no "from", or "from"
    0), or continues the history held step for step."""
    new = delta.get("mirror")
    if not isinstance(new, dict) or not new.get("from"):
        return True
    old = (held or {}).get("mirror")
    return isinstance(old, dict) and new["from"] == old.get("from", 0) + len(old.get("history", []))
