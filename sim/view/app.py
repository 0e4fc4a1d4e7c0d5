"""The Panda3D window (or offscreen buffer) that draws a table: bodies from their looks, lights,
shadows, an orbit camera, 3D labels, mouse picking and screenshots.

It never steps physics: bodies are placed at poses given to it (a World's, a recorded Motion's
or a game state's). One TableApp per process at a time (a second ShowBase fails until the
first is destroyed).
"""
from __future__ import annotations

import math
import os
from contextlib import contextmanager
from pathlib import Path

from panda3d.core import (AmbientLight, AntialiasAttrib, ColorWriteAttrib, CullBinEnums, CullBinManager, LightAttrib, RenderState, ShaderAttrib, BitMask32, CardMaker, CollisionHandlerQueue,
                          CollisionNode, CollisionRay, CollisionSphere, CollisionTraverser, DirectionalLight,
                          Filename, LVecBase4, Material, NodePath, Point3, TextNode, Texture, TransparencyAttrib,
                          Vec3, loadPrcFileData)

from tabletop.sim.errors import InputError
from tabletop.sim.surface import DEFAULT_LOOK, Look, material_look
from tabletop.sim.view.art import glass_color
from tabletop.sim.view.audio import audio_setting
from tabletop.sim.view.quiet import AUDIO_NOISE, XLIB_NOTICE, quiet_stderr
from tabletop.sim.view.geometry import set_pose, track_node
from tabletop.sim.view.shaders import scene_shader

SHADOW_MASK = BitMask32.bit(9)   # the sun's shadow camera draws only what casts shadows
PICK_MASK = BitMask32.bit(8)   # not bit 20, which every GeomNode answers by default


class ViewError(InputError):
    """The window cannot open (no display, no graphics pipe): a one-line message."""


def has_display() -> bool:
    """Whether an on-screen window can open here (an X display is set)."""
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


@contextmanager
def quiet_xlib():
    """Drop Xlib's "extension ... missing on display" lines (Panda3D asks every X server for
    XF86DGA, which Xvfb and many others lack; no setting turns the question off) and the audio
    libraries' complaints where no audio device opens from the process's stderr while the window
    opens; anything else written there is passed on."""
    with quiet_stderr(XLIB_NOTICE, AUDIO_NOISE):
        yield


def shadows_setting() -> bool:
    """Whether the sun casts shadows, from TABLETOP_SHADOWS ("on", the default, or "off"). On by
    default everywhere, Mesa's software renderer included: measured with scripts/bench_window.py,
    every game keeps 40 frames a second or more at 1280x720 with them; "off" is the fallback for
    a slower machine (about 1.5x the frame rate)."""
    text = os.environ.get("TABLETOP_SHADOWS", "on").strip().lower()
    if text not in ("on", "off", "1", "0"):
        raise ViewError(f"TABLETOP_SHADOWS: expected on or off, got {text!r}")
    return text in ("on", "1")


def multisamples_setting(offscreen: bool = False) -> int:
    """Samples per pixel for smooth edges, from TABLETOP_MULTISAMPLES; by default 4 for pictures
    (offscreen) and 0 (off) for a live window: Mesa's software renderer multisamples, but 4 (or 2)
    samples cut a 1280x720 window from about 60 to 17 fps, so live it is for machines with a
    graphics card."""
    text = os.environ.get("TABLETOP_MULTISAMPLES", "4" if offscreen else "0")
    if not text.isdigit() or int(text) > 16:
        raise ViewError(f"TABLETOP_MULTISAMPLES: expected 0-16 samples per pixel, got {text!r}")
    return int(text)


def _material(look: Look) -> Material:
    """Lighting terms of a look; the colour itself is the node's colour (set_color), so that one
    material serves every colour of marble."""
    m = Material()
    m.set_diffuse((1.0, 1.0, 1.0, 1.0))
    m.set_ambient((1.0, 1.0, 1.0, 1.0))
    s = look.specular
    m.set_specular((s, s, s, 1.0))
    m.set_shininess(look.shininess)
    return m


