// "fluid": 2D incompressible flow, stable-fluids style, on a periodic W x H grid (unit spacing,
// dt = 1 step), carrying coloured dye and massless particles. This header is the math both
// implementations in fluid.cu share: the per-cell and per-particle updates (host and device), the
// per-step jets and brush dabs computed once on the host, and fluidProject, the projection over
// plain arrays that the CPU reference runs and the tests call directly.
//
// One step: jets force the flow; semi-Lagrangian advection (bilinear, periodic, traced back by the
// midpoint rule) of velocity and dye; vorticity confinement; explicit viscosity; pressure
// projection; particles advected (RK2 midpoint) through the projected velocity. Only + - * /,
// sqrtf, floorf and integer hashing reach cells and particles, in one order on both sides, and
// fluid.cu builds without FMA contraction: the CPU reference and the CUDA kernels agree bit for
// bit. Anything transcendental (jet directions, colours) is computed on the host as plain data.
//
// Projection, consistent on the collocated grid: divergence D = div u and gradient G p by central
// differences, so div(G p) = L p, the "wide" Laplacian (p[x+2] + p[x-2] + p[y+2] + p[y-2] - 4p)
// / 4. L p = D is solved by K damped-Jacobi sweeps (omega = 2/3) from a guess p0; u -= G p. With M
// the average of the four distance-2 neighbours (L = M - I), a sweep is p' = p - w r, r = D - L p,
// so r' = (I + w L) r = M_w r, M_w = (1 - w) I + w M, and the divergence left after projection, D -
// div(G p_K) = D - L p_K, is exactly the residual r_K = M_w^K (D - L p0): M_w^K D from p0 = 0. On
// the Fourier mode (k, l) M_w is 1 - w (1 - mu), mu = (cos(4 pi k/W) + cos(4 pi l/H)) / 2; D has no
// component on the modes with mu = 1 (k in {0, W/2}, l in {0, H/2}: both central differences vanish
// there), so ||div after|| <= rho^K ||D - L p0||, rho the largest |1 - w (1 - mu)| over the other
// modes (sim_fluid_test.cpp checks it from p0 = 0 on even and odd grids). The simulation starts
// each step from the previous step's pressure (a warm start; 0 after reset). rho^K is close to 1
// for the longest waves (0.98 for K = 40 on 256 cells), so from p0 = 0 every step the divergence
// that advection makes each step piles up in them: measured, the dye total grew 65% in 300 steps on
// 256 x 256. Warm, the solve continues across steps: 4% lost instead. fluid_multigrid.h solves the
// same equation by V-cycles, which shrink every mode alike (the "v_cycles" parameter, the default
// where the grid allows it); the sweeps remain for the grids it cannot coarsen.
#pragma once

#include "mip_chain.h" // ESTUARY_HD
#include "simulation.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>

namespace estuary::sim {

SimDefinition fluidSimulation(); // fluid.cu; listed in app/simulations.cpp

// The parameter table's order (fluidSimulation()'s params).
enum FluidParam {
    kFluidViscosity,     // explicit diffusion of velocity per step (stable up to 0.25)
    kFluidDissipation,   // fraction of the dye lost per step
    kFluidIterations,    // damped-Jacobi sweeps of the pressure solve
    kFluidVorticity,     // vorticity confinement strength
    kFluidJets,          // how many jets force the flow
    kFluidForce,         // jet speed, cells per step
    kFluidParticleSize,  // point size in pixels (the renderer's)
    kFluidParticleShare, // share of the particles moved and drawn
    kFluidParticleLife,  // steps a particle lives before it is re-seeded
    kFluidCycles,        // multigrid V-cycles of the pressure solve; 0: the Jacobi sweeps
    kFluidParamCount
};

inline constexpr int kFluidMaxJets = 4;
// No velocity leaves a step faster than this (cells per step, per component), and no backtrace
// or particle moves further: far above anything the jets and brush drive, it keeps every value
// finite whatever the parameters (vorticity confinement at full strength can feed itself).
inline constexpr float kFluidMaxSpeed = 8.0f;
inline constexpr float kFluidBrushMaxSpeed = 2.0f; // a fast stroke pushes no faster than this
inline constexpr float kFluidSpin = 0.25f;         // secondary brush: vortex strength per dab
// An age no particle reaches: "not staggered yet" (reset does not know particle_life).
inline constexpr uint32_t kFluidAgeUnset = 0xffffffffu;

struct alignas(8) FluidVelocity {
    float x, y; // cells per step
};
// Dye: rgb and a, its amount (1 where freshly poured), all in [0, 1]. Written out as RGBA16 float.
struct alignas(16) FluidDye {
    float r, g, b, a;
};

// ---- grid access --------------------------------------------------------------------------------

// i in [-n, 2n) wrapped into [0, n).
ESTUARY_HD inline int fluidWrap(int i, int n) {
    return i < 0 ? i + n : (i >= n ? i - n : i);
}
ESTUARY_HD inline size_t fluidIndex(int x, int y, int w) {
    return static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x);
}
// v limited to [-kFluidMaxSpeed, kFluidMaxSpeed]; NaN becomes 0.
ESTUARY_HD inline float fluidClampSpeed(float v) {
    return v > kFluidMaxSpeed ? kFluidMaxSpeed
                              : (v < -kFluidMaxSpeed ? -kFluidMaxSpeed : (v == v ? v : 0.0f));
}
ESTUARY_HD inline bool fluidFinite(float v) {
    return v - v == 0.0f; // false for infinities and NaN
}

