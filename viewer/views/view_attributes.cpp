#include "view_attributes.h"
#include "errors.h"

#include <algorithm>

namespace estuary::lib {

namespace {

constexpr uint32_t bit(uint32_t format) {
    return 1u << format;
}
constexpr uint32_t kVectors = bit(ESTUARY_ATTRIBUTE_F32X2) | bit(ESTUARY_ATTRIBUTE_F32X3) |
                              bit(ESTUARY_ATTRIBUTE_F32X4) | bit(ESTUARY_ATTRIBUTE_F16X2) |
                              bit(ESTUARY_ATTRIBUTE_F16X3) | bit(ESTUARY_ATTRIBUTE_F16X4);
constexpr uint32_t kNormals = bit(ESTUARY_ATTRIBUTE_F32X3) | bit(ESTUARY_ATTRIBUTE_F32X4) |
                              bit(ESTUARY_ATTRIBUTE_F16X3) | bit(ESTUARY_ATTRIBUTE_F16X4);
constexpr uint32_t kScalars = bit(ESTUARY_ATTRIBUTE_F32) | bit(ESTUARY_ATTRIBUTE_F16);
constexpr uint32_t kNumbers = kScalars | bit(ESTUARY_ATTRIBUTE_I32) | bit(ESTUARY_ATTRIBUTE_U32);
constexpr uint32_t kColours =
    bit(ESTUARY_ATTRIBUTE_F32) | bit(ESTUARY_ATTRIBUTE_U32) | bit(ESTUARY_ATTRIBUTE_UNORM8X4);

// The shaders number formats and channels as the API does.
static_assert(ESTUARY_ATTR_F32 == ESTUARY_ATTRIBUTE_F32 &&
              ESTUARY_ATTR_F16X4 == ESTUARY_ATTRIBUTE_F16X4 &&
              ESTUARY_ATTR_UNORM8X4 == ESTUARY_ATTRIBUTE_UNORM8X4 &&
              ESTUARY_ATTR_I32 == ESTUARY_ATTRIBUTE_I32 &&
              ESTUARY_ATTR_U32 == ESTUARY_ATTRIBUTE_U32);
static_assert(ESTUARY_CH_POSITION == ESTUARY_CHANNEL_POSITION &&
              ESTUARY_CH_VALUE == ESTUARY_CHANNEL_VALUE &&
              ESTUARY_CH_SIZE == ESTUARY_CHANNEL_SIZE &&
              ESTUARY_CH_DIRECTION == ESTUARY_CHANNEL_DIRECTION &&
              ESTUARY_CH_NORMAL == ESTUARY_CHANNEL_NORMAL &&
              ESTUARY_CH_INDEX == ESTUARY_CHANNEL_INDEX &&
              kAttributeChannels <= ESTUARY_CHANNEL_COUNT);

constexpr const char* kChannelNames[kAttributeChannels] = {"POSITION",  "VALUE",  "SIZE",
                                                           "DIRECTION", "NORMAL", "INDEX"};
constexpr const char* kFormatNames[] = {"DEFAULT", "F32",   "F32X2", "F32X3",    "F32X4", "F16",
                                        "F16X2",   "F16X3", "F16X4", "UNORM8X4", "I32",   "U32"};

std::string formatNames(uint32_t formats) {
    std::string names;
    for (uint32_t f = 1; f <= ESTUARY_ATTRIBUTE_U32; ++f)
        if (formats & bit(f)) names += std::string(names.empty() ? "" : ", ") + kFormatNames[f];
    return names;
}

// Per view kind: its name, the formats each channel takes (0: not taken).
struct KindRule {
    const char* name;
    std::array<uint32_t, kAttributeChannels> formats;
};
KindRule ruleOf(ChannelKind kind) {
    switch (kind) {
    case ChannelKind::Points2d:
    case ChannelKind::Points3d:
        return {"points", {kVectors, kNumbers, 0, kVectors, 0, 0}};
    case ChannelKind::Markers:
        return {"markers", {kVectors, kNumbers | kColours, kScalars, kVectors, 0, 0}};
    case ChannelKind::Lines:
        return {"lines", {kVectors, kNumbers | kColours, 0, 0, 0, bit(ESTUARY_ATTRIBUTE_U32)}};
    case ChannelKind::Mesh:
        return {"mesh",
                {kVectors, kNumbers | kColours, 0, 0, kNormals, bit(ESTUARY_ATTRIBUTE_U32)}};
    case ChannelKind::Labels:
        return {"labels", {kVectors, 0, 0, 0, 0, bit(ESTUARY_ATTRIBUTE_U32)}};
    }
    return {"", {}};
}

std::string takenChannels(const KindRule& rule) {
    std::string names;
    for (uint32_t c = 0; c < kAttributeChannels; ++c)
        if (rule.formats[c]) names += std::string(names.empty() ? "" : ", ") + kChannelNames[c];
    return names;
}

PresetLayout presetOf(ChannelKind kind) {
    return kind == ChannelKind::Points2d   ? PresetLayout::Points2d
           : kind == ChannelKind::Points3d ? PresetLayout::Points3d
           : kind == ChannelKind::Markers  ? PresetLayout::Markers
           : kind == ChannelKind::Labels   ? PresetLayout::Labels
                                           : PresetLayout::Vertices;
}

bool isZero(const estuary_attribute& a) {
    return !a.buffer && a.offset == 0 && a.stride == 0 && a.format == ESTUARY_ATTRIBUTE_DEFAULT;
}

// The shaders' format of a described channel: a value whose bits are a colour is read as bits.
uint32_t shaderFormat(uint32_t channel, uint32_t format, bool rgba) {
    if (channel == ESTUARY_CH_VALUE &&
        (format == ESTUARY_ATTRIBUTE_UNORM8X4 || (rgba && format == ESTUARY_ATTRIBUTE_U32)))
        return ESTUARY_ATTR_BITS;
    return format;
}

} // namespace

ResolvedChannels resolveChannels(const std::string& what, ChannelKind kind, estuary_buffer* main,
                                 const char* mainName,
                                 const estuary_attribute (&attributes)[ESTUARY_CHANNEL_COUNT],
                                 bool rgba, estuary_buffer* indices, estuary_buffer* normals,
                                 const FactsOf& factsOf) {
    const KindRule rule = ruleOf(kind);
    const std::string kindName = std::string(rule.name) + " view";
    for (uint32_t c = kAttributeChannels; c < ESTUARY_CHANNEL_COUNT; ++c)
        if (!isZero(attributes[c]))
            throw usageError(what + ": attributes[" + std::to_string(c) +
                             "] is not a channel (0.." + std::to_string(kAttributeChannels - 1) +
                             ": ESTUARY_CHANNEL_POSITION..INDEX); leave it all 0");
    ResolvedChannels r;
    if (main) r.channels = presetChannels(presetOf(kind));
    std::array<uint64_t, kAttributeChannels> sizes{};
    for (uint64_t& size : sizes)
        size = main ? factsOf(main).size : 0;
    // The lines' and meshes' own index and normal buffers are presets too.
    const auto ownPreset = [&](uint32_t c, estuary_buffer* buffer, uint32_t format,
                               uint32_t stride) {
        if (!buffer) return;
        r.channels[c] = {format, 0, stride, true};
        r.buffers[c] = buffer;
        sizes[c] = factsOf(buffer).size;
    };
    ownPreset(ESTUARY_CH_INDEX, indices, ESTUARY_ATTR_U32, 4);
    ownPreset(ESTUARY_CH_NORMAL, normals, ESTUARY_ATTR_F32X4, 16);
    bool positionBuffer = false;
    for (uint32_t c = 0; c < kAttributeChannels; ++c) {
        const estuary_attribute& a = attributes[c];
        const std::string where = what + ": attributes[ESTUARY_CHANNEL_" + kChannelNames[c] + "]";
        const uint32_t format = uint32_t(a.format);
        if (format == ESTUARY_ATTRIBUTE_DEFAULT) {
            if (!isZero(a))
                throw usageError(where + ": buffer, offset or stride given with format "
                                         "ESTUARY_ATTRIBUTE_DEFAULT (name a format, or leave it "
                                         "all 0 for the preset layout)");
            continue;
        }
        if (format > ESTUARY_ATTRIBUTE_U32)
            throw usageError(where + ": format " + std::to_string(format) +
                             " is not an estuary_attribute_format (1..11: F32..U32)");
        if (rule.formats[c] == 0)
            throw usageError(where + ": a " + kindName + " takes no " + kChannelNames[c] +
                             " channel (it takes: " + takenChannels(rule) + ")");
        uint32_t allowed = rule.formats[c];
        if (c == ESTUARY_CH_VALUE && rgba) allowed &= kColours;
        if (!(allowed & bit(format)))
            throw usageError(where + ": format " + kFormatNames[format] + " is not allowed for a " +
                             kindName + "'s " + kChannelNames[c] + " channel" +
                             (c == ESTUARY_CH_VALUE && rgba ? " with the view's RGBA flag" : "") +
                             " (allowed: " + formatNames(allowed) + ")");
        if (c == ESTUARY_CH_INDEX && indices)
            throw usageError(where + ": the view's indices are given twice (desc indices and "
                                     "this channel): give one");
        if (c == ESTUARY_CH_NORMAL && normals)
            throw usageError(where + ": the view's normals are given twice (desc normals and "
                                     "this channel): give one");
        const uint32_t bytes = attributeFormatBytes(format);
        const uint32_t align = bytes % 4 == 0 ? 4 : 2;
        if (a.offset % align != 0)
            throw usageError(where + ": offset " + std::to_string(a.offset) +
                             " is not a multiple of " + std::to_string(align) + " (" +
                             kFormatNames[format] + " is read in " + std::to_string(align) +
                             "-byte units)");
        if (a.stride % align != 0)
            throw usageError(where + ": stride " + std::to_string(a.stride) +
                             " is not a multiple of " + std::to_string(align) + " (" +
                             kFormatNames[format] + " is read in " + std::to_string(align) +
                             "-byte units)");
        if (a.stride != 0 && a.stride < bytes)
            throw usageError(where + ": stride " + std::to_string(a.stride) + " is less than " +
                             kFormatNames[format] + "'s " + std::to_string(bytes) +
                             " bytes (0: the format's size)");
        estuary_buffer* buffer = a.buffer ? a.buffer : main;
        if (!buffer)
            throw usageError(where + ": buffer is NULL and the " + kindName +
                             " has no main buffer to read it from");
        const BufferFacts facts = factsOf(buffer);
        if (!facts.ours)
            throw usageError(where + ": the buffer " + facts.name + " belongs to another viewer");
        if (c == ESTUARY_CH_POSITION && a.buffer) positionBuffer = true;
        r.described = true;
        r.channels[c] = {shaderFormat(c, format, rgba), a.offset, a.stride ? a.stride : bytes,
                         true};
        r.buffers[c] = buffer;
        sizes[c] = facts.size;
        if (c == ESTUARY_CH_VALUE && format == ESTUARY_ATTRIBUTE_UNORM8X4) r.valueIsColour = true;
    }
    if (!main && !positionBuffer)
        throw usageError(what + ": " + mainName +
                         " is NULL: give it, or attributes[ESTUARY_CHANNEL_POSITION] with its own "
                         "buffer");
    uint64_t capacity = UINT32_MAX;
    for (uint32_t c = 0; c < kAttributeChannels; ++c)
        if (c != ESTUARY_CH_INDEX && r.channels[c].format != 0)
            capacity = std::min(capacity, channelCapacity(r.channels[c], sizes[c]));
    r.capacity = uint32_t(capacity);
    if (r.channels[ESTUARY_CH_INDEX].format != 0)
        r.indexCapacity = uint32_t(std::min<uint64_t>(
            channelCapacity(r.channels[ESTUARY_CH_INDEX], sizes[ESTUARY_CH_INDEX]), UINT32_MAX));
    return r;
}

std::string holds(const ResolvedChannels& resolved, const estuary_buffer* main, uint32_t capacity,
                  const std::string& units) {
    if (resolved.described || !main)
        return "its channels' buffers hold (" + std::to_string(capacity) + ")";
    return main->name + " holds (" + std::to_string(capacity) + " " + units + ")";
}

uint32_t channelCount(const ResolvedChannels& channels, const estuary_buffer* vertices,
                      uint32_t count, const std::string& what) {
    const bool indexed = channels.channels[ESTUARY_CH_INDEX].format != 0;
    const uint32_t capacity = indexed ? channels.indexCapacity : channels.capacity;
    if (count > capacity) {
        const estuary_buffer* indices = channels.buffers[ESTUARY_CH_INDEX];
        throw usageError(what + ": count " + std::to_string(count) + " is more than " +
                         (indexed ? holds(channels, indices, capacity, "indices of 4 bytes")
                                  : holds(channels, vertices, capacity, "vertices of 16 bytes")));
    }
    return capacity;
}

std::string defaultLabel(const ResolvedChannels& resolved, const estuary_buffer* main) {
    const estuary_buffer* named = main ? main : resolved.buffers[ESTUARY_CH_POSITION];
    return named ? named->name : "";
}

FactsOf viewerFacts(const estuary_viewer& v) {
    return [&v](const estuary_buffer* b) { return BufferFacts{b->size, b->viewer == &v, b->name}; };
}

namespace {

InputRole roleOf(uint32_t channel) {
    switch (channel) {
    case ESTUARY_CH_POSITION:
        return InputRole::Position;
    case ESTUARY_CH_VALUE:
        return InputRole::Value;
    case ESTUARY_CH_SIZE:
        return InputRole::Size;
    case ESTUARY_CH_DIRECTION:
        return InputRole::Direction;
    case ESTUARY_CH_NORMAL:
        return InputRole::Normals;
    default:
        return InputRole::Indices;
    }
}

} // namespace

void useChannels(estuary_view& view, const ResolvedChannels& resolved) {
    for (uint32_t c = 0; c < kAttributeChannels; ++c)
        if (resolved.channels[c].ownBuffer) view.use(roleOf(c), resolved.buffers[c]);
}

void bindChannels(const estuary_viewer& v, const estuary_view& view,
                  const AttributeChannels& channels, const ChannelSetter& set) {
    for (uint32_t c = 0; c < kAttributeChannels; ++c) {
        if (!channels[c].ownBuffer) continue;
        const estuary_buffer* buffer = view.buffer(roleOf(c));
        if (!buffer) continue; // an index or normal channel without its buffer: not read
        for (uint32_t entry = 0; entry < v.hostRing; ++entry)
            set(entry, c, vulkanBuffer(*buffer, copyOf(*buffer, entry)), buffer->size);
    }
}

} // namespace estuary::lib
