// The points splat's CUDA twin (bench_points.h): kernels first, then the CPU reference, the check
// and the timing. The scene is the points bench's (examples/points_bench): N points uniform in the
// box [-1, 1]^3, the value their distance from the centre, turned about the vertical axis; here
// under a plain perspective camera and a three-segment colour ramp, not the view's orbit camera and
// colormap texture, which change what lands where but not the traffic.
#include "bench_points.h"

#include "cuda_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

constexpr unsigned kNoPixel = 0xFFFFFFFFu;

struct Camera {
    unsigned width, height;
    float c, s;      // the turn's cosine and sine
    float focal;     // pixels per unit of x / depth
    float intensity; // each point's share of its colour (renderer/points.h pointIntensity)
};

// ---- shared by the kernels and the CPU reference (the same arithmetic: -fmad=false) -------------

struct Landing {
    unsigned pixel = kNoPixel;
    unsigned r = 0, g = 0, b = 0; // 1/255 steps
};

// Where a point lands (a one-pixel point: the pixel whose centre its square covers, after the
// rasterizer's 8-bit sub-pixel snap) and what it adds.
__host__ __device__ inline Landing land(float4 p, const Camera& cam) {
    Landing l;
    const float x = cam.c * p.x - cam.s * p.z, z = cam.s * p.x + cam.c * p.z + 3.5f;
    float px = x / z * cam.focal + 0.5f * float(cam.width);
    float py = p.y / z * cam.focal + 0.5f * float(cam.height);
    px = floorf(px * 256.0f + 0.5f) / 256.0f;
    py = floorf(py * 256.0f + 0.5f) / 256.0f;
    const float fx = ceilf(px - 1.0f), fy = ceilf(py - 1.0f);
    if (!(fx >= 0.0f && fy >= 0.0f && fx < float(cam.width) && fy < float(cam.height))) return l;
    const float t = fminf(fmaxf(p.w / 1.8f, 0.0f), 1.0f);
    const float ramp[3] = {t, 1.0f - fabsf(2.0f * t - 1.0f), 1.0f - t};
    unsigned add[3];
    for (int c = 0; c < 3; ++c)
        add[c] = unsigned(fminf(fmaxf(ramp[c] * cam.intensity, 0.0f), 1.0f) * 255.0f + 0.5f);
    if (add[0] + add[1] + add[2] == 0) return l;
    l.pixel = unsigned(fy) * cam.width + unsigned(fx);
    l.r = add[0], l.g = add[1], l.b = add[2];
    return l;
}

__host__ __device__ inline unsigned long long packed(unsigned r, unsigned g, unsigned b) {
    return (unsigned long long)r | (unsigned long long)g << 21 | (unsigned long long)b << 42;
}

// ---- the kernels --------------------------------------------------------------------------------

// Point i placed uniformly in the box: hashed (random order) or along a Z-order curve of 2^30 cells
// (Morton order: neighbouring indices are neighbours in space), jittered inside its cell.
__device__ inline float hashUnit(unsigned& h) {
    h ^= h << 13, h ^= h >> 17, h ^= h << 5;
    return float(h & 0xFFFFFF) / 16777216.0f;
}

__device__ inline unsigned everyThird(unsigned v) { // bits 0, 3, 6, ... of v, packed
    v &= 0x09249249u;
    v = (v ^ (v >> 2)) & 0x030C30C3u;
    v = (v ^ (v >> 4)) & 0x0300F00Fu;
    v = (v ^ (v >> 8)) & 0x030000FFu;
    v = (v ^ (v >> 16)) & 0x000003FFu;
    return v;
}

__global__ void seedKernel(float4* points, unsigned count, bool morton) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    unsigned h = i * 2654435761u + 12345u;
    float x = 2.0f * hashUnit(h) - 1.0f, y = 2.0f * hashUnit(h) - 1.0f,
          z = 2.0f * hashUnit(h) - 1.0f;
    if (morton) {
        const unsigned code = unsigned((unsigned long long)i * (1ull << 30) / count);
        x = (float(everyThird(code)) + 0.5f * (x + 1.0f)) / 512.0f - 1.0f;
        y = (float(everyThird(code >> 1)) + 0.5f * (y + 1.0f)) / 512.0f - 1.0f;
        z = (float(everyThird(code >> 2)) + 0.5f * (z + 1.0f)) / 512.0f - 1.0f;
    }
    points[i] = make_float4(x, y, z, sqrtf(x * x + y * y + z * z));
}

