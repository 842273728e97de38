#version 450
#extension GL_GOOGLE_include_directive : require

// A mesh's vertex: corner gl_VertexIndex % 3 of triangle gl_VertexIndex / 3, which it pulls whole
// (mesh_pull.glsl), so that every corner knows its triangle's normal (flat shading) and which
// corner it is (the wireframe's distances to the edges). A triangle with a corner past the
// vertices collapses to a point outside the picture. Projected as 3D points are
// (points_place.glsl), with reversed depth: z = near / distance along the view.
#define ESTUARY_POINTS_3D
#define ESTUARY_MESH
#include "mesh_pull.glsl"

layout(std430, binding = ESTUARY_BINDING_NORMALS) readonly buffer Normals {
    vec4 normals[]; // the user's, or (NORMAL_SUMS) the sums' integer bits
};
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

#include "points_place.glsl"

layout(location = 0) out vec4 color;
layout(location = 1) out vec3 normal; // the camera's frame, not normalised
layout(location = 2) out vec3 toEye;
layout(location = 3) noperspective out vec3 corner; // 1 at this corner, 0 at the others
layout(location = 4) flat out vec3 light;           // towards the light, unit length

const float kNear = 1e-3; // of the box's size

void main() {
    uint flags = floatBitsToUint(pc.meshFlagBits);
    uint which = uint(gl_VertexIndex) % 3u;
    uvec3 ids;
    if (!triangleCorners(uint(gl_VertexIndex) / 3u, ids)) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0); // all three corners: nothing to rasterize
        return;
    }
    vec3 p0 = inBox(vertices[ids.x]), p1 = inBox(vertices[ids.y]), p2 = inBox(vertices[ids.z]);
    uint id = ids[which];
    vec4 vertex = vertices[id];
    vec3 position = which == 0u ? p0 : which == 1u ? p1 : p2;
    normal = cross(p1 - p0, p2 - p0);
    if ((flags & ESTUARY_MESH_FLAG_FLAT) == 0u) {
        vec4 raw = normals[id];
        vec3 given = (flags & ESTUARY_MESH_FLAG_NORMAL_SUMS) != 0u
                         ? vec3(floatBitsToInt(raw.xyz)) / ESTUARY_MESH_NORMAL_SCALE
                         : raw.xyz;
        if (dot(given, given) > 0.0) normal = given; // else (none summed, or zero) the face's
    }
    color = (flags & ESTUARY_MESH_FLAG_RGBA) != 0u ? unpackUnorm4x8(floatBitsToUint(vertex.w))
                                                   : vec4(colormapColour(vertex.w), 1.0);
    corner = vec3(which == 0u, which == 1u, which == 2u);

    vec3 eye = vec3(pc.eyeX, pc.eyeY, pc.eyeZ);
    vec3 forward = vec3(pc.forwardX, pc.forwardY, pc.forwardZ);
    vec3 right = vec3(pc.rightX, pc.rightY, pc.rightZ);
    vec3 up = vec3(pc.upX, pc.upY, pc.upZ);
    vec3 d = position - eye;
    toEye = -d;
    // placePoint's NDC (x, y) times the distance t, so that the divide by w = t gives it back
    // and attributes interpolate perspective-correctly; z / w = near / t in (0, 1] from the near
    // plane out: the clipper cuts what is nearer than kNear.
    float t = dot(d, forward);
    gl_Position = vec4(dot(d, right) / dot(right, right), -dot(d, up) / dot(up, up), kNear, t);
    light = normalize(ESTUARY_MESH_LIGHT_RIGHT * normalize(right) +
                      ESTUARY_MESH_LIGHT_UP * normalize(up) -
                      ESTUARY_MESH_LIGHT_TOWARD * forward);
}
