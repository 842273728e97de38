// The grid split into slabs (cuda_sim/slabs.h) on the CPU backend: every output level of a split
// run equals the unsplit run's bit for bit, for 2D and 3D, slab counts that do and do not divide
// the grid, odd grids, halos of 1 to 4 planes, step counts that are and are not multiples of the
// halo, across resets and brush strokes; the plan's arithmetic and its refusals.
#include "errors.h"
#include "simulations.h"
#include "slabs.h"
#include "slabs_ranks.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

const SimDefinition& definition(const char* name) {
    const SimDefinition* def = estuary::findSimulation(name);
    if (!def) throw std::logic_error(std::string(name) + " is not registered");
    return *def;
}

// Every level of every output image, as bytes.
std::vector<std::vector<uint8_t>> outputs(CpuSimulation& sim, const SimDefinition& def,
                                          const GridSize& grid) {
    const OutputLayout layout = def.outputs(grid);
    std::vector<std::vector<uint8_t>> bytes;
    std::vector<std::vector<void*>> levels(layout.images.size());
    std::vector<HostImageTarget> targets;
    for (size_t i = 0; i < layout.images.size(); ++i) {
        const ImageOutput& image = layout.images[i];
        for (uint32_t level = 0; level < levelCount(image); ++level)
            bytes.emplace_back(size_t(mipSize(image.width, level)) * mipSize(image.height, level) *
                               mipSize(image.depth, level) * texelBytes(image.format));
    }
    size_t next = 0;
    for (size_t i = 0; i < layout.images.size(); ++i) {
        for (uint32_t level = 0; level < levelCount(layout.images[i]); ++level)
            levels[i].push_back(bytes[next++].data());
        targets.push_back({levels[i]});
    }
    sim.writeOutputs({targets, {}});
    return bytes;
}

size_t differingLevels(const std::vector<std::vector<uint8_t>>& a,
                       const std::vector<std::vector<uint8_t>>& b) {
    size_t differing = 0;
    for (size_t i = 0; i < a.size(); ++i)
        differing += a[i] != b[i];
    return differing;
}

struct SplitCase {
    const char* simulation;
    GridSize grid;
    uint32_t slabs, halo;
};

TEST(SimSlabs, EverySplitRunEqualsTheUnsplitRunBitForBit) {
    const SplitCase cases[] = {
        {"gray-scott", {64, 48}, 2, 4},        {"gray-scott", {97, 61}, 3, 4},
        {"gray-scott", {97, 61}, 7, 4},        {"gray-scott", {33, 29}, 5, 3},
        {"gray-scott", {40, 30}, 15, 2},       {"gray-scott", {31, 23}, 4, 1},
        {"gray-scott", {50, 40}, 1, 4},        {"gray-scott-3d", {20, 18, 24}, 2, 4},
        {"gray-scott-3d", {17, 19, 23}, 3, 4}, {"gray-scott-3d", {16, 16, 22}, 5, 2},
    };
    for (const SplitCase& c : cases) {
        const SimDefinition& def = definition(c.simulation);
        SCOPED_TRACE(std::string(c.simulation) + " " + std::to_string(c.grid.width) + "x" +
                     std::to_string(c.grid.height) + "x" + std::to_string(c.grid.depth) + ", " +
                     std::to_string(c.slabs) + " slabs, halo " + std::to_string(c.halo));
        std::unique_ptr<CpuSimulation> whole = def.createCpu(c.grid);
        std::unique_ptr<CpuSimulation> split = createSlabbedCpu(def, c.grid, c.slabs, c.halo);
        const ParamValues params = initialParams(def);
        for (uint64_t seed : {3u, 11u}) {
            whole->reset(seed);
            split->reset(seed);
            EXPECT_EQ(differingLevels(outputs(*whole, def, c.grid), outputs(*split, def, c.grid)),
                      0u)
                << "after reset(" << seed << ")";
            // 1, the halo, a multiple of it and one that is not: every pass length.
            for (int steps : {1, int(c.halo), 3 * int(c.halo), 7, 40}) {
                whole->step(params, steps);
                split->step(params, steps);
            }
            const auto expected = outputs(*whole, def, c.grid);
            const auto got = outputs(*split, def, c.grid);
            EXPECT_EQ(differingLevels(expected, got), 0u) << "of " << expected.size() << " levels";
            // The field moved: the comparison is not of two unchanged seeds.
            whole->reset(seed);
            EXPECT_NE(differingLevels(outputs(*whole, def, c.grid), expected), 0u);
        }
    }
}

