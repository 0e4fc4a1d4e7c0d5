"""Playing a game in the window: seats take turns, chance events are simulated and watched.

The controller owns the rules state and the physical table (through the game's adapter). A
chance event is simulated on the table with its fixed timestep while a MotionRecorder keeps
the pose frames; the window then plays those frames back in real time, so what is seen is
exactly what was simulated and the frame clock never steps the physics. Piece moves the
rules decide (a marble hopping seat to seat, a piece moving site to site) are animated
between the seats the table would put them on.

The game itself is a tabletop.gamekit.match.Match, the one headless play steps: the window
calls it once per frame when a seat or the chance event is due (`draw()` simulates the chance
event, the window plays it back, then `apply()`), so an all-AI game in the window is the game
`--headless` plays with the same seed: the same log lines, result line and replay.
"""
from __future__ import annotations

import math
import sys
import time
from pathlib import Path
from dataclasses import dataclass, field
from typing import Callable

from panda3d.core import ClockObject, Vec3

from tabletop.gamekit.chance import WatchedOutcomes
from tabletop.gamekit.match import Match
from tabletop.gamekit.state import ChanceOutcome, Pass, seen_by
from tabletop.gamekit.view.places import Destination  # noqa: F401  (here before)
from tabletop.gamekit.view.solving import BackgroundSolve
from tabletop.sim.view.audio import VOLUME_STEP, WindowAudio
from tabletop.sim.view.controls import ViewControls
from tabletop.sim.view.hud import Hud

HOP_SECONDS = 0.45      # a piece moving seat to seat
HOP_HEIGHT = 0.025


@dataclass
class Animation:
    """Something playing on screen; `finish` runs once it has run `duration` seconds."""

    duration: float
    show: Callable[[float], None]           # t in seconds since the start
    finish: Callable[[], None]
    t: float = 0.0
    follow: Callable[[float], tuple | None] | None = None
    extra: dict = field(default_factory=dict)


