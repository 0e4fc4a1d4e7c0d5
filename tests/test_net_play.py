"""Playing together over the network: `tabletop serve` as a process on loopback, a King Kong room
made with `tabletop host` and played to its end by three `tabletop join --headless --as random`
processes (and watched by a fourth), its journal verified by `tabletop replay --verify`; the same
over real websockets with each room in its worker process, every connection's raw frames scanned,
a dropped connection coming back with its token; and the commands' bad input."""
from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import tabletop
from tabletop.cli import main
from tabletop.net.client import SeatClient, create_room, random_chooser
from tests.net_scan import Secrets, scan

GAME = "king-kong"


def _ctrl_c_heard() -> None:
    """In the child: Ctrl-C as a terminal sends it (a test run started in the background has SIGINT
    ignored, and a child inheriting that would never hear the signal)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def tabletop_process(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "tabletop.cli", *args], cwd=cwd, preexec_fn=_ctrl_c_heard,
                            stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


@pytest.fixture
def server(tmp_path):
    """`tabletop serve --port 0` as a process: (its address, the data folder); stopped after."""
    data = tmp_path / "rooms"
    proc = tabletop_process("serve", "--host", "127.0.0.1", "--port", "0", "--data", str(data), cwd=tmp_path)
    line = proc.stdout.readline()
    assert line.startswith("serving on ws://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() else "")
    url = line.split()[2]
    yield url, data
    proc.terminate()
    assert proc.wait(30) == 0
    assert "Traceback" not in proc.stderr.read()


@pytest.mark.slow
def test_three_join_processes_play_a_physics_game_served_by_a_process_and_its_journal_verifies(server, tmp_path):
    url, data = server
    host = subprocess.run([sys.executable, "-m", "tabletop.cli", "host", GAME, "--server", url, "--seats",
                           "remote,remote,remote", "--seed", "3", "--outcomes", "physics"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert host.returncode == 0, host.stderr
    join = next(line.split()[1] for line in host.stdout.splitlines() if line.startswith("join: "))
    code = join.rsplit("/", 1)[1]
    started = time.perf_counter()
    players = [tabletop_process("join", join, "--headless", "--as", "random", "--seed", str(i), "--name", f"bot{i}",
                                cwd=tmp_path) for i in range(3)]
    watcher = tabletop_process("join", join, "--headless", "--spectate", cwd=tmp_path)
    outs = [proc.communicate(timeout=300) for proc in [*players, watcher]]
    assert [proc.returncode for proc in [*players, watcher]] == [0, 0, 0, 0], [err for _, err in outs]
    print(f"a physics game played over the network in {time.perf_counter() - started:.1f} s")
    results = {out.splitlines()[-1] for out, _ in outs}
    assert len(results) == 1 and results.pop().startswith("result: ")
    # the room's saved game: the same log as the spectator's (the private lines whole), and it verifies
    replay = tabletop.open_replay(data / code / "game.ttr")
    assert replay.complete and replay.lines[-1] == outs[-1][0].splitlines()[-1]
    verified = subprocess.run([sys.executable, "-m", "tabletop.cli", "replay", str(data / code / "game.ttr"),
                               "--verify"], capture_output=True, text=True, timeout=300)
    assert verified.returncode == 0, verified.stderr
    assert "commitments checked" in verified.stdout and "every seed from the revealed secret" in verified.stdout
    # each client checked every throw against the commitment published before it
    chances = sum(1 for a in replay.history if type(a).__name__ == "ChanceOutcome")
    for _, err in outs:
        assert f"{chances} chance events checked against the commitments" in err and "NOT" not in err, err
    # each seat printed its own hand's lines and none of another's
    from tabletop.gamekit.registry import GAMES

    secrets = Secrets(GAMES[GAME], replay.config, replay.history)
    printed = {}
    for out, err in outs[:3]:
        joined = next(line for line in err.splitlines() if line.startswith("joined room"))
        printed[joined.split(" as ")[1]] = out.splitlines()
    for seat, colour in enumerate(GAMES[GAME].colours[:3]):
        for owner, line in secrets.private:
            assert (line in printed[colour]) == (owner == seat)
    assert not any(line in outs[-1][0].splitlines() for _, line in secrets.private)


async def _play_over_websockets(url: str, seed: int, drop_after: int):
    created = await create_room(url, GAME, ("remote", "remote", "remote"), seed, "measured", {})
    frames: dict[int | None, list[str]] = {}
    clients = []
    for i in range(3):
        frames[i] = []
        clients.append(SeatClient(url, created.room, seat=("red", "blue", "green")[i], choose=random_chooser(i),
                                  on_frame=frames[i].append))
    frames[None] = []
    watcher = SeatClient(url, created.room, spectate=True, on_frame=frames[None].append)
    runs = [asyncio.ensure_future(c.run()) for c in [*clients, watcher]]
    # drop red's connection once it has seen a few views: it comes back with its token
    while len(frames[0]) < drop_after:
        await asyncio.sleep(0.01)
    await clients[0].connection.close()
    views = await asyncio.wait_for(asyncio.gather(*runs), 120)
    return created.room, clients, watcher, frames, views


@pytest.mark.slow
def test_over_websockets_every_connection_is_sent_only_what_its_seat_may_know_and_a_drop_is_survived(tmp_path):
    """The server in this process (each room in its spawned worker process), three seats and a
    spectator over loopback websockets, every frame each was sent recorded raw and scanned; red's
    connection is closed mid-game, and red reconnects with its token and plays on."""
    from tabletop.gamekit.registry import GAMES
    from tabletop.net.server import serve

    async def scenario():
        stop = asyncio.Event()
        ready = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(serve("127.0.0.1", 0, tmp_path, ready.set_result, stop=stop))
        url = await asyncio.wait_for(ready, 30)
        try:
            return await _play_over_websockets(url, seed=11, drop_after=8)
        finally:
            stop.set()
            await task

    code, clients, watcher, frames, views = asyncio.run(scenario())
    assert clients[0].reconnects >= 1
    assert all(v["over"] for v in views) and len({tuple(v["result"]) for v in views}) == 1
    replay = tabletop.open_replay(tmp_path / code / "game.ttr")
    secrets = Secrets(GAMES[GAME], replay.config, replay.history)
    assert replay.lines[-len(views[0]["result"]):] == views[0]["result"]
    tokens = {i: c.token for i, c in enumerate(clients)}
    for viewer, got in frames.items():
        assert scan(secrets, got, viewer, tokens) > 10
    # each seat's log is the game's log as that seat may read it
    for seat, client in enumerate(clients):
        assert client.log == [line for line in (GAMES[GAME].seat_view(secrets.state, seat)["log"])]
    assert watcher.log == GAMES[GAME].seat_view(secrets.state, None)["log"]


@pytest.mark.slow
def test_the_python_api_hosts_a_room_and_plays_its_seats(server):
    """tabletop.host and tabletop.join: the same jobs as the commands, one join per thread."""
    from concurrent.futures import ThreadPoolExecutor

    url, data = server
    room = tabletop.host(GAME, url, ["remote", "random", "remote"], seed=8, outcomes="measured")
    assert room.url == f"{url}/{room.code}" and [s["kind"] for s in room.seats] == ["remote", "random", "remote"]
    with ThreadPoolExecutor(3) as pool:
        seats = [pool.submit(tabletop.join, room.url, seed=i) for i in range(2)]
        watcher = pool.submit(tabletop.join, room.url, spectate=True)
        played = [f.result(timeout=120) for f in seats]
        watched = watcher.result(timeout=120)
    assert sorted(p.seat for p in played) == ["green", "red"] and watched.seat is None
    assert {tuple(p.result) for p in [*played, watched]} == {tuple(watched.result)}
    assert tabletop.open_replay(data / room.code / "game.ttr").lines[-1] == watched.result[-1]
    with pytest.raises(tabletop.InputError, match="one human seat"):
        tabletop.host(GAME, url, ["human", "remote", "human"])


@pytest.mark.slow
@pytest.mark.parametrize("game,bots", [(GAME, ["ai", "plan"]), ("knossos", ["ai", "solved"]),
                                       ("king-of-the-hill", ["ai", "random"])])
def test_join_as_the_games_own_seats_plays_on_what_the_seat_may_know(server, game, bots):
    """join --as ai|plan|solved: the game's own seats choose on the client's mirror of the game,
    every choice one the server offered, to the game's end; the same seeds, the same game."""
    from concurrent.futures import ThreadPoolExecutor

    from tabletop.gamekit.registry import GAMES

    url, data = server
    options = {"games_to_win": 1} if game == "knossos" else {}
    room = tabletop.host(game, url, ["remote", "remote", "ai"][:3 if game == GAME else 2], seed=4,
                         outcomes="measured", **options)
    with ThreadPoolExecutor(2) as pool:
        seats = [pool.submit(tabletop.join, room.url, seat=c, bot=b, seed=1) for c, b in zip(GAMES[game].colours, bots)]
        played = [f.result(timeout=300) for f in seats]
    assert len({p.winner for p in played}) == 1 and played[0].winner
    replay = tabletop.open_replay(data / room.code / "game.ttr")
    assert replay.lines[-1] == (played[0].result or played[0].lines)[-1]


