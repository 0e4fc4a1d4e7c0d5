"""Resumable estimate runs: checkpoints beside --out, kill and resume, Ctrl-C, precision targets."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabletop.cli import main

ARGS = ["estimate", "tipper", "--trials", "40", "--seed", "3", "--quiet"]


def _ctrl_c_heard() -> None:
    """In the child: Ctrl-C as a terminal sends it (a test run started in the background, as `cmd &`
    in a script, has SIGINT ignored, and a child inheriting that would never hear the signal)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tabletop.cli", *ARGS, "--out", str(out), *extra],
                            preexec_fn=_ctrl_c_heard,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_chunks(ckpt: Path, n: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if ckpt.exists() and len(ckpt.read_text().splitlines()) >= n + 1:
            return
        time.sleep(0.05)
    raise AssertionError("the run finished or stalled before it could be interrupted")


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole") / "whole.json"
    assert main([*ARGS, "--out", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.slow
def test_killed_then_resumed_equals_uninterrupted(tmp_path, uninterrupted):
    """A run killed part-way (SIGKILL) and resumed neither loses nor repeats a trial."""
    out = tmp_path / "r.json"
    ckpt = tmp_path / "r.json.checkpoint.jsonl"
    proc = start(out)
    wait_for_chunks(ckpt, 2, proc)
    proc.kill()
    proc.wait()
    assert not out.exists()
    kept = sum(len(json.loads(line)["records"]) for line in ckpt.read_text().splitlines()[1:])
    assert 0 < kept < 40
    assert main([*ARGS, "--out", str(out), "--resume"]) == 0
    result = json.loads(out.read_text())
    assert result["counts"] == uninterrupted["counts"] and result["trials"] == 40
    assert result["steps"] == uninterrupted["steps"]      # the same trials, each run once
    assert not ckpt.exists()


@pytest.mark.slow
def test_ctrl_c_stops_cleanly_and_says_how_to_resume(tmp_path, uninterrupted):
    """Ctrl-C on a run of two workers, after its first chunk (200 die throws, so that it cannot end
    first): exit 130, the resume command said, the checkpoint kept; the
    same command with --resume finishes it, every trial counted once."""
    out = tmp_path / "c.json"
    ckpt = tmp_path / "c.json.checkpoint.jsonl"
    many = ["estimate", "die", "--trials", "200", "--seed", "3", "--quiet"]   # the die: the quickest device
    proc = subprocess.Popen([sys.executable, "-m", "tabletop.cli", *many, "--out", str(out), "--workers", "2"],
                            preexec_fn=_ctrl_c_heard,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_chunks(ckpt, 1, proc)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "resume with:" in err and "--resume" in err and "Traceback" not in err
    assert ckpt.exists() and not out.exists()
    assert main([*many, "--out", str(out), "--resume"]) == 0
    result = json.loads(out.read_text())
    assert result["trials"] == 200 and not ckpt.exists()
    assert result["labelled"] + result["unsettled"] + result["escaped"] + result["lodged"] == 200


@pytest.mark.slow
def test_a_torn_last_line_is_cut_off(tmp_path, uninterrupted):
    """A crash in the middle of writing a chunk leaves a torn line; resume drops it and reruns those trials."""
    out = tmp_path / "t.json"
    ckpt = tmp_path / "t.json.checkpoint.jsonl"
    proc = start(out)
    wait_for_chunks(ckpt, 2, proc)
    proc.kill()
    proc.wait()
    with ckpt.open("a") as fh:
        fh.write('{"records": [{"index": 39, "lab')
    assert main([*ARGS, "--out", str(out), "--resume"]) == 0
    assert json.loads(out.read_text())["counts"] == uninterrupted["counts"]


@pytest.mark.parametrize("change,message", [
    (["--seed", "4"], "from another run (seed 3, this run 4)"),
    (["--spec", "OTHER"], "from another run (params"),
])
def test_a_checkpoint_of_another_run_is_refused_and_kept(tmp_path, capsys, change, message):
    out = tmp_path / "x.json"
    ckpt = tmp_path / "x.json.checkpoint.jsonl"
    proc = start(out)
    wait_for_chunks(ckpt, 1, proc)
    proc.kill()
    proc.wait()
    before = ckpt.read_bytes()
    if change[0] == "--spec":
        from tabletop.gamekit.devices import default_spec

        other = tmp_path / "tipper.toml"
        other.write_text(default_spec("tipper").read_text().replace("solver_iterations = 50", "solver_iterations = 60"))
        change = ["--spec", str(other)]
    args = [*ARGS, "--out", str(out), "--resume", *change]
    args[args.index("--seed") + 1] = "3"
    if change[0] == "--seed":
        args[args.index("--seed") + 1] = change[1]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert ckpt.read_bytes() == before


def test_an_existing_checkpoint_needs_resume(tmp_path, capsys):
    out = tmp_path / "e.json"
    ckpt = tmp_path / "e.json.checkpoint.jsonl"
    ckpt.write_text('{"format": "tabletop-checkpoint", "version": 1}\n')
    assert main([*ARGS, "--out", str(out)]) == 2
    assert "add --resume" in capsys.readouterr().err
    assert ckpt.read_text() == '{"format": "tabletop-checkpoint", "version": 1}\n'


@pytest.mark.parametrize("args,message", [
    (["estimate", "tipper", "--resume"], "--resume needs --out"),
    (["estimate", "tipper", "--precision", "0"], "--precision: a 95% half-width between 0 and 0.5"),
    (["estimate", "tipper", "--precision", "0.7"], "--precision: a 95% half-width between 0 and 0.5"),
])
def test_bad_resume_and_precision_input(capsys, args, message):
    assert main(args) == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_precision_runs_until_the_intervals_are_narrow_or_the_cap(tmp_path):
    """With --precision the run doubles its trials (50, 100, ...) until every 95% half-width is small
    enough; a cap stops it first and the JSON says the target was not met."""
    out = tmp_path / "p.json"
    assert main(["estimate", "tipper", "--seed", "1", "--precision", "0.1", "--quiet", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    p = result["precision"]
    assert p["met"] and p["trials_needed"] == result["trials"] == 100 and p["reached"] <= 0.1
    assert all((v["ci95"][1] - v["ci95"][0]) / 2 <= 0.1 for v in result["probabilities"].values())
    assert main(["estimate", "tipper", "--seed", "1", "--precision", "0.05", "--trials", "60", "--quiet",
                 "--out", str(out)]) == 0
    p = json.loads(out.read_text())["precision"]
    assert not p["met"] and p["trials_needed"] == 60 and p["reached"] > 0.05
