// Gray-Scott's CUDA kernels and their launchers, shared by the simulation (cuda_gray_scott.cu) and
// the micro-benchmark (bench/), so a measured variant is the production code: seeding, the brush,
// the step (the one-step column sweep and the temporally blocked pass, StepTiling in
// gray_scott_tiling.h) and the output write (v into level 0 plus the mip chain: level 0 alone, or
// fused with the first kTileLevels levels). Every cell is stencil.h's laplacian9 + grayScottUpdate
// with the CPU's operands in the CPU's order, so with -fmad=false the results are bit-identical to
// CpuGrayScott's. Grids are w x h floats, periodic, any w, h >= 1. Internal linkage: each .cu that
// includes this compiles its own copy.
#pragma once

#include "cuda_check.h"
#include "gray_scott_tiling.h"
#include "mip_chain_kernels.cuh"
#include "stencil.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace estuary::sim {
namespace {

// One thread per cell; 32-wide rows keep each warp's loads and stores on one coalesced row.
constexpr int kCellBlockX = 32;
constexpr int kCellBlockY = 8;

// ---- kernels ------------------------------------------------------------------------------------

// Rows 0..h-1 of the grid are rows firstRow.. (wrapping) of a w x wholeHeight grid's seed.
__global__ void seedKernel(float* u, float* v, int w, int h, uint64_t seed, int firstRow,
                           int wholeHeight) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const size_t i = static_cast<size_t>(y) * w + x;
    const int wholeY = static_cast<int>((static_cast<int64_t>(firstRow) + y) % wholeHeight);
    seedCell(seed, x, wholeY, w, wholeHeight, u[i], v[i]);
}

__global__ void paintKernel(float* u, float* v, int w, int h, Brush brush) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const size_t i = static_cast<size_t>(y) * w + x;
    applyBrush(brush, w, h, x, y, u[i], v[i]);
}

// One step, each thread sweeping one column down kSweepRows rows with the (x-1, x, x+1) triplets
// of the rows above, at and below in registers: 6 loads per cell instead of the 18 a
// thread-per-cell stencil issues. Measured with ncu at 4096² on an H200: thread-per-cell 46% of
// DRAM peak, this sweep 56% (98.6 µs per step, 2.69 TB/s), bound by L2 throughput (82%) on the
// misaligned x±1 loads. Two variants measured slower and were dropped: x±1 from neighbour lanes by
// shuffle (135 µs: 54 registers, 50% occupancy) and a 32×128 shared-memory tile with a periodic
// halo (125 µs, 41% of DRAM peak: the cooperative load's index arithmetic and the barrier cost
// more). Block kCellBlockX x kCellBlockY.
constexpr int kSweepRows = 16;

struct Triplet {
    float at[3]; // x-1, x, x+1
};

__device__ inline Triplet loadTriplet(const float* __restrict__ f, size_t row, int xm, int x,
                                      int xp) {
    return Triplet{{f[row + xm], f[row + x], f[row + xp]}};
}

__global__ void sweepStepKernel(const float* __restrict__ u, const float* __restrict__ v,
                                float* __restrict__ uOut, float* __restrict__ vOut, int w, int h,
                                GrayScottParams params) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y0 = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y) * kSweepRows;
    if (x >= w || y0 >= h) return;
    const int xm = x == 0 ? w - 1 : x - 1;
    const int xp = x == w - 1 ? 0 : x + 1;
    const size_t above = static_cast<size_t>(y0 == 0 ? h - 1 : y0 - 1) * w;
    const size_t at = static_cast<size_t>(y0) * w;
    Triplet ua = loadTriplet(u, above, xm, x, xp), va = loadTriplet(v, above, xm, x, xp);
    Triplet uc = loadTriplet(u, at, xm, x, xp), vc = loadTriplet(v, at, xm, x, xp);
    const int yEnd = min(y0 + kSweepRows, h);
    for (int y = y0; y < yEnd; ++y) {
        const size_t below = static_cast<size_t>(y == h - 1 ? 0 : y + 1) * w;
        const Triplet ub = loadTriplet(u, below, xm, x, xp);
        const Triplet vb = loadTriplet(v, below, xm, x, xp);
        const float lapU = laplacian9(ua.at, uc.at, ub.at, 0, 1, 2);
        const float lapV = laplacian9(va.at, vc.at, vb.at, 0, 1, 2);
        const size_t i = static_cast<size_t>(y) * w + x;
        grayScottUpdate(lapU, lapV, uc.at[1], vc.at[1], params, uOut[i], vOut[i]);
        ua = uc;
        uc = ub;
        va = vc;
        vc = vb;
    }
}

