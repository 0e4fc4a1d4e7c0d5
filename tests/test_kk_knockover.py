"""The kong-knockover device: one pawn in a groove or beside Kong's path while Kong makes a move drawn
from the spinner; its estimate is the table `tabletop play king-kong --outcomes table:...` samples."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop.gamekit.devices import default_spec, make_device
from tabletop.games.king_kong.geometry import GROOVES
from tabletop.games.king_kong.knockover import ADJACENT, KongKnockover, KongTrial
from tabletop.games.king_kong.chance import KnockoverTable, load_knockover_table
from tabletop.games.king_kong.rules import FATES, AtRisk
from tabletop.sim.batch import run_trials, trial_rng
from tabletop.sim.devices.base import Status

ROOT = Path(__file__).parents[1]
GROUP = re.compile(r"^(left_hand|right_hand|left_foot|right_foot|adjacent)/(0|[LR]\d+)$")


@pytest.fixture(scope="module")
def device():
    d = make_device("kong-knockover")
    yield d
    d.close()


@pytest.fixture(scope="module")
def sample(device):
    return run_trials(device, 11, range(40))


def test_contract(device):
    assert isinstance(device, KongKnockover)
    assert device.labels == FATES
    json.dumps(device.params())
    assert device.params()["pawn"]["mass"] == pytest.approx(0.0028, rel=0.05)


def test_gestures_follow_the_rules_and_name_their_group(device):
    """Sampled trials: a start Kong can be at, a twist the spinner's label makes, a climb that stays
    below the top, a groove a pawn may attack or a space the rules put at risk; the group is
    "<where>/<twist>" as play.py's KnockoverTable looks it up."""
    rng = np.random.default_rng(5)
    kinds = set()
    for _ in range(200):
        t = device.sample_gesture(rng)
        assert GROUP.match(t.group), t.group
        assert 0 <= t.climb and t.climb + t.climb_steps < device.kong.top
        assert 1 <= t.climb_steps <= 3 and len(set(t.twist_steps)) <= 1
        if t.where in GROOVES:
            assert device.geometry.place(t.where, t.climb, t.twist).attackable
        else:
            swept = device.geometry.swept(t.climb, t.twist, t.twist_steps, t.climb_steps)
            assert t.space in swept and t.space not in device.geometry.covered(t.climb, t.twist)
        if t.outer in ("L1", "L2", "R1", "R2"):
            assert t.twist_key == t.outer
        kinds.add(t.where)
    assert kinds == set(GROOVES) | {ADJACENT}


@pytest.mark.slow
def test_a_sample_of_trials_settles_with_no_escape(sample):
    """Every trial of a sample ends with the pawn read: no escape, nothing unsettled; the fates vary."""
    assert {r["status"] for r in sample} <= {"ok", "lodged"}
    assert sum(r["status"] == "ok" for r in sample) >= 39
    assert {r["label"] for r in sample if r["label"]} >= {"standing", "pushed"}


def test_a_pawn_in_a_groove_with_no_move_stands(device):
    """A trial with no twist and the smallest climb: a pawn in Kong's foot notch rides up a notch with
    him (2.2 cm) and stays on its feet."""
    t = KongTrial("left_foot", "", 5, 0, "UP", "U1", (), 1, 0.3, 0.0, (0.0, 0.0))
    out = device.run(np.random.default_rng(0), t)
    assert out.status is Status.OK and out.label == "standing" and out.group == "left_foot/0"


@pytest.mark.slow
def test_estimate_end_to_end_is_a_table_play_samples_from(tmp_path):
    """`tabletop estimate kong-knockover --out K.json` writes by_group and by_place blocks that
    play.py's KnockoverTable reads; its fate for a pawn at risk comes from them."""
    out = tmp_path / "k.json"
    proc = subprocess.run([sys.executable, "-m", "tabletop.cli", "estimate", "kong-knockover", "--trials", "24",
                           "--seed", "2", "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text())
    assert data["device"] == "kong-knockover" and data["trials"] == 24 and data["escaped"] == 0
    assert all(GROUP.match(g) for g in data["by_group"])
    assert set(data["by_place"]) <= set(GROOVES) | {"groove", ADJACENT}
    assert all(g.startswith("groove/") for g in data["by_twist"])
    by_group, overall = load_knockover_table(out)
    table = KnockoverTable(by_group, overall)
    for where, in_groove in (("left_hand", True), ("L3-4", False)):
        p = table.fate_probabilities(AtRisk(0, where, in_groove), "R2")
        assert p.shape == (3,) and p.sum() == pytest.approx(1.0)


def test_the_spec_file_is_the_registered_one(device):
    assert default_spec("kong-knockover").name == "knockover.toml"
    assert isinstance(device.sample_gesture(trial_rng(1, 0)), KongTrial)
