"""The Knossos Game in the window: the board with its fourteen sites, the bridge and the pieces,
and the throw sticks' tray beside it, from a KnossosTable (a replay's: of its recorded scene, laid
out by a KnossosLayout)."""
from __future__ import annotations

import math

from tabletop.games.knossos.ai import SEATS
from tabletop.games.knossos.rules import COLOURS, OFF, START, Move, Phase, State
from tabletop.games.knossos.layout import BOARD_CENTRE, BOARD_THICKNESS, PIECE_HEIGHT, PIECE_RADIUS, KnossosLayout
from tabletop.games.knossos.board import load_board
from tabletop.games.view.adapter import TableAdapter
from tabletop.games.view.controller import Destination
from tabletop.sim.view.geometry import track_node

PIECE_RGB = {"red": (0.80, 0.14, 0.10), "blue": (0.12, 0.28, 0.80)}
# after the Knossos gaming board (Heraklion museum): ivory ground, gold frames, lapis and crystal inlays
BOARD_RGB = (0.86, 0.8, 0.66)           # ivory
GOLD_RGB = (0.83, 0.64, 0.24)
SITE_RGB = (0.16, 0.27, 0.6)            # lapis lazuli
CRYSTAL_RGB = (0.78, 0.86, 0.9)         # rock crystal: the safe spaces and the apex
FLAT_RGB = (0.93, 0.86, 0.7)            # a stick's flat face (pale, split wood); the rounded back is dark
SITE_HALF = 0.042          # painted squares of the sites (m)
RIM = 0.006                # the gold frame round each inlay (m)


