// estuary_kernel_bench: every Gray-Scott kernel variant, each first checked bit for bit against the
// CPU reference (CpuGrayScott, writeMipChain on the host) and then timed with CUDA events, in the
// manner of llm.c's dev/cuda. The kernels are the production ones (gray_scott_kernels.cuh,
// mip_chain_kernels.cuh) plus the thread-per-cell baseline, which lives only here.
//
//   estuary_kernel_bench step <naive|sweep|temporal1..4|auto> [--size N] [--threads N] [--rows N]
//   estuary_kernel_bench mips <level-by-level|fused> [--size N]
//   estuary_kernel_bench frame <old|new> [--size N]         8 steps + the output write
//   estuary_kernel_bench tune [--size N]                    every temporal (steps, threads, rows)
//   estuary_kernel_bench jacobi <sweep|blocked> [--size N]  the fluid's 39 pressure sweeps a step:
//                                                           one a launch, or 4 a launch in shared
//                                                           memory (fluid_kernels.cuh)
//   estuary_kernel_bench pressure <jacobi|multigrid> [--size N]  the fluid's step with either
//                                           solver: µs a step, the divergence left
//                                           (bench_pressure.h)
//   estuary_kernel_bench step3d <column|temporal1..4|auto> [--size N] [--block-y N] [--slices N]
//   estuary_kernel_bench mips3d <level-by-level|fused> [--size N]   gray-scott-3d (bench_volume.cu)
//   estuary_kernel_bench frame3d <old|new> [--size N]
//   estuary_kernel_bench tune3d [--size N]                  every temporal 3D (steps, rows, slices)
//   estuary_kernel_bench points [--points N] [--size WxH] [--order random|morton|both]
//                        [--variant packed|merged|saturated|match|all]   the points splat's CUDA
//                                                           twin (bench_points.h)
//   estuary_kernel_bench all                                every variant at 1024², 2048², 4096²
//                                                           and every 3D one at 256³ and 512³
// Each takes --json PATH (results as JSON, written atomically). Sizes default to 1024, 2048 and
// 4096 (3D: 256 and 512). temporalK uses chooseStepTiling's threads and rows with K steps per pass;
// auto is what the simulation runs. Exit 0; 1 when a variant differs from the CPU (the first
// difference printed); 2 on bad usage.
#include "bench_common.cuh"
#include "bench_points.h"
#include "bench_pressure.h"
#include "bench_volume.h"
#include "cpu_gray_scott.h"
#include "cuda_simulation.h"
#include "fluid_kernels.cuh"
#include "gray_scott_kernels.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

// ---- the baseline kernel ------------------------------------------------------------------------

// One thread per cell, all 18 neighbour loads from global memory: the first CUDA step.
__global__ void naiveStepKernel(const float* u, const float* v, float* uOut, float* vOut, int w,
                                int h, GrayScottParams params) {
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const size_t i = static_cast<size_t>(y) * w + x;
    grayScottCell(u, v, w, h, x, y, params, uOut[i], vOut[i]);
}

// ---- the state ----------------------------------------------------------------------------------

// The u/v ping-pong of a w x h grid, seeded with seedCell.
struct Fields {
    int w, h;
    float* allocation = nullptr;
    float* u[2] = {};
    float* v[2] = {};
    int current = 0;

    Fields(int width, int height, cudaStream_t stream) : w(width), h(height) {
        const size_t cells = size_t(w) * size_t(h);
        CUDA_CHECK(cudaMalloc(&allocation, 4 * cells * sizeof(float)));
        u[0] = allocation;
        u[1] = allocation + cells;
        v[0] = allocation + 2 * cells;
        v[1] = allocation + 3 * cells;
        launchSeed(u[0], v[0], w, h, kSeed, stream);
    }
    ~Fields() { (void)cudaFree(allocation); }
    Fields(const Fields&) = delete;
    Fields& operator=(const Fields&) = delete;
};

// ---- step variants ------------------------------------------------------------------------------

enum class StepKernel { Naive, Sweep, Temporal };
struct StepVariant {
    std::string name;
    StepKernel kernel = StepKernel::Temporal;
    StepTiling tiling; // Temporal only
};

