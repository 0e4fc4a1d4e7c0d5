"""CPU time of whole King of the Hill games on the physical table (every tilt and knock simulated).

    python scripts/bench_koth_game.py [--seats ai,ai,ai,ai] [--seeds 1,2,3]

Prints, per seed, the CPU seconds of the game (time.process_time, this process only), the turns,
the number of simulated tilts and knocks, and the retries (tilts whose ball stopped between slots,
knocks whose marble lodged).
"""
import argparse
import time

from tabletop.games.king_of_the_hill.ai import SEATS
from tabletop.gamekit.match import Match
from tabletop.games.king_of_the_hill.rules import ChanceOutcome, Game
from tabletop.games.king_of_the_hill.table import PhysicsOutcomes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seats", default="ai,ai,ai,ai")
    ap.add_argument("--seeds", default="1,2,3")
    args = ap.parse_args()
    kinds = args.seats.split(",")
    for seed in (int(s) for s in args.seeds.split(",")):
        source = PhysicsOutcomes()
        t0 = time.process_time()
        final = Match(Game(len(kinds)).new_initial_state(), [SEATS[k]() for k in kinds], source, seed).play()
        cpu = time.process_time() - t0
        chance = [a for a in final.history if isinstance(a, ChanceOutcome)]
        knocks = sum(1 for a in chance if a.label.startswith("cave"))
        print(f"seed {seed}: {cpu:.1f} s CPU, {final.turn} turns, {len(chance) - knocks} tilts, {knocks} knocks, "
              f"retries {source.table.retries}", flush=True)
        source.close()


if __name__ == "__main__":
    main()
