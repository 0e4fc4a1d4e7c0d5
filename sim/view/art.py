"""Procedural art for the views: a top-down canvas painted with numpy (discs, strokes, convex
polygons, arrows, antialiased) that becomes a texture (TableApp.texture) for planar-mapped geometry
(geometry.textured_node); labels that face the camera; glass balls."""
from __future__ import annotations

import numpy as np
from panda3d.core import Material, NodePath, TextNode, TransparencyAttrib

from tabletop.sim.view.geometry import sphere


class Canvas:
    """An (n, n, 3) image over the square [-half, half]^2 of the table plane (x right, y up,
    row 0 at +y), painted in world coordinates (metres)."""

    def __init__(self, half: float, pixels: int, color):
        self.half, self.n = half, pixels
        self.px = 2 * half / pixels
        self.rgb = np.empty((pixels, pixels, 3), np.float32)
        self.rgb[:] = color

    def window(self, lo, hi):
        """Pixel index ranges and centre coordinates of the pixels covering the box lo..hi."""
        i0 = max(int((lo[0] + self.half) / self.px) - 1, 0)
        i1 = min(int((hi[0] + self.half) / self.px) + 2, self.n)
        j0 = max(int((self.half - hi[1]) / self.px) - 1, 0)
        j1 = min(int((self.half - lo[1]) / self.px) + 2, self.n)
        x = -self.half + (np.arange(i0, i1) + 0.5) * self.px
        y = self.half - (np.arange(j0, j1) + 0.5) * self.px
        return (slice(j0, j1), slice(i0, i1)), *np.meshgrid(x, y)

    def blend(self, window, coverage: np.ndarray, color) -> None:
        a = np.clip(coverage, 0.0, 1.0)[..., None]
        self.rgb[window] = self.rgb[window] * (1 - a) + np.asarray(color, np.float32) * a

    def field(self, lo, hi, fn, color) -> None:
        """Paint where fn(x, y) (a signed distance, negative inside) is below zero."""
        window, x, y = self.window(lo, hi)
        if x.size:
            self.blend(window, 0.5 - fn(x, y) / self.px, color)

    def disc(self, center, radius: float, color, ring: float = 0.0) -> None:
        """A filled disc, or with `ring` > 0 only a ring that wide."""
        cx, cy = center[0], center[1]

        def fn(x, y):
            d = np.hypot(x - cx, y - cy) - radius
            return np.abs(d + ring / 2) - ring / 2 if ring else d
        self.field((cx - radius, cy - radius), (cx + radius, cy + radius), fn, color)

    def stroke(self, points, width: float, color) -> None:
        """A polyline `width` wide with round joints and ends."""
        pts = np.asarray(points, float)[:, :2]
        w = width / 2
        for a, b in zip(pts[:-1], pts[1:]):
            ab = b - a
            ll = max(float(ab @ ab), 1e-12)

            def fn(x, y, a=a, ab=ab, ll=ll):
                t = np.clip(((x - a[0]) * ab[0] + (y - a[1]) * ab[1]) / ll, 0.0, 1.0)
                return np.hypot(x - a[0] - t * ab[0], y - a[1] - t * ab[1]) - w
            self.field(np.minimum(a, b) - w, np.maximum(a, b) + w, fn, color)

    def polygon(self, vertices, color) -> None:
        """A convex polygon (vertices counter-clockwise)."""
        v = np.asarray(vertices, float)[:, :2]
        edges = [(v[k], v[(k + 1) % len(v)]) for k in range(len(v))]

        def fn(x, y):
            out = None
            for a, b in edges:
                e = (b - a) / np.linalg.norm(b - a)
                d = (x - a[0]) * e[1] - (y - a[1]) * e[0]     # > 0 right of the edge: outside
                out = d if out is None else np.maximum(out, d)
            return out
        self.field(v.min(axis=0), v.max(axis=0), fn, color)

    def arrow(self, tail, tip, width: float, color) -> None:
        """A flat arrow from tail to tip: a shaft and a head `width` wide."""
        tail, tip = np.asarray(tail[:2], float), np.asarray(tip[:2], float)
        d = tip - tail
        length = float(np.linalg.norm(d))
        u = d / length
        n = np.array([-u[1], u[0]])
        neck = tip - u * min(0.5 * length, 1.1 * width)
        self.stroke([tail, neck + u * 1e-4], 0.42 * width, color)
        self.polygon([neck - n * width / 2, tip, neck + n * width / 2], color)

    def uv(self, x, y):
        """Texture coordinates of table points (u right, v up)."""
        return (np.asarray(x) + self.half) / (2 * self.half), (np.asarray(y) + self.half) / (2 * self.half)


def sign(parent: NodePath, text: str, pos, height: float, color=(1, 1, 1, 1), name: str = "sign") -> NodePath:
    """A label that always faces the camera, centred on `pos`, its capitals `height` metres tall
    (measured from the font), with a dark shadow so it reads on any ground."""
    tn = TextNode(name)
    tn.set_text(text)
    tn.set_align(TextNode.A_center)
    tn.set_text_color(*color)
    tn.set_shadow(0.05, 0.05)
    tn.set_shadow_color(0, 0, 0, 0.85)
    node = parent.attach_new_node(name)
    node.set_pos(*pos)
    node.set_billboard_point_eye()
    glyphs = node.attach_new_node(tn.generate())
    lo, hi = glyphs.get_tight_bounds()
    glyphs.set_scale(height / max(hi.z - lo.z, 1e-9))
    glyphs.set_z(-(lo.z + hi.z) / 2 * glyphs.get_sz())
    node.set_light_off(1)
    node.set_shader_off(1)
    node.set_depth_offset(2)
    return node


def glassy(node: NodePath, radius: float, color) -> None:
    """Draw a ball's node as a glass marble: a clear, faintly tinted shell with a sharp white
    highlight around a twisted vane of coloured glass (a cat's eye), so that it reads as glass
    and its colour still shows from every side. `glass_color` recolours it; a node already
    drawn as glass is only recoloured."""
    if node.has_python_tag("glass"):
        glass_color(node, color)
        return
    geom = node.node()
    geom.remove_all_geoms()
    geom.add_geoms_from(sphere(radius).node())
    node.set_material(_lit(0.85, 1.0, 90.0), 2)
    node.set_transparency(TransparencyAttrib.M_alpha)
    vanes = node.attach_new_node("vane")
    for turn in (0.0, 60.0, 120.0):          # three blades about the axis: a twisted vane seen from any side
        blade = vanes.attach_new_node(sphere(radius * 0.86, "blade", 16).node())
        blade.set_scale(1.0, 0.34, 1.0)
        blade.set_h(turn)
        blade.set_r(turn / 4)
    vanes.set_material(_lit(1.0, 0.5, 40.0), 3)
    vanes.set_transparency(TransparencyAttrib.M_none, 3)
    node.set_python_tag("glass", vanes)
    glass_color(node, color)


def _lit(diffuse: float, specular: float, shininess: float) -> Material:
    m = Material()
    m.set_diffuse((diffuse, diffuse, diffuse, 1.0))
    m.set_ambient((1.0, 1.0, 1.0, 1.0))
    m.set_specular((specular, specular, specular, 1.0))
    m.set_shininess(shininess)
    return m


def glass_color(node: NodePath, color) -> None:
    """A glassy() marble in a new colour: the vane in it, the shell a pale tint of it."""
    r, g, b = color[:3]
    node.set_color(0.3 + 0.7 * r, 0.3 + 0.7 * g, 0.3 + 0.7 * b, 0.5)
    node.get_python_tag("glass").set_color(r, g, b, 1.0, 3)
