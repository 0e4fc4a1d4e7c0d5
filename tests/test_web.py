"""The browser's room page, served by `tabletop serve` beside the websocket (tabletop.net.http, tabletop/web).

Plain HTTP, with no browser: the real server (tabletop.net.server.serve, rooms inline) on loopback
in this process, asked over raw sockets: a path outside the served files, in any spelling, is 404
with a one-line body; the page and its files carry the content security policy, nosniff and their
types; a websocket from another site's page (a foreign Origin) is refused, one with the page's own
origin or none (a Python client) is let in; `tabletop host` prints the page's link.

In a real browser (Debian's chromium and chromium-driver, driven by Selenium, headless; skipped
with the reason where they are not installed; .ci/run installs them): `tabletop serve` as a
process, a Knossos room played to its end by clicks on the page's choice buttons against the
room's AI, whose journal then verifies; chat with HTML in it shown as text in another browser's
page; the page at 390x844 with touch acting once by a tap; a reload taking the seat back.
TABLETOP_WEB_SCREENSHOTS=DIR saves the page mid-game at both sizes there (docs/screenshots/web-*.png).
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.serving import served
from tabletop.cli import main

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
try:
    import selenium  # noqa: F401
    HAVE_SELENIUM = True
except ImportError:
    HAVE_SELENIUM = False
BROWSER = HAVE_SELENIUM and Path(CHROMIUM).is_file() and Path(CHROMEDRIVER).is_file()
needs_browser = pytest.mark.skipif(not BROWSER, reason="needs chromium, chromium-driver (apt) and selenium "
                                                       "(the test extra): .ci/run installs them")
SHOTS = os.environ.get("TABLETOP_WEB_SCREENSHOTS")
MOVE_MS = 20        # a pointer's move to where it presses (Selenium's default, 250 ms, is a slow hand)


# -- plain HTTP against the real server, in this process -----------------------------------------------------------
def with_server(check):
    """Run `await check(port)` against tabletop.net.server.serve on a free loopback port (rooms inline)."""
    from tabletop.net.server import serve

    async def run():
        stop, ready = asyncio.Event(), asyncio.Event()
        url = []
        task = asyncio.ensure_future(serve("127.0.0.1", 0, None, lambda u: (url.append(u), ready.set()),
                                           inline=True, stop=stop))
        await asyncio.wait_for(ready.wait(), 30)
        try:
            return await check(int(url[0].rsplit(":", 1)[1]))
        finally:
            stop.set()
            await task
    return asyncio.run(run())


async def http_get(port: int, path: str, headers: dict | None = None) -> tuple[int, dict, bytes]:
    """One raw GET (the path sent exactly as given): status, headers (lower-case names), body."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", *(f"{k}: {v}" for k, v in (headers or {}).items())]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
    await writer.drain()
    raw = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    found = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        found[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), found, body


OUTSIDE = [
    "/static/../net/http.py", "/static/../../pyproject.toml", "/static/%2e%2e/net/http.py",
    "/static/%2E%2E/%2E%2E/pyproject.toml", "/static/..%2fnet%2fhttp.py", "/static/..%5cnet%5chttp.py",
    "/static/%252e%252e/net/http.py", "/static/\\..\\net\\http.py", "/static/..\\net\\http.py",
    "/static//etc/passwd", "/static/%2fetc%2fpasswd", "/etc/passwd", "/static/", "/static/.", "/static/..",
    "/static/./room.js", "/static/room.js/..", "/static/room.js%00.css", "/static/__init__.py",
    "/r/../static/room.js", "/r/abc/../../etc/passwd", "/r/abc/table.glb", "/r/abc/other.json",
    "/../tabletop/web/room.html", "/r/ab%2fcd", "/", "/index.html", "/static/room.js?x=/../",
]


def test_a_path_outside_the_served_files_is_404_and_nothing_else():
    async def check(port):
        return [(path, *await http_get(port, path)) for path in OUTSIDE]
    for path, status, headers, body in with_server(check):
        if path == "/static/room.js?x=/../":                  # a query is not part of the file's name
            assert status == 200 and body.startswith(b"// The room page"), path
            continue
        assert (status, body) == (404, b"not found\n"), (path, status, body[:200])
        assert headers["content-type"] == "text/plain; charset=utf-8"


