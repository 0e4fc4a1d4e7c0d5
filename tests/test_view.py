"""The window, rendered offscreen (EGL): pictures of each game, and moves driven by simulated
mouse and key events. Skipped where no graphics pipe can open."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("panda3d")

from tabletop.gamekit.state import Pass  # noqa: E402
from tabletop.gamekit.registry import GAMES  # noqa: E402
from tabletop.gamekit.state import ChanceOutcome  # noqa: E402
from tabletop.sim.view.app import ViewError  # noqa: E402

SIZE = (480, 270)


@pytest.fixture
def open_window():
    """open_window(game, seats, **kw) -> (app, controller); the app is destroyed after the test."""
    from tabletop.gamekit.view.window import open_game

    opened = []

    def make(game, seats, **kw):
        try:
            app, ctrl = open_game(GAMES[game], seats, seed=kw.pop("seed", 3), size=kw.pop("size", SIZE), offscreen=True,
                                  pace=0.0, **kw)
        except ViewError as exc:
            pytest.skip(f"no graphics pipe: {exc}")
        opened.append((app, ctrl))
        return app, ctrl

    yield make
    for app, ctrl in opened:
        ctrl.adapter.close()
        app.destroy()


def pixels(app, path):
    """The screenshot as a function (x, y) in film coordinates -> (r, g, b) in 0..1."""
    from panda3d.core import Filename, PNMImage

    app.screenshot(path)
    img = PNMImage()
    assert img.read(Filename.from_os_specific(str(path)))
    w, h = img.get_x_size(), img.get_y_size()

    def at(fx, fy):
        x = min(w - 1, max(0, int((fx + 1) / 2 * w)))
        y = min(h - 1, max(0, int((1 - fy) / 2 * h)))
        return tuple(img.get_xel(x, y))
    return at, img


def until_human_moves(ctrl, limit=400):
    """Play on (AI seats as themselves, the human's chance actions by key) until a human seat
    has a real choice of move."""
    from tabletop.games.king_of_the_hill.ai import GreedySeat

    stand_in = GreedySeat()
    for _ in range(limit):
        s = ctrl.state
        assert not s.is_terminal()
        if s.is_chance_node():
            ctrl.chance()
        elif ctrl.human(s.current_player):
            if s.legal_actions() != [Pass()]:
                return
            ctrl.act(Pass())
        else:
            seat = ctrl.seats[s.current_player] or stand_in
            ctrl.act(seat.choose(s, ctrl.seat_rng))
        ctrl.finish_animation()
    raise AssertionError("the human seat never had a move")


def until_a_choice(ctrl, moves: int = 2, limit: int = 40) -> None:
    """Play on (the human's forced moves played) until a human seat has at least `moves` legal moves."""
    for _ in range(limit):
        until_human_moves(ctrl)
        if len(ctrl.state.legal_actions()) >= moves:
            return
        ctrl.act(ctrl.state.legal_actions()[0])
        ctrl.finish_animation()
    raise AssertionError(f"the human seat never had {moves} moves to choose from")


def step(ctrl, stand_in=None) -> None:
    """One step of the game in the window: the pending chance event simulated, or the seat to move
    choosing (a human seat by `stand_in`, an AI seat, by default the game's AI), played to its end."""
    s = ctrl.state
    if s.is_chance_node():
        ctrl.chance()
    else:
        seat = ctrl.seats[s.current_player] or stand_in or ctrl.adapter.make_seats(["ai"])[0]
        ctrl.act(seat.choose(s, ctrl.seat_rng))
    ctrl.finish_animation()


def until_kong_turn(ctrl, limit=400) -> None:
    """King Kong on to a human seat's turn (roll or fly)."""
    from tabletop.games.king_kong.rules import Phase

    for _ in range(limit):
        s = ctrl.state
        if s.is_terminal() or (not s.is_chance_node() and ctrl.human(s.current_player) and s.phase is Phase.TURN):
            return
        step(ctrl)


def click_at(app, ctrl, point):
    """A left click on a 3D point, through the mouse events the window listens to."""
    from direct.showbase.MessengerGlobal import messenger

    film = app.project(point)
    assert film is not None, f"{point} is off screen"
    ctrl.controls.pointer = film
    messenger.send("mouse1")
    messenger.send("mouse1-up")


def is_colour(rgb, dominant: int, margin=0.12):
    return all(rgb[dominant] > rgb[k] + margin for k in range(3) if k != dominant)


def _window_games():
    """Every registered game that has a window: (name, its seats: AI, three where it seats them)."""
    from tabletop.gamekit.definition import GameDefinition

    return [(name, ["ai"] * min(3, GAMES[name].seats[1])) for name in GAMES
            if type(GAMES[name]).window_adapter is not GameDefinition.window_adapter]


@pytest.mark.slow
@pytest.mark.parametrize("game,seats", _window_games())
def test_picture_shows_the_table_and_pieces(open_window, tmp_path, game, seats):
    """After a few turns the picture is not blank: the table fills the middle, and every piece on
    the board shows its own colour where the camera projects it (every registered game's window)."""
    app, ctrl = open_window(game, seats)
    ctrl.fast_forward(4 if game == "king-kong" else 6)      # (King Kong's pieces climb out of the frame)
    app.camera.reset()
    app.base.aspect2d.hide()            # the table itself: no HUD panel in front of a piece
    at, img = pixels(app, tmp_path / "shot.png")
    app.base.aspect2d.show()            # (Panda3D keeps aspect2d from one ShowBase to the next)
    grid = [at(x / 10, y / 10) for x in range(-9, 10, 3) for y in range(-9, 10, 3)]
    spread = max(max(c) for c in grid) - min(min(c) for c in grid)
    assert spread > 0.3, "the picture is (nearly) one colour"
    adapter = ctrl.adapter
    checked = 0
    for piece, pos in adapter.piece_positions(ctrl.state).items():
        film = app.project(pos)
        if film is None or abs(film[0]) > 0.95 or abs(film[1]) > 0.95:
            continue
        name = adapter.piece_bodies[piece]
        colour = app.nodes[name].get_color()
        dominant = max(range(3), key=lambda k: colour[k])
        rgb = at(*film)
        assert is_colour(rgb, dominant, 0.05), f"{name} at {film} shows {rgb}, expected its colour {tuple(colour)}"
        checked += 1
    assert checked >= 2


@pytest.mark.slow
def test_koth_click_select_highlight_move(open_window, tmp_path):
    """A human player tilts with the Space key, clicks a marble (its destinations light up), then
    clicks a lit seat: the move is the rules' move to that seat."""
    from direct.showbase.MessengerGlobal import messenger

    app, ctrl = open_window("king-of-the-hill", ["human", "ai"])
    s = ctrl.state
    assert s.is_chance_node() and ctrl.human(ctrl.actor())
    messenger.send("space")                      # the human's tilt for turn order
    ctrl.finish_animation()
    assert len(s.history) == 1
    until_human_moves(ctrl)
    s = ctrl.state
    marble = next(m for m in range(len(s.track)) if ctrl.adapter.destinations(s, m))
    click_at(app, ctrl, ctrl.adapter.piece_positions(s)[marble])
    assert ctrl.selected == marble
    options = ctrl.destinations
    assert options and len(ctrl._markers) == len(options)
    at, img = pixels(app, tmp_path / "lit.png")
    lit = app.project(ctrl._markers[0][1].get_pos(app.render))
    assert lit is not None
    # the marker is yellow (the path's spaces are cream: as bright, but blue too); its centre may lie
    # under its space's number, so a ring of points about 2 pixels out is read as well
    aspect = img.get_x_size() / img.get_y_size()
    ring = [(lit[0] + 0.01 * np.cos(a), lit[1] + 0.01 * aspect * np.sin(a)) for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)]
    yellow = [rgb for rgb in map(lambda p: at(*p), [lit, *ring]) if rgb[0] > 0.7 and rgb[1] > 0.6 and rgb[2] < 0.4]
    assert len(yellow) >= 3, "the destination is not lit"
    expected = s.clone()
    expected.apply(options[-1].action)
    click_at(app, ctrl, options[-1].position)
    ctrl.finish_animation()
    assert ctrl.state.history[len(expected.history) - 1] == options[-1].action
    assert ctrl.state.track[marble] == expected.track[marble]
    assert ctrl.selected is None and not ctrl._markers


def test_knossos_click_move_and_keys(open_window):
    """Knossos: Space throws for the human; a click on a piece then on a lit space moves it;
    number keys choose a destination too; clicking empty table clears the selection."""
    from direct.showbase.MessengerGlobal import messenger

    app, ctrl = open_window("knossos", ["human", "ai"], seed=5)
    until_human_moves(ctrl)
    s = ctrl.state
    piece = next(p for p in range(len(s.pos)) if ctrl.adapter.destinations(s, p))
    click_at(app, ctrl, ctrl.adapter.piece_positions(s)[piece])
    assert ctrl.selected == piece
    click_at(app, ctrl, (-0.3, 0.3, 0.0))        # the empty tray
    assert ctrl.selected is None
    click_at(app, ctrl, ctrl.adapter.piece_positions(s)[piece])
    option = ctrl.destinations[0]
    expected = s.clone()
    expected.apply(option.action)
    messenger.send("1")                           # the first lit destination
    ctrl.finish_animation()
    assert ctrl.state.pos[piece] == expected.pos[piece]


def test_help_and_camera_keys(open_window):
    """F1 toggles the help listing every control; C resets the camera after orbiting."""
    from direct.showbase.MessengerGlobal import messenger

    app, ctrl = open_window("knossos", ["ai", "ai"])
    assert ctrl.hud.help.isHidden()
    messenger.send("f1")
    assert not ctrl.hud.help.isHidden() and "Space" in ctrl.hud.help_keys.getText()
    win = app.base.win                   # the help (2D layer) draws over the sticks' close-up
    regions = [win.get_display_region(i) for i in range(win.get_num_display_regions())]
    layer = next(r.get_sort() for r in regions if r.get_camera() == app.base.cam2d)
    close_ups = [r for r in regions
                 if any(max(abs(a - b) for a, b in zip(r.get_dimensions(), inset)) < 1e-6 for inset in app.insets)]
    assert close_ups and all(r.get_sort() < layer for r in close_ups)
    messenger.send("f1")
    assert ctrl.hud.help.isHidden()
    home = app.base.camera.get_pos()
    messenger.send("arrow_left")
    messenger.send("-")
    assert (app.base.camera.get_pos() - home).length() > 0.01
    messenger.send("c")
    assert (app.base.camera.get_pos() - home).length() < 1e-6


def test_ai_game_in_the_window_matches_headless(open_window):
    """An all-AI game in the window draws seats and chance from the same generators as the
    headless driver: same seed, same log."""
    from tabletop.gamekit.match import Match, TurnLimitError
    from tabletop.games.knossos.ai import HeuristicSeat
    from tabletop.games.knossos.rules import Game
    from tabletop.games.knossos.table import PhysicsOutcomes

    app, ctrl = open_window("knossos", ["ai", "ai"], seed=11)
    ctrl.fast_forward(8)
    source = PhysicsOutcomes()
    lines = []
    try:
        with pytest.raises(TurnLimitError):
            Match(Game(games_to_win=3).new_initial_state(), [HeuristicSeat(), HeuristicSeat()], source, 11,
                  max_turns=7).play(lines.append)
    finally:
        source.close()
    n = min(len(lines), len(ctrl.state.events))
    assert n > 8 and ctrl.state.events[:n] == lines[:n]


def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "tabletop.cli", *args], capture_output=True, text=True, env=env)


