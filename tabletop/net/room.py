"""A room of the game server: one game, run by the one game loop (tabletop.gamekit.match.Match),
with the room the authority. Each seat of a room is "remote" (a client plays it, with the secret
token it was given on joining) or is played in the room ("ai", "random": the game's own seats).

`Room` is the game and nothing of the network: a remote seat acts through `act` (its token, the
step it answers, the action as replays encode it), anything else is refused with a `RoomError` and
changes nothing; `update()` is what every viewer may know since the last update (each seat's and a
spectator's view, the game definition's `seat_view`), and the acting seat's legal actions. The
server (tabletop.net.server) runs each room in a worker process of its own (`run_room`: commands in,
events out, over a pipe), so that one room's physics never stalls another room or the server.

The journal: a room with a data folder writes its game as a replay (the recorder,
tabletop.gamekit.record.GameRecorder, one crash-safe chunk per turn) to DATA/CODE/game.ttr and its
metadata (game, seats, seed, outcomes, options, the code, each claimed seat's token hash and name)
to DATA/CODE/room.json, written whole each time (a temp file, then a rename), so that a later server
can restore the room from the two after a crash.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from tabletop.sim.errors import InputError

SEAT_KINDS = ("remote", "ai", "random")   # "remote": played by a client; the others in the room
ON_DROP = ("ai", "pause")                  # what a room does once a dropped seat's wait is over
OUTCOMES = ("physics", "measured")         # where a room's chance comes from (no file of the server's)
META_FILE = "room.json"
REPLAY_FILE = "game.ttr"
SEATS_FILE = "seats.jsonl"                 # each seat handed to the AI or back: {"step", "seat", "kind"} a line
SECRET_FILE = "secret"                     # the room's CommittedSeeds secret, hex: readable by the server alone
META_FORMAT = "tabletop-room"
META_VERSION = 1


class RoomError(Exception):
    """An action or claim refused: `code` (one of tabletop.net.protocol.ERRORS) and a message; the
    room is unchanged."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code, self.message = code, message


def new_code() -> str:
    """A room's join code: 128 random bits, URL-safe (cannot be guessed)."""
    return secrets.token_urlsafe(16)


def new_token() -> str:
    """A seat's secret token: 192 random bits, URL-safe."""
    return secrets.token_urlsafe(24)


