// The volume view (estuary_add_volume_view): a 3D image ray-marched front to back through a
// transfer function under the orbit camera, or one slice of it letterboxed like a field.
#include "field/field_view.h"
#include "errors.h"

#include <imgui.h>

#include <cmath>
#include <string>

namespace estuary::lib {
namespace {

class VolumeType final : public ImageViewType {
  public:
    VolumeType() : ImageViewType("volume") {}
    bool threeD(const estuary_view& view) const override {
        return view.params.style == ESTUARY_VOLUME_MARCH;
    }
    void make(estuary_viewer& v, estuary_view& view) const override {
        makeRenderer(
            v, view,
            view.params.style == ESTUARY_VOLUME_SLICE ? "volume_slice.frag" : "volume.frag", true);
    }
    // Marching and slicing are different shaders.
    bool remakes(const estuary_view& view, const estuary_view_params& p) const override {
        return p.style != view.params.style;
    }
    void panel(const estuary_view& view, estuary_view_params& p) const override {
        ImageViewType::panel(view, p);
        int style = int(p.style);
        if (ImGui::Combo("style", &style, "march\0slice\0")) p.style = estuary_volume_style(style);
        ImGui::SliderFloat("opacity", &p.opacity, 0.0f, 50.0f, "%.3f per voxel",
                           ImGuiSliderFlags_Logarithmic);
        int axis = int(p.slice_axis);
        if (ImGui::Combo("slice axis (X/Y/Z)", &axis, "x\0y\0z\0")) p.slice_axis = uint32_t(axis);
        ImGui::SliderFloat("slice (PgUp/PgDn)", &p.slice_position, 0.0f, 1.0f, "%.3f");
    }
};

const VolumeType kVolume;

} // namespace

const ViewType& volumeViewType() {
    return kVolume;
}

estuary_view* addVolumeView(estuary_viewer& v, const estuary_volume_view_desc& desc) {
    if (!desc.image) throw usageError("estuary_add_volume_view: image is NULL");
    estuary_image& image = *desc.image;
    checkOwned(v, image.viewer, "estuary_add_volume_view: the image " + image.name);
    if (image.kind != ESTUARY_IMAGE_3D)
        throw usageError("estuary_add_volume_view: " + image.name + " is not a 3D image");
    checkVulkanConsumer(v, "estuary_add_volume_view");
    if (uint32_t(desc.style) > ESTUARY_VOLUME_SLICE)
        throw usageError("estuary_add_volume_view: style " + std::to_string(int(desc.style)) +
                         " is not an estuary_volume_style (MARCH, SLICE)");
    if (!std::isfinite(desc.opacity) || desc.opacity < 0.0f)
        throw usageError("estuary_add_volume_view: opacity " + std::to_string(desc.opacity) +
                         " must be a finite number >= 0");
    if (desc.flags & ~(ESTUARY_VIEW_HIDDEN | ESTUARY_VIEW_NO_COLORBAR))
        throw usageError("estuary_add_volume_view: unknown flags");
    checkColormap(v, desc.colormap, "estuary_add_volume_view");
    float lo = desc.value_min, hi = desc.value_max;
    checkRange(lo, hi, "estuary_add_volume_view");
    auto view = newView<ImageViewState>(v, kVolume);
    view->use(InputRole::Image, &image);
    view->flags = desc.flags;
    view->label = desc.label && *desc.label ? desc.label : image.name;
    view->params = defaultParams(desc.flags, desc.colormap, lo, hi);
    view->params.style = desc.style;
    view->params.opacity = desc.opacity > 0.0f ? desc.opacity : 0.5f;
    return addView(v, std::move(view));
}

} // namespace estuary::lib