def test_no_display_is_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    r = _cli("play", "knossos", "--seats", "human,ai", env=env)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "no display" in lines[0] and "--headless" in lines[0]


@pytest.mark.parametrize("args,message", [
    (["--size", "big"], "--size"),
    (["--size", "10x10"], "--size"),
    (["--screenshot", "/nonexistent/x.png"], "--screenshot"),
    (["--screenshot", "shot.jpg"], "--screenshot"),
    (["--after-turns", "-1", "--screenshot", "x.png"], "--after-turns"),
])
def test_bad_window_options(tmp_path, args, message):
    r = _cli("play", "knossos", "--seats", "ai,ai", *args)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and message in r.stderr


@pytest.mark.slow
def test_screenshot_command(tmp_path):
    """`tabletop play GAME --screenshot FILE` writes a PNG of the requested size."""
    out = tmp_path / "kn.png"
    r = _cli("play", "knossos", "--seats", "ai,ai", "--seed", "2", "--after-turns", "3",
             "--screenshot", str(out), "--size", "320x180")
    if r.returncode != 0 and "could not open" in r.stderr:
        pytest.skip("no graphics pipe")
    assert r.returncode == 0, r.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 320 and int.from_bytes(data[20:24], "big") == 180


def test_window_game_records_a_replay_that_verifies(open_window, tmp_path):
    """A game played in the window writes the same kind of replay as headless play: its log is
    the window's log, and re-simulation verifies every outcome and pose."""
    from tabletop.gamekit.replay import summary_lines, verify
    from tabletop.sim.record import ReplayFile

    path = tmp_path / "window.ttr"
    app, ctrl = open_window("knossos", ["ai", "ai"], seed=2, record=path)
    ctrl.fast_forward(5)
    ctrl.close()                # a window closed before the game's end: an end record says so
    replay = ReplayFile.open(path)
    assert replay.turns and replay.complete and not replay.warnings
    assert replay.end["result"] == {"winner": None, "turns": ctrl.state.turn, "unfinished": True}
    lines = summary_lines(replay)
    assert [line for line in lines if line in ctrl.state.events][:8] == ctrl.state.events[:8]
    result = verify(replay, GAMES[replay.header['game']])
    assert result.turns == len(replay.turns)


