// "fluid": stable-fluids flow with jets, dye and particles (fluid.h has the math). This one file is
// the whole simulation beside fluid.h: its outputs, its parameter table and presets, the CPU
// reference, the CUDA implementation and the definition app/simulations.cpp lists.
//
// Built with -fmad=false and -ffp-contract=off (cuda_sim/CMakeLists.txt), so CPU and GPU round
// every operation alike. Without nvcc this file compiles as C++ and only the CPU half exists.
#include "fluid.h"
#include "fluid_multigrid.h"
#ifdef __CUDACC__
#include "fluid_kernels.cuh"
#include "fluid_multigrid_kernels.cuh"
#endif
#include "errors.h"
#include "half_float.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#ifdef __CUDACC__
#include "cuda_check.h"
#include "cuda_simulation.h"
#endif

namespace estuary::sim {
namespace {

// The views' ranges, measured on 256 x 256 at the initial parameters over steps 60-600: 99% of
// speeds lie below 0.7-0.8 cells per step, 98% of |curl| below 0.23-0.32 per step.
constexpr float kSpeedMax = 0.8f;
constexpr float kCurlMax = 0.3f;

// Image 0: velocity (RG32 float, cells per step); image 1: dye (RGBA16 float: rgb, and in alpha the
// dye's amount); both with full mip chains. Buffer 0: the particles, when the run carries any.
OutputLayout fluidOutputs(const GridSize& grid) {
    OutputLayout layout;
    layout.images.push_back({"velocity", grid.width, grid.height, 1, TexelFormat::RG32Float, 0});
    layout.images.push_back({"dye", grid.width, grid.height, 1, TexelFormat::RGBA16Float, 0});
    if (grid.particles > 0)
        layout.buffers.push_back({"particles", size_t(grid.particles) * sizeof(ParticleVertex)});
    return layout;
}

void checkGrid(const GridSize& grid) {
    // 8: the projection's distance-2 stencil and the jets' radius want a few cells each way.
    if (grid.width < 8 || grid.height < 8 || grid.depth != 1)
        throw usageError("fluid needs a 2D grid (--size) of at least 8x8, got " +
                         std::to_string(grid.width) + "x" + std::to_string(grid.height) +
                         (grid.depth != 1 ? "x" + std::to_string(grid.depth) : ""));
}

// ---- CPU reference ------------------------------------------------------------------------------

class CpuFluid final : public CpuSimulation {
  public:
    explicit CpuFluid(const GridSize& grid)
        : w_(int(grid.width)), h_(int(grid.height)), particleCount_(grid.particles) {
        checkGrid(grid);
        const size_t cells = size_t(w_) * size_t(h_);
        u_.resize(cells);
        uNext_.resize(cells);
        dye_.resize(cells);
        dyeNext_.resize(cells);
        pressure_.resize(cells);
        pressureNext_.resize(cells);
        scratch_.resize(cells);
        pool_.resize(hierarchy_.poolFloats);
        particles_.resize(particleCount_);
        ages_.resize(particleCount_);
    }

    void reset(uint64_t seed) override {
        clock_.reset(seed);
        seed32_ = fluidSeed32(seed);
        steps_ = 0;
        dabs_ = 0;
        const FluidSeed state = fluidSeedState(seed, w_, h_);
        std::fill(pressure_.begin(), pressure_.end(), 0.0f);
        forEachCell([&](int x, int y, size_t i) {
            u_[i] = {0.0f, 0.0f};
            dye_[i] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (int d = 0; d < state.count; ++d)
                fluidDabCell(state.dabs[d], x, y, w_, h_, u_[i], dye_[i]);
        });
        for (uint32_t i = 0; i < particleCount_; ++i) {
            particles_[i] = fluidSeedParticle(seed32_, i, 0u, w_, h_);
            ages_[i] = kFluidAgeUnset;
        }
    }

