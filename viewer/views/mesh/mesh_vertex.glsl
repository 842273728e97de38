// What both mesh vertex shaders (mesh.vert, mesh_indexed.vert) share: their outputs, the vertex's
// colour, and its projection as 3D points are placed (points_place.glsl), with reversed depth:
// z = near / distance along the view.
#define ESTUARY_POINTS_3D
#define ESTUARY_MESH
#include "mesh_pull.glsl"

layout(std430, binding = ESTUARY_BINDING_NORMALS) readonly buffer Sums {
    ivec4 sums[]; // (NORMAL_SUMS) the summed normals
};
layout(binding = ESTUARY_BINDING_COLORMAP) uniform sampler2D colormaps;

#include "points_place.glsl"

layout(location = 0) out vec4 color;
layout(location = 1) out vec3 normal; // the camera's frame, not normalised; 0: mesh.frag derives it
layout(location = 2) out vec3 toEye;
layout(location = 3) noperspective out vec3 corner; // 1 at this corner, 0 at the others
layout(location = 4) flat out vec3 light;           // towards the light, unit length

const float kNear = 1e-3; // of the box's size

// Vertex `id`'s smooth normal (the sums', or the normal channel's); 0 where it has none.
vec3 vertexNormal(uint id, uint flags) {
    if ((flags & ESTUARY_MESH_FLAG_NORMAL_SUMS) != 0u)
        return vec3(sums[id].xyz) / ESTUARY_MESH_NORMAL_SCALE;
    return fetchVector(ESTUARY_CH_NORMAL, id).xyz;
}

vec4 vertexColour(vec4 vertex, uint flags) {
    return (flags & ESTUARY_MESH_FLAG_RGBA) != 0u ? unpackUnorm4x8(floatBitsToUint(vertex.w))
                                                  : vec4(colormapColour(vertex.w), 1.0);
}

// gl_Position, toEye and the light for a vertex at `position` (the camera's frame).
void project(vec3 position) {
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
