"""Each revealed throw's motion on the wire, for a browser (docs/protocol.md, `motion`).

Without a browser (a hub driven by hand, rooms inline): a physics room sends a connection that
joined with `"motion": true` each throw's motion after its reveal, never before, and its inflated
bytes hash to the reveal's motion_sha256; a Python client's connection (no flag) gets no motion;
King Kong's shuffle (hidden) has none. With Chromium (Debian's chromium and chromedriver, as
tests/test_web.py): a Knossos room's page says "motion checked" for a throw, plays its frames on the
3D table, and shows a tampered motion as a mismatch.
"""
from __future__ import annotations

import asyncio
import base64
import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest

from tabletop.net import protocol as p
from tabletop.net.server import Hub
from tests.net_scan import Recorder


def make_room(tmp_path, game: str, seats: tuple[str, ...], options=None):
    hub = Hub(tmp_path, inline=True, note=lambda line: None)
    host = Recorder(hub)
    [created] = host.send(p.Create(game, seats, 4, "physics", dict(options or {})))
    assert created["type"] == "created", created
    return hub, created["room"]


def messages(recorder: Recorder) -> list[dict]:
    return [json.loads(f) for f in recorder.frames]


def inflate(message: dict) -> bytes:
    parsed = p.parse(json.dumps({"v": 2, **message}), "server")
    assert isinstance(parsed, p.Motion) and parsed.encoding == "zlib-u32le"
    return zlib.decompress(base64.b64decode(parsed.data))


def decode(message: dict) -> dict[str, list]:
    """The motion's last pose of each track, decoded as motion.js decodes it (unzigzag, times and
    counts, codes, residuals integrated twice per track)."""
    u = np.frombuffer(inflate(message), "<u4").astype(np.int64)
    v = (u >> 1) ^ -(u & 1)
    n = message["frames"]
    counts = v[n:2 * n]
    entries = int(counts.sum())
    codes = v[2 * n:2 * n + entries]
    shown = codes[codes % 2 == 0] // 2
    res = v[2 * n + entries:].reshape(7, -1).T
    assert len(res) == len(shown) and (v[:n] >= 0).all()
    last = {}
    for t in np.unique(shown):
        rows = res[shown == t]
        e = rows.copy()
        e[1:] = np.cumsum(rows[1:], axis=0)
        pose = np.cumsum(e, axis=0)[-1]
        last[message["tracks"][t]] = [*(pose[:3] * 1e-5), *(pose[3:] / 32767)]
    return last


def checked_motions(browser: Recorder, python: Recorder, private=()) -> list[dict]:
    """Every motion the browser's connection got, each after its event's reveal and hashing to its
    motion_sha256; none to the Python client's; none for a hidden event."""
    got = messages(browser)
    reveals = {m["chance"]: i for i, m in enumerate(got) if m["type"] == "reveal"}
    motions = [(i, m) for i, m in enumerate(got) if m["type"] == "motion"]
    assert motions
    for i, m in motions:
        j = reveals[m["chance"]]
        assert j < i and got[j]["event"] == m["event"] and m["event"] not in private
        assert hashlib.sha256(inflate(m)).hexdigest() == got[j]["motion_sha256"]
    assert not [m for m in messages(python) if m["type"] == "motion"]
    with_motion = {got[j]["chance"] for j in reveals.values() if got[j]["motion_sha256"]
                   and got[j]["event"] not in private}
    assert {m["chance"] for _, m in motions} <= with_motion
    return [m for _, m in motions]


