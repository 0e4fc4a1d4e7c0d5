"""What a room's page costs a browser: the time to the 3D table's first frame, the bytes of the page and of
a game's motion, and the frame rate of a throw played on the table. Headless Chromium on this machine.

    python scripts/bench_browser.py [--loads 3] [--games knossos,...] [--koth-throws 6] [--limit 240]
        [--seed 1] [--json FILE]

One server, `tabletop serve --host 127.0.0.1 --port 0` in a process of its own (as tests/serving.py
starts it; here in its own session, its output to files, so that Ctrl-C reaches this process alone),
journaling into a temporary folder removed after. The browser is Debian's chromium driven by its
chromedriver through Selenium, headless, with WebGL on the CPU (--enable-unsafe-swiftshader), at
1280x720, as tests/test_web.py drives it; a script put in each page before its own (the page's own
files untouched) records when things happen there, with performance.now(): when the page's seat is
joined, when table3d.js mounts the table, when the table is ready, and every frame the table renders
(table3d.js renders on demand, in requestAnimationFrame: the wrapped callback's end, and its length).

1. The first frame, for a room of each game with a window (the registry's games whose definition
   gives a window_adapter; their rooms in the lobby, every seat "remote" and none taken, so nothing
   runs on the server meanwhile). Each of --loads loads in a browser of its own (nothing cached,
   nothing compiled before; its cache disabled too): the page asked for with its link and "#watch",
   on which the script above clicks the page's Watch button at DOMContentLoaded (a spectator mounts
   the table as a player does). Then in ms from the navigation's start (the Navigation Timing API):
   the page's HTML received, DOMContentLoaded (room.js and motion.js run), load, the seat joined
   over the websocket, the table mounted (table3d.js and three.js imported), the table ready
   (table.json and table.glb fetched and parsed) and its first frame rendered; and from the
   `driver.get` call, in this process's clock, to that first frame. Medians of the loads. The last
   browser then opens the link again with its cache on (three.js from its cache for a day, the
   page's own files revalidated): that reload's time to its first frame and bytes sent.
2. The bytes of that page for each game, from the Resource Timing API: as sent (transferSize: the
   headers and the body, gzipped, as the server sends it to a client that takes gzip) and decoded
   (decodedBodySize), for the HTML, the page's own files (room.css, room.js, motion.js, table3d.js),
   three.js (vendor/), table.json and table.glb.
3. The bytes of a game's motion: a Knossos room ("remote", "ai"; physics outcomes; one game), the
   browser's seat playing by clicks on the page's first choice button at each decision, to the end
   (each time once its throw has played out, as a player watches it). Every websocket message the
   page received (Chrome's performance log): the `motion` messages' sizes (the JSON text as sent;
   the zlib data inflated; the frames and the seconds they span), in all and per throw, beside all
   the messages. The server's websocket compresses its messages (permessage-deflate, as the
   handshake says): the bytes on the wire are estimated by deflating the connection's messages in
   order with the server's settings (websockets' defaults), not measured.
4. The frame rate of a throw on the table: from each motion checked (motion.js then plays its frames at
   30 a second through setTimeout, each tick a render on demand) to its last tick that moved a body
   (the bodies at rest, a throw's last frames move none) and the frame after, the frames the table
   rendered a second, the ticks played a second and the playback's length beside the motion's own; the
   mean time of the render callback on the page's thread (three.js; the GPU work is in Chromium's GPU
   process, on the CPU with SwiftShader). Medians over the playbacks played whole: a motion checked
   before the one playing could have ended stops it (the AI's throw is often followed at once by the
   next), and such a playback is counted, not measured. For Knossos's sticks (the game above) and King
   of the Hill's Tipper (a room played the same way until --koth-throws motions were checked; those of
   its first tilts come before the table is ready, and play nothing). And, in each game's reloaded
   page, the table's frames a second while the camera is dragged round (real mouse events sent by
   chromedriver, the button held, each once the page took the last, as a browser paces a mouse) and
   over a second of no input after (the table renders on demand: none).

A benchmark, not a test: timings vary with the machine's load (the machine's cores and load average
are printed), and the rooms draw their chance from the server's own secret, so the games differ from
run to run. Exit 2 with one line where chromium, chromedriver or selenium is missing; 130 on Ctrl-C.
"""
from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from urllib.parse import urlparse

