"""King of the Hill in the window: the hill, the Tipper and the marbles of a HillTable (a replay's:
of its recorded scene, laid out by a HillLayout), with seat numbers, edge arrows, Tipper slot
numbers and the players' drawers labelled."""
from __future__ import annotations

import math

import numpy as np

from tabletop.games.king_of_the_hill.ai import SEATS
from tabletop.games.king_of_the_hill.art import (cave_floor, cave_names, cave_sign_places, SurfaceGrid, hidden_from, paint_caves,
                                                 paint_hill, sign_places, skin, surface_height, zone_centre)
from tabletop.games.king_of_the_hill.rules import COLOURS, DRAWER, IN_CRATER, Game, Move, Phase, State, Variant
from tabletop.games.king_of_the_hill.layout import TIPPER_ORIGIN, HillLayout
from tabletop.sim.devices.tipper_shape import rot_y
from tabletop.gamekit.view.adapter import TableAdapter
from tabletop.gamekit.view.places import Destination, Label

from tabletop.sim.scene import look, poses

MARBLE_RGB = {"red": (0.86, 0.12, 0.10), "blue": (0.12, 0.32, 0.90), "green": (0.10, 0.68, 0.22),
              "yellow": (0.96, 0.82, 0.10)}
TIPPER_RGB = (0.92, 0.52, 0.10)
TRAY_FLOOR_RGB = (0.98, 0.86, 0.55)
PEG_RGB = (0.72, 0.30, 0.06)          # the walls' orange, darker: a peg reads against the pale floor
STAND_RGB = (0.30, 0.24, 0.20)
DRAWER_RGB = (0.42, 0.27, 0.14)
CAVE_ALPHA = 0.8                        # how strongly a cave seen through the hill covers the paint above it
BALL_RGB = (0.08, 0.10, 0.15)         # dark smoky glass: it reads on the pale floor and among the pegs
BALL_SHELL_RGBA = (0.10, 0.12, 0.17, 0.6)   # ... its shell too (glassy's pale tint read as a grey spot)
LABEL_HEIGHT = 0.013         # path numbers (m): at least 12 px tall at the home camera in 1280x720 (tests/test_view.py)
SPACE_TEXT = (1.0, 1.0, 1.0, 1.0)
ZONE_TEXT = (1.0, 0.93, 0.45, 1.0)
START_TEXT = (1.0, 0.25, 0.2, 1.0)        # red: START partly overlies its white seat
SLOT_LABEL_SCALE = 0.016     # the Tipper's slot numbers, on plates beyond its end walls (m)
MARKER_LIFT = 0.0012          # a lit destination's marker lies this far above the hill at every point (m)
MARKER_TILT = 25.0            # ... turned with the slope, up to this many degrees (a steeper one's would face away)
FAR_REACHES = (2.75, 3.4)     # where a number may stand while a marble is on its seat (marble radii from its centre)
CAVE_SIGN_GAP = 0.018         # clear space round a cave's name (film units, -1..1 up the picture: 6 px of 720)
HIDE_COVERED = 0.25           # a taken seat's number is hidden where another number would cover this share of it
MARBLE_GAP = 0.004            # ... and round a marble on a seat, that no number may cover


TRAY_TRACK = "tray:0"            # the Tipper's tray, which its slot labels move with


def tray_top(tray: dict) -> float:
    """The top of the Tipper's tray (its lid's) in its own frame, from its look."""
    (_, parts), = tray["tracks"].items()
    return max(p["pos"][2] + p["half"][2] for p in parts if p["kind"] == "box")


