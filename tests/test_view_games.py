"""The games' windows, rendered offscreen (EGL), checked where a new player found them wanting:
a Knossos throw keeps the board in the picture; clicking the other player's piece says whose it
is; King of the Hill's numbers stay off the marbles on their seats and the caves' names clear of
the numbers; the Tipper's ball is seen at rest in its slot; a lit destination lies on the hill's
slope, not half in it. Skipped where no graphics pipe can open."""
from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("panda3d")

from tests.test_view import (_window_games, click_at, open_window, pixels, play_by_the_rules,  # noqa: E402,F401
                             until_human_moves)

SIZE = (640, 360)


def film_rect(app, node=None, centre=None, half=None):
    """(x0, x1, y0, y1) on the film (x times the aspect ratio, so both axes are alike) of a
    camera-facing sign `node` (its glyphs' bounds laid along the camera's right and up), or of a
    square `half` wide each way about the point `centre` (a marble's outline)."""
    from panda3d.core import Point3

    cam = app.base.camera
    right = app.render.get_relative_vector(cam, (1, 0, 0))
    up = app.render.get_relative_vector(cam, (0, 0, 1))
    if node is not None:
        lo, hi = node.get_child(0).get_tight_bounds(node)
        k = node.get_sz(app.render)
        centre = node.get_pos(app.render)
        xs, zs = (lo.x * k, hi.x * k), (lo.z * k, hi.z * k)
    else:
        xs, zs = (-half, half), (-half, half)
    film = [app.project(Point3(*centre) + right * x + up * z) for x in xs for z in zs]
    assert all(f is not None for f in film), "off screen"
    aspect = app.base.camLens.get_aspect_ratio()
    return (min(f[0] for f in film) * aspect, max(f[0] for f in film) * aspect,
            min(f[1] for f in film), max(f[1] for f in film))


def box_rect(app, node):
    """The film rectangle (as film_rect) round a node's bounds, all eight corners projected."""
    from panda3d.core import Point3

    lo, hi = node.get_tight_bounds(app.render)
    film = [app.project(Point3(x, y, z)) for x in (lo.x, hi.x) for y in (lo.y, hi.y) for z in (lo.z, hi.z)]
    assert all(f is not None for f in film), "off screen"
    aspect = app.base.camLens.get_aspect_ratio()
    return (min(f[0] for f in film) * aspect, max(f[0] for f in film) * aspect,
            min(f[1] for f in film), max(f[1] for f in film))


def gap(a, b) -> float:
    """How far apart two film rectangles are (negative: they overlap by that much)."""
    return max(b[0] - a[1], a[0] - b[1], b[2] - a[3], a[2] - b[3])


# -- Knossos ---------------------------------------------------------------------------------
def test_knossos_throw_keeps_the_board_in_view(open_window):
    """While the sticks fly the camera stays back: the board's middle projects inside the part of
    the picture the HUD leaves free at every moment of the throw, and the camera never comes down
    to the tray (where the tray's floor filled the picture and the board left it)."""
    from tabletop.games.knossos.layout import BOARD_CENTRE, BOARD_THICKNESS

    app, ctrl = open_window("knossos", ["ai", "ai"], size=SIZE)
    app.camera.reset()
    home = app.camera.distance
    x0, x1, y0, y1 = ctrl.hud.free_film_rect()
    board = (*BOARD_CENTRE, BOARD_THICKNESS)
    assert ctrl.state.is_chance_node()
    ctrl.chance()
    assert ctrl.anim is not None
    frames = 0
    while ctrl.anim is not None:
        ctrl._advance(1 / 30)
        frames += 1
        film = app.project(board)
        assert film is not None and x0 < film[0] < x1 and y0 < film[1] < y1, \
            f"{frames / 30:.2f} s into the throw the board's middle is at {film}, outside the free picture"
        assert app.camera.distance > 0.9 * home, f"the camera came down to {app.camera.distance:.2f} m"
        assert app.base.camera.get_z(app.render) > 0.5, "the camera is down at the tray"
    assert frames > 5


