// The one place buffer views read their elements (points, markers, lines, meshes; the raster path,
// the compute splat and the pick alike): channel c of element i lies in the channel's buffer
// (binding ESTUARY_BINDING_ATTRIBUTES, array element c, bound by renderer/attributes.cpp) at byte
// offset + i * stride, in its format; offset, stride and format are specialization constants
// (shared_layout.h), so after specialization each read is the loads its layout needs: a 16-byte
// aligned vec4 one load, as a plain `vec4 points[]` is. Addresses are counted in the format's
// units (words, or halves for f16), so they stay within 32 bits up to 16 (8) GiB. A channel of
// format 0 is not read: its vector is 0.
#ifndef ESTUARY_ATTRIBUTES
#define ESTUARY_ATTRIBUTES
#include "shared_layout.h"

// Three views of the same buffers: words, pairs and quads of them (descriptor aliasing).
layout(std430, binding = ESTUARY_BINDING_ATTRIBUTES) readonly buffer AttributeWords {
    uint words[];
} attributeWords[ESTUARY_ATTRIBUTE_CHANNELS];
layout(std430, binding = ESTUARY_BINDING_ATTRIBUTES) readonly buffer AttributePairs {
    uvec2 pairs[];
} attributePairs[ESTUARY_ATTRIBUTE_CHANNELS];
layout(std430, binding = ESTUARY_BINDING_ATTRIBUTES) readonly buffer AttributeQuads {
    uvec4 quads[];
} attributeQuads[ESTUARY_ATTRIBUTE_CHANNELS];

// constant_id = ESTUARY_SPEC_ATTRIBUTES (16) + 3 * channel + 0 (format), 1 (offset), 2 (stride);
// then ESTUARY_SPEC_ATTRIBUTES + 18 + channel: where the channel's words lie inside another
// channel's 16-byte load of the same buffer (1 + 4 * that channel + first word; 0: its own load),
// so that a preset's value (or velocity) comes with its position's one vec4 load, as before.
layout(constant_id = 16) const uint positionFormat = 0u;
layout(constant_id = 17) const uint positionOffset = 0u;
layout(constant_id = 18) const uint positionStride = 0u;
layout(constant_id = 19) const uint valueFormat = 0u;
layout(constant_id = 20) const uint valueOffset = 0u;
layout(constant_id = 21) const uint valueStride = 0u;
layout(constant_id = 22) const uint sizeFormat = 0u;
layout(constant_id = 23) const uint sizeOffset = 0u;
layout(constant_id = 24) const uint sizeStride = 0u;
layout(constant_id = 25) const uint directionFormat = 0u;
layout(constant_id = 26) const uint directionOffset = 0u;
layout(constant_id = 27) const uint directionStride = 0u;
layout(constant_id = 28) const uint normalFormat = 0u;
layout(constant_id = 29) const uint normalOffset = 0u;
layout(constant_id = 30) const uint normalStride = 0u;
layout(constant_id = 31) const uint indexFormat = 0u;
layout(constant_id = 32) const uint indexOffset = 0u;
layout(constant_id = 33) const uint indexStride = 0u;
layout(constant_id = 34) const uint positionAlias = 0u;
layout(constant_id = 35) const uint valueAlias = 0u;
layout(constant_id = 36) const uint sizeAlias = 0u;
layout(constant_id = 37) const uint directionAlias = 0u;
layout(constant_id = 38) const uint normalAlias = 0u;
layout(constant_id = 39) const uint indexAlias = 0u;

// Called with a constant channel, so that inlining folds the switches away.
uvec3 attributeLayout(uint ch) {
    switch (ch) {
    case ESTUARY_CH_POSITION: return uvec3(positionFormat, positionOffset, positionStride);
    case ESTUARY_CH_VALUE: return uvec3(valueFormat, valueOffset, valueStride);
    case ESTUARY_CH_SIZE: return uvec3(sizeFormat, sizeOffset, sizeStride);
    case ESTUARY_CH_DIRECTION: return uvec3(directionFormat, directionOffset, directionStride);
    case ESTUARY_CH_NORMAL: return uvec3(normalFormat, normalOffset, normalStride);
    default: return uvec3(indexFormat, indexOffset, indexStride);
    }
}

uint attributeAlias(uint ch) {
    switch (ch) {
    case ESTUARY_CH_POSITION: return positionAlias;
    case ESTUARY_CH_VALUE: return valueAlias;
    case ESTUARY_CH_SIZE: return sizeAlias;
    case ESTUARY_CH_DIRECTION: return directionAlias;
    case ESTUARY_CH_NORMAL: return normalAlias;
    default: return indexAlias;
    }
}

uint attributeWord(uint ch, uint at) {
    switch (ch) {
    case 0u: return attributeWords[0].words[at];
    case 1u: return attributeWords[1].words[at];
    case 2u: return attributeWords[2].words[at];
    case 3u: return attributeWords[3].words[at];
    case 4u: return attributeWords[4].words[at];
    default: return attributeWords[5].words[at];
    }
}

