"""A recorded game reviewed: what every decision and every chance event did to each seat's win
probability (RoyalUr.net's game review: accuracy, a win-chance graph, every move graded; GNU
Backgammon's luck: the equity after a roll less the equity before it).

The game is re-driven from its recorded actions with its definition; the positions it passed
through are its *path*, S_0 (the start) to S_T (the end). Each step takes S_i to S_i+1: a seat's
decision or a chance event's outcome.

Win probability. V_s(S) is seat s's chance to win the game (a match, where the game is one) from
position S, for every seat; a finished game's is its result (1 a winner, 0 the others; a shared
victory 1 for each of its winners; none where no seat won). Where the game is solved for its rules,
seats and chance tables (the definition's `solved_values`), V is exact: perfect play by every seat
from S on, a decision node's value its best move's, a chance node's the expectation of its outcomes
under the table. Elsewhere V is estimated by rollouts: N whole games from S played to their end by
the game's rollout seat (`GameDefinition.review_seat`: by default the `plan` seat, which plans with
the chance tables) in every chair, chance drawn from the table; V_s is the share seat s won, shown with its 95%
Wilson interval. Common random numbers: rollout j of every position (and of every candidate move)
draws the game's chance event k, counted from the game's start, from one generator, SeedSequence(seed,
spawn_key=(j, 1)) advanced by k x 2^64, and the seats' decision k likewise from (j, 0). Rollout j
from S_i and rollout j from S_i+1 therefore meet the same dice, and where the first drew the outcome
(or made the move) the game made, they are the same game: the differences that luck, deltas and
losses are, are measured far more finely than the values, and every sum's interval comes from the
spread of its per-rollout sums. A review does not depend on the number of workers.

The table: the chance tables the game was played with (the replay's config's, where it was played
from tables), else the published measured tables of the game's devices (a game whose chance was
physics: the measured table is what the simulated gadget gives).

A decision at S_i by mover m with legal moves A (a single legal move is *forced*, not graded):
    value of a move a      V_m(S_i + a)
    best                   the move with the highest value. A rollout review rolls every move out
                           N / 8 times (all N where there are at most four), the three best of
                           those and the chosen N times; it picks the best by the first half of
                           those N and measures the loss on the second half: the best of noisy
                           estimates looks better than it is, so picked and measured on the same
                           rollouts a game of 40 decisions shows losses of tens of percent that are
                           only noise. Measured apart, a loss may come out below 0
    loss                   V_m(S_i + best) - V_m(S_i + chosen), >= 0 where exact
    grade                  by the loss (estimated: by the low end of its 95% interval, so that a
                           grade says at least this bad, never noise): best (<= 1e-9: a move as
                           good as the best), good (< 0.02), inaccuracy (< 0.04), mistake
                           (< 0.08), blunder (>= 0.08); a rollout review of fewer than 16 rollouts a
                           position grades nothing (its loss is measured on under 8). GNU
                           Backgammon calls a move doubtful, bad and very bad from an equity loss
                           of 0.04, 0.08 and 0.16; in a game without gammons the equity is 2 V - 1,
                           so these are its thresholds in win probability, with "good" below the
                           first
    delta                  V_s(S_i+1) - V_s(S_i) for each seat: exactly -loss for the mover where V
                           is exact (a decision node's value is its best move's); with rollouts the
                           node's value is the rollout seat's play, so the delta is the move against
                           that seat's, the loss against the best found
A chance event at S_i (its mover m: the seat whose throw, tilt or spin it is, `state.chance_player`):
    expected               E_s = sum over the outcomes o of p(o) V_s(S_i + o), p the table's; with
                           rollouts the estimate of V_s(S_i) itself, whose rollouts draw the outcome
                           from the table
    luck                   V_s(S_i+1) - E_s, for each seat; "the luck" of the event is the mover's
    swing                  for a physical gadget (an event with a fair table that differs: two fair
                           coins for sticks, even slots, seats and faces, a spinner's sectors):
                           E_s under the played table less E_s under the fair one, for each seat
                           (the event's: the mover's): what the gadget's bias gave it in
                           expectation, so that luck + swing = V_s(S_i+1) - E_s(fair) (played less
                           fair: a positive swing helps, as positive luck does). With rollouts it
                           is estimated from the same rollouts, each
                           weighted by 1 - fair(o) / p(o) of its first outcome o (importance
                           sampling: unbiased, no more rollouts).
Per player:
    accuracy               the mean over its graded decisions of 103.1668 exp(-4.354 loss) - 3.1669,
                           clipped to 0..100 (Lichess's accuracy of a move from its drop in win
                           percentage points): 100 for best play, about 91 for a loss of 0.02, 70 for
                           0.08, 40 for 0.2
    cost                   the sum of its decisions' losses: what its mistakes cost
    luck                   the sum of its luck over every chance event (its own and the others':
                           an opponent's lucky throw is bad luck); own luck: over its own events
    gadgets                the sum over every gadget's event of the swing for it (each event's
                           swing is taken for every seat, as luck is): what the gadgets' bias did
                           to its chances, in expectation, along this game; luck + gadgets is its
                           luck against fair gadgets
The balance, for each seat: V_s(S_T) - V_s(S_0) = luck + the deltas of its own decisions + the
deltas of the others' decisions (for two players where V is exact: luck - its cost + the
opponent's cost). Exact values satisfy it to rounding (the solutions hold every value to 1e-12);
a rollout review estimates each path position once, so it holds to rounding too, and each term
carries its interval (from the spread over the rollouts j of its per-rollout sum).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from tabletop.gamekit.chance import UniformOrder, table_dicts
from tabletop.gamekit.state import ChanceOutcome
from tabletop.sim.errors import InputError
from tabletop.sim.stats import Z95, wilson_interval

GRADES = (("best", 1e-9), ("good", 0.02), ("inaccuracy", 0.04), ("mistake", 0.08), ("blunder", math.inf))
GRADES_DOC = ("by the loss of the mover's win probability: best (<= 1e-9), good (< 0.02), inaccuracy (< 0.04), "
              "mistake (< 0.08), blunder (>= 0.08): GNU Backgammon's equity thresholds 0.04, 0.08, 0.16 as win "
              "probability (equity 2 V - 1); an estimated loss is graded by the low end of its 95% interval")
ACCURACY_DOC = ("the mean over a player's graded decisions of 103.1668 exp(-4.354 loss) - 3.1669, clipped to "
                "0..100 (Lichess's move accuracy from the drop in win percentage points)")
LUCK_DOC = ("luck of a chance event: the win probability after it less its expectation over the table before "
            "it; swing (a physical gadget): that expectation less the expectation over the fair table")
EQUAL = 1e-12            # two tables' probabilities this close are the same table
SCREEN_KEEP = 3          # a rollout review's decisions: the best candidates of the screen rolled out in full
SMALL = 4                # a decision with at most this many moves rolls every one out in full
MIN_MEASURED = 8         # a rollout review grades decisions only with this many rollouts to measure a loss on


def grade(loss: float) -> str:
    """The grade of a decision that lost `loss` of the mover's win probability."""
    for name, below in GRADES:
        if loss <= below if name == "best" else loss < below:
            return name
    return GRADES[-1][0]


