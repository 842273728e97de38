// The fluid's pressure sweeps on the GPU (fluid.h has the math): one damped-Jacobi sweep per
// launch, and several per launch in shared memory (temporal blocking), which CudaFluid runs. Both
// give the CPU's fluidProject sweeps bit for bit; estuary_kernel_bench's `jacobi` command checks
// and times them. Compile without FMA contraction, as fluid.cu (cuda_sim/CMakeLists.txt says why).
#pragma once

#include "fluid.h"

#include <cuda_runtime.h>

namespace estuary::sim {
namespace { // each includer compiles its own copy (no relocatable device code)

// The cell of this thread, false outside the grid.
__device__ bool fluidThreadCell(int w, int h, int& x, int& y) {
    x = int(blockIdx.x * blockDim.x + threadIdx.x);
    y = int(blockIdx.y * blockDim.y + threadIdx.y);
    return x < w && y < h;
}

__global__ void fluidJacobiKernel(const float* __restrict__ pressure,
                                  const float* __restrict__ divergence, float* pressureOut, int w,
                                  int h) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    pressureOut[fluidIndex(x, y, w)] = fluidJacobiCell(pressure, divergence, w, h, x, y);
}

// Up to kFluidSweepsPerLaunch Jacobi sweeps in one launch (temporal blocking): a block loads its
// tile of kFluidSweepTileX x kFluidSweepTileY cells of `pressure` and `divergence` with a halo of 2
// cells per sweep (the stencil reaches 2 cells) into shared memory, sweeps there, each sweep's
// valid region 2 cells narrower on every side, and writes its own cells once: 12 bytes per cell
// from DRAM per launch instead of per sweep. Every cell is updated by fluidJacobi with its four far
// neighbours summed in fluidFar's order, so the result is bit for bit that of one sweep a launch
// (and of the CPU). Blocks of 32 x 8 threads (kFluidSweepThreads), each thread striding over the
// tile by rows and columns.
constexpr int kFluidSweepsPerLaunch = 4;
constexpr int kFluidSweepTileX = 64, kFluidSweepTileY = 32;
inline dim3 fluidSweepThreads() {
    return {32, 8};
}

__global__ void __launch_bounds__(256)
    fluidJacobiBlockKernel(const float* __restrict__ pressure, const float* __restrict__ divergence,
                           float* pressureOut, int w, int h, int sweeps) {
    constexpr int kHalo = 2 * kFluidSweepsPerLaunch;
    constexpr int kSideX = kFluidSweepTileX + 2 * kHalo, kSideY = kFluidSweepTileY + 2 * kHalo;
    __shared__ float a[kSideY][kSideX], b[kSideY][kSideX], d[kSideY][kSideX];
    const int x0 = int(blockIdx.x) * kFluidSweepTileX - kHalo;
    const int y0 = int(blockIdx.y) * kFluidSweepTileY - kHalo;
    const int tx = int(threadIdx.x), ty = int(threadIdx.y);
    const int nx = int(blockDim.x), ny = int(blockDim.y);
    for (int sy = ty; sy < kSideY; sy += ny) {
        const size_t row = size_t(fluidWrapAny(y0 + sy, h)) * size_t(w);
        for (int sx = tx; sx < kSideX; sx += nx) {
            const size_t g = row + size_t(fluidWrapAny(x0 + sx, w));
            a[sy][sx] = pressure[g];
            d[sy][sx] = divergence[g];
        }
    }
    __syncthreads();
    float(*from)[kSideX] = a;
    float(*to)[kSideX] = b;
    for (int k = 1; k <= sweeps; ++k) {
        const int edge = 2 * k;
        for (int sy = edge + ty; sy < kSideY - edge; sy += ny)
            for (int sx = edge + tx; sx < kSideX - edge; sx += nx) {
                const float far =
                    (from[sy][sx - 2] + from[sy][sx + 2]) + (from[sy - 2][sx] + from[sy + 2][sx]);
                to[sy][sx] = fluidJacobi(from[sy][sx], far, d[sy][sx]);
            }
        __syncthreads();
        float(*swap)[kSideX] = from;
        from = to;
        to = swap;
    }
    for (int y = ty; y < kFluidSweepTileY; y += ny)
        for (int x = tx; x < kFluidSweepTileX; x += nx)
            if (x0 + kHalo + x < w && y0 + kHalo + y < h)
                pressureOut[fluidIndex(x0 + kHalo + x, y0 + kHalo + y, w)] =
                    from[kHalo + y][kHalo + x];
}

} // namespace
} // namespace estuary::sim