// The points bench's CUDA work each frame: 16 B read and 16 B written a point.
__global__ void moveKernel(const float4* seeded, float4* points, unsigned count, float c, float s) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const float4 p = seeded[i];
    points[i] = make_float4(c * p.x - s * p.z, p.y, s * p.x + c * p.z, p.w);
}

// points_splat.glsl's addPacked: the channels an add takes to 2^20 are taken back.
__device__ inline void addPacked(unsigned long long* sums, unsigned pixel, unsigned long long add) {
    const unsigned long long after = atomicAdd(sums + pixel, add) + add;
    unsigned long long back = 0;
    if (after & (1ull << 20)) back |= add & 0x1FFFFFull;
    if (after & (1ull << 41)) back |= add & (0x1FFFFFull << 21);
    if (after & (1ull << 62)) back |= add & (0x3FFFFFull << 42);
    if (back) atomicAdd(sums + pixel, 0ull - back);
}

__global__ void splatPacked(const float4* points, unsigned count, unsigned long long* sums,
                            Camera cam) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += gridDim.x * blockDim.x) {
        const Landing l = land(points[i], cam);
        if (l.pixel != kNoPixel) addPacked(sums, l.pixel, packed(l.r, l.g, l.b));
    }
}

// points_splat.glsl's ESTUARY_SPLAT_SATURATED: bytes saturating at 255 by compare-and-swap.
__global__ void splatSaturated(const float4* points, unsigned count, unsigned* sums, Camera cam) {
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += gridDim.x * blockDim.x) {
        const Landing l = land(points[i], cam);
        if (l.pixel == kNoPixel) continue;
        unsigned old = sums[l.pixel];
        for (;;) {
            const unsigned r = min((old & 0xFFu) + l.r, 255u);
            const unsigned g = min(((old >> 8) & 0xFFu) + l.g, 255u);
            const unsigned b = min(((old >> 16) & 0xFFu) + l.b, 255u);
            const unsigned next = r | g << 8 | b << 16;
            if (next == old) break;
            const unsigned seen = atomicCAS(sums + l.pixel, old, next);
            if (seen == old) break;
            old = seen;
        }
    }
}

// Whole warps each round (the shuffles and votes need every lane), 256 points a block a round.
// merged: points_splat.glsl's ESTUARY_SPLAT_MERGED, runs of neighbouring lanes on one pixel summed
// by segmented shuffles. match: lanes on one pixel anywhere in the warp found by __match_any_sync
// and summed by __reduce_add_sync (sm_80+; no Vulkan twin without
// VK_NV_shader_subgroup_partitioned).
template <bool kMatch>
__global__ void splatMergedKernel(const float4* points, unsigned count, unsigned long long* sums,
                                  Camera cam) {
    const unsigned lane = threadIdx.x & 31u;
    for (unsigned start = blockIdx.x * blockDim.x; start < count; start += gridDim.x * blockDim.x) {
        const unsigned i = start + threadIdx.x;
        Landing l;
        if (i < count) l = land(points[i], cam);
        unsigned rg = l.r | l.g << 16, b = l.b;
        bool head;
        if (kMatch) {
            const unsigned group = __match_any_sync(0xFFFFFFFFu, l.pixel);
            head = lane == unsigned(__ffs(group) - 1);
#if __CUDA_ARCH__ >= 800
            rg = __reduce_add_sync(group, rg);
            b = __reduce_add_sync(group, b);
#else // no warp reduction before sm_80: every lane's values, kept where in the group
            unsigned rgSum = 0, bSum = 0;
            for (int src = 0; src < 32; ++src) {
                const unsigned otherRg = __shfl_sync(0xFFFFFFFFu, rg, src);
                const unsigned otherB = __shfl_sync(0xFFFFFFFFu, b, src);
                if (group >> src & 1u) rgSum += otherRg, bSum += otherB;
            }
            rg = rgSum, b = bSum;
#endif
        } else {
            head = lane == 0u || __shfl_up_sync(0xFFFFFFFFu, l.pixel, 1) != l.pixel;
            if (!__all_sync(0xFFFFFFFFu, head)) {
                bool whole = true;
                for (unsigned d = 1; d < 32u; d *= 2u) {
                    const unsigned nextKey = __shfl_down_sync(0xFFFFFFFFu, l.pixel, d);
                    const unsigned nextRg = __shfl_down_sync(0xFFFFFFFFu, rg, d);
                    const unsigned nextB = __shfl_down_sync(0xFFFFFFFFu, b, d);
                    const bool nextWhole = __shfl_down_sync(0xFFFFFFFFu, whole, d);
                    const bool continues = whole && lane + d < 32u && nextKey == l.pixel;
                    if (continues) rg += nextRg, b += nextB;
                    whole = continues && nextWhole;
                }
            }
        }
        if (head && l.pixel != kNoPixel)
            addPacked(sums, l.pixel, packed(rg & 0xFFFFu, rg >> 16, b));
    }
}

