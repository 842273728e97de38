// The fault matrix, CPU/lavapipe side: each fault ends the run with its documented exit code and
// a message naming the cause, in bounded time, freeing what was made (no validation message).
// Faults come from ESTUARY_FAULT (app/fault_injection.h), the environment (missing or unusable
// Vulkan driver, a corrupt shader) or a request that cannot fit in memory.
#include "errors.h"
#include "fault_injection.h"
#include "memory_budget.h"
#include "simulations.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <iterator>

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

namespace estuary {
namespace {

// A failure is bounded when it ends in seconds, not at a 20 s default wait or never; the bound
// leaves room for a loaded machine, and the messages say which bound fired.
constexpr double kBoundedS = 30.0;

struct TimedRun {
    test::ProcessResult result;
    double seconds = 0;
};

// Runs estuary with `environment` set for this run only.
TimedRun runWith(const test::ScopedEnv::Settings& environment, const std::string& args) {
    const test::ScopedEnv scoped(environment);
    const auto start = std::chrono::steady_clock::now();
    TimedRun run{test::runEstuary(args)};
    run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return run;
}

TimedRun runWith(const char* variable, const std::string& value, const std::string& args) {
    return runWith({{variable, value}}, args);
}

const std::string kHeadless = "--headless --backend cpu --validate --frames 60 --size 64x64 "
                              "--resolution 64x64 --frames-in-flight 3 ";

std::string shotIn(const char* name) {
    return "--screenshot '" + (test::scratchDir(name) / "shot.png").string() + "'";
}

void expectCleanFailure(const TimedRun& run, int exitCode, const std::vector<std::string>& says) {
    EXPECT_EQ(run.result.exitCode, exitCode) << run.result.output;
    for (const std::string& text : says)
        EXPECT_NE(run.result.output.find(text), std::string::npos)
            << "the message lacks '" << text << "': " << run.result.output;
    EXPECT_EQ(run.result.output.find("[vulkan error]"), std::string::npos)
        << "the failure left objects behind or misused Vulkan: " << run.result.output;
    EXPECT_LT(run.seconds, kBoundedS) << "not a bounded failure";
}

TEST(FaultPlan, ParsesEveryFaultAndRefusesAnythingElseNamingIt) {
    const FaultPlan plan =
        parseFaultPlan("cuda-fault@12,cuda-stall@3,alloc-fail,device-lost@0,vulkan-stall@7");
    EXPECT_EQ(plan.cudaFault, 12u);
    EXPECT_EQ(plan.vulkanStall, 7u);
    EXPECT_EQ(plan.cudaStall, 3u);
    EXPECT_EQ(plan.deviceLost, 0u);
    EXPECT_TRUE(plan.allocFail);
    EXPECT_FALSE(parseFaultPlan("").allocFail);
    for (const char* bad : {"cuda-fault", "cuda-fault@", "cuda-fault@x", "device-lost@-1",
                            "alloc-fail@3", "explode", "cuda-fault@1,,"}) {
        try {
            parseFaultPlan(bad);
            ADD_FAILURE() << "accepted " << bad;
        } catch (const Error& e) {
            EXPECT_EQ(exitCode(e), ExitCode::Usage) << bad;
            EXPECT_NE(std::string(e.what()).find("known: cuda-fault@N"), std::string::npos)
                << e.what();
        }
    }
}

TEST(AppFaults, AMalformedFaultSwitchIsExit2BeforeAnyWork) {
    const TimedRun run = runWith("ESTUARY_FAULT", "explode", kHeadless + shotIn("fault-bad"));
    EXPECT_EQ(run.result.exitCode, 2) << run.result.output;
    EXPECT_NE(run.result.output.find("'explode' is not a fault"), std::string::npos);
}

TEST(AppFaults, ADeviceLostMidRunIsExit1SayingSoAndFreesEverything) {
    const TimedRun run =
        runWith("ESTUARY_FAULT", "device-lost@25", kHeadless + shotIn("fault-lost"));
    expectCleanFailure(run, 1, {"Vulkan device was lost", "VK_ERROR_DEVICE_LOST"});
}

TEST(AppFaults, AStalledQueueEndsInBoundedTimeNamingTheFrameAndLeavingNoFile) {
    // Frame 20's draw waits for a semaphore nothing signals. On a GPU the frame wait times out
    // (its message names the frame); lavapipe blocks inside vkGetQueryPoolResults, which waits for
    // the whole queue, and the watchdog ends the process naming the frame. Either way: exit 1, in
    // the wait timeout plus the watchdog's slack, with no screenshot and no temporary file left.
    const auto dir = test::scratchDir("fault-vkstall");
    const TimedRun run =
        runWith({{"ESTUARY_FAULT", "vulkan-stall@20"}, {"ESTUARY_WAIT_TIMEOUT_S", "1"}},
                kHeadless + "--screenshot '" + (dir / "shot.png").string() + "'");
    EXPECT_EQ(run.result.exitCode, 1) << run.result.output;
    EXPECT_LT(run.seconds, kBoundedS) << "not a bounded failure";
    const bool waitTimedOut =
        run.result.output.find("timed out after 1.0 s waiting for the GPU to finish frame 2") !=
        std::string::npos;
    const bool watchdog =
        run.result.output.find("has not returned, the GPU may be hung") != std::string::npos &&
        run.result.output.find("frame 2") != std::string::npos;
    EXPECT_TRUE(waitTimedOut || watchdog) << run.result.output;
    EXPECT_TRUE(std::filesystem::is_empty(dir))
        << "left " << std::filesystem::directory_iterator(dir)->path();
}

TEST(AppFaults, AFailedAllocationIsExit3OutOfMemoryAndFreesEverything) {
    const TimedRun run = runWith("ESTUARY_FAULT", "alloc-fail", kHeadless + shotIn("fault-alloc"));
    expectCleanFailure(run, 3, {"out of GPU memory", "--size"});
}

TEST(AppFaults, ARunThatCannotFitIsExit3AtOnceNamingNeedAndBudget) {
    // 16384^2 of Gray-Scott through the CPU backend: ~2.7 GiB of images and as much staging,
    // more than lavapipe's heap (or a GPU's, for the window of this test: the check is generic).
    // Refused before allocating: told by the process's peak memory (the staging alone would be
    // gigabytes of host memory on lavapipe), not by the time it took, which load changes.
    const auto run = test::runEstuaryControlled({"--headless", "--backend", "cpu", "--frames", "2",
                                                 "--size", "16384x16384", "--screenshot",
                                                 (test::scratchDir("fault-fit") / "shot.png")});
    const std::string output = run.out + run.err;
    EXPECT_EQ(run.exitCode, 3) << output;
    for (const char* text : {"16384x16384", "does not fit", "GiB needed", "free"})
        EXPECT_NE(output.find(text), std::string::npos) << text << ": " << output;
    EXPECT_LT(run.maxRssKiB, 1024L * 1024) << "refused only after allocating";
}

TEST(MemoryBudget, EstimatesEveryOutputLevelSlotAndStatePerBackend) {
    const sim::SimDefinition& grayScott = *findSimulation("gray-scott");
    const sim::OutputLayout layout = grayScott.outputs({4, 4, 1});
    // One R32F image 4x4 with its chain: (16 + 4 + 1) texels x 4 bytes = 84 bytes.
    EXPECT_EQ(imageBytes(layout.images[0]), 84u);
    const MemoryNeed cpu = estimateMemory(grayScott, layout, 16, 3, BackendKind::Cpu);
    EXPECT_EQ(cpu.deviceImages, 3u * 84u);
    EXPECT_EQ(cpu.hostVisible, 3u * 84u); // staging per slot
    EXPECT_EQ(cpu.hostMemory, 16u * 16u); // u, v, twice: 16 bytes a cell
    EXPECT_EQ(cpu.cudaMemory, 0u);
    const MemoryNeed cuda = estimateMemory(grayScott, layout, 16, 3, BackendKind::Cuda);
    EXPECT_EQ(cuda.cudaMemory, 16u * 16u + 3u * 84u);
    EXPECT_EQ(cuda.hostVisible, 0u);
    MemoryBudget budget;
    budget.deviceLocal = budget.hostVisible = budget.cuda = budget.host = 1u << 20;
    EXPECT_NO_THROW(checkMemoryBudget(cuda, budget, "small"));
    budget.cuda = 400;
    try {
        checkMemoryBudget(cuda, budget, "gray-scott on a 4x4 grid");
        FAIL() << "a need above the CUDA budget passed";
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Unsupported);
        EXPECT_NE(std::string(e.what()).find("CUDA device memory"), std::string::npos) << e.what();
    }
}

TEST(AppFaults, NoVulkanDriverAtAllIsExit3SayingWhatToInstall) {
    const TimedRun run =
        runWith("VK_ICD_FILENAMES", "/nonexistent/icd.json", kHeadless + shotIn("fault-nodrv"));
    EXPECT_EQ(run.result.exitCode, 3) << run.result.output;
    for (const char* text : {"no Vulkan driver could be loaded", "mesa-vulkan-drivers",
                             "VK_ICD_FILENAMES=/nonexistent/icd.json"})
        EXPECT_NE(run.result.output.find(text), std::string::npos) << text;
}

TEST(AppFaults, ADriverWithoutAUsableDeviceIsExit3) {
    // Mesa's Intel driver is installed with mesa-vulkan-drivers; there is no Intel GPU here.
    const char* intel = "/usr/share/vulkan/icd.d/intel_icd.x86_64.json";
    if (!std::filesystem::exists(intel)) GTEST_SKIP() << intel << " is not installed";
    const TimedRun run = runWith("VK_ICD_FILENAMES", intel, kHeadless + shotIn("fault-nodev"));
    if (run.result.exitCode == 0) GTEST_SKIP() << "this machine has an Intel GPU";
    EXPECT_EQ(run.result.exitCode, 3) << run.result.output;
    EXPECT_NE(run.result.output.find("no usable device"), std::string::npos) << run.result.output;
}

TEST(AppFaults, AMissingValidationLayerIsExit3NamingThePackage) {
    // VK_LAYER_PATH replaces the loader's search paths for explicit layers.
    const TimedRun run =
        runWith("VK_LAYER_PATH", "/nonexistent", kHeadless + shotIn("fault-layer"));
    EXPECT_EQ(run.result.exitCode, 3) << run.result.output;
    for (const char* text :
         {"VK_LAYER_KHRONOS_validation is not installed", "vulkan-validationlayers"})
        EXPECT_NE(run.result.output.find(text), std::string::npos) << text;
}

TEST(AppFaults, ACorruptOrMissingColormapNamesTheFileAndLine) {
    namespace fs = std::filesystem;
    const auto dir = test::scratchDir("fault-colormap");
    fs::copy_file(test::estuaryBinary(), dir / "estuary");
    fs::copy(test::binDir() / "shaders", dir / "shaders", fs::copy_options::recursive);
    fs::copy(test::binDir() / "assets", dir / "assets", fs::copy_options::recursive);
    const fs::path viridis = dir / "assets" / "colormaps" / "viridis.txt";
    std::ofstream(viridis, std::ios::trunc) << "0.1 0.2\n";
    auto run = test::runProgram(dir / "estuary", kHeadless + shotIn("fault-colormap-out"));
    EXPECT_EQ(run.exitCode, 1) << run.output;
    EXPECT_NE(run.output.find(viridis.string() + ":1: expected \"r g b\""), std::string::npos)
        << run.output;
    EXPECT_EQ(run.output.find("[vulkan error]"), std::string::npos) << run.output;
    fs::remove(viridis);
    run = test::runProgram(dir / "estuary", kHeadless + shotIn("fault-colormap-out"));
    EXPECT_EQ(run.exitCode, 1) << run.output;
    EXPECT_NE(run.output.find("cannot open colormap file " + viridis.string()), std::string::npos)
        << run.output;
}

TEST(AppFaults, ACorruptShaderNamesTheFileAndWhatIsWrong) {
    // A copy of the executable with its data beside it, one shader overwritten.
    const auto dir = test::scratchDir("fault-shader");
    namespace fs = std::filesystem;
    fs::copy_file(test::estuaryBinary(), dir / "estuary");
    fs::copy(test::binDir() / "shaders", dir / "shaders", fs::copy_options::recursive);
    fs::copy(test::binDir() / "assets", dir / "assets", fs::copy_options::recursive);
    std::ofstream(dir / "shaders" / "field.frag.spv", std::ios::binary | std::ios::trunc)
        << "this is not a shader";
    const auto run = test::runProgram(dir / "estuary", kHeadless + shotIn("fault-shader-out"));
    EXPECT_EQ(run.exitCode, 1) << run.output;
    EXPECT_NE(run.output.find((dir / "shaders" / "field.frag.spv").string()), std::string::npos)
        << run.output;
    EXPECT_NE(run.output.find("is not SPIR-V"), std::string::npos) << run.output;
}

// A damaged data folder (ESTUARY_DATA_DIR): a shader that is a folder, a colormap that is a FIFO,
// a shader whose words after the header are scrambled. Each ends at once naming the file and what
// is wrong with it; before, the folder was read as a shader of 2^64 bytes ("out of host memory;
// try a smaller --size"), the FIFO blocked the start until the watchdog blamed the GPU, and the
// scrambled shader reached the driver (the pipeline failure named both shaders; under the
// validation layer lavapipe hung).
TEST(AppFaults, ADamagedDataFolderIsNamedNotBlamedOnMemoryOrTheGpu) {
    namespace fs = std::filesystem;
    enum class Kind { Folder, Fifo, Scrambled };
    struct Damage {
        const char* file;
        Kind kind;
        const char* says;
    };
    for (const Damage& damage :
         {Damage{"shaders/field.frag.spv", Kind::Folder, "field.frag.spv"},
          Damage{"assets/colormaps/viridis.txt", Kind::Fifo, "is a FIFO"},
          Damage{"shaders/field.frag.spv", Kind::Scrambled, "field.frag.spv is damaged"}}) {
        SCOPED_TRACE(damage.file);
        const auto data = test::scratchDir("damaged-data");
        fs::copy(test::binDir() / "shaders", data / "shaders", fs::copy_options::recursive);
        fs::copy(test::binDir() / "assets", data / "assets", fs::copy_options::recursive);
        if (damage.kind == Kind::Scrambled) {
            // The header kept (magic and all), every word after it changed: a damaged file that
            // still looks like SPIR-V. Under the validation layer lavapipe hung on it.
            std::fstream file(data / damage.file, std::ios::in | std::ios::out | std::ios::binary);
            std::vector<char> bytes((std::istreambuf_iterator<char>(file)), {});
            for (size_t i = 40; i < bytes.size(); ++i)
                bytes[i] = char(bytes[i] * 7 + 3);
            file.seekp(0);
            file.write(bytes.data(), std::streamsize(bytes.size()));
        } else {
            fs::remove(data / damage.file);
            if (damage.kind == Kind::Fifo)
                ASSERT_EQ(mkfifo((data / damage.file).c_str(), 0600), 0);
            else
                fs::create_directory(data / damage.file);
        }
        test::RunControl control;
        control.env = {{"ESTUARY_DATA_DIR", data.string()}};
        control.timeout = std::chrono::seconds(60);
        const auto r = test::runEstuaryControlled(
            {"--headless", "--backend", "cpu", "--frames", "2", "--size", "8x8", "--validate"},
            control);
        EXPECT_FALSE(r.timedOut);
        EXPECT_LT(r.seconds, kBoundedS);
        EXPECT_NE(r.exitCode, 0);
        EXPECT_NE(r.err.find(damage.says), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("memory"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("GPU"), std::string::npos) << r.err;
    }
}

// A machine without a usable Vulkan driver is an unsupported environment (exit 3) saying so: a
// window no longer blames the display when there is no driver at all, and a malformed driver
// manifest is no longer exit 1 "out of host memory".
TEST(AppFaults, NoOrABrokenVulkanDriverIsExit3SayingSo) {
    const auto dir = test::scratchDir("broken-driver");
    {
        std::ofstream bad(dir / "bad.json");
        bad << "{ \"file_format_version\": ";
    }
    test::RunControl control;
    control.timeout = std::chrono::seconds(60);
    control.env = {{"VK_DRIVER_FILES", (dir / "bad.json").string()}};
    const auto broken = test::runEstuaryControlled(
        {"--headless", "--backend", "cpu", "--frames", "1", "--size", "8x8"}, control);
    EXPECT_EQ(broken.exitCode, 3) << broken.err;
    EXPECT_NE(broken.err.find("malformed"), std::string::npos) << broken.err;
    EXPECT_NE(broken.err.find("bad.json"), std::string::npos) << broken.err;

    control.env = {{"VK_DRIVER_FILES", (dir / "missing.json").string()}};
    const auto headless = test::runEstuaryControlled(
        {"--headless", "--backend", "cpu", "--frames", "1", "--size", "8x8"}, control);
    EXPECT_EQ(headless.exitCode, 3) << headless.err;
    EXPECT_NE(headless.err.find("no Vulkan driver"), std::string::npos) << headless.err;
    const char* display = std::getenv("DISPLAY");
    if (!display || !*display)
        GTEST_SKIP() << "no display for the window case (run under xvfb-run)";
    const auto window =
        test::runEstuaryControlled({"--backend", "cpu", "--frames", "1", "--size", "8x8"}, control);
    EXPECT_EQ(window.exitCode, 3) << window.err;
    EXPECT_NE(window.err.find("no Vulkan driver"), std::string::npos) << window.err;
    EXPECT_EQ(window.err.find("display"), std::string::npos) << window.err;
}

} // namespace
} // namespace estuary
