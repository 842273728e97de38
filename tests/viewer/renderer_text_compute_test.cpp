// The text renderer's compute path (text.h, recordAnnotationsCompute) against its raster pass on
// lavapipe, and its tile binning (text_tiles.h) against a per-pixel reference: every quad that
// covers a pixel is in that pixel's tile list, in drawing order, so the tiles blend what raster
// blends in the same order; and one batch of everything (text from 9 to 120 pixels, turned text,
// lines across and aslant, ramps both ways and categorical, translucent rectangles over each
// other, two panels with a clip) draws the same picture both ways within the rounding of raster's
// per-quad 8-bit blends (compute rounds once; its fwidth is raster's fine derivatives).
#include "kit_test.h"
#include "offscreen.h"
#include "renderer_internal.h"
#include "text.h"
#include "text_tiles.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <algorithm>
#include <random>

namespace estuary {
namespace {

TextQuad quadAt(float ox, float oy, float ux, float uy, float vx, float vy, uint32_t clip) {
    TextQuad q{};
    q.origin[0] = ox, q.origin[1] = oy;
    q.axisU[0] = ux, q.axisU[1] = uy;
    q.axisV[0] = vx, q.axisV[1] = vy;
    q.extra[1] = std::bit_cast<float>(clip);
    return q;
}

TEST(TextTiles, EveryQuadCoveringAPixelIsInItsTileInDrawingOrder) {
    constexpr VkExtent2D kExtent{100, 70};
    const std::vector<VkRect2D> clips{{{0, 0}, {100, 70}}, {{30, 10}, {41, 33}}};
    std::mt19937 random(7);
    std::uniform_real_distribution<float> position(-20.0f, 120.0f), length(-40.0f, 40.0f);
    std::vector<TextQuad> quads;
    // Rectangles on pixel edges and on pixel centres (the top-left rule decides), each axis
    // both ways, then parallelograms at any angle.
    quads.push_back(quadAt(10.0f, 10.0f, 16.0f, 0.0f, 0.0f, 16.0f, 0));
    quads.push_back(quadAt(40.5f, 20.5f, 0.0f, -8.0f, 9.0f, 0.0f, 1));
    quads.push_back(quadAt(90.5f, 60.5f, -30.0f, 0.0f, 0.0f, -12.0f, 0));
    for (int i = 0; i < 200; ++i)
        quads.push_back(quadAt(position(random), position(random), length(random),
                               length(random) * 0.3f, length(random) * 0.3f, length(random),
                               uint32_t(i % 2)));
    quads.push_back(quadAt(50.0f, 50.0f, 0.0f, 0.0f, 0.0f, 5.0f, 0)); // no area
    quads.push_back(quadAt(0.0f, 0.0f, 5.0f, 0.0f, 0.0f, 5.0f, 9));   // no such clip
    TextTiles tiles;
    binTextQuads(quads, clips, kExtent, tiles);
    ASSERT_GT(tiles.tileCount, 0u);
    // The tile of each pixel, from the tile entries.
    const uint32_t tilesX = (kExtent.width + 15) / 16;
    std::vector<int> entryOf(size_t(tilesX) * ((kExtent.height + 15) / 16), -1);
    for (uint32_t t = 0; t < tiles.tileCount; ++t) {
        const uint32_t xy = tiles.words[4 * t];
        entryOf[(xy >> 16) * tilesX + (xy & 0xFFFF)] = int(t);
    }
    const auto inClip = [&](const TextQuad& q, uint32_t x, uint32_t y) {
        const uint32_t c = std::bit_cast<uint32_t>(q.extra[1]);
        if (c >= clips.size()) return false;
        const VkRect2D& r = clips[c];
        return int64_t(x) >= r.offset.x && int64_t(y) >= r.offset.y &&
               int64_t(x) < r.offset.x + int64_t(r.extent.width) &&
               int64_t(y) < r.offset.y + int64_t(r.extent.height);
    };
    size_t covered = 0;
    for (uint32_t y = 0; y < kExtent.height; ++y)
        for (uint32_t x = 0; x < kExtent.width; ++x) {
            std::vector<uint32_t> want, got;
            for (uint32_t i = 0; i < quads.size(); ++i)
                if (quadCoversPixel(quads[i], x, y) && inClip(quads[i], x, y)) want.push_back(i);
            const int entry = entryOf[(y / 16) * tilesX + x / 16];
            if (entry >= 0) {
                const uint32_t first = tiles.words[4 * size_t(entry) + 1];
                const uint32_t count = tiles.words[4 * size_t(entry) + 2];
                for (uint32_t k = first; k < first + count; ++k) {
                    const uint32_t i = tiles.words[tiles.indexBase + k];
                    if (quadCoversPixel(quads[i], x, y) && inClip(quads[i], x, y)) got.push_back(i);
                }
            }
            ASSERT_EQ(got, want) << "pixel (" << x << ", " << y << ")";
            covered += !want.empty();
        }
    EXPECT_GT(covered, 2000u) << "the quads should cover much of the picture";
    // The clips follow the tiles, as the shader reads them.
    EXPECT_EQ(tiles.words[tiles.clipBase + 4], 30u);
    EXPECT_EQ(tiles.words[tiles.clipBase + 7], 43u);
    // Pixel centres on a rectangle's edges: the left and top ones in, the right and bottom out.
    EXPECT_TRUE(quadCoversPixel(quads[1], 40, 13));  // x centre 40.5 on the left edge
    EXPECT_FALSE(quadCoversPixel(quads[1], 49, 13)); // 49.5 on the right edge
    EXPECT_TRUE(quadCoversPixel(quads[1], 45, 12));  // y centre 12.5 on the top edge (V up)
    EXPECT_FALSE(quadCoversPixel(quads[1], 45, 20)); // 20.5 on the bottom edge
}

constexpr VkExtent2D kTarget{320, 240};

class TextComputeVsRaster : public test::KitTest {
  protected:
    void SetUp() override {
        KitTest::SetUp();
        if (!device.handle) return;
        TextDesc desc;
        desc.dataDir = test::binDir();
        desc.compute = true;
        text = createTextRenderer(device, kitted(desc));
        target = createOffscreenTarget(device, kTarget);
        if (!target.storage) GTEST_SKIP() << "the device offers no storage use of RGBA8";
    }
    void TearDown() override {
        if (device.handle) {
            vkDeviceWaitIdle(device.handle);
            destroyOffscreenTarget(device, target);
            destroyTextRenderer(device, text);
        }
        KitTest::TearDown();
    }
    std::vector<uint8_t> draw(std::span<const AnnotationPanel> panels, bool compute) {
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            recordBeginTarget(cmd, target);
            beginTargetPass(cmd, target.image.view, kTarget, true, {0.1f, 0.2f, 0.3f});
            vkCmdEndRendering(cmd);
            if (compute) {
                recordFontUpload(text.font, cmd);
                recordStorageBegin(cmd, target.image.handle);
                recordAnnotationsCompute(device, text, cmd, 0, target.image.view, kTarget, panels);
                recordStorageEnd(cmd, target.image.handle);
            } else {
                recordAnnotations(text, cmd, 0, target.image.view, kTarget, panels);
            }
            recordEndTarget(cmd, target, true);
        });
        return readbackPixels(target);
    }

