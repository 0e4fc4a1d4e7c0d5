"""King of the Hill with two players (standard rules) strongly solved: every position's win
probability under perfect play, for any Tipper table {"1".."6", "J": p} and crater table
{"caveC/seatS": p}.

Positions. Between turns the rules carry nothing but where the four marbles are and whose turn it
is (phase ROLL; a knock's crater is answered within the turn, the Special game's alternating sets
are not in the standard game). A player's two marbles are alike, so a position is (the mover's
pair, the other's pair), each pair sorted, each marble in one of 73 places: the drawer (-1), the
path spaces 0..66 and the Finish Zone seats 67..71 (board.toml). Two marbles never share a place
but the drawer. A pair with both marbles in the Zone has won, so it never stands in a position:
2,619 pairs a player, 6,859,161 pairs of pairs, 6,491,259 of them with no shared place: the
positions solved, by colour symmetry with the mover first (either colour to move at (m, o) has
the same chances). Of them 6,187,815 are reached from the start by some play (`reachable`).
Index: `dense_key` = pair id of the mover x 2,619 + pair id of the other.

Transitions. `successors` is the rules' move (rules.py, `State.destination`, `movable_marbles`,
`_apply_crater`) vectorised with numpy over many positions at once: per Tipper slot, which of the
mover's marbles may move and by how much (a J: 1-10, the mover's choice), where each lands
(hopping a line, knocking an occupied edge space's marble into the crater, the Zone by the exact
count onto a free seat only), a won game, a Pass where nothing is legal, and for a knock the
position after each cave seat (the path space above, hopping forward, else the nearest free space
behind). tests/test_koth_solve.py drives the readable rules from thousands of random positions
and checks that the successors are the same, move for move and crater seat for crater seat.

Values. Perfect play maximises the mover's chance to win. As for Knossos (games/knossos/solve.py)
the values are least fixed points found from 0 (m the pair of the colour to move, o the other's):
f(m, o) the first colour's win probability with the first colour to move, g(m, o) the first
colour's with the second to move (the first maximises f, the second minimises g), so a game that
need not end would show: `solve` checks that f + g = 1 everywhere (every game ends under perfect
play), so f is both players' perfect-play value, the mover's win probability. Knocks send
marbles back, so the graph has cycles; value iteration, Gauss-Seidel by layers: a move that
knocks nothing adds to the sum of the marbles' places (a turn's progress), so the positions are
swept from the most progress to the least, each layer reading the layers above as already updated
this sweep. A Pass keeps the layer and swaps the mover;
its 2-cycle with the swapped position is solved exactly per layer (f = (A + q A') / (1 - q q'), q
the chance to pass). Only knocks that set a marble back reach a lower layer, so the sweeps needed
are few: 19 for the measured tables and for fair ones, each sweep shrinking the largest change
about fivefold. The iteration stops after a sweep that changed no value by more than TOLERANCE
(1e-12), so the values left are within about 1e-13 of the fixed point.

Cost (a 2-core machine shared with other work; numpy uses one core): the successor table, 32
int32 per position (6 slots x 2 marbles, J 10 distances x 2 marbles; 0.83 GB) with the 708,096
knocks' cave successors beside it, is built in about 45 s; a table's 19 sweeps take about 2
minutes (6 s a sweep); the peak is 2.0 GB. `Solution` keeps only the values (float64) and the
policy (int8 per Tipper slot) by dense key, 0.1 GB, 50 MB compressed in the cache.
"""
from __future__ import annotations

import json
import math
import resource
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from tabletop.games.king_of_the_hill.board import CRATER_LABELS, Board, load_board
from tabletop.games.king_of_the_hill.rules import (DRAWER, J_MAX, TIPPER_LABELS, ChanceOutcome, Game, Move, Pass,
                                                   Phase, Variant)
from tabletop.gamekit.chance import check_table
from tabletop.gamekit.solution import read_solution, write_solution
from tabletop.sim.errors import InputError

TOLERANCE = 1e-12           # the iteration stops after a sweep that changed no value by more than this
MAX_SWEEPS = 10_000
SOLVER_VERSION = 1          # of this module's file format and method (part of the cache key)
RULES_FILES = ("rules.py", "board.py", "board.toml")     # in this package; with the machinery's state.py
CHUNK = 200_000             # positions whose successors are built at once

DICE = 6                    # Tipper slots 1-6 move their number; J is the 7th slot
ILLEGAL, WIN = -1, -2       # successor codes beside dense keys and knocks (-3 - knock)
SLOTS = DICE * 2 + J_MAX * 2     # successor slots per position: (slot 1-6, marble), (J, marble, distance)