class GameWindow:
    """The game loop of the window; `adapter` knows one game's table, pieces and rules."""

    curtain_hold = 0.6     # seconds after the curtain drops before Enter lifts it (a double press passes only)

    def __init__(self, app, game, adapter, seats: list[str], seed: int, pace: float = 0.8, record=None,
                 options: dict | None = None, resume=None):
        self.app = app
        self.game = game               # its GameDefinition
        self.options = game.check_options(options or {})
        self.adapter = adapter
        self.seat_kinds = seats
        self.seed = seed
        self.pace = pace
        self.follow = True
        self.speed = 1.0
        self.anim: Animation | None = None
        self.selected = None
        self.destinations: list[Destination] = []
        self.menu: list = []            # the adapter's menu: actions that are not a piece's move
        self.choices: list[tuple[str, Callable[[], None]]] = []   # the numbered choices (menu first)
        self._markers = []
        self._keys: list = []          # (marker node, its number key on the screen, how far below it)
        self._wait = 0.0
        self._camera_back = None
        self.frame_times: list[float] = []
        self.record = record           # replay path of the first game (later games get -2, -3, ...)
        self.match: Match | None = None
        self.source = None
        self.games_started = 0
        self.resume = resume           # (a recorded game, the turn to play on from): the first game
        self.hint = False              # H: the human's win probability and the best move (off by default)
        self._values = None            # the solved game's values (a function of a state), once asked for
        self._values_config = None     # the replay config they are the values of
        self.humans = [p for p, kind in enumerate(seats) if kind == "human"]
        self.at_screen = self.humans[0] if len(self.humans) == 1 else None   # whose eyes are on the screen
        self.curtain = False           # the screen is covered until the next human seat is ready
        self.handing_over = None       # the human seat to come to the screen, once the one there passes it
        self._curtain_since = 0.0      # when the curtain dropped (a second Enter at once does not lift it)
        self.question: Question | None = None   # the question in the box over the window (quit? solve?)
        self.record_path: Path | None = None    # the current game's replay file
        self.config: dict = {}         # the current game's replay config (its rules' Game)
        self.hint_solver = BackgroundSolve      # how the hint's solve runs in the background (tests give another)
        self.solving = None            # the hint's solve in the background, while it runs
        self.audio = WindowAudio(app)  # a chance event's contact sounds (silent with no audio device)
        adapter.build(app)
        adapter.pieces_over_marks(app)
        app.freeze_labels()
        self.hud = Hud(app.base)
        app.frame(self.hud.free_film_rect())
        self._bind()
        app.before_draw(self._place_keys, "lit-keys")
        self.new_game()
        app.add_task(self._update, "game-update")
        app.add_task(self._solve_task, "hint-solve")

    def _solve_task(self, task):
        if self.solving is not None:
            self._poll_solve()
        return task.cont

    # -- game lifetime ---------------------------------------------------------------------
    @property
    def state(self):
        return self.match.state

    @property
    def seat_rng(self):
        return self.match.seeds.seats

    def new_game(self) -> None:
        self._end_match()
        self.audio.stop()
        self.seats = self.adapter.make_seats(self.seat_kinds)
        self.source = WatchedOutcomes(self.adapter.physics_source())
        seeds, resume = None, None
        if self.resume is not None:      # a recorded game played on: the rules, seeds and table where it left them
            from tabletop.gamekit.resume import take_up

            replay, from_turn = self.resume
            self.resume = None           # a new game after it is a new game
            up = take_up(replay, self.game, self.source, from_turn, self.seat_kinds)
            state, seeds, config, banner, resume = up.state, up.seeds, up.config, up.banner, up.resume
        else:
            state = self.adapter.new_state()
            config = self.game.replay_config(self.seat_kinds, "physics", self.options)   # as headless play's
            banner = [self.game.banner(self.seat_kinds, self.seed, "physics", self.options)]
        self.config = config
        recorder = self._start_recording(state, config, banner, resume)
        self.match = Match(state, self.seats, self.source, self.seed, banner=banner,
                           result_lines=self.game.result_lines, observers=[recorder], max_turns=self.game.max_turns,
                           seeds=seeds, undo=True)
        self.anim = None
        if not callable(self._values) or self._values_config != self.config:
            self._values = None          # (a solved game's values serve each game of the same rules)
        self.at_screen = self.humans[0] if len(self.humans) == 1 else None
        self.curtain = False
        self.handing_over = None
        self._close_question()
        self._clear_selection()
        self.hud.clear_log()
        self.hud.set_banner("")
        self.hud.set_notice("")
        self.adapter.place_pieces(self.app, self.state)
        for line in self.match.lines:
            self.hud.log(line)
        self._wait = self.pace
        self._refresh()

    def _start_recording(self, state, config: dict, banner: list[str], resume=None):
        """Record this game as headless play does (the same file format and contents)."""
        from tabletop.gamekit.record import GameRecorder

        self.games_started += 1
        self.record_path = None
        if self.record is None:
            return None
        path = Path(self.record)
        if self.games_started > 1:
            path = path.with_name(f"{path.stem}-{self.games_started}{path.suffix}")
        self.record_path = path
        return GameRecorder(path, self.game, config, self.seed, state, self.source, banner, resume=resume, undo=True)

    def _end_match(self) -> None:
        """Close the game being played: an unfinished one's replay ends saying so."""
        if self.match is not None:
            self.match.leave()
            self.match.close()

    def human(self, player: int) -> bool:
        return self.seat_kinds[player] == "human"

    def actor(self) -> int:
        """The player who acts now: the mover, or whose chance event is pending."""
        s = self.state
        return s.chance_player if s.is_chance_node() else s.current_player

    # -- the loop ----------------------------------------------------------------------------
    def _update(self, task):
        clock = ClockObject.get_global_clock()
        dt = min(clock.get_dt(), 0.1)
        self.frame_times.append(clock.get_frame_time())
        if self.anim is not None:
            self._advance(dt * self.speed)
            return task.cont
        if self._camera_back is not None:          # ease back to the view before the camera followed
            target, distance = self._camera_back
            self.app.camera.approach(target, distance, min(1.0, 5.0 * dt))
            if (self.app.camera.target - target).length() < 1e-3:
                self._camera_back = None
        s = self.state
        if s.is_terminal() or self.question is not None:      # (the game waits while a question is asked)
            return task.cont
        if s.is_chance_node():
            if not (self.human(self.actor()) and self.adapter.needs_gesture(s)):
                self._wait -= dt
                if self._wait <= 0:
                    self.chance()
        elif not self.human(s.current_player):
            self._wait -= dt
            if self._wait <= 0 or self.adapter.private_decision(s):
                self.act(self.match.choose())
        return task.cont

    def _advance(self, dt: float) -> None:
        a = self.anim
        a.t = min(a.duration, a.t + dt)
        a.show(a.t)
        if self.follow and a.follow is not None:
            point = a.follow(a.t)
            if point is not None:
                self.app.camera.approach(point, self.adapter.follow_distance, min(1.0, 4.0 * dt))
        if a.t >= a.duration:
            self.anim = None
            a.finish()

    def finish_animation(self) -> None:
        """Run the current animation to its end at once, the camera back where it was (tests,
        fast-forward)."""
        while self.anim is not None:
            self._advance(self.anim.duration)
        if self._camera_back is not None:
            self.app.camera.approach(*self._camera_back, 1.0)
            self._camera_back = None

    # -- actions ---------------------------------------------------------------------------
    def chance(self) -> None:
        """Answer the pending chance event by simulating it, then watch it."""
        s = self.state
        if not s.is_chance_node() or self.anim is not None:
            return
        event = s.chance_event
        self.hud.set_prompt("")
        label = self.match.draw()
        self.watch(s, event, self.source.motions[-1], lambda: self._apply(ChanceOutcome(label)))

    def watch(self, s, event: str, motion, done: Callable[[], None]) -> None:
        """Play back `motion`, the simulation of chance event `event` at state `s`, in real time
        (the camera following what the adapter says to follow); `done` once it has settled."""
        states = motion.states()
        hidden = self.adapter.hidden_during(s, event)
        for name, look in motion.looks.items():
            self.app.add_body(name, look)
            color = self.adapter.motion_color(s, event, name)
            if color is not None:
                self.app.recolor(name, color)
        for name in self.app.take_new_bodies():
            self.adapter.decorate_body(self.app, name)
        for name in hidden:
            self.app.show_body(name, False)
        follow_track = self.adapter.follow_track(s, event, motion)

        def show(t: float) -> None:
            i = motion.index_at(t)
            if i >= 0:
                self.app.set_poses(states[i])

        def follow(t: float):
            i = motion.index_at(t)
            pose = states[i].get(follow_track) if i >= 0 and follow_track else None
            return None if pose is None else pose[:3]

        def finish() -> None:
            show(motion.duration)
            self.adapter.after_motion(self.app, s, event, motion)
            for name in hidden:
                self.app.show_body(name, True)
            done()

        if follow_track and self.follow and self._camera_back is None:
            self._camera_back = (Vec3(self.app.camera.target), self.app.camera.distance)
        self.anim = Animation(max(motion.duration, 0.3), show, finish, follow=follow if follow_track else None,
                              extra={"contacts": motion.contacts})
        self.audio.play(motion.contacts, 0.0, self.speed)     # its sounds, from the same start

    def act(self, action) -> None:
        """Apply a seat's action, animating the pieces it moves."""
        if self.anim is not None:
            return
        self._clear_selection()
        self.hud.set_menu("", [])
        before = self.adapter.piece_positions(self.state)
        self._apply(action, place=False)
        after = self.adapter.piece_positions(self.state)
        moved = {p: (before[p], after[p]) for p in after if before.get(p) != after[p]}
        if not moved:
            self.adapter.place_pieces(self.app, self.state)
            return

        def show(t: float) -> None:
            u = min(1.0, t / HOP_SECONDS)
            for piece, (a, b) in moved.items():
                lift = HOP_HEIGHT * math.sin(math.pi * u)
                p = tuple(a[k] + (b[k] - a[k]) * u for k in range(3))
                self.adapter.put_piece(self.app, piece, (p[0], p[1], p[2] + lift))

        def finish() -> None:
            self.adapter.place_pieces(self.app, self.state)
            self._wait = self.pace
            self._refresh()

        self.anim = Animation(HOP_SECONDS, show, finish)

    def _apply(self, action, place: bool = True) -> None:
        self.hud.set_notice("")
        for line in self.match.apply(action):
            self.hud.log(line)
        if place:
            self.adapter.place_pieces(self.app, self.state)
        self._wait = self.pace
        self._refresh()

    def fast_forward(self, turns: int) -> None:
        """Play on with every seat as an AI (human seats included) until `turns` turns have
        been played or the game ends, with no waiting (screenshots, tests)."""
        ai = self.adapter.make_seats(["ai"] * len(self.seat_kinds))
        while not self.state.is_terminal() and self.state.turn < turns:
            s = self.state
            if s.is_chance_node():
                self.chance()
            else:
                self.act(self.match.choose(ai[s.current_player] if self.human(s.current_player) else None))
            self.finish_animation()

    # -- the display -----------------------------------------------------------------------
    def viewer(self) -> set[int]:
        """The seats whose hidden cards the screen may show now: in a game with hidden hands,
        with one human seat, that seat's; with two or more, the one at the screen while it is
        that seat's turn (none between, nor while a player who has finished a turn looks at it
        before passing the screen: a player who walks away shows no hand); with no human seat, or
        once the game is over, all."""
        every = set(range(len(self.seat_kinds)))
        if not self.adapter.hidden_hands or not self.humans or self.state.is_terminal():
            return every
        if len(self.humans) == 1:
            return {self.humans[0]}
        return {self.at_screen} if self.at_screen is not None and self._human_turn() == self.at_screen else set()

    def seat_at_screen(self) -> int | None:
        """The human seat whose player is at the screen, the one whose decisions Ctrl+Z may take
        back: the only human seat; with two or more in a game with hidden hands, the seat that
        lifted the curtain (until it passes the screen on; None behind the curtain); with two or
        more and nothing hidden, the human seat to act, or between its turns the one that acted
        last. None with no human seat."""
        return self.at_screen if self.humans else None

    def _human_turn(self) -> int | None:
        """The human seat that must act now (a move, or a throw by hand), or None."""
        s = self.state
        if s.is_terminal():
            return None
        if s.is_chance_node():
            return self.actor() if self.human(self.actor()) and self.adapter.needs_gesture(s) else None
        return s.current_player if self.human(s.current_player) else None

    def _pass_screen(self) -> None:
        """Two or more human seats at one screen. With hidden hands: when another human seat is to
        act, the player at the screen first sees their move land and what followed it, then passes
        the screen with Enter (`handing_over`); the screen is then covered until the next player says
        they are ready, so nobody sees a hand but its owner. With nothing hidden: the human seat to
        act is the one at the screen."""
        human = self._human_turn()
        if len(self.humans) < 2 or self.state.is_terminal():
            self.handing_over = None
            if self.curtain:
                self.curtain = False
                self.hud.set_curtain("", "", None)
            return
        if not self.adapter.hidden_hands:
            if human is not None:
                self.at_screen = human
            return
        self.handing_over = None
        if self.curtain:
            if human is not None:      # (whose turn it is may have changed behind it: say whom it waits for)
                self._curtain_text(human)
            return
        self.hud.set_curtain("", "", None)
        if human is None or human == self.at_screen:
            return
        if self.at_screen is None:     # nobody to hand over from (the game's first human turn)
            self._drop(human)
        else:
            self.handing_over = human

    def _curtain_text(self, human: int) -> None:
        name = self.adapter.seat_name(human)
        self.hud.set_curtain(f"Pass the screen to {name}",
                             f"{name}: press Enter (or click Ready) when you are at the screen, to see your hand",
                             self.lift_curtain)

    def drop_curtain(self) -> None:
        """The player at the screen passes it on (Enter after their turn): the screen is covered
        until the next human seat's player is ready."""
        human = self._human_turn()
        if human is not None and not self.curtain:
            self._drop(human)
            self._refresh()

    def _drop(self, human: int) -> None:
        self.handing_over = None
        self.at_screen = None
        self.curtain = True
        self._curtain_since = _now()
        self._clear_selection()
        self.hud.set_notice("")
        self._curtain_text(human)

    def lift_curtain(self) -> None:
        """The human seat to act is at the screen: show its hand. (Not within `curtain_hold` seconds
        of the curtain dropping: a double press of Enter passes the screen, never shows the next hand
        to the player who passed it.)"""
        if self.curtain and _now() - self._curtain_since >= self.curtain_hold:
            self.curtain = False
            self.at_screen = self._human_turn()
            self.hud.set_curtain("", "", None)
            self.hud.set_notice("")
            self._refresh()

    def _refresh(self) -> None:
        s = self.state
        a = self.adapter
        self._pass_screen()
        viewer = self.viewer()
        self.hud.set_reader(lambda line: seen_by(line, viewer))
        self.hud.set_players(a.players(s, self.seat_kinds, viewer))
        human_chance = s.is_chance_node() and self.human(self.actor()) and a.needs_gesture(s)
        human_move = not s.is_terminal() and not s.is_chance_node() and self.human(s.current_player)
        covered = self.curtain or self.handing_over is not None
        if covered:                  # nothing to choose until the player to act is at the screen
            human_chance = human_move = False
        self.hud.enable("chance", human_chance)
        passing = human_move and s.legal_actions() == [Pass()]
        self.hud.enable("pass", passing or self.handing_over is not None)
        self.hud.relabel("pass", "Pass the screen  [Enter]" if self.handing_over is not None else "Pass  [Enter]")
        seat = self.seat_at_screen()
        self.hud.enable("undo", seat is not None and not self.curtain and self.match.can_undo({seat}))
        self.hud.enable("redo", self._redoable() is not None)
        self.menu = a.menu(s) if human_move else []
        hint = self._hint(s) if self.hint and human_move else None
        self.hud.set_status(self._status_text(hint))
        mark = (lambda actions, text: text + hint.mark(actions)) if hint is not None else (lambda actions, text: text)
        self.choices = [(mark([action], a.action_text(s, action)), lambda act=action: self.act(act))
                        for action in self.menu]
        for piece, text, group in a.piece_choices(s) if human_move else []:
            run = (lambda act=group[0].action: self.act(act)) if len(group) == 1 else \
                (lambda p=piece, g=group: self.select(p, g))
            self.choices.append((mark([d.action for d in group], text), run))
        if hint is not None:
            best = next((piece for piece, _, group in a.piece_choices(s)
                         if any(d.action == hint.best for d in group)), None)
            if best is not None and self.selected is None:
                a.highlight(self.app, best)
        self.hud.set_menu(a.menu_title(s) if self.choices else "", self.choices)
        self.hud.set_banner(a.result(s) if s.is_terminal() else
                            f"Pass the screen to {a.seat_name(self.handing_over)}: press Enter"
                            if self.handing_over is not None else "")
        if s.is_terminal():
            self.hud.set_prompt("press N for a new game")
        elif self.curtain:
            self.hud.set_prompt(f"pass the screen to {a.seat_name(self._human_turn())}: Enter when ready")
        elif self.handing_over is not None:
            back = " (Ctrl+Z takes it back)" if seat is not None and self.match.can_undo({seat}) else ""
            self.hud.set_prompt(f"{a.seat_name(seat)}: your turn is over{back}; press Enter to pass the screen "
                                f"to {a.seat_name(self.handing_over)}")
        elif human_chance:
            self.hud.set_prompt(a.chance_prompt(s))
        elif passing:
            self.hud.set_prompt("no legal move: press Enter to pass")
        elif human_move:
            keys = f" (or press {key_range(len(self.choices))})" if self.choices else ""
            self.hud.set_prompt(a.move_prompt(s) + keys)
        else:
            self.hud.set_prompt("")

    def _status_text(self, hint=None) -> str:
        """The status panel: the game's status, the hint's bar, the hint's solve while it runs."""
        text = self.adapter.status(self.state)
        if hint is not None:
            text += "\n" + hint.bar
        if self.solving is not None:
            text += "\n" + self.solving.line()
        return text

    def _clear_selection(self) -> None:
        self.selected = None
        self.destinations = []
        for tag, node in self._markers:
            self.app.drop_pickable(tag)
            node.remove_node()
        self._markers = []
        for _, label, _ in self._keys:
            label.destroy()
        self._keys = []
        self.adapter.highlight(self.app, None)

    def waiting(self) -> str:
        """Why the human cannot act now ("" when a human seat is to move)."""
        s = self.state
        if self.anim is not None:
            return "wait until the pieces stop moving"
        if s.is_terminal():
            return "the game is over: press N for a new game"
        if self.curtain:
            return f"pass the screen to {self.adapter.seat_name(self._human_turn())}: press Enter when ready"
        if self.handing_over is not None:
            return f"press Enter to pass the screen to {self.adapter.seat_name(self.handing_over)}"
        if s.is_chance_node():
            if self.human(self.actor()) and self.adapter.needs_gesture(s):
                return self.adapter.chance_prompt(s)
            return f"wait: {self.adapter.status(s)}"
        if not self.human(s.current_player):
            return f"wait for the AI: {self.adapter.status(s)}"
        return ""

    def select(self, piece, options: list[Destination] | None = None) -> bool:
        """Select one of the current human player's pieces and light up where it can go (all
        its destinations, or `options`); say why not when it cannot move."""
        waiting = self.waiting()
        s = self.state
        if waiting:
            throw = (self.anim is None and not self.curtain and s.is_chance_node() and self.human(self.actor())
                     and self.adapter.needs_gesture(s))    # the human's own throw is due: whose piece, and why
            self.hud.set_notice(self.adapter.why_not(s, piece) if throw else waiting)
            return False
        options = self.adapter.destinations(s, piece) if options is None else options
        if not options:
            self.hud.set_notice(self.adapter.why_not(s, piece))
            return False
        self._clear_selection()
        self.selected = piece
        self.destinations = options
        self.adapter.highlight(self.app, piece)
        n = len(options)
        keyed = n <= 10                       # the number keys reach them all
        for i, d in enumerate(options):
            tag = f"dest:{i}"
            key = str((i + 1) % 10) if keyed else ""
            occupied = self.adapter.occupied(s, d, piece)
            node = self.adapter.marker(self.app, d, key, occupied=occupied)
            reach = self.adapter.marker_reach(occupied)
            self.app.make_pickable(tag, node, reach)
            self._markers.append((tag, node))
            if key:     # (where a piece stands, the key goes below its ring, off the piece)
                self._keys.append((node, self.hud.key_label(key), reach if occupied else 0.0))
        self._place_keys()
        name = self.adapter.piece_name(piece)
        if keyed:
            how = "click the lit space or press 1" if n == 1 else \
                f"click a lit space or press its number ({key_range(n)})"
            self.hud.set_menu(f"{name} goes to:", [(self.adapter.destination_text(s, d),
                                                    lambda act=d.action: self.act(act)) for d in options])
        else:
            how = f"click one of the {n} lit spaces"
            self.hud.set_menu(f"{name}: {n} lit spaces, click one on the board", [])
        self.hud.set_prompt(f"{name}: {how}; click elsewhere to cancel")
        self.hud.set_notice("")
        return True

    def _place_keys(self) -> None:
        """Each lit space's number key over it on the screen, wherever the camera has gone; the lit
        spaces pulse from yellow to white and back (once a second), so they stand out from a board's
        own yellows."""
        glow = 0.5 + 0.5 * math.sin(2 * math.pi * ClockObject.get_global_clock().get_frame_time())
        for _, node in self._markers:
            node.set_color_scale(1.0, 1.0 + 0.16 * glow, 1.0 + 7.0 * glow, 1.0)
        up = self.app.base.camera.get_quat(self.app.render).get_up()
        for node, label, below in self._keys:
            centre = node.get_pos(self.app.render)
            film = self.app.project(centre)
            if film is not None and below:
                under = self.app.project(centre - up * below)
                film = None if under is None else (film[0], under[1] - 0.03)
            if film is None:
                label.hide()
            else:
                label.show()
                label.setPos(film[0] * self.hud.ar, film[1] - 0.016)

    def deselect(self) -> None:
        """Drop the selection; the prompt goes back to what the state asks."""
        if self.selected is not None:
            self._clear_selection()
            self._refresh()

    def choose(self, index: int) -> None:
        """Number key n: the n-th lit destination of the selected piece, else the n-th choice."""
        waiting = self.waiting()
        if waiting:
            self.hud.set_notice(waiting)
        elif len(self.destinations) > 10:
            self.hud.set_notice(f"{len(self.destinations)} lit spaces, more than the number keys: click one")
        elif self.destinations:
            if 0 <= index < len(self.destinations):
                self.act(self.destinations[index].action)
            else:
                self.hud.set_notice(f"no lit space {(index + 1) % 10}: press {key_range(len(self.destinations))}, "
                                    f"or click elsewhere to cancel")
        elif 0 <= index < len(self.choices):
            self.choices[index][1]()
        elif self.choices:
            n = len(self.choices)
            self.hud.set_notice(f"no choice {(index + 1) % 10}: "
                                + ("the only choice is 1" if n == 1 else f"the choices are {key_range(n)}"))
        else:
            self.hud.set_notice(f"nothing to choose: {self.hud.prompt.getText() or 'no move now'}")

    def click(self, x: float, y: float) -> str | None:
        """A left click at film coordinates (x, y): select a piece or move to a destination (with a
        question on the screen: no to it)."""
        if self.question is not None:
            self.answer("mouse1")
            return None
        tag = self.app.pick(x, y, prefer="dest:" if self.destinations else "")
        if tag is None:
            if self.selected is not None:
                self.deselect()
                self.hud.set_notice("selection cancelled")
            else:
                self.hud.set_notice("no piece there: click one of your pieces (drag to turn the camera)")
        elif tag.startswith("dest:"):
            waiting = self.waiting()
            if waiting:
                self.hud.set_notice(waiting)
            else:
                self.act(self.destinations[int(tag[5:])].action)
        elif tag.startswith("piece:"):
            if not self.select(self.adapter.piece_id(tag[6:])):
                self.deselect()
        return tag

    # -- input -----------------------------------------------------------------------------
    def _bind(self) -> None:
        b = self.app.base
        self.controls = ViewControls(self.app, self.hud, self.click)
        self.controls.orbit_keys()
        keys = {"f1": self._help, "escape": self.quit_key, "q": self.quit_key, "n": self.new_game_key,
                "space": self.chance_key, "enter": self.pass_key, "f": self._toggle_follow,
                ".": lambda: self._speed(2.0), ",": lambda: self._speed(0.5), "h": self.toggle_hint,
                "y": lambda: None, "control-z": self.undo, "control-y": self.redo,
                "control-shift-z": self.redo, "m": self._mute, "v": lambda: self._volume(-VOLUME_STEP),
                "b": lambda: self._volume(VOLUME_STEP)}
        for i in range(1, 11):              # 1-9, and 0 for the tenth (a J offers ten)
            keys[str(i % 10)] = (lambda n=i - 1: self.choose(n))
        self._keys_bound = set(keys)
        for key, fn in keys.items():
            b.accept(key, self.key, [key, fn])
        thrower = b.buttonThrowers[0].node() if getattr(b, "buttonThrowers", None) else None
        if thrower is not None:             # every other key too, to answer a question with
            if not thrower.get_button_down_event():
                thrower.set_button_down_event("tabletop-button")
            b.accept(thrower.get_button_down_event(), self._any_button)
        self.hud.button("undo", "Undo [Ctrl+Z]", self.undo, 4, half=0)
        self.hud.button("redo", "Redo [Ctrl+Y]", self.redo, 4, half=1)
        self.hud.button("chance", self.adapter.chance_button, self.chance_key, 3)
        self.hud.button("pass", "Pass  [Enter]", self.pass_key, 2)
        self.hud.button("new", "New game  [N]", self.new_game_key, 1)
        self.hud.button("help", "Help  [F1]", self._help, 0)

    def key(self, name: str, fn: Callable[[], None]) -> None:
        """A key the window binds: it answers the question on the screen if there is one, else does
        what it does."""
        if self.question is not None:
            self.answer(name)
        else:
            fn()

    def _any_button(self, name: str) -> None:
        """Any key or button pressed (the window's keyboard): a key the window does not bind answers
        the question on the screen (no: stay), as a bound one does (through `key`, so no key answers
        twice); modifier keys alone, the mouse and the wheel do not."""
        if self.question is None or name in self._keys_bound:
            return
        bare = name.rpartition("-")[2] or name
        if bare in MODIFIERS or bare.startswith(("mouse", "wheel")) or name.endswith("-up"):
            return
        self.answer(bare)

    # -- questions ---------------------------------------------------------------------------------
    def ask(self, title: str, text: str, on_yes: Callable[[], None], yes_keys=("y",), yes_label: str = "Yes  [Y]",
            no_label: str = "No  [Esc]", on_no: Callable[[], None] | None = None) -> None:
        """A question in a box over the window: a key of `yes_keys` (or its button) runs `on_yes`;
        any other key, a click elsewhere or its No button takes the box away (and runs `on_no`).
        The game waits while it is asked."""
        self.question = Question(tuple(yes_keys), on_yes, on_no)
        self.hud.set_question(title, text, (yes_label, lambda: self.answer(yes_keys[0])),
                              (no_label, lambda: self.answer("escape")))

    def answer(self, key: str) -> None:
        """The question on the screen answered by `key` (one of its yes keys: yes; any other: no)."""
        q = self.question
        if q is None:
            return
        self._close_question()
        run = q.on_yes if key in q.yes_keys else q.on_no
        if run is not None:
            run()

    def _close_question(self) -> None:
        self.question = None
        self.hud.set_question("")

    def quit_question(self) -> str | None:
        """What Q (or Esc) asks before it quits: None quits at once (no game, or the game over).
        A window that plays elsewhere (online) says here what becomes of its seat."""
        if self.match is None or self.state.is_terminal():
            return None
        if self.record_path is not None:
            kept = (f"What was played is recorded in {self.record_path.name};\n"
                    f"tabletop play {self.game.name} --continue plays it on.")
        else:
            kept = "It is not recorded: it cannot be played on later."
        solving = " The solve for the hint stops (it starts afresh next time)." if self.solving is not None else ""
        return f"This game is not over.\n{kept}{solving}"

    def new_game_key(self) -> None:
        """N (or its button): a new game, after asking first while one is in progress (N again or Y
        starts it; any other key stays)."""
        if self.match is None or self.state.is_terminal() or not self.state.history:
            self.new_game()
            return
        if self.record_path is not None:
            kept = (f"What was played is recorded in {self.record_path.name};\n"
                    f"tabletop play {self.game.name} --continue plays it on.")
        else:
            kept = "It is not recorded: it cannot be played on later."
        self.ask("Start a new game?", f"This game is not over.\n{kept}", self.new_game, yes_keys=("n", "y"),
                 yes_label="New game  [N or Y]", no_label="Stay  [Esc]",
                 on_no=lambda: self.hud.set_notice("you stay: the game goes on"))

    def quit_key(self) -> None:
        """Q or Esc: quit, after asking first while a game is in progress (Q again or Y quits; any
        other key stays)."""
        question = self.quit_question()
        if question is None:
            self.quit()
            return
        self.ask("Quit the game?", question, self.quit, yes_keys=("q", "y"), yes_label="Quit  [Q or Y]",
                 no_label="Stay  [Esc]", on_no=lambda: self.hud.set_notice("you stay: the game goes on"))

    # -- the hint -------------------------------------------------------------------------------
    def toggle_hint(self) -> None:
        """H: show (or hide) the human's win probability and the best move, where the game is
        solved (exact values: no estimate, no search that could see a hidden card). Where the
        solve takes minutes and is not made yet, H offers to make it in the background."""
        self.hint = not self.hint
        if self.hint and self.adapter.hidden_hands:
            self.hint = False
            self.hud.set_notice("no hint in a game of hidden cards: a hint would have to see them")
            return
        if self.hint and self._solved_values() is None and self._values == NEEDS_SOLVE:
            self.hint = False
            self.hud.set_notice("")
            self._offer_solve()
            return
        if self.hint and self.solving is not None:
            self.hud.set_notice("hint on: it shows once the solve in the background is done")
        else:
            self.hud.set_notice(f"hint {'on' if self.hint else 'off'}" + (": your win probability, each "
                                "choice's, and the best move lit" if self.hint else ""))
        self._refresh()

    def _hint(self, s):
        """The hint for the human to decide at `s` (None, with a notice saying why, where there is none)."""
        values = self._solved_values()
        if values is None:
            return None
        mover = s.current_player
        legal = s.legal_actions()
        after = []
        for action in legal:
            nxt = s.clone()
            nxt.apply(action)
            after.append(values(nxt)[mover])
        return Hint(self.adapter, mover, values(s), legal, after)

    def _tables(self) -> dict:
        from tabletop.gamekit.chance import measured_tables

        return measured_tables(self.game.devices)

    def _solved_values(self):
        """The solved game's values for the measured tables (what the simulated gadgets give), or
        None with the reason in the notice: a game not solved; a solve that takes minutes, not made
        yet (`_values` is then NEEDS_SOLVE: H offers to make it in the background); the solve
        running in the background."""
        if self.solving is not None:
            return None
        if self._values is None or self._values == NEEDS_SOLVE:
            class Minutes(Exception):
                pass

            def refuse(text: str):
                raise Minutes(text)

            try:
                found = self.game.solved_values(self.state.game, self._tables(), refuse)
            except Minutes:
                found = NEEDS_SOLVE
            if found is None:
                found = f"no hint here: {self.game.title} with these seats and rules is not solved"
            self._values, self._values_config = found, self.config
        if self._values == NEEDS_SOLVE:
            self.hud.set_notice(f"the hint needs {self.game.title} solved once (minutes): press H to solve it "
                                f"in the background")
            return None
        if isinstance(self._values, str):
            self.hud.set_notice(self._values)
            return None
        return self._values

    def _offer_solve(self) -> None:
        self.ask("Solve the game for the hint?",
                 f"The hint needs {self.game.title} solved for the measured tables: about 4 minutes on 2 cores "
                 f"(longer on a busy machine) and 2 GB of memory, once (it is kept for every later game). It runs in the background: "
                 f"play on meanwhile; its progress shows in the status panel, and the hint comes on when it is "
                 f"done.", self.start_solve, yes_keys=("y", "enter", "h"), yes_label="Solve  [Y or Enter]",
                 no_label="Not now  [Esc]", on_no=lambda: self.hud.set_notice("no hint: the game is not solved"))

    def start_solve(self) -> None:
        """Solve the game for the hint in the background (`hint_solver`: another process); the hint
        comes on when it is done."""
        if self.solving is not None:
            return
        self.solving = self.hint_solver(self.game, self.config, self._tables())
        self.hint = True
        self.hud.set_notice("solving in the background: play on; the hint comes on when it is done")
        self._refresh()

    def _poll_solve(self) -> None:
        """The background solve's news: its progress in the status panel; once done, the hint on."""
        job = self.solving
        news = job.poll()
        if news is None:
            self.hud.set_status(self._status_text())
            return
        self.solving = None
        kind, value = news
        if kind == "done":
            self._values, self._values_config = value, job.config
            self.hud.set_notice(f"{self.game.title} solved ({job.elapsed()}): the hint is on (H hides it)")
        else:
            self._values, self.hint = None, False
            self.hud.set_notice(f"the solve failed: {value}")
        self._refresh()

    # -- taking back ----------------------------------------------------------------------------
    def undo(self) -> None:
        """Ctrl+Z: take back the latest decision of the human seat at the screen since the last
        chance event, and the AI seats' decisions after it (never a throw, a tilt or a spin: what
        chance gave stands; never another human's decision: at one screen each player takes back
        only their own)."""
        if self.anim is not None:
            self.hud.set_notice("wait until the pieces stop moving")
            return
        if self.curtain:
            self.hud.set_notice(self.waiting())
            return
        seat = self.seat_at_screen()
        action = self.match.undo({seat}) if seat is not None else None
        if action is None:
            self.hud.set_notice(f"nothing to take back: {self._why_no_undo(seat)}")
            return
        self._after_taking_back()
        self.hud.set_notice(f"taken back: {self.adapter.action_text(self.state, action)} (Ctrl+Y plays it again)")

    def _why_no_undo(self, seat: int | None) -> str:
        if self.state.is_terminal():
            return "the game is over"
        if not self.humans:
            return "no human seat: nothing of yours to take back"
        if seat is None:
            return "nobody is at the screen yet"
        mine = self.match.can_undo(set(self.humans))      # a human decision, but another's since
        name = self.adapter.seat_name(seat)
        if len(self.humans) > 1 and mine:
            return f"{name} may take back only {name}'s own decisions, and another player has decided since"
        return f"no decision of {name}'s since the last chance event: what chance gave stands" \
            if len(self.humans) > 1 else "no decision of yours since the last chance event: what chance gave stands"

    def _redoable(self):
        """The decision Ctrl+Y would play again now (None: none): the one the player at the screen
        took back last, while the game stands where it was taken back."""
        action = self.match.redo_action()
        s = self.state
        if action is None or self.anim is not None or self.curtain or self.handing_over is not None or \
                s.is_terminal() or s.is_chance_node() or not self.human(s.current_player) or \
                s.current_player != self.seat_at_screen():
            return None
        return action if action in s.legal_actions() else None

    def redo(self) -> None:
        """Ctrl+Y: play the decision taken back again (until a new decision is made)."""
        if self.anim is not None or self.curtain:
            self.hud.set_notice(self.waiting() or "wait until the pieces stop moving")
            return
        action = self._redoable()
        if action is None:
            self.hud.set_notice("nothing to play again: no decision taken back since the last one made")
            return
        text = self.adapter.action_text(self.state, action)
        self.act(action)
        self.hud.set_notice(f"played again: {text}")

    def _after_taking_back(self) -> None:
        """The table, the log and the choices as the position taken back to has them."""
        self.anim = None
        self._clear_selection()
        self.hud.clear_log()
        for line in self.match.lines:
            self.hud.log(line)
        self.adapter.place_pieces(self.app, self.state)
        self._wait = self.pace
        self._refresh()

    def chance_key(self) -> None:
        s = self.state
        if s.is_chance_node() and self.human(self.actor()) and self.adapter.needs_gesture(s) and self.anim is None:
            self.chance()
        else:
            self.hud.set_notice(self.waiting() or f"nothing to throw now: {self.hud.prompt.getText()}")

    def pass_key(self) -> None:
        """Enter: pass the screen to the next player (after a turn), say ready behind the curtain,
        or pass a turn with no legal move."""
        s = self.state
        if self.curtain:
            self.lift_curtain()
        elif self.handing_over is not None:
            self.drop_curtain()
        elif (not s.is_terminal() and not s.is_chance_node() and self.human(s.current_player)
                and s.legal_actions() == [Pass()]):
            self.act(Pass())
        else:
            self.hud.set_notice(self.waiting() or "no pass: a legal move exists")

    def _toggle_follow(self) -> None:
        self.follow = not self.follow
        self.hud.set_notice(f"camera follows the action: {'on' if self.follow else 'off'}")

    def _speed(self, factor: float) -> None:
        self.speed = min(8.0, max(0.25, self.speed * factor))
        self.hud.set_notice(f"animation speed {self.speed:g}x")
        if self.anim is not None and "contacts" in self.anim.extra:   # the motion's sounds go on at the new speed
            self.audio.play(self.anim.extra["contacts"], self.anim.t, self.speed)

    def _mute(self) -> None:
        self.hud.set_notice(self.audio.toggle_mute())

    def _volume(self, delta: int) -> None:
        self.hud.set_notice(self.audio.change_volume(delta))

    def _help(self) -> None:
        self.hud.toggle_help("\n".join(HELP + self.adapter.help_lines))

    def close(self) -> None:
        """Close the recording (a game left unfinished ends with a line saying so); a solve in the
        background stops."""
        if self.solving is not None:
            self.solving.cancel()
            self.solving = None
        self._end_match()
        self.audio.close()

    def quit(self) -> None:
        self.close()
        if self.source is not None:
            self.source.close()
        self.app.destroy()
        sys.exit(0)


