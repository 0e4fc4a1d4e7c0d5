"""What a client rebuilds of the game from its views (the definition's `seat_mirror` and
`mirror_state`): for every game, through the server's hub, each connection's mirror at every view
is the room's position as that seat may know it: the whole position where nothing is hidden, and in
King Kong the public position, the seat's own hand and, when it is to act, its legal actions, with
nothing of another seat's hand in any message."""
from __future__ import annotations

import numpy as np
import pytest

from tabletop.gamekit.record import encode_action
from tabletop.gamekit.registry import GAMES
from tabletop.net import protocol as p
from tabletop.net.server import Hub
from tests.net_scan import Recorder

# every registered game: with three seats where it seats them (King Kong's hands among three), and
# its shortest game (each whole-number option at its minimum: a one-game Knossos match)
SEATS = {name: min(3, GAMES[name].seats[1]) for name in GAMES}
OPTIONS = {name: {o.name: o.minimum for o in GAMES[name].options if o.minimum is not None} for name in GAMES}


def played(tmp_path, game: str, seed: int):
    """A room of `game` played to its end by random remote seats through an inline hub, watched by a
    spectator: (the room, each connection's recorder, seats first)."""
    hub = Hub(tmp_path, inline=True, note=lambda text: None)
    host = Recorder(hub)
    n = SEATS[game]
    [created] = host.send(p.Create(game, ("remote",) * n, seed, "measured", OPTIONS.get(game, {})))
    assert created["type"] == "created", created
    handle = hub.rooms[created["room"]]
    players = []
    for _ in range(n):
        r = Recorder(hub)
        assert r.send(p.Join(created["room"]))[0]["type"] == "joined"
        players.append(r)
    spectator = Recorder(hub)
    spectator.send(p.Join(created["room"], spectate=True))
    rng = np.random.default_rng(seed)
    while not handle.over:
        r = players[handle.to_act]
        view = r.last_view()
        action = view["legal"][int(rng.integers(len(view["legal"])))]
        r.send(p.Act(r.token, view["step"], tuple(action)))
    return handle.backend.room, [*players, spectator]


def views(frames: list[str]):
    """Each view message a connection got, with the view as the client holds it after it."""
    import json

    held = None
    for frame in frames:
        message = json.loads(frame)
        if message["type"] != "view":
            continue
        assert p.mirror_follows(held, message["view"])
        held = p.merge_view(held, message["view"])
        yield message, held


@pytest.mark.parametrize("game", list(SEATS))
def test_each_connections_mirror_is_the_position_as_its_seat_may_know_it(tmp_path, game):
    room, connections = played(tmp_path, game, seed=4)
    definition = room.definition
    config = definition.replay_config(list(room.spec.seats), room.outcomes, room.spec.options)
    history = list(room.state.history)
    truth = [definition.make_game(config).new_initial_state()]
    for action in history:
        truth.append(truth[-1].clone())
        truth[-1].apply(action)
    hidden = bool(definition.private_chance)
    checked = 0
    for seat, r in enumerate(connections):
        seat = seat if seat < len(room.spec.seats) else None
        mirror = None
        for message, held in views(r.frames):
            step = message["step"]
            true = truth[step]
            if hidden or mirror is None or step % 7 == 0 or true.is_terminal():   # (a full re-drive: some steps)
                mirror = definition.mirror_state(config, held["mirror"], seat)
            else:                                     # the client's way: the steps it was sent, applied
                from tabletop.gamekit.record import decode_action

                for encoded in message["view"]["mirror"]["history"]:
                    mirror.apply(decode_action(definition, encoded))
            assert definition.public_position(mirror) == definition.public_position(true), (game, seat, step)
            assert mirror.is_terminal() == true.is_terminal() and mirror.turn == true.turn
            assert (mirror.chance_event if mirror.is_chance_node() else None) == \
                (true.chance_event if true.is_chance_node() else None)
            if not hidden:
                assert [encode_action(definition, a) for a in mirror.history] == \
                    [encode_action(definition, a) for a in true.history]
                assert str(mirror) == str(true)
            elif seat is not None:
                assert sorted(mirror.hands[seat]) == sorted(true.hands[seat])
            if message["legal"] is not None:          # the seat to act decides on its mirror
                assert [p.action_key(encode_action(definition, a)) for a in mirror.legal_actions()] == \
                    [p.action_key(a) for a in message["legal"]]
            checked += 1
    assert checked > 3 * len(history) // 2


def test_king_kongs_mirror_of_another_seats_decision_does_not_say_which(tmp_path):
    """The phase of another seat's decision that only a card offers (fly, attack, escape, Safety
    Net) comes as "decision"; the seat itself gets its own phase and its hand."""
    room, connections = played(tmp_path, "king-kong", seed=6)
    definition = room.definition
    seen = {"own": set(), "other": set()}
    for seat, r in enumerate(connections):
        for message, held in views(r.frames):
            m = held["mirror"]["state"]
            who = "own" if seat == m["current"] else "other"
            seen[who].add(m["phase"])
    assert "decision" in seen["other"] and "decision" not in seen["own"]
    assert seen["own"] & set(definition.PRIVATE_PHASES)
    assert not seen["other"] & set(definition.PRIVATE_PHASES)


def test_a_mirror_a_game_cannot_read_is_one_line(tmp_path):
    from tabletop.sim.errors import InputError

    kk = GAMES["king-kong"]
    config = kk.replay_config(["remote"] * 3, "measured", {})
    with pytest.raises(InputError, match="mirror of king-kong"):
        kk.mirror_state(config, {"state": {"pos": 3}}, 0)
    kn = GAMES["knossos"]
    config = kn.replay_config(["remote"] * 2, "measured", {"games_to_win": 1})
    with pytest.raises(InputError, match="knossos"):
        kn.mirror_state(config, {"history": [["move", "nowhere"]]}, 0)
