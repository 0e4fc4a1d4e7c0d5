"""King of the Hill in the window: the hill, the Tipper and the marbles of a HillTable (a replay's:
of its recorded scene, laid out by a HillLayout), with seat numbers, edge arrows, Tipper slot
numbers and the players' drawers labelled."""
from __future__ import annotations

import math

import numpy as np

from tabletop.games.king_of_the_hill.ai import SEATS
from tabletop.games.king_of_the_hill.board import hill_height
from tabletop.games.king_of_the_hill.rules import COLOURS, IN_CRATER, Move, Phase, State
from tabletop.games.king_of_the_hill.layout import HillLayout
from tabletop.games.king_of_the_hill.session import make_game
from tabletop.games.view.adapter import TableAdapter
from tabletop.games.view.controller import Destination
from panda3d.core import TransparencyAttrib

from tabletop.sim.meshes import cached_mesh, grid_surface, load_mesh, top_heights
from tabletop.sim.scene import look
from tabletop.sim.view.geometry import arrow, flat_disc, track_node

MARBLE_RGB = {"red": (0.86, 0.12, 0.10), "blue": (0.12, 0.32, 0.90), "green": (0.10, 0.68, 0.22),
              "yellow": (0.96, 0.82, 0.10)}
HILL_RGB = (0.52, 0.62, 0.36)
TIPPER_RGB = (0.92, 0.62, 0.12)
BALL_RGB = (0.85, 0.85, 0.88)
SKIN_STEP = 0.0065      # grid of the hill's drawn skin over the crater (m): 6k triangles in all, cheap to draw


def _normal(x: float, y: float, h: float = 1e-3) -> tuple[float, float, float]:
    """The hill surface's unit normal at (x, y)."""
    gx = (hill_height(x + h, y) - hill_height(x - h, y)) / (2 * h)
    gy = (hill_height(x, y + h) - hill_height(x, y - h)) / (2 * h)
    n = math.sqrt(gx * gx + gy * gy + 1.0)
    return (-gx / n, -gy / n, 1.0 / n)


