"""King Kong: the board, Kong's figure and the deck as data, the rules, AI seats, headless play."""
from tabletop.gamekit.definition import GameDefinition
from tabletop.games.king_kong.labels import COLOURS
from tabletop.sim.errors import InputError

PHYSICS_DESCRIPTION = ("physics: the die thrown into the box lid, the spinner flicked, Kong moved among the "
                       "pawns on the simulated board")


class KingKong(GameDefinition):
    name = "king-kong"
    title = "King Kong"
    colours = COLOURS
    seats = (2, 6)
    chance_events = ("shuffle", "die", "spin-outer", "spin-inner", "kong-move")
    private_chance = ("shuffle",)          # the deck's order is every hand to come
    devices = ("die", "spinner", "kong-knockover")
    seat_kinds = ("ai", "plan", "random", "human")
    review_seat = "plan"                   # a review's rollouts plan with the chance tables

    sources_help = ("uniform (a stand-in, not physics: die faces and spinner sectors equally likely, fixed "
                    "knock-over odds)")

    def chance_distribution(self, state, source):
        """A shuffle is a uniformly random order of the pile; Kong's move the product of each pawn at
        risk's fates (independent, from the knock-over table); the die and the spinner their tables."""
        from itertools import product

        from tabletop.gamekit.chance import UniformOrder
        from tabletop.games.king_kong.chance import KnockoverTable
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
        """The default bench (tabletop.gamekit.rules_bench.from_definition) with three players, as its
        published figures have been measured."""
        from dataclasses import replace

        return replace(super().rules_bench(), players=3)

    def fair_tables(self) -> dict:
        """The die's faces 1/6 each, each spinner label its sectors' share of its circle
        (tabletop.games.king_kong.analysis.fair_tables); Kong's move has none (its fates stay measured)."""
        from tabletop.games.king_kong.analysis import fair_tables
        return fair_tables()

    def table_outcomes(self, files):
        """A source of saved die, spinner and kong-knockover estimates
        (tabletop.games.king_kong.chance.table_source)."""
        from tabletop.games.king_kong.chance import table_source
        return table_source(files)

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

    def make_seat(self, kind, source, options):
        from tabletop.games.king_kong.ai import make_seat
        return make_seat(kind, source)

    def banner(self, seats, seed, outcomes, options) -> str:
        """The game's first log line: the outcomes `physics` and `uniform` described."""
        from tabletop.games.king_kong.chance import UNIFORM_DESCRIPTION

        described = {"uniform": UNIFORM_DESCRIPTION, "physics": PHYSICS_DESCRIPTION}.get(outcomes, outcomes)
        return (f"King Kong, seats {', '.join(f'{COLOURS[i]}={k}' for i, k in enumerate(seats))}, seed {seed}, "
                f"outcomes {described}")

    def result_lines(self, final) -> list[str]:
        """Kong's win, a seat's, or a shared victory, after the rounds and turns."""
        if final.kong_won:
            result = "Kong wins"
        elif len(final.winners) == 1:
            result = f"{COLOURS[final.winners[0]]} wins"
        else:
            result = f"shared victory: {', '.join(COLOURS[p] for p in final.winners)}"
        return [f"result: {result} after {final.round} rounds and {final.turn} turns"]

    def public_position(self, state) -> dict:
        """What lies open on the table: the round and the spinner's holder, Kong's pose, each pawn's
        space and groove, each seat's missions and the cards face up this round, the hands' and the
        piles' sizes. No card in a hand or a pile, and not the phase (an attack a seat may make
        would tell what it holds: rules.py keeps even a declined attack to that seat's log)."""
        deck, players = state.game.deck, range(state.game.players)
        return {"round": state.round, "spinner": COLOURS[state.spinner],
                "kong": {"climb": state.climb, "twist": state.twist, "top": state.game.kong.top},
                "pawns": {COLOURS[p]: {"at": state.pos[p], "groove": state.groove[p]} for p in players},
                "missions": {COLOURS[p]: len(state.kept[p]) for p in players},
                "face_up": {COLOURS[p]: str(deck[c]) for p, c in enumerate(state.played) if c is not None},
                "hand_sizes": {COLOURS[p]: len(state.hands[p]) for p in players},
                "draw_pile": len(state.draw), "discard_pile": len(state.discard)}

    def seat_view(self, state, seat, since=0) -> dict:
        """The generic view, and a seat's own hand (card numbers, as its actions name them, and
        names); a spectator's has none. Only the hands' sizes tell of the others' cards."""
        view = super().seat_view(state, seat, since)
        if seat is not None:
            deck = state.game.deck
            view["hand"] = [{"card": c, "name": str(deck[c])} for c in sorted(state.hands[seat])]
        return view

    # the decisions only a seat holding a fitting card is offered: another seat's mirror says "decision"
    PRIVATE_PHASES = ("turn", "attack", "escape", "safety-net")

    def seat_mirror(self, state, seat, since=0) -> dict:
        """The whole position as `seat` may know it (replacing the one held): the public fields of
        the rules' State, the seat's own hand (a spectator's: none), the others' hands and the draw
        pile by their sizes alone, the phase of another seat's decision as "decision" (which one it
        is would tell a card), and the Safety Nets pending only when the seat's own. The discard
        pile, the missions kept and the cards face up lie open on the table."""
        from dataclasses import asdict

        mine = seat is not None and seat == state.current
        phase = str(state.phase)
        if phase in self.PRIVATE_PHASES and not mine:
            phase = "decision"
        km = state.kong_move
        return {"state": {
            "pos": list(state.pos), "groove": list(state.groove), "discard": list(state.discard),
            "kept": [list(k) for k in state.kept], "played": list(state.played),
            "climb": state.climb, "twist": state.twist, "phase": phase, "shuffling": state.shuffling,
            "current": state.current, "spinner": state.spinner, "round": state.round, "order": list(state.order),
            "turn_index": state.turn_index, "order_contenders": list(state.order_contenders),
            "order_results": {str(p): r for p, r in state.order_results.items()}, "roll": state.roll,
            "outer": state.outer, "inner": state.inner, "twist_steps": list(state.twist_steps),
            "kong_move": None if km is None else asdict(km),
            "fates": {str(p): f for p, f in state.fates.items()},
            "pending_nets": [p for p in state.pending_nets if p == seat],
            "pending_discards": list(state.pending_discards), "pending_refills": list(state.pending_refills),
            "winners": list(state.winners), "kong_won": state.kong_won, "turn": state.turn,
            "own": None if seat is None else sorted(state.hands[seat]),
            "hand_sizes": [len(h) for h in state.hands], "draw_pile": len(state.draw)}}

    def mirror_state(self, config, mirror, seat):
        """The position of a `seat_mirror`: the others' hands and the draw pile filled, in deck
        order, with the cards the seat has not seen (stand-ins: never shown, never acted on)."""
        from tabletop.games.king_kong.rules import AtRisk, KongMove, Phase

        try:
            m = mirror["state"]
            state = self.make_game(config).new_initial_state()
            n = state.game.players
            own = list(m["own"] or [])
            seen = set(own) | set(m["discard"]) | {c for k in m["kept"] for c in k} | \
                {c for c in m["played"] if c is not None}
            unseen = iter(sorted(set(range(len(state.game.deck))) - seen))
            state.hands = [own if p == seat else [next(unseen) for _ in range(m["hand_sizes"][p])] for p in range(n)]
            state.draw = [next(unseen) for _ in range(m["draw_pile"])]
            for name in ("pos", "groove", "discard", "kept", "played", "climb", "twist", "shuffling", "current",
                         "spinner", "round", "order", "turn_index", "order_contenders", "roll", "outer", "inner",
                         "pending_nets", "pending_discards", "pending_refills", "winners", "kong_won", "turn"):
                setattr(state, name, m[name])
            state.phase = Phase.TURN if m["phase"] == "decision" else Phase(m["phase"])
            state.order_results = {int(p): r for p, r in m["order_results"].items()}
            state.fates = {int(p): f for p, f in m["fates"].items()}
            state.twist_steps = tuple(m["twist_steps"])
            km = m["kong_move"]
            state.kong_move = None if km is None else KongMove(
                tuple(km["start"]), tuple(km["end"]), tuple(km["twist_steps"]), km["climb"],
                tuple(AtRisk(**a) for a in km["at_risk"]))
            if len(state.hands) != n or len(state.pos) != n:
                raise ValueError("seats")
        except (KeyError, TypeError, ValueError, StopIteration) as exc:
            raise InputError(f"a mirror of {self.name} it cannot read: {exc!r}") from None
        state.events = []
        return state

    def redealer(self, state, seats):
        """The others' hands (those not in `seats`) and the draw pile dealt afresh from the cards the
        viewer has not seen (tabletop.games.king_kong.analysis.redealer)."""
        from tabletop.games.king_kong.analysis import redealer
        return redealer(state, seats)

    def window_adapter(self, seats, options, scene=None):
        from tabletop.games.king_kong.view import KongAdapter
        return KongAdapter(len(seats), scene)

    def make_source(self, outcomes: str):
        """`physics` (every die, spin and Kong move simulated: games/king_kong/table.py), `uniform` (the
        documented stand-in) or `table:DIE.json,SPINNER.json,KNOCK.json` (saved estimates)."""
        if outcomes == "physics":
            return self.physics()
        if outcomes == "uniform":
            from tabletop.games.king_kong.chance import uniform_source
            return uniform_source()
        if outcomes.startswith("table:") and outcomes[6:]:
            from tabletop.games.king_kong.chance import table_source
            return table_source([f for f in outcomes[6:].split(",") if f])
        raise InputError(f"--outcomes: expected physics, uniform or table:DIE.json,SPINNER.json,KNOCK.json, "
                         f"got {outcomes!r}")

    def codec(self, game):
        from tabletop.games.king_kong.codec import KongCodec
        return KongCodec(game)

    def analysis(self):
        from tabletop.games.king_kong.analysis import analysis
        return analysis(self)