HELP = [
    "Controls",
    "  left click  select your piece, then click a lit space (elsewhere: cancel)",
    "  1-9, 0  the n-th numbered choice, or the n-th lit space of the selected piece (0: the tenth)",
    "  Space  the chance action (tilt, throw, roll, spin) when it is yours",
    "  Enter  pass when you have no legal move; at one screen, pass the screen on after your turn, and say "
    "you are ready when it comes to you",
    "  Ctrl+Z  take back your last decision (back to the last chance event, never past it; at one screen, "
    "only your own)",
    "  Ctrl+Y  play it again",
    "  H  the hint on / off: your win probability, each choice's, the best move lit (solved games; "
    "where the solve takes minutes, H offers to make it in the background)",
    "  left/right drag  orbit the camera",
    "  middle drag, wheel  pan, zoom",
    "  arrow keys  orbit",
    "  W A S D  pan",
    "  + / -  zoom",
    "  C or Home  reset the view",
    "  F  the camera follows the action on / off",
    "  , and .  animation speed down / up (0.25x-8x)",
    "  M  sound off / on (a throw sounds as its pieces hit, slide and roll)",
    "  V and B  volume down / up",
    "  [ ] or PgUp PgDn  scroll the log",
    "  N  new game (asks first while a game is in progress)",
    "  F1  this help",
    "  Esc or Q  quit (a game in progress asks first: Q again or Y quits, any other key stays)",
]


