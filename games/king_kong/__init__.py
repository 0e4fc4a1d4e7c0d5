"""King Kong: the board, Kong's figure and the deck as data, the rules, AI seats, headless play."""
from tabletop.games.gamespec import GameSpec
from tabletop.games.king_kong.labels import COLOURS


def _actions() -> dict:
    from tabletop.games.king_kong import rules as r
    from tabletop.games.state import ChanceOutcome, Pass
    return {"roll": r.Roll, "fly": r.Fly, "move": r.Move, "attack": r.Attack, "escape": r.Escape,
            "end": r.EndTurn, "twist": r.Twist, "climb": r.Climb, "net": r.SafetyNet, "decline": r.Decline,
            "discard": r.Discard, "pass": Pass, "outcome": ChanceOutcome}


def _game(config: dict):
    from tabletop.games.king_kong.rules import Game
    return Game(players=int(config["players"]))


def _physics():
    from tabletop.games.king_kong.source import KongSource
    return KongSource()


def _play(seats, seed, outcomes, record, variant, games_to_win, emit=None):
    from tabletop.games.king_kong import session
    return session.play_headless(seats, seed, outcomes, record, emit)


def _adapter(seats, variant, games_to_win, scene=None):
    from tabletop.games.king_kong.view import KongAdapter
    return KongAdapter(len(seats), scene)


def _source(outcomes: str):
    from tabletop.games.king_kong import session
    return session.make_source(outcomes)


def _codec(game):
    from tabletop.games.king_kong.codec import KongCodec
    return KongCodec(game)


def _analysis():
    from tabletop.games.king_kong.analysis import analysis
    return analysis()


SPEC = GameSpec(
    name="king-kong", title="King Kong", colours=COLOURS,
    seats=(2, 6), variants=("standard",), chance_events=("shuffle", "die", "spin-outer", "spin-inner", "kong-move"),
    actions=_actions, make_game=_game, physics=_physics, play_headless=_play, window_adapter=_adapter,
    devices=("die", "spinner", "kong-knockover"), make_source=_source, codec=_codec, analysis=_analysis,
    seat_kinds=("ai", "plan", "random", "human"),
)