// Bilinear taps of a periodic grid at (px, py), which must lie within a few grid sizes of it.
struct FluidTaps {
    size_t i00, i10, i01, i11;
    float tx, ty;
};
ESTUARY_HD inline int fluidWrapAny(int i, int n) {
    const int r = i % n;
    return r < 0 ? r + n : r;
}
ESTUARY_HD inline FluidTaps fluidTaps(float px, float py, int w, int h) {
    const float fx = floorf(px), fy = floorf(py);
    const int x0 = fluidWrapAny(static_cast<int>(fx), w),
              y0 = fluidWrapAny(static_cast<int>(fy), h);
    const int x1 = x0 + 1 == w ? 0 : x0 + 1, y1 = y0 + 1 == h ? 0 : y0 + 1;
    return {fluidIndex(x0, y0, w),
            fluidIndex(x1, y0, w),
            fluidIndex(x0, y1, w),
            fluidIndex(x1, y1, w),
            px - fx,
            py - fy};
}

ESTUARY_HD inline float fluidLerp(float a, float b, float t) {
    return a + t * (b - a);
}
ESTUARY_HD inline FluidVelocity fluidLerp(const FluidVelocity& a, const FluidVelocity& b, float t) {
    return {fluidLerp(a.x, b.x, t), fluidLerp(a.y, b.y, t)};
}
ESTUARY_HD inline FluidDye fluidLerp(const FluidDye& a, const FluidDye& b, float t) {
    return {fluidLerp(a.r, b.r, t), fluidLerp(a.g, b.g, t), fluidLerp(a.b, b.b, t),
            fluidLerp(a.a, b.a, t)};
}
template <class T> ESTUARY_HD inline T fluidSample(const T* field, const FluidTaps& t) {
    return fluidLerp(fluidLerp(field[t.i00], field[t.i10], t.tx),
                     fluidLerp(field[t.i01], field[t.i11], t.tx), t.ty);
}
ESTUARY_HD inline FluidVelocity fluidSampleVelocity(const FluidVelocity* u, int w, int h, float px,
                                                    float py) {
    return fluidSample(u, fluidTaps(px, py, w, h));
}

// Signed c - s on a ring of n, in [-n/2, n/2]; c and s in [0, n).
ESTUARY_HD inline float fluidOffset(float c, float s, int n) {
    const float d = c - s, half = 0.5f * static_cast<float>(n);
    return d > half ? d - static_cast<float>(n) : (d < -half ? d + static_cast<float>(n) : d);
}
// A smooth bump: (1 - d^2/r^2)^2 inside the radius, 0 outside.
ESTUARY_HD inline float fluidBump(float dx, float dy, float invRadius2) {
    const float f = 1.0f - (dx * dx + dy * dy) * invRadius2;
    return f > 0.0f ? f * f : 0.0f;
}

// ---- forcing: jets, brush, seeded vortices and blobs --------------------------------------------

struct FluidJet {
    float x = 0, y = 0;   // centre, in [0, w) x [0, h)
    float vx = 0, vy = 0; // the velocity it drives, cells per step
    float r = 0, g = 0, b = 0;
};

