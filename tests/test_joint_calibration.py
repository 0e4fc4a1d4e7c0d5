"""A joint calibration over configurations of one device, with the gesture among the fitted values
(`tabletop calibrate --joint 'DEVICE[NAME=VALUE,...]=FILE' --gesture`, `tabletop validate
--calibrate`).

The recovery test: tallies simulated at a known material value (steel on wood's rolling
resistance) and a known gesture value (the throw's spin) on two shapes of steel cuboid thrown onto
wood; the joint fit's 95% intervals must hold both known values and leave out values far from
them (so that a fit that recovered nothing, or recovered the wrong value, fails).
"""
from __future__ import annotations

import time

import numpy as np
import pytest

from tabletop.sim.calibrate import parse_configuration, pinned_gesture
from tabletop.sim.errors import InputError

THROWN = {"shape.material": '"steel"', "surface.material": '"wood"', "surface.wall_height": "0.1",
          "gesture.height": "[0.1, 0.2]", "gesture.speed": "[0.3, 1.0]", "gesture.spin": "[0.0, 20.0]"}
ROLLING = "materials.pairs.steel/wood.rolling"


# -- the configuration syntax, and refusals in one line --------------------------------------------
def test_a_configuration_keeps_brackets_and_quotes_inside_its_values():
    device, sets, path, name = parse_configuration('throw[shape.size=[0.012, 0.016, 0.016],shape.material="a,b"]=t.csv')
    assert (device, path) == ("throw", "t.csv")
    assert sets == ("shape.size=[0.012, 0.016, 0.016]", 'shape.material="a,b"')
    assert name == 'throw[shape.size=[0.012, 0.016, 0.016],shape.material="a,b"]'
    assert parse_configuration("crater=c.csv") == ("crater", (), "c.csv", "crater")
    assert parse_configuration("throw[shape.kind=\"cylinder\"]")[2] is None


@pytest.mark.parametrize("text, message", [
    ("throw[shape.size=[0.012,0.016,0.016]=t.csv", "never closed"),
    ("throw[shape.size]=t.csv", "is not NAME=VALUE"),
    ("throw[shape.size=0.1]t.csv", "unexpected"),
    ("[shape.size=0.1]=t.csv", "expected DEVICE=FILE"),
])
def test_a_malformed_configuration_is_an_input_error(text, message):
    with pytest.raises(InputError, match=message):
        parse_configuration(text)


