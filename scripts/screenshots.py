"""The README's pictures of the three games: early, mid-game and at a gadget moment, regenerated.

    python scripts/screenshots.py [--out docs/screenshots] [--size 1280x720] [--games NAME,NAME]

Early and mid-game are what `tabletop play GAME --screenshot` renders after 0 and N turns (every
seat the AI). A gadget moment is a frame of a recorded physics game played back, part of the way
through the first motion of that gadget (for the Tipper: the moment of its first tilts when the ball
is nearest the middle of a field of pegs): the Tipper's ball among the pegs, a marble in the crater,
the sticks in the air, Kong twisting among the pawns. A lit picture shows a human seat's piece
selected with its destinations lit, in the hard case (a King of the Hill J's ten seats, a King Kong
roll that lights dozens of spaces).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from tabletop.gamekit.registry import GAMES

# game: seats, seed, the mid-game turn, and the moments (event, how far into its motion, picture name)
PICTURES = {
    "king-of-the-hill": ("ai,ai,ai,ai", 3, 40, [("tipper", "among-pegs", "tipper"), ("crater", 0.25, "crater")]),
    "knossos": ("ai,ai", 3, 12, [("sticks", 0.2, "sticks")]),
    "king-kong": ("ai,ai,ai", 3, 8, [("kong-move", 0.5, "kong-move")]),
}


def tabletop(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "tabletop.cli", *args], check=True, stdout=subprocess.DEVNULL)


def moments(replay: Path, wanted, folder: Path, game: str, size: tuple[int, int]) -> list[Path]:
    """A frame part way through the first recorded motion of each wanted event."""
    from tabletop.gamekit.view.playback import open_replay

    app, window, _ = open_replay(replay, GAMES, size=size, offscreen=True)
    out = []
    try:
        window.playing = False
        steps = window.timeline.steps
        for event, fraction, name in wanted:
            shown = [s for s in steps if s.chance == event and s.motion is not None and s.duration > 0.5]
            if not shown:
                print(f"{game}: no {event} motion in the recorded game", file=sys.stderr)
                continue
            if fraction == "among-pegs":
                window.show(among_pegs(window, shown[:12]))
            else:
                window.show(shown[0].start + fraction * shown[0].duration)
            path = folder / f"{game}-{name}.png"
            app.screenshot(path)
            out.append(path)
    finally:
        window.adapter.close()
        app.destroy()
    return out


def among_pegs(window, steps) -> float:
    """The playback time, among the first recorded tilts, at which the Tipper's ball lies nearest
    the middle of a field of pegs (the pegs' centroid on either side of the tray's waist)."""
    from tabletop.games.king_of_the_hill.layout import TIPPER_ORIGIN

    tipper = window.adapter.table.tipper
    ox, oy, _ = TIPPER_ORIGIN
    mx = sum(abs(x) for x, _ in tipper.pegs) / len(tipper.pegs)
    my = sum(y for _, y in tipper.pegs) / len(tipper.pegs)
    best = (float("inf"), 0.0)
    for step in steps:
        motion, states = window.timeline.motion(step)
        for k, state in enumerate(states):
            x, y = state["ball"][0] - ox, state["ball"][1] - oy
            d = (abs(x) - mx) ** 2 + (y - my) ** 2
            best = min(best, (d, step.start + min(motion.times[k], step.duration)))
    return best[1]


# game: seats, seed, the chance labels the test script answers with (None: the table's own), and
# how many destinations the picture wants at least: the hard case a player meets
LIT = {
    "king-of-the-hill": ("human,ai,ai,ai", 3, ["J", "1", "1", "1", "J"], 10),    # a J: ten seats, keys 1-9, 0
    "knossos": ("human,ai", 5, None, 2),
    "king-kong": ("human,ai,ai", 5, None, 11),                                    # a roll lighting dozens
}


def lit(game: str, folder: Path, size: tuple[int, int]) -> Path:
    """The human seat's piece selected with its destinations lit (and numbered where the keys reach
    them all), on the way to the first decision with at least the wanted number of them."""
    from tabletop.gamekit.state import ChanceOutcome
    from tabletop.gamekit.view.window import open_game

    seats, seed, script, wanted = LIT[game]
    kinds = seats.split(",")
    app, ctrl = open_game(GAMES[game], kinds, seed=seed, size=size, offscreen=True, pace=0.0)
    try:
        stand_in = ctrl.adapter.make_seats(["ai"] * len(kinds))
        script = list(script or [])
        for _ in range(5000):
            s = ctrl.state
            if not s.is_chance_node() and ctrl.human(s.current_player):
                piece = max(range(len(ctrl.adapter.piece_bodies)), key=lambda p: len(ctrl.adapter.destinations(s, p)))
                if len(ctrl.adapter.destinations(s, piece)) >= wanted:
                    break
            if s.is_chance_node():
                ctrl._apply(ChanceOutcome(script.pop(0))) if script else ctrl.chance()
            elif game == "king-kong" and ctrl.human(s.current_player) and s.pos[s.current_player] == "start" \
                    and s.phase.name == "TURN":
                ctrl.act(s.legal_actions()[0])             # roll (not fly), then a 5 from Start
                script = ["5"]
            else:
                ctrl.act((ctrl.seats[s.current_player] or stand_in[s.current_player]).choose(s, ctrl.seat_rng))
            ctrl.finish_animation()
        ctrl.select(piece)
        path = folder / f"{game}-lit.png"
        app.screenshot(path)
        return path
    finally:
        ctrl.adapter.close()
        app.destroy()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    ap.add_argument("--size", default="1280x720")
    ap.add_argument("--games", default=",".join(PICTURES))
    args = ap.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    for game in args.games.split(","):
        seats, seed, mid, wanted = PICTURES[game]
        for name, turns in (("early", 0), ("mid", mid)):
            path = args.out / f"{game}-{name}.png"
            tabletop("play", game, "--seats", seats, "--seed", str(seed), "--after-turns", str(turns),
                     "--screenshot", str(path), "--size", args.size)
            print(path)
        print(lit(game, args.out, (w, h)))
        with tempfile.TemporaryDirectory() as tmp:
            replay = Path(tmp) / f"{game}.ttr"
            tabletop("play", game, "--headless", "--seats", seats, "--seed", str(seed), "--record", str(replay))
            for path in moments(replay, wanted, args.out, game, (w, h)):
                print(path)


if __name__ == "__main__":
    main()