def test_king_kong_menu_roll_click_move(open_window):
    """King Kong: the human picks "roll the die" from the numbered menu, rolls with Space, clicks
    the pawn (its reachable spaces light up) and a lit space: the pawn moves there as the rules say."""
    from direct.showbase.MessengerGlobal import messenger

    from tabletop.games.king_kong.rules import Move, Phase, Roll

    app, ctrl = open_window("king-kong", ["human", "ai"], seed=5)   # a seed whose human gets a turn early
    until_kong_turn(ctrl)
    s = ctrl.state
    assert s.phase is Phase.TURN and Roll() in ctrl.menu
    messenger.send(str(ctrl.menu.index(Roll()) + 1))
    ctrl.finish_animation()
    assert ctrl.state.chance_event == "die"
    messenger.send("space")
    ctrl.finish_animation()
    s = ctrl.state
    assert s.phase is Phase.MOVE
    me = s.current_player
    click_at(app, ctrl, ctrl.adapter.piece_positions(s)[me])
    assert ctrl.selected == me and ctrl.destinations
    option = next(d for d in ctrl.destinations if isinstance(d.action, Move))
    click_at(app, ctrl, option.position)
    ctrl.finish_animation()
    assert ctrl.state.pos[me] == option.action.to


def test_the_header_names_the_turn_the_log_is_in(open_window):
    """King of the Hill: while a player is about to tilt, the header names the turn that tilt
    begins, the one the log then names (it used to lag the log by one)."""
    from tabletop.games.king_of_the_hill.rules import Phase

    app, ctrl = open_window("king-of-the-hill", ["ai", "ai"], seed=3)
    while ctrl.state.turn < 2 or ctrl.state.phase is not Phase.ROLL:
        ctrl.chance() if ctrl.state.is_chance_node() else ctrl.act(ctrl.match.choose())
        ctrl.finish_animation()
    n = ctrl.state.turn + 1
    assert ctrl.adapter.status(ctrl.state).startswith(f"King of the Hill - turn {n}: ")
    ctrl.chance()
    ctrl.finish_animation()
    assert [line for line in ctrl.hud.lines if line.startswith("turn ")][-1].startswith(f"turn {n}: ")
    assert ctrl.adapter.status(ctrl.state).startswith(f"King of the Hill - turn {n}: ")