import numpy as np

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
START_S = 60.0              # the most the server may take to listen
PAGE_S = 90.0               # the most a page may take to its table's first frame
TURN_S = 120.0              # the most the browser's seat waits for its next decision (the AI's throws between)
WIDTH, HEIGHT = 1280, 720
ORBIT_MOVES, ORBIT_PX = 40, 3         # the camera dragged: 40 mouse moves, 3 px apart
IDLE_S = 1.0
QUIET_MS = 600.0            # a playback has ended when nothing was played for this long

# Put in every page before its own scripts (Page.addScriptToEvaluateOnNewDocument): window.__bench
# records, in performance.now() ms, when the seat is joined, when #table3d's dataset.table3d becomes
# "loading" (mounted), "ready" or "error", every frame the table renders (requestAnimationFrame
# wrapped: a frame is a callback after which the table's `frames` went up; its end and its length)
# and the first of them with the table ready, and each change of #motion's data-checked (a motion
# checked: its playback starts) and data-played (a tick that moved a body). With "#watch" in the
# address it clicks the page's Watch button at DOMContentLoaded (room.js has run by then).
PROBE = """
(() => {
  const rec = window.__bench = { marks: {}, frames: [], renderMs: [], checked: [], played: [] };
  const now = () => performance.now();
  const element = () => document.getElementById("table3d");
  const frames = () => { const e = element(); return e && e.table3d ? e.table3d.frames : 0; };
  const raf = window.requestAnimationFrame.bind(window);
  window.requestAnimationFrame = (callback) => raf((stamp) => {
    const before = frames();
    const began = now();
    callback(stamp);
    if (frames() !== before) {
      const ended = now();
      rec.frames.push(ended);
      rec.renderMs.push(ended - began);
      if (rec.marks.frame === undefined && element().dataset.table3d === "ready") rec.marks.frame = ended;
    }
  });
  document.addEventListener("DOMContentLoaded", () => {
    const table = element();
    new MutationObserver(() => {
      const said = table.dataset.table3d;
      if (said && rec.marks[said] === undefined) rec.marks[said] = now();
    }).observe(table, { attributes: true, attributeFilter: ["data-table3d"] });
    new MutationObserver(() => {
      if (document.body.dataset.seat && rec.marks.joined === undefined) rec.marks.joined = now();
    }).observe(document.body, { attributes: true, attributeFilter: ["data-seat"] });
    const line = document.getElementById("motion");
    if (line) {
      new MutationObserver((records) => {
        for (const r of records) rec[r.attributeName === "data-checked" ? "checked" : "played"].push(now());
      }).observe(line, { attributes: true, attributeFilter: ["data-checked", "data-played"] });
    }
    if (location.hash === "#watch") {
      rec.marks.watch = now();
      document.getElementById("watch").click();
    }
  });
})();
"""

# What a page load came to: the marks, the Navigation Timing's, the Resource Timing entries, the
# page's time origin (ms since the epoch) and its WebGL renderer
READ_LOAD = """
const nav = performance.getEntriesByType("navigation")[0];
const gl = document.createElement("canvas").getContext("webgl");
const info = gl && gl.getExtension("WEBGL_debug_renderer_info");
return {
  marks: window.__bench.marks, origin: performance.timeOrigin,
  nav: {html: nav.responseEnd, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
        transfer: nav.transferSize, encoded: nav.encodedBodySize, decoded: nav.decodedBodySize},
  resources: performance.getEntriesByType("resource").map((e) => ({name: e.name, transfer: e.transferSize,
    encoded: e.encodedBodySize, decoded: e.decodedBodySize})),
  renderer: info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : (gl ? gl.getParameter(gl.RENDERER) : null),
};
"""

ACTING_OR_OVER = "document.body.dataset.acting === 'yes' || !document.getElementById('result').hidden"


class BenchError(RuntimeError):
    """The benchmark could not go on (the server failed, a page stalled): one line."""