def accuracy(loss: float) -> float:
    """A decision's accuracy, 0..100, from its loss (ACCURACY_DOC)."""
    return float(min(100.0, max(0.0, 103.1668 * math.exp(-4.354 * max(loss, 0.0)) - 3.1669)))


@dataclass
class Estimate:
    """A position's value for every seat: exact (`wins` None, `se` 0), or the mean of rollouts,
    `wins` their per-seat results (rollouts x seats), `first` the first chance outcome each drew (a
    chance node's; None each at a decision node)."""

    def __init__(self, values, se=None, wins: np.ndarray | None = None, first: tuple | None = None,
                 known: bool = False):
        self.values = np.asarray(values, float)
        self.se = np.zeros_like(self.values) if se is None else np.asarray(se, float)
        self.wins, self.first = wins, first
        self.known = known or wins is None     # exact (a finished game's result, or a solved value)

    @property
    def n(self) -> int:
        return 0 if self.wins is None else len(self.wins)

    @classmethod
    def of(cls, wins: np.ndarray, first=None, known: bool = False) -> "Estimate":
        return cls(wins.mean(axis=0), np.zeros(wins.shape[1]) if known else _se(wins), wins, first, known)

    def ci95(self) -> list | None:
        """Each seat's 95% Wilson interval (None: exact; a finished game's result: the result)."""
        if self.wins is None:
            return None
        if self.known:
            return [[v, v] for v in self.values.tolist()]
        return [list(wilson_interval(int(round(k)), self.n)) for k in self.wins.sum(axis=0)]