// Everything one step needs besides the fields: plain data, passed to kernels by value.
struct FluidStep {
    int jetCount = 0;
    float jetInvRadius2 = 0;
    FluidJet jets[kFluidMaxJets];
    float keep = 1;       // 1 - dissipation
    float vorticity = 0;  // confinement strength
    float viscosity = 0;  // diffusion per step
    int iterations = 1;   // Jacobi sweeps, >= 1
    int cycles = 0;       // multigrid V-cycles (fluid_multigrid.h); 0: the Jacobi sweeps
    int particleLife = 1; // steps, >= 1
};

// Blends velocity and dye towards a source by weight `weight` in [0, 1].
ESTUARY_HD inline void fluidPour(float weight, float r, float g, float b, FluidDye& dye) {
    dye.r = dye.r + weight * (r - dye.r);
    dye.g = dye.g + weight * (g - dye.g);
    dye.b = dye.b + weight * (b - dye.b);
    dye.a = dye.a + weight * (1.0f - dye.a);
}

// Jets act on one cell, in place: velocity and dye blended towards each jet's by its bump.
ESTUARY_HD inline void fluidJetsCell(FluidVelocity& u, FluidDye& dye, int x, int y, int w, int h,
                                     const FluidStep& s) {
    for (int i = 0; i < s.jetCount; ++i) {
        const FluidJet& jet = s.jets[i];
        const float weight =
            fluidBump(fluidOffset(static_cast<float>(x), jet.x, w),
                      fluidOffset(static_cast<float>(y), jet.y, h), s.jetInvRadius2);
        if (weight > 0.0f) {
            u.x = u.x + weight * (jet.vx - u.x);
            u.y = u.y + weight * (jet.vy - u.y);
            fluidPour(weight, jet.r, jet.g, jet.b, dye);
        }
    }
}

// One dab: a brush stroke, or a seeded vortex or blob. Primary (push): velocity += bump * push,
// dye poured towards the colour. Spin: velocity += bump * spin * perp(cell - centre) / radius, a
// vortex turning from +x towards +y (positive curl dv/dx - du/dy).
struct FluidDab {
    float x = 0, y = 0; // centre, in [0, w) x [0, h)
    float invRadius = 1, invRadius2 = 1;
    float pushX = 0, pushY = 0;
    float spin = 0;
    bool pour = false;
    float r = 0, g = 0, b = 0;
};

ESTUARY_HD inline void fluidDabCell(const FluidDab& d, int x, int y, int w, int h, FluidVelocity& u,
                                    FluidDye& dye) {
    const float ox = fluidOffset(static_cast<float>(x), d.x, w);
    const float oy = fluidOffset(static_cast<float>(y), d.y, h);
    const float bump = fluidBump(ox, oy, d.invRadius2);
    if (!(bump > 0.0f)) return;
    const float turn = bump * d.spin * d.invRadius;
    u.x = u.x + (bump * d.pushX - turn * oy);
    u.y = u.y + (bump * d.pushY + turn * ox);
    if (d.pour) fluidPour(bump, d.r, d.g, d.b, dye);
}

inline constexpr int kFluidSeedDabs = 7;
struct FluidSeed {
    int count = 0;
    FluidDab dabs[kFluidSeedDabs];
};

// ---- advection, vorticity, viscosity ------------------------------------------------------------

// Semi-Lagrangian: both fields sampled where the flow at the cell came from one step ago, traced
// back by the midpoint rule, x - u(x - u(x)/2). The one-step trace x - u(x) leaves every curved
// streamline outwards (by a factor sqrt(1 + omega^2) per step in a vortex turning omega radians per
// step), which pulls dye into vortex cores and loses it: measured 13-38% of the seeded dye in 30
// steps. The midpoint's error is sqrt(1 + omega^4/4): under 1% in 300 steps.
ESTUARY_HD inline void fluidAdvectCell(const FluidVelocity* u, const FluidDye* dye, int w, int h,
                                       int x, int y, float keep, FluidVelocity& uOut,
                                       FluidDye& dyeOut) {
    const float cx = static_cast<float>(x), cy = static_cast<float>(y);
    const FluidVelocity c = u[fluidIndex(x, y, w)];
    const FluidVelocity m = fluidSampleVelocity(u, w, h, cx - 0.5f * fluidClampSpeed(c.x),
                                                cy - 0.5f * fluidClampSpeed(c.y));
    const FluidTaps t = fluidTaps(cx - fluidClampSpeed(m.x), cy - fluidClampSpeed(m.y), w, h);
    uOut = fluidSample(u, t);
    const FluidDye d = fluidSample(dye, t);
    dyeOut = {d.r * keep, d.g * keep, d.b * keep, d.a * keep};
}

