// The text view (estuary_add_text_view): one run of text drawn by the text renderer
// (renderer/text.h), anchored in the picture's pixels or at a point of the view's coordinates
// placed each frame as the buffer views place their elements (renderer/labels.h, placeAnchor).
#include "text/text_view.h"
#include "errors.h"
#include "labels.h"
#include "points/points_family.h"
#include "text.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>

namespace estuary::lib {

namespace {

struct TextState : ViewState {
    // record() is const: the renderer writes its slot's quads, and the batch's one text takes
    // the frame's place and size (no copy of the string, no allocation a frame).
    mutable TextRenderer renderer;
    mutable AnnotationBatch batch;
    AnnotationText& text() const { return batch.texts[0]; }
    float anchor[3]{}; // pixels (x, y), or the view's coordinates
    bool world = false;
};

// Placement as PointsFamilyType's (the field below, or the view's bounds); it draws no points.
class TextType final : public PointsFamilyType {
  public:
    TextType() : PointsFamilyType("text") {}
    void make(estuary_viewer& v, estuary_view& view) const override {
        TextDesc desc;
        desc.kit = &v.kit;
        desc.targetFormat = v.targetFormat;
        desc.dataDir = v.dataDir;
        desc.slotCount = v.hostRing;
        desc.quadCapacity = 4096;
        desc.compute = v.drawPath == ESTUARY_DRAW_COMPUTE;
        view.as<TextState>().renderer = createTextRenderer(v.device, desc);
    }
    void release(estuary_viewer& v, estuary_view& view) const override {
        destroyTextRenderer(v.device, view.as<TextState>().renderer);
    }
    bool annotates() const override { return true; }
    void recordUploads(const estuary_viewer&, const estuary_view& view,
                       VkCommandBuffer cmd) const override {
        recordFontUpload(view.as<TextState>().renderer.font, cmd);
    }
    void record(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                uint32_t entry, const DrawTarget& target) const override {
        const auto& s = view.as<TextState>();
        AnnotationText& t = s.text();
        t.sizePixels = view.params.point_size;
        t.x = s.anchor[0], t.y = s.anchor[1];
        if (s.world && !placeAnchor(draw(v, view), target.area.extent, view.threeD,
                                    {s.anchor[0], s.anchor[1], s.anchor[2]}, t.x, t.y))
            return;
        t.x += float(target.area.offset.x); // the batch is in the picture's pixels
        t.y += float(target.area.offset.y);
        const AnnotationPanel panel{&s.batch, target.area};
        if (target.storage)
            recordAnnotationsCompute(v.device, s.renderer, cmd, entry, target.view, target.extent,
                                     {&panel, 1});
        else
            recordAnnotationsInPass(s.renderer, cmd, entry, target.extent, {&panel, 1});
    }
    void resize(estuary_viewer&, estuary_view&, VkExtent2D) const override {}
    void preparePick(estuary_viewer&, estuary_view&) const override {}
    void recordPick(const estuary_viewer&, const estuary_view&, VkCommandBuffer, uint32_t,
                    VkExtent2D, const PickQuery&, VkBuffer, VkDeviceSize) const override {}
    void panel(const estuary_view& view, estuary_view_params& p) const override {
        ImGui::SliderFloat("size", &p.point_size, 4.0f, 96.0f, "%.0f px");
        ImGui::TextDisabled("%s", view.as<TextState>().text().text.c_str());
    }
    bool colormapped(const estuary_view&) const override { return false; }
};

const TextType kText;

} // namespace

const ViewType& textViewType() {
    return kText;
}

Rgba textColour(const float (&color)[4], const std::string& what) {
    if (std::all_of(color, color + 4, [](float c) { return c == 0.0f; })) return {1, 1, 1, 1};
    for (int i = 0; i < 4; ++i)
        if (!(color[i] >= 0.0f && color[i] <= 1.0f))
            throw usageError(what + ": color[" + std::to_string(i) + "] " +
                             std::to_string(color[i]) +
                             " is outside 0..1 (sRGB-encoded RGBA; all 0: opaque white)");
    return {color[0], color[1], color[2], color[3]};
}

AlignX textAlignX(estuary_text_align align, const std::string& what) {
    if (uint32_t(align) > ESTUARY_TEXT_ALIGN_RIGHT)
        throw usageError(what + ": align " + std::to_string(int(align)) +
                         " is not an estuary_text_align (0..2: left, center, right)");
    return AlignX(align);
}

AlignY textAlignY(estuary_text_valign valign, const std::string& what) {
    switch (valign) {
    case ESTUARY_TEXT_VALIGN_BASELINE:
        return AlignY::Baseline;
    case ESTUARY_TEXT_VALIGN_TOP:
        return AlignY::Top;
    case ESTUARY_TEXT_VALIGN_MIDDLE:
        return AlignY::Middle;
    case ESTUARY_TEXT_VALIGN_BOTTOM:
        return AlignY::Bottom;
    default:
        break;
    }
    throw usageError(what + ": valign " + std::to_string(int(valign)) +
                     " is not an estuary_text_valign (0..3: baseline, top, middle, bottom)");
}

float textSize(float size, const std::string& what) {
    if (!std::isfinite(size) || size < 0.0f)
        throw usageError(what + ": size " + std::to_string(size) +
                         " must be a finite number >= 0 (0: 14 pixels)");
    return size > 0.0f ? size : 14.0f;
}

void setText(estuary_viewer& v, estuary_view& view, const char* utf8) {
    if (view.type != &kText)
        throw usageError("estuary_set_text: view " + view.label + " is a " + view.type->name +
                         " view, not a text view");
    view.as<TextState>().text().text = utf8 ? utf8 : "";
    ++v.drawVersion; // a frame recorded before does not draw the new text
}

estuary_view* addTextView(estuary_viewer& v, const estuary_text_view_desc& desc) {
    const std::string what = "estuary_add_text_view";
    checkVulkanConsumer(v, what);
    constexpr uint32_t kAllowed = ESTUARY_VIEW_HIDDEN | ESTUARY_TEXT_WORLD | ESTUARY_TEXT_3D;
    checkFlags(desc.flags, kAllowed, what,
               "ESTUARY_VIEW_HIDDEN, ESTUARY_TEXT_WORLD, ESTUARY_TEXT_3D");
    for (int i = 0; i < 3; ++i)
        if (!std::isfinite(desc.position[i]))
            throw usageError(what + ": position[" + std::to_string(i) + "] must be finite");
    for (int i = 0; i < 6; ++i)
        if (!std::isfinite(desc.bounds[i])) throw usageError(what + ": bounds must be finite");
    if (!std::isfinite(desc.rotation))
        throw usageError(what + ": rotation " + std::to_string(desc.rotation) +
                         " must be finite (degrees)");
    auto view = newView<TextState>(v, kText);
    auto& state = view->as<TextState>();
    state.batch.texts.resize(1);
    AnnotationText& text = state.text();
    text.text = desc.text ? desc.text : "";
    std::copy(desc.position, desc.position + 3, state.anchor);
    text.color = textColour(desc.color, what);
    text.alignX = textAlignX(desc.align, what);
    text.alignY = textAlignY(desc.valign, what);
    text.rotationDegrees = desc.rotation;
    state.world = (desc.flags & (ESTUARY_TEXT_WORLD | ESTUARY_TEXT_3D)) != 0;
    view->flags = desc.flags;
    view->threeD = (desc.flags & ESTUARY_TEXT_3D) != 0;
    std::copy(desc.bounds, desc.bounds + 6, view->bounds.begin());
    view->label = desc.label && *desc.label ? desc.label : "text";
    view->params = defaultParams(desc.flags, ESTUARY_COLORMAP_VIRIDIS, 0.0f, 1.0f);
    view->params.point_size = textSize(desc.size, what);
    return addView(v, std::move(view));
}

} // namespace estuary::lib
