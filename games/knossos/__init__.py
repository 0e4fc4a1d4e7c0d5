"""The Knossos Game (Hillbom ruleset): the board, its rules as a match, AI seats and the solved match."""
from tabletop.games.gamespec import GameSpec
from tabletop.games.knossos.rules import COLOURS


def _actions() -> dict:
    from tabletop.games.knossos.rules import Move
    from tabletop.games.state import ChanceOutcome, Pass
    return {"move": Move, "pass": Pass, "outcome": ChanceOutcome}


def _game(config: dict):
    from tabletop.games.knossos.rules import Game
    return Game(games_to_win=int(config["games_to_win"]))


def _physics():
    from tabletop.games.knossos.table import PhysicsOutcomes
    return PhysicsOutcomes()


def _play(seats, seed, outcomes, record, variant, games_to_win, emit=None):
    from tabletop.games.knossos import session
    return session.play_headless(seats, seed, games_to_win, outcomes, record, emit)


def _adapter(seats, variant, games_to_win, scene=None):
    from tabletop.games.knossos.view import KnossosAdapter
    return KnossosAdapter(len(seats), games_to_win, scene)


def _source(outcomes: str):
    from tabletop.games.knossos import session
    return session.make_source(outcomes)


def _codec(game):
    from tabletop.games.knossos.codec import KnossosCodec
    return KnossosCodec(game)


def _analysis():
    from tabletop.games.knossos.analysis import analysis
    return analysis()


SPEC = GameSpec(
    name="knossos", title="Knossos", colours=COLOURS, seats=(2, 2), variants=("standard",),
    chance_events=("sticks",), actions=_actions, make_game=_game, physics=_physics, play_headless=_play,
    window_adapter=_adapter, seat_kinds=("ai", "random", "solved", "human"),
    devices=("sticks",), make_source=_source, codec=_codec, analysis=_analysis,
)
