"""The table for a browser (issue 38, item 2): every registered game's table as glTF, one node per
track with the scene's bounds, cached; table.json; the `pieces` and `choices` a room adds to its views
(choices parallel to `legal`, every lit place one of the window's, nothing of another seat's hand);
the vendored three.js and the page's table3d.js, which names no game. (The page in a real browser:
tests/test_web.py.)"""
from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from tabletop.gamekit.definition import GameDefinition
from tabletop.gamekit.registry import GAMES
from tabletop.net import protocol as p
from tabletop.net.browser import BrowserViews, table_asset, table_json, table_of
from tabletop.net.room import Room, check_spec, token_hash
from tabletop.sim.gltf import ROOT, cached_table_glb, frame_bounds, scene_bounds, scene_tracks, table_glb

ROOT_DIR = Path(__file__).resolve().parents[1]
WEB = ROOT_DIR / "tabletop" / "web"
WINDOWED = [name for name in GAMES if type(GAMES[name]).window_adapter is not GameDefinition.window_adapter]


def seats_of(definition) -> tuple:
    lo, hi = definition.seats
    return ("remote",) * min(max(lo, 3), hi)


def table(name: str) -> dict:
    definition = GAMES[name]
    return table_of(definition, seats_of(definition), definition.check_options({}))


def handle(name: str):
    """What table_asset reads of the server's RoomHandle: its definition and spec."""
    definition = GAMES[name]
    return SimpleNamespace(definition=definition,
                           spec=SimpleNamespace(seats=seats_of(definition), options=definition.check_options({})))


def test_the_games_with_a_window_are_found():
    assert {"king-kong", "king-of-the-hill", "knossos"} <= set(WINDOWED)


@pytest.mark.parametrize("name", WINDOWED)
def test_the_glb_of_each_game_has_a_node_per_track_and_the_scenes_bounds(name):
    trimesh = pytest.importorskip("trimesh")
    scene = table(name)["scene"]
    data = table_glb(scene)
    assert data[:4] == b"glTF"
    back = trimesh.load(io.BytesIO(data), file_type="glb")
    tracks = set(scene_tracks(scene))
    assert tracks and set(back.graph.nodes_geometry) == tracks
    for track in tracks:
        parent = back.graph.transforms.parents.get(track)
        assert parent == ROOT, (track, parent)
    lo, hi = scene_bounds(scene)
    # the root turns the table's frame (Z up) into glTF's (Y up): (x, y, z) -> (x, z, -y)
    expected = np.array([[lo[0], lo[2], -hi[1]], [hi[0], hi[2], -lo[1]]])
    assert np.allclose(back.bounds, expected, atol=1e-5), (back.bounds, expected)


@pytest.mark.parametrize("name", WINDOWED)
def test_the_glb_draws_the_adapters_colours_camera_and_board_art(name):
    """One source for the window and the page: each body in the colour the adapter's build draws it
    (body_colors), the camera at its camera_home, the board's art (art_meshes) as nodes of their own."""
    trimesh = pytest.importorskip("trimesh")
    from tabletop.sim.gltf import linear

    t = table(name)
    definition = GAMES[name]
    adapter = definition.window_adapter(list(seats_of(definition)), definition.check_options({}))
    try:
        assert t["colors"] == adapter.body_colors() and t["home"] == adapter.camera_home()
        art = [a["name"] for a in adapter.art_meshes()]
    finally:
        adapter.close()
    back = trimesh.load(io.BytesIO(table_glb(t["scene"], t["colors"], t["art"])), file_type="glb")
    tracks = scene_tracks(t["scene"])
    for track, (body, _) in tracks.items():
        rgb = t["colors"].get(track) or t["colors"].get(body)
        if rgb is not None:
            factor = back.geometry[track].visual.material.baseColorFactor
            assert np.allclose(np.asarray(factor[:3]) / 255, linear(rgb[:3]), atol=0.01), track
    assert set(art) <= set(back.graph.nodes_geometry)
    assert set(back.graph.nodes_geometry) == set(tracks) | set(art)