struct Options {
    std::vector<int> sizes;
    int threads = 0, rows = 0; // 0: chooseStepTiling's
    VolumeBenchOptions volume; // the 3D commands'; its sizes are `sizes`
    std::string json;
};

// The named variant with its tiling for a size x size grid, or nothing for an unknown name.
std::optional<StepVariant> stepVariant(const std::string& name, int size, int smCount,
                                       const Options& options) {
    StepVariant variant{name, StepKernel::Temporal, chooseStepTiling(size, size, smCount)};
    if (name == "naive") {
        variant.kernel = StepKernel::Naive;
    } else if (name == "sweep") {
        variant.kernel = StepKernel::Sweep;
    } else if (name.size() == 9 && name.starts_with("temporal") && name[8] >= '1' &&
               name[8] <= '0' + kMaxStepsPerPass) {
        variant.tiling.stepsPerPass = name[8] - '0';
    } else if (name != "auto") {
        return std::nullopt;
    }
    if (options.threads > 0) variant.tiling.threads = options.threads;
    if (options.rows > 0) variant.tiling.rowsPerChunk = options.rows;
    return variant;
}

void runSteps(const StepVariant& variant, Fields& f, const GrayScottParams& params, int steps,
              cudaStream_t stream) {
    if (variant.kernel == StepKernel::Temporal) {
        f.current =
            launchSteps(variant.tiling, f.u, f.v, f.current, f.w, f.h, params, steps, stream);
        return;
    }
    for (int s = 0; s < steps; ++s) {
        const int next = 1 - f.current;
        if (variant.kernel == StepKernel::Naive) {
            naiveStepKernel<<<cellGrid(f.w, f.h), dim3(kCellBlockX, kCellBlockY), 0, stream>>>(
                f.u[f.current], f.v[f.current], f.u[next], f.v[next], f.w, f.h, params);
            CUDA_CHECK(cudaGetLastError());
        } else {
            launchSweepStep(f.u[f.current], f.v[f.current], f.u[next], f.v[next], f.w, f.h, params,
                            stream);
        }
        f.current = next;
    }
}

// Grids and step counts of the check: a moderate grid long enough for patterns and for every
// chunk and column boundary to matter, odd and tiny grids that wrap inside a block.
struct CheckGrid {
    int w, h, steps;
};
constexpr CheckGrid kStepChecks[] = {
    {256, 192, 40}, {37, 29, 13}, {130, 7, 11}, {3, 5, 7}, {1, 1, 5}};

bool checkStep(const StepVariant& variant, cudaStream_t stream) {
    const GrayScottParams params;
    for (const CheckGrid& grid : kStepChecks) {
        CpuGrayScott cpu(grid.w, grid.h, kSeed);
        cpu.step(params, grid.steps);
        Fields f(grid.w, grid.h, stream);
        for (int done = 0; done < grid.steps; done += kStepsPerFrame)
            runSteps(variant, f, params, std::min(kStepsPerFrame, grid.steps - done), stream);
        const size_t cells = size_t(grid.w) * size_t(grid.h);
        std::vector<float> u(cells), v(cells);
        copyAndWait(u.data(), f.u[f.current], cells * sizeof(float), cudaMemcpyDeviceToHost,
                    stream);
        copyAndWait(v.data(), f.v[f.current], cells * sizeof(float), cudaMemcpyDeviceToHost,
                    stream);
        const std::string what = variant.name + " on " + sizeName(grid.w, grid.h) + " after " +
                                 std::to_string(grid.steps) + " steps: ";
        if (!sameBits(u, cpu.u(), grid.w, what + "u") || !sameBits(v, cpu.v(), grid.w, what + "v"))
            return false;
    }
    return true;
}

BenchResult timeStep(const StepVariant& variant, int size, const BenchDevice& device,
                     cudaStream_t stream) {
    const GrayScottParams params;
    Fields f(size, size, stream);
    const double ms = timeMs(stream, kWarmupFrames, kTimedFrames,
                             [&] { runSteps(variant, f, params, kStepsPerFrame, stream); });
    BenchResult r = result("step", variant.name, size);
    r.us = ms * 1e3 / kStepsPerFrame;
    if (variant.kernel == StepKernel::Temporal) r.tiling = variant.tiling;
    r.gbs = kBytesPerCellStep * double(size) * size / (r.us * 1e-6) / 1e9;
    r.percentOfPeak = 100.0 * r.gbs / device.peakGBs;
    return r;
}

