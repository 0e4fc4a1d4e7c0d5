"""A physical throw's time to its first frame in the window client (`tabletop join` without --headless).

    python scripts/bench_window_client.py [--games king-kong,king-of-the-hill,knossos] [--throws 30] [--seed 1]

One `tabletop serve --port 0` process; for each game a physics room whose first seat is the
window's (offscreen, EGL) and the others the game's AI, played until --throws chance events have
been shown (the window's seat plays its first legal action at each of its turns). The server
simulates each throw; the window re-simulates it from the seed revealed after it settled and plays
its own motion back. Printed per game and chance event: the time from the throw's commitment
reaching the window (the server starts simulating it) to the window's motion being ready (its
first frame is drawn on the next frame, 1/60 s later at most), and from the reveal reaching the
window to the same (the window's own re-simulation); p50 and p95 with the number of throws.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time

import numpy as np


def quantiles(values: list[float]) -> str:
    if not values:
        return "no throws"
    ms = 1000 * np.asarray(values)
    return f"p50 {np.percentile(ms, 50):7.1f} ms  p95 {np.percentile(ms, 95):7.1f} ms  ({len(ms)} throws)"


def one_game(url: str, game: str, throws: int, seed: int) -> list[dict]:
    import tabletop
    from tabletop.gamekit.registry import GAMES
    from tabletop.net.window import open_remote

    n = GAMES[game].seats[0] + (1 if game == "king-kong" else 0)
    options = {"games_to_win": 1} if game == "knossos" else {}
    room = tabletop.host(game, url, ["remote"] + ["ai"] * (n - 1), seed=seed, outcomes="physics", **options)
    app, win = open_remote(url, room.code, None, "bench", False, size=(480, 270), offscreen=True, pace=0.0)
    try:
        deadline = time.monotonic() + 600
        while len(win.throw_times) < throws and not win.state.is_terminal() and time.monotonic() < deadline:
            win.take_events()
            win.finish_animation()
            s = win.state
            if win.legal is not None and win.legal_step == win.step and win.sent_step is None and not win.waiting():
                win.act(s.legal_actions()[0])
            time.sleep(0.002)
        if win.throws_mismatched:
            print(f"  {game}: {win.throws_mismatched} throws did NOT match the server's", file=sys.stderr)
        return list(win.throw_times)
    finally:
        win.close()
        win.adapter.close()
        app.destroy()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", default="king-kong,king-of-the-hill,knossos")
    ap.add_argument("--throws", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "serve", "--port", "0", "--data", data],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            url = server.stdout.readline().split()[2]
            for game in args.games.split(","):
                # one window a process (Panda3D's ShowBase is one a process): each game in a child
                out = subprocess.run([sys.executable, __file__, "--child", url, game, str(args.throws), str(args.seed)],
                                     capture_output=True, text=True)
                print(out.stdout, end="")
                if out.returncode:
                    print(out.stderr[-2000:], file=sys.stderr)
        finally:
            server.terminate()
            server.wait(30)
    return 0


def child(url: str, game: str, throws: int, seed: int) -> int:
    times = one_game(url, game, throws, seed)
    print(f"{game}: a throw's commitment to its motion in the window {quantiles([t['commit_to_motion_s'] for t in times])}")
    print(f"{'':{len(game)}}  its reveal to its motion (the window's re-simulation) "
          f"{quantiles([t['reveal_to_motion_s'] for t in times])}")
    for event in sorted({t["event"] for t in times}):
        got = [t for t in times if t["event"] == event]
        print(f"    {event:12s} commitment to motion {quantiles([t['commit_to_motion_s'] for t in got])}; "
              f"re-simulation {quantiles([t['reveal_to_motion_s'] for t in got])}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        sys.exit(child(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])))
    sys.exit(main())
