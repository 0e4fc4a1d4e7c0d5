"""The commands of playing together: serve, host, join. Each builds its request, runs the job
(tabletop.app.net) and prints what it says; a server that cannot be reached is one line, exit 1."""
from __future__ import annotations

import sys

from tabletop.app import requests as rq
from tabletop.cli.parser import given_options
from tabletop.sim.errors import InputError

EXIT_NET = 1


def _note(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _echo(line: str) -> None:
    print(line, flush=True)


def _failed(exc: Exception) -> int:
    print(f"tabletop: error: {exc}", file=sys.stderr)
    return EXIT_NET


def serve(args) -> int:
    from tabletop.app import net

    request = rq.ServeRequest(host=args.host, port=args.port, data=args.data, listing=args.listing)
    net.serve(request, on_ready=lambda url: _echo(f"serving on {url} (rooms journaled in {request.data})"),
              note=_note)
    return 0


def host(args) -> int:
    request = rq.HostRequest(game=args.game, seats=args.seats, seed=args.seed, outcomes=args.outcomes,
                             options=given_options(args), server=args.server, on_drop=args.on_drop,
                             drop_wait=args.drop_wait)
    return host_room(request)


def host_room(request: rq.HostRequest) -> int:
    """Make the room (`host`, `play --online`), print its join address, and open the window on its
    human seat when it has one."""
    from tabletop.app import net

    if "human" in request.seats:
        net.check_window()                        # before the room is made for the window
    try:
        room = net.host(request)
    except net.NetError as exc:
        return _failed(exc)
    seats = ", ".join(f"{s['colour']}={s['kind']}" for s in room.seats)
    then = "the AI plays it" if request.on_drop == "ai" else "the room pauses"
    _echo(f"room {room.code}: {room.game}, seats {seats}, seed {request.seed}, outcomes {request.outcomes}; "
          f"a dropped seat is waited for {request.drop_wait} s, then {then}")
    waiting = [s["colour"] for s in room.seats if s["kind"] == "remote"]
    if len(waiting) > ("human" in request.seats):
        _echo(f"the room waits until {', '.join(waiting)} are taken; `tabletop start {room.url}`"
              + (" (or S in your window)" if "human" in request.seats else "")
              + " starts it now with the AI in the seats not taken")
    _echo(f"open in a browser: {net.browser_url(room.url)}")
    _echo(f"join: {room.url}")                  # the last line: scripts take the address from it
    if "human" in request.seats:                  # the host's own seat, in the window
        colour = room.seats[list(request.seats).index("human")]["colour"]
        try:
            return net.join_window(rq.JoinRequest(url=room.url, seat=colour, name="host"), note=_note)
        except net.NetError as exc:
            return _failed(exc)
    return 0


def join(args) -> int:
    from tabletop.app import net

    request = rq.JoinRequest(url=args.url, seat=args.seat, name=args.name, bot=args.bot, spectate=args.spectate,
                             seed=args.seed, token=args.token, chat=args.chat)
    if not args.headless and args.bot != "random":
        raise InputError("--as: with --headless (in the window you play the seat)")
    try:
        if not args.headless:
            return net.join_window(request, note=_note)
        net.join(request, emit=_echo, note=_note)
    except net.NetError as exc:
        return _failed(exc)
    return 0


def start(args) -> int:
    from tabletop.app import net

    try:
        _echo(net.start(rq.StartRequest(url=args.url, host_key=args.host_key)))
    except net.NetError as exc:
        return _failed(exc)
    return 0


def rooms(args) -> int:
    from tabletop.app import net

    try:
        listed = net.rooms(rq.RoomsRequest(server=args.server))
    except net.NetError as exc:
        return _failed(exc)
    if not listed:
        _echo(f"no open rooms on {args.server}")
    for room in listed:
        seats = ", ".join(f"{s['colour']}=" + (s["name"] or "taken" if s["taken"] else
                                               "free" if s["kind"] == "remote" else s["kind"])
                          for s in room["seats"])
        _echo(f"{room['game']}  {'playing' if room['started'] else 'waiting'}  {seats}  join: {room['url']}")
    return 0
