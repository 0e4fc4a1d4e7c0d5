"""The Knossos Game (Hillbom ruleset): the board, its rules as a match, AI seats and the solved match."""
from tabletop.games.definition import GameDefinition
from tabletop.games.knossos.rules import COLOURS


class Knossos(GameDefinition):
    name = "knossos"
    title = "Knossos"
    colours = COLOURS
    seats = (2, 2)
    variants = ("standard",)
    chance_events = ("sticks",)
    devices = ("sticks",)
    seat_kinds = ("ai", "random", "solved", "human")

    def actions(self) -> dict:
        from tabletop.games.knossos.rules import Move
        from tabletop.games.state import ChanceOutcome, Pass
        return {"move": Move, "pass": Pass, "outcome": ChanceOutcome}

    def make_game(self, config: dict):
        from tabletop.games.knossos.rules import Game
        return Game(games_to_win=int(config["games_to_win"]))

    def physics(self):
        from tabletop.games.knossos.table import PhysicsOutcomes
        return PhysicsOutcomes()

    def play_headless(self, seats, seed, outcomes, record, variant, games_to_win, emit=None):
        from tabletop.games.knossos import session
        return session.play_headless(seats, seed, games_to_win, outcomes, record, emit)

    def window_adapter(self, seats, variant, games_to_win, scene=None):
        from tabletop.games.knossos.view import KnossosAdapter
        return KnossosAdapter(len(seats), games_to_win, scene)

    def make_source(self, outcomes: str):
        from tabletop.games.knossos import session
        return session.make_source(outcomes)

    def codec(self, game):
        from tabletop.games.knossos.codec import KnossosCodec
        return KnossosCodec(game)

    def analysis(self):
        from tabletop.games.knossos.analysis import analysis
        return analysis()


DEFINITION = Knossos()
