// What every kind of view shares: the checks of their descriptions, adding and destroying a view,
// its parameters, the picture's background, and the frame's draw, picks and resizes, each handed
// to the view's kind (view_type.h; the kinds are the folders beside this file). A frame draws the
// last visible background view (field or volume), then every other visible view over it, in the
// order they were added.
#include "view_type.h"
#include "annotation_layer.h"
#include "colormap.h"
#include "errors.h"
#include "shared_layout.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace estuary::lib {

void checkColormap(const estuary_viewer& v, estuary_colormap colormap, const std::string& what) {
    const size_t made = v.kit.colormaps.size();
    if (uint32_t(colormap) >= made)
        throw usageError(what + ": colormap " + std::to_string(int(colormap)) +
                         " is not an estuary_colormap of this viewer (0.." +
                         std::to_string(made - 1) + ": the " + std::to_string(kColormapCount) +
                         " built in, then those estuary_create_colormap made)");
}

void checkRange(float& lo, float& hi, const std::string& what) {
    if (!std::isfinite(lo) || !std::isfinite(hi))
        throw usageError(what + ": value_min and value_max must be finite numbers");
    if (lo == 0.0f && hi == 0.0f) hi = 1.0f; // the default range
    if (!(lo < hi))
        throw usageError(what + ": value_min " + std::to_string(lo) + " must be below value_max " +
                         std::to_string(hi));
}

void checkOwned(const estuary_viewer& v, const void* owner, const std::string& what) {
    if (owner != &v) throw usageError(what + " belongs to another viewer");
}

void checkBuffer(const estuary_viewer& v, const estuary_buffer* buffer, const std::string& what) {
    if (buffer) checkOwned(v, buffer->viewer, what + ": the buffer " + buffer->name);
}

void checkFlags(uint32_t flags, uint32_t allowed, const std::string& what,
                const char* allowedNames) {
    if (flags & ~allowed)
        throw usageError(what + ": unknown flags " + std::to_string(flags & ~allowed) +
                         " (allowed: " + allowedNames + ")");
}

const char* viewKind(const estuary_view& view) {
    return view.type->name;
}

void checkVulkanConsumer(const estuary_viewer& v, const std::string& what) {
    if (v.consumer == ESTUARY_CONSUMER_OPENGL)
        throw unsupported(what + ": the OpenGL consumer draws field views only");
}

estuary_view_params defaultParams(uint32_t flags, estuary_colormap colormap, float lo, float hi) {
    estuary_view_params p{};
    p.visible = (flags & ESTUARY_VIEW_HIDDEN) ? 0 : 1;
    p.colormap = colormap;
    p.value_min = lo;
    p.value_max = hi;
    p.opacity = 0.5f;
    p.slice_axis = 2;
    p.slice_position = 0.5f;
    p.point_size = 1.0f;
    return p;
}

estuary_view* addView(estuary_viewer& v, std::unique_ptr<estuary_view> view) {
    waitIdle(v, "adding a view");
    view->type->make(v, *view);
    for (const ViewInput& input : view->inputs)
        ++(input.image ? input.image->viewUsers : input.buffer->viewUsers);
    ++v.drawVersion;
    v.views.push_back(std::move(view));
    return v.views.back().get();
}

void fillBufferView(estuary_viewer& v, estuary_view& view, const std::string& what,
                    const BufferViewDesc& d) {
    for (int i = 0; i < 6; ++i)
        if (!std::isfinite(d.bounds[i])) throw usageError(what + ": bounds must be finite");
    checkColormap(v, d.colormap, what);
    float lo = d.valueMin, hi = d.valueMax;
    checkRange(lo, hi, what);
    view.use(InputRole::Elements, d.buffer);
    if (d.channels) useChannels(view, *d.channels);
    view.flags = d.flags;
    view.threeD = d.threeD;
    view.maxPoints = d.capacity;
    std::copy(d.bounds, d.bounds + 6, view.bounds.begin());
    view.label = d.label && *d.label ? d.label
                 : d.channels        ? defaultLabel(*d.channels, d.buffer)
                 : d.buffer          ? d.buffer->name
                                     : "";
    view.params = defaultParams(d.flags, d.colormap, lo, hi);
    view.params.point_count = d.count ? d.count : d.capacity;
}

// What a kind does unless it says otherwise.
std::string ViewType::describePick(const estuary_view&, const estuary_pick& pick) const {
    return "#" + std::to_string(pick.element);
}

