#include "annotation_layout.h"

#include "box_axes.h"
#include "ticks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace estuary::annotations {
namespace {

// Labels stacked up an axis or a colorbar read best a few lines apart (as plotting tools space
// them): each counts as this many label heights when the ticks are chosen.
constexpr float kVerticalLabelRoom = 3.0f;

float lineHeight(const TextMeasure& m, float size) {
    return m.ascent(size) + m.descent(size);
}

// Texts go in through here: one that would leave the panel or overlap a text already placed is
// left out, so labels never sit on top of each other whatever the panel's size.
struct Placer {
    const TextMeasure& measure;
    Rect panel;
    PanelLayout& out;
    bool place(const AnnotationText& text) {
        if (text.text.empty()) return false;
        const Rect box = textBox(text, measure);
        if (!panel.contains(box)) return false;
        for (const Rect& r : out.textBoxes)
            if (r.overlaps(box)) return false;
        out.batch.texts.push_back(text);
        out.textBoxes.push_back(box);
        return true;
    }
};

// Cuts each line from `first` on to `area` (Liang and Barsky's parametric clip); a line wholly
// outside is removed.
void clipLines(std::vector<AnnotationLine>& lines, size_t first, Rect area) {
    size_t kept = first;
    for (size_t i = first; i < lines.size(); ++i) {
        AnnotationLine l = lines[i];
        const float dx = l.x1 - l.x0, dy = l.y1 - l.y0;
        float t0 = 0.0f, t1 = 1.0f;
        bool inside = true;
        const float p[4] = {-dx, dx, -dy, dy};
        const float q[4] = {l.x0 - area.x0, area.x1 - l.x0, l.y0 - area.y0, area.y1 - l.y0};
        for (int k = 0; k < 4 && inside; ++k) {
            if (p[k] == 0.0f) {
                inside = q[k] >= 0.0f;
                continue;
            }
            const float t = q[k] / p[k];
            if (p[k] < 0.0f)
                t0 = std::max(t0, t);
            else
                t1 = std::min(t1, t);
            inside = t0 <= t1;
        }
        if (!inside) continue;
        const AnnotationLine whole = l;
        l.x0 = whole.x0 + t0 * dx, l.y0 = whole.y0 + t0 * dy;
        l.x1 = whole.x0 + t1 * dx, l.y1 = whole.y0 + t1 * dy;
        lines[kept++] = l;
    }
    lines.resize(kept);
}

AnnotationText text(std::string s, float x, float y, float size, const Rgba& color, AlignX ax,
                    AlignY ay, float rotation = 0.0f) {
    AnnotationText t;
    t.text = std::move(s);
    t.x = x;
    t.y = y;
    t.sizePixels = size;
    t.color = color;
    t.alignX = ax;
    t.alignY = ay;
    t.rotationDegrees = rotation;
    return t;
}

void line(AnnotationBatch& b, float x0, float y0, float x1, float y1, const Rgba& color,
          float width = 1.0f) {
    b.lines.push_back(AnnotationLine{x0, y0, x1, y1, width, color});
}

// Shortens `s` (UTF-8) with an ellipsis until it fits `width` pixels.
std::string fitText(std::string s, float width, const TextMeasure& m, float size) {
    if (m.width(s, size) <= width) return s;
    while (!s.empty()) {
        size_t cut = s.size() - 1;
        while (cut > 0 && (uint8_t(s[cut]) & 0xC0) == 0x80)
            --cut; // a whole code point
        s.resize(cut);
        if (m.width(s + "\u2026", size) <= width) return s + "\u2026";
    }
    return s;
}

void requireFinite(double v, const char* what) {
    if (!std::isfinite(v))
        throw std::invalid_argument(std::string(what) + " is not finite (" + std::to_string(v) +
                                    "): the layout needs finite values");
}

// ---- colorbars -----------------------------------------------------------------------------

struct ColorbarPlan {
    const ColorbarDesc* desc = nullptr;
    Ticks ticks;               // continuous
    std::vector<size_t> shown; // categorical: the entries labelled
    std::string name;
    float labelsWidth = 0;
};

// Colorbars stacked top to bottom in columns from the right edge (as many columns as fit in half
// the panel's width; the rest are left out); returns the band's width.
float layoutColorbars(const PanelAnnotations& what, const TextMeasure& m, Rect area, Placer& placer,
                      PanelLayout& out) {
    const AnnotationStyle& s = what.style;
    const size_t count = what.colorbars.size();
    if (count == 0) return 0.0f;
    const float labelH = lineHeight(m, s.labelSize), pad = s.padding;
    const float slotExtra = 2.0f * labelH + 3.0f * pad; // name, half labels at both ends, pads
    const float minSlot = s.colorbarMinHeight + slotExtra;
    const size_t perColumn = std::max<size_t>(1, size_t(std::max(0.0f, area.height()) / minSlot));
    const size_t columns = (count + perColumn - 1) / perColumn;
    float right = area.x1;
    for (size_t c = 0; c < columns; ++c) {
        const size_t first = c * perColumn, last = std::min(count, first + perColumn);
        const float slotH = area.height() / float(last - first);
        const float rampH = std::max(1.0f, slotH - slotExtra);
        std::vector<ColorbarPlan> plans;
        float labelsWidth = 0, namesWidth = 0;
        for (size_t i = first; i < last; ++i) {
            const ColorbarDesc& d = what.colorbars[i];
            requireFinite(d.min, "colorbar minimum");
            requireFinite(d.max, "colorbar maximum");
            ColorbarPlan p;
            p.desc = &d;
            if (d.entries == 0) {
                TickRequest r;
                r.first = d.min;
                r.last = d.max;
                r.lengthPixels = rampH;
                r.labelExtent = [&](const std::string&) { return kVerticalLabelRoom * labelH; };
                r.labelGap = 2.0f;
                r.minor = false;
                p.ticks = computeTicks(r);
                for (const std::string& l : p.ticks.labels)
                    p.labelsWidth = std::max(p.labelsWidth, m.width(l, s.labelSize));
            } else {
                const float block = rampH / float(d.entries);
                const size_t every = size_t(std::ceil((labelH + 1.0f) / std::max(block, 1e-3f)));
                for (size_t e = 0; e < d.entries; e += std::max<size_t>(every, 1)) {
                    p.shown.push_back(e);
                    const std::string n = e < d.names.size() ? d.names[e] : std::to_string(e);
                    p.labelsWidth = std::max(p.labelsWidth, m.width(n, s.labelSize));
                }
            }
            labelsWidth = std::max(labelsWidth, p.labelsWidth);
            namesWidth =
                std::max(namesWidth, m.width(d.name + " " + p.ticks.exponent, s.labelSize));
            plans.push_back(std::move(p));
        }
        const float barPart = s.colorbarWidth + s.tickLength + pad;
        const float columnW =
            std::min(std::max(barPart + labelsWidth, namesWidth) + 2.0f * pad, area.width() * 0.4f);
        // Columns that would leave less than half the panel to the picture are left out.
        if (right - columnW < area.x0 + 0.5f * area.width()) break;
        const float left = right - columnW, x1 = right - pad, x0 = left + pad;
        for (size_t k = 0; k < plans.size(); ++k) {
            ColorbarPlan& p = plans[k];
            const ColorbarDesc& d = *p.desc;
            const float top = area.y0 + float(k) * slotH;
            const float rampY0 = top + pad + labelH + pad + 0.5f * labelH, rampY1 = rampY0 + rampH;
            const float rx0 = x0, rx1 = x0 + s.colorbarWidth;
            out.batch.ramps.push_back(
                AnnotationRamp{rx0, rampY0, rx1, rampY1, d.colormap, true, d.entries});
            line(out.batch, rx0, rampY0, rx1, rampY0, s.line);
            line(out.batch, rx0, rampY1, rx1, rampY1, s.line);
            line(out.batch, rx0, rampY0, rx0, rampY1, s.line);
            line(out.batch, rx1, rampY0, rx1, rampY1, s.line);
            // A common power of ten goes after the name, above the bar.
            const std::string power = p.ticks.exponent.empty() ? "" : " " + p.ticks.exponent;
            const std::string name =
                fitText(d.name, x1 - x0 - m.width(power, s.labelSize), m, s.labelSize) + power;
            placer.place(text(name, x0, top + pad, s.labelSize, s.text, AlignX::Left, AlignY::Top));
            const float lx = rx1 + s.tickLength + pad;
            if (d.entries == 0) {
                const double span = d.max - d.min;
                for (size_t t = 0; t < p.ticks.major.size(); ++t) {
                    const double v = p.ticks.major[t];
                    const float y = span == 0 ? rampY1 : rampY1 - float((v - d.min) / span) * rampH;
                    line(out.batch, rx1, y, rx1 + s.tickLength, y, s.line);
                    placer.place(text(p.ticks.labels[t], lx, y, s.labelSize, s.text, AlignX::Left,
                                      AlignY::Middle));
                }
            } else {
                const float block = rampH / float(d.entries);
                for (size_t e : p.shown) {
                    // Entry 0 at the bottom, as a continuous ramp starts there.
                    const float y = rampY1 - (float(e) + 0.5f) * block;
                    const std::string n = e < d.names.size() ? d.names[e] : std::to_string(e);
                    line(out.batch, rx1, y, rx1 + s.tickLength, y, s.line);
                    placer.place(text(n, lx, y, s.labelSize, s.text, AlignX::Left, AlignY::Middle));
                }
            }
            out.colorbars.push_back(Rect{left, top, right, area.y0 + float(k + 1) * slotH});
        }
        right = left;
    }
    return area.x1 - right;
}

// ---- 2D axes -------------------------------------------------------------------------------

// The axis coordinate at panel pixel `p` (x or y), and the value it stands for.
double axisAt(const AxisMapping& a, float p, float start, float length) {
    return a.atStart + double(p - start) / double(length) * (a.atEnd - a.atStart);
}
double valueOf(const AxisMapping& a, double u) {
    return a.log ? std::pow(10.0, u) : a.time ? a.timeOrigin + u : u;
}
double coordinateOf(const AxisMapping& a, double v) {
    return a.log ? std::log10(v) : a.time ? v - a.timeOrigin : v;
}

// The axis's ticks between pixels p0 and p1 (which map to the plot's ends), or none where the
// values cannot be ticked (a log axis beyond a double's range).
std::optional<Ticks> axisTicks(const AxisMapping& a, float p0, float p1, float start, float length,
                               std::function<float(const std::string&)> extent) {
    TickRequest r;
    r.first = valueOf(a, axisAt(a, p0, start, length));
    r.last = valueOf(a, axisAt(a, p1, start, length));
    if (!std::isfinite(r.first) || !std::isfinite(r.last) ||
        (a.log && (r.first <= 0 || r.last <= 0)))
        return std::nullopt;
    r.log = a.log;
    r.time = a.time;
    r.lengthPixels = std::abs(p1 - p0);
    r.labelExtent = std::move(extent);
    return computeTicks(r);
}

// Pixel of axis value `v` (the inverse of axisAt).
float pixelOf(const AxisMapping& a, double v, float start, float length) {
    return start + float((coordinateOf(a, v) - a.atStart) / (a.atEnd - a.atStart) * double(length));
}

void drawScaleBar(const PanelAnnotations& what, const TextMeasure& m, Rect plot, Placer& placer,
                  PanelLayout& out) {
    const AnnotationStyle& s = what.style;
    const ScaleBarDesc& bar = what.scaleBar;
    if (!(bar.unitsPerPixel > 0) || !std::isfinite(bar.unitsPerPixel)) return;
    const double want = double(plot.width()) * 0.2 * bar.unitsPerPixel;
    if (!(want > 0)) return;
    // The largest round length (1, 2 or 5 times a power of ten) not longer than a fifth of the
    // plot.
    const double step = std::pow(10.0, std::floor(std::log10(want)));
    double length = step;
    for (double c : {5 * step, 2 * step})
        if (c <= want * (1 + 1e-9)) {
            length = c;
            break;
        }
    const float pixels = float(length / bar.unitsPerPixel);
    const float labelH = lineHeight(m, s.labelSize), pad = s.padding;
    const float x0 = plot.x0 + 3 * pad, y1 = plot.y1 - 3 * pad, barH = 4.0f;
    std::string exponent;
    std::string label = formatTickLabels({length}, length, exponent)[0];
    label += exponent.empty() ? "" : exponent;
    if (!bar.unit.empty()) label += " " + bar.unit;
    const float textW = m.width(label, s.labelSize);
    out.batch.rects.push_back(AnnotationRect{x0 - pad, y1 - barH - pad - labelH - pad,
                                             x0 + std::max(pixels, textW) + pad, y1 + pad,
                                             s.backing});
    out.batch.rects.push_back(AnnotationRect{x0, y1 - barH, x0 + pixels, y1, s.text});
    placer.place(text(label, x0 + 0.5f * pixels, y1 - barH - pad, s.labelSize, s.text,
                      AlignX::Centre, AlignY::Bottom));
}

void drawLegend(const PanelAnnotations& what, const TextMeasure& m, Rect plot, Placer& placer,
                PanelLayout& out) {
    const AnnotationStyle& s = what.style;
    if (what.legend.empty()) return;
    const float labelH = lineHeight(m, s.labelSize), pad = s.padding, row = labelH + 0.5f * pad;
    const float swatch = 0.8f * labelH;
    size_t rows = what.legend.size();
    const size_t fit = size_t(std::max(0.0f, plot.height() - 4 * pad) / row);
    const bool cut = rows > fit;
    if (cut) rows = fit > 0 ? fit - 1 : 0;
    std::vector<std::string> names;
    float nameW = 0;
    const float maxNameW = std::max(0.0f, plot.width() * 0.5f - swatch - 3 * pad);
    for (size_t i = 0; i < rows; ++i) {
        names.push_back(fitText(what.legend[i].name, maxNameW, m, s.labelSize));
        nameW = std::max(nameW, m.width(names.back(), s.labelSize));
    }
    std::string more;
    if (cut) {
        more = "\u2026 " + std::to_string(what.legend.size() - rows) + " more";
        nameW = std::max(nameW, m.width(more, s.labelSize));
    }
    const size_t lines = rows + (cut ? 1 : 0);
    if (lines == 0) return;
    const float x0 = plot.x0 + 2 * pad, y0 = plot.y0 + 2 * pad;
    out.batch.rects.push_back(AnnotationRect{x0, y0, x0 + swatch + nameW + 3 * pad,
                                             y0 + float(lines) * row + pad, s.backing});
    for (size_t i = 0; i < rows; ++i) {
        const float y = y0 + pad + float(i) * row + 0.5f * labelH;
        out.batch.rects.push_back(AnnotationRect{x0 + pad, y - 0.5f * swatch, x0 + pad + swatch,
                                                 y + 0.5f * swatch, what.legend[i].color});
        placer.place(text(names[i], x0 + 2 * pad + swatch, y, s.labelSize, s.text, AlignX::Left,
                          AlignY::Middle));
    }
    if (cut)
        placer.place(text(more, x0 + 2 * pad + swatch, y0 + pad + float(rows) * row + 0.5f * labelH,
                          s.labelSize, s.text, AlignX::Left, AlignY::Middle));
}

// Axis lines around `plot`, ticks outward on the left and bottom, labels, titles and grid lines.
void drawAxes(const PanelAnnotations& what, const TextMeasure& m, Rect panel, Rect plot,
              const std::optional<Ticks>& xt, const std::optional<Ticks>& yt, Placer& placer,
              PanelLayout& out) {
    const AnnotationStyle& s = what.style;
    const float pad = s.padding, labelH = lineHeight(m, s.labelSize);
    AnnotationBatch& b = out.batch;
    if (xt) {
        const auto px = [&](double v) { return pixelOf(what.x, v, panel.x0, panel.width()); };
        for (double v : xt->minor)
            line(b, px(v), plot.y1, px(v), plot.y1 + s.minorTickLength, s.line);
        for (size_t i = 0; i < xt->major.size(); ++i) {
            const float x = px(xt->major[i]);
            if (what.grid) line(b, x, plot.y0, x, plot.y1, s.grid);
            line(b, x, plot.y1, x, plot.y1 + s.tickLength, s.line);
            placer.place(text(xt->labels[i], x, plot.y1 + s.tickLength + pad, s.labelSize, s.text,
                              AlignX::Centre, AlignY::Top));
        }
        if (!xt->exponent.empty())
            placer.place(text(xt->exponent, plot.x1, panel.y1 - pad, s.labelSize, s.text,
                              AlignX::Right, AlignY::Bottom));
    }
    if (yt) {
        const auto py = [&](double v) { return pixelOf(what.y, v, panel.y0, panel.height()); };
        for (double v : yt->minor)
            line(b, plot.x0 - s.minorTickLength, py(v), plot.x0, py(v), s.line);
        for (size_t i = 0; i < yt->major.size(); ++i) {
            const float y = py(yt->major[i]);
            if (what.grid) line(b, plot.x0, y, plot.x1, y, s.grid);
            line(b, plot.x0 - s.tickLength, y, plot.x0, y, s.line);
            placer.place(text(yt->labels[i], plot.x0 - s.tickLength - pad, y, s.labelSize, s.text,
                              AlignX::Right, AlignY::Middle));
        }
        if (!yt->exponent.empty())
            placer.place(text(yt->exponent, plot.x0, plot.y0 - 0.5f * labelH - pad, s.labelSize,
                              s.text, AlignX::Left, AlignY::Bottom));
    }
    line(b, plot.x0, plot.y0, plot.x1, plot.y0, s.line);
    line(b, plot.x0, plot.y1, plot.x1, plot.y1, s.line);
    line(b, plot.x0, plot.y0, plot.x0, plot.y1, s.line);
    line(b, plot.x1, plot.y0, plot.x1, plot.y1, s.line);
    placer.place(text(fitText(what.x.title, plot.width(), m, s.axisTitleSize),
                      0.5f * (plot.x0 + plot.x1), panel.y1 - pad, s.axisTitleSize, s.text,
                      AlignX::Centre, AlignY::Bottom));
    // Rotated 90°: the text's top faces left, its box spans [x, x + line height].
    placer.place(text(fitText(what.y.title, plot.height(), m, s.axisTitleSize), panel.x0 + pad,
                      0.5f * (plot.y0 + plot.y1), s.axisTitleSize, s.text, AlignX::Centre,
                      AlignY::Top, 90.0f));
}

} // namespace

