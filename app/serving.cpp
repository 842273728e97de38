// --serve (serving.h).
#include "serving.h"
#include "errors.h"

#include "estuary/estuary.h"

#include <arpa/inet.h>

#include <chrono>
#include <cstdio>

namespace estuary {

std::optional<ServeAddress> parseServeAddress(const std::string& text) {
    ServeAddress out;
    std::string port = text;
    if (!text.empty() && text.front() == '[') { // [IPv6]:PORT
        const size_t close = text.find("]:");
        if (close == std::string::npos) return std::nullopt;
        out.address = text.substr(1, close - 1);
        port = text.substr(close + 2);
    } else if (const size_t colon = text.rfind(':'); colon != std::string::npos) {
        out.address = text.substr(0, colon);
        port = text.substr(colon + 1);
        if (out.address.find(':') != std::string::npos) return std::nullopt; // IPv6 needs [ ]
    }
    if (out.address.empty() || port.empty() || port.size() > 5) return std::nullopt;
    for (char c : port)
        if (c < '0' || c > '9') return std::nullopt;
    out.port = uint32_t(std::stoul(port));
    if (out.port > 65535) return std::nullopt;
    unsigned char parsed[16];
    if (inet_pton(AF_INET, out.address.c_str(), parsed) != 1 &&
        inet_pton(AF_INET6, out.address.c_str(), parsed) != 1)
        return std::nullopt;
    return out;
}

void addServeOptions(CLI::App& app, Options& o) {
    app.add_option("--serve", o.serve,
                   "Serve the live picture to browsers at [ADDR:]PORT (default address "
                   "127.0.0.1; port 0: a free one): open the URL printed; headless runs go on "
                   "until Ctrl-C unless --frames is given");
    app.add_flag("--serve-allow-remote", o.serveAllowRemote,
                 "Let --serve bind an address other than 127.0.0.1 or ::1 (a token is then "
                 "generated and required)");
    app.add_option("--serve-token", o.serveToken,
                   "The token pages must give (?token=), 16 to 128 of A-Z a-z 0-9 - _ "
                   "(default: none on 127.0.0.1, a random one elsewhere)");
    app.add_flag("--serve-stats", o.serveStats,
                 "Print the server's counts once a second: frames encoded, dropped, sent, "
                 "the encode time and the page's latency (open the page with ?stats)");
}

std::optional<std::string> serveProblem(const CLI::App& app, const Options& o) {
    const auto given = [&](const char* name) { return app.get_option(name)->count() > 0; };
    if (o.serve.empty()) {
        for (const char* name : {"--serve-allow-remote", "--serve-token", "--serve-stats"})
            if (given(name)) return std::string(name) + " sets the server: add --serve [ADDR:]PORT";
        return std::nullopt;
    }
    if (!parseServeAddress(o.serve))
        return "--serve " + o.serve +
               ": expected PORT, ADDR:PORT or [IPv6]:PORT with a numeric address and a port "
               "0..65535";
    if (o.bench) return std::string("--serve is not for --bench, which measures the loop alone");
    if (given("--trace") && !given("--frames"))
        return std::string("--trace with --serve needs --frames (a served run has no end)");
    return std::nullopt;
}

void startAppServer(estuary_viewer* viewer, const Options& o) {
    if (o.serve.empty()) return;
    const ServeAddress where = *parseServeAddress(o.serve);
    estuary_serve_desc d{};
    d.address = where.address.c_str();
    d.port = where.port;
    d.allow_remote = o.serveAllowRemote ? 1 : 0;
    d.token = o.serveToken.empty() ? nullptr : o.serveToken.c_str();
    check(estuary_serve_start(viewer, &d));
    estuary_serve_info info{};
    check(estuary_get_serve_info(viewer, &info));
    std::printf("estuary: serving at %s\n", info.url);
    std::fflush(stdout);
}

void reportServeStats(estuary_viewer* viewer, const Options& o) {
    if (!o.serveStats) return;
    using Clock = std::chrono::steady_clock;
    static Clock::time_point last = Clock::now();
    static uint64_t lastEncoded = 0;
    const Clock::time_point now = Clock::now();
    const double seconds = std::chrono::duration<double>(now - last).count();
    if (seconds < 1.0) return;
    estuary_serve_info i{};
    if (estuary_get_serve_info(viewer, &i) != ESTUARY_OK || !i.running) return;
    std::printf("estuary: serve: %u page(s), %.1f frames/s encoded (%s, %.2f ms mean, %.2f ms "
                "last), %llu dropped by the encoder, %llu sent, %llu missed by pages, latency "
                "%.1f ms\n",
                i.clients, double(i.frames_encoded - lastEncoded) / seconds, i.encoder,
                i.encode_ms_mean, i.encode_ms_last,
                static_cast<unsigned long long>(i.frames_dropped),
                static_cast<unsigned long long>(i.frames_sent),
                static_cast<unsigned long long>(i.sends_dropped), i.latency_ms_last);
    std::fflush(stdout);
    last = now;
    lastEncoded = i.frames_encoded;
}

void printServeSummary(estuary_viewer* viewer, const Options& o) {
    if (o.serve.empty()) return;
    estuary_serve_info i{};
    if (estuary_get_serve_info(viewer, &i) != ESTUARY_OK || !i.running) return;
    std::printf("estuary: served %llu frames (%s, %.2f ms a frame to encode; %llu not encoded, "
                "the encoder busy; %llu missed by slow pages; %llu requests refused)\n",
                static_cast<unsigned long long>(i.frames_sent), i.encoder, i.encode_ms_mean,
                static_cast<unsigned long long>(i.frames_dropped),
                static_cast<unsigned long long>(i.sends_dropped),
                static_cast<unsigned long long>(i.requests_refused));
}

} // namespace estuary