// The 3 x 3 cells around one cell at one step, u and v: [row above, at, below][x-1, x, x+1].
struct Window {
    float u[3][3];
    float v[3][3];
};

__device__ inline float2 stepCell(const Window& c, const GrayScottParams& params) {
    const float lapU = laplacian9(c.u[0], c.u[1], c.u[2], 0, 1, 2);
    const float lapV = laplacian9(c.v[0], c.v[1], c.v[2], 0, 1, 2);
    float2 out;
    grayScottUpdate(lapU, lapV, c.u[1][1], c.v[1][1], params, out.x, out.y);
    return out;
}

// Steps steps in one pass (temporal blocking, "2.5D"): a block of blockDim.x = NT threads holds
// NT consecutive columns (wrapped modulo w) and sweeps down rowsPerChunk output rows, reading
// input rows y0 - Steps .. y0 + rowsPerChunk + Steps - 1 (wrapped modulo h) once, so DRAM sees one
// read and one write of the state per Steps steps. Each thread keeps, per level l < Steps (the
// field after l steps), a 3 x 3 window of its column's neighbourhood in registers; the x±1 values
// come from the neighbour threads through shared memory. Level l of row j needs level l - 1 of
// rows j - 1 .. j + 1, so a level is computed two rows behind the one above it: then one iteration
// uses only the previous iteration's windows, and one barrier per input row suffices (the exchange
// is double-buffered by row parity, so the next iteration's stores cannot overwrite a buffer still
// being read). Level l is right in columns [l, NT - l), so the middle NT - 2 * Steps threads write.
// Every thread runs every iteration: the barrier needs them all.
template <int Steps>
__global__ void __launch_bounds__(kMaxPassThreads)
    temporalStepKernel(const float* __restrict__ u, const float* __restrict__ v,
                       float* __restrict__ uOut, float* __restrict__ vOut, int w, int h,
                       int rowsPerChunk, GrayScottParams params) {
    extern __shared__ float2 exchange[]; // [row parity][level < Steps][thread]
    const int nt = static_cast<int>(blockDim.x);
    const int tx = static_cast<int>(threadIdx.x);
    const int x = static_cast<int>(blockIdx.x) * (nt - 2 * Steps) + tx - Steps;
    const int column = wrapIndex(x, w);
    const bool writes = tx >= Steps && tx < nt - Steps && x < w;
    // The edge threads have no outer neighbour; what they compute there is never used.
    const int left = tx > 0 ? tx - 1 : tx;
    const int right = tx < nt - 1 ? tx + 1 : tx;
    const int y0 = static_cast<int>(blockIdx.y) * rowsPerChunk;
    const int inputRows = rowsPerChunk + 2 * Steps;

    int row = wrapIndex(y0 - Steps, h);
    size_t cell = static_cast<size_t>(row) * w + column;
    float2 next = make_float2(u[cell], v[cell]);
    Window window[Steps] = {};
    // Iteration i loads input row i (local); level l is at row i - 2l, so the last output row
    // (local Steps + rowsPerChunk - 1) comes out at iteration rowsPerChunk + 3 * Steps - 1.
    // Unrolled by 3 the windows' row rotation becomes register renaming instead of 12 moves per
    // level: measured on an H100 at 1024², 6.3 -> 5.7 µs per step (the pass is issue bound).
    // Loading rows 4 iterations ahead instead of 1 measured no faster.
#pragma unroll 3
    for (int i = 0; i < inputRows + Steps; ++i) {
        float2 level[Steps + 1];
        level[0] = next;
        if (i + 1 < inputRows) { // issued now, used next iteration
            row = row + 1 == h ? 0 : row + 1;
            cell = static_cast<size_t>(row) * w + column;
            next = make_float2(u[cell], v[cell]);
        }
#pragma unroll
        for (int l = 1; l <= Steps; ++l)
            level[l] = stepCell(window[l - 1], params);
        const int outRow = i - 3 * Steps; // in the chunk
        if (writes && outRow >= 0 && outRow < rowsPerChunk && y0 + outRow < h) {
            const size_t out = static_cast<size_t>(y0 + outRow) * w + x;
            uOut[out] = level[Steps].x;
            vOut[out] = level[Steps].y;
        }
        float2* buffer = exchange + (i & 1) * Steps * nt;
#pragma unroll
        for (int l = 0; l < Steps; ++l)
            buffer[l * nt + tx] = level[l];
        __syncthreads();
#pragma unroll
        for (int l = 0; l < Steps; ++l) {
            const float2 xm = buffer[l * nt + left], xp = buffer[l * nt + right];
            Window& c = window[l];
#pragma unroll
            for (int r = 0; r < 2; ++r)
#pragma unroll
                for (int k = 0; k < 3; ++k) {
                    c.u[r][k] = c.u[r + 1][k];
                    c.v[r][k] = c.v[r + 1][k];
                }
            c.u[2][0] = xm.x;
            c.u[2][1] = level[l].x;
            c.u[2][2] = xp.x;
            c.v[2][0] = xm.y;
            c.v[2][1] = level[l].y;
            c.v[2][2] = xp.y;
        }
    }
}

