"""King of the Hill (1958): the hill, its Tipper and its crater."""
from tabletop.gamekit.definition import GameDefinition, Option
from tabletop.games.king_of_the_hill.rules import COLOURS


class KingOfTheHill(GameDefinition):
    name = "king-of-the-hill"
    title = "King of the Hill"
    colours = COLOURS
    seats = (2, 4)
    options = (Option("variant", "standard", "the rules: standard, or the Special 2 Player Game",
                      choices=("standard", "special-two-player")),)
    chance_events = ("tipper", "crater")
    devices = ("tipper", "crater")
    seat_kinds = ("ai", "plan", "random", "human")

    def rules_bench(self):
        from tabletop.gamekit.chance import TableOutcomes
        from tabletop.games.king_of_the_hill.ai import SEATS
        from tabletop.games.king_of_the_hill.analysis import fair_tables
        from tabletop.games.king_of_the_hill.rules import Game
        from tabletop.gamekit.rules_bench import RulesBench

        return RulesBench(self.name, 4, lambda: Game(players=4), lambda: TableOutcomes(fair_tables()),
                          lambda: SEATS, 5000, "tipper's 7 slots and crater's 6 seats even")

    def actions(self) -> dict:
        from tabletop.games.king_of_the_hill.rules import Move
        from tabletop.gamekit.state import ChanceOutcome, Pass
        return {"move": Move, "pass": Pass, "outcome": ChanceOutcome}

    def make_game(self, config: dict):
        from tabletop.games.king_of_the_hill.rules import Game, Variant
        return Game(int(config["players"]), Variant(config["variant"]))

    def physics(self):
        from tabletop.games.king_of_the_hill.table import PhysicsOutcomes
        return PhysicsOutcomes()

    def play_headless(self, seats, seed, outcomes, record, options, emit=None):
        from tabletop.games.king_of_the_hill import session
        return session.play_headless(self, seats, seed, options["variant"], outcomes, record, emit)

    def window_adapter(self, seats, options, scene=None):
        from tabletop.games.king_of_the_hill.view import HillAdapter
        return HillAdapter(len(seats), options["variant"], scene)

    def make_source(self, outcomes: str):
        from tabletop.games.king_of_the_hill import session
        return session.make_source(outcomes)

    def codec(self, game):
        from tabletop.games.king_of_the_hill.codec import HillCodec
        return HillCodec(game)

    def analysis(self):
        from tabletop.games.king_of_the_hill.analysis import analysis
        return analysis()


DEFINITION = KingOfTheHill()