NEEDS_SOLVE = "needs a solve"     # _values of a game whose solve takes minutes and is not made yet
MODIFIERS = {"shift", "control", "alt", "meta", "lshift", "rshift", "lcontrol", "rcontrol", "lalt", "ralt", "lmeta",
             "rmeta", "caps_lock", "num_lock", "scroll_lock"}


def _now() -> float:
    return time.monotonic()


@dataclass
class Question:
    """A question on the screen: the keys that answer yes, what yes does, what no does."""

    yes_keys: tuple
    on_yes: Callable[[], None]
    on_no: Callable[[], None] | None = None


class Hint:
    """The human's win probability at a decision and each move's (exact: the solved game's), and the best move."""

    def __init__(self, adapter, mover: int, now: list[float], legal: list, after: list[float]):
        self.mover, self.now = mover, now
        self.values = dict(zip(map(_key, legal), after))
        self.best = legal[max(range(len(legal)), key=lambda i: after[i])]
        self.best_value = max(after)
        n = 20
        filled = round(now[mover] * n)
        self.bar = (f"hint: {adapter.seat_name(mover)} wins {100 * now[mover]:.1f}% with the best move  "
                    f"[{'#' * filled}{'.' * (n - filled)}]")

    def mark(self, actions: list) -> str:
        """What a choice of `actions` (a piece's moves) is worth: its best one's win probability,
        and whether it is the best move."""
        value = max(self.values.get(_key(a), 0.0) for a in actions)
        star = "  <- best" if any(_key(a) == _key(self.best) for a in actions) else ""
        return f"  ({100 * value:.1f}%){star}"


def _key(action) -> str:
    return repr(action)


def key_range(n: int) -> str:
    """The number keys that choose among n (1 to 10) things: "1", "1-4", "1-9, 0"."""
    return "1" if n == 1 else f"1-{n}" if n < 10 else "1-9, 0"