@pytest.mark.parametrize("args,words", [
    (["host", GAME, "--server", "http://127.0.0.1:1"], "--server: expected a server address ws://HOST:PORT"),
    (["host", GAME, "--server", "ws://127.0.0.1:1", "--seats", "human,remote,human"], "one human seat"),
    (["host", GAME, "--server", "ws://127.0.0.1:1", "--seats", "remote,robot"], "unknown seat kind 'robot'"),
    (["host", GAME, "--server", "ws://127.0.0.1:1", "--outcomes", "table:x.json"], "--outcomes: invalid choice"),
    (["join", "ws://127.0.0.1:1/", "--headless"], "url: expected ws://HOST:PORT/CODE"),
    (["join", "ws://127.0.0.1:1/abc", "--as", "ai"], "--as: with --headless"),
    (["join", "ws://127.0.0.1:1/abc", "--headless", "--spectate", "--seat", "red"], "--spectate takes no --seat"),
    (["join", "ws://127.0.0.1:1/abc", "--headless", "--as", "human"], "--as: invalid choice"),
    (["serve", "--port", "70000"], "--port: a port from 0 to 65535"),
    (["play", "knossos", "--online", "ws://127.0.0.1:1", "--headless"], "--online: not with --headless"),
    (["play", "knossos", "--online", "http://127.0.0.1:1"], "expected a server address ws://HOST:PORT"),
    (["play", "knossos", "--online", "ws://127.0.0.1:1", "--seats", "human,human"], "one human seat"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, words):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1, err


def test_with_no_display_the_window_commands_say_so_before_they_reach_the_server(capsys, monkeypatch):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    for args in (["join", "ws://127.0.0.1:9/abc"], ["host", GAME, "--server", "ws://127.0.0.1:9", "--seats",
                                                     "human,ai"], ["play", "knossos", "--online", "ws://127.0.0.1:9"]):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert "no display available for the 3D window" in err and err.count("\n") == 1, err


def test_a_server_out_of_reach_is_one_line_and_exit_1(capsys, monkeypatch):
    assert main(["host", GAME, "--server", "ws://127.0.0.1:9", "--seats", "remote,remote"]) == 1
    err = capsys.readouterr().err
    assert "cannot reach the server at ws://127.0.0.1:9" in err and err.count("\n") == 1, err
    monkeypatch.setattr("tabletop.net.window.FIRST_REACH_S", 0.5)   # (5 s as shipped)
    monkeypatch.setenv("DISPLAY", ":99")                               # (never opened: the server is out of reach)
    assert main(["join", "ws://127.0.0.1:9/abc"]) == 1          # the window's join: a few seconds, one line
    err = capsys.readouterr().err
    assert "cannot reach the server at ws://127.0.0.1:9" in err and "Traceback" not in err, err


@pytest.mark.slow
def test_play_online_makes_the_room_as_host_does(server, capsys):
    """play GAME --online URL: the room made on the server with the seats given (no human seat here:
    no window), its join address printed; a headless seat plays it to the end."""
    url, data = server
    assert main(["play", "knossos", "--online", url, "--seats", "remote,ai", "--games-to-win", "1",
                 "--outcomes", "measured", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "knossos, seats red=remote, blue=ai, seed 2, outcomes measured" in out, out
    address = next(line.split()[1] for line in out.splitlines() if line.startswith("join: "))
    played = tabletop.join(address, bot="ai")
    assert played.seat == "red" and played.winner in ("red", "blue")


@pytest.mark.slow
def test_an_unknown_room_or_a_taken_seat_is_bad_input(server, capsys):
    url, _ = server
    assert main(["join", f"{url}/no-such-room", "--headless"]) == 2
    assert "no room has that code" in capsys.readouterr().err
    assert main(["host", GAME, "--server", url, "--seats", "ai,ai,ai,ai,ai,ai,ai"]) == 2
    assert "needs 2-6 seats" in capsys.readouterr().err


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
@pytest.mark.parametrize("how", ["ctrl-c", "kill -9"])
def test_a_server_stopped_leaves_no_worker_and_a_readable_journal(tmp_path, how):
    """Ctrl-C ends `tabletop serve` with exit 130 and a line; after kill -9 its rooms' workers see
    their pipe close and end too. Either way each room's journal reads: room.json whole, the replay
    cut off at its last finished turn (restorable), never half-written."""
    import json
    import signal

    data = tmp_path / "rooms"
    proc = tabletop_process("serve", "--port", "0", "--data", str(data), cwd=tmp_path)
    url = proc.stdout.readline().split()[2]
    host = subprocess.run([sys.executable, "-m", "tabletop.cli", "host", GAME, "--server", url, "--seats",
                           "remote,ai,remote", "--outcomes", "measured"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    join = host.stdout.splitlines()[-1].split()[1]
    deadline = time.monotonic() + 30
    while not _children(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = [pid for pid in _children(proc.pid) if "spawn_main" in Path(f"/proc/{pid}/cmdline").read_text()]
    assert workers
    # a seat taken, so that room.json holds a token hash
    seat = tabletop_process("join", join, "--headless", cwd=tmp_path)
    meta_file = data / join.rsplit("/", 1)[1] / "room.json"
    while time.monotonic() < deadline and not (meta_file.exists() and '"tokens": {}' not in meta_file.read_text()):
        time.sleep(0.05)
    seat.kill()
    seat.wait(10)
    if how == "ctrl-c":
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130 and "tabletop: interrupted" in err and "Traceback" not in err
    else:
        proc.kill()
        proc.wait(10)
    while any(_alive(w) for w in workers) and time.monotonic() < deadline + 30:
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers)
    folder = data / join.rsplit("/", 1)[1]
    meta = json.loads((folder / "room.json").read_text())
    assert meta["seats"] == ["remote", "ai", "remote"] and "red" in meta["tokens"]
    replay = tabletop.open_replay(folder / "game.ttr")
    assert replay.game == GAME and not replay.complete


@pytest.mark.slow
def test_a_server_killed_mid_game_and_restarted_ends_the_game_as_if_it_had_never_stopped(tmp_path):
    """`kill -9` of `tabletop serve` mid-game, then a restart on the same --data and port: the room
    is taken up from its journal, the three `join --headless` processes reconnect on their own and
    the game ends with the result and history of the same room never stopped (the same secret, the
    same bots), and its saved game verifies, every commitment included."""
    import json
    import signal

    from tabletop.gamekit.commit import CommittedSeeds
    from tabletop.gamekit.record import encode_action
    from tabletop.gamekit.registry import GAMES
    from tabletop.net.room import Room, RoomSpec, token_hash
    from tabletop.sim.record import ReplayFile

    data = tmp_path / "rooms"
    first = tabletop_process("serve", "--port", "0", "--data", str(data), cwd=tmp_path)
    url = first.stdout.readline().split()[2]
    port = url.rsplit(":", 1)[1]
    host = subprocess.run([sys.executable, "-m", "tabletop.cli", "host", GAME, "--server", url, "--seats",
                           "remote,remote,remote", "--seed", "3", "--outcomes", "physics"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60)
    join = host.stdout.splitlines()[-1].split()[1]
    code = join.rsplit("/", 1)[1]
    colours = GAMES[GAME].colours[:3]
    players = [tabletop_process("join", join, "--headless", "--as", "random", "--seed", str(i), "--seat", colours[i],
                                cwd=tmp_path) for i in range(3)]
    journal = data / code / "game.ttr"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:                  # mid-game: a few turns journaled, not the end
        try:
            replay = ReplayFile.open(journal)
        except Exception:
            replay = None
        if replay is not None and len(replay.turns) >= 3:
            assert replay.end is None, "the game ended before the kill"
            break
        time.sleep(0.01)
    first.kill()
    first.wait(10)
    cut = len(ReplayFile.open(journal).turns)
    second = tabletop_process("serve", "--port", port, "--data", str(data), cwd=tmp_path)
    assert second.stdout.readline().startswith("serving on ")
    try:
        outs = [proc.communicate(timeout=300) for proc in players]
    finally:
        second.send_signal(signal.SIGTERM)
        _, server_err = second.communicate(timeout=30)
    assert [proc.returncode for proc in players] == [0, 0, 0], [err for _, err in outs]
    assert f"room {code}: restored" in server_err and "Traceback" not in server_err
    assert all("reconnecting" in err or "cannot reach the server" in err for _, err in outs)
    results = {out.splitlines()[-1] for out, _ in outs}
    assert len(results) == 1

    # the room never stopped: the same secret (revealed at the end), the same bots, in one process
    final = ReplayFile.open(journal)
    assert final.end is not None and len(final.turns) > cut
    meta = json.loads((data / code / "room.json").read_text())
    whole = Room(RoomSpec.from_dict(meta), None, seeds=CommittedSeeds(bytes.fromhex(final.end["secret"])))
    tokens = [f"token-{i}" for i in range(3)]
    for i in range(3):
        whole.claim(i, token_hash(tokens[i]))
    choosers = [random_chooser(i) for i in range(3)]
    while not whole.over():
        if whole.busy():
            whole.advance()
            continue
        seat = whole.to_act()
        whole.act(seat, tokens[seat], choosers[seat]({}, whole.update()["legal"], whole.step), whole.step)
    whole.close()
    recorded = [step["action"] for turn in final.turns for step in turn.steps]
    assert recorded == json.loads(json.dumps([encode_action(whole.definition, a) for a in whole.state.history]))
    assert final.end["lines"] == whole.match.result and results == {whole.match.result[-1]}
    verified = subprocess.run([sys.executable, "-m", "tabletop.cli", "replay", str(journal), "--verify"],
                              capture_output=True, text=True, timeout=300)
    assert verified.returncode == 0 and "commitments checked" in verified.stdout, verified.stderr
    chances = sum(1 for step in recorded if step[0] == "outcome")
    for _, err in outs:
        assert f"{chances} chance events checked against the commitments" in err and "NOT" not in err, err
