// The headless page (probe.h).
#include "probe.h"
#include "decode.h"

#include <utility> // before Asio: its awaitable.hpp uses std::exchange without including it

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <functional>

namespace estuary::serve_probe {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

std::optional<Endpoint> parseServeUrl(const std::string& url, std::string& why) {
    const std::string scheme = "http://";
    if (url.rfind(scheme, 0) != 0) {
        why = "'" + url + "' does not start with http:// (the URL estuary prints when serving)";
        return std::nullopt;
    }
    const size_t slash = url.find('/', scheme.size());
    const std::string authority = url.substr(scheme.size(), slash - scheme.size());
    const std::string rest = slash == std::string::npos ? "/" : url.substr(slash);
    Endpoint e;
    std::string port;
    if (!authority.empty() && authority.front() == '[') {
        const size_t close = authority.find("]:");
        if (close == std::string::npos) {
            why = "'" + authority + "': an IPv6 address needs [ADDR]:PORT";
            return std::nullopt;
        }
        e.host = authority.substr(1, close - 1);
        port = authority.substr(close + 2);
    } else {
        const size_t colon = authority.rfind(':');
        if (colon == std::string::npos) {
            why = "'" + authority + "' has no :PORT";
            return std::nullopt;
        }
        e.host = authority.substr(0, colon);
        port = authority.substr(colon + 1);
    }
    const bool digits =
        !port.empty() && port.size() <= 5 &&
        std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (e.host.empty() || !digits || std::stoul(port) == 0 || std::stoul(port) > 65535) {
        why = "'" + authority + "': expected HOST:PORT with a port 1..65535";
        return std::nullopt;
    }
    e.port = uint16_t(std::stoul(port));
    const size_t question = rest.find('?');
    e.target = "/ws" + (question == std::string::npos ? "" : rest.substr(question));
    return e;
}

std::vector<int> nalTypes(const uint8_t* data, size_t size) {
    std::vector<int> types;
    for (size_t i = 0; i + 3 < size; ++i) {
        if (data[i] != 0 || data[i + 1] != 0 || data[i + 2] != 1) continue;
        types.push_back(data[i + 3] & 0x1F);
        i += 3;
    }
    return types;
}

Percentiles percentiles(std::vector<double> values) {
    Percentiles p;
    p.count = values.size();
    if (values.empty()) return p;
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (double v : values)
        sum += v;
    p.mean = sum / double(values.size());
    // Nearest rank: the smallest value with at least q of the samples at or below it.
    const auto rank = [&](double q) {
        const size_t n = size_t(std::ceil(q * double(values.size())));
        return values[std::clamp<size_t>(n, 1, values.size()) - 1];
    };
    p.p50 = rank(0.50);
    p.p95 = rank(0.95);
    p.max = values.back();
    return p;
}

namespace {

uint64_t le(const uint8_t* p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

void takeStats(ProbeResult& r, const nlohmann::json& m) {
    r.encoder = m.value("encoder", r.encoder);
    const std::pair<const char*, std::vector<double>*> samples[] = {
        {"encode_ms", &r.encodeMs},
        {"metadata_latency_ms", &r.metadataLatencyMs},
        {"stamp_latency_ms", &r.stampLatencyMs}};
    for (const auto& [key, into] : samples) {
        if (!m.contains(key) || !m[key].is_array()) continue;
        for (const auto& v : m[key])
            if (v.is_number()) into->push_back(v.get<double>());
    }
    r.framesEncoded = m.value("frames_encoded", r.framesEncoded);
    r.framesDropped = m.value("frames_dropped", r.framesDropped);
    r.sendsDropped = m.value("sends_dropped", r.sendsDropped);
    r.serverStampsRead = m.value("stamps_read", r.serverStampsRead);
    r.serverStampsUnreadable = m.value("stamps_unreadable", r.serverStampsUnreadable);
    r.serverStampsMismatched = m.value("stamps_mismatched", r.serverStampsMismatched);
    r.serverStampsLate = m.value("stamps_late", r.serverStampsLate);
}

// The page's session: reads frames, reports each as shown, collects the server's stats.
struct Session {
    Session(asio::io_context& io, ProbeResult& result, bool readStamps)
        : ws(io), r(result), readsStamps(readStamps) {}
    websocket::stream<beast::tcp_stream> ws;
    ProbeResult& r;
    const bool readsStamps;
    FrameDecoder decoder;
    int64_t lastStampId = -1;
    beast::flat_buffer in;
    std::deque<std::string> out;
    bool writing = false, closing = false;
    std::function<void()> ended; // the connection ended by the server's doing
    Clock::time_point first, last;
    int64_t lastIndex = -1;

    void read() {
        ws.async_read(in, [this](beast::error_code ec, size_t) {
            if (ec) {
                if (closing) return; // the probe's own close
                if (ec == websocket::error::closed)
                    r.closeCode = int(ws.reason().code);
                else if (ec != asio::error::operation_aborted)
                    r.error = "reading: " + ec.message();
                if (ended) ended(); // the server closed first: the probe is done
                return;
            }
            if (ws.got_binary()) {
                onFrame();
            } else {
                const auto m =
                    nlohmann::json::parse(beast::buffers_to_string(in.data()), nullptr, false);
                if (m.is_object() && m.value("type", "") == "serve_stats") takeStats(r, m);
            }
            in.consume(in.size());
            read();
        });
    }

    void onFrame() {
        const auto* d = static_cast<const uint8_t*>(in.data().data());
        const size_t size = in.size();
        if (size < 16) {
            r.error = "a frame of " + std::to_string(size) + " bytes (the header alone is 16)";
            return close();
        }
        const auto now = Clock::now();
        if (r.frames == 0) first = now;
        last = now;
        ++r.frames;
        r.bytes += size;
        const int codec = d[0];
        const bool key = (d[1] & 1) != 0;
        r.width = uint32_t(le(d + 2, 2));
        r.height = uint32_t(le(d + 4, 2));
        const int64_t index = int64_t(le(d + 8, 8));
        if (lastIndex >= 0 && index > lastIndex + 1) r.indexGaps += uint64_t(index - lastIndex - 1);
        if (lastIndex >= 0 && index <= lastIndex) ++r.outOfOrder;
        lastIndex = std::max(lastIndex, index);
        r.keyframes += key;
        if (codec == 1) ++r.jpegFrames;
        if (codec == 2) {
            ++r.h264Frames;
            if (!r.firstH264Seen) {
                r.firstH264Seen = true;
                r.firstH264Key = key;
                for (int t : nalTypes(d + 16, size - 16)) {
                    r.firstH264Sps = r.firstH264Sps || t == 7;
                    r.firstH264Pps = r.firstH264Pps || t == 8;
                    r.firstH264Idr = r.firstH264Idr || t == 5;
                }
            }
        }
        // Shown the moment it arrived, as the page with ?stats reports each frame it shows.
        send(nlohmann::json{{"type", "stats"}, {"frame", index}}.dump());
        if (readsStamps) readStamp(codec, d + 16, size - 16, index);
    }

    // The frame decoded, its stamp read back and reported (id -1: unreadable), as the page with
    // ?stamp does once it has drawn a frame.
    void readStamp(int codec, const uint8_t* data, size_t size, int64_t index) {
        const StampedFrame f = decoder.decode(codec, data, size);
        if (!f.decoded) {
            if (r.decodeError.empty())
                r.decodeError = "frame " + std::to_string(index) + ": " + f.error;
            return;
        }
        ++r.framesDecoded;
        r.decodeMs.push_back(f.decodeMs);
        int64_t id = -1;
        if (f.stamp.ok) {
            id = f.stamp.id;
            ++r.stampsRead;
            if (uint64_t(id) != (uint64_t(index) & stamp::kStampIdMask)) ++r.stampsMismatched;
            // Ids wrap at 65536: "backwards" is a step of more than half of that.
            if (lastStampId >= 0 && ((id - lastStampId) & 0xFFFF) >= 0x8000) ++r.stampsBackwards;
            if (lastStampId >= 0 && id == lastStampId) ++r.stampsBackwards;
            lastStampId = id;
        } else {
            ++r.stampsUnreadable;
        }
        send(nlohmann::json{{"type", "stamp"}, {"frame", index}, {"id", id}}.dump());
    }

    void send(std::string text) {
        if (closing || out.size() >= 256) return;
        out.push_back(std::move(text));
        pump();
    }
    void pump() {
        if (writing || out.empty() || closing) return;
        writing = true;
        ws.text(true);
        ws.async_write(asio::buffer(out.front()), [this](beast::error_code ec, size_t) {
            writing = false;
            out.pop_front();
            if (ec) {
                if (!closing) r.error = "writing: " + ec.message();
                return;
            }
            pump();
        });
    }
    void close() {
        if (closing) return;
        closing = true;
        ws.async_close(websocket::close_code::normal, [](beast::error_code) {});
    }
};

} // namespace

ProbeResult runProbe(const ProbeOptions& o) {
    ProbeResult r;
    try {
        asio::io_context io;
        Session s(io, r, o.stamp);
        tcp::resolver resolver(io);
        const auto found = resolver.resolve(o.endpoint.host, std::to_string(o.endpoint.port));
        beast::get_lowest_layer(s.ws).connect(found);
        s.ws.set_option(websocket::stream_base::timeout::suggested(beast::role_type::client));
        const bool v6 = o.endpoint.host.find(':') != std::string::npos;
        const std::string host = (v6 ? "[" + o.endpoint.host + "]" : o.endpoint.host) + ":" +
                                 std::to_string(o.endpoint.port);
        s.ws.handshake(host, o.endpoint.target);
        r.connected = true;
        s.send(nlohmann::json{
            {"type", "hello"}, {"h264", o.h264}, {"stamp", o.stamp && o.announceStamp}}
                   .dump());
        s.read();
        asio::steady_timer timer(io);
        timer.expires_after(
            std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds)));
        timer.async_wait([&](beast::error_code ec) {
            if (!ec) s.close();
        });
        s.ended = [&] { timer.cancel(); };
        // A server that does not answer the close is left after two more seconds.
        io.run_for(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(o.seconds + 2)));
        if (r.frames > 1) r.seconds = std::chrono::duration<double>(s.last - s.first).count();
    } catch (const std::exception& e) {
        r.error = e.what();
    }
    return r;
}

