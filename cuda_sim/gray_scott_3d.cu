// "gray-scott-3d": Gray-Scott reaction-diffusion in a periodic volume (gray_scott_3d.h has the
// math). This one file is the whole simulation beside gray_scott_3d.h: its output (v as a 3D image
// with its 3D mip chain), the CPU reference, the CUDA implementation and the definition
// app/simulations.cpp lists.
//
// Built with -fmad=false and -ffp-contract=off (cuda_sim/CMakeLists.txt), so CPU and GPU round
// every operation alike. Without nvcc this file compiles as C++ and only the CPU half exists.
#include "gray_scott_3d.h"
#include "errors.h"

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef __CUDACC__
#include "cuda_check.h"
#include "gray_scott_3d_cuda.h"
#include "gray_scott_3d_kernels.cuh"
#endif

namespace estuary::sim {
namespace {

// One output: v, R32 float, a W x H x D image with its full 3D mip chain.
OutputLayout grayScott3dOutputs(const GridSize& grid) {
    OutputLayout layout;
    layout.images.push_back({"v", grid.width, grid.height, grid.depth, TexelFormat::R32Float, 0});
    return layout;
}

void checkGrid(const GridSize& grid) {
    if (grid.width < 4 || grid.height < 4 || grid.depth < 4)
        throw usageError("gray-scott-3d needs a 3D grid (--size WxHxD) of at least 4x4x4, got " +
                         std::to_string(grid.width) + "x" + std::to_string(grid.height) + "x" +
                         std::to_string(grid.depth));
}

size_t cellCount(const GridSize& grid) {
    return size_t(grid.width) * size_t(grid.height) * size_t(grid.depth);
}

// HostImageTarget or DeviceImageTarget: one image, every level.
template <class ImageTarget>
void checkTargets(std::span<const ImageTarget> images, const ImageOutput& image) {
    if (images.size() != 1 || images[0].levels.size() != levelCount(image))
        throw std::invalid_argument("gray-scott-3d writeOutputs: expected one image with " +
                                    std::to_string(levelCount(image)) + " levels");
}

// ---- CPU reference ------------------------------------------------------------------------------

class CpuGrayScott3d final : public CpuSimulation {
  public:
    explicit CpuGrayScott3d(const GridSize& grid)
        : w_(int(grid.width)), h_(int(grid.height)), d_(int(grid.depth)) {
        checkGrid(grid);
        for (std::vector<float>* field : {&u_, &v_, &uNext_, &vNext_})
            field->resize(cellCount(grid));
    }

    void reset(uint64_t seed) override {
        forEachCell([&](int x, int y, int z, size_t i) {
            seedCell3d(seed, x, y, z, w_, h_, d_, u_[i], v_[i]);
        });
    }

    SlabFields slabFields() override { return {{u_.data(), v_.data()}, {1}}; }
    void resetAsPart(uint64_t seed, const GridSize& whole, uint32_t firstSlice) override {
        forEachCell([&](int x, int y, int z, size_t i) {
            const int wholeZ = int((uint64_t(firstSlice) + uint64_t(z)) % whole.depth);
            seedCell3d(seed, x, y, wholeZ, w_, h_, int(whole.depth), u_[i], v_[i]);
        });
    }

    void step(const ParamValues& params, int steps) override {
        const GrayScottParams p = grayScott3dParams(params);
        for (int n = 0; n < steps; ++n) {
            forEachCell([&](int x, int y, int z, size_t i) {
                grayScott3dCell(u_.data(), v_.data(), w_, h_, d_, x, y, z, p, uNext_[i], vNext_[i]);
            });
            u_.swap(uNext_);
            v_.swap(vNext_);
        }
    }

    void writeOutputs(const HostTargets& targets) override {
        const ImageOutput image =
            grayScott3dOutputs({uint32_t(w_), uint32_t(h_), uint32_t(d_)}).images[0];
        checkTargets(targets.images, image);
        std::memcpy(targets.images[0].levels[0], v_.data(), v_.size() * sizeof(float));
        writeMipChain(image, targets.images[0]);
    }

  private:
    template <class Body> void forEachCell(const Body& body) {
        for (int z = 0; z < d_; ++z)
            for (int y = 0; y < h_; ++y)
                for (int x = 0; x < w_; ++x)
                    body(x, y, z, cellIndex3d(x, y, z, w_, h_));
    }

    int w_, h_, d_;
    std::vector<float> u_, v_;         // current state
    std::vector<float> uNext_, vNext_; // written by step, then swapped in
};

// ---- CUDA ---------------------------------------------------------------------------------------
#ifdef __CUDACC__

class CudaGrayScott3d final : public CudaSimulation {
  public:
    CudaGrayScott3d(const GridSize& grid, const StepTiling3d& tiling)
        : w_(int(grid.width)), h_(int(grid.height)), d_(int(grid.depth)), tiling_(tiling) {
        checkGrid(grid);
        checkStepTiling3d(tiling);
        allowTemporal3dSharedMemory();
        const size_t cells = cellCount(grid);
        CUDA_CHECK(cudaMalloc(&allocation_, 4 * cells * sizeof(float)));
        for (int i = 0; i < 2; ++i) {
            u_[i] = allocation_ + size_t(i) * cells;
            v_[i] = allocation_ + size_t(2 + i) * cells;
        }
    }
    ~CudaGrayScott3d() override { (void)cudaFree(allocation_); }
    CudaGrayScott3d(const CudaGrayScott3d&) = delete;
    CudaGrayScott3d& operator=(const CudaGrayScott3d&) = delete;

    void reset(uint64_t seed, cudaStream_t stream) override {
        resetAsPart(seed, {uint32_t(w_), uint32_t(h_), uint32_t(d_)}, 0, stream);
    }