// v into level 0, one thread per texel (the original output write, before the mip chain).
__global__ void writeLevel0Kernel(const float* __restrict__ v, int w, int h,
                                  cudaSurfaceObject_t level0) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    surf2Dwrite(v[static_cast<size_t>(y) * w + x], level0, x * static_cast<int>(sizeof(float)), y);
}

// v into level 0 and, in the same pass, the levels below it (mip_chain_kernels.cuh's tile): v is
// read once, from linear memory, instead of written and read back through the surface.
__global__ void __launch_bounds__(kTileBlockThreads)
    writeLevel0AndTileKernel(const float* __restrict__ v, int w, int h, cudaSurfaceObject_t level0,
                             MipTileTargets below) {
    const auto read = [=](int x, int y) {
        const float value = v[static_cast<size_t>(y) * w + x];
        surf2Dwrite(value, level0, x * static_cast<int>(sizeof(float)), y);
        return Texel<1>{{value}};
    };
    downsampleTile<1>(read, w, h, below);
}

// ---- launchers ----------------------------------------------------------------------------------

inline dim3 cellGrid(int w, int h) {
    return dim3(static_cast<unsigned>((w + kCellBlockX - 1) / kCellBlockX),
                static_cast<unsigned>((h + kCellBlockY - 1) / kCellBlockY));
}

// The whole w x h grid's seed, or (slabs) rows firstRow.. of a w x wholeHeight grid's.
inline void launchSeed(float* u, float* v, int w, int h, uint64_t seed, cudaStream_t stream,
                       int firstRow = 0, int wholeHeight = 0) {
    seedKernel<<<cellGrid(w, h), dim3(kCellBlockX, kCellBlockY), 0, stream>>>(
        u, v, w, h, seed, firstRow, wholeHeight > 0 ? wholeHeight : h);
    CUDA_CHECK(cudaGetLastError());
}

inline void launchPaint(float* u, float* v, int w, int h, const Brush& wrapped,
                        cudaStream_t stream) {
    paintKernel<<<cellGrid(w, h), dim3(kCellBlockX, kCellBlockY), 0, stream>>>(u, v, w, h, wrapped);
    CUDA_CHECK(cudaGetLastError());
}

inline void launchSweepStep(const float* u, const float* v, float* uOut, float* vOut, int w, int h,
                            const GrayScottParams& params, cudaStream_t stream) {
    const dim3 grid(
        static_cast<unsigned>((w + kCellBlockX - 1) / kCellBlockX),
        static_cast<unsigned>((h + kCellBlockY * kSweepRows - 1) / (kCellBlockY * kSweepRows)));
    sweepStepKernel<<<grid, dim3(kCellBlockX, kCellBlockY), 0, stream>>>(u, v, uOut, vOut, w, h,
                                                                         params);
    CUDA_CHECK(cudaGetLastError());
}