// The curl dv/dx - du/dy by central differences.
ESTUARY_HD inline float fluidCurlCell(const FluidVelocity* u, int w, int h, int x, int y) {
    const int xm = fluidWrap(x - 1, w), xp = fluidWrap(x + 1, w);
    const int ym = fluidWrap(y - 1, h), yp = fluidWrap(y + 1, h);
    return 0.5f * ((u[fluidIndex(xp, y, w)].y - u[fluidIndex(xm, y, w)].y) -
                   (u[fluidIndex(x, yp, w)].x - u[fluidIndex(x, ym, w)].x));
}

// Vorticity confinement: N = grad|w| / (|grad|w|| + 1e-5), u += strength * (N.y w, -N.x w), which
// pushes flow around each vortex's core, restoring the spin numerical diffusion takes.
ESTUARY_HD inline FluidVelocity fluidConfineCell(const FluidVelocity* u, const float* curl, int w,
                                                 int h, int x, int y, float strength) {
    const int xm = fluidWrap(x - 1, w), xp = fluidWrap(x + 1, w);
    const int ym = fluidWrap(y - 1, h), yp = fluidWrap(y + 1, h);
    const float gx = 0.5f * (fabsf(curl[fluidIndex(xp, y, w)]) - fabsf(curl[fluidIndex(xm, y, w)]));
    const float gy = 0.5f * (fabsf(curl[fluidIndex(x, yp, w)]) - fabsf(curl[fluidIndex(x, ym, w)]));
    const float length = sqrtf(gx * gx + gy * gy) + 1e-5f;
    const float wc = curl[fluidIndex(x, y, w)];
    const FluidVelocity c = u[fluidIndex(x, y, w)];
    return {c.x + strength * ((gy / length) * wc), c.y - strength * ((gx / length) * wc)};
}

// Explicit diffusion, u += viscosity * (5-point Laplacian of u).
ESTUARY_HD inline FluidVelocity fluidViscosityCell(const FluidVelocity* u, int w, int h, int x,
                                                   int y, float viscosity) {
    const FluidVelocity c = u[fluidIndex(x, y, w)];
    const FluidVelocity l = u[fluidIndex(fluidWrap(x - 1, w), y, w)];
    const FluidVelocity r = u[fluidIndex(fluidWrap(x + 1, w), y, w)];
    const FluidVelocity a = u[fluidIndex(x, fluidWrap(y - 1, h), w)];
    const FluidVelocity b = u[fluidIndex(x, fluidWrap(y + 1, h), w)];
    return {c.x + viscosity * (((l.x + r.x) + (a.x + b.x)) - 4.0f * c.x),
            c.y + viscosity * (((l.y + r.y) + (a.y + b.y)) - 4.0f * c.y)};
}

// ---- projection (see the top of this file) ------------------------------------------------------

ESTUARY_HD inline float fluidDivergenceCell(const FluidVelocity* u, int w, int h, int x, int y) {
    const int xm = fluidWrap(x - 1, w), xp = fluidWrap(x + 1, w);
    const int ym = fluidWrap(y - 1, h), yp = fluidWrap(y + 1, h);
    return 0.5f * ((u[fluidIndex(xp, y, w)].x - u[fluidIndex(xm, y, w)].x) +
                   (u[fluidIndex(x, yp, w)].y - u[fluidIndex(x, ym, w)].y));
}

