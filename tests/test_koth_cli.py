"""`tabletop play king-of-the-hill --headless`: whole games, determinism, bad input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tabletop.cli import main


def _table(tmp_path, device, labels):
    path = tmp_path / f"{device}.json"
    path.write_text(json.dumps({"device": device, "probabilities": {l: {"p": 1 / len(labels)} for l in labels}}))
    return path


@pytest.fixture
def tables(tmp_path):
    tip = _table(tmp_path, "tipper", list("123456J"))
    cra = _table(tmp_path, "crater", [f"cave{c}/seat{s}" for c in (1, 2, 3) for s in (1, 2)])
    return f"table:{tip},{cra}"


def play(*args):
    return subprocess.run([sys.executable, "-m", "tabletop.cli", "play", "king-of-the-hill", "--headless", "--no-record", *args],
                          capture_output=True, text=True, timeout=600)


def test_a_table_game_prints_its_log_and_winner_and_repeats(tables):
    runs = [play("--seats", "ai,random,ai", "--seed", "3", "--outcomes", tables) for _ in range(2)]
    assert runs[0].returncode == 0, runs[0].stderr
    out = runs[0].stdout
    assert "goes first" in out and "turn 1:" in out
    assert out.strip().splitlines()[-1].startswith("winner: ")
    assert runs[0].stdout == runs[1].stdout


def test_special_two_player_game(tables):
    run = play("--seats", "ai,ai", "--variant", "special-two-player", "--seed", "1", "--outcomes", tables)
    assert run.returncode == 0, run.stderr
    assert "with 3 marbles in the Finish Zone" in run.stdout


@pytest.mark.parametrize("args,message", [
    (["play", "monopoly", "--headless"], "unknown game 'monopoly'"),
    (["play", "king-of-the-hill", "--headless", "--seats", "ai"], "needs 2-4 seats, not 1"),
    (["play", "king-of-the-hill", "--headless", "--seats", "ai,ai,ai,ai,ai"], "needs 2-4 seats, not 5"),
    (["play", "king-of-the-hill", "--headless", "--seats", "ai,robot"], "unknown seat kind 'robot'"),
    (["play", "king-of-the-hill", "--headless", "--variant", "speedy"], "unknown variant 'speedy'"),
    (["play", "king-of-the-hill", "--headless", "--seats", "ai,ai,ai", "--variant", "special-two-player"],
     "needs exactly 2 seats"),
    (["play", "king-of-the-hill", "--headless", "--outcomes", "dice"], "expected physics or table:"),
    (["play", "king-of-the-hill", "--headless", "--outcomes", "table:/nonexistent.json"], "outcome table not found"),
    (["play", "king-of-the-hill", "--headless", "--seats", "human,ai"], "a human seat needs the window"),
])
def test_bad_play_input(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
