// The host view mapping (viewer/views/view_mapping.h) that painting and the cursor probe rely on:
// pure properties, and agreement with viewer/views/field/field.frag by rendering a field with one hot cell at
// an odd zoom and pan and predicting every pixel from the host mapping. No window needed.
#include "colormap.h"
#include "offscreen.h"
#include "renderer.h"
#include "kit_test.h"
#include "test_support.h"
#include "view_mapping.h"

#include <cmath>
#include <cstring>

namespace estuary {
namespace {

constexpr VkExtent2D kTarget{256, 192};
constexpr VkExtent2D kField{200, 120};

TEST(WindowViewMapping, TargetCentreIsFieldCentreAtTheDefaultView) {
    const Vec2 cell = targetToCell({128.0f, 96.0f}, kTarget, kField, ViewParams{});
    EXPECT_FLOAT_EQ(cell.x, 99.5f); // between cells 99 and 100 of 200
    EXPECT_FLOAT_EQ(cell.y, 59.5f);
}

TEST(WindowViewMapping, LetterboxMatchesTheRendererTest) {
    // 200x120 into 256x192: 1.28 px per cell, the field spans rows 19.2..172.8.
    int x = 0, y = 0;
    EXPECT_FALSE(cellUnder({128.0f, 17.5f}, kTarget, kField, ViewParams{}, x, y));
    EXPECT_TRUE(cellUnder({128.0f, 21.5f}, kTarget, kField, ViewParams{}, x, y));
    EXPECT_EQ(y, 1);
    EXPECT_TRUE(cellUnder({0.5f, 170.5f}, kTarget, kField, ViewParams{}, x, y));
    EXPECT_EQ(x, 0);
    EXPECT_EQ(y, 118);
    EXPECT_FALSE(cellUnder({128.0f, 174.5f}, kTarget, kField, ViewParams{}, x, y));
}

TEST(WindowViewMapping, RowZeroIsAtTheTopAndColumnZeroAtTheLeft) {
    int x = -1, y = -1;
    ASSERT_TRUE(cellUnder({0.5f, 19.5f}, kTarget, kField, ViewParams{}, x, y));
    EXPECT_EQ(x, 0);
    EXPECT_EQ(y, 0);
}

TEST(WindowViewMapping, CellToTargetInvertsTargetToCellForAnyView) {
    ViewParams view;
    for (float zoom : {0.3f, 1.0f, 2.7f, 40.0f}) {
        view.zoom = zoom;
        view.panX = 0.13f * zoom;
        view.panY = -0.21f;
        for (Vec2 p : {Vec2{0.0f, 0.0f}, Vec2{17.25f, 180.5f}, Vec2{255.0f, 3.0f}}) {
            const Vec2 back =
                cellToTarget(targetToCell(p, kTarget, kField, view), kTarget, kField, view);
            EXPECT_NEAR(back.x, p.x, 5e-3f) << "zoom " << zoom; // float rounding at zoom 40
            EXPECT_NEAR(back.y, p.y, 5e-3f) << "zoom " << zoom;
        }
    }
}

TEST(WindowViewMapping, ZoomAboutKeepsTheCellUnderTheAnchor) {
    ViewParams view;
    view.panX = 0.1f;
    const Vec2 anchor{40.0f, 150.0f};
    const Vec2 before = targetToCell(anchor, kTarget, kField, view);
    const ViewParams zoomed = zoomAbout(view, 5.0f, anchor, kTarget, kField);
    EXPECT_FLOAT_EQ(zoomed.zoom, 5.0f);
    const Vec2 after = targetToCell(anchor, kTarget, kField, zoomed);
    EXPECT_NEAR(after.x, before.x, 1e-3f);
    EXPECT_NEAR(after.y, before.y, 1e-3f);
    // ...and it really zoomed: a pixel 10 px away is now 5x closer in cells.
    const Vec2 near = targetToCell({anchor.x + 10.0f, anchor.y}, kTarget, kField, zoomed);
    EXPECT_NEAR(near.x - after.x, 10.0f / (1.28f * 5.0f), 1e-3f);
}

TEST(WindowViewMapping, PanByMovesTheFieldWithTheDrag) {
    ViewParams view;
    view.zoom = 2.0f;
    const Vec2 grab{100.0f, 100.0f};
    const Vec2 cell = targetToCell(grab, kTarget, kField, view);
    const ViewParams moved = panBy(view, {30.0f, -12.0f}, kTarget, kField);
    const Vec2 now = cellToTarget(cell, kTarget, kField, moved);
    EXPECT_NEAR(now.x, grab.x + 30.0f, 1e-3f);
    EXPECT_NEAR(now.y, grab.y - 12.0f, 1e-3f);
}

// Renders a field that is 0 except one cell, and predicts each pixel on the host: host mapping →
// bilinear sample (as the sampler does at magnification) → colormap. A flip, an off-by-half-texel
// or a wrong aspect in either the shader or view_mapping.h makes most pixels near the cell wrong.
class WindowViewMappingRender : public test::KitTest {};

TEST_F(WindowViewMappingRender, ShaderAndHostMappingAgreeOnEveryPixel) {
    const VkExtent2D field{64, 48};
    const int hotX = 41, hotY = 13; // asymmetric: any flip moves it
    std::vector<float> values(size_t(field.width) * field.height, 0.0f);
    values[size_t(hotY) * field.width + hotX] = 1.0f;

    // One level: the magnified draw samples level 0 only.
    GpuImage image = createImage2D(device, field, VK_FORMAT_R32_SFLOAT, 1,
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                   "mapping field");
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {field.width, field.height, 1};
    uploadForSampling(
        device, pool, image.handle,
        {reinterpret_cast<const uint8_t*>(values.data()), values.size() * sizeof(float)},
        {&region, 1});

    RendererDesc desc;
    desc.dataDir = test::binDir();
    Renderer renderer = createRenderer(device, kitted(desc));
    setFieldImage(device, renderer, 0, image.view, field);
    OffscreenTarget target = createOffscreenTarget(device, kTarget);
    ViewParams view;
    view.zoom = 2.5f;
    view.panX = 0.1f;
    view.panY = -0.2f;
    submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
        recordBeginTarget(cmd, target);
        recordDraw(renderer, cmd, 0, target.image.view, kTarget, view);
        recordEndTarget(cmd, target, true);
    });
    const std::vector<uint8_t> pixels = readbackPixels(target);

