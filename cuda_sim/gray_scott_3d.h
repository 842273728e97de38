// "gray-scott-3d": Gray-Scott reaction-diffusion on a periodic W x H x D grid. This header is the
// math both implementations in gray_scott_3d.cu share, per cell: the 7-point Laplacian, the update
// (the 2D simulation's grayScottUpdate, stencil.h) and the seeded initial condition, so the CPU
// reference and the CUDA kernels agree bit for bit (only additions and multiplications, and
// gray_scott_3d.cu builds without FMA contraction on both sides).
//
// Grids are W x H x D floats, x fastest, then y, then z (the layout of a 3D output level too).
// Discretization: unit spacing, explicit Euler with time step dt, 7-point Laplacian
//   lap(f) = (f[x-1] + f[x+1]) + (f[y-1] + f[y+1]) + (f[z-1] + f[z+1]) - 6 f,
// whose diffusion alone is stable for D dt < 1/6 (12 D dt < 2). The reaction narrows that for u
// (gray_scott_3d.cu's parameter table says by how much), so the table stops Du and Dv at 0.14.
#pragma once

#include "stencil.h" // grayScottUpdate, GrayScottParams, clamp01, seedHash, mix64

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace estuary::sim {

// The parameter table's order (grayScott3dSimulation()'s params): the 2D simulation's.
enum GrayScott3dParam { kGs3dF, kGs3dK, kGs3dDu, kGs3dDv, kGs3dDt, kGs3dParamCount };

inline GrayScottParams grayScott3dParams(const ParamValues& values) {
    if (values.size() != kGs3dParamCount)
        throw std::invalid_argument("gray-scott-3d takes " + std::to_string(kGs3dParamCount) +
                                    " parameters, got " + std::to_string(values.size()));
    return {values[kGs3dF], values[kGs3dK], values[kGs3dDu], values[kGs3dDv], values[kGs3dDt]};
}

// ---- update -------------------------------------------------------------------------------------

// The 7-point Laplacian from the centre and its six face neighbours, summed in this order on both
// sides: the x pair, the y pair, the z pair, then the centre.
ESTUARY_HD inline float laplacian7(float centre, float xm, float xp, float ym, float yp, float zm,
                                   float zp) {
    return ((xm + xp) + (ym + yp) + (zm + zp)) - 6.0f * centre;
}

ESTUARY_HD inline size_t cellIndex3d(int x, int y, int z, int w, int h) {
    return (static_cast<size_t>(z) * static_cast<size_t>(h) + static_cast<size_t>(y)) *
               static_cast<size_t>(w) +
           static_cast<size_t>(x);
}

// One explicit Euler step of cell (x, y, z), reading u and v (w x h x d, periodic on every axis).
ESTUARY_HD inline void grayScott3dCell(const float* u, const float* v, int w, int h, int d, int x,
                                       int y, int z, const GrayScottParams& p, float& uOut,
                                       float& vOut) {
    const size_t i = cellIndex3d(x, y, z, w, h);
    const size_t row = static_cast<size_t>(w);
    const size_t plane = row * static_cast<size_t>(h);
    const size_t xm = x == 0 ? i + row - 1 : i - 1;
    const size_t xp = x == w - 1 ? i + 1 - row : i + 1;
    const size_t ym = y == 0 ? i + plane - row : i - row;
    const size_t yp = y == h - 1 ? i + row - plane : i + row;
    const size_t zm = z == 0 ? i + plane * static_cast<size_t>(d - 1) : i - plane;
    const size_t zp = z == d - 1 ? i - plane * static_cast<size_t>(d - 1) : i + plane;
    const float lapU = laplacian7(u[i], u[xm], u[xp], u[ym], u[yp], u[zm], u[zp]);
    const float lapV = laplacian7(v[i], v[xm], v[xp], v[ym], v[yp], v[zm], v[zp]);
    grayScottUpdate(lapU, lapV, u[i], v[i], p, uOut, vOut);
}

// ---- seeded initial condition -------------------------------------------------------------------

// The pattern's length scale is set by Du and Dv, not by the grid, so seeds come at a density
// rather than a count: the grid is cut into kSeedBlock^3 blocks (partial at the far faces) and
// each holds one cube with probability 1/2, one hashed block always: ~5% of the cells start
// seeded at any size.
inline constexpr int kSeedBlock = 16;

// Centre of a cube of half side `half` in the block starting at `start` along an axis of n cells,
// from 16 hashed bits: anywhere the cube fits inside the block's part of the grid, or that part's
// middle where it does not fit (the cube is then cut at the grid's face).
ESTUARY_HD inline int seedCubeCentre(int start, int n, int half, uint64_t bits) {
    const int extent = n - start < kSeedBlock ? n - start : kSeedBlock;
    const int room = extent - 2 * half;
    return room > 0 ? start + half + static_cast<int>(bits % static_cast<uint64_t>(room))
                    : start + extent / 2;
}

// Cell (x, y, z) of the initial field for `seed`: u = 1, v = 0 everywhere except in the seeded
// blocks' cubes (half side 2..4 cells, inside their block; position and size hashed from the seed
// and the block) where u = 0.5, v = 0.25, each plus hashed noise of +-0.005 so that the
// patterns break symmetry and grow. stencil.h's seedCell, one dimension up, O(1) per cell.
ESTUARY_HD inline void seedCell3d(uint64_t seed, int x, int y, int z, int w, int h, int d, float& u,
                                  float& v) {
    const int bx = x / kSeedBlock, by = y / kSeedBlock, bz = z / kSeedBlock;
    const int blocksX = (w + kSeedBlock - 1) / kSeedBlock;
    const int blocksY = (h + kSeedBlock - 1) / kSeedBlock;
    const int blocksZ = (d + kSeedBlock - 1) / kSeedBlock;
    const uint64_t blockCount = static_cast<uint64_t>(blocksX) * static_cast<uint64_t>(blocksY) *
                                static_cast<uint64_t>(blocksZ);
    const uint64_t block =
        (static_cast<uint64_t>(bz) * static_cast<uint64_t>(blocksY) + static_cast<uint64_t>(by)) *
            static_cast<uint64_t>(blocksX) +
        static_cast<uint64_t>(bx);
    const uint64_t hash = seedHash(seed, 1 + block);
    const bool seeded = (hash & 1u) != 0 || block == seedHash(seed, 0) % blockCount;
    const int half = 2 + static_cast<int>((hash >> 1) % 3u);
    const int cx = seedCubeCentre(bx * kSeedBlock, w, half, (hash >> 8) & 0xFFFFu);
    const int cy = seedCubeCentre(by * kSeedBlock, h, half, (hash >> 24) & 0xFFFFu);
    const int cz = seedCubeCentre(bz * kSeedBlock, d, half, (hash >> 40) & 0xFFFFu);
    const int dx = x - cx, dy = y - cy, dz = z - cz;
    const bool inside =
        seeded && dx * dx <= half * half && dy * dy <= half * half && dz * dz <= half * half;
    if (!inside) {
        u = 1.0f;
        v = 0.0f;
        return;
    }
    const uint64_t noise = mix64(seedHash(seed, 1000003u) ^ cellIndex3d(x, y, z, w, h));
    u = 0.5f + 0.01f * hashToSignedUnit(noise);
    v = 0.25f + 0.01f * hashToSignedUnit(mix64(noise));
}

} // namespace estuary::sim
