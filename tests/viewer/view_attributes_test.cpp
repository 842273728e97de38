// Resolving attribute descriptors (view_attributes.h) without a device: presets where nothing is
// described, channels in their own buffers, the counts every channel's buffer holds (whole words
// for f16), and every bad description refused with a message naming the channel, the value and
// what is allowed.
#include "errors.h"
#include "view_attributes.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace estuary::lib {
namespace {

// Fake buffers: only their addresses are used, their facts come from the table.
estuary_buffer* fake(uintptr_t id) {
    return reinterpret_cast<estuary_buffer*>(id * 64);
}

struct Fakes {
    std::map<const estuary_buffer*, BufferFacts> facts;
    estuary_buffer* add(uintptr_t id, uint64_t size, const std::string& name, bool ours = true) {
        facts[fake(id)] = {size, ours, name};
        return fake(id);
    }
    FactsOf of() const {
        return [this](const estuary_buffer* b) { return facts.at(b); };
    }
};

using Attributes = estuary_attribute[ESTUARY_CHANNEL_COUNT];

ResolvedChannels resolve(ChannelKind kind, estuary_buffer* main, const Attributes& a,
                         const Fakes& f, bool rgba = false, estuary_buffer* indices = nullptr) {
    return resolveChannels("estuary_add_test_view", kind, main, "buffer", a, rgba, indices, nullptr,
                           f.of());
}

std::string refusal(ChannelKind kind, estuary_buffer* main, const Attributes& a, const Fakes& f,
                    bool rgba = false, estuary_buffer* indices = nullptr) {
    try {
        resolve(kind, main, a, f, rgba, indices);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "accepted";
}

// One channel described, the rest all 0.
struct Described {
    Attributes a{};
};
Described with(estuary_channel c, estuary_attribute attribute) {
    Described d;
    d.a[c] = attribute;
    return d;
}
std::string refusal(ChannelKind kind, estuary_buffer* main, const Described& d, const Fakes& f,
                    bool rgba = false, estuary_buffer* indices = nullptr) {
    return refusal(kind, main, d.a, f, rgba, indices);
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST(ViewAttributes, NothingDescribedIsThePresetInTheMainBuffer) {
    Fakes f;
    estuary_buffer* main = f.add(1, 32 * 10 + 31, "markers");
    const Attributes none{};
    const ResolvedChannels r = resolve(ChannelKind::Markers, main, none, f);
    EXPECT_EQ(r.capacity, 10u) << "32-byte markers, the partial 11th not counted";
    EXPECT_FALSE(r.described);
    EXPECT_EQ(r.channels[ESTUARY_CH_SIZE].offset, 28u);
    EXPECT_EQ(r.channels[ESTUARY_CH_SIZE].stride, 32u);
    for (const AttributeChannel& c : r.channels)
        EXPECT_FALSE(c.ownBuffer);
    const ResolvedChannels points = resolve(ChannelKind::Points2d, f.add(2, 160, "p"), none, f);
    EXPECT_EQ(points.capacity, 10u);
    EXPECT_EQ(points.channels[ESTUARY_CH_VALUE].format, 0u) << "2D points: |direction|";
    EXPECT_EQ(points.channels[ESTUARY_CH_DIRECTION].offset, 8u);
}

TEST(ViewAttributes, SeparateArraysCountTheLeastAnyHolds) {
    Fakes f;
    Attributes a{};
    a[ESTUARY_CHANNEL_POSITION] = {f.add(1, 8 * 100, "xy"), 0, 0, ESTUARY_ATTRIBUTE_F32X2};
    a[ESTUARY_CHANNEL_VALUE] = {f.add(2, 2 * 51, "half"), 0, 0, ESTUARY_ATTRIBUTE_F16};
    ResolvedChannels r = resolve(ChannelKind::Markers, nullptr, a, f);
    EXPECT_EQ(r.capacity, 51u) << "an odd count of halves: buffers are allocated in whole words";
    EXPECT_EQ(r.channels[ESTUARY_CH_VALUE].stride, 2u) << "stride 0: the format's size";
    EXPECT_EQ(r.buffers[ESTUARY_CH_VALUE], fake(2));
    EXPECT_EQ(r.channels[ESTUARY_CH_SIZE].format, 0u) << "no main buffer: the default";
    a[ESTUARY_CHANNEL_VALUE].offset = 2;
    EXPECT_EQ(resolve(ChannelKind::Markers, nullptr, a, f).capacity, 50u);
    // Three halves (6 bytes) a vertex: 10 of them in 60 bytes, 9 in 58.
    a[ESTUARY_CHANNEL_VALUE] = {};
    a[ESTUARY_CHANNEL_POSITION] = {f.add(3, 60, "h3"), 0, 0, ESTUARY_ATTRIBUTE_F16X3};
    EXPECT_EQ(resolve(ChannelKind::Markers, nullptr, a, f).capacity, 10u);
    f.facts[fake(3)].size = 58;
    EXPECT_EQ(resolve(ChannelKind::Markers, nullptr, a, f).capacity, 9u);
}

TEST(ViewAttributes, AColourValueIsReadAsItsBits) {
    Fakes f;
    Attributes a{};
    a[ESTUARY_CHANNEL_VALUE] = {f.add(1, 400, "rgba"), 0, 0, ESTUARY_ATTRIBUTE_UNORM8X4};
    ResolvedChannels r = resolve(ChannelKind::Markers, f.add(2, 3200, "m"), a, f);
    EXPECT_TRUE(r.valueIsColour);
    EXPECT_EQ(r.channels[ESTUARY_CH_VALUE].format, uint32_t(ESTUARY_ATTR_BITS));
    a[ESTUARY_CHANNEL_VALUE].format = ESTUARY_ATTRIBUTE_U32;
    EXPECT_EQ(resolve(ChannelKind::Markers, fake(2), a, f, true).channels[ESTUARY_CH_VALUE].format,
              uint32_t(ESTUARY_ATTR_BITS))
        << "U32 with the RGBA flag: colour bits";
    EXPECT_EQ(resolve(ChannelKind::Markers, fake(2), a, f).channels[ESTUARY_CH_VALUE].format,
              uint32_t(ESTUARY_ATTR_U32))
        << "U32 without it: a number";
}

// A preset's channels inside another's vec4 share its load (attributes.glsl): the markers' value
// in the position's, their size in the direction's, the 2D points' velocity in the position's;
// channels of their own buffers never (the renderer cannot tell they share one).
TEST(ViewAttributes, PresetChannelsShareTheirVec4LoadsAndOwnBuffersDoNot) {
    const auto aliases = [](const AttributeChannels& channels, VkDeviceSize alignment) {
        AttributeSpecialization s;
        fillAttributeSpecialization(s, channels, alignment);
        return std::vector<uint32_t>(s.data.begin() + 3 * kAttributeChannels, s.data.end());
    };
    const std::vector<uint32_t> markers = aliases(presetChannels(PresetLayout::Markers), 64);
    EXPECT_EQ(markers[ESTUARY_CH_VALUE], 1u + 4 * ESTUARY_CH_POSITION + 3);
    EXPECT_EQ(markers[ESTUARY_CH_SIZE], 1u + 4 * ESTUARY_CH_DIRECTION + 3);
    EXPECT_EQ(markers[ESTUARY_CH_DIRECTION], 0u) << "its own vec4, past the position's";
    const std::vector<uint32_t> points = aliases(presetChannels(PresetLayout::Points2d), 16);
    EXPECT_EQ(points[ESTUARY_CH_DIRECTION], 1u + 4 * ESTUARY_CH_POSITION + 2);
    AttributeChannels own = presetChannels(PresetLayout::Vertices);
    own[ESTUARY_CH_VALUE].ownBuffer = true;
    EXPECT_EQ(aliases(own, 16)[ESTUARY_CH_VALUE], 0u);
    AttributeChannels apart = presetChannels(PresetLayout::Vertices);
    apart[ESTUARY_CH_VALUE] = {ESTUARY_ATTR_F32, 16 * 100 + 12, 16, false};
    EXPECT_EQ(aliases(apart, 16)[ESTUARY_CH_VALUE], 0u) << "another descriptor offset";
}

TEST(ViewAttributes, EveryBadDescriptionIsRefusedSayingWhy) {
    Fakes f;
    estuary_buffer* main = f.add(1, 3200, "markers");
    estuary_buffer* other = f.add(2, 3200, "theirs", false);
    std::string m;
    m = refusal(ChannelKind::Markers, main,
                with(ESTUARY_CHANNEL_VALUE, {nullptr, 0, 0, estuary_attribute_format(12)}), f);
    EXPECT_HAS(m,
               "attributes[ESTUARY_CHANNEL_VALUE]: format 12 is not an estuary_attribute_format");
    m = refusal(ChannelKind::Markers, main,
                with(ESTUARY_CHANNEL_POSITION, {nullptr, 0, 0, ESTUARY_ATTRIBUTE_F32}), f);
    EXPECT_HAS(m, "format F32 is not allowed for a markers view's POSITION channel");
    EXPECT_HAS(m, "allowed: F32X2, F32X3, F32X4, F16X2, F16X3, F16X4");
    m = refusal(ChannelKind::Lines, main,
                with(ESTUARY_CHANNEL_INDEX, {nullptr, 0, 0, ESTUARY_ATTRIBUTE_I32}), f);
    EXPECT_HAS(m, "format I32 is not allowed for a lines view's INDEX channel (allowed: U32)");
    m = refusal(ChannelKind::Points2d, main,
                with(ESTUARY_CHANNEL_SIZE, {nullptr, 0, 0, ESTUARY_ATTRIBUTE_F32}), f);
    EXPECT_HAS(m, "a points view takes no SIZE channel (it takes: POSITION, VALUE, DIRECTION)");
    m = refusal(ChannelKind::Points2d, main,
                with(ESTUARY_CHANNEL_VALUE, {nullptr, 0, 0, ESTUARY_ATTRIBUTE_UNORM8X4}), f);
    EXPECT_HAS(m, "format UNORM8X4 is not allowed for a points view's VALUE channel");
    m = refusal(ChannelKind::Markers, main,
                with(ESTUARY_CHANNEL_VALUE, {nullptr, 0, 0, ESTUARY_ATTRIBUTE_F16}), f, true);
    EXPECT_HAS(m, "with the view's RGBA flag (allowed: F32, UNORM8X4, U32)");
    m = refusal(ChannelKind::Markers, main,
                with(ESTUARY_CHANNEL_SIZE, {nullptr, 6, 0, ESTUARY_ATTRIBUTE_F32}), f);
    EXPECT_HAS(m, "attributes[ESTUARY_CHANNEL_SIZE]: offset 6 is not a multiple of 4");
    m = refusal(ChannelKind::Markers, main,
                with(ESTUARY_CHANNEL_VALUE, {nullptr, 1, 0, ESTUARY_ATTRIBUTE_F16}), f);
    EXPECT_HAS(m, "offset 1 is not a multiple of 2 (F16 is read in 2-byte units)");
    m = refusal(ChannelKind::Markers, main,
                with(ESTUARY_CHANNEL_POSITION, {nullptr, 0, 10, ESTUARY_ATTRIBUTE_F32X2}), f);
    EXPECT_HAS(m, "stride 10 is not a multiple of 4");
    m = refusal(ChannelKind::Markers, main,
                with(ESTUARY_CHANNEL_POSITION, {nullptr, 0, 8, ESTUARY_ATTRIBUTE_F32X3}), f);
    EXPECT_HAS(m, "stride 8 is less than F32X3's 12 bytes");
    m = refusal(ChannelKind::Markers, main,
                with(ESTUARY_CHANNEL_VALUE, {other, 0, 0, ESTUARY_ATTRIBUTE_F32}), f);
    EXPECT_HAS(m, "the buffer theirs belongs to another viewer");
    m = refusal(ChannelKind::Markers, nullptr,
                with(ESTUARY_CHANNEL_VALUE, {main, 0, 0, ESTUARY_ATTRIBUTE_F32}), f);
    EXPECT_HAS(m, "buffer is NULL: give it, or attributes[ESTUARY_CHANNEL_POSITION]");
    m = refusal(ChannelKind::Markers, nullptr,
                with(ESTUARY_CHANNEL_POSITION, {nullptr, 0, 0, ESTUARY_ATTRIBUTE_F32X2}), f);
    EXPECT_HAS(m, "buffer is NULL and the markers view has no main buffer");
    m = refusal(ChannelKind::Markers, main,
                with(ESTUARY_CHANNEL_VALUE, {nullptr, 8, 0, ESTUARY_ATTRIBUTE_DEFAULT}), f);
    EXPECT_HAS(m, "buffer, offset or stride given with format ESTUARY_ATTRIBUTE_DEFAULT");
    m = refusal(ChannelKind::Markers, main,
                with(estuary_channel(6), {nullptr, 0, 0, ESTUARY_ATTRIBUTE_F32}), f);
    EXPECT_HAS(m, "attributes[6] is not a channel");
    m = refusal(ChannelKind::Lines, main,
                with(ESTUARY_CHANNEL_INDEX, {nullptr, 0, 0, ESTUARY_ATTRIBUTE_U32}), f, false,
                f.add(3, 40, "indices"));
    EXPECT_HAS(m, "the view's indices are given twice");
    EXPECT_EQ(refusal(ChannelKind::Markers, main,
                      with(ESTUARY_CHANNEL_VALUE, {nullptr, 12, 32, ESTUARY_ATTRIBUTE_F32}), f),
              "accepted");
}

} // namespace
} // namespace estuary::lib