def test_the_page_and_its_files_carry_the_security_headers_and_their_types():
    async def check(port):
        page = await http_get(port, "/r/hqvQrWHVxpjgdzu1epi3Ww")
        script = await http_get(port, "/static/room.js")
        style = await http_get(port, "/static/room.css")
        again = await http_get(port, "/static/room.js", {"If-None-Match": script[1]["etag"]})
        return page, script, style, again
    page, script, style, again = with_server(check)
    for status, headers, _ in (page, script, style):
        assert status == 200
        csp = headers["content-security-policy"]
        for directive in ("default-src 'self'", "script-src 'self'", "connect-src 'self' ws: wss: blob:",
                          "img-src 'self' data: blob:", "style-src 'self'"):
            assert directive in csp, csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert headers["x-content-type-options"] == "nosniff" and headers["referrer-policy"] == "no-referrer"
        assert headers["cache-control"] == "no-cache" and headers["etag"]
    assert page[1]["content-type"] == "text/html; charset=utf-8"
    assert script[1]["content-type"] == "text/javascript; charset=utf-8"
    assert style[1]["content-type"] == "text/css; charset=utf-8"
    assert again[0] == 304 and again[2] == b""
    # no inline script or style in the page: everything comes from /static
    html = page[2].decode()
    assert "<script>" not in html and "style=" not in html and "<style" not in html and " on" not in html.lower()
    assert 'src="/static/room.js"' in html and 'id="table3d"' in html


def test_a_client_that_takes_gzip_gets_the_files_gzipped_and_the_same_bytes_once_unzipped():
    import gzip

    three = "/static/vendor/three/build/three.core.js"

    async def check(port):
        return [await http_get(port, path, headers) for path in ("/static/room.js", three)
                for headers in ({}, {"Accept-Encoding": "br, gzip;q=0.9"})]
    (plain_js, plain_h, zipped_js, zipped_h), (plain_three, three_h, zipped_three, zipped_three_h) = [
        (a[2], a[1], b[2], b[1]) for a, b in zip(*[iter(with_server(check))] * 2)]
    assert "content-encoding" not in plain_h and plain_h["vary"] == "Accept-Encoding"
    assert zipped_h["content-encoding"] == "gzip" and gzip.decompress(zipped_js) == plain_js
    assert int(zipped_h["content-length"]) == len(zipped_js) < len(plain_js)
    assert gzip.decompress(zipped_three) == plain_three and len(zipped_three) < len(plain_three) / 3
    assert zipped_three_h["etag"] == three_h["etag"]        # one file, one tag, whichever encoding


def test_a_vendor_file_is_cached_and_only_known_kinds_are_served(tmp_path, monkeypatch):
    from tabletop.net import http

    web = tmp_path / "web"
    (web / "vendor" / "three").mkdir(parents=True)
    (web / "vendor" / "three" / "three.module.js").write_text("export {};\n")
    (web / "secret.py").write_text("x = 1\n")
    (web / "room.html").write_text("<!doctype html>\n")
    (tmp_path / "outside.js").write_text("// outside\n")
    (web / "link.js").symlink_to(tmp_path / "outside.js")
    monkeypatch.setattr(http, "WEB", web)

    async def check(port):
        return [await http_get(port, path) for path in ("/static/vendor/three/three.module.js", "/static/secret.py",
                                                          "/static/link.js")]
    vendor, secret, link = with_server(check)
    assert vendor[0] == 200 and vendor[1]["cache-control"] == http.VENDOR_CACHE
    assert vendor[1]["content-type"] == "text/javascript; charset=utf-8"
    assert secret[0] == 404 and link[0] == 404          # not a kind the page uses; a link leading outside


def test_a_websocket_from_another_sites_page_is_refused_and_one_without_origin_or_of_the_page_is_let_in():
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    async def answers(port, origin=None):
        kwargs = {} if origin is None else {"origin": origin}
        try:
            async with connect(f"ws://127.0.0.1:{port}/x", **kwargs) as ws:
                await ws.send(json.dumps({"v": 2, "type": "join", "room": "nosuch", "spectate": True}))
                return json.loads(await asyncio.wait_for(ws.recv(), 10))["code"]
        except InvalidStatus as exc:
            return exc.response.status_code

    async def check(port):
        own = f"http://127.0.0.1:{port}"
        foreign = ("http://evil.example", f"http://evil.example:{port}", f"http://127.0.0.1:{port + 1}", "null",
                   f"http://localhost:{port}", f"file://127.0.0.1:{port}")
        return ([await answers(port), await answers(port, own)],
                {origin: await answers(port, origin) for origin in foreign})
    let_in, refused = with_server(check)
    assert let_in == ["unknown-room", "unknown-room"]     # no Origin (a Python client), the page's own
    assert set(refused.values()) == {403}, refused


