"""Recorded games: play -> record -> summary gives the log the play printed, verify re-simulates
it, a tampered outcome or pose is caught and named, and the same seed records the same bytes.

Every registered game is recorded and verified (GAMES, the plugin game among them), each as the
shortest game its definition declares (`shortest`): its fewest seats, all AI, each whole-number
option at its minimum (a one-game Knossos match, about 4 s to play and as much to verify; a 2-player
King of the Hill, about 7 s each; the coin race, about 1 s)."""
from __future__ import annotations

import contextlib
import io
import json
import re

import numpy as np
import pytest

from tabletop.cli import main
from tabletop.gamekit.registry import GAMES
from tabletop.gamekit.replay import Divergence, summary_lines, verify
from tabletop.sim.errors import InputError
from tabletop.sim.record import CHUNK, RECORDED_AT, TURN, ReplayFile, chunk, pack_turn, unpack_turn_log, unpack_turn_motions


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


def record(path, game: str, *args: str) -> str:
    rc, out, err = run("play", game, "--headless", *args, "--record", path)
    assert rc == 0, err
    assert f"recording the replay to {path}" in err
    return out


SEED = 0                  # every game's recording: King of the Hill's seed 0 is one of its shorter games
GAME_NAMES = list(GAMES)  # every registered game, the installed plugin among them


def shortest(definition) -> list[str]:
    """The `play` arguments of the shortest game a definition declares: its fewest seats, each of its
    first seat kind but "human" (its AI, where it has one), and each whole-number option at its
    minimum (the others at their defaults)."""
    kind = "ai" if "ai" in definition.seat_kinds else next(k for k in definition.seat_kinds if k != "human")
    args = ["--seats", ",".join([kind] * definition.seats[0]), "--seed", str(SEED)]
    for option in definition.options:
        if option.minimum is not None and not option.choices:
            args += [option.flag, str(option.minimum)]
    return args


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """recorded(name) -> (path, printed): the game's shortest game (`shortest`), recorded once per module."""
    done = {}

    def get(name: str):
        if name not in done:
            path = tmp_path_factory.mktemp(name) / "game.ttr"
            done[name] = path, record(path, name, *shortest(GAMES[name]))
        return done[name]
    return get


@pytest.fixture(scope="module")
def knossos(tmp_path_factory):
    path = tmp_path_factory.mktemp("knossos") / "match.ttr"
    return path, record(path, "knossos", "--seats", "ai,ai", "--seed", "1", "--games-to-win", "1")


@pytest.fixture(scope="module")
def koth(recorded):
    """King of the Hill's recording of the registry walk (2 AI seats, seed 0), so it is played once."""
    assert shortest(GAMES["king-of-the-hill"]) == ["--seats", "ai,ai", "--seed", "0"]
    return recorded("king-of-the-hill")


@pytest.fixture(scope="module")
def koth_tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("koth-tables")
    files = []
    for device, labels in (("tipper", list("123456J")), ("crater", [f"cave{c}/seat{s}" for c in (1, 2, 3)
                                                                   for s in (1, 2)])):
        files.append(folder / f"{device}.json")
        files[-1].write_text(json.dumps({"device": device, "probabilities": {k: {"p": 1 / len(labels)}
                                                                             for k in labels}}))
    path = folder / "game.ttr"
    outcomes = "table:" + ",".join(str(f) for f in files)
    return path, record(path, "king-of-the-hill", "--seats", "ai,random,ai", "--seed", "3", "--outcomes", outcomes)


def test_a_stand_in_chance_game_records_but_cannot_be_verified(tmp_path):
    """King Kong's `--outcomes uniform` stand-in is recorded and summarized; verify refuses it in
    one line (nothing physical to re-simulate)."""
    path = tmp_path / "uniform.ttr"
    printed = record(path, "king-kong", "--seats", "ai,random", "--seed", "2", "--outcomes", "uniform")
    rc, out, err = run("replay", path, "--summary")
    assert rc == 0 and out == printed
    rc, out, err = run("replay", path, "--verify")
    assert rc == 2 and "cannot be re-simulated" in err and err.count("\n") == 1


def test_the_walk_takes_every_registered_game():
    """The recordings below walk the registry: not empty, and no installed game left out because it
    failed to register."""
    assert GAME_NAMES and GAMES.problems() == {}


