#version 450
#extension GL_GOOGLE_include_directive : require

// A mesh's vertex without a wireframe: vertex gl_VertexIndex of the slot's vertices, drawn
// through the indices mesh_prepare.comp checked (or consecutively), so the GPU shades each vertex
// about once however many triangles share it. Flat shading (and a vertex without a normal) leaves
// the normal to mesh.frag, which takes the triangle's from how the position changes across it.
#include "mesh_vertex.glsl"

void main() {
    uint flags = floatBitsToUint(pc.meshFlagBits);
    uint id = uint(gl_VertexIndex);
    vec4 vertex = meshVertex(id);
    normal = (flags & ESTUARY_MESH_FLAG_FLAT) == 0u ? vertexNormal(id, flags) : vec3(0.0);
    color = vertexColour(vertex, flags);
    corner = vec3(1.0);
    project(inBox(vertex));
}
