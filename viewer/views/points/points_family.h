// What the views drawn by the points renderer share (renderer/points.h): points, and the markers,
// lines and glyph views that build on them (../markers, ../lines, ../glyphs). Their state is the
// renderer and the shape; their draw places elements as points are placed: 2D in the cells of the
// field drawn below or in the view's bounds, 3D in its box under the orbit camera.
#pragma once

#include "view_type.h"

namespace estuary::lib {

struct PointsState : ViewState {
    PointsRenderer renderer;
    estuary_marker_shape shape = ESTUARY_MARKER_SHAPE_DISC;  // markers and glyphs
    float lineWidth = 1.5f;                                  // markers' outlines
    estuary_line_topology topology = ESTUARY_LINES_SEGMENTS; // lines
    uint32_t glyphSpacing = 8;                               // glyphs: cells between them
    AttributeChannels channels{}; // where each channel lies (view_attributes.h); not glyphs
};

class PointsFamilyType : public ViewType {
  public:
    using ViewType::ViewType;
    void release(estuary_viewer& v, estuary_view& view) const override;
    void record(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                uint32_t entry, const DrawTarget& target) const override;
    bool recordOverCleared(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                           uint32_t entry, const DrawTarget& target) const override;
    void resize(estuary_viewer& v, estuary_view& view, VkExtent2D extent) const override;
    void preparePick(estuary_viewer& v, estuary_view& view) const override;
    void recordPick(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                    uint32_t entry, VkExtent2D extent, const PickQuery& query, VkBuffer destination,
                    VkDeviceSize offset) const override;
    // The View panel's size slider (named `sizeName`, up to `maxSize` pixels) and count.
    void panel(const estuary_view& view, estuary_view_params& p) const override;

  protected:
    // What the renderer takes of the view for a draw or pick.
    virtual PointsDraw draw(const estuary_viewer& v, const estuary_view& view) const;
    // The renderer made with `desc`'s kind flags (the rest filled in here), its descriptors
    // pointed at each entry's copy of the view's elements (and indices).
    void makeRenderer(estuary_viewer& v, estuary_view& view, PointsDesc desc) const;
    virtual const char* sizeName() const { return "size"; }
    virtual const char* countName() const { return "markers"; }
    virtual float maxSize() const { return 16.0f; }
};

// 2D positions in the cells of a `cells`-sized image: cell (i, j) at (i, j).
void placeInCells(PointsDraw& draw, VkExtent2D cells);

} // namespace estuary::lib
