"""A fourth game costs its own module and one registry line: the stand-in coin race
(tests/standin_game.py, its coin simulated by the throw device) is registered, and the command
line plays it headless and analyzes it, replays summarize and verify it, the agent environment
runs it and OpenSpiel's random_sim_test passes on its OpenSpiel wrapper, with no generic module
edited."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop.gamekit import registry
from tabletop.cli import main
from tests.standin_game import DEFINITION


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(registry.GAMES, DEFINITION.name, DEFINITION)


def test_play_headless_with_the_physical_coin_then_summary_and_verify(registered, tmp_path, capsys):
    path = tmp_path / "race.ttr"
    assert main(["play", "coin-race", "--headless", "--seats", "random,random", "--seed", "2", "--goal", "2",
                 "--record", str(path)]) == 0
    played = capsys.readouterr().out.splitlines()
    assert played[0] == "Coin race to 2, seed 2" and played[-1].startswith("winner: ")
    assert any(" flips " in line for line in played)
    assert main(["replay", str(path), "--summary"]) == 0
    assert capsys.readouterr().out.splitlines() == played
    assert main(["replay", str(path), "--verify"]) == 0
    assert capsys.readouterr().out.startswith("verified: ")


def test_its_option_is_checked_and_another_games_refused(registered, capsys):
    assert main(["play", "coin-race", "--headless", "--seats", "random,random", "--goal", "0", "--no-record"]) == 2
    assert "--goal: must be at least 1" in capsys.readouterr().err
    assert main(["play", "knossos", "--headless", "--goal", "2", "--no-record"]) == 2
    assert "--goal: only for coin-race, not knossos" in capsys.readouterr().err


def test_analyze(registered, tmp_path, capsys):
    out = tmp_path / "a.json"
    assert main(["analyze", "coin-race", "--games", "200", "--seats", "random,random", "--outcomes", "fair",
                 "--goal", "3", "--quiet", "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["game"] == "coin-race" and result["goal"] == 3
    red = result["figures"]["win_rate.red"]
    assert red["n"] == 200 and red["ci95"][0] < red["value"] < red["ci95"][1]
    assert 0.45 < red["value"] < 0.8                  # red flips first: an edge, not a certainty


def test_the_agent_environment(registered):
    pytest.importorskip("pettingzoo")
    from tabletop.gamekit.env import env

    e = env("coin-race", outcomes="fair", goal=3)
    e.reset(seed=1)
    steps = 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0])
        e.step(action)
        steps += 1
    assert steps > 2


def test_openspiel_random_sim_test(registered):
    pyspiel = pytest.importorskip("pyspiel")
    from tabletop.gamekit.openspiel import spiel_game

    pyspiel.random_sim_test(spiel_game(DEFINITION, goal=3), num_sims=3, serialize=True, verbose=False)
