"""`tabletop converge`: the paired statistics and the three-way verdict on hand-made records, and the
command end to end."""
from __future__ import annotations

import json
import math

import pytest

from tabletop.cli import main
from tabletop.sim import converge as cv
from tabletop.sim.errors import InputError

LABELS = ("a", "b", "c")


def records(labels, statuses=None) -> list[dict]:
    """Batch records of trials 0..n-1 with these labels (None: a trial with `statuses[i]`)."""
    statuses = statuses or {}
    return [{"index": i, "label": lb, "status": statuses.get(i, "ok" if lb is not None else "unsettled"),
             "group": None, "sim_time": 1.0, "steps": 10} for i, lb in enumerate(labels)]


def mixed(n: int) -> list[str]:
    return [LABELS[i % 3] for i in range(n)]


def test_a_refinement_identical_to_the_base_converges_given_enough_trials():
    base = records(mixed(600))
    c = cv.check("same", (("physics.timestep", "0.001"),), LABELS, base, base)
    assert c["verdict"] == cv.CONVERGED and c["passed"] and c["failed"] == [] and c["trials_needed"] is None
    assert c["p_value"] == 1.0 and c["chi2"] == 0.0 and c["dof"] == 2
    assert c["max_abs_dp"] == 0.0
    half = cv.Z95 * math.sqrt(2) / 602          # Bonett-Price with no trial changed: one in, one out added
    for v in c["labels"].values():
        assert v["dp"] == 0.0 and v["dp_ci95"] == pytest.approx([-half, half])
        assert v["p_base"] == v["p_refined"] == pytest.approx(1 / 3) and v["band"] == "inside"
    assert c["stuart_maxwell"]["chi2"] == 0.0 and c["stuart_maxwell"]["p_value"] == 1.0
    assert c["overrides"] == {"physics.timestep": 0.001}


def test_a_clearly_shifted_refinement_is_not_converged():
    """A sixth of the trials move from b to a: the paired dp and its interval show a change surely over
    0.02; both tests (reported, not judged) reject too."""
    base_labels = mixed(300)
    refined_labels = ["a" if lb == "b" and i % 2 else lb for i, lb in enumerate(base_labels)]
    c = cv.check("shifted", (), LABELS, records(base_labels), records(refined_labels))
    assert c["verdict"] == cv.NOT_CONVERGED and not c["passed"] and c["trials_needed"] is None
    assert c["max_abs_dp_label"] in ("a", "b") and c["max_abs_dp"] == pytest.approx(50 / 300)
    lo, hi = c["labels"]["a"]["dp_ci95"]
    assert cv.TOLERANCE < lo < c["labels"]["a"]["dp"] < hi
    assert c["labels"]["a"]["band"] == c["labels"]["b"]["band"] == "outside"
    assert c["labels"]["c"]["dp"] == 0.0
    assert c["p_value"] < 0.01 and c["stuart_maxwell"]["p_value"] < 1e-6
    assert [f.split(":")[0] for f in c["failed"]] == ["a", "b"] and "wholly outside +-0.02" in c["failed"][0]
    assert cv.describe_check(c).startswith("not converged (a: dp +0.1667")


def test_paired_interval_is_bonett_price_adjusted_wald():
    """4 of 20 trials move into a, none out: p12 = 5/22, p21 = 1/22, centre 4/22, variance
    (p12 + p21 - centre^2) / 22 (Bonett & Price 2012); dp itself stays 4/20."""
    base = records(["a"] * 10 + ["b"] * 10)
    other = records(["a"] * 10 + ["a"] * 4 + ["b"] * 6)
    d = cv.paired_differences(LABELS, base, other)["a"]
    centre = 4 / 22
    half = 1.959963984540054 * math.sqrt((6 / 22 - centre ** 2) / 22)
    assert d["dp"] == pytest.approx(0.2) and (d["moved_in"], d["moved_out"], d["paired"]) == (4, 0, 20)
    assert d["dp_ci95"] == pytest.approx([centre - half, centre + half])
    assert cv.paired_change_interval(0, 0, 0) == (0.0, (-1.0, 1.0))
    assert cv.paired_change_interval(0, 1, 1)[1][0] >= -1.0


