// A buffer view's attribute descriptors (estuary_attribute) resolved into the channels its
// renderer reads (renderer/attributes.h): which channels the view kind takes, in which formats,
// the preset layout where a channel is not described, and every check the public header promises
// (format, alignment, stride, owner, count), each a usage error naming the view, the channel, the
// value, why and what is allowed. Pure: buffers are known through BufferFacts, so the tests drive
// it without a device.
#pragma once

#include "attributes.h" // renderer/
#include "viewer.h"

#include <array>
#include <functional>
#include <string>

namespace estuary::lib {

enum class ChannelKind { Points2d, Points3d, Markers, Lines, Mesh, Labels };

// What the resolution needs of a buffer: its size, whether it is the viewer's, its name.
struct BufferFacts {
    uint64_t size = 0;
    bool ours = true;
    std::string name;
};
using FactsOf = std::function<BufferFacts(const estuary_buffer*)>;

struct ResolvedChannels {
    AttributeChannels channels{}; // as the renderer reads them
    // The buffer of each channel read from its own (AttributeChannel::ownBuffer); the rest read
    // the main buffer.
    std::array<estuary_buffer*, kAttributeChannels> buffers{};
    uint32_t capacity = 0;      // elements (vertices) every read channel holds, index aside
    uint32_t indexCapacity = 0; // entries of the index channel (0: none read)
    bool valueIsColour = false; // a UNORM8X4 value: the view draws it with its RGBA flag
    bool described = false;     // some channel was described (not all preset)
};

// `what`: the function for messages ("estuary_add_markers_view"); `main` (the desc's `mainName`
// field) may be NULL; `rgba`: the
// view's *_RGBA flag; `indices` / `normals`: the lines' or mesh's own buffers (the index and
// normal channels' presets), or NULL.
ResolvedChannels resolveChannels(const std::string& what, ChannelKind kind, estuary_buffer* main,
                                 const char* mainName,
                                 const estuary_attribute (&attributes)[ESTUARY_CHANNEL_COUNT],
                                 bool rgba, estuary_buffer* indices, estuary_buffer* normals,
                                 const FactsOf& factsOf);

// "<main> holds (N <units>)", or with described channels "its channels' buffers hold (N)".
std::string holds(const ResolvedChannels& resolved, const estuary_buffer* main, uint32_t capacity,
                  const std::string& units);

// The vertices or indices (with an index channel) a lines or mesh view may use: throws naming
// `count` when it is more.
uint32_t channelCount(const ResolvedChannels& channels, const estuary_buffer* vertices,
                      uint32_t count, const std::string& what);

// A view's label without one given: its main buffer's name, else its position buffer's.
std::string defaultLabel(const ResolvedChannels& resolved, const estuary_buffer* main);

// The facts of a viewer's buffer (its size, owner, name).
FactsOf viewerFacts(const estuary_viewer& v);

// Adds the channels' own buffers to the view's inputs, each in its channel's role (so the frame
// acquires, releases and counts them as it does the main buffer).
void useChannels(estuary_view& view, const ResolvedChannels& resolved);
// Calls `set` for each host-ring entry and channel read from its own buffer with that entry's copy
// of the buffer (for the renderer's setAttributeBuffer, setMeshAttributeBuffer).
using ChannelSetter =
    std::function<void(uint32_t entry, uint32_t channel, VkBuffer buffer, VkDeviceSize bytes)>;
void bindChannels(const estuary_viewer& v, const estuary_view& view,
                  const AttributeChannels& channels, const ChannelSetter& set);

} // namespace estuary::lib