    void step(const ParamValues& params, int steps) override {
        const uint32_t active = activeParticles(particleCount_, params[kFluidParticleShare]);
        for (int n = 0; n < steps; ++n) {
            const FluidStep s = clock_.next(params, w_, h_);
            ++steps_;
            if (s.jetCount > 0)
                forEachCell([&](int x, int y, size_t i) {
                    fluidJetsCell(u_[i], dye_[i], x, y, w_, h_, s);
                });
            forEachCell([&](int x, int y, size_t i) {
                fluidAdvectCell(u_.data(), dye_.data(), w_, h_, x, y, s.keep, uNext_[i],
                                dyeNext_[i]);
            });
            dye_.swap(dyeNext_);
            forEachCell([&](int x, int y, size_t i) {
                scratch_[i] = fluidCurlCell(uNext_.data(), w_, h_, x, y);
            });
            forEachCell([&](int x, int y, size_t i) {
                u_[i] = fluidConfineCell(uNext_.data(), scratch_.data(), w_, h_, x, y, s.vorticity);
            });
            forEachCell([&](int x, int y, size_t i) {
                uNext_[i] = fluidViscosityCell(u_.data(), w_, h_, x, y, s.viscosity);
            });
            // Warm start: the pressure from the previous step is the guess (see fluid.h).
            if (s.cycles > 0 && hierarchy_.levels > 0)
                fluidMultigridProject(hierarchy_, uNext_.data(), u_.data(), scratch_.data(),
                                      pressure_.data(), pool_.data(), s.cycles);
            else if (fluidProject(uNext_.data(), u_.data(), scratch_.data(), pressure_.data(),
                                  pressureNext_.data(), w_, h_, s.iterations) != pressure_.data())
                pressure_.swap(pressureNext_);
            for (uint32_t i = 0; i < active; ++i)
                fluidParticleCell(u_.data(), w_, h_, seed32_, i, steps_, s.particleLife,
                                  particles_[i], ages_[i]);
        }
    }

    void writeOutputs(const HostTargets& targets) override {
        const OutputLayout layout = fluidOutputs({uint32_t(w_), uint32_t(h_), 1, particleCount_});
        std::memcpy(targets.images[0].levels[0], u_.data(), u_.size() * sizeof(FluidVelocity));
        auto* halves = static_cast<uint16_t*>(targets.images[1].levels[0]);
        for (size_t i = 0; i < dye_.size(); ++i) {
            halves[4 * i + 0] = floatToHalf(dye_[i].r);
            halves[4 * i + 1] = floatToHalf(dye_[i].g);
            halves[4 * i + 2] = floatToHalf(dye_[i].b);
            halves[4 * i + 3] = floatToHalf(dye_[i].a);
        }
        writeMipChain(layout.images[0], targets.images[0]);
        writeMipChain(layout.images[1], targets.images[1]);
        if (particleCount_ > 0)
            std::memcpy(targets.buffers[0], particles_.data(),
                        particles_.size() * sizeof(ParticleVertex));
    }

    void brush(const Brush& brush, const ParamValues&) override {
        const FluidDab dab = fluidBrushDab(brush, w_, h_, dabs_++);
        forEachCell(
            [&](int x, int y, size_t i) { fluidDabCell(dab, x, y, w_, h_, u_[i], dye_[i]); });
    }

  private:
    template <class Body> void forEachCell(const Body& body) {
        for (int y = 0; y < h_; ++y)
            for (int x = 0; x < w_; ++x)
                body(x, y, fluidIndex(x, y, w_));
    }

    int w_, h_;
    uint32_t particleCount_;
    FluidHierarchy hierarchy_ = fluidHierarchy(w_, h_);
    std::vector<float> pool_; // the multigrid's coarse levels
    std::vector<FluidVelocity> u_, uNext_;
    std::vector<FluidDye> dye_, dyeNext_;
    std::vector<float> pressure_, pressureNext_, scratch_; // scratch: the curl, then divergence
    std::vector<ParticleVertex> particles_;
    std::vector<uint32_t> ages_;
    FluidClock clock_;
    uint32_t seed32_ = 0, steps_ = 0, dabs_ = 0;
};

// ---- CUDA ---------------------------------------------------------------------------------------
#ifdef __CUDACC__

__global__ void fluidSeedKernel(FluidVelocity* u, FluidDye* dye, int w, int h, FluidSeed state) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    FluidVelocity c{0.0f, 0.0f};
    FluidDye d{0.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < state.count; ++i)
        fluidDabCell(state.dabs[i], x, y, w, h, c, d);
    u[fluidIndex(x, y, w)] = c;
    dye[fluidIndex(x, y, w)] = d;
}

__global__ void fluidSeedParticlesKernel(ParticleVertex* particles, uint32_t* ages, uint32_t count,
                                         uint32_t seed, int w, int h) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    particles[i] = fluidSeedParticle(seed, i, 0u, w, h);
    ages[i] = kFluidAgeUnset;
}

