// Shared test helpers: a Vulkan fixture with the validation layer on (any message fails the test),
// image comparison with a stated tolerance, PNG loading, and running the estuary binary.
#pragma once

#include "context.h"
#include "options.h"
#include "simulation.h"
#include "resources.h"

#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace estuary::test {

// The folder holding the running test binary; shaders/ and assets/ sit beside it, as does estuary.
std::filesystem::path binDir();
std::filesystem::path estuaryBinary();
// A fresh, empty folder for this test's output files.
std::filesystem::path scratchDir(const std::string& name);

// Sets (a value) or removes (nullopt) environment variables of this process while alive, for the
// code under test and the children it starts, then puts back what was there.
class ScopedEnv {
  public:
    using Settings = std::vector<std::pair<std::string, std::optional<std::string>>>;
    explicit ScopedEnv(const Settings& settings);
    ~ScopedEnv();
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    Settings saved_;
};

// Instance with validation, a device on `physical` (default: the best Vulkan 1.3 device), a command
// pool. TearDown waits for the device and fails the test if the layer reported anything.
class VulkanTest : public ::testing::Test {
  protected:
    void SetUp() override;
    void TearDown() override;
    // Override to pick the device and extensions (the GPU tests use the CUDA-matched one).
    virtual DeviceDesc makeDeviceDesc(VkInstance instance);

    Instance instance;
    Device device;
    VkCommandPool pool = VK_NULL_HANDLE;
};

struct ImageDiff {
    int maxAbsDiff = 0;         // largest per-channel difference, 0..255
    double failingFraction = 0; // fraction of pixels with any channel differing by > tolerance
};

ImageDiff compareRgba8(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                       int perChannelTolerance);

struct Rgba8Image {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> pixels;
};
Rgba8Image loadPng(const std::filesystem::path& path); // throws when unreadable
// Distinct RGBA colours in the image, capped at `cap` (to tell a real picture from a flat one).
size_t countDistinctColors(const Rgba8Image& image, size_t cap = 1024);

struct ProcessResult {
    int exitCode = -1;
    std::string output; // stdout and stderr together
};
// Runs estuary with the given arguments (a shell-quoted string), capturing its output.
ProcessResult runEstuary(const std::string& args);
// The same for another executable (e.g. a copy of estuary with altered data beside it).
ProcessResult runProgram(const std::filesystem::path& program, const std::string& args);

// How runEstuaryControlled runs estuary: extra environment, a signal sent once the output shows
// the run got somewhere, and a time limit after which it is killed.
struct RunControl {
    std::vector<std::pair<std::string, std::string>> env; // set (or replaced) in the child only
    int signal = 0;         // sent once `signalWhen` appears in stdout or stderr (0: none)
    std::string signalWhen; // empty: at once
    std::chrono::milliseconds signalDelay{0};   // after signalWhen appeared
    std::chrono::milliseconds timeout{120'000}; // then SIGKILL
};
struct ControlledRun {
    int exitCode = -1;              // 128 + N when ended by signal N
    std::string out, err;           // stdout and stderr, apart
    bool timedOut = false;          // killed at the time limit
    bool signalled = false;         // control.signal was sent
    double secondsAfterSignal = -1; // from the signal to the exit
    double seconds = 0;             // from start to exit
    long maxRssKiB = 0;             // the child's peak resident memory
};
// Runs estuary (no shell: each argument as given) with stdout and stderr captured apart.
ControlledRun runEstuaryControlled(const std::vector<std::string>& args,
                                   const RunControl& control = {});

// The Python interpreter that has Debian's matplotlib (/usr/bin/python3 where it exists).
std::string python();
// Validates a --bench JSON report with Python's json module: every documented key, ordered
// percentiles, positive times, `frames` measured per mode. Returns "ok\n" or the problems.
std::string checkBenchReport(const std::filesystem::path& json, uint32_t frames);

struct StampedRun {
    // Per frame: channel 0 of texel (0,0) of the displayed image's level 0, read in the draw's own
    // submission just before the draw and again just after it (before the outputs go back to the
    // simulation).
    std::vector<float> seenBefore, seenAfter;
    // Per frame, read before the draw, for simulations with more outputs (counter_simulation.h):
    // the displayed image's texel (1,1) of level 0 and of its last level, image 1's texel (1,1) of
    // level 0 and of its last level, and the first four words of buffer 0. Empty where absent.
    std::vector<std::array<float, 4>> displayTexel, displayLastLevel;
    std::vector<std::array<float, 4>> secondTexel, secondLastLevel;
    std::vector<std::array<uint32_t, 4>> bufferWords;
    // Per frame, for simulations with buffers: the last 16 bytes of buffer 0 as floats, read before
    // the draw and after it; the last holds the buffer's frame stamp.
    std::vector<std::array<float, 4>> bufferTailBefore, bufferTailAfter;
    uint32_t validationMessages = 0;
    // Frames where any stamp reading (the displayed image's, before and after the draw, and buffer
    // 0's, where there is one) is not the frame's own index.
    uint32_t wrongFrames() const;
    // For the counter simulation (counter_simulation.h): frames where any output read is not what
    // that simulation writes after (frame + 1) * stepsPerFrame steps.
    uint32_t wrongOutputs(uint64_t stepsPerFrame) const;
};
// Opens a session (validation on) whose backend stamps each frame's index into its displayed
// image, draws `frames` frames with the options' frames in flight, and records what each draw
// sees of its outputs, before and after drawing. A synchronization bug — the draw reading an older
// or newer frame, or the simulation overwriting the slot while it is drawn — shows as a wrong
// frame. `simulation` replaces the options' simulation; `hostCopy` picks the host-copy backend
// where the options pick CUDA.
StampedRun runStampedFrames(const Options& options, uint32_t frames,
                            const sim::SimDefinition* simulation = nullptr, bool hostCopy = false);
// The same drawn by the OpenGL consumer (options.consumer is set to it; options.glHandoff as
// given): each draw's texel (0,0) of level 0 is read by OpenGL, after the hand-off in (before the
// draw) and after the draw, before the hand-off out. validationMessages counts the validation
// layer's messages and OpenGL's debug-output errors. Fills seenBefore and seenAfter only.
StampedRun runStampedFramesGl(const Options& options, uint32_t frames);

} // namespace estuary::test
