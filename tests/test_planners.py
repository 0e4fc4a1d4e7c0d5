"""The planning seats: King of the Hill's expectimax over the chance tables and King Kong's hand
management. Seeded games, so each figure is the same every run."""
from __future__ import annotations

import pytest

import numpy as np

from tabletop.gamekit.chance import TableOutcomes, measured_paths, measured_tables
from tabletop.gamekit.match import Match


def _koth_head_to_head(games: int) -> int:
    from tabletop.games.king_of_the_hill.ai import SEATS
    from tabletop.games.king_of_the_hill.rules import Game

    source, game, wins = TableOutcomes(measured_tables(("tipper", "crater"))), Game(2), 0
    for i in range(games):
        kinds = ["plan", "ai"] if i % 2 == 0 else ["ai", "plan"]
        m = Match(game.new_initial_state(), [SEATS[k]() for k in kinds], source, 500 + i)
        m.play()
        wins += kinds[m.state.winner] == "plan"
    return wins


@pytest.mark.slow
def test_the_koth_planner_beats_the_greedy_seat_head_to_head():
    """Over 100 seeded two-player games, seats swapped each game (2,000 games give 0.7 and more)."""
    assert _koth_head_to_head(100) >= 60


def test_the_koth_planner_plays_only_legal_moves_and_takes_a_win_when_it_has_one():
    from tabletop.games.king_of_the_hill.ai import PlannerSeat
    from tabletop.games.king_of_the_hill.rules import Game, Move
    from tabletop.gamekit.state import ChanceOutcome

    state, seat, rng = Game(2).new_initial_state(), PlannerSeat(), np.random.default_rng(0)
    L = state.game.board.path_length
    state.apply(ChanceOutcome("6"))
    state.apply(ChanceOutcome("1"))                       # red goes first
    state.track = [L, L - 3, 5, 9]                        # red-1 home, red-2 three short of seat #2
    state.apply(ChanceOutcome("J"))
    win = state.fork()
    win.apply(seat.choose(state, rng))
    assert win.winner == 0                                 # a J of 4 to 8 wins at once: it takes one
    assert PlannerSeat().choose(state, rng) != Move(1, 1)
    for _ in range(30):                                    # and along a game, every choice is legal
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply(ChanceOutcome(state.chance_outcomes()[int(rng.integers(len(state.chance_outcomes())))]))
        else:
            move = seat.choose(state, rng)
            assert move in state.legal_actions()
            state.apply(move)


def test_the_kong_planner_discards_what_no_mission_needs_and_keeps_attack_cards():
    """At every discard of seeded games: it discards exactly the cards no mission can use now
    (the `ai` seat keeps Helicopters, Escapes and Safety Nets all game)."""
    from tabletop.games.king_kong.ai import PlannerSeat
    from tabletop.games.king_kong.chance import table_source
    from tabletop.games.king_kong.rules import Discard, Game, Phase

    seat, source = PlannerSeat(), table_source(measured_paths(("die", "spinner", "kong-knockover")))
    seen = 0
    for seed in range(4):
        m = Match(Game(players=2).new_initial_state(), [PlannerSeat(), PlannerSeat()], source, seed)
        while not m.state.is_terminal() and seen < 12:
            s = m.state
            if s.phase is Phase.DISCARD and not s.is_chance_node():
                p = s.current
                drop = tuple(sorted(c for c in s.hands[p] if seat.card_value(s, p, c) < 0))
                chosen = seat.choose(s, m.seeds.seats)
                assert chosen == Discard(drop)
                seen += 1
                m.apply(chosen)
                continue
            m.step()
    assert seen >= 6
