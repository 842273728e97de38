// Two galaxies of a million stars each falling into one another, drawn as 3D points: the stars
// move in the field of the two galaxies' cores (which attract each other), a restricted n-body
// problem, one thread per star. Each frame the stars' positions and speeds go into the points
// view's buffer: (x, y, z, speed), coloured by speed.
#include <estuary/estuary.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

constexpr int kStars = 1 << 21; // 2,097,152
constexpr float kCoreMass = 1.0f, kSoftening = 0.05f, kDt = 0.004f;

struct Core {
    float3 position, velocity;
};

__device__ float3 pull(float3 p, float3 core) {
    const float3 d = make_float3(core.x - p.x, core.y - p.y, core.z - p.z);
    const float r2 = d.x * d.x + d.y * d.y + d.z * d.z + kSoftening * kSoftening;
    const float s = kCoreMass * rsqrtf(r2 * r2 * r2);
    return make_float3(d.x * s, d.y * s, d.z * s);
}

// Stars on circular orbits in two tilted disks, one around each core.
__global__ void seed(float4* position, float4* velocity, Core a, Core b) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kStars) return;
    const Core c = i % 2 ? b : a;
    unsigned h = i * 2654435761u;
    const auto next = [&] {
        h ^= h << 13, h ^= h >> 17, h ^= h << 5;
        return (h & 0xFFFFFF) / 16777216.0f;
    };
    const float r = 0.15f + 1.2f * sqrtf(next()), angle = 6.2831853f * next();
    const float tilt = i % 2 ? 0.6f : -0.3f, speed = sqrtf(kCoreMass / r);
    const float x = r * cosf(angle), y = r * sinf(angle) * cosf(tilt),
                z = r * sinf(angle) * sinf(tilt);
    position[i] = make_float4(c.position.x + x, c.position.y + y, c.position.z + z, 0);
    velocity[i] = make_float4(c.velocity.x - speed * sinf(angle),
                              c.velocity.y + speed * cosf(angle) * cosf(tilt),
                              c.velocity.z + speed * cosf(angle) * sinf(tilt), 0);
}

// One step of every star (semi-implicit Euler), then its point for the frame: (x, y, z, speed).
__global__ void step(float4* position, float4* velocity, float4* points, Core a, Core b) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kStars) return;
    float3 p = make_float3(position[i].x, position[i].y, position[i].z);
    float3 v = make_float3(velocity[i].x, velocity[i].y, velocity[i].z);
    const float3 fa = pull(p, a.position), fb = pull(p, b.position);
    v = make_float3(v.x + kDt * (fa.x + fb.x), v.y + kDt * (fa.y + fb.y),
                    v.z + kDt * (fa.z + fb.z));
    p = make_float3(p.x + kDt * v.x, p.y + kDt * v.y, p.z + kDt * v.z);
    position[i] = make_float4(p.x, p.y, p.z, 0);
    velocity[i] = make_float4(v.x, v.y, v.z, 0);
    points[i] = make_float4(p.x, p.y, p.z, sqrtf(v.x * v.x + v.y * v.y + v.z * v.z));
}

// The two cores attract each other (host side: two bodies, same step).
void stepCores(Core& a, Core& b) {
    const float3 d = make_float3(b.position.x - a.position.x, b.position.y - a.position.y,
                                 b.position.z - a.position.z);
    const float r2 = d.x * d.x + d.y * d.y + d.z * d.z + kSoftening * kSoftening;
    const float s = kCoreMass / (r2 * std::sqrt(r2));
    for (Core* c : {&a, &b}) {
        const float sign = c == &a ? 1.0f : -1.0f;
        c->velocity =
            make_float3(c->velocity.x + sign * kDt * s * d.x, c->velocity.y + sign * kDt * s * d.y,
                        c->velocity.z + sign * kDt * s * d.z);
        c->position =
            make_float3(c->position.x + kDt * c->velocity.x, c->position.y + kDt * c->velocity.y,
                        c->position.z + kDt * c->velocity.z);
    }
}

void check(cudaError_t e) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "nbody: %s\n", cudaGetErrorString(e));
        std::exit(1);
    }
}

} // namespace

int main() try {
    estuary::Viewer viewer;
    estuary::Buffer points = viewer.buffer(
        {.size = kStars * sizeof(float4), .writer = ESTUARY_WRITER_CUDA, .name = "stars"});
    estuary_points_view_desc view{.buffer = points.get(), .layout = ESTUARY_POINTS_XYZ_SCALAR};
    view.value_max = 2.5f;  // speed at the colormap's end
    view.intensity = 0.03f; // ~20 stars share a pixel in the disks: keep them from saturating
    view.colormap = ESTUARY_COLORMAP_MAGMA;
    view.flags = ESTUARY_POINTS_COLORBAR;
    view.label = "star speed";
    const float bounds[6] = {-3, -3, -3, 3, 3, 3};
    std::copy(bounds, bounds + 6, view.bounds);
    const estuary::View stars = viewer.pointsView(view); // drawn while `stars` lives
    viewer.setCamera({.zoom = 1.0f, .yaw_degrees = 30.0f, .pitch_degrees = 35.0f});

    float4 *position = nullptr, *velocity = nullptr;
    check(cudaMalloc(&position, kStars * sizeof(float4)));
    check(cudaMalloc(&velocity, kStars * sizeof(float4)));
    Core a{{-1.6f, 0, 0}, {0, -0.32f, 0.05f}}, b{{1.6f, 0, 0}, {0, 0.32f, -0.05f}};
    const int blocks = (kStars + 255) / 256;
    seed<<<blocks, 256>>>(position, velocity, a, b);
    check(cudaDeviceSynchronize());
    viewer.display([&](estuary::Frame& frame) {
        stepCores(a, b);
        step<<<blocks, 256, 0, frame.stream()>>>(position, velocity,
                                                 frame.devicePointer<float4>(points), a, b);
    });
    check(cudaFree(position));
    check(cudaFree(velocity));
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "nbody: %s\n", e.what());
    return e.status();
}