def test_koth_paints_the_board_from_its_data(open_window):
    """King of the Hill: one camera-facing number for every path space (START on space 0) and
    one for every Finish Zone seat, each beside the seat the board data puts there, and the hill's
    texture painted from the same data (the path's colour under every space, an edge seat's red
    under every edge space)."""
    from tabletop.games.king_of_the_hill.art import EDGE_RGB, PATH_RGB, SEAT_RGB, START_RGB, paint_hill

    app, ctrl = open_window("king-of-the-hill", ["ai", "ai"])
    adapter = ctrl.adapter
    board = adapter.board
    signs = adapter.space_signs
    assert len(signs) == board.path_length and len(adapter.zone_signs) == board.zone_seats
    assert [s.get_name() for s in signs] == [f"space-{i}" for i in range(board.path_length)]
    for s, p in zip(signs[1:] + adapter.zone_signs, board.path_positions[1:] + board.zone_positions):
        gap = (s.get_pos(app.render).xy - p[:2]).length()
        assert 0.5 * adapter.radius < gap < 2.5 * adapter.radius, f"{s.get_name()} stands {gap:.3f} m from its seat"
    assert not app.render.find("**/finish-zone").is_empty()
    assert all(not app.render.find(f"**/cave{c}").is_empty() for c in (1, 2, 3))
    crater = adapter.table.crater
    canvas = paint_hill(board, crater, crater.base_size / 2 + 0.002)

    def texel(p):
        i = int((p[0] + canvas.half) / canvas.px)
        j = int((canvas.half - p[1]) / canvas.px)
        return canvas.rgb[j, i]
    for i, p in enumerate(board.path_positions[1:], 1):
        wants = (EDGE_RGB, START_RGB) if i in board.edge_spaces else (SEAT_RGB,)      # red seat, white arrow
        assert any(max(abs(a - b) for a, b in zip(texel(p), want)) < 0.02 for want in wants), f"space {i} is not painted"
        mid = (np.asarray(p) + np.asarray(board.path_positions[i - 1])) / 2
        assert max(abs(a - b) for a, b in zip(texel(mid), PATH_RGB)) < 0.02 or i - 1 in board.edge_spaces, \
            f"no path painted between spaces {i - 1} and {i}"


