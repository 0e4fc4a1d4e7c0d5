"""The Knossos Game strongly solved: every position's match-win probability under perfect play, for
any throw table {"1": p1, "2": p2, "3": p3}.

Positions come from the readable rules (games/knossos/rules.py), never from a second copy of them:
`game_graph` drives State objects from both starting positions over every throw and every legal
action (a State made afresh from a position's key, then apply) and keys what it reaches by a canonical position, (red's two positions,
blue's two, the player to throw), each pair sorted since a player's two pieces are alike. A node is
a position at a throw; its edges are, per throw, the legal actions (a Pass where no move is legal;
after a 3 the same player throws again), each leading to a node or to the end of the game with its
winner. What follows a game's end (the next score and who starts, or the match's end) is asked of
the rules too, per score (`_after_game`).

The match: at score (a, b) the game is played with each win valued by the match layer (red's
match-win probability after it); scores are solved from the last games back. Perfect play
maximises the mover's match-win probability (red maximises red's value, blue minimises it).

Cycles (pieces taken re-enter) rule out plain backward induction, so each score's game is solved by
value iteration: sweeps of the Bellman update over all nodes at once until no value changes by more
than TOLERANCE (1e-12) in a sweep. It is simple and needs no assumption about the graph (a linear
solve per strongly connected component would need the moves fixed first); a game lasts tens of
throws, so a few hundred sweeps of the 7,352 nodes (7,290 with the strict exit, rules note 8)
suffice (about 0.3 s), and as a sweep shrinks the change by about 0.87 with the measured table, the values left are within about 1e-11. Sweeps grow
as 1/p3 (about 5,800 for p3 = 0.01). Each score starts from the single game's solution mapped onto
its two win values, so most need a sweep or two. The single game is solved twice, once for each player maximising its own win probability:
the two sum to 1 everywhere only if a game ends with probability 1, which `solve` checks.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from tabletop.gamekit.chance import check_table as check_event_table, load_tables, measured_paths
from tabletop.gamekit.solution import read_solution, write_solution
from tabletop.games.knossos.rules import COLOURS, EXIT_RULES, PAST_APEX, STICK_LABELS, ChanceOutcome, Game, Pass
from tabletop.sim.errors import InputError

TOLERANCE = 1e-12           # value iteration stops when no value changes more than this in a sweep
MAX_SWEEPS = 200_000
SOLVER_VERSION = 1          # of this module's file format and method (part of the cache key)
FAIR = {"1": 0.25, "2": 0.5, "3": 0.25}          # two fair coins
PASS = (-3, -3)             # the (from, to) code of a Pass
RULES_FILES = ("rules.py", "board.py", "board.toml")     # in this package; with the machinery's state.py

Key = tuple[tuple[int, int], tuple[int, int], int]


def key_of(state) -> Key:
    """A position's canonical key: red's and blue's piece positions (each pair sorted) and the player
    to throw or move."""
    g = state.game
    red, blue = (tuple(sorted(state.pos[m] for m in g.pieces_of(p))) for p in range(2))
    return red, blue, state.current


def state_of(game: Game, key: Key, score=(0, 0)):
    """A State of `game` at the throw of the position `key`, at `score`."""
    s = game.new_initial_state()
    for p, pair in enumerate(key[:2]):
        for piece, at in zip(game.pieces_of(p), pair):
            s.pos[piece] = at
    s.current = key[2]
    s.score = list(score)
    return s


def move_code(state, action) -> tuple[int, int]:
    """An action as (from, to), which does not depend on which of a player's alike pieces moves."""
    return PASS if isinstance(action, Pass) else (state.pos[action.piece], action.to)


@dataclass(frozen=True)
class Graph:
    """The positions of a game and their transitions, as the rules drive them.

    `succ[i, l, k]`: where the k-th legal action after throw l at node i leads: a node index, or
    N + w when player w wins the game with it (slots past the last action repeat the first; `legal[i,
    l]` says how many there are).
    `codes[i, l, k]`: that action as (from, to), PASS for a Pass. `winning[w]`: one (node, throw,
    action) with which w wins, to ask the rules what follows a game won at any score."""

    keys: tuple[Key, ...]
    succ: np.ndarray
    codes: np.ndarray
    mover: np.ndarray
    winning: tuple[tuple[int, int, int], ...]
    index: dict[Key, int]
    legal: np.ndarray


def _thrown(game: Game, key: Key, label: str):
    """A fresh State at `key` after a throw of `label`, and its legal actions."""
    state = state_of(game, key)
    state.apply(ChanceOutcome(label))
    return state, state.legal_actions()


