"""King of the Hill with two players solved for the measured Tipper and crater and for fair ones, and
what the physical gadgets change under perfect play.

    python scripts/solve_koth.py [--json docs/results/koth-solved.json]

Solves (or reads from the cache: `tabletop analyze king-of-the-hill --solve` fills it) both pairs
of tables, and each gadget's measured table with the other's fair one (which gadget moves the first
player's chances), and prints, beside the first player's perfect-play win probability for each:
- how often perfect play differs: the share of decisions (a position reachable from the start and a
  Tipper slot with two or more legal moves) where the measured tables' best move is not the fair
  tables' (first of equals either way: a tie counts as a difference only where values differ);
- what a player loses who plays the other tables' perfect strategy against a perfect opponent: the
  first player's win probability with the measured chance when it plays the fair tables' policy,
  and with fair chance when it plays the measured tables' (each a value iteration with the first
  player's moves fixed, about 2 minutes).
Needs about 2.5 GB; 3 minutes on 2 cores once the four solutions are cached, 8 more to solve the
two mixed tables, 5 more for each of the two others.
"""
import argparse
import json
import sys
import time

import numpy as np

from tabletop.games.king_of_the_hill.solve import (DICE, FAIR, SLOTS, build_graph, dense_key, measured_tables,
                                                   policy_value, reachable, solve)
from tabletop.sim.errors import InputError


def run(args) -> dict:
    started = time.perf_counter()
    measured = measured_tables()
    tables = {"measured": measured, "fair": FAIR}
    graph = build_graph()
    sols = {name: solve(t, graph=graph) for name, t in tables.items()}
    gadget = {"measured tipper, fair crater": {"tipper": measured["tipper"], "crater": FAIR["crater"]},
              "fair tipper, measured crater": {"tipper": FAIR["tipper"], "crater": measured["crater"]}}
    one = {name: solve(t, graph=graph).first_player for name, t in gadget.items()}
    n = graph.n
    start = graph.dense[dense_key(graph.lay, (-1, -1), (-1, -1))]
    reach = reachable(graph, start)
    legal = graph.succ != n + 1                                 # ILLEGAL slots are n + 1
    choices = np.stack([legal[:, 2 * li:2 * li + 2].sum(axis=1) for li in range(DICE)]
                       + [legal[:, 2 * DICE:SLOTS].sum(axis=1)], axis=1) >= 2
    choices &= ~graph.passes & reach[:, None]
    pm, pf = (sols[k].policy[graph.keys] for k in ("measured", "fair"))
    differ = (pm != pf) & choices
    # a different first-of-equals pick is no difference: compare the values the two picks give
    rows, labels = np.nonzero(differ)
    real = 0
    for lo in range(0, len(rows), 200_000):
        r, li = rows[lo:lo + 200_000], labels[lo:lo + 200_000]
        real += _strictly_better(graph, sols, r, li, pm, pf)
    out = {"tables": tables, "first_player": {k: s.first_player for k, s in sols.items()},
           "decisions": int(choices.sum()), "differ": int(real), "differ_share": real / max(1, int(choices.sum())),
           "positions": n, "reachable": int(reach.sum())}
    out["one_gadget"] = one
    lines = [f"{k}: under perfect play the first player wins with probability {v:.6f}"
             for k, v in {**out["first_player"], **one}.items()]
    lines.append(f"decisions with a choice (reachable positions x Tipper slots): {out['decisions']:,}; the measured "
                 f"tables' best move is not the fair tables' in {real:,} ({out['differ_share']:.2%})")
    for name, other in (("measured", "fair"), ("fair", "measured")):
        v = policy_value(graph, tables[name], sols[other].policy)
        out[f"{other}_policy_under_{name}"] = v
        lines.append(f"with {name} chance, the first player playing the {other} tables' perfect strategy against a "
                     f"perfect opponent wins {v:.6f} (perfect play: {out['first_player'][name]:.6f}; "
                     f"{out['first_player'][name] - v:+.6f} lost)")
    out["seconds"] = time.perf_counter() - started
    for line in lines:
        print(line)
    print(f"{out['seconds']:.0f} s")
    return out


def _strictly_better(graph, sols, rows, labels, pm, pf) -> int:
    """How many of the (row, label) decisions have picks of different value under either table."""
    from tabletop.games.king_of_the_hill.solve import slot_of_policy

    n = graph.n
    count = np.zeros(len(rows), bool)
    sm = slot_of_policy(pm[rows])[np.arange(len(rows)), labels].astype(np.int64)
    sf = slot_of_policy(pf[rows])[np.arange(len(rows)), labels].astype(np.int64)
    a, b = graph.succ[rows, sm], graph.succ[rows, sf]
    for sol in sols.values():
        crater = np.array(list(sol.tables["crater"].values()))
        vals = 1.0 - sol.values[graph.keys]                 # the mover's value after a move: 1 - the other's

        def after(s):
            v = np.empty(len(s))
            plain = s < n
            v[plain] = vals[s[plain]]
            v[s == n] = 1.0
            k = s >= n + 3
            v[k] = vals[graph.knock[s[k] - n - 3]] @ crater
            return v
        count |= np.abs(after(a) - after(b)) > 1e-9
    return int(count.sum())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args(argv)
    try:
        out = run(args)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
