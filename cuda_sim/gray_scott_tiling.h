// How the CUDA Gray-Scott step is cut into passes and blocks (gray_scott_kernels.cuh runs it): a
// pass advances the grid by stepsPerPass steps (temporal blocking: one read and one write of the
// state per pass, not per step); a block of `threads` threads sweeps `threads - 2 * stepsPerPass`
// output columns down `rowsPerChunk` output rows. chooseStepTiling picks them from the grid size
// and the SM count, a pure function unit-tested without a GPU (tests/gpu/sim_cuda_test.cpp).
// Plain C++: no CUDA headers.
#pragma once

#include <type_traits>

namespace estuary::sim {

inline constexpr int kMaxStepsPerPass = 4;
inline constexpr int kMaxPassThreads = 256;

struct StepTiling {
    int stepsPerPass = 4;  // 1..kMaxStepsPerPass; a frame's remainder runs in shorter passes
    int threads = 128;     // per block, > 2 * stepsPerPass, <= kMaxPassThreads
    int rowsPerChunk = 64; // output rows per block, >= 1

    friend constexpr bool operator==(const StepTiling&, const StepTiling&) = default;
};

// Output columns of one block: its outer stepsPerPass columns on each side only feed the others.
constexpr int tilingColumns(const StepTiling& t) {
    return t.threads - 2 * t.stepsPerPass;
}

// Blocks of one pass over a w x h grid.
constexpr long long tilingBlocks(const StepTiling& t, int w, int h) {
    const long long columns = (w + tilingColumns(t) - 1) / tilingColumns(t);
    const long long chunks = (h + t.rowsPerChunk - 1) / t.rowsPerChunk;
    return columns * chunks;
}

// Calls launch(std::integral_constant<int, pass>{}) for pass in 1..kMaxStepsPerPass: the temporal
// kernels' step count is a template argument (their windows are arrays of that size).
template <class Launch> void withPassSteps(int pass, const Launch& launch) {
    static_assert(kMaxStepsPerPass == 4, "one case per pass length");
    switch (pass) {
    case 1:
        return launch(std::integral_constant<int, 1>{});
    case 2:
        return launch(std::integral_constant<int, 2>{});
    case 3:
        return launch(std::integral_constant<int, 3>{});
    default:
        return launch(std::integral_constant<int, 4>{});
    }
}

// The pass of the steps left: full passes, then one shorter pass for the remainder.
constexpr int passSteps(const StepTiling& t, int stepsLeft) {
    return stepsLeft < t.stepsPerPass ? stepsLeft : t.stepsPerPass;
}

// Four steps per pass, then the longest chunks and widest blocks (least halo: 128 threads and
// 64 rows re-read 6% + 12% of the state) that still give each SM enough blocks. Measured with
// estuary_kernel_bench tune on an H100 (132 SMs), µs per step at 1024² / 2048² / 4096²:
//   (steps, threads, rows) (4, 128, 64): 8.2 / 22.6 / 63.3   (4, 128, 32): 6.0 / 20.3 / 65.3
//                          (4, 64, 32):  5.8 / 20.1 / 66.4   (4, 64, 16):  6.4 / 21.4 / 77.8
// so 64 rows pay only with about 16 blocks per SM, and a grid too small for 4 blocks per SM in
// 128-thread blocks is cut into narrower ones rather than into more halo rows; below that,
// shorter chunks, so that all SMs have work. 3 steps per pass ties with 4 at 2048² and 4096²
// (within the 5% two runs differ by) and is slower at 1024² (6.1 at best); 4 divides a frame's
// 8 steps. smCount < 1 (unknown) counts as 132.
constexpr StepTiling chooseStepTiling(int w, int h, int smCount) {
    const long long sms = smCount > 0 ? smCount : 132;
    StepTiling t{4, 128, 64};
    if (tilingBlocks(t, w, h) >= 16 * sms) return t; // 4096²: 2240 blocks
    t.rowsPerChunk = 32;
    if (tilingBlocks(t, w, h) >= 4 * sms) return t; // 2048²: 1152
    t.threads = 64;
    if (tilingBlocks(t, w, h) >= 2 * sms) return t; // 1024²: 608
    t.rowsPerChunk = 16;
    return t;
}

// ---- 3D (gray-scott-3d) -------------------------------------------------------------------------
// A pass over a W x H x D volume: a block of kPassBlockX3d x blockY threads holds one column (x, y)
// each and marches along z down slicesPerChunk output slices; its outer stepsPerPass columns and
// rows on every side only feed the others (gray_scott_3d_kernels.cuh).

inline constexpr int kPassBlockX3d = 32; // one warp a row: coalesced loads and stores
inline constexpr int kMaxPassThreads3d = 1024;

struct StepTiling3d {
    int stepsPerPass = 2; // 1..kMaxStepsPerPass
    int blockY = 16;      // rows of threads, > 2 * stepsPerPass, 32 * blockY <= kMaxPassThreads3d
    int slicesPerChunk = 32; // output slices per block, >= 1