__global__ void fluidJetsKernel(FluidVelocity* u, FluidDye* dye, int w, int h, FluidStep s) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    const size_t i = fluidIndex(x, y, w);
    fluidJetsCell(u[i], dye[i], x, y, w, h, s);
}

__global__ void fluidAdvectKernel(const FluidVelocity* __restrict__ u,
                                  const FluidDye* __restrict__ dye, FluidVelocity* uOut,
                                  FluidDye* dyeOut, int w, int h, float keep) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    const size_t i = fluidIndex(x, y, w);
    fluidAdvectCell(u, dye, w, h, x, y, keep, uOut[i], dyeOut[i]);
}

__global__ void fluidCurlKernel(const FluidVelocity* __restrict__ u, float* curl, int w, int h) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    curl[fluidIndex(x, y, w)] = fluidCurlCell(u, w, h, x, y);
}

__global__ void fluidConfineKernel(const FluidVelocity* __restrict__ u,
                                   const float* __restrict__ curl, FluidVelocity* uOut, int w,
                                   int h, float strength) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    uOut[fluidIndex(x, y, w)] = fluidConfineCell(u, curl, w, h, x, y, strength);
}

__global__ void fluidViscosityKernel(const FluidVelocity* __restrict__ u, FluidVelocity* uOut,
                                     int w, int h, float viscosity) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    uOut[fluidIndex(x, y, w)] = fluidViscosityCell(u, w, h, x, y, viscosity);
}

// The divergence, and the first Jacobi sweep from the guess (fluidProject's first loop).
__global__ void fluidFirstSweepKernel(const FluidVelocity* __restrict__ u,
                                      const float* __restrict__ guess, float* divergence,
                                      float* pressure, int w, int h) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    const size_t i = fluidIndex(x, y, w);
    pressure[i] = fluidFirstSweepCell(u, guess, w, h, x, y, divergence[i]);
}

__global__ void fluidSubtractGradientKernel(const FluidVelocity* __restrict__ u,
                                            const float* __restrict__ pressure, FluidVelocity* uOut,
                                            int w, int h) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    uOut[fluidIndex(x, y, w)] = fluidSubtractGradientCell(u, pressure, w, h, x, y);
}

// One step of the first `active` particles from `from` into `to` (the same buffer, or another
// that then also receives the `count - active` particles that do not move).
__global__ void fluidParticlesKernel(const FluidVelocity* __restrict__ u,
                                     const ParticleVertex* from, ParticleVertex* to, uint32_t* ages,
                                     uint32_t count, uint32_t active, int w, int h, uint32_t seed,
                                     uint32_t step, int life) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    ParticleVertex p = from[i];
    if (i < active) {
        uint32_t age = ages[i];
        fluidParticleCell(u, w, h, seed, i, step, life, p, age);
        ages[i] = age;
    } else if (from == to) {
        return;
    }
    to[i] = p;
}

__global__ void fluidBrushKernel(FluidVelocity* u, FluidDye* dye, int w, int h, FluidDab dab) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    const size_t i = fluidIndex(x, y, w);
    fluidDabCell(dab, x, y, w, h, u[i], dye[i]);
}

__global__ void fluidOutputKernel(const FluidVelocity* __restrict__ u,
                                  const FluidDye* __restrict__ dye, int w, int h,
                                  cudaSurfaceObject_t velocity, cudaSurfaceObject_t dyeImage) {
    int x, y;
    if (!fluidThreadCell(w, h, x, y)) return;
    const size_t i = fluidIndex(x, y, w);
    surf2Dwrite(make_float2(u[i].x, u[i].y), velocity, x * int(sizeof(float2)), y);
    const FluidDye d = dye[i];
    surf2Dwrite(
        make_ushort4(floatToHalf(d.r), floatToHalf(d.g), floatToHalf(d.b), floatToHalf(d.a)),
        dyeImage, x * int(sizeof(ushort4)), y);
}