def test_no_change_in_a_small_run_is_not_called_converged():
    """40 trials, none changed its label: the plain normal interval would be [0, 0]; this one keeps
    +-0.066, which straddles +-0.02, so the verdict is cannot tell, with the count that would do."""
    base = records(mixed(40))
    c = cv.check("same", (), LABELS, base, base)
    assert c["verdict"] == cv.CANNOT_TELL and not c["passed"] and c["undecided"] == list(LABELS)
    assert c["labels"]["a"]["dp_ci95"][1] == pytest.approx(0.066, abs=1e-3)
    assert c["trials_needed"] == 280                  # 1.96 sqrt(2) / (n + 2) <= 0.01 from n = 276, rounded up
    assert cv.describe_check(c) == ("cannot tell at 40 paired trials: the 95% intervals of a, b, c straddle "
                                    "+-0.02; needs about 280 trials")


@pytest.mark.parametrize("ci,where", [
    ((-0.02, 0.02), "inside"), ((-0.003, 0.0199), "inside"),
    ((0.003, 0.107), "straddles"), ((-0.021, 0.0), "straddles"), ((-0.05, 0.05), "straddles"),
    ((0.0201, 0.09), "outside"), ((-0.09, -0.021), "outside"),
])
def test_band_three_ways(ci, where):
    assert cv.band(ci) == where


def test_trials_needed_from_the_observed_paired_variance():
    """The issue's case: 200 paired trials, dp +0.055 with 95% [+0.001, +0.108] (20 trials moved in,
    9 out): cannot tell, and at the same rates the interval is +-0.01 wide from about 5,500 trials."""
    assert cv.band(cv.paired_change_interval(20, 9, 200)[1]) == "straddles"
    n = cv.trials_needed(20, 9, 200)
    assert n == 5500
    # the estimate is what it says: at about that many trials, the same rates give +-0.01 ...
    lo, hi = cv.paired_change_interval(round(20 / 200 * n), round(9 / 200 * n), n)[1]
    assert (hi - lo) / 2 == pytest.approx(cv.TARGET_HALF_WIDTH, rel=0.02)
    # ... and it is the normal-approximation count (z sd / 0.01)^2 to within the rounding
    var = (20 + 9) / 200 - (11 / 200) ** 2
    assert n == pytest.approx((cv.Z95 / cv.TARGET_HALF_WIDTH) ** 2 * var, rel=0.02)
    assert cv.trials_needed(0, 0, 40) == cv.trials_needed(0, 0, 4000) == 280   # rates, not counts
    assert cv.trials_needed(5, 5, 50) > cv.trials_needed(1, 1, 50)             # more change, more trials


def test_a_straddling_refinement_says_cannot_tell_and_how_many_trials_would_do():
    """200 trials, 20 move from b to a and 9 back: dp(a) = +0.055 [+0.001, +0.108] straddles +0.02."""
    base_labels = mixed(300)[:200]
    bs = [i for i, lb in enumerate(base_labels) if lb == "b"][:20]
    as_ = [i for i, lb in enumerate(base_labels) if lb == "a"][:9]
    refined = list(base_labels)
    for i in bs:
        refined[i] = "a"
    for i in as_:
        refined[i] = "b"
    c = cv.check("straddle", (), LABELS, records(base_labels), records(refined))
    assert c["labels"]["a"]["dp"] == pytest.approx(0.055)
    assert c["verdict"] == cv.CANNOT_TELL and c["failed"] == [] and c["undecided"] == ["a", "b"]
    assert c["trials_needed"] == 5500
    assert "needs about 5,500 trials" in cv.describe_check(c)


def test_only_trials_both_runs_labelled_are_paired():
    base = records(["a", "b", None, "c"])
    other = records(["a", None, "a", "c"])
    d = cv.paired_differences(LABELS, base, other)
    assert all(v["dp"] == 0.0 for v in d.values())          # trials 1 and 2 are left out
    assert cv.paired_table(LABELS, base, other).sum() == 2


