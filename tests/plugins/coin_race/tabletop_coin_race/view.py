"""The coin race in the window: the board with its two lanes of squares, the two pawns and the coin's
tray beside it, from a CoinTable (a replay's: its recorded scene, laid out by a CoinLayout)."""
from __future__ import annotations

from tabletop.gamekit.view.adapter import TableAdapter
from tabletop.gamekit.view.places import Destination, Label

from tabletop_coin_race.layout import BOARD_THICKNESS, PAWN_HEIGHT, PAWN_RADIUS, SQUARE, TRAY_HALF, CoinLayout
from tabletop_coin_race.rules import COLOURS, Race, Step
from tabletop_coin_race.seats import SEATS

PAWN_RGB = {"red": (0.85, 0.14, 0.10), "blue": (0.2, 0.45, 0.95)}
LANE_RGB = {"red": (0.95, 0.72, 0.66), "blue": (0.68, 0.78, 0.97)}
BOARD_RGB = (0.93, 0.88, 0.74)
GOAL_RGB = (0.9, 0.72, 0.2)
COIN_RGB = (0.85, 0.68, 0.25)        # a brass coin ...
HEADS_RGB = (0.45, 0.3, 0.08)        # ... with a dark disc on its top face, so top and bottom read apart
FELT_RGB = (0.12, 0.36, 0.2)
COIN = "thrown"                      # the coin's body (tabletop.sim.devices.throw.BODY, which loads PyBullet)
FLOOR_Z = -0.0205


class CoinRaceAdapter(TableAdapter):
    """What the window needs to know about the coin race."""

    title = "Coin race"
    chance_button = "flip the coin"
    after_chance = "steps once the coin comes up top"
    marker_radius = PAWN_RADIUS * 1.3
    marker_drop = PAWN_HEIGHT / 2
    follow_distance = 0.35
    seat_kinds = SEATS
    help_lines = ["", "Coin race", "  Space flips the coin: on top step 1 or 2 (click your pawn, then a lit square);",
                  "  on bottom or side the turn passes. First pawn on the goal wins."]

    def __init__(self, goal: int, scene=None):
        self.game = Race(goal)
        if scene is None:
            from tabletop_coin_race.table import CoinPhysics, CoinTable

            self.source_class = CoinPhysics
            self.table = CoinTable(goal)
            self.worlds = (self.table.world,)
        else:
            self.table = CoinLayout(goal)
            self.worlds = (scene,)
        self.scene = scene
        self.piece_bodies = self.table.pawns

    def build(self, app) -> None:
        app.floor(z=FLOOR_Z)
        self.add_world_bodies(app, self.body_colors())
        app.casts_no_shadow(app.nodes["board"])
        self.pickable_pieces(app, PAWN_RADIUS * 1.4)
        self.decorate_body(app, COIN)
        self._squares(app)
        app.camera.set_home(*self.camera_home())

    def body_colors(self) -> dict[str, tuple]:
        colors = {"board": BOARD_RGB, "surface": FELT_RGB, COIN: COIN_RGB}
        colors.update({name: PAWN_RGB[c] for name, c in zip(self.piece_bodies, COLOURS)})
        return colors

    def camera_home(self) -> tuple:
        left, right = -TRAY_HALF, self.table.centre[0] + self.table.length / 2
        return ((left + right) / 2, 0.02, 0.0), 0.5 * (right - left), 0.0, 55.0

    def art_meshes(self) -> list[dict]:
        """Each lane's squares painted on the board, the goal's gold."""
        t = self.table
        out = []
        for player, colour in enumerate(COLOURS):
            parts, goal = [], []
            for square in range(t.goal + 1):
                x, y = t.square(player, square)
                part = {"kind": "box", "half": [SQUARE * 0.45, SQUARE * 0.45, 0.0005],
                        "pos": [x, y, BOARD_THICKNESS + 0.0005], "orn": [0.0, 0.0, 0.0, 1.0]}
                (goal if square == t.goal else parts).append(part)
            out += [{"name": f"lane-{colour}", "parts": parts, "color": LANE_RGB[colour]},
                    {"name": f"goal-{colour}", "parts": goal, "color": GOAL_RGB}]
        return out

    def _squares(self, app) -> None:
        """Each lane's squares painted on the board (art_meshes), numbered (labels)."""
        for art in self.art_meshes():
            self.draw_art(app, art)
        self.draw_labels(app, self.labels())

    def labels(self) -> list[Label]:
        """Each lane's squares numbered."""
        t, out = self.table, []
        for player in range(len(COLOURS)):
            for square in range(t.goal + 1):
                x, y = t.square(player, square)
                out.append(Label(str(square), (x, y - 0.62 * SQUARE if player == 0 else y + 0.5 * SQUARE,
                                               BOARD_THICKNESS + 0.0012), 0.012, (0.2, 0.15, 0.1, 1)))
        return out

    def decorate_body(self, app, name: str) -> None:
        """The coin's top face marked (a dark disc), so the side it lands on can be read."""
        from tabletop.sim.view.geometry import track_node

        if name != COIN or name not in app.nodes or not app.nodes[name].find("heads").is_empty():
            return
        from tabletop.gamekit.devices import default_spec
        from tabletop.sim.spec import load_toml

        coin = load_toml(default_spec("coin")).table("shape")
        radius, height = coin.number("radius"), coin.number("height")
        part = {"kind": "cylinder", "radius": 0.6 * radius, "length": 0.0003, "pos": [0.0, 0.0, height / 2 + 0.00016],
                "orn": [0.0, 0.0, 0.0, 1.0]}
        heads = track_node("heads", [part])
        heads.reparent_to(app.nodes[name])
        heads.set_color(*HEADS_RGB, 1)

    def motion_color(self, state, event: str, name: str):
        return COIN_RGB if name == COIN else None

    # -- pieces ----------------------------------------------------------------------------
    def piece_positions(self, state) -> dict[int, tuple]:
        return {p: self.table.pawn_position(p, square) for p, square in enumerate(state.pos)}

    def destinations(self, state, piece: int) -> list[Destination]:
        if state.is_terminal() or state.is_chance_node() or piece != state.current:
            return []
        here = state.pos[piece]
        out = []
        for action in state.legal_actions():
            if isinstance(action, Step):
                to = min(self.game.goal, here + action.spaces)
                out.append(Destination(action, self.table.pawn_position(piece, to), f"square {to}"))
        return out

    def owner(self, piece: int) -> int:
        return piece

    def seat_name(self, player: int) -> str:
        return COLOURS[player]

    # -- text ------------------------------------------------------------------------------
    def status(self, state) -> str:
        where = ", ".join(f"{c} {state.pos[p]}/{self.game.goal}" for p, c in enumerate(COLOURS))
        if state.is_terminal():
            return f"Coin race - over ({where})"
        last = f", last flip {state.last}" if state.last else ""
        doing = "steps" if state.flipped else "flips"
        return f"Coin race ({where}{last}): {COLOURS[state.current]} {doing}"

    def players(self, state, kinds, viewer=()) -> str:
        return "\n".join(f"{c:5s} {kinds[p]:6s} square {state.pos[p]} of {self.game.goal}"
                         for p, c in enumerate(COLOURS))
