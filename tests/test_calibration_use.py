"""A calibration file used downstream (`--calibration FILE`, tabletop.app.calibrated): `estimate`
runs the calibrated copy (each trial one row of the posterior draws), `play --headless` and
`analyze` take its calibrated odds in place of the tables of the devices it calibrates, and no
other table; bad files and contradicting options are one line, exit 2.

The calibration is a real one, made once per module by a small run (about 7 s on one core): King
Kong's knock-over calibrated to tallies whose `knocked` share (1/3) is about twice the published
table's (0.173)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tabletop
from tabletop.cli import main
from tabletop.sim.errors import InputError

TALLIES = "standing,110\nknocked,100\npushed,90\n"
PUBLISHED_KNOCKED = 0.173


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tabletop: error: "), err
    return lines[0]


@pytest.fixture(scope="module")
def calibration(tmp_path_factory) -> Path:
    """A kong-knockover calibration file (a real, small run of `tabletop calibrate`)."""
    from tabletop.app.calibrate import calibrate
    from tabletop.app.requests import CalibrateRequest

    folder = tmp_path_factory.mktemp("calibration")
    observed = folder / "tallies.csv"
    observed.write_text(TALLIES)
    out = folder / "kk-cal.json"
    calibrate(CalibrateRequest(device="kong-knockover", observed=observed, trials=120, holdout_points=0, steps=200,
                               walkers=16, bootstrap=0, seed=1, out=out))
    knocked = json.loads(out.read_text())["predictive"]["kong-knockover"]["knocked"]["p"]
    assert knocked > PUBLISHED_KNOCKED + 0.08, knocked      # the calibrated copy knocks clearly more over
    return out


@pytest.fixture(scope="module")
def sticks_calibration(calibration, tmp_path_factory) -> Path:
    """A calibration file of Knossos's sticks (the kong-knockover file with sticks odds put in: play
    and analyze read only its calibrated odds)."""
    data = json.loads(calibration.read_text())
    data.update(device="sticks", devices=["sticks"],
                predictive={"sticks": {"1": {"p": 0.1, "ci95": [0.05, 0.15]}, "2": {"p": 0.3, "ci95": [0.2, 0.4]},
                                       "3": {"p": 0.6, "ci95": [0.5, 0.7]}}})
    out = tmp_path_factory.mktemp("sticks") / "sticks-cal.json"
    out.write_text(json.dumps(data))
    return out


def changed_copy(path: Path, folder: Path) -> Path:
    """The same calibration with another digest (a field no consumer reads changed)."""
    data = json.loads(path.read_text())
    data["elapsed_s"] = data.get("elapsed_s", 0) + 1
    out = folder / f"changed-{path.name}"
    out.write_text(json.dumps(data))
    return out


# -- estimate ---------------------------------------------------------------------------------------
def test_estimate_runs_the_calibrated_copy(calibration, tmp_path, capsys, monkeypatch):
    """Each trial's fitted values are one row of the calibration's posterior draws (the rows vary
    from trial to trial); the other pair values are drawn from their ranges; the result keeps the
    calibration's file, fitted values and bands, and the table prints the calibrated band."""
    from tabletop.sim import batch

    captured = []
    real = batch.run_batch

    def spy(*args, **kwargs):
        records = real(*args, **kwargs)
        captured.extend(records)
        return records

    monkeypatch.setattr(batch, "run_batch", spy)
    out = tmp_path / "e.json"
    assert main(["estimate", "kong-knockover", "--trials", "40", "--seed", "2", "--quiet", "--calibration",
                 str(calibration), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    data = json.loads(calibration.read_text())
    names = data["posterior_draws"]["names"]
    rows = {tuple(row) for row in data["posterior_draws"]["values"]}
    assert len(captured) == 40
    drawn = [tuple(r["drawn"][n] for n in names) for r in captured]
    assert all(row in rows for row in drawn)
    assert len(set(drawn)) > 20          # rows drawn per trial, not one row for the run
    others = [n for n in captured[0]["drawn"] if n not in names]
    assert others and all(len({r["drawn"][n] for r in captured}) > 20 for n in others)
    result = json.loads(out.read_text())
    block = result["calibration"]
    assert block["file"] == str(calibration.resolve()) and block["devices"] == ["kong-knockover"]
    assert [p["name"] for p in block["parameters"]] == names
    assert block["parameters"][0]["posterior"] == data["parameters"][0]["posterior"]
    assert block["bands"] == data["predictive"]["kong-knockover"]
    assert "calibrated copy" in printed and "calibrated band" in printed and "model band" not in printed
    knocked = block["bands"]["knocked"]["ci95"]
    assert f"[{knocked[0]:.4f}, {knocked[1]:.4f}]" in printed


def test_a_run_of_another_configuration_shows_no_calibrated_band(calibration, tmp_path, capsys):
    """The calibrated band belongs to the configuration the file fitted: a run of the calibrated copy
    at another one (here a firmer press on Kong) prints no band beside its own interval and says
    which parameter differs; the JSON keeps no band either."""
    out = tmp_path / "e.json"
    assert main(["estimate", "kong-knockover", "--trials", "8", "--seed", "2", "--quiet", "--calibration",
                 str(calibration), "--set", "kong.press=0.5", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    block = json.loads(out.read_text())["calibration"]
    assert block["bands"] == {} and "kong.press 0.5 here, the spec's value calibrated" in block["band_note"]
    table, note = printed.split("calibrated copy (", 1)[-2:] if printed.count("calibrated copy (") else (printed, "")
    assert "calibrated band" not in table and "no calibrated band" in note


def test_estimate_without_a_calibration_draws_nothing(monkeypatch):
    from tabletop.sim import batch

    seen = []
    real = batch.run_batch

    def spy(*args, **kwargs):
        seen.append(kwargs.get("perturb"))
        records = real(*args, **kwargs)
        seen.extend(r.get("drawn") for r in records)
        return records

    monkeypatch.setattr(batch, "run_batch", spy)
    result = tabletop.estimate("kong-knockover", trials=2)
    assert seen == [None, None, None] and "calibration" not in result


@pytest.mark.parametrize("case, message", [
    ("missing", "no such file"),
    ("not json", "not JSON"),
    ("not a calibration", "not a calibration file"),
    ("another device", "it calibrates kong-knockover, not die"),
    ("sensitivity", "--calibration and --sensitivity contradict each other"),
    ("uncertainty", "--calibration and --uncertainty contradict each other"),
    ("record trials", "--record-trials: not with --calibration"),
])
def test_estimate_refuses_in_one_line(calibration, tmp_path, capsys, case, message):
    files = {"missing": tmp_path / "none.json", "not json": tmp_path / "x.json",
             "not a calibration": tmp_path / "estimate.json"}
    (tmp_path / "x.json").write_text("{not json")
    (tmp_path / "estimate.json").write_text(json.dumps({"device": "kong-knockover", "probabilities": {}}))
    device = "die" if case == "another device" else "kong-knockover"
    extra = {"sensitivity": ["--sensitivity"], "uncertainty": ["--uncertainty"],
             "record trials": ["--record-trials", "2"]}.get(case, [])
    out = tmp_path / "o.json"
    argv = ["estimate", device, "--trials", "5", "--quiet", "--out", str(out),
            "--calibration", str(files.get(case, calibration)), *extra]
    assert main(argv) == 2
    assert message in one_error_line(capsys.readouterr().err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["estimate.json", "x.json"]   # nothing written


def test_estimate_resumes_only_its_own_calibration(calibration, tmp_path, capsys, monkeypatch):
    """The checkpoint keeps the calibration's digest: resumed with the same file, the trials are
    not run again; with another calibration, or none, the resume is refused in one line."""
    from tabletop.sim.checkpoint import Checkpoint

    monkeypatch.setattr(Checkpoint, "remove", lambda self: None)   # keep the checkpoint of a finished run
    out = tmp_path / "o.json"
    argv = ["estimate", "kong-knockover", "--trials", "12", "--quiet", "--out", str(out)]
    assert main(argv + ["--calibration", str(calibration)]) == 0
    first = json.loads(out.read_text())
    capsys.readouterr()
    assert main(argv + ["--calibration", str(calibration), "--resume"]) == 0
    assert "resuming: 12 trials" in capsys.readouterr().err
    assert json.loads(out.read_text())["counts"] == first["counts"]
    other = changed_copy(calibration, tmp_path)
    for given in (["--calibration", str(other)], []):
        assert main(argv + given + ["--resume"]) == 2
        assert "is from another run (calibration" in one_error_line(capsys.readouterr().err)


def test_the_draws_travel_to_workers(calibration):
    """The per-trial draws are picklable (processes, a Dask cluster) and the same in any process."""
    import pickle

    from tabletop.app.calibrated import open_calibration

    data = json.loads(calibration.read_text())
    perturb = open_calibration(calibration).draws(data["training"]["pairs"])
    assert pickle.loads(pickle.dumps(perturb)) == perturb


@pytest.mark.slow
def test_estimate_on_two_workers_gives_the_same_calibrated_copy(calibration):
    one = tabletop.estimate("kong-knockover", trials=16, seed=4, calibration=calibration)
    two = tabletop.estimate("kong-knockover", trials=16, seed=4, workers=2, calibration=calibration)
    assert one.counts == two.counts and one["calibration"] == two["calibration"]


# -- analyze ----------------------------------------------------------------------------------------
def analyze(tmp_path, name, *extra) -> dict:
    out = tmp_path / name
    assert main(["analyze", "king-kong", "--games", "150", "--seed", "3", "--quiet", "--out", str(out), *extra]) == 0
    return json.loads(out.read_text())


def test_a_calibration_changes_the_figures_of_analyze_it_should_and_no_other(calibration, tmp_path):
    """King Kong with and without the knock-over's calibration, same seeds: the tables used differ
    in kong-knockover's alone (the die's and the spinner's identical); who moved first (decided by
    the die's start rolls, before any Kong move) is the same in every game; the share of pawns at
    risk that Kong knocks over rises well beyond the uncalibrated run's interval, and the pushed
    share falls (the calibrated copy pushes fewer out)."""
    from tabletop.gamekit.chance import calibrated_tables

    plain = analyze(tmp_path, "plain.json")
    cal = analyze(tmp_path, "cal.json", "--calibration", str(calibration))
    before, after = plain["outcomes"]["tables"], cal["outcomes"]["tables"]
    assert set(before) == set(after) == {"die", "spinner", "kong-knockover"}
    assert before["die"] == after["die"] and before["spinner"] == after["spinner"]
    assert after["kong-knockover"] == calibrated_tables(calibration)["kong-knockover"] != before["kong-knockover"]
    assert cal["calibration"]["devices"] == ["kong-knockover"] and cal["calibration"]["tables"] == {
        "kong-knockover": after["kong-knockover"]}
    assert cal["outcomes"]["name"] == f"measured + {calibration.name}"
    for key in ("moved_first.red", "moved_first.blue"):
        assert plain["figures"][key] == cal["figures"][key], key
    f0, f1 = plain["figures"]["kong.knocked_share"], cal["figures"]["kong.knocked_share"]
    assert f1["ci95"][0] > f0["ci95"][1], (f0, f1)
    p0, p1 = plain["figures"]["kong.pushed_share"], cal["figures"]["kong.pushed_share"]
    assert p1["value"] < p0["value"], (p0, p1)


def test_compare_fair_still_compares_with_fair_chance(calibration, tmp_path):
    """--compare fair beside a calibration: the fair run is the one without it, game for game."""
    args = ["--games", "20", "--compare", "fair"]
    plain = analyze(tmp_path, "plain.json", *args)
    cal = analyze(tmp_path, "cal.json", *args, "--calibration", str(calibration))
    assert cal["compare"]["against"] == "fair"
    assert cal["compare"]["figures"] == plain["compare"]["figures"]


@pytest.mark.parametrize("argv, message", [
    (["analyze", "knossos", "--games", "4"], "it calibrates kong-knockover, which knossos does not use"),
    (["analyze", "king-kong", "--games", "4", "--outcomes", "fair"], "--calibration: with --outcomes measured"),
    (["play", "knossos", "--headless", "--outcomes", "measured"], "which knossos does not use"),
    (["play", "king-kong", "--headless"], "physics play of a calibrated copy is not wired"),
    (["play", "king-kong", "--headless", "--outcomes", "uniform"], "not uniform"),
    (["play", "king-kong"], "the window simulates every chance event"),
])
def test_a_calibration_the_game_cannot_take_is_one_line(calibration, tmp_path, capsys, argv, message):
    assert main([*argv, "--calibration", str(calibration), "--quiet" if argv[0] == "analyze" else "--no-record"]) == 2
    assert message in one_error_line(capsys.readouterr().err)


@pytest.mark.parametrize("predictive, message", [
    ({}, "empty or not probabilities"),
    ({"kong-knockover": {"knocked": {"p": 0.5}, "pushed": {"p": 0.4}, "standing": {"p": 0.3}}},
     "empty or not probabilities"),
    ({"kong-knockover": {"knocked": {"p": -0.1}, "pushed": {"p": 0.6}, "standing": {"p": 0.5}}},
     "empty or not probabilities"),
    ({"kong-knockover": {"knocked": {"q": 1.0}}}, "without calibrated odds"),
])
def test_a_calibration_whose_odds_are_not_probabilities_is_one_line(calibration, tmp_path, capsys, predictive,
                                                                   message):
    data = json.loads(calibration.read_text())
    data["predictive"] = predictive
    bad = tmp_path / "bad-cal.json"
    bad.write_text(json.dumps(data))
    assert main(["analyze", "king-kong", "--games", "4", "--quiet", "--calibration", str(bad)]) == 2
    assert message in one_error_line(capsys.readouterr().err)


def test_analyze_resumes_only_its_own_calibration(calibration, tmp_path, capsys, monkeypatch):
    from tabletop.sim.checkpoint import Checkpoint

    monkeypatch.setattr(Checkpoint, "remove", lambda self: None)
    out = tmp_path / "a.json"
    argv = ["analyze", "king-kong", "--games", "4", "--quiet", "--out", str(out)]
    assert main(argv + ["--calibration", str(calibration)]) == 0
    capsys.readouterr()
    assert main(argv + ["--resume"]) == 2
    assert "is from another run" in one_error_line(capsys.readouterr().err)


# -- play -------------------------------------------------------------------------------------------
def test_play_samples_the_calibrated_knockover_and_records_it(calibration, tmp_path):
    """A headless King Kong game with the knock-over's calibration: the recording names the same
    published die, spinner and knock-over tables plus the calibration, and keeps the file's digest
    and its calibrated table; the source built from it draws each pawn's fate from the knock-over
    table tilted so that, over the published estimate's places and twists, the fates' odds are the
    calibrated ones (without it: the published ones)."""
    from tabletop.gamekit.chance import calibrated_tables
    from tabletop.gamekit.chance import file_digest, measured_paths
    from tabletop.games.king_kong.chance import FATES, knockover_weights
    from tabletop.games.king_kong.rules import AtRisk
    from tabletop.gamekit.registry import game_spec
    from tabletop.sim.record import ReplayFile

    record = tmp_path / "kk.ttr"
    tabletop.play("king-kong", seed=2, outcomes="measured", calibration=calibration, record=record)
    config = ReplayFile.open(record).header["config"]
    published = [str(p) for p in measured_paths(("die", "spinner", "kong-knockover"))]
    assert config["outcomes"] == "table:" + ",".join(published + [str(calibration.resolve())])
    (kept,) = config["calibration"]
    assert kept["sha256"] == file_digest(calibration) and kept["devices"] == ["kong-knockover"]
    assert kept["tables"] == calibrated_tables(calibration)

    definition = game_spec("king-kong")
    weights = knockover_weights(published[2])

    def mixed(source) -> np.ndarray:
        """The fates' odds a pawn draws from, over the published estimate's places and twists (its
        finest groups, weighted by their labelled trials)."""
        n = np.array(list(weights.values()))
        rows = [source.inner.fate_probabilities(AtRisk(0, where, where != "adjacent"), twist)
                for where, _, twist in (key.partition("/") for key in weights)]
        return n @ np.array(rows) / n.sum()

    calibrated = definition.make_source(config["outcomes"])
    plain = definition.make_source("table:" + ",".join(published))
    target = np.array([kept["tables"]["kong-knockover"][f] for f in FATES])
    assert np.allclose(calibrated.inner.overall[0], target)
    assert len(weights) > 90 and np.abs(mixed(calibrated) - target).max() < 1e-6
    assert np.abs(mixed(plain) - target).max() > 0.1
    for event in ("die", "spin-outer", "spin-inner"):
        assert calibrated.inner.fallback.tables[event][0] == plain.inner.fallback.tables[event][0]
        assert np.array_equal(calibrated.inner.fallback.tables[event][1], plain.inner.fallback.tables[event][1])


def test_play_takes_a_calibration_beside_saved_tables_too(calibration):
    """--outcomes table:... (here the packaged tables by their bare names) with a calibration: the
    same game as with --outcomes measured and the same calibration."""
    tables = "table:die-10k-seed1.json,spinner-10k-seed1.json,kong-knockover-10k-seed1.json"
    named = tabletop.play("king-kong", seed=1, outcomes=tables, calibration=calibration)
    measured = tabletop.play("king-kong", seed=1, outcomes="measured", calibration=calibration)
    assert named.lines == measured.lines and str(calibration.resolve()) in named.lines[0]


def test_the_same_game_with_and_without_differs_first_at_a_knockover(calibration):
    """Same seeds, same seats: every line agrees until a Kong move's fates (every chance event
    draws from its own seed; the die and the spinner are the published ones either way)."""
    differed = 0
    for seed in (1, 2, 3):
        plain = tabletop.play("king-kong", seed=seed, outcomes="measured").lines[1:]
        cal = tabletop.play("king-kong", seed=seed, outcomes="measured", calibration=calibration).lines[1:]
        first = next((a for a, b in zip(plain, cal) if a != b), None)
        if first is not None:
            differed += 1
            assert first.startswith("Kong's move:"), first
    assert differed >= 2


def test_play_resume_takes_the_recorded_calibration_or_refuses(calibration, tmp_path, capsys):
    """`play --resume` of a calibrated game plays it on as it was (with its recorded seats, the
    same end); with the file changed or gone, one line."""
    import shutil

    own = tmp_path / calibration.name
    shutil.copy(calibration, own)
    record = tmp_path / "kk.ttr"
    game = tabletop.play("king-kong", seed=2, outcomes="measured", calibration=own, record=record)
    plain = tabletop.play("king-kong", seed=2, outcomes="measured")
    assert plain.lines[1:] != game.lines[1:]               # the calibration moves this game
    again = tabletop.resume(record, from_turn=1)
    assert [line for line in again.lines if not line.startswith("resumed from")] == game.lines
    own.write_text(changed_copy(calibration, tmp_path).read_text())
    assert main(["play", "--resume", str(record), "--headless", "--no-record"]) == 2
    assert "changed since the game was recorded" in one_error_line(capsys.readouterr().err)
    own.unlink()
    assert main(["play", "--resume", str(record), "--headless", "--no-record"]) == 2
    assert "which is gone" in one_error_line(capsys.readouterr().err)
    assert main(["play", "--resume", str(record), "--headless", "--calibration", str(calibration)]) == 2
    assert "--calibration: a recorded game is played on with its own" in one_error_line(capsys.readouterr().err)


def test_a_calibrated_table_game_records_its_tables_and_verifies(sticks_calibration, tmp_path, capsys):
    """Knossos with a sticks calibration: the replay's tables are the calibrated sticks table (what
    `replay --verify` re-drives it from, and it verifies); analyze and --solve use it too."""
    from tabletop.sim.record import ReplayFile

    record = tmp_path / "kn.ttr"
    assert main(["play", "knossos", "--headless", "--outcomes", "measured", "--games-to-win", "1", "--seed", "1",
                 "--calibration", str(sticks_calibration), "--record", str(record)]) == 0
    assert ReplayFile.open(record).header["config"]["tables"] == {"sticks": {"1": 0.1, "2": 0.3, "3": 0.6}}
    assert main(["replay", str(record), "--verify"]) == 0
    capsys.readouterr()
    result = tabletop.analyze("knossos", games=30, seats="random,random", calibration=sticks_calibration)
    assert result["outcomes"]["tables"] == {"sticks": {"1": 0.1, "2": 0.3, "3": 0.6}}
    threes = result["figures"]["sticks.three_share"]
    assert threes["ci95"][0] <= 0.6 <= threes["ci95"][1] and threes["ci95"][0] > 0.4
    solved = tabletop.analyze("knossos", solve=True, calibration=sticks_calibration).to_dict()
    assert solved["solve"][f"measured + {sticks_calibration.name}"]["table"] == {"1": 0.1, "2": 0.3, "3": 0.6}
    assert solved["calibration"]["devices"] == ["sticks"]


# -- the pieces ---------------------------------------------------------------------------------------
def test_a_calibration_among_table_files_wins_whatever_their_order(calibration):
    from tabletop.gamekit.chance import load_tables, measured_paths

    (published,) = measured_paths(("kong-knockover",))
    calibrated = json.loads(calibration.read_text())["predictive"]["kong-knockover"]
    want = {k: v["p"] for k, v in calibrated.items()}
    assert load_tables([calibration, published])["kong-knockover"] == want
    assert load_tables([published, calibration])["kong-knockover"] == want


def test_the_tilt_keeps_each_groups_odds_ratios_and_gives_the_calibrated_mix():
    from tabletop.games.king_kong.chance import KnockoverTable
    from tabletop.games.king_kong.rules import AtRisk

    fates = ("standing", "knocked", "pushed")
    groups = {"left_hand/0": [0.9, 0.0, 0.1], "left_hand": [0.3, 0.2, 0.5], "adjacent": [0.5, 0.4, 0.1]}
    table = KnockoverTable({g: dict(zip(fates, p)) for g, p in groups.items()}, {"standing": 0.6, "knocked": 0.1,
                                                                                  "pushed": 0.3})
    weights = {"left_hand/0": 30.0, "left_hand/L1": 50.0, "adjacent/R2": 20.0}   # L1 falls back to left_hand
    target = {"standing": 0.4, "knocked": 0.3, "pushed": 0.3}
    tilted = table.tilted(target, weights)
    drawn = {key: tilted.fate_probabilities(AtRisk(0, key.split("/")[0], not key.startswith("adjacent")),
                                            key.split("/")[1]) for key in weights}
    assert np.allclose(sum(w * drawn[k] for k, w in weights.items()) / 100.0, [0.4, 0.3, 0.3])
    assert drawn["left_hand/0"][1] == 0.0                  # a fate a group never has stays out of it
    w = tilted.groups["left_hand"][0] / np.array(groups["left_hand"])      # its fates all occur
    for g, p in groups.items():                            # one factor per fate, the same for every group
        q = np.array(p) * w
        assert np.allclose(tilted.groups[g][0], q / q.sum())
    assert not np.allclose(w / w.sum(), 1 / 3)             # and not no tilt at all
    assert np.allclose(tilted.overall[0], [0.4, 0.3, 0.3])


def test_the_api_takes_the_calibration_as_the_command_does():
    import inspect

    from tabletop.app import requests as rq

    for function, request_type in ((tabletop.estimate, rq.EstimateRequest), (tabletop.play, rq.PlayRequest),
                                   (tabletop.analyze, rq.AnalyzeRequest)):
        params = set(inspect.signature(function).parameters)
        assert "calibration" in params and set(rq.request_fields(request_type)) - {"options"} <= params
    with pytest.raises(InputError, match="--calibration: expected a file path"):
        rq.AnalyzeRequest("king-kong", calibration=3)