def test_a_rooms_table_is_served_for_the_3d_view_and_an_unknown_rooms_is_404():
    from tabletop.net.client import create_room

    async def check(port):
        created = await create_room(f"ws://127.0.0.1:{port}", "knossos", ["remote", "ai"], 1, "measured",
                                    {"games_to_win": 1})
        return [await http_get(port, f"/r/{code}/{name}") for code in (created.room, "nosuch")
                for name in ("table.json", "table.glb")]
    (json_status, json_headers, body), (glb_status, glb_headers, glb), *unknown = with_server(check)
    assert json_status == 200 and json_headers["content-type"].startswith("application/json") and json.loads(body)
    assert glb_status == 200 and glb_headers["content-type"] == "model/gltf-binary" and glb[:4] == b"glTF"
    assert [status for status, _, _ in unknown] == [404, 404]


def test_same_origin_compares_host_and_port_with_the_schemes_default():
    from websockets.datastructures import Headers

    from tabletop.net.http import same_origin

    def ok(origin, host):
        return same_origin(Headers([("Host", host)] + ([("Origin", origin)] if origin else [])))
    assert ok(None, "anything:1")
    assert ok("https://games.example", "games.example") and ok("https://games.example", "games.example:443")
    assert ok("http://games.example:8765", "games.example:8765") and ok("http://[::1]:80", "[::1]")
    assert not ok("https://games.example", "games.example:8765") and not ok("http://a.example", "b.example")
    assert not ok("file://", "games.example") and not ok("http://games.example:x", "games.example")


@pytest.mark.slow
def test_host_prints_the_rooms_browser_link_beside_the_join_address(serve_process, capsys):
    url, _ = serve_process
    assert main(["host", "knossos", "--server", url, "--seats", "remote,ai", "--outcomes", "measured"]) == 0
    out = capsys.readouterr().out.splitlines()
    join = next(line.split()[1] for line in out if line.startswith("join: "))
    page = next(line.split()[-1] for line in out if line.startswith("open in a browser: "))
    code = join.rsplit("/", 1)[1]
    assert page == url.replace("ws://", "http://") + f"/r/{code}"
    assert out[-1].startswith("join: ") and out[-2].startswith("open in a browser: ")   # join: stays last


# -- in a real browser ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def serve_process(tmp_path_factory):
    """`tabletop serve --port 0` as a process: (its ws:// address, the data folder); stopped after."""
    with served(tmp_path_factory.mktemp("web")) as running:
        yield running


def make_room(url: str, seats, seed: int = 1, outcomes: str = "physics") -> str:
    """A Knossos room (one game) on the server: the page's address."""
    from tabletop.net.client import create_room

    created = asyncio.run(create_room(url, "knossos", seats, seed, outcomes, {"games_to_win": 1}))
    return f"{url.replace('ws://', 'http://')}/r/{created.room}"


def new_browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,720", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    options.add_argument("--enable-unsafe-swiftshader")        # WebGL on the CPU, for the 3D table
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


def set_size(driver, width: int, height: int, touch: bool = False) -> None:
    """The page's viewport exactly width x height CSS pixels (a phone's: mobile, with touch)."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": touch})
    driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": touch, "maxTouchPoints": 5})


@pytest.fixture(scope="module")
def browser():
    if not BROWSER:
        pytest.skip("needs chromium, chromium-driver (apt) and selenium (the test extra): .ci/run installs them")
    driver = new_browser()
    yield driver
    driver.quit()


@pytest.fixture
def page(browser):
    """The module's browser at 1280x720, no touch; its page's errors checked after the test."""
    set_size(browser, 1280, 720)
    yield browser
    errors = [entry["message"] for entry in browser.get_log("browser") if entry["level"] == "SEVERE"
              and ("room.js" in entry["message"] or "Content Security Policy" in entry["message"])]
    assert not errors, errors


def wait(driver, script: str, timeout: float = 30.0):
    """Poll the page until `script` (a JavaScript expression) is truthy; its value."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: d.execute_script(f"return {script}"))


