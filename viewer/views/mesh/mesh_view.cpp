// The mesh view (estuary_add_mesh_view): 16-byte vertices drawn as lit triangles by a
// MeshRenderer (renderer/mesh.h), with a descriptor set per host-ring entry pointing at that
// entry's copies of the vertices, indices and normals.
#include "view_type.h"
#include "errors.h"
#include "shared_layout.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace estuary::lib {

static_assert(ESTUARY_MESH_FLAG_WIREFRAME == ESTUARY_MESH_WIREFRAME &&
              ESTUARY_MESH_FLAG_RGBA == ESTUARY_MESH_RGBA);

namespace {

struct MeshState : ViewState {
    MeshRenderer renderer;
    estuary_mesh_shading shading = ESTUARY_MESH_SMOOTH;
    float wireWidth = 1.0f;
    std::array<float, 4> wireColor{0.0f, 0.0f, 0.0f, 1.0f};
    ResolvedChannels channels; // where each channel lies (view_attributes.h)
};

MeshDraw meshDraw(const estuary_viewer& v, const estuary_view& view) {
    const auto& state = view.as<MeshState>();
    MeshDraw draw;
    draw.count = view.params.point_count;
    draw.flat = state.shading == ESTUARY_MESH_FLAT;
    draw.flags = view.flags & (ESTUARY_MESH_WIREFRAME | ESTUARY_MESH_RGBA);
    draw.wireWidth = state.wireWidth;
    draw.wire = state.wireColor;
    draw.colormap = uint32_t(view.params.colormap);
    draw.valueMin = view.params.value_min;
    draw.valueMax = view.params.value_max;
    const auto& b = view.bounds;
    if (std::any_of(b.begin(), b.end(), [](float x) { return x != 0.0f; })) draw.box = b;
    draw.view = viewParams(v, view);
    return draw;
}

void makeMesh(estuary_viewer& v, estuary_view& view) {
    auto& state = view.as<MeshState>();
    const estuary_buffer* vertices = view.buffer();
    MeshDesc desc;
    desc.targetFormat = v.targetFormat;
    desc.dataDir = v.dataDir;
    desc.slotCount = v.hostRing;
    desc.attributes = state.channels.channels;
    if (!state.channels.channels[ESTUARY_CH_NORMAL].format && state.shading == ESTUARY_MESH_SMOOTH)
        desc.summedNormals = state.channels.capacity;
    desc.wireframe = (view.flags & ESTUARY_MESH_WIREFRAME) != 0;
    desc.indexCapacity = state.channels.indexCapacity;
    desc.kit = &v.kit;
    state.renderer = createMeshRenderer(v.device, desc);
    setMeshExtent(v.device, state.renderer,
                  viewExtent(v, view, pictureExtent(v))); // a window's may differ
    for (uint32_t entry = 0; entry < v.hostRing; ++entry)
        setMeshBuffers(v.device, state.renderer, entry,
                       vertices ? vulkanBuffer(*vertices, copyOf(*vertices, entry))
                                : VK_NULL_HANDLE,
                       vertices ? vertices->size : 0, VK_NULL_HANDLE, 0, VK_NULL_HANDLE, 0);
    bindChannels(v, view, state.channels.channels,
                 [&](uint32_t entry, uint32_t channel, VkBuffer buffer, VkDeviceSize bytes) {
                     setMeshAttributeBuffer(v.device, state.renderer, entry, channel, buffer,
                                            bytes);
                 });
}

class MeshType final : public ViewType {
  public:
    MeshType() : ViewType("mesh") {}
    void make(estuary_viewer& v, estuary_view& view) const override { makeMesh(v, view); }
    void release(estuary_viewer& v, estuary_view& view) const override {
        destroyMeshRenderer(v.device, view.as<MeshState>().renderer);
    }
    void record(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                uint32_t entry, const DrawTarget& target) const override {
        recordMesh(view.as<MeshState>().renderer, cmd, entry, target.view, target.extent,
                   meshDraw(v, view));
    }
    void resize(estuary_viewer& v, estuary_view& view, VkExtent2D extent) const override {
        setMeshExtent(v.device, view.as<MeshState>().renderer, extent);
    }
    void preparePick(estuary_viewer& v, estuary_view& view) const override {
        prepareMeshPick(v.device, view.as<MeshState>().renderer);
    }
    void recordPick(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                    uint32_t entry, VkExtent2D extent, const PickQuery& query, VkBuffer destination,
                    VkDeviceSize offset) const override {
        recordMeshPick(view.as<MeshState>().renderer, cmd, entry, extent, meshDraw(v, view), query,
                       destination, offset);
    }
    std::string describePick(const estuary_view&, const estuary_pick& pick) const override {
        return "triangle " + std::to_string(pick.element) + ", vertex " +
               std::to_string(pick.vertex);
    }
    bool pickIsColour(const estuary_view& view) const override {
        return (view.flags & ESTUARY_MESH_RGBA) != 0;
    }
    void panel(const estuary_view& view, estuary_view_params& p) const override {
        ImGui::TextDisabled("%u of %u triangles", p.point_count / 3, view.maxPoints / 3);
    }
};

const MeshType kMesh;

} // namespace

