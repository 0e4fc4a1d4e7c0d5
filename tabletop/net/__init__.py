"""Play together: the game server, its rooms and its clients.

    protocol.py   the wire protocol: its version, every message, parsing with size limits and type
                  checks (docs/protocol.md)
    room.py       a room: one game run by the one match loop, its seats (remote ones with a secret
                  token), each viewer's view, its journal; the worker process a room runs in
    server.py     the asyncio websocket server (`tabletop serve`): rooms by code, each in a worker
                  process of its own; it checks every message and relays
    client.py     the asyncio client (`tabletop host`, `tabletop join`): make a room, play or watch a
                  seat with no window, reconnecting with backoff

Importing this package loads nothing else.
"""
