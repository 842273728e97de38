#include "windowed.h"
#include "stop_signal.h"
#include "vk_check.h"

#include <volk.h>
#include <GLFW/glfw3.h>

#include <chrono>
#include <cstdio>

namespace estuary {
namespace {

void printSummary(WindowApp& app, double wallSeconds) {
    const SeriesStats cpu = seriesStats(app.session.history, TimingSeries::Cpu, app.ui.scratch);
    std::printf("estuary: %llu frames presented in %.3f s, swapchain created %u time(s)\n",
                static_cast<unsigned long long>(app.framesPresented), wallSeconds,
                app.swapchainRecreations);
    if (cpu.count > 0)
        std::printf("  frame time (ms, last %zu frames): p50 %.3f  p99 %.3f\n", cpu.count, cpu.p50,
                    cpu.p99);
}

} // namespace

void runWindowLoop(WindowApp& app, const Options& o, OutputFile* screenshot) {
    const auto start = std::chrono::steady_clock::now();
    while (stopSignal() == 0) {
        // --frames N with --screenshot: the last frame is the one captured.
        if (o.frames && screenshot && app.framesPresented + 1 == o.frames)
            requestScreenshot(app, *screenshot);
        if (stepWindowApp(app) == StepResult::Closed) break;
        if (o.frames && app.framesPresented >= o.frames) break;
    }
    if (const int signal = stopSignal())
        std::printf("estuary: stopped by %s\n", stopSignalName(signal));
    // Closed before the frame limit (Esc, window closed, a stop signal): one more frame for
    // --screenshot. F12 screenshots are other files and do not count.
    if (screenshot && !screenshot->written() && !app.iconified) {
        app.closeRequested = false;
        glfwSetWindowShouldClose(app.window.handle, GLFW_FALSE);
        requestScreenshot(app, *screenshot);
        for (int attempt = 0; attempt < 4 && !screenshot->written(); ++attempt)
            if (stepWindowApp(app) == StepResult::Closed) break;
    }
    if (screenshot && !screenshot->written())
        std::fprintf(stderr, "estuary: --screenshot %s was not written: %s\n",
                     screenshot->path().c_str(),
                     app.iconified ? "the window is minimized" : "no frame could be captured");
    finishFrames(app.session);
    printSummary(app,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

int runWindowed(const Options& options, std::optional<OutputFile>& screenshot) {
    std::unique_ptr<WindowApp> app = openWindowApp(options);
    // Minimized, the loop sleeps in the window system; waking up now and then lets it notice a
    // stop signal (GLFW resumes its wait after one).
    app->minimizedWaitSeconds = 0.25;
    try {
        runWindowLoop(*app, options, screenshot ? &*screenshot : nullptr);
    } catch (...) {
        closeWindowApp(app);
        throw;
    }
    const uint32_t messages = closeWindowApp(app);
    if (!options.validate) return 0;
    std::printf("estuary: validation layer reported %u message(s)\n", messages);
    return messages > 0 ? int(ExitCode::Runtime) : 0;
}

} // namespace estuary