def take_seat(driver, link: str, name: str, watch: bool = False) -> None:
    from selenium.webdriver.common.by import By

    driver.get(link)
    field = driver.find_element(By.ID, "name")
    wait(driver, "!document.getElementById('welcome').hidden")
    field.clear()
    field.send_keys(name)
    driver.find_element(By.ID, "watch" if watch else "play").click()
    wait(driver, "document.body.dataset.seat")


ACTING_OR_OVER = "document.body.dataset.acting === 'yes' || !document.getElementById('result').hidden"


def shoot(driver, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(SHOTS) / name))


@needs_browser
@pytest.mark.slow
def test_a_browser_seat_plays_a_knossos_room_to_its_end_by_clicks_and_the_journal_verifies(serve_process, page):
    from selenium.webdriver.common.by import By

    url, data = serve_process
    link = make_room(url, ["remote", "ai"], seed=1, outcomes="measured")   # (physics: the King Kong tests)
    started = time.perf_counter()
    take_seat(page, link, "Ann")
    assert page.execute_script("return document.body.dataset.seat") == "red"
    table_ready(page)                               # the words on its table: table.json's, every one drawn
    import urllib.request

    with urllib.request.urlopen(f"{link}/table.json", timeout=30) as answer:
        words = len(json.loads(answer.read())["labels"])
    assert words > 10 and page.execute_script("return document.getElementById('table3d').table3d.labels") == words
    decisions = 0
    while True:
        wait(page, ACTING_OR_OVER)
        if not page.find_element(By.ID, "result").is_displayed():
            buttons = page.find_elements(By.CSS_SELECTOR, "#choices button.choice")
            assert buttons and all(b.size["height"] >= 44 for b in buttons)
            if decisions == 6:
                shoot(page, "web-knossos-mid-1280x720.png")
            step = page.execute_script("return document.body.dataset.step")
            buttons[-1].click()                           # a real click on the page's button
            decisions += 1
            wait(page, f"document.body.dataset.step !== '{step}' || !document.getElementById('result').hidden")
            continue
        break
    result = page.find_element(By.ID, "result").text
    checked = int(page.execute_script("return document.body.dataset.checked"))
    print(f"a Knossos game played in the browser: {decisions} decisions by click, {checked} throws checked, "
          f"{time.perf_counter() - started:.1f} s")
    assert decisions >= 3 and "wins" in result and "commitment checked in this browser" in result
    assert "did NOT match" not in result and "re-simulated" not in page.find_element(By.TAG_NAME, "body").text
    assert checked >= decisions
    verify_journal(data, link)


def verify_journal(data: Path, link: str) -> str:
    """The room's journal (under the server's data folder) once closed verifies with `tabletop
    replay --verify`, its commitments checked; what that printed."""
    from tabletop.sim.record import ReplayFile

    journal = data / link.rsplit("/", 1)[1] / "game.ttr"
    deadline = time.monotonic() + 20
    while ReplayFile.open(journal).end is None and time.monotonic() < deadline:
        time.sleep(0.1)
    verified = subprocess.run([sys.executable, "-m", "tabletop.cli", "replay", str(journal), "--verify"],
                              capture_output=True, text=True, timeout=120)
    assert verified.returncode == 0, verified.stderr
    assert "commitments checked" in verified.stdout
    return verified.stdout


@needs_browser
@pytest.mark.slow
def test_chat_with_html_in_it_shows_as_text_in_another_browsers_page(serve_process, page):
    from selenium.webdriver.common.by import By

    url, _ = serve_process
    link = make_room(url, ["remote", "remote"], seed=2, outcomes="measured")
    evil_name = '<i id="pwn-name">Ann</i>'
    evil = '<img src=x onerror="window.pwned=1"><b id="pwn">bold</b> & <script>window.pwned=2</script>'
    take_seat(page, link, evil_name)
    other = new_browser()
    try:
        take_seat(other, link, "Bea", watch=True)
        assert other.execute_script("return document.body.dataset.seat") == "spectator"
        page.find_element(By.ID, "say").send_keys(evil + "\n")
        wait(other, "document.querySelectorAll('#chat li').length > 0")
        line = other.find_element(By.CSS_SELECTOR, "#chat li")
        assert line.text == f"red ({evil_name}): {evil}"
        assert other.execute_script("return document.querySelectorAll('#chat img, #chat b, #chat script, "
                                    "#pwn, #pwn-name').length") == 0
        assert other.execute_script("return window.pwned") is None
        # the player's name in the lobby: text too
        wait(other, "document.querySelector('#players li .name').textContent.length > 0")
        assert other.find_element(By.CSS_SELECTOR, "#players li .name").text == evil_name
        assert "waiting for blue" in other.find_element(By.ID, "waiting").text
    finally:
        other.quit()