# -- the server, in a process of its own ----------------------------------------------------------------
class Server:
    """`tabletop serve --host 127.0.0.1 --port 0 --data FOLDER/rooms` run in `folder`, its output to
    files there (a pipe left unread would stall it), in its own session (Ctrl-C reaches this process
    alone; the server is stopped here: terminate, then kill)."""

    def __init__(self, folder: Path):
        self.out, self.err = folder / "server.out", folder / "server.err"
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "serve", "--host", "127.0.0.1",
                                          "--port", "0", "--data", str(folder / "rooms")], cwd=folder, stdout=out,
                                         stderr=err, stdin=subprocess.DEVNULL, start_new_session=True, text=True)
        try:
            self.url = self._address()
        except BaseException:
            self.stop()
            raise

    def _address(self) -> str:
        end = time.monotonic() + START_S
        while time.monotonic() < end and self.proc.poll() is None:
            first = self.out.read_text().split("\n", 1)
            if len(first) == 2 and first[0].startswith("serving on ws://127.0.0.1:"):
                return first[0].split()[2]
            time.sleep(0.05)
        tail = self.err.read_text().strip().splitlines()[-1:] or ["(nothing on stderr)"]
        raise BenchError(f"the server did not start listening: {tail[0]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(15)


def make_room(url: str, game: str, seats, seed: int, outcomes: str, options: dict) -> str:
    """A room on the server: its page's link."""
    from tabletop.net.client import create_room

    created = asyncio.run(create_room(url, game, list(seats), seed, outcomes, options))
    return f"{url.replace('ws://', 'http://')}/r/{created.room}"


# -- the browser --------------------------------------------------------------------------------------
def new_browser():
    """Headless Chromium as tests/test_web.py starts it (the probe put in each of its pages), its
    chromedriver in a session of its own (Ctrl-C reaches this process alone; quit() ends both)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     f"--window-size={WIDTH},{HEIGHT}", "--no-first-run", "--disable-extensions",
                     "--enable-unsafe-swiftshader"):          # WebGL on the CPU, for the 3D table
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    service = Service(CHROMEDRIVER, popen_kw={"start_new_session": True})
    try:
        driver = webdriver.Chrome(service=service, options=options)
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": WIDTH, "height": HEIGHT, "deviceScaleFactor": 1, "mobile": False})
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": PROBE})
        driver.execute_cdp_cmd("Network.enable", {})
    except BaseException:          # Ctrl-C while it starts, too: never left running
        end_group(service)
        raise
    return driver


def close(driver) -> None:
    """Quit the browser (chromedriver ends Chromium); where that fails or is interrupted, the
    chromedriver's process group (Chromium's processes with it) killed."""
    try:
        driver.quit()
    except Exception:
        end_group(driver.service)
    except BaseException:
        end_group(driver.service)
        raise


def end_group(service) -> None:
    process = getattr(service, "process", None)
    if process is None:
        return
    try:
        os.killpg(process.pid, signal.SIGKILL)      # its own session: the group is chromedriver's and Chromium's
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        pass


def wait(driver, script: str, timeout: float, what: str):
    """Poll the page until `script` (a JavaScript expression) is truthy: its value."""
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(
            lambda d: d.execute_script(f"return {script}"))
    except TimeoutException:
        raise BenchError(f"{what}: not in {timeout:.0f} s") from None


def first_frame(driver, link: str) -> dict:
    """Open `link` watching (the probe clicks Watch) and wait for the table's first frame: what the
    load came to (READ_LOAD), with `get_ms`, from the driver.get call to that frame."""
    asked = time.time()
    driver.get(link + "#watch")
    wait(driver, "window.__bench.marks.frame !== undefined || window.__bench.marks.error !== undefined"
                 " || document.getElementById('table3d').dataset.table3d === 'none'", PAGE_S, f"{link}'s first frame")
    wait(driver, "performance.getEntriesByType('navigation')[0].loadEventEnd > 0", PAGE_S, f"{link}'s load event")
    got = driver.execute_script(READ_LOAD)
    if got["marks"].get("frame") is None:
        said = driver.execute_script("return document.getElementById('table3d').dataset.table3d")
        raise BenchError(f"{link}: the table did not load (table3d: {said})")
    got["get_ms"] = got["origin"] + got["marks"]["frame"] - asked * 1e3
    return got


def kind_of(url: str) -> str:
    """Which part of the page a resource is: html, own (room.css, room.js, ...), three (vendor/), or
    table.json / table.glb."""
    path = urlparse(url).path
    if path.endswith("/table.glb"):
        return "table.glb"
    if path.endswith("/table.json"):
        return "table.json"
    if path.startswith("/static/vendor/"):
        return "three"
    return "own" if path.startswith("/static/") else "other"


PARTS = ("html", "own", "three", "table.json", "table.glb")


def page_bytes(load: dict) -> dict:
    """{part: {"sent", "decoded", "files"}} for the parts of PARTS, and "total"."""
    out = {part: {"sent": 0, "decoded": 0, "files": 0} for part in (*PARTS, "other", "total")}
    entries = [("html", load["nav"])] + [(kind_of(r["name"]), r) for r in load["resources"]]
    for part, entry in entries:
        for key in (part, "total"):
            out[key]["sent"] += entry["transfer"]
            out[key]["decoded"] += entry["decoded"]
            out[key]["files"] += 1
    return out


def orbit(driver) -> dict:
    """Drag the camera round the table with real mouse events (ORBIT_MOVES moves, the button held; each
    sent by chromedriver once the page took the last, as a browser paces a mouse: at most one a frame),
    then leave it IDLE_S: the table's frames a second in each, and the moves a second."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder

    box = driver.execute_script("const r = document.querySelector('#table3d canvas').getBoundingClientRect();"
                                "return [r.left, r.top, r.width, r.height]")
    x, y = int(box[0] + box[2] / 2), int(box[1] + box[3] / 3)
    drag = ActionBuilder(driver, duration=0)
    drag.pointer_action.move_to_location(x, y).pointer_down()
    for i in range(1, ORBIT_MOVES + 1):
        drag.pointer_action.move_to_location(x + ORBIT_PX * (i % 50), y)
    drag.pointer_action.pointer_up()
    before = driver.execute_script("return performance.now()")
    started = time.perf_counter()
    drag.perform()
    dragged = time.perf_counter() - started
    after = driver.execute_script("return performance.now()")
    time.sleep(IDLE_S)
    idle_end = driver.execute_script("return performance.now()")
    frames = driver.execute_script("return window.__bench.frames")
    drag_frames = sum(before <= t <= after for t in frames)
    idle_frames = sum(after + 100 < t <= idle_end for t in frames)      # a frame for the release aside
    return {"moves": ORBIT_MOVES, "moves_per_s": ORBIT_MOVES / dragged, "frames": drag_frames,
            "drag_fps": drag_frames / ((after - before) / 1e3),
            "idle_fps": idle_frames / ((idle_end - after - 100) / 1e3)}