const ViewType& meshViewType() {
    return kMesh;
}

estuary_view* addMeshView(estuary_viewer& v, const estuary_mesh_view_desc& desc) {
    const std::string what = "estuary_add_mesh_view";
    checkBuffer(v, desc.vertices, what);
    checkBuffer(v, desc.indices, what);
    checkBuffer(v, desc.normals, what);
    checkVulkanConsumer(v, what);
    if (uint32_t(desc.shading) > ESTUARY_MESH_FLAT)
        throw usageError(what + ": shading " + std::to_string(int(desc.shading)) +
                         " is not an estuary_mesh_shading (0: smooth, 1: flat)");
    constexpr uint32_t kAllowed =
        ESTUARY_VIEW_HIDDEN | ESTUARY_POINTS_COLORBAR | ESTUARY_MESH_WIREFRAME | ESTUARY_MESH_RGBA;
    checkFlags(desc.flags, kAllowed, what,
               "ESTUARY_VIEW_HIDDEN, ESTUARY_POINTS_COLORBAR, ESTUARY_MESH_WIREFRAME, "
               "ESTUARY_MESH_RGBA");
    const ResolvedChannels channels = resolveChannels(
        what, ChannelKind::Mesh, desc.vertices, "vertices", desc.attributes,
        (desc.flags & ESTUARY_MESH_RGBA) != 0, desc.indices, desc.normals, viewerFacts(v));
    const estuary_buffer* vertices = desc.vertices;
    if (vertices && vertices->size < 16 && !channels.described)
        throw usageError(what + ": " + vertices->name + " holds no vertex (16 bytes each)");
    if (vertices && desc.normals && desc.normals->size < vertices->size && !channels.described)
        throw usageError(what + ": the normals' buffer " + desc.normals->name + " (" +
                         std::to_string(desc.normals->size) + " bytes) is smaller than " +
                         vertices->name + " (" + std::to_string(vertices->size) +
                         " bytes): 16 bytes of normal for each 16-byte vertex");
    if (channels.capacity == 0) throw usageError(what + ": the vertices' channels hold no vertex");
    const uint32_t capacity = channelCount(channels, desc.vertices, desc.count, what);
    if (!std::isfinite(desc.wire_width) || desc.wire_width < 0.0f)
        throw usageError(what + ": wire_width " + std::to_string(desc.wire_width) +
                         " must be a finite number >= 0 (0: 1 pixel)");
    for (float c : desc.wire_color)
        if (!(c >= 0.0f && c <= 1.0f))
            throw usageError(what + ": wire_color " + std::to_string(c) + " is not in 0..1 (RGBA)");
    auto view = newView<MeshState>(v, kMesh);
    fillBufferView(v, *view, what,
                   {desc.vertices, desc.bounds, desc.colormap, desc.value_min, desc.value_max,
                    desc.label, desc.flags, true, capacity, desc.count, &channels});
    if (channels.valueIsColour) view->flags |= ESTUARY_MESH_RGBA;
    auto& state = view->as<MeshState>();
    state.channels = channels;
    state.shading = desc.shading;
    state.wireWidth = desc.wire_width > 0.0f ? desc.wire_width : 1.0f;
    if (std::any_of(std::begin(desc.wire_color), std::end(desc.wire_color),
                    [](float c) { return c != 0.0f; }))
        std::copy(std::begin(desc.wire_color), std::end(desc.wire_color), state.wireColor.begin());
    return addView(v, std::move(view));
}

} // namespace estuary::lib
