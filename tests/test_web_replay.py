"""`tabletop replay GAME.ttr --html OUT.html`: a recorded game as one self-contained web page
(tabletop.net.replay_page, tabletop/web/replay.js).

Without a browser: the file holds everything it needs (its modules as data: URLs in an import map,
its style, the table, the game) and nothing it names is fetched from elsewhere; its content
security policy allows only its own inline scripts and data:; the steps are the replay's actions,
each throw's motion hashing to its reveal; a game with hidden hands exports no hand and no seed of
a hidden chance event unless --reveal; bad input is one line and exit 2.

In a real browser (Debian's chromium, Selenium, headless; skipped where not installed): the page of
a committed physics Knossos game opened from file:// with the network off plays to its end, its
reveals and motions checked in the browser, and the position it shows at the end hashes to the
replay's final position (tabletop.net.browser.position_digest), computed here from the replay
re-driven by the rules; a turn back and the start show earlier steps.
"""
from __future__ import annotations

import json
import re
import time

import pytest

from tabletop.cli import main
from tests.test_web import needs_browser, new_browser, wait

SECRET = bytes(range(32))


def record(path, name: str, outcomes: str, options: dict, seats=None) -> None:
    """A committed game (as a room records it: every chance event committed, then revealed)."""
    from tabletop.gamekit.commit import CommittedSeeds
    from tabletop.gamekit.registry import GAMES
    from tabletop.gamekit.session import play_headless

    definition = GAMES[name]
    if outcomes == "measured":
        from tabletop.gamekit.outcomes import play_outcomes

        outcomes = play_outcomes(definition, "measured")
    play_headless(definition, seats or ["ai"] * definition.seats[0], 0, outcomes, options, record=path,
                  emit=lambda line: None, seeds=CommittedSeeds(SECRET))


@pytest.fixture(scope="module")
def knossos(tmp_path_factory):
    """A committed physics Knossos game (one game) and its page: (the .ttr, the .html)."""
    folder = tmp_path_factory.mktemp("replay-page")
    ttr, html = folder / "knossos.ttr", folder / "knossos.html"
    record(ttr, "knossos", "physics", {"games_to_win": 1})
    assert main(["replay", str(ttr), "--html", str(html)]) == 0
    return ttr, html


def page_data(html: str) -> dict:
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', html, re.S)
    return json.loads(found.group(1))


def test_the_page_holds_everything_it_needs_and_fetches_nothing(knossos):
    ttr, html_path = knossos
    html = html_path.read_text()
    # nothing named outside the file: every src/href/url is data: (or the page's own #anchors)
    for attribute in re.findall(r'\b(?:src|href)\s*=\s*"([^"]*)"', html):
        assert attribute.startswith("data:"), attribute
    assert "/static/" not in html
    imports = json.loads(re.search(r'<script type="importmap">(.*?)</script>', html, re.S).group(1))["imports"]
    names = set(imports)
    for module in ("room.js", "replay.js", "motion.js", "table3d.js", "vendor/three/build/three.module.js",
                   "vendor/three/build/three.core.js", "vendor/three/examples/jsm/loaders/GLTFLoader.js"):
        assert f"@tabletop/{module}" in names, module
    import base64

    for name, url in imports.items():
        assert url.startswith("data:text/javascript;base64,"), name
        source = base64.b64decode(url.split(",", 1)[1]).decode()
        # every import is by the map's name: a relative one would resolve against data: and fail
        assert not re.search(r"""(\bfrom\s*|\bimport\s*\(?\s*)['"]\.{1,2}/""", source), name
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html).group(1)
    assert "default-src 'none'" in csp and "connect-src data: blob:" in csp and "'unsafe-inline'" not in csp
    data = page_data(html)
    assert data["format"] == "tabletop-replay-page" and data["game"] == "knossos" and data["committed"]
    assert data["table"]["glb"].startswith("data:model/gltf-binary;base64,")


