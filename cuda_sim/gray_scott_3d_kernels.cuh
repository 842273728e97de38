// gray-scott-3d's CUDA kernels and their launchers, shared by the simulation (gray_scott_3d.cu) and
// the micro-benchmark (bench/), so a measured variant is the production code: seeding, the step
// (the one-step column march and the temporally blocked pass, StepTiling3d in gray_scott_tiling.h)
// and the output write (v into level 0 and the 3D mip chain: level 0 alone then one launch a
// level, or level 0 fused with the first kTileLevels3d levels). Every cell is gray_scott_3d.h's
// laplacian7 + grayScottUpdate with the CPU's operands in the CPU's order, so with -fmad=false the
// results are bit-identical to the CPU reference's. Grids are w x h x d floats, x fastest,
// periodic, any size >= 1. Internal linkage: each .cu that includes this compiles its own copy.
#pragma once

#include "cuda_check.h"
#include "gray_scott_3d.h"
#include "gray_scott_tiling.h"
#include "mip_chain_kernels.cuh"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace estuary::sim {
namespace {

// 32-wide blocks keep each warp's loads and stores on one coalesced row.
constexpr int kCell3dBlockX = 32;
constexpr int kCell3dBlockY = 8;

// The one-step kernel's thread owns one (x, y) column and marches kSlicesPerThread slices along z,
// carrying the column's z-1, z and z+1 values of u and v in registers: per cell it loads its z+1
// value and its four in-plane neighbours (x+-1 from the warp's own row, y+-1 from rows the
// neighbouring threads load too: L1/L2 hits).
constexpr int kSlicesPerThread = 16;

// Slices 0.. of the grid are slices firstSlice.. (wrapping) of a w x h x wholeDepth grid's seed.
__global__ void grayScott3dSeedKernel(float* u, float* v, int w, int h, uint64_t seed,
                                      int firstSlice, int wholeDepth) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    const int z = int(blockIdx.z);
    if (x >= w || y >= h) return;
    const size_t i = cellIndex3d(x, y, z, w, h);
    const int wholeZ = int((int64_t(firstSlice) + z) % wholeDepth);
    seedCell3d(seed, x, y, wholeZ, w, h, wholeDepth, u[i], v[i]);
}

__global__ void grayScott3dStepKernel(const float* __restrict__ u, const float* __restrict__ v,
                                      float* __restrict__ uOut, float* __restrict__ vOut, int w,
                                      int h, int d, GrayScottParams p) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    const int z0 = int(blockIdx.z) * kSlicesPerThread;
    if (x >= w || y >= h) return;
    // In-slice offsets of the column and its four neighbours (periodic), the same cells
    // grayScott3dCell reads.
    const size_t row = size_t(w), plane = row * size_t(h);
    const size_t at = cellIndex3d(x, y, 0, w, h);
    const size_t xm = x == 0 ? at + row - 1 : at - 1;
    const size_t xp = x == w - 1 ? at + 1 - row : at + 1;
    const size_t ym = y == 0 ? at + plane - row : at - row;
    const size_t yp = y == h - 1 ? at + row - plane : at + row;
    const size_t below = size_t(z0 == 0 ? d - 1 : z0 - 1) * plane + at;
    float uZm = u[below], vZm = v[below];
    float uZ = u[size_t(z0) * plane + at], vZ = v[size_t(z0) * plane + at];
    const int zEnd = min(z0 + kSlicesPerThread, d);
    for (int z = z0; z < zEnd; ++z) {
        const size_t slice = size_t(z) * plane;
        const size_t above = size_t(z == d - 1 ? 0 : z + 1) * plane + at;
        const float uZp = u[above], vZp = v[above];
        const float lapU =
            laplacian7(uZ, u[slice + xm], u[slice + xp], u[slice + ym], u[slice + yp], uZm, uZp);
        const float lapV =
            laplacian7(vZ, v[slice + xm], v[slice + xp], v[slice + ym], v[slice + yp], vZm, vZp);
        grayScottUpdate(lapU, lapV, uZ, vZ, p, uOut[slice + at], vOut[slice + at]);
        uZm = uZ;
        uZ = uZp;
        vZm = vZ;
        vZ = vZp;
    }
}