def test_stuart_maxwell_on_a_hand_computed_3x3_table():
    """d = (10, -4, -6); S = [[20, -13], [-13, 24]] for the first two labels; d'S^-1 d = 1680/311."""
    sm = cv.stuart_maxwell([[20, 10, 5], [3, 30, 7], [2, 4, 25]])
    assert sm["chi2"] == pytest.approx(1680 / 311)
    assert sm["dof"] == 2 and "note" not in sm
    assert sm["p_value"] == pytest.approx(math.exp(-1680 / 311 / 2))   # the chi-square tail on 2 dof


def test_stuart_maxwell_with_a_singular_covariance_says_so():
    """Label c never trades trials: the pseudo-inverse on 1 dof gives McNemar's (b - c)^2 / (b + c) for a, b."""
    sm = cv.stuart_maxwell([[5, 2, 0], [1, 4, 0], [0, 0, 6]])
    assert sm["chi2"] == pytest.approx((2 - 1) ** 2 / 3) and sm["dof"] == 1
    assert "pseudo-inverse" in sm["note"]
    unseen = cv.stuart_maxwell([[5, 2, 0], [1, 4, 0], [0, 0, 0]])   # a label neither run gave is dropped
    assert unseen["chi2"] == pytest.approx(1 / 3) and unseen["dof"] == 1 and "note" not in unseen


def test_homogeneity_drops_labels_neither_run_gave():
    t = cv.homogeneity({"a": 30, "b": 10, "c": 0}, {"a": 10, "b": 30, "c": 0})
    assert t["dof"] == 1 and t["p_value"] < 1e-4
    assert cv.homogeneity({"a": 5, "b": 0}, {"a": 0, "b": 0})["p_value"] is None


@pytest.mark.parametrize("statuses,reason", [({4: "escaped"}, "more escapes"), ({4: "unsettled"}, "unsettled")])
def test_an_escape_or_an_unsettled_trial_fails_a_refinement(statuses, reason):
    labels = mixed(90)
    refined = records([None if i in statuses else lb for i, lb in enumerate(labels)], statuses)
    c = cv.check("r", (), LABELS, records(labels), refined)
    assert c["verdict"] == cv.NOT_CONVERGED and any(reason in f for f in c["failed"])
    assert c["max_abs_dp"] == 0.0 and c["p_value"] > 0.99    # the odds themselves agree


def test_converge_runs_the_base_and_each_refinement_on_the_same_seeds():
    seen = []

    def run(extra):
        seen.append(extra)
        return records(mixed(60) if extra != (("x", "2"),) else ["a"] * 60)

    block = cv.converge(run, LABELS, [("same", (("x", "1"),)), ("other", (("x", "2"),))])
    assert seen == [(), (("x", "1"),), (("x", "2"),)]
    assert [c["verdict"] for c in block["checks"]] == [cv.CANNOT_TELL, cv.NOT_CONVERGED]
    assert block["verdict"] == cv.NOT_CONVERGED and block["converged"] is False and block["trials_needed"] is None
    assert cv.describe_result(block) == "not converged (other)"
    assert block["base"]["trials"] == 60
    assert block["criteria"]["tolerance"] == cv.TOLERANCE == 0.02
    assert block["criteria"]["target_half_width"] == cv.TARGET_HALF_WIDTH == 0.01
    assert "Stuart-Maxwell" in block["criteria"]["test"] and "cannot tell" in block["criteria"]["test"]


def test_the_device_verdict_from_its_refinements():
    def c(verdict, needed=None, name="r"):
        return {"verdict": verdict, "trials_needed": needed, "name": name}
    assert cv.overall([c(cv.CONVERGED), c(cv.CONVERGED)]) == (cv.CONVERGED, None)
    assert cv.overall([c(cv.CONVERGED), c(cv.CANNOT_TELL, 900), c(cv.CANNOT_TELL, 3100)]) == (cv.CANNOT_TELL, 3100)
    assert cv.overall([c(cv.CANNOT_TELL, 900), c(cv.NOT_CONVERGED)]) == (cv.NOT_CONVERGED, None)
    result = {"verdict": cv.CANNOT_TELL, "trials_needed": 3100, "base": {"trials": 200},
              "checks": [c(cv.CONVERGED, name="a"), c(cv.CANNOT_TELL, 3100, name="b")]}
    assert cv.describe_result(result) == "cannot tell at 200 trials (b): needs about 3,100 trials"