def test_knossos_clicking_the_other_players_piece_says_whose_it_is(open_window):
    """A click on blue's piece when red (a human) is to move says it is blue's and that the
    player plays red; before red's throw the reason says to throw first."""
    from tabletop.games.knossos.rules import COLOURS

    app, ctrl = open_window("knossos", ["human", "ai"], size=SIZE)
    adapter = ctrl.adapter
    s = ctrl.state
    assert s.is_chance_node() and s.chance_player == 0
    said = adapter.why_not(s, 2)
    assert said == f"{adapter.piece_name(2)} belongs to blue; you play red: press Space to throw the sticks", said
    assert "throw" in adapter.why_not(s, 0) and "belongs" not in adapter.why_not(s, 0)
    until_human_moves(ctrl)
    app.camera.reset()
    app.render_frame()
    blue = next(p for p in range(len(adapter.piece_bodies)) if adapter.game.owner(p) == 1)
    click_at(app, ctrl, adapter.piece_positions(ctrl.state)[blue])
    notice = ctrl.hud.notice.getText()
    assert f"belongs to {COLOURS[1]}" in notice and f"you play {COLOURS[0]}" in notice, notice
    assert ctrl.selected is None


def test_koth_clicking_another_players_marble_says_whose_it_is():
    """King of the Hill's reason names the marble's owner and the colour the player plays, and
    keeps the rules' word (it belongs to blue)."""
    from tabletop.games.king_of_the_hill.view import HillAdapter
    from tabletop.gamekit.state import ChanceOutcome

    adapter = HillAdapter(2, "standard", scene=None)
    try:
        s = adapter.new_state()
        blue = next(m for m in range(len(s.track)) if s.game.owner(m) == 1)
        assert adapter.why_not(s, blue).startswith(f"{adapter.piece_name(blue)} belongs to blue; you play red: ")
        for label in ("6", "1", "3"):           # red tilts highest, goes first, and tilts 3
            s.apply(ChanceOutcome(label))
        assert adapter.why_not(s, blue) == f"{adapter.piece_name(blue)} cannot move: it belongs to blue; you play red"
    finally:
        adapter.close()


# -- King of the Hill: signs ---------------------------------------------------------------------
REPORTED = {0: (22, 16), 1: (25, 23), 2: (26, 24), 3: (20, 14)}     # seed 3, four AI seats, after 40 turns


def marble_overlaps(app, adapter, state):
    """(space, marble's seat) for each path or Finish Zone number that overlaps, on the picture from
    the home camera, a marble on a path or Finish Zone seat."""
    app.camera.reset()
    board = adapter.board
    seats = {tuple(p) for p in board.path_positions[1:]} | {tuple(p) for p in board.zone_positions}
    marbles = [p for p in adapter.piece_positions(state).values() if tuple(p) in seats]
    out = []
    for sign in adapter.space_signs[1:] + adapter.zone_signs:
        if sign.is_hidden():
            continue
        rect = film_rect(app, sign)
        for p in marbles:
            if gap(rect, film_rect(app, centre=p, half=adapter.radius)) < 0:
                out.append((sign.get_name(), p))
    return out


@pytest.mark.slow
def test_koth_numbers_stay_off_the_marbles_on_their_seats(open_window):
    """No path or Finish Zone number is drawn over (or hidden behind) a marble standing on a seat,
    on the picture from the home camera: with the marbles where the reported game had them after
    40 turns (over spaces 16, 23 and 24 the numbers covered the marbles; now they stand beside
    them), and with marbles on each three spaces in a row (a number with nowhere clear to stand
    while its seat is taken may be hidden: the players' panel says where each marble is).
    Once the marbles are gone every number is back beside its seat."""
    app, ctrl = open_window("king-of-the-hill", ["ai"] * 4, size=SIZE)
    adapter = ctrl.adapter
    s = ctrl.state.clone()
    for player, spaces in REPORTED.items():
        for k, space in enumerate(spaces):
            s.track[player * adapter.game.marbles_per_player + k] = space
    adapter.place_pieces(app, s)
    assert marble_overlaps(app, adapter, s) == []
    shown = [n for n in (16, 23, 24) if not adapter.space_signs[n].is_hidden()]
    assert shown == [16, 23, 24], "the reported spaces' numbers are moved clear, not hidden"
    L = adapter.board.path_length
    for start in range(1, L - 2):
        s.track[:] = [-1] * len(s.track)
        s.track[:3] = [start, start + 1, start + 2]
        adapter.place_pieces(app, s)
        assert marble_overlaps(app, adapter, s) == [], f"marbles on spaces {start}-{start + 2}"
    s.track[:] = [-1] * len(s.track)                    # the marbles gone, the numbers back beside their seats
    adapter.place_pieces(app, s)
    for sign, p in zip(adapter.space_signs[1:], adapter.board.path_positions[1:]):
        assert not sign.is_hidden() and (sign.get_pos(app.render).xy - p[:2]).length() < 2.5 * adapter.radius