// Steps steps in one pass (temporal blocking, "2.5D", the 2D temporalStepKernel one dimension
// up): a block of 32 x blockDim.y threads holds that many consecutive (x, y) columns (wrapped)
// and marches along z down slicesPerChunk output slices, reading input slices z0 - Steps ..
// z0 + slicesPerChunk + Steps - 1 (wrapped) once, so DRAM sees one read and one write of the state
// per Steps steps. Each thread keeps, per level l < Steps (the field after l steps), its own
// column's values at three consecutive slices in registers; the four in-plane neighbours come from
// the neighbour threads through shared memory. Level l of slice s needs level l - 1 of slices
// s - 1 .. s + 1, so a level runs two slices behind the one above it, and its neighbours are those
// of the slice published two iterations earlier. Hence three exchange buffers in rotation: an
// iteration reads the one written two iterations ago, then writes the oldest (last read one
// iteration ago, before that iteration's barrier) and meets one barrier. Level l is right in
// columns and rows [l, size - l), so the inner (32 - 2 Steps) x (blockDim.y - 2 Steps) threads
// write. Every thread runs every iteration: the barrier needs them all.
template <int Steps>
__global__ void __launch_bounds__(kMaxPassThreads3d)
    temporalStep3dKernel(const float* __restrict__ u, const float* __restrict__ v,
                         float* __restrict__ uOut, float* __restrict__ vOut, int w, int h, int d,
                         int slicesPerChunk, GrayScottParams p) {
    extern __shared__ float2 exchange[]; // [3 buffers][level < Steps][thread]
    const int bx = kPassBlockX3d, by = int(blockDim.y), threads = bx * by;
    const int tx = int(threadIdx.x), ty = int(threadIdx.y), t = ty * bx + tx;
    const int x = int(blockIdx.x) * (bx - 2 * Steps) + tx - Steps;
    const int y = int(blockIdx.y) * (by - 2 * Steps) + ty - Steps;
    const size_t plane = size_t(w) * size_t(h);
    const size_t column = size_t(wrapIndex(y, h)) * size_t(w) + size_t(wrapIndex(x, w));
    const bool writes =
        tx >= Steps && tx < bx - Steps && ty >= Steps && ty < by - Steps && x < w && y < h;
    // The edge threads have no outer neighbour; what they compute there is never used.
    const int xm = tx > 0 ? t - 1 : t, xp = tx < bx - 1 ? t + 1 : t;
    const int ym = ty > 0 ? t - bx : t, yp = ty < by - 1 ? t + bx : t;
    const int z0 = int(blockIdx.z) * slicesPerChunk;
    const int inputSlices = slicesPerChunk + 2 * Steps;

    // The first two iterations read buffers nobody wrote yet (for levels never written out):
    // zero them, so that no uninitialized shared memory is read.
    for (int i = t; i < 3 * Steps * threads; i += threads)
        exchange[i] = make_float2(0.0f, 0.0f);
    __syncthreads();
    float2* published = exchange;                  // written two iterations ago: read now
    float2* previous = exchange + Steps * threads; // written one iteration ago
    float2* oldest = previous + Steps * threads;   // written now

    int slice = wrapIndex(z0 - Steps, d);
    float2 next = make_float2(u[size_t(slice) * plane + column], v[size_t(slice) * plane + column]);
    float2 window[Steps][3] = {}; // [level][slice: oldest, middle, newest] of the own column
    // Iteration i loads input slice i (local); level l is at slice i - 2l, so the last output
    // slice (local Steps + slicesPerChunk - 1) comes out at iteration slicesPerChunk + 3 Steps - 1.
#pragma unroll 3
    for (int i = 0; i < inputSlices + Steps; ++i) {
        float2 level[Steps + 1];
        level[0] = next;
        if (i + 1 < inputSlices) { // issued now, used next iteration
            slice = slice + 1 == d ? 0 : slice + 1;
            const size_t cell = size_t(slice) * plane + column;
            next = make_float2(u[cell], v[cell]);
        }
#pragma unroll
        for (int l = 1; l <= Steps; ++l) {
            const float2* n = published + (l - 1) * threads;
            const float2 nxm = n[xm], nxp = n[xp], nym = n[ym], nyp = n[yp];
            const float2* c = window[l - 1];
            const float lapU = laplacian7(c[1].x, nxm.x, nxp.x, nym.x, nyp.x, c[0].x, c[2].x);
            const float lapV = laplacian7(c[1].y, nxm.y, nxp.y, nym.y, nyp.y, c[0].y, c[2].y);
            grayScottUpdate(lapU, lapV, c[1].x, c[1].y, p, level[l].x, level[l].y);
        }
        const int outSlice = i - 3 * Steps; // in the chunk
        if (writes && outSlice >= 0 && outSlice < slicesPerChunk && z0 + outSlice < d) {
            const size_t out = size_t(z0 + outSlice) * plane + column;
            uOut[out] = level[Steps].x;
            vOut[out] = level[Steps].y;
        }
#pragma unroll
        for (int l = 0; l < Steps; ++l) {
            oldest[l * threads + t] = level[l];
            window[l][0] = window[l][1];
            window[l][1] = window[l][2];
            window[l][2] = level[l];
        }
        __syncthreads();
        float2* const read = published;
        published = previous;
        previous = oldest;
        oldest = read;
    }
}

