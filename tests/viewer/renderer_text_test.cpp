// The text renderer (renderer/text.h) on lavapipe: a batch drawn headless over a black picture and
// read back. Text lands where the font's layout puts it and nowhere else, a large size has sharp
// edges (the distance field antialiased over about one pixel), rotation turns it about its anchor,
// alignment moves it, rectangles, lines and ramps fill what they say, and the clip bounds it all.
// Each by both draw paths: the raster pass, and the compute tiles (recordAnnotationsCompute).
#include "colormap.h"
#include "kit_test.h"
#include "offscreen.h"
#include "renderer_internal.h"
#include "text.h"

#include <gtest/gtest.h>

#include <cmath>

namespace estuary {
namespace {

constexpr VkExtent2D kTarget{320, 240};

struct Box {
    int x0 = 1 << 20, y0 = 1 << 20, x1 = -1, y1 = -1; // inclusive; x1 < 0: empty
    bool empty() const { return x1 < 0; }
};

class RendererText : public test::KitTest, public ::testing::WithParamInterface<bool> {
  protected:
    void SetUp() override {
        KitTest::SetUp();
        if (!device.handle) return;
        TextDesc desc;
        desc.dataDir = test::binDir();
        desc.slotCount = 2;
        desc.compute = GetParam();
        text = createTextRenderer(device, kitted(desc));
        target = createOffscreenTarget(device, kTarget);
        if (GetParam() && !target.storage)
            GTEST_SKIP() << "the device offers no storage use of the RGBA8 picture";
    }
    // The panels over the target (COLOR_ATTACHMENT_OPTIMAL), by the test's draw path.
    void record(VkCommandBuffer cmd, uint32_t slot, std::span<const AnnotationPanel> panels) {
        if (!GetParam()) {
            recordAnnotations(text, cmd, slot, target.image.view, kTarget, panels);
            return;
        }
        recordFontUpload(text.font, cmd);
        recordStorageBegin(cmd, target.image.handle);
        recordAnnotationsCompute(device, text, cmd, slot, target.image.view, kTarget, panels);
        recordStorageEnd(cmd, target.image.handle);
    }
    void TearDown() override {
        if (device.handle) {
            vkDeviceWaitIdle(device.handle);
            destroyOffscreenTarget(device, target);
            destroyTextRenderer(device, text);
        }
        KitTest::TearDown();
    }
    // The batch over black in `area` (default: all), read back.
    std::vector<uint8_t> draw(const AnnotationBatch& batch, VkRect2D area = {{0, 0}, kTarget}) {
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            recordBeginTarget(cmd, target);
            beginTargetPass(cmd, target.image.view, kTarget, true, {0.0f, 0.0f, 0.0f});
            vkCmdEndRendering(cmd);
            const AnnotationPanel panel{&batch, area};
            record(cmd, 1, {&panel, 1});
            recordEndTarget(cmd, target, true);
        });
        return readbackPixels(target);
    }
    static uint8_t red(const std::vector<uint8_t>& p, int x, int y) {
        return p[(size_t(y) * kTarget.width + size_t(x)) * 4];
    }
    // The box of pixels whose red is at least `threshold`.
    static Box litBox(const std::vector<uint8_t>& p, int threshold = 128) {
        Box b;
        for (int y = 0; y < int(kTarget.height); ++y)
            for (int x = 0; x < int(kTarget.width); ++x)
                if (red(p, x, y) >= threshold) {
                    b.x0 = std::min(b.x0, x), b.y0 = std::min(b.y0, y);
                    b.x1 = std::max(b.x1, x), b.y1 = std::max(b.y1, y);
                }
        return b;
    }
    static AnnotationText white(std::string s, float x, float y, float size) {
        AnnotationText t;
        t.text = std::move(s);
        t.x = x, t.y = y, t.sizePixels = size;
        return t;
    }
    // The ink box the font's layout predicts (glyph quads less the spread), in pixels.
    std::array<float, 4> predicted(const AnnotationText& t) const {
        std::vector<PlacedGlyph> glyphs;
        text.font.atlas->layout(t.text, t.sizePixels, t.alignX, t.alignY, glyphs);
        const float pad =
            text.font.atlas->spreadPixels() / text.font.atlas->emPixels() * t.sizePixels;
        std::array<float, 4> b{1e9f, 1e9f, -1e9f, -1e9f};
        for (const PlacedGlyph& g : glyphs) {
            b[0] = std::min(b[0], t.x + g.x0 + pad), b[1] = std::min(b[1], t.y + g.y0 + pad);
            b[2] = std::max(b[2], t.x + g.x1 - pad), b[3] = std::max(b[3], t.y + g.y1 - pad);
        }
        return b;
    }

