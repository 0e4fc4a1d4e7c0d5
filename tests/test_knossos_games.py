"""Whole Knossos matches: invariants over many matches, determinism, a golden playthrough."""
from __future__ import annotations

import pytest

from pathlib import Path

from tabletop.gamekit.chance import TableOutcomes
from tabletop.games.knossos.ai import HeuristicSeat, RandomSeat
from tabletop.gamekit.match import Match
from tabletop.games.knossos.rules import OFF, PIECES_PER_PLAYER, START, ChanceOutcome, Game, Move, Pass, Phase
from tests.golden import check_golden

GOLDEN = Path(__file__).parent / "golden" / "knossos-seed7.txt"
STICKS = TableOutcomes({"sticks": {"1": 0.25, "2": 0.5, "3": 0.25}})


class Invariants:
    """Checked after every action: pieces conserved, at most one piece per site, no piece beyond its
    track, every move exactly what its throw allows, the score and the games consistent."""

    def __init__(self, game: Game):
        self.game = game
        self.before = [START] * (game.players * PIECES_PER_PLAYER)
        self.before_game = 1
        self.before_throw: str | None = None
        self.before_current = 0

    def __call__(self, state) -> None:
        g = self.game
        pos = state.pos
        assert len(pos) == g.players * PIECES_PER_PLAYER
        for piece, at in enumerate(pos):
            track = g.board.tracks[g.owner(piece)].sites
            assert at in (START, OFF) or at in track, f"{g.piece_name(piece)} off its track at {at}"
        placed = [at for at in pos if at >= 0]
        assert len(placed) == len(set(placed)), f"two pieces on one site: {state}"
        assert sum(state.score) == state.game_number - 1 + (1 if state.is_terminal() else 0)
        assert max(state.score) <= g.games_to_win and state.game_winners.count(0) == state.score[0]
        assert state.phase is Phase.OVER or max(state.score) < g.games_to_win
        last = state.history[-1]
        if state.game_number != self.before_game:                 # a game was won: a fresh board
            assert isinstance(last, Move) and last.to == OFF and pos == [START] * len(pos)
            assert state.game_winners[-1] == self.before_current != state.current
        elif isinstance(last, Move):
            self._check_move(state, last)
        elif isinstance(last, Pass):
            assert pos == self.before
            assert state.current == (self.before_current if self.before_throw == "3" else 1 - self.before_current)
        elif isinstance(last, ChanceOutcome):
            assert pos == self.before and state.throw == last.label and state.phase is Phase.MOVE
        self.before, self.before_game, self.before_throw = list(pos), state.game_number, state.throw
        self.before_current = state.current

    def _check_move(self, state, move: Move) -> None:
        g, before, pos = self.game, self.before, state.pos
        here = before[move.piece]
        reach = {r.to: r for r in g.reach[g.owner(move.piece)][here][self.before_throw]}
        assert move.to in reach, f"{move} from {here} is not what a {self.before_throw} allows"
        assert pos[move.piece] == move.to
        if reach[move.to].bridge:
            assert self.before_throw == "3" and move.to == g.board.after_bridge
        changed = [m for m in range(len(pos)) if pos[m] != before[m] and m != move.piece]
        if changed:                                                # a take
            (taken,) = changed
            assert before[taken] == move.to and pos[taken] == START
            assert g.owner(taken) != g.owner(move.piece) and move.to in g.capture_spaces
        for m in range(len(pos)):
            if before[m] == OFF:
                assert pos[m] == OFF, "a borne-off piece came back"
        if not state.is_terminal():
            again = self.before_throw == "3"
            assert state.current == (self.before_current if again else 1 - self.before_current)


@pytest.mark.slow
def test_random_matches_all_reach_a_winner():
    """1,000 matches of random seats with table chance: each ends with a match winner, invariants hold
    after every action."""
    game = Game()
    for seed in range(1000):
        final = Match(game.new_initial_state(), [RandomSeat(), RandomSeat()], STICKS, seed,
                      after_action=Invariants(game), max_turns=5000).play()
        assert final.is_terminal() and final.score[final.winner] == game.games_to_win
        assert final.off_count(final.winner) == PIECES_PER_PLAYER


def test_the_heuristic_seat_beats_random_play():
    """Over 100 matches, taking turns at starting, the heuristic seat wins clearly more than half."""
    wins = 0
    for seed in range(100):
        ai = seed % 2
        seats = [RandomSeat(), RandomSeat()]
        seats[ai] = HeuristicSeat()
        wins += Match(Game().new_initial_state(), seats, STICKS, seed, max_turns=20000).play().winner == ai
    assert wins >= 58


def _golden_log(seed: int = 7) -> str:
    lines: list[str] = []
    Match(Game().new_initial_state(), [HeuristicSeat(), HeuristicSeat()], STICKS, seed,
          max_turns=20000).play(lines.append)
    return "\n".join(lines) + "\n"


def test_golden_playthrough():
    """A heuristic-seat match with table chance, seed 7, matches the recorded human-readable log
    (set TABLETOP_UPDATE_GOLDEN=1 to re-record after a deliberate rules change)."""
    check_golden(GOLDEN, _golden_log())

