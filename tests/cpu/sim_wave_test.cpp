// The wave simulation against the physics it discretizes: its stencil against the exact discrete
// solution of a standing wave, and its CPU reference (through the generic interface, as the
// backends use it) against the conservation laws of the leapfrog scheme. The bounds are derived
// from float rounding, stated where used.
#include "simulations.h"
#include "wave.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

namespace estuary::sim {
namespace {

const SimDefinition& wave() {
    return *estuary::findSimulation("wave");
}

ParamValues waveParams(float speed, float damping, float sources) {
    ParamValues p = initialParams(wave());
    p[kWaveSpeed] = speed;
    p[kWaveDamping] = damping;
    p[kWaveSources] = sources;
    return p;
}

// Steps the CPU reference one step at a time and returns the height field after each: u^0 (after
// reset) .. u^steps.
std::vector<std::vector<float>> heights(const GridSize& grid, const ParamValues& params, int steps,
                                        uint64_t seed = 4) {
    const auto sim = wave().createCpu(grid);
    sim->reset(seed);
    std::vector<std::vector<float>> out;
    for (int n = 0; n <= steps; ++n) {
        if (n > 0) sim->step(params, 1);
        std::vector<float> level0(size_t(grid.width) * grid.height);
        std::vector<void*> levels{level0.data()};
        // Only level 0: the mip chain is tested elsewhere (SimMip, SimRegistry).
        const HostImageTarget image{levels};
        sim->writeOutputs({{&image, 1}, {}});
        out.push_back(std::move(level0));
    }
    return out;
}

// The periodic 5-point Laplacian, written out again here rather than taken from wave.h.
double laplacianDot(const std::vector<float>& a, const std::vector<float>& b, int w, int h) {
    double sum = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const auto at = [&](int i, int j) {
                return double(b[size_t((j + h) % h) * w + size_t((i + w) % w)]);
            };
            const double lap =
                at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1) - 4.0 * at(x, y);
            sum += double(a[size_t(y) * w + size_t(x)]) * lap;
        }
    return sum;
}

// The leapfrog scheme's conserved energy between steps n-1 and n:
//   E = ||u^n - u^(n-1)||^2 - c^2 <u^n, L u^(n-1)>,
// exactly constant for u^(n+1) = 2u^n - u^(n-1) + c^2 L u^n (L symmetric), so only float rounding
// moves it.
double energy(const std::vector<float>& now, const std::vector<float>& before, float c2, int w,
              int h) {
    double kinetic = 0;
    for (size_t i = 0; i < now.size(); ++i)
        kinetic += (double(now[i]) - before[i]) * (double(now[i]) - before[i]);
    return kinetic - double(c2) * laplacianDot(now, before, w, h);
}

TEST(SimWave, StencilFollowsTheExactDiscreteSolutionOfAStandingWave) {
    // u^n(x) = cos(n W) cos(k x) with cos W = 1 - 2 c^2 sin^2(k / 2) solves the scheme exactly on a
    // periodic row (a 1D mode of the 2D grid, constant in y). 400 steps of the real stencil
    // (waveCell, as both implementations run it) must follow it to float rounding: each step
    // adds about 1e-7 relative error, so 1e-4 is a generous bound; a wrong Laplacian weight or
    // time-stepping term drifts by O(1) within a few periods.
    const int w = 64, h = 4, mode = 3;
    const float c = 0.6f;
    const double k = 2.0 * M_PI * mode / w;
    const double omega = std::acos(1.0 - 2.0 * c * c * std::pow(std::sin(k / 2.0), 2));
    std::vector<float> previous(size_t(w) * h), u(previous.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            u[size_t(y) * w + x] = float(std::cos(k * x));
            previous[size_t(y) * w + x] = float(std::cos(-omega) * std::cos(k * x));
        }
    WaveStep step;
    step.courant2 = c * c;
    step.keep = 1.0f;
    double worst = 0;
    for (int n = 1; n <= 400; ++n) {
        std::vector<float> next(u.size());
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                next[size_t(y) * w + x] = waveCell(u.data(), previous.data(), w, h, x, y, step);
        previous.swap(u);
        u.swap(next);
        for (int x = 0; x < w; ++x)
            worst =
                std::max(worst, std::fabs(u[size_t(x)] - std::cos(n * omega) * std::cos(k * x)));
    }
    EXPECT_LT(worst, 1e-4) << "largest deviation from the exact discrete standing wave";
}

