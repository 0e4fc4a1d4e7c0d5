"""What a browser needs beside the protocol's messages: the table as glTF, and where the pieces are.

A room's table is the game's physical table as its window draws it: every body of the Worlds its
window adapter builds for live play (tabletop.gamekit.record.scene_of), made once per (game, seats,
options) in a process and let go at once. From that scene come `table.glb` (tabletop.sim.gltf: a mesh
node per track) and `table.json` (the tracks and their first poses, the track of each piece, the
bounds and a camera to start from); `table_asset` answers both for the server's HTTP side.

For the views, `BrowserViews` holds the game's adapter made for playback on that scene (no PyBullet):
`pieces` is where every piece stands in the public position (a pose per track, as the window poses
them: tabletop.gamekit.view.adapter.TableAdapter.place_pieces), the same for every viewer; `choices`
says each of the acting seat's legal actions as the window does, with the piece it moves and the lit
place it goes to (the adapter's `destinations`). Generic: it asks the game's definition and adapter,
and names no game.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache

from tabletop.gamekit.errors import GameError

TABLE_FORMAT = "tabletop-table"
TABLE_VERSION = 1
JSON_TYPE = "application/json"
FOV_DEG = 50.0                 # the window's lens (tabletop.sim.view.app): across its width
WINDOW_ASPECT = 1280 / 720     # ... of 1280x720
HOME_PITCH_DEG = 62.0          # a table framed from its bounds: seen from the -Y side, this far above
POSE_DIGITS = 5                # 0.01 mm and 1e-5 of a quaternion: finer than a pixel at any zoom


def _r(v) -> float:
    """A coordinate as sent: rounded to POSE_DIGITS, never -0.0."""
    return round(float(v), POSE_DIGITS) + 0.0


def _key(definition, seats, options: dict) -> tuple:
    return definition.name, tuple(seats), json.dumps(options, sort_keys=True)


def described(adapter, scene: dict) -> dict:
    """{"scene", "pieces", "home", "colors", "art", "marker"} of a table as `adapter` (the game's window
    adapter, live or on a recorded scene) draws `scene`: the colours, the camera's home and the
    board's art it declares (body_colors, camera_home, art_meshes), as its window draws them; the
    bodies it draws beside its worlds' (extra_bodies: King Kong's spinner) join the scene, and those
    an art mesh stands for (drawn_by_art: King of the Hill's hill, drawn as its painted skin) leave it."""
    extra = adapter.extra_bodies()
    if adapter.drawn_by_art:                 # an art mesh stands for these (a painted skin): not drawn twice
        gone = set(adapter.drawn_by_art)
        scene = {"looks": {b: lk for b, lk in scene["looks"].items() if b not in gone},
                 "poses": {t: p for t, p in scene["poses"].items()
                           if not any(t == b or t.startswith(f"{b}:") for b in gone)}}
    if extra:
        scene = {"looks": {**scene["looks"], **{name: body[0] for name, body in extra.items()}},
                 "poses": {**scene["poses"], **{t: p for _, body in extra.items() for t, p in body[1].items()}}}
    return {"scene": scene, "pieces": list(adapter.piece_bodies),
            "home": adapter.camera_home(),            # (target, distance, heading, pitch), or None
            "colors": dict(adapter.body_colors()), "art": list(adapter.art_meshes()),
            "marker": {"radius": _r(adapter.marker_radius), "drop": _r(adapter.marker_drop)},
            "labels": [label.to_dict() for label in adapter.labels()]}


@lru_cache(maxsize=16)
def _table(game: str, seats: tuple, options: str) -> dict | None:
    """The `described` table of a game for live play (None: the game has no window): its window
    adapter builds the physical table, which is read and closed at once."""
    from tabletop.gamekit.record import scene_of, table_worlds
    from tabletop.gamekit.registry import game_spec

    definition = game_spec(game)
    try:
        adapter = definition.window_adapter(list(seats), json.loads(options))
    except GameError:
        return None
    try:
        return described(adapter, scene_of(*table_worlds(adapter.table)))
    finally:
        adapter.close()


def recorded_table(definition, seats, options: dict, scene: dict) -> dict | None:
    """The `described` table of a recorded `scene` (a replay header's: no PyBullet), None for a game
    with no window."""
    from tabletop.sim.scene import RecordedScene

    try:
        adapter = definition.window_adapter(list(seats), options, scene=RecordedScene(scene))
    except GameError:
        return None
    try:
        return described(adapter, scene)
    finally:
        adapter.close()


def table_of(definition, seats, options: dict) -> dict | None:
    """The table of a room of `definition` with `seats` and `options` (see `_table`)."""
    return _table(*_key(definition, seats, options))


def piece_tracks(scene: dict, body: str) -> list[str]:
    """The tracks of a piece's body that carry parts (the window's body_tracks)."""
    look = scene["looks"].get(body)
    return [] if look is None else [t for t, parts in look["tracks"].items() if parts]


def camera(frame, home=None) -> dict:
    """Where the camera starts, in the table's frame (Z up): the adapter's home (target, distance,
    heading, pitch: its camera_home, tabletop.sim.view.app.OrbitCamera) where it says one, else
    `frame` (the bounds the window frames: tabletop.sim.gltf.frame_bounds) seen from the -Y side.
    `radius` is the framed sphere's: a page moves the camera along its line of sight until the
    sphere fills its view. From a home, that sphere is the one the window's first view shows whole
    (at 1280x720, its lens FOV_DEG across), so a page of that size sees what the window sees."""
    lo, hi = frame
    radius = math.dist(lo, hi) / 2
    if home is not None:
        target, distance, heading, pitch = home
        tall = math.atan(math.tan(math.radians(FOV_DEG / 2)) / WINDOW_ASPECT)
        radius = distance * math.sin(tall)
    else:
        target = [(a + b) / 2 for a, b in zip(lo, hi)]
        distance, heading, pitch = radius / math.sin(math.radians(FOV_DEG / 2)), 0.0, HOME_PITCH_DEG
    h, p = math.radians(heading), math.radians(pitch)
    offset = (math.sin(h) * math.cos(p), -math.cos(h) * math.cos(p), math.sin(p))
    return {"target": [_r(v) for v in target],
            "position": [_r(t + distance * o) for t, o in zip(target, offset)],
            "up": [0.0, 0.0, 1.0], "fov": FOV_DEG, "radius": _r(radius)}


def table_json(table: dict) -> dict:
    """table.json: the frame, the tracks (each body's, with its first pose; `until_thrown` where the
    body is a throw's, not on the table until a throw poses it: the table's `thrown`), the pieces (by index:
    the body and its tracks), the bounds, the camera to start from, the window's lit places
    (`marker`: the radius of one and the drop from a piece's centre, where `choices` put it, to
    the surface it stands on) and the words on the table (`labels`: the adapter's, as
    tabletop.gamekit.view.places.Label.to_dict gives them)."""
    from tabletop.sim.gltf import ROOT, frame_bounds, scene_bounds, scene_tracks

    scene = table["scene"]
    bounds = scene_bounds(scene)
    later = set(table.get("thrown", ()))
    tracks = {track: {"body": body, "pose": [_r(v) for v in scene["poses"].get(track, ())] or None}
              for track, (body, _) in scene_tracks(scene).items()}
    for about in tracks.values():
        if about["body"] in later:
            about["until_thrown"] = True
    return {"format": TABLE_FORMAT, "version": TABLE_VERSION, "root": ROOT, "up": [0.0, 0.0, 1.0],
            "tracks": tracks,
            "pieces": [{"body": body, "tracks": piece_tracks(scene, body)} for body in table["pieces"]],
            "bounds": [[_r(v) for v in corner] for corner in bounds],
            "camera": camera(frame_bounds(scene), table["home"]), "marker": table["marker"],
            "labels": [{**label, "at": [_r(v) for v in label["at"]], "size": _r(label["size"])}
                       for label in table.get("labels", ())]}


def table_files(table: dict) -> tuple[bytes, bytes]:
    """(table.glb, table.json) of a `described` table."""
    from tabletop.sim.gltf import cached_table_glb

    return (cached_table_glb(table["scene"], table["colors"], table["art"]),
            json.dumps(table_json(table), separators=(",", ":")).encode())


def position_digest(pieces: dict, log, winner) -> str:
    """SHA-256 (hex) of a position as a page shows it: each piece's pose in POSE_DIGITS units (whole
    numbers, so JavaScript and Python write them alike), by track; the log's lines; the winner.
    The replay page exposes the same of what it shows (tabletop/web/replay.js)."""
    import hashlib

    scale = 10 ** POSE_DIGITS
    rows = [f"{track} {' '.join(str(round(v * scale)) for v in pieces[track])}" for track in sorted(pieces)]
    text = "\n".join(rows) + "\n--\n" + "\n".join(log) + "\n--\n" + (winner or "")
    return hashlib.sha256(text.encode()).hexdigest()


def table_asset(handle, name: str) -> tuple[bytes, str] | None:
    """The room's `table.glb` or `table.json` (bytes and content type) for the server's HTTP side,
    or `bodies.glb`: the bodies the room's throws have moved so far that its table does not have
    (King Kong's die and spinner, which its window adds when first thrown; the looks come with each
    motion: the handle's `thrown`), in the table's frame, for a page to add when a throw names a
    track it lacks. None (a 404) for another name, a game with no window, or no such body yet.
    `handle` is the server's RoomHandle (its definition, spec and thrown)."""
    if name not in ("table.glb", "table.json", "bodies.glb"):
        return None
    table = table_of(handle.definition, handle.spec.seats, handle.spec.options)
    if table is None:
        return None
    if name == "bodies.glb":
        from tabletop.sim.gltf import CONTENT_TYPE, cached_table_glb

        looks = {body: look for body, look in dict(getattr(handle, "thrown", {})).items()
                 if body not in table["scene"]["looks"]}
        if not looks:
            return None
        return cached_table_glb({"looks": looks, "poses": {}}, table["colors"], ()), CONTENT_TYPE
    from tabletop.sim.gltf import CONTENT_TYPE

    glb, info = table_files(table)
    return (glb, CONTENT_TYPE) if name == "table.glb" else (info, JSON_TYPE)


class _PoseSink:
    """Takes the poses a window adapter sets (`place_pieces` calls `set_poses`), for the browser."""

    def __init__(self):
        self.poses: dict = {}

    def set_poses(self, poses: dict) -> None:
        self.poses.update(poses)


def hides_something(definition) -> bool:
    """Whether a game hides something from its seats (it has its own seat_mirror)."""
    from tabletop.gamekit.definition import GameDefinition

    return type(definition).seat_mirror is not GameDefinition.seat_mirror


class BrowserViews:
    """A room's `pieces` and `choices` (module docstring). `config` is the room's replay config (for
    the public position of a game that hides something: `mirror_state` of a spectator's mirror)."""

    def __init__(self, definition, seats, options: dict, config: dict, table: dict):
        from tabletop.sim.scene import RecordedScene

        self.definition, self.config = definition, config
        self.hides = hides_something(definition)
        self.tracks = {t for look in table["scene"]["looks"].values() for t, parts in look["tracks"].items() if parts}
        self.adapter = definition.window_adapter(list(seats), options, scene=RecordedScene(table["scene"]))

    @classmethod
    def make(cls, definition, seats, options: dict, config: dict) -> "BrowserViews | None":
        """The room's BrowserViews; None for a game with no window."""
        table = table_of(definition, seats, options)
        return None if table is None else cls(definition, seats, options, config, table)

    def public(self, state):
        """The position every viewer may see: the state itself where the game hides nothing, else
        the spectator's mirror of it (what the others hold filled with stand-ins that place nothing)."""
        if not self.hides:
            return state
        return self.definition.mirror_state(self.config, self.definition.seat_mirror(state, None), None)

    def pieces(self, state) -> dict:
        """{track: [x, y, z, qx, qy, qz, qw]} of every piece the public position places (with what
        the window poses with them), rounded to POSE_DIGITS."""
        sink = _PoseSink()
        self.adapter.place_pieces(sink, self.public(state))
        return {track: [_r(v) for v in pose]
                for track, pose in sink.poses.items() if track in self.tracks and pose is not None}

    def choices(self, state) -> list[dict]:
        """One entry per legal action of `state` (in `legal_actions` order, as the room's `legal`):
        {"text": the action as the window says it, "piece": the index of the piece it moves or None,
        "at": [x, y, z] of the lit place it goes to or None}."""
        placed = {}
        for piece in range(len(self.adapter.piece_bodies)):
            for dest in self.adapter.destinations(state, piece):
                placed.setdefault(dest.action, (piece, [_r(v) for v in dest.position]))
        out = []
        for action in state.legal_actions():
            piece, at = placed.get(action, (None, None))
            out.append({"text": self.adapter.action_text(state, action), "piece": piece, "at": at})
        return out

    def close(self) -> None:
        self.adapter.close()
