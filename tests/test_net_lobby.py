"""Rooms people can live in (tabletop/net/server.py through the hub, inline: no network, no worker
processes): the lobby (nothing thrown or asked before every remote seat is taken, or the host
starts it), names shown to all, chat (cleaned, limited, journaled beside the room and never in
its replay, 10,000 fuzzed messages leaving the server and every other room as they were) and the
listing of open rooms."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop.net import protocol as p
from tabletop.net.server import CHAT_FILE, CHAT_PER_CONNECTION, CHAT_WINDOW_S, Hub
from tests.net_scan import Recorder


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def make_hub(tmp_path, **kw):
    notes: list[str] = []
    return Hub(tmp_path, inline=True, note=notes.append, **kw), notes


def create(hub, game="king-kong", seats=("remote", "remote", "ai"), seed=5, outcomes="measured", **kw):
    host = Recorder(hub)
    [created] = host.send(p.Create(game, tuple(seats), seed, outcomes, **kw))
    assert created["type"] == "created", created
    return created, hub.rooms[created["room"]]


def messages(recorder, kind: str) -> list[dict]:
    return [m for m in map(json.loads, recorder.frames) if m["type"] == kind]


def test_a_room_with_two_remote_seats_does_not_throw_or_move_before_both_are_taken(tmp_path):
    hub, _ = make_hub(tmp_path)
    created, handle = create(hub, seats=("remote", "ai", "remote"))
    assert created["host_key"] and not handle.started
    red = Recorder(hub)
    joined, view = red.send(p.Join(created["room"], name="Ann"))
    assert joined["seat"] == "red" and joined["started"] is False
    # nothing thrown (no chance event committed), nothing asked, nothing in the journal but the start
    assert handle.step == 0 and handle.to_act is None and view["legal"] is None and not red.proofs
    assert "waiting for green" in red.notices[-1]["text"]
    [refused] = red.send(p.Act(red.token, 0, ("roll",)))
    assert refused["code"] == "not-started" and handle.step == 0
    spectator = Recorder(hub)
    spectator.send(p.Join(created["room"], spectate=True))
    assert handle.step == 0 and not spectator.proofs
    # red leaves and comes back: still the lobby, the seat kept for it
    hub.leave(red.conn)
    assert handle.step == 0 and not handle.timers and 0 in handle.tokens
    again = Recorder(hub)
    assert again.send(p.Join(created["room"], token=red.token))[0]["seat"] == "red"
    assert handle.step == 0 and not again.proofs
    # the second remote seat taken: the game starts, the deal and the first rolls are thrown
    green = Recorder(hub)
    assert green.send(p.Join(created["room"], name="Bo"))[0]["seat"] == "green"
    assert handle.started and handle.step > 0 and green.proofs
    assert "the game starts" in messages(again, "notice")[-1]["text"]
    assert json.loads((tmp_path / handle.code / "room.json").read_text())["started"] is True
    # each seat's player's name is shown to all
    names = {s["colour"]: s["name"] for s in messages(spectator, "notice")[-1]["seats"]}
    assert names == {"red": "Ann", "blue": None, "green": "Bo"}


def test_the_host_starts_the_room_early_and_a_late_player_takes_the_ais_seat(tmp_path):
    hub, _ = make_hub(tmp_path)
    created, handle = create(hub, seats=("remote", "remote", "remote"))
    red = Recorder(hub)
    red.send(p.Join(created["room"]))
    assert Recorder(hub).send(p.Start(created["room"], "not the key"))[0]["code"] == "not-host"
    assert Recorder(hub).send(p.Start("no-such-room", created["host_key"]))[0]["code"] == "unknown-room"
    assert not handle.started and handle.step == 0
    host = Recorder(hub)
    host.send(p.Start(created["room"], created["host_key"]))
    assert handle.started and handle.kinds == ["remote", "ai", "ai"] and handle.step > 0
    assert "the AI plays blue, green" in messages(red, "notice")[-1]["text"]
    seats = messages(red, "notice")[-1]["seats"]
    assert [s["kind"] for s in seats] == ["remote", "ai", "ai"]
    # blue's player comes late: the seat is its own from now on
    blue = Recorder(hub)
    assert blue.send(p.Join(created["room"], seat="blue", name="Cy"))[0]["seat"] == "blue"
    assert handle.kinds[1] == "remote" and "in place of the AI" in messages(red, "notice")[-1]["text"]
    changes = [json.loads(line) for line in (tmp_path / handle.code / "seats.jsonl").read_text().splitlines()]
    assert [(c["seat"], c["kind"]) for c in changes] == [("blue", "ai"), ("green", "ai"), ("blue", "remote")]
    # the game goes on to its end with the two players and the AI
    rng = np.random.default_rng(2)
    players = {0: red, 1: blue}
    for _ in range(3000):
        if handle.over:
            break
        seat = handle.to_act
        view = players[seat].last_view()
        action = view["legal"][int(rng.integers(len(view["legal"])))]
        got = players[seat].send(p.Act(players[seat].token, view["step"], tuple(action)))
        assert not [m for m in got if m["type"] == "error"], got
    assert handle.over


def test_a_room_with_no_remote_seat_starts_at_once(tmp_path):
    hub, _ = make_hub(tmp_path)
    _, handle = create(hub, game="knossos", seats=("ai", "random"), options={"games_to_win": 1})
    assert handle.started and handle.over


def test_chat_reaches_everyone_marked_and_cleaned_and_is_journaled_beside_the_room_not_in_its_replay(tmp_path):
    clock = Clock()
    hub, _ = make_hub(tmp_path, clock=clock)
    created, handle = create(hub)
    code = created["room"]
    red, blue, watcher = Recorder(hub), Recorder(hub), Recorder(hub)
    red.send(p.Join(code, name="Ann\x07\u202e"))
    red.send(p.Say("hello\x00 \t  blue\u200b!\n"))          # in the lobby too
    blue.send(p.Join(code, name="Bo"))
    watcher.send(p.Join(code, spectate=True, name="Dee"))
    watcher.send(p.Say("go red"))
    [chat] = [m for m in messages(red, "chat") if m["text"] == "hello blue!"]
    assert chat["seat"] == "red" and chat["name"] == "Ann" and not chat["spectator"]
    spoken = messages(blue, "chat")
    assert [m["text"] for m in spoken] == ["hello blue!", "go red"]   # blue got the lobby's chat on joining
    assert spoken[1]["seat"] is None and spoken[1]["spectator"] and spoken[1]["name"] == "Dee"
    for text, why in (("\x00\x01 \t", "empty"), ("x" * (p.CHAT_MOST + 1), "at most")):
        [refused] = red.send(p.Say(text))
        assert refused["code"] == "chat-limit" and why in refused["message"]
    for _ in range(CHAT_PER_CONNECTION - 1):
        assert not red.send(p.Say("again"))[1:]
    [refused] = red.send(p.Say("one too many"))
    assert refused["code"] == "chat-limit"
    clock.t += CHAT_WINDOW_S + 1
    assert red.send(p.Say("later"))[0]["type"] == "chat"
    journal = [json.loads(line) for line in (tmp_path / code / CHAT_FILE).read_text().splitlines()]
    assert [j["text"] for j in journal][:2] == ["hello blue!", "go red"] and journal[-1]["text"] == "later"
    replay = (tmp_path / code / "game.ttr").read_bytes()
    assert b"hello blue" not in replay and b"go red" not in replay
    assert Recorder(hub).send(p.Say("not in a room"))[0]["code"] == "not-joined"


def fuzzed_text(rng) -> str:
    kind = int(rng.integers(6))
    if kind == 0:                                                 # long
        return "".join(chr(int(c)) for c in rng.integers(32, 0x3000, int(rng.integers(200, p.CHAT_RAW_MOST))))
    if kind == 1:                                                 # control and format characters
        return "".join(chr(int(c)) for c in rng.choice([0, 7, 8, 9, 10, 13, 27, 127, 0x200B, 0x202E, 0xFEFF,
                                                           0x85, 0x2028], int(rng.integers(1, 40))))
    if kind == 2:                                                 # anything, surrogates included
        return "".join(chr(int(c)) for c in rng.integers(0, 0x110000, int(rng.integers(1, 60))))
    if kind == 3:                                                 # markup and escapes
        return str(rng.choice(["<script>alert(1)</script>", "\x1b[2J\x1b[31mred", "%s%n{0}", "\\u0000",
                               "'); DROP TABLE rooms;--", "\u0000"]))
    return "".join(chr(int(c)) for c in rng.integers(32, 127, int(rng.integers(1, 80))))


def test_ten_thousand_fuzzed_chat_messages_leave_the_server_up_other_rooms_untouched_and_no_replay_holding_one(
        tmp_path):
    clock = Clock()
    hub, notes = make_hub(tmp_path, clock=clock)
    created, handle = create(hub)
    other_created, other = create(hub, game="knossos", seats=("remote", "remote"), options={"games_to_win": 1})
    a, b, w = Recorder(hub), Recorder(hub), Recorder(hub)
    a.send(p.Join(created["room"]))
    b.send(p.Join(created["room"]))
    w.send(p.Join(created["room"], spectate=True))
    x, y = Recorder(hub), Recorder(hub)
    x.send(p.Join(other_created["room"]))
    y.send(p.Join(other_created["room"]))
    other_frames = (len(x.frames), len(y.frames))
    other_step = other.step
    rng = np.random.default_rng(36)
    codes: dict[str, int] = {}
    for i in range(10_000):
        sender = (a, b, w)[int(rng.integers(3))]
        text = fuzzed_text(rng)
        frame = p.encode(p.Say(text)) if rng.random() < 0.8 else json.dumps(
            {"v": p.VERSION, "type": "say", "text": [text, 1, None, {"t": text}][int(rng.integers(4))]})
        if rng.random() < 0.05:
            frame = frame.encode("utf-8", "surrogatepass")        # binary
        got = sender.send(frame)
        for m in got:
            codes[m.get("code", m["type"])] = codes.get(m.get("code", m["type"]), 0) + 1
        clock.t += float(rng.exponential(0.5))                       # floods and pauses
    assert codes.get("chat", 0) > 1000 and codes.get("chat-limit", 0) > 1000 and codes.get("bad-message", 0) > 100
    assert not [n for n in notes if "internal" in n] and "internal" not in codes
    # every chat message anyone got is clean and short
    for m in messages(w, "chat"):
        assert m["text"] == p.clean_text(m["text"], p.CHAT_MOST) and 0 < len(m["text"]) <= p.CHAT_MOST
    # the other room heard nothing of it, and its game is as it was
    assert (len(x.frames), len(y.frames)) == other_frames and other.step == other_step
    # the fuzzed room's game goes on, its replay holds no chat
    view = a.last_view() if handle.to_act == 0 else b.last_view()
    seat = (a, b)[handle.to_act]
    assert not [m for m in seat.send(p.Act(seat.token, view["step"], tuple(view["legal"][0]))) if m["type"] == "error"]
    spoken = {m["text"] for m in messages(w, "chat") if len(m["text"]) >= 8}
    for folder in (tmp_path / created["room"], tmp_path / other_created["room"]):
        replay = (folder / "game.ttr").read_bytes()
        assert not [t for t in spoken if t.encode("utf-8", "surrogatepass") in replay]
    assert not (tmp_path / other_created["room"] / CHAT_FILE).exists()


def test_a_server_lists_its_open_rooms_only_when_it_allows_listing(tmp_path):
    hub, _ = make_hub(tmp_path)
    create(hub)
    assert Recorder(hub).send(p.List())[0]["code"] == "no-listing"
    listing, _ = make_hub(tmp_path / "listed", listing=True)
    created, _ = create(listing)
    Recorder(listing).send(p.Join(created["room"], name="Ann"))
    [rooms] = Recorder(listing).send(p.List())
    [room] = rooms["rooms"]
    assert room["code"] == created["room"] and room["started"] is False and room["game"] == "king-kong"
    assert [(s["colour"], s["taken"], s["name"]) for s in room["seats"]] == \
        [("red", True, "Ann"), ("blue", False, None), ("green", False, None)]


@pytest.mark.parametrize("started", [False, True])
def test_a_restarted_server_keeps_a_lobby_a_lobby_and_a_started_room_started(tmp_path, started):
    hub, _ = make_hub(tmp_path)
    created, handle = create(hub)
    red = Recorder(hub)
    red.send(p.Join(created["room"]))
    red.send(p.Say("see you"))
    if started:
        Recorder(hub).send(p.Start(created["room"], created["host_key"]))
    step = handle.step
    hub.close()
    again, _ = make_hub(tmp_path)
    assert again.restore() == 1
    restored = again.rooms[created["room"]]
    assert restored.started is started and restored.step == (step if started else 0)
    back = Recorder(again)
    assert back.send(p.Join(created["room"], token=red.token))[0]["started"] is started
    assert [m["text"] for m in messages(back, "chat")] == ["see you"]
