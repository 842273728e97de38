// The one definition of the Gray-Scott math, per cell: the update step, the seeded initial
// condition and the brush (the mip downsample is mip_chain.h, shared by every simulation). The CUDA
// kernels (cuda_gray_scott.cu) and the CPU reference (cpu_gray_scott.cpp) call these same
// functions, so the two differ only in how the compiler rounds; both build them without FMA
// contraction and agree bit for bit. Grids are row-major W x H floats, periodic in x and y.
#pragma once

#include "gray_scott.h"
#include "mip_chain.h"

#include <cstddef>
#include <cstdint>
#include <cmath>

namespace estuary::sim {

// ---- update ----------------------------------------------------------------------------------

// i modulo n in [0, n), for any i (negative too) and n >= 1: a periodic grid's index.
ESTUARY_HD inline int wrapIndex(int i, int n) {
    const int r = i % n;
    return r < 0 ? r + n : r;
}

ESTUARY_HD inline float clamp01(float x) {
    return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x);
}

// 9-point Laplacian at (x, y): centre -1, edge neighbours 0.2, diagonals 0.05. The row pointers
// are the wrapped rows above, at and below y; xm and xp the wrapped columns.
ESTUARY_HD inline float laplacian9(const float* above, const float* row, const float* below, int xm,
                                   int x, int xp) {
    const float edges = (above[x] + below[x]) + (row[xm] + row[xp]);
    const float diagonals = (above[xm] + above[xp]) + (below[xm] + below[xp]);
    return 0.2f * edges + 0.05f * diagonals - row[x];
}

// The reaction and the Euler update of one cell from its Laplacians, results in [0, 1]:
// u' = u + dt (Du lap(u) - u v^2 + F (1 - u)),  v' = v + dt (Dv lap(v) + u v^2 - (F + k) v).
ESTUARY_HD inline void grayScottUpdate(float lapU, float lapV, float uc, float vc,
                                       const GrayScottParams& p, float& uOut, float& vOut) {
    const float uvv = uc * vc * vc;
    const float du = p.Du * lapU - uvv + p.F * (1.0f - uc);
    const float dv = p.Dv * lapV + uvv - (p.F + p.k) * vc;
    uOut = clamp01(uc + p.dt * du);
    vOut = clamp01(vc + p.dt * dv);
}

// One explicit Euler step of cell (x, y), reading u and v (w x h, periodic).
ESTUARY_HD inline void grayScottCell(const float* u, const float* v, int w, int h, int x, int y,
                                     const GrayScottParams& p, float& uOut, float& vOut) {
    const int xm = x == 0 ? w - 1 : x - 1;
    const int xp = x == w - 1 ? 0 : x + 1;
    const size_t rowAbove = static_cast<size_t>(y == 0 ? h - 1 : y - 1) * w;
    const size_t rowAt = static_cast<size_t>(y) * w;
    const size_t rowBelow = static_cast<size_t>(y == h - 1 ? 0 : y + 1) * w;

    const float lapU = laplacian9(u + rowAbove, u + rowAt, u + rowBelow, xm, x, xp);
    const float lapV = laplacian9(v + rowAbove, v + rowAt, v + rowBelow, xm, x, xp);
    grayScottUpdate(lapU, lapV, u[rowAt + x], v[rowAt + x], p, uOut, vOut);
}

// ---- seeded initial condition ------------------------------------------------------------------

// splitmix64's output mix: a bijective 64-bit hash, identical on host and device.
ESTUARY_HD inline uint64_t mix64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

// The index-th value of the splitmix64 sequence started at `seed`.
ESTUARY_HD inline uint64_t seedHash(uint64_t seed, uint64_t index) {
    return mix64(seed + (index + 1) * 0x9E3779B97F4A7C15ull);
}

// Uniform in [-0.5, 0.5): the top 24 bits convert to float exactly on both sides.
ESTUARY_HD inline float hashToSignedUnit(uint64_t hash) {
    return static_cast<float>(static_cast<uint32_t>(hash >> 40)) * (1.0f / 16777216.0f) - 0.5f;
}

