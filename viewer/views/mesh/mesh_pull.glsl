// What the mesh's vertex shaders, its prepare pass (mesh_prepare.comp) and its pick read: vertex i
// as (x, y, z, value) from its channels (attributes.glsl; by default vec4 each), and triangle t's
// three vertices (3t, 3t + 1, 3t + 2, or the index channel's entries there); false when one of
// them is past the vertices (not drawn).
#include "shared_layout.h"
#include "attributes.glsl"

layout(push_constant) uniform Push { ESTUARY_MESH_PUSH_CONSTANTS } pc;

vec4 meshVertex(uint i) {
    return vec4(fetchVector(ESTUARY_CH_POSITION, i).xyz, fetchScalar(ESTUARY_CH_VALUE, i));
}

bool triangleCorners(uint triangle, out uvec3 corners) {
    uint first = 3u * triangle;
    corners = uvec3(first, first + 1u, first + 2u);
    if ((floatBitsToUint(pc.meshFlagBits) & ESTUARY_MESH_FLAG_INDEXED) != 0u)
        corners = uvec3(fetchIndex(first), fetchIndex(first + 1u), fetchIndex(first + 2u));
    return all(lessThan(corners, uvec3(floatBitsToUint(pc.vertexCountBits))));
}

// A position in the camera's frame: the box's centre at the origin, its largest side 1.
vec3 inBox(vec4 vertex) {
    return (vertex.xyz - vec3(pc.centreX, pc.centreY, pc.centreZ)) * pc.invScale;
}
