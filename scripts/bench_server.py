"""Load on one game server: the action round trip with N rooms at once, and a physical throw's time to its result.

    python scripts/bench_server.py [--rooms 1,2,4,8,16] [--game king-kong] [--seats 3] [--outcomes measured]
        [--actions-per-room 100 | --games-per-room G] [--physics king-kong,king-of-the-hill] [--throws 100]
        [--seed 1] [--json FILE]

One server, `tabletop serve --port 0` in a process of its own (each room in its spawned worker
process, as served), journaling into a temporary folder that is removed after. This process holds
every client: for each N of --rooms, N rooms of --game (every seat "remote", chance drawn by the room
from --outcomes: "measured", the published tables, so the room's own steps are cheap), each seat
played over loopback websockets by a headless bot (a thin client of tabletop.net.protocol choosing
with tabletop.net.client.random_chooser). Once every seat of the N rooms has its first view, all
start at once. The action round trip is the time from sending an `act` to receiving the next `view`
on that connection (the server checked it, the room's worker applied it, and the server relayed the
room's update). A room plays until its seats have sent --actions-per-room actions (a game that ends
first is followed by a new room in its place; the room in play at the quota is left where it
stands, open on the server until the server stops) or, with --games-per-room, G whole games. The
bots answer at once, with no time to think, so each room here is far busier than a room of people,
and the rooms that start in place of finished games (a worker process spawned each) are part of the
load. Printed for each N, with the number of samples: p50, p95, p99 and the longest round trip, the
actions per second over all rooms, p50 and p95 as ratios against the baseline, the games finished,
the CPU this process (the clients) took as a share of one core, and the resident memory of the
server and its workers (shared pages counted in each; rooms left open keep their workers); then the
rooms held: the largest N whose p95 is under 100 ms. No room is made when it would leave the machine
less than 1.5 GB of memory (the server's workers add up: see `check_memory`).

The baseline, measured in the same run: a websocket echo round trip on loopback with the same
library (websockets), the echo server in a process of its own, sending an `act` of the same size.

A physical throw (--physics: rooms with outcomes "physics", played the same way, one room at a
time after the load): before each chance event the server sends `commit` (the throw starts: the
room's worker simulates it), after it settles `reveal`. Measured on every client: the time from the
`commit` to the first message that carries the event's result (its `reveal`, or the next `view` for
an event revealed only at the end), reported as "throw to its result on the clients"; and, for an
event that follows a seat's action (King Kong's roll), from that seat's `act` to the result. The
table's motion is not on the wire yet; once it travels (the event's frames), the same measure taken
to its first frame is the time from a throw to its first frame on the clients.

Seeds: every room's seed and every bot's choices come from --seed. The rooms draw their chance
events from the server's own secret (fresh for each room, so that no client can know them), so the
games differ from run to run; the figures are timings and vary with the machine's load, and every
client runs in this one process, on the same cores as the server.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HELD_P95_S = 0.100          # a load is held while the round trip's p95 is under this
START_S = 60.0              # the most a server (or the echo server) may take to listen
READY_S = 300.0             # the most the rooms of one N may take to start (their workers spawn)
STALL_S = 120.0             # the most a bot waits for the server's next message
BASELINE_SAMPLES = 2000
SPARE_MB = 1500             # memory left free for the rest of the machine; below it no room is made
ROOM_MB = 250               # a room's worker process, about (with the physics loaded)

ECHO_SERVER = """
import asyncio
from websockets.asyncio.server import serve

async def echo(ws):
    async for frame in ws:
        await ws.send(frame)

