"""The Knossos Game in the window: the board with its fourteen sites, the bridge and the pieces,
and the throw sticks' tray beside it, from a KnossosTable (a replay's: of its recorded scene, laid
out by a KnossosLayout)."""
from __future__ import annotations

import math

from tabletop.games.knossos.ai import SEATS
from tabletop.games.knossos.rules import COLOURS, OFF, PAST_APEX, START, Game, Move, Phase, State
from tabletop.games.knossos.layout import BOARD_CENTRE, BOARD_THICKNESS, PIECE_HEIGHT, PIECE_RADIUS, KnossosLayout
from tabletop.games.knossos.board import load_board
from tabletop.gamekit.view.adapter import TableAdapter
from tabletop.gamekit.view.places import Destination, Label

PIECE_RGB = {"red": (0.85, 0.14, 0.10), "blue": (0.22, 0.55, 1.0)}   # the blue lighter than the lapis it stands on
# after the Knossos gaming board (Heraklion museum): ivory ground, gold frames, lapis and crystal inlays
BOARD_RGB = (0.86, 0.8, 0.66)           # ivory
GOLD_RGB = (0.83, 0.64, 0.24)
SITE_RGB = (0.16, 0.27, 0.6)            # lapis lazuli
CRYSTAL_RGB = (0.6, 0.76, 0.9)         # rock crystal: the safe spaces and the apex
FLAT_RGB = (0.88, 0.78, 0.6)           # a stick's flat face (pale, split wood); the rounded back is dark
BACK_RGB = (0.32, 0.19, 0.09)            # its rounded back: the dark, oiled bark side
STICKS = ("stick0", "stick1")  # the sticks device's bodies (tabletop.sim.devices.sticks.STICKS, which loads PyBullet)
PLAQUE = (*BOARD_RGB, 1)   # the ivory plaques naming the way in and the way out beside the board
FLOOR_Z = -0.0205          # the cloth under the tray and the board (m)
SITE_HALF = 0.042          # painted squares of the sites (m)
RIM = 0.006                # the gold frame round each inlay (m)
STRICT_HELP = "  exit only from the apex (11), by a throw of 1 (the strict exit rule)."