def _se(per_rollout: np.ndarray) -> np.ndarray:
    """The standard error of the mean of per-rollout values (rows), per column."""
    n = len(per_rollout)
    if n < 2:
        return np.full(per_rollout.shape[1:], 0.5)
    return per_rollout.std(axis=0, ddof=1) / math.sqrt(n)


class Rollouts:
    """Whole games played from a position by `seats` (one per chair), chance from `source`. Rollout j
    draws the game's chance event k (counted from the start of the game) from the generator of
    SeedSequence(seed, spawn_key=(j, 1)) advanced by k x 2^64, and the seats' decision k likewise
    from (j, 0): rollout j of every position of a game meets the same dice (the module's
    docstring). A game past `max_turns` counts as won by nobody (`capped` counts them)."""

    STREAM = 1 << 64

    def __init__(self, seats, source, seed: int, max_turns: int):
        self.seats, self.source, self.seed, self.max_turns = seats, source, int(seed), max_turns
        self.capped = 0
        self._bases: dict[int, tuple] = {}
        self._bits = np.random.PCG64()
        self._rng = np.random.Generator(self._bits)

    def rng(self, j: int, part: int, k: int) -> np.random.Generator:
        """The generator of rollout j's decision (part 0) or chance event (part 1) number k."""
        if j not in self._bases:
            self._bases[j] = tuple(np.random.PCG64(np.random.SeedSequence(self.seed, spawn_key=(j, p))).state
                                   for p in (0, 1))
        self._bits.state = self._bases[j][part]
        self._bits.advance(k * self.STREAM)
        return self._rng

    def run(self, state, chances: int, decisions: int, seeds: range) -> tuple[np.ndarray, tuple]:
        """(wins (len(seeds), seats), the first chance outcome of each, None where the state is a
        decision node) of rollouts `seeds` from `state`, before which the game answered `chances`
        chance events and took `decisions` decisions."""
        players = len(state.returns())
        wins = np.zeros((len(seeds), players))
        first = []
        for row, j in enumerate(seeds):
            s = state.fork()
            k, d, drawn = chances, decisions, None
            while not s.is_terminal():
                if s.turn > self.max_turns:
                    self.capped += 1
                    break
                event = s.chance_event
                if event is not None:
                    label = self.source.outcome(event, s, self.rng(j, 1, k))
                    if k == chances and d == decisions:
                        drawn = label
                    s.apply(ChanceOutcome(label))
                    k += 1
                else:
                    s.apply(self.seats[s.current_player].choose(s, self.rng(j, 0, d)))
                    d += 1
            if s.is_terminal():
                wins[row] = [r > 0 for r in s.returns()]
            first.append(drawn)
        return wins, tuple(first)


def _lines(state, action) -> list[str]:
    """The log lines `action` adds to `state` (applied to a copy)."""
    s = state.fork()
    s.apply(action)
    return [str(line) for line in s.events]


def _applied(state, action):
    s = state.fork()
    s.apply(ChanceOutcome(action) if isinstance(action, str) else action)
    return s


