"""King Kong: the board, Kong's figure and the deck as data, the rules, AI seats, headless play."""
from tabletop.gamekit.definition import GameDefinition
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

    def chance_distribution(self, state, source):
        """A shuffle is a uniformly random order of the pile; Kong's move the product of each pawn at
        risk's fates (independent, from the knock-over table); the die and the spinner their tables."""
        from itertools import product

        from tabletop.gamekit.chance import UniformOrder
        from tabletop.games.king_kong.play import KnockoverTable
        from tabletop.games.king_kong.rules import FATES, NO_RISK, Phase

        if state.phase is Phase.SHUFFLE:
            return UniformOrder(tuple(str(c) for c in state.shuffle_pile()))
        if state.chance_event == "kong-move":
            move = state.kong_move
            if not move.at_risk:
                return [(NO_RISK, 1.0)]
            table = source
            while not isinstance(table, KnockoverTable):
                table = table.wrapped()
            fates = [table.fate_probabilities(r, move.twist_key) for r in move.at_risk]
            out = []
            for combo in product(range(len(FATES)), repeat=len(fates)):
                p = 1.0
                for f, k in zip(fates, combo):
                    p *= float(f[k])
                label = " ".join(f"{self.colours[r.player]}:{FATES[k]}" for r, k in zip(move.at_risk, combo))
                out.append((label, p))
            return out
        return super().chance_distribution(state, source)

    def winner(self, state) -> str | None:
        """"kong" when Kong reaches the top, else the winning colours ("+" between a shared victory)."""
        if state.kong_won:
            return "kong"
        return "+".join(self.colours[p] for p in state.winners) or None

    def rules_bench(self):
        from tabletop.gamekit.chance import TableOutcomes
        from tabletop.games.king_kong.ai import SEATS
        from tabletop.games.king_kong.play import UNIFORM_KNOCKOVER, KnockoverTable, ShuffleSource
        from tabletop.games.king_kong.rules import DIE_LABELS, INNER_LABELS, OUTER_LABELS, Game
        from tabletop.gamekit.rules_bench import RulesBench

        def source():
            even = {event: {label: 1 / len(labels) for label in labels}
                    for event, labels in (("die", DIE_LABELS), ("spin-outer", OUTER_LABELS),
                                          ("spin-inner", INNER_LABELS))}
            return ShuffleSource(KnockoverTable(UNIFORM_KNOCKOVER, fallback=TableOutcomes(even)))

        return RulesBench(self.name, 3, lambda: Game(players=3), source, lambda: SEATS, 5000,
                          "die and spinner circles even; Kong's moves the stand-in knock-over table")

    def actions(self) -> dict:
        from tabletop.games.king_kong import rules as r
        from tabletop.gamekit.state import ChanceOutcome, Pass
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
