// CUDA Gray-Scott simulation: owns the device u/v ping-pong buffers of one W x H periodic grid and
// enqueues seeding, stepping, painting and the output (v and its mip chain, through surfaces) on
// the stream each call is given. Every call but download() only enqueues: no host sync, no
// allocation after construction. Computes exactly what CpuGrayScott computes (stencil.h), bit for
// bit. The app reaches it through CudaSimulation; interop/ supplies the surfaces of
// Vulkan-exported images.
#pragma once

#include "cuda_simulation.h"
#include "gray_scott.h"
#include "gray_scott_tiling.h"

#include <cstdint>
#include <vector>

namespace estuary::sim {

class CudaGrayScott final : public CudaSimulation {
  public:
    // Allocates the state (unseeded: reset before stepping). Throws std::invalid_argument when
    // width or height < 1, estuary::Error on CUDA errors (exit 3 when out of memory).
    CudaGrayScott(int width, int height);
    // Allocates and enqueues reset(seed) on `stream`.
    CudaGrayScott(int width, int height, uint64_t seed, cudaStream_t stream);
    ~CudaGrayScott() override;
    CudaGrayScott(const CudaGrayScott&) = delete;
    CudaGrayScott& operator=(const CudaGrayScott&) = delete;

    void reset(uint64_t seed, cudaStream_t stream) override;
    void step(const ParamValues& params, int steps, cudaStream_t stream) override;
    // v into level 0 and the first levels below it in one launch, then the rest of the mip chain
    // (writeMipChain). One image, R32 float.
    void writeOutputs(const DeviceTargets& targets, cudaStream_t stream) override;
    void brush(const Brush& brush, const ParamValues& params, cudaStream_t stream) override;
    SlabFields slabFields() override { return {{u_[current_], v_[current_]}, {1}}; }
    void resetAsPart(uint64_t seed, const GridSize& whole, uint32_t firstRow,
                     cudaStream_t stream) override;
    // The current buffer and the tiling: all that step() and writeOutputs() read besides their
    // arguments.
    std::optional<uint64_t> replayState() const override {
        return uint64_t(current_) | uint64_t(tiling_.stepsPerPass) << 8 |
               uint64_t(tiling_.threads) << 16 | uint64_t(tiling_.rowsPerChunk) << 32;
    }

    void step(const GrayScottParams& params, int steps, cudaStream_t stream); // steps >= 0
    void paint(const Brush& brush, cudaStream_t stream);
    // Synchronous (waits for the stream); for tests.
    void download(std::vector<float>& u, std::vector<float>& v, cudaStream_t stream);

    int width() const { return width_; }
    int height() const { return height_; }
    const StepTiling& tiling() const { return tiling_; }
    // Replaces chooseStepTiling's choice (tests, tuning); throws std::invalid_argument unless
    // 1 <= stepsPerPass <= kMaxStepsPerPass, 2 * stepsPerPass < threads <= kMaxPassThreads and
    // rowsPerChunk >= 1.
    void setTiling(const StepTiling& tiling);

  private:
    int width_;
    int height_;
    float* allocation_ = nullptr; // one cudaMalloc holding the four fields below
    float* u_[2] = {};
    float* v_[2] = {};
    int current_ = 0;   // u_[current_], v_[current_] hold the state
    StepTiling tiling_; // chooseStepTiling for this grid and the current device's SM count
};

} // namespace estuary::sim