def test_a_knossos_throw_reaches_a_browser_after_its_reveal_hashing_to_it_and_no_python_client(tmp_path):
    hub, code = make_room(tmp_path, "knossos", ("remote", "random"), {"games_to_win": 1})
    python = Recorder(hub)
    assert python.send(p.Join(code, spectate=True))[0]["type"] == "joined"
    browser = Recorder(hub)
    assert browser.send(p.Join(code, spectate=True, motion=True))[0]["type"] == "joined"
    player = Recorder(hub)
    assert player.send(p.Join(code))[0]["type"] == "joined"
    handle, rng = hub.rooms[code], np.random.default_rng(1)
    for _ in range(6):
        if handle.over:
            break
        view = player.last_view()
        player.send(p.Act(player.token, view["step"], tuple(view["legal"][int(rng.integers(len(view["legal"])))])))
    motions = checked_motions(browser, python)
    sticks = [m for m in motions if m["event"] == "sticks"]
    assert sticks and all(set(m["tracks"]) <= {f"stick{i}" for i in range(4)} for m in sticks)
    for m in sticks:                                  # the sticks come to rest on the table, upright quaternions
        for pose in decode(m).values():
            assert abs(np.linalg.norm(pose[3:]) - 1) < 1e-3 and -0.1 < pose[2] < 0.3


def test_king_kong_sends_its_dice_and_spins_but_never_the_shuffle(tmp_path):
    hub, code = make_room(tmp_path, "king-kong", ("remote", "ai", "ai"))
    python = Recorder(hub)
    python.send(p.Join(code, spectate=True))
    browser = Recorder(hub)
    browser.send(p.Join(code, spectate=True, motion=True))
    player = Recorder(hub)
    player.send(p.Join(code))                         # the last remote seat: the game starts
    got = messages(browser)
    shuffles = [m["chance"] for m in got if m["type"] == "commit" and m["event"] == "shuffle"]
    assert shuffles
    motions = checked_motions(browser, python, private=("shuffle",))
    assert "die" in {m["event"] for m in motions}
    assert not set(shuffles) & {m["chance"] for m in motions}
    # the die comes only with its throw: the room keeps its look, and bodies.glb serves what the
    # table lacks (the die; not Kong nor the pawns, which the table has)
    import io

    import trimesh

    from tabletop.net.browser import table_asset

    handle = hub.rooms[code]
    table = table_asset(handle, "table.json")[0]
    assert '"die"' not in table.decode() and "die" in handle.thrown
    body, content_type = table_asset(handle, "bodies.glb")
    nodes = set(trimesh.load(io.BytesIO(body), file_type="glb").graph.nodes_geometry)
    on_table = {about["body"] for about in json.loads(table)["tracks"].values()}
    drawn = {track for body, look in handle.thrown.items() if body not in on_table
             for track, parts in look["tracks"].items() if parts}          # (a track with no parts draws nothing)
    moved = {t for m in motions for t in m["tracks"]}
    thrown = (moved & drawn) - set(json.loads(table)["tracks"])
    assert content_type == "model/gltf-binary" and "die" in thrown and nodes == thrown
    assert not nodes & set(json.loads(table)["tracks"])


def test_a_room_before_any_throw_has_no_bodies_glb(tmp_path):
    from tabletop.net.browser import table_asset

    hub, code = make_room(tmp_path, "king-kong", ("remote", "remote", "ai"))
    assert table_asset(hub.rooms[code], "bodies.glb") is None


def test_a_motion_message_is_parsed_and_a_bad_one_refused():
    good = {"v": 2, "type": "motion", "room": "r", "chance": 1, "event": "die", "tracks": ["die"], "frames": 2,
            "encoding": "zlib-u32le", "data": base64.b64encode(zlib.compress(bytes(40))).decode()}
    assert p.parse(json.dumps(good), "server").tracks == ("die",)
    for bad in ({"encoding": "gzip"}, {"frames": 0}, {"tracks": []}, {"data": 3}):
        with pytest.raises(p.ProtocolError):
            p.parse(json.dumps({**good, **bad}), "server")
    assert p.parse(json.dumps({"v": 2, "type": "join", "room": "r", "motion": True})).motion


# -- in Chromium -------------------------------------------------------------------------------------------------
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
BROWSER = importlib.util.find_spec("selenium") is not None and Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file()