@needs_browser
@pytest.mark.slow
def test_the_page_at_390x844_with_touch_acts_by_a_tap(serve_process, browser):
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput
    from selenium.webdriver.common.by import By

    url, _ = serve_process
    link = make_room(url, ["remote", "ai"], seed=3)
    set_size(browser, 390, 844, touch=True)
    try:
        take_seat(browser, link, "Cy")
        assert browser.execute_script("return navigator.maxTouchPoints") > 0
        wait(browser, ACTING_OR_OVER)
        button = browser.find_element(By.CSS_SELECTOR, "#choices button.choice")
        assert button.size["height"] >= 44 and button.size["width"] >= 44
        step = browser.execute_script("return document.body.dataset.step")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
        taps = ActionBuilder(browser, mouse=PointerInput("touch", "finger"), duration=MOVE_MS)
        taps.pointer_action.move_to(button).pointer_down().pointer_up()
        taps.perform()
        wait(browser, f"document.body.dataset.step !== '{step}'")
        # one column: nothing wider than the phone, every panel reached by scrolling down
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390
        for panel in ("choices", "players-panel", "log-panel", "chat-panel"):
            box = browser.execute_script(f"const r = document.getElementById('{panel}').getBoundingClientRect();"
                                         "return [r.left, r.right]")
            assert 0 <= box[0] and box[1] <= 390, (panel, box)
        for _ in range(3):                                 # a few more taps, then the page mid-game
            wait(browser, ACTING_OR_OVER)
            if browser.find_element(By.ID, "result").is_displayed():
                break
            step = browser.execute_script("return document.body.dataset.step")
            button = browser.find_element(By.CSS_SELECTOR, "#choices button.choice")
            browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
            taps = ActionBuilder(browser, mouse=PointerInput("touch", "finger"), duration=MOVE_MS)
            taps.pointer_action.move_to(button).pointer_down().pointer_up()
            taps.perform()
            wait(browser, f"document.body.dataset.step !== '{step}' || !document.getElementById('result').hidden")
        wait(browser, ACTING_OR_OVER)
        browser.execute_script("window.scrollTo(0, 0)")
        shoot(browser, "web-knossos-mid-390x844.png")
    finally:
        set_size(browser, 1280, 720)


@needs_browser
@pytest.mark.slow
def test_a_reload_takes_the_seat_back_and_the_token_is_kept_for_that_room_alone(serve_process, page):
    from selenium.webdriver.common.by import By

    url, _ = serve_process
    link = make_room(url, ["remote", "remote"], seed=4, outcomes="measured")
    code = link.rsplit("/", 1)[1]
    take_seat(page, link, "Dee")
    assert page.execute_script("return document.body.dataset.seat") == "red"
    wait(page, "document.getElementById('waiting').textContent.includes('blue')")
    seat = json.loads(page.execute_script(f"return localStorage.getItem('tabletop.room.{code}')"))
    assert seat["seat"] == "red" and len(seat["token"]) >= 32
    kept = page.execute_script("return Object.keys(localStorage).filter(k => localStorage[k].includes(arguments[0]))",
                               seat["token"])
    assert kept == [f"tabletop.room.{code}"], kept
    page.refresh()
    wait(page, "document.body.dataset.seat")
    assert page.execute_script("return document.body.dataset.seat") == "red"
    assert page.find_element(By.ID, "welcome").is_displayed() is False       # no name asked again
    wait(page, "document.getElementById('waiting').textContent.includes('blue')")
    # read at once: the page redraws the list on every notice, which would leave a held element stale
    seats = page.execute_script("return [...document.querySelectorAll('#players li')].map(li => li.innerText)")
    assert "Dee" in seats[0] and "open to a player" in seats[1], seats     # the same seat, not another
    # another room's page does not take this seat's token
    other = make_room(url, ["remote", "ai"], seed=5, outcomes="measured")
    page.get(other)
    wait(page, "!document.getElementById('welcome').hidden")


