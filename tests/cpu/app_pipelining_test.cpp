// Pipelining correctness with the CPU backend (lavapipe where there is no GPU): with N frames in
// flight over a ring of N output slots, every draw samples exactly the frame it belongs to, before
// and after drawing, for every registered simulation: its displayed image and, for simulations
// with particles, the particle buffer the draw pulls its points from.
#include "counter_simulation.h"
#include "simulations.h"
#include "stamped_run.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace estuary {
namespace {

TEST(AppPipelining, EveryDrawSamplesItsOwnFrameForEachFramesInFlightCpu) {
    for (const sim::SimDefinition& def : simulations())
        for (uint32_t inFlight : {1u, 2u, 3u, 4u}) {
            SCOPED_TRACE(def.name + ", frames in flight " + std::to_string(inFlight));
            Options o;
            o.simulation = def.name;
            o.backend = Backend::Cpu;
            o.grid = def.dimensions == 3 ? Extent{24, 20, 16} : Extent{64, 48};
            o.stepsPerFrame = 1;
            o.framesInFlight = inFlight;
            const auto run = test::runStampedFrames(o, 40);
            EXPECT_EQ(run.validationMessages, 0u);
            ASSERT_EQ(run.seenBefore.size(), 40u);
            ASSERT_EQ(run.seenAfter.size(), 40u);
            for (uint32_t f = 0; f < 40; ++f) {
                EXPECT_EQ(run.seenBefore[f], float(f)) << "before the draw of frame " << f;
                EXPECT_EQ(run.seenAfter[f], float(f)) << "after the draw of frame " << f;
            }
            if (def.particles.cpuDefault > 0) {
                ASSERT_EQ(run.bufferTailBefore.size(), 40u) << "the particle buffer was not read";
            }
            EXPECT_EQ(run.wrongFrames(), 0u) << "draws that saw another frame's image or buffer";
        }
}

TEST(AppPipelining, EveryOutputImageAndBufferOfAFrameReachesItsOwnDrawCpu) {
    // The counter simulation: two images (R32 full chain, RG32 two levels) and a buffer, each
    // saying how many steps were taken; each draw must see its own frame's, in every level.
    const sim::SimDefinition counter = test::counterSimulation();
    for (uint32_t inFlight : {1u, 2u, 3u, 4u}) {
        SCOPED_TRACE("frames in flight " + std::to_string(inFlight));
        Options o;
        o.backend = Backend::Cpu;
        o.grid = {40, 24};
        o.stepsPerFrame = 3;
        o.framesInFlight = inFlight;
        const auto run = test::runStampedFrames(o, 30, &counter);
        EXPECT_EQ(run.validationMessages, 0u);
        ASSERT_EQ(run.bufferWords.size(), 30u);
        ASSERT_EQ(run.secondTexel.size(), 30u);
        EXPECT_EQ(run.wrongFrames(), 0u);
        EXPECT_EQ(run.wrongOutputs(3), 0u) << "frames whose outputs were not their own";
    }
}

} // namespace
} // namespace estuary