bool ViewType::wantsColorbar(const estuary_view& view) const {
    if (!colormapped(view)) return false;
    return background() ? !(view.flags & ESTUARY_VIEW_NO_COLORBAR)
                        : (view.flags & ESTUARY_POINTS_COLORBAR) != 0;
}

void destroyView(estuary_viewer& v, estuary_view* view) {
    waitIdle(v, "destroying a view");
    // Picks of it not yet recorded pick nothing; the panel forgets it.
    for (EntryState& entry : v.entries)
        for (ReadRequest& read : entry.reads)
            if (read.pickView == view) read.pickView = nullptr;
    std::erase_if(v.panels.picks, [&](const auto& shown) { return shown.view == view; });
    for (const ViewInput& input : view->inputs)
        --(input.image ? input.image->viewUsers : input.buffer->viewUsers);
    if (v.gl) glRemoveView(v, *view);
    ++v.drawVersion;
    std::erase_if(v.views, [&](const auto& p) { return p.get() == view; });
}

void setViewParams(estuary_viewer& v, estuary_view& view, const estuary_view_params& in) {
    const std::string what =
        std::string("estuary_set_view_params (") + viewKind(view) + " view " + view.label + ")";
    estuary_view_params p = in;
    checkColormap(v, p.colormap, what);
    checkRange(p.value_min, p.value_max, what);
    if (!std::isfinite(p.mip_bias)) throw usageError(what + ": mip_bias must be finite");
    if (!std::isfinite(p.opacity) || p.opacity < 0.0f)
        throw usageError(what + ": opacity " + std::to_string(p.opacity) + " must be >= 0");
    if (uint32_t(p.style) > ESTUARY_VOLUME_SLICE)
        throw usageError(what + ": style must be ESTUARY_VOLUME_MARCH or ESTUARY_VOLUME_SLICE");
    if (p.slice_axis > 2) throw usageError(what + ": slice_axis must be 0 (x), 1 (y) or 2 (z)");
    if (!(p.slice_position >= 0.0f && p.slice_position <= 1.0f))
        throw usageError(what + ": slice_position " + std::to_string(p.slice_position) +
                         " must be in 0..1");
    if (!view.type->background() && p.point_count > view.maxPoints)
        throw usageError(what + ": point_count " + std::to_string(p.point_count) +
                         " is more than its buffer holds (" + std::to_string(view.maxPoints) + ")");
    if (!std::isfinite(p.point_size) || p.point_size <= 0.0f)
        throw usageError(what + ": point_size must be a finite number > 0");
    if (!std::isfinite(p.point_intensity) || p.point_intensity < 0.0f || p.point_intensity > 1.0f)
        throw usageError(what + ": point_intensity must be in 0..1 (0: automatic)");
    checkPanel(v, p.panel, what);
    p.visible = p.visible ? 1 : 0;
    if (p.panel != view.params.panel && panelImages(v)) { // sized for its new panel
        waitIdle(v, "moving a view to another panel");
        view.params.panel = p.panel;
        resizeViewToPanel(v, view);
        ++v.drawVersion;
    }
    if (view.type->remakes(view, p)) {
        waitIdle(v, "changing a view's style");
        view.type->release(v, view);
        view.params = p;
        view.type->make(v, view);
    }
    if (std::memcmp(&p, &view.params, sizeof(p)) != 0) ++v.drawVersion;
    view.params = p;
}

const estuary_view* backgroundView(const estuary_viewer& v, uint32_t panel) {
    const estuary_view* found = nullptr;
    for (const auto& view : v.views)
        if (view->params.visible && view->params.panel == panel && view->type->background())
            found = view.get();
    return found;
}

bool backgroundIs3d(const estuary_viewer& v, uint32_t panel) {
    const estuary_view* bg = backgroundView(v, panel);
    return bg && bg->type->threeD(*bg);
}

bool backgroundIsVolume(const estuary_viewer& v, uint32_t panel) {
    const estuary_view* bg = backgroundView(v, panel);
    return bg && bg->image()->kind == ESTUARY_IMAGE_3D;
}

VkExtent2D backgroundExtent(const estuary_viewer& v, uint32_t panel) {
    const estuary_view* bg = backgroundView(v, panel);
    if (!bg) return {0, 0};
    const estuary_image& image = *bg->image();
    if (image.kind == ESTUARY_IMAGE_3D) {
        const uint32_t w = image.extent.width, h = image.extent.height, d = image.shape.depth;
        // volume_slice.frag's order: z by y for x slices, x by z for y slices, x by y for z.
        const uint32_t axis = bg->params.slice_axis;
        return axis == 0 ? VkExtent2D{d, h} : axis == 1 ? VkExtent2D{w, d} : VkExtent2D{w, h};
    }
    return image.extent;
}