STUB_TABLE = """
export function mount(element, glbUrl, jsonUrl) {
  const calls = window.table3dCalls = [["mount", element.id, glbUrl, jsonUrl]];
  element.append(document.createElement("canvas"));
  return {
    setPieces(pieces) { calls.push(["setPieces", pieces === undefined ? null : pieces]); },
    showChoices(choices, onPick) { calls.push(["showChoices", choices.length, Boolean(onPick)]); window.table3dPick = onPick; },
    dispose() { calls.push(["dispose"]); },
  };
}
"""


@needs_browser
@pytest.mark.slow
def test_the_page_mounts_a_3d_table_where_one_is_installed_and_acts_on_its_pick(tmp_path, monkeypatch, browser):
    """table3d.js's interface as the page calls it: mount(element, glbUrl, jsonUrl), then
    showChoices(choices, onPick) with the seat's choices and onPick(index) acting on legal[index]."""
    from tabletop.net import http
    from tabletop.net.client import create_room

    web = tmp_path / "web"
    shutil.copytree(http.WEB, web, ignore=shutil.ignore_patterns("table3d.js", "vendor", "__pycache__"))
    (web / "table3d.js").write_text(STUB_TABLE)
    monkeypatch.setattr(http, "WEB", web)
    set_size(browser, 1280, 720)

    def in_browser(port, code):
        take_seat(browser, f"http://127.0.0.1:{port}/r/{code}", "Eve")
        wait(browser, "window.table3dCalls && document.body.dataset.acting === 'yes'")
        step = browser.execute_script("return document.body.dataset.step")
        browser.execute_script("window.table3dPick(0)")
        wait(browser, f"document.body.dataset.step !== '{step}'")
        return browser.execute_script("return window.table3dCalls"), browser.find_element("id", "table3d").is_displayed()

    async def check(port):
        created = await create_room(f"ws://127.0.0.1:{port}", "knossos", ["remote", "ai"], 1, "measured",
                                    {"games_to_win": 1})
        return created.room, await asyncio.to_thread(in_browser, port, created.room)
    code, (calls, shown) = with_server(check)
    assert calls[0] == ["mount", "table3d", f"/r/{code}/table.glb", f"/r/{code}/table.json"]
    shows = [c for c in calls if c[0] == "showChoices"]
    first = next(i for i, c in enumerate(shows) if c[1] > 0 and c[2])          # the seat's choices, with onPick
    assert shown and not all(c[2] for c in shows[first:])     # once picked: nothing to pick until the next view


# -- a King Kong room: the hard case (hidden hands, dozens of lit places, three kinds of seat) -------------------------
KONG_CARDS = ("Attack Left Foot", "Attack Left Hand", "Attack Right Foot", "Attack Right Hand", "Escape Equipment",
              "Helicopter Ride", "Safety Net", "Special Mission")
KONG_LIMIT = 400         # the browser seat's decisions before a game is called stuck (a whole game: 20-40)


def frames_received(driver) -> list[str]:
    """The websocket frames the page received since the last call (Chrome's performance log)."""
    out = []
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.webSocketFrameReceived":
            out.append(message["params"]["response"]["payloadData"])
    return out


def others_cards(text: str, own) -> list[str]:
    """The King Kong card names in `text` that the seat does not hold itself (`own`: its hand's names)."""
    return [name for name in KONG_CARDS if name in text and not any(name in card for card in own)]


def check_secrets(driver, frames: list[str], hand: list) -> list:
    """Every frame and the page's DOM name no card but the seat's own: a view's `hand` is its own (the
    only one it gets), and nothing else in a frame or on the page names a card it does not hold (the
    log and the cards face up aside: cards played are public; the page's own hand box aside). The seat's hand after these frames."""
    for raw in frames:
        message = json.loads(raw)
        view = message.get("view") or {}
        if "hand" in view:
            hand = [str(card) for card in view["hand"]]
        public = {k: v for k, v in view.items() if k not in ("hand", "log")}      # the log: cards played
        if isinstance(public.get("position"), dict):                              # face up: on the table
            public["position"] = {k: v for k, v in public["position"].items() if k != "face_up"}
        rest = dict(message, view=public)
        assert not others_cards(json.dumps(rest), hand), (others_cards(json.dumps(rest), hand), hand, raw[:300])
        for seat, size in ((view.get("position") or {}).get("hand_sizes") or {}).items():
            assert isinstance(size, int), (seat, size)
    page_text = driver.execute_script(
        "const b = document.body.cloneNode(true); for (const id of ['log-panel', 'position-box', 'hand']) {"
        " const e = b.querySelector('#' + id); if (e) e.remove(); } return b.innerText")
    assert not others_cards(page_text, hand), others_cards(page_text, hand)
    return hand


