#version 450
#extension GL_GOOGLE_include_directive : require

// A mesh's vertex with a wireframe: corner gl_VertexIndex % 3 of triangle gl_VertexIndex / 3,
// which it pulls whole (mesh_pull.glsl), so that every corner knows its triangle's normal (flat
// shading) and which corner it is (the wireframe's distances to the edges). A triangle with a
// corner past the vertices collapses to a point outside the picture.
#include "mesh_vertex.glsl"

void main() {
    uint flags = floatBitsToUint(pc.meshFlagBits);
    uint which = uint(gl_VertexIndex) % 3u;
    uvec3 ids;
    if (!triangleCorners(uint(gl_VertexIndex) / 3u, ids)) {
        gl_Position = vec4(2.0, 2.0, 2.0, 1.0); // all three corners: nothing to rasterize
        return;
    }
    vec3 p0 = inBox(meshVertex(ids.x)), p1 = inBox(meshVertex(ids.y)), p2 = inBox(meshVertex(ids.z));
    uint id = ids[which];
    normal = cross(p1 - p0, p2 - p0);
    if ((flags & ESTUARY_MESH_FLAG_FLAT) == 0u) {
        vec3 given = vertexNormal(id, flags);
        if (dot(given, given) > 0.0) normal = given; // else (none summed, or zero) the face's
    }
    color = vertexColour(meshVertex(id), flags);
    corner = vec3(which == 0u, which == 1u, which == 2u);
    project(which == 0u ? p0 : which == 1u ? p1 : p2);
}
