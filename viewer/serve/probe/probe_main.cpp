// estuary_serve_probe URL [--seconds S] [--report PATH] [--jpeg] [--stamp]: a headless page
// (probe.h) that watches a served estuary for S seconds, or until the server closes, and writes
// what it saw as JSON (atomically; "-" for the standard output). --stamp: the server draws the
// frame stamp, the probe decodes every frame and reads it back (the stamp latency). Exit 0 when
// frames came, 1 when none did or the connection failed, 2 for a bad command line.
#include "decode.h"
#include "output_file.h"
#include "probe.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

int usage(const std::string& problem) {
    std::fprintf(stderr,
                 "estuary_serve_probe: %s\n"
                 "usage: estuary_serve_probe URL [--seconds S (0.1..3600, default 10)] "
                 "[--report PATH (default: the standard output)] [--jpeg] [--stamp]\n"
                 "URL: the page's address estuary prints when serving "
                 "(http://127.0.0.1:PORT/?token=...)\n",
                 problem.c_str());
    return 2;
}

} // namespace

int main(int argc, char** argv) {
    using namespace estuary::serve_probe;
    std::string url, report = "-";
    ProbeOptions options;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        if (arg == "--seconds" && hasValue) {
            char* end = nullptr;
            options.seconds = std::strtod(argv[++i], &end);
            if (!end || *end || !(options.seconds >= 0.1 && options.seconds <= 3600))
                return usage(std::string("--seconds ") + argv[i] + ": expected 0.1..3600");
        } else if (arg == "--report" && hasValue) {
            report = argv[++i];
        } else if (arg == "--jpeg") {
            options.h264 = false;
        } else if (arg == "--stamp") {
            options.stamp = true;
        } else if (!arg.empty() && arg[0] != '-' && url.empty()) {
            url = arg;
        } else {
            return usage("unexpected argument '" + arg + "'");
        }
    }
    if (url.empty()) return usage("no URL");
    std::string why;
    const auto endpoint = parseServeUrl(url, why);
    if (!endpoint) return usage(why);
    options.endpoint = *endpoint;
    if (std::string noH264; options.stamp && options.h264 && !h264Decodable(&noH264)) {
        std::fprintf(stderr,
                     "estuary_serve_probe: no H.264 decoder here (%s): --stamp asks for "
                     "JPEG\n",
                     noH264.c_str());
        options.h264 = false;
    }
    const ProbeResult result = runProbe(options);
    const std::string text = reportJson(result, url).dump(2) + "\n";
    try {
        estuary::writeFileAtomically(report == "-" ? "/dev/stdout" : report, text);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "estuary_serve_probe: %s\n", e.what());
        return 1;
    }
    if (!result.error.empty())
        std::fprintf(stderr, "estuary_serve_probe: %s\n", result.error.c_str());
    return result.frames > 0 && result.connected ? 0 : 1;
}
