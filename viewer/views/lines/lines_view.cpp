// The lines view (estuary_add_lines_view): antialiased segments or strips between vertices of 16
// bytes (x, y, z, value), directly or through uint32 indices, placed as points are.
#include "points/points_family.h"
#include "errors.h"
#include "shared_layout.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace estuary::lib {

static_assert(ESTUARY_LINE_SEGMENTS == ESTUARY_LINES_SEGMENTS &&
              ESTUARY_LINE_STRIP == ESTUARY_LINES_STRIP);
static_assert(ESTUARY_LINE_FLAG_RGBA == ESTUARY_LINES_RGBA);

namespace {

class LinesType final : public PointsFamilyType {
  public:
    LinesType() : PointsFamilyType("lines") {}
    void make(estuary_viewer& v, estuary_view& view) const override {
        PointsDesc desc;
        desc.lines = true;
        makeRenderer(v, view, desc);
    }
    std::string describePick(const estuary_view&, const estuary_pick& pick) const override {
        return "segment " + std::to_string(pick.element) + ", vertex " +
               std::to_string(pick.vertex);
    }
    bool pickIsColour(const estuary_view& view) const override {
        return (view.flags & ESTUARY_LINES_RGBA) != 0;
    }

  protected:
    PointsDraw draw(const estuary_viewer& v, const estuary_view& view) const override {
        PointsDraw draw = PointsFamilyType::draw(v, view);
        draw.markerShape = uint32_t(view.as<PointsState>().topology);
        draw.markerFlags = view.flags & ESTUARY_LINES_RGBA;
        draw.lineWidth = view.params.point_size;
        return draw;
    }
    const char* sizeName() const override { return "width"; }
    const char* countName() const override { return "vertices"; }
};

const LinesType kLines;

} // namespace

const ViewType& linesViewType() {
    return kLines;
}

estuary_view* addLinesView(estuary_viewer& v, const estuary_lines_view_desc& desc) {
    const std::string what = "estuary_add_lines_view";
    checkBuffer(v, desc.vertices, what);
    checkBuffer(v, desc.indices, what);
    checkVulkanConsumer(v, what);
    if (uint32_t(desc.topology) > ESTUARY_LINES_STRIP)
        throw usageError(what + ": topology " + std::to_string(int(desc.topology)) +
                         " is not an estuary_line_topology (0: segments, 1: strip)");
    constexpr uint32_t kAllowed =
        ESTUARY_VIEW_HIDDEN | ESTUARY_POINTS_COLORBAR | ESTUARY_LINES_3D | ESTUARY_LINES_RGBA;
    checkFlags(
        desc.flags, kAllowed, what,
        "ESTUARY_VIEW_HIDDEN, ESTUARY_POINTS_COLORBAR, ESTUARY_LINES_3D, ESTUARY_LINES_RGBA");
    const ResolvedChannels channels = resolveChannels(
        what, ChannelKind::Lines, desc.vertices, "vertices", desc.attributes,
        (desc.flags & ESTUARY_LINES_RGBA) != 0, desc.indices, nullptr, viewerFacts(v));
    const uint32_t capacity = channelCount(channels, desc.vertices, desc.count, what);
    if (!std::isfinite(desc.width) || desc.width < 0.0f)
        throw usageError(what + ": width " + std::to_string(desc.width) +
                         " must be a finite number >= 0 (0: 1.5 pixels)");
    auto view = newView<PointsState>(v, kLines);
    fillBufferView(v, *view, what,
                   {desc.vertices, desc.bounds, desc.colormap, desc.value_min, desc.value_max,
                    desc.label, desc.flags, (desc.flags & ESTUARY_LINES_3D) != 0, capacity,
                    desc.count, &channels});
    if (channels.valueIsColour) view->flags |= ESTUARY_LINES_RGBA;
    view->as<PointsState>().topology = desc.topology;
    view->as<PointsState>().channels = channels.channels;
    view->params.point_size = desc.width > 0.0f ? desc.width : 1.5f;
    return addView(v, std::move(view));
}

} // namespace estuary::lib
