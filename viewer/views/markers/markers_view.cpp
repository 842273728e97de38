// The markers view (estuary_add_markers_view): shapes pulled from a buffer of 32 bytes each
// (x, y, z, value, dx, dy, dz, size), sized, coloured and turned per marker, placed as points are.
#include "points/points_family.h"
#include "errors.h"
#include "shared_layout.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

namespace estuary::lib {

// The shaders number shapes as the API does (markers.frag reads the view's value as it is) ...
static_assert(ESTUARY_MARKER_DISC == ESTUARY_MARKER_SHAPE_DISC &&
              ESTUARY_MARKER_SQUARE == ESTUARY_MARKER_SHAPE_SQUARE &&
              ESTUARY_MARKER_TRIANGLE == ESTUARY_MARKER_SHAPE_TRIANGLE &&
              ESTUARY_MARKER_DIAMOND == ESTUARY_MARKER_SHAPE_DIAMOND &&
              ESTUARY_MARKER_CROSS == ESTUARY_MARKER_SHAPE_CROSS &&
              ESTUARY_MARKER_RING == ESTUARY_MARKER_SHAPE_RING &&
              ESTUARY_MARKER_ARROW == ESTUARY_MARKER_SHAPE_ARROW);
// ... and take the view's flags as they are.
static_assert(ESTUARY_MARKER_FLAG_OUTLINE == ESTUARY_MARKERS_OUTLINE &&
              ESTUARY_MARKER_FLAG_WORLD_SIZE == ESTUARY_MARKERS_WORLD_SIZE &&
              ESTUARY_MARKER_FLAG_SCALE_BY_LENGTH == ESTUARY_MARKERS_SCALE_BY_LENGTH &&
              ESTUARY_MARKER_FLAG_RGBA == ESTUARY_MARKERS_RGBA);

namespace {

constexpr uint32_t kMarkerShaderFlags = ESTUARY_MARKERS_OUTLINE | ESTUARY_MARKERS_WORLD_SIZE |
                                        ESTUARY_MARKERS_SCALE_BY_LENGTH | ESTUARY_MARKERS_RGBA;

class MarkersType final : public PointsFamilyType {
  public:
    MarkersType() : PointsFamilyType("markers") {}
    void make(estuary_viewer& v, estuary_view& view) const override {
        PointsDesc desc;
        desc.markers = true;
        makeRenderer(v, view, desc);
    }
    bool pickIsColour(const estuary_view& view) const override {
        return (view.flags & ESTUARY_MARKERS_RGBA) != 0;
    }

  protected:
    PointsDraw draw(const estuary_viewer& v, const estuary_view& view) const override {
        PointsDraw draw = PointsFamilyType::draw(v, view);
        const auto& state = view.as<PointsState>();
        draw.markerShape = uint32_t(state.shape);
        draw.markerFlags = view.flags & kMarkerShaderFlags;
        draw.lineWidth = state.lineWidth;
        return draw;
    }
};

const MarkersType kMarkers;

} // namespace

const ViewType& markersViewType() {
    return kMarkers;
}

estuary_view* addMarkersView(estuary_viewer& v, const estuary_markers_view_desc& desc) {
    const std::string what = "estuary_add_markers_view";
    checkBuffer(v, desc.buffer, what);
    checkVulkanConsumer(v, what);
    if (uint32_t(desc.shape) > ESTUARY_MARKER_SHAPE_ARROW)
        throw usageError(what + ": shape " + std::to_string(int(desc.shape)) +
                         " is not an estuary_marker_shape (0..6: disc, square, triangle, diamond, "
                         "cross, ring, arrow)");
    constexpr uint32_t kAllowed =
        ESTUARY_VIEW_HIDDEN | ESTUARY_POINTS_COLORBAR | ESTUARY_MARKERS_3D | kMarkerShaderFlags;
    checkFlags(desc.flags, kAllowed, what,
               "ESTUARY_VIEW_HIDDEN, ESTUARY_POINTS_COLORBAR, ESTUARY_MARKERS_*");
    const ResolvedChannels channels =
        resolveChannels(what, ChannelKind::Markers, desc.buffer, "buffer", desc.attributes,
                        (desc.flags & ESTUARY_MARKERS_RGBA) != 0, nullptr, nullptr, viewerFacts(v));
    const uint32_t capacity = channels.capacity;
    if (desc.count > capacity)
        throw usageError(what + ": count " + std::to_string(desc.count) + " is more than " +
                         holds(channels, desc.buffer, capacity, "markers of 32 bytes"));
    if (!std::isfinite(desc.size) || desc.size < 0.0f)
        throw usageError(what + ": size " + std::to_string(desc.size) +
                         " must be a finite number >= 0 (0: 8 pixels)");
    if (!std::isfinite(desc.line_width) || desc.line_width < 0.0f)
        throw usageError(what + ": line_width " + std::to_string(desc.line_width) +
                         " must be a finite number >= 0 (0: 1.5 pixels)");
    auto view = newView<PointsState>(v, kMarkers);
    fillBufferView(v, *view, what,
                   {desc.buffer, desc.bounds, desc.colormap, desc.value_min, desc.value_max,
                    desc.label, desc.flags, (desc.flags & ESTUARY_MARKERS_3D) != 0, capacity,
                    desc.count, &channels});
    if (channels.valueIsColour) view->flags |= ESTUARY_MARKERS_RGBA;
    auto& state = view->as<PointsState>();
    state.channels = channels.channels;
    state.shape = desc.shape;
    state.lineWidth = desc.line_width > 0.0f ? desc.line_width : 1.5f;
    view->params.point_size = desc.size > 0.0f ? desc.size : 8.0f;
    return addView(v, std::move(view));
}

} // namespace estuary::lib