@pytest.mark.parametrize("argv, message", [
    (["--joint", "throw[shape.size=[0.012,0.016,0.016]=t.csv"], "never closed"),
    (["--joint", "throw[shape.size]=t.csv"], "is not NAME=VALUE"),
    (["--joint", "throw[shape.size=[0.012,0.016,0.016]]"], "DEVICE[NAME=VALUE,...]=FILE"),
    (["--joint", "throw[shape.wobble=3]=t.csv"], "shape.wobble"),
    (["--joint", "throw=t.csv"], "already in the calibration"),
    (["--gesture-points", "0"], "--gesture-points"),
])
def test_a_bad_configuration_is_one_line(tmp_path, capsys, monkeypatch, argv, message):
    from tabletop.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.csv").write_text("+x,3\n")
    assert main(["calibrate", "throw", "--observed", "t.csv", "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


@pytest.mark.parametrize("argv, message", [
    (["--calibrate-trials", "10"], "--calibrate-trials"),
    (["--steps", "400"], "only with --calibrate"),
    (["--calibrate", "--steps", "100"], "--steps"),
])
def test_validate_refuses_bad_calibration_options_in_one_line(capsys, argv, message):
    from tabletop.cli import main

    assert main(["validate", "--quiet", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_a_gesture_range_two_parts_declare_differently_is_fitted_per_part():
    from tabletop.app.calibrate import gesture_candidates
    from tabletop.sim.sensitivity import Parameter

    def speed(lo, hi):
        return Parameter("gesture.speed", "gesture", [lo, hi], lo, hi, "throw.toml")

    ranges = {}
    assert list(gesture_candidates("a", [speed(0.3, 1.0)], ranges)) == ["gesture.speed"]
    assert list(gesture_candidates("b", [speed(0.3, 1.0)], ranges)) == ["gesture.speed"]
    assert list(gesture_candidates("c", [speed(0.0, 0.3)], ranges)) == ["gesture.speed@c"]
    assert gesture_candidates("d", [speed(0.0, 0.0)], ranges) == {}     # a fixed value: nothing to fit


# -- recovery, with physics ------------------------------------------------------------------------
def _tallies(sets: dict, truth: dict, trials: int, seed: int) -> dict[str, int]:
    """Tallies of the throw with `sets`, every throw at the known spin and the known rolling
    resistance, the other steel/wood values drawn from their ranges (as the training draws them)."""
    from tabletop.gamekit.devices import default_spec, device_ref
    from tabletop.sim.batch import PairDraws, run_batch

    overrides = tuple(sets.items()) + pinned_gesture({"gesture.spin": truth["gesture.spin"]})
    records = run_batch(device_ref("throw", default_spec("throw"), overrides), trials, seed, 1,
                        perturb=PairDraws(("steel/wood",), ((ROLLING, truth[ROLLING]),)))
    counts: dict[str, int] = {}
    for r in records:
        if r["status"] == "ok":
            counts[r["label"]] = counts.get(r["label"], 0) + 1
    return counts


def test_a_joint_fit_over_two_shapes_recovers_a_known_material_and_gesture(tmp_path):
    """Two shapes of steel cuboid (x/y 0.75 and 1.55) thrown onto wood, 600 tallies each, simulated
    with every throw spun at 14 rad/s and steel on wood's rolling resistance at 7e-5 (its range
    1e-5 .. 1e-4). Fitted jointly (the spin and the rolling resistance; the other values averaged
    over their ranges), the 95% intervals must hold both, and be narrow enough to leave out the
    far end of each range."""
    from tabletop import api

    truth = {ROLLING: 7e-5, "gesture.spin": 14.0}
    started = time.perf_counter()
    files = []
    for i, x in enumerate((0.012, 0.0248)):
        counts = _tallies({**THROWN, "shape.size": f"[{x}, 0.016, 0.016]"}, truth, 600, 900 + i)
        path = tmp_path / f"c{i}.csv"
        path.write_text("".join(f"{k},{v}\n" for k, v in counts.items()))
        files.append(path)
    result = api.calibrate("throw", files[0], set={**{k: v for k, v in THROWN.items()},
                                                   "shape.size": "[0.012, 0.016, 0.016]"},
                           joint=[f"throw[shape.size=[0.0248, 0.016, 0.016]]={files[1]}"],
                           fit=[ROLLING, "gesture.spin"], trials=500, gesture_points=20, holdout_points=0,
                           walkers=32, steps=800, bootstrap=0, seed=3)
    elapsed = time.perf_counter() - started
    params = result.parameters
    assert set(params) == {ROLLING, "gesture.spin"}
    assert params["gesture.spin"]["kind"] == "gesture" and params[ROLLING]["kind"] == "pair"
    for name, value in truth.items():
        lo, hi = params[name]["posterior"]["ci95"]
        assert lo <= value <= hi, (name, value, lo, hi, elapsed)
    # informative: the far end of each range lies outside the interval
    assert params["gesture.spin"]["posterior"]["ci95"][0] > 2.0, params["gesture.spin"]["posterior"]
    assert params[ROLLING]["posterior"]["ci95"][0] > 1.5e-5, params[ROLLING]["posterior"]
    d = result.to_dict()
    assert [p["name"] for p in d["parts"]] == ["throw", "throw[shape.size=[0.0248, 0.016, 0.016]]"]
    assert d["joint"][0]["sets"] == ["shape.size=[0.0248, 0.016, 0.016]"]
    assert d["parts"][1]["gesture"]["gesture.spin"] == "gesture.spin"
    assert set(d["predictive"]) == {"throw"}          # the configured part is no plain throw's odds