def measure_loads(server: Server, games: list[str], loads: int, seed: int, say) -> dict:
    """Part 1 and 2: per game, `loads` cold loads (a fresh browser each) and one reload, then the orbit."""
    from tabletop.gamekit.registry import GAMES

    out = {}
    for game in games:
        lo, hi = GAMES[game].seats
        link = make_room(server.url, game, ("remote",) * min(max(lo, 3), hi), seed, "measured", {})
        runs, reload, dragged, renderer = [], None, None, None
        for i in range(loads):
            driver = new_browser()
            try:
                driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
                runs.append(first_frame(driver, link))
                renderer = runs[-1]["renderer"]
                if i == loads - 1:                       # this browser again, its cache on: a reload
                    driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": False})
                    driver.get("about:blank")
                    reload = first_frame(driver, link)
                    dragged = orbit(driver)
            finally:
                close(driver)
        say(f"  {game}: {loads} loads, first frame at {median([r['marks']['frame'] for r in runs]):.0f} ms")
        out[game] = {"link": link, "loads": runs, "reload": reload, "orbit": dragged, "renderer": renderer}
    return out


# -- a game played on the page, its motion -----------------------------------------------------------------
def drain(driver, into: list) -> None:
    """Chrome's performance log since the last call: the websocket frames received (their text, in
    order) and the handshake's extensions, appended to `into` as ("frame", text) / ("extensions", text)."""
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.webSocketFrameReceived":
            into.append(("frame", message["params"]["response"]["payloadData"]))
        elif message["method"] == "Network.webSocketHandshakeResponseReceived":
            headers = {k.lower(): v for k, v in message["params"]["response"]["headers"].items()}
            into.append(("extensions", headers.get("sec-websocket-extensions", "")))


