// FrameHistory: the fixed ring the frame loop fills and late GPU times update.
#include "frame_timing.h"

#include <gtest/gtest.h>

namespace estuary {
namespace {

TEST(AppFrameHistory, HoldsTheNewestFramesOldestFirstAndFindsOnlyThose) {
    FrameHistory history(4);
    EXPECT_EQ(history.find(0), nullptr);
    for (uint64_t f = 0; f < 10; ++f)
        history.push(FrameTiming{f});
    ASSERT_EQ(history.size(), 4u);
    for (size_t i = 0; i < 4; ++i)
        EXPECT_EQ(history[i].frame, 6u + i);
    for (uint64_t f = 0; f < 6; ++f)
        EXPECT_EQ(history.find(f), nullptr) << f;
    for (uint64_t f = 6; f < 10; ++f) {
        FrameTiming* t = history.find(f);
        ASSERT_NE(t, nullptr) << f;
        EXPECT_EQ(t->frame, f);
        t->simMs = double(f);
    }
    EXPECT_EQ(history.find(10), nullptr);
    EXPECT_EQ(history[1].simMs, 7.0);
}

TEST(AppFrameHistory, FindsAcrossTheWrapAndAfterClear) {
    FrameHistory history(3);
    for (uint64_t f = 100; f < 105; ++f)
        history.push(FrameTiming{f});
    EXPECT_NE(history.find(102), nullptr);
    EXPECT_NE(history.find(104), nullptr);
    EXPECT_EQ(history.find(101), nullptr);
    history.clear();
    EXPECT_EQ(history.size(), 0u);
    EXPECT_EQ(history.find(104), nullptr);
}

} // namespace
} // namespace estuary
