#include "headless.h"
#include "frame.h"
#include "offscreen.h"
#include "png.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace estuary {
namespace {

void printFrameTimes(std::vector<double> ms, double wallSeconds) {
    if (ms.empty()) return;
    std::printf("estuary: %zu frames in %.3f s (%.1f frames/s)\n  first frames (ms):", ms.size(),
                wallSeconds, double(ms.size()) / wallSeconds);
    for (size_t i = 0; i < std::min<size_t>(ms.size(), 8); ++i)
        std::printf(" %.3f", ms[i]);
    std::sort(ms.begin(), ms.end());
    std::printf("\n  frame time (ms): p50 %.3f  p99 %.3f  max %.3f\n", ms[ms.size() / 2],
                ms[std::min(ms.size() - 1, ms.size() * 99 / 100)], ms.back());
}

} // namespace

void runHeadless(Session& session) {
    const Options& o = session.options;
    const uint32_t frames = o.frames ? o.frames : 300;
    const VkExtent2D extent{o.resolution.width, o.resolution.height};
    OffscreenTarget offscreen = createOffscreenTarget(session.device, extent);

    uint64_t frame = 0;
    FrameTarget target;
    target.view = offscreen.image.view;
    target.extent = extent;
    target.begin = [&](VkCommandBuffer cmd) { recordBeginTarget(cmd, offscreen); };
    target.end = [&](VkCommandBuffer cmd) {
        recordEndTarget(cmd, offscreen, /*copyToReadback=*/frame + 1 == frames);
    };

    std::vector<double> frameMs;
    frameMs.reserve(frames);
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    auto last = start;
    for (frame = 0; frame < frames; ++frame) {
        drawFrame(session, frame, target);
        const auto now = Clock::now();
        frameMs.push_back(std::chrono::duration<double, std::milli>(now - last).count());
        last = now;
    }
    waitFrameDrawn(session, frames - 1);
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    printFrameTimes(frameMs, wall);

    const std::string path = o.screenshot.empty() ? "estuary.png" : o.screenshot;
    const auto pixels = readbackPixels(offscreen);
    writePng(path, extent.width, extent.height, pixels.data());
    std::printf("estuary: wrote %s (%ux%u)\n", path.c_str(), extent.width, extent.height);
    vkDeviceWaitIdle(session.device.handle);
    destroyOffscreenTarget(session.device, offscreen);
}

} // namespace estuary
