"""The scene's GLSL shader: per-pixel Blinn-Phong lighting from Panda3D's light and material
inputs, with the sun's shadow map sampled with 2x2 percentage-closer filtering.

Written by hand because Panda3D's automatic shader generator emits Cg, which Mesa's software
renderer (llvmpipe, the renderer here and in CI) does not run in a compatibility profile; and
plain GLSL 1.30 runs on every desktop driver. Text and 2D overlays keep the fixed pipeline.
"""
from __future__ import annotations

from panda3d.core import Shader

VERTEX = """
#version 130
uniform mat4 p3d_ModelViewProjectionMatrix;
uniform mat4 p3d_ModelViewMatrix;
uniform mat3 p3d_NormalMatrix;
uniform struct p3d_LightSourceParameters {
    vec4 color;
    vec4 position;
    sampler2DShadow shadowMap;
    mat4 shadowViewMatrix;
} p3d_LightSource[3];
in vec4 p3d_Vertex;
in vec3 p3d_Normal;
in vec2 p3d_MultiTexCoord0;
in vec4 p3d_Color;
out vec4 v_color;
out vec3 v_pos;
out vec3 v_normal;
out vec2 v_uv;
out vec4 v_shadow;
void main() {
    gl_Position = p3d_ModelViewProjectionMatrix * p3d_Vertex;
    vec4 eye = p3d_ModelViewMatrix * p3d_Vertex;
    v_pos = eye.xyz;
    v_normal = normalize(p3d_NormalMatrix * p3d_Normal);
    v_uv = p3d_MultiTexCoord0;
    v_color = p3d_Color;
    v_shadow = p3d_LightSource[0].shadowViewMatrix * eye;
}
"""

FRAGMENT = """
#version 130
uniform struct p3d_MaterialParameters {
    vec4 ambient;
    vec4 diffuse;
    vec3 specular;
    float shininess;
} p3d_Material;
uniform struct p3d_LightModelParameters { vec4 ambient; } p3d_LightModel;
uniform struct p3d_LightSourceParameters {
    vec4 color;
    vec4 position;
    sampler2DShadow shadowMap;
    mat4 shadowViewMatrix;
} p3d_LightSource[3];
uniform vec4 p3d_ColorScale;
uniform sampler2D p3d_Texture0;
uniform float textured;
uniform float shadowed;
in vec4 v_color;
in vec3 v_pos;
in vec3 v_normal;
in vec2 v_uv;
in vec4 v_shadow;
out vec4 color;
float shadow_factor() {
    if (shadowed < 0.5) return 1.0;
    vec3 p = v_shadow.xyz / v_shadow.w;
    if (p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0) return 1.0;
    float s = 0.0;
    float d = 1.0 / 1024.0;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            s += texture(p3d_LightSource[0].shadowMap, vec3(p.xy + vec2(i - 0.5, j - 0.5) * d, p.z - 0.0015));
    return s * 0.25;
}
void main() {
    vec4 base = p3d_Material.diffuse * v_color * p3d_ColorScale;
    if (textured > 0.5) base *= texture(p3d_Texture0, v_uv);
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
    vec3 view = normalize(-v_pos);
    vec3 lit = p3d_LightModel.ambient.rgb * base.rgb;
    for (int i = 0; i < 3; i++) {
        vec3 l = normalize(p3d_LightSource[i].position.xyz - v_pos * p3d_LightSource[i].position.w);
        float ndl = max(dot(n, l), 0.0);
        float sh = (i == 0) ? shadow_factor() : 1.0;
        vec3 h = normalize(l + view);
        float spec = ndl > 0.0 ? pow(max(dot(n, h), 0.0), max(p3d_Material.shininess, 1.0)) : 0.0;
        lit += sh * p3d_LightSource[i].color.rgb * (base.rgb * ndl + p3d_Material.specular.rgb * spec);
    }
    color = vec4(lit, base.a);
}
"""


def scene_shader() -> Shader:
    return Shader.make(Shader.SL_GLSL, VERTEX, FRAGMENT)
