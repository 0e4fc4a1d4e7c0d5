"""The three games as PettingZoo AEC environments (`pip install tabletop[agents]`).

    from tabletop.gamekit.env import env
    e = env("knossos")                  # or "king-of-the-hill" (players=2..4), "king-kong" (2..6)
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are "player_0", "player_1", ... in seat order (each one's info names its colour). An agent acts by a number of the game's fixed catalogue
(tabletop.gamekit.codec); `obs["action_mask"]` marks the legal ones. Chance events are answered
inside `step` by the same sources as `tabletop play`: the published measured tables by default
(`outcomes="measured"`), `"physics"` to simulate every gadget, or `"table:FILE.json,..."`. The
game runs in the one match loop (tabletop.gamekit.match.Match): `reset(seed=S)` starts a game whose
seed is drawn from a Generator seeded with S, so a seeded reset replays exactly. The reward is the
rules' return at the end (+1 the winner or winners, -1 the others), 0 before.
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from tabletop.gamekit.chance import measured_paths
from tabletop.gamekit.match import Match
from tabletop.gamekit.registry import game_spec
from tabletop.gamekit.state import ChanceOutcome
from tabletop.sim.errors import InputError


def env(game: str, **options) -> "TabletopEnv":
    """The AEC environment of `game` (see TabletopEnv for the options)."""
    return TabletopEnv(game, **options)


class TabletopEnv(AECEnv):
    """`game` with `players` seats (the game's fewest by default) and the game's own options
    (`options`, as `play` takes them), chance from `outcomes`; a game longer than `max_turns` is
    truncated."""

    metadata = {"render_modes": ["ansi", "human"], "is_parallelizable": False}

    def __init__(self, game: str, players: int | None = None, outcomes: str = "measured", max_turns: int = 5000,
                 render_mode: str | None = None, **options):
        super().__init__()
        if render_mode not in (None, "ansi", "human"):
            raise InputError(f"render_mode: 'ansi' (the position as text) or 'human' (printed), not {render_mode!r}")
        self.render_mode = render_mode
        self.spec = spec = game_spec(game)
        players = spec.seats[0] if players is None else int(players)
        if not spec.seats[0] <= players <= spec.seats[1]:
            lo, hi = spec.seats
            raise InputError(f"players: {spec.title} is for {lo}-{hi} players, not {players}")
        self.config = {"players": players, **spec.check_options(options)}
        self.game = spec.make_game(self.config)
        self.codec = spec.codec(self.game)
        if outcomes == "measured":
            outcomes = "table:" + ",".join(str(p) for p in measured_paths(spec.devices))
        self.source = spec.make_source(outcomes)
        self.max_turns = max_turns
        self.metadata = {**self.metadata, "name": f"tabletop_{spec.name.replace('-', '_')}_v0"}
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.colours = dict(zip(self.possible_agents, spec.colours))
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        box = spaces.Box(0.0, 1.0, (self.codec.obs_size,), np.float32)
        mask = spaces.Box(0, 1, (self.codec.size,), np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": box, "action_mask": mask})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.codec.size) for a in self.possible_agents}
        self._seeds = np.random.default_rng()
        self.match: Match | None = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent):
        state = self.match.state
        p = self._index[agent]
        mask = self.codec.mask(state) if self._to_move() == p else np.zeros(self.codec.size, np.int8)
        return {"observation": self.codec.observe(state, p), "action_mask": mask}

    def reset(self, seed=None, options=None):
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        game_seed = int(self._seeds.integers(2 ** 63))
        self.match = Match(self.game.new_initial_state(), [None] * len(self.possible_agents), self.source,
                           game_seed, max_turns=self.max_turns)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {"colour": self.colours[a]} for a in self.agents}
        self._advance()

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.match.state
        self._cumulative_rewards[agent] = 0.0
        self.match.apply(self.codec.decode(state, int(action)))
        self._advance()

    def _to_move(self) -> int | None:
        s = self.match.state
        return None if s.is_terminal() or s.is_chance_node() else s.current_player

    def _advance(self) -> None:
        """Answer the chance events up to the next decision (or the end); select the agent to act."""
        m = self.match
        while m.state.is_chance_node() and m.state.turn <= self.max_turns:
            m.apply(ChanceOutcome(m.draw()))
        s = m.state
        for a in self.agents:
            self.rewards[a] = 0.0
        if s.is_terminal():
            for a, r in zip(self.possible_agents, s.returns()):
                self.rewards[a] = float(r)
                self.terminations[a] = True
        elif s.turn > self.max_turns:
            for a in self.agents:
                self.truncations[a] = True
        else:
            self.agent_selection = self.possible_agents[s.current_player]
            self._accumulate_rewards()
            return
        if not hasattr(self, "agent_selection") or self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]
        self._accumulate_rewards()

    def render(self):
        """The position as text (render_mode "ansi"), or printed on stdout (render_mode "human",
        returning None); None otherwise."""
        if self.match is None or self.render_mode is None:
            return None
        text = str(self.match.state)
        if self.render_mode == "human":
            print(text, flush=True)
            return None
        return text

    def close(self):
        self.source.close()
