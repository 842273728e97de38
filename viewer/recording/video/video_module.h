// The C ABI between libestuary and its video module, libestuary_video.so (video_module.cpp), which
// links FFmpeg's libraries (libavcodec, libavformat, libavutil, libswscale). libestuary loads the
// module only when a recording starts, so it runs where FFmpeg is absent (the recording is then
// refused, naming the library that did not load). The module writes a file frame by frame: RGBA8
// or BGRA8 pictures in, H.264 or HEVC out; and decodes one back (tests compare the frames). Every
// call is from one thread at a time per handle; errors come back as text in `error` (size
// `errorSize`). Every write of the file is checked, buffered ones included: a failure is returned
// by the call that met it (open, write or finish), and finish renames only a file whose every
// byte reached the disk (fsync); after a failure the caller abandons the handle, which deletes
// tempPath.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

struct EstuaryVideoOptions {
    const char* path;     // the finished file: its extension picks the container (.mp4, .mkv)
    const char* tempPath; // where it is written until finish, then renamed to `path`
    uint32_t width, height;
    uint32_t fps;        // frames a second of the file
    uint32_t quality;    // 0..51, lower is better (x264/x265 CRF, NVENC CQ)
    const char* encoder; // an FFmpeg encoder name, or null: the first that opens of kEncoders
    uint32_t bgra;       // non-zero: write's pictures are B, G, R, A (converted as they are)
};

// Called for each decoded frame: RGBA8, width x height, tightly packed.
typedef void (*EstuaryVideoFrameFn)(void* user, const uint8_t* rgba, uint32_t width,
                                    uint32_t height);

// Called for each encoded access unit of a stream (Annex B), `keyframe` 1 for an IDR.
typedef void (*EstuaryVideoPacketFn)(void* user, const uint8_t* data, size_t size, int keyframe);

struct EstuaryVideoApi {
    uint32_t version; // kEstuaryVideoApiVersion
    // Null on failure. encoderName: what opened (valid until close). An error of the file itself
    // (it cannot be created, or its header's write failed) starts with "cannot write " or
    // "writing "; anything else is the encoder's or the container's.
    void* (*open)(const EstuaryVideoOptions* options, const char** encoderName, char* error,
                  size_t errorSize);
    // `rgba`: width x height, tightly packed, in the order of options.bgra; only read. 0: ok.
    int (*write)(void* video, const uint8_t* rgba, char* error, size_t errorSize);
    // Flushes, writes the trailer, closes and renames tempPath to path; frees the handle.
    int (*finish)(void* video, char* error, size_t errorSize);
    // Closes without renaming and deletes tempPath; frees the handle.
    void (*abandon)(void* video);
    // Decodes every video frame of `path` in order; returns the count, or -1 (error filled).
    long (*decode)(const char* path, EstuaryVideoFrameFn frame, void* user, char* error,
                   size_t errorSize);
    // A live H.264 stream for the server (video_stream.cpp): no file, one access unit out for each
    // picture in. `encoder` null: h264_nvenc where it opens, else libx264. Null on failure.
    void* (*streamOpen)(uint32_t width, uint32_t height, uint32_t fps, const char* encoder,
                        const char** encoderName, char* error, size_t errorSize);
    // Encodes `rgba` (width x height of streamOpen), an IDR when `keyframe`; 0: ok.
    int (*streamEncode)(void* stream, const uint8_t* rgba, int keyframe,
                        EstuaryVideoPacketFn packet, void* user, char* error, size_t errorSize);
    void (*streamClose)(void* stream);
};

// video_stream.cpp's, for the table.
void* streamOpen(uint32_t width, uint32_t height, uint32_t fps, const char* encoder,
                 const char** encoderName, char* error, size_t errorSize);
int streamEncode(void* stream, const uint8_t* rgba, int keyframe, EstuaryVideoPacketFn packet,
                 void* user, char* error, size_t errorSize);
void streamClose(void* stream);

const EstuaryVideoApi* estuary_video_api(void);
}

inline constexpr uint32_t kEstuaryVideoApiVersion = 3;
