// The points view (estuary_add_points_view): points pulled from a buffer of vec4 each, blended
// additively: 2D (x, y, vx, vy) coloured by the speed, or 3D (x, y, z, s) coloured by s.
#include "points_family.h"
#include "errors.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace estuary::lib {
namespace {

class PointsType final : public PointsFamilyType {
  public:
    PointsType() : PointsFamilyType("points") {}
    void make(estuary_viewer& v, estuary_view& view) const override {
        makeRenderer(v, view, PointsDesc{});
    }

  protected:
    const char* sizeName() const override { return "point size"; }
    const char* countName() const override { return "points"; }
};

const PointsType kPoints;

} // namespace

const ViewType& pointsViewType() {
    return kPoints;
}

estuary_view* addPointsView(estuary_viewer& v, const estuary_points_view_desc& desc) {
    const std::string what = "estuary_add_points_view";
    checkBuffer(v, desc.buffer, what);
    checkVulkanConsumer(v, what);
    if (uint32_t(desc.layout) > ESTUARY_POINTS_XYZ_SCALAR)
        throw usageError(what + ": layout " + std::to_string(int(desc.layout)) +
                         " is not an estuary_points_layout (XY_VELOCITY, XYZ_SCALAR)");
    checkFlags(desc.flags, ESTUARY_VIEW_HIDDEN | ESTUARY_POINTS_COLORBAR, what,
               "ESTUARY_VIEW_HIDDEN, ESTUARY_POINTS_COLORBAR");
    const ResolvedChannels channels = resolveChannels(
        what,
        desc.layout == ESTUARY_POINTS_XYZ_SCALAR ? ChannelKind::Points3d : ChannelKind::Points2d,
        desc.buffer, "buffer", desc.attributes, false, nullptr, nullptr, viewerFacts(v));
    const uint32_t capacity = channels.capacity;
    if (desc.count > capacity)
        throw usageError(what + ": count " + std::to_string(desc.count) + " is more than " +
                         holds(channels, desc.buffer, capacity, "points of 16 bytes"));
    if (!std::isfinite(desc.size) || desc.size < 0.0f)
        throw usageError(what + ": size must be a finite number >= 0");
    if (!std::isfinite(desc.intensity) || desc.intensity < 0.0f || desc.intensity > 1.0f)
        throw usageError(what + ": intensity " + std::to_string(desc.intensity) +
                         " is not in 0..1 (0: automatic)");
    auto view = newView<PointsState>(v, kPoints);
    fillBufferView(v, *view, what,
                   {desc.buffer, desc.bounds, desc.colormap, desc.value_min, desc.value_max,
                    desc.label, desc.flags, desc.layout == ESTUARY_POINTS_XYZ_SCALAR, capacity,
                    desc.count, &channels});
    view->as<PointsState>().channels = channels.channels;
    view->params.point_size = desc.size > 0.0f ? desc.size : 1.0f;
    view->params.point_intensity = desc.intensity;
    return addView(v, std::move(view));
}

} // namespace estuary::lib