@pytest.mark.parametrize("name", WINDOWED)
def test_the_glb_is_cached_by_the_scenes_digest(name, tmp_path, monkeypatch):
    scene = table(name)["scene"]              # made first: its meshes from the usual cache
    monkeypatch.setenv("TABLETOP_CACHE", str(tmp_path))
    first = cached_table_glb(scene)
    files = list((tmp_path / "gltf").glob("table-*.glb"))
    assert len(files) == 1 and files[0].read_bytes() == first
    assert cached_table_glb(scene) == first == table_glb(scene)
    moved = {**scene, "poses": {**scene["poses"], next(iter(scene["poses"])): [9.0, 0, 0, 0, 0, 0, 1]}}
    cached_table_glb(moved)
    assert len(list((tmp_path / "gltf").glob("table-*.glb"))) == 2


@pytest.mark.parametrize("name", WINDOWED)
def test_table_asset_answers_the_glb_and_the_json(name):
    glb, kind = table_asset(handle(name), "table.glb")
    assert kind == "model/gltf-binary" and glb[:4] == b"glTF"
    data, kind = table_asset(handle(name), "table.json")
    assert kind == "application/json"
    info = json.loads(data)
    scene = table(name)["scene"]
    assert info["root"] == ROOT and info["up"] == [0.0, 0.0, 1.0]
    assert set(info["tracks"]) == set(scene_tracks(scene))
    assert [piece["body"] for piece in info["pieces"]] == table(name)["pieces"]
    for piece in info["pieces"]:
        assert piece["tracks"] and set(piece["tracks"]) <= set(info["tracks"])
    assert np.allclose(info["bounds"], scene_bounds(scene), atol=1e-5)
    lo, hi = frame_bounds(scene)
    cam = info["camera"]
    home = table(name)["home"]
    if home is None:
        assert all(a - 1e-6 <= t <= b + 1e-6 for a, t, b in zip(lo, cam["target"], hi))
    else:                   # the window's first view: its target, its eye at its distance
        target, distance = home[0], home[1]
        assert np.allclose(cam["target"], target, atol=1e-5)
        assert np.isclose(np.linalg.norm(np.subtract(cam["position"], target)), distance, atol=1e-4)
    assert cam["position"][2] > cam["target"][2] and cam["radius"] > 0
    assert info["marker"]["radius"] > 0
    assert table_asset(handle(name), "table.obj") is None and table_asset(handle(name), "../secret") is None


def test_a_game_with_no_window_has_no_table(monkeypatch):
    from tabletop.gamekit import registry

    bare = SimpleNamespace(name="no-window-game", window_adapter=GameDefinition.window_adapter.__get__(
        SimpleNamespace(title="No Window", name="no-window-game")))
    monkeypatch.setattr(registry, "game_spec", lambda name: bare)
    stub = SimpleNamespace(definition=bare, spec=SimpleNamespace(seats=("remote", "remote"), options={}))
    assert table_asset(stub, "table.glb") is None and table_asset(stub, "table.json") is None
    assert BrowserViews.make(bare, ("remote", "remote"), {}, {}) is None


def test_the_table_json_is_json_of_plain_numbers():
    info = table_json(table("king-kong"))
    assert json.loads(json.dumps(info)) == info


# -- the views ----------------------------------------------------------------------------------------
def kong_room(seed: int = 12) -> Room:
    room = Room(check_spec("code", "king-kong", ("remote", "remote", "remote"), seed, "measured", {}), None)
    for s in range(3):
        room.claim(s, token_hash(f"token-{s}"))
    return room


def card_names(state) -> set[str]:
    return {str(card) for card in state.game.deck}