def test_select_refinements():
    refs = [("half-timestep", ()), ("double-iterations", ())]
    assert cv.select_refinements(refs, None) == refs
    assert cv.select_refinements(refs, "double-iterations") == refs[1:]
    with pytest.raises(InputError, match="unknown refinement 'nonsense'; this device has: half-timestep"):
        cv.select_refinements(refs, "half-timestep,nonsense")


def test_converge_spinner_end_to_end(tmp_path, capsys):
    out = tmp_path / "x.json"
    assert main(["converge", "spinner", "--trials", "20", "--only", "half-timestep", "--out", str(out), "--quiet"]) == 0
    data = json.loads(out.read_text())
    for key in ("device", "seed", "trials", "spec", "overrides", "params", "base", "checks", "criteria", "converged",
                "versions", "elapsed_s"):
        assert key in data, key
    (c,) = data["checks"]
    assert c["name"] == "half-timestep" and c["overrides"]["physics.timestep"] == pytest.approx(1 / 480)
    assert c["summary"]["trials"] == data["base"]["trials"] == 20
    assert set(c["labels"]) == set(data["base"]["counts"])
    for key in ("max_abs_dp", "max_abs_dp_label", "max_abs_dp_ci95", "chi2", "dof", "p_value", "stuart_maxwell",
                "passed"):
        assert key in c, key
    assert data["converged"] == c["passed"]
    assert "half-timestep" in capsys.readouterr().out


