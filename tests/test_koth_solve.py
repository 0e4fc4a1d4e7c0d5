"""King of the Hill with two players solved (games/king_of_the_hill/solve.py), checked against the
readable rules: the positions counted by combinatorics, the vectorised successors against the rules'
legal moves and crater outcomes from thousands of positions, the values against an independent
value iteration over a graph the rules drive (on a smaller hill), every value the best of what the
rules' actions lead to, and the `solved` seat's play. The whole hill's solve takes minutes: those
tests are `long`."""
from __future__ import annotations

from math import comb, factorial, perm

import numpy as np
import pytest

from tabletop.gamekit.chance import TableOutcomes
from tabletop.gamekit.match import Match
from tabletop.gamekit.seats import RandomSeat
from tabletop.games.king_of_the_hill import solve as S
from tabletop.games.king_of_the_hill.ai import SolvedSeat, make_seat
from tabletop.games.king_of_the_hill.board import CRATER_LABELS, Board
from tabletop.games.king_of_the_hill.rules import DRAWER, TIPPER_LABELS, ChanceOutcome, Game, Move, Pass, Phase
from tabletop.sim.errors import InputError

# A small hill: 10 path spaces, 3 Zone seats, edge spaces 4, 8, 9, caves under 1-3 and 5-7.
SMALL = Board(10, 3, {"edge1": 4, "edge2": 8, "edge3": 9},
              {"cave1/seat1": 6, "cave1/seat2": 1, "cave2/seat1": 7, "cave2/seat2": 2, "cave3/seat1": 5,
               "cave3/seat2": 3})
SKEWED = {"tipper": dict(zip(TIPPER_LABELS, (0.3, 0.2, 0.15, 0.1, 0.1, 0.1, 0.05))),
          "crater": dict(zip(CRATER_LABELS, (0.1, 0.3, 0.2, 0.1, 0.15, 0.15)))}


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch, request):
    if "long" not in request.keywords:            # the whole hill's solve is kept where it is
        monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path / "cache"))


