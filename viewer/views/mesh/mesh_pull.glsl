// What the mesh's vertex shader and its normal sums (mesh_normals.comp) both read: the slot's
// vertices (vec4 (x, y, z, value)) and indices, and triangle t's three vertices (3t, 3t + 1,
// 3t + 2, or the indices there); false when one of them is past the vertices (not drawn).
#include "shared_layout.h"

layout(std430, binding = ESTUARY_BINDING_POINTS) readonly buffer Vertices {
    vec4 vertices[];
};
layout(std430, binding = ESTUARY_BINDING_INDICES) readonly buffer Indices {
    uint indices[];
};
layout(push_constant) uniform Push { ESTUARY_MESH_PUSH_CONSTANTS } pc;

bool triangleCorners(uint triangle, out uvec3 corners) {
    uint first = 3u * triangle;
    corners = uvec3(first, first + 1u, first + 2u);
    if ((floatBitsToUint(pc.meshFlagBits) & ESTUARY_MESH_FLAG_INDEXED) != 0u)
        corners = uvec3(indices[first], indices[first + 1u], indices[first + 2u]);
    return all(lessThan(corners, uvec3(floatBitsToUint(pc.vertexCountBits))));
}

// A position in the camera's frame: the box's centre at the origin, its largest side 1.
vec3 inBox(vec4 vertex) {
    return (vertex.xyz - vec3(pc.centreX, pc.centreY, pc.centreZ)) * pc.invScale;
}
