// The panels' rectangles (viewer/frame/layout.h) for grids, relative sizes and gaps, pictures too
// small for their gaps, and the panel under a point: no GPU.
#include "layout.h"

#include <gtest/gtest.h>

#include <vector>

namespace estuary::lib {
namespace {

bool sameRect(const VkRect2D& r, int32_t x, int32_t y, uint32_t w, uint32_t h) {
    return r.offset.x == x && r.offset.y == y && r.extent.width == w && r.extent.height == h;
}

TEST(LayoutRects, OnePanelIsTheWholePicture) {
    const auto rects = layoutRects({640, 480}, {1.0f}, {1.0f}, 12.0f);
    ASSERT_EQ(rects.size(), 1u);
    EXPECT_TRUE(sameRect(rects[0], 0, 0, 640, 480));
}

TEST(LayoutRects, AGridIsNumberedRowByRowWithGapsBetweenPanels) {
    // 2 rows by 3 columns of 100 x 50 pixels, 10 apart: 320 x 110.
    const auto rects = layoutRects({320, 110}, {1.0f, 1.0f}, {1.0f, 1.0f, 1.0f}, 10.0f);
    ASSERT_EQ(rects.size(), 6u);
    EXPECT_TRUE(sameRect(rects[0], 0, 0, 100, 50));
    EXPECT_TRUE(sameRect(rects[1], 110, 0, 100, 50));
    EXPECT_TRUE(sameRect(rects[2], 220, 0, 100, 50));
    EXPECT_TRUE(sameRect(rects[3], 0, 60, 100, 50));
    EXPECT_TRUE(sameRect(rects[5], 220, 60, 100, 50));
}

TEST(LayoutRects, RelativeSizesShareWhatTheGapsLeave) {
    const auto rects = layoutRects({128, 64}, {1.0f}, {1.0f, 3.0f}, 8.0f);
    ASSERT_EQ(rects.size(), 2u);
    EXPECT_TRUE(sameRect(rects[0], 0, 0, 30, 64));
    EXPECT_TRUE(sameRect(rects[1], 38, 0, 90, 64));
    // Rounding never loses the last pixel: the last panel ends at the picture's edge.
    const auto thirds = layoutRects({100, 10}, {1.0f}, {1.0f, 1.0f, 1.0f}, 0.0f);
    EXPECT_EQ(thirds[2].offset.x + int32_t(thirds[2].extent.width), 100);
    EXPECT_EQ(thirds[0].extent.width + thirds[1].extent.width + thirds[2].extent.width, 100u);
}

TEST(LayoutRects, APictureTooSmallForItsGapsShrinksThemAndKeepsEveryPanelInside) {
    const auto rects = layoutRects({10, 4}, {1.0f}, {1.0f, 1.0f, 1.0f, 1.0f}, 100.0f);
    ASSERT_EQ(rects.size(), 4u);
    for (const VkRect2D& r : rects) {
        EXPECT_GE(r.extent.width, 1u);
        EXPECT_LE(uint32_t(r.offset.x) + r.extent.width, 10u);
    }
    // A tiny relative size still gets a pixel.
    const auto tiny = layoutRects({64, 64}, {1.0f}, {1e-6f, 1.0f}, 0.0f);
    EXPECT_EQ(tiny[0].extent.width, 1u);
    EXPECT_LE(uint32_t(tiny[1].offset.x) + tiny[1].extent.width, 64u);
}

TEST(LayoutRects, ThePanelUnderAPointIsNoneInAGapOrOutside) {
    const auto rects = layoutRects({128, 64}, {1.0f}, {1.0f, 3.0f}, 8.0f);
    EXPECT_EQ(panelAt(rects, 0.0f, 0.0f), 0u);
    EXPECT_EQ(panelAt(rects, 29.9f, 63.9f), 0u);
    EXPECT_EQ(panelAt(rects, 30.0f, 5.0f), ESTUARY_PANEL_NONE);
    EXPECT_EQ(panelAt(rects, 38.0f, 5.0f), 1u);
    EXPECT_EQ(panelAt(rects, -0.5f, 5.0f), ESTUARY_PANEL_NONE);
    EXPECT_EQ(panelAt(rects, 5.0f, 64.0f), ESTUARY_PANEL_NONE);
}

} // namespace
} // namespace estuary::lib
