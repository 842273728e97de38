#include "test_support.h"
#include "half_float.h"
#include "counter_simulation.h"
#include "vk_check.h"
#include "frame.h"
#include "gl_field.h"
#include "offscreen.h"
#include "session.h"

#define STB_IMAGE_IMPLEMENTATION
#include <epoxy/gl.h>
#include <stb_image.h>

#include <array>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <cstdio>
#include <optional>
#include <poll.h>
#include <set>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace estuary::test {

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
        execve(argv[0], argv.data(), envp.data());
        _exit(127);
    }
    close(outPipe[1]);
    close(errPipe[1]);

    ControlledRun run;
    std::optional<Clock::time_point> seen, signalledAt;
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
need(r.get("schema_version") == 7, "schema_version %s" % r.get("schema_version"))
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
            "output_height", "draw", "cuda_graphs"):
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
    vulkan = conf.get("consumer") == "vulkan"  # the OpenGL consumer's frames are not timed so
    need(all((number(busy.get(k)) and busy[k] > 0) if vulkan else busy.get(k, 0) is None
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

uint32_t StampedRun::wrongOutputs(uint64_t stepsPerFrame) const {
    uint32_t wrong = 0;
    for (size_t f = 0; f < displayTexel.size(); ++f) {
        // The frame's steps are taken before its outputs are written.
        const uint64_t n = (f + 1) * stepsPerFrame;
        const float v = counterImageValue(n);
        bool ok = displayTexel[f][0] == v && displayLastLevel[f][0] == v;
        if (f < secondTexel.size())
            ok = ok && secondTexel[f][0] == v && secondTexel[f][1] == -v &&
                 secondLastLevel[f][0] == v && secondLastLevel[f][1] == -v;
        if (f < bufferWords.size())
            for (uint32_t i = 0; i < 4; ++i)
                ok = ok && bufferWords[f][i] == counterBufferWord(n, i);
        wrong += !ok;
    }
    return wrong;
}

uint32_t StampedRun::wrongFrames() const {
    uint32_t wrong = 0;
    for (size_t f = 0; f < seenBefore.size(); ++f) {
        bool bad = seenBefore[f] != float(f) || seenAfter[f] != float(f);
        if (f < bufferTailBefore.size())
            bad = bad || bufferTailBefore[f][3] != float(f) || bufferTailAfter[f][3] != float(f);
        wrong += bad;
    }
    return wrong;
}

namespace {

// Records a copy of texel (x, y) of `level` of `image` (in SHADER_READ_ONLY_OPTIMAL, left so) to
// `offset` of `buffer`.
void recordTexelCopy(VkCommandBuffer cmd, const GpuImage& image, uint32_t level, uint32_t x,
                     uint32_t y, VkBuffer buffer, VkDeviceSize offset) {
    ImageTransition toCopy;
    toCopy.oldLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    toCopy.srcStage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    toCopy.srcAccess = VK_ACCESS_2_MEMORY_WRITE_BIT;
    toCopy.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    toCopy.dstAccess = VK_ACCESS_2_TRANSFER_READ_BIT;
    toCopy.baseMip = level;
    toCopy.mipCount = 1;
    recordImageBarrier(cmd, image.handle, toCopy);
    VkBufferImageCopy region{};
    region.bufferOffset = offset;
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
    region.imageOffset = {int32_t(x), int32_t(y), 0};
    region.imageExtent = {1, 1, 1};
    vkCmdCopyImageToBuffer(cmd, image.handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffer, 1,
                           &region);
    ImageTransition back;
    back.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    back.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
    back.srcStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    back.dstStage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
    back.dstAccess = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
    back.baseMip = level;
    back.mipCount = 1;
    recordImageBarrier(cmd, image.handle, back);
}

// Records a copy of `bytes` at `from` of `source` to `offset` of `buffer`.
void recordBufferCopy(VkCommandBuffer cmd, VkBuffer source, VkDeviceSize from, VkDeviceSize bytes,
                      VkBuffer buffer, VkDeviceSize offset) {
    VkBufferMemoryBarrier2 toCopy{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER_2};
    toCopy.srcStageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    toCopy.srcAccessMask = VK_ACCESS_2_MEMORY_WRITE_BIT;
    toCopy.dstStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    toCopy.dstAccessMask = VK_ACCESS_2_TRANSFER_READ_BIT;
    toCopy.srcQueueFamilyIndex = toCopy.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    toCopy.buffer = source;
    toCopy.size = VK_WHOLE_SIZE;
    VkDependencyInfo dep{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dep.bufferMemoryBarrierCount = 1;
    dep.pBufferMemoryBarriers = &toCopy;
    vkCmdPipelineBarrier2(cmd, &dep);
    const VkBufferCopy copy{from, offset, bytes};
    vkCmdCopyBuffer(cmd, source, buffer, 1, &copy);
}

// Channel 0 of a stamped texel of `format`, as a float.
float stampValue(const uint8_t* texel, VkFormat format) {
    if (format == VK_FORMAT_R16G16B16A16_SFLOAT) {
        uint16_t half = 0;
        std::memcpy(&half, texel, sizeof(half));
        return sim::halfToFloat(half);
    }
    float value = 0;
    std::memcpy(&value, texel, sizeof(value));
    return value;
}

template <typename T> std::array<T, 4> read4(const uint8_t* bytes) {
    std::array<T, 4> out{};
    std::memcpy(out.data(), bytes, sizeof(out));
    return out;
}

} // namespace

StampedRun runStampedFrames(const Options& options, uint32_t frames,
                            const sim::SimDefinition* simulation, bool hostCopy) {
    StampedRun run;
    Session session;
    session.stampFrames = true;
    session.hostCopy = hostCopy;
    Options o = options;
    o.validate = true;
    openInstance(session, o, {});
    if (simulation) {
        switchSimulation(session, *simulation);
        // The options' steps per frame were for the options' simulation; here they are for this.
        if (o.stepsPerFrame >= 0) session.stepsPerFrame = o.stepsPerFrame;
    }
    // Per frame, 16-byte slots: stamp before, stamp after, display texel, display last level,
    // second image texel and last level, buffer words, buffer tail before and after.
    constexpr VkDeviceSize kSlot = 16, kSlots = 9;
    try {
        openDevice(session, VK_NULL_HANDLE, VK_FORMAT_R8G8B8A8_UNORM);
        const sim::OutputLayout layout =
            session.simulation->outputs({session.options.grid.width, session.options.grid.height,
                                         session.options.grid.depth, session.particles});
        const bool second = layout.images.size() > 1, words = !layout.buffers.empty();
        GpuBuffer seen =
            createBuffer(session.device, frames * kSlots * kSlot, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         "what the draws saw");
        const VkExtent2D extent{64, 64};
        OffscreenTarget offscreen = createOffscreenTarget(session.device, extent);
        uint64_t frame = 0;
        FrameTarget target;
        target.view = offscreen.image.view;
        target.extent = extent;
        target.begin = [&](VkCommandBuffer cmd) { recordBeginTarget(cmd, offscreen); };
        target.end = [&](VkCommandBuffer cmd) { recordEndTarget(cmd, offscreen, false); };
        target.inspectOutputs = [&](VkCommandBuffer cmd, const SimBackend& b, uint32_t slot,
                                    bool afterDraw) {
            const VkDeviceSize base = frame * kSlots * kSlot;
            const GpuImage& shown = b.displayImage(slot);
            recordTexelCopy(cmd, shown, 0, 0, 0, seen.handle, base + (afterDraw ? 1 : 0) * kSlot);
            if (words) {
                const GpuBuffer& buffer = b.outputBuffer(slot, 0);
                recordBufferCopy(cmd, buffer.handle, buffer.size - kSlot, kSlot, seen.handle,
                                 base + (afterDraw ? 8 : 7) * kSlot);
            }
            if (afterDraw) return;
            recordTexelCopy(cmd, shown, 0, 1, 1, seen.handle, base + 2 * kSlot);
            recordTexelCopy(cmd, shown, shown.mipLevels - 1, 0, 0, seen.handle, base + 3 * kSlot);
            if (second) {
                const GpuImage& image = b.outputImage(slot, 1);
                recordTexelCopy(cmd, image, 0, 1, 1, seen.handle, base + 4 * kSlot);
                recordTexelCopy(cmd, image, image.mipLevels - 1, 0, 0, seen.handle,
                                base + 5 * kSlot);
            }
            if (words)
                recordBufferCopy(cmd, b.outputBuffer(slot, 0).handle, 0, kSlot, seen.handle,
                                 base + 6 * kSlot);
        };
        for (frame = 0; frame < frames; ++frame)
            drawFrame(session, frame, target);
        finishFrames(session);
        vkDeviceWaitIdle(session.device.handle);
        const auto* bytes = static_cast<const uint8_t*>(seen.mapped);
        const VkFormat shownFormat = session.backend->displayImage(0).format;
        for (uint32_t f = 0; f < frames; ++f) {
            const uint8_t* at = bytes + f * kSlots * kSlot;
            run.seenBefore.push_back(stampValue(at, shownFormat));
            run.seenAfter.push_back(stampValue(at + kSlot, shownFormat));
            run.displayTexel.push_back(read4<float>(at + 2 * kSlot));
            run.displayLastLevel.push_back(read4<float>(at + 3 * kSlot));
            if (second) {
                run.secondTexel.push_back(read4<float>(at + 4 * kSlot));
                run.secondLastLevel.push_back(read4<float>(at + 5 * kSlot));
            }
            if (words) {
                run.bufferWords.push_back(read4<uint32_t>(at + 6 * kSlot));
                run.bufferTailBefore.push_back(read4<float>(at + 7 * kSlot));
                run.bufferTailAfter.push_back(read4<float>(at + 8 * kSlot));
            }
        }
        destroyOffscreenTarget(session.device, offscreen);
        destroyBuffer(session.device, seen);
    } catch (...) {
        closeSession(session);
        throw;
    }
    run.validationMessages = closeSession(session);
    return run;
}

StampedRun runStampedFramesGl(const Options& options, uint32_t frames) {
    StampedRun run;
    Session session;
    session.stampFrames = true;
    Options o = options;
    o.validate = true;
    o.consumer = Consumer::OpenGL;
    openInstance(session, o, {});
    try {
        openDevice(session, VK_NULL_HANDLE, VK_FORMAT_R8G8B8A8_UNORM);
        GlTarget target = createGlTarget({64, 64});
        FrameTarget frameTarget;
        frameTarget.extent = target.extent;
        frameTarget.glFramebuffer = target.framebuffer;
        // Read by GL in its own command stream, so after the hand-off's wait and before its
        // signal: what the draw sees. Any format reads back as floats (a half converted).
        frameTarget.inspectGl = [&](uint32_t texture, uint32_t, bool afterDraw) {
            float texel[4] = {};
            glGetTextureSubImage(texture, 0, 0, 0, 0, 1, 1, 1, GL_RGBA, GL_FLOAT, sizeof(texel),
                                 texel);
            (afterDraw ? run.seenAfter : run.seenBefore).push_back(texel[0]);
        };
        for (uint64_t frame = 0; frame < frames; ++frame)
            drawFrame(session, frame, frameTarget);
        finishFrames(session);
        destroyGlTarget(target);
    } catch (...) {
        closeSession(session);
        throw;
    }
    run.validationMessages = closeSession(session);
    run.validationMessages += session.glMessages;
    return run;
}

} // namespace estuary::test
