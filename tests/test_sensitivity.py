"""The model's uncertain inputs: per-trial pair draws in batches, `estimate --sensitivity` and
`--uncertainty`, their statistics on hand-made records and the command end to end."""
from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from tabletop.cli import main
from tabletop.gamekit.devices import make_device
from tabletop.sim import sensitivity as sens
from tabletop.sim.batch import DeviceRef, PairDraws, draw_rng, run_batch, run_trials
from tabletop.sim.materials import PAIR_FIELDS, PairTable

QUADRANT = DeviceRef("tests.physics_fixtures:make_quadrant")
BALL = "glass/polystyrene"


@pytest.fixture(scope="module")
def quadrant():
    device = QUADRANT.build()
    yield device
    device.close()


def test_pair_draws_are_the_same_whatever_the_workers(quadrant):
    """Each trial draws from its own stream: one process and two workers give identical records."""
    one = run_batch(QUADRANT, 24, seed=3, device=quadrant, chunk_size=5, perturb=PairDraws((BALL,)))
    two = run_batch(QUADRANT, 24, seed=3, workers=2, chunk_size=4, perturb=PairDraws((BALL,)))
    assert one == two
    pair = quadrant.world.pair_table.pairs[BALL]
    for r in one:
        rng = draw_rng(3, r["index"])
        for field in PAIR_FIELDS:
            pv = getattr(pair, field)
            assert r["drawn"][f"materials.pairs.{BALL}.{field}"] == rng.uniform(pv.low, pv.high)
            assert pv.low <= r["drawn"][f"materials.pairs.{BALL}.{field}"] <= pv.high


def test_drawn_values_change_the_physics_and_are_put_back(quadrant):
    plain = run_trials(quadrant, 5, range(12))
    drawn = run_trials(quadrant, 5, range(12), PairDraws((BALL,)))
    assert [r["steps"] for r in drawn] != [r["steps"] for r in plain]
    assert run_trials(quadrant, 5, range(12)) == plain     # the device's own values are back


def test_a_draw_from_point_ranges_is_the_unperturbed_trial(quadrant):
    """Ranges shrunk to the values: the perturbed run is the plain one (the trial's own stream is untouched)."""
    table = quadrant.world.pair_table
    point = {k: replace(p, **{f: replace(getattr(p, f), low=p.value(f), high=p.value(f)) for f in PAIR_FIELDS})
             for k, p in table.pairs.items()}
    plain = run_trials(quadrant, 8, range(10))
    quadrant.world.set_pair_table(PairTable(point, table.source))
    try:
        drawn = run_trials(quadrant, 8, range(10), PairDraws((BALL,)))
    finally:
        quadrant.world.set_pair_table(table)
    assert [{k: v for k, v in r.items() if k != "drawn"} for r in drawn] == plain


def test_the_parameters_are_every_pair_field_and_gesture_range():
    die = make_device("die")
    try:
        pairs = sens.contact_pairs(die, 0)
        params = sens.parameters(die, pairs, die.spec_path, ())
        names = [p.name for p in params]
        assert names == [f"materials.pairs.{k}.{f}" for k in pairs for f in PAIR_FIELDS] + list(die.gesture_ranges())
        speed = params[names.index("gesture.speed")]
        assert speed.kind == "gesture" and speed.value == [speed.low, speed.high] and speed.low < speed.high
        assert speed.ends() == ((("gesture.speed", f"[{speed.low!r}, {speed.low!r}]"),),
                                (("gesture.speed", f"[{speed.high!r}, {speed.high!r}]"),))
        friction = params[0]
        pv = die.world.pair_table.pairs[pairs[0]].friction
        assert (friction.kind, friction.value, friction.low, friction.high, friction.source) == \
            ("pair", pv.value, pv.low, pv.high, pv.source)
        narrowed = sens.parameters(die, pairs, die.spec_path, (("gesture.speed", "[0.3, 0.4]"),))
        assert narrowed[names.index("gesture.speed")].value == [0.3, 0.4]
    finally:
        die.close()


def fake(labels):
    return [{"index": i, "label": lb, "status": "ok", "group": None, "sim_time": 1.0, "steps": 1}
            for i, lb in enumerate(labels)]


def test_sensitivity_ranks_parameters_and_the_band_spans_every_run():
    base = fake(["a", "b"] * 20)
    shifted = fake(["a"] * 40)
    params = [sens.Parameter("quiet", "pair", 0.5, 0.4, 0.6, "x"), sens.Parameter("loud", "gesture", [0, 1], 0, 1, "y")]

    def run(extra):
        name, value = extra[0]
        return shifted if (name, value) == ("loud", "[1, 1]") else base

    block = sens.sensitivity(run, ("a", "b"), params, base)
    assert block["trials"] == 40 and block["ranking"] == ["loud", "quiet"]
    loud = block["parameters"][1]
    assert loud["labels"]["a"]["dp_high"] == pytest.approx(0.5) and loud["labels"]["a"]["dp_low"] == 0.0
    assert loud["labels"]["a"]["p_high"] == 1.0 and loud["max_abs_dp"] == pytest.approx(0.5)
    assert block["parameters"][0]["max_abs_dp"] == 0.0
    band = sens.model_band({"a": {"p": 0.5}, "b": {"p": 0.5}}, block)
    assert band == {"a": [0.5, 1.0], "b": [0.0, 0.5]}


