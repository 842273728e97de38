// A headless page for measuring a served estuary where no browser is (the GPU machine): it
// connects to the server's WebSocket as the page does (its ?token=, a hello saying whether it
// decodes H.264), receives the binary frames for a while and, like the page opened with ?stats,
// reports each frame back by its metadata id the moment it arrives (the server's metadata
// latency). With `stamp` (the page's ?stamp) it asks the server to draw the frame stamp
// (stamp.h), decodes every frame (decode.h) and reports the id read from the decoded picture: the
// server's stamp latency, which includes the decode (a browser's paint is left out). The server
// sends its encode times and those latencies once a second (serve_stats). H.264 access units are
// also scanned for their NAL units (SPS, PPS, IDR). Who uses it: estuary_serve_probe
// (probe_main.cpp), the tests.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace estuary::serve_probe {

// http://HOST:PORT/[?token=...] (HOST numeric, [IPv6], or localhost) -> where the WebSocket is.
struct Endpoint {
    std::string host; // as connected to (no brackets)
    uint16_t port = 0;
    std::string target; // "/ws" plus the URL's query
};
// Why `url` is not one (empty when it is).
std::optional<Endpoint> parseServeUrl(const std::string& url, std::string& why);

// The NAL unit types of an Annex B access unit, in order (start codes 00 00 01 / 00 00 00 01).
std::vector<int> nalTypes(const uint8_t* data, size_t size);

struct Percentiles {
    size_t count = 0;
    double mean = 0, p50 = 0, p95 = 0, max = 0;
};
Percentiles percentiles(std::vector<double> values);

struct ProbeOptions {
    Endpoint endpoint;
    double seconds = 10;       // after the connection opened
    bool h264 = true;          // say so in the hello (else JPEG only)
    bool stamp = false;        // ask for the stamp, decode each frame and report what it reads
    bool announceStamp = true; // with `stamp`, ask in the hello (false: the tests' pictures
                               // that carry none)
};

struct ProbeResult {
    bool connected = false;
    std::string error;  // what went wrong, if anything
    int closeCode = 0;  // the server's, if it closed
    double seconds = 0; // from the first frame to the last
    uint64_t frames = 0, bytes = 0, h264Frames = 0, jpegFrames = 0, keyframes = 0;
    uint64_t indexGaps = 0;  // frames of the server the probe never got (indices skipped)
    uint64_t outOfOrder = 0; // frames whose index was not above the last one's
    uint32_t width = 0, height = 0;
    // The first H.264 frame: flagged key, holding SPS (7), PPS (8) and an IDR slice (5).
    bool firstH264Seen = false, firstH264Key = false, firstH264Sps = false, firstH264Pps = false,
         firstH264Idr = false;
    // With `stamp`: the frames decoded and their stamps (mismatched: read, but not the id the
    // frame's metadata gives; backwards: read, but not above the last id read), decode times.
    uint64_t framesDecoded = 0, stampsRead = 0, stampsUnreadable = 0, stampsMismatched = 0,
             stampsBackwards = 0;
    std::string decodeError; // the first frame that did not decode: why
    std::vector<double> decodeMs;
    // From the server's serve_stats messages (its stamp counts are the last message's: every
    // page's reports since it started).
    std::string encoder;
    std::vector<double> encodeMs, metadataLatencyMs, stampLatencyMs;
    uint64_t framesEncoded = 0, framesDropped = 0, sendsDropped = 0;
    uint64_t serverStampsRead = 0, serverStampsUnreadable = 0, serverStampsMismatched = 0,
             serverStampsLate = 0;
};

// Runs for opts.seconds (or until the server closes). Never throws; failures land in `error`.
ProbeResult runProbe(const ProbeOptions& opts);

nlohmann::json reportJson(const ProbeResult& r, const std::string& url);

} // namespace estuary::serve_probe
