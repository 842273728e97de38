// Gray-Scott reaction-diffusion: the plain parameter data shared by the CPU and CUDA simulations,
// the app and the UI. No CUDA headers, no behaviour; the math lives in stencil.h.
#pragma once

namespace estuary::sim {

// One explicit Euler step per iteration on a unit-spaced grid; dt = 1 is stable for Du <= 1 with
// the 9-point Laplacian of stencil.h.
struct GrayScottParams {
    float F = 0.055f;      // feed rate of u
    float k = 0.062f;      // kill rate of v
    float Du = 1.0f;       // diffusion of u
    float Dv = 0.5f;       // diffusion of v
    float dt = 1.0f;       // time step
    int stepsPerFrame = 8; // simulation steps the app runs per rendered frame
};

struct Brush {
    float x = 0, y = 0; // cell coordinates (x right, y down); cell (i, j) sits at (i, j)
    float radius = 8;   // in cells; the brush wraps around the periodic edges
    bool erase = false; // erase: back to u = 1, v = 0; otherwise inject u = 0.25, v = 0.5
};

// Points of the Pearson / Munafo parameter map for Du = 1, Dv = 0.5, dt = 1 and the 9-point
// Laplacian (Karl Sims' formulation), each checked by running 6000+ steps from seedCell's field.
struct Preset {
    const char* name;
    float F;
    float k;
};

// DRAM bytes per cell per simulation step, the roofline's denominator: u and v read once (4 + 4
// bytes; the 8 neighbours' reads hit L1/L2 because adjacent blocks share rows) and written once
// (4 + 4 bytes).
inline constexpr double kBytesPerCellStep = 16.0;

inline constexpr Preset kPresets[] = {
    {"coral", 0.0545f, 0.062f},    // branching stripes that grow into coral
    {"mitosis", 0.0367f, 0.0649f}, // spots that grow and divide until they fill the grid
    {"spots", 0.03f, 0.062f},      // dense, still hexagonal spots
    {"maze", 0.029f, 0.057f},      // labyrinth of stripes
    {"waves", 0.018f, 0.047f},     // fronts that keep travelling and breaking up
};

} // namespace estuary::sim
