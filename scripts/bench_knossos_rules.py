"""Rules-only speed of the Knossos Game: whole random matches per second with table chance.

    python scripts/bench_knossos_rules.py [--matches 500] [--seats random,random] [--seed 0]

Each match is played to three won games by the given seats, the sticks sampled from the two-coin
table (1: 1/4, 2: 1/2, 3: 1/4). Prints the matches per second (CPU time of this process), the mean
throws per match and the throws (chance events) per second.
"""
import argparse
import time

from tabletop.games.chance import TableOutcomes
from tabletop.games.knossos.ai import SEATS
from tabletop.games.knossos.play import play_match
from tabletop.games.knossos.rules import Game

STICKS = {"sticks": {"1": 0.25, "2": 0.5, "3": 0.25}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=500)
    ap.add_argument("--seats", default="random,random")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    kinds = args.seats.split(",")
    game, source = Game(), TableOutcomes(STICKS)
    throws = 0
    t0 = time.process_time()
    for i in range(args.matches):
        final = play_match(game, [SEATS[k]() for k in kinds], source, args.seed + i)
        throws += final.turn
    cpu = time.process_time() - t0
    print(f"{args.matches} matches ({args.seats}) in {cpu:.2f} s CPU: {args.matches / cpu:.1f} matches/s, "
          f"{throws / args.matches:.1f} throws per match, {throws / cpu:.0f} throws/s")


if __name__ == "__main__":
    main()