class HillAdapter(TableAdapter):
    """What the window needs to know about King of the Hill."""

    drawn_by_art = ("hill",)       # the hill is drawn as its painted skin (art_meshes)

    title = "King of the Hill"
    game_name = "king-of-the-hill"
    chance_button = "Tilt the Tipper  [Space]"
    after_chance = "moves after the tilt"
    marker_radius = 0.0095
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
        self.game = Game(players, Variant(variant))     # (the definition's window_adapter checked them)
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
        self._layout = None           # where the signs may stand (_sign_layout), once worked out
        self._sign_places = None      # the signs and where each may stand, until place_pieces lays them out
        self._signs = None            # ... and then what _measure_signs measured of them at the home camera

    # -- set-up ----------------------------------------------------------------------------
    def build(self, app) -> None:
        from tabletop.sim.view.art import glassy

        app.floor()
        self._add_hill(app)
        self._add_tray(app)
        colors = self.body_colors()
        self.add_world_bodies(app, colors, skip=self.drawn_by_art)
        for name in self.table.marbles:
            for track in app.body_tracks[name]:
                glassy(app.nodes[track], self.radius, colors[name])
        for name in ("marble", "ball"):
            self.decorate_body(app, name)
        app.casts_no_shadow(app.nodes["table"])
        app.draw_early(app.nodes["hill"], 0)
        self._add_caves(app)
        app.draw_early(app.nodes["tray:0"], 3)
        app.draw_late(app.nodes["table"], 0)
        self.pickable_pieces(app, self.radius * 1.4)
        self._add_labels(app)
        app.camera.set_home(*self.camera_home())

    def body_colors(self) -> dict[str, tuple]:
        colors = {"ball": BALL_RGB, "tray": TIPPER_RGB}
        for m, name in enumerate(self.table.marbles):
            colors[name] = MARBLE_RGB[COLOURS[self.game.owner(m)]]
        return colors

    def camera_home(self) -> tuple:
        return (0.0, -0.11, 0.0), 1.1, 0.0, 68.0

    def art_meshes(self) -> list[dict]:
        """The hill's painted skin (_hill_art) and the Tipper tray's floor and pegs (_tray_art); the
        caves seen through the hill are the window's alone."""
        return [self._hill_art(), *self._tray_art()]

    def _hill_art(self) -> dict:
        """The hill's skin (art.skin) with its paint (art.paint_hill) over it, top-down."""
        crater = self.table.crater
        canvas = paint_hill(self.board, crater, crater.base_size / 2 + 0.002)
        verts, faces = skin(crater)
        uvs = np.column_stack(canvas.uv(verts[:, 0], verts[:, 1]))
        return {"name": "hill", "vertices": verts, "faces": faces, "uv": uvs, "image": canvas.rgb,
                "color": (1.0, 1.0, 1.0)}

    def _add_hill(self, app) -> None:
        """The hill's skin, painted (art.paint_hill) and lit like the rest of the table."""
        from tabletop.sim.view.geometry import textured_node, vertex_normals
        from tabletop.sim.view.shaders import scene_shader

        art = self._hill_art()
        verts, faces = art["vertices"], art["faces"]
        node = textured_node("hill", verts, vertex_normals(verts, faces), faces, art["uv"])
        app.add_node("hill", node)
        node.set_texture(app.texture(art["image"], "hill-paint"))
        node.set_shader(scene_shader(app.shadows, textured=True))
        app.casts_no_shadow(node)

    def _add_caves(self, app) -> None:
        """The three caves, seen through the hill: each cave's floor (art.cave_floor, painted by
        art.paint_caves) drawn over the hill's skin, as a cut-away model shows what lies inside; the crater's
        marble is drawn the same way (decorate_body), so it is seen running into its cave and resting
        on a seat under the path space it will be placed on."""
        from panda3d.core import TransparencyAttrib
        from tabletop.sim.view.geometry import textured_node, vertex_normals

        crater = self.table.crater
        canvas = paint_caves(crater, crater.base_size / 2 + 0.002)
        texture = app.texture(canvas.rgb, "cave-floors")
        parts, start = [], 0
        for name in cave_names(crater):                 # one mesh: one draw
            verts, faces = cave_floor(crater, name)
            parts.append((verts, faces + start))
            start += len(verts)
        verts, faces = np.vstack([v for v, _ in parts]), np.vstack([f for _, f in parts])
        uvs = np.column_stack(canvas.uv(verts[:, 0], verts[:, 1]))
        self.caves = textured_node("caves", verts, vertex_normals(verts, faces), faces, uvs)
        self.caves.reparent_to(app.render)
        self.caves.set_texture(texture)
        self.caves.set_shader_off(1)          # unlit: an opening, not a lit trough (which reads as a log)
        self.caves.set_light_off(1)
        self.caves.set_two_sided(True)
        from panda3d.core import TransparencyAttrib

        self.caves.set_transparency(TransparencyAttrib.M_alpha)
        self.caves.set_alpha_scale(CAVE_ALPHA)   # the path painted over a cave still shows through it
        self._see_through(app, self.caves, 1)
        app.casts_no_shadow(self.caves)

    @staticmethod
    def _see_through(app, node, order: int) -> None:
        """Draw `node` right after the hill, over it (no depth test): what lies inside the hill is seen."""
        app.draw_early(node, order)
        node.set_depth_test(False)

    def decorate_body(self, app, name: str) -> None:
        """The Tipper's ball: dark smoky glass, to stand out on the pale tray; the crater's marble: glass in its owner's colour
        (motion_color), seen through the hill (_add_caves)."""
        from tabletop.sim.view.art import glassy

        if name not in ("ball", "marble"):
            return
        for track in app.body_tracks.get(name, ()):
            node = app.nodes[track]
            if name == "ball":
                glassy(node, self.table.tipper.ball_radius, BALL_RGB)
                node.set_color(*BALL_SHELL_RGBA)     # smoky all through: it reads at a glance in its slot
            else:
                if not node.has_python_tag("glass"):   # drawn for the first time during a motion
                    colour = node.get_color() if node.has_color() else (0.85, 0.85, 0.88, 1.0)
                    glassy(node, self.radius, tuple(colour)[:3])
                self._see_through(app, node, 2)

    def _tray_parts(self) -> tuple[str, dict, dict[str, list]]:
        """The Tipper's tray as it is drawn: (its track, its look, its parts by kind: "wall",
        "floor", "lid", "ridge", and "pegs", plain cylinders floor to lid in place of the capsules
        the physics is built of (their caps sunk in the floor and the lid), and without their
        millimetre-high ridges, which read as spikes from above)."""
        tray = look(self.world_of("tray"), "tray")
        tipper = self.table.tipper
        (track, parts), = tray["tracks"].items()
        top = tray_top(tray)
        posts = [rot_y((sx * x, y, 0.0), sx * tipper.slope) for x, y in tipper.pegs + tipper.bumps for sx in (1, -1)]

        def kind(p) -> str:
            box = p["kind"] == "box"
            if box and p["pos"][2] + p["half"][2] > top - 1e-4 and min(p["half"][:2]) > 0.004:
                return "lid"
            near = min(math.hypot(p["pos"][0] - q[0], p["pos"][1] - q[1]) for q in posts)
            if near < 1e-4:
                return "peg"
            if not box:
                return "wall"
            if p["pos"][2] < 0.0:          # under the floor's top: floor, or a peg's low ridge
                tilted = abs(p["orn"][3]) < 0.9999
                return "ridge" if tilted and near < tipper.peg_radius + tipper.ridge_length else "floor"
            return "wall"
        by_kind: dict[str, list] = {"wall": [], "floor": [], "lid": [], "ridge": [], "peg": []}
        for p in parts:
            by_kind[kind(p)].append(p)
        by_kind["pegs"] = [{"kind": "cylinder", "radius": tipper.peg_radius, "length": tipper.height,
                            "pos": [q[0], q[1], tipper.height / 2], "orn": [0.0, 0.0, 0.0, 1.0]} for q in posts]
        return track, tray, by_kind

    def _tray_art(self) -> list[dict]:
        """The tray's pale floor and dark orange pegs, on its track (art_meshes)."""
        track, _, parts = self._tray_parts()
        return [{"name": "tray-floor", "parts": parts["floor"], "color": TRAY_FLOOR_RGB, "parent": track},
                {"name": "tray-pegs", "parts": parts["pegs"], "color": PEG_RGB, "parent": track}]

    def extra_bodies(self) -> dict:
        """The Tipper's tray drawn as its orange walls alone (its floor and pegs are art, its clear lid
        the window's), so that the ball is seen rolling."""
        track, tray, parts = self._tray_parts()
        walls = {"material": tray["material"], "tracks": {track: parts["wall"]}}
        return {"tray": (walls, poses(self.world_of("tray"), "tray"))}

    def _add_tray(self, app) -> None:
        """The Tipper's tray: orange walls round a pale floor, dark orange round pegs (_tray_parts),
        under a clear lid (the boxes that reach the tray's top), so the ball is seen rolling."""
        from panda3d.core import TransparencyAttrib
        from tabletop.sim.view.geometry import track_node

        track, _, parts = self._tray_parts()
        app.add_body("tray", self.extra_bodies()["tray"][0], color=TIPPER_RGB)
        tray_node = app.nodes[track]
        for art in self._tray_art():
            node = track_node(art["name"], art["parts"])
            node.reparent_to(tray_node)
            node.set_color(*art["color"], 1)
            app.casts_no_shadow(node)
        lid = track_node("tray-lid", parts["lid"])
        lid.reparent_to(tray_node)
        lid.set_color(0.80, 0.90, 1.0, 0.22)
        lid.set_transparency(TransparencyAttrib.M_alpha)
        lid.set_depth_write(False)
        lid.set_bin("transparent", 10)
        self._add_stand(app)

    def _add_stand(self, app) -> None:
        """The see-saw's fixed stand: an A-frame on each side of the tray up to the pivot, and
        the axle through it."""
        from tabletop.sim.view.geometry import track_node

        tipper = self.table.tipper
        h = tipper.base_height + tipper.pivot_height
        spread = 0.6 * h
        lean = math.atan2(spread, h)
        leg = math.hypot(spread, h) / 2
        side = tipper.width / 2 + tipper.wall + 0.004
        parts = [{"kind": "cylinder", "radius": 0.004, "length": 2 * side + 0.01, "pos": [0.0, 0.0, h - 0.008],
                  "orn": [math.sin(math.pi / 4), 0.0, 0.0, math.cos(math.pi / 4)]}]
        for y in (-side, side):
            for sx in (-1, 1):
                parts.append({"kind": "box", "half": [0.003, 0.003, leg], "pos": [sx * spread / 2, y, h / 2],
                              "orn": [0.0, math.sin(sx * lean / 2), 0.0, math.cos(sx * lean / 2)]})
        stand = track_node("tipper-stand", parts)
        stand.reparent_to(app.render)
        stand.set_pos(*TIPPER_ORIGIN)
        stand.set_color(*STAND_RGB, 1)

    def _add_labels(self, app) -> None:
        """Every path space's number (START on space 0), the Finish Zone and its numbered seats,
        the caves, facing the camera; the Tipper's slot labels flat on plates beyond its end walls,
        each level with its slot, where they never cover the ball resting in one."""
        from panda3d.core import CompassEffect
        from tabletop.sim.view.art import sign

        b = self.board
        self.signs = app.render.attach_new_node("koth-signs")
        app.casts_no_shadow(self.signs)
        path, path_far, zone, zone_far, caves, _ = self._sign_layout()
        labels = {label.key: label for label in self.labels()}

        def made(key: str):
            label = labels[key]
            return sign(self.signs, label.text, label.at, label.size, label.color, key)

        self.space_signs = [made(f"space-{i}") for i in range(len(path))]
        start = self.space_signs[0]       # it stands out over the hill's foot: the slope must not cut it
        start.set_depth_test(False)
        start.set_bin("fixed", 40)
        self.zone_signs = [made(f"zone-{i + 1}") for i in range(len(zone))]
        self.finish_sign = made("finish-zone")
        self.cave_signs = [made(name) for name in caves]
        for s in self.cave_signs:          # named where the cave is drawn: through the hill
            s.set_depth_test(False)
            s.set_bin("fixed", 40)
        # each movable sign: (node, the seat a marble on which may hide it, its places near the
        # seat, its places farther out (only while a marble stands on its own seat), its own seat,
        # how much clear space it keeps round it)
        movable = []
        for i, (node, near, far) in enumerate(zip(self.space_signs, path, path_far)):
            p = tuple(b.path_positions[i])
            movable.append((node, p, near, far, p, 0.0))
        for i, (node, near, far) in enumerate(zip(self.zone_signs, zone, zone_far)):      # the Zone's stand over its seats
            movable.append((node, None, near, far, tuple(b.zone_positions[i]), 0.0))
        for node, places in zip(self.cave_signs, caves.values()):
            movable.append((node, None, places, [], None, CAVE_SIGN_GAP))
        self._sign_places = (movable, [self.finish_sign])
        # moving with the tray (a compass on it), not a child of it: the tray's bounds (the home
        # camera's frame) stay its own
        self.slot_labels = app.render.attach_new_node("tipper-slot-labels")
        self.slot_labels.set_effect(CompassEffect.make(app.nodes[TRAY_TRACK], CompassEffect.P_all))
        self.draw_labels(app, [label for label in labels.values() if label.parent == TRAY_TRACK], self.slot_labels)
        self._add_drawer(app)

    def _sign_layout(self) -> tuple:
        """Where the signs may stand (art.sign_places), worked out once: the path's places near and
        far (START's own, wider), the Zone's near and far, the caves', and the Finish Zone's."""
        if self._layout is None:
            b, crater, h = self.board, self.table.crater, LABEL_HEIGHT
            path = sign_places(b.path_positions, crater, h, avoid=b.zone_positions)
            path_far = sign_places(b.path_positions, crater, h, avoid=b.zone_positions, reaches=FAR_REACHES)
            (x0, y0, _), (x1, y1, _) = b.path_positions[0], path[0][0]
            x1, y1 = x0 + 1.5 * (x1 - x0), y0 + 1.5 * (y1 - y0)          # START is wider than a number
            path[0], path_far[0] = [(x1, y1, surface_height(crater, x1, y1) + 0.6 * h + 0.012)], []
            zone = sign_places(b.zone_positions, crater, h)
            zone_far = sign_places(b.zone_positions, crater, h, reaches=FAR_REACHES)
            c = zone_centre(b)
            inner = c[:2] / np.linalg.norm(c[:2]) * (crater.lip_radius - 0.022)
            finish = (inner[0], inner[1], crater.lip_z + 0.004)
            self._layout = (path, path_far, zone, zone_far, cave_sign_places(crater, h), finish)
        return self._layout

    def labels(self) -> list[Label]:
        """Every path space's number (START on space 0), the Finish Zone's seats numbered and the
        Zone named, the caves named, facing the viewer, each at its first place (the window then
        keeps them clear of the marbles: _arrange_signs); the Tipper's slot labels flat on plates
        beyond its end walls, each level with its slot, where they never cover the ball resting in
        one, moving with the tray."""
        path, _, zone, _, caves, finish = self._sign_layout()
        h = LABEL_HEIGHT
        out = [Label("START" if i == 0 else str(i), p[0], h, START_TEXT if i == 0 else SPACE_TEXT, flat=False,
                     key=f"space-{i}") for i, p in enumerate(path)]
        out += [Label(str(i + 1), p[0], h, ZONE_TEXT, flat=False, key=f"zone-{i + 1}") for i, p in enumerate(zone)]
        out.append(Label("FINISH ZONE", finish, h, ZONE_TEXT, flat=False, key="finish-zone"))
        out += [Label(f"cave {name[-1]}", places[0], h * 0.8, (0.85, 0.95, 0.8, 1), flat=False, key=name)
                for name, places in caves.items()]
        tipper = self.table.tipper
        top = tray_top(look(self.world_of("tray"), "tray"))
        x = tipper.half_length + tipper.wall + SLOT_LABEL_SCALE * 0.45      # beyond the end wall: never over the ball
        for end, sx in (("A", -1.0), ("B", 1.0)):
            for label in tipper.slot_order:
                p = tipper.slot_rest_point(end, label)
                out.append(Label(label, (sx * x, p[1] - 0.0045, top + 0.0004), SLOT_LABEL_SCALE, (0.1, 0.1, 0.1, 1),
                                 plate=(*TRAY_FLOOR_RGB, 1), parent=TRAY_TRACK, key=f"slot-{end}-{label}"))
        return out

    def place_pieces(self, app, state) -> None:
        """Put the marbles on their seats; the first time, once the window has framed its home
        camera round the table (after build), measure where each sign may stand (_measure_signs);
        every time, move the signs clear of each other and of the marbles on their seats
        (_arrange_signs)."""
        if self._sign_places is not None:
            self._signs = self._measure_signs(app, *self._sign_places)
            self._sign_places = None
        super().place_pieces(app, state)
        if self._signs is not None:
            self._arrange_signs(app, set(self.piece_positions(state).values()))

    def _measure_signs(self, app, movable, fixed) -> dict:
        """On the picture from the home camera, the rectangle of each sign of `movable` at each of
        its places (those farther out led by four that stand just clear of a marble on its seat:
        above it, right of it, left of it, below it, as the camera sees it), whether the hill
        hides its foot there, whether a marble on its seat would cover a third of it from in front; the rectangles of the `fixed` signs and of a marble on
        each path and Finish Zone seat. A sign's rectangle: its glyphs' bounds laid along the
        camera's right and up, projected, grown by the clear space it keeps."""
        from panda3d.core import Point3

        orbit, cam = app.camera, app.base.camera
        was = (orbit.target, orbit.distance, orbit.heading, orbit.pitch)
        orbit.reset()
        right = app.render.get_relative_vector(cam, (1, 0, 0))
        up = app.render.get_relative_vector(cam, (0, 0, 1))
        aspect = app.base.camLens.get_aspect_ratio()

        def rect(centre, half_x, half_z, grow=0.0):
            film = [app.project(Point3(*centre) + right * x + up * z) for x in half_x for z in half_z]
            if any(f is None for f in film):
                return (9.0, -9.0, 9.0, -9.0)            # off screen: overlaps nothing
            xs, ys = [f[0] * aspect for f in film], [f[1] for f in film]
            return min(xs) - grow, max(xs) + grow, min(ys) - grow, max(ys) + grow

        def sign_rect(node, pos, grow=0.0):
            lo, hi = node.get_child(0).get_tight_bounds(node)
            k = node.get_sz(app.render)
            return rect(pos, (lo.x * k, hi.x * k), (lo.z * k, hi.z * k), grow)

        def covered(a: np.ndarray, b) -> np.ndarray:
            """The share of each rectangle of a that the rectangle b covers."""
            w = np.clip(np.minimum(a[:, 1], b[1]) - np.maximum(a[:, 0], b[0]), 0.0, None)
            h = np.clip(np.minimum(a[:, 3], b[3]) - np.maximum(a[:, 2], b[2]), 0.0, None)
            return w * h / ((a[:, 1] - a[:, 0]) * (a[:, 3] - a[:, 2]))

        r = self.radius
        eye = cam.get_pos(app.render)
        places = []
        for node, _, near, far, own, _ in movable:
            beside = []
            if own is not None and far:        # just above, right of, left of, below the marble, as the camera sees it
                lo, hi = node.get_child(0).get_tight_bounds(node)
                k = node.get_sz(app.render)
                dz, dx = 1.25 * r + (hi.z - lo.z) * k / 2, 1.25 * r + (hi.x - lo.x) * k / 2
                beside = [tuple(Point3(*own) + v) for v in (up * dz, right * dx, -right * dx, -up * dz)]
            places.append(near + beside + far)
        options = [np.array([sign_rect(m[0], p, m[5]) for p in pl]) for m, pl in zip(movable, places)]
        far = [np.arange(len(pl)) >= len(m[2]) for m, pl in zip(movable, places)]
        feet = []
        for (node, *_), pl in zip(movable, places):
            lo, hi = node.get_child(0).get_tight_bounds(node)
            k = node.get_sz(app.render)
            feet.append([Point3(*p) + right * (x * k) + up * (lo.z * k) for p in pl for x in (lo.x, hi.x)])
        ground = SurfaceGrid(self.table.crater)
        blocked = [hidden_from(ground, np.array(f), eye).reshape(-1, 2).any(axis=1)
                   if m[0].get_depth_test() else np.zeros(len(pl), bool)
                   for f, m, pl in zip(feet, movable, places)]
        behind = [np.zeros(len(pl)) if m[1] is None else
                  np.array([(Point3(*p) - eye).length() > (Point3(*m[1]) - eye).length() for p in pl])
                  for m, pl in zip(movable, places)]
        hidden = [np.zeros(len(o)) if m[1] is None else (covered(o, rect(m[1], (-r, r), (-r, r))) > 0.3) * bh
                  for o, bh, m in zip(options, behind, movable)]
        still = np.array([sign_rect(node, node.get_pos(app.render)) for node in fixed]).reshape(-1, 4)
        seats = [tuple(p) for p in list(self.board.path_positions) + list(self.board.zone_positions)]
        marbles = {p: rect(p, (-r, r), (-r, r), MARBLE_GAP) for p in seats}
        orbit.target, orbit.distance, orbit.heading, orbit.pitch = was
        orbit.apply()
        # a sign's last "place": not shown (the number of a seat a marble stands on, with nowhere clear to go)
        places = [pl + [None] for pl in places]
        options = [np.vstack([o, [(9.0, -9.0, 9.0, -9.0)]]) for o in options]
        far, blocked, hidden = ([np.append(a, 0) for a in arrays] for arrays in (far, blocked, hidden))
        return {"movable": movable, "places": places, "options": options, "far": far, "blocked": blocked,
                "hidden": hidden, "still": still, "marbles": marbles, "chosen": [0] * len(movable), "shown": None}

    def _arrange_signs(self, app, occupied: set, rounds: int = 8) -> None:
        """Move each sign to the first of its places where, on the picture from the home camera,
        no marble standing on a seat (`occupied`: marbles' positions) overlaps it, the hill hides
        none of its foot, it overlaps the fewest other signs and (a marble on its seat would
        hide a number behind it) a marble on its seat would cover under a third of it; a sign
        takes one of its places farther out only while a marble stands on its own seat or on a
        seat beside one of its near places, and is hidden while a marble stands on its seat and
        wherever it may stand another number covers more than HIDE_COVERED of it (the players'
        panel says where each marble is). Round after round until none moves, from where the
        signs stand."""
        L = self._signs

        def hits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            """How many of the rectangles b each rectangle of a overlaps."""
            return ((a[:, None, 0] < b[None, :, 1]) & (b[None, :, 0] < a[:, None, 1])
                    & (a[:, None, 2] < b[None, :, 3]) & (b[None, :, 2] < a[:, None, 3])).sum(axis=1)

        def shadowed(a: np.ndarray, b: np.ndarray) -> float:
            """The largest share of the rectangle a that one of the rectangles b covers."""
            w = np.clip(np.minimum(a[1], b[:, 1]) - np.maximum(a[0], b[:, 0]), 0.0, None)
            h = np.clip(np.minimum(a[3], b[:, 3]) - np.maximum(a[2], b[:, 2]), 0.0, None)
            return float((w * h).max(initial=0.0) / ((a[1] - a[0]) * (a[3] - a[2])))

        key = frozenset(p for p in occupied if p in L["marbles"])
        if key == L["shown"]:
            return
        marbles = np.array([L["marbles"][p] for p in key]).reshape(-1, 4)
        still, options, chosen = L["still"], L["options"], L["chosen"]
        base = []
        for k, (m, opts) in enumerate(zip(L["movable"], options)):
            own = m[4] is not None and m[4] in key
            on = hits(opts, marbles)
            near = ~L["far"][k].astype(bool)
            near[-1] = False
            # a sign may stand farther out while a marble stands on its seat; or, cheaply, while a
            # marble on another seat takes one of its near places (rather than cover a neighbour)
            farther = 0 if own else 50 if on[near].any() else 500
            score = (on * 1000 + L["far"][k] * farther
                     + L["blocked"][k] * 100 + L["hidden"][k] * 10 + np.arange(len(opts)) / len(opts))
            score[-1] = 1e9                           # unshown: only as below
            base.append(score)
        owns = [m[4] is not None and m[4] in key for m in L["movable"]]
        now = np.vstack([still] + [o[c:c + 1] for o, c in zip(options, chosen)])
        for _ in range(rounds):
            moved = False
            for k, opts in enumerate(options):
                row = len(still) + k
                others = np.delete(now, row, axis=0)
                best = int(np.argmin(base[k] + hits(opts, others) * 100))
                if owns[k] and base[k][best] < 1000 and shadowed(opts[best], others) > HIDE_COVERED:
                    best = len(opts) - 1                  # its seat taken and nowhere clear: rather unshown than illegible
                moved |= best != chosen[k]
                chosen[k] = best
                now[row] = opts[best]
            if not moved:
                break
        for (node, *_), places, c in zip(L["movable"], L["places"], chosen):
            if places[c] is None:
                node.hide()
            else:
                node.show()
                node.set_pos(app.render, *places[c])
        L["shown"] = key

    def _add_drawer(self, app) -> None:
        """The open drawer under the marbles not yet entered: a shallow wooden tray."""
        from tabletop.sim.view.geometry import track_node

        xs = [p[0] for p in self.table.drawer]
        y, r = self.table.drawer[0][1], self.radius
        cx, hx, hy = (min(xs) + max(xs)) / 2, (max(xs) - min(xs)) / 2 + 1.6 * r, 1.6 * r
        box = [{"kind": "box", "half": half, "pos": [cx + dx, y + dy, half[2]], "orn": [0.0, 0.0, 0.0, 1.0]}
               for half, dx, dy in (([hx, hy, 0.0008], 0.0, 0.0), ([hx, 0.0015, 0.005], 0.0, hy),
                                    ([hx, 0.0015, 0.005], 0.0, -hy), ([0.0015, hy, 0.005], hx, 0.0),
                                    ([0.0015, hy, 0.005], -hx, 0.0))]
        drawer = track_node("drawer", box)
        drawer.reparent_to(app.render)
        drawer.set_color(*DRAWER_RGB, 1)
        app.casts_no_shadow(drawer)

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

    def marker(self, app, dest: Destination, *args, **kwargs):
        """The lit destination (TableAdapter.marker) laid on the hill at the seat (marker_pose):
        tilted with the slope and lifted just clear of it, so none of it is buried in the hill."""
        from panda3d.core import Quat

        node = super().marker(app, dest, *args, **kwargs)
        pos, quat = self.marker_pose(dest)
        node.set_pos(*pos)
        node.set_quat(Quat(*quat))
        return node

    def marker_pose(self, dest: Destination) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
        """Where a lit destination's marker lies, and how it is turned (a quaternion w, x, y, z
        taking its +z to the hill's normal): in the plane fitted to the drawn hill's surface
        (art.surface_height) under the marble, tipped no more than MARKER_TILT degrees (on a
        steeper slope it would face away from a player looking down the hill), lifted until
        every sampled point of the surface under its rim lies at least MARKER_LIFT below it.
        Off the hill (the drawer) it lies flat under the marble (marker_drop)."""
        x, y, z = dest.position
        crater = self.table.crater
        reach = self.marker_radius             # the marker's rim
        if surface_height(crater, x, y) < 1e-4:           # on the table: flat
            return (x, y, z - self.marker_drop + MARKER_LIFT), (1.0, 0.0, 0.0, 0.0)
        a = np.linspace(0.0, 2 * np.pi, 48, endpoint=False)
        d = np.array([(0.0, 0.0)] + [(f * reach * math.cos(t), f * reach * math.sin(t))
                                     for f in (0.5, 0.75, 1.0) for t in a])
        h = np.array([surface_height(crater, x + dx, y + dy) for dx, dy in d])
        inner = slice(0, 49)                 # the slope under the marble (the outer rings may fall off the hill's edge)
        (gx, gy, c), *_ = np.linalg.lstsq(np.column_stack([d[inner], np.ones(49)]), h[inner], rcond=None)
        slope = math.hypot(gx, gy)
        angle = min(math.atan(slope), math.radians(MARKER_TILT))     # a steep slope's marker still faces up
        if slope < 1e-9:
            return (x, y, float(c) + float(np.max(h - c)) + MARKER_LIFT), (1.0, 0.0, 0.0, 0.0)
        ux, uy = gx / slope, gy / slope                     # uphill
        k = math.tan(angle)
        lift = float(np.max(h - (k * (ux * d[:, 0] + uy * d[:, 1]) + c))) + MARKER_LIFT
        s = math.sin(angle / 2)                              # about the level line (z x uphill), tipping +z downhill
        quat = (math.cos(angle / 2), uy * s, -ux * s, 0.0)
        return (x, y, float(c) + lift), quat

    def piece_actions(self, state: State, piece: int) -> list[Move]:
        """The moves the Tipper's result would give `piece` (for the rules' reason why not)."""
        if state.phase is not Phase.MOVE:
            return []
        return [Move(piece, d) for d in state.distances()]

    def owner(self, piece: int) -> int:
        return self.game.owner(piece)

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

    def players(self, state: State, kinds, viewer=()) -> str:
        lines = []
        L = self.board.path_length
        for p in range(self.game.players):
            mine = sorted((t for m, t in enumerate(state.track) if self.game.owner(m) == p), reverse=True)
            zone = sum(1 for t in mine if t >= L)
            where = ", ".join(self._where(t) for t in mine)
            lines.append(f"{COLOURS[p]:7s} {kinds[p]:6s} zone {zone}/{self.game.marbles_to_win}  {where}")
        return "\n".join(lines)

    def _where(self, track: int) -> str:
        """Where a marble is, in a word or two: "drawer", "crater", "Start", "space 37",
        "zone #2" (the board's own numbers, as the log names them)."""
        L = self.board.path_length
        if track == DRAWER:
            return "drawer"
        if track == IN_CRATER:
            return "crater"
        if track == 0:
            return "Start"
        return f"zone #{track - L + 1}" if track >= L else f"space {track}"

    def seat_name(self, player: int) -> str:
        return COLOURS[player]

    def piece_name(self, piece: int) -> str:
        return self.game.marble_name(piece)

    def action_text(self, state: State, action) -> str:
        """A move in words: "enter from the drawer, 4 spaces to space 4", "3 spaces to space 52
        (knocks a marble into the crater)"."""
        if not isinstance(action, Move):
            return str(action)
        track, knocked, _ = state.destination(action.marble, action.distance)
        steps = f"{action.distance} space{'s' if action.distance != 1 else ''}"
        text = f"{steps} to {self.board.describe(track)}"
        if state.track[action.marble] == DRAWER:
            text = f"enter from the drawer, {text}"
        if knocked is not None:
            text += f", knocking {self.game.marble_name(knocked)} into the crater"
        return text

    def destination_text(self, state: State, dest: Destination) -> str:
        return self.action_text(state, dest.action)

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

