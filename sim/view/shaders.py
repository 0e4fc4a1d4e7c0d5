"""The scene's GLSL shader: Blinn-Phong lighting from Panda3D's lights and materials, computed
per vertex, and the sun's shadow map looked up per pixel (one linearly filtered comparison).

Written by hand because Panda3D's automatic shader generator emits Cg, which Mesa's software
renderer (llvmpipe, the renderer here and in CI) does not run in a compatibility profile; plain
GLSL 1.30 runs on every desktop driver. Lighting per vertex keeps the fragment work to a few
instructions, which is what a software renderer at 1280x720 can afford (per-pixel lighting cost
three times as much). Text and 2D overlays keep the fixed pipeline.
"""
from __future__ import annotations

from functools import lru_cache

from panda3d.core import Shader

_LIGHTS = """
uniform struct p3d_LightSourceParameters {
    vec4 color;
    vec4 position;
    sampler2DShadow shadowMap;
    mat4 shadowViewMatrix;
} p3d_LightSource[3];
"""

VERTEX = """
#version 130
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelViewMatrix;
uniform mat4 p3d_ViewMatrix;
uniform mat3 p3d_NormalMatrix;
uniform struct p3d_MaterialParameters {
    vec4 ambient;
    vec4 diffuse;
    vec3 specular;
    float shininess;
} p3d_Material;
uniform struct p3d_LightModelParameters { vec4 ambient; } p3d_LightModel;
""" + _LIGHTS + """
uniform vec4 p3d_ColorScale;
#ifdef PLANAR
uniform float grain_scale;
#endif
in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec2 p3d_MultiTexCoord0;
in vec4 p3d_Color;
out vec4 v_base;       // surface colour
out vec3 v_sun_d;      // the sun's diffuse and specular light (shadowed per pixel)
out vec3 v_sun_s;
out vec3 v_rest_d;     // ambient and fill light
out vec3 v_rest_s;
out vec2 v_uv;
out vec4 v_shadow;
void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
    vec4 eye = p3d_ModelViewMatrix * p3d_Vertex;
    vec3 n = normalize(p3d_NormalMatrix * p3d_Normal);
    vec3 view = normalize(-eye.xyz);
    if (dot(n, view) < 0.0) n = -n;        // two-sided surfaces light from the side seen
    v_base = p3d_Material.diffuse * p3d_Color * p3d_ColorScale;
    // ambient light from a hemisphere: brighter from the room above, darker bounced off the table,
    // so that a shape reads by its shading even where the sun does not reach
    float up = dot(n, normalize((p3d_ViewMatrix * vec4(0.0, 0.0, 1.0, 0.0)).xyz));
    v_rest_d = p3d_LightModel.ambient.rgb * mix(vec3(0.55, 0.5, 0.46), vec3(1.2, 1.2, 1.25), 0.5 + 0.5 * up);
    v_rest_s = vec3(0.0);
    for (int i = 0; i < 3; i++) {
        vec3 l = normalize(p3d_LightSource[i].position.xyz - eye.xyz * p3d_LightSource[i].position.w);
        float ndl = max(dot(n, l), 0.0);
        float spec = ndl > 0.0 ? pow(max(dot(n, normalize(l + view)), 0.0), max(p3d_Material.shininess, 1.0)) : 0.0;
        vec3 d = p3d_LightSource[i].color.rgb * ndl;
        vec3 s = p3d_LightSource[i].color.rgb * p3d_Material.specular * spec;
        if (i == 0) { v_sun_d = d; v_sun_s = s; } else { v_rest_d += d; v_rest_s += s; }
    }
#ifdef PLANAR
    // a material's grain, mapped from the part's own frame (a part's UVs are not needed): its x
    // along the grain, y and z across it, so the sides of a board show the grain too
    v_uv = vec2(p3d_Vertex.x, p3d_Vertex.y + p3d_Vertex.z) * grain_scale;
#else
    v_uv = p3d_MultiTexCoord0;
#endif
    v_shadow = p3d_LightSource[0].shadowViewMatrix * eye;
}
"""

FRAGMENT = """
""" + _LIGHTS + """
uniform sampler2D p3d_Texture0;
in vec4 v_base;
in vec3 v_sun_d;
in vec3 v_sun_s;
in vec3 v_rest_d;
in vec3 v_rest_s;
in vec2 v_uv;
in vec4 v_shadow;
out vec4 color;
void main() {
    vec4 base = v_base;
#ifdef TEXTURED
    base *= texture(p3d_Texture0, v_uv);
#endif
    float sh = 1.0;
#ifdef SHADOWED
    vec3 p = v_shadow.xyz / v_shadow.w;
    if (p.x > 0.0 && p.x < 1.0 && p.y > 0.0 && p.y < 1.0)
        sh = texture(p3d_LightSource[0].shadowMap, vec3(p.xy, p.z - 0.0015));
#endif
    color = vec4(base.rgb * (v_rest_d + sh * v_sun_d) + v_rest_s + sh * v_sun_s, base.a);
}
"""


@lru_cache(maxsize=None)
def scene_shader(shadows: bool, textured: bool = False, planar: bool = False) -> Shader:
    """The shader, compiled without the shadow lookup or the texture when they are not wanted
    (a branch on a uniform still costs a software renderer the lookup). `planar`: the texture is
    a material's grain, mapped from the part's own coordinates (shader input grain_scale, repeats
    per metre) instead of the geometry's UVs."""
    defines = "#version 130\n" + ("#define SHADOWED\n" if shadows else "") + (
        "#define TEXTURED\n" if textured or planar else "") + ("#define PLANAR\n" if planar else "")
    return Shader.make(Shader.SL_GLSL, defines + VERTEX.replace("#version 130\n", "", 1), defines + FRAGMENT)
