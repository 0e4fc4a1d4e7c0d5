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

    def rules_bench(self):
        from tabletop.games.chance import TableOutcomes
        from tabletop.games.king_kong.ai import SEATS
        from tabletop.games.king_kong.play import UNIFORM_KNOCKOVER, KnockoverTable, ShuffleSource
        from tabletop.games.king_kong.rules import DIE_LABELS, INNER_LABELS, OUTER_LABELS, Game
        from tabletop.games.rules_bench import RulesBench

        def source():
            even = {event: {label: 1 / len(labels) for label in labels}
                    for event, labels in (("die", DIE_LABELS), ("spin-outer", OUTER_LABELS),
                                          ("spin-inner", INNER_LABELS))}
            return ShuffleSource(KnockoverTable(UNIFORM_KNOCKOVER, fallback=TableOutcomes(even)))

        return RulesBench(self.name, 3, lambda: Game(players=3), source, lambda: SEATS, 5000,
                          "die and spinner circles even; Kong's moves the stand-in knock-over table")

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
        return session.play_headless(self, seats, seed, outcomes, record, emit)

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
