// The text and labels views (estuary_add_text_view, estuary_add_labels_view) headless on lavapipe
// under validation, by both draw paths: screen-anchored text at its pixels and sizes, hidden and
// changed between frames; world-anchored text following zoom and pan, and in 3D; labels at
// anchors a buffer holds (host-written here; tests/gpu writes them from CUDA), an index past the
// table drawing nothing, agreeing with world text at the same point; and the errors bad
// descriptions get.
#include "library_support.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace estuary {
namespace {

constexpr int kSide = 128;

struct Lit {
    int x0 = kSide, y0 = kSide, x1 = -1, y1 = -1; // inclusive; x1 < 0: nothing lit
    int count = 0;
    bool empty() const { return x1 < 0; }
    float cx() const { return 0.5f * float(x0 + x1 + 1); }
    float cy() const { return 0.5f * float(y0 + y1 + 1); }
};

struct Anchor {
    float x, y, z;
    uint32_t string;
};

class TextTest : public LibraryTest, public ::testing::WithParamInterface<estuary_draw_path> {
  protected:
    void SetUp() override {
        ViewerDesc d = headless(2, kSide, kSide);
        d.draw_path = GetParam();
        open(d);
    }
    // The pixels brighter than the background (20, 20, 26) in red by more than `threshold`, in
    // `region` (x0, y0, x1, y1 exclusive; default: all).
    Lit lit(const std::vector<uint8_t>& rgba, int threshold = 100,
            std::array<int, 4> region = {0, 0, kSide, kSide}) {
        Lit l;
        for (int y = region[1]; y < region[3]; ++y)
            for (int x = region[0]; x < region[2]; ++x)
                if (pixelAt(rgba, uint32_t(x), uint32_t(y))[0] > 20 + threshold) {
                    l.x0 = std::min(l.x0, x), l.y0 = std::min(l.y0, y);
                    l.x1 = std::max(l.x1, x), l.y1 = std::max(l.y1, y);
                    ++l.count;
                }
        return l;
    }
    std::vector<uint8_t> frame() {
        viewer->beginFrame().end();
        return pixels();
    }
    static estuary_text_view_desc screenText(const char* text, float x, float y, float size) {
        estuary_text_view_desc d{};
        d.text = text;
        d.position[0] = x, d.position[1] = y;
        d.size = size;
        return d;
    }
    // A labels view over `anchors` (written by the host), strings `strings`.
    std::vector<uint8_t> labels(estuary_labels_view_desc d, const std::vector<Anchor>& anchors,
                                const std::vector<std::string>& strings) {
        Buffer buffer = viewer->buffer(
            {.size = anchors.size() * sizeof(Anchor), .writer = ESTUARY_WRITER_HOST});
        d.buffer = buffer.get();
        View view = viewer->labelsView(d, strings);
        const Frame f = viewer->beginFrame();
        std::memcpy(f.hostPointer(buffer), anchors.data(), anchors.size() * sizeof(Anchor));
        f.end();
        std::vector<uint8_t> rgba = pixels();
        viewer->destroyView(view);
        return rgba;
    }
};

TEST_P(TextTest, ScreenTextDrawsAtItsPixelsAndNowhereElse) {
    View text = viewer->textView(screenText("Hi", 20.0f, 60.0f, 32.0f));
    const std::vector<uint8_t> rgba = frame();
    const Lit l = lit(rgba);
    ASSERT_FALSE(l.empty()) << "no text drawn";
    // Baseline-left: the ink starts a few pixels right of x = 20 and sits on y = 60.
    EXPECT_GE(l.x0, 21);
    EXPECT_LE(l.x0, 26);
    EXPECT_NEAR(l.y1, 59, 1);
    EXPECT_NEAR(l.y0, 60 - 0.73f * 32.0f, 2.0f); // DejaVu's cap height
    EXPECT_LT(l.x1, 20 + 32);
    EXPECT_EQ(lit(rgba, 10, {0, 0, kSide, 30}).count, 0);
    EXPECT_EQ(lit(rgba, 10, {0, 62, kSide, kSide}).count, 0);
    EXPECT_EQ(lit(rgba, 10, {60, 0, kSide, kSide}).count, 0);
}

TEST_P(TextTest, SizeScalesTheTextAndParamsChangeIt) {
    View text = viewer->textView(screenText("HH", 10.0f, 100.0f, 12.0f));
    const Lit small = lit(frame(), 60);
    text.update([](estuary_view_params& p) { p.point_size = 48.0f; });
    const Lit large = lit(frame(), 60);
    ASSERT_FALSE(small.empty() || large.empty());
    EXPECT_NEAR(float(large.x1 - large.x0 + 1), 4.0f * float(small.x1 - small.x0 + 1), 4.0f);
    EXPECT_NEAR(float(large.y1 - large.y0 + 1), 4.0f * float(small.y1 - small.y0 + 1), 4.0f);
}

TEST_P(TextTest, HiddenTextAndEmptyTextDrawNothingAndSetTextChangesIt) {
    View text = viewer->textView(screenText("abc", 10.0f, 60.0f, 24.0f));
    const Lit abc = lit(frame());
    text.setVisible(false);
    EXPECT_TRUE(lit(frame(), 5).empty());
    text.setVisible(true);
    text.setText("");
    EXPECT_TRUE(lit(frame(), 5).empty());
    text.setText("abcabc");
    const Lit longer = lit(frame());
    EXPECT_GT(longer.x1, abc.x1 + 20);
    text.setText("\xC3\x28 bad UTF-8"); // draws a replacement glyph, fails nothing
    EXPECT_FALSE(lit(frame()).empty());
}

TEST_P(TextTest, WorldTextFollowsZoomAndPan) {
    // No field below: the unit square fills the 128 x 128 picture, (x, y) at (128 x, 128 y).
    estuary_text_view_desc d = screenText("+", 0.625f, 0.5f, 24.0f);
    d.flags = ESTUARY_TEXT_WORLD;
    d.align = ESTUARY_TEXT_ALIGN_CENTER;
    d.valign = ESTUARY_TEXT_VALIGN_MIDDLE;
    View text = viewer->textView(d);
    const Lit at = lit(frame());
    EXPECT_NEAR(at.cx(), 80.0f, 1.5f);
    estuary_camera camera = viewer->camera();
    camera.zoom = 2.0f; // the point 0.125 right of the centre: 2 x 16 pixels right of it
    viewer->setCamera(camera);
    EXPECT_NEAR(lit(frame()).cx(), 96.0f, 1.5f);
    camera.zoom = 1.0f;
    camera.pan_x = 0.125f; // the point now at the centre
    viewer->setCamera(camera);
    EXPECT_NEAR(lit(frame()).cx(), 64.0f, 1.5f);
}

TEST_P(TextTest, WorldTextIn3dProjectsUnderTheOrbitCamera) {
    estuary_text_view_desc d = screenText("+", 0.0f, 0.0f, 24.0f);
    d.flags = ESTUARY_TEXT_3D;
    d.align = ESTUARY_TEXT_ALIGN_CENTER;
    d.valign = ESTUARY_TEXT_VALIGN_MIDDLE;
    View centre = viewer->textView(d); // the box's centre: the picture's centre at any angle
    const Lit l = lit(frame());
    EXPECT_NEAR(l.cx(), 64.0f, 1.5f);
    EXPECT_NEAR(l.cy(), 64.0f, 3.0f); // '+' sits a little above the em box's middle
    centre.setVisible(false);
    d.position[0] = 0.5f; // a corner of the unit box moves as the camera turns
    d.position[1] = -0.5f;
    d.position[2] = 0.5f;
    View corner = viewer->textView(d);
    const Lit before = lit(frame());
    estuary_camera camera = viewer->camera();
    camera.yaw_degrees += 40.0f;
    viewer->setCamera(camera);
    const Lit after = lit(frame());
    ASSERT_FALSE(before.empty() || after.empty());
    EXPECT_GT(std::abs(after.cx() - before.cx()), 5.0f);
}

TEST_P(TextTest, LabelsDrawTheirStringsAtTheirAnchorsAndSkipBadIndices) {
    estuary_labels_view_desc d{};
    d.size = 20.0f;
    d.align = ESTUARY_TEXT_ALIGN_CENTER;
    d.valign = ESTUARY_TEXT_VALIGN_MIDDLE;
    const std::vector<uint8_t> rgba =
        labels(d, {{0.25f, 0.25f, 0.0f, 0}, {0.5f, 0.75f, 0.0f, 1}, {0.75f, 0.25f, 0.0f, 99}},
               {"A", "WWW"});
    const Lit a = lit(rgba, 100, {0, 0, 64, 64});
    const Lit www = lit(rgba, 100, {0, 64, kSide, kSide});
    ASSERT_FALSE(a.empty() || www.empty());
    EXPECT_NEAR(a.cx(), 32.0f, 1.5f);
    EXPECT_NEAR(a.cy(), 32.0f, 3.0f);
    EXPECT_NEAR(www.cx(), 64.0f, 1.5f);
    EXPECT_GT(www.x1 - www.x0, 2 * (a.x1 - a.x0));
    EXPECT_TRUE(lit(rgba, 5, {64, 0, kSide, 64}).empty()) << "index 99 is past the table";
}

TEST_P(TextTest, LabelsAgreeWithWorldTextAndCountLimitsThem) {
    estuary_text_view_desc t = screenText("Hg", 0.3f, 0.6f, 22.0f);
    t.flags = ESTUARY_TEXT_WORLD;
    View text = viewer->textView(t);
    const std::vector<uint8_t> fromText = frame();
    text.setVisible(false);
    estuary_labels_view_desc d{};
    d.size = 22.0f;
    const std::vector<uint8_t> fromLabels =
        labels(d, {{0.3f, 0.6f, 0.0f, 0}, {0.7f, 0.2f, 0.0f, 0}}, {"Hg"});
    const Lit lt = lit(fromText, 1), ll = lit(fromLabels, 1, {0, 0, kSide, kSide});
    const Lit second = lit(fromLabels, 1, {70, 0, kSide, 40});
    EXPECT_FALSE(second.empty());
    const Lit first = lit(fromLabels, 1, {0, 40, 70, kSide});
    EXPECT_EQ(first.x0, lt.x0);
    EXPECT_EQ(first.y0, lt.y0);
    EXPECT_EQ(first.x1, lt.x1);
    EXPECT_EQ(first.y1, lt.y1);
    (void)ll;
    d.count = 1; // only the first anchor
    const std::vector<uint8_t> one =
        labels(d, {{0.3f, 0.6f, 0.0f, 0}, {0.7f, 0.2f, 0.0f, 0}}, {"Hg"});
    EXPECT_TRUE(lit(one, 5, {70, 0, kSide, 40}).empty());
}

TEST_P(TextTest, LabelsIn3dPlaceTheBoxCentreAtThePictureCentre) {
    estuary_labels_view_desc d{};
    d.size = 24.0f;
    d.flags = ESTUARY_LABELS_3D;
    d.align = ESTUARY_TEXT_ALIGN_CENTER;
    const Lit l = lit(labels(d, {{0.0f, 0.0f, 0.0f, 0}, {NAN, 0.0f, 0.0f, 0}}, {"I"}));
    ASSERT_FALSE(l.empty());
    EXPECT_NEAR(l.cx(), 64.0f, 1.5f);
    EXPECT_LT(l.y1, 64); // baseline at the anchor: the ink above it
}

TEST_P(TextTest, BadDescriptionsAreRefusedNamingTheValue) {
    estuary_text_view_desc t = screenText("x", 0, 0, 0);
    t.color[0] = 2.0f;
    EXPECT_REFUSED(viewer->textView(t), ESTUARY_ERROR_INVALID_ARGUMENT, "estuary_add_text_view",
                   "color[0]");
    t = screenText("x", 0, 0, -1.0f);
    EXPECT_REFUSED(viewer->textView(t), ESTUARY_ERROR_INVALID_ARGUMENT, "size");
    t = screenText("x", 0, 0, 0);
    t.align = outOfRange<estuary_text_align>(7);
    EXPECT_REFUSED(viewer->textView(t), ESTUARY_ERROR_INVALID_ARGUMENT, "align 7");
    t = screenText("x", 0, 0, 0);
    t.flags = 0x4000;
    EXPECT_REFUSED(viewer->textView(t), ESTUARY_ERROR_INVALID_ARGUMENT, "flags");
    Buffer anchors = viewer->buffer({.size = 64, .writer = ESTUARY_WRITER_HOST});
    estuary_labels_view_desc d{};
    d.buffer = anchors.get();
    EXPECT_REFUSED(viewer->labelsView(d), ESTUARY_ERROR_INVALID_ARGUMENT, "estuary_add_labels_view",
                   "string_count 0");
    d.count = 5;
    EXPECT_REFUSED(viewer->labelsView(d, {"a"}), ESTUARY_ERROR_INVALID_ARGUMENT, "count 5");
    d.count = 0;
    d.attributes[ESTUARY_CHANNEL_VALUE] = attribute(anchors, ESTUARY_ATTRIBUTE_F32);
    EXPECT_REFUSED(viewer->labelsView(d, {"a"}), ESTUARY_ERROR_INVALID_ARGUMENT, "VALUE");
    // estuary_set_text is a text view's.
    d.attributes[ESTUARY_CHANNEL_VALUE] = {};
    View labelsView = viewer->labelsView(d, {"a"});
    EXPECT_REFUSED(labelsView.setText("x"), ESTUARY_ERROR_INVALID_ARGUMENT, "not a text view");
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, TextTest,
                         ::testing::Values(ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE),
                         [](const auto& path) {
                             return path.param == ESTUARY_DRAW_RASTER ? "Raster" : "Compute";
                         });

} // namespace
} // namespace estuary