def _same_table(a: dict, b: dict) -> bool:
    ta, tb = sum(a.values()), sum(b.values())
    return set(a) == set(b) and all(abs(a[k] / ta - b[k] / tb) <= EQUAL for k in a)


class Reviewer:
    """The review of one recorded game: its path re-driven from `history`, each step's figures
    (`step(i)`), exact by `solved` (a function of a state to each seat's value) or by `rollouts`
    (a Rollouts, `n` a position)."""

    def __init__(self, definition, game, history, source, fair_source=None, solved=None, rollouts=None,
                 n: int = 0):
        if solved is None and rollouts is None:
            raise InputError("a review needs a solved game's values or rollouts")
        self.definition, self.source, self.fair_source = definition, source, fair_source
        self.solved, self.rollouts, self.n = solved, rollouts, n
        self.screen = max(2, n // 8)
        state = game.new_initial_state()
        self.path = [state.fork()]
        self.lines: list[list[str]] = []
        self.counts = [(0, 0)]            # (chance events, decisions) before each position
        for k, action in enumerate(history):
            seen = len(state.events)
            chance = state.chance_event is not None
            try:
                state.apply(action)
            except ValueError as exc:      # IllegalMoveError: a recording these rules do not play
                raise InputError(f"the recorded action {k + 1} ({action}) is illegal here: {exc}") from None
            self.lines.append([str(line) for line in state.events[seen:]])
            self.path.append(state.fork())
            c, d = self.counts[-1]
            self.counts.append((c + 1, d) if chance else (c, d + 1))
        self.history = list(history)
        self.players = len(state.returns())
        played, fair = table_dicts(source), table_dicts(fair_source) if fair_source is not None else {}
        self.gadgets = {e for e, t in fair.items() if e not in definition.private_chance
                        and e in played and not _same_table(t, played[e])}

    # -- values ---------------------------------------------------------------------------------
    def _rolled(self, state, i: int, seeds: range) -> tuple[np.ndarray, tuple, bool]:
        """Rollouts `seeds` of `state`, a position that follows path position i - 1's step: (wins,
        first outcomes, whether the game is over: its result repeated)."""
        if state.is_terminal():
            return np.tile([float(r > 0) for r in state.returns()], (len(seeds), 1)), (None,) * len(seeds), True
        return *self.rollouts.run(state, *self.counts[i], seeds), False

    def value(self, i: int) -> Estimate:
        """Path position i's value, exactly or by its rollouts."""
        state = self.path[i]
        if self.solved is not None:
            if state.is_terminal():
                return Estimate([r > 0 for r in state.returns()])
            return Estimate(self.solved(state))
        return Estimate.of(*self._rolled(state, i, range(self.n)))

    def _distribution(self, state, source):
        """(label, p) of the pending chance event under `source`, or None where it has no listable table."""
        if source is None:
            return None
        try:
            dist = self.definition.chance_distribution(state, source)
        except (RuntimeError, KeyError):
            return None
        return None if isinstance(dist, UniformOrder) else list(dist)

    # -- one step ------------------------------------------------------------------------------
    def step(self, i: int) -> tuple[dict, Estimate, np.ndarray | None]:
        """Step i (S_i to S_i+1): its figures but those that need the value of S_i (`assemble` adds
        them), the estimate of S_i+1 and, for a graded decision reviewed by rollouts, each
        rollout's loss (the best move's result less the chosen's, for the mover)."""
        state, action = self.path[i], self.history[i]
        capped = self.rollouts.capped if self.rollouts is not None else 0
        if state.chance_event is not None:
            record, after, diffs = *self._chance(i, state, action), None
        else:
            record, after, diffs = self._decision(i, state, action)
        if self.rollouts is not None:
            record["capped"] = self.rollouts.capped - capped
        return record, after, diffs

    def _chance(self, i, state, action):
        after = self.value(i + 1)
        record = {"index": i, "turn": self.path[i + 1].turn, "kind": "chance", "event": state.chance_event,
                  "seat": int(state.chance_player), "outcome": action.label, "lines": self.lines[i]}
        dist = self._distribution(state, self.source)
        if dist is not None:
            record["p"] = dict(dist).get(action.label)
        if self.solved is not None and dist is not None:
            children = {label: np.asarray(self.solved(_applied(state, label)), float) for label, _ in dist}
            record["expected"] = sum(p * children[label] for label, p in dist).tolist()
            fair = self._distribution(state, self.fair_source) if state.chance_event in self.gadgets else None
            if fair is not None:
                fair_e = sum(p * children[label] for label, p in fair)
                record["swing"] = (np.asarray(record["expected"]) - fair_e).tolist()
                record["swing_se"] = [0.0] * self.players
        return record, after

    def swing_weights(self, i: int, estimate: Estimate) -> np.ndarray | None:
        """A rollout review's swing at chance node i: each rollout's result weighted by 1 - fair(o) /
        p(o) of its first outcome o (rollouts x seats; their mean is the swing), or None where the
        event is no gadget's."""
        state = self.path[i]
        if estimate.wins is None or state.chance_event not in self.gadgets or estimate.first is None:
            return None
        played, fair = self._distribution(state, self.source), self._distribution(state, self.fair_source)
        if played is None or fair is None or any(o is None for o in estimate.first):
            return None
        p, f = dict(played), dict(fair)
        if any(p.get(o, 0.0) <= 0 for o in estimate.first):
            return None
        return np.array([1.0 - f.get(o, 0.0) / p[o] for o in estimate.first])[:, None] * estimate.wins

    def _decision(self, i, state, action):
        legal = state.legal_actions()
        mover = int(state.current_player)
        record = {"index": i, "turn": self.path[i + 1].turn, "kind": "decision", "seat": mover,
                  "action": str(action), "lines": self.lines[i], "legal": len(legal), "forced": len(legal) == 1}
        if len(legal) == 1:
            return record, self.value(i + 1), None
        chosen = next((k for k, a in enumerate(legal) if a == action), None)
        if chosen is None:
            raise InputError(f"the recorded action {i + 1} ({action}) is not among the legal moves")
        if self.solved is not None:
            values = [Estimate(self.solved(_applied(state, a))) for a in legal]
            values[chosen] = self.value(i + 1)
        else:
            values = self._candidates(i, state, legal, chosen, mover)
        full = [k for k, v in enumerate(values) if v is not None]
        half = self.n // 2             # rollouts: picked by the first half, measured by the second

        def picked(k):
            return values[k].values[mover] if self.solved is not None else values[k].wins[:half, mover].mean()

        def measured(k):
            return values[k].values[mover] if self.solved is not None else values[k].wins[half:, mover].mean()

        best = max(full, key=lambda k: (picked(k), k == chosen))
        loss = float(measured(best) - measured(chosen))
        diffs = None
        if self.solved is None:
            diffs = values[best].wins[half:, mover] - values[chosen].wins[half:, mover]
        record.update(best=str(legal[best]), best_lines=_lines(state, legal[best]) if best != chosen else
                      self.lines[i], best_value=float(measured(best)), chosen_value=float(measured(chosen)),
                      loss=loss, loss_se=0.0 if diffs is None else float(_se(diffs[:, None])[0]),
                      accuracy=accuracy(loss),
                      rolled_out=None if self.solved is not None else len(full))
        if self.solved is None and self.n - half < MIN_MEASURED:
            record["grade"] = record["accuracy"] = None      # too few rollouts to tell
        else:
            record["grade"] = grade(loss - Z95 * record["loss_se"])
        return record, values[chosen], diffs

    def _candidates(self, i, state, legal, chosen, mover) -> list:
        """Every move's estimate (the same rollouts for each): all in full when there are few, else
        a screen of every move, then the best few and the chosen in full; those screened out are None."""
        after = [_applied(state, a) for a in legal]
        after[chosen] = self.path[i + 1]
        if len(legal) <= SMALL:
            return [Estimate.of(*self._rolled(s, i + 1, range(self.n))) for s in after]
        screened = [self._rolled(s, i + 1, range(self.screen)) for s in after]
        order = sorted(range(len(legal)), key=lambda k: -screened[k][0][:, mover].mean())
        keep = set(order[:SCREEN_KEEP]) | {chosen}
        out = []
        for k, s in enumerate(after):
            if k not in keep:
                out.append(None)
                continue
            wins, first, known = self._rolled(s, i + 1, range(self.screen, self.n))
            out.append(Estimate.of(np.concatenate([screened[k][0], wins]), screened[k][1] + first, known))
        return out


# -- the whole review -----------------------------------------------------------------------------
_JOB: Reviewer | None = None


def _start_worker(reviewer: Reviewer) -> None:
    global _JOB
    _JOB = reviewer


def _run_step(i: int):
    return _JOB.step(i)


def review(reviewer: Reviewer, workers: int = 1, progress=None) -> dict:
    """Every step of the game reviewed (in `workers` processes: the same figures for any number),
    `progress(n)` told of each step done; the JSON-able review (the module's docstring) without
    the game's header fields, which the caller adds."""
    started = time.perf_counter()
    steps = range(len(reviewer.history))
    done = [(None, reviewer.value(0), None)]
    if workers > 1 and len(steps) > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers, initializer=_start_worker, initargs=(reviewer,)) as pool:
            for out in pool.map(_run_step, steps, chunksize=4):
                done.append(out)
                if progress:
                    progress(1)
    else:
        for i in steps:
            done.append(reviewer.step(i))
            if progress:
                progress(1)
    return assemble(reviewer, [d[0] for d in done[1:]], [d[1] for d in done], [d[2] for d in done[1:]],
                    time.perf_counter() - started)


