"""King Kong: the board, Kong's figure and the deck as data, the rules, AI seats, headless play."""
from tabletop.games.definition import GameDefinition
from tabletop.games.king_kong.labels import COLOURS


class KingKong(GameDefinition):
    name = "king-kong"
    title = "King Kong"
    colours = COLOURS
    seats = (2, 6)
    chance_events = ("shuffle", "die", "spin-outer", "spin-inner", "kong-move")
    devices = ("die", "spinner", "kong-knockover")
    seat_kinds = ("ai", "plan", "random", "human")

    sources_help = ("uniform (a stand-in, not physics: die faces and spinner sectors equally likely, fixed "
                    "knock-over odds)")

    def winner(self, state) -> str | None:
        """"kong" when Kong reaches the top, else the winning colours ("+" between a shared victory)."""
        if state.kong_won:
            return "kong"
        return "+".join(self.colours[p] for p in state.winners) or None

    def actions(self) -> dict:
        from tabletop.games.king_kong import rules as r
        from tabletop.games.state import ChanceOutcome, Pass
        return {"roll": r.Roll, "fly": r.Fly, "move": r.Move, "attack": r.Attack, "escape": r.Escape,
                "end": r.EndTurn, "twist": r.Twist, "climb": r.Climb, "net": r.SafetyNet, "decline": r.Decline,
                "discard": r.Discard, "pass": Pass, "outcome": ChanceOutcome}

    def make_game(self, config: dict):
        from tabletop.games.king_kong.rules import Game
        return Game(players=int(config["players"]))

    def physics(self):
        from tabletop.games.king_kong.source import KongSource
        return KongSource()

    def play_headless(self, seats, seed, outcomes, record, options, emit=None):
        from tabletop.games.king_kong import session
        return session.play_headless(seats, seed, outcomes, record, emit)

    def window_adapter(self, seats, options, scene=None):
        from tabletop.games.king_kong.view import KongAdapter
        return KongAdapter(len(seats), scene)

    def make_source(self, outcomes: str):
        from tabletop.games.king_kong import session
        return session.make_source(outcomes)

    def codec(self, game):
        from tabletop.games.king_kong.codec import KongCodec
        return KongCodec(game)

    def analysis(self):
        from tabletop.games.king_kong.analysis import analysis
        return analysis()


DEFINITION = KingKong()
