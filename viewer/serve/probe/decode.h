// The probe's decoder: each frame it receives decoded as a page would (H.264 by libavcodec, JPEG
// by stb_image), to read the frame stamp (stamp.h) back from the decoded picture. The H.264
// decoder is FFmpeg's software one, single-threaded and in low-delay mode, so that each access
// unit gives its picture at once (the server's streams have no B-frames). libavcodec is loaded at
// run time, beside the binary first (the GPU bundle's), so the probe runs where there is none:
// H.264 frames then say why instead of being read. Only luma is looked at: the stamp is black and
// white. Who calls it: probe.cpp (with --stamp), the tests.
#pragma once

#include "stamp.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace estuary::serve_probe {

// Whether H.264 decodes here (libavcodec loads and has the decoder); else why not, in `why`.
bool h264Decodable(std::string* why = nullptr);

struct StampedFrame {
    bool decoded = false;
    std::string error; // why not, when !decoded
    stamp::StampRead stamp;
    uint32_t width = 0, height = 0;
    double decodeMs = 0;
};

class FrameDecoder {
  public:
    FrameDecoder();
    ~FrameDecoder();
    FrameDecoder(const FrameDecoder&) = delete;
    FrameDecoder& operator=(const FrameDecoder&) = delete;

    // One frame's payload (after the 16-byte header): codec 1 JPEG, 2 an H.264 access unit
    // (Annex B), from the stream's first keyframe on (a new size comes with a keyframe's SPS).
    StampedFrame decode(int codec, const uint8_t* data, size_t size);

    struct H264;

  private:
    std::unique_ptr<H264> h264;
};

} // namespace estuary::serve_probe
