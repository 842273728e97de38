// "wave": the damped 2D wave equation with orbiting sources (wave.h has the math). This one file
// is the whole simulation beside wave.h: its output, its parameter table and presets, the CPU
// reference, the CUDA implementation and the definition app/simulations.cpp lists. It is the
// worked example of docs/SIMULATIONS.md.
//
// Built with -fmad=false and -ffp-contract=off (cuda_sim/CMakeLists.txt), so CPU and GPU round
// every operation alike. Without nvcc this file compiles as C++ and only the CPU half exists.
#include "wave.h"
#include "errors.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef __CUDACC__
#include "cuda_check.h"
#include "cuda_simulation.h"
#endif

namespace estuary::sim {
namespace {

// One output: the height field, R32 float, with its full mip chain.
OutputLayout waveOutputs(const GridSize& grid) {
    OutputLayout layout;
    layout.images.push_back({"height", grid.width, grid.height, 1, TexelFormat::R32Float, 0});
    return layout;
}

void checkGrid(const GridSize& grid) {
    if (grid.width < 3 || grid.height < 3 || grid.depth != 1)
        throw usageError("wave needs a 2D grid (--size) of at least 3x3, got " +
                         std::to_string(grid.width) + "x" + std::to_string(grid.height));
}

// ---- CPU reference ------------------------------------------------------------------------------

class CpuWave final : public CpuSimulation {
  public:
    explicit CpuWave(const GridSize& grid)
        : w_(int(grid.width)), h_(int(grid.height)), u_(grid.width * grid.height),
          previous_(u_.size()) {
        checkGrid(grid);
    }

    void reset(uint64_t seed) override {
        clock_.reset(seed);
        const WaveDrops drops = waveSeedDrops(seed, w_, h_);
        forEachCell([&](int x, int y, size_t i) {
            u_[i] = previous_[i] = waveDropsAt(drops, x, y, w_, h_);
        });
    }

    void step(const ParamValues& params, int steps) override {
        for (int n = 0; n < steps; ++n) {
            const WaveStep s = clock_.next(params, w_, h_);
            // waveCell reads `previous` only at its own cell, so the new field can replace it.
            forEachCell([&](int x, int y, size_t i) {
                previous_[i] = waveCell(u_.data(), previous_.data(), w_, h_, x, y, s);
            });
            u_.swap(previous_);
        }
    }

    void writeOutputs(const HostTargets& targets) override {
        const ImageOutput image = waveOutputs({uint32_t(w_), uint32_t(h_)}).images[0];
        std::memcpy(targets.images[0].levels[0], u_.data(), u_.size() * sizeof(float));
        writeMipChain(image, targets.images[0]);
    }

    void brush(const Brush& brush, const ParamValues&) override {
        const WaveDrops drop = waveBrushDrop(brush, w_, h_);
        forEachCell([&](int x, int y, size_t i) {
            const float bump = waveDropsAt(drop, x, y, w_, h_);
            if (bump > 0.0f) waveBrushCell(bump, brush.secondary, u_[i], previous_[i]);
        });
    }

  private:
    template <class Body> void forEachCell(const Body& body) {
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x)
                body(x, y, size_t(y) * size_t(w_) + size_t(x));
    }

    int w_, h_;
    std::vector<float> u_, previous_;
    WaveClock clock_;
};

// ---- CUDA ---------------------------------------------------------------------------------------
#ifdef __CUDACC__

__global__ void waveSeedKernel(float* u, float* previous, int w, int h, WaveDrops drops) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const size_t i = size_t(y) * size_t(w) + size_t(x);
    u[i] = previous[i] = waveDropsAt(drops, x, y, w, h);
}

// One thread per cell; the new field replaces `previous` in place (see CpuWave::step).
__global__ void waveStepKernel(const float* __restrict__ u, float* previous, int w, int h,
                               WaveStep s) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    previous[size_t(y) * size_t(w) + size_t(x)] = waveCell(u, previous, w, h, x, y, s);
}

__global__ void waveBrushKernel(float* u, float* previous, int w, int h, WaveDrops drop,
                                bool calm) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    const size_t i = size_t(y) * size_t(w) + size_t(x);
    const float bump = waveDropsAt(drop, x, y, w, h);
    if (bump > 0.0f) waveBrushCell(bump, calm, u[i], previous[i]);
}

__global__ void waveOutputKernel(const float* __restrict__ u, int w, int h,
                                 cudaSurfaceObject_t level0) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= w || y >= h) return;
    surf2Dwrite(u[size_t(y) * size_t(w) + size_t(x)], level0, x * int(sizeof(float)), y);
}

class CudaWave final : public CudaSimulation {
  public:
    explicit CudaWave(const GridSize& grid) : w_(int(grid.width)), h_(int(grid.height)) {
        checkGrid(grid);
        CUDA_CHECK(cudaMalloc(&fields_, 2 * size_t(w_) * size_t(h_) * sizeof(float)));
    }
    ~CudaWave() override { (void)cudaFree(fields_); }
    CudaWave(const CudaWave&) = delete;
    CudaWave& operator=(const CudaWave&) = delete;

