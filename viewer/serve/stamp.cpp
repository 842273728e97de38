// The frame stamp (stamp.h).
#include "stamp.h"

#include <algorithm>

namespace estuary::stamp {

uint8_t stampCheck(uint16_t id) {
    // Started from 0xFF and not 0, so that neither an all-black nor an all-white corner (a picture
    // with no stamp) reads as a valid one.
    uint8_t crc = 0xFF;
    for (const uint8_t byte : {uint8_t(id & 0xFF), uint8_t(id >> 8)}) {
        crc ^= byte;
        for (int i = 0; i < 8; ++i)
            crc = uint8_t((crc & 0x80) ? (crc << 1) ^ 0x07 : crc << 1);
    }
    return crc;
}

uint32_t stampCode(uint64_t frame) {
    const auto id = uint16_t(frame & kStampIdMask);
    return uint32_t(id) | uint32_t(stampCheck(id)) << kStampIdBits;
}

void drawStamp(uint8_t* pixels, size_t stride, uint32_t channels, uint32_t width, uint32_t height,
               uint64_t frame) {
    if (!stampFits(width, height)) return;
    const uint32_t code = stampCode(frame);
    for (uint32_t y = 0; y < kStampHeight; ++y) {
        uint8_t* row = pixels + size_t(y) * stride;
        for (uint32_t column = 0; column < kStampColumns; ++column) {
            const uint8_t value = stampBit(code, column, y / kStampBlock) ? 255 : 0;
            uint8_t* block = row + size_t(column) * kStampBlock * channels;
            for (uint32_t x = 0; x < kStampBlock; ++x)
                for (uint32_t c = 0; c < channels; ++c)
                    block[x * channels + c] = c == 3 ? 255 : value; // alpha stays opaque
        }
    }
}

StampRead readStamp(const uint8_t* pixels, size_t stride, uint32_t channels, uint32_t width,
                    uint32_t height) {
    StampRead out;
    if (!stampFits(width, height) || channels == 0) return out;
    const uint32_t used = std::min(channels, 3u);
    // The inner half of each block: its edges are where compression smears the neighbours in.
    constexpr uint32_t kInset = kStampBlock / 4, kInner = kStampBlock / 2;
    uint32_t code = 0;
    for (uint32_t row = 0; row < kStampRows; ++row)
        for (uint32_t column = 0; column < kStampColumns; ++column) {
            uint32_t sum = 0;
            for (uint32_t y = 0; y < kInner; ++y) {
                const uint8_t* p = pixels + size_t(row * kStampBlock + kInset + y) * stride +
                                   size_t(column * kStampBlock + kInset) * channels;
                for (uint32_t x = 0; x < kInner; ++x)
                    for (uint32_t c = 0; c < used; ++c)
                        sum += p[x * channels + c];
            }
            if (sum > 128u * kInner * kInner * used) code |= 1u << (row * kStampColumns + column);
        }
    const auto id = uint16_t(code & kStampIdMask);
    out.ok = (code >> kStampIdBits) == stampCheck(id);
    out.id = out.ok ? id : 0;
    return out;
}

} // namespace estuary::stamp
