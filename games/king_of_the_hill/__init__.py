"""King of the Hill (1958): the hill, its Tipper and its crater; the two-player game solved."""
from tabletop.gamekit.definition import GameDefinition, Option
from tabletop.games.king_of_the_hill.rules import COLOURS
from tabletop.sim.errors import InputError


class KingOfTheHill(GameDefinition):
    name = "king-of-the-hill"
    title = "King of the Hill"
    colours = COLOURS
    seats = (2, 4)
    options = (Option("variant", "standard", "the rules: standard, or the Special 2 Player Game",
                      choices=("standard", "special-two-player")),)
    chance_events = ("tipper", "crater")
    devices = ("tipper", "crater")
    seat_kinds = ("ai", "plan", "random", "solved", "human")

    solved = True                          # the standard two-player game (solve.py)
    review_seat = "ai"                     # a review's rollouts of 3-4 players (the `plan` seat's
                                           # expectimax makes a game 1-2 s, a review hours)

    def solved_values(self, game, tables: dict, emit=None, progress=None):
        """The standard two-player game solved (games/king_of_the_hill/solve.py) for the tipper and
        crater tables: the mover's win probability, and 1 less it for the other; before play the
        turn-order tilts are solved here too (a fresh tilt-off is even by symmetry; after the
        first tilt, the second's table decides who starts). None for three or four players, the
        Special 2 Player Game, or tables without both devices. A solve not cached takes about 4
        minutes on 2 cores (`emit` is told; `progress(fraction, doing)` as it goes); the measured
        and fair tables' are cached by `analyze --solve`."""
        from tabletop.games.king_of_the_hill.rules import ChanceOutcome, Phase, Variant
        from tabletop.games.king_of_the_hill.solve import check_tables, is_cached, solve, standard_board

        if game.players != 2 or game.variant is not Variant.STANDARD or not {"tipper", "crater"} <= set(tables):
            return None
        chosen = check_tables({e: tables[e] for e in ("tipper", "crater")})
        if emit is not None and standard_board(game.board) is None and not is_cached(chosen):
            emit("solving King of the Hill for two players with these tables (about 4 minutes on 2 cores; cached "
                 "after)")
        if progress is not None:
            progress(0.0, "building the table of every position")
        solution = solve(chosen, board=game.board, progress=None if progress is None else _sweeps(progress))
        tipper = chosen["tipper"]

        def first(state) -> float:
            """Red's (seat 0's) win probability."""
            if state.phase is Phase.ORDER and not state.is_terminal():
                if not state.order_results:
                    return 0.5
                total = 0.0
                for label, p in tipper.items():
                    after = state.fork()
                    after.apply(ChanceOutcome(label))
                    total += p * first(after)
                return total
            return solution.value(state, 0)

        def values(state) -> list[float]:
            v = first(state)
            return [v, 1.0 - v]

        return values

    def solve(self, outcomes: str, kind: str, files, options: dict, policy, emit, players: int = 2) -> dict:
        """Perfect play of the standard two-player game for the --outcomes Tipper and crater tables and
        for fair ones (value iteration over every position: games/king_of_the_hill/solve.py). The
        Special 2 Player Game and three or four players are an InputError that says why."""
        from tabletop.games.king_of_the_hill.solve import FAIR, save_policy, solve_report, tables_of, why_not

        if options["variant"] != "standard" or players != 2:
            raise InputError(f"--solve: {why_not(options['variant'], players)}")
        tables = FAIR if kind == "fair" else tables_of(files)
        name = "fair" if kind == "fair" else outcomes
        named = {name: tables} if name == "fair" else {name: tables, "fair": FAIR}
        report = solve_report(named, emit)
        if policy is not None:
            save_policy(tables, policy)
        for label, r in report.items():
            t = r["tables"]
            tipper = ", ".join(f"{k} {v:.3f}" for k, v in t["tipper"].items())
            crater = ", ".join(f"{v:.3f}" for v in t["crater"].values())
            emit(f"{label} (tipper {tipper}; crater {crater}): under perfect play the first player (the one the "
                 f"turn-order tilts put first) wins with probability {r['first_player']:.6f}")
            emit(f"  {r['positions']:,} positions ({r['reachable']:,} reachable from the start); when solved: "
                 f"successor table {r['build_seconds']:.0f} s, {r['sweeps']} sweeps to a change under "
                 f"{r['tolerance']:g} (last {r['last_change']:.1e}) {r['iterate_seconds']:.0f} s, peak memory "
                 f"{r['peak_memory_mb'] / 1024:.1f} GB")
        if policy is not None:
            emit(f"the policy for {name}: {policy}")
        return {"game": self.name, "solve": report, "outcomes": outcomes, "variant": options["variant"],
                "players": 2, "policy": str(policy) if policy is not None else None}

    def rules_bench(self):
        """The default bench (tabletop.gamekit.rules_bench.from_definition) with four players, the
        full hill, as its published figures have been measured."""
        from dataclasses import replace

        return replace(super().rules_bench(), players=4)

    def fair_tables(self) -> dict:
        """Each Tipper slot 1/7, each cave seat 1/6 (tabletop.games.king_of_the_hill.analysis.fair_tables)."""
        from tabletop.games.king_of_the_hill.analysis import fair_tables
        return fair_tables()

    def actions(self) -> dict:
        from tabletop.games.king_of_the_hill.rules import Move
        from tabletop.gamekit.state import ChanceOutcome, Pass
        return {"move": Move, "pass": Pass, "outcome": ChanceOutcome}

    def make_game(self, config: dict):
        """The rules' Game of `players` seats and the `variant`; InputError for a variant that is
        none, or the Special 2 Player Game with other than two seats."""
        from tabletop.games.king_of_the_hill.rules import Game

        players, variant = int(config["players"]), config["variant"]
        return Game(players, _variant(players, variant))

    def physics(self):
        from tabletop.games.king_of_the_hill.table import PhysicsOutcomes
        return PhysicsOutcomes()

    def check_seats(self, seats, options) -> None:
        """A solved seat plays the standard two-player game only: anything else is refused before
        the game starts, with the reason and the positions it would take."""
        from tabletop.games.king_of_the_hill.solve import why_not

        if "solved" in seats and (options.get("variant", "standard") != "standard" or len(seats) != 2):
            raise InputError(f"--seats: the solved seat: {why_not(options.get('variant', 'standard'), len(seats))}")

    def make_seat(self, kind, source, options):
        """A seat of `kind` (a solved one for the standard two-player game: `check_seats`)."""
        from tabletop.games.king_of_the_hill.ai import make_seat
        from tabletop.games.king_of_the_hill.solve import why_not

        if kind == "solved" and options.get("variant", "standard") != "standard":
            raise InputError(f"--seats: the solved seat: {why_not(options['variant'], 2)}")
        return make_seat(kind, source)

    def banner(self, seats, seed, outcomes, options) -> str:
        return (f"King of the Hill, {options['variant']}, seats "
                f"{', '.join(f'{COLOURS[i]}={k}' for i, k in enumerate(seats))}, seed {seed}, outcomes {outcomes}")

    def window_adapter(self, seats, options, scene=None):
        from tabletop.games.king_of_the_hill.view import HillAdapter
        _variant(len(seats), options["variant"])
        return HillAdapter(len(seats), options["variant"], scene)

    def make_source(self, outcomes: str):
        """`physics`, or `table:FILE.json[,FILE.json]` (events without a table use physics)."""
        if outcomes == "physics":
            return self.physics()
        if outcomes.startswith("table:") and outcomes[6:]:
            tables = self.table_outcomes([f for f in outcomes[6:].split(",") if f])
            if set(self.chance_events) - set(tables.tables):
                tables.fallback = self.physics()
            return tables
        raise InputError(f"--outcomes: expected physics or table:FILE.json, got {outcomes!r}")

    def table_outcomes(self, files):
        """A source sampling saved tipper and crater estimates; another device's table is an InputError."""
        from tabletop.gamekit.chance import TableOutcomes

        tables = TableOutcomes.from_files(files)
        unknown = set(tables.tables) - set(self.chance_events)
        if unknown:
            raise InputError(f"--outcomes: a {sorted(unknown)[0]} table does not answer King of the Hill events")
        return tables

    def codec(self, game):
        from tabletop.games.king_of_the_hill.codec import HillCodec
        return HillCodec(game)

    def analysis(self):
        from tabletop.games.king_of_the_hill.analysis import analysis
        return analysis(self)


