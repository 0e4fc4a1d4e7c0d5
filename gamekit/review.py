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
the chance tables) in every chair, chance drawn from the table; V_s is the share seat s won, shown with
its 95% Wilson interval. Common random numbers: rollout j of every path position draws the game's
chance event k, counted from the game's start, from one generator, SeedSequence(seed, spawn_key=(j, 1))
advanced by k x 2^64, and the seats' decision k likewise from (j, 0). Rollout j from S_i and rollout j
from S_i+1 therefore meet the same dice, and where the first drew the outcome (or made the move) the
game made, they are the same game: the differences that luck and deltas are, are measured far more
finely than the values, and every sum's interval comes from the spread of its per-rollout sums. A
review does not depend on the number of workers.

Hidden information (a game whose `GameDefinition.redealer` deals what a viewer has not seen: King
Kong's hands and draw pile). A rollout never reads what nobody could know: the path positions are
valued with every hand open and the piles dealt afresh for each rollout j (from SeedSequence(seed,
spawn_key=(j, 2)): the review is made after the game, and shows each seat's chances as one who sees
every hand but not the deck would judge them); a decision is judged on what its seat could know: its
moves' rollouts deal afresh what that seat had not seen (the others' hands and the draw pile), the
same deal for every move of rollout j, never the recorded order of the cards.

The table: the chance tables the game was played with (the replay's config's, where it was played
from tables), else the published measured tables of the game's devices (a game whose chance was
physics: the measured table is what the simulated gadget gives).