@lru_cache(maxsize=len(EXIT_RULES))
def game_graph(exit_rule: str = PAST_APEX) -> Graph:
    """Every position reachable from either player's start of a game under the `exit_rule`
    reading of the exit (rules note 8), by driving the rules: each action is applied to a State made
    afresh from the position's key and the throw."""
    game = Game(exit_rule=exit_rule)
    first = game.new_initial_state()
    keys: list[Key] = [key_of(first)[:2] + (p,) for p in range(game.players)]
    index = {k: i for i, k in enumerate(keys)}
    rows: list[list[list[tuple[int, tuple[int, int]]]]] = []
    winning: dict[int, tuple[int, int, int]] = {}
    i = 0
    while i < len(keys):
        row = []
        for li, label in enumerate(STICK_LABELS):
            out = []
            for k in range(len(_thrown(game, keys[i], label)[1])):
                s, legal = _thrown(game, keys[i], label)
                action = legal[k]
                code = move_code(s, action)
                s.apply(action)
                if s.game_winners:
                    w = s.game_winners[-1]
                    winning.setdefault(w, (i, li, k))
                    out.append((-1 - w, code))
                    continue
                nk = key_of(s)
                if nk not in index:
                    index[nk] = len(keys)
                    keys.append(nk)
                out.append((index[nk], code))
            row.append(out)
        rows.append(row)
        i += 1
    n, width = len(keys), max(len(out) for row in rows for out in row)
    succ = np.empty((n, len(STICK_LABELS), width), np.int64)
    codes = np.empty((n, len(STICK_LABELS), width, 2), np.int8)
    for i, row in enumerate(rows):
        for li, out in enumerate(row):
            padded = out + [out[0]] * (width - len(out))
            succ[i, li] = [j if j >= 0 else n - 1 - j for j, _ in padded]
            codes[i, li] = [c for _, c in padded]
    mover = np.array([k[2] for k in keys], np.int8)
    legal = np.array([[len(out) for out in row] for row in rows], np.int64)
    return Graph(tuple(keys), succ, codes, mover, tuple(winning[w] for w in range(game.players)), index, legal)


def _after_game(graph: Graph, game: Game, score: tuple[int, int], winner: int):
    """What the rules make of `winner` winning a game at `score`: ("match", winner) when it ends the
    match, else ("game", next score, the next game's start node)."""
    i, li, k = graph.winning[winner]
    s = state_of(game, graph.keys[i], score)
    s.apply(ChanceOutcome(STICK_LABELS[li]))
    s.apply(s.legal_actions()[k])
    if s.is_terminal():
        return "match", s.winner
    return "game", tuple(s.score), graph.index[key_of(s)]


def check_table(table: dict) -> dict[str, float]:
    """The throw table normalised to sum 1; a bad one is an InputError (gamekit.chance.check_table,
    and a table with no chance of a 3, which would end no game)."""
    p = check_event_table("sticks", table, STICK_LABELS)
    if p["3"] <= 0:
        raise InputError("a sticks table with no chance of a 3 never lets a piece cross the bridge: no game would end")
    return p


def sticks_table(*paths: str | Path) -> dict[str, float]:
    """The sticks table of a saved `tabletop estimate sticks` result (of several table files: the
    last one's, or a calibration file's calibrated one, which wins: gamekit.chance.load_tables)."""
    tables = load_tables(paths)
    if "sticks" not in tables:
        raise InputError(f"{', '.join(map(str, paths))}: not a sticks result (tabletop estimate sticks --out "
                         f"FILE.json)")
    return tables["sticks"]


def table_of(source) -> dict[str, float] | None:
    """The sticks table an outcome source draws from (a TableOutcomes with one), else None."""
    from tabletop.gamekit.chance import TableOutcomes

    tables = source.tables if isinstance(source, TableOutcomes) else {}
    if "sticks" not in tables:
        return None
    labels, p = tables["sticks"]
    return dict(zip(labels, p.tolist()))


def measured_table() -> dict[str, float]:
    """The physical sticks' measured table (the published estimate, assets/measured)."""
    (path,) = measured_paths(("sticks",))
    return sticks_table(path)


def _iterate(graph: Graph, p: np.ndarray, ends, maximiser: int, values: np.ndarray) -> tuple[np.ndarray, int]:
    """Value iteration from `values` (one per node) until a sweep changes none by more than
    TOLERANCE; `ends` are the values of player 0's and player 1's win, `maximiser` the player who
    maximises (the other minimises). Returns the values and the sweeps taken."""
    n = len(graph.keys)
    ext = np.concatenate([values, np.asarray(ends, float)])
    top = np.flatnonzero(graph.mover == maximiser)
    low = np.flatnonzero(graph.mover != maximiser)
    succ_top, succ_low = graph.succ[top], graph.succ[low]
    new = np.empty(n)
    for sweep in range(1, MAX_SWEEPS + 1):
        new[top] = ext[succ_top].max(axis=2) @ p
        new[low] = ext[succ_low].min(axis=2) @ p
        change = float(np.abs(new - ext[:n]).max())
        ext[:n] = new
        if change <= TOLERANCE:
            return ext[:n].copy(), sweep
    raise InputError(f"the values did not settle within {MAX_SWEEPS} sweeps: with this table's chance of a 3 "
                     f"({p[STICK_LABELS.index('3')]:.2g}) games last too long to solve this way")


