// The fluid's multigrid pressure solve (the "v_cycles" parameter): the same equation as the
// Jacobi sweeps of fluid.h, L p = D with the wide Laplacian, solved by V-cycles. This header holds
// the hierarchy, the per-cell operations (host and device) and the CPU driver
// fluidMultigridProject; fluid_multigrid_kernels.cuh runs the same cells in the same order of
// passes, so CPU and CUDA agree bit for bit (only + - * /, one order, no FMA contraction, no
// reductions).
//
// The wide stencil reaches only cells of the same parity of x and of y: on an even grid L splits
// into four independent problems, one per sub-lattice (x even/odd, y even/odd), each the standard
// 5-point Laplacian on a periodic (W/2) x (H/2) grid. Every level keeps the four interleaved in one
// array with the distance-2 stencil: level l is (W/2^l) x (H/2^l), its cell (X, Y) in sub-lattice
// (X & 1, Y & 1) at sub-lattice coordinates (X >> 1, Y >> 1). Each level solves far(x) - 4 x = s b
// (far: fluidFar, the four distance-2 neighbours; level 0: x = p, b = D, s = 4; coarser levels:
// the correction, s = 1). Cell-centred coarsening per sub-lattice: restriction sums the residuals
// of the 2 x 2 children (the coarse equation's scale absorbs the 1/4 of the average and the 4 of
// the doubled spacing), prolongation is bilinear (9, 3, 3, 1)/16. The smoother is red-black
// Gauss-Seidel, coloured per sub-lattice by ((X >> 1) + (Y >> 1)) & 1, which needs every level's
// sub-lattices of even size: W and H multiples of 4, and a level is halved only while both sides
// are multiples of 8. Level 0 gets kFluidFineSweeps red-black sweeps before and after the coarse
// correction, the coarser levels one. The coarsest level (at most kFluidCoarsestSide a side, else
// there is no hierarchy) gets as many sweeps as its longer side (the slowest mode of an n-cell
// sub-lattice shrinks by cos^2(2 pi / n) a sweep: 0.006 after 32 sweeps at n = 16). A cycle cuts
// the residual by 0.07-0.13 (sim_fluid_multigrid_test.cpp measures it).
//
// Where W or H is not a multiple of 4, or halving stops above kFluidCoarsestSide (1920 x 1080:
// 1080 = 8 x 135), odd sub-lattices couple through the wrap or the coarsest level is too large to
// solve by sweeps: fluidHierarchy returns no levels and the step runs the Jacobi sweeps.
//
// The null space: a constant per sub-lattice (the four Fourier modes k in {0, W/2}, l in {0, H/2}),
// whose gradient by central differences is 0. D has no component on it in exact arithmetic (each
// difference in D adds a value of one sub-lattice and subtracts one of the same); rounding leaves
// ~1e-7 relative, which only shifts each sub-lattice's pressure by a constant.
//
// Cost of a cycle in DRAM traffic per fine cell, as run on the GPU (fluid_multigrid_kernels.cuh),
// where one Jacobi sweep a launch moves 12 B (p and D read, p written): level 0's divergence with
// its four half-sweeps before in one launch (u 8 read, p 4 read and 4 written, D 4 written: 20 B;
// later cycles 12 B), the residual restricted (p and D read, a quarter of x and b written: 10 B),
// the correction prolonged with the four half-sweeps after in one launch (p and D read, p written,
// the coarse x: 13 B); each coarser level about the same per its own cell (a separate in-place
// black half-sweep, 12 B, instead of the divergence) and a quarter as many cells: 43 + 35 / 3,
// about 55 B, 4.6 sweep equivalents, in 3 launches a level above 4096 cells and one for the rest.
// The 40 sweeps move 20 + 10 x 12 = 140 B in 11 launches, with 1.5 times their arithmetic in the
// overlapping halos, and are bound by their shared-memory sweeps (docs/PERFORMANCE.md: 700 us at
// 2048^2 on an H100). Each tile here sweeps half its cells per half-sweep.
#pragma once

#include "fluid.h"

#include <cstddef>

