// A panel's annotations laid out (viewer/annotations/annotation_layout.h), measured with a
// fixed-width stand-in for the font: nothing overlaps, everything stays in the panel, colorbars
// stack apart, ticks land exactly where the camera maps their values, and 3D box axes keep out of
// the title's and the colorbars' bands.
#include "annotation_layout.h"
#include "ticks.h"
#include "box_axes.h"
#include "volume_camera.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>

namespace estuary::annotations {
namespace {

using FixedWidth = FixedWidthMeasure; // 0.6 em a code point, ascent 0.8 em, descent 0.25 em

// A label's value ("−1.5" with U+2212) as a number.
double parseLabel(std::string s) {
    const std::string minus = "\u2212";
    if (s.rfind(minus, 0) == 0) s = "-" + s.substr(minus.size());
    return std::stod(s);
}

PanelAnnotations everything() {
    PanelAnnotations a;
    a.title = "Gray-Scott, frame 1200";
    a.axes = a.grid = true;
    a.x = {-0.5, 1.5, "x [mm]", false};
    a.y = {-1.0, 1.0, "y [mm]", false};
    a.colorbars = {{"concentration u", 1, 0.0, 1.0, 0, {}},
                   {"speed [m/s]", 2, -3.5e-6, 7.25e-6, 0, {}},
                   {"species", 3, 0, 4, 4, {"fox", "hare", "lynx", "vole"}}};
    a.legend = {{{1, 0, 0, 1}, "boids"}, {{0, 1, 0, 1}, "obstacles"}};
    a.scaleBar = {0.004, "mm"};
    return a;
}

void expectReadable(const PanelLayout& out, Rect panel, const std::string& where) {
    for (size_t i = 0; i < out.textBoxes.size(); ++i) {
        const Rect& a = out.textBoxes[i];
        ASSERT_TRUE(panel.contains(a))
            << where << ": '" << out.batch.texts[i].text << "' leaves the panel";
        for (size_t j = i + 1; j < out.textBoxes.size(); ++j)
            ASSERT_FALSE(a.overlaps(out.textBoxes[j]))
                << where << ": '" << out.batch.texts[i].text << "' overlaps '"
                << out.batch.texts[j].text << "'";
    }
    for (size_t i = 0; i < out.colorbars.size(); ++i) {
        EXPECT_TRUE(panel.contains(out.colorbars[i])) << where;
        for (size_t j = i + 1; j < out.colorbars.size(); ++j)
            ASSERT_FALSE(out.colorbars[i].overlaps(out.colorbars[j]))
                << where << ": colorbars " << i << ", " << j;
    }
    for (const AnnotationRamp& r : out.batch.ramps)
        EXPECT_TRUE(panel.contains(Rect{r.x0, r.y0, r.x1, r.y1})) << where;
    for (const AnnotationLine& l : out.batch.lines) {
        EXPECT_TRUE(panel.contains(Rect{l.x0, l.y0, l.x0, l.y0}, 0.5f)) << where;
        EXPECT_TRUE(panel.contains(Rect{l.x1, l.y1, l.x1, l.y1}, 0.5f)) << where;
    }
    EXPECT_EQ(out.batch.clip, (std::array<float, 4>{panel.x0, panel.y0, panel.x1, panel.y1}));
}

TEST(AnnotationLayout, NothingOverlapsOrLeavesThePanelAtAnySizeZoomOrPan) {
    const FixedWidth measure;
    std::mt19937 rng(34);
    std::uniform_real_distribution<float> size(120, 1920), corner(0, 400);
    std::uniform_real_distribution<double> centre(-1e3, 1e3), logSpan(-7, 7);
    for (int i = 0; i < 400; ++i) {
        PanelAnnotations a = everything();
        const double span = std::pow(10.0, logSpan(rng)), cx = centre(rng) * span,
                     cy = centre(rng) * span;
        a.x.atStart = cx - span;
        a.x.atEnd = cx + span;
        a.y.atStart = cy + span * 0.6; // y grows upwards here
        a.y.atEnd = cy - span * 0.6;
        const Rect panel{corner(rng), corner(rng), 0, 0};
        const Rect p{panel.x0, panel.y0, panel.x0 + size(rng), panel.y0 + size(rng) * 0.7f};
        const PanelLayout out = layoutPanel(a, measure, p);
        expectReadable(out, p, "case " + std::to_string(i));
        EXPECT_TRUE(p.contains(out.plot));
        if (p.width() >= 600 && p.height() >= 400) {
            EXPECT_EQ(out.colorbars.size(), 3u);
        }
    }
}

// Every x tick label of a plain axis sits where the mapping sends its value, and its tick line
// too; so does every y label.
// A box larger than the panel, turned all the way round: its labels and lines stay in the plot
// (left of the colorbars, below the title), and nothing overlaps.
TEST(AnnotationLayout, BoxAxesKeepOutOfTheTitleAndColorbarBands) {
    const FixedWidth m(0.6f, 0.8f, 0.25f);
    const Rect panel{0, 0, 500, 380};
    PanelAnnotations a;
    a.title = "particles";
    a.axes = true;
    a.colorbars = {{"heat at the particle", 1, 0.0, 1.0, 0, {}}};
    size_t boxTexts = 0;
    for (int turn = 0; turn < 12; ++turn) {
        BoxAxesDesc b;
        b.min = {0, 0, 0};
        b.max = {32, 32, 32};
        b.titles = {"x [mm]", "y [mm]", "z [mm]"};
        const float yaw = 0.5236f * float(turn);
        b.viewProjection = orbitViewProjection(orbitCamera(yaw, 0.5f, 1.6f, 500, 380), b.min, b.max,
                                               {0.5f, 0.5f, 0.5f});
        a.box = b;
        const PanelLayout out = layoutPanel(a, m, panel);
        const std::string where = "turn " + std::to_string(turn);
        expectReadable(out, panel, where);
        ASSERT_LT(out.plot.x1, panel.x1 - 50) << where << ": no colorbar band";
        ASSERT_GT(out.plot.y0, panel.y0 + 10) << where << ": no title band";
        for (size_t i = 0; i < out.textBoxes.size(); ++i) {
            const std::string& t = out.batch.texts[i].text;
            if (t == a.title || out.textBoxes[i].x0 >= out.plot.x1) continue; // the bands' own
            ++boxTexts;
            EXPECT_TRUE(out.plot.contains(out.textBoxes[i])) << where << ": '" << t << "'";
        }
        for (const AnnotationLine& l : out.batch.lines) {
            if (std::min(l.x0, l.x1) >= out.plot.x1 - 0.5f) continue; // the colorbar's ticks
            EXPECT_TRUE(out.plot.contains(Rect{l.x0, l.y0, l.x0, l.y0}, 0.5f) &&
                        out.plot.contains(Rect{l.x1, l.y1, l.x1, l.y1}, 0.5f))
                << where << ": a line from (" << l.x0 << ", " << l.y0 << ") to (" << l.x1 << ", "
                << l.y1 << ") leaves the plot";
        }
    }
    EXPECT_GT(boxTexts, 12u * 4u) << "too few box labels to tell";
}

TEST(AnnotationLayout, TicksLandExactlyWhereTheirValuesMap) {
    const FixedWidth measure;
    const Rect panel{100, 50, 900, 650};
    for (double pan : {0.0, 0.37, -12.5}) {
        for (double zoom : {1.0, 3.0, 0.01}) {
            PanelAnnotations a;
            a.axes = true;
            a.x = {(-1.0 + pan) / zoom, (1.0 + pan) / zoom, "x", false};
            a.y = {(2.0 + pan) / zoom, (-2.0 + pan) / zoom, "y", false};
            const PanelLayout out = layoutPanel(a, measure, panel);
            size_t xLabels = 0, yLabels = 0;
            for (const AnnotationText& t : out.batch.texts) {
                if (t.text == "x" || t.text == "y") continue;
                const double v = parseLabel(t.text);
                if (t.alignY == AlignY::Top && t.alignX == AlignX::Centre) {
                    const double want =
                        panel.x0 + (v - a.x.atStart) / (a.x.atEnd - a.x.atStart) * panel.width();
                    EXPECT_NEAR(t.x, want, 1e-3) << t.text;
                    ++xLabels;
                    bool tick = false;
                    for (const AnnotationLine& l : out.batch.lines)
                        tick = tick || (l.x0 == t.x && l.x1 == t.x && l.y0 == out.plot.y1);
                    EXPECT_TRUE(tick) << "no tick under " << t.text;
                } else if (t.alignX == AlignX::Right && t.alignY == AlignY::Middle) {
                    const double want =
                        panel.y0 + (v - a.y.atStart) / (a.y.atEnd - a.y.atStart) * panel.height();
                    EXPECT_NEAR(t.y, want, 1e-3) << t.text;
                    ++yLabels;
                }
            }
            EXPECT_GE(xLabels, 3u) << "pan " << pan << " zoom " << zoom;
            EXPECT_GE(yLabels, 3u) << "pan " << pan << " zoom " << zoom;
        }
    }
}

TEST(AnnotationLayout, LogAxesTickPowersOfTenWhereTheirLogarithmsMap) {
    const FixedWidth measure;
    const Rect panel{0, 0, 800, 600};
    PanelAnnotations a;
    a.axes = true;
    a.x = {-3.0, 5.0, "frequency [Hz]", true}; // 10⁻³ .. 10⁵
    a.y = {1.0, 0.0, "", false};
    const PanelLayout out = layoutPanel(a, measure, panel);
    size_t decades = 0;
    for (const AnnotationText& t : out.batch.texts) {
        if (t.alignY != AlignY::Top || t.alignX != AlignX::Centre) continue;
        const double v = parseLabel(t.text);
        EXPECT_NEAR(std::log10(v), std::round(std::log10(v)), 1e-9) << t.text;
        EXPECT_NEAR(t.x, (std::log10(v) + 3.0) / 8.0 * 800.0, 1e-3) << t.text;
        ++decades;
    }
    EXPECT_GE(decades, 5u);
}

TEST(AnnotationLayout, TheYTitleIsTurnedAQuarterAndTheTitleSitsAbove) {
    const FixedWidth measure;
    const Rect panel{0, 0, 640, 480};
    const PanelLayout out = layoutPanel(everything(), measure, panel);
    bool yTitle = false, title = false;
    for (size_t i = 0; i < out.batch.texts.size(); ++i) {
        const AnnotationText& t = out.batch.texts[i];
        if (t.text == "y [mm]") {
            yTitle = true;
            EXPECT_EQ(t.rotationDegrees, 90.0f);
            EXPECT_LT(out.textBoxes[i].x1, out.plot.x0);
            EXPECT_GT(out.textBoxes[i].height(), out.textBoxes[i].width());
        }
        if (t.text == "Gray-Scott, frame 1200") {
            title = true;
            EXPECT_LE(out.textBoxes[i].y1, out.plot.y0);
        }
    }
    EXPECT_TRUE(yTitle);
    EXPECT_TRUE(title);
    // The colorbars lie right of the plot, stacked top to bottom in one column.
    ASSERT_EQ(out.colorbars.size(), 3u);
    for (const Rect& c : out.colorbars)
        EXPECT_GE(c.x0, out.plot.x1);
    EXPECT_LE(out.colorbars[0].y1, out.colorbars[1].y0);
}

TEST(AnnotationLayout, ACategoricalColorbarNamesItsEntriesAndTheLegendItsViews) {
    const FixedWidth measure;
    const PanelLayout out = layoutPanel(everything(), measure, Rect{0, 0, 1200, 900});
    for (const char* name : {"fox", "hare", "lynx", "vole", "boids", "obstacles", "species"}) {
        bool found = false;
        for (const AnnotationText& t : out.batch.texts)
            found = found || t.text == name;
        EXPECT_TRUE(found) << name;
    }
    ASSERT_EQ(out.batch.ramps.size(), 3u);
    EXPECT_EQ(out.batch.ramps[2].entries, 4u);
    EXPECT_EQ(out.batch.ramps[2].colormap, 3u);
}

TEST(AnnotationLayout, TheScaleBarIsARoundLengthAtTheBottomLeft) {
    const FixedWidth measure;
    PanelAnnotations a;
    a.scaleBar = {0.37, "\u00b5m"}; // a fifth of 1000 px is 74 µm: the bar says 50 µm
    const PanelLayout out = layoutPanel(a, measure, Rect{0, 0, 1000, 800});
    ASSERT_EQ(out.batch.texts.size(), 1u);
    EXPECT_EQ(out.batch.texts[0].text, "50 \u00b5m");
    ASSERT_EQ(out.batch.rects.size(), 2u);
    const AnnotationRect& bar = out.batch.rects[1];
    EXPECT_NEAR(bar.x1 - bar.x0, 50.0 / 0.37, 1e-3);
    EXPECT_LT(bar.x0, 100.0f);
    EXPECT_GT(bar.y0, 700.0f);
}

TEST(AnnotationLayout, DegenerateMappingsDrawNoTicksAndNonFiniteOnesAreRefused) {
    const FixedWidth measure;
    PanelAnnotations a;
    a.axes = true;
    a.x = {2.0, 2.0, "x", false};
    const PanelLayout out = layoutPanel(a, measure, Rect{0, 0, 400, 300});
    for (const AnnotationText& t : out.batch.texts)
        EXPECT_TRUE(t.text == "x" || t.text == "y") << t.text;
    a.x.atEnd = std::nan("");
    try {
        layoutPanel(a, measure, Rect{0, 0, 400, 300});
        FAIL() << "NaN mapping accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("x axis"), std::string::npos) << e.what();
    }
}

TEST(AnnotationLayout, TextBoxesFollowAlignmentAndRotation) {
    const FixedWidth measure;
    AnnotationText t;
    t.text = "abcd"; // 4 * 6 = 24 wide at size 10; ascent 8, descent 2.5
    t.sizePixels = 10;
    t.x = 100;
    t.y = 50;
    t.alignX = AlignX::Centre;
    t.alignY = AlignY::Baseline;
    Rect r = textBox(t, measure);
    EXPECT_NEAR(r.x0, 88, 1e-4);
    EXPECT_NEAR(r.x1, 112, 1e-4);
    EXPECT_NEAR(r.y0, 42, 1e-4);
    EXPECT_NEAR(r.y1, 52.5, 1e-4);
    // A quarter turn counter-clockwise reads upwards: the text's top faces left.
    t.alignX = AlignX::Left;
    t.alignY = AlignY::Top;
    t.rotationDegrees = 90;
    r = textBox(t, measure);
    EXPECT_NEAR(r.x0, 100, 1e-4);
    EXPECT_NEAR(r.x1, 110.5, 1e-4);
    EXPECT_NEAR(r.y0, 26, 1e-4);
    EXPECT_NEAR(r.y1, 50, 1e-4);
}

} // namespace
} // namespace estuary::annotations
