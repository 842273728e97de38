// Panel margins (layout.h's hook for annotations): a panel's views draw in its rectangle less its
// margins, as a picture of that size draws them, the margins showing the background; picks map
// into that plot rectangle; margins back to 0 draw one panel straight into the picture again.
#include "add_views.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>

namespace estuary {
namespace {

using namespace lib;

estuary_viewer* openViewer(uint32_t width, uint32_t height) {
    estuary_viewer_desc d{};
    d.struct_size = sizeof d;
    d.api_version = ESTUARY_API_VERSION;
    d.display = ESTUARY_DISPLAY_HEADLESS;
    d.cuda = ESTUARY_CUDA_OFF;
    d.flags = ESTUARY_VIEWER_VALIDATION | ESTUARY_VIEWER_NO_PIPELINE_CACHE;
    d.width = width;
    d.height = height;
    return createViewer(d);
}

// A 4 x 4 field with texel (x, y) = (x + 4 y) / 15, no colorbar.
estuary_image* addField(estuary_viewer& v) {
    estuary_image_desc id{};
    id.struct_size = sizeof id;
    id.format = ESTUARY_FORMAT_R32_FLOAT;
    id.kind = ESTUARY_IMAGE_2D;
    id.width = id.height = 4;
    id.writer = ESTUARY_WRITER_HOST;
    estuary_image* image = createImage(v, id);
    estuary_field_view_desc fd{};
    fd.struct_size = sizeof fd;
    fd.image = image;
    fd.flags = ESTUARY_VIEW_NO_COLORBAR;
    addFieldView(v, fd);
    return image;
}

std::vector<uint8_t> draw(estuary_viewer& v, estuary_image& image) {
    estuary_frame* frame = beginFrame(v, nullptr);
    image.writtenFrame = frame->index;
    auto* texels = static_cast<float*>(image.staging[frame->entry].mapped);
    for (int i = 0; i < 16; ++i)
        texels[i] = float(i) / 15.0f;
    endFrame(*frame);
    finish(v);
    VkExtent2D extent{};
    return readPixels(v, extent);
}

std::vector<uint8_t> block(const std::vector<uint8_t>& rgba, uint32_t width, VkRect2D r) {
    std::vector<uint8_t> out;
    for (uint32_t y = uint32_t(r.offset.y); y < uint32_t(r.offset.y) + r.extent.height; ++y)
        out.insert(out.end(), rgba.begin() + (size_t(y) * width + uint32_t(r.offset.x)) * 4,
                   rgba.begin() + (size_t(y) * width + uint32_t(r.offset.x) + r.extent.width) * 4);
    return out;
}

TEST(PanelMargins, ViewsDrawInThePlotRectangleAsAPictureOfItsSize) {
    // The plot: 96 x 64 less 10 left, 4 top, 22 right, 12 bottom = 64 x 48 at (10, 4).
    estuary_viewer* alone = openViewer(64, 48);
    alone->background = {1.0f, 0.0f, 0.0f};
    const std::vector<uint8_t> want = draw(*alone, *addField(*alone));
    EXPECT_EQ(destroyViewer(alone), 0u);

    estuary_viewer* v = openViewer(96, 64);
    v->background = {1.0f, 0.0f, 0.0f};
    estuary_image* image = addField(*v);
    const std::vector<uint8_t> before = draw(*v, *image);
    setPanelMargins(*v, 0, {10, 4, 22, 12});
    ASSERT_TRUE(panelImages(*v));
    const VkRect2D plot = plotRect(*v, 0);
    EXPECT_EQ(plot.offset.x, 10);
    EXPECT_EQ(plot.offset.y, 4);
    EXPECT_EQ(plot.extent.width, 64u);
    EXPECT_EQ(plot.extent.height, 48u);
    EXPECT_EQ(panelRect(*v, 0).extent.width, 96u) << "the panel is still the whole picture";
    const std::vector<uint8_t> rgba = draw(*v, *image);
    EXPECT_EQ(block(rgba, 96, plot), want);
    for (const auto& [x, y] : {std::pair{0, 0}, {9, 30}, {80, 30}, {40, 60}, {40, 2}}) {
        const size_t i = (size_t(y) * 96 + size_t(x)) * 4;
        EXPECT_EQ(rgba[i], 255) << "margin pixel " << x << ", " << y;
        EXPECT_EQ(rgba[i + 1], 0) << "margin pixel " << x << ", " << y;
    }
    setPanelMargins(*v, 0, {0, 0, 0, 0});
    EXPECT_FALSE(panelImages(*v));
    EXPECT_EQ(draw(*v, *image), before) << "no margins: straight into the picture, as before";
    EXPECT_EQ(destroyViewer(v), 0u);
}

TEST(PanelMargins, InsetsKeepAtLeastOnePixel) {
    const VkRect2D r = insetRect({{5, 6}, {10, 8}}, {8, 1, 8, 1});
    EXPECT_EQ(r.extent.width, 1u);
    EXPECT_EQ(r.extent.height, 6u);
    EXPECT_LE(r.offset.x + 1, 15);
    EXPECT_EQ(r.offset.y, 7);
}

} // namespace
} // namespace estuary