def play(server: Server, game: str, seats, options: dict, seed: int, limit: float, motions: int | None) -> dict:
    """A physics room of `game`, the browser's seat (the first remote one) playing the page's first
    choice at each decision, to the game's end or until `motions` motions were checked (None: the
    end), within `limit` s. The log's websocket frames, the probe's record, and how it went."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    link = make_room(server.url, game, seats, seed, "physics", options)
    driver = new_browser()
    log: list = []
    try:
        driver.get(link)
        wait(driver, "!document.getElementById('welcome').hidden", PAGE_S, f"{game}'s page")
        driver.find_element(By.ID, "name").send_keys("Bench")
        driver.find_element(By.ID, "play").click()
        wait(driver, "document.body.dataset.seat", PAGE_S, f"{game}'s seat")
        started, decisions, over = time.monotonic(), 0, False
        checked = "Number(document.getElementById('motion').dataset.checked)"
        settled = f"({checked} + Number(document.getElementById('motion').dataset.mismatched))"
        while time.monotonic() - started < limit:
            if motions is not None and driver.execute_script(f"return {checked}") >= motions:
                break
            wait(driver, ACTING_OR_OVER + (f" || {checked} >= {motions}" if motions else ""), TURN_S,
                 f"{game}: the seat's next decision")
            drain(driver, log)
            if driver.execute_script("return !document.getElementById('result').hidden"):
                over = True
                break
            if driver.execute_script("return document.body.dataset.acting !== 'yes'"):
                continue
            # the seat's throw played out before it acts, as a player watches it: every motion
            # received checked, and nothing played for QUIET_MS
            received = sum(kind == "frame" and '"type":"motion"' in text for kind, text in log)
            wait(driver, f"{settled} >= {received} && (() => {{ const p = window.__bench.played; return !p.length"
                         f" || performance.now() - p[p.length - 1] > {QUIET_MS}; }})()", 60, f"{game}'s playback")
            if driver.execute_script(f"return document.body.dataset.acting !== 'yes'"):
                continue
            step = driver.execute_script("return document.body.dataset.step")
            try:
                driver.find_elements(By.CSS_SELECTOR, "#choices button.choice")[0].click()
            except (StaleElementReferenceException, IndexError):
                continue                                  # the choices were drawn again: look again
            decisions += 1
            wait(driver, f"document.body.dataset.step !== '{step}' || !document.getElementById('result').hidden",
                 TURN_S, f"{game}: the page's next step")
        # the last throw played out: nothing played for a while
        wait(driver, f"(() => {{ const p = window.__bench.played; return !p.length || "
                     f"performance.now() - p[p.length - 1] > {QUIET_MS}; }})()", 60, f"{game}'s last playback")
        drain(driver, log)
        record = driver.execute_script("return window.__bench")
        return {"link": link, "log": log, "record": record, "decisions": decisions, "over": over,
                "seconds": time.monotonic() - started}
    finally:
        close(driver)


def motion_of(message: dict) -> dict:
    """A `motion` message's figures: its event, the JSON's bytes, the data's (base64) and inflated
    bytes, the frames and the seconds they span (the frames' time steps, as motion.js decodes them)."""
    raw = zlib.decompress(base64.b64decode(message["data"]))
    u = np.frombuffer(raw, "<u4").astype(np.int64)
    steps = ((u >> 1) ^ -(u & 1))[:message["frames"]]
    return {"event": message["event"], "chance": message["chance"], "frames": message["frames"],
            "tracks": len(message["tracks"]), "data": len(message["data"]), "inflated": len(raw),
            "seconds": float(steps.sum()) * 1e-6}


def on_the_wire(texts: list[str], extensions: str) -> list[int]:
    """Each message's estimated bytes on the wire: the websocket frame's header and its payload,
    deflated as the server's permessage-deflate does it where negotiated (websockets' defaults: a
    2^12 window, memLevel 5, the context kept between messages unless no_context_takeover)."""
    deflate = "permessage-deflate" in extensions
    bits = 12
    for part in extensions.split(";"):
        if part.strip().startswith("server_max_window_bits="):
            bits = int(part.split("=")[1])
    keep = "server_no_context_takeover" not in extensions
    out, compressor = [], None
    for text in texts:
        body = text.encode()
        if deflate:
            if compressor is None or not keep:
                compressor = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -bits, 5)
            body = compressor.compress(body) + compressor.flush(zlib.Z_SYNC_FLUSH)
            body = body[:-4] if body.endswith(b"\x00\x00\xff\xff") else body
        out.append(len(body) + (2 if len(body) < 126 else 4 if len(body) < 65536 else 10))
    return out