def test_a_kong_room_s_views_carry_pieces_and_the_acting_seats_choices():
    room = kong_room()
    rng = np.random.default_rng(3)
    adapter = room.browser_views().adapter
    kong_tracks = set(table("king-kong")["scene"]["looks"]["kk_kong"]["tracks"])
    pawn_tracks = set(adapter.piece_bodies)
    names = card_names(room.state)
    placed_seen = 0
    try:
        for _ in range(120):
            while room.busy():
                room.advance()
            update = room.update()
            state = room.state
            for viewer, view in update["views"].items():
                message = p.View("code", None if viewer is None else "red", update["step"], 0, view,
                                 update["legal"] if viewer == update["to_act"] else None)
                parsed = p.parse(p.encode(message), "server")       # the protocol checks both fields
                assert parsed.view["pieces"] == view["pieces"]
                assert set(view["pieces"]) <= pawn_tracks | kong_tracks
                assert not any(name in json.dumps(view["pieces"]) for name in names)
                assert pawn_tracks <= set(view["pieces"])          # every pawn stands somewhere
                if viewer is None:
                    assert "choices" not in view and "hand" not in view
                    continue
                others = {str(state.game.deck[c]) for seat, hand in enumerate(state.hands) if seat != viewer
                          for c in hand}
                own = {str(state.game.deck[c]) for c in state.hands[viewer]}
                said = json.dumps([view["pieces"], view["choices"]])
                for name in names - own:       # the browser's fields name no card but the seat's own
                    assert name not in said, (viewer, name, name in others)
                if viewer != update["to_act"]:
                    assert view["choices"] is None
                    continue
                choices, legal = view["choices"], update["legal"]
                assert len(choices) == len(legal) and all(c["text"] for c in choices)
                actions = state.legal_actions()
                for choice, action in zip(choices, actions):
                    if choice["at"] is None:
                        assert choice["piece"] is None
                        continue
                    placed_seen += 1
                    places = [d.position for d in adapter.destinations(state, choice["piece"])]
                    assert any(np.allclose(choice["at"], at, atol=1e-4) for at in places), choice
                    assert any(d.action == action for d in adapter.destinations(state, choice["piece"]))
            if update["legal"] is None:
                break
            seat = update["to_act"]
            room.act(seat, f"token-{seat}", update["legal"][int(rng.integers(len(update["legal"])))], room.step)
    finally:
        room.close()
    assert placed_seen > 0


@contextlib.contextmanager
def started_room(name: str):
    """A room of the game `name` (measured chance) with every seat claimed, advanced to its first decision."""
    seats = seats_of(GAMES[name])
    room = Room(check_spec("code", name, seats, 4, "measured", {}), None)
    try:
        for s in range(len(seats)):
            room.claim(s, token_hash(f"token-{s}"))
        while room.busy():
            room.advance()
        yield room
    finally:
        room.close()


def test_a_spectators_view_has_pieces_and_no_choices_in_every_game():
    for name in WINDOWED:
        with started_room(name) as room:
            update = room.update()
            spectator = update["views"][None]
            assert spectator["pieces"] and "choices" not in spectator
            seat = update["to_act"]
            assert seat is not None and len(update["views"][seat]["choices"]) == len(update["legal"])


def test_the_protocol_checks_pieces_and_choices_and_old_views_parse():
    base = {"v": 2, "type": "view", "room": "r", "seat": "red", "step": 1, "log_from": 0}
    assert p.parse(json.dumps({**base, "view": {"log": []}}), "server").view == {"log": []}
    good = {"log": [], "pieces": {"a": [0, 0, 0, 0, 0, 0, 1]},
            "choices": [{"text": "roll", "piece": None, "at": None}, {"text": "go", "piece": 0, "at": [0.1, 0, 0.2]}]}
    assert p.parse(json.dumps({**base, "view": good}), "server").view == good
    for bad in ({"pieces": {"a": [0, 0, 0]}}, {"pieces": [1]}, {"choices": [{"text": "x"}]},
                {"choices": [{"text": "x", "piece": -1, "at": None}]},
                {"choices": [{"text": "x", "piece": 0, "at": [0, 0]}]}):
        with pytest.raises(p.ProtocolError) as caught:
            p.parse(json.dumps({**base, "view": {"log": [], **bad}}), "server")
        assert caught.value.code == "bad-message"


def test_the_docs_view_examples_show_pieces_and_choices():
    doc = (ROOT_DIR / "docs" / "protocol.md").read_text()
    views = [p.parse(block, "server") for block in re.findall(r"```json\n(.*?)\n```", doc, re.S)
             if '"type": "view"' in block]
    seat = next(v for v in views if v.legal)
    assert len(seat.view["choices"]) == len(seat.legal) and seat.view["pieces"]
    assert any(v.seat is None and "pieces" in v.view and "choices" not in v.view for v in views)


