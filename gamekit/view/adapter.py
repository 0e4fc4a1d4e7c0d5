"""What the window's game loop asks of a game, with the parts every game shares.

A game's adapter holds its rules Game and its table; it draws the table's bodies from their
looks, says where each piece stands for a rules state, which destinations a piece has, and what
the HUD shows. Subclasses: games/<game>/view.py.

Made for live play (`scene` None) the table is the physical one, and the bodies are drawn from its
Worlds; made for a replay's playback it is the game's layout (geometry from the data files alone)
and the bodies are drawn from the replay's recorded scene (tabletop.sim.scene.RecordedScene): no
World, no PyBullet.
"""
from __future__ import annotations

import abc
import os

from tabletop.gamekit.errors import IllegalMoveError
from tabletop.gamekit.view.places import Destination, Label
from tabletop.sim.scene import look, poses

MARKER_RGB = (1.0, 0.86, 0.1)      # a lit destination: bright yellow ...
MARKER_RIM = (0.12, 0.06, 0.0)     # ... in a dark rim, seen on light and dark spaces alike
HALO_RGB = (0.2, 1.0, 1.0)         # the halo round the selected piece
OCCUPIED_FILL = 1.45               # a lit place under a piece: a ring out to this many marker radii ...
OCCUPIED_REACH = 1.65              # ... in a dark rim out to this many