def kong_room(url: str, seed: int) -> tuple[str, subprocess.Popen]:
    """A King Kong room (physics outcomes, one game): the browser's seat, a `join --headless --as ai`
    seat (started here) and the room's AI seat. Its page's link and the joined process."""
    from tabletop.net.client import create_room

    created = asyncio.run(create_room(url, "king-kong", ["remote", "remote", "ai"], seed, "physics", {}))
    joined = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "join", f"{url}/{created.room}", "--seat", "blue",
                               "--headless", "--as", "ai", "--no-chat"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    return f"{url.replace('ws://', 'http://')}/r/{created.room}", joined


def table_ready(driver) -> None:
    wait(driver, "['ready', 'none', 'error'].includes(document.getElementById('table3d').dataset.table3d)", 60)
    assert driver.execute_script("return document.getElementById('table3d').dataset.table3d") == "ready"


def play_by_canvas(driver, tap: bool) -> str:
    """One decision of the acting seat, as a player makes it: where a choice is a lit place, a click
    (or tap) on a piece that has one on the canvas, then on the farthest of its lit places; else a
    click on the page's button. What was done."""
    from selenium.webdriver.common.actions.action_builder import ActionBuilder
    from selenium.webdriver.common.actions.pointer_input import PointerInput
    from selenium.webdriver.common.by import By

    def press(x: float, y: float) -> None:
        if tap:
            taps = ActionBuilder(driver, mouse=PointerInput("touch", "finger"), duration=MOVE_MS)
            taps.pointer_action.move_to_location(int(x), int(y)).pointer_down().pointer_up()
            taps.perform()
        else:
            builder = ActionBuilder(driver, duration=MOVE_MS)
            builder.pointer_action.move_to_location(int(x), int(y)).click()
            builder.perform()

    table = "document.getElementById('table3d').table3d"
    driver.execute_script("document.getElementById('table3d').scrollIntoView({block: 'start'})")
    choices = driver.execute_script(f"return {table}.choices")
    placed = [i for i, c in enumerate(choices) if c.get("at") is not None and c.get("piece") is not None]
    if placed:
        piece = choices[placed[0]]["piece"]
        at, where = driver.execute_script(             # one call: a piece has dozens of lit places
            f"const t = {table}; return [t.piecePoint({piece}), "
            f"t.choices.map((c, i) => c.at != null && c.piece === {piece} ? t.choicePoint(i) : null)]")
        points = {i: q for i, q in enumerate(where) if q is not None and i in placed}
        if at is not None and points:
            far = max(points, key=lambda i: (points[i]["x"] - at["x"]) ** 2 + (points[i]["y"] - at["y"]) ** 2)
            press(at["x"], at["y"])
            press(points[far]["x"], points[far]["y"])
            return f"canvas: piece {piece}, lit place {far} of {len(points)}"
    button = driver.find_elements(By.CSS_SELECTOR, "#choices button.choice")[0]
    said = button.text
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", button)
    if tap:
        taps = ActionBuilder(driver, mouse=PointerInput("touch", "finger"), duration=MOVE_MS)
        taps.pointer_action.move_to(button).pointer_down().pointer_up()
        taps.perform()
    else:
        button.click()
    return "button: " + said


def play_kong(driver, link: str, tap: bool, shots: str = "") -> tuple[list[str], int, str]:
    """The browser seat's decisions to the game's end (module docstring of play_by_canvas), every
    frame and the DOM checked at each (check_secrets). What was done, the frames received, the result."""
    from selenium.webdriver.common.by import By

    take_seat(driver, link, "Kim")
    table_ready(driver)
    hand, done, frames = [], [], 0
    while len(done) < KONG_LIMIT:
        wait(driver, ACTING_OR_OVER, 60)
        new = frames_received(driver)
        frames += len(new)
        hand = check_secrets(driver, new, hand)
        if driver.execute_script("return !document.getElementById('result').hidden"):
            break
        step = driver.execute_script("return document.body.dataset.step")
        if shots and len(done) == 1:
            shoot(driver, f"web-king-kong-early-{shots}.png")
        done.append(play_by_canvas(driver, tap))
        wait(driver, f"document.body.dataset.step !== '{step}' || !document.getElementById('result').hidden", 30)
    new = frames_received(driver)
    check_secrets(driver, new, hand)
    return done, frames + len(new), driver.find_element(By.ID, "result").text


