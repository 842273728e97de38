// Tracers in a flow of four point vortices that circle one another, drawn as vector glyphs: each
// tracer an arrow along its velocity, as long as its speed and coloured by it (the markers view),
// with its last 16 places as a trail (the lines view: a strip per tracer through an index buffer,
// a restart between tracers). CUDA advects the tracers and keeps their history in its own memory,
// then writes each frame's arrows, trail vertices and trail indices into the views' buffers.
#include <estuary/estuary.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kTracers = 4096;
constexpr int kTrail = 16; // places kept per tracer
constexpr int kVortices = 4;
constexpr float kDt = 0.05f;
constexpr float kFastest = 0.1f; // the speed at the colormap's end and of the longest arrow

struct Vortex {
    float x, y, strength;
};
struct Vortices {
    Vortex v[kVortices];
};
struct Marker {
    float4 positionValue, directionSize;
};

// The velocity at (x, y) of point vortices (a smoothed core), in the unit square.
__host__ __device__ float2 flow(float x, float y, const Vortices& vs) {
    float2 u = make_float2(0.0f, 0.0f);
    for (const Vortex& v : vs.v) {
        const float dx = x - v.x, dy = y - v.y;
        const float r2 = dx * dx + dy * dy + 0.002f;
        u.x += -v.strength * dy / r2;
        u.y += v.strength * dx / r2;
    }
    return u;
}

__global__ void seed(float2* tracers) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kTracers) return;
    unsigned h = i * 2654435761u + 7u;
    const auto next = [&] {
        h ^= h << 13, h ^= h >> 17, h ^= h << 5;
        return (h & 0xFFFFFF) / 16777216.0f;
    };
    tracers[i] = make_float2(0.1f + 0.8f * next(), 0.1f + 0.8f * next());
}

// One step of tracer i (midpoint rule, wrapped into the unit square), its newest place into its
// history (a ring of kTrail places at `head`, in CUDA's own memory); then the frame's copies: its
// arrow, its history's vertices and its trail's indices, oldest place first.
__global__ void step(float2* tracers, float4* history, int* since, Marker* arrows, float4* trail,
                     unsigned* indices, Vortices vs, int head) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kTracers) return;
    float2 p = tracers[i];
    const float2 u0 = flow(p.x, p.y, vs);
    const float2 u = flow(p.x + 0.5f * kDt * u0.x, p.y + 0.5f * kDt * u0.y, vs);
    float2 next = make_float2(p.x + kDt * u.x, p.y + kDt * u.y);
    const bool wrapped = next.x < 0.0f || next.x > 1.0f || next.y < 0.0f || next.y > 1.0f;
    next.x -= floorf(next.x);
    next.y -= floorf(next.y);
    tracers[i] = next;
    const float speed = sqrtf(u.x * u.x + u.y * u.y);
    // The direction's length is the arrow's size factor (the view scales by it): speed over the
    // fastest, at most 1.
    const float scale = fminf(speed, kFastest) / kFastest / fmaxf(speed, 1e-6f);
    arrows[i] = {make_float4(next.x, next.y, 0.0f, speed),
                 make_float4(u.x * scale, u.y * scale, 0.0f, 0.0f)};
    history[i * kTrail + head] = make_float4(next.x, next.y, 0.0f, speed);
    for (int j = 0; j < kTrail; ++j)
        trail[i * kTrail + j] = history[i * kTrail + j];
    // Places kept since the tracer last wrapped around (or since the start): its trail.
    since[i] = wrapped ? 1 : min(since[i] + 1, kTrail);
    unsigned* out = indices + i * (kTrail + 1);
    const int kept = since[i];
    for (int j = 0; j < kTrail; ++j) {
        const int age = kTrail - 1 - j; // steps back from the newest
        out[j] = age < kept ? unsigned(i * kTrail + (head - age + kTrail) % kTrail) : 0xFFFFFFFFu;
    }
    out[kTrail] = 0xFFFFFFFFu; // between tracers
}

void check(cudaError_t e) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "vector_glyphs: %s\n", cudaGetErrorString(e));
        std::exit(1);
    }
}

} // namespace

int main() try {
    estuary::Viewer viewer;
    estuary::Buffer arrows = viewer.buffer(
        {.size = kTracers * sizeof(Marker), .writer = ESTUARY_WRITER_CUDA, .name = "arrows"});
    estuary::Buffer trail = viewer.buffer({.size = kTracers * kTrail * sizeof(float4),
                                           .writer = ESTUARY_WRITER_CUDA,
                                           .name = "trails"});
    estuary::Buffer indices = viewer.buffer({.size = kTracers * (kTrail + 1) * sizeof(unsigned),
                                             .writer = ESTUARY_WRITER_CUDA,
                                             .name = "trail indices"});
    // The trails first, thin and dark (magma), then the arrows over them.
    estuary_lines_view_desc lines{
        .vertices = trail.get(), .indices = indices.get(), .topology = ESTUARY_LINES_STRIP};
    lines.width = 1.0f;
    lines.colormap = ESTUARY_COLORMAP_MAGMA;
    lines.value_max = kFastest;
    const estuary::View trails = viewer.linesView(lines); // each drawn while its View lives
    estuary_markers_view_desc glyphs{.buffer = arrows.get(), .shape = ESTUARY_MARKER_SHAPE_ARROW};
    glyphs.size = 18.0f; // pixels for the fastest tracers
    glyphs.flags = ESTUARY_MARKERS_SCALE_BY_LENGTH | ESTUARY_POINTS_COLORBAR;
    glyphs.value_max = kFastest;
    glyphs.label = "speed";
    const estuary::View arrowGlyphs = viewer.markersView(glyphs);

    float2* tracers = nullptr;
    float4* history = nullptr;
    int* since = nullptr;
    check(cudaMalloc(&tracers, kTracers * sizeof(float2)));
    check(cudaMalloc(&history, kTracers * kTrail * sizeof(float4)));
    check(cudaMalloc(&since, kTracers * sizeof(int)));
    check(cudaMemset(since, 0, kTracers * sizeof(int)));
    seed<<<(kTracers + 255) / 256, 256>>>(tracers);
    check(cudaDeviceSynchronize());
    Vortices vs{
        {{0.35f, 0.5f, 0.01f}, {0.65f, 0.5f, 0.01f}, {0.5f, 0.3f, -0.006f}, {0.5f, 0.7f, -0.006f}}};
    int frames = 0;
    viewer.display([&](estuary::Frame& frame) {
        // The vortices circle the centre, each at its own pace: the flow keeps changing.
        const float t = 0.004f * float(frames);
        for (int k = 0; k < kVortices; ++k) {
            const float radius = k < 2 ? 0.15f : 0.2f, phase = 1.5707963f * float(k);
            const float pace = k < 2 ? 1.0f : -0.7f;
            vs.v[k].x = 0.5f + radius * std::cos(phase + pace * t);
            vs.v[k].y = 0.5f + radius * std::sin(phase + pace * t);
        }
        // The frame's copies of the buffers are written whole: a ring copy last held a frame
        // some frames back, so the trails' history lives in CUDA's own memory.
        step<<<(kTracers + 255) / 256, 256, 0, frame.stream()>>>(
            tracers, history, since, frame.devicePointer<Marker>(arrows),
            frame.devicePointer<float4>(trail), frame.devicePointer<unsigned>(indices), vs,
            frames % kTrail);
        ++frames;
    });
    check(cudaFree(tracers));
    check(cudaFree(history));
    check(cudaFree(since));
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "vector_glyphs: %s\n", e.what());
    return e.status();
}