def _placements(places: int = 72) -> int:
    """Two players' marbles on distinct places out of the drawer (`places` of them), each player's
    two alike: the sum over a, b marbles out of the drawer of places!/(places - a - b)! / (a! b!)."""
    return sum(perm(places, a + b) // factorial(a) // factorial(b) for a in (0, 1, 2) for b in (0, 1, 2))


def test_the_positions_are_counted():
    """73 places a marble (the drawer, 67 path spaces, 5 Zone seats), a player's two alike (pairs
    sorted; two marbles share only the drawer): 1 + 72 + C(72, 2) = 2,629 pairs, less the 10 with
    both in the Zone (won): 2,619. Both players' pairs with no shared place: 6,540,949 placements
    less those where a player has both in the Zone (10 x 2,486 each, 30 both): 6,491,259."""
    lay = S.layout()
    assert lay.NP == 1 + 72 + comb(72, 2) - comb(5, 2) == 2619
    keys, P = S.positions(lay)
    other = 1 + 70 + comb(70, 2)        # the other's pairs beside two taken Zone seats
    assert _placements() == 6_540_949
    assert len(keys) == _placements() - 2 * comb(5, 2) * other + comb(5, 2) * comb(3, 2) == 6_491_259
    assert (np.diff(keys) > 0).all()          # distinct (ascending)
    assert ((P >= -1) & (P < 72)).all()


def _rules_view(game: Game, lay, mover, other, label: str) -> dict:
    """What the rules make of a tilt of `label` at (mover, other): {(slot, distance): the next
    position's dense key, "win", or the keys after each crater seat}, or {"pass": key}."""
    out = {}
    s = S.state_of(game, mover, other, 0)
    s.apply(ChanceOutcome(label))
    for a in s.legal_actions():
        t = s.clone()
        if isinstance(a, Pass):
            t.apply(a)
            out["pass"] = S.dense_key(lay, *S.key_parts(t))
            continue
        k = S.marble_slot(t, a.marble)
        t.apply(a)
        if t.is_terminal():
            out[k, a.distance] = "win"
        elif t.phase is Phase.CRATER:
            after = []
            for c in CRATER_LABELS:
                u = t.clone()
                u.apply(ChanceOutcome(c))
                after.append(S.dense_key(lay, *S.key_parts(u)))
            out[k, a.distance] = tuple(after)
        else:
            out[k, a.distance] = S.dense_key(lay, *S.key_parts(t))
    return out


def _solver_view(su: S.Successors, row: int, li: int) -> dict:
    if su.passes[row, li]:
        return {"pass": int(su.code[row, S.label_slots(li)[0]])}
    out = {}
    for slot in S.label_slots(li):
        c = int(su.code[row, slot])
        _, k, d = S.slot_move(slot)
        if c == S.WIN:
            out[k, d] = "win"
        elif c <= -3:
            out[k, d] = tuple(int(x) for x in su.knock[-3 - c])
        elif c != S.ILLEGAL:
            out[k, d] = c
    return out


def _crowded(rng, n: int, L: int = 67) -> np.ndarray:
    """Positions with the marbles where the rules are busiest: the edge spaces, lines to hop, the
    last spaces and the Zone, the drawer."""
    hot = [-1, 0, 1, 2, 8, 9, 22, 23, 24, 25, 26, 27, 28, 38, 39, 55, 56, 57, 60, 61, 62, 63, 64, 65, 66,
           67, 68, 69, 70, 71]
    out = []
    while len(out) < n:
        p = rng.choice(hot, 4)
        a, b = sorted(p[:2]), sorted(p[2:])
        placed = [x for x in p if x >= 0]
        if len(set(placed)) < len(placed) or (a[0] >= L and a[1] >= L) or (b[0] >= L and b[1] >= L):
            continue
        out.append(a + b)
    return np.array(out, np.int16)


@pytest.mark.slow
def test_the_solvers_successors_are_the_rules_moves_and_outcomes():
    """From 1,000 random positions and 1,000 crowded ones (edges, lines, the Zone), every Tipper slot:
    the solver's legal moves, Passes, wins and positions after each crater seat are the rules'."""
    lay, game = S.layout(), Game(players=2)
    keys, P = S.positions(lay)
    rng = np.random.default_rng(27)
    sample = np.concatenate([P[rng.choice(len(P), 1000, replace=False)], _crowded(rng, 1000)])
    su = S.successors(lay, sample)
    seen = {"knock": 0, "win": 0, "pass": 0}
    for row, p in enumerate(sample):
        for li, label in enumerate(TIPPER_LABELS):
            ref = _rules_view(game, lay, tuple(int(x) for x in p[:2]), tuple(int(x) for x in p[2:]), label)
            assert _solver_view(su, row, li) == ref, (p, label)
            seen["pass"] += "pass" in ref
            seen["win"] += "win" in ref.values()
            seen["knock"] += any(isinstance(v, tuple) for v in ref.values())
    assert min(seen["pass"], seen["win"], seen["knock"]) > 50, seen


def test_the_successors_on_a_small_hill_are_the_rules_too():
    lay, game = S.layout(SMALL), Game(players=2, board=SMALL)
    keys, P = S.positions(lay)
    su = S.successors(lay, P[::7])
    for row, p in enumerate(P[::7][:400]):
        for li, label in enumerate(TIPPER_LABELS):
            ref = _rules_view(game, lay, tuple(int(x) for x in p[:2]), tuple(int(x) for x in p[2:]), label)
            assert _solver_view(su, row, li) == ref, (p, label)


def _brute_force(game: Game, tables: dict) -> dict:
    """An independent solution: the positions the rules reach from the start (both colours, no
    symmetry), their edges found by applying every legal action and crater seat to State objects,
    and the mover's win probability by plain negamax value iteration (Gauss-Seidel on dicts)."""
    tip, cra = tables["tipper"], tables["crater"]

    def key(s):
        return tuple(sorted(s.track[0:2])), tuple(sorted(s.track[2:4])), s.current

    def fresh(k):
        s = game.new_initial_state()
        s.track = list(k[0]) + list(k[1])
        s.phase, s.current = Phase.ROLL, k[2]
        return s

    first = ((DRAWER, DRAWER), (DRAWER, DRAWER), 0)
    keys, index, edges = [first], {first: 0}, []
    i = 0
    while i < len(keys):
        row = []
        for label in TIPPER_LABELS:
            s = fresh(keys[i])
            s.apply(ChanceOutcome(label))
            options = []
            for a in s.legal_actions():
                t = s.clone()
                t.apply(a)
                if t.is_terminal():
                    options.append(None)
                    continue
                spread = [(1.0, t)]
                if t.phase is Phase.CRATER:
                    spread = []
                    for c in CRATER_LABELS:
                        u = t.clone()
                        u.apply(ChanceOutcome(c))
                        spread.append((cra[c], u))
                out = []
                for p, u in spread:
                    k = key(u)
                    if k not in index:
                        index[k] = len(keys)
                        keys.append(k)
                    out.append((p, index[k]))
                options.append(out)
            row.append((tip[label], options))
        edges.append(row)
        i += 1
    w = [0.5] * len(keys)
    for _ in range(5000):
        change = 0.0
        for i in reversed(range(len(keys))):
            v = sum(p * max(1.0 if o is None else sum(q * (1.0 - w[j]) for q, j in o) for o in options)
                    for p, options in edges[i])
            change = max(change, abs(v - w[i]))
            w[i] = v
        if change < 1e-14:
            break
    return {k: w[i] for k, i in index.items()}


@pytest.mark.long
def test_a_small_hill_agrees_with_an_independent_brute_force():
    """On the small hill (8,234 positions the rules reach, both colours) the numpy solver's values
    are the brute force's to 1e-11, for each colour to move, with skewed tables."""
    sol = S.solve(SKEWED, board=SMALL)
    brute = _brute_force(Game(players=2, board=SMALL), sol.tables)
    assert len(brute) > 8000
    worst = max(abs(sol.throw_value(k[k[2]], k[1 - k[2]]) - v) for k, v in brute.items())
    assert worst < 1e-11
    assert sol.first_player == pytest.approx(brute[((DRAWER, DRAWER), (DRAWER, DRAWER), 0)], abs=1e-11)


def _check_bellman(sol: S.Solution, state) -> None:
    """The value at a tilt is the table-weighted best of what the rules' actions lead to."""
    total = 0.0
    for label in TIPPER_LABELS:
        s = state.clone()
        s.apply(ChanceOutcome(label))
        best = max(sol.move_values(s).values())
        assert sol.value(s) == pytest.approx(best, abs=1e-12)
        assert sol.value(s, 1 - s.current) == pytest.approx(1.0 - best, abs=1e-12)
        total += sol.tables["tipper"][label] * best
    assert sol.value(state) == pytest.approx(total, abs=1e-11)


def test_small_hill_values_are_bellman_and_the_end_is_certain():
    """Every value lies in [0, 1]; at a tilt it is the best of what the rules' actions give (both
    colours, random positions); a tilt that can win the game is worth 1 after it."""
    sol = S.solve(S.FAIR, board=SMALL)
    v = sol.values[~np.isnan(sol.values)]
    assert v.min() >= 0.0 and v.max() <= 1.0 and sol.figures["gap"] < 1e-9
    game = Game(players=2, board=SMALL)
    keys, P = S.positions(S.layout(SMALL))
    rng = np.random.default_rng(5)
    for i in rng.choice(len(P), 60, replace=False):
        p = [int(x) for x in P[i]]
        _check_bellman(sol, S.state_of(game, p[:2], p[2:], int(rng.integers(2))))
    # one marble in Zone seat #1, the other on the last space: a 2 or 3 (seats #2, #3) or J wins
    s = S.state_of(game, (10, 9), (DRAWER, DRAWER), 1)
    s.apply(ChanceOutcome("2"))
    assert sol.value(s) == 1.0 and sol.best_action(s) == Move(s.track.index(9, 2), 2)
    near = S.state_of(game, (10, 9), (DRAWER, DRAWER), 0)
    assert sol.value(near) == sol.throw_value((10, 9), (DRAWER, DRAWER)) >= 3 / 7
    assert sol.value(near, 1) == pytest.approx(1.0 - sol.value(near), abs=1e-15)


def _play(game: Game, seats, tables: dict, games: int, seed: int = 0) -> tuple[int, int]:
    """(wins of seat 0's kind, wins of the first mover) in `games` games, the seats swapped every other game."""
    source = TableOutcomes(tables)
    wins = first = 0
    for g in range(games):
        order = seats if g % 2 == 0 else seats[::-1]
        state = game.new_initial_state()
        starter = []

        def after(s, starter=starter):
            if not starter and s.phase is Phase.ROLL:
                starter.append(s.current)
        final = Match(state, order, source, seed + g, max_turns=5000, after_action=after).play()
        wins += final.winner == g % 2
        first += final.winner == starter[0]
    return wins, first


def test_the_solved_seat_beats_random_on_a_small_hill():
    game = Game(players=2, board=SMALL)
    wins, _ = _play(game, [SolvedSeat(S.FAIR), RandomSeat()], S.FAIR, 400)
    assert wins / 400 > 0.6


def test_other_games_are_refused_with_the_reason():
    for game, words in ((Game(players=3), "two players only"), (Game(players=2, variant="special-two-player"),
                                                                  "Special 2 Player Game")):
        with pytest.raises(InputError, match=words):
            S.check_game(game)
        state = game.new_initial_state()
        with pytest.raises(InputError, match=words):
            SolvedSeat(S.FAIR).choose(state, np.random.default_rng(0))
    with pytest.raises(InputError, match="tipper table needs exactly"):
        S.check_tables({"tipper": {"1": 1.0}, "crater": S.FAIR["crater"]})
    assert isinstance(make_seat("solved", TableOutcomes(S.FAIR)), SolvedSeat)
    seat = make_seat("solved", TableOutcomes(S.FAIR))
    assert S._memo(seat.tables) == S._memo(S.FAIR)        # the same solution, though the floats' last bits differ


def test_a_solution_file_round_trips(tmp_path):
    sol = S.solve(S.FAIR, board=SMALL)
    sol.save(tmp_path / "p.npz")
    back = S.Solution.load(tmp_path / "p.npz")
    assert np.array_equal(back.policy, sol.policy) and np.allclose(back.values, sol.values, equal_nan=True)
    assert back.first_player == sol.first_player and back.board.path_length == 10
    (tmp_path / "bad.npz").write_bytes(b"nope")
    with pytest.raises(InputError):
        S.Solution.load(tmp_path / "bad.npz")


# -- the whole hill (minutes: long) ------------------------------------------------------------------
@pytest.mark.long
def test_the_whole_hill_is_solved_and_its_values_are_the_rules_best():
    """Both tables: every value a probability, the two colours' least fixed points sum to 1, the
    first player's edge small, and the Bellman equation through the rules at random positions."""
    measured = S.solve(S.measured_tables())
    fair = S.solve(S.FAIR)
    for sol in (measured, fair):
        assert sol.figures["positions"] == 6_491_259 and sol.figures["gap"] < 1e-9
        assert 0.5 < sol.first_player < 0.56
        game = Game(players=2)
        keys, P = S.positions(S.layout())
        rng = np.random.default_rng(9)
        for i in rng.choice(len(P), 40, replace=False):
            p = [int(x) for x in P[i]]
            _check_bellman(sol, S.state_of(game, p[:2], p[2:], int(rng.integers(2))))
        _check_bellman(sol, S.state_of(game, (DRAWER, DRAWER), (DRAWER, DRAWER), 0))


@pytest.mark.long
def test_the_solved_seat_beats_random_and_ai_on_the_whole_hill():
    """Measured tables, 200 games each, the seats swapped every other game (4,000 games by analyze:
    0.866 against random, 0.756 against ai)."""
    from tabletop.games.king_of_the_hill.ai import GreedySeat

    game, tables = Game(players=2), S.measured_tables()
    wins, _ = _play(game, [SolvedSeat(tables), RandomSeat()], tables, 200)
    assert wins / 200 > 0.75
    wins, _ = _play(game, [SolvedSeat(tables), GreedySeat()], tables, 200, seed=1000)
    assert wins / 200 > 0.62


@pytest.mark.parametrize("argv,message", [
    (["analyze", "king-of-the-hill", "--solve", "--variant", "special-two-player"], "Special 2 Player Game"),
    (["analyze", "king-of-the-hill", "--solve", "--outcomes", "table:tipper-10k-seed1.json"], "missing: crater"),
    (["analyze", "king-of-the-hill", "--solve", "--seats", "ai,ai,ai"], "two players only, not 3"),
    (["play", "king-of-the-hill", "--headless", "--seats", "solved,ai,ai"], "two players only, not 3"),
    (["analyze", "king-of-the-hill", "--seats", "solved,ai,ai,ai", "--games", "5"], "two players only, not 4"),
    (["play", "king-of-the-hill", "--seats", "solved,ai", "--variant", "special-two-player"],
     "Special 2 Player Game"),
])
def test_a_solve_it_cannot_do_is_one_line_before_any_work(argv, message, capsys):
    """What is not solved (the special variant, three or four players) is refused before the game
    starts (a solved seat at a table of three once got as far as its first decision)."""
    from tabletop.cli import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_the_definition_is_solved_and_seats_solved():
    from tabletop.gamekit.registry import game_spec
    DEFINITION = game_spec("king-of-the-hill")

    assert DEFINITION.solved and "solved" in DEFINITION.seat_kinds
    with pytest.raises(InputError, match="Special 2 Player Game"):
        DEFINITION.make_seat("solved", None, {"variant": "special-two-player"})


@pytest.mark.long
def test_analyze_solve_prints_both_tables_and_saves_the_policy(tmp_path, capsys):
    """`tabletop analyze king-of-the-hill --solve --out F --policy P` (the solutions cached: seconds;
    else about 4 minutes)."""
    import json

    from tabletop.cli import main

    out, policy = tmp_path / "solve.json", tmp_path / "policy.npz"
    assert main(["analyze", "king-of-the-hill", "--solve", "--out", str(out), "--policy", str(policy)]) == 0
    printed = capsys.readouterr().out
    result = json.loads(out.read_text())["solve"]
    assert list(result) == ["measured", "fair"]
    assert result["fair"]["first_player"] == pytest.approx(S.solve(S.FAIR).first_player, abs=1e-15)
    assert f"{result['measured']['first_player']:.6f}" in printed and "6,491,259 positions" in printed
    assert S.Solution.load(policy).first_player == result["measured"]["first_player"]
