"""--set overrides, sweeps, --plot and --against."""
from __future__ import annotations

import json

import pytest

from tabletop.cli import main
from tabletop.gamekit.devices import make_device
from tabletop.sim.errors import SpecError


def test_set_changes_the_physics_and_is_recorded(tmp_path):
    """An override reaches the device (its params show it) and changes outcomes: knocks twice as
    hard send the crater's marbles elsewhere."""
    device = make_device("crater", overrides=(("knock.speed", "[0.9, 1.0]"),
                                              ("materials.pairs.glass/polystyrene.friction", "0.2")))
    try:
        params = device.params()
        assert params["knock"]["speed_uniform"] == [0.9, 1.0]
        assert device.marble_material.pairs.get("glass", "polystyrene").friction.value == 0.2
    finally:
        device.close()
    out = tmp_path / "o.json"
    assert main(["estimate", "crater", "--trials", "6", "--seed", "1", "--quiet", "--out", str(out),
                 "--set", "knock.speed=[0.9, 1.0]"]) == 0
    data = json.loads(out.read_text())
    assert data["overrides"] == {"knock.speed": [0.9, 1.0]}


@pytest.mark.parametrize("override,message", [
    (("knock.sped", "0.3"), "unknown parameter 'knock.sped'"),
    (("materials.glas.density", "3000"), "unknown parameter 'materials.glas.density'"),
    (("materials.glass.friction", "0.3"), "unknown parameter 'materials.glass.friction'"),
    (("knock.speed", "fast"), "knock.speed: expected"),          # a bare word is text, not a range
    (("knock.speed", "0.3 0.4"), "is not a TOML value"),
    (("marble.radius", "-1.0"), "marble.radius: -1.0 is outside"),
])
def test_bad_overrides_are_spec_errors(override, message):
    with pytest.raises(SpecError, match=message):
        make_device("crater", overrides=(override,)).close()


def test_unknown_override_lists_the_valid_names(capsys):
    assert main(["estimate", "tipper", "--trials", "2", "--set", "ball.radios=0.005"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "did you mean: " in err and "ball.radius" in err and "materials.NAME.FIELD" in err


def test_sweep_writes_table_csv_and_plot(tmp_path):
    out, csv, png = tmp_path / "s.json", tmp_path / "s.csv", tmp_path / "s.png"
    assert main(["sweep", "tipper", "--param", "pegs.radius=0.0022:0.0024:2", "--trials", "4", "--seed", "2",
                 "--quiet", "--out", str(out), "--csv", str(csv), "--plot", str(png)]) == 0
    data = json.loads(out.read_text())
    assert data["values"] == [0.0022, 0.0024] and len(data["rows"]) == 2
    assert all(sum(r["counts"].values()) + r["unsettled"] + r["lodged"] == 4 for r in data["rows"])
    assert csv.read_text().splitlines()[0].startswith("pegs.radius,trials,labelled,p_1")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10_000


@pytest.mark.parametrize("param,message", [
    ("pegs.radius=0.002:0.003", "expected NAME=LO:HI:STEPS"),
    ("pegs.radius=a:b:3", "expected NAME=LO:HI:STEPS"),
    ("pegs.radius=0.002:0.003:1", "STEPS >= 2"),
    ("pegs.radios=0.002:0.003:3", "unknown parameter 'pegs.radios'"),
])
def test_bad_sweep_ranges(tmp_path, capsys, param, message):
    out = tmp_path / "s.json"
    assert main(["sweep", "tipper", "--param", param, "--out", str(out)]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.slow
def test_plot_and_chi_square_against_uniform_and_a_saved_result(tmp_path, capsys):
    """--against adds a chi-square test to the JSON; a result tested against itself fits (p = 1)."""
    out, png = tmp_path / "e.json", tmp_path / "e.png"
    assert main(["estimate", "sticks", "--trials", "24", "--seed", "3", "--quiet", "--out", str(out),
                 "--against", "uniform", "--plot", str(png)]) == 0
    data = json.loads(out.read_text())
    a = data["against"]
    assert a["dof"] == 2 and 0.0 <= a["p_value"] <= 1.0 and a["name"] == "uniform"
    assert png.read_bytes()[:4] == b"\x89PNG"
    again = tmp_path / "again.json"
    assert main(["estimate", "sticks", "--trials", "24", "--seed", "3", "--quiet", "--out", str(again),
                 "--against", str(out)]) == 0
    assert json.loads(again.read_text())["against"]["chi2"] == pytest.approx(0.0)
    assert main(["estimate", "tipper", "--trials", "2", "--against", str(out)]) == 2
    assert "is a sticks result, not tipper" in capsys.readouterr().err
    assert main(["estimate", "sticks", "--trials", "2", "--plot", str(tmp_path / "no" / "p.png")]) == 2
    assert "--plot " in capsys.readouterr().err