struct RunCase {
    const char* simulation;
    GridSize grid;
    SlabRunLayout layout;
    uint32_t expectedHalo;
};

// The plans the CUDA run makes across GPUs (planSlabRun: the display GPU's share, the automatic
// deep halo of one exchange a frame, --halo 8), run by the CPU split: the same arithmetic on
// the same operands, so bit for bit the unsplit run.
TEST(SimSlabs, SplitRunsWithDeepHalosAndPlansForSeveralGpusEqualTheUnsplitRunBitForBit) {
    const RunCase cases[] = {
        {"gray-scott", {97, 61}, {4, 1, 8}, 8},        // --halo 8 on one GPU
        {"gray-scott", {16, 700}, {2, 2, 0}, 8},       // automatic: a frame's 8 steps
        {"gray-scott", {12, 2800}, {4, 4, 0}, 8},      // the same over 4 GPUs
        {"gray-scott", {31, 90}, {8, 4, 8, 0.2}, 8},   // 2 slabs per GPU, display share 0.2
        {"gray-scott", {23, 77}, {3, 3, 0}, 4},        // too thin for a deep halo
        {"gray-scott", {19, 400}, {8, 8, 5}, 5},       // 8 GPUs, a halo that divides no frame
        {"gray-scott-3d", {17, 19, 40}, {3, 3, 8}, 8}, // 3D, --halo 8
        {"gray-scott-3d", {9, 11, 700}, {2, 2, 0}, 8}, // 3D, automatic: one exchange a frame
        {"gray-scott-3d", {9, 11, 200}, {2, 2, 0}, 4}, // 3D, 90 slices: too thin for it
    };
    for (const RunCase& c : cases) {
        const SimDefinition& def = definition(c.simulation);
        SCOPED_TRACE(std::string(c.simulation) + " " + std::to_string(c.grid.width) + "x" +
                     std::to_string(c.grid.height) + "x" + std::to_string(c.grid.depth) + ", " +
                     std::to_string(c.layout.slabs) + " slabs over " +
                     std::to_string(c.layout.gpus) + " GPUs, halo " +
                     std::to_string(c.layout.halo));
        const SlabPlan plan = planSlabRun(c.grid, c.layout);
        ASSERT_EQ(plan.halo, c.expectedHalo);
        std::unique_ptr<CpuSimulation> whole = def.createCpu(c.grid);
        std::unique_ptr<CpuSimulation> split = createSlabbedCpu(def, c.grid, plan);
        const ParamValues params = initialParams(def);
        whole->reset(7);
        split->reset(7);
        // 1, a frame, the halo, a multiple of it and counts that are not.
        for (int steps : {1, 8, int(plan.halo), 3 * int(plan.halo), 7, 21}) {
            whole->step(params, steps);
            split->step(params, steps);
            const auto expected = outputs(*whole, def, c.grid);
            EXPECT_EQ(differingLevels(expected, outputs(*split, def, c.grid)), 0u)
                << "after " << steps << " more steps, of " << expected.size() << " levels";
        }
        // The field moved: the comparison is not of two unchanged seeds.
        const auto stepped = outputs(*whole, def, c.grid);
        whole->reset(7);
        EXPECT_NE(differingLevels(outputs(*whole, def, c.grid), stepped), 0u);
    }
}

