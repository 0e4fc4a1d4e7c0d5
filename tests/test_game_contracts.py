"""The contract every registered game keeps, checked over the registry (tabletop.gamekit.registry:
a game added there is tested here with no line of this file changed), through its definition's
hooks alone:

- its state is the machinery's base State, and a whole game by random seats with the published
  measured tables ends terminal; the history replays to the same state; a clone is a copy;
- a golden playthrough: AI seats, measured tables, seed 7, the log as recorded
  (tests/golden/contract-GAME.txt; TABLETOP_UPDATE_GOLDEN=1 re-records after a deliberate change),
  and the same log from a fresh process;
- headless play, its replay's summary and verify agree line for line (the window's part is
  tests/test_match.py's, the environments' tests/test_env.py's, OpenSpiel's tests/test_openspiel.py's,
  each over the same registry).
"""
from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.gamekit.outcomes import play_outcomes
from tabletop.gamekit import state as base
from tabletop.gamekit.match import Match
from tabletop.gamekit.state import CHANCE, TERMINAL
from tabletop.gamekit.registry import GAMES
from tests.golden import check_golden

ROOT = Path(__file__).parents[1]
GOLDEN = Path(__file__).parent / "golden"


def new_game(definition, kind: str):
    """(the initial state, the seats, the source) of a game with the most seats of `kind`, the
    game's default options and its measured tables."""
    options = definition.check_options({})
    seats = [kind] * definition.seats[1]
    outcomes = play_outcomes(definition, "measured")
    source = definition.make_source(outcomes)
    game = definition.make_game(definition.replay_config(seats, outcomes, options))
    return game.new_initial_state(), [definition.make_seat(k, source, options) for k in seats], source


def golden_log(name: str, seed: int) -> str:
    definition = GAMES[name]
    state, seats, source = new_game(definition, "ai")
    lines: list[str] = []
    try:
        Match(state, seats, source, seed, max_turns=definition.max_turns).play(lines.append)
    finally:
        source.close()
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", GAMES)
def test_a_whole_game_ends_terminal_replays_and_clones(name):
    definition = GAMES[name]
    state, seats, source = new_game(definition, "random")
    assert isinstance(state, base.State) and not state.is_terminal()
    assert state.current_player == CHANCE or 0 <= state.current_player < len(seats)
    final = Match(state, seats, source, seed=3, max_turns=definition.max_turns).play()
    source.close()
    assert final.is_terminal() and final.current_player == TERMINAL and final.legal_actions() == []
    assert definition.winner(final) is None or isinstance(definition.winner(final), str)
    again = final.game.replay(final.history)
    assert again.events == final.events and again.is_terminal()
    copy = final.clone()
    assert copy.history == final.history and copy.history is not final.history


@pytest.mark.parametrize("name", GAMES)
def test_the_golden_playthrough(name):
    check_golden(GOLDEN / f"contract-{name}.txt", golden_log(name, 7))


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_the_same_seed_gives_the_same_log_in_another_process(name):
    code = f"import sys; from tests.test_game_contracts import golden_log; sys.stdout.write(golden_log({name!r}, 11))"
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True).stdout
            for _ in range(2)]
    assert runs[0] == runs[1] == golden_log(name, 11)
    assert golden_log(name, 12) != runs[0]


def run(*argv) -> tuple[int, str, str]:
    from tabletop.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main([str(a) for a in argv])
    return rc, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("name", GAMES)
def test_headless_play_summary_and_verify_agree(name, tmp_path):
    """On the measured tables (the physics' own agreement is test_match's, in the window too)."""
    definition = GAMES[name]
    seats = ",".join(["ai"] * definition.seats[0])
    record = tmp_path / "game.ttr"
    rc, printed, err = run("play", name, "--headless", "--seats", seats, "--seed", 5, "--outcomes", "measured",
                           "--record", record)
    assert rc == 0, err
    rc, summary, err = run("replay", record, "--summary")
    assert rc == 0 and summary == printed
    rc, verified, err = run("replay", record, "--verify")
    if "cannot be re-simulated" in err:
        # a game whose measured chance is more than plain tables (King Kong's knock-over groups) is
        # recorded without them: verify says so in one line (its physics games verify: test_match)
        from tabletop.sim.record import ReplayFile

        assert rc == 2 and err.count("\n") == 1 and ReplayFile.open(record).header["config"].get("tables") is None
        return
    assert rc == 0 and verified.startswith("verified: "), err