def slot_move(slot: int) -> tuple[int, int, int]:
    """(Tipper label index, marble of the mover's sorted pair (0 or 1), distance) of a successor slot."""
    if slot < 2 * DICE:
        return slot // 2, slot % 2, slot // 2 + 1
    k, d = divmod(slot - 2 * DICE, J_MAX)
    return DICE, k, d + 1


def label_slots(li: int) -> range:
    return range(2 * li, 2 * li + 2) if li < DICE else range(2 * DICE, SLOTS)


@dataclass(frozen=True)
class Layout:
    """The places and pairs of a board: place x in -1 (drawer) .. L + Z - 1, pair ids of sorted
    pairs (x <= y; equal only in the drawer), a pair with both marbles in the Zone left out."""

    board: Board
    pairs: np.ndarray          # (NP, 2) int16, sorted
    pid: np.ndarray            # (places + 1, places + 1) int32: pair id of (x + 1, y + 1), sorted; -1 none

    @property
    def L(self) -> int:
        return self.board.path_length

    @property
    def NP(self) -> int:
        return len(self.pairs)

    @property
    def places(self) -> int:
        return self.board.path_length + self.board.zone_seats + 1


def layout(board: Board | None = None) -> Layout:
    board = board or load_board()
    L, Z = board.path_length, board.zone_seats
    xs = range(-1, L + Z)
    pairs = [(-1, -1)] + [(x, y) for x in xs for y in xs if x < y and not (x >= L and y >= L)]
    pid = np.full((L + Z + 1, L + Z + 1), -1, np.int32)
    for i, (x, y) in enumerate(pairs):
        pid[x + 1, y + 1] = i
    return Layout(board, np.array(pairs, np.int16), pid)


def positions(lay: Layout) -> tuple[np.ndarray, np.ndarray]:
    """Every position with no shared place: (dense keys (int64), the places (n, 4) int16: the
    mover's pair then the other's)."""
    A, NP = lay.pairs, lay.NP
    keys = []
    for i in range(NP):                       # row by row: a bool (NP, NP) matrix would do too
        a = A[i]
        clash = np.zeros(NP, bool)
        for x in a:
            if x >= 0:
                clash |= (A == x).any(axis=1)
        keys.append(i * NP + np.flatnonzero(~clash))
    keys = np.concatenate(keys).astype(np.int64)
    return keys, places_of(lay, keys)


