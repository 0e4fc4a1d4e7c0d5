"""Any game here as an OpenSpiel python game (pyspiel), for OpenSpiel's algorithms and its own tests.

    from tabletop.gamekit.openspiel import spiel_game
    game = spiel_game(definition, players=2)              # a pyspiel.Game
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)

pip install -e '.[openspiel]' (the test extra installs it). Decisions are the game's agent
codec's action numbers (tabletop.gamekit.codec); a chance node lists its outcomes with the
probabilities of the measured tables (or fair ones) through the definition's
`chance_distribution`, each outcome numbered by its place in that list. A chance event with too
many outcomes to list (a shuffle: UniformOrder) is drawn item by item, one chance node each, and
the rules see the whole order at once. Only the game's name, its players and its options cross
the pickled wire: `pyspiel.load_game` makes the same game again (a serialized state is its game
and the history of action numbers).
"""
from __future__ import annotations

import numpy as np
import pyspiel

from tabletop.gamekit.chance import UniformOrder
from tabletop.gamekit.definition import GameDefinition
from tabletop.gamekit.state import ChanceOutcome

MAX_CHANCE_OUTCOMES = 1000     # the most outcomes a chance node lists (King Kong's move: 3^6 fates)
MAX_GAME_LENGTH = 200000
# (short name, parameters) -> the game's Python parts: pyspiel keeps the C++ side of a python game
# alive but not its Python attributes, so the parts are kept here, made once per game
_PARTS: dict = {}
_TYPES: dict = {}                # short name -> its pyspiel.GameType


def short_name(definition: GameDefinition) -> str:
    return "python_tabletop_" + definition.name.replace("-", "_")


def register(definition: GameDefinition, outcomes: str = "measured") -> None:
    """Register the game with pyspiel (once), so that pyspiel.load_game makes it by its short name."""
    if short_name(definition) in pyspiel.registered_names():
        return
    defaults = {"players": definition.seats[0], **{o.name: o.default for o in definition.options}}
    kind = pyspiel.GameType(
        short_name=short_name(definition), long_name=f"tabletop {definition.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=definition.seats[1], min_num_players=definition.seats[0],
        provides_information_state_string=False, provides_information_state_tensor=False,
        provides_observation_string=False, provides_observation_tensor=False,
        parameter_specification=defaults)
    _TYPES[kind.short_name] = kind
    game_class = type(f"Spiel_{definition.name.replace('-', '_')}", (SpielGame,),
                      {"definition": definition, "outcomes": outcomes})
    pyspiel.register_game(kind, game_class)


def spiel_game(definition: GameDefinition, players: int | None = None, outcomes: str = "measured",
               **options) -> pyspiel.Game:
    """The pyspiel.Game of `definition` with `players` seats (its fewest by default) and its options,
    chance from `outcomes` ("measured": the published tables; "fair")."""
    register(definition, outcomes)
    params = {"players": players or definition.seats[0], **definition.check_options(options)}
    return pyspiel.load_game(short_name(definition), params)


def source_for(definition: GameDefinition, outcomes: str):
    """The table source whose probabilities the chance nodes list."""
    from tabletop.gamekit.chance import measured_paths

    if outcomes == "measured":
        outcomes = "table:" + ",".join(str(p) for p in measured_paths(definition.devices))
    return definition.make_source(outcomes)


class SpielGame(pyspiel.Game):
    """A registered game (register makes one subclass a game, with its `definition` and `outcomes`)."""

    definition: GameDefinition
    outcomes = "measured"

    def __init__(self, params=None):
        definition, outcomes = self.definition, self.outcomes
        kind = _TYPES[short_name(definition)]
        params = dict(params or {})
        players = int(params.pop("players", definition.seats[0]))
        options = definition.check_options(params)
        rules = definition.make_game({"players": players, **options})
        codec = definition.codec(rules)
        info = pyspiel.GameInfo(num_distinct_actions=codec.size, max_chance_outcomes=MAX_CHANCE_OUTCOMES,
                                num_players=players, min_utility=-1.0, max_utility=1.0,
                                max_game_length=MAX_GAME_LENGTH)
        super().__init__(kind, info, {"players": players, **options})
        key = (kind.short_name, tuple(sorted({"players": players, **options}.items())))
        _PARTS.setdefault(key, Parts(definition, rules, codec, source_for(definition, outcomes)))

    def new_initial_state(self):
        return SpielState(self)


class Parts:
    """A game's definition, rules, codec and chance source: shared by every state of the game, so a
    copy of a state (OpenSpiel clones by deepcopy) shares them."""

    def __init__(self, definition, rules, codec, source):
        self.definition, self.rules, self.codec, self.source = definition, rules, codec, source

    def __deepcopy__(self, memo):
        return self


class _Rules:
    """The rules' state inside a SpielState: copied by the rules' own clone (which shares the
    immutable Game) when OpenSpiel deep-copies the SpielState."""

    def __init__(self, state):
        self.state = state

    def __deepcopy__(self, memo):
        return _Rules(self.state.clone())


def parts_of(game) -> Parts:
    params = game.get_parameters()
    return _PARTS[(game.get_type().short_name, tuple(sorted(params.items())))]


class SpielState(pyspiel.State):
    def __init__(self, game: SpielGame):
        super().__init__(game)
        self._g = parts_of(game)
        self.players = game.num_players()
        self._rules = _Rules(self._g.rules.new_initial_state())
        self.order: list[str] = []           # a UniformOrder drawn so far

    @property
    def rules_state(self):
        return self._rules.state

    def _distribution(self):
        return self._g.definition.chance_distribution(self.rules_state, self._g.source)

    def current_player(self):
        s = self.rules_state
        if s.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        if s.is_chance_node():
            return pyspiel.PlayerId.CHANCE
        return s.current_player

    def _legal_actions(self, player):
        return [int(a) for a in np.flatnonzero(self._g.codec.mask(self.rules_state))]

    def _outcomes(self) -> list[tuple[str, float]]:
        dist = self._distribution()
        if isinstance(dist, UniformOrder):
            left = [item for item in dist.items if item not in self.order]
            return [(item, 1.0 / len(left)) for item in left]
        return dist

    def chance_outcomes(self):
        return [(i, p) for i, (_, p) in enumerate(self._outcomes()) if p > 0]

    def _apply_action(self, action):
        s = self.rules_state
        if not s.is_chance_node():
            s.apply(self._g.codec.decode(s, action))
            return
        dist = self._distribution()
        label = self._outcomes()[action][0]
        if isinstance(dist, UniformOrder):
            self.order.append(label)
            if len(self.order) < len(dist.items):
                return
            label, self.order = " ".join(self.order), []
        s.apply(ChanceOutcome(label))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return self._outcomes()[action][0]
        return str(self._g.codec.decode(self.rules_state, action))

    def is_terminal(self):
        return self.rules_state.is_terminal()

    def returns(self):
        s = self.rules_state
        return list(s.returns()) if s.is_terminal() else [0.0] * self.players

    def __str__(self):
        return str(self.rules_state)