// The same passes as CpuFluid::step, one kernel each, in the same order on the same buffers.
class CudaFluid final : public CudaSimulation {
  public:
    explicit CudaFluid(const GridSize& grid)
        : w_(int(grid.width)), h_(int(grid.height)), particleCount_(grid.particles) {
        checkGrid(grid);
        const size_t cells = size_t(w_) * size_t(h_);
        try {
            CUDA_CHECK(cudaMalloc(&u_[0], 2 * cells * sizeof(FluidVelocity)));
            u_[1] = u_[0] + cells;
            CUDA_CHECK(cudaMalloc(&dye_[0], 2 * cells * sizeof(FluidDye)));
            dye_[1] = dye_[0] + cells;
            CUDA_CHECK(cudaMalloc(&pressure_[0], 3 * cells * sizeof(float)));
            pressure_[1] = pressure_[0] + cells;
            scratch_ = pressure_[1] + cells;
            // x and b of each coarse level, then a spare x for the launched ones (offset / 2).
            if (hierarchy_.levels > 0)
                CUDA_CHECK(cudaMalloc(&pool_, (hierarchy_.poolFloats + hierarchy_.poolFloats / 2) *
                                                  sizeof(float)));
            if (particleCount_ > 0) {
                CUDA_CHECK(cudaMalloc(&particles_, particleCount_ * sizeof(ParticleVertex)));
                CUDA_CHECK(cudaMalloc(&ages_, particleCount_ * sizeof(uint32_t)));
            }
        } catch (...) {
            release();
            throw;
        }
    }
    ~CudaFluid() override { release(); }
    CudaFluid(const CudaFluid&) = delete;
    CudaFluid& operator=(const CudaFluid&) = delete;

    void reset(uint64_t seed, cudaStream_t stream) override {
        clock_.reset(seed);
        seed32_ = fluidSeed32(seed);
        steps_ = 0;
        dabs_ = 0;
        dyeCurrent_ = 0;
        pressureCurrent_ = 0;
        particleState_ = particles_;
        pending_ = {};
        CUDA_CHECK(
            cudaMemsetAsync(pressure_[0], 0, size_t(w_) * size_t(h_) * sizeof(float), stream));
        fluidSeedKernel<<<grid(), block(), 0, stream>>>(u_[0], dye_[0], w_, h_,
                                                        fluidSeedState(seed, w_, h_));
        CUDA_CHECK(cudaGetLastError());
        if (particleCount_ > 0) {
            fluidSeedParticlesKernel<<<particleBlocks(particleCount_), kParticleThreads, 0,
                                       stream>>>(particles_, ages_, particleCount_, seed32_, w_,
                                                 h_);
            CUDA_CHECK(cudaGetLastError());
        }
    }

    void step(const ParamValues& params, int steps, cudaStream_t stream) override {
        flushParticles(stream);
        const uint32_t active = activeParticles(particleCount_, params[kFluidParticleShare]);
        for (int n = 0; n < steps; ++n) {
            const FluidStep s = clock_.next(params, w_, h_);
            ++steps_;
            FluidDye* dye = dye_[dyeCurrent_];
            FluidDye* dyeNext = dye_[1 - dyeCurrent_];
            if (s.jetCount > 0) {
                fluidJetsKernel<<<grid(), block(), 0, stream>>>(u_[0], dye, w_, h_, s);
                CUDA_CHECK(cudaGetLastError());
            }
            fluidAdvectKernel<<<grid(), block(), 0, stream>>>(u_[0], dye, u_[1], dyeNext, w_, h_,
                                                              s.keep);
            CUDA_CHECK(cudaGetLastError());
            dyeCurrent_ = 1 - dyeCurrent_;
            fluidCurlKernel<<<grid(), block(), 0, stream>>>(u_[1], scratch_, w_, h_);
            CUDA_CHECK(cudaGetLastError());
            fluidConfineKernel<<<grid(), block(), 0, stream>>>(u_[1], scratch_, u_[0], w_, h_,
                                                               s.vorticity);
            CUDA_CHECK(cudaGetLastError());
            fluidViscosityKernel<<<grid(), block(), 0, stream>>>(u_[0], u_[1], w_, h_, s.viscosity);
            CUDA_CHECK(cudaGetLastError());
            if (s.cycles > 0 && hierarchy_.levels > 0)
                projectMultigrid(s.cycles, stream);
            else
                project(s.iterations, stream);
            // The last step's particles wait for writeOutputs, which may advect them straight
            // into the exported buffer; u_[0] stays this step's velocity until the next step or
            // brush, which run them first.
            if (active > 0) pending_ = {true, steps_, s.particleLife, active};
            if (n + 1 < steps) flushParticles(stream);
        }
    }