    TextRenderer text;
    OffscreenTarget target;
};

TEST_P(RendererText, TextLandsWhereTheLayoutPutsItAndNowhereElse) {
    AnnotationBatch batch;
    batch.texts.push_back(white("Hx", 40.0f, 120.0f, 64.0f));
    const std::vector<uint8_t> p = draw(batch);
    const Box lit = litBox(p, 1);
    ASSERT_FALSE(lit.empty()) << "no text drawn";
    // DejaVu's H and x have flat sides: the lit box is the ink box within a pixel or two.
    const auto ink = predicted(batch.texts[0]);
    EXPECT_NEAR(lit.x0, ink[0], 2.0f);
    EXPECT_NEAR(lit.y0, ink[1], 2.0f);
    EXPECT_NEAR(lit.x1 + 1, ink[2], 2.0f);
    EXPECT_NEAR(lit.y1 + 1, ink[3], 2.0f);
    // Inside the H's left stem: full white.
    const int stemX = int(ink[0]) + 3, midY = int(0.5f * (ink[1] + ink[3]));
    EXPECT_EQ(red(p, stemX, midY), 255);
}

TEST_P(RendererText, LargeTextHasSharpEdges) {
    AnnotationBatch batch;
    batch.texts.push_back(white("H", 60.0f, 200.0f, 200.0f)); // 4x the atlas's size
    const std::vector<uint8_t> p = draw(batch);
    const auto ink = predicted(batch.texts[0]);
    // A row through the upper half of the H crosses its two stems: four edges, each at most two
    // pixels between 10% and 90% (a blurred edge at 4x magnification would take several).
    const int y = int(ink[1] + 0.25f * (ink[3] - ink[1]));
    int partial = 0, full = 0;
    for (int x = 0; x < int(kTarget.width); ++x) {
        const int r = red(p, x, y);
        partial += r > 25 && r < 230;
        full += r >= 230;
    }
    EXPECT_GT(full, 30) << "the stems should be solid";
    EXPECT_LE(partial, 8) << "edges should take about a pixel each";
}

TEST_P(RendererText, RotationTurnsTextCounterClockwiseAboutItsAnchor) {
    AnnotationBatch batch;
    AnnotationText t = white("HHH", 200.0f, 200.0f, 40.0f);
    const Box upright = litBox(draw({{}, {}, {}, {t}}));
    t.rotationDegrees = 90.0f; // reads bottom to top, as a y axis's title
    const Box turned = litBox(draw({{}, {}, {}, {t}}));
    ASSERT_FALSE(upright.empty() || turned.empty());
    const int uw = upright.x1 - upright.x0, uh = upright.y1 - upright.y0;
    const int tw = turned.x1 - turned.x0, th = turned.y1 - turned.y0;
    EXPECT_NEAR(tw, uh, 2);
    EXPECT_NEAR(th, uw, 2);
    // Upright the ink is right of and above the anchor; turned, left of it and above.
    EXPECT_GT(upright.x0, 200);
    EXPECT_LT(upright.y1, 201);
    EXPECT_LT(turned.x1, 201);
    EXPECT_LT(turned.y1, 200 - 2);
    EXPECT_GT(turned.y1, 200 - 0.25f * 40.0f);
}

