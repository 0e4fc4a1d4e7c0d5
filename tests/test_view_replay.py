"""Replays played back offscreen: the timeline, seeking, turn steps, speed, motion playback,
PNG frames, and the time to open a long replay. Skipped where no graphics pipe can open."""
from __future__ import annotations

import time

import pytest

pytest.importorskip("panda3d")

from tabletop.cli import main  # noqa: E402
from tabletop.gamekit.registry import GAMES  # noqa: E402
from tabletop.sim.view.app import ViewError  # noqa: E402

TIPPER_TABLE = "assets/measured/tipper-10k-seed1.json"


@pytest.fixture(scope="module")
def koth_replay(tmp_path_factory):
    """A 2-player King of the Hill game: the Tipper from its measured table, every knock into
    the crater simulated (so the file holds crater motions)."""
    path = tmp_path_factory.mktemp("rep") / "koth.ttr"
    assert main(["play", "king-of-the-hill", "--headless", "--seats", "ai,ai", "--seed", "5",   # a seed with knocks (3)
                 "--outcomes", f"table:{TIPPER_TABLE}", "--record", str(path)]) == 0
    return path


@pytest.fixture
def opened():
    from tabletop.gamekit.view.playback import open_replay

    made = []

    def make(path, **kw):
        try:
            app, window, seconds = open_replay(path, GAMES, size=(480, 270), offscreen=True)
        except ViewError as exc:
            pytest.skip(f"no graphics pipe: {exc}")
        made.append((app, window))
        return app, window, seconds

    yield make
    for app, window in made:
        window.adapter.close()
        app.destroy()


def test_seek_shows_the_recorded_state(opened, koth_replay):
    """Seeking anywhere puts every marble where the rules, re-driven from the recorded actions,
    say it was; the end shows the recorded winner."""
    app, window, _ = opened(koth_replay)
    tl = window.timeline
    assert tl.duration > 10 and len(tl.steps) > 20
    window.playing = False
    for frac in (0.9, 0.1, 0.5, 1.0, 0.0):
        window.seek(frac * tl.duration)
        i = tl.index_at(window.t)
        state = tl.state_before(i)
        if i < len(tl.steps) and tl.steps[i].chance is None and window.t - tl.steps[i].start > 0:
            continue                       # a marble in mid-hop
        expected = window.adapter.piece_positions(state)
        for m, pos in expected.items():
            node = app.nodes[window.adapter.piece_bodies[m]]
            assert (node.get_pos() - pos).length() < 1e-6
    window.seek(tl.duration)
    assert tl.final.is_terminal() and window.replay.end["result"]["winner"] in window.hud.banner.getText()


def test_crater_motion_plays_back(opened, koth_replay):
    """During a recorded knock the physical marble is drawn at its recorded poses and the game's
    knocked marble is hidden; after it, the marble sits in its cave's path space."""
    app, window, _ = opened(koth_replay)
    tl = window.timeline
    knocks = [s for s in tl.steps if s.chance == "crater" and s.motion is not None]
    assert knocks, "the game had no knock into the crater"
    step = knocks[0]
    motion, states = tl.motion(step)
    mid = step.start + motion.duration / 2
    window.seek(mid)
    pose = states[motion.index_at(mid - step.start)]["marble"]
    node = app.nodes["marble"]
    assert not node.is_hidden() and (node.get_pos() - pose[:3]).length() < 1e-6
    state = tl.state_before(tl.index_at(mid))
    assert app.nodes[window.adapter.piece_bodies[state.pending_marble]].is_hidden()
    window.seek(step.start + step.duration + 1e-3)
    assert not app.nodes[window.adapter.piece_bodies[state.pending_marble]].is_hidden()


def test_turn_steps_speed_and_play(opened, koth_replay):
    from direct.showbase.MessengerGlobal import messenger

    app, window, _ = opened(koth_replay)
    tl = window.timeline
    window.playing = False
    messenger.send("arrow_right")
    messenger.send("arrow_right")
    assert window.t == tl.steps[tl.turn_starts[2]].start
    messenger.send("arrow_left")
    assert window.t == tl.steps[tl.turn_starts[1]].start
    for _ in range(8):
        messenger.send(".")
    assert window.speed == 8.0
    for _ in range(8):
        messenger.send(",")
    assert window.speed == 0.25
    messenger.send("space")
    assert window.playing
    t0 = window.t
    for _ in range(3):
        app.render_frame()
    assert window.t >= t0
    window._slider["value"] = 0.5
    window._scrub()
    assert abs(window.t - tl.duration / 2) < 0.1