template <int Steps>
void launchTemporalPass(const float* u, const float* v, float* uOut, float* vOut, int w, int h,
                        int threads, int rowsPerChunk, const GrayScottParams& params,
                        cudaStream_t stream) {
    const StepTiling t{Steps, threads, rowsPerChunk};
    const dim3 grid(static_cast<unsigned>((w + tilingColumns(t) - 1) / tilingColumns(t)),
                    static_cast<unsigned>((h + rowsPerChunk - 1) / rowsPerChunk));
    const size_t shared = 2 * Steps * static_cast<size_t>(threads) * sizeof(float2);
    temporalStepKernel<Steps><<<grid, static_cast<unsigned>(threads), shared, stream>>>(
        u, v, uOut, vOut, w, h, rowsPerChunk, params);
    CUDA_CHECK(cudaGetLastError());
}

// Throws std::invalid_argument unless launchSteps can run `tiling`.
inline void checkStepTiling(const StepTiling& tiling) {
    if (tiling.stepsPerPass < 1 || tiling.stepsPerPass > kMaxStepsPerPass ||
        tiling.threads > kMaxPassThreads || tilingColumns(tiling) < 1 || tiling.rowsPerChunk < 1)
        throw std::invalid_argument("bad step tiling: " + std::to_string(tiling.stepsPerPass) +
                                    " steps per pass, " + std::to_string(tiling.threads) +
                                    " threads, " + std::to_string(tiling.rowsPerChunk) + " rows");
}

// `steps` steps of the state in u[current], v[current] in passes of tiling.stepsPerPass (the
// remainder in one shorter pass), ping-ponging between the two buffers; returns the index of the
// buffer that holds the result.
inline int launchSteps(const StepTiling& tiling, float* const u[2], float* const v[2], int current,
                       int w, int h, const GrayScottParams& params, int steps,
                       cudaStream_t stream) {
    checkStepTiling(tiling);
    for (int left = steps; left > 0;) {
        const int pass = passSteps(tiling, left);
        const int next = 1 - current;
        const auto launch = [&](auto stepsConstant) {
            launchTemporalPass<decltype(stepsConstant)::value>(u[current], v[current], u[next],
                                                               v[next], w, h, tiling.threads,
                                                               tiling.rowsPerChunk, params, stream);
        };
        withPassSteps(pass, launch);
        left -= pass;
        current = next;
    }
    return current;
}

// v into level 0 of `levels` (levelCount surfaces of a full R32 float chain) and, in the same
// launch, the kTileLevels levels below it; returns the first level left for writeMipChain.
inline int launchLevel0AndTile(const float* v, int w, int h, const cudaSurfaceObject_t* levels,
                               int levelCount, cudaStream_t stream) {
    MipTileTargets below{};
    below.count = levelCount - 1 < kTileLevels ? levelCount - 1 : kTileLevels;
    for (int k = 0; k < below.count; ++k)
        below.levels[k] = levels[1 + k];
    writeLevel0AndTileKernel<<<tileGrid(w, h), dim3(kTileThreads, kTileThreads), 0, stream>>>(
        v, w, h, levels[0], below);
    CUDA_CHECK(cudaGetLastError());
    return 1 + below.count;
}

// The original output write: level 0, then one launch per level.
inline void launchLevelByLevelOutputWrite(const float* v, int w, int h,
                                          const cudaSurfaceObject_t* levels, int levelCount,
                                          cudaStream_t stream) {
    writeLevel0Kernel<<<cellGrid(w, h), dim3(kCellBlockX, kCellBlockY), 0, stream>>>(v, w, h,
                                                                                     levels[0]);
    CUDA_CHECK(cudaGetLastError());
    launchMipLevels<1>(levels, levelCount, w, h, 1, stream);
}

} // namespace
} // namespace estuary::sim
