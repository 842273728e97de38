// Recording on a real GPU: `estuary --record` over CUDA frames, the pictures read by the encoder's
// thread from the picture tap's host-cached memory (picture_tap.h), under validation. The file
// holds every frame, and its last frame is the run's last picture (the screenshot). Skips, saying
// why, where the video module or FFmpeg's libraries do not load (the bundle carries them:
// scripts/gpu-ffmpeg.sh).
#include "estuary/interop/cuda_devices.h"
#include "stamped_run.h"
#include "test_support.h"
#include "video_module_beside.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace estuary::test {
namespace {

struct Decoded {
    uint32_t width = 0, height = 0;
    long frames = 0;
    std::vector<uint8_t> last; // RGBA
};

TEST(AppGpuRecord, EveryCudaFrameIsRecordedAndTheLastOneIsTheRunsLastPicture) {
    const auto cuda = interop::listCudaDevices();
    if (cuda.devices.empty()) GTEST_SKIP() << "no NVIDIA GPU usable by CUDA here: " << cuda.problem;
    std::string why;
    const EstuaryVideoApi* api = videoModuleBeside(why);
    if (!api) GTEST_SKIP() << "no video module with FFmpeg here: " << why;

    const auto dir = scratchDir("app-gpu-record");
    const auto clip = dir / "clip.mp4";
    const auto shot = dir / "last.png";
    constexpr int kFrames = 120;
    const auto run = runEstuary("--sim gray-scott --backend cuda --headless --validate --frames " +
                                std::to_string(kFrames) +
                                " --size 512x512 --resolution 640x360 --record-encoder libx264 "
                                "--record-quality 10 --record '" +
                                clip.string() + "' --screenshot '" + shot.string() + "'");
    std::printf("%s\n", run.output.c_str());
    ASSERT_EQ(run.exitCode, 0) << run.output;
    EXPECT_NE(run.output.find("reported 0 message"), std::string::npos) << "validation messages";
    EXPECT_NE(run.output.find("recorded " + std::to_string(kFrames) + " frames"),
              std::string::npos);

    Decoded d;
    char error[512] = {};
    d.frames = api->decode(
        clip.c_str(),
        [](void* user, const uint8_t* rgba, uint32_t w, uint32_t h) {
            auto& out = *static_cast<Decoded*>(user);
            out.width = w;
            out.height = h;
            out.last.assign(rgba, rgba + size_t(w) * h * 4);
        },
        &d, error, sizeof(error));
    ASSERT_EQ(d.frames, kFrames) << error;
    ASSERT_EQ(d.width, 640u);
    ASSERT_EQ(d.height, 360u);
    const Rgba8Image last = loadPng(shot);
    ASSERT_EQ(last.width, 640);
    double sum = 0;
    for (size_t p = 0; p < last.pixels.size(); p += 4)
        for (int c = 0; c < 3; ++c)
            sum += std::abs(int(last.pixels[p + c]) - int(d.last[p + c]));
    const double mean = sum / (double(last.pixels.size()) / 4 * 3);
    std::printf("the file's last frame against the run's last picture: mean channel error %.2f\n",
                mean);
    // 4:2:0 at CRF 10 keeps the mean error of gray-scott's picture near 2 (2.11 on lavapipe with
    // the CPU backend); a picture from early in the run, or memory the GPU's copy had not reached
    // when the encoder read it, differs far more.
    EXPECT_LT(mean, 4.0);
    std::filesystem::remove_all(dir);
}

} // namespace
} // namespace estuary::test