class KnossosAdapter(TableAdapter):
    """What the window needs to know about the Knossos Game."""

    title = "Knossos Game"
    game_name = "knossos"
    chance_button = "Throw the sticks  [Space]"
    after_chance = "moves after the throw"
    marker_radius = PIECE_RADIUS * 1.1
    marker_drop = PIECE_HEIGHT / 2
    follow_distance = 0.7
    seat_kinds = SEATS
    help_lines = [
        "",
        "Knossos (Hillbom)",
        "  Space throws the two sticks: two round sides 1, one flat 2, two flat 3 (and throw again).",
        "  Click one of your pieces, then a lit space. The bridge to 10 needs a 3; 12 and 13 are safe;",
        "  exit beyond the apex (11) by the exact throw: 1 from 11, 2 from 12 or 13, 3 from 10.",
        "  First to win three games wins the match.",
    ]

    def __init__(self, players: int, games_to_win: int, scene=None, exit_rule: str = PAST_APEX):
        self.game = Game(games_to_win=games_to_win, exit_rule=exit_rule)
        if exit_rule != PAST_APEX:
            self.help_lines = [*self.help_lines[:-2], STRICT_HELP, self.help_lines[-1]]
        pieces = len(self.game.new_initial_state().pos)
        if scene is None:
            from tabletop.games.knossos.table import KnossosTable, PhysicsOutcomes

            self.source_class = PhysicsOutcomes
            self.table = KnossosTable(pieces, load_board())
            self.worlds = (self.table.world,)
        else:
            self.table = KnossosLayout(pieces, load_board())
            self.worlds = (scene,)
        self.scene = scene
        self.board = self.table.board
        self.piece_bodies = self.table.pieces

    def build(self, app) -> None:
        app.floor(z=FLOOR_Z)
        self.add_world_bodies(app, self.body_colors())
        for name in ("board", "sticks_tray"):
            app.casts_no_shadow(app.nodes[name])
            app.draw_late(app.nodes[name])
        self.pickable_pieces(app, PIECE_RADIUS * 1.3)
        for name in STICKS:                   # the sticks lying in the tray before the first throw
            self.decorate_body(app, name)
        self._decorate(app)
        # the board and its words beside it: the sticks show in the close-up, and the camera follows a throw
        app.frame_only(["board"], [(l.at[0], l.at[1] + dy * l.size, l.at[2]) for l in self.labels() for dy in (-1, 1)])
        app.camera.set_home(*self.camera_home())

    def body_colors(self) -> dict[str, tuple]:
        colors = {"board": BOARD_RGB}
        for i, name in enumerate(self.piece_bodies):
            colors[name] = PIECE_RGB[COLOURS[i // 2]]
        return colors

    def camera_home(self) -> tuple:
        return (0.40, -0.12, 0.0), 2.35, 0.0, 68.0

    def art_meshes(self) -> list[dict]:
        """The board's inlay (_inlay)."""
        return self._inlay()

    def _decorate(self, app) -> None:
        """The board's inlay (_inlay), each site numbered, where each player enters and where pieces
        leave, and the sticks' close-up."""
        for art in self._inlay():
            self.draw_art(app, art)
        self.draw_labels(app, self.labels())
        self._sticks_inset(app)

    def labels(self) -> list[Label]:
        """Each site's number, where each player enters and where pieces leave."""
        cx, cy = BOARD_CENTRE
        z = BOARD_THICKNESS
        b = self.board
        out = [Label(str(site), (cx + x, cy + y - 0.0135, z + 0.0026), 0.04, (0.2, 0.12, 0.04, 1))
               for site, (x, y) in enumerate(b.positions)]
        for player, colour in enumerate(COLOURS):
            sx0, sy0 = b.tracks[player].start
            out.append(Label(f"{colour} enters", (cx + sx0, cy + sy0 - 0.05, self._surface(sx0, sy0 - 0.05)), 0.045,
                             (*PIECE_RGB[colour], 1), plate=PLAQUE))
        ex, ey = b.exit_at
        beside = 2 * 2.2 * PIECE_RADIUS + 0.045          # right of the four borne-off pieces' row
        out.append(Label("exit", (cx + ex + beside, cy + ey - 0.01, self._surface(ex + beside, ey)), 0.045,
                         (0.35, 0.25, 0.1, 1), plate=PLAQUE))
        return out

    def _inlay(self) -> list[dict]:
        """The board's inlay, after the museum board: each site an inlaid medallion (a lapis ground
        in a gold frame, a rosette of crystal petals round a gold boss bearing the site's number),
        the four of the diamond round, the safe spaces and the apex on rock crystal; fluted crystal
        bars in gold between the central area and the diamond; a panel of daisies between the
        wings; a gold border; the bridge a gold span with lapis rungs. Everything is placed from the
        board's data."""
        cx, cy = BOARD_CENTRE
        z = BOARD_THICKNESS
        b = self.board
        parts: dict[str, list] = {"gold": [], "lapis": [], "crystal": [], "ivory": []}

        def box(colour, x, y, hx, hy, dz):
            parts[colour].append({"kind": "box", "half": [hx, hy, 0.0005], "pos": [cx + x, cy + y, z + dz],
                                  "orn": [0.0, 0.0, 0.0, 1.0]})

        def disc(colour, x, y, r, dz):
            parts[colour].append({"kind": "cylinder", "radius": r, "length": 0.0004, "pos": [cx + x, cy + y, z + dz],
                                  "orn": [0.0, 0.0, 0.0, 1.0]})

        def rosette(x, y, r, petals, petal, boss):
            size = min(0.25, 0.75 * math.sin(math.pi / petals))         # petals that do not touch
            for k in range(petals):
                a = 2 * math.pi * (k + 0.5) / petals
                disc(petal, x + 0.72 * r * math.cos(a), y + 0.72 * r * math.sin(a), size * r, 0.0018)
            disc(boss, x, y, 0.5 * r, 0.0022)

        diamond = {b.after_bridge, b.apex} | {t.routes[0][-2] for t in b.tracks}
        crystal = {b.apex} | {t.routes[0][-2] for t in b.tracks}          # the apex and the safe spaces
        for site, (x, y) in enumerate(b.positions):
            ground, petal = ("crystal", "lapis") if site in crystal else ("lapis", "crystal")
            if site in diamond:
                disc("gold", x, y, SITE_HALF + RIM, 0.0004)
                disc(ground, x, y, SITE_HALF, 0.0010)
                rosette(x, y, SITE_HALF, 10, petal, "gold")
            else:
                box("gold", x, y, SITE_HALF + RIM, SITE_HALF + RIM, 0.0004)
                box(ground, x, y, SITE_HALF, SITE_HALF, 0.0010)
                rosette(x, y, SITE_HALF * 0.95, 8, petal, "gold")
        sx, sy = b.size
        m = 0.012
        box("gold", 0.0, sy / 2 - m, sx / 2 - 0.004, 0.004, 0.0004)
        box("gold", 0.0, -sy / 2 + m, sx / 2 - 0.004, 0.004, 0.0004)
        box("gold", sx / 2 - m, 0.0, 0.004, sy / 2 - 0.004, 0.0004)
        box("gold", -sx / 2 + m, 0.0, 0.004, sy / 2 - 0.004, 0.0004)
        # the bridge from the central area up to the first space after it
        (x10, y10) = b.positions[b.after_bridge]
        y0 = max(b.positions[s][1] for s in b.bridge_from) + SITE_HALF + RIM
        y1 = y10 - SITE_HALF - RIM
        box("gold", x10, (y0 + y1) / 2, 0.018, (y1 - y0) / 2, 0.0004)
        rungs = max(2, int((y1 - y0) / 0.02))
        for k in range(rungs):
            box("lapis", x10, y0 + (y1 - y0) * (k + 0.5) / rungs, 0.013, 0.004, 0.0010)
        # fluted crystal bars beside the bridge, over the wings' columns, from the row up to the safe spaces
        frame = SITE_HALF + RIM
        for track in b.tracks:
            bx = b.positions[track.wing[0]][0]
            lo = max(b.positions[s][1] for s in b.central) + frame + 0.012
            hi = b.positions[track.safe][1] - frame - 0.012
            box("gold", bx, (lo + hi) / 2, frame, (hi - lo) / 2, 0.0004)
            bars = 5
            w = 2 * SITE_HALF / bars
            for k in range(bars):
                box("crystal", bx - SITE_HALF + w * (k + 0.5), (lo + hi) / 2, w / 2 - 0.0025,
                    (hi - lo) / 2 - RIM, 0.0010)
        # a panel of daisies between the two wings
        xs = [b.positions[t.wing[0]][0] for t in b.tracks]
        ys = [b.positions[s][1] for t in b.tracks for s in t.wing]
        px0, px1 = min(xs) + frame + 0.014, max(xs) - frame - 0.014
        py0, py1 = min(ys) - SITE_HALF, max(ys) + SITE_HALF
        box("gold", (px0 + px1) / 2, (py0 + py1) / 2, (px1 - px0) / 2, (py1 - py0) / 2, 0.0004)
        box("lapis", (px0 + px1) / 2, (py0 + py1) / 2, (px1 - px0) / 2 - RIM, (py1 - py0) / 2 - RIM, 0.0010)
        cols, rows = 3, 2
        r = min((px1 - px0) / cols, (py1 - py0) / rows) * 0.42
        for i in range(cols):
            for k in range(rows):
                x = px0 + (px1 - px0) * (i + 0.5) / cols
                y = py0 + (py1 - py0) * (k + 0.5) / rows
                rosette(x, y, r, 12, "ivory", "gold")
        return [{"name": f"board-{name}", "parts": parts[name], "color": rgb}
                for name, rgb in (("gold", GOLD_RGB), ("lapis", SITE_RGB), ("crystal", CRYSTAL_RGB), ("ivory", BOARD_RGB))]

    def _stick(self):
        from tabletop.gamekit.devices import default_spec
        from tabletop.sim.spec import load_toml

        return load_toml(default_spec("sticks")).table("stick")

    def stick_length(self) -> float:
        return self._stick().number("length")

    def stick_radius(self) -> float:
        return self._stick().number("radius")

    def _surface(self, x: float, y: float) -> float:
        """The height of what lies at board point (x, y): the board's face, or the table beside it."""
        sx, sy = self.board.size
        return (BOARD_THICKNESS if abs(x) <= sx / 2 and abs(y) <= sy / 2 else FLOOR_Z) + 0.0015

    def _sticks_inset(self, app) -> None:
        """A close-up of the sticks in the right column above the buttons: a camera straight above
        the two sticks' midpoint, high enough to hold both, so the side each shows can be read."""
        from tabletop.sim.view.hud import inset_region

        region = inset_region(app.base.getAspectRatio())
        cam = app.inset(region, fov=40.0, clear=(0.1, 0.08, 0.06))
        cam.set_hpr(0.0, -90.0, 0.0)
        half_fov = math.radians(20.0)
        wide = app.base.getAspectRatio() * (region[1] - region[0]) / (region[3] - region[2])
        half = 0.6 * self.stick_length() + 0.01       # a stick's half length, turned any way, and a margin

        def follow():
            nodes = [app.nodes[n] for n in STICKS if n in app.nodes]
            if nodes:
                points = [n.get_pos(app.render) for n in nodes]
                mx = sum(p.x for p in points) / len(points)
                my = sum(p.y for p in points) / len(points)
                reach = max(max((abs(p.x - mx) + half) / wide, abs(p.y - my) + half) for p in points)
                cam.set_pos(mx, my, max(p.z for p in points) + reach / math.tan(half_fov))

        app.before_draw(follow, "sticks-inset")

    def decorate_body(self, app, name: str) -> None:
        """A stick's flat face pale (split wood) and its rounded back dark, so the side that lands
        up can be told at a glance."""
        from tabletop.sim.view.geometry import track_node

        if name not in app.nodes or name not in STICKS or not app.nodes[name].find(f"{name}-flat").is_empty():
            return
        app.recolor(name, BACK_RGB)
        length, radius = self.stick_length(), self.stick_radius()
        d = 4.0 * radius / (3.0 * math.pi)             # the flat face lies this far below the centre of mass
        face = track_node(f"{name}-flat", [{"kind": "box", "half": [length / 2 - 0.001, radius - 0.0008, 0.0003],
                                            "pos": [0.0, 0.0, -d - 0.0002], "orn": [0.0, 0.0, 0.0, 1.0]}])
        face.reparent_to(app.nodes[name])
        face.set_color(*FLAT_RGB, 1)

    # -- pieces ----------------------------------------------------------------------------
    def piece_positions(self, state: State) -> dict[int, tuple]:
        return {i: self.table.piece_position(i, site) for i, site in enumerate(state.pos)}

    def destinations(self, state: State, piece: int) -> list[Destination]:
        out = []
        for action in state.legal_actions():
            if isinstance(action, Move) and action.piece == piece:
                text = "off" if action.to == OFF else str(action.to)
                out.append(Destination(action, self.table.piece_position(piece, action.to), text))
        return out

    def piece_actions(self, state: State, piece: int) -> list[Move]:
        """The moves the throw would give `piece` along its owner's track (for the rules' reason)."""
        if state.phase is not Phase.MOVE:
            return []
        here = state.pos[piece]
        reach = self.game.reach[self.game.owner(piece)].get(here, {}) if here != OFF else {}
        return [Move(piece, r.to) for r in reach.get(state.throw, ())] or [Move(piece, OFF)]

    def owner(self, piece: int) -> int:
        return self.game.owner(piece)

    # -- chance ----------------------------------------------------------------------------
    def needs_gesture(self, state: State) -> bool:
        return state.chance_event == "sticks"

    def follow_track(self, state: State, event: str, motion) -> str | None:
        """None: the camera stays on the board and the tray while the sticks fly (following them
        from close by, the tray's floor filled the picture and the board left it); the close-up
        in the right column (_sticks_inset) follows the sticks."""
        return None

    # -- text ------------------------------------------------------------------------------
    def status(self, state: State) -> str:
        score = " - ".join(f"{COLOURS[p]} {state.score[p]}" for p in range(len(state.score)))
        if state.is_terminal():
            return f"Knossos - match over ({score})"
        who = COLOURS[state.current]
        doing = "throws the sticks" if state.phase is Phase.THROW else f"moves (throw: {state.throw})"
        return f"Knossos - game {state.game_number} ({score}): {who} {doing}"

    def players(self, state: State, kinds, viewer=()) -> str:
        lines = []
        for p, colour in enumerate(COLOURS):
            mine = state.pos[2 * p:2 * p + 2]
            waiting, off = mine.count(START), mine.count(OFF)
            where = [f"on {s}" for s in mine if s not in (START, OFF)]
            where += [f"{waiting} to enter"] if waiting else []
            where += [f"{off} off"] if off else []
            lines.append(f"{colour:5s} {kinds[p]:6s} games {state.score[p]}/{self.game.games_to_win}  "
                         f"{', '.join(where)}")
        return "\n".join(lines)

    def seat_name(self, player: int) -> str:
        return COLOURS[player]

    def action_text(self, state: State, action) -> str:
        """A move in the log's words: "enter to space 6 (red's wing)", "move 2 to space 5 (central)",
        "bear off"."""
        if not isinstance(action, Move):
            return str(action)
        from tabletop.games.knossos.rules import describe_site

        where = describe_site(self.game, action.to)
        here = state.pos[action.piece]
        if action.to == OFF:
            return f"bear off with {state.throw}"
        if here == START:
            return f"enter with {state.throw} to {where}"
        return f"move {state.throw} to {where}"

    def destination_text(self, state: State, dest: Destination) -> str:
        return self.action_text(state, dest.action)

    def result(self, state: State) -> str:
        return f"{COLOURS[state.winner]} wins the match!"

    def chance_prompt(self, state: State) -> str:
        return f"{COLOURS[state.current]}: press Space to throw the sticks"

    def move_prompt(self, state: State) -> str:
        return f"{COLOURS[state.current]}: throw {state.throw} - click one of your pieces"
