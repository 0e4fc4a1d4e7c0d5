"""`tabletop converge`: the paired statistics on hand-made records, and the command end to end."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tabletop.games.cli import main
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


def test_a_refinement_identical_to_the_base_passes():
    base = records(mixed(90))
    c = cv.check("same", (("physics.timestep", "0.001"),), LABELS, base, base)
    assert c["passed"] and c["failed"] == []
    assert c["p_value"] == 1.0 and c["chi2"] == 0.0 and c["dof"] == 2
    assert c["max_abs_dp"] == 0.0
    for v in c["labels"].values():
        assert v["dp"] == 0.0 and v["dp_ci95"] == [0.0, 0.0] and v["p_base"] == v["p_refined"] == pytest.approx(1 / 3)
    assert c["stuart_maxwell"]["chi2"] == 0.0 and c["stuart_maxwell"]["p_value"] == 1.0
    assert c["overrides"] == {"physics.timestep": 0.001}


def test_a_clearly_shifted_refinement_fails():
    """A third of the trials move from b to a: the paired dp and its interval show it, both tests reject."""
    base_labels = mixed(300)
    refined_labels = ["a" if lb == "b" and i % 2 else lb for i, lb in enumerate(base_labels)]
    c = cv.check("shifted", (), LABELS, records(base_labels), records(refined_labels))
    assert not c["passed"]
    assert c["max_abs_dp_label"] in ("a", "b") and c["max_abs_dp"] == pytest.approx(50 / 300)
    lo, hi = c["labels"]["a"]["dp_ci95"]
    assert 0.0 < lo < c["labels"]["a"]["dp"] < hi
    assert c["labels"]["c"]["dp"] == 0.0
    assert c["p_value"] < cv.MIN_P_VALUE and c["stuart_maxwell"]["p_value"] < 1e-6
    assert any("chi-square" in f for f in c["failed"]) and any("|dp|" in f for f in c["failed"])


def test_paired_interval_is_mean_plus_minus_1_96_sd_over_root_n():
    base = records(["a"] * 10 + ["b"] * 10)
    other = records(["a"] * 10 + ["a"] * 4 + ["b"] * 6)
    d = cv.paired_differences(LABELS, base, other)["a"]
    diffs = np.array([0] * 10 + [1] * 4 + [0] * 6)
    half = 1.959963984540054 * diffs.std(ddof=1) / math.sqrt(20)
    assert d["dp"] == pytest.approx(0.2)
    assert d["dp_ci95"] == pytest.approx([0.2 - half, 0.2 + half])


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
    assert not c["passed"] and any(reason in f for f in c["failed"])
    assert c["max_abs_dp"] == 0.0 and c["p_value"] > 0.99    # the odds themselves agree


def test_converge_runs_the_base_and_each_refinement_on_the_same_seeds():
    seen = []

    def run(extra):
        seen.append(extra)
        return records(mixed(60) if extra != (("x", "2"),) else ["a"] * 60)

    block = cv.converge(run, LABELS, [("same", (("x", "1"),)), ("other", (("x", "2"),))])
    assert seen == [(), (("x", "1"),), (("x", "2"),)]
    assert [c["passed"] for c in block["checks"]] == [True, False] and block["converged"] is False
    assert block["base"]["trials"] == 60
    assert block["criteria"]["min_p_value"] == cv.MIN_P_VALUE and block["criteria"]["max_abs_dp"] == cv.MAX_ABS_DP
    assert "Stuart-Maxwell" in block["criteria"]["test"]


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