def test_koth_cave_names_stand_clear_of_the_numbers(open_window):
    """Each cave's name keeps at least 4 px (of a 720 px picture) clear of every number and of
    the other names, on the picture from the home camera ("cave 1" sat on spaces 8 and 9)."""
    app, ctrl = open_window("king-of-the-hill", ["ai"] * 4, size=SIZE)
    adapter = ctrl.adapter
    app.camera.reset()
    others = adapter.space_signs + adapter.zone_signs + adapter.cave_signs + [adapter.finish_sign]
    clear = 4 * 2 / 720
    for cave in adapter.cave_signs:
        rect = film_rect(app, cave)
        for other in others:
            if other != cave:
                assert gap(rect, film_rect(app, other)) >= clear, f"{cave.get_name()} touches {other.get_name()}"


# -- King of the Hill: the Tipper's ball -------------------------------------------------------------
@pytest.mark.slow
def test_koth_tipper_ball_is_seen_at_rest(open_window, tmp_path):
    """After a tilt the Tipper's ball rests in a slot, shown, inside the free part of the picture
    from the home camera; no slot number covers it in any of the fourteen pockets it may rest in;
    and on the picture most of the ball's outline shows the ball (it changes when the ball is
    taken away)."""
    from panda3d.core import Point3

    app, ctrl = open_window("king-of-the-hill", ["ai"] * 4, size=(1280, 720))
    ctrl.chance()
    ctrl.finish_animation()
    app.camera.reset()
    adapter = ctrl.adapter
    ball = app.nodes["ball"]
    assert not ball.is_hidden()
    x0, x1, y0, y1 = ctrl.hud.free_film_rect()
    centre = ball.get_pos(app.render)
    film = app.project(centre)
    assert film is not None and x0 < film[0] < x1 and y0 < film[1] < y1
    tray = app.nodes["tray:0"]
    tipper = adapter.table.tipper
    r = tipper.ball_radius
    holder = getattr(adapter, "slot_labels", tray)               # (once the tray's own children)
    labels = [c for c in holder.get_children() if not c.get_name().startswith("tray-")]
    assert len(labels) == 2 * len(tipper.slot_order)
    for end in ("A", "B"):
        for slot in tipper.slot_order:
            p = app.render.get_relative_point(tray, Point3(*tipper.slot_rest_point(end, slot)))
            ball_rect = film_rect(app, centre=p, half=r)
            for label in labels:
                assert gap(box_rect(app, label), ball_rect) > 0, f"a slot number covers the ball in {end}{slot}"
    app.base.aspect2d.hide()
    try:
        _, with_ball = pixels(app, tmp_path / "ball.png")
        ball.hide()
        _, without = pixels(app, tmp_path / "no-ball.png")
        ball.show()
    finally:
        app.base.aspect2d.show()
    w, h = with_ball.get_x_size(), with_ball.get_y_size()
    cx, cy = (film[0] + 1) / 2 * w, (1 - film[1]) / 2 * h
    edge = app.project(centre + app.render.get_relative_vector(app.base.camera, (1, 0, 0)) * r)
    radius = abs(edge[0] - film[0]) / 2 * w
    assert radius > 3, f"the ball is {2 * radius:.1f} px across"
    inside = changed = 0
    for x in range(int(cx - radius), int(cx + radius) + 1):
        for y in range(int(cy - radius), int(cy + radius) + 1):
            if (x - cx) ** 2 + (y - cy) ** 2 <= (0.8 * radius) ** 2:
                inside += 1
                a, b = with_ball.get_xel(x, y), without.get_xel(x, y)
                changed += max(abs(a[k] - b[k]) for k in range(3)) > 0.06
    assert changed / inside > 0.7, f"only {changed / inside:.0%} of the ball's outline shows the ball"


