"""The games as PettingZoo AEC environments: PettingZoo's own API and seed tests, whole games by
random agents, and the action catalogues (every legal action has one number, and back)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test  # noqa: E402
from pettingzoo.utils.conversions import turn_based_aec_to_parallel  # noqa: E402

from tabletop.gamekit.env import env  # noqa: E402
from tabletop.gamekit.registry import GAMES as DEFINITIONS, game_spec  # noqa: E402
from tabletop.gamekit.state import ChanceOutcome  # noqa: E402
from tabletop.sim.errors import InputError  # noqa: E402

# every registered game, with three players where it seats them (more than its fewest)
GAMES = [(d.name, {"players": min(3, d.seats[1])}) for d in DEFINITIONS.values()]


@pytest.mark.parametrize("game,options", GAMES)
def test_pettingzoo_api_seed_render_and_parallel_tests_pass(game, options, capsys):
    api_test(env(game, **options), num_cycles=300)
    seed_test(lambda: env(game, **options), num_cycles=300)
    render_test(lambda render_mode=None: env(game, render_mode=render_mode, **options))
    assert capsys.readouterr().out            # "human": the position printed
    parallel_api_test(turn_based_aec_to_parallel(env(game, **options)), num_cycles=100)


def _random_game(e, seed: int):
    """Random legal actions to the end: (the agents' summed rewards, the decisions taken)."""
    e.reset(seed=seed)
    rng, total, decisions = np.random.default_rng(seed), dict.fromkeys(e.possible_agents, 0.0), 0
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        total[agent] += reward
        assert e.observation_space(agent)["observation"].contains(obs["observation"])
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        e.step(int(rng.choice(legal)))
        decisions += 1
    return total, decisions


@pytest.mark.parametrize("game,options", GAMES)
def test_random_agents_play_a_whole_game_to_its_end(game, options):
    e = env(game, **options)
    total, decisions = _random_game(e, 5)
    assert e.match.state.is_terminal() and decisions >= 1          # any game: at least one decision
    returns = e.match.state.returns()                       # +1 the winner or winners, -1 the others
    assert total == dict(zip(e.possible_agents, returns)) and set(returns) <= {1.0, -1.0}
    assert _random_game(env(game, **options), 5) == (total, decisions)         # a seeded reset replays


@pytest.mark.slow
@pytest.mark.parametrize("game,options", GAMES)
def test_every_legal_action_has_one_number_and_decodes_back(game, options):
    """Along random playouts: each legal action encodes to a number the mask marks, distinct
    actions to distinct numbers, and each number decodes to its action."""
    e = env(game, **options)
    codec, rng = e.codec, np.random.default_rng(2)
    for seed in range(3):
        e.reset(seed=seed)
        state = e.match.state
        while not state.is_terminal():
            if state.is_chance_node():
                e.match.apply(ChanceOutcome(e.match.draw()))
                continue
            legal = state.legal_actions()
            numbers = [codec.encode(state, a) for a in legal]
            assert len(set(numbers)) == len(legal)
            assert [codec.decode(state, n) for n in numbers] == legal
            assert set(np.flatnonzero(codec.mask(state))) == set(numbers)
            e.match.apply(legal[int(rng.integers(len(legal)))])


def test_a_number_that_names_no_action_is_refused():
    e = env("king-kong", players=2)
    e.reset(seed=1)
    with pytest.raises(ValueError, match="outside"):
        e.codec.decode(e.match.state, e.codec.size)


def test_bad_options_are_one_line_errors():
    with pytest.raises(InputError, match="2-2 players"):
        env("knossos", players=3)
    with pytest.raises(InputError, match="--outcomes"):
        env("knossos", outcomes="dice")
    with pytest.raises(InputError, match="render_mode"):
        env("knossos", render_mode="rgb_array")
    assert game_spec("knossos").codec is not None


def test_the_readme_random_agent_loop_runs(capsys):
    import re
    from pathlib import Path

    readme = (Path(__file__).parents[1] / "README.md").read_text()
    section = readme[readme.index("## Agent environments"):]
    exec(re.search(r"```python\n(.*?)```", section, re.S).group(1), {})
    assert " wins " in capsys.readouterr().out