    SlabFields slabFields() override { return {{u_[current_], v_[current_]}, {1}}; }
    void resetAsPart(uint64_t seed, const GridSize& whole, uint32_t firstSlice,
                     cudaStream_t stream) override {
        current_ = 0;
        launchSeed3d(u_[0], v_[0], w_, h_, d_, seed, int(firstSlice), int(whole.depth), stream);
    }

    void step(const ParamValues& params, int steps, cudaStream_t stream) override {
        current_ = launchSteps3d(tiling_, u_, v_, current_, w_, h_, d_, grayScott3dParams(params),
                                 steps, stream);
    }

    void writeOutputs(const DeviceTargets& targets, cudaStream_t stream) override {
        const ImageOutput image =
            grayScott3dOutputs({uint32_t(w_), uint32_t(h_), uint32_t(d_)}).images[0];
        checkTargets(targets.images, image);
        const std::span<const cudaSurfaceObject_t> levels = targets.images[0].levels;
        launchFieldLevels3d(v_[current_], w_, h_, d_, levels.data(), int(levels.size()), stream);
    }

    // Which buffer is current: all that step() and writeOutputs() read besides their arguments.
    std::optional<uint64_t> replayState() const override { return uint64_t(current_); }

  private:
    int w_, h_, d_;
    StepTiling3d tiling_;
    float* allocation_ = nullptr; // one cudaMalloc holding the four fields below
    float* u_[2] = {};
    float* v_[2] = {};
    int current_ = 0; // u_[current_], v_[current_] hold the state
};

#endif // __CUDACC__
} // namespace

#ifdef __CUDACC__
std::unique_ptr<CudaSimulation> createCudaGrayScott3d(const GridSize& grid,
                                                      std::optional<StepTiling3d> tiling) {
    if (!tiling) {
        int device = 0, smCount = 0;
        CUDA_CHECK(cudaGetDevice(&device));
        CUDA_CHECK(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, device));
        tiling = chooseStepTiling3d(int(grid.width), int(grid.height), int(grid.depth), smCount);
    }
    return std::make_unique<CudaGrayScott3d>(grid, *tiling);
}
#endif

SimDefinition grayScott3dSimulation() {
    SimDefinition def;
    def.name = "gray-scott-3d";
    def.description = "Gray-Scott reaction-diffusion in a periodic volume: worms, spots and coral";
    def.dimensions = 3;
    // Diffusion alone is stable for D dt < 1/6. The reaction damps u by another (v^2 + F) dt per
    // step, which lowers u's limit (its checkerboard mode flips once 1 - 12 Du - v^2 - F < -1
    // where v is large): at 48^3 every preset is stable at Du = 0.15 and three of five flood v
    // to 1 at 0.155 (measured), so the table stops at 0.14.
    def.params = {
        {"F", "feed rate of u", 0.058f, 0.0f, 0.1f},
        {"k", "kill rate of v", 0.065f, 0.0f, 0.1f},
        {"Du", "diffusion rate of u", 0.12f, 0.0f, 0.14f},
        {"Dv", "diffusion rate of v", 0.06f, 0.0f, 0.14f},
        {"dt", "time step", 1.0f, 0.05f, 1.0f},
    };
    // Each checked from seedCell3d's field at 48^3 for 3200 steps (CPU): the fraction of cells
    // with v > 0.1 after 400 / 3200 steps, and what the connected regions of v > 0.2 look like.
    const auto preset = [](const char* name, const char* help, float F, float k) {
        return Preset{name, help, {{"F", F}, {"k", k}, {"Du", 0.12f}, {"Dv", 0.06f}, {"dt", 1.0f}}};
    };
    def.presets = {
        // 9% -> 35%, ~10 regions that keep lengthening
        preset("worms", "tubes that grow, bend and branch", 0.058f, 0.065f),
        // 6% -> 23%, 14 -> 50 regions
        preset("spots", "balls that divide until they fill the volume", 0.035f, 0.068f),
        // 40% -> 71%, one region
        preset("coral", "sheets that fold through the whole volume", 0.0545f, 0.062f),
        // 62% -> 66%, one region
        preset("maze", "a still labyrinth of thick walls", 0.029f, 0.057f),
        // 16% -> 22%, regions that keep breaking up and merging
        preset("waves", "fronts that keep travelling and breaking up", 0.018f, 0.047f),
    };
    def.brush = {}; // none: a stroke on the screen names no depth
    // Of the cells with v > 0.05 after 2400 steps at 48^3, v < 0.4 holds 87% (worms) to 100%
    // (maze) depending on the preset.
    def.views = {{0, Shading::Colormap, 0.0f, 0.4f, "v", "volume.frag", "volume"},
                 {0, Shading::Colormap, 0.0f, 0.4f, "v", "volume_slice.frag", "slice"}};
    def.stepsPerFrame = 8;
    // u and v read once (the six neighbours' reads hit L1/L2) and written once: 4 floats.
    def.bytesPerCellStep = 16.0;
    def.stateBytesPerCell = 4 * sizeof(float); // u and v, twice (ping-pong)
    def.splittable = true;
    def.cudaTolerance = 0.0f; // the same additions and multiplications on both sides
    def.outputs = grayScott3dOutputs;
    def.createCpu = [](const GridSize& grid) -> std::unique_ptr<CpuSimulation> {
        return std::make_unique<CpuGrayScott3d>(grid);
    };
#ifdef __CUDACC__
    def.createCuda = [](const GridSize& grid) -> std::unique_ptr<CudaSimulation> {
        return createCudaGrayScott3d(grid);
    };
#endif
    return def;
}

} // namespace estuary::sim
