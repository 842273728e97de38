// "wave": the damped 2D wave equation u_tt = c^2 lap(u) - damping u_t on a periodic grid, driven
// by point sources that oscillate while they orbit the centre of the grid. This header is the
// math both implementations in wave.cu share: the per-cell update (host and device), and the
// per-step source positions and values, computed once on the host for both so that the CPU
// reference and the CUDA kernels see the same numbers and agree bit for bit.
//
// Discretization (unit grid spacing and time step), leapfrog in time, 5-point Laplacian:
//   next = u + (1 - damping) (u - previous) + c^2 lap(u), then blended towards each source,
// stable for c <= 1/sqrt(2) (the CFL limit of this stencil in 2D). Only additions and
// multiplications reach the cells, and wave.cu builds without FMA contraction on both sides.
#pragma once

#include "mip_chain.h" // ESTUARY_HD
#include "simulation.h"

#include <cmath>
#include <cstdint>
#include <random>

namespace estuary::sim {

// The parameter table's order (waveSimulation()'s params).
enum WaveParam {
    kWaveSpeed,     // Courant number c = speed * dt / dx
    kWaveDamping,   // fraction of the velocity lost per step
    kWaveSources,   // how many sources orbit
    kWaveFrequency, // source oscillation, radians per step
    kWaveAmplitude, // how far a source moves the surface up and down
    kWaveOrbit,     // orbit speed, radians per step
    kWaveParamCount
};

inline constexpr int kWaveMaxSources = 4;
inline constexpr float kWaveSourceRadius = 3.0f; // cells

// A source is a paddle: within its radius it holds the surface at its own height, blended with
// the free surface by the bump weight (1 at the centre, 0 at the radius). Moving the surface
// rather than adding to it keeps the grid's mean height (a free mode of the periodic wave
// equation) from drifting.
struct WaveSource {
    float x = 0, y = 0; // cell coordinates in [0, w) x [0, h)
    float height = 0;   // amplitude * sin(phase) this step
};

// Everything one step needs besides the two fields: plain data, passed to kernels by value.
struct WaveStep {
    float courant2 = 0;   // c^2
    float keep = 1;       // 1 - damping
    float invRadius2 = 0; // 1 / radius^2 of a source or a drop
    int sourceCount = 0;
    WaveSource sources[kWaveMaxSources];
};

// Distance along a periodic axis of n cells between c and s, both in [0, n).
ESTUARY_HD inline float waveAxisDistance(float c, float s, int n) {
    const float d = c < s ? s - c : c - s;
    const float around = static_cast<float>(n) - d;
    return d < around ? d : around;
}

// A smooth bump of height 1 at distance^2 0 and 0 at radius^2: (1 - d^2/r^2)^2 inside, 0 outside.
ESTUARY_HD inline float waveBump(float distance2, float invRadius2) {
    const float f = 1.0f - distance2 * invRadius2;
    return f > 0.0f ? f * f : 0.0f;
}

ESTUARY_HD inline float waveBumpAt(float x, float y, float cx, float cy, int w, int h,
                                   float invRadius2) {
    const float dx = waveAxisDistance(x, cx, w);
    const float dy = waveAxisDistance(y, cy, h);
    return waveBump(dx * dx + dy * dy, invRadius2);
}

// The new height of cell (x, y) from the current field u and the previous one, both w x h
// row-major and periodic.
ESTUARY_HD inline float waveCell(const float* u, const float* previous, int w, int h, int x, int y,
                                 const WaveStep& s) {
    const int xm = x == 0 ? w - 1 : x - 1;
    const int xp = x == w - 1 ? 0 : x + 1;
    const size_t at = static_cast<size_t>(y) * static_cast<size_t>(w);
    const size_t above = static_cast<size_t>(y == 0 ? h - 1 : y - 1) * static_cast<size_t>(w);
    const size_t below = static_cast<size_t>(y == h - 1 ? 0 : y + 1) * static_cast<size_t>(w);
    const float c = u[at + x];
    const float laplacian = ((u[above + x] + u[below + x]) + (u[at + xm] + u[at + xp])) - 4.0f * c;
    float next = c + s.keep * (c - previous[at + x]) + s.courant2 * laplacian;
    for (int i = 0; i < s.sourceCount; ++i) {
        const float weight = waveBumpAt(static_cast<float>(x), static_cast<float>(y),
                                        s.sources[i].x, s.sources[i].y, w, h, s.invRadius2);
        next = next + weight * (s.sources[i].height - next);
    }
    return next;
}

// ---- host side, shared by both implementations -------------------------------------------------

// The sources' clock: their phases advance by the current frequency and orbit speed each step, so
// changing either mid-run bends the motion without a jump. Seeded: each source gets its own start
// angle and phase.
struct WaveClock {
    static constexpr double kPi = 3.14159265358979323846;
    double phase[kWaveMaxSources] = {};
    double angle[kWaveMaxSources] = {};

