"""The README's pictures of the three games: early, mid-game and at a gadget moment, regenerated.

    python scripts/screenshots.py [--out docs/screenshots] [--sizes 1280x720,1920x1080] [--games NAME,NAME]
    python scripts/screenshots.py --web [--out docs/screenshots] [--games NAME,NAME]
    python scripts/screenshots.py --replay [--out docs/screenshots]

With --web, the browser's room page instead: `tabletop serve --port 0` on loopback, a room per game
and size (the browser's seat, the others the room's AI, measured outcomes), headless Chromium
(/usr/bin/chromium and chromedriver, WebGL on the CPU) at exactly 1280x720 and 390x844 (a phone:
touch), the browser seat playing its first choice button each turn; web-GAME-early-WxH.png at its
first decision, web-GAME-mid-WxH.png at its WEB[GAME]-th, each once the 3D table is ready.

With --replay, a replay page (`tabletop replay GAME.ttr --html`): a King Kong game of two AI seats
recorded with every throw simulated (seed 2), exported and opened from file:// in the same headless
Chromium at both sizes, moved to its middle with the slider and played at 1x until its next throw
is under way: replay-page-king-kong-WxH.png.

Every window picture is made at each of --sizes and named GAME-NAME-WxH.png. Early and mid-game
are what `tabletop play GAME --screenshot` renders after 0 and N turns (every seat the AI). A gadget moment is a frame of a recorded physics game played back, part of the way
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
import time
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
            path = folder / f"{game}-{name}-{size[0]}x{size[1]}.png"
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
        path = folder / f"{game}-lit-{size[0]}x{size[1]}.png"
        app.screenshot(path)
        return path
    finally:
        ctrl.adapter.close()
        app.destroy()


# game: seats (the browser's first), seed, options, and the browser seat's decision shown as mid-game
WEB = {
    "king-of-the-hill": (["remote", "ai", "ai", "ai"], 3, {}, 8),
    "knossos": (["remote", "ai"], 3, {"games_to_win": 1}, 6),
    "king-kong": (["remote", "ai", "ai"], 5, {}, 8),
}
WEB_SIZES = ((1280, 720, False), (390, 844, True))
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
ACTING_OR_OVER = "document.body.dataset.acting === 'yes' || !document.getElementById('result').hidden"


def chromium():
    """Headless Chromium (Debian's, through its chromedriver) with WebGL on the CPU, 1280x720."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,720", "--no-first-run", "--disable-extensions",
                     "--enable-unsafe-swiftshader", "--hide-scrollbars"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def web(games: list[str], folder: Path) -> None:
    """The room page's pictures (module docstring): one server, one browser, a room per game and size."""
    import asyncio

    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tabletop.net.client import create_room

    def wait(script: str, timeout: float = 60.0):
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: d.execute_script(f"return {script}"))

    def shoot(name: str) -> None:
        wait("['ready', 'none', 'error'].includes(document.getElementById('table3d').dataset.table3d)")
        state = driver.execute_script("return document.getElementById('table3d').dataset.table3d")
        if state != "ready":
            print(f"{name}: the 3D table is {state!r}", file=sys.stderr)
        driver.execute_script("window.scrollTo(0, 0); document.activeElement && document.activeElement.blur()")
        time.sleep(0.5)                                    # a few frames drawn after the last pose
        path = folder / name
        driver.save_screenshot(str(path))
        print(path)

    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "serve", "--host", "127.0.0.1", "--port",
                                   "0", "--data", str(Path(tmp) / "rooms")], cwd=tmp, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        driver = None
        try:
            line = server.stdout.readline()
            if not line.startswith("serving on ws://"):
                raise SystemExit(f"tabletop serve did not start: {line!r}")
            url = line.split()[2]
            driver = chromium()
            for game in games:
                seats, seed, opts, mid = WEB[game]
                for width, height, touch in WEB_SIZES:
                    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": touch})
                    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled",
                                           {"enabled": touch, "maxTouchPoints": 5})
                    created = asyncio.run(create_room(url, game, seats, seed, "measured", opts))
                    driver.get(f"{url.replace('ws://', 'http://')}/r/{created.room}")
                    wait("!document.getElementById('welcome').hidden")
                    field = driver.find_element(By.ID, "name")
                    field.clear()
                    field.send_keys("Ann")
                    driver.find_element(By.ID, "play").click()
                    wait("document.body.dataset.seat")
                    size = f"{width}x{height}"
                    for decision in range(mid + 1):
                        wait(ACTING_OR_OVER, 120)
                        if decision == 0:
                            shoot(f"web-{game}-early-{size}.png")
                        if driver.find_element(By.ID, "result").is_displayed():     # mid: the last one shot
                            print(f"{game}: the game ended after {decision} decisions", file=sys.stderr)
                            break
                        if decision >= max(1, mid // 2):     # kept where the game ends before the mid-th
                            shoot(f"web-{game}-mid-{size}.png")
                        if decision == mid:
                            break
                        step = driver.execute_script("return document.body.dataset.step")
                        button = driver.find_elements(By.CSS_SELECTOR, "#choices button.choice")[0]
                        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
                        button.click()
                        wait(f"document.body.dataset.step !== '{step}' || "
                             "!document.getElementById('result').hidden")
        finally:
            if driver is not None:
                driver.quit()
            server.terminate()
            server.wait(30)


def replay_page(folder: Path) -> None:
    """The replay page's pictures (module docstring)."""
    from selenium.webdriver.support.ui import WebDriverWait

    with tempfile.TemporaryDirectory() as tmp:
        ttr, html = Path(tmp) / "kong.ttr", Path(tmp) / "kong.html"
        for argv in (["play", "king-kong", "--headless", "--seats", "ai,ai", "--seed", "2", "--record", str(ttr)],
                     ["replay", str(ttr), "--html", str(html)]):
            subprocess.run([sys.executable, "-m", "tabletop.cli", *argv], check=True, capture_output=True, cwd=tmp)
        driver = chromium()

        def wait(script: str, timeout: float = 60.0):
            return WebDriverWait(driver, timeout, poll_frequency=0.05).until(
                lambda d: d.execute_script(f"return {script}"))

        try:
            for width, height, touch in WEB_SIZES:
                driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
                    "width": width, "height": height, "deviceScaleFactor": 1, "mobile": touch})
                driver.get(html.as_uri())
                wait("document.body.dataset.replayChecked === 'yes' && "
                     "document.getElementById('table3d').dataset.table3d === 'ready'")
                driver.execute_script("const s = document.getElementById('replay-slider');"
                                      "s.value = String(Math.floor(s.max / 2)); s.dispatchEvent(new Event('input'))")
                played = driver.execute_script("return document.getElementById('motion').dataset.played")
                driver.find_element("id", "replay-play").click()
                wait(f"document.getElementById('motion').dataset.played !== '{played}'", 30)
                time.sleep(0.4)                             # the throw under way
                driver.execute_script("window.scrollTo(0, 0)")
                path = folder / f"replay-page-king-kong-{width}x{height}.png"
                driver.save_screenshot(str(path))
                print(path)
        finally:
            driver.quit()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    ap.add_argument("--sizes", default="1280x720,1920x1080", help="window sizes, WxH,WxH")
    ap.add_argument("--games", default=None)
    ap.add_argument("--web", action="store_true", help="the browser's room page (at 1280x720 and 390x844)")
    ap.add_argument("--replay", action="store_true", help="a replay page (replay --html) at both sizes")
    args = ap.parse_args()
    if args.replay:
        args.out.mkdir(parents=True, exist_ok=True)
        replay_page(args.out)
        return
    if args.web:
        args.out.mkdir(parents=True, exist_ok=True)
        web((args.games or ",".join(WEB)).split(","), args.out)
        return
    args.games = args.games or ",".join(PICTURES)
    sizes = [tuple(int(v) for v in size.lower().split("x")) for size in args.sizes.split(",")]
    args.out.mkdir(parents=True, exist_ok=True)
    for game in args.games.split(","):
        seats, seed, mid, wanted = PICTURES[game]
        with tempfile.TemporaryDirectory() as tmp:
            replay = Path(tmp) / f"{game}.ttr"
            tabletop("play", game, "--headless", "--seats", seats, "--seed", str(seed), "--record", str(replay))
            for w, h in sizes:
                for name, turns in (("early", 0), ("mid", mid)):
                    path = args.out / f"{game}-{name}-{w}x{h}.png"
                    tabletop("play", game, "--seats", seats, "--seed", str(seed), "--after-turns", str(turns),
                             "--screenshot", str(path), "--size", f"{w}x{h}")
                    print(path)
                print(lit(game, args.out, (w, h)))
                for path in moments(replay, wanted, args.out, game, (w, h)):
                    print(path)


if __name__ == "__main__":
    main()