    void reset(uint64_t seed, cudaStream_t stream) override {
        clock_.reset(seed);
        waveSeedKernel<<<grid(), block(), 0, stream>>>(u(), previous(), w_, h_,
                                                       waveSeedDrops(seed, w_, h_));
        CUDA_CHECK(cudaGetLastError());
    }

    void step(const ParamValues& params, int steps, cudaStream_t stream) override {
        for (int n = 0; n < steps; ++n) {
            waveStepKernel<<<grid(), block(), 0, stream>>>(u(), previous(), w_, h_,
                                                           clock_.next(params, w_, h_));
            CUDA_CHECK(cudaGetLastError());
            current_ = 1 - current_;
        }
    }

    void writeOutputs(const DeviceTargets& targets, cudaStream_t stream) override {
        const ImageOutput image = waveOutputs({uint32_t(w_), uint32_t(h_)}).images[0];
        waveOutputKernel<<<grid(), block(), 0, stream>>>(u(), w_, h_, targets.images[0].levels[0]);
        CUDA_CHECK(cudaGetLastError());
        writeMipChain(image, targets.images[0], stream);
    }

    void brush(const Brush& brush, const ParamValues&, cudaStream_t stream) override {
        waveBrushKernel<<<grid(), block(), 0, stream>>>(
            u(), previous(), w_, h_, waveBrushDrop(brush, w_, h_), brush.secondary);
        CUDA_CHECK(cudaGetLastError());
    }

  private:
    static dim3 block() { return dim3(32, 8); }
    dim3 grid() const { return dim3(unsigned(w_ + 31) / 32, unsigned(h_ + 7) / 8); }
    float* u() { return fields_ + size_t(current_) * size_t(w_) * size_t(h_); }
    float* previous() { return fields_ + size_t(1 - current_) * size_t(w_) * size_t(h_); }

    int w_, h_;
    float* fields_ = nullptr; // two w x h fields: u and previous, swapped by `current_`
    int current_ = 0;
    WaveClock clock_;
};

#endif // __CUDACC__
} // namespace

SimDefinition waveSimulation() {
    SimDefinition def;
    def.name = "wave";
    def.description = "damped wave equation: ripples from orbiting sources, interference, Doppler";
    def.params = {
        {"speed", "wave speed as a Courant number c dt/dx (stable up to 1/sqrt(2))", 0.5f, 0.05f,
         0.7f},
        {"damping", "fraction of the velocity lost per step", 0.003f, 0.0f, 0.05f},
        {"sources", "oscillating sources orbiting the centre", 2.0f, 0.0f, 4.0f, true},
        {"frequency", "source oscillation, radians per step", 0.15f, 0.01f, 0.6f},
        {"amplitude", "how far a source moves the surface up and down", 0.6f, 0.0f, 1.0f},
        {"orbit", "orbit speed of the sources, radians per step", 0.004f, 0.0f, 0.03f},
    };
    def.presets = {
        {"ripples",
         "one slow source and long waves",
         {{"sources", 1}, {"frequency", 0.08f}, {"orbit", 0.002f}, {"damping", 0.003f}}},
        {"interference",
         "two fixed sources: a still interference pattern",
         {{"sources", 2}, {"frequency", 0.2f}, {"orbit", 0.0f}, {"damping", 0.004f}}},
        {"doppler",
         "fast orbits: waves bunch up ahead of each source",
         {{"sources", 2}, {"frequency", 0.3f}, {"orbit", 0.02f}, {"damping", 0.004f}}},
        {"storm",
         "four sources, choppy sea",
         {{"sources", 4}, {"frequency", 0.25f}, {"orbit", 0.01f}, {"damping", 0.01f}}},
        {"pond", "no sources: drop water with the mouse", {{"sources", 0}, {"damping", 0.001f}}},
    };
    def.brush = {"drop water", "calm"};
    // 98% of heights lie in [-0.4, 0.4] (measured); drawn as a lit relief, so crests show as such.
    def.views = {{0, Shading::Colormap, -0.4f, 0.4f, "height", "field_relief.frag", "relief"},
                 {0, Shading::Colormap, -0.4f, 0.4f, "height", "field.frag", "height"}};
    def.stepsPerFrame = 2;
    // u and previous read once, the new field written once: 3 floats per cell per step.
    def.bytesPerCellStep = 12.0;
    def.stateBytesPerCell = 2 * sizeof(float); // the height now and one step before
    def.cudaTolerance = 0.0f; // the same additions and multiplications on both sides
    def.outputs = waveOutputs;
    def.createCpu = [](const GridSize& grid) -> std::unique_ptr<CpuSimulation> {
        return std::make_unique<CpuWave>(grid);
    };
#ifdef __CUDACC__
    def.createCuda = [](const GridSize& grid) -> std::unique_ptr<CudaSimulation> {
        return std::make_unique<CudaWave>(grid);
    };
#endif
    return def;
}

} // namespace estuary::sim