A decision at S_i by mover m with legal moves A (a single legal move is *forced*, not graded):
    value of a move a      V_m(S_i + a)
    best                   the move with the highest value (exact), or the best found (rollouts).
                           A rollout review judges a decision by its own rollouts, apart from the
                           path's (rollout j of decision i from SeedSequence(seed, spawn_key=(j, part,
                           i + 1)): every move of rollout j meets the same deal and the same dice, and
                           decisions are independent of one another), in three stages on separate
                           rollouts, so that no figure is measured on the rollouts that picked it:
                           screen (a decision of more than four moves): every move SCREEN rollouts,
                             the SCREEN_KEEP best alternatives to the chosen move kept, and the
                             move the rollout seat would play (so few rollouts tell many moves
                             apart by luck alone);
                           select: those kept SELECT rollouts (the screen's included) and the best
                             of them is the challenger (the only alternative of a two-way decision
                             needs none);
                           measure: the challenger and the chosen move on further rollouts, in
                             batches of BATCH from MIN_MEASURED on, until the loss's 95% interval
                             (below) is +-precision or narrower (the default 0.10), or MEASURE_CAP N
                             rollouts are spent. Adaptive stopping: a chosen move that measures
                             clearly better than its challenger stops at once (its loss is 0, its
                             interval [0, 0]), and so does a decided position, where both moves end
                             the same game.
                           The best found is the challenger where it measured better (the low end
                           of the difference's 95% interval above 0), else the chosen move. (Before,
                           the best was picked on rollouts that had screened it, the screen's
                           luckiest moves: measured apart they came out far below the chosen move,
                           and such negative losses summed to a cost of -156%.)
    loss                   V_m(S_i + best) - V_m(S_i + chosen), >= 0: with rollouts the measured
                           difference where the challenger is the best found, else 0; its 95%
                           interval is the difference's, cut at 0 (a move not told apart from its
                           challenger: [0, the high end])
    grade                  by the loss (estimated: by the low end of its 95% interval, so that a
                           grade says at least this bad, never noise): best (<= 1e-9: a move as
                           good as the best), good (< 0.02), inaccuracy (< 0.04), mistake
                           (< 0.08), blunder (>= 0.08); a decision measured on fewer than
                           MIN_GRADED rollouts is not graded. GNU Backgammon calls a move doubtful,
                           bad and very bad from an equity loss of 0.04, 0.08 and 0.16; in a game
                           without gammons the equity is 2 V - 1, so these are its thresholds in
                           win probability, with "good" below the first
    delta                  V_s(S_i+1) - V_s(S_i) for each seat: exactly -loss for the mover where V
                           is exact (a decision node's value is its best move's); with rollouts the
                           path's values, so the delta is the move against the rollout seat's play
                           (and, where it drew cards, the luck of the draw), the loss against the
                           best found
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
    cost                   the sum of its graded decisions' losses: what its mistakes cost (with
                           rollouts, its interval from the decisions' own intervals, independent
                           of one another: each decision's own rollouts)
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
import pickle
import time
import zlib
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
SMALL = 4                # a decision with at most this many moves is not screened: every alternative is kept
SCREEN = 2               # a rollout review's decisions: rollouts of every move to screen a decision of more
SCREEN_KEEP = 3          # than SMALL moves, and the alternatives kept (and the rollout seat's own move)
SELECT = 16              # rollouts (the screen's included) of each kept alternative that pick the challenger
BATCH = 8                # the challenger and the chosen move are measured in batches of this many rollouts
MIN_MEASURED = 16        # at least this many
MIN_GRADED = 8           # a decision measured on fewer rollouts is not graded
PRECISION = 0.10         # the default: measured until the loss's 95% interval is +-0.10 or narrower
MEASURE_CAP = 8          # ... or until MEASURE_CAP x N rollouts are spent
TRACE = 16               # the steps of a path rollout kept, for the next positions to take it over
CHUNK = 8                # a review's steps go to its workers in runs of this many (each run takes over
                         # rollouts from one position to the next; the same runs for any number of workers)


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
        self.trace: list | None = None         # its rollouts' first steps (Rollouts.run), while at hand

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
    """Whole games played from a position by `seats` (one per chair), chance from `source`. Every
    random draw of rollout j is keyed by where it falls in the game, not by how many came before it:
    the chance event that is the c-th `event` of turn t draws from the generator of
    SeedSequence(seed, spawn_key=(j, 1) + key) advanced by index(t, event, c) x 2^64, the c-th decision
    of seat p in turn t from (j, 0) + key at index(t, p, c), and the deal of what is hidden (a `deal`:
    GameDefinition.redealer) from (j, 2) + key. Rollout j of every position of one key therefore meets
    the same dice and the same deal, and two moves of a decision meet the same die for the same turn
    even where one took a card instead of a roll (the module's docstring; the path's key is (),
    decision i's (i + 1,)). A game past `max_turns` counts as won by nobody (`capped` counts them);
    `played` counts the rollouts run."""

    STREAM = 1 << 64
    PER_TURN = 1 << 10          # draws of one kind in one turn before their indices would repeat

    def __init__(self, seats, source, seed: int, max_turns: int, events=()):
        self.seats, self.source, self.seed, self.max_turns = seats, source, int(seed), max_turns
        self.events = {e: k for k, e in enumerate(events)}      # the game's chance events (its definition's)
        self.capped = self.played = 0
        self._bases: dict[tuple, tuple] = {}
        self._bits = np.random.PCG64()
        self._rng = np.random.Generator(self._bits)

    def _base(self, j: int, key: tuple) -> tuple:
        k = (key, j)
        if k not in self._bases:
            if len(self._bases) > 4096:
                self._bases.clear()
            self._bases[k] = tuple(np.random.PCG64(np.random.SeedSequence(self.seed, spawn_key=(j, p) + key)).state
                                   for p in (0, 1))
        return self._bases[k]

    def tag(self, state) -> tuple:
        """What keys the next draw of `state`: (turn, 1 + the event's number) for a chance event,
        (turn, -1 - the seat) for a decision."""
        event = state.chance_event
        if event is not None:
            slot = self.events.get(event)
            return state.turn, 1 + (slot if slot is not None and slot < 31 else 31 + zlib.crc32(event.encode()) % 32)
        return state.turn, -1 - int(state.current_player)

    def rng(self, j: int, tag: tuple, count: int, key: tuple = ()) -> np.random.Generator:
        """The generator of rollout j's draw number `count` of the kind `tag` (Rollouts.tag)."""
        turn, kind = tag
        part = 1 if kind > 0 else 0
        self._bits.state = self._base(j, key)[part]
        self._bits.advance(((turn * 64 + abs(kind)) * self.PER_TURN + count % self.PER_TURN) * self.STREAM)
        return self._rng

    def deal_rng(self, j: int, key: tuple = ()) -> np.random.Generator:
        """The generator of rollout j's deal of what is hidden."""
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence(self.seed, spawn_key=(j, 2) + key)))

    def run(self, state, counts: dict, seeds, deal=None, action=None, key: tuple = (),
            trace: list | None = None) -> tuple[np.ndarray, tuple]:
        """(wins (len(seeds), seats), the first chance outcome of each, None where the state is a
        decision node) of rollouts `seeds` from `state` (each from `deal(its generator)` where a deal
        is given), `counts` the draws of each tag (Rollouts.tag) already made in the state's turn;
        with `action`, that decision is taken first. With `trace`, each rollout's first TRACE steps
        are appended to it: (the position after each, as `fingerprint` writes it; the chance outcome
        each drew, None for a decision), so that the next position of the path, where the rollout
        went the way the game went, takes its result without playing it again (Reviewer.value)."""
        players = len(state.returns())
        wins = np.zeros((len(seeds), players))
        first = []
        for row, j in enumerate(seeds):
            s = deal(self.deal_rng(j, key)) if deal is not None else state.fork()
            made, drawn = dict(counts), None
            if action is not None:
                tag = self.tag(s)
                made[tag] = made.get(tag, 0) + 1
                s.apply(action)
            start = action is None and s.chance_event is not None
            steps: tuple[list, list] = ([], [])
            self.played += 1
            while not s.is_terminal():
                if s.turn > self.max_turns:
                    self.capped += 1
                    break
                tag = self.tag(s)
                count = made.get(tag, 0)
                made[tag] = count + 1
                rng = self.rng(j, tag, count, key)
                event = s.chance_event
                if event is not None:
                    label = self.source.outcome(event, s, rng)
                    if start:
                        drawn, start = label, False
                    s.apply(ChanceOutcome(label))
                else:
                    label = None
                    s.apply(self.seats[s.current_player].choose(s, rng))
                if trace is not None and len(steps[0]) < TRACE:
                    steps[0].append(fingerprint(s))
                    steps[1].append(label)
            if s.is_terminal():
                wins[row] = [r > 0 for r in s.returns()]
            first.append(drawn)
            if trace is not None:
                trace.append(steps)
        return wins, tuple(first)