# -- King of the Hill: lit destinations -----------------------------------------------------------
def test_koth_marker_lies_on_the_hill_at_every_seat(open_window):
    """A lit destination's marker at every path and Finish Zone seat lies on the hill (not half
    buried, as a flat disc at the marble's foot was on the slope): turned with the hill's slope
    there (to within 12 degrees of its normal, or tipped MARKER_TILT degrees on a steeper slope,
    and never past the normal), every point of its rim above the drawn surface, its middle no more
    than 12 mm above it (the crater's ledge rises behind the seats on it), and its face turned to
    the home camera (a marker on a slope falling away from the player is not seen edge on)."""
    from panda3d.core import Point3

    from tabletop.games.king_of_the_hill.art import surface_height
    from tabletop.games.king_of_the_hill import view
    from tabletop.gamekit.view.controller import Destination

    app, ctrl = open_window("king-of-the-hill", ["ai", "ai"], size=SIZE)
    app.camera.reset()
    adapter = ctrl.adapter
    crater = adapter.table.crater
    rim = 1.25 * adapter.marker_radius
    board = adapter.board
    eye = app.base.camera.get_pos(app.render)
    for p in list(board.path_positions[1:]) + list(board.zone_positions):
        node = adapter.marker(app, Destination(None, tuple(p), ""))
        try:
            x, y = p[0], p[1]
            e = adapter.marker_radius          # the slope across the marker, not at its middle alone
            gx = (surface_height(crater, x + e, y) - surface_height(crater, x - e, y)) / (2 * e)
            gy = (surface_height(crater, x, y + e) - surface_height(crater, x, y - e)) / (2 * e)
            normal = np.array([-gx, -gy, 1.0]) / math.sqrt(gx * gx + gy * gy + 1)
            slope = math.degrees(math.atan(math.hypot(gx, gy)))
            v = app.render.get_relative_vector(node, (0, 0, 1))
            up = np.array([v.x, v.y, v.z]) / v.length()
            off = math.degrees(math.acos(min(1.0, float(up @ normal))))
            tilt = math.degrees(math.acos(min(1.0, float(up[2]))))
            assert off < 12 or tilt >= getattr(view, "MARKER_TILT", 30.0) - 1, f"the marker at {p} is turned {off:.0f} degrees from the hill's normal"
            assert off <= slope + 1 and tilt <= slope + 12, f"the marker at {p} is turned past the slope"
            for a in np.linspace(0, 2 * math.pi, 24, endpoint=False):
                q = app.render.get_relative_point(node, Point3(rim * math.cos(a), rim * math.sin(a), 0.0))
                assert q.z > surface_height(crater, q.x, q.y) + 0.0003, f"the marker at {p} is buried at {q}"
            c = node.get_pos(app.render)
            assert c.z < surface_height(crater, c.x, c.y) + 0.012, f"the marker at {p} floats above the hill"
            to_eye = np.array(eye - c) / (eye - c).length()
            assert up @ to_eye > 0.4, f"the marker at {p} is seen nearly edge on"
        finally:
            node.remove_node()


def _until_a_lit_place_under_a_piece(ctrl, limit: int = 4000):
    """Play on (the human seats by the game's AI) until the human seat can move a piece to a place
    another piece stands on; (the piece, the one standing there, that destination)."""
    from tests.test_view import step

    for _ in range(limit):
        s = ctrl.state
        assert not s.is_terminal(), "no lit place under a piece in the whole game"
        if not s.is_chance_node() and ctrl.human(s.current_player):
            pos = ctrl.adapter.piece_positions(s)
            for piece in range(len(ctrl.adapter.piece_bodies)):
                for d in ctrl.adapter.destinations(s, piece):
                    for other, p in pos.items():
                        if other != piece and math.dist(p, d.position) < ctrl.adapter.marker_radius:
                            return piece, other, d
        step(ctrl)
    raise AssertionError("no lit place under a piece")


