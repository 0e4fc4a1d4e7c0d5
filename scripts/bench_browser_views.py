"""What a room's views cost for a browser: the pieces and the choices (tabletop.net.browser) of a view at a
room's first decision, per game with a window, in ms (mean of 200), beside the room's first update (which builds the table's scene once).

    python scripts/bench_browser_views.py [--views 200]

A benchmark, not a test: the tests check what the fields hold, never how fast they are made.
"""
import argparse
import time

from tabletop.gamekit.definition import GameDefinition
from tabletop.gamekit.registry import GAMES
from tabletop.net.room import Room, check_spec, token_hash


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--views", type=int, default=200)
    args = ap.parse_args()
    for name in GAMES:
        definition = GAMES[name]
        lo, hi = definition.seats
        seats = ("remote",) * min(max(lo, 3), hi)
        if type(definition).window_adapter is GameDefinition.window_adapter:
            continue                       # no window: no table for a browser
        room = Room(check_spec("code", name, seats, 4, "measured", {}), None)
        try:
            for s in range(len(seats)):
                room.claim(s, token_hash(f"token-{s}"))
            while room.busy():
                room.advance()
            started = time.perf_counter()
            room.update()
            update_ms = (time.perf_counter() - started) * 1e3
            views = room.browser_views()
            started = time.perf_counter()
            for _ in range(args.views):
                views.pieces(room.state)
                views.choices(room.state)
            per_view = (time.perf_counter() - started) / args.views * 1e3
            print(f"{name}: pieces and choices {per_view:.3f} ms a view ({args.views} views); "
                  f"the room's first update {update_ms:.1f} ms (it builds the table's scene once)")
        finally:
            room.close()


if __name__ == "__main__":
    main()
