#version 450
#extension GL_GOOGLE_include_directive : require

// Picking a mesh's triangles (pick.glsl runs the passes): a triangle placed as mesh.vert places
// its corners covers the point when the point lies in it on the screen; else its distance is the
// distance to its nearest edge. Among triangles covering the point the nearest the eye wins, as
// the draw's depth test keeps it. Its vertex is the corner nearest the point (by weight), its
// value and position interpolated there as the draw interpolates (perspective-correct; with RGBA
// the nearest corner's value). A triangle with a corner behind the eye is not picked.
#define ESTUARY_POINTS_3D
#define ESTUARY_MESH
#include "mesh_pull.glsl"

layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

#include "points_place.glsl"
#include "pick.glsl"

uint pickCount() {
    return floatBitsToUint(pc.triangleCountBits);
}

float cross2(vec2 a, vec2 b) {
    return a.x * b.y - a.y * b.x;
}

bool pickElement(uint triangle, vec2 cursor, out PickHit hit) {
    hit = PickHit(0.0, 0.0, 0u, 0.0, vec3(0.0));
    uvec3 corners;
    if (!triangleCorners(triangle, corners)) return false;
    vec4 v[3] = vec4[](meshVertex(corners.x), meshVertex(corners.y), meshVertex(corners.z));
    vec2 p[3];
    vec3 t;
    for (int k = 0; k < 3; ++k) {
        float unused;
        if (!placePoint(vec4(v[k].xyz, 0.0), p[k], unused)) return false;
        t[k] = viewDistance(v[k].xyz);
    }
    float area = cross2(p[1] - p[0], p[2] - p[0]);
    if (!(abs(area) > 0.0) || isinf(area)) return false; // degenerate on the screen, or NaN
    // The point's barycentric weights on the screen; outside, those of the nearest edge point.
    vec3 l = vec3(cross2(p[1] - cursor, p[2] - cursor), cross2(p[2] - cursor, p[0] - cursor),
                  cross2(p[0] - cursor, p[1] - cursor)) /
             area;
    hit.distance = 0.0;
    if (any(lessThan(l, vec3(0.0)))) {
        hit.distance = 1e30;
        for (int k = 0; k < 3; ++k) {
            vec2 a = p[k], b = p[(k + 1) % 3];
            float s = clamp(dot(cursor - a, b - a) / dot(b - a, b - a), 0.0, 1.0);
            float d = distance(cursor, mix(a, b, s));
            if (d < hit.distance) {
                hit.distance = d;
                l = vec3(0.0);
                l[k] = 1.0 - s;
                l[(k + 1) % 3] = s;
            }
        }
    }
    // Perspective-correct: weights over t, renormalised; the depth is their 1/t's inverse.
    vec3 w = l / t;
    w /= w.x + w.y + w.z;
    int nearest = w.x >= w.y && w.x >= w.z ? 0 : w.y >= w.z ? 1 : 2;
    hit.vertex = corners[nearest];
    hit.depth = dot(w, t);
    hit.position = w.x * v[0].xyz + w.y * v[1].xyz + w.z * v[2].xyz;
    bool rgba = (floatBitsToUint(pc.meshFlagBits) & ESTUARY_MESH_FLAG_RGBA) != 0u;
    hit.value = rgba ? v[nearest].w : dot(w, vec3(v[0].w, v[1].w, v[2].w));
    return true;
}
