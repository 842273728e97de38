// The labels view (estuary_add_labels_view): strings from a table at anchors a buffer holds
// (written by CUDA each frame, never read by the host), drawn by the labels renderer
// (renderer/labels.h), placed as markers are.
#include "errors.h"
#include "labels.h"
#include "points/points_family.h"
#include "text/text_view.h"

#include <imgui.h>

#include <cmath>

namespace estuary::lib {

namespace {

struct LabelsState : ViewState {
    mutable LabelsRenderer renderer; // record() is const: the first draw uploads the font
    std::vector<std::string> strings;
    AlignX alignX = AlignX::Left;
    AlignY alignY = AlignY::Baseline;
    Rgba colour{1, 1, 1, 1};
    float offsetX = 0.0f, offsetY = 0.0f;
    AttributeChannels channels{};
};

// Placement as PointsFamilyType's; the labels renderer draws.
class LabelsType final : public PointsFamilyType {
  public:
    LabelsType() : PointsFamilyType("labels") {}
    void make(estuary_viewer& v, estuary_view& view) const override {
        auto& s = view.as<LabelsState>();
        LabelsDesc desc;
        desc.kit = &v.kit;
        desc.targetFormat = v.targetFormat;
        desc.dataDir = v.dataDir;
        desc.slotCount = v.hostRing;
        desc.threeD = view.threeD;
        desc.channels = s.channels;
        desc.strings = s.strings;
        desc.alignX = s.alignX;
        desc.alignY = s.alignY;
        desc.compute = v.drawPath == ESTUARY_DRAW_COMPUTE;
        s.renderer = createLabelsRenderer(v.device, desc);
        if (const estuary_buffer* buffer = view.buffer())
            for (uint32_t entry = 0; entry < v.hostRing; ++entry)
                setLabelsBuffer(v.device, s.renderer, entry,
                                vulkanBuffer(*buffer, copyOf(*buffer, entry)), buffer->size);
        bindChannels(v, view, s.channels,
                     [&](uint32_t entry, uint32_t channel, VkBuffer buffer, VkDeviceSize bytes) {
                         setLabelsAttributeBuffer(v.device, s.renderer, entry, channel, buffer,
                                                  bytes);
                     });
    }
    void release(estuary_viewer& v, estuary_view& view) const override {
        destroyLabelsRenderer(v.device, view.as<LabelsState>().renderer);
    }
    bool annotates() const override { return true; }
    void recordUploads(const estuary_viewer&, const estuary_view& view,
                       VkCommandBuffer cmd) const override {
        recordFontUpload(view.as<LabelsState>().renderer.font, cmd);
    }
    void record(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                uint32_t entry, const DrawTarget& target) const override {
        const auto& s = view.as<LabelsState>();
        LabelsDraw d;
        d.count = view.params.point_count;
        d.sizePixels = view.params.point_size;
        d.offsetX = s.offsetX;
        d.offsetY = s.offsetY;
        d.color = s.colour;
        d.place = draw(v, view);
        if (target.storage)
            recordLabelsCompute(v.device, s.renderer, cmd, entry, target.area, target.view,
                                target.extent, d);
        else
            recordLabelsInPass(s.renderer, cmd, entry, target.area, target.extent, d);
    }
    void resize(estuary_viewer&, estuary_view&, VkExtent2D) const override {}
    void preparePick(estuary_viewer&, estuary_view&) const override {}
    void recordPick(const estuary_viewer&, const estuary_view&, VkCommandBuffer, uint32_t,
                    VkExtent2D, const PickQuery&, VkBuffer, VkDeviceSize) const override {}
    void panel(const estuary_view& view, estuary_view_params& p) const override {
        ImGui::SliderFloat("size", &p.point_size, 4.0f, 64.0f, "%.0f px");
        ImGui::TextDisabled("%u of %u labels, %zu strings", p.point_count, view.maxPoints,
                            view.as<LabelsState>().strings.size());
    }
    bool colormapped(const estuary_view&) const override { return false; }
};

const LabelsType kLabels;

} // namespace

const ViewType& labelsViewType() {
    return kLabels;
}

estuary_view* addLabelsView(estuary_viewer& v, const estuary_labels_view_desc& desc) {
    const std::string what = "estuary_add_labels_view";
    checkBuffer(v, desc.buffer, what);
    checkVulkanConsumer(v, what);
    constexpr uint32_t kAllowed = ESTUARY_VIEW_HIDDEN | ESTUARY_LABELS_3D;
    checkFlags(desc.flags, kAllowed, what, "ESTUARY_VIEW_HIDDEN, ESTUARY_LABELS_3D");
    if (desc.string_count == 0 || !desc.strings)
        throw usageError(what + ": strings is " + (desc.strings ? "given" : "NULL") +
                         " with string_count " + std::to_string(desc.string_count) +
                         ": give at least one string (the anchors' index channel picks one)");
    if (!std::isfinite(desc.offset[0]) || !std::isfinite(desc.offset[1]))
        throw usageError(what + ": offset must be finite (pixels)");
    const ResolvedChannels channels =
        resolveChannels(what, ChannelKind::Labels, desc.buffer, "buffer", desc.attributes, false,
                        nullptr, nullptr, viewerFacts(v));
    const uint32_t capacity = std::min(channels.capacity, channels.indexCapacity);
    if (desc.count > capacity)
        throw usageError(what + ": count " + std::to_string(desc.count) + " is more than " +
                         holds(channels, desc.buffer, capacity, "anchors of 16 bytes"));
    auto view = newView<LabelsState>(v, kLabels);
    auto& state = view->as<LabelsState>();
    state.colour = textColour(desc.color, what);
    state.alignX = textAlignX(desc.align, what);
    state.alignY = textAlignY(desc.valign, what);
    const float size = textSize(desc.size, what);
    state.offsetX = desc.offset[0];
    state.offsetY = desc.offset[1];
    state.channels = channels.channels;
    for (uint32_t i = 0; i < desc.string_count; ++i)
        state.strings.emplace_back(desc.strings[i] ? desc.strings[i] : "");
    fillBufferView(v, *view, what,
                   {desc.buffer, desc.bounds, ESTUARY_COLORMAP_VIRIDIS, 0.0f, 0.0f, desc.label,
                    desc.flags, (desc.flags & ESTUARY_LABELS_3D) != 0, capacity, desc.count,
                    &channels});
    view->params.point_size = size;
    return addView(v, std::move(view));
}

} // namespace estuary::lib
