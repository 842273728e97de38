// Pipelining correctness with the CPU backend (lavapipe where there is no GPU): with N frames in
// flight over a ring of N field images, every draw samples exactly the frame it belongs to.
#include "test_support.h"

#include <gtest/gtest.h>

namespace estuary {
namespace {

TEST(AppPipelining, EveryDrawSamplesItsOwnFrameForEachFramesInFlightCpu) {
    for (uint32_t inFlight : {1u, 2u, 3u, 4u}) {
        SCOPED_TRACE("frames in flight " + std::to_string(inFlight));
        Options o;
        o.backend = Backend::Cpu;
        o.grid = {64, 48};
        o.stepsPerFrame = 1;
        o.framesInFlight = inFlight;
        const auto run = test::runStampedFrames(o, 40);
        EXPECT_EQ(run.validationMessages, 0u);
        ASSERT_EQ(run.seen.size(), 40u);
        for (uint32_t f = 0; f < run.seen.size(); ++f)
            EXPECT_EQ(run.seen[f], float(f)) << "frame " << f;
    }
}

} // namespace
} // namespace estuary
