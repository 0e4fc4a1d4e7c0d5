"""A game nobody wrote the front ends for: the coin race, a plugin distribution of its own
(tests/plugins/coin_race, installed beside tabletop as the README's test command does), taken up
from its entry points alone (no monkeypatch, no registry line, no import of its modules here but
where a test is about its own code):

- the registries find it (`tabletop.games`: coin-race; `tabletop.devices`: its own `coin`, whose
  spec and measured table lie in the plugin's package) and the command line lists it;
- `play --headless` with the physical coin and with the measured table, recorded; `replay
  --summary` prints the same log and `replay --verify` re-simulates every flip; its option is
  checked and refused for another game;
- `review`, `analyze`, `bench --rules`, `estimate coin`;
- `serve` (a process), `host` and `join --headless` over loopback websockets, the room's journal
  verified;
- the PettingZoo environment (api_test) and OpenSpiel's random_sim_test;
- the window: `play --screenshot` and `replay --frames` render its table offscreen;
- a broken variant (the plugin's definition less one required hook, installed beside it as a
  distribution of its own) is refused in one line naming the hook while every other game plays,
  and a variant with no window says so in one line for `play --screenshot` and `replay --frames`,
  with no window opened and no traceback.
"""
from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.serving import served
from tabletop.gamekit.registry import GAMES

GAME = "coin-race"
PLUGIN = Path(__file__).parent / "plugins" / "coin_race"

pytestmark = pytest.mark.skipif(GAME not in GAMES, reason="the coin race plugin is not installed: "
                                "python -m pip install -e tests/plugins/coin_race")


