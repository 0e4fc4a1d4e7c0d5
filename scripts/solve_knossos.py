"""Solve the Knossos match for throw tables and print the first player's chances under perfect play.

    python scripts/solve_knossos.py [--outcomes table:FILE.json] [--games-to-win 3] [--exit-rule strict]
                                    [--out POLICY.npz] [--matches N] [--json FILE.json]

Without --outcomes it solves the physical sticks' measured table (assets/measured/sticks-10k-seed1.json)
and two fair coins (1: 1/4, 2: 1/2, 3: 1/4); with it, that sticks result. --out writes the solution
(values and best moves of every position, throw and score) of the first table. --matches N plays N
matches each of solved against ai, solved against random and solved against solved with table chance
of the first table (seats swapped every other match) and prints the win rates with 95% Wilson
intervals, the last beside the solver's first-player value. --exit-rule strict does all this for the
strict reading of the exit (a piece exits only from the apex, with a 1; README, rules note 7).
"""
import argparse
import sys
import time

from tabletop.games.knossos.ai import default_tables, head_to_head
from tabletop.games.knossos.rules import EXIT_RULES, PAST_APEX
from tabletop.games.knossos.solve import solve, solve_report, sticks_table
from tabletop.sim.errors import InputError


def _tables(outcomes: str | None) -> dict:
    if outcomes is None:
        return default_tables()
    if not outcomes.startswith("table:") or "," in outcomes or not outcomes[6:]:
        raise InputError(f"--outcomes: expected table:FILE.json (one sticks result), got {outcomes!r}")
    return {outcomes[6:]: sticks_table(outcomes[6:])}


def _interval(ci) -> str:
    return f"[{ci[0]:.4f}, {ci[1]:.4f}]"


def run(args) -> dict:
    if args.games_to_win < 1:
        raise InputError(f"--games-to-win: must be at least 1, got {args.games_to_win}")
    if args.matches is not None and args.matches < 1:
        raise InputError(f"--matches: must be at least 1, got {args.matches}")
    if args.out is not None:
        from tabletop.sim.output import check_output_path
        check_output_path(args.out)
    tables = _tables(args.outcomes)
    rule = args.exit_rule
    report = {"solved": solve_report(tables, args.games_to_win, rule)}
    if rule != PAST_APEX:
        report["exit_rule"] = rule
    for name, r in report["solved"].items():
        table = ", ".join(f"{k}: {v:.4f}" for k, v in r["table"].items())
        print(f"{name} ({table}): first player wins the match (first to {args.games_to_win}) "
              f"{r['first_player_match']:.6f}, a single game {r['first_player_game']:.6f} "
              f"({r['positions']} positions, {r['sweeps']} sweeps, solved in {r['solve_seconds']:.2f} s)")
    first = next(iter(tables))
    solution = solve(tables[first], args.games_to_win, exit_rule=rule)
    if args.out is not None:
        solution.save(args.out)
        print(f"solution of {first} written to {args.out}")
    if args.matches:
        report["matches"] = []
        for opponent in ("ai", "random", "solved"):
            started = time.perf_counter()
            r = head_to_head("solved", opponent, tables[first], args.matches, args.games_to_win, exit_rule=rule)
            r["seconds"] = time.perf_counter() - started
            report["matches"].append(r)
            if opponent == "solved":
                predicted = solution.first_player_match
                inside = r["first_player_ci95"][0] <= predicted <= r["first_player_ci95"][1]
                r["predicted_first_player"], r["predicted_inside"] = predicted, inside
                print(f"solved vs solved, {args.matches} matches: first player wins {r['first_player_rate']:.4f} "
                      f"{_interval(r['first_player_ci95'])}; solver {predicted:.4f} "
                      f"({'inside' if inside else 'OUTSIDE'} the interval)")
            else:
                print(f"solved vs {opponent}, {args.matches} matches (each first in half): solved wins "
                      f"{r['rate']:.4f} {_interval(r['ci95'])} ({r['seconds']:.0f} s)")
    if args.json is not None:
        from tabletop.sim.output import write_json_atomic
        write_json_atomic(args.json, report)
    return report


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--outcomes", metavar="table:FILE.json", help="a saved sticks result (default: the measured "
                    "table and fair coins)")
    ap.add_argument("--games-to-win", type=int, default=3, help="games needed to win the match (default 3)")
    ap.add_argument("--exit-rule", choices=EXIT_RULES, default=PAST_APEX,
                    help="how a piece exits (default past-apex; strict: only from the apex, with a 1)")
    ap.add_argument("--out", metavar="POLICY.npz", help="write the first table's solution here")
    ap.add_argument("--matches", type=int, help="also play N matches of solved against ai, random and solved")
    ap.add_argument("--json", metavar="FILE.json", help="write the figures as JSON")
    args = ap.parse_args()
    try:
        run(args)
    except InputError as exc:
        print(f"solve_knossos: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