def _summary_and_verify(path, printed) -> ReplayFile:
    """`replay --summary` prints what the play printed, with the game's turns; `--verify` re-simulates
    every chance event: the replay, for more checks."""
    rc, out, err = run("replay", path, "--summary")
    assert rc == 0 and out == printed
    assert "warning" not in err
    replay = ReplayFile.open(path)
    turns = replay.end["result"]["turns"]
    assert f": {turns} turns," in err                   # the summary's figures count the game's turns
    result = re.search(r" (\d+) turns$", printed.splitlines()[-1])
    assert result is None or int(result.group(1)) == turns     # ... as the result line does, where it counts them
    assert [t.number for t in replay.turns] == sorted({t.number for t in replay.turns})
    assert replay.turns[-1].number == turns
    rc, out, err = run("replay", path, "--verify")
    assert rc == 0, err
    chance = sum(1 for t in replay.turns for s in t.steps if "chance" in s)
    frames = sum(m["frames"] for t in replay.turns for m in t.log["motions"])
    assert chance >= 1
    assert out == f"verified: {turns} turns, {chance} chance events, {frames} frames\n"
    return replay


@pytest.mark.slow
@pytest.mark.parametrize("name", GAME_NAMES)
def test_summary_prints_what_the_play_printed_and_verify_passes(recorded, name):
    """Every registered game's shortest game: summary and verify agree with the play, and every
    chance event (physics) came with a motion of its own."""
    path, printed = recorded(name)
    replay = _summary_and_verify(path, printed)
    assert replay.header["game"] == name and replay.header["config"]["outcomes"] == "physics"
    for turn in replay.turns:
        for step in turn.steps:
            assert ("motion" in step) == ("chance" in step)
        assert all(m["frames"] > 0 for m in turn.log["motions"])


@pytest.mark.slow
def test_summary_and_verify_of_a_game_drawn_from_measured_tables(koth_tables):
    """King of the Hill drawing from measured tables: no motion to re-simulate; verify re-draws the
    tables' outcomes."""
    replay = _summary_and_verify(*koth_tables)
    assert sum(m["frames"] for t in replay.turns for m in t.log["motions"]) == 0


def test_a_physics_replay_holds_the_table_seeds_versions_and_a_motion_per_chance_event(koth):
    path, _ = koth
    replay = ReplayFile.open(path)
    h = replay.header
    assert h["program"] == "tabletop" and h["kind"] == "game" and h["game"] == "king-of-the-hill"
    assert h["seed"] == 0 and h["config"]["seats"] == ["ai", "ai"] and h["config"]["outcomes"] == "physics"
    assert {"python", "pybullet", "numpy"} <= set(h["versions"])
    assert {"table", "tray", "koth-marble-0"} <= set(h["scene"]["looks"]) and "koth-marble-3" in h["scene"]["poses"]
    for turn in replay.turns:
        for step in turn.steps:
            assert ("motion" in step) == ("chance" in step)
    assert replay.end["result"]["winner"] in ("red", "blue")
    assert 0 < replay.size / 1000 / (replay.playback_seconds() / 60) < 100     # KB per minute of play


def _rewrite(path, out, ordinal: int, change) -> None:
    """Copy `path` to `out` with turn `ordinal` changed by change(log, motions), CRC made valid."""
    data = path.read_bytes()
    turn = ReplayFile.open(path).turns[ordinal]
    log = unpack_turn_log(turn.payload)
    motions = unpack_turn_motions(turn.payload, log)
    change(log, motions)
    a, b = turn.span
    out.write_bytes(data[:a - CHUNK.size] + chunk(TURN, pack_turn(log, motions)) + data[b:])


def test_a_changed_chance_outcome_fails_verify_and_is_named(knossos, tmp_path):
    path, _ = knossos
    turn = ReplayFile.open(path).turns[5]
    step = next(s for s in turn.steps if "chance" in s)
    was = step["action"][1]
    other = "1" if was != "1" else "2"

    def change(log, motions):
        next(s for s in log["steps"] if "chance" in s)["action"] = ["outcome", other]

    bad = tmp_path / "outcome.ttr"
    _rewrite(path, bad, 5, change)
    rc, out, err = run("replay", bad, "--verify")
    assert rc == 1 and out == ""
    assert err.strip() == (f"tabletop: replay differs: turn {turn.number}: the sticks gave {was!r} in the "
                           f"re-simulation, the replay says {other!r}")


def test_a_changed_pose_fails_verify_and_is_named(knossos, tmp_path):
    path, _ = knossos

    def change(log, motions):
        m = motions[0]
        track, pose = m.frames[10][0]
        m.frames[10][0] = (track, (pose[0] + 3, *pose[1:]))

    bad = tmp_path / "pose.ttr"
    _rewrite(path, bad, 3, change)
    replay = ReplayFile.open(bad)
    with pytest.raises(Divergence, match=rf"turn {replay.turns[3].number}, sticks motion, frame 10 "
                                         r"\(t=0\.\d+ s\), track 'stick\d': expected \(.*\), got \(.*\)"):
        verify(replay, GAMES[replay.header['game']])
    assert run("replay", bad, "--verify")[0] == 1