_UNSEEN = ("game", "history", "events", "_offered")


def fingerprint(state) -> bytes | None:
    """The position as bytes (the game, the history and the log aside): equal for equal positions;
    None where it cannot be written (no rollout is then taken over)."""
    try:
        return pickle.dumps({k: v for k, v in vars(state).items() if k not in _UNSEEN}, protocol=5)
    except Exception:          # noqa: BLE001 (a state of a game whose parts do not pickle: no reuse)
        return None


def _lines(state, action) -> list[str]:
    """The log lines `action` adds to `state` (applied to a copy), as every seat may read them (an
    alternative's draws name no card: which cards it would have drawn nobody knew)."""
    from tabletop.gamekit.state import seen_by

    s = state.fork()
    s.apply(action)
    return [text for text in (seen_by(line, ()) for line in s.events) if text]


def _applied(state, action):
    s = state.fork()
    s.apply(ChanceOutcome(action) if isinstance(action, str) else action)
    return s


def _same_table(a: dict, b: dict) -> bool:
    ta, tb = sum(a.values()), sum(b.values())
    return set(a) == set(b) and all(abs(a[k] / ta - b[k] / tb) <= EQUAL for k in a)


def _interval(diffs: np.ndarray) -> tuple[float, float]:
    """(the mean, its standard error) of per-rollout differences."""
    return float(diffs.mean()), float(_se(diffs[:, None])[0])