def test_the_steps_are_the_replays_actions_and_each_motion_hashes_to_its_reveal(knossos):
    import base64
    import hashlib
    import zlib

    from tabletop.gamekit.commit import check_reveal
    from tabletop.sim.record import ReplayFile

    ttr, html = knossos
    data = page_data(html.read_text())
    replay = ReplayFile.open(ttr)
    actions = [step for turn in replay.turns for step in turn.steps if "action" in step]
    assert len(data["steps"]) == len(actions) + 1                 # the start, then one per action
    commits, reveals, motions = {}, {}, 0
    for step, recorded in zip(data["steps"][1:], actions):
        kinds = [m["type"] for m in step["messages"]]
        assert kinds[-1] == "view" and step["messages"][-1]["step"] == data["steps"].index(step)
        if "chance" in recorded:
            assert kinds[:2] == ["commit", "reveal"], kinds
            commit, reveal = step["messages"][:2]
            assert commit["commitment"] == recorded["commitment"] and check_reveal(commit["commitment"], reveal)
            commits[commit["chance"]], reveals[reveal["chance"]] = commit, reveal
            if "motion" in kinds:
                motion = step["messages"][kinds.index("motion")]
                raw = zlib.decompress(base64.b64decode(motion["data"]))
                assert hashlib.sha256(raw).hexdigest() == reveal["motion_sha256"] == recorded["motion_sha256"]
                motions += 1
        else:
            assert kinds == ["view"]
    assert len(commits) == len(reveals) > 3 and motions == len(reveals)
    # the log the page builds from the views is the game's whole log
    log = [line for step in data["steps"] for line in step["messages"][-1]["view"]["log"]]
    assert log[-1] == data["steps"][-1]["messages"][-1]["view"]["log"][-1] and len(log) > len(actions) // 2


@pytest.fixture(scope="module")
def kong(tmp_path_factory):
    folder = tmp_path_factory.mktemp("replay-kong")
    ttr = folder / "kong.ttr"
    record(ttr, "king-kong", "measured", {})
    return ttr


def test_a_game_with_hidden_hands_exports_no_hand_and_no_hidden_seed_unless_reveal(kong, tmp_path):
    from tabletop.gamekit.registry import GAMES
    from tabletop.sim.record import ReplayFile

    hidden, shown = tmp_path / "hidden.html", tmp_path / "shown.html"
    assert main(["replay", str(kong), "--html", str(hidden)]) == 0
    assert main(["replay", str(kong), "--html", str(shown), "--reveal"]) == 0
    private = set(GAMES["king-kong"].private_chance)
    replay = ReplayFile.open(kong)
    hidden_seeds = {step["reveal"]["seed"] for turn in replay.turns for step in turn.steps
                    if step.get("chance") in private}
    assert hidden_seeds
    text = hidden.read_text()
    data = page_data(text)
    views = [m["view"] for step in data["steps"] for m in step["messages"] if m["type"] == "view"]
    assert not any("hand" in v or "hands" in v for v in views)
    assert not any(seed in text for seed in hidden_seeds)           # a shuffle's seed would give the hands
    assert data["hidden"].startswith("hands hidden") and data["hidden_events"] == len(hidden_seeds)
    revealed = page_data(shown.read_text())
    views = [m["view"] for step in revealed["steps"] for m in step["messages"] if m["type"] == "view"]
    colours = set(GAMES["king-kong"].colours[:len(replay.header["config"]["seats"])])
    assert len(colours) >= 2 and all(set(v["hands"]) == colours for v in views)
    assert revealed["hidden_events"] == 0 and all(seed in shown.read_text() for seed in hidden_seeds)


def test_bad_input_is_one_line_and_exit_2(kong, tmp_path, capsys):
    cases = [
        (["replay", str(kong), "--html", str(tmp_path / "no" / "x.html")], "does not exist"),
        (["replay", str(kong), "--html", str(tmp_path / "x.html"), "--summary"], "--html: not with"),
        (["replay", str(tmp_path / "missing.ttr"), "--html", str(tmp_path / "x.html")], "missing.ttr"),
    ]
    for argv, said in cases:
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert said in err and err.count("\n") == 1, err
    assert not (tmp_path / "x.html").exists()


