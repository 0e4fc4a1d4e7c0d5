"""The Knossos table: every throw of a match simulated with the physical sticks."""
from __future__ import annotations

import pytest

import subprocess
import sys

import numpy as np

from tabletop.gamekit.match import Match
from tabletop.gamekit.state import ChanceOutcome
from tabletop.games.knossos.ai import SEATS
from tabletop.games.knossos.rules import Game
from tabletop.games.knossos.table import PhysicsOutcomes



@pytest.mark.slow
def test_a_physics_match_is_thrown_and_repeats_in_another_process(tmp_path):
    """Two AI seats, one game: every throw comes from the simulated sticks (all three results occur),
    and the same seed gives the same log in a fresh process."""
    source = PhysicsOutcomes()
    lines: list[str] = []
    try:
        final = Match(Game(games_to_win=1).new_initial_state(), [SEATS["ai"](), SEATS["ai"]()], source, 2,
                      max_turns=20000).play(lines.append)
        throws = [a.label for a in final.history if isinstance(a, ChanceOutcome)]
        assert final.is_terminal() and set(throws) == {"1", "2", "3"}
        assert sorted(final.score) == [0, 1]
        source.table.sync(final)
        for i, site in enumerate(final.pos):
            assert np.allclose(source.table.world.position(f"knossos-piece-{i}"), source.table.piece_position(i, site))
    finally:
        source.close()
    proc = subprocess.run([sys.executable, "-m", "tabletop.cli", "play", "knossos", "--headless", "--seats", "ai,ai",
                           "--seed", "2", "--games-to-win", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[1:] == lines
