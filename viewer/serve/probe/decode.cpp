// The probe's decoder (decode.h).
#include "decode.h"

#include <stb_image.h>

#ifdef ESTUARY_PROBE_AVCODEC
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
}
#include <dlfcn.h>

#include <filesystem>
#include <type_traits>
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

namespace {

// libavcodec, loaded at run time (the soname this build's headers are for): beside the binary
// first, as the GPU bundle carries scripts/gpu-ffmpeg.sh's, then where the system has it. So the
// probe starts, and reads JPEG stamps, where no FFmpeg is.
struct Avcodec {
    decltype(&avcodec_find_decoder) findDecoder = nullptr;
    decltype(&avcodec_alloc_context3) allocContext = nullptr;
    decltype(&avcodec_open2) open = nullptr;
    decltype(&avcodec_send_packet) sendPacket = nullptr;
    decltype(&avcodec_receive_frame) receiveFrame = nullptr;
    decltype(&avcodec_free_context) freeContext = nullptr;
    decltype(&av_packet_alloc) packetAlloc = nullptr;
    decltype(&av_packet_free) packetFree = nullptr;
    decltype(&av_frame_alloc) frameAlloc = nullptr; // libavutil's, found through libavcodec
    decltype(&av_frame_unref) frameUnref = nullptr;
    decltype(&av_frame_free) frameFree = nullptr;
    decltype(&av_strerror) errorString = nullptr;
    std::string problem; // "" when every function was found and H.264 decodes
};

const Avcodec& avcodec() {
    static const Avcodec lib = [] {
        Avcodec a;
        const std::string name = "libavcodec.so." + std::to_string(LIBAVCODEC_VERSION_MAJOR);
        const auto beside = std::filesystem::read_symlink("/proc/self/exe").parent_path() / name;
        void* handle = dlopen(beside.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* e = dlerror();
            a.problem = name + " did not load (" + (e ? e : "unknown error") + ")";
            return a;
        }
        bool all = true;
        const auto find = [&](auto& fn, const char* symbol) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(handle, symbol));
            all = all && fn;
        };
        find(a.findDecoder, "avcodec_find_decoder");
        find(a.allocContext, "avcodec_alloc_context3");
        find(a.open, "avcodec_open2");
        find(a.sendPacket, "avcodec_send_packet");
        find(a.receiveFrame, "avcodec_receive_frame");
        find(a.freeContext, "avcodec_free_context");
        find(a.packetAlloc, "av_packet_alloc");
        find(a.packetFree, "av_packet_free");
        find(a.frameAlloc, "av_frame_alloc");
        find(a.frameUnref, "av_frame_unref");
        find(a.frameFree, "av_frame_free");
        find(a.errorString, "av_strerror");
        if (!all)
            a.problem = name + " lacks a function the probe calls";
        else if (!a.findDecoder(AV_CODEC_ID_H264))
            a.problem = name + " has no H.264 decoder";
        return a;
    }();
    return lib;
}

} // namespace

bool h264Decodable(std::string* why) {
    if (why) *why = avcodec().problem;
    return avcodec().problem.empty();
}

struct FrameDecoder::H264 {
    const Avcodec& av = avcodec();
    AVCodecContext* context = nullptr;
    AVPacket* packet = nullptr;
    AVFrame* frame = nullptr;
    std::string problem; // why it did not open (kept: every frame says it)

    H264() {
        if (!av.problem.empty()) {
            problem = av.problem;
            return;
        }
        const AVCodec* codec = av.findDecoder(AV_CODEC_ID_H264);
        context = av.allocContext(codec);
        packet = av.packetAlloc();
        frame = av.frameAlloc();
        if (!context || !packet || !frame) {
            problem = "the H.264 decoder's allocations failed";
            return;
        }
        context->thread_count = 1; // frame threads would hold pictures back
        context->flags |= AV_CODEC_FLAG_LOW_DELAY;
        if (const int r = av.open(context, codec, nullptr); r < 0)
            problem = "the H.264 decoder did not open: " + errorText(r);
    }
    ~H264() {
        if (!av.problem.empty()) return;
        av.frameFree(&frame);
        av.packetFree(&packet);
        av.freeContext(&context);
    }
    H264(const H264&) = delete;
    H264& operator=(const H264&) = delete;

    std::string errorText(int code) const {
        char text[AV_ERROR_MAX_STRING_SIZE] = {};
        av.errorString(code, text, sizeof(text));
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
        int r = av.sendPacket(context, packet);
        if (r < 0) {
            out.error = "H.264 did not decode: " + errorText(r);
            return out;
        }
        r = av.receiveFrame(context, frame);
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
        av.frameUnref(frame);
        return out;
    }
};

#else

bool h264Decodable(std::string* why) {
    if (why) *why = "this estuary_serve_probe was built without libavcodec's headers";
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