TEST(SimSlabs, TheAutomaticHaloCoversAFrameAcrossGpusWhereTheSlabsAreThickEnough) {
    EXPECT_EQ(autoSlabHalo(1000, 1, 8), kDefaultSlabHalo); // one GPU: device copies are cheap
    EXPECT_EQ(autoSlabHalo(3, 1, 8), 3u);                  // the thinnest slab bounds it
    EXPECT_EQ(autoSlabHalo(128, 2, 8), 8u);                // 2 x 4 more planes within 1/16
    EXPECT_EQ(autoSlabHalo(127, 2, 8), kDefaultSlabHalo);  // beyond: two exchanges a frame
    EXPECT_EQ(autoSlabHalo(3, 4, 8), 3u);
    EXPECT_EQ(autoSlabHalo(1000, 2, 4), kDefaultSlabHalo); // 4 steps: one exchange already
    EXPECT_EQ(autoSlabHalo(1000, 2, 2), kDefaultSlabHalo);
    EXPECT_EQ(autoSlabHalo(1000, 2, 0), kDefaultSlabHalo); // paused
    EXPECT_EQ(autoSlabHalo(100000, 8, 16), 16u);
    EXPECT_EQ(autoSlabHalo(100000, 8, 1000), kMaxSlabHalo);
}