# -- in a browser, from file://, offline ------------------------------------------------------------
@needs_browser
@pytest.mark.slow
def test_the_page_from_file_with_the_network_off_plays_to_the_end_on_the_replays_final_position(knossos):
    from tabletop.net.browser import position_digest
    from tabletop.net.replay_page import page_data as built

    ttr, html = knossos
    _, _, final = built(ttr)                              # the replay re-driven by the rules, here
    expected = position_digest(**final)
    driver = new_browser()
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0,
                                                                   "downloadThroughput": -1, "uploadThroughput": -1})
        driver.get(html.as_uri())
        wait(driver, "document.body.dataset.replayChecked === 'yes'", 60)
        wait(driver, "['ready', 'error'].includes(document.getElementById('table3d').dataset.table3d)", 60)
        assert driver.execute_script("return document.getElementById('table3d').dataset.table3d") == "ready"
        checks = driver.execute_script("return document.getElementById('replay-checks').textContent")
        n = int(re.search(r"(\d+) of \1 reveals match their commitments", checks).group(1))
        assert re.search(rf"{n} of {n} throws' motions match their hashes", checks), checks
        assert n > 3 and "NOT" not in checks
        steps = int(driver.execute_script("return document.body.dataset.replaySteps"))
        driver.execute_script("const s = document.getElementById('replay-speed'); s.value = '64';"
                              "s.dispatchEvent(new Event('change'))")
        started = time.perf_counter()
        driver.find_element("id", "replay-play").click()
        wait(driver, "document.body.dataset.replayDone === 'yes' && document.body.dataset.position", 240)
        print(f"the replay page played {steps} steps at 64x in {time.perf_counter() - started:.1f} s")
        assert driver.execute_script("return document.body.dataset.position") == expected
        played = int(driver.execute_script("return document.getElementById('motion').dataset.checked"))
        assert played == n                                # every throw checked again as it played
        assert "wins" in driver.find_element("id", "result").text
        # a turn back, then the start: earlier steps, no position exposed; the end again: the same hash
        driver.find_element("css selector", "#replay-bar button[aria-label^='a turn back']").click()
        assert int(driver.execute_script("return document.body.dataset.replayStep")) < steps
        assert driver.execute_script("return document.body.dataset.position") is None
        driver.find_element("css selector", "#replay-bar button[aria-label^='the start']").click()
        assert driver.execute_script("return document.body.dataset.replayStep") == "0"
        assert driver.execute_script("return document.querySelectorAll('#log li').length") < 5
        driver.find_element("css selector", "#replay-bar button[aria-label^='the end']").click()
        wait(driver, "document.body.dataset.position", 10)
        assert driver.execute_script("return document.body.dataset.position") == expected
        errors = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
    finally:
        driver.quit()


def test_a_throws_bodies_the_table_lacks_are_in_the_page_hidden_until_thrown(tmp_path):
    """King Kong's die and spinner come only with their throws' motions (the window adds them when
    first thrown): the page's table has them, hidden until a throw poses them."""
    import base64

    ttr, html = tmp_path / "kong.ttr", tmp_path / "kong.html"
    assert main(["play", "king-kong", "--headless", "--seats", "ai,ai", "--seed", "2", "--record", str(ttr)]) == 0
    assert main(["replay", str(ttr), "--html", str(html)]) == 0
    data = page_data(html.read_text())
    info = json.loads(base64.b64decode(data["table"]["json"].split(",", 1)[1]))
    thrown = {t: about for t, about in info["tracks"].items() if about.get("until_thrown")}
    assert {about["body"] for about in thrown.values()} >= {"die"}, sorted(info["tracks"])
    moved = {t for step in data["steps"] for m in step["messages"] if m["type"] == "motion" for t in m["tracks"]}
    assert set(thrown) <= moved                        # each is posed by a throw
    assert "die" not in {about["body"] for t, about in info["tracks"].items() if t not in thrown}


def test_a_review_given_puts_its_rows_in_the_page_one_set_per_step(knossos, tmp_path):
    ttr, _ = knossos
    review, html = tmp_path / "review.json", tmp_path / "reviewed.html"
    assert main(["review", str(ttr), "--out", str(review), "--quiet"]) == 0
    assert main(["replay", str(ttr), "--html", str(html), "--review", str(review)]) == 0
    data = page_data(html.read_text())
    rows = data["review"]
    assert len(rows) == len(data["steps"]) and all(r[0] == "REVIEW (exact)" for r in rows)
    assert any("luck" in line for r in rows for line in r) and any("'s move:" in line for r in rows for line in r)
    assert any("accuracy" in line for line in rows[-1])          # the end: each player's summary