// ---- output-write variants ----------------------------------------------------------------------

enum class OutputWrite { LevelByLevel, Fused };

std::optional<OutputWrite> outputWrite(const std::string& name) {
    if (name == "level-by-level") return OutputWrite::LevelByLevel;
    if (name == "fused") return OutputWrite::Fused;
    return std::nullopt;
}

ImageOutput vImage(int w, int h) {
    return ImageOutput{"v", uint32_t(w), uint32_t(h), 1, TexelFormat::R32Float, 0};
}

// What CudaGrayScott::writeOutputs runs (Fused), or the original write: returns the launches.
int runOutputWrite(OutputWrite variant, const float* v, int w, int h, const DeviceImage& image,
                   cudaStream_t stream) {
    const int levels = int(image.surfaces.size());
    if (variant == OutputWrite::LevelByLevel) {
        launchLevelByLevelOutputWrite(v, w, h, image.surfaces.data(), levels, stream);
        return levels;
    }
    const int first = launchLevel0AndTile(v, w, h, image.surfaces.data(), levels, stream);
    writeMipChain(vImage(w, h), image.target(), stream, first);
    return 1 + (levels - first + kTileLevels - 1) / kTileLevels;
}

// v with a distinct, non-representable-sum value in every cell, so every mean rounds.
std::vector<float> hashedField(int w, int h) {
    std::vector<float> v(size_t(w) * size_t(h));
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = hashToSignedUnit(mix64(kSeed ^ i)) + 0.5f;
    return v;
}

// Odd, 1-wide, non-square and 1x1 images: every clamp and dropped row/column of mip_chain.h.
constexpr CheckGrid kMipChecks[] = {{1000, 600, 0}, {4096, 16, 0}, {16, 4096, 0}, {37, 1, 0},
                                    {1, 37, 0},     {1, 1, 0},     {257, 129, 0}, {33, 65, 0}};

bool checkOutputWrite(OutputWrite variant, const std::string& name, cudaStream_t stream) {
    for (const CheckGrid& grid : kMipChecks) {
        const int w = grid.w, h = grid.h;
        const ImageOutput image = vImage(w, h);
        const std::vector<float> field = hashedField(w, h);
        std::vector<std::vector<float>> cpu;
        std::vector<void*> pointers;
        for (uint32_t l = 0; l < levelCount(image); ++l)
            cpu.emplace_back(size_t(mipSize(uint32_t(w), l)) * mipSize(uint32_t(h), l));
        for (auto& level : cpu)
            pointers.push_back(level.data());
        cpu[0] = field;
        writeMipChain(image, HostImageTarget{pointers});

        float* v = nullptr;
        CUDA_CHECK(cudaMalloc(&v, field.size() * sizeof(float)));
        copyAndWait(v, field.data(), field.size() * sizeof(float), cudaMemcpyHostToDevice, stream);
        DeviceImage gpu = createDeviceImage(image);
        runOutputWrite(variant, v, w, h, gpu, stream);
        bool same = true;
        for (size_t l = 0; l < cpu.size() && same; ++l) {
            const int lw = int(mipSize(uint32_t(w), uint32_t(l)));
            const int lh = int(mipSize(uint32_t(h), uint32_t(l)));
            std::vector<float> level(cpu[l].size());
            CUDA_CHECK(cudaMemcpy2DFromArrayAsync(level.data(), size_t(lw) * 4, gpu.levels[l], 0, 0,
                                                  size_t(lw) * 4, size_t(lh),
                                                  cudaMemcpyDeviceToHost, stream));
            CUDA_CHECK(cudaStreamSynchronize(stream));
            same = sameBits(level, cpu[l], lw,
                            name + " on " + sizeName(w, h) + ", level " + std::to_string(l));
        }
        destroyDeviceImage(gpu);
        CUDA_CHECK(cudaFree(v));
        if (!same) return false;
    }
    return true;
}

