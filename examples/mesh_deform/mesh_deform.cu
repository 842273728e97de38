// A sheet rippled by three moving sources: a triangle mesh CUDA deforms every frame (the mesh
// view). The grid's vertices (x, y, z, height) are rewritten each frame; its triangles never
// change, so their indices live in a single buffer (ESTUARY_ALLOC_SINGLE) written once, in the
// first frame. Smooth shading from normals estuary sums each frame, coloured by height, with a
// faint wireframe over it.
#include <estuary/estuary.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kCells = 128; // per side: (kCells + 1)^2 vertices, 2 kCells^2 triangles
constexpr int kVertices = (kCells + 1) * (kCells + 1);
constexpr int kTriangles = 2 * kCells * kCells;
constexpr float kAmplitude = 0.06f;

struct Sources {
    float2 at[3];
    float time;
};

// Vertex (i, j) of the sheet over [-0.5, 0.5]^2 in x and z, lifted by the ripples (up the
// picture is -y) and carrying its height as the value the colormap shows.
__global__ void deform(float4* vertices, Sources s) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= kVertices) return;
    const float x = float(n % (kCells + 1)) / kCells - 0.5f;
    const float z = float(n / (kCells + 1)) / kCells - 0.5f;
    float height = 0.0f;
    for (const float2& a : s.at) {
        const float r = sqrtf((x - a.x) * (x - a.x) + (z - a.y) * (z - a.y));
        height += kAmplitude * __sinf(28.0f * r - 4.0f * s.time) / (1.0f + 12.0f * r);
    }
    vertices[n] = make_float4(x, -height, z, height);
}

// Two triangles per cell, written once.
__global__ void triangulate(unsigned* indices) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= kCells * kCells) return;
    const unsigned i = c % kCells, j = c / kCells;
    const unsigned a = j * (kCells + 1) + i, b = a + 1, d = a + (kCells + 1), e = d + 1;
    const unsigned corners[6] = {a, d, b, b, d, e};
    for (int k = 0; k < 6; ++k)
        indices[6 * c + k] = corners[k];
}

} // namespace

int main() try {
    estuary::Viewer viewer;
    estuary::Buffer vertices = viewer.buffer(
        {.size = kVertices * sizeof(float4), .writer = ESTUARY_WRITER_CUDA, .name = "sheet"});
    estuary::Buffer indices = viewer.buffer({.size = 3 * kTriangles * sizeof(unsigned),
                                             .writer = ESTUARY_WRITER_CUDA,
                                             .flags = ESTUARY_ALLOC_SINGLE,
                                             .name = "cells"});
    estuary_mesh_view_desc mesh{.vertices = vertices.get(), .indices = indices.get()};
    mesh.shading = ESTUARY_MESH_SMOOTH;
    mesh.flags = ESTUARY_MESH_WIREFRAME | ESTUARY_POINTS_COLORBAR;
    mesh.wire_color[3] = 0.25f; // black, faint
    mesh.value_min = -0.7f * kAmplitude;
    mesh.value_max = 0.7f * kAmplitude;
    mesh.label = "height";
    const float box[6] = {-0.5f, -0.15f, -0.5f, 0.5f, 0.15f, 0.5f};
    std::copy(box, box + 6, mesh.bounds);
    const estuary::View sheet = viewer.meshView(mesh); // drawn while `sheet` lives
    viewer.setCamera(
        {.zoom = 1.5f, .yaw_degrees = 30.0f, .pitch_degrees = 35.0f}); // closer, and from higher up

    int frames = 0;
    viewer.display([&](estuary::Frame& frame) {
        if (frames == 0)
            triangulate<<<(kCells * kCells + 255) / 256, 256, 0, frame.stream()>>>(
                frame.devicePointer<unsigned>(indices));
        // The sources wander on slow circles of their own.
        const float t = 0.02f * float(frames);
        Sources s{{{0.25f * std::cos(0.3f * t), 0.25f * std::sin(0.3f * t)},
                   {-0.3f + 0.1f * std::sin(0.5f * t), 0.2f},
                   {0.2f, -0.3f + 0.1f * std::cos(0.4f * t)}},
                  t};
        deform<<<(kVertices + 255) / 256, 256, 0, frame.stream()>>>(
            frame.devicePointer<float4>(vertices), s);
        ++frames;
    });
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "mesh_deform: %s\n", e.what());
    return e.status();
}