    friend constexpr bool operator==(const StepTiling3d&, const StepTiling3d&) = default;
};

constexpr int tilingColumns3d(const StepTiling3d& t) {
    return kPassBlockX3d - 2 * t.stepsPerPass;
}
constexpr int tilingRows3d(const StepTiling3d& t) {
    return t.blockY - 2 * t.stepsPerPass;
}

constexpr long long tilingBlocks3d(const StepTiling3d& t, int w, int h, int d) {
    return static_cast<long long>((w + tilingColumns3d(t) - 1) / tilingColumns3d(t)) *
           ((h + tilingRows3d(t) - 1) / tilingRows3d(t)) *
           ((d + t.slicesPerChunk - 1) / t.slicesPerChunk);
}

// Whether launchSteps3d can run `t`.
constexpr bool validTiling3d(const StepTiling3d& t) {
    return t.stepsPerPass >= 1 && t.stepsPerPass <= kMaxStepsPerPass && tilingColumns3d(t) >= 1 &&
           tilingRows3d(t) >= 1 && kPassBlockX3d * t.blockY <= kMaxPassThreads3d &&
           t.slicesPerChunk >= 1;
}

// Four steps per pass in 32 x 32 blocks (the least halo a block can have: 24 x 24 of its 1024
// columns write), then the chunk of slices whose pass takes the least time counted in waves: a
// block's time grows with its input slices (chunk + 2 x 4), and a pass takes as many rounds of
// blocks as it has blocks per SM, rounded up (at most one 1024-thread block fits an SM at the
// kernel's registers). Measured with estuary_kernel_bench tune3d on an H100 (132 SMs), µs per
// step, steps / rows / slices:
//   256³: 4/32/256 84.3, 4/32/128 88.1, 4/32/64 95.6, 3/16/256 99.7, 2/16/64 110.9
//   512³: 4/32/128 650.8, 4/32/256 661.9, 4/24/256 697.8, 3/32/128 700.2, 2/16/64 780.7
// and the one-step column march 118.2 / 904.4. The chunks were powers of two from 16 to 256
// slices until the split run (SCALING.md) gave slabs of any depth: a slab of 298 slices of 512²
// took 5 chunks of 64 (19 rounds of 72 input slices) where 3 chunks of 100 take 11 rounds of 108.
// So the depth is cut into c chunks of ceil(d / c) slices, for every c that leaves chunks of at
// least 16 slices (one chunk where the depth holds fewer): 256³ takes one chunk of 256 (121
// blocks, one round), 512³ three of 171 (1452 blocks, 11 rounds of 179 input slices against 15
// of 136 for 128-slice chunks). smCount < 1 (unknown) counts as 132.
constexpr StepTiling3d chooseStepTiling3d(int w, int h, int d, int smCount) {
    const long long sms = smCount > 0 ? smCount : 132;
    const int depth = d > 1 ? d : 1;
    constexpr int kLeastChunk = 16;
    StepTiling3d best{4, 32, depth};
    long long bestCost = -1;
    for (int chunks = 1; chunks == 1 || (depth + chunks - 1) / chunks >= kLeastChunk; ++chunks) {
        const StepTiling3d t{4, 32, (depth + chunks - 1) / chunks};
        const long long rounds = (tilingBlocks3d(t, w, h, depth) + sms - 1) / sms;
        const long long cost = rounds * (t.slicesPerChunk + 2 * t.stepsPerPass);
        if (bestCost < 0 || cost < bestCost) {
            best = t;
            bestCost = cost;
        }
    }
    return best;
}

} // namespace estuary::sim