// v into level 0, one thread per texel (the original output write, before the mip chain).
__global__ void grayScott3dOutputKernel(const float* __restrict__ v, int w, int h,
                                        cudaSurfaceObject_t level0) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    const int z = int(blockIdx.z);
    if (x >= w || y >= h) return;
    surf3Dwrite(v[cellIndex3d(x, y, z, w, h)], level0, x * int(sizeof(float)), y, z);
}

// ---- launchers ----------------------------------------------------------------------------------

inline dim3 cellGrid3d(int w, int h, int d) {
    return dim3(unsigned(w + kCell3dBlockX - 1) / kCell3dBlockX,
                unsigned(h + kCell3dBlockY - 1) / kCell3dBlockY, unsigned(d));
}

// The whole grid's seed, or (slabs) slices firstSlice.. of a w x h x wholeDepth grid's.
inline void launchSeed3d(float* u, float* v, int w, int h, int d, uint64_t seed, int firstSlice,
                         int wholeDepth, cudaStream_t stream) {
    grayScott3dSeedKernel<<<cellGrid3d(w, h, d), dim3(kCell3dBlockX, kCell3dBlockY), 0, stream>>>(
        u, v, w, h, seed, firstSlice, wholeDepth);
    CUDA_CHECK(cudaGetLastError());
}

inline void launchColumnStep3d(const float* u, const float* v, float* uOut, float* vOut, int w,
                               int h, int d, const GrayScottParams& p, cudaStream_t stream) {
    const dim3 grid(unsigned(w + kCell3dBlockX - 1) / kCell3dBlockX,
                    unsigned(h + kCell3dBlockY - 1) / kCell3dBlockY,
                    unsigned(d + kSlicesPerThread - 1) / kSlicesPerThread);
    grayScott3dStepKernel<<<grid, dim3(kCell3dBlockX, kCell3dBlockY), 0, stream>>>(u, v, uOut, vOut,
                                                                                   w, h, d, p);
    CUDA_CHECK(cudaGetLastError());
}

template <int Steps> size_t temporal3dSharedBytes(int blockY) {
    return 3 * size_t(Steps) * size_t(kPassBlockX3d) * size_t(blockY) * sizeof(float2);
}