async def main():
    async with serve(echo, "127.0.0.1", 0) as server:
        print(f"ws://127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
        await asyncio.Future()

asyncio.run(main())
"""


class BenchError(RuntimeError):
    """The benchmark could not go on (the server failed, refused or stalled): one line."""


class BadInput(ValueError):
    """Bad input: one line, exit 2."""


# -- the server, in a process of its own ---------------------------------------------------------------
class Process:
    """A child process whose first stdout line is its address (`tabletop serve`, the echo server);
    output to files in `folder` (a pipe left unread would stall it); in its own session, so that
    Ctrl-C reaches this process alone and the child is stopped here: terminate, then kill."""

    def __init__(self, argv: list[str], folder: Path, name: str, marker: str):
        self.name, self.folder = name, folder
        self.out_path, self.err_path = folder / f"{name}.out", folder / f"{name}.err"
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, cwd=folder,
                                         start_new_session=True, text=True)
        try:
            self.url = self._address(marker)
        except BaseException:          # Ctrl-C while it starts, too: never left running
            self.stop()
            raise

    def _address(self, marker: str) -> str:
        end = time.monotonic() + START_S
        while time.monotonic() < end:
            line = self.out_path.read_text().split("\n", 1)
            if len(line) == 2 and marker in line[0]:
                return next(word for word in line[0].split() if word.startswith("ws://"))
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        tail = self.err_path.read_text().strip().splitlines()[-1:] or ["(nothing on stderr)"]
        raise BenchError(f"the {self.name} did not start listening: {tail[0]}")

    def rss_mb(self) -> float | None:
        """The resident memory of the process and its children (Linux /proc), MB; None elsewhere."""
        try:
            total, todo = 0, [self.proc.pid]
            while todo:
                pid = todo.pop()
                with open(f"/proc/{pid}/statm") as f:
                    total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
                for task in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{task}/children") as f:
                        todo += [int(c) for c in f.read().split()]
            return total / 1e6
        except (OSError, ValueError):
            return None

    def stop(self) -> int | None:
        """Terminate (SIGTERM: the server stops its rooms' workers), then kill; the exit status."""
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(15)
        return self.proc.returncode

    def problems(self) -> list[str]:
        """The server's stderr lines that say something went wrong."""
        words = ("Traceback", "internal error", "stopped:", "Error")
        return [line for line in self.err_path.read_text().splitlines() if any(w in line for w in words)]


# -- figures -----------------------------------------------------------------------------------------
def figures(samples: list[float]) -> dict:
    """p50, p95, p99 and the longest, in ms, with the number of samples."""
    if not samples:
        return {"n": 0}
    ms = np.asarray(samples) * 1000.0
    p50, p95, p99 = np.percentile(ms, [50, 95, 99])
    return {"n": len(ms), "p50_ms": float(p50), "p95_ms": float(p95), "p99_ms": float(p99),
            "max_ms": float(ms.max())}


def derived_seed(seed: int, *key: int) -> int:
    """A seed of its own for each room and bot, from --seed (SeedSequence spawn keys)."""
    return int(np.random.SeedSequence(seed, spawn_key=key).generate_state(1, np.uint64)[0]) >> 1


# -- the bots --------------------------------------------------------------------------------------
@dataclass
class Slot:
    """One of the N rooms held at once, over the games played in its place: the actions its seats
    sent, the round trips timed, the throws timed and the games finished."""

    quota: int | None              # actions (load) or throws (physics) to stop at; None: whole games
    round_trips: list = field(default_factory=list)
    throws: list = field(default_factory=list)          # (event, s from commit to result)
    act_to_result: list = field(default_factory=list)   # (event, s from the act before it to its result)
    sent: int = 0
    events: int = 0                # chance events whose result reached a client
    games: int = 0
    rooms: int = 0


class Table:
    """A room's bots: when to stop (`stop_step`: the view at which the room was left)."""

    def __init__(self, slot: Slot, url: str, code: str, count_throws: bool):
        self.slot, self.url, self.code, self.count_throws = slot, url, code, count_throws
        self.bots: list[Bot] = []
        self.resolved: set[int] = set()       # chance events whose result reached a client
        self.stop_step: int | None = None
        self.over = False

    def reached(self) -> bool:
        quota = self.slot.quota
        done = self.slot.events if self.count_throws else self.slot.sent
        return quota is not None and done >= quota

    async def leave(self, step: int) -> None:
        """Leave the room at `step` (it waits for a seat): a bot that has seen it closes now, the
        others once it reaches them."""
        self.stop_step = step
        await asyncio.gather(*(b.ws.close() for b in self.bots if b.ws is not None and b.step >= step))


class Bot:
    """One remote seat of a room played over its own websocket: joins, then answers each view that
    asks it to act with `choose(view, legal, step)`, timing every round trip and every throw."""

    def __init__(self, table: Table, colour: str, choose):
        self.table, self.colour, self.choose = table, colour, choose
        self.ws = None
        self.token: str | None = None
        self.step = -1                      # the step of the latest view
        self.ready = asyncio.Event()        # set at the first view
        self.sent_at: float | None = None   # when the act not yet answered was sent, and its step
        self.acted_step = -1
        self.last_act: float | None = None  # when the last act was sent (for a chance event right after it)
        self.pending: dict[int, tuple[float, str, float | None]] = {}   # chance -> (commit time, event, act)

    async def run(self, go: asyncio.Event) -> None:
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, ConnectionClosedOK

        from tabletop.net import protocol as p

        table = self.table
        async with connect(table.url, max_size=p.MAX_SERVER_FRAME, open_timeout=30, proxy=None) as ws:
            self.ws = ws
            await ws.send(p.encode(p.Join(table.code, seat=self.colour, name=f"bench-{self.colour}")))
            while True:
                try:
                    frame = await asyncio.wait_for(ws.recv(), STALL_S)
                except ConnectionClosedOK as exc:
                    if table.stop_step is not None:
                        return              # left by the table
                    raise BenchError(f"room {table.code}: the server closed {self.colour}'s connection at step "
                                     f"{self.step} ({exc})") from None
                except ConnectionClosed as exc:
                    raise BenchError(f"room {table.code}: {self.colour}'s connection dropped: {exc}") from None
                except TimeoutError:
                    raise BenchError(f"room {table.code}: no message for {self.colour} in {STALL_S:g} s "
                                     f"(the server stalled)") from None
                now = time.perf_counter()
                try:
                    message = p.parse(frame, "server")
                except p.ProtocolError as exc:
                    raise BenchError(f"room {table.code}: the server sent a message this protocol does not have: "
                                     f"{exc}") from None
                if isinstance(message, p.Error):
                    raise BenchError(f"room {table.code}: {self.colour} was refused: {message.code}: "
                                     f"{message.message}")
                if isinstance(message, p.Joined):
                    self.token = message.token
                elif not self.ready.is_set() and isinstance(message, (p.Commit, p.Reveal)):
                    pass                    # the proofs so far, sent on joining: not timed
                elif isinstance(message, p.Commit):
                    # an event that follows this seat's act: the act's view, and no other since
                    after_act = self.last_act if self.step == self.acted_step + 1 else None
                    self.pending[message.chance] = (now, message.event, after_act)
                elif isinstance(message, p.Reveal):
                    self._result(message.chance, now)
                elif isinstance(message, p.View):
                    if await self._view(p, ws, message, now, go):
                        return

    def _result(self, chance: int, now: float) -> None:
        if chance not in self.pending:
            return                  # an event committed before this bot's first view
        at, event, act = self.pending.pop(chance)
        slot = self.table.slot
        slot.throws.append((event, now - at))
        if act is not None:
            slot.act_to_result.append((event, now - act))
        if chance not in self.table.resolved:
            self.table.resolved.add(chance)
            slot.events += 1

    async def _view(self, p, ws, message, now: float, go: asyncio.Event) -> bool:
        """Take a view: its round trip, the results it carries; act when asked. True: done."""
        table, slot = self.table, self.table.slot
        for chance in list(self.pending):     # an event revealed only at the end: its result is this view
            self._result(chance, now)
        if self.sent_at is not None and message.step > self.acted_step:
            slot.round_trips.append(now - self.sent_at)
            self.sent_at = None
        self.step = message.step
        self.ready.set()
        if message.view.get("over"):
            table.over = True
            return True
        if table.stop_step is not None and message.step >= table.stop_step:
            return True
        if not message.legal:
            return False
        await go.wait()
        if table.reached():
            await table.leave(message.step)
            return True
        action = self.choose(message.view, [list(a) for a in message.legal], message.step)
        self.acted_step = message.step
        slot.sent += 1
        self.sent_at = self.last_act = time.perf_counter()
        await ws.send(p.encode(p.Act(self.token, message.step, tuple(action))))
        return False


async def first_of(awaited: asyncio.Future, others: list, late: str) -> None:
    """Wait for `awaited`, at most READY_S; a task of `others` that fails first raises its error."""
    deadline = time.monotonic() + READY_S
    pending = {awaited, *others}
    try:
        while not awaited.done():
            done, pending = await asyncio.wait(pending, timeout=max(0.0, deadline - time.monotonic()),
                                               return_when=asyncio.FIRST_COMPLETED)
            if not done:
                raise BenchError(late)
            for task in done:
                if task is not awaited:
                    task.result()
    finally:
        awaited.cancel()


async def cancelled(tasks: list) -> None:
    """Cancel the tasks not done and wait for them."""
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def available_mb() -> float | None:
    """The memory the machine has left (Linux /proc/meminfo MemAvailable), MB; None elsewhere."""
    try:
        with open("/proc/meminfo") as f:
            return next(int(line.split()[1]) / 1024 for line in f if line.startswith("MemAvailable:"))
    except (OSError, StopIteration, ValueError):
        return None


def check_memory(rooms: int) -> None:
    """Refuse to make `rooms` more rooms (a worker process each) when they would leave the machine
    less than SPARE_MB: the workers add up (a room left at its quota keeps its worker, and so, today,
    does a room whose game a seat's action ended: its worker waits for a command once the game is
    over, until the server stops)."""
    left = available_mb()
    if left is not None and left < SPARE_MB + rooms * ROOM_MB:
        raise BenchError(f"only {left:.0f} MB of memory left, and {rooms} more room(s) need about "
                         f"{rooms * ROOM_MB} MB beside {SPARE_MB} MB kept free: stopped before the machine "
                         f"runs out")


async def play_slot(url: str, game: str, seats: int, outcomes: str, slot: Slot, games: int | None,
                    seeds: tuple, go: asyncio.Event, started: asyncio.Future, count_throws: bool) -> None:
    """Play the rooms of one slot, one after another, until its quota (or `games` games); `started`
    is told once the first room's bots all have their first view."""
    from tabletop.gamekit.registry import game_spec
    from tabletop.net.client import NetError, create_room, random_chooser

    colours = game_spec(game).colours[:seats]
    while True:
        check_memory(1)
        room_seed = derived_seed(*seeds, slot.rooms)
        try:
            created = await create_room(url, game, ("remote",) * seats, room_seed, outcomes, {})
        except NetError as exc:
            raise BenchError(f"cannot make a room: {exc}") from None
        slot.rooms += 1
        table = Table(slot, url, created.room, count_throws)
        table.bots = [Bot(table, colour, random_chooser(derived_seed(*seeds, slot.rooms, i)))
                      for i, colour in enumerate(colours)]
        bots = [asyncio.ensure_future(bot.run(go)) for bot in table.bots]
        try:
            if not started.done():
                ready = asyncio.ensure_future(asyncio.gather(*(b.ready.wait() for b in table.bots)))
                await first_of(ready, bots, f"room {table.code} did not start within {READY_S:g} s")
                started.set_result(None)
            await asyncio.gather(*bots)
        finally:
            await cancelled(bots)
        slot.games += table.over
        if not table.over or (games is not None and slot.games >= games) or (games is None and table.reached()):
            return


async def load(url: str, n: int, args) -> dict:
    """N rooms at once: every round trip, and the actions per second from the start to the last."""
    check_memory(n)
    go = asyncio.Event()
    slots = [Slot(None if args.games_per_room else args.actions_per_room) for _ in range(n)]
    started = [asyncio.get_running_loop().create_future() for _ in range(n)]
    tasks = [asyncio.ensure_future(play_slot(url, args.game, args.seats, args.outcomes, slot, args.games_per_room,
                                             (args.seed, n, i), go, started[i], False))
             for i, slot in enumerate(slots)]
    try:
        waiting = asyncio.ensure_future(asyncio.gather(*started))
        await first_of(waiting, tasks, f"the {n} rooms did not start within {READY_S:g} s")
        t0, cpu0 = time.perf_counter(), time.process_time()
        go.set()
        await asyncio.gather(*tasks)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    finally:
        await cancelled(tasks)
    trips = [t for s in slots for t in s.round_trips]
    return {"rooms": n, "round_trip": figures(trips), "actions_sent": sum(s.sent for s in slots),
            "actions_per_s": len(trips) / wall if wall > 0 else 0.0, "wall_s": wall,
            "games_finished": sum(s.games for s in slots), "rooms_made": sum(s.rooms for s in slots),
            "clients_cpu_s": cpu}


async def physics(url: str, game: str, seats: int, throws: int, seed: int) -> dict:
    """One room of `game` with outcomes physics, played until `throws` chance events have their result."""
    go = asyncio.Event()
    go.set()
    slot = Slot(throws)
    t0 = time.perf_counter()
    await play_slot(url, game, seats, "physics", slot, None, (seed, 1_000_000), go,
                    asyncio.get_running_loop().create_future(), True)
    kinds = sorted({event for event, _ in slot.throws})
    return {"game": game, "seats": seats, "events": slot.events,
            "throw_to_result": figures([s for _, s in slot.throws]),
            "by_event": {kind: figures([s for e, s in slot.throws if e == kind]) for kind in kinds},
            "act_to_result": figures([s for _, s in slot.act_to_result]), "rooms_made": slot.rooms,
            "wall_s": time.perf_counter() - t0}


async def echo_baseline(url: str, frame: str, samples: int) -> dict:
    """The bare websocket round trip: `frame` to the echo server and back, `samples` times."""
    from websockets.asyncio.client import connect

    times = []
    async with connect(url, proxy=None) as ws:
        for _ in range(samples // 10):          # warm up
            await ws.send(frame)
            await ws.recv()
        for _ in range(samples):
            t = time.perf_counter()
            await ws.send(frame)
            await ws.recv()
            times.append(time.perf_counter() - t)
    return figures(times)


# -- the run ------------------------------------------------------------------------------------------
def ratio(a: dict, b: dict, key: str) -> float | None:
    return a[key] / b[key] if a.get("n") and b.get("n") and b[key] > 0 else None


def parse_args(argv: list[str] | None):
    from tabletop.gamekit.registry import GAMES
    from tabletop.net.server import MAX_ROOMS

    class Parser(argparse.ArgumentParser):
        def error(self, message):
            raise BadInput(message)

    ap = Parser(prog="bench_server.py", description=__doc__.splitlines()[0])
    ap.add_argument("--rooms", default="1,2,4,8,16", help="the numbers of rooms held at once (default 1,2,4,8,16)")
    ap.add_argument("--game", default="king-kong", help=f"the rooms' game: {', '.join(GAMES)} (default king-kong)")
    ap.add_argument("--seats", type=int, default=None, help="seats a room, every one a bot (default 3, or the game's)")
    ap.add_argument("--outcomes", choices=("measured", "physics"), default="measured",
                    help="the load rooms' chance (default measured: the published tables)")
    size = ap.add_mutually_exclusive_group()
    size.add_argument("--actions-per-room", type=int, default=100,
                      help="actions each room's seats send, over as many games as it takes (default 100)")
    size.add_argument("--games-per-room", type=int, default=None, help="whole games each room plays instead")
    ap.add_argument("--physics", default="king-kong,king-of-the-hill",
                    help="games whose physics room times its throws ('none': no physics room)")
    ap.add_argument("--throws", type=int, default=100, help="chance events timed in each physics room (default 100)")
    ap.add_argument("--baseline-samples", type=int, default=BASELINE_SAMPLES)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args(argv)
    try:
        args.rooms = [int(r) for r in args.rooms.split(",")]
    except ValueError:
        raise BadInput(f"--rooms: expected numbers of rooms separated by commas, got {args.rooms!r}") from None
    args.physics = [] if args.physics in ("", "none") else args.physics.split(",")
    for name in [args.game, *args.physics]:
        if name not in GAMES:
            raise BadInput(f"unknown game {name!r}: one of {', '.join(GAMES)}")
    lo, hi = GAMES[args.game].seats
    args.seats = args.seats if args.seats is not None else min(hi, max(lo, 3))
    checks = [(min(args.rooms) >= 1, "--rooms: every number of rooms is at least 1"),
              (lo <= args.seats <= hi, f"--seats: {args.game} has {lo} to {hi} seats"),
              (args.actions_per_room >= 1, "--actions-per-room: at least 1"),
              (args.games_per_room is None or args.games_per_room >= 1, "--games-per-room: at least 1"),
              (args.throws >= 1, "--throws: at least 1"),
              (args.baseline_samples >= 10, "--baseline-samples: at least 10"),
              (0 <= args.seed < 2**63, "--seed: a whole number from 0 to 2**63-1")]
    for ok, message in checks:
        if not ok:
            raise BadInput(message)
    # a room left at its quota stays open until the server stops, and a server holds MAX_ROOMS open rooms
    left_open = (0 if args.games_per_room else sum(args.rooms)) + len(args.physics)
    if left_open > MAX_ROOMS:
        raise BadInput(f"--rooms: {left_open} rooms would be left open, and a server holds {MAX_ROOMS}; "
                       f"give fewer rooms or --games-per-room")
    return args


def physics_seats(game: str) -> int:
    from tabletop.gamekit.registry import GAMES

    lo, hi = GAMES[game].seats
    return min(hi, max(lo, 3))


async def run(args, folder: Path, say) -> dict:
    import websockets

    from tabletop.net import protocol as p

    result: dict = {"settings": {"game": args.game, "seats": args.seats, "outcomes": args.outcomes,
                                 "rooms": args.rooms, "actions_per_room": None if args.games_per_room
                                 else args.actions_per_room, "games_per_room": args.games_per_room,
                                 "physics": args.physics, "throws": args.throws, "seed": args.seed},
                    "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0],
                                "websockets": websockets.__version__}}
    act = p.encode(p.Act("T" * 32, 123, ("fly", 20, "R1-4")))
    echo = Process([sys.executable, "-c", ECHO_SERVER], folder, "echo server", "ws://")
    try:
        base = await echo_baseline(echo.url, act, args.baseline_samples)
    finally:
        echo.stop()
    result["baseline"] = {"what": "websocket echo round trip on loopback (echo server in its own process), "
                                  f"an act of {len(act)} bytes", **base}
    say(f"baseline: websocket echo round trip on loopback, websockets {websockets.__version__}: p50 "
        f"{base['p50_ms']:.3f} ms, p95 {base['p95_ms']:.3f} ms, p99 {base['p99_ms']:.3f} ms "
        f"({base['n']} round trips)")
    server = Process([sys.executable, "-m", "tabletop.cli", "serve", "--host", "127.0.0.1", "--port", "0",
                      "--data", str(folder / "rooms")], folder, "server", "serving on ws://")
    try:
        size = f"{args.games_per_room} games" if args.games_per_room else f"{args.actions_per_room} actions"
        say(f"{args.game}, {args.seats} bot seats a room, outcomes {args.outcomes}, {size} a room; "
            f"server at {server.url}")
        say("rooms  round trips   p50 ms   p95 ms   p99 ms   max ms  actions/s  p50/base  p95/base  games  "
            "clients CPU  server MB")
        result["load"] = []
        for n in args.rooms:
            row = await load(server.url, n, args)
            trip = row["round_trip"]
            row["p50_vs_baseline"], row["p95_vs_baseline"] = ratio(trip, base, "p50_ms"), ratio(trip, base, "p95_ms")
            row["server_rss_mb"] = server.rss_mb()
            result["load"].append(row)
            if not trip["n"]:
                say(f"{n:5d}  no round trips")
                continue
            say(f"{n:5d}  {trip['n']:11d}  {trip['p50_ms']:7.2f}  {trip['p95_ms']:7.2f}  {trip['p99_ms']:7.2f}  "
                f"{trip['max_ms']:7.1f}  {row['actions_per_s']:9.0f}  {row['p50_vs_baseline']:7.0f}x  "
                f"{row['p95_vs_baseline']:7.0f}x  {row['games_finished']:5d}  "
                f"{100 * row['clients_cpu_s'] / row['wall_s']:10.0f}%  "
                + (f"{row['server_rss_mb']:9.0f}" if row["server_rss_mb"] is not None else "        -"))
        held = [r["rooms"] for r in result["load"]
                if r["round_trip"]["n"] and r["round_trip"]["p95_ms"] < 1000 * HELD_P95_S]
        result["rooms_held"] = max(held) if held else 0
        result["rooms_held_is_largest_tried"] = bool(held) and max(held) == max(args.rooms)
        say(f"rooms held with the round trip's p95 under {1000 * HELD_P95_S:.0f} ms: {result['rooms_held']}"
            + (" (the most tried)" if result["rooms_held_is_largest_tried"] else ""))
        result["physics"] = []
        for game in args.physics:
            row = await physics(server.url, game, physics_seats(game), args.throws, args.seed)
            result["physics"].append(row)
            thr, act_fig = row["throw_to_result"], row["act_to_result"]
            if not thr["n"]:
                say(f"physics, {game}: no chance event timed")
                continue
            say(f"physics, {game} ({row['seats']} seats, {row['events']} chance events): throw to its result on "
                f"the clients (commit to reveal): p50 {thr['p50_ms']:.1f} ms, p95 {thr['p95_ms']:.1f} ms, longest "
                f"{thr['max_ms']:.1f} ms ({thr['n']} samples)"
                + (f"; from the seat's act: p50 {act_fig['p50_ms']:.1f} ms, p95 {act_fig['p95_ms']:.1f} ms "
                   f"({act_fig['n']} samples)" if act_fig["n"] else ""))
            for kind, fig in row["by_event"].items():
                say(f"    {kind:12s} p50 {fig['p50_ms']:7.1f} ms  p95 {fig['p95_ms']:7.1f} ms  longest "
                    f"{fig['max_ms']:7.1f} ms  ({fig['n']} samples)")
    finally:
        t0 = time.perf_counter()
        result["server_exit"] = server.stop()
        result["server_stop_s"] = time.perf_counter() - t0
        result["server_problems"] = server.problems()
    for line in result["server_problems"][:5]:
        say(f"server said: {line}")
    return result


def last_lines(path: Path, n: int) -> list[str]:
    try:
        return path.read_text().splitlines()[-n:]
    except OSError:
        return []


def terminated(*_) -> None:
    print("bench_server: terminated: stopping the server", file=sys.stderr)
    sys.exit(143)


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse_args(argv)
    except BadInput as exc:
        print(f"bench_server: error: {exc}", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="bench-server-"))
    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        result = asyncio.run(run(args, folder, lambda line: print(line, flush=True)))
    except KeyboardInterrupt:
        print("bench_server: interrupted; the server is stopped", file=sys.stderr)
        return 130
    except BenchError as exc:
        print(f"bench_server: {exc}", file=sys.stderr)
        for line in last_lines(folder / "server.err", 5):
            print(f"  the server's last words: {line}", file=sys.stderr)
        return 1
    finally:
        signal.signal(signal.SIGTERM, previous)
        shutil.rmtree(folder, ignore_errors=True)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
