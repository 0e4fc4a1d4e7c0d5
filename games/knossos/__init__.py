"""The Knossos Game (Hillbom ruleset): the board, its rules as a match, AI seats and the solved match."""
from tabletop.gamekit.definition import GameDefinition, Option
from tabletop.games.knossos.rules import COLOURS


class Knossos(GameDefinition):
    name = "knossos"
    title = "Knossos"
    colours = COLOURS
    seats = (2, 2)
    options = (Option("games_to_win", 3, "games needed to win the match", minimum=1),)
    chance_events = ("sticks",)
    devices = ("sticks",)
    seat_kinds = ("ai", "random", "solved", "human")

    solved = True

    def solve(self, outcomes: str, kind: str, files, options: dict, policy, emit) -> dict:
        """Perfect play of the match for the --outcomes sticks and for two fair coins (value iteration
        over every position, throw and score)."""
        from tabletop.games.knossos.solve import FAIR, solve, solve_report, sticks_table

        games_to_win = options["games_to_win"]
        table = dict(FAIR) if kind == "fair" else sticks_table(files[0])
        name = "fair" if kind == "fair" else ("sticks" if outcomes == "measured" else outcomes)
        tables = {name: table} if name == "fair" else {name: table, "fair": dict(FAIR)}
        report = solve_report(tables, games_to_win)
        if policy is not None:
            solve(table, games_to_win).save(policy)
        for label, r in report.items():
            emit(f"{label} {r['table']}: under perfect play {r['first_player']} (who starts the match) wins it "
                 f"with probability {r['first_player_match']:.6f} (a single game: {r['first_player_game']:.6f}); "
                 f"{r['positions']} positions, {r['sweeps']} sweeps")
        if policy is not None:
            emit(f"the policy for {name}: {policy}")
        return {"game": self.name, "solve": report, "outcomes": outcomes, "games_to_win": games_to_win,
                "policy": str(policy) if policy is not None else None}

    def rules_bench(self):
        from tabletop.games.knossos.ai import SEATS
        from tabletop.games.knossos.analysis import fair_tables
        from tabletop.games.knossos.rules import Game
        from tabletop.gamekit.chance import TableOutcomes
        from tabletop.gamekit.rules_bench import RulesBench

        return RulesBench(self.name, 2, Game, lambda: TableOutcomes(fair_tables()), lambda: SEATS, 20000,
                          "sticks 1: 1/4, 2: 1/2, 3: 1/4", unit="matches")

    def extra_benches(self, games: int, seats: str) -> dict:
        """With random seats, matches on the position graph too (knossos/playout.py: the same matches
        as the rules give for the same uniforms, at many times the speed)."""
        if seats != "random":
            return {}
        from tabletop.games.knossos.playout import bench_graph

        fig = bench_graph(10 * games)
        line = (f"knossos on the position graph: {fig['games_per_s']:.0f} matches/s ({10 * games} matches, random "
                f"seats, {fig['cpu_s']:.2f} s CPU after a {fig['build_cpu_s']:.2f} s build), "
                f"{fig['chance_events_per_s']:.0f} throws/s")
        return {"knossos-graph": (fig, line)}

    def actions(self) -> dict:
        from tabletop.games.knossos.rules import Move
        from tabletop.gamekit.state import ChanceOutcome, Pass
        return {"move": Move, "pass": Pass, "outcome": ChanceOutcome}

    def make_game(self, config: dict):
        from tabletop.games.knossos.rules import Game
        return Game(games_to_win=int(config["games_to_win"]))

    def physics(self):
        from tabletop.games.knossos.table import PhysicsOutcomes
        return PhysicsOutcomes()

    def play_headless(self, seats, seed, outcomes, record, options, emit=None):
        from tabletop.games.knossos import session
        return session.play_headless(self, seats, seed, options["games_to_win"], outcomes, record, emit)

    def window_adapter(self, seats, options, scene=None):
        from tabletop.games.knossos.view import KnossosAdapter
        return KnossosAdapter(len(seats), options["games_to_win"], scene)

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
