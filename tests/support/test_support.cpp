#include "test_support.h"
#include "vk_check.h"

#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include <algorithm>
#include <array>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <cstdio>
#include <optional>
#include <poll.h>
#include <set>
#include <sstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace estuary::test {

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> listFolder(const std::filesystem::path& dir) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::filesystem::path binDir() {
    return std::filesystem::read_symlink("/proc/self/exe").parent_path();
}

std::filesystem::path estuaryBinary() {
    return binDir() / "estuary";
}

namespace {

void applyEnv(const ScopedEnv::Settings& settings) {
    for (const auto& [name, value] : settings)
        if (value)
            setenv(name.c_str(), value->c_str(), 1);
        else
            unsetenv(name.c_str());
}

} // namespace

ScopedEnv::ScopedEnv(const Settings& settings) {
    for (const auto& [name, value] : settings) {
        const char* old = std::getenv(name.c_str());
        saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
    }
    applyEnv(settings);
}

ScopedEnv::~ScopedEnv() {
    applyEnv(saved_);
}

std::filesystem::path scratchDir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() /
               ("estuary-test-" + std::to_string(getpid())) / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

DeviceDesc VulkanTest::makeDeviceDesc(VkInstance vkInstance) {
    DeviceDesc desc;
    desc.physical = pickDefaultPhysicalDevice(vkInstance).handle;
    return desc;
}

void VulkanTest::SetUp() {
    InstanceDesc desc;
    desc.validation = true;
    instance = createInstance(desc);
    device = createDevice(instance, makeDeviceDesc(instance.handle));
    pool = createCommandPool(device, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, "test pool");
}

void VulkanTest::TearDown() {
    if (device.handle) {
        vkDeviceWaitIdle(device.handle);
        vkDestroyCommandPool(device.handle, pool, nullptr);
        destroyDevice(device);
    }
    const uint32_t messages = validationMessageCount(instance);
    destroyInstance(instance);
    EXPECT_EQ(messages, 0u) << "the validation layer reported messages (printed above)";
}

ImageDiff compareRgba8(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                       int perChannelTolerance) {
    ImageDiff diff;
    if (a.size() != b.size() || a.size() % 4 != 0) {
        diff.maxAbsDiff = 255;
        diff.failingFraction = 1.0;
        return diff;
    }
    size_t failing = 0;
    for (size_t p = 0; p < a.size(); p += 4) {
        bool fails = false;
        for (size_t c = 0; c < 4; ++c) {
            const int d = std::abs(int(a[p + c]) - int(b[p + c]));
            diff.maxAbsDiff = std::max(diff.maxAbsDiff, d);
            fails |= d > perChannelTolerance;
        }
        failing += fails;
    }
    diff.failingFraction = a.empty() ? 0.0 : double(failing) / double(a.size() / 4);
    return diff;
}

void expectSamePictureInBothApis(const std::vector<uint8_t>& gl, const std::vector<uint8_t>& vk,
                                 const std::string& what) {
    const ImageDiff diff = compareRgba8(gl, vk, 2);
    std::printf("%s: OpenGL vs Vulkan: max diff %d, failing fraction %g\n", what.c_str(),
                diff.maxAbsDiff, diff.failingFraction);
    EXPECT_LE(diff.failingFraction, 0.001) << what;
    EXPECT_LE(diff.maxAbsDiff, 16) << what;
}

void expectSplatDrawsTheRasterPicture(const std::vector<uint8_t>& raster,
                                      const std::vector<uint8_t>& splat, double farShare,
                                      double lightShare, const std::string& what) {
    ASSERT_EQ(raster.size(), splat.size()) << what;
    const ImageDiff diff = compareRgba8(raster, splat, 2);
    double rasterLight = 0.0, splatLight = 0.0;
    for (size_t p = 0; p < raster.size(); p += 4)
        for (size_t c = 0; c < 3; ++c) {
            rasterLight += raster[p + c];
            splatLight += splat[p + c];
        }
    std::printf("%s: splat vs raster: max diff %d, share off by > 2: %g, light %.0f vs %.0f\n",
                what.c_str(), diff.maxAbsDiff, diff.failingFraction, splatLight, rasterLight);
    EXPECT_LE(diff.failingFraction, farShare) << what;
    EXPECT_NEAR(splatLight, rasterLight, lightShare * rasterLight) << what;
}

