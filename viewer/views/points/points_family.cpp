// The points renderer's views (points_family.h): their renderer, draw, resize, pick and panel.
#include "points_family.h"
#include "errors.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>

namespace estuary::lib {
void placeInCells(PointsDraw& draw, VkExtent2D cells) {
    draw.domain = cells;
    draw.uvScale = {1.0f / float(cells.width), 1.0f / float(cells.height)};
    draw.uvOffset = {0.5f / float(cells.width), 0.5f / float(cells.height)};
}

void PointsFamilyType::makeRenderer(estuary_viewer& v, estuary_view& view, PointsDesc desc) const {
    auto& state = view.as<PointsState>();
    desc.targetFormat = v.targetFormat;
    desc.dataDir = v.dataDir;
    desc.slotCount = v.hostRing;
    desc.threeD = view.threeD;
    desc.splat = v.drawPath == ESTUARY_DRAW_COMPUTE;
    if (desc.markerCapacity == 0) desc.markerCapacity = view.maxPoints;
    if (!desc.glyphs) desc.attributes = state.channels;
    desc.kit = &v.kit;
    // How the points' splat adds (renderer/points.h SplatVariant), for benchmarks to compare.
    if (const char* chosen = std::getenv("ESTUARY_POINTS_SPLAT"); chosen && *chosen) {
        const std::optional<SplatVariant> variant = splatVariantNamed(chosen);
        if (!variant)
            throw usageError(std::string("ESTUARY_POINTS_SPLAT: '") + chosen +
                             "' is not a splat variant (packed, merged, saturated)");
        desc.splatVariant = *variant;
    }
    state.renderer = createPointsRenderer(v.device, desc);
    if (desc.splat)
        setPointsExtent(v.device, state.renderer, viewExtent(v, view, {v.width, v.height}),
                        viewStorageTarget(v, view));
    if (desc.glyphs) {
        const estuary_image& image = *view.image();
        for (uint32_t entry = 0; entry < v.hostRing; ++entry) {
            const GpuImage& copy = vulkanImage(image, copyOf(image, entry));
            setGlyphImage(v.device, state.renderer, entry, copy.view,
                          {copy.extent.width, copy.extent.height, copy.shape.depth});
        }
        return;
    }
    if (const estuary_buffer* buffer = view.buffer())
        for (uint32_t entry = 0; entry < v.hostRing; ++entry)
            setPointsBuffer(v.device, state.renderer, entry,
                            vulkanBuffer(*buffer, copyOf(*buffer, entry)), buffer->size);
    bindChannels(v, view, state.renderer.channels,
                 [&](uint32_t entry, uint32_t channel, VkBuffer buffer, VkDeviceSize bytes) {
                     if (channel == ESTUARY_CH_INDEX)
                         setLinesIndices(v.device, state.renderer, entry, buffer, bytes);
                     else
                         setAttributeBuffer(v.device, state.renderer, entry, channel, buffer,
                                            bytes);
                 });
}

void PointsFamilyType::release(estuary_viewer& v, estuary_view& view) const {
    destroyPointsRenderer(v.device, view.as<PointsState>().renderer);
}

PointsDraw PointsFamilyType::draw(const estuary_viewer& v, const estuary_view& view) const {
    PointsDraw draw;
    draw.count = view.params.point_count;
    draw.size = view.params.point_size;
    draw.intensity = view.params.point_intensity;
    draw.colormap = uint32_t(view.params.colormap);
    draw.valueMin = view.params.value_min;
    draw.valueMax = view.params.value_max;
    draw.view = viewParams(v, view);
    const auto& b = view.bounds;
    if (view.threeD) {
        if (std::any_of(b.begin(), b.end(), [](float x) { return x != 0.0f; })) draw.box = b;
        return draw;
    }
    const VkExtent2D field = backgroundExtent(v, view.params.panel);
    if (field.width > 0 &&
        !backgroundIs3d(v, view.params.panel)) { // cells of the field below: cell i at i
        placeInCells(draw, field);
        return draw;
    }
    // `bounds` (x0, y0, x1, y1) fill the letterbox; none: the unit square.
    const float x0 = b[0], y0 = b[1];
    const float x1 = b[2] > b[0] ? b[2] : b[0] + 1.0f, y1 = b[3] > b[1] ? b[3] : b[1] + 1.0f;
    // The letterbox keeps the domain's aspect: its size in "cells" is scaled to a whole number.
    const float aspect = (x1 - x0) / (y1 - y0);
    draw.domain = aspect >= 1.0f ? VkExtent2D{uint32_t(std::lround(1024.0f * aspect)), 1024}
                                 : VkExtent2D{1024, uint32_t(std::lround(1024.0f / aspect))};
    draw.uvScale = {1.0f / (x1 - x0), 1.0f / (y1 - y0)};
    draw.uvOffset = {-x0 / (x1 - x0), -y0 / (y1 - y0)};
    return draw;
}

void PointsFamilyType::record(const estuary_viewer& v, const estuary_view& view,
                              VkCommandBuffer cmd, uint32_t entry, const DrawTarget& target) const {
    recordPoints(view.as<PointsState>().renderer, cmd, entry, target.view, target.extent,
                 draw(v, view), target.image);
}

// Only the points' compute resolve, which writes every pixel of the whole picture: elsewhere a
// clear pass costs what the draw's own clear would.
bool PointsFamilyType::recordOverCleared(const estuary_viewer& v, const estuary_view& view,
                                         VkCommandBuffer cmd, uint32_t entry,
                                         const DrawTarget& target) const {
    const PointsRenderer& r = view.as<PointsState>().renderer;
    const bool wholePicture = target.area.offset.x == 0 && target.area.offset.y == 0 &&
                              target.area.extent.width == target.extent.width &&
                              target.area.extent.height == target.extent.height;
    if (!r.splatPipeline || !r.storageTarget || r.markers || r.lines || r.glyphs || !wholePicture ||
        !target.image)
        return false;
    PointsDraw d = draw(v, view);
    d.clearTarget = true;
    d.view.background = v.background;
    recordPoints(r, cmd, entry, target.view, target.extent, d, target.image);
    return true;
}

void PointsFamilyType::resize(estuary_viewer& v, estuary_view& view, VkExtent2D extent) const {
    PointsRenderer& renderer = view.as<PointsState>().renderer;
    if (renderer.splatPipeline)
        setPointsExtent(v.device, renderer, extent, viewStorageTarget(v, view));
}

void PointsFamilyType::preparePick(estuary_viewer& v, estuary_view& view) const {
    preparePointsPick(v.device, view.as<PointsState>().renderer);
}

void PointsFamilyType::recordPick(const estuary_viewer& v, const estuary_view& view,
                                  VkCommandBuffer cmd, uint32_t entry, VkExtent2D extent,
                                  const PickQuery& query, VkBuffer destination,
                                  VkDeviceSize offset) const {
    recordPointsPick(view.as<PointsState>().renderer, cmd, entry, extent, draw(v, view), query,
                     destination, offset);
}

void PointsFamilyType::panel(const estuary_view& view, estuary_view_params& p) const {
    ImGui::SliderFloat(sizeName(), &p.point_size, 1.0f, maxSize(), "%.1f px");
    if (countName()) ImGui::TextDisabled("%u of %u %s", p.point_count, view.maxPoints, countName());
}

} // namespace estuary::lib
