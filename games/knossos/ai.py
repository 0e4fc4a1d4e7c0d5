"""AI seats for the Knossos Game: random, a one-ply heuristic, and perfect play (the solved match)."""
from __future__ import annotations

from tabletop.gamekit.seats import RandomSeat, ScoringSeat
from tabletop.games.knossos.rules import OFF, PAST_APEX, START, STICK_LABELS, Move, State
from tabletop.games.knossos.solve import FAIR, check_table, measured_table, solve, table_of
from tabletop.sim.errors import InputError

# Chance of each throw the heuristic assumes for the opponent's next throw (two fair coins).
ASSUMED_THROW_P = {"1": 0.25, "2": 0.5, "3": 0.25}


class HeuristicSeat(ScoringSeat):
    """Scores each legal move one ply ahead: bearing off, taking an opponent's piece (the more
    advanced, the better), getting out of reach of the opponent's next throw (the safe space, across
    the bridge), holding the space after the bridge while opponent's pieces still have to cross (no
    piece is taken there, so it closes the bridge to them) and racing ahead; ties at random."""

    name = "ai"
    move_type = Move
    BEAR_OFF, TAKE, TAKE_PER_STEP = 100.0, 40.0, 4.0
    PROGRESS, RISK_PER_STEP, RISK = 3.0, 6.0, 20.0
    BLOCK = 30.0     # per opponent's piece still before the bridge

    def threat(self, state: State, site: int, player: int, taken: int | None = None) -> float:
        """Chance that the opponent of `player` can land on `site` with its next throw."""
        g = state.game
        if site not in g.capture_spaces:
            return 0.0
        opponent = 1 - player
        table = g.reach[opponent]
        p = 0.0
        for label in STICK_LABELS:
            for piece in g.pieces_of(opponent):
                at = START if piece == taken else state.pos[piece]
                if at != OFF and any(r.to == site for r in table[at][label]):
                    p += ASSUMED_THROW_P[label]
                    break
        return p

    def score(self, state: State, move: Move) -> float:
        g, player = state.game, state.current
        dist = g.steps_to_exit[player]
        here = state.pos[move.piece]
        if move.to == OFF:
            return self.BEAR_OFF
        taken = state.occupant(move.to)
        score = self.PROGRESS * (dist[here] - dist[move.to])
        if taken is not None:
            victim = g.steps_to_exit[1 - player]
            score += self.TAKE + self.TAKE_PER_STEP * (victim[START] - victim[state.pos[taken]])
        # what the moved piece risks where it stands, before and after (its progress is what it loses)
        at_stake = lambda site: self.RISK + self.RISK_PER_STEP * (dist[START] - dist[site])
        if here != START:
            score += self.threat(state, here, player) * at_stake(here)
        score -= self.threat(state, move.to, player, taken) * at_stake(move.to)
        after = g.board.after_bridge
        if after in (move.to, here):
            ahead = g.ahead[1 - player]
            waiting = sum(1 for m in g.pieces_of(1 - player) if state.pos[m] != OFF and after in ahead[state.pos[m]])
            score += self.BLOCK * waiting * ((move.to == after) - (here == after))
        return score


class SolvedSeat:
    """Perfect play: the solved match's best move (tabletop.games.knossos.solve) for a throw table,
    `table` (the one the game's chance comes from), by default the physical sticks' measured table,
    and for the game's own rules (its games to win and its reading of the exit). Solved (or read
    from the cache) at its first decision, then one look-up per move."""

    name = "solved"

    def __init__(self, table: dict | None = None):
        self.table = None if table is None else check_table(table)
        self._solved: dict = {}

    def choose(self, state: State, rng):
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        rules = (state.game.games_to_win, state.game.exit_rule)
        if rules not in self._solved:
            if self.table is None:
                self.table = measured_table()
            self._solved[rules] = solve(self.table, rules[0], exit_rule=rules[1])
        return self._solved[rules].best_action(state)


SEATS = {"ai": HeuristicSeat, "random": RandomSeat, "solved": SolvedSeat}


def make_seat(kind: str, source=None):
    """A seat of `kind`; a solved seat solves for `source`'s sticks table when chance comes from a
    measured table (TableOutcomes), else for the physical sticks' measured table."""
    if kind == "solved":
        return SolvedSeat(table_of(source))
    return SEATS[kind]()


def head_to_head(kind: str, opponent: str, table: dict, matches: int, games_to_win: int = 3, seed: int = 0,
                 exit_rule: str = PAST_APEX) -> dict:
    """`matches` matches (seeds seed, seed + 1, ...) of a `kind` seat against an `opponent` seat with
    table chance (TableOutcomes of `table`), `kind` playing first (red) in every other match, under
    the `exit_rule` reading of the exit. The wins of `kind` and of the first player, each with its
    95% Wilson interval."""
    from tabletop.gamekit.chance import TableOutcomes
    from tabletop.games.knossos.rules import Game
    from tabletop.gamekit.match import Match
    from tabletop.sim.stats import wilson_interval

    if matches < 1:
        raise InputError(f"matches must be at least 1, got {matches}")
    source = TableOutcomes({"sticks": check_table(table)})
    game = Game(games_to_win=games_to_win, exit_rule=exit_rule)
    seats = [make_seat(kind, source), make_seat(opponent, source)]
    wins = first = 0
    for m in range(matches):
        order = seats if m % 2 == 0 else seats[::-1]
        final = Match(game.new_initial_state(), order, source, seed + m, max_turns=20000).play()
        wins += final.winner == m % 2
        first += final.winner == 0
    return {"seat": kind, "opponent": opponent, "matches": matches, "wins": wins, "rate": wins / matches,
            "ci95": list(wilson_interval(wins, matches)), "first_player_wins": first,
            "first_player_rate": first / matches, "first_player_ci95": list(wilson_interval(first, matches))}


def default_tables() -> dict[str, dict[str, float]]:
    """The tables the report names: the physical sticks' measured table and two fair coins."""
    return {"sticks": measured_table(), "fair": dict(FAIR)}
