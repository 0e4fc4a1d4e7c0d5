"""King of the Hill (1958): the hill, its Tipper and its crater."""
from tabletop.games.gamespec import GameSpec
from tabletop.games.king_of_the_hill.rules import COLOURS


def _actions() -> dict:
    from tabletop.games.king_of_the_hill.rules import Move
    from tabletop.games.state import ChanceOutcome, Pass
    return {"move": Move, "pass": Pass, "outcome": ChanceOutcome}


def _game(config: dict):
    from tabletop.games.king_of_the_hill.rules import Game, Variant
    return Game(int(config["players"]), Variant(config["variant"]))


def _physics():
    from tabletop.games.king_of_the_hill.table import PhysicsOutcomes
    return PhysicsOutcomes()


def _play(seats, seed, outcomes, record, variant, games_to_win, emit=None):
    from tabletop.games.king_of_the_hill import session
    return session.play_headless(seats, seed, variant, outcomes, record, emit)


def _adapter(seats, variant, games_to_win, scene=None):
    from tabletop.games.king_of_the_hill.view import HillAdapter
    return HillAdapter(len(seats), variant, scene)


def _source(outcomes: str):
    from tabletop.games.king_of_the_hill import session
    return session.make_source(outcomes)


def _codec(game):
    from tabletop.games.king_of_the_hill.codec import HillCodec
    return HillCodec(game)


def _analysis():
    from tabletop.games.king_of_the_hill.analysis import analysis
    return analysis()


SPEC = GameSpec(
    name="king-of-the-hill", title="King of the Hill", colours=COLOURS, seats=(2, 4),
    variants=("standard", "special-two-player"), chance_events=("tipper", "crater"), actions=_actions,
    make_game=_game, physics=_physics, play_headless=_play, window_adapter=_adapter,
    devices=("tipper", "crater"), make_source=_source, codec=_codec, analysis=_analysis,
    seat_kinds=("ai", "plan", "random", "human"),
)