namespace estuary::sim {

inline constexpr int kFluidMaxLevels = 16;
inline constexpr int kFluidCoarsestSide = 32;
// Red-black sweeps before and after the coarse correction on level 0 (1 on the coarser levels):
// the divergence advection leaves each step is mostly short waves, which sweeps remove cheaply
// (sim_fluid_multigrid_test.cpp: V(1,1) left 3 times the divergence of 40 Jacobi sweeps, 2 on
// level 0 half of it).
inline constexpr int kFluidFineSweeps = 2;

// The levels of a W x H grid. Level l >= 1 keeps x (the correction) at offset[l] in a pool of
// floats and b right after it (w[l] * h[l] each); level 0 is the pressure and divergence arrays.
struct FluidHierarchy {
    int levels = 0; // 0: no multigrid on this grid (fluid_multigrid.h's top says when)
    int w[kFluidMaxLevels] = {}, h[kFluidMaxLevels] = {};
    size_t offset[kFluidMaxLevels] = {};
    size_t poolFloats = 0;
    int coarsestSweeps = 0;
};

inline FluidHierarchy fluidHierarchy(int w, int h) {
    FluidHierarchy m;
    if (w % 4 != 0 || h % 4 != 0 || w < 8 || h < 8) return m;
    m.w[0] = w;
    m.h[0] = h;
    int n = 1;
    size_t pool = 0;
    while (m.w[n - 1] % 8 == 0 && m.h[n - 1] % 8 == 0 && n < kFluidMaxLevels) {
        m.w[n] = m.w[n - 1] / 2;
        m.h[n] = m.h[n - 1] / 2;
        m.offset[n] = pool;
        pool += 2 * size_t(m.w[n]) * size_t(m.h[n]);
        ++n;
    }
    if (n < 2 || m.w[n - 1] > kFluidCoarsestSide || m.h[n - 1] > kFluidCoarsestSide)
        return FluidHierarchy{};
    m.levels = n;
    m.poolFloats = pool;
    m.coarsestSweeps = m.w[n - 1] > m.h[n - 1] ? m.w[n - 1] : m.h[n - 1];
    return m;
}

// ---- per-cell operations ------------------------------------------------------------------------

// Red (0) or black (1): the cells one half-sweep updates. The stencil joins only opposite colours.
ESTUARY_HD inline int fluidColour(int x, int y) {
    return ((x >> 1) + (y >> 1)) & 1;
}
// The Gauss-Seidel update of far - 4 x = s b at one cell.
ESTUARY_HD inline float fluidRelax(float far, float sb) {
    return 0.25f * (far - sb);
}
ESTUARY_HD inline float fluidRelaxCell(const float* x, const float* b, float scale, int w, int h,
                                       int cx, int cy) {
    return fluidRelax(fluidFar(x, w, h, cx, cy), scale * b[fluidIndex(cx, cy, w)]);
}
ESTUARY_HD inline float fluidResidualCell(const float* x, const float* b, float scale, int w, int h,
                                          int cx, int cy) {
    const size_t i = fluidIndex(cx, cy, w);
    return scale * b[i] - (fluidFar(x, w, h, cx, cy) - 4.0f * x[i]);
}

// Coarse cell (X, Y) of a level (cw x ch) below a fine one (2cw x 2ch): b, the sum of its four
// children's residuals, and x its first red half-sweep from zero (far = 0), which the
// restriction writes so no pass clears the level.
ESTUARY_HD inline void fluidRestrictCell(const float* x, const float* b, float scale, int cw,
                                         int ch, int cX, int cY, float& coarseX, float& coarseB) {
    const int w = 2 * cw, h = 2 * ch;
    const int x0 = 2 * cX - (cX & 1), y0 = 2 * cY - (cY & 1); // children at +0 and +2, no wrap
    const float sum = (fluidResidualCell(x, b, scale, w, h, x0, y0) +
                       fluidResidualCell(x, b, scale, w, h, x0 + 2, y0)) +
                      (fluidResidualCell(x, b, scale, w, h, x0, y0 + 2) +
                       fluidResidualCell(x, b, scale, w, h, x0 + 2, y0 + 2));
    coarseB = sum;
    coarseX = fluidColour(cX, cY) == 0 ? fluidRelax(0.0f, sum) : 0.0f;
}

// Fine cell (x, y) plus the bilinear interpolation of the coarse correction e (w/2 x h/2) within
// its sub-lattice: 9/16 of its parent, 3/16 of each parent's neighbour on its side, 1/16 diagonal.
ESTUARY_HD inline float fluidProlongCell(float fine, const float* e, int w, int h, int fx, int fy) {
    const int cw = w / 2, ch = h / 2;
    const int cX = 2 * (fx >> 2) + (fx & 1), cY = 2 * (fy >> 2) + (fy & 1);
    const int nX = fluidWrap(cX + ((fx & 2) != 0 ? 2 : -2), cw);
    const int nY = fluidWrap(cY + ((fy & 2) != 0 ? 2 : -2), ch);
    const float c = e[fluidIndex(cX, cY, cw)];
    const float sides = e[fluidIndex(nX, cY, cw)] + e[fluidIndex(cX, nY, cw)];
    const float diagonal = e[fluidIndex(nX, nY, cw)];
    return fine + (0.5625f * c + (0.1875f * sides + 0.0625f * diagonal));
}

// ---- the CPU driver -----------------------------------------------------------------------------

// Each level's arrays: x and b, and the scale of b.
struct FluidLevels {
    float* x[kFluidMaxLevels] = {};
    float* b[kFluidMaxLevels] = {};
    float scale[kFluidMaxLevels] = {};
};
inline FluidLevels fluidLevels(const FluidHierarchy& m, float* pressure, float* divergence,
                               float* pool) {
    FluidLevels v;
    v.x[0] = pressure;
    v.b[0] = divergence;
    v.scale[0] = 4.0f;
    for (int l = 1; l < m.levels; ++l) {
        v.x[l] = pool + m.offset[l];
        v.b[l] = v.x[l] + size_t(m.w[l]) * size_t(m.h[l]);
        v.scale[l] = 1.0f;
    }
    return v;
}

// The passes, one loop over a level's cells each (the CUDA kernels: one thread per cell).
inline void fluidRelaxPass(const FluidHierarchy& m, const FluidLevels& v, int l, int colour) {
    for (int y = 0; y < m.h[l]; ++y)
        for (int x = 0; x < m.w[l]; ++x)
            if (fluidColour(x, y) == colour)
                v.x[l][fluidIndex(x, y, m.w[l])] =
                    fluidRelaxCell(v.x[l], v.b[l], v.scale[l], m.w[l], m.h[l], x, y);
}
inline void fluidRestrictPass(const FluidHierarchy& m, const FluidLevels& v, int l) {
    for (int y = 0; y < m.h[l + 1]; ++y)
        for (int x = 0; x < m.w[l + 1]; ++x) {
            const size_t i = fluidIndex(x, y, m.w[l + 1]);
            fluidRestrictCell(v.x[l], v.b[l], v.scale[l], m.w[l + 1], m.h[l + 1], x, y,
                              v.x[l + 1][i], v.b[l + 1][i]);
        }
}
inline void fluidProlongPass(const FluidHierarchy& m, const FluidLevels& v, int l) {
    for (int y = 0; y < m.h[l]; ++y)
        for (int x = 0; x < m.w[l]; ++x) {
            const size_t i = fluidIndex(x, y, m.w[l]);
            v.x[l][i] = fluidProlongCell(v.x[l][i], v.x[l + 1], m.w[l], m.h[l], x, y);
        }
}

// The V-cycle below level l >= 1 once its red half-sweep is done (the restriction did it): black,
// restrict, the level below, prolong, one red-black sweep; the coarsest level its sweeps instead.
inline void fluidCycleBelow(const FluidHierarchy& m, const FluidLevels& v, int l) {
    fluidRelaxPass(m, v, l, 1);
    if (l == m.levels - 1) {
        for (int k = 1; k < m.coarsestSweeps; ++k) {
            fluidRelaxPass(m, v, l, 0);
            fluidRelaxPass(m, v, l, 1);
        }
        return;
    }
    fluidRestrictPass(m, v, l);
    fluidCycleBelow(m, v, l + 1);
    fluidProlongPass(m, v, l);
    fluidRelaxPass(m, v, l, 0);
    fluidRelaxPass(m, v, l, 1);
}

// The divergence of `u` into D with the first red half-sweep of level 0 (the CUDA side fuses them).
ESTUARY_HD inline float fluidDivergenceRedCell(const FluidVelocity* u, const float* p, int w, int h,
                                               int x, int y, float& divergence) {
    divergence = fluidDivergenceCell(u, w, h, x, y);
    const size_t i = fluidIndex(x, y, w);
    return fluidColour(x, y) == 0 ? fluidRelax(fluidFar(p, w, h, x, y), 4.0f * divergence) : p[i];
}

// fluidProject with `cycles` >= 1 V-cycles instead of Jacobi sweeps: `in` projected into
// `out`, the pressure updated in place from its guess, `divergence` receiving D, `pool` holding
// m.poolFloats floats. m must have levels (fluidHierarchy(w, h).levels > 0).
inline void fluidMultigridProject(const FluidHierarchy& m, const FluidVelocity* in,
                                  FluidVelocity* out, float* divergence, float* pressure,
                                  float* pool, int cycles) {
    const int w = m.w[0], h = m.h[0];
    const FluidLevels v = fluidLevels(m, pressure, divergence, pool);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float red =
                fluidDivergenceRedCell(in, pressure, w, h, x, y, divergence[fluidIndex(x, y, w)]);
            pressure[fluidIndex(x, y, w)] = red; // black cells keep theirs
        }
    for (int c = 0; c < cycles; ++c) {
        for (int k = 0; k < kFluidFineSweeps; ++k) {
            if (c > 0 || k > 0) fluidRelaxPass(m, v, 0, 0);
            fluidRelaxPass(m, v, 0, 1);
        }
        fluidRestrictPass(m, v, 0);
        fluidCycleBelow(m, v, 1);
        fluidProlongPass(m, v, 0);
        for (int k = 0; k < kFluidFineSweeps; ++k) {
            fluidRelaxPass(m, v, 0, 0);
            fluidRelaxPass(m, v, 0, 1);
        }
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            out[fluidIndex(x, y, w)] = fluidSubtractGradientCell(in, pressure, w, h, x, y);
}

} // namespace estuary::sim