def _choices(graph: Graph, values: np.ndarray, ends, maximiser: int) -> tuple[np.ndarray, np.ndarray]:
    """The best action per node and throw for `values` (first of equals): (action index, value)."""
    after = np.concatenate([values, np.asarray(ends, float)])[graph.succ]
    top = (graph.mover == maximiser)[:, None]
    pick = np.where(top, after.argmax(axis=2), after.argmin(axis=2))
    return pick, np.take_along_axis(after, pick[..., None], axis=2)[..., 0]


def rules_version() -> str:
    """A digest of the rules' source and board data: a cached solution of other rules is not used."""
    from tabletop.gamekit.digest import rules_digest

    return rules_digest(Path(__file__).resolve().parent, RULES_FILES)


@dataclass
class Solution:
    """A solved match: red's match-win probability at every position's throw (`throw_values`, per
    score) and once the throw is known (`move_values`), the best move there (`choice`, (from, to)
    per score, node and throw; PASS for a Pass), and the single game's win probability of red and of
    blue under perfect play for one game (`game_values`), under the `exit_rule` reading of the exit."""

    table: dict[str, float]
    games_to_win: int
    keys: tuple[Key, ...]
    scores: tuple[tuple[int, int], ...]
    throw_values: np.ndarray       # (scores, nodes)
    move_values: np.ndarray        # (scores, nodes, throws)
    choice: np.ndarray             # (scores, nodes, throws, 2) int8
    game_values: np.ndarray        # (2, nodes): red's, blue's single-game win probability
    sweeps: int = 0
    seconds: float = 0.0
    exit_rule: str = PAST_APEX

    def __post_init__(self):
        self.index = {k: i for i, k in enumerate(self.keys)}
        self.score_index = {s: i for i, s in enumerate(self.scores)}
        self._start = self.index[key_of(Game().new_initial_state())]

    @property
    def first_player_match(self) -> float:
        """The first player's (red's) match-win probability from the start."""
        return float(self.throw_values[self.score_index[(0, 0)], self._start])

    @property
    def first_player_game(self) -> float:
        """The first player's win probability of a single game, each side playing to win it."""
        return float(self.game_values[0, self._start])

    def _where(self, state) -> tuple[int, int]:
        return self.score_index[tuple(state.score)], self.index[key_of(state)]

    def value(self, state, player: int | None = None) -> float:
        """The match-win probability of `player` (default: the one to throw or move) in `state`."""
        player = state.current if player is None else player
        if state.is_terminal():
            return float(state.winner == player)
        s, i = self._where(state)
        red = self.throw_values[s, i] if state.throw is None else self.move_values[s, i, STICK_LABELS.index(state.throw)]
        return float(red if player == 0 else 1.0 - red)

    def best_action(self, state):
        """The solved move for `state` (a decision node), one of `state.legal_actions()`."""
        s, i = self._where(state)
        code = tuple(int(v) for v in self.choice[s, i, STICK_LABELS.index(state.throw)])
        for action in state.legal_actions():
            if move_code(state, action) == code:
                return action
        raise RuntimeError(f"the solution's move {code} is not legal in {state}: the rules changed since it was solved")

    # -- files -------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the solution as .npz (temp file, then renamed into place)."""
        meta = {"format": "knossos-solution", "version": SOLVER_VERSION, "rules": rules_version(),
                "table": self.table, "games_to_win": self.games_to_win, "scores": self.scores,
                "sweeps": self.sweeps, "seconds": self.seconds, "exit_rule": self.exit_rule}
        write_solution(path, meta, keys=np.array(self.keys_array(), np.int8), throw_values=self.throw_values,
                       move_values=self.move_values, choice=self.choice, game_values=self.game_values)

    def keys_array(self) -> list[list[int]]:
        return [[*red, *blue, p] for red, blue, p in self.keys]

    @classmethod
    def load(cls, path: str | Path) -> "Solution":
        """A saved solution; a missing, foreign or stale file is an InputError."""
        meta, arrays = read_solution(path, "Knossos", "knossos-solution", SOLVER_VERSION, rules_version(),
                                     ("keys", "throw_values", "move_values", "choice", "game_values"))
        keys = tuple(((int(r[0]), int(r[1])), (int(r[2]), int(r[3])), int(r[4])) for r in arrays["keys"])
        return cls(meta["table"], meta["games_to_win"], keys, tuple(tuple(s) for s in meta["scores"]),
                   arrays["throw_values"], arrays["move_values"], arrays["choice"], arrays["game_values"],
                   meta["sweeps"], meta["seconds"], meta.get("exit_rule", PAST_APEX))


