// libestuary_video.so: writes RGBA8 (or BGRA8) pictures to an H.264 or HEVC file through FFmpeg's
// libraries, and decodes one back (video_module.h has the contract). libestuary loads it with
// dlopen when a recording starts, so only recording needs FFmpeg on the machine.
//
// Encoders are tried in order, the first that opens wins: NVENC where the GPU and driver have it
// (an H100 has none: its open fails and the next is tried), then the software ones Debian's FFmpeg
// builds with. Pictures are converted to YUV 4:2:0, which needs even sides: an odd picture is
// padded by repeating its last column or row. MP4 files are written fragmented (a fragment a
// second), and every packet's bytes are handed to the kernel as it is muxed, so whatever was
// written before a crash (even SIGKILL) still plays up to its last fragment.
//
// The file goes through this module's own AVIOContext over a descriptor it opened, so that every
// write's error is seen (FFmpeg's buffered writes keep theirs in AVIOContext::error, which the
// muxing calls do not always return), the file is fsynced before the rename, and tests can fail
// the Nth byte: with ESTUARY_FAULT_WRITE=NAME[:BYTES] (as for estuary's other outputs,
// renderer/files/output_file.h), writing the recording named NAME fails with ENOSPC after BYTES
// bytes. A failed write leaves the target untouched: the caller abandons the temporary file.
#include "video_module.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <memory>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace {

// Bytes past the end of a picture buffer that swscale's vector code may touch.
constexpr size_t kSlack = 256;

constexpr const char* kEncoders[] = {"h264_nvenc", "hevc_nvenc", "libx264", "libx265",
                                     "libopenh264"};

void fail(char* error, size_t size, const std::string& message) {
    if (error && size > 0) std::snprintf(error, size, "%s", message.c_str());
}

std::string avError(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof(text));
    return text;
}

struct Video {
    std::string path, tempPath;
    uint32_t width = 0, height = 0;      // the pictures'
    int codedWidth = 0, codedHeight = 0; // even
    AVFormatContext* format = nullptr;
    AVCodecContext* codec = nullptr;
    AVStream* stream = nullptr;
    SwsContext* scale = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* packet = nullptr;
    std::vector<uint8_t> padded;  // the picture at the coded size
    int64_t next = 0;             // the next frame's presentation time, in frames
    int fd = -1;                  // tempPath, written through format->pb
    std::optional<size_t> budget; // bytes left before an injected ENOSPC
    int writeErrno = 0;           // the first write's failure

    ~Video() {
        av_packet_free(&packet);
        av_frame_free(&frame);
        sws_freeContext(scale);
        avcodec_free_context(&codec);
        if (format) {
            freeIo(format->pb);
            avformat_free_context(format);
        }
        if (fd >= 0) ::close(fd);
    }

    static void freeIo(AVIOContext*& pb) {
        if (!pb) return;
        av_freep(&pb->buffer);
        avio_context_free(&pb);
    }
};

// Bytes a write to `target` may make before failing with ENOSPC (ESTUARY_FAULT_WRITE).
std::optional<size_t> injectedFaultAfter(const std::string& target) {
    const char* spec = std::getenv("ESTUARY_FAULT_WRITE");
    if (!spec || !*spec) return std::nullopt;
    const std::string_view text(spec);
    const size_t colon = text.find(':');
    if (text.substr(0, colon) != std::filesystem::path(target).filename().string())
        return std::nullopt;
    size_t bytes = 0;
    if (colon != std::string_view::npos)
        std::from_chars(text.data() + colon + 1, text.data() + text.size(), bytes);
    return bytes;
}