def test_koth_space_numbers_are_readable_at_the_home_camera(open_window):
    """Every path space's number and every Finish Zone seat's stands at least 12 px tall on a
    1280x720 picture from the home camera (the labels' height projected through the lens)."""
    from panda3d.core import Point3

    app, ctrl = open_window("king-of-the-hill", ["ai", "ai"])
    app.camera.reset()
    cam = app.base.camera
    up = app.render.get_relative_vector(cam, (0, 0, 1))
    adapter = ctrl.adapter
    for s in adapter.space_signs + adapter.zone_signs:
        glyphs = s.get_child(0)
        lo, hi = glyphs.get_tight_bounds(s)
        height = (hi.z - lo.z) * s.get_sz(app.render)
        centre = s.get_pos(app.render)
        top, bottom = app.project(Point3(centre + up * height / 2)), app.project(Point3(centre - up * height / 2))
        assert top is not None and bottom is not None, f"{s.get_name()} is off screen"
        pixels = (top[1] - bottom[1]) / 2 * 720
        assert pixels >= 12, f"{s.get_name()} is {pixels:.1f} px tall"


def _quick_chance(definition):
    """The quickest chance to play whole games by the rules alone: the game's fair tables, else its
    measured ones, else its physics."""
    from tabletop.gamekit.analyze import fair_source, measured_files, table_source
    from tabletop.gamekit.errors import GameError
    from tabletop.sim.errors import InputError

    for make in (lambda: fair_source(definition), lambda: table_source(definition, measured_files(definition.devices))):
        try:
            return make()
        except (GameError, InputError):
            pass
    return definition.physics()


def play_by_the_rules(definition, adapter, seats: int, look, games: int = 3) -> None:
    """`games` whole games of the adapter's rules, no window and no physics (random seats, quick
    chance: `_quick_chance`), `look(state)` called on each first state and after every action."""
    from tabletop.gamekit.match import Match

    options = definition.check_options({})
    source = _quick_chance(definition)
    kind = "random" if "random" in definition.seat_kinds else next(k for k in definition.seat_kinds if k != "human")
    for seed in range(games):
        state = adapter.new_state()
        look(state)
        Match(state, [definition.make_seat(kind, source, options) for _ in range(seats)], source, seed,
              after_action=look).play()


def board_places(definition, adapter, seats: int) -> list[tuple]:
    """Every place of the board a piece stands on or may go to, from the adapter's declared hooks
    alone: `piece_positions` of every state and the `destinations` of every piece at every decision
    of whole games of the adapter's rules (`play_by_the_rules`)."""
    places = {}

    def look(state):
        found = list(adapter.piece_positions(state).values())
        if not state.is_terminal() and not state.is_chance_node():
            found += [d.position for piece in range(len(adapter.piece_bodies))
                      for d in adapter.destinations(state, piece)]
        places.update((tuple(round(c, 5) for c in p), tuple(p)) for p in found)

    play_by_the_rules(definition, adapter, seats, look)
    return list(places.values())


def body_middles(app) -> list[tuple]:
    """The middle of every body drawn but the table top (the body under all the others: its middle
    is no place of the game); where the table frames only some bodies (TableApp.frame_only: a board
    whose gadgets show in a close-up), the middles of those."""
    bounds = {name: node.get_tight_bounds(app.render) for name, node in app.nodes.items()
              if app.framed is None or name in app.framed}
    middles = {name: tuple((lo[k] + hi[k]) / 2 for k in range(3)) for name, (lo, hi) in bounds.items()}

    def under_all(name):
        lo, hi = bounds[name]
        return len(bounds) > 1 and all(lo.x <= m[0] <= hi.x and lo.y <= m[1] <= hi.y and m[2] >= lo.z
                                       for other, m in middles.items() if other != name)
    return [m for name, m in middles.items() if not under_all(name)]


def test_the_hud_walk_takes_every_game_with_a_window():
    """test_hud_leaves_the_table_free walks the registry: not empty, every game with a window in it."""
    from tabletop.gamekit.definition import GameDefinition

    walked = {name for name, _ in _hud_games()}
    windowed = {name for name in GAMES if type(GAMES[name]).window_adapter is not GameDefinition.window_adapter}
    assert walked and walked == windowed and GAMES.problems() == {}