BenchResult timeOutputWrite(OutputWrite variant, const std::string& name, int size,
                            cudaStream_t stream) {
    const std::vector<float> field = hashedField(size, size);
    float* v = nullptr;
    CUDA_CHECK(cudaMalloc(&v, field.size() * sizeof(float)));
    copyAndWait(v, field.data(), field.size() * sizeof(float), cudaMemcpyHostToDevice, stream);
    DeviceImage image = createDeviceImage(vImage(size, size));
    BenchResult r = result("mips", name, size);
    r.us = 1e3 * timeMs(stream, kWarmupFrames, kTimedFrames, [&] {
               r.launches = runOutputWrite(variant, v, size, size, image, stream);
           });
    destroyDeviceImage(image);
    CUDA_CHECK(cudaFree(v));
    return r;
}

// A whole frame's CUDA work: 8 steps and the output write; old is sweep + level by level, new is
// what CudaGrayScott runs now.
BenchResult timeFrame(bool newer, int size, const BenchDevice& device, cudaStream_t stream) {
    const Options defaults;
    const StepVariant steps =
        *stepVariant(newer ? "auto" : "sweep", size, device.smCount, defaults);
    const OutputWrite write = newer ? OutputWrite::Fused : OutputWrite::LevelByLevel;
    const GrayScottParams params;
    Fields f(size, size, stream);
    DeviceImage image = createDeviceImage(vImage(size, size));
    BenchResult r = result("frame", newer ? "new" : "old", size);
    r.us = 1e3 * timeMs(stream, kWarmupFrames, kTimedFrames, [&] {
               runSteps(steps, f, params, kStepsPerFrame, stream);
               runOutputWrite(write, f.v[f.current], size, size, image, stream);
           });
    destroyDeviceImage(image);
    return r;
}

// ---- the fluid's pressure sweeps
// -----------------------------------------------------------------

constexpr int kFluidSweeps = 39; // the fluid's 40 sweeps a step after the first (fused) one

// `sweeps` sweeps from p[0] (p[1] the other buffer); returns the buffer holding the result.
float* runSweeps(bool blocked, float* p[2], const float* divergence, int w, int h, int sweeps,
                 cudaStream_t stream) {
    int current = 0;
    const dim3 block{32, 8};
    if (!blocked) {
        const dim3 grid{unsigned(w + 31) / 32, unsigned(h + 7) / 8};
        for (int k = 0; k < sweeps; ++k, current = 1 - current)
            fluidJacobiKernel<<<grid, block, 0, stream>>>(p[current], divergence, p[1 - current], w,
                                                          h);
    } else {
        const dim3 grid{unsigned(w + kFluidSweepTileX - 1) / kFluidSweepTileX,
                        unsigned(h + kFluidSweepTileY - 1) / kFluidSweepTileY};
        for (int k = 0; k < sweeps; k += kFluidSweepsPerLaunch, current = 1 - current)
            fluidJacobiBlockKernel<<<grid, fluidSweepThreads(), 0, stream>>>(
                p[current], divergence, p[1 - current], w, h,
                std::min(kFluidSweepsPerLaunch, sweeps - k));
    }
    CUDA_CHECK(cudaGetLastError());
    return p[current];
}

// The sweeps against fluidProject's CPU loop, bit for bit, on odd grids (partial tiles, tiles
// wider than the grid) and for sweep counts that do not divide into launches.
bool checkSweeps(bool blocked, cudaStream_t stream) {
    for (const CheckGrid& grid :
         {CheckGrid{131, 77, 0}, CheckGrid{7, 5, 0}, CheckGrid{257, 33, 0}, CheckGrid{64, 64, 0}}) {
        const int w = grid.w, h = grid.h;
        const std::vector<float> divergence = hashedField(w, h);
        std::vector<float> cpu = hashedField(w, h), next(cpu.size());
        for (float& v : cpu)
            v = 2.0f * v - 1.0f;
        const std::vector<float> start = cpu;
        float* device = nullptr;
        const size_t bytes = cpu.size() * sizeof(float);
        CUDA_CHECK(cudaMalloc(&device, 3 * bytes));
        float* p[2] = {device, device + cpu.size()};
        float* d = device + 2 * cpu.size();
        for (int sweeps : {1, 3, 4, 9, kFluidSweeps}) {
            copyAndWait(p[0], start.data(), bytes, cudaMemcpyHostToDevice, stream);
            copyAndWait(d, divergence.data(), bytes, cudaMemcpyHostToDevice, stream);
            const float* result = runSweeps(blocked, p, d, w, h, sweeps, stream);
            std::vector<float> gpu(cpu.size());
            copyAndWait(gpu.data(), result, bytes, cudaMemcpyDeviceToHost, stream);
            cpu = start;
            for (int k = 0; k < sweeps; ++k) {
                for (int y = 0; y < h; ++y)
                    for (int x = 0; x < w; ++x)
                        next[fluidIndex(x, y, w)] =
                            fluidJacobiCell(cpu.data(), divergence.data(), w, h, x, y);
                cpu.swap(next);
            }
            if (!sameBits(gpu, cpu, w,
                          std::string(blocked ? "blocked" : "sweep") + " " + sizeName(w, h) + ", " +
                              std::to_string(sweeps) + " sweeps")) {
                CUDA_CHECK(cudaFree(device));
                return false;
            }
        }
        CUDA_CHECK(cudaFree(device));
    }
    return true;
}

