"""Opening a game in the window, or rendering it offscreen to a PNG (`--screenshot`)."""
from __future__ import annotations

import sys
import time
from pathlib import Path

from tabletop.gamekit.definition import GameDefinition
from tabletop.sim.errors import InputError


def parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InputError(f"--size: expected WIDTHxHEIGHT such as 1280x720, got {text!r}") from None
    if not (64 <= w <= 7680 and 64 <= h <= 4320):
        raise InputError(f"--size: {w}x{h} is outside 64x64 .. 7680x4320")
    return w, h


def make_adapter(game: GameDefinition, seats: list[str], options: dict | None = None, scene=None):
    """The game's window adapter (its definition's), with its options: on its physical table for live
    play, or, given a replay's RecordedScene, on its layout for drawing that replay (no PyBullet)."""
    return game.window_adapter(seats, game.check_options(options or {}), scene)


def open_game(game: GameDefinition, seats: list[str], seed: int, options: dict | None = None, size=(1280, 720),
              offscreen: bool = False, pace: float = 0.8, shadows: bool | None = None, record: Path | None = None,
              resume=None):
    """(app, controller) of a game in a window or an offscreen buffer. Bad options fail before
    any window opens. `resume`: (a recorded game's ReplayFile, the turn to play it on from or
    None): the first game is that one, played on (tabletop.gamekit.resume.take_up)."""
    started = time.perf_counter()
    adapter = make_adapter(game, seats, options)
    from tabletop.gamekit.view.controller import GameWindow
    from tabletop.sim.view.app import TableApp

    try:
        app = TableApp(size=size, offscreen=offscreen, title=f"tabletop - {adapter.title}", shadows=shadows)
    except BaseException:
        adapter.close()
        raise
    loading = None
    if not offscreen:               # the table's nodes and the first frame take seconds: say so at once
        from direct.gui.OnscreenText import OnscreenText

        loading = OnscreenText(text=f"{adapter.title}: setting up the table...", scale=0.07, fg=(1, 0.9, 0.4, 1),
                               parent=app.base.aspect2d)
        for _ in range(2):          # both buffers of a double-buffered window
            app.base.graphicsEngine.render_frame()
    try:
        controller = GameWindow(app, game, adapter, seats, seed, pace=pace, record=record, options=options,
                                resume=resume)
    except BaseException:
        adapter.close()
        app.destroy()
        raise
    if loading is not None:
        loading.destroy()
    controller.started = started
    return app, controller


def play_window(game: GameDefinition, seats: list[str], seed: int, options: dict, screenshot: str | None,
                after_turns: int,
                size: tuple[int, int], pace: float, record: Path | None = None, resume=None) -> int:
    """The window (recording to `record` unless None), or with `screenshot` an offscreen picture;
    `resume` a recorded game to play on first (open_game's)."""
    if screenshot is not None:
        out = Path(screenshot)
        if not out.parent.is_dir():
            raise InputError(f"--screenshot: folder {out.parent} does not exist")
        if out.suffix.lower() != ".png":
            raise InputError(f"--screenshot: write a .png file, not {out.name}")
    app, controller = open_game(game, seats, seed, options, size=size,
                                offscreen=screenshot is not None, pace=pace,
                                record=None if screenshot is not None else record, resume=resume)
    if screenshot is not None:
        controller.fast_forward(after_turns)
        app.camera.reset()
        app.render_frame()
        app.screenshot(screenshot)
        print(f"wrote {screenshot} ({size[0]}x{size[1]}, after {controller.state.turn} turns)")
        controller.adapter.close()
        app.destroy()
        return 0
    if record is not None:
        print(f"recording the replay to {record}", file=sys.stderr, flush=True)
    tasks = app.base.taskMgr

    def interrupted(signum, frame):   # Ctrl-C: end the frame, then the loop (Panda3D's own handler
        tasks.fKeyboardInterrupt = 1  # prints to stdout and returns as if the window were closed)
        tasks.interruptCount += 1

    tasks.keyboardInterruptHandler = interrupted
    try:
        app.base.run()
    finally:
        controller.close()
    if tasks.interruptCount:
        raise KeyboardInterrupt       # one line and exit 130 (tabletop.cli); the replay is kept
    return 0
