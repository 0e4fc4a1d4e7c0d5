"""The Python API (tabletop/api.py): the README's example runs as written (with small trial counts),
an estimate's dict is the command's --out, a played game is the command's log, bad arguments are
ValueErrors with the command's message, and `import tabletop` stays light."""
from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import tabletop
from tabletop.sim.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
STICKS_TABLE = ROOT / "assets" / "measured" / "sticks-10k-seed1.json"


def readme_example() -> str:
    """The first ```python block of the README's "Python API" section."""
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Python API\n", 1)[1].split("\n## ", 1)[0]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "no python block in the README's Python API section"
    return match.group(1)


@pytest.mark.slow
def test_the_readme_example_runs(tmp_path):
    """Exactly the README's code, its trial counts cut to 12, saved as a script and run in an empty
    folder (the measured tables are package data: no file of the checkout is at hand); its workers
    (spawned processes that import the script) need the `if __name__ == "__main__":` guard a script
    must have."""
    code = readme_example()
    small, n = re.subn(r"trials=1000\b", "trials=12", code)
    assert n >= 2
    assert "workers=" not in code or '__name__ == "__main__"' in code, \
        "the README's example starts worker processes outside `if __name__ == \"__main__\":`"
    (tmp_path / "example.py").write_text(small)
    run = subprocess.run([sys.executable, "example.py"], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[0].startswith("<EstimateResult crater: 12 trials, seed 1")
    assert lines[-1] == "--trials: must be at least 1, got 0"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["example.py", "knossos.ttr"]
    assert run.stderr == ""


@pytest.mark.slow
@pytest.mark.parametrize("device", ["spinner", "die"])
def test_estimate_to_dict_is_the_commands_out(tmp_path, device):
    """The same device, seed and trials: the API's dict has the command's --out counts, and every
    field but the timing."""
    run = subprocess.run([sys.executable, "-m", "tabletop.cli", "estimate", device, "--trials", "40", "--seed",
                          "1", "--quiet", "--out", "cli.json"], capture_output=True, text=True, cwd=tmp_path,
                         timeout=300)
    assert run.returncode == 0, run.stderr
    cli = json.loads((tmp_path / "cli.json").read_text())
    got = tabletop.estimate(device, trials=40, seed=1)
    api = got.to_dict()
    assert api["counts"] == cli["counts"]
    assert set(api) == set(cli)
    assert {k: v for k, v in api.items() if k != "elapsed_s"} == {k: v for k, v in cli.items() if k != "elapsed_s"}
    assert got.counts == cli["counts"] and got.trials == 40 and got.device == device
    label, pr = next(iter(got.probabilities.items()))
    assert (pr.p, list(pr.ci95)) == (cli["probabilities"][label]["p"], cli["probabilities"][label]["ci95"])
    assert repr(got).startswith(f"<EstimateResult {device}: 40 trials, seed 1, ")
    assert got.to_dict() is not got.to_dict()         # a copy: changing it leaves the result alone


def test_estimate_options_map_to_the_commands(tmp_path):
    """set= and overrides= are --set (the value in the JSON), against= is --against, out= writes the file."""
    a = tabletop.estimate("spinner", trials=8, seed=2, set={"gesture.speed": [6.0, 8.0]}, against="uniform",
                          out=tmp_path / "a.json")
    b = tabletop.estimate("spinner", trials=8, seed=2, overrides=["gesture.speed=[6.0,8.0]"])
    assert a.counts == b.counts
    assert a["overrides"] == b["overrides"] == {"gesture.speed": [6.0, 8.0]}
    assert a["against"]["name"] == "uniform" and "p_value" in a["against"]
    assert json.loads((tmp_path / "a.json").read_text())["counts"] == a.counts
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json"]


@pytest.mark.parametrize("kwargs,message", [
    (dict(device="spinner", trials=0), "--trials: must be at least 1, got 0"),
    (dict(device="spinner", seed=-1), "--seed: must be 0 or more, got -1"),
    (dict(device="wheel"), "unknown device 'wheel'; choose one of: crater, die, "),
    (dict(device="spinner", set={"no.such": 1}), "--set: unknown parameter 'no.such'"),
    (dict(device="spinner", scheduler="nonsense"), "--scheduler: expected tcp://HOST:PORT, got 'nonsense'"),
    (dict(device="spinner", out="/nonexistent/x.json"), "--out /nonexistent/x.json: folder /nonexistent does not"),
    (dict(device="spinner", resume=True), "--resume needs --out"),
    (dict(device="spinner", workers=True), "--workers: expected a whole number, got True"),
    (dict(device=3), "device: expected a device name, got 3"),
])
def test_bad_estimate_arguments_are_value_errors_with_the_commands_message(tmp_path, monkeypatch, kwargs, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as caught:
        tabletop.estimate(kwargs.pop("device"), **{"trials": 4, **kwargs})
    assert isinstance(caught.value, tabletop.InputError)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_play_returns_the_finished_game_with_the_commands_log(tmp_path):
    outcomes = f"table:{STICKS_TABLE}"
    run = subprocess.run([sys.executable, "-m", "tabletop.cli", "play", "knossos", "--headless", "--seed", "3",
                          "--outcomes", outcomes, "--record", "cli.ttr"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    game = tabletop.play("knossos", seats=["ai", "ai"], seed=3, outcomes=outcomes)
    assert game.lines == run.stdout.splitlines()
    assert game.state.is_terminal() and game.record is None
    assert game.result == game.lines[-1] and game.winner in game.result
    replay = tabletop.open_replay(tmp_path / "cli.ttr")
    assert replay.lines == game.lines
    assert replay.history == game.history and len(game.history) > 20
    assert replay.result == {"winner": game.winner, "turns": game.turns}
    assert replay.kind == "game" and replay.game == "knossos" and replay.seed == 3 and replay.complete
    assert repr(game) == f"<PlayedGame knossos, seed 3, seats ai,ai: {game.result}>"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cli.ttr"]


def test_play_writes_nothing_unless_asked_and_records_when_asked(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    game = tabletop.play("king-kong", seats="ai,random", seed=4, outcomes="uniform")
    assert list(tmp_path.iterdir()) == []
    assert capsys.readouterr().out == ""                 # no echo unless asked
    assert game.lines[-1].startswith("result: ") and game.result == game.lines[-1]
    again = tabletop.play("king-kong", seats=["ai", "random"], seed=4, outcomes="uniform", record="kk.ttr", echo=True)
    assert again.lines == game.lines and again.record == Path("kk.ttr")
    assert capsys.readouterr().out.splitlines() == game.lines
    assert tabletop.open_replay("kk.ttr").lines == game.lines


@pytest.mark.parametrize("game,kwargs,message", [
    ("chess", {}, "unknown game 'chess'; choose one of: king-kong, king-of-the-hill, knossos"),
    ("knossos", dict(seats=["ai"]), "Knossos needs exactly 2 seats, not 1"),
    ("knossos", dict(seats=["ai", "human"]), "a human seat needs the window"),
    ("knossos", dict(seats=["ai", "wizard"]), "--seats: unknown seat kind 'wizard'"),
    ("knossos", dict(outcomes="coins"), "--outcomes: expected physics or table:FILE.json, got 'coins'"),
    ("knossos", dict(variant="special-two-player"), "--variant: only for king-of-the-hill, not knossos"),
    ("king-of-the-hill", dict(variant="giant"), "--variant: unknown variant 'giant'"),
    ("knossos", dict(seed=-2), "--seed: must be 0 or more, got -2"),
    ("knossos", dict(record="/nonexistent/x.ttr"), "--record /nonexistent/x.ttr: folder /nonexistent does not"),
])
def test_bad_play_arguments_are_value_errors_with_the_commands_message(tmp_path, monkeypatch, game, kwargs, message):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as caught:
        tabletop.play(game, **kwargs)
    assert isinstance(caught.value, InputError)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_open_replay_of_a_missing_file_is_a_value_error(tmp_path):
    with pytest.raises(ValueError, match="replay not found"):
        tabletop.open_replay(tmp_path / "none.ttr")


def test_import_tabletop_is_light(tmp_path):
    """`import tabletop` (and naming its API) loads none of tabletop.sim or tabletop.games, nor
    numpy, PyBullet or Panda3D: each call imports what it runs."""
    code = ("import sys, tabletop\nf = tabletop.estimate, tabletop.play, tabletop.open_replay\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('tabletop', 'numpy', 'pybullet', 'panda3d', "
            "'rich', 'scipy', 'matplotlib')))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "['tabletop', 'tabletop.api']"
    assert callable(tabletop.estimate) and tabletop.InputError is InputError
    with pytest.raises(AttributeError):
        tabletop.no_such_thing


@pytest.mark.slow
def test_workers_from_a_script_without_a_main_guard_say_what_to_do(tmp_path):
    """Spawned workers import the script; one that calls estimate at its top level gets a hint (the
    same script under `if __name__ == "__main__":` runs)."""
    call = "tabletop.estimate('die', trials=4, seed=1, workers=2).counts"
    (tmp_path / "bare.py").write_text(f"import tabletop\nprint({call})\n")
    (tmp_path / "guarded.py").write_text(f"import tabletop\nif __name__ == '__main__':\n    print({call})\n")
    bare = subprocess.run([sys.executable, "bare.py"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert bare.returncode == 1
    assert 'under `if __name__ == "__main__":`' in bare.stderr.strip().splitlines()[-1]
    guarded = subprocess.run([sys.executable, "guarded.py"], capture_output=True, text=True, cwd=tmp_path,
                             timeout=300)
    assert guarded.returncode == 0, guarded.stderr
    assert sum(ast.literal_eval(guarded.stdout).values()) == 4