// One damped-Jacobi update (omega = 2/3) from the centre value, the sum of the four distance-2
// neighbours and the divergence: p' = p/3 + (far - 4 D)/6.
ESTUARY_HD inline float fluidJacobi(float centre, float far, float divergence) {
    return (1.0f / 3.0f) * centre + (1.0f / 6.0f) * (far - 4.0f * divergence);
}
ESTUARY_HD inline float fluidFar(const float* p, int w, int h, int x, int y) {
    return (p[fluidIndex(fluidWrap(x - 2, w), y, w)] + p[fluidIndex(fluidWrap(x + 2, w), y, w)]) +
           (p[fluidIndex(x, fluidWrap(y - 2, h), w)] + p[fluidIndex(x, fluidWrap(y + 2, h), w)]);
}
ESTUARY_HD inline float fluidJacobiCell(const float* p, const float* divergence, int w, int h,
                                        int x, int y) {
    const size_t c = fluidIndex(x, y, w);
    return fluidJacobi(p[c], fluidFar(p, w, h, x, y), divergence[c]);
}
// The first sweep, from the guess, fused with the divergence it needs only at its own cell.
ESTUARY_HD inline float fluidFirstSweepCell(const FluidVelocity* u, const float* guess, int w,
                                            int h, int x, int y, float& divergence) {
    divergence = fluidDivergenceCell(u, w, h, x, y);
    return fluidJacobi(guess[fluidIndex(x, y, w)], fluidFar(guess, w, h, x, y), divergence);
}

// u - G p, limited to kFluidMaxSpeed: the end of every step.
ESTUARY_HD inline FluidVelocity fluidSubtractGradientCell(const FluidVelocity* u, const float* p,
                                                          int w, int h, int x, int y) {
    const FluidVelocity c = u[fluidIndex(x, y, w)];
    const float gx = 0.5f * (p[fluidIndex(fluidWrap(x + 1, w), y, w)] -
                             p[fluidIndex(fluidWrap(x - 1, w), y, w)]);
    const float gy = 0.5f * (p[fluidIndex(x, fluidWrap(y + 1, h), w)] -
                             p[fluidIndex(x, fluidWrap(y - 1, h), w)]);
    return {fluidClampSpeed(c.x - gx), fluidClampSpeed(c.y - gy)};
}