TEST(SimSlabs, SlabsSpreadOverThreeFourAndEightGpusInContiguousBlocks) {
    const auto gpusOf = [](size_t slabs, size_t gpus) {
        std::vector<size_t> g;
        for (size_t i = 0; i < slabs; ++i)
            g.push_back(gpuOfSlab(i, slabs, gpus));
        return g;
    };
    EXPECT_EQ(gpusOf(3, 3), (std::vector<size_t>{0, 1, 2}));
    EXPECT_EQ(gpusOf(8, 3), (std::vector<size_t>{0, 0, 0, 1, 1, 1, 2, 2}));
    EXPECT_EQ(gpusOf(4, 4), (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_EQ(gpusOf(7, 4), (std::vector<size_t>{0, 0, 1, 1, 2, 2, 3}));
    EXPECT_EQ(gpusOf(8, 8), (std::vector<size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(gpusOf(16, 8), (std::vector<size_t>{0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7}));

    // The display GPU's default share: 0.8 of an even share, gathering (2D and 3D alike, ranks as
    // one process), an even share for volumes drawn sort-last.
    EXPECT_DOUBLE_EQ(defaultDisplayShare(1), 1.0);
    EXPECT_DOUBLE_EQ(defaultDisplayShare(2), 0.4);
    EXPECT_NEAR(defaultDisplayShare(4), 0.2, 1e-12);
    EXPECT_NEAR(defaultDisplayShare(8), 0.1, 1e-12);
    EXPECT_DOUBLE_EQ(defaultDisplayShare(1, true), 1.0);
    EXPECT_DOUBLE_EQ(defaultDisplayShare(2, true), 0.5);
    EXPECT_NEAR(defaultDisplayShare(4, true), 0.25, 1e-12);
    for (uint32_t g = 2; g <= 8; ++g)
        EXPECT_DOUBLE_EQ(resolveDisplayShare(0, g), defaultDisplayShare(g)) << g;
    SlabRunLayout sortLast{2, 2, 0};
    sortLast.sortLast = true;
    EXPECT_EQ(planSlabRun(GridSize{16, 16, 100}, sortLast).count, (std::vector<uint32_t>{50, 50}));
    EXPECT_EQ(planSlabRun(GridSize{16, 16, 100}, {2, 2, 0}).count, (std::vector<uint32_t>{40, 60}));
    // 4 GPUs: 0.2 on the display GPU, 0.2667 on each other.
    const SlabPlan four = planSlabRun(GridSize{16, 1000}, {4, 4, 0});
    EXPECT_EQ(four.first, (std::vector<uint32_t>{0, 200, 467, 733}));
    EXPECT_EQ(four.count, (std::vector<uint32_t>{200, 267, 266, 267}));
    // 8 GPUs over 8192 rows: 0.1 on the display GPU (819 rows), 1053..1054 on the others.
    const SlabPlan eight = planSlabRun(GridSize{8192, 8192}, {8, 8, 0});
    ASSERT_EQ(eight.count.size(), 8u);
    EXPECT_TRUE(eight.count[0] == 819 || eight.count[0] == 820) << eight.count[0];
    uint32_t total = eight.count[0];
    for (size_t i = 1; i < 8; ++i) {
        EXPECT_TRUE(eight.count[i] == 1053 || eight.count[i] == 1054) << eight.count[i];
        total += eight.count[i];
    }
    EXPECT_EQ(total, 8192u);
    EXPECT_EQ(eight.halo, 8u); // one exchange a frame: 819 rows hold 2 x 4 more within 1/32
    // 3 GPUs, 2 slabs each in 3D: the display GPU's 0.8 / 3 of the slices halved.
    const SlabPlan three = planSlabRun(GridSize{64, 64, 300}, {6, 3, 0});
    EXPECT_EQ(three.count[0] + three.count[1], 80u);
    EXPECT_EQ(three.count[2] + three.count[3], 110u);
    EXPECT_EQ(three.count[4] + three.count[5], 110u);
    EXPECT_EQ(three.halo, kDefaultSlabHalo); // slabs of 40 planes: too thin for 8 more
    // Volumes take the deep halo like 2D grids where their slabs are thick enough: 512³ on two
    // GPUs holds 205 slices on the display GPU.
    const SlabPlan volume = planSlabRun(GridSize{512, 512, 512}, {2, 2, 0});
    EXPECT_EQ(volume.count, (std::vector<uint32_t>{205, 307}));
    EXPECT_EQ(volume.halo, 8u);
    // One GPU: even, the default halo.
    const SlabPlan one = planSlabRun(GridSize{16, 1000}, {4, 1, 0});
    EXPECT_EQ(one.count, (std::vector<uint32_t>{250, 250, 250, 250}));
    EXPECT_EQ(one.halo, kDefaultSlabHalo);
}

TEST(SimSlabs, ARunPlanRefusesHalosOutOfRangeAndMoreGpusThanSlabs) {
    const std::pair<SlabRunLayout, const char*> bad[] = {
        {{4, 1, 65}, "--halo 65: allowed 1..64"},
        {{4, 1, 16}, "--halo 16: the thinnest slab holds 15 rows"},
        {{8, 4, 9, 0.2},
         "holds 6 rows, and a halo is copied from one neighbour's own planes; allowed: 1..6"},
        {{2, 3, 0}, "--slabs 2 for 3 GPUs: every GPU needs at least one slab"},
        {{2, 0, 0}, "--gpus must be at least 1"},
        {{0, 1, 0}, "--slabs must be at least 1"},
        {{2, 2, 0, 1.0}, "between 0 and 1, got 1"},
        {{40, 1, 0}, "allowed: 1..30"},
    };
    for (const auto& [layout, message] : bad) {
        SCOPED_TRACE(message);
        try {
            (void)planSlabRun(GridSize{16, 61}, layout);
            ADD_FAILURE() << "accepted";
        } catch (const Error& e) {
            EXPECT_EQ(exitCode(e), ExitCode::Usage);
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    }
}

TEST(SimSlabs, BrushStrokesAcrossSlabBoundariesAndTheWrapMatchTheUnsplitRun) {
    const SimDefinition& def = definition("gray-scott");
    const GridSize grid{80, 60};
    std::unique_ptr<CpuSimulation> whole = def.createCpu(grid);
    std::unique_ptr<CpuSimulation> split = createSlabbedCpu(def, grid, 4, 4);
    whole->reset(5);
    split->reset(5);
    const ParamValues params = initialParams(def);
    // On a boundary (rows 15 | 16), across the wrap (row 0 | 59) and an erase inside a slab.
    const Brush strokes[] = {{40, 15.5f, 6, false}, {10, 59, 5, false}, {60, 38, 4, true}};
    for (const Brush& b : strokes) {
        whole->brush(b, params);
        split->brush(b, params);
        whole->step(params, 9);
        split->step(params, 9);
        EXPECT_EQ(differingLevels(outputs(*whole, def, grid), outputs(*split, def, grid)), 0u);
    }
}

TEST(SimSlabs, ThePlanSplitsAsEvenlyAsItCanAndRefusesSlabsThinnerThanTwoPlanes) {
    const SlabPlan plan = planSlabs(61, 7);
    ASSERT_EQ(plan.count.size(), 7u);
    uint32_t total = 0;
    for (size_t i = 0; i < plan.count.size(); ++i) {
        EXPECT_EQ(plan.first[i], total);
        EXPECT_TRUE(plan.count[i] == 8 || plan.count[i] == 9) << plan.count[i];
        total += plan.count[i];
    }
    EXPECT_EQ(total, 61u);
    EXPECT_EQ(plan.halo, kDefaultSlabHalo);
    EXPECT_EQ(planSlabs(12, 4).halo, 3u);                     // the thinnest slab bounds the halo
    EXPECT_EQ(slabLocalToWhole(plan, 0, 0), 61u - plan.halo); // slab 0's halo wraps
    EXPECT_EQ(slabLocalToWhole(plan, 1, plan.halo), plan.first[1]);
    for (uint32_t slabs : {0u, 31u, 100u}) {
        SCOPED_TRACE(slabs);
        try {
            (void)planSlabs(61, slabs);
            ADD_FAILURE() << "accepted";
        } catch (const Error& e) {
            EXPECT_EQ(exitCode(e), ExitCode::Usage);
            if (slabs > 0) {
                EXPECT_NE(std::string(e.what()).find("allowed: 1..30"), std::string::npos)
                    << e.what();
            }
        }
    }
}

TEST(SimSlabs, AWeightedPlanSplitsByShareAndRefusesSharesOfFewerThanTwoPlanes) {
    const SlabPlan plan = planSlabs(GridSize{16, 100}, {0.4, 0.3, 0.3});
    EXPECT_EQ(plan.first, (std::vector<uint32_t>{0, 40, 70}));
    EXPECT_EQ(plan.count, (std::vector<uint32_t>{40, 30, 30}));
    EXPECT_EQ(plan.halo, kDefaultSlabHalo);
    const SlabPlan odd = planSlabs(GridSize{8, 8, 61}, {1.0, 2.0});
    EXPECT_EQ(odd.count, (std::vector<uint32_t>{20, 41}));          // round(61 / 3), the rest
    EXPECT_EQ(planSlabs(GridSize{16, 100}, {0.03, 0.97}).halo, 3u); // the thinnest bounds it
    const std::pair<std::vector<double>, const char*> bad[] = {
        {{0.01, 0.99}, "slab 0's share of the grid's 100 rows is fewer than 2"},
        {{0.5, 0.0}, "must be positive, got 0"},
        {{1.0, -1.0}, "must be positive, got -1"},
    };
    for (const auto& [weights, message] : bad) {
        SCOPED_TRACE(message);
        try {
            (void)planSlabs(GridSize{16, 100}, weights);
            ADD_FAILURE() << "accepted";
        } catch (const Error& e) {
            EXPECT_EQ(exitCode(e), ExitCode::Usage);
            EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
        }
    }
}

TEST(SimSlabs, SimulationsThatDoNotSplitAreRefused) {
    for (const SimDefinition& def : estuary::simulations()) {
        if (def.splittable) continue;
        SCOPED_TRACE(def.name);
        GridSize grid{64, 64, def.dimensions == 3 ? 64u : 1u};
        EXPECT_THROW((void)createSlabbedCpu(def, grid, 2), Error);
    }
}

} // namespace
} // namespace estuary::sim