class Reviewer:
    """The review of one recorded game: its path re-driven from `history`, each step's figures
    (`step(i)`), exact by `solved` (a function of a state to each seat's value) or by `rollouts`
    (a Rollouts, `n` a path position; a decision's loss measured until its 95% interval is
    +-`precision`, or on exactly `n` rollouts where `precision` is None)."""

    def __init__(self, definition, game, history, source, fair_source=None, solved=None, rollouts=None,
                 n: int = 0, precision: float | None = PRECISION):
        if solved is None and rollouts is None:
            raise InputError("a review needs a solved game's values or rollouts")
        self.definition, self.source, self.fair_source = definition, source, fair_source
        self.solved, self.rollouts, self.n, self.precision = solved, rollouts, n, precision
        self._prior: Estimate | None = None
        if rollouts is not None and not rollouts.events:
            rollouts.events = {e: k for k, e in enumerate(definition.chance_events)}
        self.screen, self.select = min(SCREEN, n), min(SELECT, max(n, SCREEN))
        self.cap = n if precision is None else max(MIN_MEASURED, MEASURE_CAP * n)
        state = game.new_initial_state()
        self.path = [state.fork()]
        self.lines: list[list[str]] = []
        self.counts = [{}]                # the draws of each kind made in the position's turn (Rollouts.tag)
        for k, action in enumerate(history):
            seen = len(state.events)
            tag = Rollouts.tag(rollouts, state) if rollouts is not None else (state.turn, 0)
            try:
                state.apply(action)
            except ValueError as exc:      # IllegalMoveError: a recording these rules do not play
                raise InputError(f"the recorded action {k + 1} ({action}) is illegal here: {exc}") from None
            self.lines.append(list(state.events[seen:]))
            self.path.append(state.fork())
            made = {k: v for k, v in self.counts[-1].items() if k[0] == tag[0]}
            made[tag] = made.get(tag, 0) + 1
            self.counts.append({k: v for k, v in made.items() if k[0] == state.turn})
        # a game not over shows each line as every seat may read it (no hand a seat hides), as its
        # replay does; a finished game's, whole
        from tabletop.gamekit.state import seen_by

        hide = not state.is_terminal()
        self.lines = [[text for text in ((seen_by(line, ()) if hide else str(line)) for line in lines) if text]
                      for lines in self.lines]
        self.history = list(history)
        self.players = len(state.returns())
        played, fair = table_dicts(source), table_dicts(fair_source) if fair_source is not None else {}
        self.gadgets = {e for e, t in fair.items() if e not in definition.private_chance
                        and e in played and not _same_table(t, played[e])}

    def work(self) -> list[float]:
        """Each step's share of the review's work, roughly (for progress and its time estimate): the
        rollouts it plans, each as long as the recorded game's steps still to come."""
        if self.solved is not None:
            return [1.0] * len(self.history)
        steps = len(self.history)
        out = []
        for i, state in enumerate(self.path[:-1]):
            planned = self.n
            if state.chance_event is None:
                moves = len(state.legal_actions())
                if moves > 1:
                    kept = min(moves - 1, SCREEN_KEEP)
                    planned += (moves * self.screen if moves > SMALL else 0) + kept * self.select \
                        + 3 * min(self.cap, 2 * MIN_MEASURED)
            out.append(planned * (steps - i + 8))
        return out

    def run(self, steps: range) -> list:
        """Steps `steps` (consecutive) in order, each taking over the rollouts of the position before
        it where it can: [(i, (record, estimate of S_i+1 without its traces, loss))]."""
        out, prior = [], None
        for i in steps:
            record, after, loss = self.step(i, prior)
            prior = after
            out.append((i, (record, after, loss)))
        for _, (_, after, _) in out:
            after.trace = None
        return out

    # -- values ---------------------------------------------------------------------------------
    def _deal(self, state, seats):
        """The deal of what a viewer holding `seats` has not seen in `state` (None: nothing hidden)."""
        if state.is_terminal():
            return None
        return self.definition.redealer(state, seats)

    def _rolled(self, state, i: int, seeds, deal=None, action=None, key: tuple = ()) -> tuple[np.ndarray, tuple, bool]:
        """Rollouts `seeds` of path position i `state` (each from `deal`, where one is given; with
        `action`, that decision taken first): (wins, first outcomes, whether the game is over: its
        result repeated)."""
        over = state if action is None else _applied(state, action)
        if over.is_terminal():
            return np.tile([float(r > 0) for r in over.returns()], (len(seeds), 1)), (None,) * len(seeds), True
        return *self.rollouts.run(state, self.counts[i], seeds, deal, action, key), False

    def value(self, i: int, prior: Estimate | None = None) -> Estimate:
        """Path position i's value, exactly or by its rollouts (every hand open, the piles dealt
        afresh in each). `prior`, the estimate of position i - 1 with its rollouts' traces: rollout
        j of position i - 1 that went the way the game went (its first step the recorded one, into
        the very position rollout j of position i deals) is rollout j of position i, taken over
        without playing it again (the same figures: only the work is saved)."""
        state = self.path[i]
        if self.solved is not None:
            if state.is_terminal():
                return Estimate([r > 0 for r in state.returns()])
            return Estimate(self.solved(state))
        deal = self._deal(state, range(self.players))
        if state.is_terminal():
            return Estimate.of(*self._rolled(state, i, range(self.n), deal))
        wins = np.zeros((self.n, self.players))
        first: list = [None] * self.n
        traces: list = [None] * self.n
        fresh = list(range(self.n))
        before = getattr(prior, "trace", None)
        if before is not None:
            fresh = []
            for j in range(self.n):
                fps, labels = before[j]
                here = fingerprint(deal(self.rollouts.deal_rng(j)) if deal is not None else state)
                if fps and here is not None and fps[0] == here:
                    wins[j] = prior.wins[j]
                    first[j] = labels[1] if state.chance_event is not None and len(labels) > 1 else None
                    traces[j] = (fps[1:], labels[1:])
                else:
                    fresh.append(j)
        if fresh:
            trace: list = []
            played, got = self.rollouts.run(state, self.counts[i], fresh, deal, None, (), trace)
            for row, j in enumerate(fresh):
                wins[j], first[j], traces[j] = played[row], got[row], trace[row]
        estimate = Estimate.of(wins, tuple(first))
        estimate.trace = traces
        return estimate

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
    def step(self, i: int, prior: Estimate | None = None) -> tuple[dict, Estimate, tuple | None]:
        """Step i (S_i to S_i+1): its figures but those that need the value of S_i (`assemble` adds
        them), the estimate of S_i+1 and, for a graded decision reviewed by rollouts, its loss and
        the loss's standard error; `prior` the estimate of S_i where it is at hand (its rollouts
        taken over: Reviewer.value)."""
        state, action = self.path[i], self.history[i]
        self._prior = prior
        capped = self.rollouts.capped if self.rollouts is not None else 0
        played = self.rollouts.played if self.rollouts is not None else 0
        if state.chance_event is not None:
            record, after, loss = *self._chance(i, state, action), None
        else:
            record, after, loss = self._decision(i, state, action)
        if self.rollouts is not None:
            record["capped"] = self.rollouts.capped - capped
            record["rollouts"] = self.rollouts.played - played
        return record, after, loss

    def _chance(self, i, state, action):
        after = self.value(i + 1, self._prior)
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
            return record, self.value(i + 1, self._prior), None
        chosen = next((k for k, a in enumerate(legal) if a == action), None)
        if chosen is None:
            raise InputError(f"the recorded action {i + 1} ({action}) is not among the legal moves")
        after = self.value(i + 1, self._prior)
        if self.solved is not None:
            values = [self.solved(_applied(state, a))[mover] for a in legal]
            values[chosen] = after.values[mover]
            best = max(range(len(legal)), key=lambda k: (values[k], k == chosen))
            loss = float(values[best] - values[chosen])
            record.update(best=str(legal[best]), best_value=float(values[best]), chosen_value=float(values[chosen]),
                          loss=loss, loss_se=0.0, accuracy=accuracy(loss), grade=grade(loss), rolled_out=None)
            judged = None
        else:
            fields, best = self._judge(i, state, legal, chosen, mover)
            record.update(fields)
            if record["measured"] < MIN_GRADED:
                record["grade"] = record["accuracy"] = None      # too few rollouts to tell
                judged = None
            else:
                record["grade"] = grade(record["loss_ci95"][0])
                judged = (record["loss"], (record["loss_ci95"][1] - record["loss_ci95"][0]) / (2 * Z95))
        record["best_lines"] = _lines(state, legal[best]) if best != chosen else self.lines[i]
        return record, after, judged

    def _seat_pick(self, state, legal, mover, deal, key) -> int | None:
        """The index of the move the rollout seat would play here (in rollout 0's deal): kept past
        the screen, whose few rollouts tell many moves apart by luck alone."""
        dealt = deal(self.rollouts.deal_rng(0, key)) if deal is not None else state.fork()
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(self.rollouts.seed, spawn_key=(0, 3) + key)))
        pick = self.rollouts.seats[mover].choose(dealt, rng)
        return next((k for k, a in enumerate(legal) if a == pick), None)

    def _judge(self, i, state, legal, chosen, mover) -> tuple[dict, int]:
        """A rollout review's decision (the module's docstring): screen, select a challenger, then
        measure it against the chosen move on rollouts of their own, all dealt from what the mover
        could know. (The record's fields of the judgement, the best move's index.)"""
        deal = self._deal(state, (mover,))
        key = (i + 1,)

        def rolled(k, seeds):
            return self._rolled(state, i, seeds, deal, legal[k], key)[0][:, mover]

        alternatives = [k for k in range(len(legal)) if k != chosen]
        results: dict[int, np.ndarray] = {}
        if len(alternatives) > 1:
            start = 0
            if len(legal) > SMALL:                  # the screen: every move, the best alternatives kept
                screened = {k: rolled(k, range(self.screen)) for k in alternatives}
                order = sorted(alternatives, key=lambda k: -screened[k].mean())
                own = self._seat_pick(state, legal, mover, deal, key)
                alternatives = order[:SCREEN_KEEP] + ([own] if own in order[SCREEN_KEEP:] else [])
                results = {k: screened[k] for k in alternatives}
                start = self.screen
            for k in alternatives:
                more = rolled(k, range(start, self.select))
                results[k] = np.concatenate([results.get(k, np.zeros(0)), more])
            challenger = max(alternatives, key=lambda k: results[k].mean())
            first = self.select
        else:
            challenger, first = alternatives[0], 0
        diffs, ours, theirs = np.zeros(0), np.zeros(0), np.zeros(0)
        size = self.cap if self.precision is None else MIN_MEASURED
        while True:
            seeds = range(first + len(diffs), first + min(self.cap, len(diffs) + size))
            a, b = rolled(challenger, seeds), rolled(chosen, seeds)
            theirs, ours = np.concatenate([theirs, a]), np.concatenate([ours, b])
            diffs = theirs - ours
            mean, se = _interval(diffs)
            low, high = max(mean - Z95 * se, 0.0), max(mean + Z95 * se, 0.0)       # the loss's interval
            if self.precision is None or len(diffs) >= self.cap or (high - low) / 2 <= self.precision:
                break
            size = BATCH
        best = challenger if low > 0 else chosen       # the challenger is the best found where it measured better
        loss = mean if best != chosen else 0.0
        return {"best": str(legal[best]), "challenger": str(legal[challenger]),
                "challenger_diff": mean, "loss": loss, "loss_se": se, "loss_ci95": [low, high],
                "best_value": float(theirs.mean() if best != chosen else ours.mean()),
                "chosen_value": float(ours.mean()),
                "accuracy": accuracy(loss), "measured": len(diffs),
                "rolled_out": len(alternatives) + 1}, best


