// estuary_kernel_bench pressure <jacobi|multigrid>: see bench_pressure.h.
#include "bench_pressure.h"

#include "bench_common.cuh"
#include "cuda_simulation.h"
#include "fluid.h"
#include "fluid_multigrid_kernels.cuh"

#include <cmath>
#include <stdexcept>

namespace estuary::sim {
namespace {

constexpr int kPressureWarmSteps = 300;

// A field in [0, 1) hashed from the cell and `salt`.
std::vector<float> noise(int w, int h, uint32_t salt) {
    std::vector<float> f(size_t(w) * size_t(h));
    for (size_t i = 0; i < f.size(); ++i)
        f[i] = float(fluidHash(uint32_t(i) ^ fluidHash(salt)) >> 8) * (1.0f / 16777216.0f);
    return f;
}

// The CUDA V-cycles against fluidMultigridProject from a random velocity and a random warm
// pressure: levels launched one by one above the one-block kernel's: 1, 2, 1 (8 x 8: level 0
// alone) and 3; 1 and 2
// cycles, the divergence and the final pressure bit for bit.
bool checkMultigrid(cudaStream_t stream) {
    const int sizes[][2] = {{96, 64}, {256, 192}, {8, 8}, {512, 512}};
    for (const auto& [w, h] : sizes) {
        const FluidHierarchy m = fluidHierarchy(w, h);
        const size_t cells = size_t(w) * size_t(h);
        const std::vector<float> a = noise(w, h, 1), b = noise(w, h, 2), c = noise(w, h, 3);
        std::vector<FluidVelocity> u(cells);
        for (size_t i = 0; i < cells; ++i)
            u[i] = {2.0f * b[i] - 1.0f, 2.0f * c[i] - 1.0f};
        for (int cycles : {1, 2}) {
            std::vector<float> p = a, divergence(cells), pool(m.poolFloats);
            std::vector<FluidVelocity> out(cells);
            fluidMultigridProject(m, u.data(), out.data(), divergence.data(), p.data(), pool.data(),
                                  cycles);
            FluidVelocity* du = nullptr;
            float* memory = nullptr;
            CUDA_CHECK(cudaMalloc(&du, cells * sizeof(FluidVelocity)));
            CUDA_CHECK(cudaMalloc(&memory, (3 * cells + 2 * m.poolFloats) * sizeof(float)));
            float* pressure[2] = {memory, memory + cells};
            float* dDivergence = memory + 2 * cells;
            float* dPool = memory + 3 * cells;
            float* spare[kFluidMaxLevels] = {pressure[1]};
            for (int l = 1; l < m.levels; ++l)
                spare[l] = dPool + m.poolFloats + m.offset[l] / 2;
            copyAndWait(du, u.data(), cells * sizeof(FluidVelocity), cudaMemcpyHostToDevice,
                        stream);
            copyAndWait(pressure[0], a.data(), cells * sizeof(float), cudaMemcpyHostToDevice,
                        stream);
            const float* result = fluidMultigridCycles(
                m, fluidLevels(m, pressure[0], dDivergence, dPool), spare, du, cycles, stream);
            std::vector<float> gpuP(cells), gpuD(cells);
            copyAndWait(gpuP.data(), result, cells * sizeof(float), cudaMemcpyDeviceToHost, stream);
            copyAndWait(gpuD.data(), dDivergence, cells * sizeof(float), cudaMemcpyDeviceToHost,
                        stream);
            CUDA_CHECK(cudaFree(du));
            CUDA_CHECK(cudaFree(memory));
            const std::string what =
                "multigrid " + sizeName(w, h) + ", " + std::to_string(cycles) + " cycles, ";
            if (!sameBits(gpuD, divergence, w, what + "divergence") ||
                !sameBits(gpuP, p, w, what + "pressure"))
                return false;
        }
    }
    return true;
}

// The RMS of the velocity's divergence, in double.
double rmsDivergence(const std::vector<FluidVelocity>& u, int w, int h) {
    double sum = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double d = double(fluidDivergenceCell(u.data(), w, h, x, y));
            sum += d * d;
        }
    return std::sqrt(sum / (double(w) * double(h)));
}

BenchResult timeFluid(bool multigrid, int size, cudaStream_t stream) {
    const SimDefinition def = fluidSimulation();
    const GridSize grid{uint32_t(size), uint32_t(size), 1, 0};
    ParamValues params = initialParams(def);
    params[kFluidCycles] = multigrid ? 1.0f : 0.0f;
    const auto sim = def.createCuda(grid);
    sim->reset(kSeed, stream);
    sim->step(params, kPressureWarmSteps, stream);
    BenchResult r = result("pressure", multigrid ? "multigrid" : "jacobi", size);
    r.us = 1e3 * timeMs(stream, kWarmupFrames, kTimedFrames, [&] { sim->step(params, 1, stream); });
    const OutputLayout layout = def.outputs(grid);
    std::vector<DeviceImage> images;
    std::vector<DeviceImageTarget> targets;
    for (const ImageOutput& image : layout.images)
        images.push_back(createDeviceImage(image));
    for (const DeviceImage& image : images)
        targets.push_back(image.target());
    sim->writeOutputs({targets, {}}, stream);
    std::vector<FluidVelocity> u(size_t(size) * size_t(size));
    CUDA_CHECK(cudaMemcpy2DFromArrayAsync(
        u.data(), size_t(size) * sizeof(FluidVelocity), images[0].levels[0], 0, 0,
        size_t(size) * sizeof(FluidVelocity), size_t(size), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (DeviceImage& image : images)
        destroyDeviceImage(image);
    r.divergence = rmsDivergence(u, size, size);
    return r;
}

} // namespace

bool runPressureBench(const std::string& variant, const std::vector<int>& sizes,
                      cudaStream_t stream, const std::function<void(const BenchResult&)>& add) {
    if (variant != "jacobi" && variant != "multigrid")
        throw std::invalid_argument("unknown pressure variant " + variant);
    const bool multigrid = variant == "multigrid";
    if (multigrid && !checkMultigrid(stream)) return false;
    for (int size : sizes)
        add(timeFluid(multigrid, size, stream));
    return true;
}

} // namespace estuary::sim
