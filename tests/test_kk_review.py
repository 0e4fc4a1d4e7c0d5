"""A King Kong review (issue 36): a decision judged on what its seat could know, its loss never below
0 and measured apart from the rollouts that picked its challenger, its progress told with the time
left.

What must hold: the deal a rollout starts from agrees with everything the seat knows (its mirror)
and depends on nothing else; two recordings that differ only in the order of the cards the seat
had not seen give the same review of its decision; every loss is >= 0 inside its interval, the
interval no wider than asked unless the cap stopped it, and a player's cost is the sum of its
graded losses; the challenger is measured on rollouts that neither screened nor selected it; the
review tells its progress at every tenth with the time left; the seats' per-position memo changes
no choice.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop.app.games import play
from tabletop.app.requests import PlayRequest, ReviewRequest
from tabletop.app.review import review, review_source
from tabletop.gamekit import review as rv
from tabletop.gamekit.record import decode_action
from tabletop.gamekit.state import ChanceOutcome
from tabletop.gamekit.registry import GAMES
from tabletop.sim.record import ReplayFile

KK = GAMES["king-kong"]


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """A King Kong game recorded headless (plan against ai, the measured tables): (path, Game, history)."""
    path = tmp_path_factory.mktemp("kk") / "kong.ttr"
    play(PlayRequest("king-kong", seats=("plan", "ai"), seed=3, outcomes="measured", record=path))
    file = ReplayFile.open(path)
    history = [decode_action(KK, a) for turn in file.turns for a in turn.actions]
    return path, KK.make_game(file.header["config"]), history


def _positions(game, history):
    state = game.new_initial_state()
    for action in history:
        yield state
        state.apply(action)


def _unseen(state, seat):
    others = [c for p in range(state.game.players) if p != seat for c in state.hands[p]]
    return sorted(others + list(state.draw))


def test_a_deal_agrees_with_all_the_seat_knows_and_nothing_else(game):
    """At every decision: the deal keeps the seat's mirror (its hand, the table, the hands' and the
    pile's sizes) and the unseen cards; the same Generator gives the same deal, whatever order the
    unseen cards lay in; the rules play on from it; with every hand open only the pile is dealt."""
    _, g, history = game
    checked = 0
    for state in _positions(g, history):
        if state.chance_event is not None or state.is_terminal():
            continue
        seat = state.current
        deal = KK.redealer(state, (seat,))
        if deal is None:
            continue
        a = deal(np.random.default_rng(5))
        assert _unseen(a, seat) == _unseen(state, seat)
        if not [q for q in state.pending_nets if q != seat]:        # (a net to come is dealt as the rules would)
            assert KK.seat_mirror(a, seat) == KK.seat_mirror(state, seat)
        # the unseen cards in another order: the same deal
        shuffled = state.fork()
        cards = _unseen(state, seat)
        np.random.default_rng(checked).shuffle(cards)
        for p in range(g.players):
            if p != seat:
                shuffled.hands[p], cards = cards[:len(state.hands[p])], cards[len(state.hands[p]):]
        shuffled.draw = cards
        b = KK.redealer(shuffled, (seat,))(np.random.default_rng(5))
        assert (a.hands, a.draw) == (b.hands, b.draw)
        assert (a.hands, a.draw) != (deal(np.random.default_rng(6)).hands, deal(np.random.default_rng(6)).draw) \
            or len(cards) < 2
        # every hand open: only the draw pile dealt
        open_deal = KK.redealer(state, range(g.players))
        if open_deal is not None:
            c = open_deal(np.random.default_rng(5))
            assert c.hands == state.hands and sorted(c.draw) == sorted(state.draw)
        # the rules play on from the deal
        s, rng = a.fork(), np.random.default_rng(checked)
        source = review_source(KK, {"outcomes": "measured"})[0]
        for _ in range(60):
            if s.is_terminal():
                break
            if s.chance_event is not None:
                s.apply(ChanceOutcome(source.outcome(s.chance_event, s, rng)))
            else:
                legal = s.legal_actions()
                s.apply(legal[int(rng.integers(len(legal)))])
        checked += 1
    assert checked > 20


def _reviewer(g, history, seed=0, n=8, precision=0.25):
    source, _ = review_source(KK, {"outcomes": "measured"})
    seats = [KK.make_seat("plan", source, {}) for _ in range(2)]
    return rv.Reviewer(KK, g, history, source, None, None, rv.Rollouts(seats, source, seed, KK.max_turns,
                                                                       KK.chance_events), n, precision)


def _first_judged(g, history, seat, most=4):
    """The index of `seat`'s first decision of two to `most` moves in round 1 (no card drawn yet)."""
    for i, state in enumerate(_positions(g, history)):
        if state.round > 1:
            break
        if state.chance_event is None and state.current == seat and 2 <= len(state.legal_actions()) <= most:
            return i
    pytest.skip("no such decision in this game")


