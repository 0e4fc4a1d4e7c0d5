"""scripts/bench_server.py: one server in its own process, 1 and then 2 rooms of bots over loopback and
a physics room; its JSON holds every figure, counted as played, and its bad input is one line."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("bench_server", ROOT / "scripts" / "bench_server.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module         # (its dataclasses look their module up)
    spec.loader.exec_module(module)
    return module


def _ordered(fig: dict, n: int) -> None:
    """Figures of `n` samples: positive, and p50 <= p95 <= p99 <= the longest."""
    assert fig["n"] == n
    assert 0.0 < fig["p50_ms"] <= fig["p95_ms"] <= fig["p99_ms"] <= fig["max_ms"], fig


@pytest.mark.slow
def test_the_bench_times_every_action_played_and_every_throw(tmp_path, capsys):
    out = tmp_path / "bench.json"
    actions, throws = 12, 3
    code = _script().main(["--rooms", "1,2", "--actions-per-room", str(actions), "--physics", "king-of-the-hill",
                           "--throws", str(throws), "--baseline-samples", "100", "--seed", "5", "--json", str(out)])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    result = json.loads(out.read_text())
    _ordered(result["baseline"], 100)
    assert [row["rooms"] for row in result["load"]] == [1, 2]
    for row in result["load"]:
        played = row["rooms"] * actions
        # every action sent was answered by a view and timed, and no more were sent than asked
        assert row["actions_sent"] == played
        _ordered(row["round_trip"], played)
        assert row["actions_per_s"] > 0 and row["wall_s"] > 0 and row["rooms_made"] >= row["rooms"]
        # the server's round trip is its work on top of the bare one, so slower than the echo
        assert row["p50_vs_baseline"] > 1.0
        assert row["p50_vs_baseline"] == pytest.approx(row["round_trip"]["p50_ms"] / result["baseline"]["p50_ms"])
    held = [row["rooms"] for row in result["load"] if row["round_trip"]["p95_ms"] < 100.0]
    assert result["rooms_held"] == max(held, default=0)
    (koth,) = result["physics"]
    assert koth["game"] == "king-of-the-hill" and koth["events"] >= throws
    # each event is timed on each client that saw it start (3 bots), every one a simulated tilt here
    samples = koth["throw_to_result"]["n"]
    assert koth["events"] <= samples <= 3 * koth["events"]
    _ordered(koth["throw_to_result"], samples)
    assert sum(fig["n"] for fig in koth["by_event"].values()) == samples
    assert result["server_exit"] == 0 and result["server_problems"] == []
    assert "rooms held with the round trip's p95 under 100 ms" in printed.out


@pytest.mark.parametrize("args,words", [
    (["--rooms", "1,x"], "--rooms: expected numbers of rooms"),
    (["--rooms", "0"], "--rooms: every number of rooms is at least 1"),
    (["--game", "chess"], "unknown game 'chess'"),
    (["--seats", "9"], "--seats: king-kong has 2 to 6 seats"),
    (["--actions-per-room", "5", "--games-per-room", "1"], "not allowed with argument"),
    (["--rooms", "40,40"], "82 rooms would be left open"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, words):
    assert _script().main(args) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1, err