// Distance from a to b on a ring of n cells.
ESTUARY_HD inline int ringDistance(int a, int b, int n) {
    int d = a - b;
    d = d < 0 ? -d : d;
    d %= n;
    return d < n - d ? d : n - d;
}

inline constexpr int kSeedPatchesMin = 10;
inline constexpr int kSeedPatchesMax = 20;

// Cell (x, y) of the initial field for `seed`: u = 1, v = 0 everywhere except in 10..20 square
// patches (count, centres and sizes hashed from the seed, wrapping at the edges) where
// u = 0.5, v = 0.25, each plus hashed noise of +-0.005 so the patterns break symmetry and grow.
ESTUARY_HD inline void seedCell(uint64_t seed, int x, int y, int w, int h, float& u, float& v) {
    const int patchCount =
        kSeedPatchesMin +
        static_cast<int>(seedHash(seed, 0) % (kSeedPatchesMax - kSeedPatchesMin + 1));
    const int smaller = w < h ? w : h;
    const int baseHalf = smaller / 40 > 2 ? smaller / 40 : 2;
    bool inside = false;
    for (int i = 0; i < patchCount && !inside; ++i) {
        const uint64_t hash = seedHash(seed, 1 + static_cast<uint64_t>(i));
        const int cx = static_cast<int>((hash & 0xFFFFFFu) % static_cast<uint64_t>(w));
        const int cy = static_cast<int>(((hash >> 24) & 0xFFFFFFu) % static_cast<uint64_t>(h));
        const int half =
            baseHalf + static_cast<int>((hash >> 48) % static_cast<uint64_t>(baseHalf + 1));
        inside = ringDistance(x, cx, w) <= half && ringDistance(y, cy, h) <= half;
    }
    if (!inside) {
        u = 1.0f;
        v = 0.0f;
        return;
    }
    const uint64_t cell =
        static_cast<uint64_t>(y) * static_cast<uint64_t>(w) + static_cast<uint64_t>(x);
    const uint64_t noise = mix64(seedHash(seed, 1000003u) ^ cell);
    u = 0.5f + 0.01f * hashToSignedUnit(noise);
    v = 0.25f + 0.01f * hashToSignedUnit(mix64(noise));
}

// ---- brush --------------------------------------------------------------------------------------

// Brush coordinates moved into [0, w) x [0, h), the range applyBrush expects. Host only: the
// paint() of both simulations calls it once, so no cell evaluates fmod (whose device version is
// not one instruction and so might not round like the host's).
inline Brush wrapBrush(Brush brush, int w, int h) {
    const auto wrap = [](float c, int n) {
        const float period = static_cast<float>(n);
        float r = std::fmod(c, period);
        if (r < 0.0f) r += period;
        return r < period ? r : 0.0f; // -tiny + period can round up to period
    };
    brush.x = wrap(brush.x, w);
    brush.y = wrap(brush.y, h);
    return brush;
}

// Distance along one periodic axis of n cells between c and b, both in [0, n).
ESTUARY_HD inline float brushAxisDistance(float c, float b, int n) {
    const float d = c < b ? b - c : c - b;
    const float around = static_cast<float>(n) - d;
    return d < around ? d : around;
}

// Cell (x, y) under `brush` (wrapped by wrapBrush) on a periodic w x h grid: inside the radius
// (inclusive) the primary button paints (u = 0.25, v = 0.5) and the secondary erases back to the
// rest state (u = 1, v = 0); outside nothing changes.
ESTUARY_HD inline void applyBrush(const Brush& brush, int w, int h, int x, int y, float& u,
                                  float& v) {
    const float dx = brushAxisDistance(static_cast<float>(x), brush.x, w);
    const float dy = brushAxisDistance(static_cast<float>(y), brush.y, h);
    if (dx * dx + dy * dy > brush.radius * brush.radius) return;
    u = brush.secondary ? 1.0f : 0.25f;
    v = brush.secondary ? 0.0f : 0.5f;
}

} // namespace estuary::sim
