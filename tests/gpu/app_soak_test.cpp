// Soak on the GPU through the library: a long pipelined run keeps host and device memory flat once
// warmed up; hundreds of simulations made and dropped on one viewer (their exported images and
// buffers, CUDA imports and views, as the window's grid control does) and dozens of viewers made
// and destroyed (frames in flight changing) give every byte back. Kept out of the sanitizer runs
// (run-gpu-suite.sh): it is the same code as the short tests, 100,000 times.
#include "app_viewer.h"
#include "cuda_vulkan_fixture.h"
#include "sim_run.h"
#include "simulations.h"

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

    static Options options(uint32_t framesInFlight, bool validate) {
        Options o;
        o.simulation = "gray-scott";
        o.backend = Backend::Cuda;
        o.headless = true;
        o.resolution = {128, 128};
        o.grid = {256, 256};
        o.stepsPerFrame = 1;
        o.framesInFlight = framesInFlight;
        o.validate = validate;
        return o;
    }
    // Gray-Scott written by CUDA on `viewer`, on `grid`.
    static std::unique_ptr<SimRun> simulate(const Viewer& viewer, Extent grid) {
        const sim::SimDefinition& def = *findSimulation("gray-scott");
        SimRunConfig config;
        config.simulation = &def;
        config.grid = grid;
        config.kind = RunKind::Cuda;
        return SimRun::create(viewer, config);
    }
};

TEST_F(AppGpuSoak, HundredThousandPipelinedFramesKeepHostAndDeviceMemoryFlat) {
    double rssWarm = 0, deviceWarm = 0, rssEnd = 0, deviceEnd = 0;
    {
        const Options o = options(8, false);
        Viewer viewer = openAppViewer(o, {});
        std::unique_ptr<SimRun> run = simulate(viewer, o.grid);
        const sim::ParamValues params = sim::initialParams(*findSimulation("gray-scott"));
        constexpr uint64_t kFrames = 100'000, kWarmup = 2'000;
        for (uint64_t frame = 0; frame < kFrames; ++frame) {
            run->frame(params, 1);
            if (frame + 1 == kWarmup) {
                viewer.finish();
                rssWarm = residentMiB();
                deviceWarm = freeDeviceMiB();
            }
        }
        viewer.finish();
        rssEnd = residentMiB();
        deviceEnd = freeDeviceMiB();
        run.reset();
        EXPECT_EQ(viewer.close(), 0u);
    }
    std::printf("after warm-up: resident %.1f MiB, free device memory %.1f MiB; after 100,000 "
                "frames: %.1f MiB, %.1f MiB\n",
                rssWarm, deviceWarm, rssEnd, deviceEnd);
    EXPECT_LE(std::abs(rssEnd - rssWarm), 0.01 * rssWarm) << "host memory grew";
    // Free device memory is a device-wide number: 16 MiB covers the driver's own bookkeeping.
    EXPECT_LE(std::abs(deviceEnd - deviceWarm), 16.0) << "device memory grew";
}

TEST_F(AppGpuSoak, FiveHundredSimulationsOnOneViewerGiveEveryByteBack) {
    double deviceEarly = 0, deviceEnd = 0;
    const Options o = options(4, true);
    Viewer viewer = openAppViewer(o, {});
    const sim::ParamValues params = sim::initialParams(*findSimulation("gray-scott"));
    const Extent grids[] = {{256, 256}, {192, 128}, {320, 200}};
    std::unique_ptr<SimRun> run;
    for (uint32_t i = 0; i < 500; ++i) {
        run.reset(); // its images and views go before the next ones come
        run = simulate(viewer, grids[i % 3]);
        for (int f = 0; f < 3; ++f)
            run->frame(params, 1);
        if (i == 11) { // a few cycles: the driver's pools have grown to size
            viewer.finish();
            deviceEarly = freeDeviceMiB();
        }
    }
    run.reset();
    run = simulate(viewer, grids[11 % 3]); // as at the early reading
    run->frame(params, 1);
    viewer.finish();
    deviceEnd = freeDeviceMiB();
    run.reset();
    EXPECT_EQ(viewer.close(), 0u) << "validation messages";
    std::printf("free device memory after 12 simulations %.1f MiB, after 501: %.1f MiB\n",
                deviceEarly, deviceEnd);
    EXPECT_LE(std::abs(deviceEnd - deviceEarly), 16.0) << "device memory leaked";
}

TEST_F(AppGpuSoak, FortyViewersMadeAndDestroyedGiveEveryByteBack) {
    double deviceEarly = 0, deviceEnd = 0;
    const sim::ParamValues params = sim::initialParams(*findSimulation("gray-scott"));
    for (uint32_t i = 0; i < 40; ++i) {
        const Options o = options(1 + i % 4, i % 8 == 0); // validation on some: it is slow
        Viewer viewer = openAppViewer(o, {});
        std::unique_ptr<SimRun> run = simulate(viewer, o.grid);
        for (int f = 0; f < 3; ++f)
            run->frame(params, 1);
        run.reset();
        EXPECT_EQ(viewer.close(), 0u) << "viewer " << i;
        if (i == 7) deviceEarly = freeDeviceMiB();
    }
    deviceEnd = freeDeviceMiB();
    std::printf("free device memory after 8 viewers %.1f MiB, after 40: %.1f MiB\n", deviceEarly,
                deviceEnd);
    EXPECT_LE(std::abs(deviceEnd - deviceEarly), 16.0) << "device memory leaked";
}

} // namespace
} // namespace estuary::test