// points_resolve.comp: each lit pixel's sums added onto the picture, clamped, and zeroed.
template <bool kSaturated>
__global__ void resolveKernel(void* sumsRaw, uchar4* picture, unsigned pixels) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= pixels) return;
    unsigned r, g, b;
    if (kSaturated) {
        unsigned* sums = static_cast<unsigned*>(sumsRaw);
        const unsigned v = sums[i];
        if (v == 0) return;
        sums[i] = 0;
        r = v & 0xFFu, g = (v >> 8) & 0xFFu, b = (v >> 16) & 0xFFu;
    } else {
        unsigned long long* sums = static_cast<unsigned long long*>(sumsRaw);
        const unsigned long long v = sums[i];
        if (v == 0) return;
        sums[i] = 0;
        r = unsigned(v & 0x1FFFFF), g = unsigned((v >> 21) & 0x1FFFFF), b = unsigned(v >> 42);
    }
    const uchar4 below = picture[i];
    picture[i] =
        make_uchar4((unsigned char)min(below.x + r, 255u), (unsigned char)min(below.y + g, 255u),
                    (unsigned char)min(below.z + b, 255u), below.w);
}

// ---- the runs -----------------------------------------------------------------------------------

constexpr uchar4 kBackground{0, 51, 102, 255};
const char* const kVariants[] = {"packed", "merged", "saturated", "match"};

struct Scene {
    unsigned count, width, height;
    bool morton;
    Camera cam;
    float4* seeded = nullptr;
    float4* points = nullptr;
    void* sums = nullptr; // 8 B a pixel (4 used by saturated)
    uchar4* picture = nullptr;
    cudaStream_t stream = nullptr;