def _hud_games():
    """Every registered game with a window, at its most seats (the fullest players' panel), all AI."""
    return [(name, ["ai"] * GAMES[name].seats[1]) for name, _ in _window_games()]


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1280, 720), (960, 540)])
@pytest.mark.parametrize("game,seats", _hud_games())
def test_hud_leaves_the_table_free(open_window, game, seats, size):
    """At the default camera no place of the board (every place a piece stands on or may go to in
    whole games of the rules: `board_places`), piece or gadget projects into a HUD panel or a
    close-up, early and later in a game; every panel's text lies inside its panel. Every game with
    a window, from what its adapter declares (no game's own layout read)."""
    app, ctrl = open_window(game, seats, size=size)
    assert app.framed is None or app.insets, f"{game}: frames only {app.framed} but has no close-up for the rest"
    places = board_places(GAMES[game], ctrl.adapter, len(seats))
    assert len(places) > len(ctrl.adapter.piece_bodies), f"{game}: no place of the board found but where pieces start"
    hud = ctrl.hud
    for turns in (0, 6):
        ctrl.fast_forward(turns)
        app.camera.reset()
        points = places + body_middles(app) + list(ctrl.adapter.piece_positions(ctrl.state).values())
        rects = hud.rects()
        assert any(name.startswith("DirectFrame") for name, *_ in rects)
        rects += [("close-up", (l * 2 - 1) * hud.ar, (r * 2 - 1) * hud.ar, b * 2 - 1, t * 2 - 1)
                  for l, r, b, t in app.insets]
        for point in points:
            film = app.project(point)
            assert film is not None, f"{point} is off screen"
            x, y = film[0] * hud.ar, film[1]
            covered = [name for name, x0, x1, y0, y1 in rects if x0 <= x <= x1 and y0 <= y <= y1]
            assert not covered, f"{game} {size}: {point} lies under {covered}"
        for frame, text in ((hud.status_frame, hud.status), (hud.players_frame, hud.players),
                            (hud.log_frame, hud.log_text)):
            fx0, fx1, fy0, fy1 = frame["frameSize"]
            bounds = text.get_tight_bounds(frame)
            if bounds:
                lo, hi = bounds
                assert fx0 <= lo.x and hi.x <= fx1 and fy0 <= lo.z and hi.z <= fy1, f"{text.getText()!r} overflows"
        assert "\u2026" not in hud.log_text.getText()


def test_clicks_and_keys_that_do_nothing_say_why(open_window):
    """Knossos: a number key while the human's throw is pending, a click on the other side's
    piece, a number past the choices and a click on the empty table each leave a message; the
    prompt follows a selection."""
    from direct.showbase.MessengerGlobal import messenger

    app, ctrl = open_window("knossos", ["human", "ai"], seed=5)
    assert ctrl.state.is_chance_node() and ctrl.human(ctrl.actor())
    messenger.send("1")
    assert "press Space to throw" in ctrl.hud.notice.getText()
    until_human_moves(ctrl)
    s = ctrl.state
    theirs = 2                                  # blue's first piece; the human plays red
    click_at(app, ctrl, ctrl.adapter.piece_positions(s)[theirs])
    assert ctrl.selected is None
    assert ctrl.hud.notice.getText().startswith("blue-1 cannot move: ") and "belongs to blue" in ctrl.hud.notice.getText()
    messenger.send("9")
    n = len(ctrl.choices)
    assert ctrl.hud.notice.getText() == "no choice 9: " + ("the only choice is 1" if n == 1 else
                                                           f"the choices are 1-{n}")
    click_at(app, ctrl, (-0.3, 0.3, 0.0))       # the empty tray
    assert ctrl.hud.notice.getText().startswith("no piece there")
    mine = next(p for p in range(2) if ctrl.adapter.destinations(s, p))
    before = ctrl.hud.prompt.getText()
    click_at(app, ctrl, ctrl.adapter.piece_positions(s)[mine])
    assert ctrl.selected == mine and ctrl.hud.prompt.getText() != before and "lit space" in ctrl.hud.prompt.getText()
    click_at(app, ctrl, (-0.3, 0.3, 0.0))
    assert ctrl.selected is None and ctrl.hud.prompt.getText() == before


def kong_step(s, rng, seat) -> None:
    """One step of a King Kong game by the rules alone: chance drawn uniformly, the seat's choice."""
    from tabletop.games.king_kong.rules import Phase

    if s.phase is Phase.SHUFFLE:          # too many orders to list: the label is one
        s.apply(ChanceOutcome(" ".join(str(c) for c in rng.permutation(s.shuffle_pile()))))
    elif s.is_chance_node():
        labels = s.chance_outcomes()
        s.apply(ChanceOutcome(labels[rng.integers(len(labels))]))
    else:
        s.apply(seat.choose(s, rng))


def test_king_kong_fly_is_a_numbered_choice():
    """A pawn that can fly as well as roll gets a numbered choice for flying next to "roll the
    die", which lights the spaces it can fly to (the adapter's choice list; no window needed)."""
    import numpy as np

    from tabletop.games.king_kong.rules import Fly, Phase, Roll
    from tabletop.games.king_kong.view import KongAdapter

    adapter = KongAdapter(3)
    try:
        s = adapter.new_state()
        rng = np.random.default_rng(4)
        seat = adapter.make_seats(["ai"])[0]
        while not (s.phase is Phase.TURN and any(isinstance(a, Fly) for a in s.legal_actions())):
            assert not s.is_terminal()
            kong_step(s, rng, seat)
        assert adapter.menu(s) == [Roll()]
        flights = [(piece, text, group) for piece, text, group in adapter.piece_choices(s)
                   if all(isinstance(d.action, Fly) for d in group)]
        assert len(flights) == 1
        piece, text, group = flights[0]
        assert piece == s.current_player and text.startswith(f"{adapter.piece_name(piece)}: fly by Helicopter Ride") and "click" in text
        assert {d.action for d in group} == {a for a in s.legal_actions() if isinstance(a, Fly)}
    finally:
        adapter.close()


