"""The jobs of playing together (tabletop.net): `serve` (the game server, until Ctrl-C), `host`
(a room made on a server) and `join` (a seat of a room played with no window, or the game watched).
"""
from __future__ import annotations

import asyncio
from typing import Callable

from tabletop.app.requests import HostRequest, JoinRequest, RoomsRequest, ServeRequest, StartRequest
from tabletop.app.results import HostedRoom, JoinedSeat
from tabletop.net.client import NetError, Refused, chat_line
from tabletop.sim.errors import InputError

__all__ = ["NetError", "browser_url", "check_window", "host", "join", "join_window", "rooms", "serve", "start"]

BAD_INPUT = {"bad-request", "unknown-room", "room-full", "bad-token", "spectator"}


def serve(request: ServeRequest, on_ready: Callable[[str], None] | None = None,
          note: Callable[[str], None] | None = None) -> None:
    """Serve rooms until interrupted (KeyboardInterrupt reaches the caller); `on_ready(url)` once it
    listens (its port: the one asked for, or the free one port 0 found), `note` each room's events."""
    from tabletop.net.server import serve as run
    from tabletop.sim.output import check_output_dir

    check_output_dir(request.data, "--data")
    _check_listen(request.host, request.port)
    listening: list[str] = []

    def ready(url: str) -> None:
        listening.append(url)
        if on_ready is not None:
            on_ready(url)
    try:
        asyncio.run(run(request.host, request.port, request.data, ready, note, listing=request.listing))
    except OSError as exc:
        if listening or not _listen_error(exc):
            raise
        raise InputError(_listen_refusal(request.host, request.port, exc)) from None


def _listen_error(exc: OSError) -> bool:
    import errno
    import socket

    return isinstance(exc, socket.gaierror) or exc.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES)


def _listen_refusal(host: str, port: int, exc: OSError) -> str:
    """The one line for an address the server cannot listen on."""
    import errno
    import socket

    if isinstance(exc, socket.gaierror):
        return f"--host: {host!r} is not an address or a name this machine can resolve ({exc.strerror or exc})"
    if exc.errno == errno.EADDRINUSE:
        return (f"--port: port {port} on {host} is already in use (another server?): give another --port, or "
                f"--port 0 for a free one")
    if exc.errno == errno.EADDRNOTAVAIL:
        return (f"--host: this machine has no address {host} to listen on (127.0.0.1: this machine only; "
                f"0.0.0.0: every address it has)")
    if exc.errno == errno.EACCES:
        return f"--port: this user may not listen on port {port} of {host} (ports below 1024 need privileges)"
    return f"--host/--port: cannot listen on {host}:{port}: {exc.strerror or exc}"


def _check_listen(host: str, port: int) -> None:
    """InputError (one line) where the server could not listen on host:port (in use, an address
    this machine does not have, a name that does not resolve): checked before any room is restored.
    Bound as asyncio's server binds (SO_REUSEADDR, IPv6 sockets IPv6 only), then closed."""
    import socket

    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, address in infos:
            with socket.socket(family, kind, proto) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                sock.bind(address)
    except OSError as exc:
        if _listen_error(exc):
            raise InputError(_listen_refusal(host, port, exc)) from None
        raise


def host(request: HostRequest) -> HostedRoom:
    """Make the request's room on its server. The game, seats, options and outcomes are checked
    here first (InputError), then by the server; NetError when the server cannot be reached."""
    from tabletop.net.client import create_room
    from tabletop.net.room import check_spec

    seats = tuple("remote" if kind == "human" else kind for kind in request.seats)   # the host joins it
    spec = check_spec("-", request.game, seats, request.seed, request.outcomes, request.options,
                      request.on_drop, request.drop_wait)
    try:
        created = asyncio.run(create_room(request.server, spec.game, spec.seats, spec.seed, spec.outcomes,
                                          request.options, spec.on_drop, spec.drop_wait))
    except Refused as exc:
        if exc.code in BAD_INPUT:
            raise InputError(exc.message) from None
        raise
    if created.host_key is not None:             # this machine starts the room early (`tabletop start`)
        from tabletop.net.keep import keep_host_key

        keep_host_key(request.server, created.room, created.host_key)
    return HostedRoom(created.room, f"{request.server}/{created.room}", created.game, tuple(created.seats))


def browser_url(url: str) -> str:
    """The room page's address for a join address: ws://HOST:PORT/CODE -> http://HOST:PORT/r/CODE
    (wss:// -> https://), served by the same server on the same port (tabletop.net.http)."""
    from tabletop.net.client import split_join_url

    server, code = split_join_url(url)
    scheme, rest = server.split("://", 1)
    return f"{'https' if scheme == 'wss' else 'http'}://{rest}/r/{code}"


def seat_to_take(request: JoinRequest, server: str, code: str) -> tuple[str, ...]:
    """The tokens a join tries first (each taken back only if nobody plays its seat now, then a
    free seat): those of the seats this machine keeps in the room (of the colour asked, if any);
    none with a token given by hand or for a spectator."""
    if request.spectate or request.token is not None:
        return ()
    from tabletop.net.keep import kept_seats

    return tuple(s["token"] for s in kept_seats(server, code) if request.seat is None or s["seat"] == request.seat)


