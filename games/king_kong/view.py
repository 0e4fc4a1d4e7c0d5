"""King Kong in the window: the board with its twin towers, Kong on his slide, the Attack Team's
pawns, the die's box lid and the spinner card, from a KongTable (a replay's: of its recorded scene,
laid out by a KongLayout, the spinner and the die's pips from their specs' shapes); cards and missions
in the HUD. Kong is posed from the figure's geometry."""
from __future__ import annotations

import math

from tabletop.games.king_kong.ai import SEATS
from tabletop.games.king_kong.rules import (COLOURS, Attack, Escape, Fly, Game, Move, Phase,
                                            State, _count)
from tabletop.games.king_kong.layout import BOARD, BOARD_TOP, KONG, KongLayout
from tabletop.games.king_kong.source import SPINNER_ORIGIN, KongSource
from tabletop.gamekit.view.adapter import TableAdapter
from tabletop.gamekit.view.places import Destination, Label
from tabletop.sim.scene import look, poses
from tabletop.sim.devices.spinner_shape import CARD

PAWN_RGB = {"red": (0.85, 0.12, 0.1), "blue": (0.12, 0.3, 0.85), "green": (0.1, 0.62, 0.2),
            "yellow": (0.95, 0.8, 0.1), "orange": (0.95, 0.5, 0.1), "purple": (0.55, 0.2, 0.7)}
BOARD_RGB = (0.32, 0.36, 0.42)          # the towers' steel-grey walls
WINDOW_RGB = (0.78, 0.84, 0.9)          # window spaces: the frame
GLASS_RGB = (0.55, 0.7, 0.86)           # ... and its four panes
SECTOR_RGB = ((0.93, 0.42, 0.3), (0.98, 0.78, 0.3), (0.45, 0.72, 0.95), (0.55, 0.82, 0.5),
              (0.8, 0.55, 0.9), (0.98, 0.6, 0.7))   # the spinner's sectors, by label
FUR_RGB = (0.2, 0.13, 0.08)
FACE_RGB = (0.5, 0.37, 0.27)          # the bare skin of his muzzle and chest
GIRL_RGB = (0.93, 0.78, 0.42)          # her fair hair
DRESS_RGB = (0.95, 0.95, 0.98)
SECTOR_STEP_DEG = 5.0                   # a sector drawn as convex pieces this wide
ELEVATOR_RGB = (0.55, 0.62, 0.4)
START_RGB = (0.72, 0.6, 0.4)
KONG_RGB = (0.28, 0.18, 0.1)
DIE_RGB = (0.95, 0.93, 0.86)
SPINNER_CARD_RGB = (0.92, 0.9, 0.82)
SPINNER_POINTER_RGB = (0.9, 0.85, 0.2)
PIPS = {"1": [(0, 0)], "2": [(-1, -1), (1, 1)], "3": [(-1, -1), (0, 0), (1, 1)],
        "4": [(-1, -1), (-1, 1), (1, -1), (1, 1)], "5": [(-1, -1), (-1, 1), (0, 0), (1, -1), (1, 1)],
        "6": [(-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)]}