// Microseconds for a step's 39 sweeps; bandwidth counted as one sweep a launch moves (12 B a cell).
BenchResult timeSweeps(bool blocked, int size, const BenchDevice& device, cudaStream_t stream) {
    const size_t cells = size_t(size) * size_t(size);
    float* memory = nullptr;
    CUDA_CHECK(cudaMalloc(&memory, 3 * cells * sizeof(float)));
    CUDA_CHECK(cudaMemsetAsync(memory, 0, 3 * cells * sizeof(float), stream));
    float* p[2] = {memory, memory + cells};
    BenchResult r = result("jacobi", blocked ? "blocked" : "sweep", size);
    r.us = 1e3 * timeMs(stream, kWarmupFrames, kTimedFrames, [&] {
               runSweeps(blocked, p, memory + 2 * cells, size, size, kFluidSweeps, stream);
           });
    r.launches =
        blocked ? (kFluidSweeps + kFluidSweepsPerLaunch - 1) / kFluidSweepsPerLaunch : kFluidSweeps;
    r.gbs = 12.0 * double(cells) * kFluidSweeps / (r.us * 1e3);
    r.percentOfPeak = 100.0 * r.gbs / device.peakGBs;
    CUDA_CHECK(cudaFree(memory));
    return r;
}

// ---- commands -----------------------------------------------------------------------------------

void print(const BenchResult& r) {
    if (r.kind == "step") {
        std::printf("step  %-10s %5d²  %9.2f µs/step  %7.1f GB/s  %5.1f%% of HBM peak",
                    r.variant.c_str(), r.size, r.us, r.gbs, r.percentOfPeak);
        if (r.tiling)
            std::printf("  (%d steps/pass, %d threads, %d rows)", r.tiling->stepsPerPass,
                        r.tiling->threads, r.tiling->rowsPerChunk);
        std::printf("\n");
    } else if (r.kind == "step3d") {
        std::printf("step3d %-9s %4d³  %9.2f µs/step  %7.1f GB/s  %5.1f%% of HBM peak",
                    r.variant.c_str(), r.size, r.us, r.gbs, r.percentOfPeak);
        if (r.tiling3d)
            std::printf("  (%d steps/pass, 32 x %d threads, %d slices)", r.tiling3d->stepsPerPass,
                        r.tiling3d->blockY, r.tiling3d->slicesPerChunk);
        std::printf("\n");
    } else if (r.kind == "mips3d") {
        std::printf("mips3d %-14s %4d³  %9.2f µs/write (%d launches)\n", r.variant.c_str(), r.size,
                    r.us, r.launches);
    } else if (r.kind == "mips") {
        std::printf("mips  %-14s %5d²  %9.2f µs/write (%d launches)\n", r.variant.c_str(), r.size,
                    r.us, r.launches);
    } else if (r.kind == "jacobi") {
        std::printf("jacobi %-9s %5d²  %9.2f µs/%d sweeps (%d launches)  %7.1f GB/s as if one "
                    "sweep a launch (%.0f%% of HBM peak)\n",
                    r.variant.c_str(), r.size, r.us, kFluidSweeps, r.launches, r.gbs,
                    r.percentOfPeak);
    } else if (r.kind == "pressure") {
        std::printf("pressure %-9s %5d²  %9.2f µs/step  RMS divergence after projection %.3g\n",
                    r.variant.c_str(), r.size, r.us, r.divergence);
    } else if (r.kind == "frame3d") {
        std::printf("frame3d %-8s %4d³  %9.2f µs/frame\n", r.variant.c_str(), r.size, r.us);
    } else {
        std::printf("frame %-10s %5d²  %9.2f µs/frame\n", r.variant.c_str(), r.size, r.us);
    }
    std::fflush(stdout);
}