Rect textBox(const AnnotationText& t, const TextMeasure& m) {
    const float w = m.width(t.text, t.sizePixels), a = m.ascent(t.sizePixels),
                d = m.descent(t.sizePixels);
    const float bx0 = t.alignX == AlignX::Left ? 0.0f : t.alignX == AlignX::Centre ? -0.5f * w : -w;
    const float by0 = t.alignY == AlignY::Top        ? 0.0f
                      : t.alignY == AlignY::Middle   ? -0.5f * (a + d)
                      : t.alignY == AlignY::Baseline ? -a
                                                     : -(a + d);
    const float angle = t.rotationDegrees * 3.14159265358979f / 180.0f;
    const float c = std::cos(angle), sn = std::sin(angle);
    Rect r{1e30f, 1e30f, -1e30f, -1e30f};
    for (float dx : {bx0, bx0 + w})
        for (float dy : {by0, by0 + a + d}) {
            // Counter-clockwise on the screen, whose y grows downwards.
            const float x = t.x + dx * c + dy * sn, y = t.y - dx * sn + dy * c;
            r.x0 = std::min(r.x0, x);
            r.x1 = std::max(r.x1, x);
            r.y0 = std::min(r.y0, y);
            r.y1 = std::max(r.y1, y);
        }
    return r;
}