def _replays(g, history) -> bool:
    try:
        g.replay(history)
    except ValueError:
        return False
    return True


def test_a_decision_is_judged_on_what_its_seat_could_know(game):
    """Two recordings that differ only in the deck below the cards the mover had seen (the draw
    pile's order; then also a card of the other seat's hand swapped with one of the pile) give the
    same review of its decision: the same rollouts, the same figures, no card named that it could
    not know. (The review before this rolled out the recorded deck: its figures changed.)"""
    _, g, history = game
    shuffle = history[0]
    assert isinstance(shuffle, ChanceOutcome)
    deck = [int(c) for c in shuffle.label.split()]
    seat = 0
    i = _first_judged(g, history, seat)
    cut = history[:i + 1]
    dealt = 3 * g.players
    pile = deck[dealt:]
    variants = []
    rng = np.random.default_rng(1)
    order = list(pile)
    rng.shuffle(order)
    variants.append(deck[:dealt] + order)
    blue = [k for k in range(dealt) if k % g.players != seat]
    for k in blue:                       # a card of the other hand swapped with one of the pile, where legal
        for m in range(dealt, len(deck)):
            other = list(deck)
            other[k], other[m] = other[m], other[k]
            if _replays(g, [ChanceOutcome(" ".join(map(str, other)))] + cut[1:]):
                variants.append(other)
                break
        if len(variants) == 2:
            break
    base = _reviewer(g, cut).step(i)
    judged = ("best", "challenger", "challenger_diff", "loss", "loss_se", "loss_ci95", "best_value", "chosen_value",
              "measured", "grade", "best_lines", "rolled_out", "rollouts", "legal", "action")
    assert base[0]["kind"] == "decision" and base[0]["seat"] == seat
    for k, variant in enumerate(variants):
        other = [ChanceOutcome(" ".join(map(str, variant)))] + cut[1:]
        again = _reviewer(g, other).step(i)
        assert {f: again[0][f] for f in judged} == {f: base[0][f] for f in judged}, f"variant {k}"
        if k == 0:                     # the hands are the same: so is the path's value (the deck is unknown)
            assert np.array_equal(again[1].wins, base[1].wins)


def test_an_alternative_names_no_card_it_would_have_drawn(game):
    """A move not played is shown as every seat may read it: its draws say how many cards, never
    which (the recorded deck's next cards, which nobody knew)."""
    _, g, history = game
    names = {str(card) for card in g.deck}
    shown = 0
    for state in _positions(g, history):
        if state.chance_event is not None or state.phase != "discard":
            continue
        for action in state.legal_actions():
            for line in rv._lines(state, action):
                if " draws " in line:
                    shown += 1
                    assert not any(name in line for name in names), line
    assert shown