@pytest.mark.slow
def test_frames_command_writes_pngs(tmp_path, koth_replay):
    out = tmp_path / "frames"
    rc = main(["replay", str(koth_replay), "--frames", str(out), "--fps", "0.5", "--size", "160x90"])
    if rc == 2 and not out.exists():
        pytest.skip("no graphics pipe")
    assert rc == 0
    from tabletop.sim.record import ReplayFile
    from tabletop.gamekit.view.playback import Timeline
    from tabletop.gamekit.view.window import make_adapter

    frames = sorted(out.glob("frame-*.png"))
    adapter = make_adapter(GAMES["king-of-the-hill"], ["ai", "ai"])
    try:
        duration = Timeline(ReplayFile.open(koth_replay), adapter, GAMES["king-of-the-hill"]).duration
    finally:
        adapter.close()
    assert len(frames) == int(duration * 0.5) + 1
    assert frames[0].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_long_replay_opens_fast(opened, koth_replay, tmp_path):
    """A replay of about 30 minutes of play (the recorded game's turns written again and again)
    opens and shows its first frame quickly; the figure is printed for the notes."""
    from tabletop.sim.record import TURN, ReplayFile, ReplayWriter, chunk

    src = ReplayFile.open(koth_replay)
    long = tmp_path / "long.ttr"
    writer = ReplayWriter(long, src.header)
    total = 0.0
    while total < 30 * 60:
        for turn in src.turns:
            writer._write(chunk(TURN, turn.payload))
            total += turn.duration
    writer.close()
    started = time.perf_counter()
    app, window, seconds = opened(long)
    assert window.timeline.duration >= 30 * 60
    print(f"30-minute replay ({long.stat().st_size // 1024} KB): first frame {seconds:.2f} s after opening the file "
          f"({time.perf_counter() - started:.2f} s including opening the window)")
    assert seconds > 0


@pytest.mark.slow
def test_frames_of_a_turn_range_and_a_frame_cap(tmp_path, koth_replay, capsys):
    """--turns A:B renders only those turns' stretch of the timeline; --max-frames stops the render
    and says so; a bad range is one line, exit 2."""
    from tabletop.sim.record import ReplayFile
    from tabletop.gamekit.view.playback import Timeline
    from tabletop.gamekit.view.window import make_adapter

    adapter = make_adapter(GAMES["king-of-the-hill"], ["ai", "ai"])
    try:
        tl = Timeline(ReplayFile.open(koth_replay), adapter, GAMES["king-of-the-hill"])
    finally:
        adapter.close()
    a, b = 2, 3
    t0, t1 = tl.steps[tl.turn_starts[a - 1]].start, tl.steps[tl.turn_starts[b]].start
    out = tmp_path / "some"
    rc = main(["replay", str(koth_replay), "--frames", str(out), "--fps", "2", "--size", "160x90", "--turns", f"{a}:{b}"])
    if rc == 2 and not out.exists():
        pytest.skip("no graphics pipe")
    assert rc == 0 and len(list(out.glob("frame-*.png"))) == int((t1 - t0) * 2) + 1
    capped = tmp_path / "capped"
    assert main(["replay", str(koth_replay), "--frames", str(capped), "--fps", "2", "--size", "160x90",
                 "--max-frames", "3"]) == 0
    assert len(list(capped.glob("frame-*.png"))) == 3 and "--max-frames 3" in capsys.readouterr().out
    for bad in ("3:2", "0:4", "x", "9999:"):
        assert main(["replay", str(koth_replay), "--frames", str(tmp_path / "bad"), "--turns", bad]) == 2
    assert main(["replay", str(koth_replay), "--summary", "--turns", "1:2"]) == 2


def test_a_playback_frame_renders_the_recorded_scene(opened, tmp_path):
    """A Knossos replay (sticks from the measured table) opened for playback draws every body of its
    header's recorded scene, and a frame of it is a picture, not a blank."""
    import numpy as np
    from PIL import Image

    path = tmp_path / "knossos.ttr"
    assert main(["play", "knossos", "--headless", "--seed", "3", "--outcomes",
                 "table:assets/measured/sticks-10k-seed1.json", "--record", str(path)]) == 0
    app, window, _ = opened(path)
    assert window.adapter.scene is not None
    for name, look in window.replay.header["scene"]["looks"].items():
        assert set(app.body_tracks[name]) == set(look["tracks"])
    window.seek(window.timeline.duration / 2)
    app.render_frame()
    shot = np.asarray(Image.open(app.screenshot(tmp_path / "frame.png")).convert("RGB"), int)
    assert shot.std() > 10 and len(np.unique(shot.reshape(-1, 3), axis=0)) > 100