def _total(parts: list, n: int) -> tuple[float, float]:
    """(the sum, its standard error) of terms each given per rollout (an array of n) or exactly (a
    number): the error from the spread of the per-rollout sums."""
    per = np.zeros(1)
    for part in parts:
        per = per + part
    n = len(per) if n else 0
    return float(per.mean()), (float(_se(per[:, None])[0]) if n else 0.0)


def assemble(reviewer: Reviewer, records: list[dict], estimates: list[Estimate], diffs: list, seconds: float) -> dict:
    """The review from each step's figures, each path position's estimate and each graded
    rollout-reviewed decision's per-rollout losses."""
    exact = reviewer.solved is not None
    n = 0 if exact else reviewer.n
    W = [e.values if exact else e.wins for e in estimates]          # per rollout (or exact) results
    swings: dict[int, np.ndarray] = {}
    for i, record in enumerate(records):
        before, after = estimates[i], estimates[i + 1]
        record["before"] = before.values.tolist()
        record["after"] = after.values.tolist()
        if not exact:
            record["before_ci95"], record["after_ci95"] = before.ci95(), after.ci95()
        if record["kind"] == "chance":
            if "expected" not in record:
                record["expected"] = before.values.tolist()
            record["luck"] = (after.values - np.asarray(record["expected"])).tolist()
            m = record["seat"]
            record["luck_se"] = 0.0 if exact else float(_se(W[i + 1][:, m:m + 1] - W[i][:, m:m + 1])[0])
            weights = None if exact else reviewer.swing_weights(i, before)
            if weights is not None:
                swings[i] = weights
                record["swing"], record["swing_se"] = weights.mean(axis=0).tolist(), _se(weights).tolist()
        else:
            record["delta"] = (after.values - before.values).tolist()
    result = {"method": "exact" if exact else "rollouts",
              "start": estimates[0].values.tolist(), "start_ci95": estimates[0].ci95(),
              "end": estimates[-1].values.tolist(), "finished": bool(reviewer.path[-1].is_terminal()),
              "steps": records, "seconds": round(seconds, 3)}
    result["players"] = [_player(records, W, diffs, swings, s, n) for s in range(reviewer.players)]
    if not exact:
        result["rollouts"] = {"n": reviewer.n, "screen": reviewer.screen, "keep": SCREEN_KEEP, "small": SMALL,
                              "capped": sum(r.get("capped", 0) for r in records)}
    return result