    void writeOutputs(const DeviceTargets& targets, cudaStream_t stream) override {
        const OutputLayout layout = fluidOutputs({uint32_t(w_), uint32_t(h_), 1, particleCount_});
        fluidOutputKernel<<<grid(), block(), 0, stream>>>(u_[0], dye_[dyeCurrent_], w_, h_,
                                                          targets.images[0].levels[0],
                                                          targets.images[1].levels[0]);
        CUDA_CHECK(cudaGetLastError());
        writeMipChain(layout.images[0], targets.images[0], stream);
        writeMipChain(layout.images[1], targets.images[1], stream);
        if (particleCount_ > 0)
            writeParticles(static_cast<ParticleVertex*>(targets.buffers[0]), targets.buffersKept,
                           stream);
    }

    void brush(const Brush& brush, const ParamValues&, cudaStream_t stream) override {
        flushParticles(stream);
        fluidBrushKernel<<<grid(), block(), 0, stream>>>(u_[0], dye_[dyeCurrent_], w_, h_,
                                                         fluidBrushDab(brush, w_, h_, dabs_++));
        CUDA_CHECK(cudaGetLastError());
    }

  private:
    static constexpr uint32_t kParticleThreads = 256;

    // A particle step that step() left for writeOutputs: its step count, life and active share.
    struct PendingParticles {
        bool due = false;
        uint32_t step = 0;
        int life = 1;
        uint32_t active = 0;
    };

    void advectParticles(ParticleVertex* to, cudaStream_t stream) {
        const uint32_t threads = to == particleState_ ? pending_.active : particleCount_;
        fluidParticlesKernel<<<particleBlocks(threads), kParticleThreads, 0, stream>>>(
            u_[0], particleState_, to, ages_, particleCount_, pending_.active, w_, h_, seed32_,
            pending_.step, pending_.life);
        CUDA_CHECK(cudaGetLastError());
        particleState_ = to;
        pending_ = {};
    }

    // The pending step into the simulation's own buffer.
    void flushParticles(cudaStream_t stream) {
        if (pending_.due) advectParticles(particles_, stream);
    }

    // The particles into the output buffer: the pending step writes them there (and the state
    // then lives there) when the caller keeps the buffer until the next frame; else the state is
    // (brought) home into the simulation's own buffer and copied out.
    void writeParticles(ParticleVertex* target, bool kept, cudaStream_t stream) {
        if (pending_.due)
            advectParticles(kept ? target : particles_, stream);
        else if (!kept && particleState_ != particles_)
            copyParticles(particles_, stream);
        if (particleState_ != target) copyParticles(target, stream);
        if (!kept) particleState_ = particles_;
    }

    void copyParticles(ParticleVertex* to, cudaStream_t stream) {
        CUDA_CHECK(cudaMemcpyAsync(to, particleState_, particleCount_ * sizeof(ParticleVertex),
                                   cudaMemcpyDeviceToDevice, stream));
        particleState_ = to;
    }

    // fluidProject's passes from u_[1] into u_[0]: divergence with the first sweep from the last
    // step's pressure, sweeps 2..K, u -= G p.
    void project(int iterations, cudaStream_t stream) {
        fluidFirstSweepKernel<<<grid(), block(), 0, stream>>>(
            u_[1], pressure_[pressureCurrent_], scratch_, pressure_[1 - pressureCurrent_], w_, h_);
        CUDA_CHECK(cudaGetLastError());
        pressureCurrent_ = 1 - pressureCurrent_;
        const dim3 tiles{unsigned(w_ + kFluidSweepTileX - 1) / kFluidSweepTileX,
                         unsigned(h_ + kFluidSweepTileY - 1) / kFluidSweepTileY};
        for (int k = 1; k < iterations; k += kFluidSweepsPerLaunch) {
            const int sweeps = std::min(kFluidSweepsPerLaunch, iterations - k);
            fluidJacobiBlockKernel<<<tiles, fluidSweepThreads(), 0, stream>>>(
                pressure_[pressureCurrent_], scratch_, pressure_[1 - pressureCurrent_], w_, h_,
                sweeps);
            CUDA_CHECK(cudaGetLastError());
            pressureCurrent_ = 1 - pressureCurrent_;
        }
        fluidSubtractGradientKernel<<<grid(), block(), 0, stream>>>(
            u_[1], pressure_[pressureCurrent_], u_[0], w_, h_);
        CUDA_CHECK(cudaGetLastError());
    }

