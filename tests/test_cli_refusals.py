"""Invocations that once ended in a traceback, ran on for a minute, or did nothing with an option
given: each is one line on stderr and exit 2 now (issue 36)."""
from __future__ import annotations

import asyncio
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabletop.cli import main

HERE = Path(__file__).resolve().parent


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tabletop.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd)


def one_line(proc: subprocess.CompletedProcess, words: str, code: int = 2) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert words in proc.stderr and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def started(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for_port(port: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the stand-in server ended"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on {port}")


# -- serve, host and join: the network commands -------------------------------------------------------------------
def test_serve_on_a_port_in_use_is_one_line_and_exit_2(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        one_line(run_cli("serve", "--port", str(port), "--data", str(tmp_path / "rooms")),
                 f"--port: port {port} on 127.0.0.1 is already in use")


def test_serve_on_an_address_this_machine_does_not_have_is_one_line_and_exit_2(tmp_path):
    one_line(run_cli("serve", "--host", "203.0.113.7", "--port", "0", "--data", str(tmp_path / "rooms")),
             "--host: this machine has no address 203.0.113.7")
    one_line(run_cli("serve", "--host", "no-such-host.invalid", "--port", "0", "--data", str(tmp_path / "rooms")),
             "--host: 'no-such-host.invalid' is not an address")


WEBSOCKET_OTHER = """
import asyncio, sys
from websockets.asyncio.server import serve

async def other(ws):           # a websocket server that speaks something else
    async for _ in ws:
        await ws.send("hello, this is not a tabletop server")

async def main():
    async with serve(other, "127.0.0.1", int(sys.argv[1])):
        await asyncio.Future()

asyncio.run(main())
"""


@pytest.fixture
def not_tabletop(tmp_path):
    """A plain HTTP server and a websocket server that speaks something else: their addresses."""
    script = tmp_path / "other.py"
    script.write_text(WEBSOCKET_OTHER)
    http_port, ws_port = free_port(), free_port()
    procs = [started("-m", "http.server", str(http_port), "--bind", "127.0.0.1", "--directory", str(tmp_path)),
             started(str(script), str(ws_port))]
    try:
        for port, proc in zip((http_port, ws_port), procs):
            wait_for_port(port, proc)
        yield f"ws://127.0.0.1:{http_port}", f"ws://127.0.0.1:{ws_port}"
    finally:
        for proc in procs:
            proc.kill()
            proc.wait(10)


def test_host_pointed_at_something_other_than_a_tabletop_server_is_one_line_and_exit_2(not_tabletop):
    for url in not_tabletop:
        one_line(run_cli("host", "knossos", "--server", url, "--seats", "remote,ai"),
                 f"{url} is not a tabletop game server")


def test_join_where_nothing_listens_fails_within_seconds_in_one_line(capsys):
    """A first connection that never came up is given up after a few seconds (a connection that
    was up and dropped is still waited for: tests/test_net_play.py's restarted server)."""
    port = free_port()
    began = time.monotonic()
    assert main(["join", f"ws://127.0.0.1:{port}/abc", "--headless"]) == 1
    took = time.monotonic() - began
    err = capsys.readouterr().err
    assert f"cannot reach the server at ws://127.0.0.1:{port}" in err and err.count("\n") == 1, err
    assert took < 10, took


def test_join_to_something_other_than_a_tabletop_server_is_one_line_and_exit_2(not_tabletop, capsys):
    http, _ = not_tabletop
    assert main(["join", f"{http}/abc", "--headless"]) == 2
    err = capsys.readouterr().err
    assert f"{http} is not a tabletop game server" in err and err.count("\n") == 1, err


@pytest.fixture
def server(tmp_path):
    """`tabletop serve --port 0` as a process: its address; stopped after."""
    proc = subprocess.Popen([sys.executable, "-m", "tabletop.cli", "serve", "--port", "0", "--data",
                             str(tmp_path / "rooms")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line.startswith("serving on ws://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() else "")
    yield line.split()[2]
    proc.terminate()
    assert proc.wait(30) == 0


async def _seats(url: str, code: str) -> list[dict]:
    from tabletop.net import protocol as p
    from tabletop.net.client import _connect

    ws = await _connect(url)
    try:
        await ws.send(p.encode(p.Join(code, spectate=True)))
        while True:
            message = p.parse(await ws.recv(), "server")
            if isinstance(message, p.Joined):
                return list(message.seats)
    finally:
        await ws.close()


def test_join_as_a_seat_kind_the_rooms_game_has_not_is_refused_before_the_seat_is_taken(server, capsys):
    assert main(["host", "king-kong", "--server", server, "--seats", "remote,ai", "--outcomes", "measured"]) == 0
    address = next(line.split()[1] for line in capsys.readouterr().out.splitlines() if line.startswith("join: "))
    assert main(["join", address, "--headless", "--as", "solved"]) == 2
    err = capsys.readouterr().err
    assert "--as: king-kong has no 'solved' seat" in err and err.count("\n") == 1, err
    url, code = address.rsplit("/", 1)
    seats = asyncio.run(_seats(url, code))
    assert [seat["taken"] for seat in seats if seat["kind"] == "remote"] == [False], seats
    # an unknown room is refused before any seat is asked for, too
    assert main(["join", f"{url}/nosuch", "--headless", "--as", "ai"]) == 2
    assert "no room has that code" in capsys.readouterr().err


# -- options that would do nothing in the mode chosen ---------------------------------------------------------------
@pytest.fixture(scope="module")
def knossos_game(tmp_path_factory) -> Path:
    """A short recorded Knossos game (a solved game: its review is exact)."""
    path = tmp_path_factory.mktemp("knossos") / "k.ttr"
    assert main(["play", "knossos", "--headless", "--outcomes", "measured", "--games-to-win", "1", "--seed", "1",
                 "--record", str(path)]) == 0
    return path


@pytest.mark.parametrize("args,words", [
    (["play", "knossos", "--headless", "--screenshot", "x.png"], "--screenshot: not with --headless"),
    (["play", "knossos", "--headless", "--after-turns", "5"], "--after-turns: not with --headless"),
    (["play", "knossos", "--headless", "--size", "800x600"], "--size: not with --headless"),
    (["play", "knossos", "--headless", "--pace", "0"], "--pace: not with --headless"),
    (["play", "knossos", "--after-turns", "5"], "--after-turns: only with --screenshot"),
    (["play", "knossos", "--screenshot", "x.png", "--pace", "0"], "--pace: not with --screenshot"),
    (["play", "knossos", "--screenshot", "x.png", "--record", "r.ttr"], "--record: not with --screenshot"),
    (["play", "knossos", "--online", "ws://127.0.0.1:9", "--size", "800x600"], "--online: not with --size"),
    (["play", "knossos", "--online", "ws://127.0.0.1:9", "--no-record"], "--online: not with --no-record"),
    (["play", "--continue", "knossos", "--after-turns", "5"], "--after-turns: only with --screenshot"),
    (["analyze", "knossos", "--solve", "--plot", "x.png"], "--plot: not with --solve"),
    (["analyze", "knossos", "--solve", "--games", "10"], "--games: not with --solve"),
    (["analyze", "knossos", "--workers", "2", "--scheduler", "tcp://127.0.0.1:9"], "--workers: not with --scheduler"),
    (["estimate", "tipper", "--workers", "2", "--scheduler", "tcp://127.0.0.1:9"], "--workers: not with --scheduler"),
    (["bench", "--rules", "--trials", "5"], "--trials: not with --rules"),
    (["bench", "--rules", "--devices", "die"], "--devices: not with --rules"),
    (["bench", "--quick", "--scaling-trials", "10"], "--scaling-trials: not with --quick"),
    (["join", "ws://127.0.0.1:9/abc", "--headless", "--spectate", "--as", "ai"], "--as: not with --spectate"),
    (["join", "ws://127.0.0.1:9/abc", "--headless", "--spectate", "--seed", "4"], "--seed: not with --spectate"),
    (["calibrate", "tipper", "--observed", "x.csv", "--budget", "10"], "--budget: only with --plan"),
    (["calibrate", "tipper", "--observed", "x.csv", "--holdout-points", "0", "--holdout-trials", "5"],
     "--holdout-trials: not with --holdout-points 0"),
    (["estimate", "throw", "--set", "shape.kind=half-cylinder", "--set", "shape.size=[0.1,0.02,0.02]"],
     "--set shape.size: a half-cylinder has no size"),
    (["estimate", "throw", "--set", "shape.radius=0.01"], "--set shape.radius: a cuboid has no radius"),
    (["estimate", "throw", "--set", "gesture.start=+z"], "--set gesture.start: the gesture mode drop reads no start"),
    (["estimate", "throw", "--set", "gesture.mode=roll", "--set", "gesture.elevation_deg=[10,20]"],
     "the gesture mode roll reads no elevation_deg (only toss does"),
])
def test_an_option_that_would_do_nothing_is_one_line_and_exit_2(args, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(args) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1, err


def test_a_throw_override_its_shape_reads_still_runs(tmp_path):
    """The refusal is of a key the kind does not read, never of one it does."""
    out = tmp_path / "h.json"
    assert main(["estimate", "throw", "--set", "shape.kind=half-cylinder", "--set", "shape.length=0.1",
                 "--set", "gesture.mode=toss", "--set", "gesture.start=flat", "--trials", "1", "--quiet",
                 "--out", str(out)]) == 0
    assert out.exists()


@pytest.mark.parametrize("extra,words", [
    (["--summary", "--size", "0x0"], "--size: only in the playback window or with --frames"),
    (["--verify", "--size", "640x360"], "--size: only in the playback window or with --frames"),
    (["--fps", "10"], "--fps: only with --frames"),
    (["--summary", "--frames", "out"], "--frames: not with --summary or --verify"),
])
def test_replay_options_that_would_do_nothing_are_one_line(knossos_game, extra, words, capsys, tmp_path,
                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["replay", str(knossos_game), *extra]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1, err


def test_review_refuses_a_rollout_seat_the_game_has_not_and_rollout_options_of_an_exact_review(knossos_game, capsys):
    assert main(["review", str(knossos_game), "--rollout-seat", "nosuch", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "--rollout-seat: knossos has no 'nosuch' seat" in err and err.count("\n") == 1, err
    for extra in (["--rollout-seat", "ai"], ["--rollouts", "64"], ["--seed", "3"]):
        assert main(["review", str(knossos_game), *extra, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"{extra[0]}: knossos is solved here, so its review is exact" in err and err.count("\n") == 1, err
    assert main(["review", str(knossos_game), "--estimate", "--rollout-seat", "nosuch", "--quiet"]) == 2
    assert "has no 'nosuch' seat" in capsys.readouterr().err


def test_verify_from_a_turn_beyond_the_end_is_refused(knossos_game, tmp_path, capsys):
    """A game's and a trials recording's alike; a trials recording verified from a turn inside it
    verifies (its first frame finds the body where the trial before left it)."""
    turns = int(run_cli("replay", str(knossos_game), "--summary").stderr.split(": ")[1].split()[0])
    assert main(["replay", str(knossos_game), "--verify", "--from-turn", str(turns + 10)]) == 2
    err = capsys.readouterr().err
    assert f"--from-turn: the replay holds turns 1-{turns}, not {turns + 10}" in err and err.count("\n") == 1, err
    trials = tmp_path / "d.ttr"
    assert main(["estimate", "die", "--trials", "3", "--record-trials", "3", "--record", str(trials), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["replay", str(trials), "--verify", "--from-turn", "50"]) == 2
    err = capsys.readouterr().err
    assert "--from-turn: the replay holds trials 0-2, not 50" in err and err.count("\n") == 1, err
    assert main(["replay", str(trials), "--verify", "--from-turn", "2"]) == 0
    assert "verified from turn 2: 1 turns" in capsys.readouterr().out


# -- play --continue ------------------------------------------------------------------------------------------------
def _cut_after(path: Path, turn_index: int) -> None:
    """The recording cut off inside the chunk after its turn `turn_index` (as a crash leaves it)."""
    from tabletop.sim.record import ReplayFile

    data = path.read_bytes()
    kept = ReplayFile.open(path).turns[turn_index]
    path.write_bytes(data[:data.index(kept.payload) + len(kept.payload) + 7])


def test_continue_never_takes_up_a_game_already_played_on(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TABLETOP_DATA", str(tmp_path / "data"))
    assert main(["play", "knossos", "--headless", "--outcomes", "measured", "--games-to-win", "1", "--seed", "4"]) == 0
    (cut,) = (tmp_path / "data" / "games").iterdir()
    _cut_after(cut, 5)
    capsys.readouterr()
    assert main(["play", "knossos", "--continue", "--headless"]) == 0         # played on to its end
    assert f"resumed from {cut.name}" in capsys.readouterr().out
    (played_on,) = [p for p in (tmp_path / "data" / "games").iterdir() if p != cut]
    assert main(["games"]) == 0
    assert f"played on in {played_on.name}" in capsys.readouterr().out
    assert main(["play", "knossos", "--continue", "--headless"]) == 2         # not the cut one again
    err = capsys.readouterr().err
    assert "--continue: no unfinished knossos game" in err and err.count("\n") == 1, err
    # the game played on, cut off in its turn: --continue takes up that one, never the first again
    _cut_after(played_on, 8)
    assert main(["play", "knossos", "--continue", "--headless"]) == 0
    assert f"resumed from {played_on.name}" in capsys.readouterr().out


# -- a damaged chunk-length field -----------------------------------------------------------------------------------
def _damage_length(path: Path, turn_index: int, by: int) -> bytes:
    """The recording with the length field of its turn chunk `turn_index` made `by` bytes longer."""
    import struct

    from tabletop.sim.record import CHUNK, ReplayFile

    data = bytearray(path.read_bytes())
    turn = ReplayFile.open(path).turns[turn_index]
    at = data.index(turn.payload) - CHUNK.size
    kind, length, crc = CHUNK.unpack_from(data, at)
    assert kind == ord("T") and length == len(turn.payload)
    struct.pack_into("<I", data, at + 1, length + by)
    return bytes(data)


@pytest.mark.parametrize("by", [10 ** 6, 2 ** 31])
def test_a_damaged_chunk_length_is_refused_by_replay_review_and_resume_alike(knossos_game, tmp_path, capsys, by):
    """A length field that runs past the end of the file is not a file cut short when whole chunks
    follow it: replay, review and play --resume refuse it in one line, never the turns before it
    alone as a game cut off; a file cut inside its last chunk still opens with its warning."""
    damaged = tmp_path / "damaged.ttr"
    damaged.write_bytes(_damage_length(knossos_game, 8, by))
    for args in (["replay", str(damaged), "--summary"], ["replay", str(damaged), "--verify"],
                 ["review", str(damaged), "--quiet"],
                 ["play", "--resume", str(damaged), "--headless", "--no-record"]):
        assert main(args) == 2, args
        err = capsys.readouterr().err
        assert "corrupt replay: chunk" in err and "after turn 8" in err and "the chunk is damaged, not cut off" in err \
            and err.count("\n") == 1, (args, err)
    assert main(["games", "--folder", str(tmp_path)]) == 0
    assert "damaged.ttr: does not read (" in capsys.readouterr().out
    # the last chunk (the end record) damaged alike: its CRC holds for the rest of the file
    data = knossos_game.read_bytes()
    import struct

    end_at = _tail_chunk_start(data)
    assert data[end_at] == ord("E")
    broken = bytearray(data)
    struct.pack_into("<I", broken, end_at + 1, len(data) - end_at)
    damaged.write_bytes(bytes(broken))
    assert main(["replay", str(damaged), "--summary"]) == 2
    assert "the length field is damaged" in capsys.readouterr().err
    # cut inside a chunk (a crash): still the turns before it, with the warning
    cut = tmp_path / "cut.ttr"
    cut.write_bytes(data[:_tail_chunk_start(data) - 40])
    assert main(["replay", str(cut), "--summary"]) == 0
    assert "truncated after turn" in capsys.readouterr().err


def _tail_chunk_start(data: bytes) -> int:
    """Where the last chunk of a whole replay file begins (walking the chunks by their lengths)."""
    from tabletop.sim.record import CHUNK, PRELUDE

    pos = last = PRELUDE.size
    while pos < len(data):
        last = pos
        pos += CHUNK.size + CHUNK.unpack_from(data, pos)[1]
    return last


# -- tables printed to a file or a pipe -----------------------------------------------------------------------------
def test_a_table_printed_to_a_pipe_keeps_its_full_names(tmp_path):
    """rich lays a pipe out at 80 columns unless told: the sensitivity table's inputs were cut
    ("materials.pairs.…"); printed to a pipe (no COLUMNS) every name is whole, no cell cut."""
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    proc = subprocess.run([sys.executable, "-m", "tabletop.cli", "estimate", "throw", "--trials", "2", "--quiet",
                           "--sensitivity", "--sensitivity-trials", "1"], capture_output=True, text=True,
                          timeout=300, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("│ materials.pairs.")]
    assert rows and any("materials.pairs.felt/polystyrene.restitution " in row for row in rows), proc.stdout
    assert "…" not in proc.stdout, proc.stdout
    # COLUMNS, where given, still rules
    narrow = subprocess.run([sys.executable, "-m", "tabletop.cli", "estimate", "throw", "--trials", "2", "--quiet",
                             "--sensitivity", "--sensitivity-trials", "1"], capture_output=True, text=True,
                            timeout=300, env={**env, "COLUMNS": "60"}, cwd=tmp_path)
    assert narrow.returncode == 0 and max(len(line) for line in narrow.stdout.splitlines()) <= 60


# -- README commands that need a checkout or an earlier command's file ---------------------------------------------
def test_a_table_file_that_is_not_there_says_what_writes_one_and_the_packaged_names(tmp_path, monkeypatch, capsys):
    """The README's `--outcomes table:tipper.json,...` run in a folder where the first command did
    not run: one line saying what writes such a file and which tables any folder finds by name."""
    monkeypatch.chdir(tmp_path)
    assert main(["play", "king-of-the-hill", "--headless", "--seats", "ai,ai,ai", "--outcomes",
                 "table:tipper.json,crater-10k-seed1.json"]) == 2
    err = capsys.readouterr().err
    assert "outcome table not found: tipper.json (`tabletop estimate DEVICE --out FILE.json` writes one" in err, err
    assert "tipper-10k-seed1.json" in err and err.count("\n") == 1, err


def test_the_readme_says_where_a_command_needs_a_checkout_or_an_earlier_file():
    """A plain install has no scripts/: every fenced `python scripts/...` line says it runs from a
    checkout; the fenced command that reads tipper.json says whose file it is."""
    readme = (HERE.parent / "README.md").read_text()
    fenced = re.findall(r"```sh\n(.*?)```", readme, re.S)
    lines = [line for block in fenced for line in block.splitlines()]
    scripts = [line for line in lines if line.startswith("python scripts/")]
    assert scripts and all("checkout" in line.partition("#")[2] for line in scripts), scripts
    tables = [line for line in lines if "table:tipper.json" in line]
    assert tables and all("the first command's" in line.partition("#")[2] for line in tables), tables
    assert "not scripts/, so they run\nfrom the checkout's root" in readme


def test_the_review_commands_defaults_are_the_requests():
    """An exact review refuses the rollout options that differ from ReviewRequest's defaults: the
    command's defaults must be those (else a plain `tabletop review` of a solved game is refused)."""
    from dataclasses import fields

    from tabletop.app.requests import ReviewRequest
    from tabletop.cli.parser import build_parser

    args = build_parser().parse_args(["review", "x.ttr"])
    defaults = {f.name: f.default for f in fields(ReviewRequest)}
    for name in ("rollout_seat", "rollouts", "seed"):
        assert getattr(args, name) == defaults[name], name