Rgba8Image loadPng(const std::filesystem::path& path) {
    Rgba8Image image;
    int channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &image.width, &image.height, &channels, 4);
    if (!data)
        throw runtimeError("cannot read PNG " + path.string() + ": " + stbi_failure_reason());
    image.pixels.assign(data, data + size_t(image.width) * size_t(image.height) * 4);
    stbi_image_free(data);
    return image;
}

size_t countDistinctColors(const Rgba8Image& image, size_t cap) {
    std::set<uint32_t> colors;
    for (size_t p = 0; p + 3 < image.pixels.size() && colors.size() < cap; p += 4)
        colors.insert(uint32_t(image.pixels[p]) | uint32_t(image.pixels[p + 1]) << 8 |
                      uint32_t(image.pixels[p + 2]) << 16 | uint32_t(image.pixels[p + 3]) << 24);
    return colors.size();
}

ProcessResult runEstuary(const std::string& args) {
    return runProgram(estuaryBinary(), args);
}

ProcessResult runProgram(const std::filesystem::path& program, const std::string& args) {
    ProcessResult result;
    const std::string command = "'" + program.string() + "' " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw runtimeError("popen failed for: " + command);
    std::array<char, 4096> buffer{};
    size_t n = 0;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
        result.output.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

ExampleRun runExample(const std::string& name, uint32_t frames) {
    const auto shot = scratchDir("example-" + name) / (name + ".png");
    const ScopedEnv env({{"ESTUARY_VALIDATION", "1"},
                         {"ESTUARY_FRAMES", std::to_string(frames)},
                         {"ESTUARY_SCREENSHOT", shot.string()},
                         {"DISPLAY", std::nullopt},
                         {"WAYLAND_DISPLAY", std::nullopt}});
    ExampleRun run;
    run.result = runProgram(binDir() / ("example_" + name), "");
    if (run.result.exitCode == 0) run.picture = loadPng(shot);
    return run;
}

double fractionNotBackground(const Rgba8Image& image) {
    const int background[3] = {20, 20, 26}; // ESTUARY_BACKGROUND_COLOR as 8-bit
    size_t differ = 0;
    for (size_t i = 0; i + 3 < image.pixels.size(); i += 4) {
        bool other = false;
        for (int c = 0; c < 3; ++c)
            other = other || std::abs(int(image.pixels[i + size_t(c)]) - background[c]) > 8;
        differ += other;
    }
    return image.pixels.empty() ? 0.0 : double(differ) / double(image.pixels.size() / 4);
}

ControlledRun runEstuaryControlled(const std::vector<std::string>& args,
                                   const RunControl& control) {
    // Everything the child needs is built before fork: between fork and exec only
    // async-signal-safe calls.
    const std::string binary = estuaryBinary().string();
    std::vector<std::string> argStrings{binary};
    argStrings.insert(argStrings.end(), args.begin(), args.end());
    std::vector<std::string> envStrings;
    for (char** e = environ; *e; ++e) {
        const std::string entry = *e;
        bool replaced = false;
        for (const auto& [name, value] : control.env)
            replaced = replaced || entry.rfind(name + "=", 0) == 0;
        if (!replaced) envStrings.push_back(entry);
    }
    for (const auto& [name, value] : control.env)
        envStrings.push_back(name + "=" + value);
    std::vector<char*> argv, envp;
    for (std::string& a : argStrings)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : envStrings)
        envp.push_back(e.data());
    envp.push_back(nullptr);

    int outPipe[2], errPipe[2];
    if (pipe2(outPipe, O_CLOEXEC) != 0 || pipe2(errPipe, O_CLOEXEC) != 0)
        throw runtimeError("pipe2 failed");
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const pid_t pid = fork();
    if (pid < 0) throw runtimeError("fork failed");
    if (pid == 0) {
        dup2(outPipe[1], STDOUT_FILENO);
        dup2(errPipe[1], STDERR_FILENO);
        if (control.fileSizeLimit >= 0) {
            const rlimit limit{rlim_t(control.fileSizeLimit), rlim_t(control.fileSizeLimit)};
            if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(126);
        }
        execve(argv[0], argv.data(), envp.data());
        _exit(127);
    }
    close(outPipe[1]);
    close(errPipe[1]);

    ControlledRun run;
    std::optional<Clock::time_point> seen, signalledAt;
    int sent = 0;
    if (control.signalWhen.empty()) seen = start;
    pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
    std::string* texts[2] = {&run.out, &run.err};
    int open = 2;
    while (open > 0) {
        const auto now = Clock::now();
        if (!run.timedOut && now - start > control.timeout) {
            kill(pid, SIGKILL);
            run.timedOut = true;
        }
        if (!seen && (run.out.find(control.signalWhen) != std::string::npos ||
                      run.err.find(control.signalWhen) != std::string::npos))
            seen = now;
        if (control.signal && seen && !signalledAt && now - *seen >= control.signalDelay) {
            kill(pid, control.signal);
            signalledAt = now;
            run.signalled = true;
            sent = 1;
        }
        // Further copies, as `timeout` (the process, then its group) or a second Ctrl-C send them.
        while (signalledAt && sent < control.signalCopies &&
               Clock::now() - *signalledAt >= sent * control.signalGap) {
            kill(pid, control.signal);
            ++sent;
        }
        if (poll(fds, 2, 10) < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buffer[4096];
            const ssize_t n = read(fds[i].fd, buffer, sizeof(buffer));
            if (n > 0) {
                texts[i]->append(buffer, size_t(n));
            } else if (n == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                --open;
            }
        }
    }
    int status = 0;
    rusage usage{};
    wait4(pid, &status, 0, &usage);
    const auto end = Clock::now();
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.seconds = std::chrono::duration<double>(end - start).count();
    if (signalledAt)
        run.secondsAfterSignal = std::chrono::duration<double>(end - *signalledAt).count();
    run.maxRssKiB = usage.ru_maxrss;
    return run;
}