class OrbitCamera:
    """A camera orbiting a target point: heading and pitch in degrees, distance in metres."""

    def __init__(self, camera: NodePath, target=(0.0, 0.0, 0.0), distance=1.0, heading=0.0, pitch=35.0):
        self.camera = camera
        self.home = (tuple(target), distance, heading, pitch)
        self.reset()

    def reset(self) -> None:
        target, self.distance, self.heading, self.pitch = self.home
        self.target = Vec3(*target)
        self.apply()

    def set_home(self, target, distance, heading, pitch) -> None:
        self.home = (tuple(target), distance, heading, pitch)
        self.reset()

    def orbit(self, d_heading: float, d_pitch: float) -> None:
        self.heading = (self.heading + d_heading) % 360.0
        self.pitch = min(89.0, max(5.0, self.pitch + d_pitch))
        self.apply()

    def zoom(self, factor: float) -> None:
        self.distance = min(5.0, max(0.08, self.distance * factor))
        self.apply()

    def pan(self, right: float, forward: float) -> None:
        """Move the target in the table plane, in camera-relative directions (metres)."""
        h = math.radians(self.heading)
        self.target += Vec3(math.cos(h) * right - math.sin(h) * forward,
                            math.sin(h) * right + math.cos(h) * forward, 0.0)
        self.apply()

    def approach(self, point, distance: float | None, rate: float) -> None:
        """Ease the target (and distance) toward a point: `rate` in 0..1 per call."""
        self.target += (Vec3(*point) - self.target) * rate
        if distance is not None:
            self.distance += (distance - self.distance) * rate
        self.apply()

    def apply(self) -> None:
        h, p = math.radians(self.heading), math.radians(self.pitch)
        # heading 0 looks along +Y from the -Y side
        offset = Vec3(math.sin(h) * math.cos(p), -math.cos(h) * math.cos(p), math.sin(p)) * self.distance
        self.camera.set_pos(self.target + offset)
        self.camera.look_at(Point3(self.target), Vec3(0, 0, 1))