// The CPU projection over plain w x h arrays: `in` projected into `out` with `iterations` >= 1
// sweeps from the guess in `pressure` (zeros: a cold start). `divergence` receives the divergence
// of `in`; `scratch` is a work array. Returns the array holding the final pressure (`pressure` or
// `scratch`). The CUDA kernels run the same cells in the same order of passes.
inline float* fluidProject(const FluidVelocity* in, FluidVelocity* out, float* divergence,
                           float* pressure, float* scratch, int w, int h, int iterations) {
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            scratch[fluidIndex(x, y, w)] =
                fluidFirstSweepCell(in, pressure, w, h, x, y, divergence[fluidIndex(x, y, w)]);
    float* from = scratch;
    float* to = pressure;
    for (int k = 1; k < iterations; ++k) {
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                to[fluidIndex(x, y, w)] = fluidJacobiCell(from, divergence, w, h, x, y);
        float* swap = from;
        from = to;
        to = swap;
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            out[fluidIndex(x, y, w)] = fluidSubtractGradientCell(in, from, w, h, x, y);
    return from;
}

// ---- particles ----------------------------------------------------------------------------------

ESTUARY_HD inline uint32_t fluidHash(uint32_t x) { // lowbias32 (Chris Wellons)
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}
ESTUARY_HD inline uint32_t fluidParticleHash(uint32_t seed, uint32_t index, uint32_t step) {
    return fluidHash(seed ^ fluidHash(index ^ fluidHash(step + 0x9e3779b9u)));
}
// The seed folded to the 32 bits the particle hashes take.
inline uint32_t fluidSeed32(uint64_t seed) {
    return uint32_t(seed) ^ uint32_t(seed >> 32);
}

// Where particle `index` is (re-)seeded at step `step` (0: reset): a cell and a fraction in 1/256.
ESTUARY_HD inline float fluidSeedCoordinate(uint32_t hash, int n) {
    const float c = static_cast<float>((hash >> 8) % static_cast<uint32_t>(n)) +
                    static_cast<float>(hash & 0xffu) * (1.0f / 256.0f);
    return c < static_cast<float>(n) ? c : 0.0f; // rounding on grids wider than 2^15
}
ESTUARY_HD inline ParticleVertex fluidSeedParticle(uint32_t seed, uint32_t index, uint32_t step,
                                                   int w, int h) {
    const uint32_t hx = fluidParticleHash(seed, index, step);
    const uint32_t hy = fluidHash(hx ^ 0x5bd1e995u);
    return {fluidSeedCoordinate(hx, w), fluidSeedCoordinate(hy, h), 0.0f, 0.0f};
}
// A particle's first age, staggered over [0, life) so re-seeding is spread out.
ESTUARY_HD inline uint32_t fluidStaggeredAge(uint32_t seed, uint32_t index, int life) {
    return fluidHash(fluidParticleHash(seed, index, 0u) ^ 0x68e31da4u) %
           static_cast<uint32_t>(life);
}

// x in [-n - kFluidMaxSpeed, 2n + kFluidMaxSpeed) wrapped into [0, n) exactly.
ESTUARY_HD inline float fluidWrapPosition(float x, int n) {
    const float size = static_cast<float>(n);
    float r = x - size * floorf(x / size);
    if (r < 0.0f) r = r + size; // x / size rounded up to a whole number
    return r < size ? r : 0.0f; // a tiny negative r + size rounds to size: that is 0 on the ring
}

// The RK2 midpoint step through a velocity sampler (sample(x, y) -> FluidVelocity):
// v1 = u(p), v2 = u(p + v1/2), p' = wrap(p + v2), (vx, vy) = v2.
template <class Sampler>
ESTUARY_HD inline ParticleVertex fluidAdvectParticle(const ParticleVertex& p, int w, int h,
                                                     const Sampler& sample) {
    const FluidVelocity v1 = sample(p.x, p.y);
    const FluidVelocity v2 =
        sample(p.x + 0.5f * fluidClampSpeed(v1.x), p.y + 0.5f * fluidClampSpeed(v1.y));
    const float vx = fluidClampSpeed(v2.x), vy = fluidClampSpeed(v2.y);
    return {fluidWrapPosition(p.x + vx, w), fluidWrapPosition(p.y + vy, h), vx, vy};
}

// One step of particle `index` through the grid velocity u: an unset age is staggered first; the
// particle moves, ages, and is re-seeded (hash of seed, index and `step`, the 1-based step count)
// when its age reaches `life` or its position is not finite.
ESTUARY_HD inline void fluidParticleCell(const FluidVelocity* u, int w, int h, uint32_t seed,
                                         uint32_t index, uint32_t step, int life, ParticleVertex& p,
                                         uint32_t& age) {
    if (age == kFluidAgeUnset) age = fluidStaggeredAge(seed, index, life);
    if (fluidFinite(p.x) && fluidFinite(p.y) && p.x >= 0.0f && p.y >= 0.0f &&
        p.x < static_cast<float>(w) && p.y < static_cast<float>(h)) {
        const auto sample = [&](float x, float y) { return fluidSampleVelocity(u, w, h, x, y); };
        p = fluidAdvectParticle(p, w, h, sample);
        age = age + 1u;
    } else {
        age = static_cast<uint32_t>(life);
    }
    if (age >= static_cast<uint32_t>(life)) {
        p = fluidSeedParticle(seed, index, step, w, h);
        age = 0u;
    }
}

// ---- host side, shared by both implementations -------------------------------------------------

inline void fluidHue(double hue, float& r, float& g, float& b) {
    constexpr double kTau = 6.28318530717958647692;
    r = float(0.5 + 0.5 * std::cos(kTau * hue));
    g = float(0.5 + 0.5 * std::cos(kTau * (hue - 1.0 / 3.0)));
    b = float(0.5 + 0.5 * std::cos(kTau * (hue - 2.0 / 3.0)));
}

inline float fluidWrapHost(double c, int n) {
    double r = std::fmod(c, double(n));
    if (r < 0.0) r += double(n);
    const float f = float(r);
    return f < float(n) ? f : 0.0f;
}

// The jets' clock: each orbits the centre slowly, aimed roughly at it with a slow swing. Seeded:
// each jet gets its own start angle and swing phase.
struct FluidClock {
    static constexpr double kTau = 6.28318530717958647692;
    static constexpr double kOrbit = 0.002; // radians per step
    static constexpr double kSwing = 0.011; // radians per step
    double angle[kFluidMaxJets] = {};
    double swing[kFluidMaxJets] = {};

    void reset(uint64_t seed) {
        std::mt19937_64 random(seed ^ 0x1E75ull); // fully specified: the same on every host
        for (int i = 0; i < kFluidMaxJets; ++i) {
            angle[i] = kTau * i / kFluidMaxJets + double(random() % 1000) / 4000.0;
            swing[i] = double(random() % 6283) / 1000.0;
        }
    }

    // This step's FluidStep; then advances the clock by one step.
    FluidStep next(const ParamValues& p, int w, int h) {
        FluidStep s;
        const int jets = int(p[kFluidJets]); // the table limits it; the array must not trust that
        s.jetCount = jets < 0 ? 0 : (jets > kFluidMaxJets ? kFluidMaxJets : jets);
        const double smaller = double(w < h ? w : h);
        const double radius = std::max(3.0, 0.03 * smaller);
        s.jetInvRadius2 = float(1.0 / (radius * radius));
        for (int i = 0; i < s.jetCount; ++i) {
            FluidJet& jet = s.jets[i];
            jet.x = fluidWrapHost(0.5 * w + 0.3 * smaller * std::cos(angle[i]), w);
            jet.y = fluidWrapHost(0.5 * h + 0.3 * smaller * std::sin(angle[i]), h);
            const double heading = angle[i] + 0.5 * kTau + 0.6 * std::sin(swing[i]);
            jet.vx = float(double(p[kFluidForce]) * std::cos(heading));
            jet.vy = float(double(p[kFluidForce]) * std::sin(heading));
            fluidHue(double(i) / double(s.jetCount) + 0.05, jet.r, jet.g, jet.b);
        }
        s.keep = 1.0f - p[kFluidDissipation];
        s.vorticity = p[kFluidVorticity];
        s.viscosity = p[kFluidViscosity];
        s.iterations = std::max(1, int(p[kFluidIterations]));
        s.cycles = std::max(0, int(p[kFluidCycles]));
        s.particleLife = std::max(1, int(p[kFluidParticleLife]));
        // Kept within one turn, so a long run loses no precision in sin/cos.
        for (int i = 0; i < kFluidMaxJets; ++i) {
            angle[i] = std::remainder(angle[i] + kOrbit, kTau);
            swing[i] = std::remainder(swing[i] + kSwing, kTau);
        }
        return s;
    }
};

// One brush dab: the centre wrapped on the host, the push limited to kFluidBrushMaxSpeed, the
// colour cycling with the dab count.
inline FluidDab fluidBrushDab(const Brush& brush, int w, int h, uint32_t dabCount) {
    FluidDab d;
    d.x = fluidWrapHost(brush.x, w);
    d.y = fluidWrapHost(brush.y, h);
    const double radius = brush.radius > 0.5f ? brush.radius : 0.5f;
    d.invRadius = float(1.0 / radius);
    d.invRadius2 = float(1.0 / (radius * radius));
    if (brush.secondary) {
        d.spin = kFluidSpin;
        return d;
    }
    const double length = std::sqrt(double(brush.dx) * brush.dx + double(brush.dy) * brush.dy);
    const double scale = length > kFluidBrushMaxSpeed ? kFluidBrushMaxSpeed / length : 1.0;
    d.pushX = float(brush.dx * scale);
    d.pushY = float(brush.dy * scale);
    d.pour = true;
    fluidHue(0.013 * dabCount, d.r, d.g, d.b);
    return d;
}

// The initial state for `seed`: seven blobs of dye at seeded places, four of them spinning.
inline FluidSeed fluidSeedState(uint64_t seed, int w, int h) {
    std::mt19937_64 random(seed ^ 0xF1D5ull);
    FluidSeed s;
    const double smaller = double(w < h ? w : h);
    for (int i = 0; i < kFluidSeedDabs; ++i) {
        FluidDab& d = s.dabs[i];
        d.x = float(random() % uint64_t(w));
        d.y = float(random() % uint64_t(h));
        const double radius = smaller * (0.08 + double(random() % 100) / 1000.0);
        d.invRadius = float(1.0 / radius);
        d.invRadius2 = float(1.0 / (radius * radius));
        // Peak speeds up to 0.7 cells per step, and cores turning at most 0.15 radians per step.
        const double spin = (1.5 + double(random() % 100) / 100.0) * std::min(1.0, radius / 16.0);
        if (i < 4) d.spin = float(random() % 2 ? spin : -spin);
        d.pour = true;
        fluidHue(double(random() % 1000) / 1000.0, d.r, d.g, d.b);
    }
    s.count = kFluidSeedDabs;
    return s;
}

} // namespace estuary::sim
