"""A joint calibration over configurations of one device, with the gesture among the fitted values
(`tabletop calibrate --joint 'DEVICE[NAME=VALUE,...]=FILE' --gesture`, `tabletop validate
--calibrate`).

The recovery test: tallies simulated at a known material value (plastic on wood's restitution)
and a known gesture value (the toss's spin) on two shapes tossed from one face up onto wood (a
gentle toss: spin decides how far the start is forgotten, Kapitaniak et al.'s case); the joint
fit's 95% intervals must hold both known values, and tallies simulated at another spin must give an
interval that leaves the first spin out (a fit that recovered nothing, or the wrong value, fails).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tabletop.sim.calibrate import parse_configuration, pinned_gesture
from tabletop.sim.errors import InputError

TOSSED = {"surface.material": '"wood"', "surface.wall_height": "0.1", "gesture.mode": '"toss"',
          "gesture.start": '"+z"', "gesture.spin_axis": "[1.0, 0.0, 0.0]", "gesture.elevation_deg": "[-30.0, 0.0]",
          "gesture.speed": "[0.0, 0.3]", "gesture.height": "[0.03, 0.15]", "gesture.spin": "[0.0, 1.5]"}
SHAPES = ("[0.016, 0.016, 0.016]", "[0.02, 0.016, 0.012]")
RESTITUTION = "materials.pairs.polystyrene/wood.restitution"


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
    """Tallies of the throw with `sets`, every toss at the known spin and the known restitution,
    the other plastic-on-wood values and the other gesture ranges drawn per trial (as the
    training draws them)."""
    from tabletop.gamekit.devices import default_spec, device_ref
    from tabletop.sim.batch import PairDraws, run_batch

    overrides = tuple(sets.items()) + pinned_gesture({"gesture.spin": truth["gesture.spin"]})
    records = run_batch(device_ref("throw", default_spec("throw"), overrides), trials, seed, 1,
                        perturb=PairDraws(("polystyrene/wood",), ((RESTITUTION, truth[RESTITUTION]),)))
    counts: dict[str, int] = {}
    for r in records:
        if r["status"] == "ok":
            counts[r["label"]] = counts.get(r["label"], 0) + 1
    return counts


def joint_fit(tmp_path, truth: dict, seed: int = 3):
    """The joint calibration of both shapes to 400 tallies of each simulated at `truth`."""
    from tabletop import api

    files = []
    for i, size in enumerate(SHAPES):
        counts = _tallies({**TOSSED, "shape.size": size}, truth, 400, 900 + i)
        path = tmp_path / f"c{i}.csv"
        path.write_text("".join(f"{k},{v}\n" for k, v in counts.items()))
        files.append(path)
    return api.calibrate("throw", files[0], set={**TOSSED, "shape.size": SHAPES[0]},
                         joint=[f"throw[shape.size={SHAPES[1]}]={files[1]}"], fit=[RESTITUTION, "gesture.spin"],
                         trials=700, gesture_points=25, holdout_points=0, walkers=32, steps=600, bootstrap=3,
                         seed=seed)


@pytest.mark.long    # two whole fits, 30 s of one core: `python -m pytest -m long` runs it
def test_a_joint_fit_over_two_shapes_recovers_a_known_material_and_gesture(tmp_path):
    """A cube and a 20x16x12 mm cuboid tossed from +z up onto wood, 400 tallies each, simulated with
    every toss spun at 0.5 rad/s (range 0-1.5: over it the start is forgotten, the cube's +z going
    from 1 to about 0.2; faster spins move the odds round and back, so that two spins may give the
    same tallies) and plastic on wood's restitution at 0.45 (range 0.35-0.65). Fitted jointly (the
    spin and the restitution; the other values averaged over their ranges), the 95% intervals
    hold both and leave out 1.1 rad/s; tallies simulated at 1.1 rad/s give an interval that holds
    1.1 and leaves 0.5 out. About 45 s on 2 busy cores (32 s of CPU)."""
    result = joint_fit(tmp_path, {RESTITUTION: 0.45, "gesture.spin": 0.5})
    params = result.parameters
    assert set(params) == {RESTITUTION, "gesture.spin"}
    assert params["gesture.spin"]["kind"] == "gesture" and params[RESTITUTION]["kind"] == "pair"
    spin = params["gesture.spin"]["posterior"]["ci95"]
    rest = params[RESTITUTION]["posterior"]["ci95"]
    assert spin[0] <= 0.5 <= spin[1] < 1.1 and rest[0] <= 0.45 <= rest[1], (spin, rest)
    d = result.to_dict()
    assert [p["name"] for p in d["parts"]] == ["throw", f"throw[shape.size={SHAPES[1]}]"]
    assert d["joint"][0]["sets"] == [f"shape.size={SHAPES[1]}"]
    assert d["parts"][1]["gesture"]["gesture.spin"] == "gesture.spin"
    assert set(d["predictive"]) == {"throw"}          # the configured part is no plain throw's odds
    other = joint_fit(tmp_path, {RESTITUTION: 0.45, "gesture.spin": 1.1}).parameters
    spin2, rest2 = other["gesture.spin"]["posterior"]["ci95"], other[RESTITUTION]["posterior"]["ci95"]
    assert 0.5 < spin2[0] <= 1.1 <= spin2[1] and rest2[0] <= 0.45 <= rest2[1], (spin, spin2, rest2)


def test_validate_calibrate_fits_the_tallied_cases_and_predicts_the_others(monkeypatch, capsys):
    """`validate --calibrate` on a small set of its cases (two Gazette cuboids and the long cuboid,
    few trials): the shared values fitted, each case judged at them with its role, leave-one-out
    for each fitted case, and the figures printed."""
    from tabletop.app import validate as app
    from tabletop.app.requests import ValidateRequest
    from tabletop.cli.show import show_validate
    from tabletop.sim import validate as sv

    chosen = [c for c in sv.cases() if c.key in ("long-cuboid", "gazette-0.75", "gazette-1.55")]
    small = [replace(c, trials=(120, 120)) for c in chosen]
    monkeypatch.setattr(sv, "cases", lambda: small)
    result = app.validate(ValidateRequest(quick=True, calibrate=True, calibrate_trials=120, gesture_points=6,
                                          walkers=16, steps=200, posterior_points=3))
    block = result["calibration"]
    names = [p["name"] for p in block["parameters"]]
    assert {"gesture.speed", "gesture.spin", "gesture.height"} <= set(names)
    assert any(n.startswith("materials.pairs.steel/wood.") for n in names)
    assert [r["role"] for r in block["cases"]] == ["prediction", "fitted", "fitted"]
    assert block["cases"][0]["informed"]            # the long cuboid shares the throw
    assert [r["key"] for r in block["leave_one_out"]] == ["gazette-0.75", "gazette-1.55"]
    assert block["loo_rms"] == pytest.approx(np.sqrt(np.mean([r["error"] ** 2 for r in block["leave_one_out"]])))
    for p in block["parameters"]:
        lo, hi = p["posterior"]["ci95"]
        assert p["low"] <= lo <= hi <= p["high"]
    show_validate(result)
    out = capsys.readouterr().out
    assert "leave one out" in out and "RMS of the prediction errors" in out and "prediction" in out
