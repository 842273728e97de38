// Soak on the GPU: a long pipelined run keeps host and device memory flat once warmed up, and
// hundreds of backend recreations (grid size and frames in flight changing, as the window's grid
// control and a later frames-in-flight control do) give every byte back. Kept out of the
// sanitizer runs (run-gpu-suite.sh): it is the same code as the short tests, 100,000 times.
#include "cuda_vulkan_fixture.h"
#include "frame.h"
#include "offscreen.h"

#include <unistd.h>

#include <fstream>

namespace estuary::test {
namespace {

// Resident set size of this process, from /proc/self/statm.
double residentMiB() {
    std::ifstream statm("/proc/self/statm");
    uint64_t size = 0, resident = 0;
    statm >> size >> resident;
    return double(resident) * double(sysconf(_SC_PAGESIZE)) / (1024.0 * 1024.0);
}

double freeDeviceMiB() {
    size_t free = 0, total = 0;
    EXPECT_EQ(cudaMemGetInfo(&free, &total), cudaSuccess);
    return double(free) / (1024.0 * 1024.0);
}

class AppGpuSoak : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto cuda = interop::listCudaDevices();
        if (cuda.devices.empty())
            GTEST_SKIP() << "no NVIDIA GPU usable by CUDA here: " << cuda.problem;
    }

    // A CUDA session drawing into a small offscreen target; `body` runs between open and close.
    void withSession(bool validate, const std::function<void(Session&, FrameTarget&)>& body) {
        Options o;
        o.backend = Backend::Cuda;
        o.grid = {256, 256};
        o.stepsPerFrame = 1;
        o.framesInFlight = 8;
        o.validate = validate;
        Session session;
        openInstance(session, o, {});
        uint32_t messages = 0;
        try {
            openDevice(session, VK_NULL_HANDLE, VK_FORMAT_R8G8B8A8_UNORM);
            OffscreenTarget offscreen = createOffscreenTarget(session.device, {128, 128});
            FrameTarget target;
            target.view = offscreen.image.view;
            target.extent = {128, 128};
            target.begin = [&](VkCommandBuffer cmd) { recordBeginTarget(cmd, offscreen); };
            target.end = [&](VkCommandBuffer cmd) { recordEndTarget(cmd, offscreen, false); };
            body(session, target);
            finishFrames(session);
            destroyOffscreenTarget(session.device, offscreen);
        } catch (...) {
            closeSession(session);
            throw;
        }
        messages = closeSession(session);
        EXPECT_EQ(messages, 0u) << "validation messages";
    }
};

TEST_F(AppGpuSoak, HundredThousandPipelinedFramesKeepHostAndDeviceMemoryFlat) {
    double rssWarm = 0, deviceWarm = 0, rssEnd = 0, deviceEnd = 0;
    withSession(false, [&](Session& session, FrameTarget& target) {
        constexpr uint64_t kFrames = 100'000, kWarmup = 2'000;
        for (uint64_t frame = 0; frame < kFrames; ++frame) {
            drawFrame(session, frame, target);
            if (frame + 1 == kWarmup) {
                finishFrames(session);
                rssWarm = residentMiB();
                deviceWarm = freeDeviceMiB();
            }
        }
        finishFrames(session);
        rssEnd = residentMiB();
        deviceEnd = freeDeviceMiB();
    });
    std::printf("after warm-up: resident %.1f MiB, free device memory %.1f MiB; after 100,000 "
                "frames: %.1f MiB, %.1f MiB\n",
                rssWarm, deviceWarm, rssEnd, deviceEnd);
    EXPECT_LE(std::abs(rssEnd - rssWarm), 0.01 * rssWarm) << "host memory grew";
    // Free device memory is a device-wide number: 16 MiB covers the driver's own bookkeeping.
    EXPECT_LE(std::abs(deviceEnd - deviceWarm), 16.0) << "device memory grew";
}

TEST_F(AppGpuSoak, FiveHundredBackendRecreationsGiveEveryByteBack) {
    double deviceEarly = 0, deviceEnd = 0;
    withSession(true, [&](Session& session, FrameTarget& target) {
        const Extent grids[] = {{256, 256}, {192, 128}, {320, 200}};
        uint64_t frame = 0;
        for (uint32_t i = 0; i < 500; ++i) {
            recreateBackend(session, grids[i % 3], 1 + i % 4); // grid and frames in flight
            for (int f = 0; f < 3; ++f)
                drawFrame(session, frame++, target);
            if (i == 11) { // a whole cycle of both: the driver's pools have grown to size
                finishFrames(session);
                deviceEarly = freeDeviceMiB();
            }
        }
        recreateBackend(session, grids[11 % 3], 1 + 11 % 4); // as at the early reading
        finishFrames(session);
        deviceEnd = freeDeviceMiB();
    });
    std::printf("free device memory after 12 recreations %.1f MiB, after 501: %.1f MiB\n",
                deviceEarly, deviceEnd);
    EXPECT_LE(std::abs(deviceEnd - deviceEarly), 16.0) << "device memory leaked";
}

} // namespace
} // namespace estuary::test
