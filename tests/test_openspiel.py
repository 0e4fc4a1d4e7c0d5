"""Every registered game as an OpenSpiel python game passes OpenSpiel's own random_sim_test, with
and without serialization (a state saved as its game and history, loaded back and played on),
each in seconds (a clone shares the game and copies the position alone): decisions are
the agent codec's numbers, chance nodes list the measured tables' probabilities (King Kong's
shuffle drawn card by card, his move's fates multiplied out)."""
from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from tabletop.gamekit.openspiel import spiel_game  # noqa: E402
from tabletop.gamekit.registry import GAMES  # noqa: E402


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("serialize", [True, False], ids=["serialized", "plain"])
def test_random_sim_test(name, serialize):
    definition = GAMES[name]
    game = spiel_game(definition, players=min(3, definition.seats[1]))
    pyspiel.random_sim_test(game, num_sims=2, serialize=serialize, verbose=False)


def test_a_clone_shares_the_game_and_copies_the_position():
    """OpenSpiel clones a state by deepcopy: the copy shares the game's definition, rules and codec
    (and the rules' Game) and plays on apart from the original."""
    import numpy as np

    rng = np.random.default_rng(4)

    def step(state):
        actions = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
        state.apply_action(actions[int(rng.integers(len(actions)))])

    game = spiel_game(GAMES["king-kong"], players=3)
    state = game.new_initial_state()
    while state.is_chance_node() or len(state.history()) < 60:
        step(state)
    copy = state.clone()
    assert copy._g is state._g and copy.rules_state.game is state.rules_state.game
    assert copy.history() == state.history() and copy.rules_state is not state.rules_state
    step(copy)
    assert len(copy.history()) == len(state.history()) + 1 and copy.rules_state.history != state.rules_state.history


def test_chance_nodes_list_probabilities_that_sum_to_one():
    game = spiel_game(GAMES["king-kong"], players=3)
    state = game.new_initial_state()
    assert state.is_chance_node()                       # the deck's shuffle, card by card
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 38 and abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
    hill = spiel_game(GAMES["king-of-the-hill"], players=2).new_initial_state()
    assert [hill.action_to_string(a) for a, _ in hill.chance_outcomes()] == ["1", "2", "3", "4", "5", "6", "J"]
    assert abs(sum(p for _, p in hill.chance_outcomes()) - 1.0) < 1e-12
