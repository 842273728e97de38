#include "windowed.h"
#include "vk_check.h"
#include "window_app.h"

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

void runLoop(WindowApp& app, const Options& o) {
    const auto start = std::chrono::steady_clock::now();
    while (true) {
        // --frames N with --screenshot: the last frame is the one captured.
        if (o.frames && !o.screenshot.empty() && app.framesPresented + 1 == o.frames)
            requestScreenshot(app, o.screenshot);
        if (stepWindowApp(app) == StepResult::Closed) break;
        if (o.frames && app.framesPresented >= o.frames) break;
    }
    // Closed before the frame limit (Esc, window closed): draw one more frame for --screenshot.
    if (!o.screenshot.empty() && app.lastCapture.empty() && !app.iconified) {
        app.closeRequested = false;
        glfwSetWindowShouldClose(app.window.handle, GLFW_FALSE);
        requestScreenshot(app, o.screenshot);
        for (int attempt = 0; attempt < 4 && app.lastCapture.empty(); ++attempt)
            if (stepWindowApp(app) == StepResult::Closed) break;
    }
    finishFrames(app.session);
    printSummary(app,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

} // namespace

int runWindowed(const Options& options) {
    std::unique_ptr<WindowApp> app = openWindowApp(options);
    try {
        runLoop(*app, options);
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