uvec2 attributePair(uint ch, uint at) {
    switch (ch) {
    case 0u: return attributePairs[0].pairs[at];
    case 1u: return attributePairs[1].pairs[at];
    case 2u: return attributePairs[2].pairs[at];
    case 3u: return attributePairs[3].pairs[at];
    case 4u: return attributePairs[4].pairs[at];
    default: return attributePairs[5].pairs[at];
    }
}

uvec4 attributeQuad(uint ch, uint at) {
    switch (ch) {
    case 0u: return attributeQuads[0].quads[at];
    case 1u: return attributeQuads[1].quads[at];
    case 2u: return attributeQuads[2].quads[at];
    case 3u: return attributeQuads[3].quads[at];
    case 4u: return attributeQuads[4].quads[at];
    default: return attributeQuads[5].quads[at];
    }
}

bool attributeRead(uint ch) {
    return attributeLayout(ch).x != 0u;
}

bool isHalfFormat(uint format) {
    return format >= ESTUARY_ATTR_F16 && format <= ESTUARY_ATTR_F16X4;
}

uint attributeComponents(uint format) {
    if (format == 0u) return 0u;
    if (format <= ESTUARY_ATTR_F32X4) return format;
    if (format <= ESTUARY_ATTR_F16X4) return format - ESTUARY_ATTR_F32X4;
    return 1u;
}

// The channel's 32-bit words of element i (up to four; those past its format 0).
uvec4 fetchWords(uint ch, uint i) {
    uvec3 l = attributeLayout(ch);
    uint n = attributeComponents(l.x);
    uvec4 bits = uvec4(0u);
    uint alias = attributeAlias(ch);
    if (alias != 0u) { // the same load as the other channel's: the compiler keeps one
        uint source = (alias - 1u) / 4u, first = (alias - 1u) % 4u;
        uvec3 s = attributeLayout(source);
        uvec4 quad = attributeQuad(source, (s.y / 4u + i * (s.z / 4u)) >> 2u);
        for (uint k = 0u; k < n; ++k) bits[k] = quad[first + k];
        return bits;
    }
    uint w = l.y / 4u + i * (l.z / 4u);
    if (n == 4u && l.y % 16u == 0u && l.z % 16u == 0u) {
        bits = attributeQuad(ch, w >> 2u);
    } else if (n >= 2u && l.y % 8u == 0u && l.z % 8u == 0u) {
        bits.xy = attributePair(ch, w >> 1u);
        if (n == 4u) bits.zw = attributePair(ch, (w >> 1u) + 1u);
        if (n == 3u) bits.z = attributeWord(ch, w + 2u);
    } else {
        for (uint k = 0u; k < n; ++k) bits[k] = attributeWord(ch, w + k);
    }
    return bits;
}

// The channel's halves of element i as floats (f16 formats).
vec4 fetchHalves(uint ch, uint i) {
    uvec3 l = attributeLayout(ch);
    uint n = attributeComponents(l.x);
    uint h = l.y / 2u + i * (l.z / 2u);
    vec4 v = vec4(0.0);
    if (l.y % 4u == 0u && l.z % 4u == 0u) { // whole words: two halves each
        for (uint k = 0u; k < n; k += 2u) {
            vec2 pair = unpackHalf2x16(attributeWord(ch, h / 2u + k / 2u));
            v[k] = pair.x;
            if (k + 1u < n) v[k + 1u] = pair.y;
        }
        return v;
    }
    for (uint k = 0u; k < n; ++k) {
        uint at = h + k;
        uint word = attributeWord(ch, at >> 1u);
        v[k] = unpackHalf2x16((at & 1u) != 0u ? word >> 16u : word).x;
    }
    return v;
}

// A vector channel (position, direction, normal) of element i; components past its format 0.
vec4 fetchVector(uint ch, uint i) {
    if (isHalfFormat(attributeLayout(ch).x)) return fetchHalves(ch, i);
    return uintBitsToFloat(fetchWords(ch, i));
}

// A scalar channel (value, size) of element i as a number; with ESTUARY_ATTR_BITS or UNORM8X4
// its bits as they are (a colour: the caller reads them back with floatBitsToUint).
float fetchScalar(uint ch, uint i) {
    uint format = attributeLayout(ch).x;
    if (format == 0u) return 0.0;
    if (isHalfFormat(format)) return fetchHalves(ch, i).x;
    uint bits = fetchWords(ch, i).x;
    if (format == ESTUARY_ATTR_I32) return float(int(bits));
    if (format == ESTUARY_ATTR_U32) return float(bits);
    return uintBitsToFloat(bits);
}

// The index channel's entry i (U32).
uint fetchIndex(uint i) {
    return fetchWords(ESTUARY_CH_INDEX, i).x;
}

#endif
