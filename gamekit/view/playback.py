"""Playing a replay file back in the window, or writing it out as PNG frames.

Nothing is simulated and no PyBullet is loaded: the table is drawn from the replay header's
recorded scene (every body's look and pose) and laid out by the game's layout (the data files'
geometry), the rules state is re-driven from the recorded actions, and the bodies that moved are
put at their recorded poses. The timeline is the replay's playback time: each chance event lasts its motion
(or 0.3 s without one), each move MOVE_ANIMATION_S (the piece hops for HOP_SECONDS of it). A motion's
recorded contact events sound as it plays (tabletop.sim.view.audio), as they did in the live window.
"""
from __future__ import annotations

import bisect
import math
import time
from dataclasses import dataclass
from pathlib import Path

from tabletop.gamekit.record import decode_action
from tabletop.gamekit.replay import replay_config, review_rows  # noqa: F401  (replay_config: here before)
from tabletop.gamekit.view.controller import HOP_HEIGHT, HOP_SECONDS
from tabletop.sim.errors import InputError
from tabletop.sim.motion import Motion
from tabletop.sim.record import MOVE_ANIMATION_S, ReplayFile

NO_MOTION_S = 0.3          # a chance outcome drawn from a table: a short beat on the timeline
CHECKPOINT_EVERY = 32      # states kept every this many steps, for seeking
FRAME_MARGIN = 0.12        # an exported frame's margin round the bodies (film units): room for the labels beside them


@dataclass
class Step:
    """One recorded action on the timeline (decoded when first needed)."""

    start: float
    duration: float
    turn: int              # index in replay.turns
    encoded: list
    chance: str | None
    motion: int | None     # index into the turn's motions
    game: object           # its GameDefinition
    _action: object = None

    @property
    def action(self):
        if self._action is None:
            self._action = decode_action(self.game, self.encoded)
        return self._action


