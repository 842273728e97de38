// A CUDA program's own arrays drawn as they lie: 32,768 swimmers in a field of drifting vortices,
// kept as separate arrays (SoA) in estuary buffers: float2 positions, float2 velocities and a half
// per swimmer (its speed), which one kernel updates in place every frame. The markers view reads
// those arrays through attribute descriptors (estuary_attribute): no copy, no repacking kernel,
// no 32-byte marker struct. Arrows along the velocity, coloured by the half-precision speed.
#include <estuary/estuary.hpp>

#include <cuda_fp16.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kSwimmers = 1 << 15;
constexpr float kDt = 0.002f;

__device__ float hash01(unsigned& h) {
    h ^= h << 13, h ^= h >> 17, h ^= h << 5;
    return (h & 0xFFFFFF) / 16777216.0f;
}

__global__ void seed(float2* position, float2* velocity, __half* speed) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kSwimmers) return;
    unsigned h = 2654435761u * (i + 1);
    position[i] = make_float2(hash01(h), hash01(h));
    velocity[i] = make_float2(0.0f, 0.0f);
    speed[i] = __float2half(0.0f);
}

// The flow at p (the unit square, wrapping): four vortices circling the centre, t seconds in.
__device__ float2 flow(float2 p, float t) {
    float2 v = make_float2(0.0f, 0.0f);
    for (int k = 0; k < 4; ++k) {
        const float a = t * 0.3f + 1.5707963f * k;
        const float cx = 0.5f + 0.25f * cosf(a), cy = 0.5f + 0.25f * sinf(a);
        const float dx = p.x - cx, dy = p.y - cy;
        const float r2 = dx * dx + dy * dy + 0.004f;
        const float turn = (k % 2 ? -0.03f : 0.03f) / r2;
        v.x += -dy * turn;
        v.y += dx * turn;
    }
    return v;
}

// One step of every swimmer, in place in the arrays the view draws: it steers towards the flow.
__global__ void swim(float2* position, float2* velocity, __half* speed, float t) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kSwimmers) return;
    float2 p = position[i], v = velocity[i];
    const float2 f = flow(p, t);
    v.x += 4.0f * kDt * (f.x - v.x);
    v.y += 4.0f * kDt * (f.y - v.y);
    p.x = p.x + kDt * v.x;
    p.y = p.y + kDt * v.y;
    p.x -= floorf(p.x);
    p.y -= floorf(p.y);
    position[i] = p;
    velocity[i] = v;
    speed[i] = __float2half(sqrtf(v.x * v.x + v.y * v.y));
}

void check(cudaError_t e) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "soa_markers: %s\n", cudaGetErrorString(e));
        std::exit(1);
    }
}

} // namespace

int main() try {
    estuary::Viewer viewer;
    // One copy each (ESTUARY_ALLOC_SINGLE): the arrays are the simulation's state, updated in
    // place; a frame writing them waits on the GPU for the draw reading them before.
    const auto array = [&](size_t bytes, const char* name) {
        return viewer.buffer({.size = bytes,
                              .writer = ESTUARY_WRITER_CUDA,
                              .flags = ESTUARY_ALLOC_SINGLE,
                              .name = name});
    };
    estuary::Buffer position = array(kSwimmers * sizeof(float2), "position");
    estuary::Buffer velocity = array(kSwimmers * sizeof(float2), "velocity");
    estuary::Buffer speed = array(kSwimmers * sizeof(__half), "speed");

    estuary_markers_view_desc d{.shape = ESTUARY_MARKER_SHAPE_ARROW, .size = 8.0f};
    d.attributes[ESTUARY_CHANNEL_POSITION] = estuary::attribute(position, ESTUARY_ATTRIBUTE_F32X2);
    d.attributes[ESTUARY_CHANNEL_DIRECTION] = estuary::attribute(velocity, ESTUARY_ATTRIBUTE_F32X2);
    d.attributes[ESTUARY_CHANNEL_VALUE] = estuary::attribute(speed, ESTUARY_ATTRIBUTE_F16);
    d.colormap = ESTUARY_COLORMAP_VIRIDIS;
    d.value_max = 0.6f;
    d.flags = ESTUARY_POINTS_COLORBAR;
    d.label = "swimmer speed";
    const estuary::View swimmers = viewer.markersView(d); // drawn while `swimmers` lives

    const int blocks = (kSwimmers + 255) / 256;
    bool seeded = false;
    float t = 0.0f;
    viewer.display([&](estuary::Frame& frame) {
        auto* p = frame.devicePointer<float2>(position);
        auto* v = frame.devicePointer<float2>(velocity);
        auto* s = frame.devicePointer<__half>(speed);
        if (!seeded) seed<<<blocks, 256, 0, frame.stream()>>>(p, v, s);
        seeded = true;
        for (int k = 0; k < 4; ++k, t += kDt)
            swim<<<blocks, 256, 0, frame.stream()>>>(p, v, s, t);
        check(cudaGetLastError());
    });
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "soa_markers: %s\n", e.what());
    return e.status();
}
