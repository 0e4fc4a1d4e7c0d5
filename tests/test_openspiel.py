"""Every registered game as an OpenSpiel python game passes OpenSpiel's own random_sim_test, with
serialization (a state saved as its game and history, loaded back and played on): decisions are
the agent codec's numbers, chance nodes list the measured tables' probabilities (King Kong's
shuffle drawn card by card, his move's fates multiplied out)."""
from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

from tabletop.gamekit.openspiel import spiel_game  # noqa: E402
from tabletop.games.registry import GAMES  # noqa: E402


# King Kong's random games are long (hundreds of chance nodes: a shuffle is drawn a card at a time),
# and random_sim_test clones and, serializing, replays every state from its whole history: minutes,
# so his runs are slow tests (`python -m pytest -m slow`)
SLOW_TO_SERIALIZE = {"king-kong"}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.long) if n in SLOW_TO_SERIALIZE else n
                                  for n in GAMES])
def test_random_sim_test_with_serialization(name):
    definition = GAMES[name]
    game = spiel_game(definition, players=min(3, definition.seats[1]))
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.long
@pytest.mark.parametrize("name", sorted(SLOW_TO_SERIALIZE))
def test_random_sim_test(name):
    definition = GAMES[name]
    game = spiel_game(definition, players=min(3, definition.seats[1]))
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


def test_chance_nodes_list_probabilities_that_sum_to_one():
    game = spiel_game(GAMES["king-kong"], players=3)
    state = game.new_initial_state()
    assert state.is_chance_node()                       # the deck's shuffle, card by card
    outcomes = state.chance_outcomes()
    assert len(outcomes) == 38 and abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
    hill = spiel_game(GAMES["king-of-the-hill"], players=2).new_initial_state()
    assert [hill.action_to_string(a) for a, _ in hill.chance_outcomes()] == ["1", "2", "3", "4", "5", "6", "J"]
    assert abs(sum(p for _, p in hill.chance_outcomes()) - 1.0) < 1e-12