def _player(records, W, diffs, swings, s: int, n: int) -> dict:
    """Seat s's figures: accuracy, grades, cost, luck, gadgets and its balance, each sum with its
    standard error where estimated (`W`: each path position's results, per rollout where `n`)."""
    def change(r):
        i = r["index"]
        return W[i + 1][:, s] - W[i][:, s] if n else W[i + 1][s] - W[i][s]

    chosen = [r for r in records if r["kind"] == "decision" and r["seat"] == s and not r["forced"]]
    graded = [r for r in chosen if r["grade"] is not None]
    chances = [r for r in records if r["kind"] == "chance"]
    decisions = [r for r in records if r["kind"] == "decision"]
    luck, luck_se = _total([change(r) if n else r["luck"][s] for r in chances], n)
    own, own_se = _total([change(r) for r in decisions if r["seat"] == s], n)
    others, others_se = _total([change(r) for r in decisions if r["seat"] != s], n)
    cost, cost_se = _total([diffs[r["index"]] if n else r["loss"] for r in chosen], n)
    gadget_parts = [swings[r["index"]][:, s] if n else r["swing"][s] for r in chances
                    if "swing" in r and (not n or r["index"] in swings)]
    gadgets, gadgets_se = _total(gadget_parts, n)
    start, end = (W[0][:, s].mean(), W[-1][:, s].mean()) if n else (W[0][s], W[-1][s])
    out = {"seat": s, "decisions": len(chosen), "graded": len(graded),
           "forced": sum(1 for r in decisions if r["seat"] == s and r["forced"]),
           "accuracy": float(np.mean([r["accuracy"] for r in graded])) if graded else None,
           "grades": {name: sum(1 for r in graded if r["grade"] == name) for name, _ in GRADES},
           "cost": cost, "cost_se": cost_se, "luck": luck, "luck_se": luck_se,
           "own_luck": float(sum(r["luck"][s] for r in chances if r["seat"] == s)),
           "chance_events": sum(1 for r in chances if r["seat"] == s),
           "gadgets": gadgets if gadget_parts else None, "gadgets_se": gadgets_se if gadget_parts else None,
           "own_decisions": own, "own_decisions_se": own_se, "others_decisions": others,
           "others_decisions_se": others_se, "start": float(start), "end": float(end)}
    out["residual"] = float(end - start - luck - own - others)
    return out