TEST_P(RendererText, AlignmentMovesTextOntoItsAnchor) {
    AnnotationText t = white("HH", 160.0f, 120.0f, 40.0f);
    t.alignX = AlignX::Centre;
    t.alignY = AlignY::Middle;
    const Box centred = litBox(draw({{}, {}, {}, {t}}), 128);
    EXPECT_NEAR(0.5f * float(centred.x0 + centred.x1 + 1), 160.0f, 1.5f);
    t.alignX = AlignX::Right;
    t.alignY = AlignY::Top;
    const Box right = litBox(draw({{}, {}, {}, {t}}), 128);
    EXPECT_LT(right.x1, 160);
    EXPECT_GT(right.x1, 160 - 8);
    EXPECT_GT(right.y0, 120); // below the anchor, under the font's ascent
    EXPECT_LT(right.y0, 120 + 12);
}

TEST_P(RendererText, RectsLinesAndRampsFillWhatTheySay) {
    AnnotationBatch batch;
    batch.rects.push_back({10.0f, 20.0f, 30.0f, 40.0f, {1.0f, 1.0f, 1.0f, 1.0f}});
    batch.lines.push_back({50.0f, 100.5f, 150.0f, 100.5f, 3.0f, {1.0f, 1.0f, 1.0f, 1.0f}});
    AnnotationRamp ramp;
    ramp.x0 = 200.0f, ramp.y0 = 20.0f, ramp.x1 = 220.0f, ramp.y1 = 220.0f;
    ramp.colormap = 0; // viridis, from the bottom up
    batch.ramps.push_back(ramp);
    const std::vector<uint8_t> p = draw(batch);
    EXPECT_EQ(red(p, 10, 20), 255);
    EXPECT_EQ(red(p, 29, 39), 255);
    EXPECT_EQ(red(p, 30, 30), 0);
    EXPECT_EQ(red(p, 9, 30), 0);
    EXPECT_EQ(red(p, 100, 100), 255); // the line's middle rows
    EXPECT_EQ(red(p, 100, 99), 255);
    EXPECT_EQ(red(p, 100, 101), 255);
    EXPECT_EQ(red(p, 100, 97), 0);
    EXPECT_EQ(red(p, 100, 104), 0);
    EXPECT_EQ(red(p, 40, 100), 0); // before its start
    const auto viridis =
        loadColormapFile(test::binDir() / "assets" / "colormaps" / "viridis.txt").entries;
    const auto at = [&](int x, int y) {
        const size_t i = (size_t(y) * kTarget.width + size_t(x)) * 4;
        return std::array<int, 3>{p[i], p[i + 1], p[i + 2]};
    };
    const auto near = [](std::array<int, 3> got, std::array<float, 3> want) {
        for (int c = 0; c < 3; ++c)
            if (std::abs(float(got[size_t(c)]) - 255.0f * want[size_t(c)]) > 3.0f) return false;
        return true;
    };
    EXPECT_TRUE(near(at(210, 219), viridis.front())) << "bottom: the map's start";
    EXPECT_TRUE(near(at(210, 20), viridis.back())) << "top: the map's end";
}

TEST_P(RendererText, NothingIsDrawnOutsideTheAreaOrTheClip) {
    AnnotationBatch batch;
    batch.rects.push_back({0.0f, 0.0f, 320.0f, 240.0f, {1.0f, 1.0f, 1.0f, 1.0f}});
    const Box inArea = litBox(draw(batch, {{100, 50}, {60, 40}}));
    EXPECT_EQ(inArea.x0, 100);
    EXPECT_EQ(inArea.y0, 50);
    EXPECT_EQ(inArea.x1, 159);
    EXPECT_EQ(inArea.y1, 89);
    batch.clip = {120.0f, 0.0f, 320.0f, 60.0f};
    const Box clipped = litBox(draw(batch, {{100, 50}, {60, 40}}));
    EXPECT_EQ(clipped.x0, 120);
    EXPECT_EQ(clipped.y0, 50);
    EXPECT_EQ(clipped.x1, 159);
    EXPECT_EQ(clipped.y1, 59);
}

