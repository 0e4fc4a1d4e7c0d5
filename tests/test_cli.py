"""The `tabletop` command end to end: estimate on small trial counts, and bad input."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tabletop.cli import main


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tabletop.cli", *args], capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("device,trials", [("tipper", 12), ("crater", 6)])
def test_estimate_end_to_end(tmp_path, device, trials):
    """A small estimate prints the outcome table and writes a complete JSON result."""
    out = tmp_path / f"{device}.json"
    proc = run_cli("estimate", device, "--trials", str(trials), "--seed", "5", "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    for key in ("device", "trials", "settled", "unsettled", "escaped", "seed", "counts", "probabilities",
                "params", "versions", "elapsed_s"):
        assert key in data, key
    assert data["device"] == device and data["trials"] == trials and data["seed"] == 5
    assert data["escaped"] == 0
    assert sum(data["counts"].values()) + data["unsettled"] + data["escaped"] + data["lodged"] == trials
    for label, pr in data["probabilities"].items():
        lo, hi = pr["ci95"]
        assert 0.0 <= lo <= pr["p"] <= hi <= 1.0, label
    assert data["versions"]["pybullet"]
    assert "outcome" in proc.stdout and "95% interval" in proc.stdout
    if device == "crater":
        assert sum(g["trials"] for g in data["by_group"].values()) == trials


@pytest.mark.slow
def test_estimate_counts_do_not_depend_on_workers(tmp_path):
    """Same seed -> identical counts with one process and with two worker processes."""
    results = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.json"
        proc = run_cli("estimate", "tipper", "--trials", "10", "--seed", "9", "--workers", workers,
                       "--out", str(out), "--quiet")
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(out.read_text()))
    assert results[0]["counts"] == results[1]["counts"]
    assert results[0]["unsettled"] == results[1]["unsettled"]


@pytest.mark.parametrize("args,message", [
    (["estimate", "roulette"], "unknown device 'roulette'"),
    (["estimate", "tipper", "--trials", "0"], "--trials: must be at least 1"),
    (["estimate", "tipper", "--trials", "-5"], "--trials: must be at least 1"),
    (["estimate", "tipper", "--trials", "many"], "--trials: expected a whole number"),
    (["estimate", "tipper", "--workers", "0"], "--workers: must be at least 1"),
    (["estimate", "tipper", "--spec", "/nonexistent/tipper.toml"], "spec file not found"),
    (["estimate", "crater", "--out", "/nonexistent/dir/out.json"], "does not exist"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and err.startswith("tabletop: error: ")


def test_invalid_spec_is_rejected_without_output(tmp_path, capsys):
    """A spec with an impossible value is named in one line; no output file is written."""
    from tabletop.gamekit.devices import default_spec

    text = default_spec("crater").read_text()
    bad = tmp_path / "hill.toml"
    bad.write_text(text + "\n[this is not toml\n")
    out = tmp_path / "out.json"
    assert main(["estimate", "crater", "--spec", str(bad), "--out", str(out)]) == 2
    assert "invalid TOML" in capsys.readouterr().err
    assert not out.exists()


def test_out_is_a_folder(tmp_path, capsys):
    assert main(["estimate", "tipper", "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["estimate", "die", "--trials", "2", "--quiet", "--out", "/proc/x.json"],
    ["estimate", "die", "--trials", "2", "--quiet", "--plot", "/proc/x.png"],
    ["sweep", "die", "--param", "die.size=0.015:0.016:2", "--trials", "2", "--quiet", "--csv", "/proc/x.csv"],
    ["bench", "--quick", "--devices", "die", "--trials", "2", "--out", "/proc/x.json"],
    ["play", "knossos", "--headless", "--variant", "special-two-player"],
    ["play", "knossos", "--headless", "--pace", "-1"],
])
def test_unwritable_outputs_and_bad_play_options_are_one_line_errors(argv, capsys):
    """A folder that says it is writable but is not (/proc, for root too) fails before any work."""
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tabletop: error: ")


def test_ctrl_c_anywhere_is_one_line_and_exit_130(monkeypatch, capsys):
    from tabletop.cli import devices

    def interrupted(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(devices, "sweep", interrupted)
    assert main(["sweep", "die", "--param", "die.size=0.015:0.016:2"]) == 130
    assert capsys.readouterr().err == "tabletop: interrupted\n"


@pytest.mark.slow
@pytest.mark.parametrize("umask,mode", [("022", 0o644), ("002", 0o664)])
def test_result_files_and_plots_get_the_same_ordinary_permissions(tmp_path, umask, mode):
    """--out, --plot and sweep's --csv are written to a temp file and renamed: each gets the mode an
    ordinary new file gets under the user's umask (not mkstemp's private 0600, not a fixed 0644)."""
    import subprocess
    import sys

    code = ("import sys; from tabletop.cli import main; "
            "sys.exit(main(['estimate', 'spinner', '--trials', '6', '--seed', '1', '--quiet', "
            "'--out', 'e.json', '--plot', 'e.png']) or main(['sweep', 'spinner', '--param', "
            "'physics.solver_iterations=40:50:2', '--trials', '4', '--csv', 's.csv', '--out', 's.json']))")
    r = subprocess.run(["bash", "-c", f"umask {umask} && {sys.executable} -c \"{code}\""], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    modes = {name: (tmp_path / name).stat().st_mode & 0o777 for name in ("e.json", "e.png", "s.csv", "s.json")}
    assert modes == dict.fromkeys(modes, mode)


def test_every_option_of_every_command_says_what_it_does(monkeypatch):
    """--help of every command explains every option (no bare `--seed SEED`), and play's help lists
    each game's seat counts and every --outcomes source."""
    import argparse

    from tabletop.cli.parser import build_parser

    monkeypatch.setenv("COLUMNS", "400")          # no wrapping inside hyphenated words
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    bare = [f"{name} {opt.option_strings[0]}" for name, p in sub.choices.items() for opt in p._actions
            if opt.option_strings and opt.help in (None, "") and opt.dest != "help"]
    assert bare == []
    text = " ".join(sub.choices["play"].format_help().split())
    for words in ("king-of-the-hill 2-4", "knossos 2", "king-kong 2-6", "physics", "table:FILE.json", "uniform"):
        assert words in text