    TextRenderer text;
    OffscreenTarget target;
};

AnnotationText textAt(const char* s, float x, float y, float size, float degrees, Rgba colour) {
    AnnotationText t;
    t.text = s;
    t.x = x, t.y = y, t.sizePixels = size, t.rotationDegrees = degrees;
    t.color = colour;
    return t;
}

// How far apart two pictures are.
struct Apart {
    size_t drawn = 0; // pixels either picture changed from the background
    size_t over3 = 0; // pixels more than 3 levels apart in some channel
    int worst = 0;
    size_t deepOver3 = 0; // of those, pixels inside raster's ink (it and its 8 neighbours full)
    double inkRaster = 0.0, inkCompute = 0.0; // summed change from the background
};

Apart compare(const std::vector<uint8_t>& raster, const std::vector<uint8_t>& compute,
              std::array<int, 3> background, std::array<int, 3> full) {
    Apart a;
    const auto at = [&](const std::vector<uint8_t>& p, int x, int y, size_t c) {
        return int(p[(size_t(y) * kTarget.width + size_t(x)) * 4 + c]);
    };
    const auto isFull = [&](int x, int y) {
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                const int px = std::clamp(x + dx, 0, int(kTarget.width) - 1);
                const int py = std::clamp(y + dy, 0, int(kTarget.height) - 1);
                for (size_t c = 0; c < 3; ++c)
                    if (at(raster, px, py, c) != full[c]) return false;
            }
        return true;
    };
    for (int y = 0; y < int(kTarget.height); ++y)
        for (int x = 0; x < int(kTarget.width); ++x) {
            int d = 0;
            bool touched = false;
            for (size_t c = 0; c < 3; ++c) {
                const int r = at(raster, x, y, c), k = at(compute, x, y, c);
                d = std::max(d, std::abs(r - k));
                touched |= std::abs(r - background[c]) > 1 || std::abs(k - background[c]) > 1;
                a.inkRaster += std::abs(r - background[c]);
                a.inkCompute += std::abs(k - background[c]);
            }
            a.drawn += touched;
            a.over3 += d > 3;
            a.deepOver3 += d > 3 && isFull(x, y);
            a.worst = std::max(a.worst, d);
        }
    return a;
}