def motion_figures(played: dict) -> dict:
    """Part 3 (the motion's bytes) and 4 (each playback's frame rate) of a game played on the page."""
    texts = [text for kind, text in played["log"] if kind == "frame"]
    extensions = next((text for kind, text in played["log"] if kind == "extensions"), "")
    wire = on_the_wire(texts, extensions)
    messages = [json.loads(t) for t in texts]
    motions, motion_wire = [], 0
    for text, message, w in zip(texts, messages, wire):
        if message.get("type") == "motion":
            motions.append({**motion_of(message), "message": len(text.encode()), "wire": w})
            motion_wire += w
    rec = played["record"]
    frames, render_ms = np.array(rec["frames"]), np.array(rec["renderMs"])
    ticks = np.array(rec["played"])
    playbacks = []
    for i, t0 in enumerate(rec["checked"]):       # one playback from each motion checked to its last tick
        t_next = rec["checked"][i + 1] if i + 1 < len(rec["checked"]) else np.inf
        mine = ticks[(ticks >= t0) & (ticks < t_next)]
        if not len(mine):
            continue
        shown = frames[(frames >= t0) & (frames < min(t_next, mine[-1] + 200))]
        t1 = max(shown[-1] if len(shown) else mine[-1], mine[-1])
        seconds = (t1 - t0) / 1e3
        shown_ms = render_ms[(frames >= t0) & (frames <= t1)]
        playbacks.append({"motion": i, "event": motions[i]["event"] if i < len(motions) else None,
                          "motion_s": motions[i]["seconds"] if i < len(motions) else None,
                          "played_s": seconds, "ticks": len(mine), "frames": len(shown),
                          "fps": len(shown) / seconds if seconds > 0 else None,
                          "ticks_per_s": (len(mine) - 1) / ((mine[-1] - mine[0]) / 1e3) if mine[-1] > mine[0]
                          else None,
                          "render_ms": float(shown_ms.mean()) if len(shown_ms) else None,
                          # stopped by the next motion: it was checked before this one could have ended
                          "cut": bool(i < len(motions) and t_next < t0 + motions[i]["seconds"] * 1e3)})
    return {"decisions": played["decisions"], "over": played["over"], "seconds": played["seconds"],
            "extensions": extensions, "messages": len(texts), "message_bytes": sum(len(t.encode()) for t in texts),
            "wire_bytes": sum(wire), "motions": motions, "motion_wire": motion_wire, "playbacks": playbacks}


# -- the report ----------------------------------------------------------------------------------------
def median(values) -> float | None:
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def kb(n) -> str:
    return "-" if n is None else f"{n / 1e3:,.1f}"


def ms(v) -> str:
    return "-" if v is None else f"{v:,.0f}"


