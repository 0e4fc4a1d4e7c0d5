"""The game server's web side: the browser's room page and its files, served beside the websocket.

HTTP is answered through websockets' own hook, `process_request` of its asyncio `serve`: every
connection's opening request is parsed by websockets before it becomes a websocket, and the hook
may answer it with an HTTP response instead. So the page and the rooms share one port and one
address (the link `tabletop host` prints is the join address's host and port), no second server
library comes in (no aiohttp, no thread of http.server), and the request reaching the hook is the
handshake already parsed. The hook is all this module gives: `respond(hub, request)`.

What it answers (GET only; anything else 404, or 405 for another method):

- `/r/CODE`: the room page (tabletop/web/room.html), for any well-formed code: the page joins
  the room over the websocket and says so if there is no such room.
- `/static/NAME`: a file of tabletop/web (the page's script and style, the 3D table's script,
  vendor/...), only a file that is there, of a known kind, whose path is plain ASCII segments
  (no `..`, no percent-encoding, no backslash, no dot-file), resolved and checked to lie inside
  the folder. Everything else is 404 with a one-line body and nothing more.
- `/r/CODE/table.glb`, `/r/CODE/table.json`: the room's table for the 3D view, and
  `/r/CODE/bodies.glb`, the bodies its throws have moved that the table lacks (a die), from
  `tabletop.net.browser.table_asset(handle, name)`, made in a thread (404 where that module is
  absent, the room is not loaded, or it has no such asset).

A websocket upgrade on any path goes on as before, except one from a page of another site: a
request with an `Origin` header whose host and port are not the `Host` header's is refused with
403 (a browser always sends Origin; Python clients send none and are let in). Every HTTP answer
carries a Content-Security-Policy (scripts only from this server, no inline script or style),
`X-Content-Type-Options: nosniff` and `Referrer-Policy: no-referrer`; files carry an ETag (a
request with it gets 304), vendor files are cached for a day, the rest revalidated. A client that
takes gzip (every browser) gets files and the table gzipped: three.js's 2.3 MB in about a fifth.
"""
from __future__ import annotations

import asyncio
import email.utils
import gzip
import hashlib
import re
from functools import lru_cache
from http import HTTPStatus
from pathlib import Path
from urllib.parse import urlsplit

WEB = Path(__file__).resolve().parent.parent / "web"      # tabletop/web: the page, its script, style, vendor/

CSP = ("default-src 'self'; script-src 'self'; connect-src 'self' ws: wss: blob:; img-src 'self' data: blob:; "
       "style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'")
SECURITY_HEADERS = (("Content-Security-Policy", CSP), ("X-Content-Type-Options", "nosniff"),
                    ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"))
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8",
    ".json": "application/json", ".glb": "model/gltf-binary", ".gltf": "model/gltf+json",
    ".png": "image/png", ".jpg": "image/jpeg", ".svg": "image/svg+xml", ".wasm": "application/wasm",
    ".txt": "text/plain; charset=utf-8", ".md": "text/plain; charset=utf-8",
}
VENDOR_CACHE = "public, max-age=86400"      # pinned third-party files (vendor/): a day
OWN_CACHE = "no-cache"                      # the page's own files: revalidated (ETag) at every load
TABLE_ASSETS = ("table.glb", "table.json", "bodies.glb")

CODE = r"[A-Za-z0-9_-]{1,64}"               # a room's code (url-safe base64), as the server makes them
SEGMENT = r"[A-Za-z0-9_-][A-Za-z0-9_.-]*"   # a file or folder name: no dot first, so never `.` or `..`
ROOM_PAGE = re.compile(rf"/r/({CODE})")
TABLE = re.compile(rf"/r/({CODE})/(table\.glb|table\.json|bodies\.glb)")
STATIC = re.compile(rf"/static/({SEGMENT}(?:/{SEGMENT})*)")


def respond(hub, request):
    """websockets' `process_request` for the server's hub: None lets a websocket handshake go on;
    otherwise the HTTP response to send (the connection then closes)."""
    if "websocket" in request.headers.get("Upgrade", "").lower():
        return None if same_origin(request.headers) else _plain(HTTPStatus.FORBIDDEN, "another site's page")
    if request.method != "GET":
        return _plain(HTTPStatus.METHOD_NOT_ALLOWED, "GET only", (("Allow", "GET"),))
    path = request.path.split("?", 1)[0]
    if match := ROOM_PAGE.fullmatch(path):
        return _file(WEB / "room.html", request)
    if match := STATIC.fullmatch(path):
        found = static_file(match.group(1))
        return _file(found, request) if found is not None else _not_found()
    if match := TABLE.fullmatch(path):
        return _table(hub, match.group(1), match.group(2), request)
    return _not_found()


