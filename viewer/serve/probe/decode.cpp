// The probe's decoder (decode.h).
#include "decode.h"

#include <stb_image.h>

#ifdef ESTUARY_PROBE_AVCODEC
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
}
#endif

#include <chrono>

namespace estuary::serve_probe {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

StampedFrame decodeJpeg(const uint8_t* data, size_t size) {
    StampedFrame out;
    const auto start = Clock::now();
    int width = 0, height = 0, channels = 0;
    // One channel: stb_image converts to luma, all the stamp needs.
    stbi_uc* pixels = stbi_load_from_memory(data, int(size), &width, &height, &channels, 1);
    out.decodeMs = msSince(start);
    if (!pixels) {
        out.error = std::string("JPEG did not decode: ") + stbi_failure_reason();
        return out;
    }
    out.decoded = true;
    out.width = uint32_t(width);
    out.height = uint32_t(height);
    out.stamp = stamp::readStamp(pixels, size_t(width), 1, out.width, out.height);
    stbi_image_free(pixels);
    return out;
}

} // namespace

#ifdef ESTUARY_PROBE_AVCODEC

bool h264Decodable() {
    return avcodec_find_decoder(AV_CODEC_ID_H264) != nullptr;
}

struct FrameDecoder::H264 {
    AVCodecContext* context = nullptr;
    AVPacket* packet = nullptr;
    AVFrame* frame = nullptr;
    std::string problem; // why it did not open (kept: every frame says it)

    H264() {
        const AVCodec* codec = avcodec_find_decoder(AV_CODEC_ID_H264);
        context = codec ? avcodec_alloc_context3(codec) : nullptr;
        packet = av_packet_alloc();
        frame = av_frame_alloc();
        if (!codec || !context || !packet || !frame) {
            problem = "this libavcodec has no H.264 decoder";
            return;
        }
        context->thread_count = 1; // frame threads would hold pictures back
        context->flags |= AV_CODEC_FLAG_LOW_DELAY;
        if (const int r = avcodec_open2(context, codec, nullptr); r < 0)
            problem = "the H.264 decoder did not open: " + errorText(r);
    }
    ~H264() {
        av_frame_free(&frame);
        av_packet_free(&packet);
        avcodec_free_context(&context);
    }
    H264(const H264&) = delete;
    H264& operator=(const H264&) = delete;

    static std::string errorText(int code) {
        char text[AV_ERROR_MAX_STRING_SIZE] = {};
        av_strerror(code, text, sizeof(text));
        return text;
    }

    StampedFrame decode(const uint8_t* data, size_t size) {
        StampedFrame out;
        if (!problem.empty()) {
            out.error = problem;
            return out;
        }
        const auto start = Clock::now();
        packet->data = const_cast<uint8_t*>(data);
        packet->size = int(size);
        int r = avcodec_send_packet(context, packet);
        if (r < 0) {
            out.error = "H.264 did not decode: " + errorText(r);
            return out;
        }
        r = avcodec_receive_frame(context, frame);
        out.decodeMs = msSince(start);
        if (r < 0) {
            out.error = r == AVERROR(EAGAIN) ? "the H.264 decoder gave no picture for this frame"
                                             : "H.264 did not decode: " + errorText(r);
            return out;
        }
        out.decoded = true;
        out.width = uint32_t(frame->width);
        out.height = uint32_t(frame->height);
        // Plane 0 is luma in every 8-bit YUV format the decoder gives for these streams.
        out.stamp =
            stamp::readStamp(frame->data[0], size_t(frame->linesize[0]), 1, out.width, out.height);
        av_frame_unref(frame);
        return out;
    }
};

#else

bool h264Decodable() {
    return false;
}

struct FrameDecoder::H264 {
    StampedFrame decode(const uint8_t*, size_t) {
        StampedFrame out;
        out.error = "this estuary_serve_probe was built without libavcodec: H.264 is not decoded";
        return out;
    }
};

#endif

FrameDecoder::FrameDecoder() = default;
FrameDecoder::~FrameDecoder() = default;

StampedFrame FrameDecoder::decode(int codec, const uint8_t* data, size_t size) {
    if (codec == 1) return decodeJpeg(data, size);
    if (codec != 2) {
        StampedFrame out;
        out.error = "codec " + std::to_string(codec) + " is neither JPEG (1) nor H.264 (2)";
        return out;
    }
    if (!h264) h264 = std::make_unique<H264>();
    return h264->decode(data, size);
}

} // namespace estuary::serve_probe