struct Bench {
    BenchDevice device;
    cudaStream_t stream = nullptr;
    std::vector<BenchResult> results;
    std::map<std::string, bool> checked; // variant and tiling -> passed

    void add(const BenchResult& r) {
        print(r);
        results.push_back(r);
    }

    // Checks a step variant once per tiling; false on a mismatch.
    bool step(const StepVariant& variant, int size) {
        std::string key = variant.name;
        if (variant.kernel == StepKernel::Temporal)
            key += "/" + std::to_string(variant.tiling.stepsPerPass) + "/" +
                   std::to_string(variant.tiling.threads) + "/" +
                   std::to_string(variant.tiling.rowsPerChunk);
        if (!checked.contains(key)) checked[key] = checkStep(variant, stream);
        if (!checked[key]) return false;
        add(timeStep(variant, size, device, stream));
        return true;
    }

    bool sweeps(bool blocked, int size) {
        const std::string key = blocked ? "jacobi/blocked" : "jacobi/sweep";
        if (!checked.contains(key)) checked[key] = checkSweeps(blocked, stream);
        if (!checked[key]) return false;
        add(timeSweeps(blocked, size, device, stream));
        return true;
    }

    bool mips(OutputWrite variant, const std::string& name, int size) {
        if (!checked.contains(name)) checked[name] = checkOutputWrite(variant, name, stream);
        if (!checked[name]) return false;
        add(timeOutputWrite(variant, name, size, stream));
        return true;
    }
};

int usage(const char* problem) {
    std::fprintf(stderr,
                 "%s\nusage: estuary_kernel_bench step <naive|sweep|temporal1..4|auto> | mips "
                 "<level-by-level|fused> | frame <old|new> | jacobi <sweep|blocked> | tune\n"
                 "       | pressure <jacobi|multigrid>\n"
                 "       | step3d <column|temporal1..4|auto> | mips3d <level-by-level|fused>\n"
                 "       | frame3d <old|new> | tune3d | points [options] | all\n"
                 "       [--size N] [--threads N] [--rows N] [--block-y N] [--slices N] "
                 "[--json PATH]\n",
                 problem);
    return 2;
}

