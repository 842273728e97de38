// Gray-Scott reaction-diffusion: its plain parameter struct (what the kernels take), the mapping
// from the generic parameter table to it, and its definition for the registry. No CUDA headers,
// no behaviour: the math lives in stencil.h, the CPU reference in cpu_gray_scott.h and the CUDA
// simulation in cuda_gray_scott.h.
#pragma once

#include "simulation.h"

namespace estuary::sim {

// One explicit Euler step per iteration on a unit-spaced grid; dt = 1 is stable for Du <= 1 with
// the 9-point Laplacian of stencil.h.
struct GrayScottParams {
    float F = 0.055f; // feed rate of u
    float k = 0.062f; // kill rate of v
    float Du = 1.0f;  // diffusion of u
    float Dv = 0.5f;  // diffusion of v
    float dt = 1.0f;  // time step
};

// The parameter table's order (SimDefinition::params of grayScottSimulation()).
enum GrayScottParam { kParamF, kParamK, kParamDu, kParamDv, kParamDt, kGrayScottParamCount };
GrayScottParams grayScottParams(const ParamValues& values);

// DRAM bytes per cell per simulation step, the roofline's denominator: u and v read once (4 + 4
// bytes; the 8 neighbours' reads hit L1/L2 because adjacent blocks share rows) and written once
// (4 + 4 bytes).
inline constexpr double kBytesPerCellStep = 16.0;

// The one output image of a w x h Gray-Scott grid: v, R32 float, full mip chain.
OutputLayout grayScottOutputs(const GridSize& grid);

// "gray-scott": parameters F, k, Du, Dv, dt; presets from the Pearson / Munafo map; the brush
// paints v (left) and erases (right); the picture is v through a colormap.
SimDefinition grayScottSimulation();

} // namespace estuary::sim
