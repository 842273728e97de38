// A test-only simulation whose every output says how many steps it has taken, so a test can tell
// from what a draw sees which frame the outputs belong to: two images (an R32 float one, drawn,
// and an RG32 float one with two levels) and a buffer. It exercises what the shipped simulations
// do not: several images, formats other than R32, a partial mip chain and buffer outputs, through
// every backend. The CPU half is here; tests/gpu/counter_simulation.cu adds the CUDA half.
#pragma once

#include "simulation.h"

#include <cstdint>

namespace estuary::test {

inline constexpr uint32_t kCounterBufferWords = 64;

// After n steps: image "count" holds n in every texel of every level, image "pair" holds (n, -n),
// and buffer word i holds n * kCounterBufferWords + i.
sim::SimDefinition counterSimulation();
// The same, with createCuda set (GPU test binary only).
sim::SimDefinition counterSimulationWithCuda();

inline float counterImageValue(uint64_t steps) {
    return float(steps);
}
inline uint32_t counterBufferWord(uint64_t steps, uint32_t i) {
    return uint32_t(steps) * kCounterBufferWords + i;
}

} // namespace estuary::test
