#version 450
#extension GL_GOOGLE_include_directive : require

// What a mesh's draw needs made each frame, one invocation a triangle (a grid-stride loop):
// - NORMAL_SUMS: the smooth normals, summed: each triangle adds its unit normal to its three
//   vertices in fixed point (ESTUARY_MESH_NORMAL_SCALE per unit), so the sums do not depend on the
//   order the atomics land in; the vertex shaders normalise them. The renderer clears the sums
//   first. Degenerate triangles (no normal) and triangles with a corner past the vertices add
//   nothing.
// - WRITE_INDICES: the indexed draw's indices, the triangle's own, or (0, 0, 0) for one with a
//   corner past the vertices: a point, which draws nothing, and vertex 0 always exists.
#define ESTUARY_MESH
#include "mesh_pull.glsl"

layout(local_size_x = 256) in;

layout(std430, binding = ESTUARY_BINDING_NORMALS) buffer Sums {
    int sums[]; // 4 per vertex: x, y, z, unused
};
layout(std430, binding = ESTUARY_BINDING_DRAW_INDICES) writeonly buffer DrawIndices {
    uint drawIndices[];
};

void main() {
    uint flags = floatBitsToUint(pc.meshFlagBits);
    uint triangles = floatBitsToUint(pc.triangleCountBits);
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint t = gl_GlobalInvocationID.x; t < triangles; t += stride) {
        uvec3 ids;
        bool drawn = triangleCorners(t, ids);
        if ((flags & ESTUARY_MESH_FLAG_WRITE_INDICES) != 0u) {
            uvec3 out_ = drawn ? ids : uvec3(0u);
            drawIndices[3u * t] = out_.x;
            drawIndices[3u * t + 1u] = out_.y;
            drawIndices[3u * t + 2u] = out_.z;
        }
        if (!drawn || (flags & ESTUARY_MESH_FLAG_NORMAL_SUMS) == 0u) continue;
        vec3 p0 = inBox(meshVertex(ids.x)), p1 = inBox(meshVertex(ids.y)),
             p2 = inBox(meshVertex(ids.z));
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
