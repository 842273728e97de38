// What a picture says besides its views: text, lines, filled rectangles and colormap ramps in the
// picture's pixels (origin at the top-left corner, y down), the words and marks of axes,
// colorbars, legends, titles and scale bars. The layout (viewer/annotations/) fills a batch each
// frame; the text renderer (renderer/text.*) draws it after the views, with signed-distance-field
// glyphs. Pure data, no Vulkan, so that layout is tested on the CPU.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace estuary {

using Rgba = std::array<float, 4>; // sRGB-encoded, 0..1, straight alpha

enum class AlignX : uint8_t { Left, Centre, Right };
enum class AlignY : uint8_t { Top, Middle, Baseline, Bottom };

// A run of UTF-8 text whose anchor (x, y) is the point `alignX`/`alignY` names on its box
// (Baseline: the first line's baseline). Rotated counter-clockwise by `rotationDegrees` about the
// anchor (90: reads bottom to top, as a y axis's title).
struct AnnotationText {
    std::string text;
    float x = 0.0f, y = 0.0f;
    float sizePixels = 14.0f; // the em size
    Rgba color{1.0f, 1.0f, 1.0f, 1.0f};
    AlignX alignX = AlignX::Left;
    AlignY alignY = AlignY::Baseline;
    float rotationDegrees = 0.0f;
};

// A segment from (x0, y0) to (x1, y1), `widthPixels` wide, antialiased.
struct AnnotationLine {
    float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
    float widthPixels = 1.0f;
    Rgba color{1.0f, 1.0f, 1.0f, 1.0f};
};

// A filled rectangle [x0, x1) x [y0, y1) (legend and label backgrounds, a scale bar).
struct AnnotationRect {
    float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
    Rgba color{0.0f, 0.0f, 0.0f, 0.5f};
};

// A colormap's row of the kit's atlas over a rectangle: from its start at the bottom (vertical) or
// the left to its end; a categorical palette of `entries` entries shown as that many blocks.
struct AnnotationRamp {
    float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
    uint32_t colormap = 0; // atlas row (an estuary_colormap value)
    bool vertical = true;
    uint32_t entries = 0; // 0: continuous
};

// Drawn in this order: rectangles, ramps, lines, texts (text above everything). `clip` bounds all
// of it (a panel's rectangle); all zero: the whole picture.
struct AnnotationBatch {
    std::vector<AnnotationRect> rects;
    std::vector<AnnotationRamp> ramps;
    std::vector<AnnotationLine> lines;
    std::vector<AnnotationText> texts;
    std::array<float, 4> clip{}; // x0, y0, x1, y1
    bool empty() const { return rects.empty() && ramps.empty() && lines.empty() && texts.empty(); }
};

// Text's extent as the font draws it, for layout: a line's advance width and the font's vertical
// metrics, all in pixels at `sizePixels`. Implemented by the font atlas (renderer/font_atlas.*);
// tests may use a fixed-width stand-in.
class TextMeasure {
  public:
    virtual ~TextMeasure() = default;
    virtual float width(std::string_view utf8, float sizePixels) const = 0;
    virtual float ascent(float sizePixels) const = 0;  // baseline to the top of tall glyphs, > 0
    virtual float descent(float sizePixels) const = 0; // baseline to the bottom of descenders, > 0
};

} // namespace estuary