    Scene(unsigned n, unsigned w, unsigned h, bool mortonOrder, float turn, bool pile = false)
        : count(n), width(w), height(h), morton(mortonOrder) {
        const double fill = 2.0 * double(w) * double(h) / double(n);
        cam = {w,
               h,
               std::cos(turn),
               std::sin(turn),
               1.2f * float(h),
               float(std::clamp(fill, 0.15, 1.0))};
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaMalloc(&seeded, size_t(n) * sizeof(float4)));
        CUDA_CHECK(cudaMalloc(&points, size_t(n) * sizeof(float4)));
        CUDA_CHECK(cudaMalloc(&sums, size_t(w) * h * 8));
        CUDA_CHECK(cudaMalloc(&picture, size_t(w) * h * sizeof(uchar4)));
        seedKernel<<<(n + 255) / 256, 256, 0, stream>>>(seeded, n, morton);
        CUDA_CHECK(cudaGetLastError());
        if (pile) { // every point on one pixel near the middle, saturated many times over
            const std::vector<float4> same(n, make_float4(0.1f, 0.05f, 0.0f, 1.0f));
            CUDA_CHECK(cudaMemcpyAsync(seeded, same.data(), size_t(n) * sizeof(float4),
                                       cudaMemcpyHostToDevice, stream));
            CUDA_CHECK(cudaStreamSynchronize(stream));
        }
        move();
        clear();
    }
    ~Scene() {
        (void)cudaFree(seeded), (void)cudaFree(points), (void)cudaFree(sums);
        (void)cudaFree(picture), (void)cudaStreamDestroy(stream);
    }
    Scene(const Scene&) = delete;
    Scene& operator=(const Scene&) = delete;

    size_t pixels() const { return size_t(width) * height; }
    void move() {
        moveKernel<<<(count + 255) / 256, 256, 0, stream>>>(seeded, points, count, 1.0f, 0.0f);
        CUDA_CHECK(cudaGetLastError());
    }
    // The old per-frame clear: the sums filled with zeros (the picture's clear is the view's).
    void clear() { CUDA_CHECK(cudaMemsetAsync(sums, 0, pixels() * 8, stream)); }
    void background() {
        std::vector<uchar4> bg(pixels(), kBackground);
        CUDA_CHECK(cudaMemcpyAsync(picture, bg.data(), bg.size() * sizeof(uchar4),
                                   cudaMemcpyHostToDevice, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    void splat(const std::string& variant) {
        const unsigned groups = std::min((count + 255) / 256, 65535u * 8u);
        auto* packedSums = static_cast<unsigned long long*>(sums);
        if (variant == "packed")
            splatPacked<<<groups, 256, 0, stream>>>(points, count, packedSums, cam);
        else if (variant == "merged")
            splatMergedKernel<false><<<groups, 256, 0, stream>>>(points, count, packedSums, cam);
        else if (variant == "match")
            splatMergedKernel<true><<<groups, 256, 0, stream>>>(points, count, packedSums, cam);
        else
            splatSaturated<<<groups, 256, 0, stream>>>(points, count, static_cast<unsigned*>(sums),
                                                       cam);
        CUDA_CHECK(cudaGetLastError());
    }
    void resolve(const std::string& variant) {
        const unsigned n = unsigned(pixels());
        if (variant == "saturated")
            resolveKernel<true><<<(n + 255) / 256, 256, 0, stream>>>(sums, picture, n);
        else
            resolveKernel<false><<<(n + 255) / 256, 256, 0, stream>>>(sums, picture, n);
        CUDA_CHECK(cudaGetLastError());
    }
};

// The CPU's picture of the scene: per pixel the exact sums, clamped over the background.
std::vector<uchar4> cpuPicture(const Scene& scene) {
    std::vector<float4> points(scene.count);
    CUDA_CHECK(cudaMemcpyAsync(points.data(), scene.points, points.size() * sizeof(float4),
                               cudaMemcpyDeviceToHost, scene.stream));
    CUDA_CHECK(cudaStreamSynchronize(scene.stream));
    std::vector<unsigned long long> sum(scene.pixels() * 3, 0);
    for (const float4& p : points) {
        const Landing l = land(p, scene.cam);
        if (l.pixel == kNoPixel) continue;
        sum[3 * size_t(l.pixel)] += l.r, sum[3 * size_t(l.pixel) + 1] += l.g;
        sum[3 * size_t(l.pixel) + 2] += l.b;
    }
    std::vector<uchar4> picture(scene.pixels(), kBackground);
    for (size_t i = 0; i < picture.size(); ++i) {
        const auto add = [&](unsigned char below, unsigned long long s) {
            return (unsigned char)std::min<unsigned long long>(below + s, 255);
        };
        picture[i] = {add(kBackground.x, sum[3 * i]), add(kBackground.y, sum[3 * i + 1]),
                      add(kBackground.z, sum[3 * i + 2]), kBackground.w};
    }
    return picture;
}

// Two frames of `variant` (the second on the sums the first resolve zeroed) against the CPU.
bool check(Scene& scene, const std::string& variant, const std::string& what) {
    const std::vector<uchar4> expected = cpuPicture(scene);
    size_t lit = 0;
    for (const uchar4& p : expected)
        lit += p.x != kBackground.x || p.y != kBackground.y || p.z != kBackground.z;
    if (lit == 0) { // a check of nothing would pass any kernel
        std::printf("MISMATCH points %s, %s: the scene lights no pixel\n", variant.c_str(),
                    what.c_str());
        return false;
    }
    for (int frame = 0; frame < 2; ++frame) {
        scene.background();
        scene.splat(variant);
        scene.resolve(variant);
        std::vector<uchar4> gpu(scene.pixels());
        CUDA_CHECK(cudaMemcpyAsync(gpu.data(), scene.picture, gpu.size() * sizeof(uchar4),
                                   cudaMemcpyDeviceToHost, scene.stream));
        CUDA_CHECK(cudaStreamSynchronize(scene.stream));
        for (size_t i = 0; i < gpu.size(); ++i) {
            const uchar4 a = gpu[i], b = expected[i];
            if (a.x != b.x || a.y != b.y || a.z != b.z || a.w != b.w) {
                std::printf("MISMATCH points %s, %s, frame %d, pixel (%zu, %zu): GPU %d %d %d, "
                            "CPU %d %d %d\n",
                            variant.c_str(), what.c_str(), frame, i % scene.width, i / scene.width,
                            a.x, a.y, a.z, b.x, b.y, b.z);
                return false;
            }
        }
    }
    std::printf("points %-9s matches the CPU: %s (%zu pixels lit)\n", variant.c_str(), what.c_str(),
                lit);
    return true;
}

// Mean ms of `body` over `reps` runs after two untimed ones, by events around each run.
template <class Body> double meanMs(cudaStream_t stream, int reps, Body&& body) {
    body(), body();
    std::vector<cudaEvent_t> events(2 * size_t(reps));
    for (cudaEvent_t& e : events)
        CUDA_CHECK(cudaEventCreate(&e));
    for (int r = 0; r < reps; ++r) {
        CUDA_CHECK(cudaEventRecord(events[2 * r], stream));
        body();
        CUDA_CHECK(cudaEventRecord(events[2 * r + 1], stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    double total = 0;
    for (int r = 0; r < reps; ++r) {
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, events[2 * r], events[2 * r + 1]));
        total += ms;
    }
    for (cudaEvent_t e : events)
        CUDA_CHECK(cudaEventDestroy(e));
    return total / reps;
}

void timeVariant(Scene& scene, const std::string& variant, int reps) {
    const double n = scene.count, px = double(scene.pixels());
    const size_t sumBytes = variant == "saturated" ? 4 : 8;
    scene.clear();
    // Each frame's splat and resolve timed apart (events between them), as the view runs them:
    // the resolve finds this splat's sums and zeroes them for the next. Two frames untimed first.
    std::vector<cudaEvent_t> events(3 * size_t(reps + 2));
    for (cudaEvent_t& e : events)
        CUDA_CHECK(cudaEventCreate(&e));
    for (int r = 0; r < reps + 2; ++r) {
        CUDA_CHECK(cudaEventRecord(events[3 * r], scene.stream));
        scene.splat(variant);
        CUDA_CHECK(cudaEventRecord(events[3 * r + 1], scene.stream));
        scene.resolve(variant);
        CUDA_CHECK(cudaEventRecord(events[3 * r + 2], scene.stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(scene.stream));
    double splatMs = 0, resolveMs = 0;
    for (int r = 2; r < reps + 2; ++r) {
        float splat = 0, resolve = 0;
        CUDA_CHECK(cudaEventElapsedTime(&splat, events[3 * r], events[3 * r + 1]));
        CUDA_CHECK(cudaEventElapsedTime(&resolve, events[3 * r + 1], events[3 * r + 2]));
        splatMs += splat, resolveMs += resolve;
    }
    for (cudaEvent_t e : events)
        CUDA_CHECK(cudaEventDestroy(e));
    splatMs /= reps, resolveMs /= reps;
    // Bytes a splat must move at least: 16 B read a point, one atomic's sector (32 B) a point
    // where the sums outgrow L2 (counted as its bytes, 8 or 4, here: the floor, not the sector).
    const double splatGB = n * (16.0 + double(sumBytes)) / 1e9;
    std::printf("points %-9s %-6s %10.0f pts %ux%u: splat %9.2f µs  %6.2f G points/s  %7.1f GB/s "
                "eff.; resolve+zero %7.2f µs (%6.1f GB/s on %zu B/pixel)\n",
                variant.c_str(), scene.morton ? "morton" : "random", n, scene.width, scene.height,
                1e3 * splatMs, n / (splatMs * 1e6), splatGB / (splatMs * 1e-3), 1e3 * resolveMs,
                px * double(sumBytes) / 1e9 / (resolveMs * 1e-3), sumBytes);
    std::fflush(stdout);
}

int usage(const std::string& problem) {
    std::fprintf(stderr,
                 "estuary_kernel_bench points: %s\nusage: estuary_kernel_bench points "
                 "[--points N] [--size WxH] [--order random|morton|both] "
                 "[--variant packed|merged|saturated|match|all] [--reps N]\n",
                 problem.c_str());
    return 2;
}

} // namespace

int runPointsBench(int argc, char** argv) {
    unsigned long long count = 100000000;
    unsigned width = 3840, height = 2160;
    int reps = 10;
    std::vector<bool> orders{false, true};
    std::vector<std::string> variants(std::begin(kVariants), std::end(kVariants));
    for (int i = 0; i < argc; i += 2) {
        const std::string option = argv[i];
        if (i + 1 >= argc) return usage("missing value after " + option);
        const std::string value = argv[i + 1];
        char* end = nullptr;
        if (option == "--points") {
            count = std::strtoull(value.c_str(), &end, 10);
            if (*end != '\0' || count < 1 || count > 1000000000ull)
                return usage("--points: 1..10^9 (got '" + value + "')");
        } else if (option == "--size") {
            if (std::sscanf(value.c_str(), "%ux%u", &width, &height) != 2 || width < 1 ||
                height < 1 || width > 16384 || height > 16384)
                return usage("--size: WxH, each 1..16384 (got '" + value + "')");
        } else if (option == "--order") {
            if (value != "random" && value != "morton" && value != "both")
                return usage("--order: random, morton or both (got '" + value + "')");
            orders = value == "both" ? std::vector<bool>{false, true}
                                     : std::vector<bool>{value == "morton"};
        } else if (option == "--variant") {
            if (value != "all" &&
                std::find(std::begin(kVariants), std::end(kVariants), value) == std::end(kVariants))
                return usage("--variant: packed, merged, saturated, match or all (got '" + value +
                             "')");
            if (value != "all") variants = {value};
        } else if (option == "--reps") {
            reps = int(std::strtol(value.c_str(), &end, 10));
            if (*end != '\0' || reps < 1 || reps > 10000)
                return usage("--reps: 1..10000 (got '" + value + "')");
        } else {
            return usage("unknown option " + option);
        }
    }
    // Checked first, small: random, Morton-ordered, and 100k points on one pixel. A variant that
    // differs is not timed, and the run fails after timing the others.
    std::vector<std::string> checked;
    for (const std::string& variant : variants) {
        bool same = true;
        for (bool morton : {false, true}) {
            Scene small(200000, 320, 240, morton, 0.4f);
            same =
                same && check(small, variant,
                              morton ? "200k Morton-ordered at 320x240" : "200k random at 320x240");
        }
        Scene pile(100000, 320, 240, false, 0.4f, true);
        same = same && check(pile, variant, "100k on one pixel");
        if (same) checked.push_back(variant);
    }
    for (bool morton : orders) {
        Scene scene(unsigned(count), width, height, morton, 0.4f);
        const double moveMs = meanMs(scene.stream, reps, [&] { scene.move(); });
        const double clearMs = meanMs(scene.stream, reps, [&] { scene.clear(); });
        std::printf("points move   %-6s %10llu pts: %9.2f µs  %7.1f GB/s (32 B a point); clear "
                    "of %zu B of sums (the old fill) %7.2f µs  %7.1f GB/s\n",
                    morton ? "morton" : "random", count, 1e3 * moveMs,
                    32.0 * double(count) / 1e9 / (moveMs * 1e-3), scene.pixels() * 8, 1e3 * clearMs,
                    double(scene.pixels()) * 8 / 1e9 / (clearMs * 1e-3));
        for (const std::string& variant : checked)
            timeVariant(scene, variant, reps);
    }
    if (checked.size() < variants.size()) {
        std::printf("FAILED: a points variant differs from the CPU reference (not timed)\n");
        return 1;
    }
    return 0;
}

} // namespace estuary::sim
