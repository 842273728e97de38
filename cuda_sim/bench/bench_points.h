// estuary_kernel_bench's points part (bench_points.cu): a CUDA twin of the points view's compute
// splat (viewer/views/points/points_splat.glsl), so Nsight Compute can profile what it cannot see
// in Vulkan. Each point is projected to a pixel, coloured, packed and added with one 64-bit atomic
// into a width x height buffer (or its variants: merged across a warp, saturating 32-bit, merged by
// __match_any_sync); the resolve adds the sums onto an RGBA8 picture and zeroes them. Every
// variant's resolved picture is first checked against a CPU reference (random, Morton-ordered and
// piled-up points), then timed: µs per pass, G points/s and effective GB/s.
#pragma once

#include <string>

namespace estuary::sim {

// `args` after "points": [--points N] [--size WxH] [--order random|morton|both]
// [--variant packed|merged|saturated|match|all] [--reps N]. Returns the exit status: 0, 1 when
// a variant differs from the CPU, 2 on bad usage (the problem printed).
int runPointsBench(int argc, char** argv);

} // namespace estuary::sim
