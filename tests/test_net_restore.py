"""Rooms restored from their journal after the server died: the room taken up from its journal
(room.json, its secret, game.ttr cut off mid-turn) goes on to the same end, with the same history
and the same journal, as the room that never stopped; for every game, physical tables included
(King of the Hill's Tipper starts where its last tilt left the ball)."""
from __future__ import annotations

import pytest

from tabletop.gamekit.commit import CommittedSeeds
from tabletop.gamekit.record import encode_action
from tabletop.net.client import random_chooser
from tabletop.net.room import SECRET_FILE, Room, check_spec, token_hash
from tabletop.sim.record import ReplayFile

TOKENS = ["token-of-seat-%d-xxxxxxxxxxxxxxxx" % i for i in range(4)]


def seat_room(room: Room) -> Room:
    for seat, kind in enumerate(room.spec.seats):
        if kind == "remote" and seat not in room.tokens:
            room.claim(seat, token_hash(TOKENS[seat]), f"bot {seat}")
    return room


def play(room: Room, until_step: int | None = None) -> None:
    """Remote seats by random choosers of their seat number (as `join --as random --seed SEAT`),
    the room's own steps as they come; stop at `until_step` (None: the end)."""
    choosers = [random_chooser(seat) for seat in range(len(room.spec.seats))]
    while not room.over() and (until_step is None or room.step < until_step):
        if room.busy():
            room.advance()
            continue
        seat = room.to_act()
        legal = room.update()["legal"]
        room.act(seat, TOKENS[seat], choosers[seat]({}, legal, room.step), room.step)


def history(room: Room) -> list:
    return [encode_action(room.definition, a) for a in room.state.history]


def turn_payloads(path) -> list[bytes]:
    return [t.payload for t in ReplayFile.open(path).turns]


# King of the Hill's Tipper (a device whose next event starts where the last left it) is taken up
# in tests/test_play_resume.py, through the same gamekit/resume.py
CASES = [
    ("king-kong", ("remote", "remote", "ai"), "physics", 30),
    ("knossos", ("remote", "random"), "measured", 60),
]


@pytest.mark.slow
@pytest.mark.parametrize("game, seats, outcomes, cut", CASES, ids=[c[0] for c in CASES])
def test_a_room_restored_from_its_journal_ends_as_the_room_that_never_stopped(tmp_path, game, seats, outcomes, cut):
    secret = bytes(range(32))
    spec = check_spec("room-a", game, seats, 11, outcomes, {})
    whole = seat_room(Room(spec, tmp_path / "whole", seeds=CommittedSeeds(secret)))
    play(whole)
    whole.close()

    events: list = []
    broken = seat_room(Room(spec, tmp_path / "broken", seeds=CommittedSeeds(secret)))
    play(broken, cut)
    assert not broken.over()
    broken.close()                  # as a kill leaves it: the turn under way is not in the journal
    folder = tmp_path / "broken" / "room-a"
    journal = ReplayFile.open(folder / "game.ttr")
    assert journal.end is None and journal.turns
    assert (folder / SECRET_FILE).stat().st_mode & 0o077 == 0

    restored = Room.restore(folder, emit=events.append)
    assert sorted(restored.tokens) == [s for s, k in enumerate(seats) if k == "remote"]
    assert restored.step <= cut and len(restored.state.history) == sum(len(t.steps) for t in journal.turns)
    # every chance event so far published again: its commitment, then (unless hidden) its reveal
    commits = [e for e in events if e[0] == "commit"]
    assert [e[1] for e in commits] == list(range(len(commits))) and len(commits) == restored.match.chances
    play(restored)
    restored.close()

    assert history(restored) == history(whole)
    assert restored.match.result == whole.match.result
    # the journal is the uninterrupted room's, chunk for chunk (motions included), and its end
    assert turn_payloads(folder / "game.ttr") == turn_payloads(tmp_path / "whole" / "room-a" / "game.ttr")
    assert ReplayFile.open(folder / "game.ttr").end == ReplayFile.open(tmp_path / "whole" / "room-a" / "game.ttr").end


@pytest.mark.slow
@pytest.mark.parametrize("handed_at", [6, 29], ids=["before the journal's last whole turn", "in the turn cut off"])
def test_a_seat_handed_to_the_ai_is_handed_over_at_the_same_step_in_the_restored_room(tmp_path, handed_at):
    """A dropped seat played by the AI from step S (journaled in seats.jsonl before it takes effect):
    the restored room re-chooses the AI's decisions from S on and hands the seat over at S even when
    S is after the journal's last whole turn, so it ends as the room that never stopped."""
    secret = bytes(range(1, 33))
    spec = check_spec("room-b", "king-kong", ("remote", "remote", "remote"), 4, "measured", {})

    def run(folder, cut=None):
        room = seat_room(Room(spec, folder, seeds=CommittedSeeds(secret)))
        play(room, handed_at)
        room.set_seat(0, "ai")
        play(room, cut)
        return room

    whole = run(tmp_path / "whole")
    whole.close()
    broken = run(tmp_path / "broken", 30)
    broken.close()
    folder = tmp_path / "broken" / "room-b"
    assert (folder / "seats.jsonl").read_text().count("\n") == 1
    restored = Room.restore(folder)
    play(restored)
    restored.close()
    assert history(restored) == history(whole) and restored.match.result == whole.match.result
    assert turn_payloads(folder / "game.ttr") == turn_payloads(tmp_path / "whole" / "room-b" / "game.ttr")