int run(int argc, char** argv) {
    if (argc < 2) return usage("missing command");
    const std::string command = argv[1];
    if (command == "points") return runPointsBench(argc - 2, argv + 2); // its own options
    const bool takesVariant = command == "step" || command == "mips" || command == "frame" ||
                              command == "jacobi" || command == "pressure" ||
                              (isVolumeCommand(command) && command != "tune3d");
    if (takesVariant && argc < 3) return usage("missing variant");
    const std::string variantName = takesVariant ? argv[2] : "";
    Options options;
    for (int i = takesVariant ? 3 : 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (i + 1 >= argc) return usage(("missing value after " + arg).c_str());
        const std::string value = argv[++i];
        if (arg == "--json") {
            options.json = value;
            continue;
        }
        const int number = std::atoi(value.c_str());
        if (number < 1) return usage(("bad value for " + arg).c_str());
        if (arg == "--size")
            options.sizes.push_back(number);
        else if (arg == "--threads")
            options.threads = number;
        else if (arg == "--rows")
            options.rows = number;
        else if (arg == "--block-y")
            options.volume.blockY = number;
        else if (arg == "--slices")
            options.volume.slices = number;
        else
            return usage(("unknown option " + arg).c_str());
    }
    const bool sizesGiven = !options.sizes.empty();
    if (!sizesGiven) options.sizes = {1024, 2048, 4096};
    options.volume.sizes = sizesGiven ? options.sizes : std::vector<int>{256, 512};

    Bench bench;
    bench.device = queryDevice();
    std::printf("%s: %d SMs, HBM peak %.0f GB/s; steps counted as %.0f B/cell\n",
                bench.device.name.c_str(), bench.device.smCount, bench.device.peakGBs,
                kBytesPerCellStep);
    CUDA_CHECK(cudaStreamCreateWithFlags(&bench.stream, cudaStreamNonBlocking));
    bool ok = true;
    const auto stepNamed = [&](const std::string& name, int size, const Options& o) {
        const std::optional<StepVariant> variant = stepVariant(name, size, bench.device.smCount, o);
        return variant && bench.step(*variant, size);
    };
    const auto add = [&](const BenchResult& r) { bench.add(r); };
    if (isVolumeCommand(command)) {
        try {
            ok = runVolumeBench(command, variantName, options.volume, bench.device, bench.stream,
                                add);
        } catch (const std::invalid_argument& e) {
            return usage(e.what());
        }
    } else if (command == "step") {
        if (!stepVariant(variantName, 1, 1, options)) return usage("unknown step variant");
        for (int size : options.sizes)
            ok = ok && stepNamed(variantName, size, options);
    } else if (command == "mips") {
        const std::optional<OutputWrite> write = outputWrite(variantName);
        if (!write) return usage("unknown mips variant");
        for (int size : options.sizes)
            ok = ok && bench.mips(*write, variantName, size);
    } else if (command == "frame") {
        if (variantName != "old" && variantName != "new") return usage("unknown frame variant");
        for (int size : options.sizes)
            bench.add(timeFrame(variantName == "new", size, bench.device, bench.stream));
    } else if (command == "jacobi") {
        if (variantName != "sweep" && variantName != "blocked")
            return usage("unknown jacobi variant");
        for (int size : options.sizes)
            ok = ok && bench.sweeps(variantName == "blocked", size);
    } else if (command == "pressure") {
        try {
            ok = runPressureBench(variantName, options.sizes, bench.stream, add);
        } catch (const std::invalid_argument& e) {
            return usage(e.what());
        }
    } else if (command == "tune") {
        for (int size : options.sizes)
            for (int steps = 1; steps <= kMaxStepsPerPass && ok; ++steps)
                for (int threads : {64, 128, 256})
                    for (int rows : {8, 16, 32, 64, 128}) {
                        Options o = options;
                        o.threads = threads;
                        o.rows = rows;
                        ok = ok && stepNamed("temporal" + std::to_string(steps), size, o);
                    }
    } else if (command == "all") {
        const Options defaults;
        for (int size : options.sizes) {
            for (const char* name :
                 {"naive", "sweep", "temporal1", "temporal2", "temporal3", "temporal4", "auto"})
                ok = ok && stepNamed(name, size, defaults);
            for (const char* name : {"level-by-level", "fused"})
                ok = ok && bench.mips(*outputWrite(name), name, size);
            for (bool newer : {false, true})
                bench.add(timeFrame(newer, size, bench.device, bench.stream));
            for (bool blocked : {false, true})
                ok = ok && bench.sweeps(blocked, size);
        }
        VolumeBenchOptions volume = options.volume;
        for (const char* name : {"column", "temporal1", "temporal2", "temporal3", "temporal4"})
            ok = ok && runVolumeBench("step3d", name, volume, bench.device, bench.stream, add);
        for (const char* name : {"level-by-level", "fused"})
            ok = ok && runVolumeBench("mips3d", name, volume, bench.device, bench.stream, add);
        for (const char* name : {"old", "new"})
            ok = ok && runVolumeBench("frame3d", name, volume, bench.device, bench.stream, add);
    } else {
        return usage(("unknown command " + command).c_str());
    }
    CUDA_CHECK(cudaStreamDestroy(bench.stream));
    if (!options.json.empty())
        writeBenchJson(options.json, bench.device, kBytesPerCellStep, kStepsPerFrame,
                       bench.results);
    if (!ok) std::printf("FAILED: a variant differs from the CPU reference\n");
    return ok ? 0 : 1;
}

} // namespace
} // namespace estuary::sim

int main(int argc, char** argv) {
    // A line at a time: a run cut off by a time limit still shows how far it came.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    try {
        return estuary::sim::run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "estuary_kernel_bench: %s\n", e.what());
        return 1;
    }
}