    // fluidMultigridProject's passes from u_[1] into u_[0]; the pressure ends in either buffer.
    void projectMultigrid(int cycles, cudaStream_t stream) {
        float* spare[kFluidMaxLevels] = {pressure_[1 - pressureCurrent_]};
        for (int l = 1; l < hierarchy_.levels; ++l)
            spare[l] = pool_ + hierarchy_.poolFloats + hierarchy_.offset[l] / 2;
        const float* pressure = fluidMultigridCycles(
            hierarchy_, fluidLevels(hierarchy_, pressure_[pressureCurrent_], scratch_, pool_),
            spare, u_[1], cycles, stream);
        if (pressure != pressure_[pressureCurrent_]) pressureCurrent_ = 1 - pressureCurrent_;
        fluidSubtractGradientKernel<<<grid(), block(), 0, stream>>>(u_[1], pressure, u_[0], w_, h_);
        CUDA_CHECK(cudaGetLastError());
    }

    void release() {
        (void)cudaFree(pool_);
        pool_ = nullptr;
        (void)cudaFree(u_[0]);
        (void)cudaFree(dye_[0]);
        (void)cudaFree(pressure_[0]);
        (void)cudaFree(particles_);
        (void)cudaFree(ages_);
        u_[0] = nullptr;
        dye_[0] = nullptr;
        pressure_[0] = nullptr;
        particles_ = nullptr;
        ages_ = nullptr;
    }

    dim3 block() const { return {32, 8}; }
    dim3 grid() const { return {unsigned(w_ + 31) / 32, unsigned(h_ + 7) / 8}; }
    static unsigned particleBlocks(uint32_t count) {
        return unsigned((count + kParticleThreads - 1) / kParticleThreads);
    }

    int w_, h_;
    uint32_t particleCount_;
    FluidHierarchy hierarchy_ = fluidHierarchy(w_, h_);
    float* pool_ = nullptr; // the multigrid's coarse levels
    // u_[0] holds the velocity between steps; u_[1] is a step's intermediate.
    FluidVelocity* u_[2] = {};
    FluidDye* dye_[2] = {};
    int dyeCurrent_ = 0;
    float* pressure_[2] = {};
    int pressureCurrent_ = 0;  // the last step's pressure: the next step's guess
    float* scratch_ = nullptr; // the curl, then the divergence
    ParticleVertex* particles_ = nullptr;
    uint32_t* ages_ = nullptr;
    // Where the particles are between calls: particles_, or the last output buffer when its
    // caller keeps it (DeviceTargets::buffersKept); and a step waiting for writeOutputs.
    const ParticleVertex* particleState_ = nullptr;
    PendingParticles pending_;
    FluidClock clock_;
    uint32_t seed32_ = 0, steps_ = 0, dabs_ = 0;
};

#endif // __CUDACC__
} // namespace