# -- the page's files ---------------------------------------------------------------------------------
def test_three_is_vendored_whole_with_its_license_and_version():
    vendor = WEB / "vendor" / "three"
    version = (vendor / "VERSION").read_text().splitlines()
    assert version[0] == "three 0.187.0" and version[2].startswith("sha512-")
    assert "MIT License" in (vendor / "LICENSE").read_text()
    modules = sorted(vendor.rglob("*.js"))
    assert {m.relative_to(vendor).as_posix() for m in modules} >= {
        "build/three.module.js", "build/three.core.js", "examples/jsm/loaders/GLTFLoader.js",
        "examples/jsm/controls/OrbitControls.js"}
    pattern = re.compile(r"""^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]""", re.M)
    for module in modules:
        for spec in pattern.findall(module.read_text()):
            assert spec.startswith("."), (module, spec)          # no bare 'three': no import map needed
            assert (module.parent / spec).resolve().is_file(), (module, spec)


def test_table3d_imports_only_the_vendored_three_and_names_no_game():
    text = (WEB / "table3d.js").read_text()
    imports = re.findall(r"""^import\b.*?from\s*['"]([^'"]+)['"]""", text, re.M)
    assert imports and all(spec.startswith("./vendor/three/") for spec in imports)
    assert all((WEB / spec).resolve().is_file() for spec in imports)
    assert "eval(" not in text and "new Function" not in text
    for name in GAMES:
        definition = GAMES[name]
        for word in {definition.name, definition.name.replace("-", "_"), definition.title}:
            assert not re.search(rf"\b{re.escape(word)}\b", text, re.I), word
    assert re.search(r"^export function mount\(element, glbUrl, jsonUrl\)", text, re.M)
    for method in ("setPieces", "showChoices", "dispose"):
        assert re.search(rf"\b{method}\b", text)


def test_the_tables_description_the_browser_draws_from_loads_no_renderer():
    """What the page draws from is each game's adapter's renderer-neutral half (where the pieces
    stand, the lit places, the colours, the camera, the board's art): a room's process and the
    replay export build it, for every game with a window, with no Panda3D module loaded (the
    window's drawing imports it in the methods that draw). Planted first: importing the window's
    geometry loads Panda3D, so the check can fail."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from tabletop.gamekit.registry import GAMES\n"
        "from tabletop.net.browser import BrowserViews, table_json, table_of\n"
        f"for name in {WINDOWED!r}:\n"
        "    d = GAMES[name]\n"
        "    lo, hi = d.seats\n"
        "    seats = ['remote'] * min(max(lo, 3), hi)\n"
        "    options = d.check_options({})\n"
        "    config = d.replay_config(['ai'] * len(seats), 'physics', options)\n"
        "    views = BrowserViews.make(d, seats, options, config)\n"
        "    state = d.make_game(config).new_initial_state()\n"
        "    assert views.pieces(state) and len(views.choices(state)) == len(state.legal_actions())\n"
        "    table_json(table_of(d, seats, options))\n"
        "    views.close()\n"
        "PLANT\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'panda3d', 'direct'}))\n")
    for plant, expected in (("import tabletop.sim.view.geometry", "['panda3d']"), ("pass", "[]")):
        done = subprocess.run([sys.executable, "-c", code.replace("PLANT", plant)], capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == expected, (plant, done.stdout)


@pytest.mark.parametrize("name", WINDOWED)
def test_the_words_on_the_table_are_the_adapters_labels_in_table_json(name):
    """The window and the page draw the same words (the adapter's `labels`: space numbers, names):
    table.json carries each, at its place, in its size and colour."""
    definition = GAMES[name]
    seats = seats_of(definition)
    options = definition.check_options({})
    adapter = definition.window_adapter(list(seats), options)
    try:
        expected = adapter.labels()
    finally:
        adapter.close()
    labels = table_json(table(name))["labels"]
    assert expected and [label["text"] for label in labels] == [label.text for label in expected]
    for label, want in zip(labels, expected):
        assert np.allclose(label["at"], want.at, atol=1e-5) and label["size"] > 0 and len(label["color"]) == 4
        assert label["parent"] is None or label["parent"] in table_json(table(name))["tracks"]
