// estuary: parse options, check the files the run will write, then run one of three modes —
// benchmark, headless, or the desktop window — and map every failure to a documented exit code.
#include "bench.h"
#include "errors.h"
#include "estuary/estuary.h"
#include "headless.h"
#include "options.h"
#include "rank_run.h"
#include "run_outputs.h"
#include "stop_signal.h"
#include "watchdog.h"
#include "windowed.h"

#include <cstdio>
#include <new>
#include <string>
#include <unistd.h>

namespace {

int runMode(const estuary::Options& options, estuary::RunOutputs& outputs) {
    using namespace estuary;
    if (options.bench) return runBench(options, outputs);
    if (!options.headless) return runWindowed(options, outputs.screenshot);
    return runHeadless(options, outputs);
}

// A run stopped by SIGINT/SIGTERM wrote what was asked and exits 128 + the signal, unless it
// failed otherwise.
int run(const estuary::Options& options) {
    estuary::RunOutputs outputs = estuary::openRunOutputs(options);
    const int code = runMode(options, outputs);
    const int signal = estuary::stopSignal();
    return code == 0 && signal != 0 ? estuary::stoppedExitCode(signal) : code;
}

// The exit, skipping the exit handlers when GPU work was left unsettled (estuary.h says why).
int endProcess(int code) {
    if (!estuary_gpu_work_abandoned()) return code;
    std::fflush(stdout);
    std::fflush(stderr);
    _exit(code);
}

} // namespace

int main(int argc, char** argv) {
    const auto parsed = estuary::parseOptions(argc, argv);
    if (parsed.exitNow) {
        std::fprintf(*parsed.exitNow == 0 ? stdout : stderr, "%s\n", parsed.message.c_str());
        return *parsed.exitNow;
    }
    estuary::installStopHandlers();
    estuary::startWatchdog();
    try {
        // Several ranks (mpirun, srun, scripts/estuary-ranks): rank 0 runs, the others serve it.
        if (const auto job = estuary::ranks::jobFromEnvironment()) {
            std::string commandLine;
            for (int i = 1; i < argc; ++i)
                commandLine += std::string(argv[i]) + '\0';
            return endProcess(estuary::runRank(parsed.options, *job, commandLine,
                                               [&] { return run(parsed.options); }));
        }
        return endProcess(run(parsed.options));
    } catch (const estuary::Error& e) {
        std::fprintf(stderr, "estuary: error: %s\n", e.what());
        return endProcess(int(exitCode(e)));
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "estuary: error: out of host memory; try a smaller --size, fewer "
                             "--frames or a smaller --resolution\n");
        return endProcess(int(estuary::ExitCode::Runtime));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "estuary: error: %s\n", e.what());
        return endProcess(int(estuary::ExitCode::Runtime));
    }
}