def token_hash(token: str) -> str:
    """What the room keeps of a token (SHA-256, hex): a journal read by others gives no seat away."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_matches(token: str, digest: str | None) -> bool:
    return digest is not None and hmac.compare_digest(token_hash(token), digest)


@dataclass(frozen=True)
class RoomSpec:
    """What makes a room: its code, game, seats (a kind each), seed, outcomes and the game's options
    (checked: `check_spec`)."""

    code: str
    game: str
    seats: tuple[str, ...]
    seed: int
    outcomes: str = "physics"
    options: dict = field(default_factory=dict)
    on_drop: str = "ai"            # a dropped remote seat, once waited for: the AI plays it, or the room pauses
    drop_wait: int = 60            # seconds a dropped remote seat is waited for

    def to_dict(self) -> dict:
        return {**asdict(self), "seats": list(self.seats)}

    @classmethod
    def from_dict(cls, data: dict) -> "RoomSpec":
        return cls(data["code"], data["game"], tuple(data["seats"]), int(data["seed"]), data["outcomes"],
                   dict(data["options"]), data.get("on_drop", "ai"), int(data.get("drop_wait", 60)))


def check_spec(code: str, game: str, seats, seed: int, outcomes: str, options: dict, on_drop: str = "ai",
               drop_wait: int = 60) -> RoomSpec:
    """A room's spec, checked against its game's definition: InputError (one line) when the game,
    a seat kind, the number of seats, the outcomes, an option or what to do with a dropped seat is
    not one it can have."""
    from tabletop.gamekit.registry import game_spec

    definition = game_spec(game)
    seats = tuple(seats)
    kinds = [k for k in SEAT_KINDS if k == "remote" or k in definition.seat_kinds]
    unknown = [s for s in seats if s not in kinds]
    if unknown:
        raise InputError(f"--seats: unknown seat kind {unknown[0]!r} for a room of {definition.name}; use "
                         f"{', '.join(kinds)}")
    lo, hi = definition.seats
    if not lo <= len(seats) <= hi:
        need = f"exactly {lo}" if lo == hi else f"{lo}-{hi}"
        raise InputError(f"--seats: {definition.title} needs {need} seats, not {len(seats)}")
    if outcomes not in OUTCOMES:
        raise InputError(f"--outcomes: a room's chance is one of {', '.join(OUTCOMES)}, not {outcomes!r}")
    options = definition.check_options(dict(options))
    if on_drop not in ON_DROP:
        raise InputError(f"--on-drop: a dropped seat is played by the ai or the room pauses ({', '.join(ON_DROP)}), "
                         f"not {on_drop!r}")
    if on_drop == "ai" and "ai" not in definition.seat_kinds:
        raise InputError(f"--on-drop ai: {definition.title} has no AI seat; use --on-drop pause")
    if isinstance(drop_wait, bool) or not isinstance(drop_wait, int) or not 0 <= drop_wait <= 86400:
        raise InputError(f"--drop-wait: whole seconds from 0 to 86400, not {drop_wait!r}")
    return RoomSpec(code, definition.name, seats, int(seed), outcomes, options, on_drop, drop_wait)


def room_players(definition, spec: RoomSpec, source) -> list:
    """The room's seats: None for a remote one (the room is handed its actions), the game's own
    seat for the others, planning with `source`."""
    return [None if kind == "remote" else definition.make_seat(kind, source, spec.options) for kind in spec.seats]


def room_match(definition, spec: RoomSpec, state, source, banner: str, observers=(), seeds=None, drawn=None,
               players=None):
    """The room's Match, made in this one place: the seats ("remote" ones None: the room is handed
    their actions; the others the game's, planning with `source`), the source the match draws chance
    from (`drawn`: the recorder's, which watches `source`; None: `source` itself), the `observers`
    (the recorder, and whatever else a room is to tell of its actions, such as the commitment to each
    chance event's seed before it is drawn: MatchObserver.chance_ahead) and the seeds: `seeds` None
    is the Match's own GameSeeds(spec.seed); another seeds object
    (tabletop.gamekit.commit.CommittedSeeds) takes its place."""
    from tabletop.gamekit.match import Match

    players = room_players(definition, spec, source) if players is None else players
    return Match(state, players, drawn or source, spec.seed, banner=[banner], result_lines=definition.result_lines,
                 observers=list(observers), max_turns=definition.max_turns, seeds=seeds)


def motion_wire(motion) -> dict:
    """A chance event's QuantizedMotion as the `motion` message carries it (tabletop.net.protocol.Motion):
    its tracks, its number of frames and `data`, base64 of the zlib stream of the very bytes whose
    SHA-256 is its motion_sha256 (tabletop.sim.record.motion_bytes), so a browser checks the hash
    the reveal carries on what it plays."""
    import base64
    import zlib

    from tabletop.sim.record import motion_bytes

    return {"tracks": list(motion.tracks), "frames": len(motion.frames),
            "data": base64.b64encode(zlib.compress(motion_bytes(motion), 9)).decode("ascii")}


class Proofs:
    """A MatchObserver that makes every chance event checkable: before the event is drawn, its
    commitment goes to `emit` as ("commit", k, event, commitment); once applied, its reveal as
    ("reveal", k, event, {"seed", "salt"}, outcome, motion_sha256) (the recorder's hash of its
    motion, when it has one), then, where something moved, ("motion", k, event, motion_wire(...)),
    for a browser to check against that hash and play. An event whose outcome is hidden (the
    definition's `private_chance`: a shuffled pile) is revealed only when the game ends, without its
    outcome or motion."""

    def __init__(self, seeds, private, emit, recorder=None, deferred=()):
        self.seeds, self.private, self.emit, self.recorder = seeds, frozenset(private), emit, recorder
        self.k: int | None = None
        self.deferred: list[tuple[int, str]] = list(deferred)   # hidden events so far (a restored room's too)

    def chance_ahead(self, state, event: str, k: int) -> None:
        self.k = k
        self.emit(("commit", k, event, self.seeds.commitment(k)))

    def record(self, state, action, event: str | None, lines) -> None:
        if event is None or self.k is None:
            return
        if event in self.private:
            self.deferred.append((self.k, event))
            return
        step = self.recorder.last_step if self.recorder is not None else None
        self.emit(("reveal", self.k, event, self.seeds.reveal(self.k), action.label,
                   None if step is None else step.get("motion_sha256")))
        motion = None if step is None or not step.get("motion_sha256") else self.recorder.last_motion
        if motion is not None and motion.tracks:
            wire = motion_wire(motion)
            wire["looks"] = dict(self.recorder.last_looks)      # the server keeps them: a browser's bodies.glb
            self.emit(("motion", self.k, event, wire))

    def finish(self, state, lines, unfinished: bool = False) -> None:
        if unfinished:
            return
        for k, event in self.deferred:
            self.emit(("reveal", k, event, self.seeds.reveal(k), None, None))
        self.deferred = []

    def close(self) -> None:
        pass


class Room:
    """One game of a room: its Match, the remote seats' token hashes and names, and its journal
    under `data` (None: no journal). `observers` and `seeds` are handed to `room_match`; with no
    `seeds` the room draws from a fresh CommittedSeeds (a random secret), and `emit` (when given)
    is told each chance event's commitment and reveal (Proofs)."""

    def __init__(self, spec: RoomSpec, data: Path | None = None, observers=(), seeds=None, emit=None, resume=None,
                 own_journal: bool = True, started: bool = True):
        """`resume`: the room's journal (a ReplayFile) when the room is restored (`Room.restore`):
        the game is re-driven through its whole turns (tabletop.gamekit.resume) and its journal
        written again from them before it goes on. `own_journal` False: the room writes its game
        alone, and room.json and the secret are its server's to write (tabletop.net.server writes
        them before it answers, so that nothing a client was told is lost with the server).
        `started` False: the room's lobby: nothing is thrown or asked until `start()` (the server
        starts it once every remote seat is taken, or when its host says)."""
        from tabletop.gamekit.outcomes import play_outcomes
        from tabletop.gamekit.record import GameRecorder
        from tabletop.gamekit.resume import physics_of, redrive
        from tabletop.gamekit.registry import game_spec

        self.spec = spec
        self.definition = definition = game_spec(spec.game)
        self.outcomes = play_outcomes(definition, spec.outcomes)
        config = definition.replay_config(list(spec.seats), self.outcomes, spec.options)
        state = definition.make_game(config).new_initial_state()
        self.source = definition.make_source(self.outcomes)
        self.config = config
        self._browser = None                      # its BrowserViews, made at the first update (False: none)
        self.rules = {"game": definition.name, **{k: v for k, v in config.items() if k != "outcomes"},
                      "outcomes": spec.outcomes}
        # the banner names the outcomes as the room was asked for them: no path of the server's
        self.banner = definition.banner(list(spec.seats), spec.seed, spec.outcomes, spec.options)
        self.folder = None if data is None else Path(data) / spec.code
        self.tokens: dict[int, str] = {}          # remote seat -> its token's hash
        self.names: dict[int, str | None] = {}
        self.created = now()
        self.own_journal = own_journal
        self.kinds = list(spec.seats)             # who plays each seat now: a remote one may be the AI's
        self.started = started
        self._changes: list[tuple[int, int, str]] = []   # a restored room's seat changes still to come
        recorder = None
        if seeds is None:
            from tabletop.gamekit.commit import CommittedSeeds

            seeds = CommittedSeeds.new()
        self.seeds = seeds
        private = frozenset(definition.private_chance)
        try:
            players = room_players(definition, spec, self.source)
            changes = [] if self.folder is None or resume is None else read_seat_changes(self.folder, definition)
            done = None if resume is None else redrive(resume, definition, state, seeds,
                                                       self._seats_at(players, changes), physics_of(self.source))
            if self.folder is not None:
                self.folder.mkdir(parents=True, exist_ok=True)
                if resume is None and own_journal:
                    write_secret(self.folder, seeds.secret)
                    self._write_meta()
                copied = None if done is None else (resume.header, resume.looks, [t.payload for t in done.turns])
                recorder = GameRecorder(self.folder / REPLAY_FILE, definition, config, spec.seed, state, self.source,
                                        [self.banner], seeds=seeds, resume=copied)
            proofs = [] if emit is None else [
                Proofs(seeds, private, emit, recorder,
                       [] if done is None else [(k, event) for k, event, _ in done.events if event in private])]
            self.match = room_match(definition, spec, state, self.source, self.banner,
                                    [recorder, *observers, *proofs], seeds, recorder.source if recorder else None,
                                    players)
            if done is not None:
                self._changes = [c for c in changes if c[0] > self.step]
                for _, seat, kind in [c for c in changes if c[0] <= self.step]:
                    self._hand_over(seat, kind)
                self._restored(done, private, emit)
        except BaseException:
            if recorder is not None:
                recorder.close()
            self.source.close()
            raise
        self._logged = 0                          # state.events up to here are in an update
        self._mirrored = 0                        # state.history's steps up to here are in an update
        self._closed = False

    def _seats_at(self, players: list, changes: list):
        """The seat that chose for each player at each step of a restored game (`redrive`'s
        `seats`): the room's seats, with the journaled seat changes taken at their steps."""
        ai: dict[int, object] = {}

        def seats(step: int) -> list:
            now = list(players)
            for at, seat, kind in changes:
                if at <= step:
                    if kind != "remote" and seat not in ai:
                        ai[seat] = self.definition.make_seat(kind, self.source, self.spec.options)
                    now[seat] = None if kind == "remote" else ai[seat]
            return now
        return seats

    @classmethod
    def restore(cls, folder: Path, emit=None, own_journal: bool = True) -> "Room":
        """The room journaled in `folder` (room.json, its secret and game.ttr), its game at the last
        turn its journal holds whole: the actions after it (lost with the server) are asked for and
        drawn again, and come out the same (the same seats, the same seeds). InputError (one line)
        when the journal cannot be taken up."""
        import json

        from tabletop.sim.record import ReplayFile

        folder = Path(folder)
        try:
            meta = json.loads((folder / META_FILE).read_text())
            spec = RoomSpec.from_dict(meta)
            secret = bytes.fromhex((folder / SECRET_FILE).read_text().strip())
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{folder}: not a room's journal ({exc})") from None
        from tabletop.gamekit.commit import CommittedSeeds

        replay = ReplayFile.open(folder / REPLAY_FILE) if (folder / REPLAY_FILE).exists() else None
        if replay is not None and replay.end is not None:
            raise InputError(f"{folder}: the room's game is over")
        # no journal yet (the server stopped as the room was being made): the game from its start
        room = cls(spec, folder.parent, seeds=CommittedSeeds(secret), emit=emit, resume=replay,
                   own_journal=own_journal, started=bool(meta.get("started", True)))
        colours = room.definition.colours
        room.tokens = {colours.index(c): h for c, h in meta.get("tokens", {}).items()}
        room.names = {colours.index(c): n for c, n in meta.get("names", {}).items()}
        room.created = meta.get("created", room.created)
        if replay is None:
            room._write_meta()
        return room

    def _restored(self, done, private, emit) -> None:
        """A restored room's past chance events published again (each viewer is sent every
        commitment and reveal so far when it joins), and a game its journal holds to the end but
        for the end record ended now."""
        if emit is not None:
            for k, event, step in done.events:
                emit(("commit", k, event, self.seeds.commitment(k)))
                if event not in private:
                    emit(("reveal", k, event, self.seeds.reveal(k), step["action"][1], step.get("motion_sha256")))
        if self.state.is_terminal():
            self.match.result = list(self.definition.result_lines(self.state))
            for observer in self.match.observers:
                observer.finish(self.state, self.match.result)



    # -- what the room is waiting for ------------------------------------------------------------
    @property
    def state(self):
        return self.match.state

    @property
    def step(self) -> int:
        """Actions applied so far (chance outcomes included): what an action answers."""
        return len(self.state.history)

    def over(self) -> bool:
        return self.match.is_over()

    def to_act(self) -> int | None:
        """The remote seat whose action the room waits for (None: none); a remote seat the AI
        plays for now (`set_seat`) is not waited for, nor any seat before the room starts."""
        if self.over() or not self.started:
            return None
        self._due_changes()
        player = self.state.current_player
        return player if player >= 0 and self.kinds[player] == "remote" else None

    # -- a dropped seat played by the AI ------------------------------------------------------------
    def set_seat(self, seat: int, kind: str) -> None:
        """Remote `seat` played by the room's AI from now on (`kind` "ai": its client dropped and was
        waited for), or by its client again ("remote"). Journaled (seats.jsonl, a line written and
        flushed before the change takes effect) with the step it takes effect at, so a restored room
        hands the seat over at the same step."""
        if not 0 <= seat < len(self.spec.seats) or self.spec.seats[seat] != "remote" or kind not in ("ai", "remote"):
            raise RoomError("bad-message", f"seat {seat} cannot be played by {kind!r}")
        if self.kinds[seat] == kind:
            return
        if self.folder is not None:
            import json
            import os

            with open(self.folder / SEATS_FILE, "a") as fh:
                fh.write(json.dumps({"step": self.step, "seat": self.definition.colours[seat], "kind": kind}) + "\n")
                fh.flush()
                os.fsync(fh.fileno())
        self._hand_over(seat, kind)

    def _hand_over(self, seat: int, kind: str) -> None:
        self.kinds[seat] = kind
        self.match.seats[seat] = None if kind == "remote" else \
            self.definition.make_seat(kind, self.source, self.spec.options)

    def _due_changes(self) -> None:
        """A restored room's seat changes journaled for the steps after its journal's last whole
        turn: each taken again at its step, as the room that never stopped took it."""
        while self._changes and self._changes[0][0] <= self.step:
            _, seat, kind = self._changes.pop(0)
            self._hand_over(seat, kind)

    def start(self, fill: tuple[int, ...] = ()) -> None:
        """The game begins (the lobby is over): the remote seats in `fill` (not taken) are played by
        the AI until a player takes them (journaled as any seat handed over)."""
        for seat in fill:
            self.set_seat(seat, "ai")
        self.started = True

    def busy(self) -> bool:
        """Whether the room has a step of its own to take (a chance event, a seat played in the room)."""
        return self.started and not self.over() and self.to_act() is None

    def advance(self) -> list[str]:
        """One step of the room's own: the chance event answered or its seat choosing."""
        return self.match.step()

    # -- the remote seats ----------------------------------------------------------------------
    def claim(self, seat: int, digest: str, name: str | None = None) -> None:
        """`seat` (a remote one) is taken by the client holding the token whose hash is `digest`."""
        if not 0 <= seat < len(self.spec.seats) or self.spec.seats[seat] != "remote":
            raise RoomError("room-full", f"seat {seat} is not a remote seat")
        if seat in self.tokens and self.tokens[seat] != digest:
            raise RoomError("room-full", f"{self.definition.colours[seat]} is taken")
        self.tokens[seat], self.names[seat] = digest, name
        self._write_meta()

    def act(self, seat: int, token: str, action, step: int) -> list[str]:
        """Apply remote `seat`'s `action` ([tag, *fields]), answering the view of `step`: its new log
        lines. RoomError (the room unchanged) when the token is not the seat's, the seat is not to
        act, the step is not the latest or the action is not one of the seat's legal actions."""
        from tabletop.gamekit.record import decode_action, encode_action

        colours = self.definition.colours
        if self.over():
            raise RoomError("room-closed", "the game is over")
        if not self.started:
            raise RoomError("not-started", "the room waits for its seats to be taken")
        if not isinstance(token, str) or not token_matches(token, self.tokens.get(seat)):
            raise RoomError("bad-token", f"the token is not {colours[seat] if 0 <= seat < len(colours) else seat}'s")
        if self.to_act() != seat:
            raise RoomError("not-your-turn", self.waiting_for())
        if step != self.step:
            raise RoomError("stale", f"the action answers step {step}; the game is at step {self.step}")
        try:
            wanted = decode_action(self.definition, [list(v) if isinstance(v, tuple) else v for v in action])
        except (InputError, TypeError):
            raise RoomError("illegal", f"{list(action)!r} is not an action of {self.definition.name}") from None
        legal = self.state.legal_actions()
        for offered in legal:
            if type(offered) is type(wanted) and encode_action(self.definition, offered) == \
                    encode_action(self.definition, wanted):
                return self.match.apply(offered)
        raise RoomError("illegal", f"{wanted} is not one of {colours[seat]}'s {len(legal)} legal actions now")

    def waiting_for(self) -> str:
        """Whom the room waits for, in words."""
        state, colours = self.state, self.definition.colours
        if self.over():
            return "the game is over"
        player = state.current_player
        if player < 0:
            return f"a chance event ({state.chance_event}) is being answered"
        return f"it is {colours[player]}'s turn"

    # -- what each viewer may know -------------------------------------------------------------
    def update(self) -> dict:
        """What every viewer may know of the game since the last update: `views` by seat (None: a
        spectator), each the definition's `seat_view` with only the log lines since the last update,
        the banner, the seat's mirror of the position (the definition's `seat_mirror`: the history's
        steps since the last update, or a whole position), where the game has a window `pieces` (each piece's pose in
        the public position, for a browser: tabletop.net.browser) and in a seat's view `choices` (its legal
        actions said as the window says them, with their pieces and lit places; None unless it is to act),
        and, once over, the result lines; `legal` the acting remote seat's legal actions (encoded as replays
        encode them; None when no remote seat is to act); `step`, `to_act`, `over`."""
        from tabletop.gamekit.record import encode_action

        since, self._logged = self._logged, len(self.state.events)
        steps, self._mirrored = self._mirrored, len(self.state.history)
        views = {}
        for viewer in [*range(len(self.spec.seats)), None]:
            view = self.definition.seat_view(self.state, viewer, since)
            view["mirror"] = self.definition.seat_mirror(self.state, viewer, steps)
            if steps == 0:                        # what a client builds the mirror's game of (no server path)
                view["rules"] = self.rules
            view["banner"] = self.banner
            if self.match.result is not None:
                view["result"] = list(self.match.result)
            views[viewer] = view
        seat = self.to_act()
        legal = None if seat is None else [encode_action(self.definition, a) for a in self.state.legal_actions()]
        browser = self.browser_views()
        if browser is not None:                   # the table in a browser: the pieces the same for every viewer,
            pieces = browser.pieces(self.state)   # the choices the acting seat's (null: another seat's turn)
            choices = None if legal is None else browser.choices(self.state)
            for viewer, view in views.items():
                view["pieces"] = pieces
                if viewer is not None:
                    view["choices"] = choices if viewer == seat else None
        return {"step": self.step, "to_act": seat, "over": self.over(), "views": views, "legal": legal,
                "kinds": list(self.kinds), "started": self.started}

    def browser_views(self):
        """The room's tabletop.net.browser.BrowserViews (made once; None: the game has no window)."""
        if self._browser is None:
            from tabletop.net.browser import BrowserViews

            self._browser = BrowserViews.make(self.definition, self.spec.seats, self.spec.options,
                                              self.config) or False
        return self._browser or None

    # -- the journal -------------------------------------------------------------------------------
    def meta(self) -> dict:
        """The room's metadata, as room.json holds it."""
        return room_meta(self.spec, self.definition, self.created, self.tokens, self.names, self.started)

    def _write_meta(self) -> None:
        if self.folder is not None and self.own_journal:
            write_meta(self.folder, self.meta())

    def close(self) -> None:
        """Close the match (a game neither over nor left stays cut off in its replay: restorable)
        and the outcome source; once."""
        if self._closed:
            return
        self._closed = True
        try:
            self.match.close()
        finally:
            self.source.close()
            if self._browser:
                self._browser.close()


def read_seat_changes(folder: Path, definition) -> list[tuple[int, int, str]]:
    """A room's journaled seat changes, (step, seat, kind) in order; a last line cut off by a crash
    (written, never taken) is left out."""
    import json

    try:
        text = (folder / SEATS_FILE).read_text()
    except FileNotFoundError:
        return []
    changes = []
    for line in text.split("\n")[:-1]:          # every whole line (a cut-off last one has no newline)
        try:
            entry = json.loads(line)
            changes.append((int(entry["step"]), definition.colours.index(entry["seat"]), str(entry["kind"])))
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(f"{folder / SEATS_FILE}: not a seat change: {line[:80]!r} ({exc})") from None
    return changes


def room_meta(spec: RoomSpec, definition, created: str, tokens: dict, names: dict, started: bool = True,
              host: str | None = None) -> dict:
    """A room's metadata as room.json holds it: the spec, when it was made, each claimed seat's
    token hash and name by colour, whether its game has started (False: its lobby) and the hash of
    its host's key."""
    from tabletop.gamekit.outcomes import play_outcomes
    from tabletop.net.protocol import VERSION

    colours = definition.colours
    return {"format": META_FORMAT, "version": META_VERSION, "protocol": VERSION, **spec.to_dict(),
            "resolved_outcomes": play_outcomes(definition, spec.outcomes), "created": created,
            "replay": REPLAY_FILE, "tokens": {colours[s]: h for s, h in sorted(tokens.items())},
            "names": {colours[s]: n for s, n in sorted(names.items())}, "started": bool(started), "host": host}


def write_meta(folder: Path, meta: dict) -> None:
    """room.json, written whole (a temp file, then a rename)."""
    from tabletop.sim.output import write_json_atomic

    folder.mkdir(parents=True, exist_ok=True)
    write_json_atomic(folder / META_FILE, meta)


def write_secret(folder: Path, secret: bytes) -> None:
    """The room's secret (hex), for a restart to draw the same seeds: readable by its owner alone."""
    from tabletop.sim.output import write_bytes_atomic

    folder.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(folder / SECRET_FILE, secret.hex().encode(), private=True)


def now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


# -- the room's worker process ---------------------------------------------------------------------
def handle(room: Room, command: tuple) -> list[tuple]:
    """The events one command from the server gives: ("claim", seat, digest, name); ("act",
    client, seat, token, action, step) gives ("refused", client, code, message) or, applied, an
    ("update", ...)."""
    kind = command[0]
    if kind == "start":
        room.start(tuple(command[1]))
        return [("update", room.update())]
    if kind == "seat":
        _, seat, who = command
        room.set_seat(seat, who)
        return [("update", room.update())]
    if kind == "claim":
        _, seat, digest, name = command
        try:
            room.claim(seat, digest, name)
        except RoomError:
            pass                  # the server checks claims first; a refused one leaves the room as it was
        return []
    if kind == "act":
        _, client, seat, token, action, step = command
        try:
            room.act(seat, token, action, step)
        except RoomError as exc:
            return [("refused", client, exc.code, exc.message)]
        return [("update", room.update())]
    return []


def open_room(spec: RoomSpec, data: Path | None, secret: bytes | None, emit, started: bool = True) -> Room:
    """The room a server runs: new (drawing from `secret`), or, with `secret` None, taken up from its
    journal in DATA/CODE; room.json and the secret are the server's to write. `started` False: in
    its lobby until the server's ("start", seats) command."""
    from tabletop.gamekit.commit import CommittedSeeds

    if secret is None:
        room = Room.restore(Path(data) / spec.code, emit=emit, own_journal=False)
        room.started = started
        return room
    return Room(spec, data, seeds=CommittedSeeds(secret), emit=emit, own_journal=False, started=started)


def run_room(conn, spec: dict, data: str | None, secret: bytes | None, started: bool = True) -> None:
    """A room's worker process: make the room (`open_room`: new, or with `secret` None restored),
    send its first update, then take the server's commands (`handle`) and the room's own steps
    (each followed by an update) until the game ends, the server says ("stop",) or goes (the pipe
    closes)."""
    room = None
    try:
        room = open_room(RoomSpec.from_dict(spec), None if data is None else Path(data), secret, conn.send, started)
        conn.send(("update", room.update()))
        while not room.over():
            # (a remote seat's action may end the game: then no more waiting for commands, the worker ends)
            while not room.over() and conn.poll(0 if room.busy() else None):
                command = conn.recv()
                if command[0] == "stop":
                    return
                for event in handle(room, command):
                    conn.send(event)
            if room.busy():
                room.advance()
                conn.send(("update", room.update()))
    except (EOFError, BrokenPipeError, KeyboardInterrupt):
        return                     # the server is gone: the journal holds the game so far
    except BaseException as exc:   # a defect: say so, and end the room
        try:
            conn.send(("failed", f"{type(exc).__name__}: {exc}"))
        except OSError:
            pass
    finally:
        if room is not None:
            room.close()
        conn.close()