def places_of(lay: Layout, keys: np.ndarray) -> np.ndarray:
    keys = np.asarray(keys, np.int64)
    return np.concatenate([lay.pairs[keys // lay.NP], lay.pairs[keys % lay.NP]], axis=1).astype(np.int16)


def dense_key(lay: Layout, mover, other) -> int:
    a, b = sorted(mover), sorted(other)
    return int(lay.pid[a[0] + 1, a[1] + 1]) * lay.NP + int(lay.pid[b[0] + 1, b[1] + 1])


@dataclass
class Successors:
    """Where each successor slot leads from each of `n` positions (rows of `places`):
    `code[i, s]` a dense key (the next position, the other player to move), ILLEGAL, WIN (the mover
    wins) or -3 - j for the j-th knock, whose position after each crater label is `knock[j]`
    (dense keys, CRATER_LABELS order); `passes[i, l]` where Tipper label l gives no legal move
    (slot 2l, or 12 for J, then holds the position after the Pass)."""

    code: np.ndarray           # (n, SLOTS) int64
    knock: np.ndarray          # (k, 6) int64
    knock_row: np.ndarray      # (k,) the row of each knock
    passes: np.ndarray         # (n, 7) bool


def _occupied(P: np.ndarray, t: np.ndarray) -> np.ndarray:
    return (P == t[:, None]).any(axis=1)


def _key(lay: Layout, P: np.ndarray) -> np.ndarray:
    """Dense keys of positions (n, 4) given as (player A's pair, player B's pair) unsorted, with B to
    move: B's pair id x NP + A's."""
    a = np.sort(P[:, 0:2], axis=1) + 1
    b = np.sort(P[:, 2:4], axis=1) + 1
    return lay.pid[b[:, 0], b[:, 1]].astype(np.int64) * lay.NP + lay.pid[a[:, 0], a[:, 1]]


def _landing(lay: Layout, P: np.ndarray, k: int, d: int, edge: np.ndarray):
    """Marble k (0/1 of the mover's pair) of each position moved d: (legal, destination, knocked
    column or -1), as State.destination."""
    L, Z = lay.L, lay.board.zone_seats
    s = P[:, k].astype(np.int16)
    target = np.where(s == DRAWER, d - 1, s + d).astype(np.int16)
    zone = target >= L
    occ = _occupied(P, target)
    seat_ok = (target - L + 1 <= Z) & ~occ
    knock = ~zone & occ & edge[np.minimum(target, len(edge) - 1)]
    t = target.copy()
    for _ in range(3):                         # at most three other marbles make a line
        t = np.where((t < L) & _occupied(P, t), t + 1, t).astype(np.int16)
    legal = (s < L) & np.where(zone, seat_ok, knock | (t < L))
    dest = np.where(zone | knock, target, t).astype(np.int16)
    knocked = np.full(len(P), -1, np.int8)
    for j in range(4):
        if j != k:
            knocked[knock & (P[:, j] == target)] = j
    return legal, dest, knocked


def _placed(lay: Layout, Q: np.ndarray, above: int) -> np.ndarray:
    """The space a marble from the crater takes (rules._free_space_from) among the marbles Q (its
    own column set to -2): the first free space from `above` on, else the nearest behind."""
    L = lay.L
    t = np.full(len(Q), above, np.int16)
    for _ in range(3):
        t = np.where((t < L) & _occupied(Q, t), t + 1, t).astype(np.int16)
    back = np.full(len(Q), above - 1, np.int16)
    for _ in range(3):
        back = np.where(_occupied(Q, back), back - 1, back).astype(np.int16)
    return np.where(t < L, t, back).astype(np.int16)


def successors(lay: Layout, P: np.ndarray) -> Successors:
    """The successor slots of positions `P` ((n, 4): the mover's pair, the other's), as the rules
    give them (the module's docstring)."""
    board, L = lay.board, lay.L
    P = np.asarray(P, np.int16)
    n = len(P)
    edge = np.zeros(L + lay.board.zone_seats + J_MAX + 2, bool)
    edge[list(board.edge_spaces)] = True
    caves = [board.caves[label] for label in CRATER_LABELS]
    code = np.full((n, SLOTS), ILLEGAL, np.int64)
    passes = np.zeros((n, len(TIPPER_LABELS)), bool)
    knock_keys, knock_rows = [], []
    drawer = P[:, 0] == DRAWER
    on_path = [(P[:, k] >= 0) & (P[:, k] < L) for k in (0, 1)]
    pass_key = _key(lay, P)                    # after a Pass: the same places, the other to move
    landings = {}
    for li in range(len(TIPPER_LABELS)):
        dists = range(1, J_MAX + 1) if li == DICE else (li + 1,)
        for k in (0, 1):
            for d in dists:
                if (k, d) not in landings:
                    landings[k, d] = _landing(lay, P, k, d, edge)
        entering = drawer & np.logical_or.reduce([landings[0, d][0] for d in dists])
        movable = (entering | on_path[0], ~entering & on_path[1])
        any_legal = np.zeros(n, bool)
        for s in label_slots(li):
            _, k, d = slot_move(s)
            legal, dest, knocked = landings[k, d]
            legal = legal & movable[k]
            any_legal |= legal
            Q = P.copy()
            Q[:, k] = dest
            plain = legal & (knocked < 0)
            won = plain & (Q[:, 0] >= L) & (Q[:, 1] >= L)
            rows = np.flatnonzero(plain & ~won)
            code[rows, s] = _key(lay, Q[rows])
            code[won, s] = WIN
            rows = np.flatnonzero(legal & (knocked >= 0))
            if len(rows):
                Qk, col = Q[rows], knocked[rows].astype(np.int64)
                Qk[np.arange(len(rows)), col] = -2
                after = []
                for above in caves:
                    R = Qk.copy()
                    R[np.arange(len(rows)), col] = _placed(lay, Qk, above)
                    after.append(_key(lay, R))
                first = sum(len(r) for r in knock_rows)
                code[rows, s] = -3 - (first + np.arange(len(rows)))
                knock_keys.append(np.stack(after, axis=1))
                knock_rows.append(rows)
        passes[:, li] = ~any_legal
        code[~any_legal, label_slots(li)[0]] = pass_key[~any_legal]
    knock = np.concatenate(knock_keys) if knock_keys else np.empty((0, len(caves)), np.int64)
    rows = np.concatenate(knock_rows) if knock_rows else np.empty(0, np.int64)
    return Successors(code, knock, rows, passes)


# -- the rules' side: positions as States --------------------------------------------------------
SPECIAL_POSITIONS = 272_862_000_721_160   # the Special game: 3.4e13 placements x 2 movers x 4 next-set pairs
THREE_POSITIONS = 46_133_249_763        # three players: 1.5e10 placements x 3 movers


def check_game(game: Game) -> None:
    """InputError unless `game` is the standard two-player game (the one solved)."""
    if game.variant is not Variant.STANDARD:
        raise InputError(why_not(Variant.SPECIAL_TWO_PLAYER.value, 2))
    if game.players != 2:
        raise InputError(why_not(Variant.STANDARD.value, game.players))


def why_not(variant: str, players: int) -> str:
    """Why a game other than the standard two-player one is not solved (one line)."""
    if variant != Variant.STANDARD.value:
        return (f"King of the Hill is solved for the standard two-player game only: the Special 2 Player Game "
                f"(two sets of two marbles each, moved in turn, three to win) has about {SPECIAL_POSITIONS:.1e} "
                f"positions, some 2 PB of values")
    return (f"King of the Hill is solved for two players only, not {players}: three players have about "
            f"{THREE_POSITIONS:.1e} positions ({THREE_POSITIONS * 8 / 1e9:.0f} GB of values), four about 1.4e14")


def key_parts(state) -> tuple[tuple[int, int], tuple[int, int]]:
    """(the mover's sorted pair, the other's) of a two-player standard State."""
    me = state.current
    t = state.track
    return tuple(sorted(t[2 * me:2 * me + 2])), tuple(sorted(t[2 * (1 - me):2 * (1 - me) + 2]))


def state_of(game: Game, mover, other, player: int = 0):
    """A State of `game` (two players, standard) at the Tipper of `player` (the mover) with the
    mover's marbles at `mover` and the other's at `other` (track places)."""
    s = game.new_initial_state()
    s.track[2 * player:2 * player + 2] = list(mover)
    s.track[2 * (1 - player):2 * (1 - player) + 2] = list(other)
    s.phase, s.current = Phase.ROLL, player
    return s


def slot_marble(state, k: int) -> int:
    """The rules' marble of slot k (0: the lower place of the mover's pair; a drawer pair: the first)."""
    me = state.current
    pair = sorted(((state.track[m], m) for m in (2 * me, 2 * me + 1)))
    return pair[k][1]


def marble_slot(state, marble: int) -> int:
    me = state.current
    pair = sorted(((state.track[m], m) for m in (2 * me, 2 * me + 1)))
    return [m for _, m in pair].index(marble)


# -- the solver ------------------------------------------------------------------------------------
@dataclass
class Graph:
    """Every position of a board in sweep order (the most progress first) and its successors as
    indices into the value arrays extended by WIN (n), ILLEGAL (n + 1), PASS (n + 2) and the knocks'
    expectations (n + 3 + j)."""

    lay: Layout
    keys: np.ndarray           # (n,) dense keys, sweep order
    succ: np.ndarray           # (n, SLOTS) int32
    knock: np.ndarray          # (k, 6) int32: position indices after each crater label
    knock_start: np.ndarray    # (n + 1,) the knocks of position i are knock_start[i]:knock_start[i + 1]
    passes: np.ndarray         # (n, 7) bool
    swap: np.ndarray           # (n,) int32: the position after a Pass (same places, the other to move)
    layers: np.ndarray         # boundaries of the layers (same sum of places)
    dense: np.ndarray          # (NP * NP,) int32: index of each dense key, -1 for none
    build_seconds: float = 0.0
    reached: int | None = None  # positions reachable from the start (`reachable`), once counted

    @property
    def n(self) -> int:
        return len(self.keys)


def build_graph(board: Board | None = None, chunk: int = CHUNK) -> Graph:
    """The successor table of every position of `board` (default: board.toml)."""
    started = time.perf_counter()
    lay = layout(board)
    keys, P = positions(lay)
    progress = (P.astype(np.int32) + 1).sum(axis=1)
    order = np.argsort(-progress, kind="stable")
    keys, P, progress = keys[order], P[order], progress[order]
    del order
    n = len(keys)
    dense = np.full(lay.NP * lay.NP, -1, np.int32)
    dense[keys] = np.arange(n, dtype=np.int32)
    succ = np.empty((n, SLOTS), np.int32)
    passes = np.empty((n, len(TIPPER_LABELS)), bool)
    knocks, counts = [], np.zeros(n, np.int64)
    done = 0
    for lo in range(0, n, chunk):
        hi = min(n, lo + chunk)
        su = successors(lay, P[lo:hi])
        code = su.code
        by_row = np.argsort(su.knock_row, kind="stable")           # a position's knocks together
        renumber = np.empty(len(by_row), np.int64)
        renumber[by_row] = np.arange(len(by_row))
        out = np.where(code >= 0, dense[np.maximum(code, 0)], 0).astype(np.int64)
        out[code == WIN] = n
        out[code == ILLEGAL] = n + 1
        k = code <= -3
        out[k] = n + 3 + done + renumber[-3 - code[k]]
        for li in range(len(TIPPER_LABELS)):
            out[su.passes[:, li], label_slots(li)[0]] = n + 2
        if (out < 0).any():
            raise AssertionError("a successor outside the positions")
        succ[lo:hi] = out
        passes[lo:hi] = su.passes
        knocks.append(dense[su.knock[by_row]])
        counts[lo:hi] = np.bincount(su.knock_row, minlength=hi - lo)
        done += len(by_row)
    knock = np.concatenate(knocks) if knocks else np.empty((0, len(CRATER_LABELS)), np.int32)
    if (knock < 0).any():
        raise AssertionError("a crater successor outside the positions")
    knock_start = np.concatenate([[0], np.cumsum(counts)])
    swap = dense[_key(lay, P)]
    layers = np.concatenate([[0], np.flatnonzero(np.diff(progress)) + 1, [n]])
    return Graph(lay, keys, succ, knock, knock_start, passes, swap, layers, dense, time.perf_counter() - started)


def reachable(graph: Graph, start: int) -> np.ndarray:
    """Which positions some play reaches from `start` (a bool per position)."""
    n = graph.n
    seen = np.zeros(n, bool)
    seen[start] = True
    frontier = np.array([start])
    while len(frontier):
        s = graph.succ[frontier].ravel()
        k = s[s >= n + 3] - (n + 3)
        nxt = np.concatenate([s[s < n], graph.knock[k].ravel(), graph.swap[frontier]])
        nxt = np.unique(nxt)
        frontier = nxt[~seen[nxt]]
        seen[frontier] = True
    return seen


def _label_best(values: np.ndarray, take, p: np.ndarray) -> np.ndarray:
    """Per position, the chance-weighted best (take: max or min) over each Tipper label's slots."""
    dice = take(values[:, :2 * DICE].reshape(len(values), DICE, 2), axis=2)
    jump = take(values[:, 2 * DICE:], axis=1)
    return dice @ p[:DICE] + jump * p[DICE]


def slot_of_policy(policy: np.ndarray) -> np.ndarray:
    """The successor slot of each policy entry ((n, 7) int8: policy_of's codes), a Pass's slot for -1."""
    base = np.array([2 * li for li in range(DICE)] + [2 * DICE], np.int16)
    code = policy.astype(np.int16)
    return (base + np.where(code < 0, 0, code)).astype(np.int8)


def iterate(graph: Graph, tipper: np.ndarray, crater: np.ndarray, progress=None, fixed: np.ndarray | None = None):
    """Value iteration (the module's docstring): (f, g, sweeps, the last sweep's change). With
    `fixed` (per position in sweep order and Tipper label, the slot the first colour plays:
    slot_of_policy) the first colour plays that policy instead of the best, the second the best
    against it."""
    n, K = graph.n, len(graph.knock)
    fx = np.zeros(n + 3 + K)           # f and the extras a g-update reads
    gx = np.zeros(n + 3 + K)           # g and the extras an f-update reads
    gx[n], gx[n + 1] = 1.0, -np.inf    # the first colour, moving, wins; an illegal slot never is best
    fx[n], fx[n + 1] = 0.0, np.inf     # the second colour, moving, wins
    q = graph.passes.astype(float) @ tipper
    layers, ks = graph.layers, graph.knock_start
    for sweep in range(1, MAX_SWEEPS + 1):
        change = 0.0
        for lo, hi in zip(layers[:-1], layers[1:]):
            k0, k1 = ks[lo], ks[hi]
            if k1 > k0:
                kn = graph.knock[k0:k1]
                gx[n + 3 + k0:n + 3 + k1] = gx[kn] @ crater
                fx[n + 3 + k0:n + 3 + k1] = fx[kn] @ crater
            S = graph.succ[lo:hi]
            if fixed is None:
                af = _label_best(gx[S], np.max, tipper)
            else:
                af = gx[np.take_along_axis(S, fixed[lo:hi].astype(np.int64), axis=1)] @ tipper
            ag = _label_best(fx[S], np.min, tipper)
            sw = graph.swap[lo:hi] - lo
            qs, qw = q[lo:hi], q[lo:hi][sw]
            denom = 1.0 - qs * qw
            stuck = denom <= 0.0
            denom[stuck] = 1.0
            f = np.where(stuck, 0.0, (af + qs * ag[sw]) / denom)
            g = np.where(stuck, 0.0, (ag + qs * af[sw]) / denom)
            change = max(change, float(np.abs(f - fx[lo:hi]).max()), float(np.abs(g - gx[lo:hi]).max()))
            fx[lo:hi], gx[lo:hi] = f, g
        if progress is not None:
            progress(sweep, change)
        if change <= TOLERANCE:
            return fx, gx, sweep, change
    raise InputError(f"the values did not settle within {MAX_SWEEPS} sweeps (last change {change:.2g})")


def policy_of(graph: Graph, fx: np.ndarray, gx: np.ndarray, crater: np.ndarray) -> np.ndarray:
    """The mover's best slot per position and Tipper label (int8): the marble (0/1) for 1-6,
    marble x 10 + distance - 1 for J, -1 for a Pass; the first of equals."""
    n = graph.n
    gx = gx.copy()
    if len(graph.knock):
        gx[n + 3:] = gx[graph.knock] @ crater
    out = np.empty((n, len(TIPPER_LABELS)), np.int8)
    for lo in range(0, n, CHUNK):
        v = gx[graph.succ[lo:lo + CHUNK]]
        out[lo:lo + CHUNK, :DICE] = v[:, :2 * DICE].reshape(len(v), DICE, 2).argmax(axis=2)
        out[lo:lo + CHUNK, DICE] = v[:, 2 * DICE:].argmax(axis=1)
    out[graph.passes] = -1
    return out


# -- tables ----------------------------------------------------------------------------------------
FAIR = {"tipper": {label: 1 / len(TIPPER_LABELS) for label in TIPPER_LABELS},
        "crater": {label: 1 / len(CRATER_LABELS) for label in CRATER_LABELS}}
EVENTS = {"tipper": TIPPER_LABELS, "crater": CRATER_LABELS}


def check_tables(tables: dict) -> dict[str, dict[str, float]]:
    """The Tipper and crater tables ({event: {label: p}}) normalised to sum 1; a bad one is an
    InputError (each table checked by gamekit.chance.check_table)."""
    if not isinstance(tables, dict) or set(tables) != set(EVENTS):
        got = sorted(tables) if isinstance(tables, dict) else tables
        raise InputError(f"King of the Hill is solved for a tipper and a crater table, got {got}")
    return {event: check_table(event, tables[event], labels) for event, labels in EVENTS.items()}


def measured_tables() -> dict[str, dict[str, float]]:
    """The physical Tipper's and crater's measured tables (the published estimates, assets/measured)."""
    from tabletop.gamekit.chance import measured_tables as published

    return check_tables(published(("tipper", "crater")))


def tables_of(files) -> dict[str, dict[str, float]]:
    """The tipper and crater tables of saved `tabletop estimate` results; InputError when one is missing."""
    from tabletop.gamekit.chance import load_tables

    tables = load_tables(files)      # a calibration file among them: its calibrated tables
    missing = [e for e in EVENTS if e not in tables]
    if missing:
        raise InputError(f"--outcomes: King of the Hill is solved for a tipper and a crater table; missing: "
                         f"{', '.join(missing)}")
    return check_tables({e: tables[e] for e in EVENTS})


def rules_version() -> str:
    """A digest of the rules' source, the board data and this solver: a cached solution of other
    rules is not used."""
    from tabletop.gamekit.digest import rules_digest

    return rules_digest(Path(__file__).resolve().parent, RULES_FILES)


# -- the solution ------------------------------------------------------------------------------------
@dataclass
class Solution:
    """The solved two-player standard game for one pair of tables: `values[dense key]` the mover's
    win probability at the Tipper (NaN for no position), `policy[dense key, label]` the mover's
    best slot (policy_of), and the solve's figures (`figures`: positions, reachable, sweeps, last
    change, f + g gap, seconds, peak memory)."""

    tables: dict
    values: np.ndarray
    policy: np.ndarray
    figures: dict = field(default_factory=dict)
    board: Board | None = None          # None: board.toml's (another: tests on a smaller hill)

    def __post_init__(self):
        self.lay = layout(self.board)
        self.game = Game(players=2, board=self.lay.board)

    @property
    def first_player(self) -> float:
        """The first player's (the one the turn-order tilts put first) win probability."""
        return float(self.values[dense_key(self.lay, (DRAWER, DRAWER), (DRAWER, DRAWER))])

    def throw_value(self, mover, other) -> float:
        """The mover's win probability at its Tipper, the mover's pair at `mover`, the other's at `other`."""
        v = self.values[dense_key(self.lay, mover, other)]
        if math.isnan(v):
            raise InputError(f"no such position: {mover}, {other}")
        return float(v)

    def value(self, state, player: int | None = None) -> float:
        """The win probability of `player` (default: the one to tilt or move; at a crater, the owner of
        the marble in it) under perfect play in `state`, a two-player standard State at any phase."""
        self._check(state)
        if player is None:
            player = state.chance_player if state.phase is Phase.CRATER else state.current
        if state.is_terminal():
            return float(state.winner == player)
        if state.phase is Phase.ORDER:
            return 0.5                      # who starts is the Tipper's: the same chance for each
        if state.phase is Phase.ROLL:
            v = self.throw_value(*key_parts(state))
            return v if player == state.current else 1.0 - v
        if state.phase is Phase.CRATER:
            p = self.tables["crater"]
            total = 0.0
            for label in CRATER_LABELS:
                after = state.fork()
                after.apply(ChanceOutcome(label))
                total += p[label] * self.value(after, player)
            return total
        best = max(self.move_values(state).values())          # MOVE: the mover's best
        return best if player == state.current else 1.0 - best

    def _check(self, state) -> None:
        check_game(state.game)
        if board_data(standard_board(state.game.board)) != board_data(self.board):
            raise InputError("this solution is of another board than the game's")

    def move_values(self, state) -> dict:
        """The mover's win probability after each legal action of a decision node."""
        out = {}
        for action in state.legal_actions():
            after = state.fork()
            after.apply(action)
            out[action] = self.value(after, state.current)
        return out

    def best_action(self, state):
        """The solved move for `state` (a decision node), one of `state.legal_actions()`."""
        self._check(state)
        code = int(self.policy[dense_key(self.lay, *key_parts(state)), TIPPER_LABELS.index(state.roll)])
        legal = state.legal_actions()
        if code == -1:
            action = Pass()
        elif state.roll == "J":
            k, d = divmod(code, J_MAX)
            action = Move(slot_marble(state, k), d + 1)
        else:
            action = Move(slot_marble(state, code), int(state.roll))
        if action not in legal:
            raise RuntimeError(f"the solution's move {action} is not legal in {state}: the rules changed since "
                               f"it was solved")
        return action

    # -- files -------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the solution as .npz (temp file, then renamed into place)."""
        meta = {"format": "king-of-the-hill-solution", "version": SOLVER_VERSION, "rules": rules_version(),
                "tables": self.tables, "figures": self.figures, "board": board_data(self.board),
                "policy": "per dense key (mover's pair id x pairs + other's) and Tipper label 1-6, J: the "
                          "marble of the mover's sorted pair (0, 1), for J marble x 10 + distance - 1, -1 Pass"}
        write_solution(path, meta, values=self.values, policy=self.policy)

    @classmethod
    def load(cls, path: str | Path) -> "Solution":
        """A saved solution; a missing, foreign or stale file is an InputError."""
        meta, arrays = read_solution(path, "King of the Hill", "king-of-the-hill-solution", SOLVER_VERSION,
                                     rules_version(), ("values", "policy"))
        board = meta.get("board")
        board = None if board is None else Board(board["path_length"], board["zone_seats"], board["edges"],
                                                 board["caves"])
        return cls(meta["tables"], arrays["values"], arrays["policy"], meta["figures"], board)


def board_data(board: Board | None) -> dict | None:
    """What of a board the solution depends on (None: board.toml's, which the rules' digest covers)."""
    if board is None:
        return None
    return {"path_length": board.path_length, "zone_seats": board.zone_seats, "edges": dict(board.edges),
            "caves": dict(board.caves)}


def _cache_path(tables: dict, board: Board | None = None) -> Path:
    from tabletop.sim.meshes import cache_dir
    from tabletop.sim.spec import digest

    key = {"tables": _canon(tables), "rules": rules_version(), "solver": SOLVER_VERSION, "board": board_data(board)}
    return cache_dir() / "king-of-the-hill-solve" / f"solution-{digest(key)}.npz"


_SOLVED: dict = {}


def _canon(tables: dict) -> dict:
    """The tables rounded to 12 decimals: the same table read two ways (a file's probabilities, a
    source's normalised counts) differs in the last bits, and is one solution."""
    return {e: {label: round(p, 12) for label, p in tables[e].items()} for e in EVENTS}


def _memo(tables: dict, board: Board | None = None) -> tuple:
    return json.dumps(_canon(tables), sort_keys=True), json.dumps(board_data(board), sort_keys=True)


@lru_cache(maxsize=1)
def _default_board() -> str:
    return json.dumps(board_data(load_board()), sort_keys=True)


def standard_board(board: Board | None) -> Board | None:
    """None for board.toml's board (the default), else `board`."""
    return None if board is None or json.dumps(board_data(board), sort_keys=True) == _default_board() else board


def solve(tables: dict, cache: bool = True, graph: Graph | None = None, progress=None,
          board: Board | None = None) -> Solution:
    """The two-player standard game on `board` (default board.toml's) solved for these tables: from
    memory or the on-disk cache (keyed by the tables, the board and the rules' digest) when `cache`,
    else computed (about 4 minutes on 2 cores, 2 GB) and cached. Processes that want the same
    solution at once (analyze's workers, each with a solved seat) take turns on a lock beside the
    cache file: one solves, the others read what it saved. `graph`: the successor table, when the
    caller has it."""
    tables = check_tables(tables)
    board = standard_board(board)
    memo = _memo(tables, board)
    if cache and memo in _SOLVED:
        return _SOLVED[memo]
    if not cache:
        return _solve(tables, graph or build_graph(board), progress, board)
    path = _cache_path(tables, board)
    with _locked(path):
        solution = None
        if path.exists():
            try:
                solution = Solution.load(path)
            except InputError:
                solution = None        # a torn or stale file: solve again
        if solution is None:
            solution = _solve(tables, graph or build_graph(board), progress, board)
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                solution.save(path)
            except OSError:
                pass                   # an unwritable cache: solved again next time
    _SOLVED[memo] = solution
    return solution


@contextmanager
def _locked(path: Path):
    """An exclusive lock on `path`.lock while the block runs (none where it cannot be made)."""
    try:
        import fcntl

        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path.with_suffix(".lock"), "a")
    except (ImportError, OSError):
        yield
        return
    with handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def policy_value(graph: Graph, tables: dict, policy: np.ndarray) -> float:
    """The first player's win probability with the chance of `tables` when it plays `policy` (a
    Solution's, by dense key: another table's perfect play, say) and the other player the best reply."""
    tables = check_tables(tables)
    tipper = np.array([tables["tipper"][label] for label in TIPPER_LABELS])
    crater = np.array([tables["crater"][label] for label in CRATER_LABELS])
    fixed = slot_of_policy(policy[graph.keys])
    fx, _, _, _ = iterate(graph, tipper, crater, fixed=fixed)
    return float(fx[graph.dense[dense_key(graph.lay, (DRAWER, DRAWER), (DRAWER, DRAWER))]])


def save_policy(tables: dict, path: str | Path) -> None:
    """The solution for `tables` (solved or cached) written to `path` (.npz: values and policy)."""
    import shutil

    tables = check_tables(tables)
    cached = _cache_path(tables)
    if cached.exists():
        try:
            Solution.load(cached)
            shutil.copyfile(cached, path)
            return
        except (InputError, OSError):
            pass
    solve(tables).save(path)


def is_cached(tables: dict) -> bool:
    """Whether `solve(tables)` (board.toml's board) needs no solving."""
    tables = check_tables(tables)
    return _memo(tables) in _SOLVED or _cache_path(tables).exists()


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _solve(tables: dict, graph: Graph, progress=None, board: Board | None = None) -> Solution:
    tipper = np.array([tables["tipper"][label] for label in TIPPER_LABELS])
    crater = np.array([tables["crater"][label] for label in CRATER_LABELS])
    began = time.perf_counter()
    fx, gx, sweeps, change = iterate(graph, tipper, crater, progress)
    n = graph.n
    gap = float(np.abs(fx[:n] + gx[:n] - 1.0).max())
    if gap > 1e-9:
        raise InputError(f"with the tables {tables} a game need not end under perfect play (the players' win "
                         f"chances fall {gap:.2g} short of 1)")
    policy = policy_of(graph, fx, gx, crater)
    NP2 = graph.lay.NP ** 2
    values = np.full(NP2, np.nan)
    values[graph.keys] = fx[:n]
    dense_policy = np.full((NP2, len(TIPPER_LABELS)), -2, np.int8)
    dense_policy[graph.keys] = policy
    if graph.reached is None:
        start = graph.dense[dense_key(graph.lay, (DRAWER, DRAWER), (DRAWER, DRAWER))]
        graph.reached = int(reachable(graph, start).sum())
    figures = {"positions": n, "reachable": graph.reached, "knock_moves": len(graph.knock),
               "sweeps": sweeps, "last_change": change, "tolerance": TOLERANCE, "gap": gap,
               "build_seconds": graph.build_seconds, "iterate_seconds": time.perf_counter() - began,
               "seconds": graph.build_seconds + time.perf_counter() - began,
               "peak_memory_mb": _peak_mb()}
    return Solution(tables, values, dense_policy, figures, board)


def solve_report(tables: dict[str, dict], emit=None) -> dict:
    """For each named pair of tables: the first player's perfect-play win probability with the
    solve's figures. The successor table is built once for all that are not solved yet."""
    out, graph = {}, None
    for name, t in tables.items():
        if not is_cached(t):
            if graph is None:
                if emit:
                    emit("building the successor table of every position (about a minute on 2 cores)")
                graph = build_graph()
            if emit:
                emit(f"solving for {name} (about 2 minutes on 2 cores; cached after)")
        sol = solve(t, graph=graph)
        out[name] = {"tables": sol.tables, "first_player": sol.first_player, **sol.figures}
    return out


__all__ = ["FAIR", "Solution", "build_graph", "check_game", "check_tables", "dense_key", "iterate", "key_parts",
           "layout", "measured_tables", "positions", "reachable", "save_policy", "solve", "solve_report", "state_of",
           "successors", "tables_of", "why_not"]