def _keeper(server: str, code: str, request: JoinRequest):
    """What a client tells a seat's token to: kept in the user's data folder (tabletop.net.keep)."""
    from tabletop.net.keep import keep_seat

    def keep(colour: str, token: str) -> None:
        try:
            keep_seat(server, code, colour, token, name=request.name)
        except OSError:
            pass                      # not kept: the seat is played all the same, and its token said at the end
    return keep


def _refused_seat(exc: Refused, request: JoinRequest) -> InputError:
    """The one line for a join refused."""
    if exc.code == "bad-token" and request.token is not None:
        return InputError(f"--token: {exc.message}")
    return InputError(exc.message)


def join(request: JoinRequest, emit: Callable[[str], None] | None = None,
         note: Callable[[str], None] | None = None) -> JoinedSeat:
    """Play the request's seat (or watch) to the game's end: each log line the seat may read to
    `emit`, what happens to the connection to `note`. A code, seat or token the room does not take
    is an InputError; NetError when the server cannot be reached for long or stops the room."""
    from tabletop.net.client import SeatClient, bot_chooser, random_chooser, split_join_url

    server, code = split_join_url(request.url)
    if not request.spectate and request.bot != "random":
        _check_bot_for_room(server, code, request.bot)
    choose = None if request.spectate else random_chooser(request.seed) if request.bot == "random" else \
        bot_chooser(request.bot, request.seed)
    say = note or (lambda line: None)
    client = SeatClient(server, code, request.seat, request.name, request.spectate, choose, emit, note,
                        token=request.token, keep=_keeper(server, code, request),
                        on_chat=(lambda m: say(chat_line(m))) if request.chat else None,
                        kept=seat_to_take(request, server, code))
    try:
        view = asyncio.run(client.run())
    except Refused as exc:
        if exc.code in BAD_INPUT:
            raise _refused_seat(exc, request) from None
        raise
    return JoinedSeat(code, client.colour, list(client.log), list(view.get("result", [])), view.get("winner"),
                      client.reconnects)


def _check_bot_for_room(server: str, code: str, bot: str) -> None:
    """InputError (one line) where the room's game has no seat of kind `bot` for a client: asked
    before the seat is taken (as a spectator that leaves at once), so that no seat is taken by a
    client that could not play it. A server that cannot be asked now is left to the seat's client."""
    from tabletop.gamekit.registry import GAMES
    from tabletop.net.client import check_bot, room_game

    try:
        game = asyncio.run(room_game(server, code))
    except Refused as exc:
        if exc.code in BAD_INPUT:
            raise InputError(exc.message) from None
        raise
    if game in GAMES:
        check_bot(GAMES[game], bot)


def check_window() -> None:
    """InputError (one line) where the 3D window cannot open: before a room or a seat is taken for it."""
    from tabletop.sim.view.app import has_display

    if not has_display():
        raise InputError("no display available for the 3D window: play the seat with `tabletop join URL --headless "
                         "--as ai` (or random, plan, solved), or watch with --headless --spectate")


def open_window(request: JoinRequest, note: Callable[[str], None] | None = None, size=(1280, 720),
                offscreen: bool = False, pace: float = 0.8):
    """(app, window) of the request's seat once the room's first view came: the seat this machine
    keeps in the room taken back (if nobody plays it now), else a free one, its token kept."""
    from tabletop.net.client import split_join_url
    from tabletop.net.window import open_remote

    server, code = split_join_url(request.url)
    try:
        return open_remote(server, code, request.seat, request.name, request.spectate, size=size, offscreen=offscreen,
                           pace=pace, note=note, token=request.token, keep=_keeper(server, code, request),
                           chat=request.chat, kept=seat_to_take(request, server, code))
    except Refused as exc:
        if exc.code in BAD_INPUT:
            raise _refused_seat(exc, request) from None
        raise


def join_window(request: JoinRequest, note: Callable[[str], None] | None = None) -> int:
    """The request's seat played in the 3D window (or the game watched) until the window closes.
    A code, seat or token the room does not take is an InputError, as is a window that cannot open
    (no display); NetError when the room's first view does not come."""
    check_window()
    app, window = open_window(request, note=note)
    try:
        app.base.run()
    finally:
        window.close()
    return 0


def start(request: StartRequest) -> str:
    """Start the room at `url` now, before its seats are all taken (the AI plays the seats not
    taken until a player takes them), with `host_key` or the one kept on this machine when it made
    the room; what the server said. InputError when no key is kept or the server refuses it."""
    from tabletop.net.client import split_join_url, start_room
    from tabletop.net.keep import kept_host_key

    server, code = split_join_url(request.url)
    key = request.host_key or kept_host_key(server, code)
    if key is None:
        raise InputError(f"this machine did not make room {code} (no host key kept for it): give --host-key")
    try:
        return asyncio.run(start_room(server, code, key))
    except Refused as exc:
        raise InputError(exc.message) from None


def rooms(request: RoomsRequest) -> list[dict]:
    """The open rooms of `server` (one started with `tabletop serve --list`), each with its join url.
    InputError when the server does not list its rooms."""
    from tabletop.net.client import list_rooms, server_url

    server = server_url(request.server)
    try:
        listed = asyncio.run(list_rooms(server))
    except Refused as exc:
        raise InputError(exc.message) from None
    return [{**room, "url": f"{server}/{room['code']}"} for room in listed]