def test_status_never_breaks_the_time_from_its_unit(opened, koth_replay, tmp_path):
    """The replay's part of the status panel (file; turn, time, speed, playing or paused) is laid
    out in rows that each fit the panel whole: no row is a wrapped remainder (the panel indents
    those), the time and its total stand in one row with their unit, a long file name keeps its
    end; at every moment and speed."""
    import shutil

    from tabletop.sim.view.hud import LEFT, PAD

    long = tmp_path / "king-of-the-hill-four-players-seed-2-a-long-evening.ttr"
    shutil.copy(koth_replay, long)
    app, window, _ = opened(long)
    tl = window.timeline
    node, scale = window.hud.status.textNode, window.hud.status.getScale()[0]
    window.playing = False
    for speed in (0.25, 1.0, 8.0):
        window.set_speed(speed)
        for frac in (0.0, 0.37, 0.999, 1.0):
            window.seek(frac * tl.duration)
            rows = window.hud.status.getText().split("\n")
            game = window.adapter.status(tl.state_before(tl.index_at(window.t)))
            ours = rows[:next(k for k, row in enumerate(rows) if row and game.startswith(row))]
            assert len(ours) >= 2 and ours[0].startswith("REPLAY ") and ours[0].endswith(".ttr")
            assert not any(row.startswith(" ") for row in ours), rows
            assert all(node.calc_width(row) * scale <= LEFT - 3 * PAD for row in ours), rows
            assert any(f"{window.t:.1f}/{tl.duration:.1f} s" in row for row in ours), rows
            assert any(f"{window.speed:g}x paused" in row for row in ours), rows


def test_exported_frames_show_the_table_alone(tmp_path, koth_replay):
    """`replay --frames` writes the table alone: where the window has its buttons, its status and
    players' panels, its log and its slider, a frame shows no HUD colour (dark panel, blue-grey
    button or the slider's grey), and its picture there is the table's."""
    import numpy as np
    from PIL import Image

    from tabletop.sim.view.hud import BOTTOM, BUTTON, BUTTON_ROW, LEFT, PAD, PANEL, RIGHT

    out = tmp_path / "frames"
    rc = main(["replay", str(koth_replay), "--frames", str(out), "--fps", "1", "--size", "640x360",
               "--turns", "3:3", "--max-frames", "2"])
    if rc == 2 and not out.exists():
        pytest.skip("no graphics pipe")
    assert rc == 0
    frames = sorted(out.glob("frame-*.png"))
    assert frames
    rgb = np.asarray(Image.open(frames[-1]).convert("RGB"), float) / 255
    h, w, _ = rgb.shape
    ar = w / h

    def box(x0, x1, y0, y1):
        """Pixels of an aspect2d rectangle (x in -ar..ar, y in -1..1)."""
        return rgb[int((1 - y1) / 2 * h):int((1 - y0) / 2 * h), int((x0 + ar) / (2 * ar) * w):int((x1 + ar) / (2 * ar) * w)]

    def hud_share(px) -> float:
        colours = [PANEL[:3], BUTTON[0][:3], BUTTON[3][:3]]
        near = [np.abs(px - np.array(c)).max(axis=-1) < 0.05 for c in colours]
        return float(np.mean(np.logical_or.reduce(near)))

    regions = {"buttons": (ar - RIGHT, ar - PAD, -1 + PAD, -1 + PAD + 2 * BUTTON_ROW),
               "status": (-ar + PAD, -ar + LEFT, 1 - PAD - 0.1, 1 - PAD),
               "players": (ar - RIGHT, ar - PAD, 1 - PAD - 0.08, 1 - PAD),
               "log": (-ar + PAD, -ar + LEFT, -1 + PAD + 0.1, -1 + BOTTOM + 0.2)}
    for name, rect in regions.items():
        share = hud_share(box(*rect))
        assert share < 0.02, f"the frame shows the HUD's {name} ({share:.0%} of its place in HUD colours)"
    slider = box(-0.3, 0.6, -0.96, -0.9)
    grey = (np.abs(slider - slider.mean(axis=-1, keepdims=True)).max(axis=-1) < 0.02) & (slider.mean(axis=-1) > 0.5)
    assert grey.mean() < 0.2, "the frame shows the timeline slider"
