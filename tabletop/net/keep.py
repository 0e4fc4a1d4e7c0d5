"""The seats this machine holds in rooms of game servers, kept so that the same `tabletop join
URL/CODE` takes a seat back after a quit, a crash or a reboot without the player typing anything.

One file a seat: SEATS/<server>/<code>/<colour>.json under the user's data folder
(tabletop.gamekit.record.data_dir: ~/.local/share/tabletop/seats on Linux, $TABLETOP_DATA/seats
when that is set), holding the server's address, the room's code, the seat's colour, its secret
token, the game and the player's name; and host.json beside them with the key that lets the
machine that made the room start it early. Each file is written whole (a temp file, then a
rename) and readable by its owner alone: a token is the seat.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

SEATS_DIR = "seats"
HOST_FILE = "host.json"


def seats_dir() -> Path:
    from tabletop.gamekit.record import data_dir

    return data_dir() / SEATS_DIR


def _safe(text: str) -> str:
    """A folder name for a server address or a code: readable where it can be, else hashed."""
    plain = "".join(c if c.isalnum() or c in "-_." else "_" for c in text)
    if plain == text and 0 < len(text) <= 64 and not text.startswith("."):
        return text
    return f"{plain[:40]}-{hashlib.sha256(text.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def room_dir(server: str, code: str, base: Path | None = None) -> Path:
    return (base or seats_dir()) / _safe(server) / _safe(code)


def _read(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None                  # none, or not one of ours: as if none were kept
    return data if isinstance(data, dict) else None


def _write(path: Path, data: dict) -> None:
    from tabletop.sim.output import write_bytes_atomic

    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomic(path, json.dumps(data, indent=1).encode(), private=True)


def keep_seat(server: str, code: str, colour: str, token: str, game: str | None = None, name: str | None = None,
              base: Path | None = None) -> Path:
    """Keep the token of `colour` in room `code` of `server`; the file it is kept in."""
    path = room_dir(server, code, base) / f"{_safe(colour)}.json"
    _write(path, {"server": server, "room": code, "seat": colour, "token": token, "game": game, "name": name})
    return path


def kept_seats(server: str, code: str, base: Path | None = None) -> list[dict]:
    """Every seat this machine holds in the room, in the order of their colours' names."""
    folder = room_dir(server, code, base)
    if not folder.is_dir():
        return []
    seats = []
    for path in sorted(folder.glob("*.json")):
        data = _read(path) if path.name != HOST_FILE else None
        if data and data.get("room") == code and data.get("server") == server and isinstance(data.get("token"), str) \
                and isinstance(data.get("seat"), str):
            seats.append(data)
    return seats


def kept_seat(server: str, code: str, colour: str | None = None, base: Path | None = None) -> dict | None:
    """The seat this machine holds in the room (the one of `colour` when given, else the first)."""
    for seat in kept_seats(server, code, base):
        if colour is None or seat["seat"] == colour:
            return seat
    return None


def forget_seat(server: str, code: str, colour: str, base: Path | None = None) -> None:
    (room_dir(server, code, base) / f"{_safe(colour)}.json").unlink(missing_ok=True)


def keep_host_key(server: str, code: str, key: str, base: Path | None = None) -> Path:
    path = room_dir(server, code, base) / HOST_FILE
    _write(path, {"server": server, "room": code, "host_key": key})
    return path


def kept_host_key(server: str, code: str, base: Path | None = None) -> str | None:
    data = _read(room_dir(server, code, base) / HOST_FILE)
    key = (data or {}).get("host_key")
    return key if isinstance(key, str) and (data or {}).get("room") == code else None