def test_losses_are_never_below_zero_and_the_cost_is_their_sum(game):
    """Every graded loss lies in its interval, at or above 0, the interval +-precision or narrower
    unless the cap stopped it; the chosen move is the best found wherever the loss is 0; each
    player's cost is the sum of its graded losses (>= 0), and the sums balance."""
    _, g, history = game
    reviewer = _reviewer(g, history[:36])
    result = rv.review(reviewer)
    graded = [r for r in result["steps"] if r["kind"] == "decision" and r.get("grade") is not None]
    assert graded
    for r in graded:
        low, high = r["loss_ci95"]
        assert 0.0 <= low <= r["loss"] <= high + 1e-12 or (r["loss"] == 0.0 and low == 0.0)
        assert (high - low) / 2 <= 0.25 + 1e-9 or r["measured"] >= result["rollouts"]["cap"]
        assert (r["loss"] == 0.0) == (r["best"] == r["action"])
        assert r["grade"] == rv.grade(low)
    for p in result["players"]:
        mine = [r["loss"] for r in graded if r["seat"] == p["seat"]]
        assert p["cost"] == pytest.approx(sum(mine), abs=1e-12) and p["cost"] >= 0
        assert abs(p["residual"]) < 1e-9
    assert result["rollouts"]["loss_halfwidth_max"] <= 0.25 + 1e-9 or \
        any(r["measured"] >= result["rollouts"]["cap"] for r in graded)


def test_the_challenger_is_measured_apart_from_the_rollouts_that_picked_it(game):
    """The rollouts that measure the loss (the challenger's and the chosen move's) are neither the
    screen's nor the selection's: a move picked for its lucky screen cannot carry its luck into
    its loss (the -156% cost)."""
    _, g, history = game
    reviewer = _reviewer(g, history)
    i = next(k for k, s in enumerate(reviewer.path[:-1]) if s.chance_event is None and len(s.legal_actions()) > 8)
    calls = []
    run = reviewer.rollouts.run

    def spy(state, counts, seeds, deal=None, action=None, key=(), trace=None):
        calls.append((str(action), list(seeds)) if action is not None else ("None", list(seeds)))
        return run(state, counts, seeds, deal, action, key, trace)

    reviewer.rollouts.run = spy
    record = reviewer.step(i)[0]
    judging = [(action, seeds) for action, seeds in calls if action != "None"]      # (not the path's value)
    measuring = [(action, seeds) for action, seeds in judging if min(seeds) >= reviewer.select]
    picking = [(action, seeds) for action, seeds in judging if min(seeds) < reviewer.select]
    assert picking and all(max(seeds) < reviewer.select for _, seeds in picking)
    assert record["action"] not in {action for action, _ in picking}
    assert {action for action, _ in measuring} == {record["challenger"], record["action"]}
    for move in (record["challenger"], record["action"]):
        seeds = [j for action, part in measuring if action == move for j in part]
        assert seeds == list(range(reviewer.select, reviewer.select + record["measured"]))


def test_a_rollout_that_went_the_way_of_the_game_is_taken_over(game, monkeypatch):
    """A path rollout whose first step was the game's is the next position's rollout: taken over,
    the review is the same as with every position rolled out afresh, with fewer games played."""
    _, g, history = game

    def once(chunk):
        monkeypatch.setattr(rv, "CHUNK", chunk)
        reviewer = _reviewer(g, history[:18], n=6, precision=0.4)
        result = rv.review(reviewer)
        result.pop("seconds")
        played = result["rollouts"].pop("played")
        for r in result["steps"] + [result["rollouts"]]:
            r.pop("rollouts", None), r.pop("capped", None)
        return result, played

    (fresh, everything), (taken, fewer) = once(1), once(30)
    assert json.dumps(fresh, sort_keys=True) == json.dumps(taken, sort_keys=True)
    assert fewer < everything


@pytest.fixture
def quick(monkeypatch):
    """A review's decisions measured on few rollouts (the figures do not matter here)."""
    for name, value in (("MIN_MEASURED", 4), ("MEASURE_CAP", 1), ("SCREEN", 1), ("SELECT", 2)):
        monkeypatch.setattr(rv, name, value)