# -- the whole review -----------------------------------------------------------------------------
_JOB: Reviewer | None = None


def _start_worker(reviewer: Reviewer) -> None:
    global _JOB
    _JOB = reviewer


def _run_chunk(steps: range) -> list:
    return _JOB.run(steps)


def review(reviewer: Reviewer, workers: int = 1, progress=None) -> dict:
    """Every step of the game reviewed (in `workers` processes: the same figures for any number),
    `progress(share)` told of each run of steps done with its share of the work (`Reviewer.work`,
    summing to 1); the JSON-able review (the module's docstring) without the game's header fields,
    which the caller adds."""
    started = time.perf_counter()
    steps = len(reviewer.history)
    work = reviewer.work()
    total = sum(work) or 1.0
    done: dict[int, tuple] = {}
    first = reviewer.value(0)
    chunks = [range(a, min(a + CHUNK, steps)) for a in range(0, steps, CHUNK)]

    def finished(outs) -> None:
        for i, out in outs:
            done[i] = out
        if progress:
            progress(sum(work[i] for i, _ in outs) / total)

    if workers > 1 and len(chunks) > 1:
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        with ProcessPoolExecutor(workers, initializer=_start_worker, initargs=(reviewer,)) as pool:
            pending = {pool.submit(_run_chunk, chunk) for chunk in chunks}    # the longest (the first) first
            while pending:
                complete, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in complete:
                    finished(future.result())
    else:
        for chunk in chunks:
            finished(reviewer.run(chunk))
    outs = [done[i] for i in range(steps)]
    return assemble(reviewer, [d[0] for d in outs], [first] + [d[1] for d in outs], [d[2] for d in outs],
                    time.perf_counter() - started)