class KongAdapter(TableAdapter):
    """What the window needs to know about King Kong."""

    title = "King Kong"
    game_name = "king-kong"
    chance_button = "Roll / spin  [Space]"
    seat_kinds = SEATS
    hidden_hands = True            # "Each player holds these cards in his hand without revealing them"
    follow_distance = 0.55
    help_lines = [
        "",
        "King Kong",
        "  Choose Roll or a Helicopter Ride (numbered buttons), Space rolls the die; click your pawn,",
        "  then a lit space or groove. Attack a groove named on an Attack Card; after an attack an",
        "  Escape card moves you away. The spinner's holder spins twice after each round (Space):",
        "  the outer circle twists Kong, the inner one climbs him; choices appear as buttons.",
    ]

    def __init__(self, players: int, scene=None):
        if not 2 <= players <= len(COLOURS):
            from tabletop.sim.errors import InputError
            raise InputError(f"--seats: King Kong needs 2-{len(COLOURS)} seats, not {players}")
        self.game = Game(players=players)
        self.scene = scene
        self._source: KongSource | None = None
        if scene is None:
            from tabletop.games.king_kong.table import KongTable

            self.table = KongTable(players, self.game.board, self.game.kong)
            self.die = self.table.die
            self.spinner = self.physics_source().physics.spinner
            self.spinner_world = self.spinner.world
            self.worlds = self.table.worlds
        else:
            from tabletop.gamekit.devices import default_spec
            from tabletop.sim.devices.die_shape import DieShape
            from tabletop.sim.devices.spinner_shape import SpinnerShape

            self.table = KongLayout(players, self.game.board, self.game.kong)
            self.die = DieShape(default_spec("die"))
            self.spinner = SpinnerShape(default_spec("spinner"), origin=SPINNER_ORIGIN)
            self.spinner_world = self.spinner.scene()
            self.worlds = (scene,)
        self.board, self.kong = self.table.board, self.table.kong
        self.piece_bodies = list(self.table.pawns)
        pawn = self.table.pawn
        self.marker_radius = pawn.base_radius * 1.8
        self.marker_drop = pawn.com_z

    def physics_source(self):
        if self._source is None:
            self._source = KongSource(self.table)
        return self._source

    def close(self) -> None:
        if self._source is not None:
            self._source.close()         # closes the table too
        elif self.scene is None:
            self.table.close()

    # -- the scene -------------------------------------------------------------------------
    def build(self, app) -> None:
        app.floor()
        self.add_world_bodies(app, self.body_colors())
        colors = self.body_colors()
        for name, (body_look, body_poses) in self.extra_bodies().items():
            app.add_body(name, body_look, color=colors[name])
            app.set_poses(body_poses)
        for name in (BOARD, "die_lid"):
            app.casts_no_shadow(app.nodes[name])
            app.draw_late(app.nodes[name])
        self._paint(app)
        self.pickable_pieces(app, self.table.pawn.base_radius * 1.6, (0.0, 0.0, 0.0))
        self.close_up = "die"
        self._close_up(app)
        app.frame_only([BOARD, KONG])       # the die and the spinner show in the close-up
        app.camera.set_home(*self.camera_home())

    def body_colors(self) -> dict[str, tuple]:
        colors = {BOARD: BOARD_RGB, KONG: KONG_RGB}
        for i, name in enumerate(self.piece_bodies):
            colors[name] = PAWN_RGB[COLOURS[i]]
        for name in self.spinner_world.bodies:
            colors[name] = SPINNER_CARD_RGB if name == CARD else SPINNER_POINTER_RGB
        return colors

    def extra_bodies(self) -> dict:
        """The spinner, in a world of its own beside the table: its card and its pointer."""
        spinner = self.spinner_world
        return {name: (look(spinner, name), poses(spinner, name)) for name in spinner.bodies}

    def camera_home(self) -> tuple:
        return (0.22, -0.02, 0.0), 1.75, 0.0, 62.0

    def art_meshes(self) -> list[dict]:
        """The towers' paint, the spinner's sectors on its card and Kong's gorilla dress (on his
        figure's track)."""
        return self._board_art() + self._spinner_art() + self._kong_art()

    def _board_art(self) -> list[dict]:
        """Window spaces (each four panes in its frame), the elevators and Start painted on the board's top."""
        top = BOARD_TOP
        groups = {"window": [], "elevator": [], "start": []}
        for sp in self.board.spaces:
            x0, x1, y0, y1 = sp.rect
            inset = 0.003
            groups[sp.kind].append({"kind": "box", "half": [(x1 - x0) / 2 - inset, (y1 - y0) / 2 - inset, 0.0004],
                                    "pos": [(x0 + x1) / 2, (y0 + y1) / 2, top + 0.0004], "orn": [0.0, 0.0, 0.0, 1.0]})
        glass = []
        for sp in self.board.spaces:      # each window four panes in its frame
            if sp.kind == "window":
                x0, x1, y0, y1 = sp.rect
                hx, hy = (x1 - x0) / 4 - 0.003, (y1 - y0) / 4 - 0.003
                for cx in ((3 * x0 + x1) / 4 + 0.0015, (x0 + 3 * x1) / 4 - 0.0015):
                    for cy in ((3 * y0 + y1) / 4 + 0.0015, (y0 + 3 * y1) / 4 - 0.0015):
                        glass.append({"kind": "box", "half": [hx, hy, 0.0004], "pos": [cx, cy, top + 0.0009],
                                      "orn": [0.0, 0.0, 0.0, 1.0]})
        groups["glass"] = glass
        return [{"name": f"paint-{kind}", "parts": groups[kind], "color": rgb}
                for kind, rgb in (("window", WINDOW_RGB), ("glass", GLASS_RGB), ("elevator", ELEVATOR_RGB),
                                  ("start", START_RGB)) if groups[kind]]

    def _paint(self, app) -> None:
        """The towers' art (_board_art), the floors, Start and the elevators named, the spinner's
        sectors and Kong dressed (_kong_art)."""
        for art in self._board_art():
            self.draw_art(app, art)
        labels = self.labels()
        nodes = self.draw_labels(app, labels)
        self.floor_labels = [node for node, label in zip(nodes, labels) if label.key == "floor"]
        for art in self._spinner_art():
            self.draw_art(app, art)
        for art in self._kong_art():
            self.draw_art(app, art)

    def labels(self) -> list[Label]:
        """The floors numbered up the track between the towers, Start and the elevators named, and
        each of the spinner's sectors."""
        top = BOARD_TOP
        tx0, tx1, _, _ = self.board.track
        out = [Label(str(sp.row), ((tx0 + tx1) / 2, (sp.rect[2] + sp.rect[3]) / 2 - 0.006, top + 0.001), 0.02,
                     (0.96, 0.93, 0.85, 1), key="floor")
               for sp in self.board.spaces if sp.kind == "window" and sp.column == 1 and sp.tower == "L"]
        x0, x1, y0, y1 = self.board.space("start").rect
        out.append(Label("START", ((x0 + x1) / 2, (y0 + y1) / 2 - 0.012, top + 0.001), 0.03, (0.3, 0.2, 0.1, 1)))
        for tower in ("L", "R"):
            sp = self.board.space(f"{tower}-elevator")
            out.append(Label("ELEVATOR", ((sp.rect[0] + sp.rect[1]) / 2 + 0.008, (sp.rect[2] + sp.rect[3]) / 2,
                                          top + 0.001), 0.024, (0.15, 0.2, 0.1, 1), heading=90))
        ox, oy, oz = SPINNER_ORIGIN
        for circle, radius, _, _ in self._spinner_rings():
            for label, width, edge in zip(circle.labels, circle.widths_deg, circle.edges):
                a = math.radians(circle.start_deg + edge + width / 2)
                out.append(Label(label, (ox + radius * math.cos(a), oy + radius * math.sin(a), oz + 0.0025), 0.011,
                                 (0.05, 0.05, 0.05, 1), heading=math.degrees(a) - 90))
        return out

    def _spinner_rings(self) -> tuple:
        """(circle, its labels' radius, its sectors' inner and outer radius) of each of the
        spinner's circles."""
        spinner = self.spinner
        return ((spinner.outer, 0.062, 0.050, spinner.card_radius - 0.004), (spinner.inner, 0.036, 0.022, 0.048))

    def _spinner_art(self) -> list[dict]:
        """Both circles' sectors printed on the spinner's card (_sectors), as art_meshes."""
        z = SPINNER_ORIGIN[2] + 0.0016
        return [art for circle, _, inner, outer in self._spinner_rings() for art in self._sectors(circle, inner, outer, z)]

    def _sectors(self, circle, inner: float, outer: float, z: float) -> list[dict]:
        """The circle's sectors printed on the card, coloured by label (the same label the same
        colour), a white line between neighbours; convex pieces SECTOR_STEP_DEG wide: one art
        mesh of each colour."""
        ox, oy, _ = SPINNER_ORIGIN
        colour = {label: SECTOR_RGB[i % len(SECTOR_RGB)] for i, label in enumerate(dict.fromkeys(circle.labels))}
        by_colour: dict[tuple, list] = {}
        gap = math.degrees(0.0012 / outer)                      # the printed line, 1.2 mm at the rim
        for label, width, edge in zip(circle.labels, circle.widths_deg, circle.edges):
            a0, a1 = circle.start_deg + edge + gap / 2, circle.start_deg + edge + width - gap / 2
            n = max(1, math.ceil((a1 - a0) / SECTOR_STEP_DEG))
            for k in range(n):
                b0, b1 = (math.radians(a0 + (a1 - a0) * j / n) for j in (k, k + 1))
                hull = [[ox + r * math.cos(b), oy + r * math.sin(b), z + dz]
                        for r in (inner, outer) for b in (b0, b1) for dz in (0.0, 0.0004)]
                by_colour.setdefault(colour[label], []).append(
                    {"kind": "mesh", "hull": hull, "pos": [0.0, 0.0, 0.0], "orn": [0.0, 0.0, 0.0, 1.0]})
        return [{"name": f"sectors-{circle.name}-{i}", "color": rgb, "parts": parts}
                for i, (rgb, parts) in enumerate(by_colour.items())]

    def _kong_art(self) -> list[dict]:
        """Kong as a gorilla over his cardboard figure: a barrel chest and belly rounding the body,
        shoulders, thick furred arms and legs along the limbs ending in fists and feet short of
        the grooves (where the pawns stand), a head with ears, a brow, a pale muzzle and eyes,
        and the girl lying in his right fist; parented to the figure, so they move with him. Every
        place comes from the figure's geometry (kong.toml)."""
        from tabletop.games.king_kong.layout import FIGURE

        figure = f"{KONG}:{FIGURE}"
        k = self.kong
        (bx, by), (w, h) = k.body_centre, k.body_size
        z = k.clearance + k.thickness
        flat = [0.0, 0.0, 0.0, 1.0]

        def disc(x, y, r, dz, t=0.003):
            return {"kind": "cylinder", "radius": r, "length": t, "pos": [x, y, z + dz], "orn": flat}

        def along(a, b, r, dz):
            """A capsule lying from a to b (figure frame), `dz` above the figure."""
            (ax, ay), (qx, qy) = a, b
            dx, dy = qx - ax, qy - ay
            length = math.hypot(dx, dy)
            c = math.sqrt(0.5)
            return {"kind": "capsule", "radius": r, "length": max(1e-4, length - 2 * r),
                    "pos": [(ax + qx) / 2, (ay + qy) / 2, z + dz],
                    "orn": [-dy / length * c, dx / length * c, 0.0, c]}

        head_y = by + h / 2 + 0.02
        fur = [disc(bx, by + h * 0.18, w * 0.62, 0.002), disc(bx, by - h * 0.2, w * 0.55, 0.002),
               {"kind": "box", "half": [w / 2 + 0.01, 0.014, 0.003], "pos": [bx, by + h / 2 - 0.016, z + 0.003],
                "orn": flat},
               disc(bx, head_y, 0.026, 0.004, 0.006),
               disc(bx - 0.024, head_y + 0.002, 0.008, 0.004), disc(bx + 0.024, head_y + 0.002, 0.008, 0.004)]
        ends, fists = [], {}
        for limb in k.limbs:
            gx, gy = k.grooves[limb.groove]
            ax, ay = limb.start
            # the fist or foot stops short of the groove, so the pawn standing there stays in sight
            f = 1.0 - (k.pawn_radius + 0.006) / math.hypot(gx - ax, gy - ay)
            end = (ax + (gx - ax) * f, ay + (gy - ay) * f)
            fur.append(along(limb.start, end, limb.width * 0.55, 0.004))
            ends.append(disc(*end, limb.width * 0.62, 0.005, 0.006))
            fists[limb.groove] = (end, (gx - ax, gy - ay), limb.width)
        fur += ends
        brow = [{"kind": "box", "half": [0.021, 0.0045, 0.002], "pos": [bx, head_y + 0.009, z + 0.009], "orn": flat}]
        face = [disc(bx, head_y - 0.008, 0.014, 0.008, 0.002), disc(bx, by + h * 0.12, w * 0.27, 0.004, 0.002)]
        eyes = [disc(bx + sx, head_y + 0.003, 0.0035, 0.0092, 0.001) for sx in (-0.009, 0.009)]
        # the girl lies in his right fist, across it (held, not standing on the board like a pawn)
        (ex, ey), (dx, dy), width = fists["right_hand"]
        n = math.hypot(dx, dy)
        cx, cy = -dy / n, dx / n                  # across the arm
        top = 0.005 + 0.006 + 0.0035              # on the fist
        half = width * 0.75
        dress = [along((ex - cx * half, ey - cy * half), (ex + cx * half * 0.55, ey + cy * half * 0.55), 0.0035, top)]
        girl = [{"kind": "sphere", "radius": 0.0038, "pos": [ex + cx * (half * 0.55 + 0.005), ey + cy * (half * 0.55 + 0.005),
                                                              z + top], "orn": flat}]
        return [{"name": name, "parts": parts, "color": rgb, "parent": figure}
                for name, parts, rgb in (("kong-fur", fur, FUR_RGB), ("kong-brow", brow, FUR_RGB),
                                         ("kong-face", face, FACE_RGB), ("kong-eyes", eyes, (0.05, 0.04, 0.03)),
                                         ("kong-girl", girl, GIRL_RGB), ("kong-dress", dress, DRESS_RGB))]

    # -- pieces ----------------------------------------------------------------------------
    def pawn_xy(self, state: State) -> dict[int, tuple[float, float]]:
        """Where each pawn stands: its groove at Kong's pose, or its space (shared spaces spread)."""
        out, sharing = {}, {}
        for p in range(state.game.players):
            if state.groove[p] is not None:
                out[p] = self.kong.groove_point(state.groove[p], state.climb, state.twist)
            else:
                sharing.setdefault(state.pos[p], []).append(p)
        pawn = self.table.pawn
        for space, who in sharing.items():
            sp = self.board.space(space)
            for k, p in enumerate(who):
                if sp.kind == "start":
                    out[p] = self.table.start_spot(p)
                elif sp.kind == "elevator":
                    out[p] = self.table.safe_spot(sp, p)
                else:
                    cx, cy = sp.centre
                    dx = (k - (len(who) - 1) / 2) * 2.2 * pawn.base_radius
                    out[p] = (cx + dx, cy)
        return out

    def piece_positions(self, state: State) -> dict[int, tuple]:
        z = self.table.pawn.com_z
        return {p: (x, y, z) for p, (x, y) in self.pawn_xy(state).items()}

    def place_pieces(self, app, state: State) -> None:
        super().place_pieces(app, state)
        app.set_poses(self.kong_poses(state.climb, state.twist))
        if state.phase in (Phase.SPIN_OUTER, Phase.TWIST, Phase.SPIN_INNER, Phase.CLIMB):
            self.close_up = "spinner"
        elif state.phase in (Phase.ORDER, Phase.TURN, Phase.DIE):
            self.close_up = "die"

    def kong_poses(self, climb: int, twist: int) -> dict:
        """The poses of Kong's slide and figure at (climb, twist) notches, from the figure's geometry."""
        return self.table.kong_poses(climb, twist)

    def destinations(self, state: State, piece: int) -> list[Destination]:
        if state.is_terminal() or state.is_chance_node() or piece != state.current:
            return []
        z = self.table.pawn.com_z
        out, seen = [], set()
        for action in state.legal_actions():
            if isinstance(action, (Move, Fly, Escape)):
                key = (type(action).__name__, action.to)
                x, y = self.board.space(action.to).centre
                text = {"Move": "", "Fly": "fly ", "Escape": "escape "}[type(action).__name__] + action.to
            elif isinstance(action, Attack):
                key = ("Attack", action.groove)
                x, y = self.kong.groove_point(action.groove, state.climb, state.twist)
                text = f"attack {action.groove.replace('_', ' ')}"
            else:
                continue
            if key not in seen:
                seen.add(key)
                out.append(Destination(action, (x, y, z), text))
        return out

    def why_not(self, state: State, piece: int) -> str:
        """Another player's pawn: whose turn it is. The player's own pawn without a move: what to
        do instead (a pawn after its roll always has a space to go to: Kong never hems one in)."""
        if not state.is_terminal() and not state.is_chance_node() and piece != state.current:
            who = COLOURS[state.current]
            return f"that is {self.piece_name(piece)}: {who} is to move, with {self.piece_name(state.current)}"
        return super().why_not(state, piece)

    # -- chance ----------------------------------------------------------------------------
    def needs_gesture(self, state: State) -> bool:
        return state.chance_event in ("die", "spin-outer", "spin-inner")

    def decorate_body(self, app, name: str) -> None:
        """The die's pips, on the faces its spec labels (+X, -X, +Y, -Y, +Z, -Z)."""
        from tabletop.sim.view.geometry import track_node

        if name != "die":
            return
        die = self.die
        half, step, r = die.size / 2 + 0.0001, 0.27 * die.size, 0.075 * die.size
        c = math.sqrt(0.5)
        turn = {"+x": (0, c, 0, c), "-x": (0, -c, 0, c), "+y": (-c, 0, 0, c), "-y": (c, 0, 0, c),
                "+z": (0, 0, 0, 1), "-z": (1, 0, 0, 0)}
        parts = []
        for axis, label in zip(("+x", "-x", "+y", "-y", "+z", "-z"), die.faces):
            normal = {"x": 0, "y": 1, "z": 2}[axis[1]]
            sign = 1.0 if axis[0] == "+" else -1.0
            others = [k for k in range(3) if k != normal]
            for u, v in PIPS[label]:
                pos = [0.0, 0.0, 0.0]
                pos[normal] = sign * half
                pos[others[0]], pos[others[1]] = u * step, v * step
                parts.append({"kind": "cylinder", "radius": r, "length": 0.0004, "pos": pos, "orn": list(turn[axis])})
        pips = track_node("die-pips", parts)
        pips.reparent_to(app.nodes["die"])
        pips.set_color(0.08, 0.08, 0.1, 1)

    def _close_up(self, app) -> None:
        """A close-up in the right column above the buttons, looking straight down: on the die
        while it is rolled and read (its pips, wherever it lies), on the spinner while it is spun
        and its result chosen from (both circles' labels and the pointer)."""
        from tabletop.sim.view.hud import inset_region

        cam = app.inset(inset_region(app.base.getAspectRatio()), fov=18.0)
        cam.set_hpr(0.0, -90.0, 0.0)
        half = math.tan(math.radians(9.0))
        ox, oy, oz = SPINNER_ORIGIN
        spinner_height = oz + (self.spinner.card_radius + 0.006) / half

        def aim():
            die = app.nodes.get("die")
            if self.close_up == "spinner" or die is None:
                cam.set_pos(ox, oy, spinner_height)
            else:
                p = die.get_pos(app.render)
                cam.set_pos(p.x, p.y, p.z + 7 * self.die.size)

        app.before_draw(aim, "close-up")

    def motion_color(self, state: State, event: str, name: str):
        return DIE_RGB if name == "die" else None

    def follow_track(self, state: State, event: str, motion) -> str | None:
        if event == "kong-move":
            return f"{KONG}:1"
        return None

    # -- text ------------------------------------------------------------------------------
    def status(self, state: State) -> str:
        if state.is_terminal():
            return f"King Kong - game over after round {state.round}"
        who = COLOURS[state.chance_player if state.is_chance_node() else state.current]
        doing = {Phase.SHUFFLE: "- the cards are shuffled", Phase.ORDER: "rolls for the first turn",
                 Phase.SPIN_OUTER: "spins the outer circle (twist)", Phase.TWIST: "chooses Kong's twist",
                 Phase.SPIN_INNER: "spins the inner circle (climb)", Phase.CLIMB: "chooses Kong's climb",
                 Phase.KONG_MOVE: "- Kong moves", Phase.SAFETY_NET: "- the missions are settled",
                 Phase.DISCARD: "discards", Phase.TURN: "takes a turn", Phase.DIE: "takes a turn",
                 Phase.MOVE: f"moves (die: {state.roll})", Phase.ATTACK: "takes a turn",
                 Phase.ESCAPE: "takes a turn"}.get(state.phase, str(state.phase))
        # the turn, attack, escape and Safety Net decisions come only to a seat holding the card:
        # told alike, they say nothing of a hand (the menu's title tells the seat itself)
        return (f"King Kong - round {state.round}, Kong at notch {state.climb}/{self.kong.top}: "
                f"{who} {doing}")

    def players(self, state: State, kinds, viewer=()) -> str:
        """Each seat's pawn and missions; the cards of the seats in `viewer` (those whose eyes are
        on the screen), the others' only counted."""
        deck = self.game.deck
        known = state.round > 0 or state.phase in (Phase.SPIN_OUTER, Phase.TWIST, Phase.SPIN_INNER, Phase.CLIMB,
                                                   Phase.KONG_MOVE)   # the first roll has given the spinner
        lines = []
        for p in range(state.game.players):
            where = state.groove[p].replace("_", " ") if state.groove[p] else state.pos[p]
            hand = ", ".join(_short(deck, c) for c in state.hands[p]) if p in viewer and state.hands[p] \
                else _count(len(state.hands[p]), "card")
            kept = len(state.kept[p])
            spinner = " (spinner)" if known and p == state.spinner else ""
            lines.append(f"{COLOURS[p]:6s} {kinds[p]:6s} {_count(kept, 'mission')}  {where}{spinner}\n       {hand}")
        return "\n".join(lines)

    def seat_name(self, player: int) -> str:
        return COLOURS[player]

    def private_decision(self, state: State) -> bool:
        """Decisions only a seat holding the card has (fly, attack, escape, Safety Net)."""
        return state.phase in (Phase.TURN, Phase.ATTACK, Phase.ESCAPE, Phase.SAFETY_NET)

    def action_text(self, state: State, action) -> str:
        """The player's own choices name their cards as the rules' words do (State.describe)."""
        return state.describe(action)

    def destination_text(self, state: State, dest: Destination) -> str:
        action = dest.action
        return f"to {action.to}" if isinstance(action, Move) else self.action_text(state, action)

    def menu_title(self, state: State) -> str:
        return {Phase.TURN: "roll or fly:", Phase.TWIST: "twist Kong:", Phase.CLIMB: "climb:",
                Phase.SAFETY_NET: "Safety Net?", Phase.DISCARD: "discard:", Phase.ATTACK: "attack?",
                Phase.ESCAPE: "escape?"}.get(state.phase, "choose:")

    def result(self, state: State) -> str:
        if state.kong_won:
            return "King Kong reaches the top and wins!"
        names = " and ".join(COLOURS[p] for p in state.winners)
        return f"{names} {'share the victory' if len(state.winners) > 1 else 'wins'}!"

    def chance_prompt(self, state: State) -> str:
        who = COLOURS[state.chance_player]
        if state.chance_event == "die":
            return f"{who}: press Space to roll the die"
        return f"{who}: press Space to spin the spinner ({'outer' if state.chance_event == 'spin-outer' else 'inner'} circle)"

    def move_prompt(self, state: State) -> str:
        if state.phase is Phase.MOVE:
            return f"{COLOURS[state.current]}: die {state.roll} - click your pawn, then a lit space"
        if self.destinations(state, state.current):
            return f"{COLOURS[state.current]}: choose (numbered buttons, or click your pawn)"
        what = {Phase.DISCARD: "choose the cards to discard", Phase.TWIST: "choose Kong's twist",
                Phase.CLIMB: "choose Kong's climb", Phase.SAFETY_NET: "play the Safety Net or not"}
        return f"{COLOURS[state.current]}: {what.get(state.phase, 'choose')} (numbered buttons)"


def _short(deck, card: int) -> str:
    return str(deck.cards[card])