def run(*argv) -> tuple[int, str, str]:
    """`tabletop ARGV` in this process: (exit status, stdout, stderr)."""
    from tabletop.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as exc:          # --help
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A game with the physical coin, random seats, recorded: (its file, its printed log)."""
    path = tmp_path_factory.mktemp("coin-race") / "race.ttr"
    rc, out, err = run("play", GAME, "--headless", "--seats", "random,random", "--seed", 2, "--record", path)
    assert rc == 0, err
    return path, out


# -- found by its entry points ---------------------------------------------------------------------

def test_the_registries_find_the_game_and_its_own_device_from_its_distribution():
    from importlib.metadata import entry_points

    from tabletop.gamekit.devices import DEVICES, default_spec
    from tabletop.gamekit.chance import measured_paths

    (point,) = [ep for ep in entry_points(group="tabletop.games") if ep.name == GAME]
    assert point.dist.name == "tabletop-coin-race" and point.value == "tabletop_coin_race:CoinRace"
    definition = GAMES[GAME]
    assert type(definition).__module__ == "tabletop_coin_race" and GAME not in GAMES.problems()
    assert "coin" in DEVICES and DEVICES["coin"].target == "tabletop_coin_race.coin:Coin"
    assert default_spec("coin") == PLUGIN / "tabletop_coin_race" / "coin.toml"
    (table,) = measured_paths(definition.devices)
    assert table == PLUGIN / "tabletop_coin_race" / "measured" / "coin-10k-seed1.json" and table.is_file()
    rc, out, _ = run("play", "--help")
    assert rc == 0 and GAME in out


# -- play, record, replay -------------------------------------------------------------------------

def test_play_headless_with_the_physical_coin_then_summary_and_verify(recorded):
    path, played = recorded
    lines = played.splitlines()
    assert lines[0] == "Coin race to 4, seats red=random, blue=random, seed 2, outcomes physics"
    assert lines[-1].startswith("winner: ") and any(" flips " in line for line in lines)
    rc, summary, err = run("replay", path, "--summary")
    assert rc == 0 and summary == played, err
    rc, verified, err = run("replay", path, "--verify")
    assert rc == 0 and verified.startswith("verified: "), err


def test_play_on_the_measured_table_and_its_option(tmp_path):
    """The measured table found beside the plugin's device; its labels (top, bottom, side) are not in
    sorted order, and verify draws by the order the game drew by."""
    record = tmp_path / "measured.ttr"
    rc, out, err = run("play", GAME, "--headless", "--seats", "ai,random", "--seed", 5, "--outcomes", "measured",
                       "--goal", 2, "--record", record)
    assert rc == 0 and out.startswith("Coin race to 2, seats red=ai, blue=random"), err
    rc, verified, err = run("replay", record, "--verify")
    assert rc == 0 and verified.startswith("verified: "), err
    rc, _, err = run("play", GAME, "--headless", "--goal", 0, "--no-record")
    assert rc == 2 and "--goal: must be at least 1" in err and err.count("\n") == 1
    rc, _, err = run("play", "knossos", "--headless", "--goal", 2, "--no-record")
    assert rc == 2 and "--goal" in err and err.count("\n") == 1


# -- review, analyze, bench, estimate ------------------------------------------------------------

def test_review(recorded, tmp_path):
    path, _ = recorded
    out = tmp_path / "review.json"
    rc, printed, err = run("review", path, "--rollouts", 8, "--workers", 1, "--quiet", "--out", out)
    assert rc == 0, err
    review = json.loads(out.read_text())
    assert review["game"] == GAME and printed


def test_analyze(tmp_path):
    out = tmp_path / "a.json"
    rc, _, err = run("analyze", GAME, "--games", 200, "--seats", "random,random", "--goal", 3, "--quiet",
                     "--out", out)
    assert rc == 0, err
    result = json.loads(out.read_text())
    assert result["game"] == GAME and result["goal"] == 3
    red = result["figures"]["win_rate.red"]
    assert red["n"] == 200 and red["ci95"][0] <= red["value"] <= red["ci95"][1]


def test_bench_rules(tmp_path):
    out = tmp_path / "bench.json"
    rc, printed, err = run("bench", "--rules", "--rules-games", 3, "--out", out)
    assert rc == 0, err
    assert GAME in printed
    figures = json.loads(out.read_text())["games"][GAME]
    assert figures["games"] == 3 and figures["decisions_per_game"] > 0


def test_estimate_its_own_device(tmp_path):
    out = tmp_path / "coin.json"
    rc, _, err = run("estimate", "coin", "--trials", 20, "--seed", 1, "--quiet", "--out", out)
    assert rc == 0, err
    result = json.loads(out.read_text())
    assert result["device"] == "coin" and result["trials"] == 20
    assert set(result["probabilities"]) == {"top", "bottom", "side"}


# -- over the network -----------------------------------------------------------------------------

@pytest.fixture
def server(tmp_path):
    """`tabletop serve --port 0` as a process: (its address, the data folder); stopped after."""
    with served(tmp_path) as running:
        yield running


@pytest.mark.slow                  # a process of its own
def test_serve_host_and_join_headless(server):
    url, data = server
    rc, hosted, err = run("host", GAME, "--server", url, "--seats", "remote,ai", "--seed", 3, "--outcomes", "physics")
    assert rc == 0, err
    join = next(line.split()[1] for line in hosted.splitlines() if line.startswith("join: "))
    rc, played, err = run("join", join, "--headless", "--as", "random", "--seed", 1)
    assert rc == 0, err
    assert played.splitlines()[-1].startswith("winner: ")
    journal = data / join.rsplit("/", 1)[1] / "game.ttr"
    rc, verified, err = run("replay", journal, "--verify")
    assert rc == 0 and "verified" in verified, err


# -- agents ---------------------------------------------------------------------------------------

def test_the_pettingzoo_environment():
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test

    from tabletop.gamekit.env import env

    api_test(env(GAME, goal=3), num_cycles=100)


def test_openspiel_random_sim_test():
    pyspiel = pytest.importorskip("pyspiel")
    from tabletop.gamekit.openspiel import spiel_game

    pyspiel.random_sim_test(spiel_game(GAMES[GAME], goal=3), num_sims=3, serialize=True, verbose=False)


# -- the window -----------------------------------------------------------------------------------

def _png(path: Path) -> None:
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_window_screenshot_and_replay_frames(recorded, tmp_path):
    shot = tmp_path / "shot.png"
    rc, _, err = run("play", GAME, "--screenshot", shot, "--after-turns", 2, "--size", "320x180", "--no-record")
    if rc != 0 and "graphics" in err:
        pytest.skip(err.strip())
    assert rc == 0, err
    _png(shot)
    frames = tmp_path / "frames"
    rc, _, err = run("replay", recorded[0], "--frames", frames, "--fps", 2, "--size", "160x90", "--max-frames", 4)
    assert rc == 0, err
    written = sorted(frames.glob("frame-*.png"))
    assert 1 <= len(written) <= 4
    _png(written[0])


# -- a broken variant and a variant with no window, installed beside it ---------------------------

VARIANTS = '''
from tabletop.gamekit.definition import GameDefinition
from tabletop_coin_race import CoinRace


def without(class_name, hook, **metadata):
    """The coin race's definition, less `hook`, as a class of its own built on GameDefinition."""
    body = {k: v for k, v in vars(CoinRace).items() if k not in (hook, "__dict__", "__weakref__")}
    return type(class_name, (GameDefinition,), {**body, **metadata})


