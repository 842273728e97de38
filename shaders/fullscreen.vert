#version 450

// One triangle covering the viewport, from the vertex index alone: no vertex buffer.
// The OpenGL consumer compiles this source too; its vertex index has another name.
#ifdef VULKAN
#define ESTUARY_VERTEX_INDEX gl_VertexIndex
#else
#define ESTUARY_VERTEX_INDEX gl_VertexID
#endif

void main() {
    vec2 corner = vec2((ESTUARY_VERTEX_INDEX << 1) & 2, ESTUARY_VERTEX_INDEX & 2);
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