# -- the printed review -----------------------------------------------------------------------------
def _pct(v: float, sign: bool = False) -> str:
    return f"{100 * v:+.1f}%" if sign else f"{100 * v:.1f}%"


def _pm(se: float) -> str:
    return f" ±{100 * Z95 * se:.1f}" if se else ""


def report_lines(result: dict, key_moves: int = 5) -> list[str]:
    """The review as the command prints it: a header, a line per player, the costliest decisions,
    the luckiest and unluckiest chance events, and each seat's balance."""
    colours = result["colours"]
    exact = result["method"] == "exact"
    seats = ", ".join(f"{c}={k}" for c, k in zip(colours, result["seats"]))
    lines = [f"review of {result['file']}: {result['title']}, seats {seats}, seed {result['seed']}",
             f"result: {result['outcome']}" + ("" if result["finished"] else " (the recording stops before the end)"),
             f"win probabilities: {result['method_note']}",
             f"grades {GRADES_DOC}", ""]
    start = "  ".join(f"{c} {_pct(v)}" for c, v in zip(colours, result["start"]))
    lines.append(f"at the start: {start}")
    rows = [("seat", "acc.", "best", "good", "inacc.", "mistake", "blunder", "forced", "cost", "luck", "gadgets",
             "start", "end")]
    for p in result["players"]:
        g = p["grades"]
        sums = [_pct(p[k], k != "cost") + ("" if exact or p[f"{k}_se"] is None else _pm(p[f"{k}_se"]))
                if p[k] is not None else "-" for k in ("cost", "luck", "gadgets")]
        rows.append((colours[p["seat"]], f"{p['accuracy']:.1f}" if p["accuracy"] is not None else "-",
                     *(str(g[name]) for name, _ in GRADES), str(p["forced"]), *sums, _pct(p["start"]),
                     _pct(p["end"])))
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    for row in rows:
        lines.append("  ".join(cell.ljust(w) if c == 0 else cell.rjust(w) for c, (cell, w) in
                               enumerate(zip(row, widths))).rstrip())
    steps = result["steps"]
    costly = sorted((r for r in steps if r["kind"] == "decision" and not r["forced"] and r["loss"] > GRADES[0][1]
                     and r["grade"] not in (None, "best")), key=lambda r: -r["loss"])[:key_moves]
    ungraded = not exact and all(r.get("grade") is None for r in steps if r["kind"] == "decision")
    if ungraded:
        lines += ["", f"decisions are not graded: {2 * MIN_MEASURED} rollouts a position or more grade them"]
    elif not costly and not exact:
        lines += ["", "the costliest decisions: none that the rollouts tell from the best move (more rollouts "
                      "narrow the intervals)"]
    if costly:
        lines += ["", "the costliest decisions:"]
        for r in costly:
            c = colours[r["seat"]]
            did = "; ".join(r["lines"]) or r["action"]
            best = "; ".join(r["best_lines"]) or r["best"]
            lines.append(f"  turn {r['turn']} {c} ({r['grade']}, loss {_pct(r['loss'])}{_pm(r['loss_se'])}): {did}")
            lines.append(f"      best: {best} ({c} {_pct(r['chosen_value'])} -> {_pct(r['best_value'])})")
    chances = [r for r in steps if r["kind"] == "chance"]
    for title, pick in (("the luckiest chance events", lambda r: -r["luck"][r["seat"]]),
                        ("the unluckiest chance events", lambda r: r["luck"][r["seat"]])):
        top = [r for r in sorted(chances, key=pick)[:3] if abs(r["luck"][r["seat"]]) > 1e-9]
        if not top:
            continue
        lines += ["", f"{title} (luck for the one it happened to):"]
        for r in top:
            m = r["seat"]
            what = "; ".join(r["lines"]) or f"{r['event']} {r['outcome']}"
            swing = (f", the gadget's bias {_pct(r['swing'][m], True)}{_pm(r['swing_se'][m])}"
                     if r.get("swing") is not None else "")
            lines.append(f"  turn {r['turn']} {r['event']} for {colours[m]}: {what}")
            lines.append(f"      luck {_pct(r['luck'][m], True)}{_pm(r['luck_se'])} (expected {_pct(r['expected'][m])}, "
                         f"after {_pct(r['after'][m])}){swing}")
    lines += ["", "balance (end less start = luck + own decisions + the others' decisions):"]
    for p in result["players"]:
        lines.append(f"  {colours[p['seat']]:8s} {_pct(p['end'])} - {_pct(p['start'])} = luck {_pct(p['luck'], True)} "
                     f"+ own {_pct(p['own_decisions'], True)} + others' {_pct(p['others_decisions'], True)}"
                     f" (residual {p['residual']:.1e})")
    if not exact:
        r = result["rollouts"]
        lines.append(f"rollouts: {r['n']} per position ({r['screen']} per move to screen a decision of more than "
                     f"{r['small']} moves), ± is the 95% interval; {result['seconds']:.1f} s")
    else:
        lines.append(f"reviewed in {result['seconds']:.1f} s")
    return lines


__all__ = ["ACCURACY_DOC", "GRADES", "GRADES_DOC", "LUCK_DOC", "Estimate", "Reviewer", "Rollouts", "accuracy",
           "grade", "report_lines", "review"]