def _lit_place_games() -> list[tuple[str, list[str]]]:
    """Every registered game with a window (tests.test_view._window_games), a human seat first."""
    return [(name, ["human"] + seats[1:]) for name, seats in _window_games()]


def _lit_place_under_a_piece_by_the_rules(game: str, seats: int, adapter=None) -> bool:
    """Whether, in whole games of the game's rules (no window, no physics), a piece may ever go where
    another stands: some destination its adapter (`adapter`, or one made for the check) declares is
    `occupied`."""
    from tabletop.gamekit.registry import GAMES

    definition = GAMES[game]
    own = adapter is None
    if own:
        adapter = definition.window_adapter(["ai"] * seats, definition.check_options({}))
    found = []

    def look(state):
        if not found and not state.is_terminal() and not state.is_chance_node():
            found.extend(d for piece in range(len(adapter.piece_bodies)) for d in adapter.destinations(state, piece)
                         if adapter.occupied(state, d, piece))
    try:
        play_by_the_rules(definition, adapter, seats, look)
    finally:
        if own:
            adapter.close()
    return bool(found)


def test_some_game_lights_a_place_under_a_piece():
    """test_a_lit_place_never_hides_the_piece_on_it walks every game with a window (a game whose
    pieces never share a place is skipped there): not empty, and at least one game has such a place."""
    games = _lit_place_games()
    assert games and any(_lit_place_under_a_piece_by_the_rules(name, len(seats)) for name, seats in games)


@pytest.mark.parametrize("game, seats", _lit_place_games())
def test_a_lit_place_never_hides_the_piece_on_it(open_window, tmp_path, game, seats):  # noqa: F811
    """A lit destination where another piece stands (a King Kong space shared, a Knossos piece to
    land on, a King of the Hill marble to knock), in every game with a window where the rules let a
    piece go where another stands: the piece is drawn whole over its lit place (the pixels of its
    middle are the same lit or not), the place is a ring round it that reaches beyond it, and its
    number key stands below it, not on it."""
    app, ctrl = open_window(game, seats, size=SIZE)
    if not _lit_place_under_a_piece_by_the_rules(game, len(seats), ctrl.adapter):
        pytest.skip(f"{game}: no piece goes where another stands in whole games of its rules")
    piece, other, dest = _until_a_lit_place_under_a_piece(ctrl)
    centre = ctrl.adapter.piece_positions(ctrl.state)[other]
    from panda3d.core import Vec3

    app.camera.approach(Vec3(*centre), 0.12, 1.0)
    app.render_frame()
    fx, fy = app.project(centre)
    plain, _ = pixels(app, tmp_path / "plain.png")
    ctrl.select(piece)
    k = next(i for i, d in enumerate(ctrl.destinations) if d.position == dest.position)
    app.render_frame()
    lit, _ = pixels(app, tmp_path / "lit.png")
    step = 0.006
    for dx in (-step, 0.0, step):
        for dy in (-step, 0.0, step):
            a, b = plain(fx + dx, fy + dy), lit(fx + dx, fy + dy)
            assert max(abs(u - v) for u, v in zip(a, b)) < 0.08, f"the lit place covers {game}'s piece: {a} -> {b}"
    _, node = ctrl._markers[k]
    lo, hi = node.get_tight_bounds(node)
    reach = max(hi.x, -lo.x)
    assert reach > 1.3 * ctrl.adapter.marker_radius, "no ring round the piece: the lit place would not show"
    changed = 0
    for a in np.linspace(0.0, 2 * math.pi, 16, endpoint=False):   # the ring shows round the piece
        r = 1.3 * ctrl.adapter.marker_radius
        film = app.project(app.render.get_relative_point(node, (r * math.cos(a), r * math.sin(a), 0.0)))
        if film is not None and -1 < film[0] < 1 and -1 < film[1] < 1:
            changed += max(abs(u - v) for u, v in zip(plain(*film), lit(*film))) > 0.15
    assert changed >= 5, f"the ring round the piece shows at {changed} of 16 points"
    if ctrl._keys:
        keyed = [label for n, label, below in ctrl._keys if n == node]
        assert keyed, "the lit place has no number key"
        x, y = keyed[0].getPos()
        assert y < fy - 0.02, "the number key stands on the piece"