TEST(SimWave, ASourceHoldsTheSurfaceAtItsOwnHeightAtItsCentre) {
    // Whatever the neighbours do, the weight at a source's centre is 1: the surface there is the
    // source's height. Off centre the blend moves it only part of the way.
    const int w = 9, h = 9;
    std::vector<float> u(81), previous(81);
    for (size_t i = 0; i < u.size(); ++i) {
        u[i] = float(i % 7) * 0.1f;
        previous[i] = float(i % 5) * -0.1f;
    }
    WaveStep step;
    step.courant2 = 0.25f;
    step.keep = 0.99f;
    step.invRadius2 = 1.0f / 9.0f;
    step.sourceCount = 1;
    step.sources[0] = {4.0f, 4.0f, 0.375f};
    EXPECT_EQ(waveCell(u.data(), previous.data(), w, h, 4, 4, step), 0.375f);
    WaveStep free = step;
    free.sourceCount = 0;
    const float freeNext = waveCell(u.data(), previous.data(), w, h, 5, 4, free);
    const float blended = waveCell(u.data(), previous.data(), w, h, 5, 4, step);
    const float weight = (1.0f - 1.0f / 9.0f) * (1.0f - 1.0f / 9.0f); // 1 cell from the centre
    EXPECT_NEAR(blended, freeNext + weight * (0.375f - freeNext), 1e-6f);
}

TEST(SimWave, WithoutDampingOrSourcesTheLeapfrogEnergyIsConserved) {
    const GridSize grid{48, 40, 1};
    const float speed = 0.6f;
    const auto u = heights(grid, waveParams(speed, 0.0f, 0.0f), 600);
    const double start = energy(u[1], u[0], speed * speed, 48, 40);
    ASSERT_GT(start, 1.0) << "the seeded drops should carry energy";
    double worst = 0;
    for (size_t n = 2; n < u.size(); ++n)
        worst = std::max(worst, std::fabs(energy(u[n], u[n - 1], speed * speed, 48, 40) - start));
    // Float rounding of ~2000 cells per step over 600 steps: 1e-4 relative is far above it and far
    // below what a wrong stencil or a stale buffer does (O(1)).
    EXPECT_LT(worst / start, 1e-4) << "energy " << start << " drifted by " << worst;
}

TEST(SimWave, DampingOnlyEverTakesEnergyAway) {
    const GridSize grid{48, 40, 1};
    const float speed = 0.5f;
    const auto u = heights(grid, waveParams(speed, 0.01f, 0.0f), 400);
    const double start = energy(u[1], u[0], speed * speed, 48, 40);
    double previous = start;
    for (size_t n = 2; n < u.size(); ++n) {
        const double e = energy(u[n], u[n - 1], speed * speed, 48, 40);
        ASSERT_LE(e, previous * (1.0 + 1e-6)) << "energy rose at step " << n;
        previous = e;
    }
    // 1% of the velocity per step: after 400 steps the energy is a small fraction of the start.
    EXPECT_LT(previous, 0.2 * start);
}

TEST(SimWave, WithoutSourcesTheMeanHeightStaysWhereTheDropsPutIt) {
    // Summed over the periodic grid the Laplacian vanishes, so the mean height only moves with
    // the mean velocity, which starts at 0 (the drops are released at rest).
    const GridSize grid{40, 40, 1};
    const auto u = heights(grid, waveParams(0.5f, 0.003f, 0.0f), 300);
    const auto mean = [](const std::vector<float>& f) {
        return std::accumulate(f.begin(), f.end(), 0.0) / double(f.size());
    };
    const double start = mean(u[0]);
    ASSERT_GT(start, 1e-3);
    for (const auto& field : u)
        ASSERT_NEAR(mean(field), start, 1e-5 * std::max(1.0, start));
}

TEST(SimWave, DropRaisesTheSurfaceByOneAtItsCentreAndCalmFlattensIt) {
    const GridSize grid{40, 30, 1};
    const auto sim = wave().createCpu(grid);
    const ParamValues params = initialParams(wave());
    sim->reset(9);
    sim->step(params, 50);
    std::vector<float> before(40 * 30), after(40 * 30);
    auto read = [&](std::vector<float>& into) {
        std::vector<void*> levels{into.data()};
        const HostImageTarget image{levels};
        sim->writeOutputs({{&image, 1}, {}});
    };
    read(before);
    sim->brush(Brush{-3.0f, 31.0f, 4.0f, false}, params); // wraps to (37, 1)
    read(after);
    EXPECT_FLOAT_EQ(after[1 * 40 + 37] - before[1 * 40 + 37], 1.0f);
    sim->brush(Brush{37.0f, 1.0f, 4.0f, true}, params);
    read(after);
    EXPECT_EQ(after[1 * 40 + 37], 0.0f) << "calm did not flatten the centre";
}

} // namespace
} // namespace estuary::sim
