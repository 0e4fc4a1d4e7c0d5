"""AI seats for King of the Hill: random, a greedy heuristic, a planner that uses the chance tables,
and perfect play (the solved two-player game)."""
from __future__ import annotations

from tabletop.gamekit.seats import RandomSeat, ScoringSeat
from tabletop.games.king_of_the_hill.rules import DRAWER, Move, State
from tabletop.gamekit.state import ChanceOutcome


class GreedySeat(ScoringSeat):
    """Scores each legal move one ply ahead: finishing first, then knocking opponents into the
    crater, progress along the path, and staying off exposed edge spaces; ties at random."""

    name = "ai"
    move_type = Move
    FINISH, KNOCK_OPPONENT, KNOCK_OWN = 1000.0, 60.0, -80.0
    PROGRESS, ON_EDGE, OFF_EDGE = 2.0, -25.0, 15.0

    def score(self, state: State, move: Move) -> float:
        board, game = state.game.board, state.game
        start = state.track[move.marble]
        dest, knocked, _ = state.destination(move.marble, move.distance)
        if dest >= board.path_length:
            return self.FINISH + dest
        score = self.PROGRESS * (dest - (start if start != DRAWER else -1))
        if knocked is not None:
            score += self.KNOCK_OWN if game.owner(knocked) == state.current else self.KNOCK_OPPONENT
        if dest in board.edge_spaces:
            score += self.ON_EDGE
        if start in board.edge_spaces:
            score += self.OFF_EDGE
        return score



class PlannerSeat:
    """Plans with the chance tables: each legal move is valued by expectimax over what follows it
    until this seat's next tilt (the crater's seats for a knock, every other player's tilt and
    reply, each reply the `ai` seat's, each chance outcome weighted by its table), and the best
    expected position is played, ties at random. A position is worth this seat's progress less the
    best opponent's (a marble in the Finish Zone counts the whole path and a bonus); a win or a
    loss in the lookahead is worth more than any position.

    `tables` are the chance tables ({event: {label: p}}), the published measured odds by default;
    with more than `full_depth` opponents only the next `full_depth` are looked at (the
    expectimax grows sevenfold with each)."""

    name = "plan"
    WIN, ZONE_BONUS = 10_000.0, 20.0

    def __init__(self, tables: dict | None = None, full_depth: int = 2):
        if tables is None:
            from tabletop.gamekit.chance import measured_tables

            tables = measured_tables(("tipper", "crater"))
        self.tables = {event: [(label, p / sum(t.values())) for label, p in t.items() if p > 0]
                       for event, t in tables.items()}
        self.full_depth = full_depth
        self.reply = GreedySeat()

    def choose(self, state: State, rng):
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        me = state.current
        depth = min(state.game.players - 1, self.full_depth)
        values = []
        for move in legal:
            after = state.fork()
            after.apply(move)
            values.append(self._value(after, me, depth))
        best = max(values)
        ties = [m for m, v in zip(legal, values) if v == best]
        return ties[int(rng.integers(len(ties)))]

    def _value(self, s: State, me: int, turns: int) -> float:
        if s.is_terminal():
            return self.WIN if s.winner == me else -self.WIN
        event = s.chance_event
        if event is not None:
            if event == "tipper" and turns == 0:
                return self.evaluate(s, me)
            left = turns - 1 if event == "tipper" else turns
            total = 0.0
            for label, p in self.tables[event]:
                nxt = s.fork()
                nxt.apply(ChanceOutcome(label))
                total += p * self._value(nxt, me, left)
            return total
        legal = s.legal_actions()
        move = legal[0] if len(legal) == 1 else max(legal, key=lambda m: self.reply.score(s, m))
        s.apply(move)
        return self._value(s, me, turns)

    def evaluate(self, s: State, me: int) -> float:
        """This seat's progress less the best opponent's."""
        g, L = s.game, s.game.board.path_length
        progress = [0.0] * g.players
        for m, t in enumerate(s.track):
            progress[g.owner(m)] += (L + self.ZONE_BONUS) if t >= L else (t + 1 if t >= 0 else 0)
        return progress[me] - max(v for p, v in enumerate(progress) if p != me)


class SolvedSeat:
    """Perfect play of the two-player standard game: the solved game's best move
    (tabletop.games.king_of_the_hill.solve) for the Tipper and crater tables `tables` (the ones the
    game's chance comes from), by default the physical devices' measured tables. Solved (or read from
    the cache: a first solve takes minutes, `tabletop analyze king-of-the-hill --solve`) at its first
    decision, then one look-up per move. Another variant or number of players is an InputError."""

    name = "solved"

    def __init__(self, tables: dict | None = None):
        from tabletop.games.king_of_the_hill.solve import check_tables

        self.tables = None if tables is None else check_tables(tables)
        self.solution = None

    def choose(self, state: State, rng):
        from tabletop.games.king_of_the_hill.solve import check_game, measured_tables, solve

        check_game(state.game)
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if self.solution is None:
            self.solution = solve(self.tables if self.tables is not None else measured_tables(),
                                  board=state.game.board)
        return self.solution.best_action(state)


SEATS = {"ai": GreedySeat, "random": RandomSeat, "plan": PlannerSeat, "solved": SolvedSeat}


def make_seat(kind: str, source=None):
    """A seat of `kind`; a planner plans, and a solved seat solves, with the tables `source` draws
    from where it has them (tabletop.gamekit.chance.table_dicts), else with the published measured odds."""
    if kind in ("plan", "solved"):
        from tabletop.gamekit.chance import table_dicts

        tables = table_dicts(source)
        events = ("tipper", "crater")
        tables = {e: tables[e] for e in events} if all(e in tables for e in events) else None
        return PlannerSeat(tables) if kind == "plan" else SolvedSeat(tables)
    return SEATS[kind]()