def test_xlib_notices_are_dropped_and_other_output_kept(capfd):
    """What Xlib prints on the process's stderr while the window opens: its missing-extension
    notice is dropped, any other line passes through."""
    from tabletop.sim.view.app import quiet_xlib

    with quiet_xlib():
        os.write(2, b'Xlib:  extension "XFree86-DGA" missing on display ":99".\n')
        os.write(2, b"a real error\n")
    assert capfd.readouterr().err == "a real error\n"


@pytest.mark.parametrize("value,offscreen,samples", [(None, False, 0), (None, True, 4), ("0", True, 0), ("4", False, 4)])
def test_multisamples_setting(monkeypatch, value, offscreen, samples):
    """Smooth edges by default in pictures, not in a live window (a software renderer's frame rate)."""
    from tabletop.sim.view.app import multisamples_setting

    if value is None:
        monkeypatch.delenv("TABLETOP_MULTISAMPLES", raising=False)
    else:
        monkeypatch.setenv("TABLETOP_MULTISAMPLES", value)
    assert multisamples_setting(offscreen) == samples


def test_a_bad_multisamples_setting_is_one_message(monkeypatch):
    from tabletop.sim.view.app import multisamples_setting

    monkeypatch.setenv("TABLETOP_MULTISAMPLES", "lots")
    with pytest.raises(ViewError, match="TABLETOP_MULTISAMPLES"):
        multisamples_setting()


def test_kong_floor_numbers_are_readable_at_the_home_camera(open_window):
    """Every tower floor's number (lying on the board up the track) stands at least 12 px tall on a
    1280x720 picture from the home camera, one per floor of the board data."""
    from panda3d.core import Point3

    app, ctrl = open_window("king-kong", ["ai", "ai", "ai"])
    app.camera.reset()
    labels = ctrl.adapter.floor_labels
    rows = {sp.row for sp in ctrl.adapter.board.spaces if sp.kind == "window"}
    assert len(labels) == len(rows)
    for node in labels:
        lo, hi = node.get_tight_bounds(app.render)
        x, z = (lo.x + hi.x) / 2, (lo.z + hi.z) / 2
        top, bottom = app.project(Point3(x, hi.y, z)), app.project(Point3(x, lo.y, z))
        assert top is not None and bottom is not None, f"floor {node.get_name()} is off screen"
        pixels = (top[1] - bottom[1]) / 2 * 720
        assert pixels >= 12, f"floor {node.get_name()} is {pixels:.1f} px tall"


def test_koth_a_marble_that_cannot_move_is_told_in_the_rules_words(open_window):
    """Why a marble cannot move is the rules' own reason: another player's marble belongs to them."""
    from tabletop.gamekit.state import ChanceOutcome

    app, ctrl = open_window("king-of-the-hill", ["human", "ai"])
    s = ctrl.state.clone()
    for label in ("6", "1", "3"):           # red tilts highest, goes first, and tilts 3
        s.apply(ChanceOutcome(label))
    blue = next(m for m in range(len(s.track)) if s.game.owner(m) == 1)
    reason = ctrl.adapter.why_not(s, blue)
    assert reason.startswith(f"{s.game.marble_name(blue)} cannot move: ") and "belongs to blue" in reason


def test_knossos_sticks_close_up_shows_both_sticks(open_window, tmp_path):
    """The close-up in the right column looks down on the two sticks wherever they lie: both fill
    part of it (their dark rounded backs or pale flat faces), the rest is the tray's floor, and the
    names it follows are the sticks device's own."""
    import numpy as np
    from PIL import Image

    from tabletop.games.knossos.view import STICKS
    from tabletop.sim.devices.sticks import STICKS as DEVICE_STICKS
    from tabletop.sim.view.hud import inset_region

    assert STICKS == DEVICE_STICKS
    app, ctrl = open_window("knossos", ["ai", "ai"], size=(1280, 720))
    x0, x1, y0, y1 = inset_region(app.base.getAspectRatio())
    app.screenshot(tmp_path / "k.png")
    rgb = np.asarray(Image.open(tmp_path / "k.png").convert("RGB"), dtype=float) / 255
    h, w, _ = rgb.shape
    inset = rgb[int((1 - y1) * h) + 2:int((1 - y0) * h) - 2, int(x0 * w) + 2:int(x1 * w) - 2]
    r, g, b = inset[..., 0], inset[..., 1], inset[..., 2]
    cloth = (g > r).mean()                                  # the green-grey cloth beyond the tray
    stick = ((r < 0.45) & (r > b + 0.05)).mean()            # the sticks' dark oiled backs
    face = ((r > 0.8) & (b > 0.55)).mean()                  # their pale split faces
    assert cloth < 0.02, f"the close-up shows the cloth ({cloth:.0%}), not the tray"
    assert stick + face > 0.04, f"the sticks fill {stick + face:.1%} of the close-up"