bool underSanitizer() {
    const char* flag = std::getenv("ESTUARY_SANITIZER");
    return flag && std::string(flag) == "1";
}

int sanitizerStepDivisor() {
    const char* text = std::getenv("ESTUARY_SANITIZER_STEP_DIVISOR");
    const int divisor = text ? std::atoi(text) : 0;
    return divisor >= 1 ? divisor : 10;
}

std::string python() {
    return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
}

// Checks the report with Python's json module against bench_report.h's schema: every key of every
// section, the values that must be known for the backend that ran, ordered percentiles, positive
// times, `frames` measured per mode, and ratios and targets recomputed from the modes' own numbers.
// Prints "ok" or what is wrong.
constexpr const char* kCheckReport = R"PY(
import json, math, re, sys
r = json.load(open(sys.argv[1]))
frames = int(sys.argv[2])
problems = []
def need(ok, what):
    if not ok: problems.append(what)
def number(v): return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
def close(a, b): return number(a) and number(b) and abs(a - b) <= 1e-6 * max(1.0, abs(b))
for key in ("schema_version", "interrupted", "environment", "configuration", "modes", "ratios", "targets"):
    need(key in r, "missing " + key)
need(r.get("schema_version") == 8, "schema_version %s" % r.get("schema_version"))
need(r.get("interrupted") is False, "interrupted %r for a run that ran every frame" % r.get("interrupted"))
env = r["environment"]
always = ("gpu_name", "gpu_uuid", "driver_version", "vulkan_api_version", "vulkan_driver",
          "backend", "git_revision", "build_type", "host_name", "date")