def _sweeps(progress):
    """solve's progress (sweep, the sweep's largest change) as progress(fraction, doing): the table of
    positions built (about a third of the time), then the values settling from the first sweep's
    change down to the solver's tolerance (on a log scale, to 90%), then the policy and the file."""
    import math

    from tabletop.games.king_of_the_hill.solve import TOLERANCE

    first = []

    def told(sweep: int, change: float) -> None:
        if not first:
            first.append(max(change, TOLERANCE * 10))
        if change <= TOLERANCE:
            progress(0.9, "values settled; the best moves worked out and saved")
            return
        span = math.log(first[0] / TOLERANCE)
        done = math.log(first[0] / max(change, TOLERANCE)) / span if span > 0 else 1.0
        progress(1 / 3 + (0.9 - 1 / 3) * min(1.0, max(0.0, done)), f"values settling, sweep {sweep}")
    return told


def _variant(players: int, variant: str):
    """The rules' Variant named `variant`, for `players` seats; InputError when it is none or does
    not seat them."""
    from tabletop.games.king_of_the_hill.rules import Variant

    try:
        v = Variant(variant)
    except ValueError:
        raise InputError(f"--variant: unknown variant {variant!r}; use "
                         f"{', '.join(x.value for x in Variant)}") from None
    if v is Variant.SPECIAL_TWO_PLAYER and players != 2:
        raise InputError(f"--seats: the Special 2 Player Game needs exactly 2 seats, not {players}")
    return v
