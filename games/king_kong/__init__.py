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


SPEC = GameSpec(
    name="king-kong", title="King Kong", colours=COLOURS,
    seats=(2, 6), variants=("standard",), chance_events=("shuffle", "die", "spin-outer", "spin-inner", "kong-move"),
    actions=_actions, make_game=_game, physics=_physics, play_headless=_play, window_adapter=_adapter,
)