class TableAdapter(abc.ABC):
    """Everything the window's loop asks of a game (gamekit/view/controller.py, playback.py and the
    online window tabletop/net/window.py). A game supplies the abstract methods and sets, in its
    __init__, `game` (its rules' Game), `table` (the physical table, tabletop.gamekit.chance.PhysicsTable,
    in live play; its layout in playback), `source_class` (its PhysicsSource class, live play only),
    `worlds` and `piece_bodies`; everything else has a default."""

    game = None                    # the rules' Game the window plays
    table = None                   # live play: its PhysicsTable; playback: its layout (no PyBullet)
    source_class = None            # live play: the PhysicsSource class that throws on `table`
    title = ""
    chance_button = ""
    marker_radius = 0.012
    marker_drop = 0.0              # from a piece's centre down to where it stands
    hidden_hands = False           # whether seats hold what the others may not see (cards)
    after_chance = "can move once that is done"   # a piece clicked while its player's throw is due
    _halo = None
    follow_distance = 0.4
    help_lines: list[str] = []
    seat_kinds: dict = {}          # seat kind -> AI class
    piece_bodies: list[str] = []   # body name of each piece, by piece index
    scene = None                   # a replay's RecordedScene (playback), or None (live play)
    worlds: tuple = ()             # what the bodies are drawn from: the table's Worlds, or (scene,)
    drawn_by_art: tuple = ()       # bodies not drawn from their looks: an art mesh stands for each (a painted skin)

    # -- what a game supplies ----------------------------------------------------------------
    @abc.abstractmethod
    def build(self, app) -> None:
        """Draw the table in `app` (tabletop.sim.view.app.TableApp): its bodies (`add_world_bodies`),
        the board's art and the pickable pieces (`pickable_pieces`); the camera's first view."""

    @abc.abstractmethod
    def piece_positions(self, state) -> dict[int, tuple]:
        """Where each piece stands in `state`: piece index -> (x, y, z) of its centre."""

    @abc.abstractmethod
    def destinations(self, state, piece: int) -> list[Destination]:
        """The lit places `piece` can go now, each with the action that takes it there (none: it
        cannot move)."""

    @abc.abstractmethod
    def status(self, state) -> str:
        """The status line: whose turn, the last throw, the score."""

    @abc.abstractmethod
    def players(self, state, kinds, viewer=()) -> str:
        """The players' panel: each seat's kind and progress; the hidden cards (where the game has
        any) only of the seats in `viewer`, those whose eyes are on the screen."""

    # -- what a game may say (defaults) --------------------------------------------------------
    def needs_gesture(self, state) -> bool:
        """Whether the pending chance event waits for its seat's gesture (Space, or a drag); by
        default every chance event does. A game whose events follow from a move (a knock-over) says no."""
        return state.is_chance_node()

    def chance_prompt(self, state) -> str:
        """The prompt while the seat's gesture is due: "red: press Space to throw"."""
        return f"{self.seat_name(state.chance_player)}: press Space to {self.chance_button or 'throw'}"

    def move_prompt(self, state) -> str:
        """The prompt at the seat's decision."""
        return f"{self.seat_name(state.current)}: click one of your pieces, then a lit space"

    def result(self, state) -> str:
        """The banner of a finished game: who won."""
        winner = getattr(state, "winner", None)
        return "the game is over" if winner is None else f"{self.seat_name(winner)} wins!"

    # -- set-up ----------------------------------------------------------------------------
    def new_state(self):
        return self.game.new_initial_state()

    def make_seats(self, kinds):
        return [None if k == "human" else self.seat_kinds[k]() for k in kinds]

    def physics_source(self):
        """The game's physics outcome source, simulating on this adapter's table."""
        source = self.source_class()
        source.table = self.table
        return source

    def close(self) -> None:
        if self.scene is None:
            self.table.close()

    def world_of(self, name: str):
        """The one of `worlds` that holds the body `name`."""
        return next(w for w in self.worlds if name in w.bodies)

    def add_world_bodies(self, app, colors: dict, skip=()) -> None:
        """Draw every body of `worlds` at its current (or recorded) pose."""
        for world in self.worlds:
            for name in list(world.bodies):
                if name not in skip:
                    app.add_body(name, look(world, name), color=colors.get(name))
                    app.set_poses(poses(world, name))

    def pickable_pieces(self, app, radius: float, center=(0.0, 0.0, 0.0)) -> None:
        for i, name in enumerate(self.piece_bodies):
            app.make_pickable(f"piece:{i}", app.nodes[name], radius, center)

    # -- pieces ----------------------------------------------------------------------------
    def piece_id(self, text: str) -> int:
        return int(text)

    def piece_name(self, piece: int) -> str:
        """What the rules call a piece (the rules' Game's `piece_name`)."""
        return self.game.piece_name(piece)

    def owner(self, piece: int) -> int | None:
        """The seat a piece belongs to (None: the game does not say)."""
        return None

    def seat_name(self, player: int) -> str:
        """What the window calls a seat (its colour, where the game has colours)."""
        return f"player {player + 1}"

    def private_decision(self, state) -> bool:
        """Whether the decision now exists only because of what its seat hides (a card that lets
        it fly or attack): an AI seat then takes it at once, so no pause tells the others."""
        return False

    def action_text(self, state, action) -> str:
        """A decision's action in words, for the numbered choices."""
        return str(action)

    def destination_text(self, state, dest: Destination) -> str:
        """Where a lit destination takes the selected piece, in words, for the numbered list."""
        return dest.text or self.action_text(state, dest.action)

    def piece_actions(self, state, piece: int) -> list:
        """Actions that would move `piece` now, legal or not, for the rules to say why not (a
        game's adapter fills this in; none: the window says so in general terms)."""
        return []

    def why_not(self, state, piece: int) -> str:
        """Why a clicked piece does not move: another player's piece says whose it is and whom you
        play; before the player's throw, what to do first; the player's own piece without a move:
        the rules' own reason where `piece_actions` names a move, else which pieces or choices can be
        played instead."""
        name = self.piece_name(piece)
        if not state.is_terminal():
            owner = self.owner(piece)
            me = state.chance_player if state.is_chance_node() else state.current
            theirs = owner is not None and owner != me
            whose = f"belongs to {self.seat_name(owner)}; you play {self.seat_name(me)}" if theirs else ""
            if state.is_chance_node():
                if not self.needs_gesture(state):
                    return f"wait: {self.status(state)}"
                first = self.chance_prompt(state).split(": ", 1)[-1]          # without its "red: "
                return f"{name} {whose if theirs else self.after_chance}: {first}"
            if theirs:
                return f"{name} cannot move: it {whose}"
        for action in self.piece_actions(state, piece):
            try:
                state.clone().apply(action)
            except IllegalMoveError as exc:       # the rules' sentence, the piece named once
                return str(exc) if str(exc).startswith(f"{name} ") else f"{name} cannot move: {exc}"
        movers = [self.piece_name(p) for p in range(len(self.piece_bodies)) if self.destinations(state, p)]
        if movers:
            return f"{name} has no legal move now; {', '.join(movers)} can move"
        if self.menu(state):
            return f"{name} cannot move now: pick one of the numbered choices"
        return f"{name} has no legal move now"

    def piece_choices(self, state) -> list[tuple[int, str, list[Destination]]]:
        """(piece, text, destinations) for each piece that can move now and each kind of move it
        has (a pawn that can fly or attack...): the window lists them as numbered choices, so a
        move is reachable from the keyboard and a move made by clicking a piece is shown too."""
        out = []
        for piece in range(len(self.piece_bodies)):
            kinds: dict[type, list[Destination]] = {}
            for d in self.destinations(state, piece):
                kinds.setdefault(type(d.action), []).append(d)
            name = self.piece_name(piece)
            for group in kinds.values():
                texts = [self.action_text(state, d.action) for d in group]
                if len(texts) == 1:
                    text = texts[0]
                else:
                    common = os.path.commonprefix(texts)
                    common = common if common.endswith(" ") else common[:common.rfind(" ") + 1]
                    text = f"{common.strip()} ... (then click a lit space)"
                out.append((piece, f"{name}: {text}", group))
        return out

    def put_piece(self, app, piece: int, pos) -> None:
        app.set_poses({self.piece_bodies[piece]: (*pos, 0.0, 0.0, 0.0, 1.0)})

    def place_pieces(self, app, state) -> None:
        for piece, pos in self.piece_positions(state).items():
            self.put_piece(app, piece, pos)

    def pieces_over_marks(self, app) -> None:
        """Every piece drawn after the lit marks (TableApp.draw_over_marks): a lit space under a
        piece shows round it, never over it."""
        for name in self.piece_bodies:
            for track in app.body_tracks.get(name, [name]):
                if track in app.nodes:
                    app.draw_over_marks(app.nodes[track])

    def marker(self, app, dest: Destination, key: str = "", occupied: bool = False):
        """A lit place where the selected piece can go: a bright disc in a dark rim (`marker_radius`
        its outer edge), drawn over the table so that no slope or figure hides it, and under the
        pieces (the "lit" bin, before the pieces': pieces_over_marks), so that it hides none. Where
        a piece stands (`occupied`) it is a wider ring round that piece (out to `marker_reach`), so
        the piece shows whole and the lit place still reads. (Its number key, `key`, the window
        draws on the screen over it, or below the ring where a piece stands, at a size that reads
        at any zoom.)"""
        from tabletop.sim.view.geometry import ring

        node = app.render.attach_new_node("marker")
        x, y, z = dest.position
        node.set_pos(x, y, z - self.marker_drop + 0.0008)
        r = self.marker_radius
        if occupied:
            parts = ((ring(0.85 * r, OCCUPIED_FILL * r, "marker-fill"), MARKER_RGB),
                     (ring(OCCUPIED_FILL * r, OCCUPIED_REACH * r, "marker-rim"), MARKER_RIM))
        else:
            parts = ((ring(0.0, 0.78 * r, "marker-fill"), MARKER_RGB), (ring(0.78 * r, r, "marker-rim"), MARKER_RIM))
        for part, rgb in parts:
            part.copy_to(node).set_color(*rgb, 1)
        _on_top(node, 20, "lit")
        return node

    def marker_reach(self, occupied: bool) -> float:
        """The outer radius of a lit place's marker (`marker`), where a piece stands or not."""
        return self.marker_radius * (OCCUPIED_REACH if occupied else 1.0)

    def occupied(self, state, dest: Destination, piece) -> bool:
        """Whether a piece other than `piece` (the one selected) stands on the lit place `dest`."""
        r = self.marker_radius
        return any(q != piece and sum((a - b) ** 2 for a, b in zip(p, dest.position)) < r * r
                   for q, p in self.piece_positions(state).items())

    def highlight(self, app, piece) -> None:
        """The selected piece (None: none) drawn brighter, with a halo round its foot."""
        from tabletop.sim.view.geometry import ring

        if self._halo is not None:
            self._halo.remove_node()
            self._halo = None
        for i, name in enumerate(self.piece_bodies):
            node = app.nodes[name]
            node.set_color_scale(1.6, 1.6, 1.6, 1) if i == piece else node.clear_color_scale()
        if piece is None:
            return
        p = app.nodes[self.piece_bodies[piece]].get_pos(app.render)
        r = self.marker_radius
        halo = ring(1.15 * r, 1.6 * r, "halo").copy_to(app.render)
        halo.set_pos(p.x, p.y, p.z - self.marker_drop + 0.0012)
        halo.set_color(*HALO_RGB, 1)
        _on_top(halo, 21, "lit")
        self._halo = halo

    def menu(self, state) -> list:
        """The current decision's actions that are not a piece going somewhere (roll or fly,
        end the turn, a spinner's choice, which cards to discard...): shown as numbered buttons,
        one for each distinct choice (actions said alike, such as discarding one or the other of
        two copies of a card, are one; so is an action said as a lit space says it)."""
        from tabletop.gamekit.state import Pass

        placed = [d.action for piece in range(len(self.piece_bodies)) for d in self.destinations(state, piece)]
        said = {self.action_text(state, a) for a in placed}     # one entry per distinct choice: two copies
        out = []                                                # of a card are one choice, said once
        for action in state.legal_actions():
            if action in placed or action == Pass():
                continue
            text = self.action_text(state, action)
            if text not in said:
                said.add(text)
                out.append(action)
        return out

    def body_colors(self) -> dict[str, tuple]:
        """The colour the window draws each body or track in, by name: (r, g, b) or (r, g, b, a),
        sRGB as Panda3D's set_color takes it (a pawn by its seat, the board); a body not named
        keeps its material's. `build` draws with these, and a browser's table (tabletop.net.browser)
        is coloured from them: one source for both."""
        return {}

    def camera_home(self) -> tuple | None:
        """The window's first view, as tabletop.sim.view.app.OrbitCamera.set_home takes it: (target,
        distance, heading, pitch), target (x, y, z) in the table's frame, angles in degrees; None:
        the whole table framed from its bounds. `build` sets it; a browser starts from it too."""
        return None

    def labels(self) -> list[Label]:
        """The words on the table (gamekit/view/places.py `Label`): space numbers, names of places.
        The window draws them (`draw_labels`, in `build`), the browser too (table.json). None by
        default."""
        return []

    @staticmethod
    def draw_art(app, art: dict) -> None:
        """One of `art_meshes` in the window (parts only): on the table, casting no shadow, or on
        its parent track (none where the table has no such track)."""
        from tabletop.sim.view.geometry import track_node

        parent = art.get("parent")
        if parent is not None and parent not in app.nodes:
            return
        node = track_node(art["name"], art["parts"])
        node.reparent_to(app.render if parent is None else app.nodes[parent])
        node.set_color(*art["color"], 1)
        if parent is None:
            app.casts_no_shadow(node)

    @staticmethod
    def draw_labels(app, labels, parent=None) -> list:
        """`labels` in the window (TableApp.label): their nodes, in order."""
        return [app.label(l.text, l.at, scale=l.size, color=l.color, flat=l.flat, heading=l.heading, plate=l.plate,
                          parent=parent) for l in labels]

    def extra_bodies(self) -> dict:
        """Bodies on the table beside those of its Worlds (`worlds`), {name: (look, poses)} as
        tabletop.sim.scene's `look` and `poses` give them: a gadget kept in a world of its own
        (King Kong's spinner). The window draws them in `build`, the browser's table has them too
        (tabletop.net.browser). The default: none."""
        return {}

    def art_meshes(self) -> list[dict]:
        """The board's static art as geometry for a renderer other than the window (a browser's
        glTF: tabletop.sim.gltf), each {"name", "color": (r, g, b), and either "parts" (as
        tabletop.sim.surface tessellates them) or "vertices" and "faces" (with, optionally, "uv" and
        "image": an (h, w, 3) array painted over it)}, optionally "parent": the track it moves with
        (its geometry then in that track's frame). The default: none."""
        return []

    def menu_title(self, state) -> str:
        return "choose:"

    def decorate_body(self, app, name: str) -> None:
        """Add marks to a body that first appears in a motion (a die's pips); drawn with it."""

    def motion_color(self, state, event: str, name: str):
        """The colour to draw a body that appears in an event's motion (None: its material's)."""
        return None

    def hidden_during(self, state, event: str) -> list[str]:
        return []

    def follow_track(self, state, event: str, motion) -> str | None:
        return None

    def after_motion(self, app, state, event: str, motion) -> None:
        pass


def _on_top(node, order: int, bin_name: str = "fixed") -> None:
    """Draw `node` after the table, over it (no depth test), unlit: it glows whatever the light.
    In `bin_name` "lit" it is drawn before the pieces (TableApp.draw_over_marks), under them."""
    node.set_bin(bin_name, order)
    node.set_depth_test(False)
    node.set_depth_write(False)
    node.set_shader_off(1)
    node.set_light_off(1)
    node.set_two_sided(True)