def _total(parts: list, n: int) -> tuple[float, float]:
    """(the sum, its standard error) of terms each given per rollout (an array of n) or exactly (a
    number): the error from the spread of the per-rollout sums."""
    per = np.zeros(1)
    for part in parts:
        per = per + part
    n = len(per) if n else 0
    return float(per.mean()), (float(_se(per[:, None])[0]) if n else 0.0)


def assemble(reviewer: Reviewer, records: list[dict], estimates: list[Estimate], losses: list, seconds: float) -> dict:
    """The review from each step's figures, each path position's estimate and each graded
    rollout-reviewed decision's loss and its standard error."""
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
    result["players"] = [_player(records, W, losses, swings, s, n) for s in range(reviewer.players)]
    if not exact:
        measured = [r["measured"] for r in records if r.get("measured") is not None]
        widths = [(r["loss_ci95"][1] - r["loss_ci95"][0]) / 2 for r in records if r.get("measured") is not None]
        result["rollouts"] = {"n": reviewer.n, "screen": reviewer.screen, "keep": SCREEN_KEEP, "small": SMALL,
                              "select": reviewer.select, "precision": reviewer.precision, "cap": reviewer.cap,
                              "measured_mean": float(np.mean(measured)) if measured else None,
                              "loss_halfwidth_max": float(max(widths)) if widths else None,
                              "played": sum(r.get("rollouts", 0) for r in records) + estimates[0].n,
                              "capped": sum(r.get("capped", 0) for r in records)}
    return result


