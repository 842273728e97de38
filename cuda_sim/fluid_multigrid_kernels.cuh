// The fluid's multigrid V-cycles on the GPU (fluid_multigrid.h has the math and the CPU driver):
// on each level above kFluidBlockCells cells, its sweeps before the restriction in one launch
// (temporal blocking in shared memory), the restriction, and after the levels below the
// prolongation with its sweeps in one launch; the levels below in one launch of one block (each a
// few thousand cells or fewer, where a launch would cost more than its pass). The passes and their
// order are fluidMultigridProject's, each cell computed by the same function, so the result is the
// CPU's bit for bit. Compile without FMA contraction, as fluid.cu.
#pragma once

#include "cuda_check.h"
#include "fluid_kernels.cuh" // fluidThreadCell
#include "fluid_multigrid.h"

#include <cuda_runtime.h>

#include <utility>

namespace estuary::sim {
namespace { // each includer compiles its own copy (no relocatable device code)

inline constexpr int kFluidBlockCells = 4096;
inline constexpr int kFluidBlockThreads = 1024;

__global__ void fluidRelaxKernel(float* x, const float* __restrict__ b, float scale, int w, int h,
                                 int colour) {
    int cx, cy;
    if (!fluidThreadCell(w, h, cx, cy) || fluidColour(cx, cy) != colour) return;
    // In place: a cell of one colour reads only the other's.
    x[fluidIndex(cx, cy, w)] = fluidRelaxCell(x, b, scale, w, h, cx, cy);
}

__global__ void fluidRestrictKernel(const float* __restrict__ x, const float* __restrict__ b,
                                    float scale, float* coarseX, float* coarseB, int cw, int ch) {
    int cx, cy;
    if (!fluidThreadCell(cw, ch, cx, cy)) return;
    const size_t i = fluidIndex(cx, cy, cw);
    fluidRestrictCell(x, b, scale, cw, ch, cx, cy, coarseX[i], coarseB[i]);
}

// Up to kFluidTileHalfSweeps half-sweeps of one level in one launch (temporal blocking, as
// fluidJacobiBlockKernel): a block loads its kFluidTileX x kFluidTileY cells of x and b with a halo
// of 2 cells per half-sweep into shared memory, alternates colours from `colour` there, each
// half-sweep's valid region 2 cells narrower on every side, and writes its own cells of x to xOut
// (another array: blocks load halos other blocks write). Before the sweeps each loaded x may get
// the prolonged coarse correction e (fluidProlongCell), and b may be the divergence of u, computed
// as loaded and written out for the block's own cells (level 0's first cycle:
// fluidDivergenceRedCell's red half-sweep is the first here). Every cell goes through the CPU
// passes' functions in their order, so the result is theirs bit for bit.
constexpr int kFluidTileHalfSweeps = 4;
constexpr int kFluidTileX = 64, kFluidTileY = 32; // multiples of 4, as every level's sides
static_assert(2 * kFluidFineSweeps <= kFluidTileHalfSweeps, "level 0's sweeps fit one launch");

__global__ void __launch_bounds__(256)
    fluidSmoothTileKernel(const float* __restrict__ x, float* b, float scale, int w, int h,
                          const float* __restrict__ e, const FluidVelocity* __restrict__ u,
                          int colour, int halfSweeps, float* xOut) {
    constexpr int kHalo = 2 * kFluidTileHalfSweeps;
    constexpr int kSideX = kFluidTileX + 2 * kHalo, kSideY = kFluidTileY + 2 * kHalo;
    __shared__ float tx[kSideY][kSideX], tb[kSideY][kSideX];
    const int x0 = int(blockIdx.x) * kFluidTileX - kHalo;
    const int y0 = int(blockIdx.y) * kFluidTileY - kHalo;
    const int nx = int(blockDim.x), ny = int(blockDim.y);
    for (int sy = int(threadIdx.y); sy < kSideY; sy += ny) {
        const int gy = fluidWrapAny(y0 + sy, h);
        for (int sx = int(threadIdx.x); sx < kSideX; sx += nx) {
            const int gx = fluidWrapAny(x0 + sx, w);
            const size_t g = fluidIndex(gx, gy, w);
            tx[sy][sx] = e != nullptr ? fluidProlongCell(x[g], e, w, h, gx, gy) : x[g];
            tb[sy][sx] = u != nullptr ? fluidDivergenceCell(u, w, h, gx, gy) : b[g];
        }
    }
    __syncthreads();
    // x0 and y0 are multiples of 4 and so are w and h: a tile cell's colour is fluidColour of its
    // tile coordinates. Each thread takes only cells of the half-sweep's colour: in a row they come
    // in pairs, every other pair (sx = 4j + 2 phase + {0, 1}).
    for (int k = 1; k <= halfSweeps; ++k) {
        const int edge = 2 * k, c = colour ^ ((k - 1) & 1);
        for (int sy = edge + int(threadIdx.y); sy < kSideY - edge; sy += ny) {
            const int phase = c ^ ((sy >> 1) & 1);
            for (int t = int(threadIdx.x);; t += nx) {
                const int sx = 4 * (t >> 1) + 2 * phase + (t & 1);
                if (sx >= kSideX - edge) break;
                if (sx < edge) continue;
                const float far =
                    (tx[sy][sx - 2] + tx[sy][sx + 2]) + (tx[sy - 2][sx] + tx[sy + 2][sx]);
                tx[sy][sx] = fluidRelax(far, scale * tb[sy][sx]);
            }
        }
        __syncthreads();
    }
    for (int y = int(threadIdx.y); y < kFluidTileY; y += ny)
        for (int x = int(threadIdx.x); x < kFluidTileX; x += nx) {
            const int gx = x0 + kHalo + x, gy = y0 + kHalo + y;
            if (gx >= w || gy >= h) continue;
            xOut[fluidIndex(gx, gy, w)] = tx[kHalo + y][kHalo + x];
            if (u != nullptr) b[fluidIndex(gx, gy, w)] = tb[kHalo + y][kHalo + x];
        }
}

// fluidCycleBelow(m, v, first) in one block: the same passes in the same order, each a strided
// loop over the level's cells followed by a barrier (which also makes the block's global writes
// visible to all its threads).
__device__ void fluidBlockRelax(const FluidHierarchy& m, const FluidLevels& v, int l, int colour) {
    const int w = m.w[l], h = m.h[l];
    for (int i = int(threadIdx.x); i < w * h; i += int(blockDim.x)) {
        const int x = i % w, y = i / w;
        if (fluidColour(x, y) == colour)
            v.x[l][i] = fluidRelaxCell(v.x[l], v.b[l], v.scale[l], w, h, x, y);
    }
    __syncthreads();
}
__global__ void __launch_bounds__(kFluidBlockThreads)
    fluidCycleBelowKernel(FluidHierarchy m, FluidLevels v, int first) {
    const int last = m.levels - 1;
    for (int l = first; l < last; ++l) {
        fluidBlockRelax(m, v, l, 1);
        const int cw = m.w[l + 1], ch = m.h[l + 1];
        for (int i = int(threadIdx.x); i < cw * ch; i += int(blockDim.x))
            fluidRestrictCell(v.x[l], v.b[l], v.scale[l], cw, ch, i % cw, i / cw, v.x[l + 1][i],
                              v.b[l + 1][i]);
        __syncthreads();
    }
    fluidBlockRelax(m, v, last, 1);
    for (int k = 1; k < m.coarsestSweeps; ++k) {
        fluidBlockRelax(m, v, last, 0);
        fluidBlockRelax(m, v, last, 1);
    }
    for (int l = last - 1; l >= first; --l) {
        const int w = m.w[l], h = m.h[l];
        for (int i = int(threadIdx.x); i < w * h; i += int(blockDim.x))
            v.x[l][i] = fluidProlongCell(v.x[l][i], v.x[l + 1], w, h, i % w, i / w);
        __syncthreads();
        fluidBlockRelax(m, v, l, 0);
        fluidBlockRelax(m, v, l, 1);
    }
}

// fluidMultigridProject's passes from the divergence to the last sweep on `stream`: D from `u`
// into v.b[0], `cycles` V-cycles on the pressure from v.x[0]. The launched levels (above
// kFluidBlockCells) alternate between v.x[l] and spare[l] (one more array of the level's size);
// returns where level 0's result is, v.x[0] or spare[0]. u -= G p is the caller's.
inline float* fluidMultigridCycles(const FluidHierarchy& m, FluidLevels v,
                                   float* const spare[kFluidMaxLevels], const FluidVelocity* u,
                                   int cycles, cudaStream_t stream) {
    const dim3 block{32, 8};
    const auto cells = [&](int l) {
        return dim3{unsigned(m.w[l] + 31) / 32, unsigned(m.h[l] + 7) / 8};
    };
    // Levels first..last run in the one-block kernel: the first at or below kFluidBlockCells.
    int first = 1;
    while (first < m.levels - 1 && m.w[first] * m.h[first] > kFluidBlockCells)
        ++first;
    float* other[kFluidMaxLevels] = {};
    for (int l = 0; l < first; ++l)
        other[l] = spare[l];
    // halfSweeps half-sweeps of level l from colour 0 into its other array; e: the correction
    // prolonged first, or nullptr; divergence: level 0's b computed from u first.
    const auto smooth = [&](int l, int halfSweeps, const float* e, bool divergence) {
        const dim3 tiles{unsigned(m.w[l] + kFluidTileX - 1) / kFluidTileX,
                         unsigned(m.h[l] + kFluidTileY - 1) / kFluidTileY};
        fluidSmoothTileKernel<<<tiles, block, 0, stream>>>(v.x[l], v.b[l], v.scale[l], m.w[l],
                                                           m.h[l], e, divergence ? u : nullptr, 0,
                                                           halfSweeps, other[l]);
        CUDA_CHECK(cudaGetLastError());
        std::swap(v.x[l], other[l]);
    };
    for (int c = 0; c < cycles; ++c) {
        for (int l = 0; l < first; ++l) {
            if (l == 0) {
                smooth(0, 2 * kFluidFineSweeps, nullptr, c == 0);
            } else { // its red half-sweep came with the restriction
                fluidRelaxKernel<<<cells(l), block, 0, stream>>>(v.x[l], v.b[l], v.scale[l], m.w[l],
                                                                 m.h[l], 1);
                CUDA_CHECK(cudaGetLastError());
            }
            fluidRestrictKernel<<<cells(l + 1), block, 0, stream>>>(
                v.x[l], v.b[l], v.scale[l], v.x[l + 1], v.b[l + 1], m.w[l + 1], m.h[l + 1]);
            CUDA_CHECK(cudaGetLastError());
        }
        fluidCycleBelowKernel<<<1, kFluidBlockThreads, 0, stream>>>(m, v, first);
        CUDA_CHECK(cudaGetLastError());
        for (int l = first - 1; l >= 0; --l)
            smooth(l, l == 0 ? 2 * kFluidFineSweeps : 2, v.x[l + 1], false);
    }
    return v.x[0];
}

} // namespace
} // namespace estuary::sim
