// Triangle meshes pulled from storage buffers (no vertex input): vertices of vec4 (x, y, z, value),
// triangles of three consecutive vertices or of three uint indices, under the orbit camera of the
// 3D points (volume_camera.h) in a box, coloured by value through the colormap (or by its bits as
// RGBA8), lit by one light (shared_layout.h) with flat (per triangle) or smooth (per vertex)
// normals, depth-tested against each other, optionally with a wireframe over the faces
// (viewer/views/mesh/mesh.vert, mesh.frag). Smooth normals are the caller's (vec4 per vertex) or
// summed each frame by mesh_prepare.comp from the triangles. Without a wireframe the triangles are
// drawn through an index buffer of the renderer's own, which mesh_prepare.comp fills from the
// caller's indices each frame (dropping triangles with an index past the vertices), so that the GPU
// shades a shared vertex about once (mesh_indexed.vert); with one, each triangle's corners pull all
// three of its vertices (mesh.vert), which the wireframe's edge distances need. The caller owns the
// buffers (one set per slot) and the target; the renderer owns its pipelines, descriptors, colormap
// image, depth image and normal sums. Per-frame calls allocate nothing and never wait.
#pragma once

#include "attributes.h"
#include "pick.h"
#include "renderer.h"
#include "resources.h"

#include <array>
#include <filesystem>
#include <optional>
#include <vector>

namespace estuary {

struct MeshDesc {
    Kit* kit = nullptr; // required: the viewer's drawing kit (kit.h), outliving the renderer
    VkFormat targetFormat = VK_FORMAT_R8G8B8A8_UNORM;
    std::filesystem::path dataDir; // holds shaders/ and assets/
    uint32_t slotCount = 1;
    // Smooth normals summed by the renderer for up to this many vertices (0: the caller's own,
    // setMeshBuffers' normals, or flat shading only).
    uint32_t summedNormals = 0;
    bool wireframe = false;     // drawn with MeshDraw::flags' ESTUARY_MESH_FLAG_WIREFRAME
    uint32_t indexCapacity = 0; // without a wireframe: the most indices a slot's buffer holds
    // Where each channel of a vertex lies (renderer/attributes.h); none: vec4 (x, y, z, value) in
    // the vertex buffer, indices (U32) and normals (F32X4) in their own buffers.
    std::optional<AttributeChannels> attributes;
};

struct MeshRenderer : MoveOnly {
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
    VkPipelineLayout pipelineLayout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipeline preparePipeline = VK_NULL_HANDLE; // mesh_prepare.comp: sums, draw indices
    Kit* kit = nullptr;
    std::vector<VkDescriptorSet> slotSets;    // from the kit's pools
    AttributeChannels channels{};             // what the shaders read (specialized into them)
    AttributeSpecialization specialization;   // the pipelines' constants of `channels`
    std::vector<AttributeBuffer> mainBuffers; // per slot
    std::vector<std::array<AttributeBuffer, kAttributeChannels>> ownBuffers; // per slot
    // Per slot: the indices' and normals' bytes (0: none).
    std::vector<VkDeviceSize> indexBytes, normalBytes;
    GpuBuffer normalSums; // ivec4 per vertex, shared by the slots
    uint32_t summedNormals = 0;
    bool wireframe = false;
    GpuBuffer drawIndices; // the indexed draw's (no wireframe), shared by the slots
    uint32_t indexCapacity = 0;
    VkFormat depthFormat = VK_FORMAT_UNDEFINED;
    GpuImage depth;  // setMeshExtent's
    PickPasses pick; // prepareMeshPick makes its pipeline
};

// Throws a runtime error naming a missing or malformed shader file, or a device without a depth
// format.
MeshRenderer createMeshRenderer(const Device& device, const MeshDesc& desc);
void destroyMeshRenderer(const Device& device, MeshRenderer& renderer);

// Points the slot at its buffers: `vertices` (the main buffer: the channels not in their own;
// VK_NULL_HANDLE where every channel read has its own), `indices` (the index channel's;
// VK_NULL_HANDLE: consecutive vertices) and `normals` (the normal channel's; VK_NULL_HANDLE:
// summed, or flat). Only while no submitted work using the slot is in flight.
void setMeshBuffers(const Device& device, MeshRenderer& renderer, uint32_t slot, VkBuffer vertices,
                    VkDeviceSize vertexBytes, VkBuffer indices, VkDeviceSize indexBytes,
                    VkBuffer normals, VkDeviceSize normalBytes);
// Points the slot's channel `channel` (one with AttributeChannel::ownBuffer) at `buffer`.
void setMeshAttributeBuffer(const Device& device, MeshRenderer& renderer, uint32_t slot,
                            uint32_t channel, VkBuffer buffer, VkDeviceSize bytes);

// (Re)makes the depth image for targets of `extent`. Only while no submitted work using the
// renderer is in flight.
void setMeshExtent(const Device& device, MeshRenderer& renderer, VkExtent2D extent);

struct MeshDraw {
    uint32_t count = 0;     // indices (or vertices) used: count / 3 triangles
    bool flat = false;      // one normal per triangle, else per vertex
    uint32_t flags = 0;     // ESTUARY_MESH_FLAG_WIREFRAME, ESTUARY_MESH_FLAG_RGBA
    float wireWidth = 1.0f; // pixels
    std::array<float, 4> wire{0.0f, 0.0f, 0.0f, 1.0f}; // RGBA, blended over the face by alpha
    uint32_t colormap = 0;
    float valueMin = 0.0f, valueMax = 1.0f;
    std::array<float, 6> box{-0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f}; // framed, as 3D points'
    ViewParams view;                                                 // yaw, pitch, zoom
};

// Sums the normals and checks the indices where the renderer does (a compute pass: call between
// passes), then records a
// dynamic-rendering pass over `target` (COLOR_ATTACHMENT_OPTIMAL, kept; `extent` the one
// setMeshExtent was given) with the depth image cleared, drawing draw.count / 3 triangles of the
// slot's buffers, which must be readable by vertex (and compute) shaders.
void recordMesh(const MeshRenderer& renderer, VkCommandBuffer cmd, uint32_t slot,
                VkImageView target, VkExtent2D extent, const MeshDraw& draw);

// Picking (renderer/pick.h): makes the pick's pipeline, once (not per frame: it compiles).
void prepareMeshPick(const Device& device, MeshRenderer& renderer);
// Records the pick at `query` of the triangles recordMesh draws of `draw` in the slot (the same
// checks; outside a render pass): the triangle drawn there (the nearest the eye) or nearest within
// query.radius, its PickState copied into `destination` at `offset`. Needs prepareMeshPick.
void recordMeshPick(const MeshRenderer& renderer, VkCommandBuffer cmd, uint32_t slot,
                    VkExtent2D extent, const MeshDraw& draw, const PickQuery& query,
                    VkBuffer destination, VkDeviceSize offset);

} // namespace estuary