def _player(records, W, losses, swings, s: int, n: int) -> dict:
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
    if n:      # each decision's loss from its own rollouts, independent of the others'
        judged = [losses[r["index"]] for r in graded]
        cost = float(sum(loss for loss, _ in judged))
        cost_se = float(math.sqrt(sum(se * se for _, se in judged)))
    else:
        cost, cost_se = float(sum(r["loss"] for r in chosen)), 0.0
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


def _rollouts_line(r: dict) -> str:
    """What a rollout review's rollouts were: per position, per decision, the loss's intervals."""
    line = (f"rollouts: {r['n']} per position; a decision: {r['screen']} per move to screen one of more than "
            f"{r['small']} moves, {r.get('select', r['screen'])} to pick the challenger, ")
    if r.get("precision") is None:
        line += f"{r.get('cap', r['n'])} to measure its loss"
    else:
        line += f"then until its loss is ±{100 * r['precision']:.0f} points or at most {r['cap']} rollouts"
    if r.get("measured_mean") is not None:
        line += f" ({r['measured_mean']:.0f} on average, the widest ±{100 * r['loss_halfwidth_max']:.1f})"
    return line + "; ± is the 95% interval"


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
        lines += ["", f"decisions are not graded: a loss measured on {MIN_GRADED} rollouts or more grades them"]
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
        lines.append(_rollouts_line(r) + f"; {result['seconds']:.1f} s")
    else:
        lines.append(f"reviewed in {result['seconds']:.1f} s")
    return lines


__all__ = ["ACCURACY_DOC", "GRADES", "GRADES_DOC", "LUCK_DOC", "Estimate", "Reviewer", "Rollouts", "accuracy",
           "grade", "report_lines", "review"]