    const auto lut = loadColormapFile(test::binDir() / "assets/colormaps/viridis.txt").entries;
    const float background[3] = {ESTUARY_BACKGROUND_COLOR};
    auto at = [&](int x, int y) {
        x = std::clamp(x, 0, int(field.width) - 1);
        y = std::clamp(y, 0, int(field.height) - 1);
        return values[size_t(y) * field.width + size_t(x)];
    };
    size_t checked = 0, wrong = 0, nearHot = 0;
    for (uint32_t py = 0; py < kTarget.height; ++py) {
        for (uint32_t px = 0; px < kTarget.width; ++px) {
            const Vec2 centre{float(px) + 0.5f, float(py) + 0.5f};
            const Vec2 uv = targetToUv(centre, kTarget, field, view);
            float expected[3];
            if (uv.x < 0 || uv.y < 0 || uv.x > 1 || uv.y > 1) {
                std::copy(background, background + 3, expected);
            } else {
                const Vec2 c = targetToCell(centre, kTarget, field, view);
                const int x0 = int(std::floor(c.x)), y0 = int(std::floor(c.y));
                const float fx = c.x - float(x0), fy = c.y - float(y0);
                const float v = (1 - fy) * ((1 - fx) * at(x0, y0) + fx * at(x0 + 1, y0)) +
                                fy * ((1 - fx) * at(x0, y0 + 1) + fx * at(x0 + 1, y0 + 1));
                const float entry = v * float(kColormapSize - 1);
                const size_t e0 = std::min(size_t(entry), size_t(kColormapSize - 2));
                const float f = entry - float(e0);
                for (int ch = 0; ch < 3; ++ch)
                    expected[ch] = (1 - f) * lut[e0][ch] + f * lut[e0 + 1][ch];
                nearHot += v > 0.5f;
            }
            const uint8_t* got = &pixels[(size_t(py) * kTarget.width + px) * 4];
            bool bad = false;
            for (int ch = 0; ch < 3; ++ch)
                bad |= std::abs(float(got[ch]) - expected[ch] * 255.0f) > 4.0f;
            wrong += bad;
            ++checked;
        }
    }
    // 10 px per cell: the hot cell's bright core covers tens of pixels.
    EXPECT_GT(nearHot, 30u);
    // Subtexel precision can push a few pixels on the steepest slope over the tolerance.
    EXPECT_LE(double(wrong) / double(checked), 0.002) << wrong << " of " << checked;

    vkDeviceWaitIdle(device.handle);
    destroyOffscreenTarget(device, target);
    destroyRenderer(device, renderer);
    destroyImage(device, image);
}

TEST(WindowViewMapping, OrbitDragTurnsTheCameraAndResetPutsItBack) {
    ViewParams view;
    const VkExtent2D target{800, 600};
    // A drag across the whole width turns by 180°, across the height tilts by 90° (clamped short
    // of the pole).
    const ViewParams turned = orbitBy(view, {800.0f, 0.0f}, target);
    EXPECT_NEAR(turned.yaw, view.yaw - 3.14159265f, 1e-5f);
    EXPECT_FLOAT_EQ(turned.pitch, view.pitch);
    const ViewParams tilted = orbitBy(view, {0.0f, 600.0f}, target);
    EXPECT_LE(tilted.pitch, 1.48f);
    EXPECT_GT(tilted.pitch, view.pitch);
    ViewParams moved = turned;
    moved.zoom = 3.0f, moved.panX = 0.2f;
    const ViewParams reset = resetCamera(moved);
    EXPECT_FLOAT_EQ(reset.yaw, ViewParams::kDefaultYaw);
    EXPECT_FLOAT_EQ(reset.pitch, ViewParams::kDefaultPitch);
    EXPECT_FLOAT_EQ(reset.zoom, 1.0f);
    EXPECT_FLOAT_EQ(reset.panX, 0.0f);
    // The slice shown for each axis: the other two in volume_slice.frag's order.
    EXPECT_EQ(sliceExtent(0, 40, 24, 16).width, 16u);
    EXPECT_EQ(sliceExtent(0, 40, 24, 16).height, 24u);
    EXPECT_EQ(sliceExtent(1, 40, 24, 16).width, 40u);
    EXPECT_EQ(sliceExtent(1, 40, 24, 16).height, 16u);
    EXPECT_EQ(sliceExtent(2, 40, 24, 16).width, 40u);
    EXPECT_EQ(sliceExtent(2, 40, 24, 16).height, 24u);
}

} // namespace
} // namespace estuary
