// The C API's annotation settings on lavapipe: an image keeps the origin and spacing its desc
// gives (spacing 0: 1) and refuses bad ones saying which; estuary_set_view_legend takes a
// palette's names and refuses bad ones naming the entry; a panel's axes and title are drawn in
// that panel only, a colorbar headless, and bad titles are refused naming the field; text and
// labels views of a panel are drawn inside it only, over its views; the frame's stats time the
// annotation layer where it draws.
#include "library_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace estuary {
namespace {

class LibraryAnnotations : public LibraryTest {};

// The tests that draw, by both draw paths (the annotation layer's raster pass and its compute
// passes).
class AnnotationsDrawn : public LibraryTest,
                         public ::testing::WithParamInterface<estuary_draw_path> {
  protected:
    ViewerDesc drawn(uint32_t hostRing, uint32_t width, uint32_t height) {
        ViewerDesc d = headless(hostRing, width, height);
        d.draw_path = GetParam();
        return d;
    }
};

TEST_F(LibraryAnnotations, AnImageKeepsItsOriginAndSpacing) {
    open();
    estuary_image_desc d = hostImage(8, 4);
    d.origin[0] = -1.5f;
    d.origin[1] = 2.0f;
    d.spacing[0] = 0.25f; // spacing[1] and [2] left 0: 1
    const Image image = viewer->image(d);
    const estuary_image_info info = image.info();
    EXPECT_EQ(info.origin[0], -1.5f);
    EXPECT_EQ(info.origin[1], 2.0f);
    EXPECT_EQ(info.spacing[0], 0.25f);
    EXPECT_EQ(info.spacing[1], 1.0f);
    EXPECT_EQ(info.spacing[2], 1.0f);
}

TEST_F(LibraryAnnotations, BadSpacingsAndOriginsAreRefusedNamingTheAxis) {
    open();
    estuary_image_desc d = hostImage(8, 4);
    d.spacing[1] = -0.5f;
    EXPECT_REFUSED(viewer->image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "spacing[1] (y)", "> 0");
    d.spacing[1] = NAN;
    EXPECT_REFUSED(viewer->image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "spacing[1]");
    d.spacing[1] = 1.0f;
    d.origin[2] = INFINITY;
    EXPECT_REFUSED(viewer->image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "origin[2] (z)");
}

TEST_F(LibraryAnnotations, AViewsLegendIsTakenOrRefusedSayingWhy) {
    open();
    const Image image = viewer->image(hostImage(4, 4));
    const View view = viewer->fieldView({.image = image.get(), .colormap = ESTUARY_COLORMAP_TAB10});
    const char* names[] = {"water", "sand", "rock"};
    EXPECT_EQ(estuary_set_view_legend(view.get(), names, 3), ESTUARY_OK) << estuary_last_error();
    EXPECT_EQ(estuary_set_view_legend(view.get(), nullptr, 0), ESTUARY_OK); // clears
    const char* withNull[] = {"water", nullptr};
    EXPECT_EQ(estuary_set_view_legend(view.get(), withNull, 2), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("names[1]"), std::string::npos)
        << estuary_last_error();
    const char* badUtf8[] = {"\xff\xfe"};
    EXPECT_EQ(estuary_set_view_legend(view.get(), badUtf8, 1), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("UTF-8"), std::string::npos);
    EXPECT_EQ(estuary_set_view_legend(view.get(), nullptr, 2), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(estuary_set_view_legend(view.get(), names, 257), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("257"), std::string::npos);
    EXPECT_EQ(estuary_set_view_legend(nullptr, names, 1), ESTUARY_ERROR_INVALID_ARGUMENT);
}

// The bright pixels (labels, ticks and titles are near white) of the w x h block at (x, y).
size_t brightIn(const std::vector<uint8_t>& rgba, uint32_t width, uint32_t x, uint32_t y,
                uint32_t w, uint32_t h) {
    size_t n = 0;
    for (uint32_t row = y; row < y + h; ++row)
        for (uint32_t col = x; col < x + w; ++col) {
            const uint8_t* p = &rgba[(size_t(row) * width + col) * 4];
            n += p[0] > 180 && p[1] > 180 && p[2] > 180;
        }
    return n;
}

// Two panels side by side, each a dark field (value 0: viridis' first colour); `left` set on
// panel 0 and `right` on panel 1; the picture after one frame.
std::vector<uint8_t> twoPanels(Viewer& v, const estuary_panel_desc& left,
                               const estuary_panel_desc& right, uint32_t viewFlags) {
    v.setLayout(1, 2);
    v.setPanel(0, left);
    v.setPanel(1, right);
    Image a = v.image(hostImage(32, 32, "A")), b = v.image(hostImage(32, 32, "B"));
    const View va = v.fieldView({.image = a.get(), .flags = viewFlags});
    const View vb = v.fieldView({.image = b.get(), .flags = viewFlags});
    vb.setPanel(1);
    {
        const Frame f = v.beginFrame();
        std::fill_n(f.hostLevel<float>(a), 32 * 32, 0.0f);
        std::fill_n(f.hostLevel<float>(b), 32 * 32, 0.0f);
        f.end();
    }
    v.finish();
    const estuary_viewer_info info = v.info();
    std::vector<uint8_t> rgba(size_t(info.width) * info.height * 4);
    check(estuary_read_pixels(v.get(), rgba.data(), rgba.size()));
    return rgba;
}

TEST_P(AnnotationsDrawn, APanelsAxesAndTitleAreDrawnInThatPanelOnly) {
    Viewer& v = open(drawn(2, 512, 256));
    estuary_panel_desc axes{};
    axes.flags = ESTUARY_PANEL_AXES;
    axes.title = "Temperature";
    axes.axis_titles[0] = "x [mm]";
    axes.axis_titles[1] = "y [mm]";
    const std::vector<uint8_t> rgba = twoPanels(v, axes, {}, ESTUARY_VIEW_NO_COLORBAR);
    // Panel 0 (x 0..255): the title above, tick labels and the x title in the bottom band, the y
    // axis's labels in the left band; panel 1 (x 256..511) says nothing.
    EXPECT_GT(brightIn(rgba, 512, 0, 0, 256, 24), 20u) << "no title";
    EXPECT_GT(brightIn(rgba, 512, 0, 216, 256, 40), 60u) << "no x axis labels";
    EXPECT_GT(brightIn(rgba, 512, 0, 24, 48, 190), 40u) << "no y axis labels";
    EXPECT_EQ(brightIn(rgba, 512, 256, 0, 256, 256), 0u) << "panel 1 has no annotations";
}

TEST_P(AnnotationsDrawn, AColorbarIsDrawnHeadlessAtThePanelsRightEdge) {
    Viewer& v = open(drawn(2, 512, 256));
    const std::vector<uint8_t> with = twoPanels(v, {}, {}, 0);
    // Each panel's colorbar: its labels and name at the right edge of the panel, nothing to the
    // left of it.
    for (uint32_t p = 0; p < 2; ++p) {
        EXPECT_GT(brightIn(with, 512, p * 256 + 160, 0, 96, 256), 30u) << "panel " << p;
        EXPECT_EQ(brightIn(with, 512, p * 256, 0, 120, 256), 0u) << "panel " << p;
    }
}

struct Anchor {
    float x, y, z;
    uint32_t string;
};

// Text and labels go into the annotation layer's one pass, placed in their panel of the picture:
// a screen text 10 pixels into panel 1 and a label at the centre of panel 1's field light panel 1
// only, where each was put.
TEST_P(AnnotationsDrawn, TextAndLabelsOfAPanelAreDrawnInsideItOnly) {
    Viewer& v = open(drawn(2, 512, 256));
    v.setLayout(1, 2);
    Image a = v.image(hostImage(32, 32, "A")), b = v.image(hostImage(32, 32, "B"));
    const View va = v.fieldView({.image = a.get(), .flags = ESTUARY_VIEW_NO_COLORBAR});
    const View vb = v.fieldView({.image = b.get(), .flags = ESTUARY_VIEW_NO_COLORBAR});
    vb.setPanel(1);
    estuary_text_view_desc text{};
    text.text = "Hi";
    text.position[0] = 10.0f, text.position[1] = 40.0f;
    text.size = 24.0f;
    const View t = v.textView(text);
    t.setPanel(1);
    Buffer anchors = v.buffer({.size = sizeof(Anchor), .writer = ESTUARY_WRITER_HOST});
    estuary_labels_view_desc labels{};
    labels.buffer = anchors.get();
    labels.size = 24.0f;
    labels.align = ESTUARY_TEXT_ALIGN_CENTER;
    labels.valign = ESTUARY_TEXT_VALIGN_MIDDLE;
    const View l = v.labelsView(labels, {"XX"});
    l.setPanel(1);
    {
        const Frame f = v.beginFrame();
        std::fill_n(f.hostLevel<float>(a), 32 * 32, 0.0f);
        std::fill_n(f.hostLevel<float>(b), 32 * 32, 0.0f);
        const Anchor centre{16.0f, 16.0f, 0.0f, 0};
        std::memcpy(f.hostPointer(anchors), &centre, sizeof(centre));
        f.end();
    }
    v.finish();
    std::vector<uint8_t> rgba(size_t(512) * 256 * 4);
    check(estuary_read_pixels(v.get(), rgba.data(), rgba.size()));
    EXPECT_EQ(brightIn(rgba, 512, 0, 0, 256, 256), 0u) << "panel 0 shows nothing";
    EXPECT_GT(brightIn(rgba, 512, 256 + 8, 16, 40, 28), 20u) << "no text at (10, 40) in panel 1";
    EXPECT_GT(brightIn(rgba, 512, 256 + 108, 112, 40, 32), 20u) << "no label at panel 1's centre";
    EXPECT_EQ(brightIn(rgba, 512, 256 + 160, 0, 96, 256), 0u) << "nothing in panel 1's right";
}

// estuary_frame_stats.annotations_ms: measured (finite, within the draw) in frames whose
// annotation layer draws, NaN in frames where it has nothing to draw.
TEST_P(AnnotationsDrawn, TheFrameStatsTimeTheAnnotationLayerWhereItDraws) {
    Viewer& v = open(drawn(2, 256, 128));
    Image a = v.image(hostImage(32, 32, "A"));
    const View va = v.fieldView({.image = a.get(), .flags = ESTUARY_VIEW_NO_COLORBAR});
    const auto frames = [&](int n) {
        for (int i = 0; i < n; ++i) {
            const Frame f = v.beginFrame();
            std::fill_n(f.hostLevel<float>(a), 32 * 32, 0.5f);
            f.end();
        }
        v.finish();
        std::vector<estuary_frame_stats> all;
        estuary_frame_stats s{};
        s.struct_size = sizeof(s);
        while (estuary_next_frame_stats(v.get(), &s) == ESTUARY_OK)
            all.push_back(s);
        return all;
    };
    const std::vector<estuary_frame_stats> plain = frames(3);
    ASSERT_EQ(plain.size(), 3u);
    for (const estuary_frame_stats& s : plain)
        EXPECT_TRUE(std::isnan(s.annotations_ms)) << "frame " << s.frame;
    estuary_panel_desc titled{};
    titled.title = "Temperature";
    titled.flags = ESTUARY_PANEL_AXES;
    v.setPanel(0, titled);
    const std::vector<estuary_frame_stats> annotated = frames(3);
    ASSERT_EQ(annotated.size(), 3u);
    for (const estuary_frame_stats& s : annotated) { // lavapipe and NVIDIA write timestamps
        ASSERT_FALSE(std::isnan(s.draw_ms)) << "frame " << s.frame;
        EXPECT_GE(s.annotations_ms, 0.0) << "frame " << s.frame;
        EXPECT_LE(s.annotations_ms, s.draw_ms) << "frame " << s.frame;
    }
}

// A time axis (ESTUARY_PANEL_TIME_X): x cells an hour apart from 2026-03-05 00:00 UTC draw clock
// times below the plot, as a plain axis does numbers; a log time axis and a time origin that is
// not finite are refused, saying why, and leave the panel as it was.
TEST_P(AnnotationsDrawn, ATimeAxisIsDrawnAndBadTimeSettingsAreRefused) {
    Viewer& v = open(drawn(2, 512, 256));
    estuary_panel_desc time{};
    time.struct_size = sizeof(time);
    time.flags = ESTUARY_PANEL_AXES | ESTUARY_PANEL_TIME_X;
    time.time_origin = 1772668800.0; // 2026-03-05 00:00:00 UTC
    time.axis_titles[0] = "time [UTC]";
    v.setPanel(0, time);
    estuary_image_desc d = hostImage(48, 16, "hourly");
    d.spacing[0] = 3600.0f; // 48 hours
    Image a = v.image(d);
    const View va = v.fieldView({.image = a.get(), .flags = ESTUARY_VIEW_NO_COLORBAR});
    {
        const Frame f = v.beginFrame();
        std::fill_n(f.hostLevel<float>(a), 48 * 16, 0.0f);
        f.end();
    }
    v.finish();
    std::vector<uint8_t> rgba(size_t(512) * 256 * 4);
    check(estuary_read_pixels(v.get(), rgba.data(), rgba.size()));
    EXPECT_GT(brightIn(rgba, 512, 0, 200, 512, 56), 60u) << "no time labels below the plot";

    estuary_panel_desc bad = time;
    bad.flags |= ESTUARY_PANEL_LOG_X;
    EXPECT_EQ(estuary_set_panel(v.get(), 0, &bad), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("ESTUARY_PANEL_LOG_X"), std::string::npos);
    bad = time;
    bad.time_origin = NAN;
    EXPECT_EQ(estuary_set_panel(v.get(), 0, &bad), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("time_origin"), std::string::npos);
}

TEST_F(LibraryAnnotations, BadPanelTextsAreRefusedNamingTheField) {
    Viewer& v = open(headless(2, 64, 64));
    estuary_panel_desc d{};
    d.axis_titles[1] = "\xff";
    EXPECT_REFUSED(v.setPanel(0, d), ESTUARY_ERROR_INVALID_ARGUMENT, "axis_titles[1]", "UTF-8");
    d.axis_titles[1] = nullptr;
    const std::string long_(300, 'x');
    d.title = long_.c_str();
    EXPECT_REFUSED(v.setPanel(0, d), ESTUARY_ERROR_INVALID_ARGUMENT, "title", "300 bytes", "256");
    d.title = nullptr;
    d.flags = ESTUARY_PANEL_TIME_X << 1;
    EXPECT_REFUSED(v.setPanel(0, d), ESTUARY_ERROR_INVALID_ARGUMENT, "unknown flags");
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, AnnotationsDrawn,
                         ::testing::Values(ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE),
                         [](const auto& path) {
                             return path.param == ESTUARY_DRAW_RASTER ? "Raster" : "Compute";
                         });

} // namespace
} // namespace estuary
