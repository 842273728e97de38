// The server's state (serve.h has the design), shared by serve.cpp (start, stop, the encoder
// threads, the picture's copies) and steering.cpp (the steering page's input, size and readout).
// Internal to viewer/serve.
#pragma once

#include "net.h"
#include "nvenc_encoder.h"
#include "picture_tap.h"
#include "serve.h"
#include "video/video_module.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace estuary::lib {

using Clock = std::chrono::steady_clock;

constexpr size_t kInputMax = 1024;   // page events waiting for the loop; more are dropped
constexpr size_t kSamplesMax = 4096; // encode times and latencies kept between serve_stats

struct Server {
    PictureTap tap;
    std::unique_ptr<serve::Net> net;
    std::string url, encoder = "jpeg";
    // H.264 through the video module, for pages that decode it; null: JPEG only.
    const EstuaryVideoApi* video = nullptr;
    void* stream = nullptr;
    uint32_t streamWidth = 0, streamHeight = 0;
    int jpegQuality = 80;
    bool bgra = false;
    // H.264 by NVENC from GPU memory (nvenc_encoder.h), before FFmpeg; `nvencWhy`: why not.
    NvencPtr nvenc;
    std::string nvencWhy;
    // The NVENC input's hand-off (under `mutex`): claimed by a frame's draw while Free, pending
    // once that frame is submitted, free again once NVENC has read it; broken after a failure.
    enum class Gpu { Free, Claimed, Pending, Encoding, Broken } gpu = Gpu::Free;
    uint64_t gpuFrame = 0;
    std::string gpuError; // why it broke, logged once by the loop
    bool gpuErrorLogged = false;

    // The loop's picture for the encoder: filled only while the encoder is idle and it is empty.
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<uint8_t> pending;
    uint32_t pendingWidth = 0, pendingHeight = 0;
    uint64_t pendingFrame = 0;
    bool pendingFull = false, closing = false;
    // Encoder threads: one, or where JPEG is all that is served several (jpegEncoders), each
    // taking the newest picture while it is free; `busy` of them encode now. Frames are sent in
    // order: one that finishes after a later frame was sent is dropped.
    uint32_t encoders = 1, busy = 0;
    std::vector<std::thread> encoderThreads;
    std::mutex sendMutex;
    uint64_t lastSent = 0;
    bool sentAny = false;
    // Counts (under `mutex`).
    uint64_t framesEncoded = 0, framesDropped = 0;
    double encodeMsTotal = 0, encodeMsLast = 0, latencyMsLast = 0;
    // When the last frames sent were ended (estuary_end_frame, steady clock), for the page's
    // latency reports: ended -> drawn -> copied -> encoded -> sent -> decoded and shown -> the
    // report back, so an upper bound of the one-way time by the report's trip.
    std::array<std::pair<uint64_t, int64_t>, 64> taken{};
    // Since the last serve_stats message (a page that reports frames shown gets one a second):
    // each frame's encode time, each "stats" report's latency (the frame named by the frame's
    // metadata) and each "stamp" report's (the frame whose stamp was read from the decoded
    // picture: the figure that counts), at most kSamplesMax of each.
    std::vector<double> encodeSamples, latencySamples, stampLatencySamples;
    // Stamp reports since the server started: read (check bits agree), unreadable (they do not,
    // or the picture had no stamp), mismatched (read, but not the id of the frame the metadata
    // named: a picture shown for another frame's), late (read, but older than `taken` holds).
    uint64_t stampsRead = 0, stampsUnreadable = 0, stampsMismatched = 0, stampsLate = 0;
    bool statsWanted = false;
    Clock::time_point statsSent{};

    // The steering page's events, for the loop's next poll.
    std::mutex inputMutex;
    std::vector<estuary_event> input;
    // The steering page's size (pictureSizeFor) and when it last changed; 0: none asked.
    std::array<uint32_t, 2> wantedSize{};
    Clock::time_point wantedAt{};
    std::string lastPick;                  // the readout last sent (loop thread only)
    Clock::time_point resizedAt{};         // loop thread only
    std::array<uint32_t, 2> refusedSize{}; // a size not applied, said once (loop thread)

    ~Server() { // normally after stopServing; here only when that failed
        if (net) net->stop();
        {
            std::lock_guard lock(mutex);
            closing = true;
        }
        changed.notify_all();
        for (std::thread& t : encoderThreads)
            if (t.joinable()) t.join();
        if (stream) video->streamClose(stream);
    }
};

// A page's message, on the network thread: "" or why it is refused (the page is then closed).
std::string onPageMessage(Server& s, const nlohmann::json& message, bool steering);

} // namespace estuary::lib