class HillAdapter(TableAdapter):
    """What the window needs to know about King of the Hill."""

    title = "King of the Hill"
    game_name = "king-of-the-hill"
    chance_button = "Tilt the Tipper  [Space]"
    marker_radius = 0.011
    follow_distance = 0.32
    help_lines = [
        "",
        "King of the Hill",
        "  Space tilts the Tipper; the ball's slot (1-6, or J: choose 1 to 10) is your move.",
        "  Click a marble of your colour, then a lit seat. Landing on a marble on an arrow",
        "  (crater edge) knocks it into the crater: it comes out in one of the caves.",
    ]

    seat_kinds = SEATS

    def __init__(self, players: int, variant: str, scene=None):
        self.game = make_game(players, variant)
        marbles = players * self.game.marbles_per_player
        if scene is None:
            from tabletop.games.king_of_the_hill.table import HillTable, PhysicsOutcomes

            self.source_class = PhysicsOutcomes
            self.table = HillTable(marbles, self.game.board)
            self.worlds = self.table.worlds
        else:
            self.table = HillLayout.from_specs(marbles, self.game.board)
            self.worlds = (scene,)
        self.scene = scene
        self.board = self.game.board
        self.radius = self.table.crater.marble_radius
        self.marker_drop = self.radius
        self.piece_bodies = self.table.marbles

    # -- set-up ----------------------------------------------------------------------------
    def build(self, app) -> None:
        app.floor()
        colors = {"ball": BALL_RGB}
        for m, name in enumerate(self.table.marbles):
            colors[name] = MARBLE_RGB[COLOURS[self.game.owner(m)]]
        app.add_body("hill", self._hill_look(), color=HILL_RGB)
        app.casts_no_shadow(app.nodes["hill"])
        self._add_tray(app, look(self.world_of("tray"), "tray"))
        self.add_world_bodies(app, colors, skip=("hill",))
        app.casts_no_shadow(app.nodes["table"])
        app.draw_early(app.nodes["hill"], 0)
        app.draw_early(app.nodes["tray:0"], 1)
        app.draw_late(app.nodes["table"], 0)
        self.pickable_pieces(app, self.radius * 1.4)
        self._decorate(app)
        app.camera.set_home((0.0, -0.14, 0.0), 1.2, 0.0, 55.0)

    def _add_tray(self, app, tray: dict) -> None:
        """The Tipper's tray in orange plastic under a clear lid (the lid's parts are the boxes
        that reach the tray's top), so the ball is seen rolling."""
        (track, parts), = tray["tracks"].items()
        top = max(p["pos"][2] + p["half"][2] for p in parts if p["kind"] == "box")
        is_lid = [p["kind"] == "box" and p["pos"][2] + p["half"][2] > top - 1e-4 and min(p["half"][:2]) > 0.004
                  for p in parts]
        body = {"material": tray["material"], "tracks": {track: [p for p, lid in zip(parts, is_lid) if not lid]}}
        app.add_body("tray", body, color=TIPPER_RGB)
        lid = track_node("tray-lid", [p for p, lid in zip(parts, is_lid) if lid])
        lid.reparent_to(app.nodes[track])
        lid.set_color(0.85, 0.92, 1.0, 0.18)
        lid.set_transparency(TransparencyAttrib.M_alpha)
        lid.set_depth_write(False)
        lid.set_bin("transparent", 10)

    def _hill_look(self) -> dict:
        """The hill drawn as one solid skin: the physical crater, rim and ledge inside the crater's
        outer radius, and outside it the hill surface the path seats were laid on (board.hill_height)."""
        crater = self.table.crater
        half = crater.base_size / 2 + 0.002
        params = {"hill": str(crater.mesh_path), "half": half, "step": SKIN_STEP, "grid": "crater-fine-3"}

        def build():
            # fine over the crater, coarse over the mesa's plain slopes (the seats are drawn on top)
            inner = crater.outer_radius + 2 * SKIN_STEP
            edge = np.array([0.166, 0.170, 0.1735, 0.175, half])     # the skirt, sampled finely
            outer = np.concatenate([np.linspace(inner, 0.160, 5), edge])
            xs = ys = np.unique(np.round(np.concatenate([-outer, np.arange(-inner, inner, SKIN_STEP), outer]), 6))
            z = top_heights(load_mesh(crater.mesh_path), xs, ys, ground=-0.001)
            X, Y = np.meshgrid(xs, ys)
            outside = np.hypot(X, Y) > crater.outer_radius
            z[outside] = np.vectorize(hill_height)(X[outside], Y[outside]) - 0.0005
            return grid_surface(xs, ys, np.maximum(z, -0.001))

        path = cached_mesh("koth-hill-skin", 1, params, build)
        part = {"kind": "mesh", "obj": str(path), "scale": [1.0, 1.0, 1.0], "pos": [0.0, 0.0, 0.0],
                "orn": [0.0, 0.0, 0.0, 1.0]}
        return {"material": crater.hill_material.name, "tracks": {"hill": [part]}}

    def _decorate(self, app) -> None:
        decor = app.render.attach_new_node("decor")     # seats and arrows, merged into one draw below
        self._decorate_hill(app, decor)
        decor.flatten_strong()
        app.casts_no_shadow(decor)

    def _decorate_hill(self, app, decor) -> None:
        b = self.board
        r = self.radius
        for i, (x, y, z) in enumerate(b.path_positions):
            if i in b.edge_spaces:
                continue
            seat = flat_disc(r * 0.95, f"seat-{i}")
            seat.reparent_to(decor)
            seat.set_pos(x, y, z - r + 0.0008)
            seat.look_at(seat.get_pos() + _normal(x, y), (0, 0, 1))
            seat.set_p(seat.get_p() - 90)
            seat.set_color(0.36, 0.45, 0.24, 1)
            if i % 5 == 0 and i:
                app.label(str(i), (x, y, z - r + 0.004), scale=0.008, color=(1, 1, 1, 1))
        for i, (x, y, z) in enumerate(b.zone_positions):
            app.label(f"#{i + 1}", (x, y, z - r + 0.0015), scale=0.009, color=(1, 0.95, 0.6, 1),
                      heading=math.degrees(math.atan2(y, x)) - 90)
        for name, space in b.edges.items():
            x, y, z = b.path_positions[space]
            node = arrow(0.014, 0.010, f"arrow-{name}")
            node.reparent_to(decor)
            node.set_pos(x, y, z - r + 0.0012)
            node.set_h(math.degrees(math.atan2(y, x)) + 180)      # pointing into the crater
            node.set_color(0.95, 0.92, 0.85, 1)
        x0, y0, _ = b.path_positions[0]
        app.label("START", (x0, y0 - 2.2 * r, b.path_positions[0][2] - r + 0.002), scale=0.008)
        # the Tipper's slot numbers ride on its tray (labels parented to the tray's node)
        tipper = self.table.tipper
        tray = app.nodes.get("tray:0")
        if tray is not None:
            for end in ("A", "B"):
                for label in tipper.slot_order:
                    p = tipper.slot_rest_point(end, label)
                    app.label(label, (p[0] + (0.014 if end == "B" else -0.014), p[1], p[2] - tipper.pivot_height + 0.004),
                              scale=0.008, color=(0.1, 0.1, 0.1, 1), parent=tray, heading=90)
        for p in range(self.game.players):
            xs = [self.table.drawer[m][0] for m in range(len(self.table.marbles)) if self.game.owner(m) == p]
            app.label(COLOURS[p], (sum(xs) / len(xs), self.table.drawer[0][1] + 0.022, 0.001), scale=0.011,
                      color=(*MARBLE_RGB[COLOURS[p]], 1))

    # -- pieces ----------------------------------------------------------------------------
    def piece_positions(self, state: State) -> dict[int, tuple]:
        out = {}
        for m, t in enumerate(state.track):
            if t == IN_CRATER and state.phase is Phase.CRATER and m == state.pending_marble:
                # until the crater event is simulated, the knocked marble is still on its edge seat
                out[m] = tuple(self.board.path_positions[self.board.edges[state.knocked_from]])
            else:
                out[m] = self.table.seat_position(m, t)
        return out

    def destinations(self, state: State, m: int) -> list[Destination]:
        legal = set(state.legal_actions())
        out = []
        for d in state.distances():
            move = Move(m, d)
            if move in legal:
                track, knocked, _ = state.destination(m, d)
                pos = self.table.seat_position(m, track)
                text = str(d) + (" knock!" if knocked is not None else "")
                out.append(Destination(move, pos, text))
        return out

    # -- chance ----------------------------------------------------------------------------
    def needs_gesture(self, state: State) -> bool:
        return state.chance_event == "tipper"

    def hidden_during(self, state: State, event: str) -> list[str]:
        return [self.table.marbles[state.pending_marble]] if event == "crater" else []

    def follow_track(self, state: State, event: str, motion) -> str | None:
        if event == "crater":
            return "marble"
        return None

    def motion_color(self, state: State, event: str, name: str):
        if event == "crater" and name == "marble":     # the knocked marble, in its owner's colour
            return MARBLE_RGB[COLOURS[self.game.owner(state.pending_marble)]]
        return None

    def after_motion(self, app, state: State, event: str, motion) -> None:
        if event == "crater":
            app.show_body("marble", False)    # the physical marble becomes the game's marble in its cave

    # -- text ------------------------------------------------------------------------------
    def status(self, state: State) -> str:
        who = COLOURS[state.chance_player if state.is_chance_node() else state.current]
        doing = {Phase.ORDER: "tilts for the turn order", Phase.ROLL: "tilts the Tipper",
                 Phase.MOVE: f"moves (Tipper: {state.roll})", Phase.CRATER: "- a marble falls into the crater",
                 Phase.OVER: ""}[state.phase]
        if state.is_terminal():
            return f"King of the Hill - game over after {state.turn} turns"
        turn = state.turn + 1 if state.phase is Phase.ROLL else state.turn    # the tilt begins the turn
        return f"King of the Hill - turn {turn}: {who} {doing}"

    def players(self, state: State, kinds) -> str:
        lines = []
        L = self.board.path_length
        for p in range(self.game.players):
            mine = [t for m, t in enumerate(state.track) if self.game.owner(m) == p]
            zone = sum(1 for t in mine if t >= L)
            best = max((t for t in mine if 0 <= t < L), default=None)
            where = "drawer" if best is None else f"best space {best}"
            lines.append(f"{COLOURS[p]:7s} {kinds[p]:6s} zone {zone}/{self.game.marbles_to_win}  {where}")
        return "\n".join(lines)

    def record_config(self, seats, seed: int) -> tuple[dict, str]:
        """The replay's config and banner, as headless play writes them."""
        from tabletop.games.king_of_the_hill.session import banner

        variant = self.game.variant.value
        config = {"players": len(seats), "variant": variant, "seats": list(seats), "outcomes": "physics"}
        return config, banner(list(seats), seed, variant, "physics")

    def result_lines(self, state: State) -> list[str]:
        from tabletop.games.king_of_the_hill.session import result_lines

        return result_lines(state)

    def result(self, state: State) -> str:
        return f"{COLOURS[state.winner]} is King of the Hill!"

    def chance_prompt(self, state: State) -> str:
        who = COLOURS[state.chance_player]
        if state.phase is Phase.ORDER:
            return f"{who}: press Space to tilt the Tipper for the turn order"
        return f"{who}: press Space to tilt the Tipper"

    def move_prompt(self, state: State) -> str:
        roll = "J (choose 1-10)" if state.roll == "J" else state.roll
        return f"{COLOURS[state.current]}: Tipper {roll} - click one of your marbles"

