// The heat equation the slab tests step (library_slabs_test.cpp on the host,
// library_slabs_gpu_test.cu on GPUs), one cell's arithmetic for both: an explicit 5-point
// stencil, periodic along x, on rows of `width` floats. On the GPU each operation is a correctly
// rounded add or multiply (no fused multiply-add), as on the host, so the two agree bit for bit.
// The reference steps the whole field with one ghost row above and below it (the field's last and
// first rows where periodic, else 0): what the slabs must reproduce exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#ifdef __CUDACC__
#define HEAT_HD __host__ __device__
#else
#define HEAT_HD
#endif

namespace estuary::heat {

inline constexpr float kRate = 0.2f; // the diffusion number, stable below 0.25

HEAT_HD inline float add(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}
HEAT_HD inline float mul(float a, float b) {
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}

// Cell x of row r (1 <= r, r + 1 < the rows of `in`) after one step.
HEAT_HD inline float cell(const float* in, uint32_t width, uint32_t x, uint32_t r) {
    const float* row = in + size_t(r) * width;
    const float c = row[x];
    const float west = row[(x + width - 1) % width], east = row[(x + 1) % width];
    const float north = in[size_t(r - 1) * width + x], south = in[size_t(r + 1) * width + x];
    return add(c, mul(kRate, add(add(add(west, east), add(north, south)), mul(-4.0f, c))));
}

// The field's value at cell (x, y) before the first step: smooth with sharp features.
inline float initial(uint32_t x, uint32_t y) {
    const uint32_t h = (x * 73856093u) ^ (y * 19349663u);
    return float(h % 1000u) / 1000.0f + ((x / 5 + y / 3) % 2 ? 1.0f : 0.0f);
}

// The whole field after `steps` steps (rows y of `width` cells, `height` rows).
inline std::vector<float> reference(uint32_t width, uint32_t height, bool periodic, int steps) {
    std::vector<float> a(size_t(width) * (height + 2), 0.0f), b = a;
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x)
            a[(y + 1) * size_t(width) + x] = initial(x, y);
    for (int s = 0; s < steps; ++s) {
        for (uint32_t x = 0; x < width; ++x) {
            a[x] = periodic ? a[height * size_t(width) + x] : 0.0f;
            a[(height + 1) * size_t(width) + x] = periodic ? a[size_t(width) + x] : 0.0f;
        }
        for (uint32_t r = 1; r <= height; ++r)
            for (uint32_t x = 0; x < width; ++x)
                b[r * size_t(width) + x] = cell(a.data(), width, x, r);
        a.swap(b);
    }
    return std::vector<float>(a.begin() + width, a.end() - width);
}

} // namespace estuary::heat
