// The steering page (serve.h): its input for the loop, its size for a headless picture, the pick
// readout under its cursor and the serve_stats it asked for.
#include "errors.h"
#include "page_input.h"
#include "server.h"
#include "stamp.h"
#include "viewer.h"

#include <nlohmann/json.hpp>

#include <utility>

namespace estuary::lib {

namespace {

// A page's (any page's) report of the stamp it read from a decoded frame: the trip of the frame
// the picture says it is, from that frame's end to now.
void takeStampReport(Server& s, uint64_t metadataFrame, int64_t id) {
    const int64_t now = hostNowNs();
    std::lock_guard lock(s.mutex);
    s.statsWanted = true;
    if (id < 0) {
        ++s.stampsUnreadable;
        return;
    }
    ++s.stampsRead;
    if (uint64_t(id) != (metadataFrame & stamp::kStampIdMask)) ++s.stampsMismatched;
    // The newest frame taken whose low bits the stamp carries (`taken` spans 64 frames, the id
    // 65536: at most one matches).
    const std::pair<uint64_t, int64_t>* match = nullptr;
    for (const auto& entry : s.taken)
        if (entry.second != 0 && (entry.first & stamp::kStampIdMask) == uint64_t(id) &&
            (!match || entry.first > match->first))
            match = &entry;
    if (!match) {
        ++s.stampsLate;
        return;
    }
    if (s.stampLatencySamples.size() < kSamplesMax)
        s.stampLatencySamples.push_back(double(now - match->second) / 1e6);
}

} // namespace

std::string onPageMessage(Server& s, const nlohmann::json& message, bool steering) {
    std::vector<estuary_event> events;
    std::string error = serve::eventsFromMessage(message, events);
    if (!error.empty()) return error;
    if (message["type"] == "stamp") {
        takeStampReport(s, message["frame"].get<uint64_t>(), message["id"].get<int64_t>());
        return "";
    }
    if (message["type"] == "stats" && steering) {
        const uint64_t frame = message["frame"].get<uint64_t>();
        std::lock_guard lock(s.mutex);
        const auto& [taken, at] = s.taken[frame % s.taken.size()];
        if (taken == frame) {
            s.latencyMsLast = double(hostNowNs() - at) / 1e6;
            if (s.latencySamples.size() < kSamplesMax) s.latencySamples.push_back(s.latencyMsLast);
        }
        s.statsWanted = true;
    }
    if (!steering) return ""; // watchers' input and size are theirs alone
    if (message["type"] == "resize") {
        const auto size =
            serve::pictureSizeFor(message["width"].get<double>(), message["height"].get<double>());
        std::lock_guard lock(s.inputMutex);
        if (size != s.wantedSize) s.wantedAt = Clock::now();
        s.wantedSize = size;
        return "";
    }
    if (events.empty()) return "";
    std::lock_guard lock(s.inputMutex);
    for (const estuary_event& e : events)
        if (s.input.size() < kInputMax) s.input.push_back(e);
    return "";
}

namespace {

// What the steering page is shown under its cursor: the field's texel (the probe) and the buffer
// views' picks, as the window's View panel has them.
std::string pickReadout(const estuary_viewer& v) {
    const PanelState& p = v.panels;
    nlohmann::json out{{"type", "pick"}};
    const estuary_view* field = p.probeActive ? backgroundView(v, p.probePanel) : nullptr;
    if (field && p.probeValid)
        out["probe"] = {{"x", p.probeX},
                        {"y", p.probeY},
                        {"name", field->label},
                        {"values", probeValues(*field->image(), p.probeBytes.data())}};
    nlohmann::json picks = nlohmann::json::array();
    for (size_t i = 0; i < p.picks.size(); ++i) {
        const estuary_pick& pick = p.picks[i].pick;
        if (!p.picks[i].valid || pick.hit != 1) continue;
        picks.push_back({{"view", i},
                         {"element", pick.element},
                         {"value", pick.value},
                         {"position", {pick.position[0], pick.position[1], pick.position[2]}}});
    }
    out["picks"] = picks;
    return out.dump();
}

// Once a second, once a page reports the frames it shows (the page with ?stats or ?stamp, the
// probe), to the steering page and those reading the stamp: the encode times and latencies since
// the last message, and the counts.
void sendServeStats(Server& s) {
    const Clock::time_point now = Clock::now();
    if (now - s.statsSent < std::chrono::seconds(1)) return;
    nlohmann::json m{{"type", "serve_stats"}, {"encoder", s.encoder}};
    {
        std::lock_guard lock(s.mutex);
        if (!s.statsWanted) return;
        m["encode_ms"] = std::exchange(s.encodeSamples, {});
        m["stamp_latency_ms"] = std::exchange(s.stampLatencySamples, {});
        m["metadata_latency_ms"] = std::exchange(s.latencySamples, {});
        m["stamps_read"] = s.stampsRead;
        m["stamps_unreadable"] = s.stampsUnreadable;
        m["stamps_mismatched"] = s.stampsMismatched;
        m["stamps_late"] = s.stampsLate;
        m["frames_encoded"] = s.framesEncoded;
        m["frames_dropped"] = s.framesDropped;
    }
    m["stamp_on"] = s.net->counts().stampClients.load() > 0;
    m["sends_dropped"] = s.net->counts().sendsDropped.load();
    s.statsSent = now;
    s.net->sendToStatsPages(m.dump());
}

} // namespace

void takeServedInput(estuary_viewer& v) {
    Server* s = v.server.get();
    if (!s || s->net->counts().clients == 0) return;
    {
        std::lock_guard lock(s->inputMutex);
        for (const estuary_event& e : s->input)
            if (v.injected.size() < 4096) v.injected.push_back(e);
        s->input.clear();
    }
    sendServeStats(*s);
    std::string readout = pickReadout(v);
    if (readout != s->lastPick) {
        s->net->sendToSteering(readout);
        s->lastPick = std::move(readout);
    }
}

void applyServedSize(estuary_viewer& v) {
    Server* s = v.server.get();
    if (!s || !v.headless) return; // a window keeps its size: the page scales its picture
    std::array<uint32_t, 2> size{};
    {
        std::lock_guard lock(s->inputMutex);
        // A page being resized sends a size per step of the drag: the picture follows once the
        // size has held for 150 ms, and at most twice a second (each resize waits for the GPU).
        const auto now = Clock::now();
        if (s->wantedSize[0] == 0 || now - s->wantedAt < std::chrono::milliseconds(150) ||
            now - s->resizedAt < std::chrono::milliseconds(500))
            return;
        if (s->nvenc) { // NVENC is opened again for the new size: not while it holds a picture
            std::lock_guard gpu(s->mutex);
            if (s->gpu != Server::Gpu::Free && s->gpu != Server::Gpu::Broken) return;
        }
        size = std::exchange(s->wantedSize, {});
    }
    if (size[0] == v.width && size[1] == v.height) return;
    if (v.recorder) { // a recording's size is fixed: it keeps the picture's
        if (std::exchange(s->refusedSize, size) != size)
            logMessage(v, ESTUARY_LOG_WARNING,
                       "the page's size " + std::to_string(size[0]) + "x" +
                           std::to_string(size[1]) +
                           " is not applied: a recording runs, and its size is fixed");
        return;
    }
    resizeOffscreen(v, {size[0], size[1]});
    s->resizedAt = Clock::now();
    if (s->nvenc) {       // idle (above), and only this thread hands it a picture
        s->nvenc.reset(); // its session goes before the next opens
        try {
            s->nvenc = openNvenc(v, {size[0], size[1]}, s->bgra, s->nvencWhy);
        } catch (const std::exception& e) {
            s->nvencWhy = e.what();
        }
        if (!s->nvenc)
            logMessage(v, ESTUARY_LOG_WARNING,
                       "serving: NVENC did not open again at the new size, JPEG from now on: " +
                           s->nvencWhy);
        std::lock_guard gpu(s->mutex);
        s->gpu = Server::Gpu::Free;
        s->net->counts().keyframeWanted = true;
    }
    logMessage(v, ESTUARY_LOG_INFO,
               "the picture is now " + std::to_string(size[0]) + "x" + std::to_string(size[1]) +
                   ", the steering page's size");
}

} // namespace estuary::lib
