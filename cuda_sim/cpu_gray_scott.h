// CPU Gray-Scott simulation: the reference the CUDA simulation is tested against, and what the
// CPU backend runs where there is no CUDA. It owns two u/v buffer pairs (ping-pong) and runs the
// per-cell functions of stencil.h in plain loops; same seed and parameters give the same field as
// CudaGrayScott, bit for bit. Its one output image is v with its mip chain. No CUDA headers.
#pragma once

#include "gray_scott.h"

#include <cstdint>
#include <vector>

namespace estuary::sim {

class CpuGrayScott final : public CpuSimulation {
  public:
    // Throws std::invalid_argument when width or height < 1.
    CpuGrayScott(int width, int height, uint64_t seed);

    void reset(uint64_t seed) override;
    void step(const ParamValues& params, int steps) override;
    void writeOutputs(const HostTargets& targets) override;
    void brush(const Brush& brush, const ParamValues& params) override;
    SlabFields slabFields() override { return {{u_.data(), v_.data()}, {1}}; }
    void resetAsPart(uint64_t seed, const GridSize& whole, uint32_t firstRow) override;

    // Replaces the state (tests, loading); throws std::invalid_argument unless both hold
    // width * height values.
    void setField(const std::vector<float>& u, const std::vector<float>& v);
    // `steps` >= 0 explicit Euler steps on the periodic grid.
    void step(const GrayScottParams& params, int steps);
    // Primary: paint v; secondary: erase (stencil.h's applyBrush).
    void paint(const Brush& brush);

    int width() const { return width_; }
    int height() const { return height_; }
    const std::vector<float>& u() const { return u_; }
    const std::vector<float>& v() const { return v_; }

  private:
    int width_;
    int height_;
    std::vector<float> u_, v_;         // current state
    std::vector<float> uNext_, vNext_; // written by step, then swapped in
};

} // namespace estuary::sim
