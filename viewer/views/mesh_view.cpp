// The mesh view (estuary_add_mesh_view): a points view over 16-byte vertices drawn as lit
// triangles by a MeshRenderer (renderer/mesh.h), with a descriptor set per host-ring entry
// pointing at that entry's copies of the vertices, indices and normals.
#include "views_internal.h"
#include "errors.h"
#include "shared_layout.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace estuary::lib {

static_assert(ESTUARY_MESH_FLAG_WIREFRAME == ESTUARY_MESH_WIREFRAME &&
              ESTUARY_MESH_FLAG_RGBA == ESTUARY_MESH_RGBA);

namespace {

void makeMesh(estuary_viewer& v, estuary_view& view) {
    const estuary_buffer& vertices = *view.buffer();
    MeshDesc desc;
    desc.targetFormat = v.targetFormat;
    desc.dataDir = v.dataDir;
    desc.slotCount = v.hostRing;
    if (!view.buffer(InputRole::Normals) && view.meshShading == ESTUARY_MESH_SMOOTH)
        desc.summedNormals = uint32_t(std::min<uint64_t>(vertices.size / 16, UINT32_MAX));
    desc.wireframe = (view.flags & ESTUARY_MESH_WIREFRAME) != 0;
    if (const estuary_buffer* indices = view.buffer(InputRole::Indices))
        desc.indexCapacity = uint32_t(std::min<uint64_t>(indices->size / 4, UINT32_MAX));
    desc.kit = &v.kit;
    view.meshRenderer = createMeshRenderer(v.device, desc);
    setMeshExtent(v.device, view.meshRenderer, pictureExtent(v)); // a window's may differ
    for (uint32_t entry = 0; entry < v.hostRing; ++entry) {
        const estuary_buffer* indices = view.buffer(InputRole::Indices);
        const estuary_buffer* normals = view.buffer(InputRole::Normals);
        setMeshBuffers(v.device, view.meshRenderer, entry,
                       vulkanBuffer(vertices, copyOf(vertices, entry)), vertices.size,
                       indices ? vulkanBuffer(*indices, copyOf(*indices, entry)) : VK_NULL_HANDLE,
                       indices ? indices->size : 0,
                       normals ? vulkanBuffer(*normals, copyOf(*normals, entry)) : VK_NULL_HANDLE,
                       normals ? normals->size : 0);
    }
}

} // namespace

estuary_view* addMeshView(estuary_viewer& v, const estuary_mesh_view_desc& desc) {
    const std::string what = "estuary_add_mesh_view";
    if (!desc.vertices) throw usageError(what + ": vertices is NULL");
    estuary_buffer& vertices = *desc.vertices;
    checkBuffer(v, desc.vertices, what);
    checkBuffer(v, desc.indices, what);
    checkBuffer(v, desc.normals, what);
    if (v.consumer == ESTUARY_CONSUMER_OPENGL)
        throw unsupported(what + ": the OpenGL consumer draws field views only");
    if (uint32_t(desc.shading) > ESTUARY_MESH_FLAT)
        throw usageError(what + ": shading " + std::to_string(int(desc.shading)) +
                         " is not an estuary_mesh_shading (0: smooth, 1: flat)");
    constexpr uint32_t kAllowed =
        ESTUARY_VIEW_HIDDEN | ESTUARY_POINTS_COLORBAR | ESTUARY_MESH_WIREFRAME | ESTUARY_MESH_RGBA;
    checkFlags(desc.flags, kAllowed, what,
               "ESTUARY_VIEW_HIDDEN, ESTUARY_POINTS_COLORBAR, ESTUARY_MESH_WIREFRAME, "
               "ESTUARY_MESH_RGBA");
    if (vertices.size < 16)
        throw usageError(what + ": " + vertices.name + " holds no vertex (16 bytes each)");
    if (desc.normals && desc.normals->size < vertices.size)
        throw usageError(what + ": the normals' buffer " + desc.normals->name + " (" +
                         std::to_string(desc.normals->size) + " bytes) is smaller than " +
                         vertices.name + " (" + std::to_string(vertices.size) +
                         " bytes): 16 bytes of normal for each 16-byte vertex");
    const uint32_t capacity = vertexCapacity(vertices, desc.indices, desc.count, what);
    if (!std::isfinite(desc.wire_width) || desc.wire_width < 0.0f)
        throw usageError(what + ": wire_width " + std::to_string(desc.wire_width) +
                         " must be a finite number >= 0 (0: 1 pixel)");
    for (float c : desc.wire_color)
        if (!(c >= 0.0f && c <= 1.0f))
            throw usageError(what + ": wire_color " + std::to_string(c) + " is not in 0..1 (RGBA)");
    auto view = bufferView(v, what,
                           {&vertices, desc.bounds, desc.colormap, desc.value_min, desc.value_max,
                            desc.label, desc.flags, true, capacity, desc.count});
    view->mesh = true;
    view->use(InputRole::Indices, desc.indices);
    view->use(InputRole::Normals, desc.normals);
    view->meshShading = desc.shading;
    view->wireWidth = desc.wire_width > 0.0f ? desc.wire_width : 1.0f;
    if (std::any_of(std::begin(desc.wire_color), std::end(desc.wire_color),
                    [](float c) { return c != 0.0f; }))
        std::copy(std::begin(desc.wire_color), std::end(desc.wire_color), view->wireColor.begin());
    waitIdle(v, "adding a view");
    makeMesh(v, *view);
    return keep(v, std::move(view));
}

MeshDraw meshDraw(const estuary_viewer& v, const estuary_view& view) {
    MeshDraw draw;
    draw.count = view.params.point_count;
    draw.flat = view.meshShading == ESTUARY_MESH_FLAT;
    draw.flags = view.flags & (ESTUARY_MESH_WIREFRAME | ESTUARY_MESH_RGBA);
    draw.wireWidth = view.wireWidth;
    draw.wire = view.wireColor;
    draw.colormap = uint32_t(view.params.colormap);
    draw.valueMin = view.params.value_min;
    draw.valueMax = view.params.value_max;
    const auto& b = view.bounds;
    if (std::any_of(b.begin(), b.end(), [](float x) { return x != 0.0f; })) draw.box = b;
    draw.view = viewParams(v, view);
    return draw;
}

void recordMeshView(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                    uint32_t entry, VkImageView target, VkExtent2D extent) {
    recordMesh(view.meshRenderer, cmd, entry, target, extent, meshDraw(v, view));
}

} // namespace estuary::lib
