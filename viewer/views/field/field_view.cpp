// The field view (estuary_add_field_view): a 2D image and its mips, sampled trilinearly through a
// colormap (or as colour) and letterboxed into the picture under the 2D camera; the one kind the
// OpenGL consumer draws too (opengl/gl_side.cpp).
#include "field_view.h"
#include "errors.h"

#include <imgui.h>

#include <cmath>
#include <string>

namespace estuary::lib {

void ImageViewType::makeRenderer(estuary_viewer& v, estuary_view& view,
                                 const std::string& fragmentShader, bool volume) const {
    auto& state = view.as<ImageViewState>();
    const estuary_image& image = *view.image();
    RendererDesc desc;
    desc.targetFormat = v.targetFormat;
    desc.fieldFormat = image.vkFormat;
    desc.shading = FieldShading(state.shading);
    desc.dataDir = v.dataDir;
    desc.slotCount = v.hostRing;
    desc.volume = volume;
    desc.fragmentShader = fragmentShader;
    desc.compute = v.drawPath == ESTUARY_DRAW_COMPUTE;
    desc.kit = &v.kit;
    state.renderer = createRenderer(v.device, desc);
    if (desc.compute)
        setComputeExtent(v.device, state.renderer, viewExtent(v, view, {v.width, v.height}));
    for (uint32_t entry = 0; entry < v.hostRing; ++entry) {
        const GpuImage& copy = vulkanImage(image, copyOf(image, entry));
        setFieldImage(v.device, state.renderer, entry, copy.view, copy.extent, copy.shape.depth);
    }
}

void ImageViewType::release(estuary_viewer& v, estuary_view& view) const {
    destroyRenderer(v.device, view.as<ImageViewState>().renderer);
}

void ImageViewType::record(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                           uint32_t entry, const DrawTarget& target) const {
    recordDraw(view.as<ImageViewState>().renderer, cmd, entry, target.view, target.extent,
               viewParams(v, view), target.image);
}

void ImageViewType::resize(estuary_viewer& v, estuary_view& view, VkExtent2D extent) const {
    Renderer& renderer = view.as<ImageViewState>().renderer;
    if (renderer.computePipeline) setComputeExtent(v.device, renderer, extent);
}

void ImageViewType::panel(const estuary_view&, estuary_view_params& p) const {
    ImGui::SliderFloat("mip bias", &p.mip_bias, -2.0f, 8.0f, "%.1f");
}

namespace {

class FieldType final : public ImageViewType {
  public:
    FieldType() : ImageViewType("field") {}
    bool threeD(const estuary_view&) const override { return false; }
    void make(estuary_viewer& v, estuary_view& view) const override {
        if (v.gl) return glAddView(v, view);
        const auto& state = view.as<ImageViewState>();
        makeRenderer(v, view, state.shader.empty() ? "field.frag" : state.shader, false);
    }
    bool colormapped(const estuary_view& view) const override {
        return view.as<ImageViewState>().shading != ESTUARY_FIELD_RGB;
    }
};

const FieldType kField;

} // namespace

const ViewType& fieldViewType() {
    return kField;
}

estuary_view* addFieldView(estuary_viewer& v, const estuary_field_view_desc& desc) {
    if (!desc.image) throw usageError("estuary_add_field_view: image is NULL");
    estuary_image& image = *desc.image;
    checkOwned(v, image.viewer, "estuary_add_field_view: the image " + image.name);
    if (image.kind != ESTUARY_IMAGE_2D)
        throw usageError("estuary_add_field_view: " + image.name +
                         " is not a 2D image (volume views draw 3D images)");
    if (uint32_t(desc.shading) > ESTUARY_FIELD_RGB)
        throw usageError("estuary_add_field_view: shading " + std::to_string(int(desc.shading)) +
                         " is not an estuary_field_shading (SCALAR, MAGNITUDE, RGB)");
    if (desc.flags & ~(ESTUARY_VIEW_HIDDEN | ESTUARY_VIEW_NO_COLORBAR))
        throw usageError("estuary_add_field_view: unknown flags (allowed: ESTUARY_VIEW_HIDDEN, "
                         "ESTUARY_VIEW_NO_COLORBAR)");
    checkColormap(v, desc.colormap, "estuary_add_field_view");
    float lo = desc.value_min, hi = desc.value_max;
    checkRange(lo, hi, "estuary_add_field_view");
    auto view = newView<ImageViewState>(v, kField);
    auto& state = view->as<ImageViewState>();
    view->use(InputRole::Image, &image);
    view->flags = desc.flags;
    state.shading = desc.shading;
    state.shader = desc.shader ? desc.shader : "";
    view->label = desc.label && *desc.label ? desc.label : image.name;
    view->params = defaultParams(desc.flags, desc.colormap, lo, hi);
    return addView(v, std::move(view));
}

} // namespace estuary::lib