# put in the page before its scripts: each `motion` message reaches room.js with one byte of its hashed
# bytes changed (inflated, a pose residual flipped, deflated again), as a server that lied would send it
TAMPER = """
const add = WebSocket.prototype.addEventListener;
const bytes = async (data, stream) => new Uint8Array(await new Response(new Blob([data]).stream().pipeThrough(stream)).arrayBuffer());
WebSocket.prototype.addEventListener = function (type, listener, options) {
  if (type !== "message") return add.call(this, type, listener, options);
  return add.call(this, type, async (event) => {
    let data = event.data;
    if (typeof data === "string" && data.includes('"type":"motion"')) {
      const m = JSON.parse(data);
      const raw = await bytes(Uint8Array.from(atob(m.data), (c) => c.charCodeAt(0)), new DecompressionStream("deflate"));
      raw[raw.length - 8] ^= 2;
      m.data = btoa(String.fromCharCode(...(await bytes(raw, new CompressionStream("deflate")))));
      data = JSON.stringify(m);
    }
    listener.call(this, new MessageEvent("message", { data }));
  }, options);
};
"""


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """`tabletop serve` as a process, journaling its rooms (a reveal's motion_sha256 comes from the
    journal): its ws:// address."""
    folder = tmp_path_factory.mktemp("motion")
    proc = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "serve", "--host", "127.0.0.1", "--port", "0",
                             "--data", str(folder / "rooms")], cwd=folder, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("serving on ws://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() else "")
    yield line.split()[2]
    proc.terminate()
    assert proc.wait(30) == 0


def chromium(tamper: bool):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,700",
                     "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    if tamper:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": TAMPER})
    return driver


def play_until(driver, url: str, seed: int, done: str, limit: float = 20.0) -> dict:
    """A Knossos room (red the page's, blue the AI's), red's choices clicked (the last one) until
    `done` (a JavaScript expression) holds: the #motion line's text and data."""
    from selenium.webdriver.common.by import By

    from tabletop.net.client import create_room

    created = asyncio.run(create_room(url, "knossos", ["remote", "ai"], seed, "physics", {"games_to_win": 1}))
    driver.get(f"{url.replace('ws://', 'http://')}/r/{created.room}")
    driver.find_element(By.ID, "name").send_keys("Ann")
    driver.find_element(By.ID, "play").click()
    deadline = time.monotonic() + limit
    while not driver.execute_script(f"return Boolean({done})"):
        assert time.monotonic() < deadline, driver.execute_script("return document.getElementById('motion')?.textContent")
        buttons = driver.find_elements(By.CSS_SELECTOR, "#choices button.choice")
        if driver.execute_script("return document.body.dataset.acting === 'yes'") and buttons:
            step = driver.execute_script("return document.body.dataset.step")
            buttons[-1].click()
            while driver.execute_script("return document.body.dataset.step") == step and time.monotonic() < deadline:
                time.sleep(0.05)
        time.sleep(0.05)
    return driver.execute_script("const m = document.getElementById('motion');"
                                 "return {text: m.textContent, color: m.style.color, ...m.dataset}")


@pytest.mark.skipif(not BROWSER, reason="needs chromium, chromium-driver (apt) and selenium (the test extra)")
@pytest.mark.slow
@pytest.mark.parametrize("tamper", [False, True], ids=["honest", "tampered"])
def test_the_page_checks_each_throws_motion_and_plays_it_or_shows_the_mismatch(served, tamper):
    driver = chromium(tamper)
    try:
        started = time.perf_counter()
        if tamper:
            got = play_until(driver, served, 3, "Number(document.getElementById('motion')?.dataset.mismatched) >= 2")
            assert "does NOT match" in got["text"] and got["color"] and got["checked"] == got["played"] == "0"
        else:
            got = play_until(driver, served, 3, "Number(document.getElementById('motion')?.dataset.played) >= 5")
            assert "motion checked" in got["text"] and not got["color"] and got["mismatched"] == "0"
            assert "re-simulated" not in driver.find_element("tag name", "body").text
        print(f"{'tampered' if tamper else 'honest'}: {got['text']!r}, {got['checked']} checked, {got['played']} "
              f"frames played, last check {got.get('ms')} ms, {time.perf_counter() - started:.1f} s")
    finally:
        driver.quit()
