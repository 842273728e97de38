// What a panel says besides its views, laid out into an AnnotationBatch (renderer/annotation.h):
// 2D axes (lines, ticks, tick labels, titles, faint grid lines), colorbars stacked at the right
// edge, a categorical legend, a title above and a scale bar, plus 3D box axes and the orientation
// gizmo (box_axes.h). Pure: no Vulkan, no viewer; the frame calls layoutPanel for each panel each
// frame, and panel_annotations.h fills PanelAnnotations from a viewer.
//
// Placement: the views keep the whole panel and the annotations are drawn over the picture. What
// takes room (the title above, the axes' labels left and below, the colorbars right) lies in bands
// along the panel's edges behind a translucent backing, and the axes frame the rectangle that
// remains (PanelLayout::plot), so the picture never moves or rescales when ticks change and a
// tick lands exactly where the camera draws its value. Labels that would overlap one another or
// leave the panel are left out, never drawn on top of each other.
#pragma once

#include "annotation.h"

#include <glm/mat4x4.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace estuary::annotations {

struct Rect {
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    float width() const { return x1 - x0; }
    float height() const { return y1 - y0; }
    bool contains(const Rect& r, float slack = 0.01f) const {
        return r.x0 >= x0 - slack && r.y0 >= y0 - slack && r.x1 <= x1 + slack && r.y1 <= y1 + slack;
    }
    bool overlaps(const Rect& r) const { return r.x0 < x1 && x0 < r.x1 && r.y0 < y1 && y0 < r.y1; }
    bool operator==(const Rect&) const = default;
};

// One axis of a 2D plot: the camera's mapping of panel pixels to the axis's coordinate, which is
// linear in pixels: `atStart` at the panel's left edge (x) or top edge (y), `atEnd` at its right
// or bottom edge (a y that grows downwards, as image rows do, has atStart < atEnd). Log axes: the
// coordinate is log10 of the value (the views draw log10 of their data), the ticks at values.
struct AxisMapping {
    double atStart = 0.0, atEnd = 1.0;
    std::string title; // with its units: "x [mm]"
    bool log = false;
    // A time axis: the coordinate is seconds after `timeOrigin` (seconds since 1970-01-01 UTC),
    // ticked on the calendar (ticks.h).
    bool time = false;
    double timeOrigin = 0.0;
    bool operator==(const AxisMapping&) const = default;
};

struct ColorbarDesc {
    std::string name;
    uint32_t colormap = 0; // the atlas row
    double min = 0.0, max = 1.0;
    // Categorical palettes: the number of entries (blocks) and their names
    // (estuary_set_view_legend; fewer names than entries: the rest numbered). 0: a continuous ramp.
    uint32_t entries = 0;
    std::vector<std::string> names;
    bool operator==(const ColorbarDesc&) const = default;
};

struct LegendEntry {
    Rgba color{1, 1, 1, 1};
    std::string name;
    bool operator==(const LegendEntry&) const = default;
};

struct ScaleBarDesc {
    double unitsPerPixel = 0.0; // 0: no scale bar
    std::string unit;           // "mm"
    bool operator==(const ScaleBarDesc&) const = default;
};

struct AnnotationStyle {
    float labelSize = 13.0f, titleSize = 16.0f, axisTitleSize = 14.0f;
    float tickLength = 5.0f, minorTickLength = 3.0f, padding = 4.0f;
    float colorbarWidth = 14.0f, colorbarMinHeight = 60.0f;
    Rgba text{0.92f, 0.92f, 0.92f, 1.0f};
    Rgba line{0.85f, 0.85f, 0.85f, 1.0f};
    Rgba grid{1.0f, 1.0f, 1.0f, 0.15f};
    Rgba backing{0.0f, 0.0f, 0.0f, 0.55f};
    bool operator==(const AnnotationStyle&) const = default;
};

// A 3D picture's box axes (box_axes.h): the box in the user's units and the camera that draws it.
struct BoxAxesDesc {
    // User units to clip coordinates: x/w and y/w are -1..1 across the viewport, +y downwards (the
    // renderer's convention, renderer/volume_camera.h), w > 0 in front of the eye.
    glm::mat4 viewProjection{1.0f};
    std::array<double, 3> min{0, 0, 0}, max{1, 1, 1};
    std::array<std::string, 3> titles{"x", "y", "z"};
    bool gizmo = true;
    bool operator==(const BoxAxesDesc&) const = default;
};

// Comparable, so a frame can keep last frame's layout while nothing it depends on changed.
struct PanelAnnotations {
    std::string title;
    bool axes = false, grid = false;
    AxisMapping x, y;
    std::vector<ColorbarDesc> colorbars;
    std::vector<LegendEntry> legend;
    ScaleBarDesc scaleBar;
    std::optional<BoxAxesDesc> box; // a 3D picture: box axes and gizmo instead of 2D axes
    AnnotationStyle style;
    bool operator==(const PanelAnnotations&) const = default;
};

struct PanelLayout {
    AnnotationBatch batch;
    Rect plot;                   // what the bands leave of the panel: the axes frame it
    std::vector<Rect> textBoxes; // every text's box, for tests and picking
    std::vector<Rect> colorbars; // each colorbar's rectangle (ramp, labels and name)
};

// Text measured without a font: `advance` em a code point, the given ascent and descent (in em).
// For tests and the layout's benchmark, which must not depend on a font file.
class FixedWidthMeasure final : public TextMeasure {
  public:
    explicit FixedWidthMeasure(float advance = 0.6f, float ascent = 0.8f, float descent = 0.25f)
        : advance_(advance), ascent_(ascent), descent_(descent) {}
    float width(std::string_view utf8, float sizePixels) const override {
        float n = 0;
        for (char c : utf8)
            n += (uint8_t(c) & 0xC0) == 0x80 ? 0.0f : 1.0f; // continuation bytes add nothing
        return advance_ * sizePixels * n;
    }
    float ascent(float sizePixels) const override { return ascent_ * sizePixels; }
    float descent(float sizePixels) const override { return descent_ * sizePixels; }

  private:
    float advance_, ascent_, descent_;
};

// The batch for one panel (pixels of the picture, y down). Throws std::invalid_argument for a
// non-finite mapping or colorbar range; a log axis whose range is not positive (zoomed out past
// zero) is ticked linearly instead.
PanelLayout layoutPanel(const PanelAnnotations& what, const TextMeasure& measure, Rect panel);

// The box `text` covers as TextMeasure measures it, rotation included (annotation.h's anchor and
// alignment rules).
Rect textBox(const AnnotationText& text, const TextMeasure& measure);

} // namespace estuary::annotations
