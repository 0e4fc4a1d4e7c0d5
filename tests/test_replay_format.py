"""The replay file format (tabletop.sim.record) on synthetic recordings: frames survive the round trip to
within the documented quantization, a file cut anywhere opens up to the cut or fails in one line,
corrupt, foreign and future files are refused, and a long file opens fast."""
from __future__ import annotations

import types

import numpy as np
import pytest

from tabletop.sim.errors import InputError
from tabletop.sim.record import (CHUNK, MAGIC, POSITION_UNIT, PRELUDE, QUATERNION_SCALE, RECORDED_AT, TURN, ReplayFile,
                        VERSION, ReplayWriter, chunk, pack_turn, unpack_turn_log, unpack_turn_motions)

LOOK = {"material": "glass", "tracks": {"ball": [{"kind": "sphere", "pos": [0, 0, 0], "orn": [0, 0, 0, 1],
                                                 "radius": 0.008}]}}


def _motion(rng: np.random.Generator, frames: int = 40, hide_at: int | None = None):
    """Two balls rolling about, one turning; `hide_at`: ball1 is removed at that frame."""
    p, v = rng.normal(size=(2, 3)) * 0.1, rng.normal(size=(2, 3)) * 0.3
    out, times = [], []
    for k in range(frames):
        p, v = p + v / 60, v * 0.97 + rng.normal(size=(2, 3)) * 0.01
        a = 0.05 * k
        frame = {"ball0": (*p[0], 0.0, 0.0, float(np.sin(a)), float(np.cos(a)))}
        if hide_at is None or k < hide_at:
            if k % 3:                       # ball1 does not move in every frame
                frame["ball1"] = (*p[1], 0.0, 0.0, 0.0, 1.0)
        elif k == hide_at:
            frame["ball1"] = None
        out.append(frame)
        times.append(k / 60)
    return types.SimpleNamespace(rate=60.0, times=times, frames=out, looks={"ball0": LOOK, "ball1": LOOK})


def _write(path, turns: int = 12, seed: int = 0, finish: bool = True, recorded_at: float | None = None):
    rng = np.random.default_rng(seed)
    header = {"program": "tabletop", "kind": "game", "banner": ["a synthetic game"], "initial_events": [],
              "scene": {"looks": {"ball0": LOOK}, "poses": {"ball0": [0, 0, 0, 0, 0, 0, 1]}}}
    w = ReplayWriter(path, header, recorded_at=recorded_at)
    motions = []
    for n in range(1, turns + 1):
        m = _motion(rng, hide_at=20 if n == 3 else None)
        motions.append(m)
        w.add_turn({"turn": n, "steps": [
            {"action": ["outcome", "3"], "chance": "tipper", "motion": 0, "events": [f"turn {n}: red tilts 3"]},
            {"action": ["move", 0, 3], "events": [f"red-1 moves 3 (turn {n})"]}]}, [m])
    if finish:
        w.finish({"lines": ["winner: red"], "result": {"winner": "red"}})
    else:
        w.close()
    return motions


@pytest.fixture
def replay_file(tmp_path):
    path = tmp_path / "game.ttr"
    motions = _write(path)
    return path, motions


def test_frames_log_and_end_round_trip_within_the_quantization(replay_file):
    path, motions = replay_file
    replay = ReplayFile.open(path)
    assert replay.warnings == [] and replay.complete
    assert replay.header["banner"] == ["a synthetic game"]
    assert [t.number for t in replay.turns] == list(range(1, 13))
    assert replay.turns[2].events == ["turn 3: red tilts 3", "red-1 moves 3 (turn 3)"]
    assert replay.turns[0].actions == [["outcome", "3"], ["move", 0, 3]]
    assert replay.end["lines"] == ["winner: red"]
    for turn, original in zip(replay.turns, motions):
        (got,) = turn.motions
        assert got["rate"] == 60.0 and got["looks"]["ball1"] == LOOK
        assert np.allclose(got["times"], original.times, atol=1e-6)
        assert len(got["frames"]) == len(original.frames)
        for a, b in zip(got["frames"], original.frames):
            assert a.keys() == b.keys()
            for track, pose in b.items():
                if pose is None:
                    assert a[track] is None
                else:
                    assert np.allclose(a[track][:3], pose[:3], atol=POSITION_UNIT / 2 + 1e-12)
                    assert np.allclose(a[track][3:], pose[3:], atol=0.5 / QUATERNION_SCALE + 1e-12)
    assert replay.turns[2].motions[0]["frames"][20]["ball1"] is None
    # playback time: the motions plus the documented time per decision action
    assert replay.playback_seconds() == pytest.approx(12 * (39 / 60 + 0.6), abs=1e-5)


def test_looks_are_stored_once_and_turns_decode_lazily(replay_file):
    path, _ = replay_file
    replay = ReplayFile.open(path)
    assert len(replay._look_spans) == 1            # both balls share one look, defined once
    assert all(t._log is None for t in replay.turns[:-1])   # only the last turn's log (its number) is read
    assert all(t._motions is None for t in replay.turns)


def test_the_same_content_writes_the_same_bytes_apart_from_the_timestamp(tmp_path):
    a, b = tmp_path / "a.ttr", tmp_path / "b.ttr"
    _write(a, recorded_at=1_700_000_000)
    _write(b, recorded_at=1_800_000_000)
    da, db = bytearray(a.read_bytes()), bytearray(b.read_bytes())
    assert da != db
    da[RECORDED_AT] = db[RECORDED_AT] = bytes(8)
    assert da == db
    assert ReplayFile.open(a).recorded_at == 1_700_000_000