def test_progress_is_told_with_the_time_left(game, capsys, quick):
    """A line as the review starts, then one at every tenth of the work with the time spent and the
    time left (on stderr: the terminal hears it even where no bar shows), and the listener told of
    every step up to all of it."""
    from tabletop.app.console import ConsoleReporter

    path, _, _ = game
    heard = []
    review(ReviewRequest(path, rollouts=4, precision=0.5, workers=1), ConsoleReporter(),
           lambda fraction, text: heard.append((fraction, text)))
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.startswith("reviewing")]
    assert lines[0].startswith("reviewing kong.ttr: ") and "decisions to judge" in lines[0] and "worker" in lines[0]
    told = [line for line in lines if "% done" in line]
    assert 5 <= len(told) <= 10 and all("left" in line for line in told)
    fractions = [f for f, _ in heard]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert all("% done" in text for _, text in heard)


def test_the_progress_estimate():
    """The time left is the time spent scaled by the work left; a line at each tenth, none twice."""
    from tabletop.app.longrun import Bar, Reporter
    from tabletop.app.review import Progress

    class Lines(Reporter):
        def __init__(self):
            self.lines = []

        def step(self, text):
            self.lines.append(text)

    now = [0.0]
    lines = Lines()
    progress = Progress(lines, Bar(), 10, clock=lambda: now[0])
    for k in range(20):
        now[0] += 6.0
        progress(0.05)
    assert lines.lines[0] == "reviewing: 10% done in 12 s, about 1 min 48 s left"
    assert len(lines.lines) == 9 and lines.lines[-1].startswith("reviewing: 90% done in 1 min 48 s")


def test_the_seats_memo_changes_no_choice(game):
    """The heuristic and plan seats work out a position's attack spaces once for all its moves: the
    scores are those worked out afresh for each move."""
    from tabletop.games.king_kong.ai import HeuristicSeat, PlannerSeat

    _, g, history = game
    for seat in (HeuristicSeat(), PlannerSeat()):
        for state in _positions(g, history):
            if state.chance_event is not None or len(state.legal_actions()) < 2:
                continue
            legal = state.legal_actions()
            fresh = [seat.score(state, a) for a in legal]
            seat._memo = {}
            try:
                memo = [seat.score(state, a) for a in legal]
            finally:
                seat._memo = None
            assert memo == fresh


@pytest.mark.slow
def test_workers_give_the_same_king_kong_review(game, quick):
    """The review with the decisions' deals and measurements is the same on one worker and on two."""
    path, _, _ = game
    one = review(ReviewRequest(path, rollouts=4, precision=0.3, workers=1, seed=2)).to_dict()
    two = review(ReviewRequest(path, rollouts=4, precision=0.3, workers=2, seed=2)).to_dict()
    for data in (one, two):
        data.pop("seconds"), data.pop("workers")
    assert json.dumps(one, sort_keys=True) == json.dumps(two, sort_keys=True)


def test_a_review_of_a_game_not_over_shows_no_hidden_card_and_of_a_finished_one_every_line(game):
    """As its replay does: a review of a recording that stops before the end shows each line as
    every seat may read it (the deal, the draws: how many cards, never which); a finished game's
    review shows its lines whole."""
    from tabletop.gamekit.state import SeatLine

    _, g, history = game
    unfinished = _reviewer(g, history[:36])
    state = g.new_initial_state()
    hidden = []
    for action in history[:36]:
        seen = len(state.events)
        state.apply(action)
        hidden += [str(line) for line in state.events[seen:] if isinstance(line, SeatLine)]
    assert hidden
    shown = [line for lines in unfinished.lines for line in lines]
    assert not set(hidden) & set(shown) and any("card" in line for line in shown)
    finished = _reviewer(g, history)
    assert set(hidden) <= {line for lines in finished.lines for line in lines}