ViewParams viewParams(const estuary_viewer& v, const estuary_view& view) {
    const Camera& camera = panelCamera(v, view.params.panel);
    ViewParams p;
    p.zoom = camera.zoom;
    p.panX = camera.panX;
    p.panY = camera.panY;
    p.yaw = camera.yaw;
    p.pitch = camera.pitch;
    p.mipBias = view.params.mip_bias;
    p.colormap = uint32_t(view.params.colormap);
    p.valueMin = view.params.value_min;
    p.valueMax = view.params.value_max;
    p.opacity = view.params.opacity;
    p.sliceAxis = view.params.slice_axis;
    p.slicePosition = view.params.slice_position;
    p.background = v.background;
    return p;
}

void recordClear(const estuary_viewer& v, VkCommandBuffer cmd, VkImageView view,
                 VkExtent2D extent) {
    VkRenderingAttachmentInfo color{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
    color.imageView = view;
    color.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.clearValue.color = {{v.background[0], v.background[1], v.background[2], 1.0f}};
    VkRenderingInfo rendering{VK_STRUCTURE_TYPE_RENDERING_INFO};
    rendering.renderArea = {{0, 0}, extent};
    rendering.layerCount = 1;
    rendering.colorAttachmentCount = 1;
    rendering.pColorAttachments = &color;
    vkCmdBeginRendering(cmd, &rendering);
    vkCmdEndRendering(cmd);
}

void recordPanelViews(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry, uint32_t panel,
                      const DrawTarget& target) {
    const auto drawn = [&](const estuary_view& view) {
        return view.params.visible && view.params.panel == panel && !view.type->background() &&
               !view.type->annotates();
    };
    const estuary_view* clearedBy = nullptr; // the first view drawn, where it clears the picture
    if (const estuary_view* bg = backgroundView(v, panel)) {
        bg->type->record(v, *bg, cmd, entry, target);
    } else { // nothing covers the panel: its background, cleared by a pass or by the first view
        const auto first = std::find_if(v.views.begin(), v.views.end(),
                                        [&](const auto& view) { return drawn(*view); });
        if (first != v.views.end() &&
            (*first)->type->recordOverCleared(v, **first, cmd, entry, target))
            clearedBy = first->get();
        else
            recordClear(v, cmd, target.view, target.extent);
    }
    for (const auto& view : v.views)
        if (drawn(*view) && view.get() != clearedBy)
            view->type->record(v, *view, cmd, entry, target);
}

void recordViews(estuary_viewer& v, VkCommandBuffer cmd, uint64_t frame, VkImage targetImage,
                 VkImageView targetView, VkExtent2D extent, bool timed) {
    const uint32_t entry = uint32_t(frame % v.hostRing);
    if (panelImages(v))
        recordPanels(v, cmd, entry, targetImage, targetView, extent);
    else
        recordPanelViews(v, cmd, entry, 0, {targetImage, targetView, extent, {{0, 0}, extent}});
    recordAnnotationLayer(v, cmd, entry, targetImage, targetView, extent, timed);
}

bool isBufferView(const estuary_view& view) {
    return !view.type->background();
}

void preparePick(estuary_viewer& v, estuary_view& view) {
    view.type->preparePick(v, view);
}

void recordPick(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                uint32_t entry, VkExtent2D extent, const PickQuery& query, VkBuffer destination,
                VkDeviceSize offset) {
    view.type->recordPick(v, view, cmd, entry, extent, query, destination, offset);
}

void resizeViews(estuary_viewer& v, VkExtent2D) {
    relayout(v); // the panels' rectangles and images, then each view to its panel's size
}

} // namespace estuary::lib

estuary_view::~estuary_view() {
    if (viewer && type && state) type->release(*viewer, *this);
}

void estuary_view::use(estuary::lib::InputRole role, estuary_image* input) {
    if (input) inputs.push_back({role, input, nullptr});
}

void estuary_view::use(estuary::lib::InputRole role, estuary_buffer* input) {
    if (input) inputs.push_back({role, nullptr, input});
}

estuary_image* estuary_view::image() const {
    for (const estuary::lib::ViewInput& input : inputs)
        if (input.role == estuary::lib::InputRole::Image) return input.image;
    return nullptr;
}

estuary_buffer* estuary_view::buffer(estuary::lib::InputRole role) const {
    for (const estuary::lib::ViewInput& input : inputs)
        if (input.role == role) return input.buffer;
    return nullptr;
}