// AVIOContext's write: everything or an error (EFBIG under a file-size limit, with SIGXFSZ
// ignored; ENOSPC on a full disk), resuming after signals and short writes.
#if LIBAVFORMAT_VERSION_MAJOR >= 61
int writeBytes(void* opaque, const uint8_t* bytes, int size) {
#else
int writeBytes(void* opaque, uint8_t* bytes, int size) {
#endif
    Video& v = *static_cast<Video*>(opaque);
    if (v.writeErrno) return AVERROR(v.writeErrno);
    int done = 0;
    while (done < size) {
        size_t chunk = size_t(size - done);
        if (v.budget) {
            if (*v.budget == 0) {
                v.writeErrno = ENOSPC;
                return AVERROR(ENOSPC);
            }
            chunk = std::min(chunk, *v.budget);
        }
        const ssize_t n = ::write(v.fd, bytes + done, chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            v.writeErrno = errno;
            return AVERROR(errno);
        }
        done += int(n);
        if (v.budget) *v.budget -= size_t(n);
    }
    return size;
}

int64_t seekBytes(void* opaque, int64_t offset, int whence) {
    Video& v = *static_cast<Video*>(opaque);
    if (whence == AVSEEK_SIZE) {
        struct stat st {};
        return ::fstat(v.fd, &st) == 0 ? int64_t(st.st_size) : AVERROR(errno);
    }
    const off_t at = ::lseek(v.fd, off_t(offset), whence & ~AVSEEK_FORCE);
    return at < 0 ? AVERROR(errno) : int64_t(at);
}

// The first failure of the file's writes so far, after handing buffered bytes to the kernel;
// 0 when none. Muxing calls return only some of AVIO's errors: the context keeps the rest.
int flushedError(Video& v) {
    if (!v.format || !v.format->pb) return 0;
    avio_flush(v.format->pb);
    if (v.writeErrno) return AVERROR(v.writeErrno);
    return v.format->pb->error < 0 ? v.format->pb->error : 0;
}

std::string writeFailure(const Video& v, int code) {
    return "writing " + v.path + " (through " + v.tempPath +
           "): " + (v.writeErrno ? std::string(std::strerror(v.writeErrno)) : avError(code));
}

// Sends `input` (null: flush) and writes every packet the encoder has ready.
int drain(Video& v, const AVFrame* input, char* error, size_t errorSize) {
    int code = avcodec_send_frame(v.codec, input);
    if (code < 0) {
        fail(error, errorSize, "encoding a frame: " + avError(code));
        return code;
    }
    while ((code = avcodec_receive_packet(v.codec, v.packet)) >= 0) {
        av_packet_rescale_ts(v.packet, v.codec->time_base, v.stream->time_base);
        v.packet->stream_index = v.stream->index;
        code = av_interleaved_write_frame(v.format, v.packet);
        // Each packet's bytes reach the kernel now, so a crash loses at most the fragment being
        // built; a full disk or a size limit is seen at this packet, not at the end.
        if (code >= 0) code = flushedError(v);
        if (code < 0) {
            fail(error, errorSize, writeFailure(v, code));
            return code;
        }
    }
    return code == AVERROR(EAGAIN) || code == AVERROR_EOF ? 0 : code;
}

// The encoder `name` opened for `v`, or null with the reason in `why`.
AVCodecContext* openEncoder(const char* name, const EstuaryVideoOptions& o, int width, int height,
                            bool globalHeader, std::string& why) {
    const AVCodec* codec = avcodec_find_encoder_by_name(name);
    if (!codec) {
        why = "not in this FFmpeg";
        return nullptr;
    }
    AVCodecContext* c = avcodec_alloc_context3(codec);
    c->width = width;
    c->height = height;
    c->time_base = AVRational{1, int(o.fps)};
    c->framerate = AVRational{int(o.fps), 1};
    c->pix_fmt = AV_PIX_FMT_YUV420P;
    c->gop_size = int(o.fps); // a keyframe (and an MP4 fragment) a second
    c->max_b_frames = 0;      // frames leave the encoder as they come: less latency, less memory
    if (globalHeader) c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    const std::string quality = std::to_string(o.quality);
    if (std::strstr(name, "nvenc")) {
        av_opt_set(c->priv_data, "preset", "p4", 0);
        av_opt_set(c->priv_data, "rc", "vbr", 0);
        av_opt_set(c->priv_data, "cq", quality.c_str(), 0);
    } else if (std::strcmp(name, "libx264") == 0 || std::strcmp(name, "libx265") == 0) {
        av_opt_set(c->priv_data, "preset", "veryfast", 0);
        av_opt_set(c->priv_data, "crf", quality.c_str(), 0);
    }
    if (std::strcmp(name, "libx265") == 0)
        av_opt_set(c->priv_data, "x265-params", "log-level=error", 0);
    const int code = avcodec_open2(c, codec, nullptr);
    if (code < 0) {
        why = avError(code);
        avcodec_free_context(&c);
        return nullptr;
    }
    return c;
}

void* videoOpen(const EstuaryVideoOptions* o, const char** encoderName, char* error,
                size_t errorSize) {
    av_log_set_level(AV_LOG_ERROR);
    auto v = std::make_unique<Video>();
    v->path = o->path;
    v->tempPath = o->tempPath;
    v->width = o->width;
    v->height = o->height;
    v->codedWidth = int((o->width + 1) & ~1u);
    v->codedHeight = int((o->height + 1) & ~1u);
    int code = avformat_alloc_output_context2(&v->format, nullptr, nullptr, o->path);
    if (code < 0 || !v->format) {
        fail(error, errorSize,
             std::string("no container for ") + o->path + ": " + avError(code) +
                 " (name it .mp4 or .mkv)");
        return nullptr;
    }
    const bool globalHeader = (v->format->oformat->flags & AVFMT_GLOBALHEADER) != 0;
    std::string tried;
    const auto attempt = [&](const char* name) {
        std::string why;
        v->codec = openEncoder(name, *o, v->codedWidth, v->codedHeight, globalHeader, why);
        if (!v->codec) tried += std::string(tried.empty() ? "" : "; ") + name + ": " + why;
        return v->codec != nullptr;
    };
    if (o->encoder && *o->encoder) {
        attempt(o->encoder);
    } else {
        for (const char* name : kEncoders)
            if (attempt(name)) break;
    }
    if (!v->codec) {
        fail(error, errorSize, "no H.264/HEVC encoder opened (" + tried + ")");
        return nullptr;
    }
    v->stream = avformat_new_stream(v->format, nullptr);
    avcodec_parameters_from_context(v->stream->codecpar, v->codec);
    v->stream->time_base = v->codec->time_base;
    v->fd = ::open(o->tempPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (v->fd < 0) {
        fail(error, errorSize,
             std::string("cannot write ") + o->tempPath + ": " + std::strerror(errno));
        return nullptr;
    }
    v->budget = injectedFaultAfter(v->path);
    constexpr int kIoBuffer = 64 * 1024;
    auto* buffer = static_cast<unsigned char*>(av_malloc(kIoBuffer));
    v->format->pb =
        buffer ? avio_alloc_context(buffer, kIoBuffer, 1, v.get(), nullptr, writeBytes, seekBytes)
               : nullptr;
    if (!v->format->pb) {
        av_free(buffer);
        fail(error, errorSize, "out of memory setting up the file's output");
        v.reset();
        ::unlink(o->tempPath);
        return nullptr;
    }
    v->format->flags |= AVFMT_FLAG_CUSTOM_IO;
    AVDictionary* options = nullptr;
    if (std::strcmp(v->format->oformat->name, "mp4") == 0)
        av_dict_set(&options, "movflags", "frag_keyframe+empty_moov+default_base_moof", 0);
    code = avformat_write_header(v->format, &options);
    av_dict_free(&options);
    if (code >= 0) code = flushedError(*v);
    if (code < 0) {
        fail(error, errorSize, writeFailure(*v, code));
        v.reset();
        std::error_code ignored;
        std::filesystem::remove(o->tempPath, ignored);
        return nullptr;
    }
    v->scale = sws_getContext(
        v->codedWidth, v->codedHeight, o->bgra ? AV_PIX_FMT_BGRA : AV_PIX_FMT_RGBA, v->codedWidth,
        v->codedHeight, AV_PIX_FMT_YUV420P, SWS_POINT, nullptr, nullptr, nullptr);
    v->frame = av_frame_alloc();
    v->frame->format = AV_PIX_FMT_YUV420P;
    v->frame->width = v->codedWidth;
    v->frame->height = v->codedHeight;
    v->packet = av_packet_alloc();
    if (!v->scale || av_frame_get_buffer(v->frame, 0) < 0 || !v->packet) {
        fail(error, errorSize, "out of memory setting up the conversion");
        v.reset();
        std::error_code ignored;
        std::filesystem::remove(o->tempPath, ignored);
        return nullptr;
    }
    v->padded.resize(size_t(v->codedWidth) * size_t(v->codedHeight) * 4 + kSlack);
    *encoderName = v->codec->codec->name;
    return v.release();
}

int videoWrite(void* handle, const uint8_t* rgba, char* error, size_t errorSize) {
    Video& v = *static_cast<Video*>(handle);
    // Always through `padded`: odd sides get their last column or row again, and swscale may read
    // past the end of a tightly sized picture (the buffer has slack for that).
    const size_t row = size_t(v.width) * 4, codedRow = size_t(v.codedWidth) * 4;
    for (int y = 0; y < v.codedHeight; ++y) {
        const uint8_t* in = rgba + size_t(std::min<int>(y, int(v.height) - 1)) * row;
        uint8_t* out = v.padded.data() + size_t(y) * codedRow;
        std::memcpy(out, in, row);
        if (codedRow > row) std::memcpy(out + row, in + row - 4, 4); // the last column again
    }
    const uint8_t* source = v.padded.data();
    if (av_frame_make_writable(v.frame) < 0) {
        fail(error, errorSize, "out of memory for a frame");
        return -1;
    }
    const uint8_t* planes[1] = {source};
    const int strides[1] = {v.codedWidth * 4};
    sws_scale(v.scale, planes, strides, 0, v.codedHeight, v.frame->data, v.frame->linesize);
    v.frame->pts = v.next++;
    return drain(v, v.frame, error, errorSize);
}

// Deletes the temporary file; the target is untouched.
void removeTemp(std::unique_ptr<Video>& v) {
    const std::string temp = v->tempPath;
    v.reset();
    ::unlink(temp.c_str());
}

int videoFinish(void* handle, char* error, size_t errorSize) {
    std::unique_ptr<Video> v(static_cast<Video*>(handle));
    int code = drain(*v, nullptr, error, errorSize);
    if (code >= 0) code = av_write_trailer(v->format);
    if (code >= 0) code = flushedError(*v);
    if (code < 0) {
        if (error && !*error) fail(error, errorSize, writeFailure(*v, code));
        removeTemp(v);
        return code;
    }
    // On disk before it replaces the target, as estuary's other outputs are.
    const int fd = std::exchange(v->fd, -1);
    const int syncError = ::fsync(fd) != 0 && errno != EINVAL ? errno : 0;
    const int closeError = ::close(fd) != 0 && errno != EINTR ? errno : 0;
    if (syncError || closeError) {
        fail(error, errorSize,
             "writing " + v->path + " (through " + v->tempPath +
                 "): " + std::strerror(syncError ? syncError : closeError));
        removeTemp(v);
        return -1;
    }
    std::error_code renamed;
    std::filesystem::rename(v->tempPath, v->path, renamed);
    if (renamed) {
        fail(error, errorSize,
             "cannot rename " + v->tempPath + " to " + v->path + ": " + renamed.message());
        removeTemp(v);
        return -1;
    }
    return 0;
}

void videoAbandon(void* handle) {
    std::unique_ptr<Video> v(static_cast<Video*>(handle));
    removeTemp(v);
}

long videoDecode(const char* path, EstuaryVideoFrameFn onFrame, void* user, char* error,
                 size_t errorSize) {
    av_log_set_level(AV_LOG_ERROR);
    AVFormatContext* format = nullptr;
    int code = avformat_open_input(&format, path, nullptr, nullptr);
    if (code < 0) {
        fail(error, errorSize, std::string("cannot open ") + path + ": " + avError(code));
        return -1;
    }
    struct Owned {
        AVFormatContext*& format;
        AVCodecContext* codec = nullptr;
        AVFrame* frame = av_frame_alloc();
        AVPacket* packet = av_packet_alloc();
        SwsContext* scale = nullptr;
        ~Owned() {
            sws_freeContext(scale);
            av_packet_free(&packet);
            av_frame_free(&frame);
            avcodec_free_context(&codec);
            avformat_close_input(&format);
        }
    } owned{format};
    avformat_find_stream_info(format, nullptr);
    const AVCodec* decoder = nullptr;
    const int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0);
    if (index < 0 || !decoder) {
        fail(error, errorSize, std::string("no video stream in ") + path);
        return -1;
    }
    owned.codec = avcodec_alloc_context3(decoder);
    avcodec_parameters_to_context(owned.codec, format->streams[index]->codecpar);
    if ((code = avcodec_open2(owned.codec, decoder, nullptr)) < 0) {
        fail(error, errorSize, "cannot open the decoder: " + avError(code));
        return -1;
    }
    std::vector<uint8_t> rgba;
    long frames = 0;
    const auto receive = [&]() -> bool {
        while ((code = avcodec_receive_frame(owned.codec, owned.frame)) >= 0) {
            const int w = owned.frame->width, h = owned.frame->height;
            owned.scale =
                sws_getCachedContext(owned.scale, w, h, AVPixelFormat(owned.frame->format), w, h,
                                     AV_PIX_FMT_RGBA, SWS_POINT, nullptr, nullptr, nullptr);
            rgba.resize(size_t(w) * size_t(h) * 4 + kSlack);
            uint8_t* planes[1] = {rgba.data()};
            const int strides[1] = {w * 4};
            sws_scale(owned.scale, owned.frame->data, owned.frame->linesize, 0, h, planes, strides);
            onFrame(user, rgba.data(), uint32_t(w), uint32_t(h));
            ++frames;
        }
        return code == AVERROR(EAGAIN) || code == AVERROR_EOF;
    };
    while (av_read_frame(format, owned.packet) >= 0) {
        if (owned.packet->stream_index == index) {
            avcodec_send_packet(owned.codec, owned.packet);
            if (!receive()) break;
        }
        av_packet_unref(owned.packet);
    }
    avcodec_send_packet(owned.codec, nullptr);
    receive();
    return frames;
}

constexpr EstuaryVideoApi kApi = {kEstuaryVideoApiVersion,
                                  videoOpen,
                                  videoWrite,
                                  videoFinish,
                                  videoAbandon,
                                  videoDecode,
                                  streamOpen,
                                  streamEncode,
                                  streamClose};

} // namespace

extern "C" __attribute__((visibility("default"))) const EstuaryVideoApi* estuary_video_api(void) {
    return &kApi;
}
