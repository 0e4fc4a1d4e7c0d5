"""The board data agrees with the hill model it is laid out on."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop.games.king_of_the_hill.board import load_board

ROOT = Path(__file__).parents[1]


@pytest.fixture(scope="module")
def crater():
    from tabletop.gamekit.devices import make_device

    device = make_device("crater")
    yield device
    device.close()


def test_board_toml_is_up_to_date_with_the_hill():
    """board.toml is what scripts/layout_board.py makes from hill.toml (re-run it after editing either)."""
    proc = subprocess.run([sys.executable, "scripts/layout_board.py", "--check"], cwd=ROOT, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr


def test_edge_spaces_sit_on_the_craters_edge_seats(crater):
    board = load_board()
    assert set(board.edges) == set(crater.edge_seats)
    for name, space in board.edges.items():
        assert np.allclose(board.path_positions[space], crater.start_positions[name], atol=1e-4)


def test_each_cave_seat_lies_directly_under_its_path_space(crater):
    board = load_board()
    for label, space in board.caves.items():
        seat = np.array(crater.seat_regions[label].center)
        above = np.array(board.path_positions[space])
        assert np.hypot(*(above - seat)[:2]) < 1e-3
        assert above[2] > seat[2] + 0.03


def test_seats_are_apart_and_on_the_hill(crater):
    board = load_board()
    p = np.array(board.path_positions + board.zone_positions)
    d = np.linalg.norm(p[:, None] - p[None], axis=2)
    np.fill_diagonal(d, 1.0)
    assert d.min() > 2 * crater.marble_radius + 0.004       # marbles on neighbouring seats never touch
    steps = np.linalg.norm(np.diff(np.array(board.path_positions), axis=0), axis=1)
    assert steps.max() < 0.05                              # a path, not a scatter of seats
    half = crater.base_size / 2
    assert np.all(np.abs(p[:, :2]) < half) and np.all(p[:, 2] > 0)