TEST_P(RendererText, BadTextAndBadNumbersDrawNothingOrReplacementGlyphs) {
    AnnotationBatch batch;
    batch.texts.push_back(white("\xFF\xFE", 100.0f, 100.0f, 30.0f)); // two U+FFFD
    batch.texts.push_back(white("nan", NAN, 100.0f, 30.0f));
    batch.texts.push_back(white("negative", 100.0f, 100.0f, -3.0f));
    batch.lines.push_back({0.0f, 0.0f, 0.0f, 0.0f, 2.0f, {1, 1, 1, 1}}); // no length
    const Box lit = litBox(draw(batch), 1);
    ASSERT_FALSE(lit.empty());
    EXPECT_GE(lit.x0, 100);
    EXPECT_LE(lit.x1, 100 + 2 * 30);
}

TEST_P(RendererText, PanelsOfOneFrameEachDrawTheirOwnBatchInTheirArea) {
    // Two panels side by side, each batch covering the whole picture: each draws only its own
    // half, and the left one's quads survive the right one's being written after them.
    AnnotationBatch left, right;
    left.rects.push_back({0.0f, 0.0f, 320.0f, 240.0f, {1.0f, 0.0f, 0.0f, 1.0f}});
    right.texts.push_back(white("H", 200.0f, 150.0f, 80.0f));
    right.rects.push_back({0.0f, 0.0f, 320.0f, 20.0f, {0.0f, 1.0f, 0.0f, 1.0f}});
    const AnnotationPanel panels[] = {{&left, {{0, 0}, {160, 240}}},
                                      {&right, {{160, 0}, {160, 240}}}};
    submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
        recordBeginTarget(cmd, target);
        beginTargetPass(cmd, target.image.view, kTarget, true, {0.0f, 0.0f, 0.0f});
        vkCmdEndRendering(cmd);
        record(cmd, 0, panels);
        recordEndTarget(cmd, target, true);
    });
    const std::vector<uint8_t> p = readbackPixels(target);
    const auto rgb = [&](int x, int y) {
        const size_t i = (size_t(y) * kTarget.width + size_t(x)) * 4;
        return std::array<int, 3>{p[i], p[i + 1], p[i + 2]};
    };
    EXPECT_EQ(rgb(10, 100), (std::array<int, 3>{255, 0, 0}));
    EXPECT_EQ(rgb(159, 239), (std::array<int, 3>{255, 0, 0}));
    EXPECT_EQ(rgb(160, 100), (std::array<int, 3>{0, 0, 0})) << "the left batch stops at its area";
    EXPECT_EQ(rgb(170, 10), (std::array<int, 3>{0, 255, 0}));
    EXPECT_EQ(rgb(150, 10), (std::array<int, 3>{255, 0, 0}))
        << "the right batch starts at its area";
    size_t whiteInRight = 0;
    for (int y = 30; y < 240; ++y)
        for (int x = 160; x < 320; ++x)
            whiteInRight += rgb(x, y) == std::array<int, 3>{255, 255, 255};
    EXPECT_GT(whiteInRight, 300u) << "the right panel's text";
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, RendererText, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& path) {
                             return path.param ? "Compute" : "Raster";
                         });

TEST(TextQuads, ClipRectIntersectsAreaAndClip) {
    const VkRect2D r = clipRect({100, 80}, {{-5, 10}, {50, 200}}, {0.0f, 0.0f, 0.0f, 0.0f});
    EXPECT_EQ(r.offset.x, 0);
    EXPECT_EQ(r.offset.y, 10);
    EXPECT_EQ(r.extent.width, 45u);
    EXPECT_EQ(r.extent.height, 70u);
    const VkRect2D none = clipRect({100, 80}, {{0, 0}, {100, 80}}, {50.0f, 50.0f, 40.0f, 60.0f});
    EXPECT_EQ(none.extent.width, 0u);
}

} // namespace
} // namespace estuary