def test_converge_die_too_few_trials_says_cannot_tell_and_how_many(tmp_path, capsys, monkeypatch):
    """40 die trials, a tighter settle rule: no trial changes its face, which at 40 trials cannot
    rule out a change of 0.066, so the verdict is cannot tell (neither converged nor not converged),
    with the count that would do (no change seen: 1.96 sqrt(2) / (n + 2) <= 0.01 from 276 trials)."""
    monkeypatch.setenv("COLUMNS", "400")
    out = tmp_path / "die.json"
    assert main(["converge", "die", "--trials", "40", "--only", "tighter-settle", "--out", str(out),
                 "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert ("refined run labelled 40  unsettled 0  escaped 0  lodged 0: cannot tell at 40 paired trials: the 95% "
            "intervals of 1, 2, 3, 4, 5, 6 straddle +-0.02; needs about 280 trials") in printed
    assert "cannot tell at 40 trials (tighter-settle): needs about 280 trials" in printed
    assert "converged" not in printed.replace("not converged", "").replace("converged =", "")
    data = json.loads(out.read_text())
    assert data["verdict"] == "cannot tell" and data["trials_needed"] == 280 and data["converged"] is False
    (c,) = data["checks"]
    assert c["verdict"] == "cannot tell" and c["max_abs_dp"] == 0.0 and c["trials_needed"] == 280


@pytest.mark.parametrize("args,message", [
    (["converge", "spinner", "--only", "nonsense"], "--only: unknown refinement 'nonsense'"),
    (["converge", "nosuchdevice"], "unknown device 'nosuchdevice'"),
    (["converge", "spinner", "--trials", "0"], "--trials: must be at least 1"),
    (["converge", "spinner", "--set", "pointer.nonsense=1"], "unknown parameter 'pointer.nonsense'"),
])
def test_bad_converge_input_is_one_line_and_exit_2(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and err.startswith("tabletop: error: ")


def test_ctrl_c_is_one_line_and_exit_130(tmp_path, capsys, monkeypatch):
    import tabletop.sim.batch

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tabletop.sim.batch, "run_batch", interrupted)
    out = tmp_path / "x.json"
    args = ["converge", "spinner", "--trials", "5", "--only", "half-timestep", "--out", str(out), "--quiet"]
    assert main(args) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and err.count("\n") == 1
    assert not out.exists()


def _ctrl_c_heard() -> None:
    """In the child: Ctrl-C as a terminal sends it (a background test run has SIGINT ignored)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_a_converge_run_stopped_by_ctrl_c_resumes_and_extends_to_the_uninterrupted_result(tmp_path, capsys):
    """A 20-trial converge of the Tipper stopped by Ctrl-C part-way through its refined run keeps
    its finished trials of both runs beside --out and says how to resume; resumed with 40 trials, it
    runs only the trials not kept and gives the checks an uninterrupted 40-trial run gives."""
    import signal
    import subprocess
    import sys
    import time

    args = ["converge", "tipper", "--seed", "2", "--only", "half-timestep", "--quiet"]
    whole = tmp_path / "whole.json"
    assert main([*args, "--trials", "40", "--out", str(whole)]) == 0
    out, ckpt = tmp_path / "r.json", tmp_path / "r.json.checkpoint.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "tabletop.cli", *args, "--trials", "20", "--out", str(out)],
                            preexec_fn=_ctrl_c_heard, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def runs() -> list[str]:
        lines = ckpt.read_text().splitlines()[1:] if ckpt.exists() else []
        return [r["run"] for line in lines for r in json.loads(line)["records"]]

    deadline = time.monotonic() + 120
    while proc.poll() is None and time.monotonic() < deadline and runs().count("half-timestep") < 4:
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "resume with:" in err and "--resume" in err and "Traceback" not in err and not out.exists()
    kept = runs()
    assert kept.count("base") == 20 and 4 <= kept.count("half-timestep") < 20
    capsys.readouterr()
    assert main([*args, "--trials", "40", "--out", str(out), "--resume"]) == 0
    err = capsys.readouterr().err
    assert f"resuming: {len(kept)} trials already in {ckpt}" in err
    got, expected = json.loads(out.read_text()), json.loads(whole.read_text())
    assert got["base"] == expected["base"] and got["checks"] == expected["checks"] and got["trials"] == 40
    # 40 trials cannot decide: the trials stay for a run with more of them
    assert got["verdict"] == "cannot tell" and ckpt.exists()
    assert f"the same command with --trials {got['trials_needed']} --resume" in err


def test_a_decided_converge_run_removes_its_checkpoint_and_an_undecided_one_keeps_it(tmp_path, capsys):
    """300 die trials decide the tighter settle rule (converged): --out written, the checkpoint gone.
    40 cannot tell: the checkpoint stays, and --resume with the trials asked for decides it, running
    only the trials not yet run, with the counts of a run of 300 from the start."""
    args = ["converge", "die", "--seed", "4", "--only", "tighter-settle", "--quiet"]
    decided, undecided = tmp_path / "d.json", tmp_path / "u.json"
    assert main([*args, "--trials", "300", "--out", str(decided)]) == 0
    assert json.loads(decided.read_text())["verdict"] == "converged"
    assert not (tmp_path / "d.json.checkpoint.jsonl").exists()
    assert main([*args, "--trials", "40", "--out", str(undecided)]) == 0
    first = json.loads(undecided.read_text())
    ckpt = tmp_path / "u.json.checkpoint.jsonl"
    assert first["verdict"] == "cannot tell" and ckpt.exists()
    assert "--trials 280 --resume" in capsys.readouterr().err
    assert main([*args, "--trials", "300", "--out", str(undecided), "--resume"]) == 0
    assert "resuming: 80 trials already in" in capsys.readouterr().err
    again = json.loads(undecided.read_text())
    assert again["checks"] == json.loads(decided.read_text())["checks"] and not ckpt.exists()


def test_resume_refuses_another_commands_checkpoint(tmp_path, capsys):
    out = tmp_path / "x.json"
    (tmp_path / "x.json.checkpoint.jsonl").write_text(json.dumps(
        {"format": "tabletop-checkpoint", "version": 1, "device": "spinner", "seed": 0, "params": "p",
         "calibration": None}) + "\n")
    assert main(["converge", "spinner", "--trials", "5", "--out", str(out), "--resume", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "is the checkpoint of a `tabletop estimate` run, not of this `tabletop converge` run" in err
    assert err.count("\n") == 1
