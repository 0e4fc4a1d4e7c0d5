"""The physical table: every chance event of a game answered by simulating the Tipper and the crater."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tabletop.games.king_of_the_hill.ai import GreedySeat
from tabletop.gamekit.match import Match
from tabletop.games.king_of_the_hill.rules import ChanceOutcome, Game, Move, Phase
from tabletop.games.king_of_the_hill.table import HillTable, PhysicsOutcomes



class Recording(PhysicsOutcomes):
    """Physics outcomes, remembering each event and the simulated outcome behind its label."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def outcome(self, event, state, rng):
        label = super().outcome(event, state, rng)
        self.seen.append((event, label))
        return label


@pytest.fixture(scope="module")
def physics_game():
    source = Recording()
    lines: list[str] = []
    final = Match(Game(2).new_initial_state(), [GreedySeat()] * 2, source, 5).play(lines.append)
    yield final, source, lines
    source.close()


@pytest.mark.slow
def test_a_physics_game_reaches_a_winner(physics_game):
    """Two AI seats on the physical table: every tilt and knock simulated, a winner at the end."""
    final, source, _ = physics_game
    assert final.winner is not None
    chance = [a.label for a in final.history if isinstance(a, ChanceOutcome)]
    assert chance == [label for _, label in source.seen]
    tilts = [label for event, label in source.seen if event == "tipper"]
    assert len(set(tilts)) >= 5                      # the Tipper really varies
    assert source.table.retries["tipper"] <= len(tilts) // 10


@pytest.mark.slow
def test_same_seed_same_physics_log_in_another_process(physics_game, tmp_path):
    """The same seed replays the same physics game, bit for bit, in a fresh process."""
    _, _, lines = physics_game
    proc = subprocess.run([sys.executable, "-m", "tabletop.cli", "play", "king-of-the-hill", "--headless",
                           "--seats", "ai,ai", "--seed", "5"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    printed = proc.stdout.splitlines()
    assert printed[1:-1] == lines
    assert printed[-1].startswith("winner: ")


def test_a_knock_is_simulated_from_the_edge_seat_of_the_knock():
    """A marble knocked off an edge seat drops through the crater into a cave seat, read physically;
    the knocked marble's body leaves no trace and the knocker is not in its way."""
    game = Game(2)
    board = game.board
    s = game.new_initial_state()
    s.track[:] = [board.edges["edge2"] - 2, 3, board.edges["edge2"], 4]
    s.phase, s.current, s.roll = Phase.MOVE, 0, "2"
    s.apply(Move(0, 2))
    assert s.phase is Phase.CRATER and s.knocked_from == "edge2"
    table = HillTable(4, board)
    try:
        outcome = table.knock(s, np.random.default_rng(3))
        assert outcome.label in s.chance_outcomes()
        assert outcome.group == "edge2"
        assert "marble" not in table.world.bodies
        s.apply(ChanceOutcome(outcome.label))
        table.sync(s)
        assert np.allclose(table.world.position("koth-marble-2"), board.path_positions[s.track[2]])
    finally:
        table.close()


def test_each_tilt_sends_the_ball_back_the_other_way():
    """On the table the Tipper's ball stays where it stopped; the next tilt lifts that end."""
    table = HillTable(4)
    try:
        rng = np.random.default_rng(0)
        ends = [table.tilt(rng).reading["end"] for _ in range(4)]
        lifted = ends[:-1]
        assert sum(a != b for a, b in zip(lifted, ends[1:])) >= 2
    finally:
        table.close()