def report(result: dict, console) -> None:
    from rich.table import Table

    def table(title: str, *columns: str) -> Table:
        t = Table(title=title, title_justify="left")
        for i, column in enumerate(columns):
            t.add_column(column, justify="left" if i == 0 or column == "event" else "right")
        return t

    m = result["machine"]
    console.print(f"machine: {m['cores']} cores ({m['platform']}), load average {m['load_start']} at the start, "
                  f"{m['load_end']} at the end; Chromium {m['browser']} headless, {WIDTH}x{HEIGHT}, "
                  f"WebGL: {m['renderer']}")
    loads = result["loads"]
    t = table(f"1. a room's link to the table's first frame: ms from the navigation's start, median of "
              f"{result['args']['loads']} cold loads (a fresh browser each; the last one reloaded, its cache on)",
              "game", "HTML", "DOMContent-\nLoaded", "load", "joined\n(ws)", "table\nmounted", "table\nready",
              "first\nframe", "driver.get\nto frame", "reload\nto frame")
    for game, got in loads.items():
        runs = got["loads"]

        def med(key, source="marks"):
            return median([r[source].get(key) for r in runs])
        t.add_row(label(game), ms(med("html", "nav")), ms(med("dcl", "nav")), ms(med("load", "nav")),
                  ms(med("joined")), ms(med("loading")), ms(med("ready")), ms(med("frame")),
                  ms(median([r["get_ms"] for r in runs])), ms(got["reload"]["marks"]["frame"]))
    console.print(t)

    games = list(loads)
    t = table("2. the page's bytes, kB as sent (gzipped, headers included) / decoded, a cold load",
              "part", "files", *map(label, games))
    names = {"html": "HTML", "own": "own files (css, js)", "three": "three.js (vendor/)", "table.json": "table.json",
             "table.glb": "table.glb", "total": "total"}
    for part, name in names.items():
        t.add_row(name, str(loads[games[0]]["bytes"][part]["files"]),
                  *[f"{kb(loads[g]['bytes'][part]['sent'])} / {kb(loads[g]['bytes'][part]['decoded'])}" for g in games])
    t.add_row("reload, its cache on: sent", str(loads[games[0]]["reload_bytes"]["total"]["files"]),
              *[kb(loads[g]["reload_bytes"]["total"]["sent"]) for g in games])
    console.print(t)

    for game, got in result["motion"].items():
        motions = got["motions"]
        t = table(f"3. {game}'s motion on the websocket: {got['decisions']} decisions by the page's seat, "
                  f"{'to the end' if got['over'] else 'not to the end'}, {got['seconds']:.0f} s; compression: "
                  f"{got['extensions'] or 'none'}", "event", "messages", "kB", "kB a throw\nmedian", "min", "max",
                  "inflated kB\na throw", "frames\na throw", "seconds\na throw", "on the wire kB\n(estimated)")
        for event in sorted({x["event"] for x in motions}):
            mine = [x for x in motions if x["event"] == event]
            sizes = [x["message"] for x in mine]
            t.add_row(f"motion: {event}", str(len(mine)), kb(sum(sizes)), kb(median(sizes)), kb(min(sizes)),
                      kb(max(sizes)), kb(median([x["inflated"] for x in mine])),
                      f"{median([x['frames'] for x in mine]):.0f}", f"{median([x['seconds'] for x in mine]):.2f}",
                      kb(sum(x["wire"] for x in mine)))
        t.add_row("every message", str(got["messages"]), kb(got["message_bytes"]), *[""] * 6, kb(got["wire_bytes"]))
        console.print(t)

    t = table("4. a throw played on the table (motion.js: 30 ticks a second): medians over the playbacks played "
              "whole (cut: stopped by the next throw's motion, not counted)", "game", "event", "whole", "cut",
              "motion s", "played s", "ticks/s", "frames/s", "render ms")
    for game, got in result["motion"].items():
        for event in sorted({p["event"] for p in got["playbacks"] if p["event"]}):
            mine = [p for p in got["playbacks"] if p["event"] == event]
            whole = [p for p in mine if not p["cut"]]

            def med(key, digits):
                v = median([p[key] for p in whole])
                return "-" if v is None else f"{v:.{digits}f}"
            t.add_row(label(game), event, str(len(whole)), str(len(mine) - len(whole)), med("motion_s", 2),
                      med("played_s", 2), med("ticks_per_s", 1), med("fps", 1), med("render_ms", 2))
    console.print(t)

    t = table(f"4. the table while the camera is dragged ({ORBIT_MOVES} mouse moves, the button held) and then "
              f"left alone ({IDLE_S:.0f} s)", "game", "moves/s", "frames/s dragged", "frames/s left alone")
    for game, got in loads.items():
        o = got["orbit"]
        t.add_row(label(game), f"{o['moves_per_s']:.1f}", f"{o['drag_fps']:.1f}", f"{o['idle_fps']:.1f}")
    console.print(t)


def label(game: str) -> str:
    """The game's name, "(plugin)" after a game that is not tabletop's own (a plugin's, installed here)."""
    from tabletop.gamekit.registry import GAMES

    own = type(GAMES[game]).__module__.startswith("tabletop.")
    return game if own else f"{game} (plugin)"


