// What the views' source files share (views.cpp, mesh_view.cpp): the checks every description
// gets, the parameters a new view starts with, the view over a buffer that markers, lines, glyphs
// and meshes build on, and keeping a made view in the viewer. Internal to the viewer.
#pragma once

#include "viewer.h"

#include <memory>
#include <string>

namespace estuary::lib {

// Each throws a usage error starting with `what`.
void checkColormap(const estuary_viewer& v, estuary_colormap colormap, const std::string& what);
void checkRange(float& lo, float& hi, const std::string& what); // both 0: 0..1
void checkOwned(const estuary_viewer& v, const void* owner, const std::string& what);
void checkBuffer(const estuary_viewer& v, const estuary_buffer* buffer, // NULL passes
                 const std::string& what);
// "unknown flags N (allowed: <allowedNames>)" where `flags` has bits outside `allowed`.
void checkFlags(uint32_t flags, uint32_t allowed, const std::string& what,
                const char* allowedNames);

// The vertices (16 bytes each) or indices (4 bytes) a lines or mesh view may use: throws naming
// `count` when it is more.
uint32_t vertexCapacity(const estuary_buffer& vertices, const estuary_buffer* indices,
                        uint32_t count, const std::string& what);

estuary_view_params defaultParams(uint32_t flags, estuary_colormap colormap, float lo, float hi);

// A view over `buffer`: finite bounds, a colormap and range checked, then the view with its flags,
// placement (3D: the orbit camera), count (0: capacity) and label (none: the buffer's name).
struct BufferViewDesc {
    estuary_buffer* buffer;
    const float* bounds; // 6
    estuary_colormap colormap;
    float valueMin, valueMax;
    const char* label;
    uint32_t flags;
    bool threeD;
    uint32_t capacity, count;
};
std::unique_ptr<estuary_view> bufferView(estuary_viewer& v, const std::string& what,
                                         const BufferViewDesc& d);

// Counts the view's users of its images and buffers and adds it to the viewer's views.
estuary_view* keep(estuary_viewer& v, std::unique_ptr<estuary_view> view);

// ---- mesh_view.cpp ----
// What the view draws, as the renderer takes it.
MeshDraw meshDraw(const estuary_viewer& v, const estuary_view& view);
// The view's draw of frame `entry`'s copies over `target`.
void recordMeshView(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                    uint32_t entry, VkImageView target, VkExtent2D extent);

} // namespace estuary::lib