// Lets every temporal pass take the shared memory its largest block needs (over the 48 KiB a
// launch gets by default). Once per process, before the first launch (not a stream operation, so
// also before any graph capture).
inline void allowTemporal3dSharedMemory() {
    const auto allow = [](auto kernel, size_t bytes) {
        CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    };
    const int largestY = kMaxPassThreads3d / kPassBlockX3d;
    allow(temporalStep3dKernel<1>, temporal3dSharedBytes<1>(largestY));
    allow(temporalStep3dKernel<2>, temporal3dSharedBytes<2>(largestY));
    allow(temporalStep3dKernel<3>, temporal3dSharedBytes<3>(largestY));
    allow(temporalStep3dKernel<4>, temporal3dSharedBytes<4>(largestY));
}

template <int Steps>
void launchTemporalPass3d(const float* u, const float* v, float* uOut, float* vOut, int w, int h,
                          int d, const StepTiling3d& t, const GrayScottParams& p,
                          cudaStream_t stream) {
    const dim3 grid(unsigned(w + tilingColumns3d(t) - 1) / unsigned(tilingColumns3d(t)),
                    unsigned(h + tilingRows3d(t) - 1) / unsigned(tilingRows3d(t)),
                    unsigned(d + t.slicesPerChunk - 1) / unsigned(t.slicesPerChunk));
    temporalStep3dKernel<Steps>
        <<<grid, dim3(kPassBlockX3d, unsigned(t.blockY)), temporal3dSharedBytes<Steps>(t.blockY),
           stream>>>(u, v, uOut, vOut, w, h, d, t.slicesPerChunk, p);
    CUDA_CHECK(cudaGetLastError());
}

// Throws std::invalid_argument unless launchSteps3d can run `tiling`.
inline void checkStepTiling3d(const StepTiling3d& t) {
    if (!validTiling3d(t))
        throw std::invalid_argument(
            "bad 3D step tiling: " + std::to_string(t.stepsPerPass) + " steps per pass, 32 x " +
            std::to_string(t.blockY) + " threads, " + std::to_string(t.slicesPerChunk) +
            " slices (1.." + std::to_string(kMaxStepsPerPass) + " steps, 2 steps < rows, " +
            std::to_string(kMaxPassThreads3d) + " threads at most, 1 slice at least)");
}

// `steps` steps of the state in u[current], v[current] in passes of tiling.stepsPerPass (the
// remainder in one shorter pass), ping-ponging between the two buffers; returns the index of the
// buffer that holds the result. allowTemporal3dSharedMemory() must have run.
inline int launchSteps3d(const StepTiling3d& tiling, float* const u[2], float* const v[2],
                         int current, int w, int h, int d, const GrayScottParams& p, int steps,
                         cudaStream_t stream) {
    checkStepTiling3d(tiling);
    for (int left = steps; left > 0;) {
        const int pass = left < tiling.stepsPerPass ? left : tiling.stepsPerPass;
        const int next = 1 - current;
        const auto launch = [&](auto stepsConstant) {
            launchTemporalPass3d<decltype(stepsConstant)::value>(
                u[current], v[current], u[next], v[next], w, h, d, tiling, p, stream);
        };
        withPassSteps(pass, launch);
        left -= pass;
        current = next;
    }
    return current;
}

// The original output write: level 0, then one launch per level.
inline void launchLevelByLevelOutputWrite3d(const float* v, int w, int h, int d,
                                            const cudaSurfaceObject_t* levels, int levelCount,
                                            cudaStream_t stream) {
    grayScott3dOutputKernel<<<cellGrid3d(w, h, d), dim3(kCell3dBlockX, kCell3dBlockY), 0, stream>>>(
        v, w, h, levels[0]);
    CUDA_CHECK(cudaGetLastError());
    launchMipLevels3d<1>(levels, levelCount, w, h, d, 1, stream);
}

} // namespace
} // namespace estuary::sim