# -- main ----------------------------------------------------------------------------------------------
def missing() -> str | None:
    """What this benchmark needs and this machine lacks: one line, or None."""
    import importlib.util

    lacks = [name for name, ok in (("chromium", Path(CHROMIUM).is_file()),
                                   ("chromedriver", Path(CHROMEDRIVER).is_file()),
                                   ("selenium", importlib.util.find_spec("selenium") is not None)) if not ok]
    if lacks:
        return (f"bench_browser: needs {', '.join(lacks)} (Debian: apt install chromium chromium-driver; "
                f"pip install selenium, the test extra)")
    return None


def windowed_games() -> list[str]:
    """The registry's games with a window (their definition gives a window_adapter): those with a table."""
    from tabletop.gamekit.definition import GameDefinition
    from tabletop.gamekit.registry import GAMES

    return [name for name in GAMES if type(GAMES[name]).window_adapter is not GameDefinition.window_adapter]


def run(args, folder: Path, say) -> dict:
    machine = {"cores": os.cpu_count(), "platform": platform.platform(terse=True),
               "load_start": " ".join(f"{x:.2f}" for x in os.getloadavg())}
    server = Server(folder)
    try:
        say(f"server {server.url}; the pages' first frames ({args.loads} loads a game)")
        loads = measure_loads(server, args.games, args.loads, args.seed, say)
        for got in loads.values():
            got["bytes"] = page_bytes(got["loads"][0])
            got["reload_bytes"] = page_bytes(got["reload"]) if got["reload"] else None
        motion = {}
        say("a Knossos game played on the page (physics), to its end")
        knossos = play(server, "knossos", ["remote", "ai"], {"games_to_win": 1}, args.seed, args.limit, None)
        motion["knossos"] = motion_figures(knossos)
        if args.koth_throws and "king-of-the-hill" in windowed_games():
            say(f"a King of the Hill room played on the page until {args.koth_throws} motions have played")
            koth = play(server, "king-of-the-hill", ["remote", "ai"], {}, args.seed, args.limit, args.koth_throws)
            motion["king-of-the-hill"] = motion_figures(koth)
    finally:
        server.stop()
    first = next(iter(loads.values()), None)
    machine.update(load_end=" ".join(f"{x:.2f}" for x in os.getloadavg()),
                   browser=chromium_version(), renderer=first["renderer"] if first else None)
    for got in loads.values():
        got.pop("renderer", None)
    return {"machine": machine, "args": {"loads": args.loads, "games": args.games, "seed": args.seed},
            "loads": loads, "motion": motion}


def chromium_version() -> str:
    try:
        out = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=30).stdout
        return next((w for w in out.split() if w[:1].isdigit()), out.strip())
    except (OSError, subprocess.SubprocessError):
        return "?"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench_browser.py", description=__doc__.splitlines()[0])
    ap.add_argument("--loads", type=int, default=3, help="cold loads of each game's page (default 3)")
    ap.add_argument("--games", default=None, help="the games whose page is loaded (default: every game with a window)")
    ap.add_argument("--koth-throws", type=int, default=6,
                    help="King of the Hill motions played on the page (default 6; 0: none)")
    ap.add_argument("--limit", type=float, default=240.0, help="the most a played room may take, s (default 240)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    lacks = missing()
    if lacks:
        print(lacks, file=sys.stderr)
        return 2
    games = windowed_games()
    args.games = games if args.games is None else [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in args.games if g not in games]
    if unknown or args.loads < 1:
        ap.error(f"not a game with a window: {', '.join(unknown)} (these are: {', '.join(games)})" if unknown
                 else "--loads: at least 1")
    from rich.console import Console

    console = Console()
    if not console.is_terminal:
        console.width = max(console.width, 150)          # the tables whole, in a file or a pipe
    folder = Path(tempfile.mkdtemp(prefix="bench-browser-"))
    previous = signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        result = run(args, folder, lambda line: console.print(line, markup=False, highlight=False))
    except KeyboardInterrupt:
        print("bench_browser: interrupted; the server and the browser are stopped", file=sys.stderr)
        return 130
    except BenchError as exc:
        print(f"bench_browser: {exc}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
        shutil.rmtree(folder, ignore_errors=True)
    report(result, console)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