def test_king_kong_a_pawn_that_cannot_move_is_told_why():
    """Clicking another player's pawn names whose turn it is; the player's own pawn before its
    roll points to the numbered choices (roll the die)."""
    import numpy as np

    from tabletop.games.king_kong.rules import COLOURS, Phase
    from tabletop.games.king_kong.view import KongAdapter

    adapter = KongAdapter(3)
    try:
        seat = adapter.make_seats(["ai"])[0]
        s = adapter.new_state()
        rng = np.random.default_rng(1)
        seen = set()
        while len(seen) < 2:
            assert not s.is_terminal()
            if not s.is_chance_node() and s.phase in (Phase.TURN, Phase.MOVE) and s.phase not in seen:
                seen.add(s.phase)
                p = s.current
                q = (p + 1) % 3
                said = adapter.why_not(s, q)
                assert said == f"that is {adapter.piece_name(q)}: {COLOURS[p]} is to move, with {adapter.piece_name(p)}", said
                if s.phase is Phase.TURN and not adapter.destinations(s, p):
                    assert "numbered choices" in adapter.why_not(s, p)
            kong_step(s, rng, seat)
    finally:
        adapter.close()


@pytest.mark.slow
def test_king_kong_close_up_follows_the_die_and_the_spinner(open_window, tmp_path):
    """The close-up shows the die while it rolls, and the spinner's coloured circles while Kong's
    move is spun and chosen."""
    import numpy as np
    from PIL import Image

    from tabletop.games.king_kong.rules import Phase
    from tabletop.sim.view.hud import inset_region

    app, ctrl = open_window("king-kong", ["ai", "ai", "ai"], size=(1280, 720))
    x0, x1, y0, y1 = inset_region(app.base.getAspectRatio())

    def close_up(name):
        app.screenshot(tmp_path / f"{name}.png")
        rgb = np.asarray(Image.open(tmp_path / f"{name}.png").convert("RGB"), dtype=float) / 255
        h, w, _ = rgb.shape
        inset = rgb[int((1 - y1) * h) + 2:int((1 - y0) * h) - 2, int(x0 * w) + 2:int(x1 * w) - 2]
        vivid = (inset.max(axis=2) - inset.min(axis=2) > 0.35).mean()      # the sectors' colours
        white = (inset.min(axis=2) > 0.85).mean()                           # the die's faces
        return vivid, white

    ctrl.speed = 50.0                     # the animations fast-forwarded
    seen = {}
    for _ in range(3000):
        phase = ctrl.state.phase
        if phase is Phase.DIE and ctrl.anim is not None and phase not in seen:
            ctrl.anim.show(ctrl.anim.duration * 0.9)          # the die near its rest
            seen[phase] = close_up(phase.value)
        if phase is Phase.TWIST and ctrl.anim is None:
            seen[phase] = close_up(phase.value)
            break
        app.render_frame()
    vivid, white = seen[Phase.TWIST]
    assert vivid > 0.15, f"the spinner's sectors fill {vivid:.0%} of the close-up"
    vivid, white = seen[Phase.DIE]
    assert white > 0.03 and vivid < 0.05, f"the die: {white:.0%} white, {vivid:.0%} vivid"


def test_koth_players_panel_says_where_every_marble_is():
    """The players' panel names each marble's place, the finished game's included: a player whose
    marbles are both home reads "zone #1, zone #2", not "drawer"."""
    from tabletop.games.king_of_the_hill.rules import IN_CRATER
    from tabletop.games.king_of_the_hill.view import HillAdapter

    adapter = HillAdapter(2, "standard")
    try:
        s = adapter.new_state()
        L = adapter.board.path_length
        assert adapter.players(s, ["ai", "ai"]).splitlines()[0].endswith("zone 0/2  drawer, drawer")
        assert [adapter.game.owner(m) for m in range(4)] == [0, 0, 1, 1]
        s.track[:] = [L, L + 1, 37, IN_CRATER]
        lines = adapter.players(s, ["ai", "ai"]).splitlines()
        assert lines[0].endswith("zone 2/2  zone #2, zone #1"), lines
        assert lines[1].endswith("zone 0/2  space 37, crater"), lines
    finally:
        adapter.close()
