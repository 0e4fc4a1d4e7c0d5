"""Playing a recorded game on (`play --resume FILE --from-turn N`): with the recorded seats and seed
the game goes on exactly as the recording did, chunk for chunk, motions and all (physics games
included: the Tipper's ball and every device's bodies set as the game left them), and the new
recording is a whole game naming the one it came from."""
from __future__ import annotations

import pytest

from tabletop.gamekit.replay import verify
from tabletop.gamekit.session import resume_headless
from tabletop.gamekit.registry import GAMES
from tabletop.sim.errors import InputError
from tabletop.sim.record import ReplayFile

# headless here; every game on physics in the window below (King of the Hill's Tipper there)
CASES = [
    ("king-kong", ["ai", "plan", "random"], "physics", 9),
    ("knossos", ["ai", "random"], "measured", 40),
]


def payloads(path, first: int = 0) -> list[bytes]:
    return [t.payload for t in ReplayFile.open(path).turns if t.number >= first]


@pytest.mark.slow
@pytest.mark.parametrize("game, seats, outcomes, turn", CASES, ids=[c[0] for c in CASES])
def test_a_game_resumed_from_turn_n_with_its_seats_plays_the_recorded_turns_again(tmp_path, game, seats, outcomes,
                                                                                   turn):
    from tabletop.gamekit.outcomes import play_outcomes

    definition = GAMES[game]
    first = tmp_path / "first.ttr"
    lines: list[str] = []
    definition.play_headless(seats, 5, play_outcomes(definition, outcomes), first, {}, lines.append)
    original = ReplayFile.open(first)
    assert original.turns[-1].number > turn
    again = tmp_path / "again.ttr"
    resumed: list[str] = []
    final = resume_headless(definition, original, turn, None, again, resumed.append)
    taken = ReplayFile.open(again)
    # the same game: every turn (those copied and those played again) byte for byte, the same end
    assert payloads(again) == payloads(first)
    assert taken.end == original.end and final.turn == original.end["result"]["turns"]
    assert taken.header["resumed_from"] == {"file": "first.ttr", "turn": turn}
    assert resumed[-5:] == lines[-5:]
    assert resumed[len(original.header["banner"])].startswith(f"resumed from first.ttr at turn {turn}")
    if outcomes == "physics":
        assert verify(taken, definition, from_turn=turn).turns == final.turn   # a whole game, re-simulated


@pytest.mark.slow
def test_other_seats_take_over_and_a_finished_game_needs_a_turn(tmp_path):
    from tabletop.gamekit.outcomes import play_outcomes

    definition = GAMES["knossos"]
    first = tmp_path / "first.ttr"
    definition.play_headless(["ai", "ai"], 2, play_outcomes(definition, "measured"), first, {}, lambda line: None)
    original = ReplayFile.open(first)
    with pytest.raises(InputError, match="the game is over; give --from-turn"):
        resume_headless(definition, original, None, None, None, lambda line: None)
    with pytest.raises(InputError, match="--from-turn: .* give 0 to"):
        resume_headless(definition, original, 10_000, None, None, lambda line: None)
    out = tmp_path / "random.ttr"
    lines: list[str] = []
    resume_headless(definition, original, 12, ["random", "ai"], out, lines.append)
    taken = ReplayFile.open(out)
    assert taken.header["config"]["seats"] == ["random", "ai"]
    assert taken.header["banner"][-1] == "resumed from first.ttr at turn 12, seats red=random, blue=ai"
    assert [t.payload for t in taken.turns if t.number < 12] == [t.payload for t in original.turns if t.number < 12]
    assert taken.end is not None


def _shortest(definition) -> dict:
    return {o.name: o.minimum if o.minimum is not None else o.default for o in definition.options}


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_window_plays_a_recorded_physics_game_on_as_it_was_played(tmp_path, game):
    """The window takes up a headless physics game from its middle turn: every turn it records
    after is the headless game's, byte for byte (the seats' stream and the table set as they were)."""
    from tabletop.gamekit.view.window import open_game
    from tabletop.sim.view.app import ViewError

    definition = GAMES[game]
    seats, options = ["ai"] * definition.seats[0], _shortest(definition)
    first = tmp_path / "first.ttr"
    definition.play_headless(seats, 3, "physics", first, options, lambda line: None)
    original = ReplayFile.open(first)
    middle = original.end["result"]["turns"] // 2
    again = tmp_path / "window.ttr"
    try:
        app, ctrl = open_game(definition, seats, 3, options, size=(320, 180), offscreen=True, pace=0.0, record=again,
                              resume=(original, middle))
    except ViewError as exc:
        pytest.skip(f"no graphics pipe: {exc}")
    try:
        assert ctrl.state.turn <= middle and ctrl.hud.lines[len(original.header["banner"])].startswith("resumed from")
        ctrl.fast_forward(10 ** 6)
        assert ctrl.state.is_terminal()
        ctrl.close()
    finally:
        ctrl.adapter.close()
        app.destroy()
    assert payloads(again) == payloads(first) and ReplayFile.open(again).end == original.end


@pytest.mark.slow
def test_continue_plays_on_the_newest_game_a_crash_cut_off(tmp_path, monkeypatch, capsys):
    """`play GAME --continue` finds the newest unfinished recording in the games folder (a crash cut
    it off mid-turn) and plays it on to the end the uncut game reached; `tabletop games` lists both."""
    from tabletop.cli import main

    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    assert main(["play", "king-kong", "--headless", "--seats", "ai,ai,ai", "--seed", "6", "--outcomes", "measured"]) == 0
    whole = capsys.readouterr().out.splitlines()
    (made,) = (tmp_path / "data" / "games").iterdir()
    data = made.read_bytes()
    kept = ReplayFile.open(made).turns[5]
    made.write_bytes(data[:data.index(kept.payload) + len(kept.payload) + 7])     # cut inside the next chunk
    assert main(["games"]) == 0
    listed = capsys.readouterr().out
    assert "1 recorded game in" in listed and "cut off" in listed and made.name in listed
    assert main(["play", "king-kong", "--continue", "--headless"]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[-3:] == whole[-3:] and "resumed from " + made.name in out
    assert main(["games"]) == 0
    listed = capsys.readouterr().out
    assert "2 recorded games" in listed and f"resumed from {made.name}" in listed
    # the cut one was played on (to the end): --continue never takes it up again
    assert main(["play", "king-kong", "--continue", "--headless"]) == 2
    assert "no unfinished king-kong game" in capsys.readouterr().err