def _cache_path(table: dict[str, float], games_to_win: int, exit_rule: str = PAST_APEX) -> Path:
    from tabletop.sim.meshes import cache_dir
    from tabletop.sim.spec import digest

    key = {"table": table, "games_to_win": games_to_win, "rules": rules_version(), "solver": SOLVER_VERSION,
           "exit_rule": exit_rule}
    return cache_dir() / "knossos-solve" / f"solution-{digest(key)}.npz"


_SOLVED: dict = {}


def solve(table: dict, games_to_win: int = 3, cache: bool = True, exit_rule: str = PAST_APEX) -> Solution:
    """The match solved for this throw table and reading of the exit (`exit_rule`, rules note 8):
    from memory or the on-disk cache (keyed by the table, games_to_win, the exit rule and the rules'
    digest) when `cache`, else computed (about 1.5 s) and cached."""
    table = check_table(table)
    if games_to_win < 1:
        raise InputError(f"games_to_win must be at least 1, got {games_to_win}")
    if exit_rule not in EXIT_RULES:
        raise InputError(f"exit rule must be one of {', '.join(EXIT_RULES)}, got {exit_rule!r}")
    memo = (tuple(table.values()), games_to_win, exit_rule)
    if cache and memo in _SOLVED:
        return _SOLVED[memo]
    path = _cache_path(table, games_to_win, exit_rule)
    solution = None
    if cache and path.exists():
        try:
            solution = Solution.load(path)
        except InputError:
            solution = None           # a torn or stale file: solve again
        if solution is not None and solution.exit_rule != exit_rule:
            solution = None
    if solution is None:
        solution = _solve(table, games_to_win, exit_rule)
        if cache:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                solution.save(path)
            except OSError:
                pass                  # an unwritable cache: solved again next time
    if cache:
        _SOLVED[memo] = solution
    return solution


def _solve(table: dict[str, float], games_to_win: int, exit_rule: str = PAST_APEX) -> Solution:
    started = time.perf_counter()
    graph = game_graph(exit_rule)
    game = Game(games_to_win=games_to_win, exit_rule=exit_rule)
    p = np.array([table[label] for label in STICK_LABELS])
    n = len(graph.keys)
    red_game, sweeps = _iterate(graph, p, (1.0, 0.0), 0, np.zeros(n))
    blue_game, more = _iterate(graph, p, (0.0, 1.0), 1, np.zeros(n))
    sweeps += more
    gap = float(np.abs(red_game + blue_game - 1.0).max())
    if gap > 1e-9:
        raise InputError(f"with the sticks table {table} a game need not end (its players' win chances "
                         f"fall {gap:.2g} short of 1)")
    scores = tuple((a, b) for a in range(games_to_win) for b in range(games_to_win))
    throw_values = np.empty((len(scores), n))
    move_values = np.empty((len(scores), n, len(STICK_LABELS)))
    choice = np.empty((len(scores), n, len(STICK_LABELS), 2), np.int8)
    order = sorted(range(len(scores)), key=lambda s: -sum(scores[s]))   # the last games first
    for s in order:
        ends = []
        for winner in range(game.players):
            after = _after_game(graph, game, scores[s], winner)
            ends.append(float(after[1] == 0) if after[0] == "match" else throw_values[scores.index(after[1]), after[2]])
        hi, lo = ends
        throw_values[s], more = _iterate(graph, p, ends, 0, lo + (hi - lo) * red_game)
        sweeps += more
        pick, move_values[s] = _choices(graph, throw_values[s], ends, 0)
        choice[s] = np.take_along_axis(graph.codes, pick[..., None, None], axis=2)[:, :, 0]
    return Solution(table, games_to_win, graph.keys, scores, throw_values, move_values, choice,
                    np.stack([red_game, blue_game]), sweeps, time.perf_counter() - started, exit_rule)


def solve_report(tables: dict[str, dict], games_to_win: int = 3, exit_rule: str = PAST_APEX) -> dict:
    """For each named table: the first player's match-win and single-game win probability under
    perfect play (with the `exit_rule` reading of the exit), with the table, the positions solved and
    the solve time."""
    out = {}
    for name, table in tables.items():
        sol = solve(table, games_to_win, exit_rule=exit_rule)
        out[name] = {"table": sol.table, "games_to_win": games_to_win,
                     "first_player_match": sol.first_player_match, "first_player_game": sol.first_player_game,
                     "first_player": COLOURS[0], "positions": len(sol.keys), "sweeps": sol.sweeps,
                     "solve_seconds": sol.seconds}
    return out


__all__ = ["FAIR", "Solution", "check_table", "game_graph", "key_of", "move_code",
           "measured_table", "solve", "solve_report", "state_of", "sticks_table", "table_of"]
