#version 450
#extension GL_GOOGLE_include_directive : require

// A mesh's smooth normals, summed: each triangle adds its unit normal to its three vertices in
// fixed point (ESTUARY_MESH_NORMAL_SCALE per unit), so the sums do not depend on the order the
// atomics land in; mesh.vert normalises them. The renderer clears the sums first. Degenerate
// triangles (no normal) and triangles with a corner past the vertices add nothing.
#define ESTUARY_MESH
#include "mesh_pull.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = ESTUARY_BINDING_NORMALS) buffer Sums {
    int sums[]; // 4 per vertex: x, y, z, unused
};

void main() {
    uint triangles = floatBitsToUint(pc.triangleCountBits);
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint t = gl_GlobalInvocationID.x; t < triangles; t += stride) {
        uvec3 ids;
        if (!triangleCorners(t, ids)) continue;
        vec3 p0 = inBox(vertices[ids.x]), p1 = inBox(vertices[ids.y]), p2 = inBox(vertices[ids.z]);
        vec3 n = cross(p1 - p0, p2 - p0);
        float length_ = length(n);
        if (!(length_ > 0.0) || isinf(length_)) continue; // degenerate, or NaN / inf positions
        ivec3 q = ivec3(round(n / length_ * ESTUARY_MESH_NORMAL_SCALE));
        for (int k = 0; k < 3; ++k) {
            uint base = 4u * ids[k];
            atomicAdd(sums[base], q.x);
            atomicAdd(sums[base + 1u], q.y);
            atomicAdd(sums[base + 2u], q.z);
        }
    }
}
