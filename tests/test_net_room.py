"""A room through the server's hub, in one process (tabletop/net/server.py's Hub with inline rooms:
no network, no worker processes): a whole King Kong game played through it, every connection's raw
frames scanned for what its seat may not know; every refused message answered on its connection
alone, changing nothing; 10,000 random and mutated messages after which the game is intact."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop.gamekit.state import ChanceOutcome
from tabletop.net import protocol as p
from tabletop.net.room import Room, RoomError, check_spec, token_hash
from tabletop.net.server import Hub
from tests.net_scan import Recorder, Secrets, scan

GAME = "king-kong"


def make_hub(tmp_path, **kw):
    notes: list[str] = []
    hub = Hub(tmp_path, inline=True, note=notes.append, **kw)
    return hub, notes


def create(hub, seats=("remote", "remote", "remote"), seed=5, outcomes="measured"):
    host = Recorder(hub)
    [created] = host.send(p.Create(GAME, tuple(seats), seed, outcomes))
    assert created["type"] == "created", created
    return created["room"], hub.rooms[created["room"]]


def room_of(handle) -> Room:
    return handle.backend.room


def seated(hub, code, n=3):
    players = []
    for _ in range(n):
        r = Recorder(hub)
        got = r.send(p.Join(code))
        assert got[0]["type"] == "joined", got
        players.append(r)
    return players


def play_one(handle, players, rng) -> None:
    """The seat to act plays a random one of its legal actions."""
    seat = handle.to_act
    view = players[seat].last_view()
    assert view["seat"] == handle.colours[seat] and view["step"] == handle.step and view["legal"]
    action = view["legal"][int(rng.integers(len(view["legal"])))]
    got = players[seat].send(p.Act(players[seat].token, view["step"], tuple(action)))
    assert not [m for m in got if m["type"] == "error"], got


def test_a_game_played_through_the_hub_shows_each_connection_only_what_its_seat_may_know(tmp_path):
    hub, notes = make_hub(tmp_path)
    code, handle = create(hub)
    players = seated(hub, code)
    spectator = Recorder(hub)
    assert spectator.send(p.Join(code, spectate=True))[0]["seat"] is None
    rng = np.random.default_rng(3)
    while not handle.over:
        play_one(handle, players, rng)
    room = room_of(handle)
    assert room.over()
    tokens = {s: r.token for s, r in enumerate(players)}
    config = room.definition.replay_config(list(room.spec.seats), room.outcomes, room.spec.options)
    secrets = Secrets(room.definition, config, list(room.state.history))
    assert secrets.private and secrets.shuffles
    for seat, r in enumerate(players):
        assert scan(secrets, r.frames, seat, tokens) > 10
    assert scan(secrets, spectator.frames, None, tokens) > 10
    # every view of the game reached every connection, each seat's log its own, the result for all
    last = [r.last_view() for r in (*players, spectator)]
    assert all(v["view"]["over"] and v["view"]["result"] == room.match.result for v in last)
    assert not [n for n in notes if "internal" in n]
    # every chance event checkable: its commitment before its outcome, its reveal hashing to it (the
    # shuffles' only once the game is over, with no outcome), the same to every connection
    check_proofs(room, spectator.frames)
    assert all([f for f in r.frames if '"commit"' in f or '"reveal"' in f] ==
               [f for f in spectator.frames if '"commit"' in f or '"reveal"' in f] for r in players)
    # the journal: the replay holds the game, room.json the seats' token hashes and no token
    import tabletop

    replay = tabletop.open_replay(tmp_path / code / "game.ttr")
    assert replay.lines == room.match.lines and replay.history == list(room.state.history)
    meta = json.loads((tmp_path / code / "room.json").read_text())
    assert meta["tokens"] == {room.definition.colours[s]: token_hash(t) for s, t in tokens.items()}
    assert not any(t in (tmp_path / code / "room.json").read_text() for t in tokens.values())


def check_proofs(room, frames: list[str]) -> None:
    """In `frames` (a connection's, in order): chance event k's commitment comes before any view of
    its outcome, its reveal hashes to it; a hidden event's reveal (the shuffle) comes after the last
    view of the game before its end and says no outcome; every chance event of the game is covered."""
    from tabletop.gamekit.commit import check_reveal
    from tabletop.gamekit.state import ChanceOutcome

    messages = [json.loads(f) for f in frames]
    outcomes = [a.label for a in room.state.history if isinstance(a, ChanceOutcome)]
    commits = {m["chance"]: (i, m) for i, m in enumerate(messages) if m["type"] == "commit"}
    reveals = {m["chance"]: (i, m) for i, m in enumerate(messages) if m["type"] == "reveal"}
    assert sorted(commits) == sorted(reveals) == list(range(len(outcomes)))
    step_of = [i for i, m in enumerate(messages) if m["type"] == "view"]
    for k, (i, commit) in commits.items():
        j, reveal = reveals[k]
        assert i < j and check_reveal(commit["commitment"], {"seed": reveal["seed"], "salt": reveal["salt"]})
        assert room.seeds.commitment(k) == commit["commitment"]
        if reveal["event"] in room.definition.private_chance:
            assert reveal["outcome"] is None and j > step_of[-2]      # at the end only
        else:
            assert reveal["outcome"] == outcomes[k]


@pytest.fixture
def table(tmp_path):
    """A room of three remote seats at a decision of a seat's, with its players and a spectator."""
    hub, notes = make_hub(tmp_path)
    code, handle = create(hub)
    players = seated(hub, code)
    spectator = Recorder(hub)
    spectator.send(p.Join(code, spectate=True))
    rng = np.random.default_rng(1)
    for _ in range(5):
        play_one(handle, players, rng)
    return hub, handle, players, spectator, notes


def refused_alone(hub, handle, sender, message, code, others):
    """`message` from `sender` is refused with `code`, on its connection alone, and changes nothing."""
    room = room_of(handle)
    before = (room.step, list(room.state.history), list(room.state.events), handle.step)
    seen = [len(o.frames) for o in others]
    got = sender.send(message)
    assert [m["type"] for m in got] == ["error"] and got[0]["code"] == code, got
    assert [len(o.frames) for o in others] == seen
    assert (room.step, list(room.state.history), list(room.state.events), handle.step) == before
    return got[0]


def test_another_seats_token_an_out_of_turn_act_and_other_bad_acts_are_refused_and_change_nothing(table):
    hub, handle, players, spectator, notes = table
    seat = handle.to_act
    mover, other = players[seat], players[(seat + 1) % 3]
    everyone = [*players, spectator]
    view = mover.last_view()
    action = tuple(view["legal"][0])
    quiet = [c for c in everyone if c is not other]
    # another seat's connection acting with the mover's token, or with its own out of turn
    error = refused_alone(hub, handle, other, p.Act(mover.token, view["step"], action), "bad-token", quiet)
    assert error["about"] == "act" and handle.colours[(seat + 1) % 3] in error["message"]
    refused_alone(hub, handle, other, p.Act(other.token, view["step"], action), "not-your-turn", quiet)
    quiet = [c for c in everyone if c is not mover]
    refused_alone(hub, handle, mover, p.Act(other.token, view["step"], action), "bad-token", quiet)
    refused_alone(hub, handle, mover, p.Act("x" * 32, view["step"], action), "bad-token", quiet)
    refused_alone(hub, handle, mover, p.Act(mover.token, view["step"] - 1, action), "stale", quiet)
    refused_alone(hub, handle, mover, p.Act(mover.token, view["step"], ("outcome", "6")), "illegal", quiet)
    refused_alone(hub, handle, mover, p.Act(mover.token, view["step"], ("move", "nowhere")), "illegal", quiet)
    refused_alone(hub, handle, spectator, p.Act(mover.token, view["step"], action), "spectator", players)
    stranger = Recorder(hub)
    refused_alone(hub, handle, stranger, p.Act(mover.token, view["step"], action), "not-joined", everyone)
    # and the mover's own legal act still goes through
    got = mover.send(p.Act(mover.token, view["step"], action))
    assert got and all(m["type"] == "view" for m in got) and handle.step > view["step"]
    assert not [n for n in notes if "internal" in n]


def test_the_room_itself_refuses_what_the_hub_would_not_forward(tmp_path):
    """Room.act checks the token, the turn, the step and the action itself (defence in depth)."""
    spec = check_spec("code", GAME, ("remote", "remote", "remote"), 4, "measured", {})
    room = Room(spec, tmp_path)
    try:
        tokens = {s: f"token-{s}" for s in range(3)}
        for s, t in tokens.items():
            room.claim(s, token_hash(t))
        while room.busy():
            room.advance()
        seat, step, history = room.to_act(), room.step, list(room.state.history)
        legal = room.update()["legal"]
        other = (seat + 1) % 3
        for args, code in [((other, tokens[seat], legal[0], step), "bad-token"),
                           ((seat, tokens[other], legal[0], step), "bad-token"),
                           ((other, tokens[other], legal[0], step), "not-your-turn"),
                           ((seat, tokens[seat], legal[0], step + 1), "stale"),
                           ((seat, tokens[seat], ["outcome", "3"], step), "illegal"),
                           ((seat, tokens[seat], ["no-such-tag"], step), "illegal"),
                           ((seat, tokens[seat], ["move", ["x"]], step), "illegal"),
                           ((seat, None, legal[0], step), "bad-token")]:
            with pytest.raises(RoomError) as caught:
                room.act(*args)
            assert caught.value.code == code
            assert room.step == step and list(room.state.history) == history
        with pytest.raises(RoomError):
            room.claim(seat, token_hash("thief"))
        room.act(seat, tokens[seat], legal[0], step)
        assert room.step == step + 1
    finally:
        room.close()


def test_joining_taking_a_seat_back_and_the_joins_that_are_refused(tmp_path):
    hub, notes = make_hub(tmp_path)
    code, handle = create(hub, seats=("remote", "remote", "ai"))
    assert Recorder(hub).send(p.Join("no-such-room"))[0]["code"] == "unknown-room"
    red = Recorder(hub)
    joined, view = red.send(p.Join(code, seat="red", name="Ann"))
    # the lobby: nothing dealt or thrown before blue's player is there
    assert joined["seat"] == "red" and not joined["started"] and view["log_from"] == 0 and not view["view"]["hand"]
    assert view["step"] == 0 and view["legal"] is None and "waiting for blue" in red.notices[-1]["text"]
    assert Recorder(hub).send(p.Join(code, seat="red"))[0]["code"] == "room-full"
    assert Recorder(hub).send(p.Join(code, seat="green"))[0]["code"] == "room-full"
    assert Recorder(hub).send(p.Join(code, seat="purple"))[0]["code"] == "room-full"
    blue = Recorder(hub)
    assert blue.send(p.Join(code))[0]["seat"] == "blue"
    notices = [json.loads(f)["text"] for f in red.frames if '"type":"notice"' in f]
    assert handle.started and red.last_view()["view"]["hand"] and "the game starts" in notices[-1]
    assert Recorder(hub).send(p.Join(code))[0]["code"] == "room-full"
    assert Recorder(hub).send(p.Join(code, token="guess"))[0]["code"] == "bad-token"
    assert Recorder(hub).send(p.Join(code, seat="blue", token=red.token))[0]["code"] == "bad-token"
    assert Recorder(hub).send({"v": 2, "type": "join", "room": code, "spectate": True, "seat": "red"})[0]["code"] \
        == "bad-message"
    # red comes back on a new connection with its token: its seat, the whole view again
    again = Recorder(hub)
    joined, view = again.send(p.Join(code, token=red.token))
    assert joined["seat"] == "red" and joined["token"] == red.token
    assert {k: v for k, v in view["view"].items() if k != "rules"} == \
        {**red.last_view()["view"], "log": view["view"]["log"]} and view["log_from"] == 0
    created = [m["seats"] for m in map(json.loads, again.frames) if m["type"] == "joined"][0]
    assert [s["taken"] for s in created] == [True, True, False] and created[0]["name"] == "Ann"


@pytest.mark.parametrize("message,words", [
    (p.Create("no-such-game", ("remote",)), "unknown game"),
    (p.Create(GAME, ("remote", "human", "ai")), "unknown seat kind 'human'"),
    (p.Create(GAME, ("remote",)), "needs 2-6 seats"),
    (p.Create(GAME, ("remote", "remote"), outcomes="table:/etc/passwd"), "--outcomes"),
    (p.Create(GAME, ("remote", "remote"), options={"games_to_win": 3}), "has no such option"),
])
def test_a_room_that_cannot_be_made_is_refused(tmp_path, message, words):
    hub, _ = make_hub(tmp_path)
    [error] = Recorder(hub).send(message)
    assert error["code"] == "bad-request" and words in error["message"] and not hub.rooms


# -- fuzzing ---------------------------------------------------------------------------------------
def random_value(rng, depth=0):
    kind = int(rng.integers(9 if depth < 3 else 6))
    if kind == 0:
        return None
    if kind == 1:
        return bool(rng.integers(2))
    if kind == 2:
        return int(rng.choice([0, 1, -1, 2**31, 2**63, -2**64, int(rng.integers(-1000, 1000))]))
    if kind == 3:
        return float(rng.normal() * 10 ** int(rng.integers(-3, 30)))
    if kind in (4, 5):
        return "".join(chr(int(c)) for c in rng.integers(32, 0x2FF, int(rng.integers(0, 12))))
    if kind in (6, 7):
        return [random_value(rng, depth + 1) for _ in range(int(rng.integers(0, 5)))]
    return {str(random_value(rng, 3)): random_value(rng, depth + 1) for _ in range(int(rng.integers(0, 5)))}


FIELDS = ["v", "type", "room", "seat", "name", "token", "spectate", "step", "action", "game", "seats", "seed",
          "outcomes", "options"]


def mutate(rng, message: dict, tokens: list[str], tags: list[str]) -> dict:
    message = dict(message)
    what = int(rng.integers(9))
    key = FIELDS[int(rng.integers(len(FIELDS)))]
    if what == 0 and message:
        message.pop(list(message)[int(rng.integers(len(message)))])
    elif what == 1:
        message[key] = random_value(rng)
    elif what == 2:
        message["type"] = ["create", "join", "act", "view", "error", "created", "ACT", ""][int(rng.integers(8))]
    elif what == 3:
        message["v"] = [0, 2, "1", 1.0, True, None][int(rng.integers(6))]
    elif what == 4:
        message["token"] = [*tokens, "", "x" * 200, tokens[0][:-1] if tokens else "t"][int(rng.integers(len(tokens) + 3))]
    elif what == 5:
        message["step"] = int(message.get("step", 0) if isinstance(message.get("step"), int) else 0) \
            + int(rng.integers(-3, 4))
    elif what == 6:
        tag = tags[int(rng.integers(len(tags)))]
        message["action"] = [tag, *[random_value(rng, 2) for _ in range(int(rng.integers(0, 3)))]]
    elif what == 7:
        message["seats"] = [["remote", "ai", "random", "human", ""][int(rng.integers(5))]
                            for _ in range(int(rng.integers(0, 9)))]
    else:
        message["room"] = ["", "x", "x" * 100, message.get("room", "")][int(rng.integers(4))]
    return message


def garble(rng, frame: str):
    what = int(rng.integers(6))
    if what == 0:
        return frame[:int(rng.integers(len(frame) + 1))]
    if what == 1:
        i = int(rng.integers(len(frame) + 1))
        return frame[:i] + chr(int(rng.integers(0, 0x3000))) + frame[i:]
    if what == 2:
        return frame.encode()
    if what == 3:
        return frame * int(rng.integers(2, 400))
    if what == 4:
        return "[" * int(rng.integers(1, 20000)) + "]" * int(rng.integers(0, 20000))
    return frame.replace('"', "'")


@pytest.mark.slow
def test_ten_thousand_random_and_mutated_messages_leave_the_room_intact(tmp_path):
    hub, notes = make_hub(tmp_path, max_rooms=3)
    code, handle = create(hub, seed=9)
    players = seated(hub, code)
    spectator = Recorder(hub)
    spectator.send(p.Join(code, spectate=True))
    strangers = [Recorder(hub) for _ in range(3)]
    tokens = [r.token for r in players]
    room = room_of(handle)
    tags = list(room.definition.actions())
    rng = np.random.default_rng(2026)
    senders = [*players, spectator, *strangers]
    refused = applied = 0
    for i in range(10_000):
        sender = senders[int(rng.integers(len(senders)))]
        view = sender.last_view() or {"step": 0, "legal": None}
        legal = view.get("legal") or [["roll"]]
        templates = [
            {"v": 2, "type": "act", "token": sender.token or tokens[0], "step": view["step"],
             "action": legal[int(rng.integers(len(legal)))]},
            {"v": 2, "type": "join", "room": code, "token": tokens[int(rng.integers(3))]},
            {"v": 2, "type": "join", "room": code, "spectate": True},
            {"v": 2, "type": "join", "room": code, "seat": ["red", "blue", "green", "pink"][int(rng.integers(4))]},
            {"v": 2, "type": "create", "game": GAME, "seats": ["remote", "remote"], "seed": 1, "outcomes": "measured"},
        ]
        roll = rng.random()
        if roll < 0.1:
            frame = json.dumps(random_value(rng))
        elif roll < 0.2:
            frame = garble(rng, json.dumps(templates[int(rng.integers(len(templates)))]))
        else:
            message = templates[0] if roll < 0.5 else templates[int(rng.integers(len(templates)))]
            mutations = 0 if rng.random() < 0.02 else int(rng.integers(1, 4))
            for _ in range(mutations):
                message = mutate(rng, message, tokens, tags)
            frame = json.dumps(message)
        before = (room.step, len(room.state.history), len(room.state.events))
        others = [(o, len(o.frames)) for o in senders if o is not sender]
        got = sender.send(frame)
        for m in got:
            p.parse(json.dumps(m), "server")
        if any(m["type"] == "error" for m in got):
            refused += 1
            assert len(got) == 1
            assert (room.step, len(room.state.history), len(room.state.events)) == before
            assert all(len(o.frames) == n for o, n in others)
        elif room.step != before[0]:
            applied += 1
        if sender in players and sender.conn.viewer != players.index(sender):
            sender.send(p.Join(code, token=tokens[players.index(sender)]))     # a fuzzed join moved it: back
    assert refused > 8000 and applied > 0 and not [n for n in notes if "internal" in n]
    # the game is intact: its history re-drives to the same log, and it plays on to its end
    config = room.definition.replay_config(list(room.spec.seats), room.outcomes, room.spec.options)
    again = room.definition.make_game(config).replay(list(room.state.history))
    assert list(again.events) == list(room.state.events)
    for s, r in enumerate(players):
        r.send(p.Join(code, token=tokens[s]))
    while not handle.over:
        play_one(handle, players, rng)
    import tabletop

    replay = tabletop.open_replay(tmp_path / code / "game.ttr")
    assert replay.lines == room.match.lines and replay.complete
    assert sum(isinstance(a, ChanceOutcome) for a in replay.history) > 0


def test_an_action_in_flight_when_its_connection_drops_is_answered_on_the_seats_new_connection(table):
    """A seat acts, its connection drops before the room answers, it comes back: an act meanwhile is
    `busy`, and the room's answer reaches the new connection (an update, or a refusal to act upon)."""
    hub, handle, players, spectator, notes = table
    seat = handle.to_act
    mover = players[seat]
    view = mover.last_view()
    held = []
    send, handle.backend.send = handle.backend.send, held.append     # the room is slow to answer
    mover.send(p.Act(mover.token, view["step"], tuple(view["legal"][0])))
    assert handle.in_flight == mover.conn.id and len(held) == 1
    hub.leave(mover.conn)
    back = Recorder(hub)
    joined, again = back.send(p.Join(handle.code, token=mover.token))
    assert again["legal"] == view["legal"]
    [busy] = back.send(p.Act(mover.token, view["step"], tuple(view["legal"][0])))
    assert busy["code"] == "busy"
    handle.receive(("refused", mover.conn.id, "illegal", "the room would not have it"))
    assert json.loads(back.frames[-1])["code"] == "illegal" and handle.in_flight is None
    handle.backend.send = send
    got = back.send(p.Act(mover.token, view["step"], tuple(view["legal"][0])))
    assert got and got[0]["type"] == "view" and handle.step > view["step"]


def test_a_rooms_match_takes_a_seeds_object_and_observers(tmp_path):
    """room_match is where committed seeds and a commitment observer plug in: the room's chance is
    drawn from the seeds object given, and its observers are told of each chance event before it
    is drawn and of every action."""
    from tabletop.gamekit.commit import CommittedSeeds
    from tabletop.gamekit.match import MatchObserver

    class Told(MatchObserver):
        def __init__(self):
            self.ahead, self.actions = [], 0

        def chance_ahead(self, state, event, k):
            self.ahead.append((event, k))

        def record(self, state, action, event, lines):
            self.actions += 1

    def played(secret: bytes):
        told = Told()
        spec = check_spec("code", GAME, ("ai", "random", "ai"), 4, "measured", {})
        room = Room(spec, None, observers=[told], seeds=CommittedSeeds(secret))
        try:
            while room.busy():
                room.advance()
            return told, list(room.state.history)
        finally:
            room.close()

    told, history = played(b"s" * 32)
    assert told.actions == len(history) and [k for _, k in told.ahead] == list(range(len(told.ahead)))
    assert told.ahead[0] == ("shuffle", 0)
    assert played(b"s" * 32)[1] == history and played(b"t" * 32)[1] != history


class Clock:
    """A hub's timers by hand: `fire()` runs every one due (not cancelled), as if its wait were over."""

    class Timer:
        def __init__(self, delay, callback):
            self.delay, self.callback, self.cancelled = delay, callback, False

        def cancel(self):
            self.cancelled = True

    def __init__(self):
        self.timers: list = []

    def __call__(self, delay, callback):
        timer = self.Timer(delay, callback)
        self.timers.append(timer)
        return timer

    def waiting(self) -> list:
        return [t for t in self.timers if not t.cancelled]

    def fire(self) -> None:
        due, self.timers = self.waiting(), []
        for timer in due:
            timer.callback()


def dropping_room(tmp_path, on_drop: str):
    clock = Clock()
    hub, notes = make_hub(tmp_path, schedule=clock)
    host = Recorder(hub)
    [created] = host.send(p.Create(GAME, ("remote", "remote", "remote"), 5, "measured", {}, on_drop, 45))
    handle = hub.rooms[created["room"]]
    players = seated(hub, created["room"])
    return hub, handle, players, clock, notes


def play_seated(handle, players, rng, until) -> None:
    while not handle.over and not until():
        play_one(handle, players, rng)


def test_a_dropped_seat_is_waited_for_then_played_by_the_ai_until_its_client_comes_back(tmp_path):
    hub, handle, players, clock, notes = dropping_room(tmp_path, "ai")
    rng = np.random.default_rng(1)
    play_seated(handle, players, rng, lambda: handle.step > 10 and handle.to_act == 0)
    red = players[0]
    heard = len(players[1].frames)
    hub.leave(red.conn)                                       # red's only connection drops on its turn
    [wait] = clock.waiting()
    assert wait.delay == 45 and handle.kinds[0] == "remote"
    step = handle.step
    view = players[1].last_view()
    [refused] = players[1].send(p.Act(players[1].token, view["step"], tuple((view["legal"] or [["x"]])[0])))
    assert refused["code"] in ("not-your-turn", "illegal") and handle.step == step and handle.to_act == 0
    clock.fire()                         # the wait is over: the AI plays red, so the room moves on at once
    assert handle.kinds[0] == "ai" and handle.step > step and handle.to_act != 0
    texts = [json.loads(f)["text"] for f in players[1].frames[heard:] if '"notice"' in f]
    assert texts[0].startswith("red dropped: waiting 45 s") and "the AI plays it" in texts[1]
    assert json.loads([f for f in players[1].frames if '"notice"' in f][-1])["seats"][0]["played_by"] == "ai"
    assert (tmp_path / handle.code / "seats.jsonl").read_text() == \
        json.dumps({"step": step, "seat": "red", "kind": "ai"}) + "\n"
    # the others play on (the AI takes red's turns as they come: red is never to act)
    for _ in range(12):
        if handle.over:
            break
        play_one(handle, {1: players[1], 2: players[2]}, rng)
    # red comes back with its token: its seat is its client's again
    back = Recorder(hub)
    got = back.send(p.Join(handle.code, token=red.token))
    assert got[0]["type"] == "joined" and got[0]["seat"] == "red"
    assert handle.kinds[0] == "remote" and "red is back: plays its seat again" in notes[-1]
    players[0] = back
    play_seated(handle, players, rng, lambda: False)
    assert handle.over and not [t for t in clock.waiting() if t.delay == 45]     # no seat waited for any more


def test_a_room_paused_for_a_dropped_seat_refuses_every_act_until_it_comes_back(tmp_path):
    hub, handle, players, clock, notes = dropping_room(tmp_path, "pause")
    rng = np.random.default_rng(2)
    play_seated(handle, players, rng, lambda: handle.step > 5 and handle.to_act == 1)
    hub.leave(players[2].conn)                                # green drops while blue is to act
    clock.fire()
    assert handle.paused_for == {2} and "the room is paused" in notes[-1]
    view = players[1].last_view()
    step = handle.step
    [refused] = players[1].send(p.Act(players[1].token, view["step"], tuple(view["legal"][0])))
    assert refused["code"] == "paused" and handle.step == step
    # a drop that comes back in time is only a notice: no wait left, nothing handed over
    hub.leave(players[0].conn)
    back0 = Recorder(hub)
    back0.send(p.Join(handle.code, token=players[0].token))
    players[0] = back0
    assert not [t for t in clock.waiting()] and handle.kinds[0] == "remote" and "red is back" in notes[-1]
    back2 = Recorder(hub)
    back2.send(p.Join(handle.code, token=players[2].token))
    players[2] = back2
    assert not handle.paused_for and "the room goes on" in notes[-1]
    play_seated(handle, players, rng, lambda: False)
    assert handle.over


@pytest.mark.slow
def test_a_rooms_worker_ends_when_a_remote_seats_action_ends_the_game(tmp_path):
    """run_room: the game ended by a remote seat's action (the worker waiting on its pipe for the
    next command) ends the worker, so no finished room holds a process."""
    import multiprocessing

    from tabletop.net.room import run_room

    context = multiprocessing.get_context("spawn")
    conn, child = context.Pipe()
    spec = check_spec("worker-room", GAME, ("remote", "remote", "remote"), 2, "measured", {})
    secret = bytes(range(32))
    process = context.Process(target=run_room, args=(child, spec.to_dict(), str(tmp_path), secret), daemon=True)
    process.start()
    child.close()
    tokens = [f"token-{seat}-xxxxxxxxxxxxxxxx" for seat in range(3)]
    for seat in range(3):
        conn.send(("claim", seat, token_hash(tokens[seat]), None))
    rng = np.random.default_rng(0)
    update = None
    while True:
        event = conn.recv()
        if event[0] != "update":
            continue
        update = event[1]
        if update["over"]:
            break
        if update["to_act"] is not None:
            seat, legal = update["to_act"], update["legal"]
            conn.send(("act", 1, seat, tokens[seat], legal[int(rng.integers(len(legal)))], update["step"]))
    process.join(30)
    assert process.exitcode == 0 and update["over"]
    assert tabletop_replay_complete(tmp_path / "worker-room" / "game.ttr")


def tabletop_replay_complete(path) -> bool:
    from tabletop.sim.record import ReplayFile

    return ReplayFile.open(path).end is not None


def test_a_finished_room_is_let_go_and_an_idle_one_unloaded_then_taken_up_on_a_join(tmp_path):
    """A finished room is kept a while (its result for those who come back), then let go; a room
    nobody is connected to is unloaded after a while (its journal kept) and taken up again, at
    the same step, when a seat comes back with its token."""
    from tabletop.net import server

    clock = Clock()
    hub, notes = make_hub(tmp_path, schedule=clock)
    host = Recorder(hub)
    [created] = host.send(p.Create(GAME, ("remote", "remote", "remote"), 5, "measured", {}))
    code = created["room"]
    handle = hub.rooms[code]
    players = seated(hub, code)
    rng = np.random.default_rng(4)
    play_seated(handle, players, rng, lambda: handle.step > 20)
    step, tokens = handle.step, [r.token for r in players]
    for r in players:
        hub.leave(r.conn)
    idle = [t for t in clock.waiting() if t.delay == server.IDLE_UNLOAD_S]
    assert idle
    for t in clock.waiting():
        if t.delay != server.IDLE_UNLOAD_S:
            t.cancel()                                   # (the seats' drop waits: not this test's)
    clock.fire()
    assert code not in hub.rooms and "nobody connected" in notes[-1]
    back = Recorder(hub)
    got = back.send(p.Join(code, token=tokens[0]))
    assert got[0]["type"] == "joined" and code in hub.rooms and f"room {code}: restored" in "\n".join(notes)
    handle = hub.rooms[code]
    assert handle.step <= step and handle.tokens
    players = [back] + [Recorder(hub) for _ in range(2)]
    for seat in (1, 2):
        players[seat].send(p.Join(code, token=tokens[seat]))
    play_seated(handle, players, rng, lambda: False)
    assert handle.over
    keep = [t for t in clock.waiting() if t.delay == server.FINISHED_KEEP_S]
    assert keep
    clock.fire()
    assert code not in hub.rooms and "finished" in notes[-1]
