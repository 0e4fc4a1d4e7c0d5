"""King of the Hill as the window draws it, at the home camera on a 1280x720 picture: the labels
stand clear of each other, the caves and a marble resting in one are seen, the Tipper's ball reads
on its tray. One window for the whole module (opening one costs seconds); skipped where no
graphics pipe can open."""
from __future__ import annotations

import itertools

import numpy as np

import pytest

pytest.importorskip("panda3d")

from tabletop.gamekit.registry import GAMES  # noqa: E402
from tabletop.sim.view.app import ViewError  # noqa: E402

SIZE = (1280, 720)


@pytest.fixture(scope="module")
def window():
    from tabletop.gamekit.view.window import open_game

    try:
        app, ctrl = open_game(GAMES["king-of-the-hill"], ["ai", "ai"], seed=3, size=SIZE, offscreen=True, pace=0.0)
    except ViewError as exc:
        pytest.skip(f"no graphics pipe: {exc}")
    yield app, ctrl
    ctrl.adapter.close()
    app.destroy()


@pytest.fixture
def home(window):
    app, ctrl = window
    app.camera.reset()
    return app, ctrl


def label_rects(app, signs) -> dict[str, tuple[float, float, float, float]]:
    """Each camera-facing sign's glyphs as a screen rectangle (x0, x1, y0, y1) in pixels: its
    tight bounds laid along the camera's right and up through the sign's centre, projected."""
    from panda3d.core import Point3

    cam = app.base.camera
    right = app.render.get_relative_vector(cam, (1, 0, 0))
    up = app.render.get_relative_vector(cam, (0, 0, 1))
    w, h = SIZE
    out = {}
    for s in signs:
        lo, hi = s.get_child(0).get_tight_bounds(s)
        k = s.get_sz(app.render)
        centre = s.get_pos(app.render)
        corners = [app.project(Point3(centre + right * (x * k) + up * (z * k)))
                   for x in (lo.x, hi.x) for z in (lo.z, hi.z)]
        assert all(c is not None for c in corners), f"{s.get_name()} is off screen"
        xs = [(c[0] + 1) / 2 * w for c in corners]
        ys = [(c[1] + 1) / 2 * h for c in corners]
        out[s.get_name()] = (min(xs), max(xs), min(ys), max(ys))
    return out


def overlaps(rects: dict) -> list[tuple[str, str]]:
    return [(a, b) for (a, ra), (b, rb) in itertools.combinations(rects.items(), 2)
            if ra[0] < rb[1] and rb[0] < ra[1] and ra[2] < rb[3] and rb[2] < ra[3]]


@pytest.mark.slow
def test_koth_labels_do_not_overlap_at_the_home_camera(home):
    """No two of the path's numbers (START on space 0), the Finish Zone's, FINISH ZONE and the
    caves' names overlap on the picture, and each stays at least 12 px tall."""
    app, ctrl = home
    adapter = ctrl.adapter
    signs = adapter.space_signs + adapter.zone_signs + adapter.cave_signs + [adapter.finish_sign]
    assert len(signs) == adapter.board.path_length + adapter.board.zone_seats + 4
    rects = label_rects(app, signs)
    clash = overlaps(rects)
    assert not clash, f"{len(clash)} overlapping labels: {clash}"
    for name, (_, _, y0, y1) in rects.items():
        if not name.startswith("cave"):
            assert y1 - y0 >= 12, f"{name} is {y1 - y0:.1f} px tall"


def test_overlap_finder_finds_a_clash(home):
    """The check above can fail: two signs at one spot overlap."""
    from tabletop.sim.view.art import sign

    app, _ = home
    a = sign(app.render, "10", (0.0, 0.0, 0.1), 0.013, name="a")
    b = sign(app.render, "39", (0.004, 0.003, 0.1), 0.013, name="b")
    try:
        assert overlaps(label_rects(app, [a, b])) == [("a", "b")]
    finally:
        a.remove_node()
        b.remove_node()


def picture(app, path):
    """A screenshot as a function of pixel (x, y) (y up from the bottom) -> the median (r, g, b)
    of the 3x3 pixels round it."""
    from panda3d.core import Filename, PNMImage

    app.screenshot(path)
    img = PNMImage()
    assert img.read(Filename.from_os_specific(str(path)))
    w, h = img.get_x_size(), img.get_y_size()

    def at(x, y):
        px = [img.get_xel(min(w - 1, max(0, int(x) + i)), min(h - 1, max(0, h - 1 - int(y) + j)))
              for i in (-1, 0, 1) for j in (-1, 0, 1)]
        return tuple(float(np.median([p[k] for p in px])) for k in range(3))
    return at


def on_picture(app, point):
    film = app.project(point)
    assert film is not None, f"{point} is off screen"
    return (film[0] + 1) / 2 * SIZE[0], (film[1] + 1) / 2 * SIZE[1]


@pytest.mark.slow
def test_koth_caves_and_a_marble_in_a_cave_are_seen(home, tmp_path):
    """Every cave seat (under its path space, inside the hill) shows the cave's dark floor at the
    home camera, not the hill's skin over it; the crater's marble resting on a cave seat shows
    its own colour there."""
    from tabletop.games.king_of_the_hill.art import CAVE_FLOOR_RGB, cave_seats
    from tabletop.games.king_of_the_hill.view import CAVE_ALPHA

    app, ctrl = home
    adapter = ctrl.adapter
    seats = cave_seats(adapter.table.crater)
    floor = picture(app, tmp_path / "caves.png")
    for name, p in seats.items():
        floor_at = (p[0], p[1], p[2] - adapter.radius)
        rgb = floor(*on_picture(app, floor_at))
        # the floor, blended over whatever the hill shows above it (CAVE_ALPHA): dark, whatever that is
        assert max(abs(a - CAVE_ALPHA * b) for a, b in zip(rgb, CAVE_FLOOR_RGB)) < 1 - CAVE_ALPHA + 0.05, \
            f"{name} shows {rgb}"
    r = adapter.radius
    app.add_body("marble", {"material": "glass", "tracks": {"marble": [
        {"kind": "sphere", "radius": r, "pos": [0.0, 0.0, 0.0], "orn": [0.0, 0.0, 0.0, 1.0]}]}})
    app.take_new_bodies()
    app.recolor("marble", (0.86, 0.12, 0.10))
    adapter.decorate_body(app, "marble")
    try:
        for name, p in seats.items():
            app.set_poses({"marble": (*p, 0.0, 0.0, 0.0, 1.0)})
            rgb = picture(app, tmp_path / f"{name.replace('/', '-')}.png")(*on_picture(app, p))
            assert rgb[0] > rgb[1] + 0.25 and rgb[0] > rgb[2] + 0.25, f"a red marble in {name} shows {rgb}"
    finally:
        app.show_body("marble", False)


def test_koth_tippers_ball_reads_on_its_tray(home, tmp_path):
    """The Tipper's ball, at rest in its tray, is much darker than the tray's floor round it."""
    from tabletop.games.king_of_the_hill.view import TRAY_FLOOR_RGB

    app, ctrl = home
    (track,) = app.body_tracks["ball"]
    at = picture(app, tmp_path / "tray.png")
    ball = at(*on_picture(app, app.nodes[track].get_pos(app.render)))

    def luma(rgb):
        return 0.3 * rgb[0] + 0.59 * rgb[1] + 0.11 * rgb[2]
    assert luma(ball) < 0.5 * luma(TRAY_FLOOR_RGB), f"the ball shows {ball} on a floor of {TRAY_FLOOR_RGB}"
