"""Camera and pointer controls shared by every window (play and replay).

Left or right drag orbits, middle drag pans, the wheel zooms; arrow keys orbit, W A S D pan,
+ and - zoom, C or Home resets the view; [ ] and PgUp PgDn scroll the log. A left click that
does not drag calls `on_click(x, y)` with film coordinates. Tests, with no mouse, set `pointer`.
"""
from __future__ import annotations

import math
from typing import Callable


class ViewControls:
    def __init__(self, app, hud, on_click: Callable[[float, float], object] | None = None):
        self.app, self.hud, self.on_click = app, hud, on_click
        self.pointer = None            # film coordinates given by tests when there is no mouse
        self._down = None
        b, cam = app.base, app.camera
        keys = {
            "c": cam.reset, "home": cam.reset,
            "[": lambda: hud.scroll(3), "]": lambda: hud.scroll(-3),
            "page_up": lambda: hud.scroll(3), "page_down": lambda: hud.scroll(-3),
            "=": lambda: cam.zoom(0.9), "+": lambda: cam.zoom(0.9), "-": lambda: cam.zoom(1.1),
            "wheel_up": lambda: cam.zoom(0.9), "wheel_down": lambda: cam.zoom(1.1),
        }
        for key, fn in keys.items():
            b.accept(key, fn)
        for key, (dx, dy) in {"a": (-0.02, 0), "d": (0.02, 0), "w": (0, 0.02), "s": (0, -0.02)}.items():
            b.accept(key, cam.pan, [dx, dy])
            b.accept(key + "-repeat", cam.pan, [dx, dy])
        for button, event in (("left", "mouse1"), ("right", "mouse3"), ("middle", "mouse2")):
            b.accept(event, self._press, [button])
            b.accept(event + "-up", self._release, [button])
        app.add_task(self._drag_task, "view-controls-drag")

    def orbit_keys(self, keys=("arrow_left", "arrow_right", "arrow_up", "arrow_down")) -> None:
        """Bind the arrow keys (or others) to orbiting the camera."""
        cam = self.app.camera
        for key, (dh, dp) in zip(keys, ((-5, 0), (5, 0), (0, 4), (0, -4))):
            self.app.base.accept(key, cam.orbit, [dh, dp])
            self.app.base.accept(key + "-repeat", cam.orbit, [dh, dp])

    def mouse(self):
        mw = self.app.base.mouseWatcherNode
        if mw is not None and mw.has_mouse():
            m = mw.get_mouse()
            return float(m.x), float(m.y)
        return self.pointer

    def _press(self, button: str) -> None:
        p = self.mouse()
        if p is not None:
            self._down = (button, p, p)

    def _release(self, button: str) -> None:
        down, self._down = self._down, None
        if down is None or down[0] != button:
            return
        p = self.mouse() or down[1]
        if button == "left" and self.on_click is not None and math.dist(p, down[1]) < 0.01:
            self.on_click(*p)

    def _drag_task(self, task):
        if self._down is not None:
            p = self.mouse()
            if p is not None:
                button, start, last = self._down
                dx, dy = p[0] - last[0], p[1] - last[1]
                if button in ("left", "right"):
                    self.app.camera.orbit(-dx * 120, -dy * 60)
                else:
                    d = self.app.camera.distance
                    self.app.camera.pan(-dx * d, -dy * d)
                self._down = (button, start, p)
        return task.cont
