"""Frame rate and start-up time of the 3D window, in a real window (run it under Xvfb here).

    xvfb-run -s "-screen 0 1920x1080x24" python scripts/bench_window.py [--games king-of-the-hill,knossos]
        [--sizes 1280x720,960x540] [--seconds 20] [--json FILE]

For each game and size it starts a fresh process that opens the window, plays an all-AI game
with no pause between actions (so chance events - tilts, knocks, throws - are simulated and
played back one after another: live physics the whole time), after --skip-turns unwatched turns,
and reports the median frames per
second over the run, the 5th percentile, the longest frame (the one that simulates an event),
and the time from the process start to the first frame drawn (meshes already cached), with what
the window draws with: shadows (on by default; TABLETOP_SHADOWS=off turns them off) and the
OpenGL renderer, and the machine's load average when the game started.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CHILD = """
import json, sys, time
t0 = float(sys.argv[1])
from tabletop.gamekit.registry import GAMES
from tabletop.gamekit.view.window import open_game
app, ctrl = open_game(GAMES[sys.argv[2]], sys.argv[3].split(","), seed=int(sys.argv[4]), size=tuple(map(int, sys.argv[5].split("x"))),
                      offscreen=False, pace=0.0)
app.base.graphicsEngine.render_frame()
first = time.time() - t0
ctrl.fast_forward(int(sys.argv[7]))
ctrl.frame_times.clear()
end = time.perf_counter() + float(sys.argv[6])
stalls = []
while time.perf_counter() < end and not ctrl.state.is_terminal():
    t = time.perf_counter()
    app.base.taskMgr.step()
    stalls.append(time.perf_counter() - t)
times = ctrl.frame_times
dts = sorted(b - a for a, b in zip(times, times[1:]) if b > a)
fps = [1.0 / d for d in dts]
fps.sort()
print(json.dumps({"first_frame_s": first, "frames": len(fps), "median_fps": fps[len(fps) // 2],
                  "p5_fps": fps[len(fps) // 20], "longest_frame_s": max(stalls), "turns": ctrl.state.turn,
                  "shadows": app.shadows, "renderer": app.base.win.get_gsg().get_driver_renderer()}))
"""

SEATS = {"king-of-the-hill": "ai,ai,ai,ai", "knossos": "ai,ai", "king-kong": "ai,ai,ai"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="king-of-the-hill,knossos,king-kong")
    ap.add_argument("--sizes", default="1280x720,960x540")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-turns", type=int, default=8,
                    help="turns played (unwatched) before measuring, so the run sees moves and knocks, "
                         "not only the opening's tilts for turn order (default 8)")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    if not os.environ.get("DISPLAY"):
        print("bench_window: no DISPLAY; run it under xvfb-run", file=sys.stderr)
        return 2
    results = []
    for game in args.games.split(","):
        for size in args.sizes.split(","):
            load = os.getloadavg()[0]
            r = subprocess.run([sys.executable, "-c", CHILD, repr(time.time()), game, SEATS[game], str(args.seed),
                                size, str(args.seconds), str(args.skip_turns)], capture_output=True, text=True)
            if r.returncode != 0:
                print(r.stderr[-2000:], file=sys.stderr)
                return 1
            row = {"game": game, "size": size, "load_average": load, **json.loads(r.stdout.strip().splitlines()[-1])}
            results.append(row)
            print(f"{game:17s} {size:>9s}  median {row['median_fps']:6.1f} fps  p5 {row['p5_fps']:6.1f}  "
                  f"longest frame {row['longest_frame_s'] * 1000:6.0f} ms  first frame {row['first_frame_s']:.2f} s  "
                  f"({row['frames']} frames, {row['turns']} turns; shadows {'on' if row['shadows'] else 'off'}, "
                  f"load {load:.2f})", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