def console_errors(driver) -> list[str]:
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def play_kong_to_its_end(driver, data: Path, url: str, seed: int, tap: bool, shots: str) -> None:
    """A King Kong room with the browser's seat, a `join --headless --as ai` seat and the room's AI
    played to its end (play_kong); its journal verifies; no SEVERE console error (no CSP error)."""
    driver.get_log("browser"), driver.get_log("performance")
    link, joined = kong_room(url, seed=seed)
    started = time.perf_counter()
    try:
        done, frames, result = play_kong(driver, link, tap=tap, shots=shots)
    finally:
        joined.terminate()
        joined.wait(30)
    print(f"King Kong in the browser ({shots}): {len(done)} decisions ({sum(d.startswith('canvas') for d in done)} "
          f"on the canvas), {frames} frames checked, {time.perf_counter() - started:.1f} s; {result}")
    assert "wins" in result, (result, done)
    assert any(d.startswith("canvas") for d in done) and any(d.startswith("button") for d in done), done
    assert frames > len(done)
    # the die and the spinner, which only a throw brings, came from the room's bodies.glb and played
    assert int(driver.execute_script("return document.getElementById('table3d').dataset.bodies || 0")) >= 1
    assert not console_errors(driver)
    verify_journal(data, link)


@needs_browser
@pytest.mark.slow
def test_a_kong_room_s_browser_seat_plays_by_clicks_on_the_canvas_to_the_end_and_sees_no_other_seats_card(
        serve_process, page):
    """King Kong with a browser seat, a `join --headless --as ai` seat and the room's AI, to the end:
    the browser seat's decisions by real clicks on the 3D table (its pawn, then the farthest lit
    place) and on the page's buttons; no frame the page received and no DOM at any turn names
    another seat's card; the table ready with no SEVERE console error; the journal verifies."""
    url, data = serve_process
    play_kong_to_its_end(page, data, url, seed=5, tap=False, shots="1280x720")


@needs_browser
@pytest.mark.slow
def test_a_kong_room_at_390x844_plays_by_taps_on_the_canvas_to_the_end_and_hides_the_others_cards(serve_process,
                                                                                                   browser):
    """The same at a phone's 390x844, with touch: every decision by a tap."""
    url, data = serve_process
    set_size(browser, 390, 844, touch=True)
    try:
        play_kong_to_its_end(browser, data, url, seed=7, tap=True, shots="390x844")
    finally:
        set_size(browser, 1280, 720)


@needs_browser
@pytest.mark.slow
def test_every_games_table_loads_whole_in_the_page_with_no_console_error(serve_process, page):
    """A spectator of each game's room (in its lobby: nothing thrown meanwhile) gets the whole table:
    ready, its words drawn, and no SEVERE console message (a texture of the board's art that the
    content security policy blocked was one: the glTF's images are decoded from blob: URLs)."""
    from tabletop.gamekit.definition import GameDefinition
    from tabletop.gamekit.registry import GAMES
    from tabletop.net.client import create_room

    url, _ = serve_process
    windowed = [n for n in GAMES if type(GAMES[n]).window_adapter is not GameDefinition.window_adapter]
    assert {"king-kong", "king-of-the-hill", "knossos"} <= set(windowed)
    for name in windowed:
        definition = GAMES[name]
        seats = ["remote"] * definition.seats[0]
        created = asyncio.run(create_room(url, name, seats, 1, "measured", definition.check_options({})))
        page.get_log("browser")
        take_seat(page, f"{url.replace('ws://', 'http://')}/r/{created.room}", "Eve", watch=True)
        table_ready(page)
        wait(page, "document.getElementById('table3d').table3d.frames > 0", 30)
        time.sleep(0.5)                       # the art's textures decode after the first frame
        severe = [e["message"] for e in page.get_log("browser") if e["level"] == "SEVERE"]
        assert not severe, (name, severe)
        assert page.execute_script("return document.getElementById('table3d').table3d.labels") > 0, name
