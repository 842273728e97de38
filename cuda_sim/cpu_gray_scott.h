// CPU Gray-Scott simulation: the reference the CUDA backend is tested against, and the "--backend
// cpu" fallback where there is no CUDA. It owns two u/v buffer pairs (ping-pong) and runs the
// per-cell functions of stencil.h in plain loops; same seed and parameters give the same field as
// CudaGrayScott. No CUDA headers.
#pragma once

#include "gray_scott.h"

#include <cstdint>
#include <vector>

namespace estuary::sim {

class CpuGrayScott {
  public:
    // Throws std::invalid_argument when width or height < 1.
    CpuGrayScott(int width, int height, uint64_t seed);

    void reset(uint64_t seed);
    // Replaces the state (tests, loading); throws std::invalid_argument unless both hold
    // width * height values.
    void setField(const std::vector<float>& u, const std::vector<float>& v);
    // `steps` >= 0 explicit Euler steps on the periodic grid.
    void step(const GrayScottParams& params, int steps);
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

// Writes level 0 = `v` and every further level (downsampleTexel of the previous level) for a full
// or partial mip chain: 1 <= levelCount <= fullMipChainLength(width, height), else
// std::invalid_argument. levelOut[i] points at level i's destination, tightly packed rows of
// mipLevelSize(width, i) x mipLevelSize(height, i) floats.
void writeFieldMipChain(const float* v, int width, int height, int levelCount,
                        float* const* levelOut);

} // namespace estuary::sim
