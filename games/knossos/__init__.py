"""The Knossos Game (Hillbom ruleset): the board, its rules as a match, AI seats and the solved match."""
from tabletop.gamekit.definition import GameDefinition, Option
from tabletop.games.knossos.rules import COLOURS, EXIT_RULES, PAST_APEX, STRICT
from tabletop.sim.errors import InputError

EXIT_OPTION = "exit_rule"


class Knossos(GameDefinition):
    name = "knossos"
    title = "Knossos"
    colours = COLOURS
    seats = (2, 2)
    options = (Option("games_to_win", 3, "games needed to win the match", minimum=1),
               Option(EXIT_OPTION, PAST_APEX, f"how a piece exits: {PAST_APEX} (one step beyond the apex, by the "
                      f"exact throw: a 1 from the apex, a 2 from the safe space, a 3 from 10) or {STRICT} (only "
                      f"from the apex, with a 1)", choices=EXIT_RULES))
    chance_events = ("sticks",)
    devices = ("sticks",)
    seat_kinds = ("ai", "random", "solved", "human")

    solved = True
    max_turns = 20000                      # a match's throws
    review_seat = "solved"                 # always solved; `review --estimate` rolls out perfect play

    def solve(self, outcomes: str, kind: str, files, options: dict, policy, emit, players: int = 2) -> dict:
        """Perfect play of the match for the --outcomes sticks and for two fair coins (value iteration
        over every position, throw and score), under the --exit-rule reading of the exit."""
        from tabletop.games.knossos.solve import FAIR, solve, solve_report, sticks_table

        games_to_win, exit_rule = options["games_to_win"], options[EXIT_OPTION]
        table = dict(FAIR) if kind == "fair" else sticks_table(*files)
        name = "fair" if kind == "fair" else ("sticks" if outcomes == "measured" else outcomes)
        tables = {name: table} if name == "fair" else {name: table, "fair": dict(FAIR)}
        report = solve_report(tables, games_to_win, exit_rule)
        if policy is not None:
            solve(table, games_to_win, exit_rule=exit_rule).save(policy)
        rule = "" if exit_rule == PAST_APEX else f" (exit rule {exit_rule}: a piece exits only from the apex, with a 1)"
        for label, r in report.items():
            emit(f"{label} {r['table']}{rule}: under perfect play {r['first_player']} (who starts the match) wins it "
                 f"with probability {r['first_player_match']:.6f} (a single game: {r['first_player_game']:.6f}); "
                 f"{r['positions']} positions, {r['sweeps']} sweeps")
        if policy is not None:
            emit(f"the policy for {name}: {policy}")
        return {"game": self.name, "solve": report, "outcomes": outcomes, "games_to_win": games_to_win,
                "exit_rule": exit_rule, "policy": str(policy) if policy is not None else None}

    def solved_values(self, game, tables: dict, emit=None, progress=None):
        """The solved match (games/knossos/solve.py) for the sticks table, the games to win and the
        exit rule of `game`: each player's match-win probability (about 1.5 s the first time for a
        table, then cached)."""
        from tabletop.games.knossos.solve import solve

        if "sticks" not in tables:
            return None
        solution = solve(tables["sticks"], game.games_to_win, exit_rule=game.exit_rule)
        return lambda state: [solution.value(state, p) for p in range(game.players)]

    def fair_tables(self) -> dict:
        """Two fair sticks: 1 1/4, 2 1/2, 3 1/4 (tabletop.games.knossos.analysis.fair_tables)."""
        from tabletop.games.knossos.analysis import fair_tables
        return fair_tables()

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

        games_to_win = int(config["games_to_win"])
        if games_to_win < 1:
            raise InputError(f"--games-to-win: must be at least 1, got {games_to_win}")
        exit_rule = self.exit_rule(config)
        return Game(games_to_win=games_to_win, exit_rule=exit_rule)

    def exit_rule(self, config: dict) -> str:
        """The reading of the exit a config or the options name: a config without one (every replay
        recorded before the option, and every default game since: `replay_config`) reads as the default."""
        option = next(o for o in self.options if o.name == EXIT_OPTION)
        return option.check(config.get(EXIT_OPTION, option.default))

    def physics(self):
        from tabletop.games.knossos.table import PhysicsOutcomes
        return PhysicsOutcomes()

    def replay_config(self, seats, outcomes, options) -> dict:
        """The match's options, seats and outcomes (two seats always: no "players"). The exit rule
        only when it is not the default, so that a default game records what it did before the option
        (`make_game` reads a config without one as the default)."""
        config = {"games_to_win": options["games_to_win"], "seats": list(seats), "outcomes": outcomes}
        if self.exit_rule(options) != PAST_APEX:
            config[EXIT_OPTION] = self.exit_rule(options)
        return config

    def make_seat(self, kind, source, options):
        from tabletop.games.knossos.ai import make_seat
        return make_seat(kind, source)

    def banner(self, seats, seed, outcomes, options) -> str:
        rule = "" if self.exit_rule(options) == PAST_APEX else f", {self.exit_rule(options)} exit"
        return (f"Knossos (Hillbom{rule}), first to {options['games_to_win']}, seats "
                f"{', '.join(f'{COLOURS[i]}={k}' for i, k in enumerate(seats))}, seed {seed}, outcomes {outcomes}")

    def result_lines(self, final) -> list[str]:
        """None: the match's last log line already names the winner."""
        return []

    def window_adapter(self, seats, options, scene=None):
        from tabletop.games.knossos.view import KnossosAdapter
        return KnossosAdapter(len(seats), options["games_to_win"], scene, self.exit_rule(options))

    def make_source(self, outcomes: str):
        """`physics` (throw the sticks on the table), or `table:FILE.json` (a saved sticks estimate)."""
        if outcomes == "physics":
            return self.physics()
        if outcomes.startswith("table:") and outcomes[6:]:
            return self.table_outcomes([f for f in outcomes[6:].split(",") if f])
        raise InputError(f"--outcomes: expected physics or table:FILE.json, got {outcomes!r}")

    def table_outcomes(self, files):
        """A source sampling a saved sticks estimate; any other table is an InputError."""
        from tabletop.gamekit.chance import TableOutcomes
        from tabletop.games.knossos.solve import check_table, table_of

        tables = TableOutcomes.from_files(files)
        if set(tables.tables) != {"sticks"}:
            raise InputError("--outcomes: Knossos needs a sticks table (tabletop estimate sticks --out FILE.json)")
        check_table(table_of(tables))
        return tables

    def codec(self, game):
        from tabletop.games.knossos.codec import KnossosCodec
        return KnossosCodec(game)

    def analysis(self):
        from tabletop.games.knossos.analysis import analysis
        return analysis(self)
