// Shared test helpers: a Vulkan fixture with the validation layer on (any message fails the test),
// image comparison with a stated tolerance, PNG loading, and running the estuary binary.
#pragma once

#include "context.h"
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

// The whole file as bytes ("" where it cannot be read).
std::string readFile(const std::filesystem::path& path);
// The names in `dir`, sorted.
std::vector<std::string> listFolder(const std::filesystem::path& dir);

// Whether the suite runs under compute-sanitizer (run-gpu-suite.sh sets ESTUARY_SANITIZER=1):
// instrumented kernels are 10-100x slower, so the longest step counts are cut, keeping every
// kernel and every code path but not the length of the runs.
bool underSanitizer();
// Under the sanitizer, how many times fewer steps the long runs take: 10, or
// $ESTUARY_SANITIZER_STEP_DIVISOR (run-gpu-suite.sh gives racecheck and synccheck 100: a hazard
// shows in a kernel's first launches).
int sanitizerStepDivisor();
// `normal` steps, or that divided by sanitizerStepDivisor() (at least 1) under the sanitizer.
inline int sanitizerSteps(int normal) {
    if (!underSanitizer()) return normal;
    const int divisor = sanitizerStepDivisor();
    return (normal + divisor - 1) / divisor;
}

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

// The same frames drawn by the OpenGL consumer and by the Vulkan renderer, through two APIs'
// samplers: the rendering tests' golden tolerance (2/255 on all but 0.1% of pixels, none off by
// more than 16). Prints the difference under `what`.
void expectSamePictureInBothApis(const std::vector<uint8_t>& gl, const std::vector<uint8_t>& vk,
                                 const std::string& what);

// One cloud of points drawn by the compute splat and by the raster path (points.h): pixels whose
// channels differ by more than 2/255 at most `farShare` of the picture, and the light of the whole
// picture (sum of channels) the same within `lightShare`. The bounds are the callers', by device:
// on lavapipe square points differ only by per-point rounding (share 0), discs also where a pixel
// centre lies on the rim; on NVIDIA more pixels differ, by edge and rounding choices of its
// rasterizer and blender that the splat does not model. Prints the difference.
void expectSplatDrawsTheRasterPicture(const std::vector<uint8_t>& raster,
                                      const std::vector<uint8_t>& splat, double farShare,
                                      double lightShare, const std::string& what);

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
    int signalCopies = 1;                       // how many times the signal is sent
    std::chrono::milliseconds signalGap{0};     // between the copies (0: back to back)
    std::chrono::milliseconds timeout{120'000}; // then SIGKILL
    long fileSizeLimit = -1; // bytes, RLIMIT_FSIZE of the child (ulimit -f); -1: inherited
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

// Runs example `name` (bin/example_NAME, built beside the tests) as the test suite runs samples:
// ESTUARY_VALIDATION=1, ESTUARY_FRAMES=`frames`, its last frame written to a PNG in a scratch
// folder. Returns the run and, where it exited 0, the picture (empty otherwise).
struct ExampleRun {
    ProcessResult result;
    Rgba8Image picture;
};
ExampleRun runExample(const std::string& name, uint32_t frames);
// Pixels of the picture that differ from the viewer's background by more than 8 in a channel.
double fractionNotBackground(const Rgba8Image& image);

// The Python interpreter that has Debian's matplotlib (/usr/bin/python3 where it exists).
std::string python();
// Validates a --bench JSON report with Python's json module: every documented key, ordered
// percentiles, positive times, `frames` measured per mode. Returns "ok\n" or the problems.
std::string checkBenchReport(const std::filesystem::path& json, uint32_t frames);

} // namespace estuary::test
