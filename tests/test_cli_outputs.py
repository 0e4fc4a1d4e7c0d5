"""What the commands and the Python API write and print: output names checked before any work, a
result never lost to a plot that fails after the run, `play` with the packaged measured tables from
any folder, a resume refused with the parameter that differs, and tables that fit 80 columns
without cutting a key or a header."""
from __future__ import annotations

import errno
import json
import subprocess
import sys
import time

import pytest

import tabletop
from tabletop.cli import main
from tabletop.sim.errors import InputError

SWEEP_PARAM = "materials.pairs.felt/polystyrene.friction"


def one_error_line(err: str) -> str:
    """The one line a failed command wrote on stderr."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tabletop: error: "), err
    return lines[0]


@pytest.fixture
def narrow(monkeypatch):
    """An 80-column terminal for rich."""
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.delenv("LINES", raising=False)


def failing_save(monkeypatch):
    """Every plot fails as a full disk would, after the run."""
    import tabletop.sim.analysis as analysis

    def full(fig, path):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(analysis, "save_figure", full)


def captured_figures(monkeypatch) -> list:
    """The figures the plots save (drawn, then written as usual)."""
    import tabletop.sim.analysis as analysis

    real, figures = analysis.save_figure, []

    def keep(fig, path):
        fig.canvas.draw()
        figures.append(fig)
        real(fig, path)

    monkeypatch.setattr(analysis, "save_figure", keep)
    return figures


# -- item 3: the API's own terms, quiet play, the packaged tables, the main guard -----------------
def test_api_human_seat_message_names_the_apis_terms(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError) as caught:
        tabletop.play("knossos", seats=["human", "ai"])
    message = str(caught.value)
    assert "--headless" not in message and "tabletop.play()" in message and "\n" not in message


def test_api_play_with_echo_off_prints_nothing_even_when_recording(tmp_path, capsys):
    game = tabletop.play("knossos", seats=["ai", "ai"], seed=2, outcomes="measured", record=tmp_path / "k.ttr")
    assert capsys.readouterr() == ("", "")
    assert (tmp_path / "k.ttr").is_file() and game.lines[-1] == game.result


def test_play_takes_the_packaged_measured_tables_from_any_folder(tmp_path, monkeypatch, capsys):
    """outcomes="measured" (analyze's default) and a bare packaged name work in an empty folder; the
    command takes `--outcomes measured` too."""
    monkeypatch.chdir(tmp_path)
    measured = tabletop.play("knossos", seats="ai,ai", seed=5, outcomes="measured")
    named = tabletop.play("knossos", seats="ai,ai", seed=5, outcomes="table:sticks-10k-seed1.json")
    checkout = tabletop.play("knossos", seats="ai,ai", seed=5, outcomes="table:assets/measured/sticks-10k-seed1.json")
    assert measured.lines[1:] == named.lines[1:] == checkout.lines[1:]
    assert main(["play", "knossos", "--headless", "--outcomes", "measured", "--seed", "5", "--no-record"]) == 0
    assert capsys.readouterr().out.splitlines()[1:] == measured.lines[1:]
    assert list(tmp_path.iterdir()) == []


def test_workers_without_a_main_guard_fail_in_one_clear_line(tmp_path):
    """Each spawned worker leaves quietly; the script's own process says what to do in one line."""
    (tmp_path / "bare.py").write_text("import tabletop\nprint(tabletop.estimate('die', trials=4, seed=1, workers=2))\n")
    run = subprocess.run([sys.executable, "bare.py"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert run.returncode == 1
    assert run.stderr.count("Traceback") == 1 and len(run.stderr.splitlines()) < 10, run.stderr
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: ") and 'under `if __name__ == "__main__":`' in last


# -- item 4: output names checked first; the result written before the plot ----------------------
@pytest.mark.parametrize("argv", [
    ["estimate", "die", "--trials", "20"],
    ["analyze", "knossos", "--games", "4"],
    ["sweep", "die", "--param", f"{SWEEP_PARAM}=0.3:0.5:2", "--trials", "5"],
])
@pytest.mark.parametrize("plot", ["p.txt", "p"])
def test_a_plot_name_matplotlib_cannot_write_is_refused_before_any_work(tmp_path, capsys, argv, plot):
    out = tmp_path / "o.json"
    started = time.perf_counter()
    assert main(argv + ["--quiet", "--out", str(out), "--plot", str(tmp_path / plot)]) == 2
    assert time.perf_counter() - started < 5
    line = one_error_line(capsys.readouterr().err)
    assert f"--plot {tmp_path / plot}" in line and ".png" in line
    assert list(tmp_path.iterdir()) == []


def test_the_api_refuses_a_bad_plot_name_before_any_work(tmp_path):
    with pytest.raises(ValueError, match=r"--plot .*p\.txt: format '\.txt'"):
        tabletop.estimate("die", trials=20, out=tmp_path / "o.json", plot=tmp_path / "p.txt")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv", [
    ["estimate", "die", "--trials", "20"],
    ["analyze", "knossos", "--games", "4"],
    ["sweep", "die", "--param", f"{SWEEP_PARAM}=0.3:0.5:2", "--trials", "5"],
])
def test_a_plot_that_fails_after_the_run_loses_no_result(tmp_path, capsys, monkeypatch, argv):
    failing_save(monkeypatch)
    out = tmp_path / "o.json"
    assert main(argv + ["--quiet", "--out", str(out), "--plot", str(tmp_path / "p.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("tabletop: error: --plot ") and "No space left on device" in err[-1]
    assert f"the result is in {out}" in err[-1] and f"wrote {out}" in err
    assert sum(line.startswith("tabletop: error") for line in err) == 1
    assert json.loads(out.read_text())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.json"]   # no checkpoint left, no plot


def test_an_out_that_fails_after_the_run_keeps_the_checkpoint(tmp_path, capsys, monkeypatch):
    import tabletop.sim.output as output

    real = output.write_json_atomic

    def full(path, data):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(output, "write_json_atomic", full)
    out = tmp_path / "o.json"
    argv = ["estimate", "die", "--trials", "20", "--quiet", "--out", str(out)]
    assert main(argv) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "--out" in line and "No space left on device" in line and "--resume" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["o.json.checkpoint.jsonl"]
    monkeypatch.setattr(output, "write_json_atomic", real)
    assert main(argv + ["--resume"]) == 0
    assert json.loads(out.read_text())["trials"] == 20 and sorted(p.name for p in tmp_path.iterdir()) == ["o.json"]


def test_the_api_keeps_the_result_when_the_plot_fails(tmp_path, monkeypatch):
    failing_save(monkeypatch)
    with pytest.raises(InputError) as caught:
        tabletop.estimate("die", trials=20, out=tmp_path / "o.json", plot=tmp_path / "p.png")
    assert caught.value.result["trials"] == 20
    assert json.loads((tmp_path / "o.json").read_text())["counts"] == caught.value.result["counts"]


# -- item 8 ---------------------------------------------------------------------------------------
def test_no_command_names_the_commands_in_one_line(capsys):
    assert main([]) == 2
    out, err = capsys.readouterr()
    line = one_error_line(err)
    assert out == "" and "estimate" in line and "analyze" in line and "tabletop --help" in line


def test_a_refused_resume_names_the_parameter_that_differs(tmp_path, capsys, monkeypatch):
    from tabletop.sim.checkpoint import Checkpoint, checkpoint_path

    monkeypatch.setattr(Checkpoint, "remove", lambda self: None)   # keep the checkpoint of a finished run
    out = tmp_path / "o.json"
    assert main(["estimate", "die", "--trials", "20", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    again = ["estimate", "die", "--trials", "20", "--quiet", "--out", str(out), "--resume"]
    assert main(again + ["--set", "physics.solver_iterations=60"]) == 2
    line = one_error_line(capsys.readouterr().err)
    assert "physics.solver_iterations 50 there, 60 now" in line
    # a checkpoint of an older build (the parameters' digest only) is still read when they agree ...
    path = checkpoint_path(out)
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    del head["param_values"]
    path.write_text("\n".join([json.dumps(head)] + lines[1:]) + "\n")
    assert main(again) == 0
    assert "resuming: 20 trials" in capsys.readouterr().err
    # ... and refused in one line when they do not
    assert main(again + ["--set", "physics.solver_iterations=60"]) == 2
    assert "an older checkpoint that does not say which" in one_error_line(capsys.readouterr().err)


def test_bench_prints_a_summary_table_and_writes_the_json_only_with_out(tmp_path, capsys, narrow):
    argv = ["bench", "--quick", "--devices", "die", "--trials", "2"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert '"devices"' not in out and "{" not in out
    assert "trials/s" in out and "…" not in out and len(out.splitlines()) < 20
    assert max(len(line) for line in out.splitlines() if line[:1] in "│┃┏┡└") <= 80
    assert main(argv + ["--out", str(tmp_path / "b.json")]) == 0
    assert json.loads((tmp_path / "b.json").read_text())["devices"]["die"]["trials"] == 2


@pytest.mark.parametrize("compare", [[], ["--compare", "fair"]])
def test_analyze_tables_never_break_a_key_at_80_columns(capsys, narrow, compare):
    assert main(["analyze", "knossos", "--games", "4", "--quiet"] + compare) == 0
    out = capsys.readouterr().out
    table = [line for line in out.splitlines() if line[:1] in "│┃┏┡└"]
    assert table and max(len(line) for line in table) <= 80 and "…" not in out
    keys = {cell.split("│")[1].strip() for cell in table if cell.startswith("│")}
    for key in ("first_player.advantage", "first_player.win_rate", "sticks.threes.per_match"):
        assert key in keys


def test_sweep_prints_what_it_wrote_and_cuts_no_header_or_title(tmp_path, capsys, monkeypatch, narrow):
    figures = captured_figures(monkeypatch)
    files = {"--out": tmp_path / "s.json", "--csv": tmp_path / "s.csv", "--plot": tmp_path / "s.png"}
    argv = ["sweep", "die", "--param", f"{SWEEP_PARAM}=0.3:0.5:2", "--trials", "5", "--quiet"]
    assert main(argv + [x for option, path in files.items() for x in (option, str(path))]) == 0
    out, err = capsys.readouterr()
    for path in files.values():
        assert f"wrote {path}" in err.splitlines() and path.is_file()
    assert "…" not in out and max(len(line) for line in out.splitlines()) <= 80
    header = "".join(line.split("┃")[1].strip() for line in out.splitlines() if line.startswith("┃"))
    assert header == SWEEP_PARAM
    (fig,) = figures
    title = fig.axes[0].title.get_window_extent()
    box = fig.bbox
    assert box.x0 <= title.x0 and title.x1 <= box.x1 and title.y1 <= box.y1
    assert SWEEP_PARAM in fig.axes[0].get_title().replace("\n", "")


def test_a_sweep_of_the_craters_seats_fits_80_columns():
    from rich.console import Console

    from tabletop.cli.show import _sweep_table

    labels = [f"cave{c}/seat{s}" for c in (1, 2, 3) for s in (1, 2)]
    rows = [{"value": v, "probabilities": {k: {"p": 1 / 6} for k in labels}} for v in (0.3, 0.4, 0.5)]
    console = Console(width=80, record=True, file=open("/dev/null", "w"))
    console.print(_sweep_table("crater", 200, "materials.pairs.glass/polystyrene.friction", labels, rows, 80))
    text = console.export_text()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    for label in labels:
        assert label.split("/")[0] in text and label.split("/")[1] in text


def test_the_estimate_table_says_what_its_labels_and_statuses_mean(capsys):
    from tabletop.app.outcomes import outcome_notes

    assert main(["estimate", "die", "--trials", "20", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "labels: 1-6: the face on top" in out and "lodged: cocked" in out
    assert "unsettled: still moving" in out and "escaped: a body left the model" in out
    tipper = " ".join(outcome_notes("tipper"))
    assert "J: jump" in tipper and "1-6: the slot" in tipper and "outside every slot" in tipper
    assert "lodged: never" in " ".join(outcome_notes("spinner"))


@pytest.mark.parametrize("device,xlabel,fair", [("die", "face on top", "each 1/6"),
                                                ("sticks", "the sticks' throw", "two fair coins")])
def test_estimate_plots_title_the_x_axis_and_draw_the_fair_odds(tmp_path, monkeypatch, device, xlabel, fair):
    figures = captured_figures(monkeypatch)
    assert main(["estimate", device, "--trials", "20", "--quiet", "--plot", str(tmp_path / "p.png")]) == 0
    (fig,) = figures
    ax = fig.axes[0]
    assert ax.get_xlabel() == xlabel
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("fair odds: ") and fair in t for t in legend), legend
    assert (tmp_path / "p.png").is_file()
