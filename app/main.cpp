// estuary: parse options, then run one of three modes — benchmark, headless, or the desktop window
// — and map every failure to a documented exit code.
#include "bench.h"
#include "errors.h"
#include "headless.h"
#include "options.h"
#include "session.h"
#include "windowed.h"

#include <cstdio>

namespace {

int run(const estuary::Options& options) {
    using namespace estuary;
    if (options.bench) return runBench(options);
    if (!options.headless) return runWindowed(options);
    Session session;
    openInstance(session, options, {});
    return runSession(session, [](Session& s) {
        openDevice(s, VK_NULL_HANDLE, VK_FORMAT_R8G8B8A8_UNORM);
        runHeadless(s);
    });
}

} // namespace

int main(int argc, char** argv) {
    const auto parsed = estuary::parseOptions(argc, argv);
    if (parsed.exitNow) {
        std::fprintf(*parsed.exitNow == 0 ? stdout : stderr, "%s\n", parsed.message.c_str());
        return *parsed.exitNow;
    }
    try {
        return run(parsed.options);
    } catch (const estuary::Error& e) {
        std::fprintf(stderr, "estuary: error: %s\n", e.what());
        return int(e.code());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "estuary: error: %s\n", e.what());
        return int(estuary::ExitCode::Runtime);
    }
}