cuda_only_strings = ("cuda_runtime_version", "cuda_driver_version")
cuda_only_numbers = ("sm_count", "memory_clock_mhz", "memory_bus_width_bits", "peak_bandwidth_GBps")
need(len(env) == 16, "environment has %d keys, not 16: %s" % (len(env), sorted(env)))
for key in always:
    need(isinstance(env.get(key), str) and env[key] != "", "environment." + key + " " + repr(env.get(key)))
need(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", env.get("date") or "") is not None, "date format")
need(env.get("backend") in ("cuda", "cpu"), "backend " + repr(env.get("backend")))
cuda = env.get("backend") == "cuda"
for key in cuda_only_strings:
    ok = (isinstance(env.get(key), str) and env[key] != "") if cuda else env.get(key, 0) is None
    need(key in env and ok, "environment.%s %r for backend %s" % (key, env.get(key), env.get("backend")))
for key in cuda_only_numbers:
    ok = (number(env.get(key)) and env[key] > 0) if cuda else env.get(key, 0) is None
    need(key in env and ok, "environment.%s %r for backend %s" % (key, env.get(key), env.get("backend")))
conf = r["configuration"]
for key in ("simulation", "width", "height", "depth", "particles", "steps_per_frame",
            "frames_in_flight", "warmup", "frames", "modes", "seed", "consumer", "output_width",
            "output_height", "draw", "cuda_graphs", "fps_cap"):
    need(key in conf, "configuration lacks " + key)
need(conf.get("consumer") in ("vulkan", "opengl"), "consumer %r" % conf.get("consumer"))
need(conf.get("frames") == frames, "configuration.frames %s" % conf.get("frames"))
names = [m["mode"] for m in r["modes"]]
need(names == conf.get("modes", "").split(","), "modes %s vs configuration %s" % (names, conf.get("modes")))
need(names == ["pipelined", "serialized", "host-copy"], "modes " + str(names))
for m in r["modes"]:
    need(m.get("handoff") in ("timeline", "binary", "host", "staging"),
         "mode %s handoff %r" % (m.get("mode"), m.get("handoff")))
order = ["min", "p50", "p90", "p95", "p99", "p99_9", "max"]
fps = {}
for m in r["modes"]:
    ft = m["frame_time_ms"]
    for key in order + ["mean", "stddev", "cov"]:
        need(number(ft.get(key)), m["mode"] + " frame_time_ms." + key)
    values = [ft[k] for k in order]
    need(values == sorted(values), m["mode"] + " percentiles not ordered " + str(values))
    need(ft["min"] > 0, m["mode"] + " non-positive frame time")
    for key in ("fps_mean", "one_percent_low_fps", "hitches", "gpu_segments_ms",
                "gpu_busy_ms_per_frame", "throughput", "cpu_frame_time_ms", "handoff_latency_ms",
                "handoff_alignment_error_us", "host_busy_us"):
        need(key in m, m["mode"] + " lacks " + key)
    busy = m.get("host_busy_us", {})
    need(all(number(busy.get(k)) and busy[k] > 0  # both consumers time the host's part
             for k in ("mean", "min", "p50", "p90", "p99", "max")),
         m["mode"] + " host_busy_us %r" % busy)
    handoff = m.get("handoff_latency_ms", {})
    interop = cuda and m["mode"] != "host-copy" and conf.get("consumer") == "vulkan"
    need(all(number(handoff.get(k)) if interop else handoff.get(k, 0) is None
             for k in ("mean", "min", "p50", "p90", "p99", "max")),
         m["mode"] + " handoff_latency_ms %r" % handoff)
    for seg in ("simulation", "render", "interop_wait"):
        need(seg in m["gpu_segments_ms"], m["mode"] + " lacks segment " + seg)
    need(m["frames_measured"] == frames, m["mode"] + " measured %s frames" % m["frames_measured"])
    t = m["throughput"]
    need(number(t["cell_updates_per_s"]) and t["cell_updates_per_s"] > 0, m["mode"] + " throughput")
    for key in ("particles_per_frame", "particle_steps_per_s", "bytes_per_particle_step",
                "output_bytes_per_frame", "host_bytes_per_frame"):
        need(number(t.get(key)) and t[key] >= 0, m["mode"] + " throughput." + key)
    need(t["output_bytes_per_frame"] > 0, m["mode"] + " output_bytes_per_frame")
    need(t["particles_per_frame"] <= conf.get("particles", 0), m["mode"] + " particles_per_frame")
    through_host = (0 if m["mode"] != "host-copy" else 2) if cuda else 1
    need(close(t["host_bytes_per_frame"], through_host * t["output_bytes_per_frame"]),
         m["mode"] + " host_bytes_per_frame %r" % t["host_bytes_per_frame"])
    need(number(m["fps_mean"]) and m["fps_mean"] > 0, m["mode"] + " fps_mean")
    fps[m["mode"].replace("-", "_")] = m["fps_mean"]
    e = m.get("energy", {})
    need(isinstance(e.get("source"), str) and e["source"] != "", m["mode"] + " energy.source %r" % e.get("source"))
    # On an NVIDIA GPU NVML's counter is read (the whole board: 20..2000 W); elsewhere it says why not.
    measured = e.get("joules") is not None
    need(measured or not cuda or "did not advance" in e.get("source", ""),
         m["mode"] + " energy not measured on the CUDA backend: %r" % e.get("source"))
    if measured:
        need(number(e["joules"]) and e["joules"] > 0, m["mode"] + " energy.joules %r" % e["joules"])
        need(close(e.get("watts_mean"), e["joules"] / m["wall_seconds"]) and 20 <= e["watts_mean"] <= 2000,
             m["mode"] + " energy.watts_mean %r" % e.get("watts_mean"))
        need(close(e.get("joules_per_frame"), e["joules"] / frames), m["mode"] + " energy.joules_per_frame")
    else:
        need(e.get("watts_mean") is None and e.get("joules_per_frame") is None, m["mode"] + " energy %r" % e)
keys = list(fps)
expected = ["%s_vs_%s_fps" % (a, b) for i, a in enumerate(keys) for b in keys[i + 1:]]
need(list(r["ratios"]) == expected, "ratios keys %s, expected %s" % (list(r["ratios"]), expected))
for key in expected:
    a, b = key[:-4].split("_vs_")
    need(close(r["ratios"].get(key), fps[a] / fps[b]), "ratio %s = %s, fps say %s" % (key, r["ratios"].get(key), fps[a] / fps[b]))
t = r["targets"]
pipelined = r["modes"][0]
busy = pipelined["gpu_busy_ms_per_frame"]["mean"]
need(number(t.get("pipelined_frame_over_gpu_busy")) and number(busy) and
     close(t["pipelined_frame_over_gpu_busy"], pipelined["frame_time_ms"]["mean"] / busy),
     "targets.pipelined_frame_over_gpu_busy %s" % t.get("pipelined_frame_over_gpu_busy"))
need(isinstance(t.get("pipelined_frame_over_gpu_busy_definition"), str), "target definition")
for m in r["modes"]:
    key = m["mode"].replace("-", "_")
    ft = m["frame_time_ms"]
    need(close(t["p99_over_p50"].get(key), ft["p99"] / ft["p50"]), "targets.p99_over_p50." + key)
print("ok" if not problems else "\n".join(problems))
)PY";

std::string checkBenchReport(const std::filesystem::path& json, uint32_t frames) {
    const auto script = std::filesystem::temp_directory_path() /
                        ("estuary-check-report-" + std::to_string(getpid()) + ".py");
    std::ofstream(script) << kCheckReport;
    const std::string command = python() + " '" + script.string() + "' '" + json.string() + "' " +
                                std::to_string(frames) + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) return "popen failed";
    std::string verdict;
    char buffer[512];
    while (fgets(buffer, sizeof(buffer), pipe))
        verdict += buffer;
    pclose(pipe);
    std::filesystem::remove(script);
    return verdict;
}

} // namespace estuary::test