class TableApp:
    """A ShowBase with the table scene. `offscreen=True` renders into an offscreen buffer (EGL)."""

    def __init__(self, size=(1280, 720), offscreen=False, title="tabletop", shadows: bool | None = None,
                 multisamples: int | None = None):
        if not offscreen and not has_display():
            raise ViewError("no display available for the 3D window; run it with --headless "
                            "(or take a picture offscreen with --screenshot FILE.png)")
        if multisamples is None:
            multisamples = multisamples_setting(offscreen)
        loadPrcFileData("tabletop", "\n".join([
            f"window-type {'offscreen' if offscreen else 'onscreen'}",
            "load-display p3headlessgl" if offscreen else "load-display pandagl",
            f"win-size {size[0]} {size[1]}",
            f"window-title {title}",
            # OpenAL (Panda3D's wheel carries OpenAL Soft) where the window sounds
            # (tabletop.sim.view.audio: TABLETOP_AUDIO), else none: Panda3D keeps the choice
            # its first audio manager, ShowBase's, is made with for the whole process
            f"audio-library-name {'p3openal_audio' if audio_setting(offscreen) else 'null'}",
            "sync-video false",
            "notify-level-display error",
            "print-pipe-types false",
            "notify-level-device fatal",
            "notify-level-egldisplay fatal",
            "notify-level-x11display fatal",
            "notify-level-glxdisplay fatal",
            f"framebuffer-multisample {int(multisamples > 0)}",
            f"multisamples {multisamples}",
            "textures-power-2 none",
            "default-directnotify-level error",
        ]))
        from direct.showbase.ShowBase import ShowBase

        try:
            with quiet_xlib():
                self.base = ShowBase()
        except Exception as exc:   # Panda3D raises a bare Exception when no pipe opens
            raise ViewError(f"the 3D window could not open ({exc}); run it with --headless") from None
        if self.base.win is None:
            raise ViewError("the 3D window could not open (no graphics pipe); run it with --headless")
        self.size = size
        self.offscreen = offscreen
        self.multisamples = self.base.win.get_fb_properties().get_multisamples()
        if self.multisamples:
            self.base.render.set_antialias(AntialiasAttrib.M_multisample)
        bins = CullBinManager.get_global_ptr()
        # around "opaque" (20), before "transparent" (30): the early and late parts of the table, then the
        # lit marks (drawn over the table, no depth test), then the pieces, over the marks (draw_over_marks)
        for name, sort in (("early", 15), ("late", 25), ("lit", 26), ("pieces", 27)):
            if bins.find_bin(name) < 0:
                bins.add_bin(name, CullBinEnums.BT_fixed, sort)
        b = self.base
        b.disableMouse()
        b.setBackgroundColor(0.16, 0.18, 0.22, 1)
        self.render: NodePath = b.render
        self.camera = OrbitCamera(b.camera)
        b.camLens.set_fov(50)
        b.camLens.set_near_far(0.01, 20.0)
        if shadows is None:
            shadows = shadows_setting()
        self._lights(shadows)
        self._tasks: list = []
        self._before_draw: list = []
        self.insets: list[tuple[float, float, float, float]] = []   # the close-ups' regions (inset)
        self._new_bodies: list[str] = []
        self._grains: dict[str, Texture] = {}
        self.framed: set[str] | None = None     # the bodies the home view frames (None: all)
        self.framed_points: list[tuple] = []
        self.labels = self.render.attach_new_node("labels")   # fixed labels on the table
        self.labels.hide(SHADOW_MASK)
        self.nodes: dict[str, NodePath] = {}       # track -> node
        self.body_tracks: dict[str, list[str]] = {}
        self._pick_nodes: dict[str, NodePath] = {}
        self._traverser = CollisionTraverser("pick")
        self._queue = CollisionHandlerQueue()
        ray_node = CollisionNode("pick-ray")
        ray_node.set_from_collide_mask(PICK_MASK)
        ray_node.set_into_collide_mask(BitMask32.all_off())
        self._ray = CollisionRay()
        ray_node.add_solid(self._ray)
        self._ray_np = b.camera.attach_new_node(ray_node)
        self._traverser.add_collider(self._ray_np, self._queue)

    # -- scene -----------------------------------------------------------------------------
    def _lights(self, shadows: bool) -> None:
        r = self.render
        amb = AmbientLight("ambient")
        amb.set_color((0.38, 0.38, 0.42, 1))
        r.set_light(r.attach_new_node(amb))
        sun = DirectionalLight("sun")
        sun.set_color((0.85, 0.82, 0.75, 1))
        self.sun = r.attach_new_node(sun)
        self.sun.set_pos(0.6, -0.9, 1.6)
        self.sun.look_at(0, 0, 0)
        r.set_light(self.sun)
        fill = DirectionalLight("fill")
        fill.set_color((0.25, 0.27, 0.32, 1))
        fill_np = r.attach_new_node(fill)
        fill_np.set_hpr(120, -35, 0)
        r.set_light(fill_np)
        self.sun.node().set_priority(10)      # first in the shader's light list: the shadow caster
        self.shadows = shadows
        if shadows:
            sun.set_shadow_caster(True, *((2048, 2048) if self.offscreen else (1024, 1024)))
            sun.set_camera_mask(SHADOW_MASK)
            # the shadow pass writes depth only: no scene shader (it would sample the very map
            # being drawn), no colour, no lights - an order of magnitude cheaper on llvmpipe
            sun.set_initial_state(RenderState.make(ShaderAttrib.make_off(), LightAttrib.make_all_off(),
                                                   ColorWriteAttrib.make(ColorWriteAttrib.C_off), 1000))
            lens = sun.get_lens()
            lens.set_film_size(1.2, 1.2)
            lens.set_near_far(0.8, 3.2)
        r.set_material(_material(DEFAULT_LOOK))
        r.set_shader(scene_shader(shadows))

    def draw_early(self, node: NodePath, order: int = 0) -> None:
        """Draw a large part before the ordinary opaque ones (the hill, a board): what it hides
        is then rejected by the depth test instead of being shaded and overdrawn."""
        node.set_bin("early", order)

    def draw_late(self, node: NodePath, order: int = 0) -> None:
        """Draw a large background surface (a table top, the floor) after every other opaque part,
        for the same reason."""
        node.set_bin("late", order)

    def draw_over_marks(self, node: NodePath) -> None:
        """Draw `node` (a piece) after the lit marks (the "lit" bin: destinations, the halo), so that
        a mark never covers a piece: its opaque parts in the "pieces" bin, its see-through parts
        left to "transparent", which is drawn later still."""
        from panda3d.core import TransparencyAttrib

        attrib = node.get_net_state().get_attrib(TransparencyAttrib.get_class_type())
        if attrib is None or attrib.get_mode() == TransparencyAttrib.M_none:
            node.set_bin("pieces", 0)
            return
        for child in node.get_children():
            self.draw_over_marks(child)

    def casts_no_shadow(self, node: NodePath) -> None:
        """Leave a large static part (a hill, a board, a table) out of the shadow pass: it still
        receives shadows; only the small moving things cast them, which keeps the pass cheap."""
        node.hide(SHADOW_MASK)

    def floor(self, half=8.0, z=-0.0205, color=(0.22, 0.24, 0.2)) -> NodePath:
        """A large felt-covered surface under everything, so the table never floats in a void; it
        reaches past the farthest the camera sees (its zoom stops at 5 m)."""
        from panda3d.core import TexGenAttrib, TextureStage

        from tabletop.sim.canvas import GRAINS

        cm = CardMaker("floor")
        cm.set_frame(-half, half, -half, half)
        node = self.render.attach_new_node(cm.generate())
        node.set_p(-90)
        node.set_z(z)
        node.set_color(*color, 1)
        node.set_shader_off(1)         # a plain cloth: unlit, almost free to fill the background
        node.set_light_off(1)
        node.set_texture(self._grain_texture("felt"))   # its nap, by the fixed pipeline's coordinates from world position
        node.set_tex_gen(TextureStage.get_default(), TexGenAttrib.M_world_position)
        node.set_tex_scale(TextureStage.get_default(), GRAINS["felt"])
        node.hide(SHADOW_MASK)
        self.draw_late(node, 10)
        return node

    def add_body(self, name: str, look: dict, color=None, texture: Texture | None = None) -> list[str]:
        """Nodes for every track of a body's look (tabletop.sim.scene.look), coloured by its material
        unless `color` overrides it. Returns the body's track names (take_new_bodies lists the
        bodies drawn for the first time)."""
        if name in self.body_tracks:
            return self.body_tracks[name]
        self._new_bodies.append(name)
        base = material_look(look.get("material"))
        vis = Look(tuple(color), base.specular, base.shininess, base.alpha) if color else base
        tracks = []
        for track, parts in look["tracks"].items():
            node = track_node(track, parts)
            node.reparent_to(self.render)
            node.set_material(_material(vis), 1)
            node.set_color(*vis.color, vis.alpha)
            if vis.alpha < 1:
                node.set_transparency(TransparencyAttrib.M_alpha)
            if texture is not None:
                node.set_texture(texture)
                node.set_shader(scene_shader(self.shadows, textured=True))
            elif not color:
                self.grain(node, look.get("material"))
            self.nodes[track] = node
            tracks.append(track)
        self.body_tracks[name] = tracks
        return tracks

    def grain(self, node: NodePath, material: str | None) -> None:
        """Draw `node` with its material's grain (tabletop.sim.canvas.grain: wood, cardboard, felt),
        mapped from its own coordinates; nothing for a smooth material."""
        from tabletop.sim.canvas import GRAINS

        if material not in GRAINS:
            return
        node.set_texture(self._grain_texture(material))
        node.set_shader(scene_shader(self.shadows, planar=True))
        node.set_shader_input("grain_scale", GRAINS[material])

    def _grain_texture(self, material: str) -> Texture:
        """The texture of a material's grain, made once per window."""
        from tabletop.sim.canvas import grain

        if material not in self._grains:
            tex = self._grains[material] = self.texture(grain(material), f"grain-{material}")
            tex.set_minfilter(Texture.FT_linear_mipmap_nearest)   # half the samples of trilinear: a software renderer's fill rate
        return self._grains[material]

    def add_node(self, name: str, node) -> None:
        """A node made elsewhere (a textured skin) drawn as the one-track body `name`: the camera's
        frame and poses treat it as they treat every body."""
        node.reparent_to(self.render)
        self.nodes[name] = node
        self.body_tracks[name] = [name]

    def take_new_bodies(self) -> list[str]:
        """The bodies drawn for the first time since the last call."""
        new, self._new_bodies = self._new_bodies, []
        return new

    def recolor(self, name: str, color) -> None:
        """Give every track of a body a new colour (the same body drawn for different players)."""
        for track in self.body_tracks.get(name, ()):
            node = self.nodes[track]
            if node.has_python_tag("glass"):
                glass_color(node, color)
            else:
                node.set_color(*color, 1)

    def set_poses(self, poses: dict) -> None:
        """Put tracks at poses; a None pose hides the track."""
        for track, pose in poses.items():
            node = self.nodes.get(track)
            if node is None:
                continue
            if pose is None:
                node.hide()
            else:
                node.show()
                set_pose(node, pose)

    def show_body(self, name: str, shown: bool) -> None:
        for track in self.body_tracks.get(name, ()):
            self.nodes[track].show() if shown else self.nodes[track].hide()

    def label(self, text: str, pos, scale=0.02, color=(1, 1, 1, 1), flat=True, heading=0.0,
              parent: NodePath | None = None, plate=None) -> NodePath:
        """A text label in the scene: lying flat on the surface (facing up) or always facing the
        camera; with a `plate` colour, the text is set on a card of that colour (a plaque)
        instead of casting a shadow."""
        tn = TextNode(f"label-{text}")
        tn.set_text(text)
        tn.set_align(TextNode.A_center)
        tn.set_text_color(*color)
        if plate is None:
            tn.set_shadow(0.04, 0.04)
            tn.set_shadow_color(0, 0, 0, 0.8)
        else:
            tn.set_card_color(*plate)
            tn.set_card_as_margin(0.3, 0.3, 0.15, 0.1)
            tn.set_card_decal(True)
        node = (parent or self.labels).attach_new_node(tn.generate())
        node.set_scale(scale)
        node.set_pos(*pos)
        node.set_light_off(1)
        node.set_shader_off(1)
        if flat:
            node.set_hpr(heading, -90, 0)
        else:
            node.set_billboard_point_eye()
        node.set_depth_offset(2)
        return node

    def freeze_labels(self) -> None:
        """Merge the table's fixed labels into as few draws as their textures allow (a software
        renderer pays per draw); call once the table is built."""
        self.labels.flatten_strong()

    def texture(self, rgb, name: str) -> Texture:
        """A texture from an (h, w, 3) float array in 0..1, row 0 at the top (board art, grain)."""
        import numpy as np

        h, w, _ = rgb.shape
        tex = Texture(name)
        tex.setup_2d_texture(w, h, Texture.T_unsigned_byte, Texture.F_rgb)
        data = (np.clip(rgb[::-1, :, ::-1], 0.0, 1.0) * 255).astype(np.uint8)   # Panda: bottom-up, BGR
        tex.set_ram_image(np.ascontiguousarray(data).tobytes())
        tex.set_minfilter(Texture.FT_linear_mipmap_linear)
        tex.set_magfilter(Texture.FT_linear)
        return tex

    # -- picking ---------------------------------------------------------------------------
    def make_pickable(self, tag: str, node: NodePath, radius: float, center=(0.0, 0.0, 0.0)) -> None:
        """Clicking within `radius` of `center` (in `node`'s frame) picks `tag`."""
        old = self._pick_nodes.pop(tag, None)
        if old is not None:
            old.remove_node()
        cn = CollisionNode(f"pick-{tag}")
        cn.add_solid(CollisionSphere(Point3(*center), radius))
        cn.set_into_collide_mask(PICK_MASK)
        cn.set_from_collide_mask(BitMask32.all_off())
        cn.set_tag("pick", tag)
        self._pick_nodes[tag] = node.attach_new_node(cn)

    def drop_pickable(self, tag: str) -> None:
        old = self._pick_nodes.pop(tag, None)
        if old is not None:
            old.remove_node()

    def pick(self, x: float, y: float, prefer: str = "") -> str | None:
        """The tag under the screen point (x, y) in -1..1 film coordinates, nearest first; with
        `prefer`, the nearest tag that starts with it wins over nearer others (a lit destination
        over a piece standing on it)."""
        self._ray.set_from_lens(self.base.camNode, x, y)
        self._traverser.traverse(self.render)
        if self._queue.get_num_entries() == 0:
            return None
        self._queue.sort_entries()
        tags = [entry.get_into_node().get_tag("pick") for entry in self._queue.get_entries()
                if not entry.get_into_node_path().get_parent().is_hidden()]  # collision nodes are never drawn
        preferred = [tag for tag in tags if prefer and tag.startswith(prefer)]
        return (preferred or tags or [None])[0]

    def frame(self, rect, margin: float = 0.03) -> None:
        """Make the camera's home frame every body (a table top under them all aside) inside
        `rect` = (x0, x1, y0, y1) in film coordinates, the part of the window the HUD leaves
        free: the home's heading and pitch are kept, its target becomes the bodies' middle, its
        distance and the lens's film offset are fitted. Orbiting and zooming then turn about
        the middle of that part of the window."""
        self.fit_shadows(self._frame_points())
        points = self._frame_points(self.framed)
        if not points:
            return
        _, distance, heading, pitch = self.camera.home
        target = ((min(p.x for p in points) + max(p.x for p in points)) / 2,
                  (min(p.y for p in points) + max(p.y for p in points)) / 2, 0.0)
        lens = self.base.camLens
        film = lens.get_film_size()
        x0, x1, y0, y1 = rect[0] + margin, rect[1] - margin, rect[2] + margin, rect[3] - margin
        shift = [0.0, 0.0]
        for _ in range(20):
            lens.set_film_offset(-shift[0] * film.x / 2, -shift[1] * film.y / 2)
            self.camera.set_home(target, distance, heading, pitch)
            film_points = [self._film_point(p) for p in points]
            xs, ys = [p[0] for p in film_points], [p[1] for p in film_points]
            grow = max((max(xs) - min(xs)) / (x1 - x0), (max(ys) - min(ys)) / (y1 - y0))
            dx, dy = (x0 + x1 - max(xs) - min(xs)) / 2, (y0 + y1 - max(ys) - min(ys)) / 2
            if abs(grow - 1) < 1e-3 and abs(dx) < 1e-3 and abs(dy) < 1e-3:
                break
            distance *= grow
            shift[0] += dx
            shift[1] += dy

    def fit_shadows(self, points) -> None:
        """Aim the sun's shadow camera at `points` (what is on the table) and fit its film to
        them, so that the shadow map's pixels are spent on the table and not on the floor."""
        if not self.shadows or not points:
            return
        lo = Point3(*(min(p[k] for p in points) for k in range(3)))
        hi = Point3(*(max(p[k] for p in points) for k in range(3)))
        middle = (lo + hi) * 0.5
        self.sun.set_pos(middle + Vec3(0.6, -0.9, 1.6).normalized() * ((hi - lo).length() + 0.5))
        self.sun.look_at(middle)
        local = [self.sun.get_relative_point(self.render, Point3(*p)) for p in points]
        x0, x1 = min(p.x for p in local), max(p.x for p in local)
        z0, z1 = min(p.z for p in local), max(p.z for p in local)
        y0, y1 = min(p.y for p in local), max(p.y for p in local)
        lens = self.sun.node().get_lens()
        pad = 0.04
        lens.set_film_size(x1 - x0 + 2 * pad, z1 - z0 + 2 * pad)
        lens.set_film_offset((x0 + x1) / 2, (z0 + z1) / 2)
        lens.set_near_far(max(0.01, y0 - 0.3), y1 + 0.3)

    def frame_only(self, names, points=()) -> None:
        """Let the home view (`frame`) frame only these bodies (a board, with its gadgets shown
        in close-ups) and these points (x, y, z) (its labels beside it) instead of every body."""
        self.framed = set(names)
        self.framed_points = [tuple(p) for p in points]

    def _frame_points(self, names=None) -> list[Point3]:
        """The corners of the bounds of every body (or of those in `names`), less a table top: a
        thin body under the middle of every other one."""
        boxes = {}
        for name, tracks in self.body_tracks.items():
            if names is not None and name not in names:
                continue
            bounds = [self.nodes[t].get_tight_bounds(self.render) for t in tracks if not self.nodes[t].is_hidden()]
            bounds = [b for b in bounds if b]
            if bounds:
                boxes[name] = (Point3(*(min(b[0][k] for b in bounds) for k in range(3))),
                               Point3(*(max(b[1][k] for b in bounds) for k in range(3))))

        def covers(lo, hi, other) -> bool:
            return all(lo[k] <= (other[0][k] + other[1][k]) / 2 <= hi[k] for k in range(2))

        tops = {name for name, (lo, hi) in boxes.items() if names is None and hi.z - lo.z < 0.05 and len(boxes) > 1
                and all(covers(lo, hi, box) for other, box in boxes.items() if other != name)}
        return [Point3(x, y, z) for name, (lo, hi) in boxes.items() if name not in tops
                for x in (lo.x, hi.x) for y in (lo.y, hi.y) for z in (lo.z, hi.z)] + (
            [] if names is None else [Point3(*p) for p in self.framed_points])

    def _film_point(self, point) -> tuple[float, float]:
        """Film coordinates of a world point in front of the camera, on screen or not."""
        p = self.base.cam.get_relative_point(self.render, Point3(*point))
        v = self.base.camLens.get_projection_mat().xform(LVecBase4(p.x, p.y, p.z, 1.0))
        return float(v[0] / v[3]), float(v[1] / v[3])

    def project(self, point) -> tuple[float, float] | None:
        """Film coordinates (-1..1) of a world point, or None when it is off screen."""
        p3 = self.base.cam.get_relative_point(self.render, Point3(*point))
        p2 = Point3()
        if not self.base.camLens.project(p3, p2):
            return None
        return float(p2.x), float(p2.y)

    # -- frames ----------------------------------------------------------------------------
    def render_frame(self) -> None:
        self.base.taskMgr.step()

    def screenshot(self, path: str | Path) -> Path:
        """Render a frame and write it as PNG (to a temp name first, then renamed)."""
        path = Path(path)
        for fn in self._before_draw:
            fn()
        self.base.graphicsEngine.render_frame()
        self.base.graphicsEngine.render_frame()
        tmp = path.with_name(f".{path.stem}.tmp.png")
        if not self.base.win.save_screenshot(Filename.from_os_specific(str(tmp))):
            raise ViewError(f"could not write the screenshot {path}")
        os.replace(tmp, path)
        return path

    def inset(self, region, fov: float = 20.0, clear=(0.12, 0.1, 0.08)) -> NodePath:
        """A second camera drawing into `region` (left, right, bottom, top as fractions of the
        window) over the main view: a close-up. Returns the camera, looking along its own +Y;
        place it (or parent it to a moving node) to aim it."""
        base = self.base
        ar = base.getAspectRatio()
        self.insets.append(tuple(region))
        cam = base.makeCamera(base.win, sort=5, displayRegion=region,   # after the table, under the 2D layer (help)
                              aspectRatio=(region[1] - region[0]) * ar / (region[3] - region[2]))
        dr = cam.node().get_display_region(0)
        dr.set_clear_color_active(True)
        dr.set_clear_color((*clear, 1))
        dr.set_clear_depth_active(True)
        cam.reparent_to(self.render)
        lens = cam.node().get_lens()
        lens.set_min_fov(fov)              # the region's shorter side (its height) sees `fov` degrees
        lens.set_near_far(0.01, 5.0)
        return cam

    def before_draw(self, fn, name: str) -> None:
        """Call `fn()` before every frame is drawn: each frame of the window, and before a
        screenshot taken between frames (a close-up's camera following what it shows)."""
        self._before_draw.append(fn)

        def task(t):
            fn()
            return t.cont

        self.add_task(task, name)

    def add_task(self, fn, name: str):
        """A per-frame task of this window; removed with it (Panda3D's task manager is global)."""
        task = self.base.task_mgr.add(fn, name)
        self._tasks.append(task)
        return task

    def destroy(self) -> None:
        """Close the window, its tasks and its key bindings, so that a next TableApp starts clean."""
        for task in self._tasks:
            self.base.task_mgr.remove(task)
        self._tasks = []
        self.base.ignore_all()
        with quiet_stderr(AUDIO_NOISE):        # (it closes the audio device, if one opened)
            self.base.destroy()
