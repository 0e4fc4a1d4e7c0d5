"""Procedural art for the window: labels that face the camera; glass balls. (The board's canvas,
painted with numpy, is tabletop.sim.canvas: no renderer.)"""
from __future__ import annotations

import numpy as np
from panda3d.core import Material, NodePath, TextNode, TransparencyAttrib

from tabletop.sim.canvas import Canvas  # noqa: F401  (here before)
from tabletop.sim.view.geometry import sphere


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