nlohmann::json reportJson(const ProbeResult& r, const std::string& url) {
    const auto summary = [](const std::vector<double>& v) {
        const Percentiles p = percentiles(v);
        return nlohmann::json{
            {"count", p.count}, {"mean", p.mean}, {"p50", p.p50}, {"p95", p.p95}, {"max", p.max}};
    };
    const double fps = r.seconds > 0 ? double(r.frames - 1) / r.seconds : 0.0;
    std::string codec = r.h264Frames && r.jpegFrames ? "mixed"
                        : r.h264Frames               ? "h264"
                        : r.jpegFrames               ? "jpeg"
                                                     : "none";
    return nlohmann::json{{"url", url},
                          {"connected", r.connected},
                          {"error", r.error},
                          {"close_code", r.closeCode},
                          {"seconds", r.seconds},
                          {"frames", r.frames},
                          {"fps", fps},
                          {"bytes", r.bytes},
                          {"bytes_per_s", r.seconds > 0 ? double(r.bytes) / r.seconds : 0.0},
                          {"codec", codec},
                          {"h264_frames", r.h264Frames},
                          {"jpeg_frames", r.jpegFrames},
                          {"keyframes", r.keyframes},
                          {"frames_missed", r.indexGaps},
                          {"frames_out_of_order", r.outOfOrder},
                          {"width", r.width},
                          {"height", r.height},
                          {"first_h264",
                           {{"seen", r.firstH264Seen},
                            {"keyframe", r.firstH264Key},
                            {"sps", r.firstH264Sps},
                            {"pps", r.firstH264Pps},
                            {"idr", r.firstH264Idr}}},
                          {"stamp",
                           {{"frames_decoded", r.framesDecoded},
                            {"read", r.stampsRead},
                            {"unreadable", r.stampsUnreadable},
                            {"mismatched", r.stampsMismatched},
                            {"backwards", r.stampsBackwards},
                            {"decode_error", r.decodeError},
                            {"decode_ms", summary(r.decodeMs)}}},
                          {"server",
                           {{"encoder", r.encoder},
                            {"encode_ms", summary(r.encodeMs)},
                            {"stamp_latency_ms", summary(r.stampLatencyMs)},
                            {"metadata_latency_ms", summary(r.metadataLatencyMs)},
                            {"stamps_read", r.serverStampsRead},
                            {"stamps_unreadable", r.serverStampsUnreadable},
                            {"stamps_mismatched", r.serverStampsMismatched},
                            {"stamps_late", r.serverStampsLate},
                            {"frames_encoded", r.framesEncoded},
                            {"frames_dropped", r.framesDropped},
                            {"sends_dropped", r.sendsDropped}}}};
}

} // namespace estuary::serve_probe
