"""Decision time of a seat kind (default `plan`) among `ai` seats, with the published measured tables.

    python scripts/bench_seats.py [--game king-of-the-hill|king-kong|knossos] [--players N] [--games 5]
        [--seat plan]

The timed seat takes each seat in turn (game i: seat i mod N); prints its decisions' mean, 99th
percentile and longest CPU time (time.process_time), one decision at a time on one core.
"""
import argparse
import time

import numpy as np

from tabletop.gamekit.chance import measured_paths
from tabletop.gamekit.match import Match
from tabletop.gamekit.registry import game_spec


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="king-of-the-hill")
    ap.add_argument("--players", type=int, default=None)
    ap.add_argument("--games", type=int, default=5)
    ap.add_argument("--seat", default="plan")
    args = ap.parse_args()
    spec = game_spec(args.game)
    players = args.players or spec.seats[0]
    options = spec.check_options({})
    source = spec.make_source(f"table:{','.join(str(p) for p in measured_paths(spec.devices))}")
    game = spec.make_game(spec.replay_config(["ai"] * players, "measured", options))
    times: list[float] = []

    class Timed:
        def __init__(self):
            self.seat = spec.make_seat(args.seat, source, options)

        def choose(self, state, rng):
            t = time.process_time()
            action = self.seat.choose(state, rng)
            times.append(time.process_time() - t)
            return action

    for i in range(args.games):
        seats = [spec.make_seat("ai", source, options) for _ in range(players)]
        seats[i % players] = Timed()
        Match(game.new_initial_state(), seats, source, 77 + i).play()
    t = np.array(times) * 1000
    print(f"{args.game}, {players} players, {args.seat} among ai: {len(t)} decisions, mean {t.mean():.1f} ms, "
          f"99% {np.quantile(t, 0.99):.1f} ms, longest {t.max():.1f} ms")


if __name__ == "__main__":
    main()