class KnossosAdapter(TableAdapter):
    """What the window needs to know about the Knossos Game."""

    title = "Knossos Game"
    game_name = "knossos"
    chance_button = "Throw the sticks  [Space]"
    marker_radius = PIECE_RADIUS * 1.1
    marker_drop = PIECE_HEIGHT / 2
    follow_distance = 0.7
    seat_kinds = SEATS
    help_lines = [
        "",
        "Knossos (Hillbom)",
        "  Space throws the two sticks: two round sides 1, one flat 2, two flat 3 (and throw again).",
        "  Click one of your pieces, then a lit space. The bridge to 10 needs a 3; 12 and 13 are safe;",
        "  exit from the apex (11) with an exact throw. First to win three games wins the match.",
    ]

    def __init__(self, players: int, games_to_win: int, scene=None):
        from tabletop.games.knossos.session import make_game

        self.game = make_game(games_to_win)
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
        app.floor()
        colors = {"board": BOARD_RGB}
        for i, name in enumerate(self.piece_bodies):
            colors[name] = PIECE_RGB[COLOURS[i // 2]]
        self.add_world_bodies(app, colors)
        for name in ("board", "sticks_tray"):
            app.casts_no_shadow(app.nodes[name])
            app.draw_late(app.nodes[name])
        self.pickable_pieces(app, PIECE_RADIUS * 1.3)
        self._decorate(app)
        app.camera.set_home((0.40, -0.12, 0.0), 2.35, 0.0, 60.0)

    def _decorate(self, app) -> None:
        """The board's inlay: each site a lapis square (the safe spaces and the apex rock crystal) in a
        gold frame, a gold border, the bridge drawn as a gold span with lapis rungs, the site numbers,
        each player's start beside its wing and the exit beyond the apex."""
        cx, cy = BOARD_CENTRE
        z = BOARD_THICKNESS
        b = self.board

        def box(x, y, hx, hy, dz):
            return {"kind": "box", "half": [hx, hy, 0.0005], "pos": [cx + x, cy + y, z + dz], "orn": [0.0, 0.0, 0.0, 1.0]}

        crystal = {b.apex} | {t.routes[0][-2] for t in b.tracks}            # the apex and the safe spaces
        gold = [box(x, y, SITE_HALF + RIM, SITE_HALF + RIM, 0.0004) for x, y in b.positions]
        lapis = [box(x, y, SITE_HALF, SITE_HALF, 0.0010) for s, (x, y) in enumerate(b.positions) if s not in crystal]
        clear = [box(x, y, SITE_HALF, SITE_HALF, 0.0010) for s, (x, y) in enumerate(b.positions) if s in crystal]
        sx, sy = b.size
        m = 0.012
        gold += [box(0.0, sy / 2 - m, sx / 2 - 0.004, 0.004, 0.0004), box(0.0, -sy / 2 + m, sx / 2 - 0.004, 0.004, 0.0004),
                 box(sx / 2 - m, 0.0, 0.004, sy / 2 - 0.004, 0.0004), box(-sx / 2 + m, 0.0, 0.004, sy / 2 - 0.004, 0.0004)]
        (x10, y10) = b.positions[b.after_bridge]
        y0 = max(b.positions[s][1] for s in b.bridge_from) + SITE_HALF + RIM
        y1 = y10 - SITE_HALF - RIM
        gold.append(box(x10, (y0 + y1) / 2, 0.018, (y1 - y0) / 2, 0.0004))
        rungs = max(2, int((y1 - y0) / 0.02))
        lapis += [box(x10, y0 + (y1 - y0) * (k + 0.5) / rungs, 0.013, 0.004, 0.0010) for k in range(rungs)]
        for name, parts, rgb in (("board-gold", gold, GOLD_RGB), ("board-lapis", lapis, SITE_RGB),
                                 ("board-crystal", clear, CRYSTAL_RGB)):
            node = track_node(name, parts)
            node.reparent_to(app.render)
            node.set_color(*rgb, 1)
            app.casts_no_shadow(node)
        for site, (x, y) in enumerate(b.positions):
            ink = (0.15, 0.2, 0.35, 1) if site in crystal else (0.97, 0.9, 0.7, 1)
            app.label(str(site), (cx + x - SITE_HALF * 0.6, cy + y - SITE_HALF * 0.6, z + 0.0016), scale=0.026, color=ink)
        for player, colour in enumerate(COLOURS):
            sx0, sy0 = b.tracks[player].start
            app.label(f"{colour} enters", (cx + sx0, cy + sy0 - 0.05, z + 0.001), scale=0.024,
                      color=(*PIECE_RGB[colour], 1))
        ex, ey = b.exit_at
        app.label("exit", (cx + ex, cy + ey + 0.035, z + 0.001), scale=0.024, color=(0.35, 0.25, 0.1, 1))

    def decorate_body(self, app, name: str) -> None:
        """A stick's flat face pale (split wood), so the side that lands up can be told at a glance."""
        if name not in app.nodes or not name.startswith("stick"):
            return
        from tabletop.games.devices import default_spec
        from tabletop.sim.spec import load_toml

        stick = load_toml(default_spec("sticks")).table("stick")
        length, radius = stick.number("length"), stick.number("radius")
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

    # -- chance ----------------------------------------------------------------------------
    def needs_gesture(self, state: State) -> bool:
        return state.chance_event == "sticks"

    def follow_track(self, state: State, event: str, motion) -> str | None:
        return next(iter(sorted(motion.looks)), None)

    # -- text ------------------------------------------------------------------------------
    def status(self, state: State) -> str:
        score = " - ".join(f"{COLOURS[p]} {state.score[p]}" for p in range(len(state.score)))
        if state.is_terminal():
            return f"Knossos - match over ({score})"
        who = COLOURS[state.current]
        doing = "throws the sticks" if state.phase is Phase.THROW else f"moves (throw: {state.throw})"
        return f"Knossos - game {state.game_number} ({score}): {who} {doing}"

    def players(self, state: State, kinds) -> str:
        lines = []
        for p, colour in enumerate(COLOURS):
            mine = state.pos[2 * p:2 * p + 2]
            where = ", ".join("waiting" if s == START else "off" if s == OFF else f"on {s}" for s in mine)
            lines.append(f"{colour:5s} {kinds[p]:6s} games {state.score[p]}/{self.game.games_to_win}  {where}")
        return "\n".join(lines)

    def record_config(self, seats, seed: int) -> tuple[dict, str]:
        """The replay's config and banner, as headless play writes them."""
        from tabletop.games.knossos.session import banner

        config = {"games_to_win": self.game.games_to_win, "seats": list(seats), "outcomes": "physics"}
        return config, banner(list(seats), seed, self.game.games_to_win, "physics")

    def result_lines(self, state: State) -> list[str]:
        from tabletop.games.knossos.session import result_lines

        return result_lines(state)

    def result(self, state: State) -> str:
        return f"{COLOURS[state.winner]} wins the match!"

    def chance_prompt(self, state: State) -> str:
        return f"{COLOURS[state.current]}: press Space to throw the sticks"

    def move_prompt(self, state: State) -> str:
        return f"{COLOURS[state.current]}: throw {state.throw} - click one of your pieces"