BrokenRace = without("BrokenRace", "codec", name="broken-race", title="Broken race")
WindowlessRace = without("WindowlessRace", "window_adapter", name="windowless-race", title="Windowless race")
'''

SCRIPT = '''
import contextlib, io, json, sys
from tabletop.cli import main
from tabletop.sim.view import app as view_app

opened = []                       # every window (or offscreen buffer) the commands open
real = view_app.TableApp.__init__
view_app.TableApp.__init__ = lambda self, *a, **k: (opened.append(1), real(self, *a, **k))[1]
results = []
for argv in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    opened.clear()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(argv)
    results.append({"rc": rc, "out": out.getvalue(), "err": err.getvalue(), "windows": len(opened)})
print(json.dumps(results))
'''


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    """A folder that holds a distribution of two variants of the coin race, as an installed one:
    its module and its .dist-info (METADATA, entry_points.txt). Put on PYTHONPATH, the entry-point
    registry finds it."""
    folder = tmp_path_factory.mktemp("variants")
    (folder / "coin_race_variants.py").write_text(VARIANTS)
    info = folder / "coin_race_variants-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: coin-race-variants\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(textwrap.dedent("""\
        [tabletop.games]
        broken-race = coin_race_variants:BrokenRace
        windowless-race = coin_race_variants:WindowlessRace
        """))
    return folder


def in_process(folder: Path, *commands, cwd: Path) -> list[dict]:
    """Each command run by `tabletop` in one fresh process that sees the variants' distribution."""
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), str(Path(__file__).parents[1])])}
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps([[str(a) for a in c] for c in commands])],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.slow                  # a process of its own
def test_a_definition_missing_a_required_hook_is_refused_in_one_line_and_the_others_play(variants, tmp_path):
    broken, knossos, coin, listed = in_process(
        variants,
        ["play", "broken-race", "--headless", "--no-record"],
        ["play", "knossos", "--headless", "--seats", "random,random", "--games-to-win", "1", "--outcomes", "measured",
         "--no-record"],
        ["play", GAME, "--headless", "--outcomes", "measured", "--no-record"],
        ["analyze", "knossos", "--games", "20", "--quiet"],
        cwd=tmp_path)
    assert broken["rc"] == 2 and broken["err"].count("\n") == 1 and "Traceback" not in broken["err"]
    assert "broken-race" in broken["err"] and "required hook codec" in broken["err"], broken["err"]
    assert knossos["rc"] == 0 and "wins the match" in knossos["out"], knossos["err"]
    assert coin["rc"] == 0 and coin["out"].splitlines()[-1].startswith("winner: "), coin["err"]
    assert listed["rc"] == 0, listed["err"]


@pytest.mark.slow                  # a process of its own
def test_a_game_with_no_window_says_so_in_one_line(variants, tmp_path):
    record = tmp_path / "windowless.ttr"
    played, shot, frames = in_process(
        variants,
        ["play", "windowless-race", "--headless", "--outcomes", "measured", "--record", record],
        ["play", "windowless-race", "--screenshot", tmp_path / "x.png", "--no-record"],
        ["replay", record, "--frames", tmp_path / "frames"],
        cwd=tmp_path)
    assert played["rc"] == 0, played["err"]
    for result in (shot, frames):
        assert result["rc"] == 2 and result["err"].count("\n") == 1 and "Traceback" not in result["err"], result
        assert "has no window" in result["err"] and result["windows"] == 0, result
    assert not (tmp_path / "x.png").exists() and not list((tmp_path / "frames").glob("*.png"))
