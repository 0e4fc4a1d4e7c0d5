"""Whole King of the Hill games: invariants over many games, determinism, a golden playthrough."""
from __future__ import annotations

from pathlib import Path

import pytest

from tabletop.gamekit.chance import TableOutcomes
from tabletop.games.king_of_the_hill.ai import GreedySeat, RandomSeat
from tabletop.gamekit.match import Match
from tabletop.games.king_of_the_hill.rules import DRAWER, IN_CRATER, Game, Move, Phase, Variant
from tests.golden import check_golden

GOLDEN = Path(__file__).parent / "golden" / "koth-4p-greedy-seed7.txt"
UNIFORM = TableOutcomes({"tipper": {l: 1 / 7 for l in "123456J"},
                         "crater": {f"cave{c}/seat{s}": 1 / 6 for c in (1, 2, 3) for s in (1, 2)}})


class Invariants:
    """Checked after every action: marbles conserved, one marble per seat, exact Zone entries."""

    def __init__(self, game: Game):
        self.game = game
        self.before = None

    def __call__(self, state) -> None:
        L, zone = self.game.board.path_length, self.game.board.zone_seats
        track = state.track
        assert len(track) == self.game.players * self.game.marbles_per_player
        for m, t in enumerate(track):
            assert t == DRAWER or t == IN_CRATER or 0 <= t < L + zone, (m, t)
            if t == IN_CRATER:
                assert state.phase is Phase.CRATER and state.pending_marble == m
        seated = [t for t in track if t >= 0]
        assert len(seated) == len(set(seated)), f"two marbles on one seat: {state}"
        last = state.history[-1] if state.history else None
        if isinstance(last, Move) and self.before is not None:
            start, dest = self.before[last.marble], track[last.marble]
            if dest >= L:
                natural = last.distance - 1 if start == DRAWER else start + last.distance
                assert dest == natural, f"inexact Zone entry {start} -> {dest} by {last.distance}"
            if self.before[last.marble] >= L:
                raise AssertionError("a marble left the Finish Zone")
        for m, t in enumerate(self.before or []):
            if t >= L:
                assert track[m] == t, "a marble in the Zone moved"
        self.before = list(track)


@pytest.mark.slow
@pytest.mark.parametrize("players,variant,games", [(4, "standard", 400), (3, "standard", 200),
                                                   (2, "standard", 200), (2, "special-two-player", 200)])
def test_random_games_all_reach_a_winner(players, variant, games):
    """1,000 games of random seats with table chance: each ends with a winner, invariants hold throughout."""
    game = Game(players, Variant(variant))
    for seed in range(games):
        check = Invariants(game)
        final = Match(game.new_initial_state(), [RandomSeat()] * players, UNIFORM, seed, after_action=check,
                      max_turns=3000).play()
        assert final.winner is not None
        assert final.zone_count(final.winner) == game.marbles_to_win


def _golden_log(seed: int = 7) -> str:
    lines: list[str] = []
    Match(Game(4).new_initial_state(), [GreedySeat()] * 4, UNIFORM, seed).play(lines.append)
    return "\n".join(lines) + "\n"


def test_golden_playthrough():
    """A 4-player greedy game with table chance, seed 7, matches the recorded human-readable log
    (set TABLETOP_UPDATE_GOLDEN=1 to re-record after a deliberate rules change)."""
    check_golden(GOLDEN, _golden_log())

