"""The one match loop: headless play, the window (offscreen, all AI, driven to its end), the replay
summary and verify agree line for line, result line and turn count included, for every registered
game; each chance event draws from its own seed. (The base state, replay and clone of every game:
tests/test_game_contracts.py.)"""
from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop.cli import main
from tabletop.gamekit.match import GameSeeds, Match
from tabletop.gamekit.registry import GAMES as DEFINITIONS
from tabletop.gamekit.state import ChanceOutcome
from tabletop.sim.record import RECORDED_AT, ReplayFile

STICKS_TABLE = Path(__file__).parents[1] / "assets" / "measured" / "sticks-10k-seed1.json"


def run(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


# -- chance: each event from its own generator ---------------------------------------------------
def _uniform(state, rng):
    if state.chance_event == "shuffle":
        pile = state.shuffle_pile()
        return " ".join(str(pile[i]) for i in rng.permutation(len(pile)))
    outcomes = state.chance_outcomes()
    return outcomes[int(rng.integers(len(outcomes)))]


class Uniform:
    """Every chance event answered uniformly from its generator; `extra[k]` more draws at event k
    first (a retry inside the event)."""

    def __init__(self, extra=None):
        self.extra, self.k = extra or {}, 0

    def outcome(self, event, state, rng):
        for _ in range(self.extra.get(self.k, 0)):
            rng.random()
        self.k += 1
        return _uniform(state, rng)


@pytest.mark.parametrize("game", list(DEFINITIONS))
def test_rules_import_no_physics_and_no_panda3d(game):
    """A registered game's definition, the rules' Game it makes and a state of it, and the match loop
    load neither PyBullet nor Panda3D."""
    code = ("import sys\n"
            "from tabletop.gamekit.registry import GAMES\n"
            f"d = GAMES[{game!r}]\n"
            "config = d.replay_config(['random'] * d.seats[0], 'physics', d.check_options({}))\n"
            "d.make_game(config).new_initial_state().legal_actions()\n"
            "import tabletop.gamekit.match\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pybullet', 'panda3d', 'direct'))\n"
            "print(','.join(bad))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ""


# -- seeds per chance event ---------------------------------------------------------------------
def test_a_retry_inside_a_chance_event_moves_no_later_outcome():
    """Extra draws inside chance event 3 (a tilt again) leave every other event's outcome as it was."""
    from tabletop.games.knossos.rules import Game

    def outcomes(source):
        state = Game(games_to_win=1).new_initial_state()
        match = Match(state, [None, None], source, seed=5)
        labels = []
        while len(labels) < 12:
            if state.is_chance_node():
                labels.append(match.draw())
                match.apply(ChanceOutcome(labels[-1]))
            else:
                match.apply(state.legal_actions()[0])
        return labels

    plain, retried = outcomes(Uniform()), outcomes(Uniform({3: 7}))
    assert plain[:3] == retried[:3] and plain[4:] == retried[4:]
    assert GameSeeds(5).chance(4).random() == GameSeeds(5).chance(4).random() != GameSeeds(5).chance(3).random()
    assert GameSeeds(5).seats.random() == np.random.default_rng(np.random.SeedSequence(5).spawn(2)[0]).random()


# -- one loop: headless, window, summary, verify --------------------------------------------------
def _shortest(definition) -> dict:
    """The game's options for its shortest game: each whole-number option at its minimum."""
    return {o.name: o.minimum if o.minimum is not None else o.default for o in definition.options}


# every registered game: (its fewest seats, all AI; the command line's flags and the window's options
# for its shortest game)
GAMES = {name: (["ai"] * d.seats[0], [w for o in d.options for w in (o.flag, str(_shortest(d)[o.name]))],
                _shortest(d)) for name, d in DEFINITIONS.items()}


def window_game(game: str, seed: int, record, **options):
    """An all-AI game in the offscreen window, driven to its end: (its log, its HUD's log)."""
    from tabletop.gamekit.view.window import open_game
    from tabletop.sim.view.app import ViewError

    seats = GAMES[game][0]
    try:
        app, ctrl = open_game(DEFINITIONS[game], seats, seed, size=(320, 180), offscreen=True, pace=0.0, record=record, options=options)
    except ViewError as exc:
        pytest.skip(f"no graphics pipe: {exc}")
    try:
        ctrl.fast_forward(10 ** 6)
        assert ctrl.state.is_terminal()
        lines, hud = list(ctrl.match.lines), list(ctrl.hud.lines)
        ctrl.close()
    finally:
        ctrl.adapter.close()
        app.destroy()
    return lines, hud


@pytest.mark.slow
# two seeds each (seed 2 verifies from the middle turn, seed 1 from the start), King of the Hill's
# whole physics games (20 s each) one: seed 2, its verify from the middle
@pytest.mark.parametrize("game,seed", [(g, s) for g in GAMES for s in (1, 2) if (g, s) != ("king-of-the-hill", 1)])
def test_headless_window_summary_and_verify_agree(tmp_path, game, seed):
    seats, args, options = GAMES[game]
    headless, windowed = tmp_path / "headless.ttr", tmp_path / "window.ttr"
    rc, printed, err = run("play", game, "--headless", "--seats", ",".join(seats), "--seed", seed, *args,
                           "--record", headless)
    assert rc == 0, err
    log = printed.splitlines()
    lines, hud = window_game(game, seed, windowed, **options)
    assert lines == log                       # banner, every log line and the result line
    assert hud == log                         # as the window's log panel shows them
    replay = ReplayFile.open(headless)
    turns = replay.end["result"]["turns"]
    if game != "knossos":                     # Knossos: the match's last log line names the winner
        assert log[-1].endswith(f" {turns} turns")
    a, b = bytearray(headless.read_bytes()), bytearray(windowed.read_bytes())
    a[RECORDED_AT] = b[RECORDED_AT] = bytes(8)
    assert a == b                             # the window records the very same replay
    for path in (headless, windowed):
        rc, out, err = run("replay", path, "--summary")
        assert rc == 0 and out.splitlines() == log
        assert "warning" not in err and f": {turns} turns," in err
    middle = turns // 2
    if seed == 2:                             # re-simulated from the middle of the game
        rc, out, err = run("replay", headless, "--verify", "--from-turn", middle)
        assert rc == 0, err
        assert out.startswith(f"verified from turn {middle}: {turns} turns, ")
        return
    rc, out, err = run("replay", headless, "--verify")
    assert rc == 0, err
    assert out.startswith(f"verified: {turns} turns, ")


@pytest.mark.slow
def test_verify_from_a_middle_turn_checks_from_there_on(tmp_path):
    """Knossos: verify from turn N re-simulates the chance events from turn N on (each from its
    own seed) and still catches a changed outcome there; a turn outside the game is one line."""
    from tabletop.gamekit.replay import Divergence, verify

    path = tmp_path / "match.ttr"
    assert run("play", "knossos", "--headless", "--seats", "ai,ai", "--seed", "1", "--games-to-win", "1",
               "--record", path)[0] == 0
    replay = ReplayFile.open(path)
    turns = replay.end["result"]["turns"]
    events = sum(1 for t in replay.turns for s in t.steps if "chance" in s)
    later = sum(1 for t in replay.turns if t.number >= turns - 3 for s in t.steps if "chance" in s)
    assert str(verify(replay, DEFINITIONS['knossos'])).startswith(f"verified: {turns} turns, {events} chance events")
    assert str(verify(replay, DEFINITIONS['knossos'], turns - 3)).startswith(f"verified from turn {turns - 3}: {turns} turns, {later} "
                                                     f"chance events")
    rc, out, err = run("replay", path, "--verify", "--from-turn", turns + 1)
    assert rc == 2 and err.count("\n") == 1 and "--from-turn" in err
    rc, out, err = run("replay", path, "--summary", "--from-turn", 3)
    assert rc == 2 and err.count("\n") == 1 and "--from-turn" in err
    from tabletop.gamekit import match

    class Shifted(match.GameSeeds):            # the events' seeds one off: verify must notice
        def chance(self, k):
            return super().chance(k + 1)

    saved, match.GameSeeds = match.GameSeeds, Shifted
    try:
        with pytest.raises(Divergence):
            verify(replay, DEFINITIONS['knossos'], turns - 3)
    finally:
        match.GameSeeds = saved


def test_a_game_on_measured_tables_verifies_from_any_turn(tmp_path):
    """King of the Hill with the Tipper's and the crater's measured tables: nothing physical carries
    over, so verify can start at any turn."""
    tables = ",".join(str(STICKS_TABLE.with_name(f"{d}-10k-seed1.json")) for d in ("tipper", "crater"))
    path = tmp_path / "game.ttr"
    assert run("play", "king-of-the-hill", "--headless", "--seats", "ai,ai,ai", "--seed", "4", "--outcomes",
               f"table:{tables}", "--record", path)[0] == 0
    turns = ReplayFile.open(path).end["result"]["turns"]
    for start in (1, turns // 3, turns - 1):
        rc, out, err = run("replay", path, "--verify", "--from-turn", start)
        assert rc == 0 and out.startswith(f"verified from turn {start}: {turns} turns, "), err


def test_a_version_1_game_replay_summarizes_but_verify_names_its_version(tmp_path):
    import struct

    from tabletop.sim.record import PRELUDE

    path = tmp_path / "match.ttr"
    assert run("play", "knossos", "--headless", "--seats", "ai,ai", "--seed", "3", "--games-to-win", "1",
               "--outcomes", f"table:{STICKS_TABLE}", "--record", path)[0] == 0
    data = bytearray(path.read_bytes())
    struct.pack_into("<H", data, 16, 1)
    old = tmp_path / "old.ttr"
    old.write_bytes(bytes(data))
    rc, out, err = run("replay", old, "--summary")
    assert rc == 0 and out == run("replay", path, "--summary")[1]
    rc, out, err = run("replay", old, "--verify")
    assert rc == 2 and err.count("\n") == 1 and "version 1" in err


# -- one registry ---------------------------------------------------------------------------------
def test_the_registry_describes_every_game_and_the_command_line_iterates_over_it(monkeypatch, tmp_path):
    """Each installed game registers one GameDefinition (the entry-point group tabletop.games:
    tabletop's three, and any plugin's); `play`, replays and the window look games up there, so a
    game registered there alone is played by the command line."""
    from tabletop.gamekit import registry
    from tabletop.gamekit.definition import GameDefinition
    from tabletop.gamekit.state import Game, State

    names = list(registry.GAMES)
    assert names[:3] == ["king-kong", "king-of-the-hill", "knossos"]      # tabletop's own first
    for name in names:
        spec = registry.GAMES[name]
        assert isinstance(spec, GameDefinition) and spec.name == name and spec.title
        assert 1 <= spec.seats[0] <= spec.seats[1] <= len(spec.colours)
        if spec.chance_events:
            assert ChanceOutcome in set(spec.actions().values())
        game = spec.make_game(spec.replay_config(["random"] * spec.seats[0], "physics", spec.check_options({})))
        assert isinstance(game, Game) and isinstance(game.new_initial_state(), State)
    played = []

    class Fake(type(registry.GAMES["knossos"])):
        name = "fake"

        def play_headless(self, *args):
            played.append(args)
            return 0

    games = registry.Registry()                    # the installed games, and one registered here
    games.add(Fake())
    monkeypatch.setattr(registry, "GAMES", games)
    rc, out, err = run("play", "fake", "--headless", "--seats", "ai,random", "--seed", "4", "--no-record")
    defaults = games["knossos"].check_options({})
    assert rc == 0 and [args[:5] for args in played] == [(["ai", "random"], 4, "physics", None, defaults)]
    assert callable(played[0][5])          # emit: each line of the log, which the command prints
    rc, out, err = run("play", "nonesuch", "--headless")
    assert rc == 2 and err.count("\n") == 1 and f"{', '.join(names)}, fake" in err


def test_a_match_taken_up_mid_game_numbers_the_chance_events_from_the_game_start():
    from tabletop.games.knossos.rules import Game
    from tabletop.gamekit.seats import RandomSeat

    whole = Match(Game(games_to_win=1).new_initial_state(), [RandomSeat()] * 2, Uniform(), seed=8).play()
    part = Game(games_to_win=1).new_initial_state()
    for action in whole.history[:9]:
        part.apply(action)
    match = Match(part, [None, None], Uniform(), seed=8)
    assert match.chances == sum(isinstance(a, ChanceOutcome) for a in whole.history[:9])
    while len(part.history) < len(whole.history):
        action = whole.history[len(part.history)]
        if isinstance(action, ChanceOutcome):
            assert match.draw() == action.label
        match.apply(action)
    assert part.events == whole.events