def test_uncertainty_correlates_each_drawn_value_with_each_label():
    rng = np.random.default_rng(0)
    x, y = rng.uniform(0, 1, 200), rng.uniform(0, 1, 200)
    records = fake(["a" if v > 0.5 else "b" for v in x])
    for r, xv, yv in zip(records, x, y):
        r["drawn"] = {"noise": float(yv), "strong": float(xv)}
    block = sens.uncertainty(("a", "b", "c"), records)
    assert block["ranking"] == ["strong", "noise"]
    strong = block["influence"]["strong"]["a"]
    assert strong["r"] > 0.8 and strong["ci95"][0] < strong["r"] < strong["ci95"][1]
    assert block["influence"]["strong"]["b"]["r"] == pytest.approx(-strong["r"])
    assert block["influence"]["noise"]["c"] == {"r": None, "ci95": None}     # c never happens
    assert abs(block["influence"]["noise"]["a"]["r"]) < 0.2
    assert block["summary"]["trials"] == 200 and block["draw"] == sens.DRAW


@pytest.mark.slow
def test_estimate_die_with_sensitivity(tmp_path, capsys):
    out, plot = tmp_path / "die.json", tmp_path / "die.png"
    assert main(["estimate", "die", "--trials", "30", "--sensitivity", "--sensitivity-trials", "20", "--quiet",
                 "--out", str(out), "--plot", str(plot)]) == 0
    data = json.loads(out.read_text())
    block = data["sensitivity"]
    assert block["trials"] == 20
    die = make_device("die")
    try:
        pairs = sens.contact_pairs(die, 0)
        expected = {f"materials.pairs.{k}.{f}" for k in pairs for f in PAIR_FIELDS} | set(die.gesture_ranges())
    finally:
        die.close()
    assert pairs and {p["name"] for p in block["parameters"]} == expected
    assert sorted(block["ranking"]) == sorted(expected)
    assert [by["max_abs_dp"] for by in sorted(block["parameters"], key=lambda p: block["ranking"].index(p["name"]))] \
        == sorted((p["max_abs_dp"] for p in block["parameters"]), reverse=True)
    for prm in block["parameters"]:
        assert prm["kind"] in ("pair", "gesture") and prm["low"] <= prm["high"] and prm["source"]
        for v in prm["labels"].values():
            assert v["dp_low_ci95"][0] <= v["dp_low"] <= v["dp_low_ci95"][1]
    assert set(data["model_band"]) == set(data["probabilities"])
    for label, (lo, hi) in data["model_band"].items():
        assert lo <= data["probabilities"][label]["p"] <= hi
    printed = capsys.readouterr().out
    assert "model band" in printed and block["ranking"][0] in printed
    assert plot.stat().st_size > 0


@pytest.mark.slow
def test_estimate_uncertainty_is_deterministic_whatever_the_workers(tmp_path):
    blocks = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}.json"
        assert main(["estimate", "die", "--trials", "30", "--seed", "4", "--uncertainty", "--workers", workers,
                     "--quiet", "--out", str(out)]) == 0
        blocks.append(json.loads(out.read_text())["uncertainty"])
    assert blocks[0] == blocks[1]
    block = blocks[0]
    assert block["trials"] == block["summary"]["trials"] == 30
    assert set(block["influence"]) == set(block["ranking"]) and block["ranking"]
    assert all(name.startswith("materials.pairs.") for name in block["ranking"])


@pytest.mark.parametrize("args,message", [
    (["estimate", "die", "--sensitivity-trials", "5"], "--sensitivity-trials needs --sensitivity"),
    (["estimate", "die", "--trials", "10", "--sensitivity", "--sensitivity-trials", "11"], "more than the 10 trials"),
    (["estimate", "die", "--sensitivity", "--sensitivity-trials", "0"], "--sensitivity-trials: must be at least 1"),
])
def test_bad_sensitivity_input_is_one_line_and_exit_2(capsys, args, message):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_ctrl_c_during_the_sensitivity_runs_is_one_line_and_exit_130(tmp_path, capsys, monkeypatch):
    import tabletop.sim.sensitivity

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(tabletop.sim.sensitivity, "sensitivity", interrupted)
    assert main(["estimate", "die", "--trials", "5", "--sensitivity", "--quiet"]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and err.count("\n") == 1
