// The frame stamp: a frame's id drawn into the served picture as black and white blocks, so that
// a page (or the probe) can read it back from the picture it decoded and the server can measure
// the whole trip (end of frame -> encode -> network -> decode -> shown) for the frame that was
// really shown. The layout: kStampColumns x kStampRows blocks of kStampBlock pixels in the
// picture's top-left corner, bit i (least significant first) at column i % kStampColumns, row
// i / kStampColumns, white for 1. The 24 bits are the id's low 16 bits, then a CRC-8 of them
// (polynomial 0x07, initial value 0xFF), so a picture that lost the stamp reads as unreadable, not
// as another frame. Blocks sit on the 16-pixel grid of H.264's macroblocks and JPEG's MCUs; a
// reader averages each block's inner half and thresholds at mid-grey, which both survive.
// page/index.html reads the same layout in JavaScript (keep them in step; the browser test checks
// they agree). Pure: no GPU, no allocation. Who calls it: serve.cpp and nvenc_encoder.cpp
// (drawing), the probe (reading).
#pragma once

#include <cstddef>
#include <cstdint>

namespace estuary::stamp {

inline constexpr uint32_t kStampBlock = 16, kStampColumns = 12, kStampRows = 2;
inline constexpr uint32_t kStampWidth = kStampBlock * kStampColumns;
inline constexpr uint32_t kStampHeight = kStampBlock * kStampRows;
inline constexpr uint32_t kStampIdBits = 16, kStampCheckBits = 8;
inline constexpr uint32_t kStampIdMask = (1u << kStampIdBits) - 1;
static_assert(kStampIdBits + kStampCheckBits == kStampColumns * kStampRows);

// A picture too small for the stamp is served without it (its reads are then unreadable).
constexpr bool stampFits(uint32_t width, uint32_t height) {
    return width >= kStampWidth && height >= kStampHeight;
}

uint8_t stampCheck(uint16_t id);
// The 24 bits drawn for frame `frame`: its low 16 bits, then their check.
uint32_t stampCode(uint64_t frame);
// Block (column, row)'s bit of `code`.
constexpr bool stampBit(uint32_t code, uint32_t column, uint32_t row) {
    return ((code >> (row * kStampColumns + column)) & 1u) != 0;
}

// Into 8-bit pixels of `channels` bytes each (1: luma, 4: RGBA or BGRA; black and white have no
// channel order), `stride` bytes a row. Does nothing where !stampFits(width, height).
void drawStamp(uint8_t* pixels, size_t stride, uint32_t channels, uint32_t width, uint32_t height,
               uint64_t frame);

struct StampRead {
    bool ok = false; // the check bits agree with the id
    uint16_t id = 0; // the frame's low 16 bits, when ok
};
// From decoded pixels laid out as drawStamp's (the first min(channels, 3) bytes of each pixel are
// averaged, so RGBA, BGRA and a luma plane all read). Not ok where !stampFits(width, height).
StampRead readStamp(const uint8_t* pixels, size_t stride, uint32_t channels, uint32_t width,
                    uint32_t height);

} // namespace estuary::stamp