def same_origin(headers) -> bool:
    """Whether a websocket request may go on: no Origin (not a browser), or an Origin whose host
    and port are the Host header's (a port left out is the scheme's own: 80, 443)."""
    origins = headers.get_all("Origin")
    if not origins:
        return True
    if len(origins) != 1 or len(headers.get_all("Host")) != 1:
        return False
    try:
        origin = urlsplit(origins[0])
        host = urlsplit("//" + headers["Host"])
        default = {"http": 80, "https": 443}.get(origin.scheme)
        return (default is not None and origin.hostname is not None and origin.hostname == host.hostname
                and (origin.port or default) == (host.port or default))
    except ValueError:                      # a malformed port or address
        return False


def static_file(name: str) -> Path | None:
    """The file of tabletop/web that `/static/NAME` names, or None: a file of a known kind that
    exists and, resolved (links followed), lies inside the folder."""
    if Path(name).suffix not in CONTENT_TYPES:
        return None
    root = WEB.resolve()
    path = (root / name).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path


def _headers(pairs):
    from websockets.datastructures import Headers

    return Headers([("Date", email.utils.formatdate(usegmt=True)), ("Connection", "close"),
                    *SECURITY_HEADERS, *pairs])


def _response(status: HTTPStatus, body: bytes, pairs=()):
    from websockets.http11 import Response

    return Response(status.value, status.phrase, _headers((*pairs, ("Content-Length", str(len(body))))), body)


def _plain(status: HTTPStatus, text: str, pairs=()):
    return _response(status, (text + "\n").encode(), (*pairs, ("Content-Type", "text/plain; charset=utf-8")))


def _not_found():
    return _plain(HTTPStatus.NOT_FOUND, "not found")


@lru_cache(maxsize=256)
def _read(path: Path, mtime_ns: int, size: int) -> tuple[bytes, bytes, str]:
    """A file's bytes, their gzip and its ETag, read and compressed again only when it changes."""
    body = path.read_bytes()
    return body, _gzip(body), '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _gzip(body: bytes) -> bytes:
    """`body` gzipped, the same bytes every time (no timestamp in the header)."""
    return gzip.compress(body, compresslevel=6, mtime=0)


def _accepts_gzip(request) -> bool:
    return any(part.split(";")[0].strip() == "gzip"
               for value in request.headers.get_all("Accept-Encoding") for part in value.split(","))


def _encoded(request, body: bytes, zipped: bytes | None = None):
    """The body to send and its headers: gzipped where the client takes gzip and it is smaller (three.js
    is 2.3 MB as it is, about a fifth of that gzipped), else as it is."""
    if not _accepts_gzip(request):
        return body, (("Vary", "Accept-Encoding"),)
    zipped = _gzip(body) if zipped is None else zipped
    if len(zipped) >= len(body):
        return body, (("Vary", "Accept-Encoding"),)
    return zipped, (("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding"))


def _file(path: Path, request):
    stat = path.stat()
    body, zipped, etag = _read(path, stat.st_mtime_ns, stat.st_size)
    vendor = path.is_relative_to(WEB.resolve() / "vendor")
    pairs = (("Content-Type", CONTENT_TYPES[path.suffix]), ("ETag", etag),
             ("Cache-Control", VENDOR_CACHE if vendor else OWN_CACHE))
    if etag in [tag.strip() for value in request.headers.get_all("If-None-Match") for tag in value.split(",")]:
        return _response(HTTPStatus.NOT_MODIFIED, b"", pairs)
    sent, encoding = _encoded(request, body, zipped)
    return _response(HTTPStatus.OK, sent, (*pairs, *encoding))


async def _table(hub, code: str, name: str, request):
    """The room's table for the 3D view (tabletop.net.browser's `table_asset`: the bytes and their
    content type, or None), made in a thread so that building it stalls no other connection."""
    try:
        from tabletop.net.browser import table_asset
    except ImportError:
        return _not_found()
    handle = hub.rooms.get(code)
    found = None if handle is None else await asyncio.to_thread(table_asset, handle, name)
    if found is None:
        return _not_found()
    body, content_type = found if isinstance(found, tuple) else (found, CONTENT_TYPES[Path(name).suffix])
    sent, encoding = await asyncio.to_thread(_encoded, request, bytes(body))
    return _response(HTTPStatus.OK, sent, (("Content-Type", content_type), ("Cache-Control", "no-cache"), *encoding))