PanelLayout layoutPanel(const PanelAnnotations& what, const TextMeasure& m, Rect panel) {
    const AnnotationStyle& s = what.style;
    requireFinite(what.x.atStart, "x axis mapping's start");
    requireFinite(what.x.atEnd, "x axis mapping's end");
    requireFinite(what.y.atStart, "y axis mapping's start");
    requireFinite(what.y.atEnd, "y axis mapping's end");
    PanelLayout out;
    out.batch.lines.reserve(1024);
    out.batch.texts.reserve(128);
    out.textBoxes.reserve(128);
    out.batch.clip = {panel.x0, panel.y0, panel.x1, panel.y1};
    Placer placer{m, panel, out};
    const float pad = s.padding, labelH = lineHeight(m, s.labelSize);
    const float titleH = lineHeight(m, s.titleSize), axisTitleH = lineHeight(m, s.axisTitleSize);

    // Bands: the title above, the colorbars right, the axes' labels left and below.
    float top = panel.y0;
    if (!what.title.empty()) {
        placer.place(text(fitText(what.title, panel.width() - 2 * pad, m, s.titleSize),
                          0.5f * (panel.x0 + panel.x1), panel.y0 + pad, s.titleSize, s.text,
                          AlignX::Centre, AlignY::Top));
        top += titleH + 2 * pad;
    }
    const bool axes2d = what.axes && !what.box;
    const float bottomBand =
        axes2d ? s.tickLength + 3 * pad + labelH + (what.x.title.empty() ? 0.0f : axisTitleH + pad)
               : 0.0f;
    const Rect barArea{panel.x0, top + pad, panel.x1, panel.y1 - pad};
    const float right = layoutColorbars(what, m, barArea, placer, out);
    Rect plot{panel.x0, top, panel.x1 - right, panel.y1 - bottomBand};
    std::optional<Ticks> xt, yt;
    if (axes2d) {
        const bool degenerate = what.x.atStart == what.x.atEnd || what.y.atStart == what.y.atEnd;
        plot.y0 += 0.5f * labelH + pad; // the top label's upper half
        plot.x1 -= 2 * pad;
        if (!degenerate)
            yt = axisTicks(what.y, plot.y0, plot.y1, panel.y0, panel.height(),
                           [&](const std::string&) { return kVerticalLabelRoom * labelH; });
        float labelsW = 0;
        if (yt) {
            for (const std::string& l : yt->labels)
                labelsW = std::max(labelsW, m.width(l, s.labelSize));
            if (!yt->exponent.empty()) {
                plot.y0 += labelH + pad; // room above the plot for "×10⁶"
                yt = axisTicks(what.y, plot.y0, plot.y1, panel.y0, panel.height(),
                               [&](const std::string&) { return kVerticalLabelRoom * labelH; });
            }
        }
        plot.x0 +=
            s.tickLength + 3 * pad + labelsW + (what.y.title.empty() ? 0.0f : axisTitleH + pad);
        if (!degenerate && plot.width() > 0 && plot.height() > 0)
            xt = axisTicks(what.x, plot.x0, plot.x1, panel.x0, panel.width(),
                           [&](const std::string& l) { return m.width(l, s.labelSize); });
    }
    plot.x1 = std::max(plot.x1, plot.x0);
    plot.y1 = std::max(plot.y1, plot.y0);
    out.plot = plot;
    // The backing behind the bands, under everything else (rectangles draw first).
    const Rgba& k = s.backing;
    if (plot.y0 > panel.y0) out.batch.rects.push_back({panel.x0, panel.y0, panel.x1, plot.y0, k});
    if (plot.y1 < panel.y1) out.batch.rects.push_back({panel.x0, plot.y1, panel.x1, panel.y1, k});
    if (plot.x0 > panel.x0) out.batch.rects.push_back({panel.x0, plot.y0, plot.x0, plot.y1, k});
    if (plot.x1 < panel.x1) out.batch.rects.push_back({plot.x1, plot.y0, panel.x1, plot.y1, k});
    if (axes2d) drawAxes(what, m, panel, plot, xt, yt, placer, out);
    if (what.box && what.axes) {
        // Projected over the whole panel (where the view draws), kept out of the title's and the
        // colorbars' bands.
        Placer inPlot{m, plot, out};
        const size_t firstLine = out.batch.lines.size();
        layoutBoxAxes(*what.box, m, s, panel, out.batch,
                      [&](const AnnotationText& t) { return inPlot.place(t); });
        clipLines(out.batch.lines, firstLine, plot);
    }
    drawLegend(what, m, plot, placer, out);
    drawScaleBar(what, m, plot, placer, out);
    return out;
}

} // namespace estuary::annotations