constexpr std::array<int, 3> kBackground{26, 51, 77}; // (0.1, 0.2, 0.3)

// Rectangles (on pixel edges and centres, translucent over each other), lines across and aslant,
// ramps both ways and categorical, two panels with a clip: the same pixels, within the rounding
// of raster's per-quad 8-bit blends.
TEST_F(TextComputeVsRaster, ShapesMatchTheRasterPassWithinARoundingStep) {
    AnnotationBatch left, right;
    left.rects.push_back({4.0f, 4.0f, 150.0f, 60.0f, {0.9f, 0.9f, 0.9f, 0.35f}});
    left.rects.push_back({20.5f, 30.5f, 90.5f, 120.5f, {1.0f, 0.2f, 0.1f, 0.6f}});
    left.lines.push_back({5.0f, 200.5f, 155.0f, 200.5f, 1.0f, {1, 1, 1, 1}});
    left.lines.push_back({10.0f, 230.0f, 150.0f, 130.0f, 2.5f, {0.2f, 1.0f, 0.4f, 0.8f}});
    left.lines.push_back({30.0f, 5.0f, 30.3f, 235.0f, 1.5f, {1, 1, 0, 1}});
    AnnotationRamp vertical;
    vertical.x0 = 120.0f, vertical.y0 = 70.0f, vertical.x1 = 135.0f, vertical.y1 = 190.0f;
    vertical.colormap = 0;
    left.ramps.push_back(vertical);
    AnnotationRamp categories = vertical;
    categories.x0 = 60.0f, categories.y0 = 150.0f, categories.x1 = 150.0f, categories.y1 = 160.0f;
    categories.vertical = false;
    categories.entries = 4;
    left.ramps.push_back(categories);
    right.rects.push_back({150.0f, 100.0f, 330.0f, 130.0f, {0.0f, 0.0f, 0.0f, 0.5f}});
    right.lines.push_back({150.0f, 20.0f, 330.0f, 230.0f, 4.0f, {1, 0, 1, 0.7f}});
    right.clip = {160.0f, 0.0f, 310.0f, 235.0f};
    const AnnotationPanel panels[] = {{&left, {{0, 0}, {160, 240}}},
                                      {&right, {{160, 0}, {160, 240}}}};
    const Apart a = compare(draw(panels, false), draw(panels, true), kBackground, {0, 0, 0});
    ASSERT_GT(a.drawn, 15000u) << "the batch should cover much of the picture";
    EXPECT_LE(a.worst, 2) << a.over3 << " pixels more than 3 levels apart";
}

// Text from 9 to 120 pixels, upright and turned: the same pixels, glyph edges included (the
// compute path takes fwidth as raster's fine derivatives do, across and down in the pixel's 2x2
// quad).
TEST_F(TextComputeVsRaster, TextMatchesTheRasterPassWithinARoundingStep) {
    AnnotationBatch left, right;
    const Rgba white{1, 1, 1, 1};
    left.texts.push_back(textAt("Tiny 9 px", 8.0f, 30.0f, 9.0f, 0.0f, white));
    left.texts.push_back(textAt("Axis 12", 8.0f, 60.0f, 12.0f, 0.0f, white));
    left.texts.push_back(textAt("y [mm] 14 px", 100.0f, 230.0f, 14.0f, 90.0f, white));
    left.texts.push_back(textAt("aslant", 20.0f, 180.0f, 18.0f, 30.0f, white));
    right.texts.push_back(textAt("Hg 24", 170.0f, 40.0f, 24.0f, 0.0f, white));
    right.texts.push_back(textAt("Qa", 175.0f, 200.0f, 120.0f, 0.0f, white));
    right.texts.push_back(textAt("-45", 260.0f, 60.0f, 30.0f, -45.0f, white));
    right.clip = {160.0f, 0.0f, 310.0f, 235.0f};
    const AnnotationPanel panels[] = {{&left, {{0, 0}, {160, 240}}},
                                      {&right, {{160, 0}, {160, 240}}}};
    const Apart a = compare(draw(panels, false), draw(panels, true), kBackground, {255, 255, 255});
    ASSERT_GT(a.drawn, 5000u) << "the text should cover part of the picture";
    EXPECT_NEAR(a.inkCompute / a.inkRaster, 1.0, 0.01);
    EXPECT_EQ(a.deepOver3, 0u) << "inside a glyph both paths fill it";
    EXPECT_LE(a.worst, 2) << a.over3 << " of " << a.drawn << " pixels more than 3 levels apart";
}

} // namespace
} // namespace estuary
