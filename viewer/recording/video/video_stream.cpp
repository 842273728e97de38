// The video module's live stream (video_module.h, streamOpen and friends): RGBA8 pictures in,
// H.264 Annex B access units out, one per picture, for the server's pages (WebCodecs decodes
// Annex B when given no description). Tuned for latency: no B-frames, no lookahead, one packet
// out for each picture in (NVENC: preset p1, tune ull, zerolatency; x264: ultrafast,
// zerolatency), the headers repeated before every keyframe, and a keyframe only when asked (a
// page joined or missed a frame). Constrained baseline, so that any H.264 decoder takes it.
#include "video_module.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr const char* kStreamEncoders[] = {"h264_nvenc", "libx264"};
constexpr size_t kSlack = 256; // bytes past a picture that swscale's vector code may touch

struct Stream {
    AVCodecContext* codec = nullptr;
    SwsContext* scale = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* packet = nullptr;
    uint32_t width = 0, height = 0;      // the pictures'; coded sides are even (the last row or
    int codedWidth = 0, codedHeight = 0; // column dropped: 4:2:0 needs even ones)
    std::vector<uint8_t> staged;
    int64_t next = 0;
    ~Stream() {
        avcodec_free_context(&codec);
        sws_freeContext(scale);
        av_frame_free(&frame);
        av_packet_free(&packet);
    }
};

void fail(char* error, size_t size, const std::string& message) {
    if (error && size > 0) std::snprintf(error, size, "%s", message.c_str());
}

AVCodecContext* openStreamEncoder(const char* name, int width, int height, uint32_t fps,
                                  std::string& why) {
    const AVCodec* codec = avcodec_find_encoder_by_name(name);
    if (!codec) {
        why = std::string(name) + ": not in this FFmpeg";
        return nullptr;
    }
    AVCodecContext* c = avcodec_alloc_context3(codec);
    c->width = width;
    c->height = height;
    c->time_base = AVRational{1, int(fps)};
    c->framerate = AVRational{int(fps), 1};
    c->pix_fmt = AV_PIX_FMT_YUV420P;
    c->gop_size = 100000; // keyframes when a page needs one, not on a timer
    c->max_b_frames = 0;
    c->profile = FF_PROFILE_H264_CONSTRAINED_BASELINE;
    if (std::strstr(name, "nvenc")) {
        av_opt_set(c->priv_data, "preset", "p1", 0);
        av_opt_set(c->priv_data, "tune", "ull", 0);
        av_opt_set(c->priv_data, "zerolatency", "1", 0);
        av_opt_set(c->priv_data, "forced-idr", "1", 0);
        av_opt_set(c->priv_data, "rc", "cbr", 0);
        c->bit_rate = int64_t(width) * height * fps / 8; // ~0.12 bit a pixel
    } else {
        av_opt_set(c->priv_data, "preset", "ultrafast", 0);
        av_opt_set(c->priv_data, "tune", "zerolatency", 0);
        av_opt_set(c->priv_data, "forced-idr", "1", 0);
        av_opt_set(c->priv_data, "crf", "23", 0);
    }
    const int code = avcodec_open2(c, codec, nullptr);
    if (code < 0) {
        char text[AV_ERROR_MAX_STRING_SIZE] = {};
        av_strerror(code, text, sizeof(text));
        why = std::string(name) + ": " + text;
        avcodec_free_context(&c);
        return nullptr;
    }
    return c;
}

} // namespace

void* streamOpen(uint32_t width, uint32_t height, uint32_t fps, const char* encoder,
                 const char** encoderName, char* error, size_t errorSize) {
    // Quiet: an encoder that does not open here (NVENC without a GPU) is expected, and the
    // caller is told which one did.
    av_log_set_level(AV_LOG_FATAL);
    if (width < 2 || height < 2 || width > 8192 || height > 8192 || fps == 0) {
        fail(error, errorSize, "a stream is 2x2 to 8192x8192 pictures at 1 or more a second");
        return nullptr;
    }
    auto s = std::make_unique<Stream>();
    s->width = width;
    s->height = height;
    s->codedWidth = int(width & ~1u);
    s->codedHeight = int(height & ~1u);
    std::string tried;
    for (const char* name : kStreamEncoders) {
        if (encoder && std::strcmp(encoder, name) != 0) continue;
        std::string why;
        s->codec = openStreamEncoder(name, s->codedWidth, s->codedHeight, fps, why);
        if (s->codec) break;
        tried += (tried.empty() ? "" : "; ") + why;
    }
    if (!s->codec) {
        fail(error, errorSize,
             "no H.264 encoder opened (" + (tried.empty() ? std::string("none asked") : tried) +
                 ")");
        return nullptr;
    }
    s->scale =
        sws_getContext(s->codedWidth, s->codedHeight, AV_PIX_FMT_RGBA, s->codedWidth,
                       s->codedHeight, AV_PIX_FMT_YUV420P, SWS_POINT, nullptr, nullptr, nullptr);
    s->frame = av_frame_alloc();
    s->packet = av_packet_alloc();
    if (s->frame) {
        s->frame->format = AV_PIX_FMT_YUV420P;
        s->frame->width = s->codedWidth;
        s->frame->height = s->codedHeight;
    }
    if (!s->scale || !s->frame || !s->packet || av_frame_get_buffer(s->frame, 0) < 0) {
        fail(error, errorSize, "out of memory setting up the stream's conversion");
        return nullptr;
    }
    s->staged.resize(size_t(width) * height * 4 + kSlack);
    *encoderName = s->codec->codec->name;
    return s.release();
}

int streamEncode(void* handle, const uint8_t* rgba, int keyframe, EstuaryVideoPacketFn packet,
                 void* user, char* error, size_t errorSize) {
    Stream& s = *static_cast<Stream*>(handle);
    // Through `staged`: swscale may read past the end of a tightly sized picture.
    std::memcpy(s.staged.data(), rgba, size_t(s.width) * s.height * 4);
    if (av_frame_make_writable(s.frame) < 0) {
        fail(error, errorSize, "out of memory for a frame");
        return -1;
    }
    const uint8_t* planes[1] = {s.staged.data()};
    const int strides[1] = {int(s.width) * 4};
    sws_scale(s.scale, planes, strides, 0, s.codedHeight, s.frame->data, s.frame->linesize);
    s.frame->pts = s.next++;
    s.frame->pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE;
    int code = avcodec_send_frame(s.codec, s.frame);
    while (code >= 0) {
        code = avcodec_receive_packet(s.codec, s.packet);
        if (code < 0) break;
        packet(user, s.packet->data, size_t(s.packet->size),
               (s.packet->flags & AV_PKT_FLAG_KEY) != 0 ? 1 : 0);
        av_packet_unref(s.packet);
    }
    if (code == AVERROR(EAGAIN) || code == AVERROR_EOF) return 0;
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof(text));
    fail(error, errorSize, std::string("encoding a frame failed: ") + text);
    return -1;
}

void streamClose(void* handle) {
    delete static_cast<Stream*>(handle);
}
