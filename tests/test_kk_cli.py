"""`tabletop play king-kong --headless`: whole games from the uniform stand-in and from saved
estimates, determinism, bad input (physics games, the default: tests/test_kk_table.py)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tabletop.cli import main


def play(*args):
    return subprocess.run([sys.executable, "-m", "tabletop.cli", "play", "king-kong", "--headless", "--no-record", *args],
                          capture_output=True, text=True, timeout=300)


def test_a_game_prints_each_turn_each_kong_move_and_the_result():
    runs = [play("--seats", "ai,ai,random", "--seed", "4", "--outcomes", "uniform") for _ in range(2)]
    assert runs[0].returncode == 0, runs[0].stderr
    out = runs[0].stdout
    lines = out.strip().splitlines()
    assert "outcomes uniform: a stand-in, NOT physics" in lines[0]
    assert "rolls" in out and "moves Kong" in out and "Kong will climb" in out
    assert lines[-1].startswith("result: ") and " after " in lines[-1]
    assert runs[0].stdout == runs[1].stdout


def test_a_game_from_saved_estimates(tmp_path):
    die = tmp_path / "die.json"
    die.write_text(json.dumps({"device": "die", "probabilities": {f: {"p": 1 / 6} for f in "123456"}}))
    spinner = tmp_path / "spinner.json"
    spinner.write_text(json.dumps({"device": "spinner", "probabilities": {
        "L1/U1": {"p": 0.2}, "R2/U2": {"p": 0.2}, "LR1/U1-2": {"p": 0.2}, "UP/U2-3": {"p": 0.2}, "L2/U3": {"p": 0.2}}}))
    knock = tmp_path / "knock.json"
    knock.write_text(json.dumps({"device": "kong-knockover", "by_group": {
        "groove": {"standing": 0.5, "knocked": 0.5}, "adjacent": {"standing": 0.9, "pushed": 0.1}}}))
    run = play("--seats", "ai,random", "--seed", "1", "--outcomes", f"table:{die},{spinner},{knock}")
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1].startswith("result: ")


@pytest.mark.parametrize("args,message", [
    (["--seats", "ai", "--outcomes", "uniform"], "King Kong needs 2-6 seats, not 1"),
    (["--seats", ",".join(["ai"] * 7), "--outcomes", "uniform"], "King Kong needs 2-6 seats, not 7"),
    (["--seats", "ai,wizard", "--outcomes", "uniform"], "unknown seat kind 'wizard'"),
    (["--seats", "ai,human", "--outcomes", "uniform"], "a human seat needs the window"),
    (["--outcomes", "coins"], "expected physics, uniform or table:DIE.json,SPINNER.json,KNOCK.json"),
    (["--seats", "ai,ai", "--outcomes", "table:"], "expected physics, uniform or table:"),
    (["--outcomes", "table:/nonexistent/die.json"], "outcome table not found"),
    (["--seed", "-1", "--outcomes", "uniform"], "must be 0 or more"),
])
def test_bad_king_kong_input(capsys, args, message):
    assert main(["play", "king-kong", "--headless", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_the_king_kong_rules_load_no_physics_and_no_view():
    code = ("import sys, tabletop.games.king_kong.chance, tabletop.games.king_kong.ai; "
            "print(sorted(m for m in sys.modules if 'bullet' in m or 'panda' in m or m.startswith('tabletop.sim.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['tabletop.sim.errors', 'tabletop.sim.paths', 'tabletop.sim.spec']"