def _chunk_ends(data: bytes) -> list[int]:
    ends, pos = [], PRELUDE.size
    while pos < len(data):
        pos += CHUNK.size + CHUNK.unpack_from(data, pos)[1]
        ends.append(pos)
    return ends


def test_a_file_cut_anywhere_opens_up_to_the_cut_or_fails_in_one_line(replay_file, tmp_path):
    path, _ = replay_file
    data = path.read_bytes()
    ends = _chunk_ends(data)
    full = ReplayFile.open(path)
    rng = np.random.default_rng(7)
    cuts = sorted(set(rng.integers(0, len(data), 200).tolist()) | {0, 1, 15, 16, 27, 28, 29, ends[0], ends[1]})
    opened = 0
    for cut in cuts:
        try:
            replay = ReplayFile.from_bytes(path, data[:cut])
        except InputError as exc:
            message = str(exc)
            assert "\n" not in message
            assert cut < ends[0], f"cut at {cut}: {message}"
            assert "truncated inside its header" in message or "empty file" in message
            continue
        opened += 1
        assert cut >= ends[0]
        whole = sum(1 for e in ends if e <= cut)
        turns = whole - 1 - (1 if whole >= 2 else 0)     # less the header and the looks chunk
        assert len(replay.turns) == max(0, turns)
        assert len(replay.warnings) == 1 and "truncated" in replay.warnings[0]
        expected = f"after turn {replay.turns[-1].number}" if replay.turns else "before the first turn"
        assert expected in replay.warnings[0]
        assert replay.end is None
        for turn, good in zip(replay.turns, full.turns):
            assert turn.events == good.events
        if replay.turns:
            assert replay.turns[-1].motions == full.turns[len(replay.turns) - 1].motions
    assert opened > 150


def test_a_file_without_its_end_record_says_where_it_stops(tmp_path):
    path = tmp_path / "killed.ttr"
    _write(path, turns=5, finish=False)
    replay = ReplayFile.open(path)
    assert len(replay.turns) == 5 and not replay.complete
    assert "truncated after turn 5" in replay.warnings[0]


@pytest.mark.parametrize("make, message", [
    (lambda d: b"", "empty file"),
    (lambda d: b"\x89PNG\r\n\x1a\n" + bytes(100), "not a tabletop replay"),
    (lambda d: b"name,value\n1,2\n", "not a tabletop replay"),
    (lambda d: MAGIC[:9], "truncated inside its header"),
    (lambda d: d[:16] + (VERSION + 1).to_bytes(2, "little") + d[18:],
     f"format version {VERSION + 1} is newer than this tabletop reads"),
    (lambda d: d[:16] + (0).to_bytes(2, "little") + d[18:], "format version 0 does not exist"),
    (lambda d: d[:PRELUDE.size + 20] + bytes([d[PRELUDE.size + 20] ^ 0xFF]) + d[PRELUDE.size + 21:],
     "its header fails its CRC check"),
    (lambda d: d[:-40] + bytes([d[-40] ^ 0x01]) + d[-39:], "fails its CRC check"),
])
def test_bad_files_are_refused_in_one_line(replay_file, make, message):
    path, _ = replay_file
    bad = path.with_name("bad.ttr")
    bad.write_bytes(make(path.read_bytes()))
    with pytest.raises(InputError) as info:
        ReplayFile.open(bad)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_a_corrupt_turn_chunk_is_named(replay_file):
    path, _ = replay_file
    data = bytearray(path.read_bytes())
    replay = ReplayFile.open(path)
    turn = replay.turns[4]
    a, b = turn.span
    data[(a + b) // 2] ^= 0x10
    with pytest.raises(InputError, match=rf"chunk {turn.chunk_no} at byte {a - CHUNK.size}, after turn 4 "
                                         r"fails its CRC check"):
        ReplayFile.from_bytes(path, bytes(data))


def test_a_rewritten_chunk_with_a_valid_crc_is_read_as_written(replay_file):
    """What the games' tamper tests rely on: a chunk re-packed with its CRC opens cleanly."""
    path, _ = replay_file
    data = path.read_bytes()
    turn = ReplayFile.open(path).turns[1]
    log = unpack_turn_log(turn.payload)
    motions = unpack_turn_motions(turn.payload, log)
    log["steps"][0]["action"] = ["outcome", "J"]
    a, b = turn.span
    patched = data[:a - CHUNK.size] + chunk(TURN, pack_turn(log, motions)) + data[b:]
    assert ReplayFile.from_bytes(path, patched).turns[1].actions[0] == ["outcome", "J"]


def test_a_thirty_minute_file_opens_and_shows_its_first_frame_lazily(tmp_path):
    path = tmp_path / "long.ttr"
    rng = np.random.default_rng(3)
    header = {"program": "tabletop", "kind": "game", "banner": [], "scene": {"looks": {}, "poses": {}}}
    w = ReplayWriter(path, header)
    n = 0
    m = _motion(rng, frames=73)
    while n * (72 / 60 + 0.6) < 30 * 60:
        n += 1
        w.add_turn({"turn": n, "steps": [{"action": ["outcome", "3"], "chance": "tipper", "motion": 0,
                                          "events": [f"turn {n}"]}, {"action": ["move", 0, 3], "events": []}]},
                   [m])
    w.finish({"lines": [], "result": {}})
    replay = ReplayFile.open(path)
    seconds = replay.playback_seconds()
    first = replay.turns[0].motions[0]["frames"][0]
    assert seconds >= 30 * 60 and first
    # its length comes from the turns' logs and its first frame from the first turn alone: no other
    # turn's frames were decoded (speed is measured in benchmarks, not timed here)
    assert [t._motions is not None for t in replay.turns] == [True] + [False] * (len(replay.turns) - 1)