def test_a_replay_of_another_physics_version_is_refused_in_one_line(knossos, monkeypatch):
    """A build whose physics simulates differently cannot re-simulate an older replay's motion:
    verify refuses it in one line naming both versions (exit 2), and the replay still summarizes."""
    import tabletop.sim.world as world

    path, _ = knossos
    recorded = ReplayFile.open(path).header["versions"]["physics"]
    assert recorded == world.PHYSICS_VERSION
    monkeypatch.setattr(world, "PHYSICS_VERSION", recorded + 1)
    rc, out, err = run("replay", path, "--verify")
    assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert (f"recorded at physics version {recorded} ({world.PHYSICS_HISTORY[recorded]}); this build simulates "
            f"physics version {recorded + 1}") in err
    assert run("replay", path, "--summary")[0] == 0


def test_a_replay_from_before_physics_versions_is_version_1():
    from types import SimpleNamespace

    from tabletop.gamekit.replay import check_physics_version

    old = SimpleNamespace(path="old.ttr", header={"versions": {"pybullet": "3.2.7"}})
    with pytest.raises(InputError, match=r"old\.ttr: recorded at physics version 1 \(the converged numerics"):
        check_physics_version(old)


def test_a_changed_table_outcome_fails_verify(koth_tables, tmp_path):
    path, _ = koth_tables

    def change(log, motions):
        step = next(s for s in log["steps"] if s.get("chance") == "tipper")
        step["action"] = ["outcome", "J" if step["action"][1] != "J" else "1"]

    bad = tmp_path / "table.ttr"
    _rewrite(path, bad, 4, change)
    rc, _, err = run("replay", bad, "--verify")
    assert rc == 1 and "the tipper gave" in err and "the replay says" in err


@pytest.mark.slow
def test_the_same_seed_records_the_same_bytes_but_the_timestamp(knossos, tmp_path):
    path, printed = knossos
    again = tmp_path / "again.ttr"
    assert record(again, "knossos", "--seats", "ai,ai", "--seed", "1", "--games-to-win", "1") == printed
    a, b = bytearray(path.read_bytes()), bytearray(again.read_bytes())
    a[RECORDED_AT] = b[RECORDED_AT] = bytes(8)
    assert a == b


def test_a_real_replay_cut_anywhere_summarizes_up_to_the_cut_or_fails_in_one_line(knossos, tmp_path):
    path, printed = knossos
    data = path.read_bytes()
    full = printed.splitlines()
    cut_file = tmp_path / "cut.ttr"
    rng = np.random.default_rng(2024)
    outcomes = {0: 0, 2: 0}
    for cut in rng.integers(0, len(data), 200).tolist():
        cut_file.write_bytes(data[:cut])
        rc, out, err = run("replay", cut_file, "--summary")
        outcomes[rc] += 1
        if rc == 2:
            assert out == "" and err.count("\n") == 1 and "truncated inside its header" in err
            continue
        replay = ReplayFile.open(cut_file)
        assert err.startswith("tabletop: warning: ") and "truncated" in err
        lines = out.splitlines()
        assert lines == full[:len(lines)] and lines == summary_lines(replay)
        if replay.turns:
            assert f"truncated after turn {replay.turns[-1].number}" in err
    assert outcomes[0] > 150


def test_verify_of_a_cut_replay_checks_the_turns_it_has(knossos, tmp_path):
    path, _ = knossos
    replay = ReplayFile.open(path)
    cut = tmp_path / "cut.ttr"
    cut.write_bytes(path.read_bytes()[:replay.turns[6].span[1] + 3])
    rc, out, err = run("replay", cut, "--verify")
    assert rc == 0 and out.startswith("verified: 7 turns, 7 chance events")
    assert "truncated after turn 7" in err


@pytest.mark.slow
def test_a_source_already_watched_by_the_window_is_recorded_the_same_and_keeps_its_motions(knossos, tmp_path):
    from tabletop.gamekit.chance import WatchedOutcomes
    from tabletop.games.knossos.ai import SEATS
    from tabletop.games.knossos.rules import Game
    from tabletop.games.knossos.table import PhysicsOutcomes
    from tabletop.gamekit.match import Match
    from tabletop.gamekit.record import GameRecorder

    path, printed = knossos
    watched = WatchedOutcomes(PhysicsOutcomes())
    game = Game(games_to_win=1)
    state = game.new_initial_state()
    out = tmp_path / "window.ttr"
    recorder = GameRecorder(out, GAMES["knossos"], {"games_to_win": 1, "seats": ["ai", "ai"], "outcomes": "physics"},
                            1, state, watched, [printed.splitlines()[0]])
    try:
        final = Match(state, [SEATS["ai"](), SEATS["ai"]()], watched, 1, observers=[recorder]).play()
    finally:
        recorder.close()
        watched.close()
    assert len(watched.motions) == final.turn
    a, b = bytearray(path.read_bytes()), bytearray(out.read_bytes())
    a[RECORDED_AT] = b[RECORDED_AT] = bytes(8)
    assert a == b
