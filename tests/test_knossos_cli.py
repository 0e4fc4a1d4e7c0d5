"""`tabletop play knossos --headless`: a whole match from a sticks table, determinism, bad input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tabletop.cli import main


@pytest.fixture
def sticks_table(tmp_path):
    path = tmp_path / "sticks.json"
    path.write_text(json.dumps({"device": "sticks", "probabilities": {"1": {"p": 0.3}, "2": {"p": 0.5},
                                                                      "3": {"p": 0.2}}}))
    return f"table:{path}"


def play(*args):
    return subprocess.run([sys.executable, "-m", "tabletop.cli", "play", "knossos", "--headless", "--no-record", *args],
                          capture_output=True, text=True, timeout=300)


def test_a_match_prints_each_throw_each_game_and_the_match_winner(sticks_table):
    runs = [play("--seats", "ai,random", "--seed", "4", "--games-to-win", "2", "--outcomes", sticks_table)
            for _ in range(2)]
    assert runs[0].returncode == 0, runs[0].stderr
    out = runs[0].stdout
    assert "throws" in out and "wins game 1" in out
    assert "wins the match 2-" in out.strip().splitlines()[-1]
    assert runs[0].stdout == runs[1].stdout


@pytest.mark.parametrize("args,message", [
    (["play", "knossos", "--headless", "--seats", "ai,ai,ai"], "needs exactly 2 seats, not 3"),
    (["play", "knossos", "--headless", "--games-to-win", "0"], "--games-to-win: must be at least 1"),
    (["play", "knossos", "--headless", "--outcomes", "coins"], "expected physics or table:"),
    (["play", "knossos", "--headless", "--seats", "ai,wizard"], "unknown seat kind 'wizard'"),
    (["play", "king-kong", "--headless", "--outcomes", "coins"], "expected physics, uniform or table:"),
    (["play", "king-kong", "--headless", "--games-to-win", "2"], "--games-to-win: only for knossos"),
    (["play", "king-of-the-hill", "--games-to-win", "2"], "--games-to-win: only for knossos"),
])
def test_bad_knossos_input(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_the_solved_seat_plays_for_the_outcomes_table(sticks_table, tmp_path, monkeypatch, capsys):
    """`--seats solved,...` with `--outcomes table:F` solves the match for F's throw table (the cached
    solution is F's); `--help` lists the seat kind."""
    from tabletop.games.knossos.solve import Solution

    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path / "cache"))
    assert main(["play", "knossos", "--headless", "--no-record", "--seats", "solved,random", "--seed", "2",
                 "--games-to-win", "1", "--outcomes", sticks_table]) == 0
    assert "wins the match" in capsys.readouterr().out
    [cached] = (tmp_path / "cache" / "knossos-solve").glob("*.npz")
    assert Solution.load(cached).table == pytest.approx({"1": 0.3, "2": 0.5, "3": 0.2})
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    assert "solved" in capsys.readouterr().out


def test_a_table_of_another_device_is_refused(tmp_path, capsys):
    other = tmp_path / "tipper.json"
    other.write_text(json.dumps({"device": "tipper", "probabilities": {"1": {"p": 1.0}}}))
    assert main(["play", "knossos", "--headless", "--outcomes", f"table:{other}"]) == 2
    assert "needs a sticks table" in capsys.readouterr().err


def test_a_refused_play_leaves_no_games_folder(tmp_path, monkeypatch, capsys):
    """The default games folder is made when a recording starts, not when its name is chosen: a
    command refused for bad input writes nothing (the suite once left an empty replays/ in the checkout)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    assert main(["play", "knossos", "--headless", "--outcomes", "coins"]) == 2
    assert not (tmp_path / "data").exists() and not (tmp_path / "replays").exists()