SimDefinition fluidSimulation() {
    SimDefinition def;
    def.name = "fluid";
    def.description = "incompressible flow (stable fluids): jets stir coloured dye and particles";
    def.params = {
        {"viscosity", "diffusion of velocity per step (explicit, stable up to 0.25)", 0.0f, 0.0f,
         0.2f},
        {"dissipation", "fraction of the dye lost per step", 0.001f, 0.0f, 0.05f},
        {"iterations", "Jacobi sweeps of the pressure solve per step (when v_cycles is 0)", 40.0f,
         1.0f, 200.0f, true},
        {"vorticity", "vorticity confinement: restores the swirls numerical diffusion blurs", 0.25f,
         0.0f, 1.0f},
        {"jets", "jets of dye orbiting the centre", 2.0f, 0.0f, 4.0f, true},
        {"force", "jet speed, cells per step", 0.6f, 0.0f, 2.0f},
        {"particle_size", "particle size in pixels", 1.5f, 1.0f, 8.0f},
        {"particle_share", "share of the particles moved and drawn", 1.0f, 0.0f, 1.0f},
        {"particle_life", "steps a particle lives before it is re-seeded", 600.0f, 10.0f, 5000.0f,
         true},
        {"v_cycles",
         "multigrid V-cycles of the pressure solve per step; 0: the Jacobi sweeps of iterations "
         "(also where the grid has no multigrid: sides not multiples of 4, or not halving to 32)",
         1.0f, 0.0f, 8.0f, true},
    };
    def.presets = {
        {"smoke",
         "two gentle jets, thin dye that fades",
         {{"jets", 2},
          {"force", 0.5f},
          {"vorticity", 0.2f},
          {"viscosity", 0.0f},
          {"dissipation", 0.003f}}},
        {"turbulence",
         "four fast jets and strong vorticity confinement",
         {{"jets", 4},
          {"force", 1.0f},
          {"vorticity", 0.5f},
          {"viscosity", 0.0f},
          {"dissipation", 0.001f}}},
        {"syrup",
         "thick, slow flow: high viscosity, no confinement",
         {{"jets", 2},
          {"force", 0.8f},
          {"vorticity", 0.0f},
          {"viscosity", 0.15f},
          {"dissipation", 0.0f}}},
        {"calm",
         "no jets: push and pour dye with the mouse",
         {{"jets", 0}, {"vorticity", 0.25f}, {"viscosity", 0.0f}, {"dissipation", 0.0f}}},
    };
    def.brush = {"push and pour dye", "spin"};
    def.views = {
        {1, Shading::Rgb, 0.0f, 1.0f, "dye", "field.frag", "dye"},
        {0, Shading::ColormapMagnitude, 0.0f, kSpeedMax, "speed", "field.frag", "speed"},
        {0, Shading::Colormap, -kCurlMax, kCurlMax, "curl", "fluid_vorticity.frag", "vorticity"},
    };
    def.points = {0, kSpeedMax, kFluidParticleSize, kFluidParticleShare};
    def.glyphs = {0, kSpeedMax, 16}; // the velocity image
    def.particles = {20000, 1000000, 1u << 25};
    def.stepsPerFrame = 1;
    // DRAM bytes per cell per step at the initial parameters (one V-cycle, 2 jets), each pass
    // reading its inputs and writing its outputs once (neighbour and bilinear reads hit the
    // caches): jets 48 (velocity 8 + dye 16, read and written), advection 48, curl 12,
    // confinement 20, viscosity 16, the V-cycle about 55 (fluid_multigrid.h), u -= G p 20. With
    // v_cycles 0 and 40 Jacobi sweeps: the first sweep with the divergence 20, 39 more 4 to a
    // launch, 12 each launch (120): 304.
    def.bytesPerCellStep = 220.0;
    // Velocity and dye twice (ping-pong), pressure twice, one scratch (curl, then divergence), the
    // multigrid's coarse levels (x, b and a spare x on a quarter, a sixteenth, ...: 1 float).
    def.stateBytesPerCell = 2 * 8 + 2 * 16 + 2 * 4 + 4 + 4;
    // A particle and its age read and written once a step; its two bilinear velocity reads hit
    // the L2 cache while the velocity field fits there (up to about 2048 x 2048) and are not
    // counted.
    def.bytesPerParticleStep = 2 * (sizeof(ParticleVertex) + sizeof(uint32_t));
    def.stateBytesPerParticle = sizeof(ParticleVertex) + sizeof(uint32_t);
    def.cudaTolerance = 0.0f; // the same + - * / and sqrt on both sides, in the same order
    def.outputs = fluidOutputs;
    def.createCpu = [](const GridSize& grid) -> std::unique_ptr<CpuSimulation> {
        return std::make_unique<CpuFluid>(grid);
    };
#ifdef __CUDACC__
    def.createCuda = [](const GridSize& grid) -> std::unique_ptr<CudaSimulation> {
        return std::make_unique<CudaFluid>(grid);
    };
#endif
    return def;
}

} // namespace estuary::sim