    void reset(uint64_t seed) {
        std::mt19937_64 random(seed); // fully specified by the standard: the same on every host
        for (int i = 0; i < kWaveMaxSources; ++i) {
            phase[i] = double(random() % 6283) / 1000.0;
            angle[i] = 2.0 * kPi * i / kWaveMaxSources + double(random() % 1000) / 3000.0;
        }
    }

    // This step's WaveStep; then advances the clock by one step.
    WaveStep next(const ParamValues& p, int w, int h) {
        WaveStep s;
        const float speed = p[kWaveSpeed];
        s.courant2 = speed * speed;
        s.keep = 1.0f - p[kWaveDamping];
        s.invRadius2 = 1.0f / (kWaveSourceRadius * kWaveSourceRadius);
        // The table limits sources to kWaveMaxSources; the arrays must not trust that alone.
        const int sources = int(p[kWaveSources]);
        s.sourceCount = sources < 0 ? 0 : (sources > kWaveMaxSources ? kWaveMaxSources : sources);
        const double radius = 0.3 * double(w < h ? w : h);
        for (int i = 0; i < s.sourceCount; ++i) {
            const double x = 0.5 * w + radius * std::cos(angle[i]);
            const double y = 0.5 * h + radius * std::sin(angle[i]);
            // The orbit's radius is 0.3 of the smaller side: the centre never leaves the grid.
            s.sources[i].x = float(x);
            s.sources[i].y = float(y);
            s.sources[i].height = float(double(p[kWaveAmplitude]) * std::sin(phase[i]));
        }
        // Kept within one turn, so a long run loses no precision in sin/cos.
        for (int i = 0; i < kWaveMaxSources; ++i) {
            phase[i] = std::remainder(phase[i] + double(p[kWaveFrequency]), 2.0 * kPi);
            angle[i] = std::remainder(angle[i] + double(p[kWaveOrbit]), 2.0 * kPi);
        }
        return s;
    }
};

// Bumps of height 1 (or `height`) at a few places: the seeded initial drops and brush strokes.
struct WaveDrops {
    int count = 0;
    float x[kWaveMaxSources] = {}, y[kWaveMaxSources] = {};
    float invRadius2[kWaveMaxSources] = {};
};

// Sum of the drops' bumps at cell (x, y).
ESTUARY_HD inline float waveDropsAt(const WaveDrops& d, int x, int y, int w, int h) {
    float sum = 0.0f;
    for (int i = 0; i < d.count; ++i)
        sum += waveBumpAt(static_cast<float>(x), static_cast<float>(y), d.x[i], d.y[i], w, h,
                          d.invRadius2[i]);
    return sum;
}

// The initial field for `seed`: three drops at seeded places and sizes, at rest
// (previous = current).
inline WaveDrops waveSeedDrops(uint64_t seed, int w, int h) {
    std::mt19937_64 random(seed ^ 0x5EEDull);
    WaveDrops d;
    d.count = 3;
    for (int i = 0; i < d.count; ++i) {
        d.x[i] = float(random() % uint64_t(w));
        d.y[i] = float(random() % uint64_t(h));
        const float radius = 4.0f + float(random() % 5);
        d.invRadius2[i] = 1.0f / (radius * radius);
    }
    return d;
}

// One brush dab as a drop, its centre wrapped into [0, w) x [0, h) on the host (fmod once here, so
// no cell evaluates it).
inline WaveDrops waveBrushDrop(const Brush& brush, int w, int h) {
    const auto wrap = [](float c, int n) {
        float r = std::fmod(c, float(n));
        if (r < 0.0f) r += float(n);
        return r < float(n) ? r : 0.0f;
    };
    WaveDrops d;
    d.count = 1;
    d.x[0] = wrap(brush.x, w);
    d.y[0] = wrap(brush.y, h);
    const float radius = brush.radius > 0.5f ? brush.radius : 0.5f;
    d.invRadius2[0] = 1.0f / (radius * radius);
    return d;
}

// A brush dab on one cell, given the dab's bump there: the primary button drops water (a bump of
// height 1 on both fields, released at rest), the secondary calms (both fields scaled towards 0).
ESTUARY_HD inline void waveBrushCell(float bump, bool calm, float& u, float& previous) {
    if (calm) {
        const float keep = 1.0f - (bump < 1.0f ? bump : 1.0f);
        u *= keep;
        previous *= keep;
    } else {
        u += bump;
        previous += bump;
    }
}

} // namespace estuary::sim