class Timeline:
    """The recorded actions of a replay, their times, and the state before any of them."""

    def __init__(self, replay: ReplayFile, adapter, game):
        self.replay = replay
        self.adapter = adapter
        self.steps: list[Step] = []
        self.turn_starts: list[int] = []
        t = 0.0
        for k, turn in enumerate(replay.turns):
            self.turn_starts.append(len(self.steps))
            durations = [m["duration"] for m in turn.log["motions"]]
            for step in turn.steps:
                if "action" not in step:
                    continue
                motion = step.get("motion")
                if "chance" in step:
                    d = durations[motion] if motion is not None else NO_MOTION_S
                else:
                    d = MOVE_ANIMATION_S
                self.steps.append(Step(t, max(d, 1e-3), k, step["action"], step.get("chance"), motion, game))
                t += max(d, 1e-3)
        self.duration = t
        self._starts = [s.start for s in self.steps]
        self._checkpoints = [adapter.new_state()]     # states before steps 0, CHECKPOINT_EVERY, ... (grown on demand)
        self._cache: tuple[int, object] | None = None
        self._motions: dict[tuple[int, int], tuple[Motion, list]] = {}

    def index_at(self, t: float) -> int:
        """The step playing at time t (len(steps) once the replay has ended)."""
        if t >= self.duration:
            return len(self.steps)
        return max(0, bisect.bisect_right(self._starts, t) - 1)

    @property
    def final(self):
        return self.state_before(len(self.steps))

    def state_before(self, i: int):
        """The rules state just before step i (after every step when i == len(steps)), re-driven
        from the nearest earlier checkpoint; opening a replay re-drives nothing."""
        while len(self._checkpoints) <= i // CHECKPOINT_EVERY:
            k = len(self._checkpoints) - 1
            state = self._checkpoints[k].clone()
            for s in self.steps[k * CHECKPOINT_EVERY:(k + 1) * CHECKPOINT_EVERY]:
                state.apply(s.action)
            self._checkpoints.append(state)
        if self._cache is not None and self._cache[0] <= i and i - self._cache[0] < CHECKPOINT_EVERY:
            j, state = self._cache
            state = state if j == i else state.clone()
        else:
            j = i // CHECKPOINT_EVERY * CHECKPOINT_EVERY
            state = self._checkpoints[j // CHECKPOINT_EVERY].clone()
        for s in self.steps[j:i]:
            state.apply(s.action)
        self._cache = (i, state)
        return state

    def motion(self, step: Step) -> tuple[Motion, list] | None:
        if step.motion is None:
            return None
        key = (step.turn, step.motion)
        if key not in self._motions:
            m = Motion.from_dict(self.replay.turns[step.turn].motions[step.motion])
            self._motions[key] = (m, m.states())
        return self._motions[key]

    def rest_poses(self, i: int) -> dict:
        """Poses of the bodies left where the last motions before step i put them."""
        poses: dict = {}
        for s in reversed(self.steps[:i]):
            found = self.motion(s)
            if found is None:
                continue
            final = found[0].final()
            for track, pose in final.items():
                poses.setdefault(track, pose)
            if len(poses) >= len(self._moving_tracks()):
                break
        return poses

    def _moving_tracks(self) -> set:
        if not hasattr(self, "_tracks"):
            self._tracks = set()
            for turn in self.replay.turns[:4]:
                for m in turn.motions:
                    for look in m["looks"].values():
                        self._tracks.update(look["tracks"])
        return self._tracks


class ReplayWindow:
    """Plays a Timeline in a TableApp: play/pause, turn steps, scrubbing, speed, free camera."""

    def __init__(self, app, game, adapter, replay: ReplayFile, review: dict | None = None, reveal: bool = False):
        """`review`: the game's review (tabletop.gamekit.review's, as `tabletop review --out` writes
        it), shown in a panel that follows the playback (R shows and hides it). While the recorded
        game is not over, the log and the players' panel show only what no seat hides (as a
        spectator sees them), unless `reveal`; a finished game's replay shows every hand."""
        from tabletop.gamekit.replay import finished

        self.app, self.adapter, self.replay = app, adapter, replay
        # hiding: what the seats hide kept from the screen; revealing: shown by --reveal (both False: nothing hidden)
        self.hiding = bool(adapter.hidden_hands) and not finished(replay) and not reveal
        self.revealing = bool(adapter.hidden_hands) and not finished(replay) and reveal
        self.review = review
        self.review_note: str | None = None     # while a review is worked out: its progress, in the panel
        self.show_review = review is not None
        self._reviewed = {r["index"]: r for r in (review or {}).get("steps", [])}
        adapter.build(app)
        app.freeze_labels()
        self.timeline = Timeline(replay, adapter, game)
        players = self.timeline.state_before(0).game.players
        self.viewer = () if self.hiding else tuple(range(players))     # whose hidden lines and hands are shown
        from tabletop.sim.view.hud import Hud
        self.hud = Hud(app.base)
        app.frame(self.hud.free_film_rect())
        self.t = 0.0
        self.speed = 1.0
        self.playing = True
        from tabletop.sim.view.audio import WindowAudio
        self.audio = WindowAudio(app)  # the recorded throws' contact sounds (silent with no audio device)
        self._sounding: int | None = None      # the step whose motion sounds
        self._sound_at: tuple[float, float] | None = None   # (playback time, speed) of the last frame played
        self._shown_events = -1
        self._hidden: list[str] = []
        self._bind()
        self.show(0.0)
        for warning in replay.warnings:
            self.hud.log(f"warning: {warning}")

    # -- drawing ---------------------------------------------------------------------------
    def show(self, t: float) -> None:
        """Draw the table as it was at playback time t."""
        tl, app, adapter = self.timeline, self.app, self.adapter
        self.t = min(max(t, 0.0), tl.duration)
        i = tl.index_at(self.t)
        state = tl.state_before(i)
        for name in self._hidden:
            app.show_body(name, True)
        self._hidden = []
        app.set_poses(tl.rest_poses(i))
        adapter.place_pieces(app, state)
        if i < len(tl.steps):
            step = tl.steps[i]
            local = self.t - step.start
            found = tl.motion(step)
            if found is not None:
                motion, states = found
                for name, look in motion.looks.items():
                    app.add_body(name, look)
                    color = adapter.motion_color(state, step.chance, name)
                    if color is not None:
                        app.recolor(name, color)
                for name in app.take_new_bodies():
                    adapter.decorate_body(app, name)
                self._hidden = adapter.hidden_during(state, step.chance)
                for name in self._hidden:
                    app.show_body(name, False)
                k = motion.index_at(local)
                if k >= 0:
                    app.set_poses(states[k])
            elif step.chance is None:
                self._hop(state, step, local)
        self._sound(i)
        self._hud(state, i)

    def _sound(self, i: int) -> None:
        """The sounds of the motion playing at step i, in step with the playback: a motion reached
        by playing on sounds from its start (at most a frame late), one sought into, or played on
        after a pause or a change of speed, from where it is; a pause or a jump stops the sound."""
        tl = self.timeline
        before, self._sound_at = self._sound_at, ((self.t, self.speed) if self.playing else None)
        on = (before is not None and self.playing and before[1] == self.speed
              and 0.0 <= self.t - before[0] <= 0.25 * self.speed)
        if not on:
            self.audio.stop()
            self._sounding = None
        if not self.playing or i >= len(tl.steps) or i == self._sounding:
            return
        step = tl.steps[i]
        found = tl.motion(step)
        if found is None:
            return
        self._sounding = i
        start = 0.0 if on and before[0] <= step.start else self.t - step.start
        self.audio.play(found[0].contacts, start, self.speed)

    def _hop(self, state, step: Step, local: float) -> None:
        after = state.clone()
        after.apply(step.action)
        a, b = self.adapter.piece_positions(state), self.adapter.piece_positions(after)
        u = min(1.0, local / HOP_SECONDS)
        for piece in b:
            if a.get(piece) != b[piece]:
                p = [a[piece][k] + (b[piece][k] - a[piece][k]) * u for k in range(3)]
                p[2] += HOP_HEIGHT * math.sin(math.pi * u)
                self.adapter.put_piece(self.app, piece, p)

    def _hud(self, state, i: int) -> None:
        tl = self.timeline
        if len(state.events) != self._shown_events:
            from tabletop.gamekit.state import seen_by

            self.hud.lines = [line for line in (seen_by(e, self.viewer) for e in state.events) if line]
            self.hud.scroll_back = 0
            self.hud._show_log()
            self._shown_events = len(state.events)
        self.hud.set_status("\n".join(self.status_rows(i) + self.hidden_rows() + [self.adapter.status(state)]
                                      + self.review_rows(i)))
        kinds = self.replay.header.get("config", {}).get("seats", ["?"] * 8)
        self.hud.set_players(self.adapter.players(state, kinds, self.viewer))
        self.hud.set_banner(self.adapter.result(state) if state.is_terminal() else "")
        if self._slider is not None and not self._dragging_slider:
            self._slider["value"] = self.t / max(tl.duration, 1e-9)

    def hidden_rows(self) -> list[str]:
        """The status panel's word on the hands of a game not over: hidden, or shown (--reveal)."""
        from tabletop.gamekit.replay import REVEALED

        if self.revealing:
            return [REVEALED]
        if self.hiding:
            return ["hands hidden: the game is not over", "(--reveal shows them)"]
        return []

    def review_rows(self, i: int) -> list[str]:
        """The review panel at step i (none when hidden or there is no review): review_rows."""
        if self.show_review and self.review is None and self.review_note is not None:
            return ["REVIEW", self.review_note]
        if not self.show_review or self.review is None:
            return []
        return review_rows(self.review, self._reviewed, i, len(self.timeline.steps))

    def set_review(self, review: dict | None, note: str | None = None) -> None:
        """The review come while the window is open (tabletop.app.review.BackgroundReview), shown in
        the panel; or, while it is still worked out, `note` (its progress) in its place."""
        first = self.review is None and self.review_note is None
        self.review, self.review_note = review, note
        self._reviewed = {r["index"]: r for r in (review or {}).get("steps", [])}
        if first:
            self.show_review = True
        self.show(self.t)

    def toggle_review(self) -> None:
        """R: the review panel shown or hidden (a replay opened with a review)."""
        if self.review is None and self.review_note is not None:
            self.show_review = not self.show_review
            self.show(self.t)
            return
        if self.review is None:
            self.hud.set_notice("no review: open the replay with --review (or review.json from tabletop review --out)")
            return
        self.show_review = not self.show_review
        self.show(self.t)

    def turn_at(self, i: int) -> int:
        """The 1-based turn that step i belongs to (0 in a replay without steps)."""
        tl = self.timeline
        return tl.steps[min(i, len(tl.steps) - 1)].turn + 1 if tl.steps else 0

    def status_rows(self, i: int) -> list[str]:
        """The replay's part of the status panel: the file on a row of its own (a name too long
        for it keeps its end), then the turn, the time, the speed and whether it plays, packed
        into as few rows as fit the panel's width whole, so the panel never breaks one of them
        (a time from its unit) onto a row of its own."""
        from tabletop.sim.view.hud import LEFT, PAD

        tl = self.timeline
        node, scale = self.hud.status.textNode, self.hud.status.getScale()[0]
        width = (LEFT - 3 * PAD) / scale

        def fits(text: str) -> bool:
            return node.calc_width(text) <= width

        name = self.replay.path.name
        while not fits(f"REPLAY {name}") and len(name) > 4:
            name = "..." + name[4:]
        parts = [f"REPLAY {name}", f"turn {self.turn_at(i)}/{len(self.replay.turns)}",
                 f"{self.t:.1f}/{tl.duration:.1f} s", f"{self.speed:g}x {'playing' if self.playing else 'paused'}"]
        rows = [parts[0], parts[1]]
        for part in parts[2:]:
            if fits(f"{rows[-1]} | {part}"):
                rows[-1] = f"{rows[-1]} | {part}"
            else:
                rows.append(part)
        return rows

    def frames_only(self) -> None:
        """Draw the table alone, as `write_frames` exports it: no HUD (panels, buttons, the
        slider, the close-ups in the right column), the camera framing the table in the whole
        picture, and a small caption in the bottom left corner saying the turn and the time."""
        from direct.gui.OnscreenText import OnscreenText
        from panda3d.core import TextNode

        base, app = self.app.base, self.app
        base.aspect2d.hide()
        for region in base.win.get_display_regions():          # the close-ups' cameras
            cam = region.get_camera()
            if not cam.is_empty() and cam != base.cam and cam.get_top() == app.render:
                region.set_active(False)
        app.frame((-1.0, 1.0, -1.0, 1.0), margin=FRAME_MARGIN)
        ar = base.getAspectRatio()
        layer = base.render2d.attach_new_node("frame-caption")
        layer.set_scale(1.0 / ar, 1.0, 1.0)
        self.caption = OnscreenText(text="", parent=layer, pos=(-ar + 0.03, -0.96), scale=0.04,
                                    fg=(1, 1, 1, 0.9), shadow=(0, 0, 0, 1), align=TextNode.A_left, mayChange=True)

    def caption_text(self) -> str:
        """What a frame's caption says: the turn and the playback time."""
        i = self.timeline.index_at(self.t)
        return f"turn {self.turn_at(i)}/{len(self.replay.turns)}  {self.t:.1f} s"

    # -- controls --------------------------------------------------------------------------
    def _bind(self) -> None:
        from direct.gui.DirectGui import DirectSlider

        from tabletop.sim.view.audio import VOLUME_STEP
        from tabletop.sim.view.controls import ViewControls

        b = self.app.base
        self.controls = ViewControls(self.app, self.hud)
        self.controls.orbit_keys(("j", "l", "i", "k"))
        keys = {"space": self.toggle, "arrow_right": lambda: self.step_turn(1), "arrow_left": lambda: self.step_turn(-1),
                ".": lambda: self.set_speed(self.speed * 2), ",": lambda: self.set_speed(self.speed / 2),
                "end": lambda: self.seek(self.timeline.duration), "0": lambda: self.seek(0.0),
                "escape": self.quit, "q": self.quit, "f1": self._help, "r": self.toggle_review,
                "m": self._mute, "v": lambda: self._volume(-VOLUME_STEP), "b": lambda: self._volume(VOLUME_STEP)}
        for key, fn in keys.items():
            b.accept(key, fn)
        self._dragging_slider = False
        self._slider = DirectSlider(parent=b.aspect2d, range=(0, 1), value=0, pageSize=0.02, scale=0.6,
                                    pos=(0.15, 0, -0.93), command=self._scrub)
        self.hud.button("play", "Play / pause  [Space]", self.toggle, 1)
        self.hud.button("help", "Help  [F1]", self._help, 0)
        self.app.add_task(self._update, "replay-update")

    def _scrub(self) -> None:
        value = float(self._slider["value"])
        if abs(value * self.timeline.duration - self.t) > 0.05:
            self._dragging_slider = True
            self.show(value * self.timeline.duration)
            self._dragging_slider = False

    def _update(self, task):
        from panda3d.core import ClockObject

        dt = min(ClockObject.get_global_clock().get_dt(), 0.1)
        if self.playing and self.t < self.timeline.duration:
            self.show(self.t + dt * self.speed)
        return task.cont

    def toggle(self) -> None:
        self.playing = not self.playing
        self.show(self.t)

    def set_speed(self, speed: float) -> None:
        self.speed = min(8.0, max(0.25, speed))
        self.show(self.t)

    def seek(self, t: float) -> None:
        self.show(t)

    def step_turn(self, delta: int) -> None:
        """Jump to the start of the next (+1) or the previous (-1) turn."""
        tl = self.timeline
        if not tl.steps:
            return
        turn = tl.steps[min(tl.index_at(self.t), len(tl.steps) - 1)].turn
        start_of_turn = tl.steps[tl.turn_starts[turn]].start
        if delta < 0 and self.t - start_of_turn > 0.25:
            target = turn                      # back to the start of this turn first
        else:
            target = min(max(turn + delta, 0), len(tl.turn_starts) - 1)
        while target < len(tl.turn_starts) - 1 and tl.turn_starts[target] >= len(tl.steps):
            target += 1
        self.show(tl.steps[tl.turn_starts[target]].start if tl.turn_starts[target] < len(tl.steps) else tl.duration)

    def _help(self) -> None:
        self.hud.toggle_help("\n".join(HELP))

    def _mute(self) -> None:
        self.hud.set_notice(self.audio.toggle_mute())

    def _volume(self, delta: int) -> None:
        self.hud.set_notice(self.audio.change_volume(delta))

    def quit(self) -> None:
        import sys

        self.audio.close()
        self.adapter.close()
        self.app.destroy()
        sys.exit(0)


HELP = [
    "Replay controls",
    "  Space                 play / pause",
    "  right / left arrow    next turn / back to the start of this turn (again: previous turn)",
    "  timeline slider       drag to scrub to any moment",
    "  . and ,               speed x2 / x0.5 (0.25x-8x)",
    "  0 / End               the start / the end",
    "  left/right drag       orbit the camera;  middle drag: pan;  wheel: zoom",
    "  J L I K               orbit;  W A S D: pan;  + / -: zoom;  C or Home: reset the view",
    "  [ and ] / PgUp PgDn   scroll the log",
    "  R                     the review panel on / off (a replay opened with --review)",
    "  M                     sound off / on",
    "  V and B               volume down / up",
    "  F1 this help   Esc or Q quit",
]


def open_replay(path: Path, games: dict, size=(1280, 720), offscreen: bool = False, review: dict | None = None,
                reveal: bool = False):
    """(app, ReplayWindow, seconds from opening the file to its first frame drawn, the window
    itself already open); `review` the game's review, shown in a panel; `reveal` every hidden
    hand shown while the recorded game is not over (ReplayWindow)."""
    from tabletop.gamekit.view.window import make_adapter
    from tabletop.sim.scene import RecordedScene
    from tabletop.sim.view.app import TableApp

    started = time.perf_counter()
    replay = ReplayFile.open(path)
    game, seats, options = replay_config(replay, games)
    # the adapter before the window: a game with none says so in one line, and no window opens
    adapter = make_adapter(game, seats, options, RecordedScene(replay.header.get("scene", {})))
    loading = time.perf_counter() - started
    app = TableApp(size=size, offscreen=offscreen, title=f"tabletop replay - {path.name}")
    try:
        started = time.perf_counter() - loading          # the window's own start-up not counted
        window = ReplayWindow(app, game, adapter, replay, review, reveal)
        app.base.graphics_engine.render_frame()
        app.base.graphics_engine.sync_frame()
    except BaseException:
        app.destroy()
        raise
    return app, window, time.perf_counter() - started


def write_frames(path: Path, games: dict, folder: Path, fps: float, size, turns: tuple | None = None,
                 max_frames: int | None = None) -> tuple[int, bool]:
    """Render the replay offscreen at `fps` frames per second of playback into folder/: all of it,
    or turns (first, last) (1-based, inclusive, None: open), at most `max_frames` frames; each
    frame the table alone (ReplayWindow.frames_only), captioned with its turn and time.
    Returns (frames written, whether max_frames stopped it)."""
    app, window, _ = open_replay(path, games, size=size, offscreen=True)
    try:
        window.playing = False
        tl = window.timeline
        start, end = 0.0, tl.duration
        if turns is not None:
            first, last = turns
            count = len(tl.turn_starts)
            if first is not None and first > count:
                raise InputError(f"--turns: the replay has {count} turns, so none from turn {first}")
            if first is not None:
                i = tl.turn_starts[first - 1]
                start = tl.steps[i].start if i < len(tl.steps) else tl.duration
            if last is not None and last < count:
                i = tl.turn_starts[last]
                end = tl.steps[i].start if i < len(tl.steps) else tl.duration
        n = int(math.floor((end - start) * fps)) + 1
        capped = max_frames is not None and n > max_frames
        n = min(n, max_frames) if max_frames is not None else n
        window.frames_only()
        for k in range(n):
            window.show(start + k / fps)
            window.caption.setText(window.caption_text())
            app.screenshot(folder / f"frame-{k:05d}.png")
        return n, capped
    finally:
        window.audio.close()
        window.adapter.close()
        app.destroy()
