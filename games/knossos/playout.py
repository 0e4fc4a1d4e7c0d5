"""Fast random Knossos matches on the position graph the rules drive (tabletop.games.knossos.solve).

The readable rules (rules.py) play a match through the match loop at a few hundred matches a
second; analysis and benchmarks want thousands. `Playouts` walks the solver's position graph
instead: every position of a game, the legal actions after each throw and where each leads, all
found by driving the rules' own State (so the graph cannot drift from the rules), flattened into
Python lists. A throw is one uniform against the table's cumulative sums, a random seat's choice
one uniform times the number of legal actions, both read from batches drawn from the match's one
Generator. What follows a won game (the score, the loser starting the next game, the match's end)
is asked of the rules too. Given the same uniforms, a match here is the match the rules play
(tests/test_knossos_playout.py checks it throw for throw).
"""
from __future__ import annotations

from bisect import bisect_right

import numpy as np

from tabletop.games.knossos.rules import PAST_APEX, STICK_LABELS, Game
from tabletop.games.knossos.solve import _after_game, check_table, game_graph, key_of

BATCH = 512       # uniforms drawn from the Generator at a time


class Uniforms:
    """The uniforms of one Generator, in the order drawn, in batches of BATCH."""

    def __init__(self, rng: np.random.Generator):
        self.rng, self.batch, self.i = rng, [], 0

    def __call__(self) -> float:
        if self.i == len(self.batch):
            self.batch, self.i = self.rng.random(BATCH).tolist(), 0
        self.i += 1
        return self.batch[self.i - 1]


class Playouts:
    """Random-vs-random matches to `games_to_win` with the sticks thrown from `table`, under the
    `exit_rule` reading of the exit."""

    def __init__(self, table: dict, games_to_win: int = 3, exit_rule: str = PAST_APEX):
        table = check_table(table)
        self.cdf = np.cumsum([table[label] for label in STICK_LABELS]).tolist()
        self.cdf[-1] = 1.0
        graph = game_graph(exit_rule)
        self.n = len(graph.keys)
        succ, legal = graph.succ.tolist(), graph.legal.tolist()
        self.succ = [[row[li][:legal[i][li]] for li in range(len(STICK_LABELS))] for i, row in enumerate(succ)]
        game = Game(games_to_win=games_to_win, exit_rule=exit_rule)
        self.start = game.new_initial_state()
        self.first = graph.index[key_of(self.start)]
        self.after = {(a, b, w): _after_game(graph, game, (a, b), w)
                      for a in range(games_to_win) for b in range(games_to_win) for w in (0, 1)}

    def match(self, u: Uniforms) -> tuple[int, int, int]:
        """One match: (the winner, the throws, the games)."""
        succ, cdf, n, after = self.succ, self.cdf, self.n, self.after
        node, score, throws, games = self.first, (0, 0), 0, 0
        while True:
            throws += 1
            options = succ[node][bisect_right(cdf, u())]
            nxt = options[int(u() * len(options))] if len(options) > 1 else options[0]
            if nxt < n:
                node = nxt
                continue
            games += 1
            result = after[(*score, nxt - n)]
            if result[0] == "match":
                return result[1], throws, games
            _, score, node = result


def bench_graph(matches: int) -> dict:
    """Random Knossos matches on the position graph (tabletop.games.knossos.playout), the sticks
    two fair coins; the graph's one-off build timed apart."""
    import time

    import numpy as np

    from tabletop.games.knossos.analysis import fair_tables

    started = time.process_time()
    playouts = Playouts(fair_tables()["sticks"])
    built = time.process_time()
    u, throws = Uniforms(np.random.default_rng(0)), 0
    for _ in range(matches):
        throws += playouts.match(u)[1]
    cpu = max(time.process_time() - built, 1e-9)
    return {"games": matches, "players": 2, "seats": "random", "tables": "sticks 1: 1/4, 2: 1/2, 3: 1/4",
            "engine": "the rules' position graph (knossos/playout.py)", "build_cpu_s": round(built - started, 3),
            "cpu_s": round(cpu, 4), "games_per_s": round(matches / cpu, 2),
            "decisions_per_s": round(throws / cpu, 1), "chance_events_per_s": round(throws / cpu, 1),
            "decisions_per_game": round(throws / matches, 2), "chance_events_per_game": round(throws / matches, 2)}
