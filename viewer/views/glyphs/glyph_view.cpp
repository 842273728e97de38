// The glyph view (estuary_add_glyph_view): markers sampled from a velocity image, one every
// `spacing` cells, turned along the velocity and as long as the speed; placed in the image's
// cells (2D) or in the box of its cells under the orbit camera (3D).
#include "points/points_family.h"
#include "errors.h"
#include "shared_layout.h"

#include <cmath>
#include <string>

namespace estuary::lib {
namespace {

class GlyphType final : public PointsFamilyType {
  public:
    GlyphType() : PointsFamilyType("glyph") {}
    void make(estuary_viewer& v, estuary_view& view) const override {
        const estuary_image& image = *view.image();
        PointsDesc desc;
        desc.glyphs = true;
        desc.markerCapacity =
            glyphCount({image.extent.width, image.extent.height, image.shape.depth},
                       view.as<PointsState>().glyphSpacing);
        makeRenderer(v, view, desc);
    }

  protected:
    PointsDraw draw(const estuary_viewer& v, const estuary_view& view) const override {
        PointsDraw draw = PointsFamilyType::draw(v, view);
        const auto& state = view.as<PointsState>();
        draw.markerShape = uint32_t(state.shape);
        draw.markerFlags =
            ESTUARY_MARKER_FLAG_SCALE_BY_LENGTH | (view.flags & ESTUARY_MARKERS_OUTLINE);
        draw.glyphSpacing = state.glyphSpacing;
        // In the image's cells, whatever is below.
        const estuary_image& image = *view.image();
        if (image.kind == ESTUARY_IMAGE_3D) // the box of its cells, as a volume view frames it
            draw.box = {0.0f,
                        0.0f,
                        0.0f,
                        float(image.extent.width),
                        float(image.extent.height),
                        float(image.shape.depth)};
        else
            placeInCells(draw, image.extent);
        return draw;
    }
    const char* countName() const override { return nullptr; }
    float maxSize() const override { return 64.0f; }
};

const GlyphType kGlyph;

} // namespace

const ViewType& glyphViewType() {
    return kGlyph;
}

estuary_view* addGlyphView(estuary_viewer& v, const estuary_glyph_view_desc& desc) {
    const std::string what = "estuary_add_glyph_view";
    if (!desc.image) throw usageError(what + ": image is NULL");
    estuary_image& image = *desc.image;
    checkOwned(v, image.viewer, what + ": the image " + image.name);
    checkVulkanConsumer(v, what);
    const bool threeD = image.kind == ESTUARY_IMAGE_3D;
    if (!(image.kind == ESTUARY_IMAGE_2D && image.format != ESTUARY_FORMAT_R32_FLOAT) &&
        !(threeD && image.format != ESTUARY_FORMAT_R32_FLOAT &&
          image.format != ESTUARY_FORMAT_RG32_FLOAT))
        throw usageError(what + ": the image " + image.name +
                         " must be 2D with 2 or more channels (the velocity in channels 0 and 1) "
                         "or 3D with 4 (in channels 0, 1 and 2)");
    if (uint32_t(desc.shape) > ESTUARY_MARKER_SHAPE_ARROW)
        throw usageError(what + ": shape " + std::to_string(int(desc.shape)) +
                         " is not an estuary_marker_shape (0..6)");
    constexpr uint32_t kAllowed =
        ESTUARY_VIEW_HIDDEN | ESTUARY_POINTS_COLORBAR | ESTUARY_MARKERS_OUTLINE;
    checkFlags(desc.flags, kAllowed, what,
               "ESTUARY_VIEW_HIDDEN, ESTUARY_POINTS_COLORBAR, ESTUARY_MARKERS_OUTLINE");
    if (!std::isfinite(desc.size) || desc.size < 0.0f)
        throw usageError(what + ": size " + std::to_string(desc.size) +
                         " must be a finite number >= 0 (0: 16 pixels)");
    const float zero[6] = {};
    auto view = newView<PointsState>(v, kGlyph);
    fillBufferView(v, *view, what,
                   {nullptr, zero, desc.colormap, desc.value_min, desc.value_max,
                    desc.label && *desc.label ? desc.label : image.name.c_str(), desc.flags, threeD,
                    1, 1});
    auto& state = view->as<PointsState>();
    view->use(InputRole::Image, &image);
    state.shape = desc.shape;
    state.glyphSpacing = desc.spacing ? desc.spacing : 8;
    view->params.point_size = desc.size > 0.0f ? desc.size : 16.0f;
    return addView(v, std::move(view));
}

} // namespace estuary::lib
