// How the CUDA Gray-Scott step is cut into passes and blocks (gray_scott_kernels.cuh runs it): a
// pass advances the grid by stepsPerPass steps (temporal blocking: one read and one write of the
// state per pass, not per step); a block of `threads` threads sweeps `threads - 2 * stepsPerPass`
// output columns down `rowsPerChunk` output rows. chooseStepTiling picks them from the grid size
// and the SM count, a pure function unit-tested without a GPU (tests/gpu/sim_cuda_test.cpp).
// Plain C++: no CUDA headers.
#pragma once

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

} // namespace estuary::sim
