// estuary_switch_bench: what one switch between the CUDA and the Vulkan context costs the GPU
// (#37 item 1), measured apart from any frame. One timeline semaphore, exported by Vulkan and
// imported into CUDA, carries a chain: per alternation, CUDA waits 2i, runs K tiny kernels and
// signals 2i+1; Vulkan waits 2i+1, runs K tiny submissions (one vkCmdFillBuffer each) and signals
// 2i+2. The same alternations run on CUDA alone (one stream: both halves CUDA's) and on Vulkan
// alone (one queue: both halves Vulkan's), with the same waits and signals. An alternation of the
// chain holds two switches, so
//   switch = (chain − mean of the two baselines) / 2        (per alternation, µs)
// K = 1, 2, 4, 8 shows the switch's cost spread over K items of each side.
// No wait is ever enqueued before the signal it waits for (see runCuda): the host enqueues the
// chain while the GPU runs it, after a head-start spin, so a driver that blocks the host in an
// enqueue call only makes it wait for work the GPU can do. An alternation that found the GPU idle
// (everything queued before it done) counts as starved: the result is then host-bound and says so.
// Times: the GPU's (CUDA events after the head start and after the last item; Vulkan timestamps
// around its first and last item), the wall clock (GPU start to the host seeing the end) and the
// host's enqueueing, per alternation, medians of R runs after a warm-up.
// Each stage is named on stderr; a watchdog ends a stage that lasts over --timeout seconds with
// "estuary_switch_bench: stuck in STAGE after N s" and exit code 4 (--test-stall: its test).
// Without a CUDA device the chain and the CUDA baseline are reported skipped and the Vulkan
// baseline still runs (lavapipe: the CI test runs it with --vulkan-only --validate).
// Usage: estuary_switch_bench [--alternations N] [--repeats R] [--batches 1,2,4,8]
//                             [--head-start-us US] [--timeout S] [--vulkan-only] [--validate]
//                             [--json PATH] [--test-stall]
#include "context.h"
#include "cuda_check.h"
#include "estuary/interop/cuda_devices.h"
#include "estuary/interop/cuda_import.h"
#include "estuary/interop/device_match.h"
#include "estuary/interop/vulkan_device.h"
#include "output_file.h"
#include "resources.h"
#include "stage_watchdog.h"
#include "vk_check.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace estuary {
namespace {

__global__ void touch(unsigned* word) {
    *word += 1u;
}

// Spins for `ns` of the GPU's clock (capped in iterations, so that it ends whatever the clock
// does).
__global__ void headStart(uint64_t ns) {
    uint64_t start = 0, now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (uint32_t i = 0; i < (1u << 24) && now - start < ns; ++i) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now < start) now = start;
    }
}

// ---------------------------------------------------------------------------------------------

struct Args {
    uint32_t alternations = 500, repeats = 9;
    std::vector<uint32_t> batches{1, 2, 4, 8};
    uint32_t headStartUs = 5000, timeoutS = 20;
    bool vulkanOnly = false, validate = false, testStall = false;
    std::string json;
};

uint32_t number(const char* text, const char* option, uint32_t low, uint32_t high) {
    char* end = nullptr;
    const unsigned long value = std::strtoul(text, &end, 10);
    if (!*text || *end || value < low || value > high)
        throw usageError(std::string(option) + " " + text + " is not a whole number in " +
                         std::to_string(low) + ".." + std::to_string(high));
    return uint32_t(value);
}

Args parseArgs(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> const char* {
            if (i + 1 >= argc) throw usageError(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--alternations") {
            a.alternations = number(value(), "--alternations", 1, 100000);
        } else if (arg == "--repeats") {
            a.repeats = number(value(), "--repeats", 1, 100);
        } else if (arg == "--batches") {
            a.batches.clear();
            std::string list = value();
            for (size_t start = 0; start <= list.size();) {
                const size_t comma = std::min(list.find(',', start), list.size());
                a.batches.push_back(
                    number(list.substr(start, comma - start).c_str(), "--batches", 1, 64));
                start = comma + 1;
            }
        } else if (arg == "--head-start-us") {
            a.headStartUs = number(value(), "--head-start-us", 0, 1000000);
        } else if (arg == "--timeout") {
            a.timeoutS = number(value(), "--timeout", 1, 3600);
        } else if (arg == "--test-stall") {
            a.testStall = true;
        } else if (arg == "--vulkan-only") {
            a.vulkanOnly = true;
        } else if (arg == "--validate") {
            a.validate = true;
        } else if (arg == "--json") {
            a.json = value();
        } else {
            throw usageError("unknown argument " + arg +
                             " (allowed: --alternations N, --repeats R, --batches K,K,..., "
                             "--head-start-us US, --timeout S, --vulkan-only, --validate, "
                             "--json PATH, --test-stall)");
        }
    }
    return a;
}

// ---------------------------------------------------------------------------------------------

// One device, its semaphore and the little each side runs.
struct Bench {
    Instance instance;
    Device device;
    interop::Context context;
    bool cuda = false;
    std::string cudaProblem;
    interop::SharedTimeline shared;     // with CUDA
    VkSemaphore plain = VK_NULL_HANDLE; // without: the Vulkan baseline's own
    VkSemaphore timeline = VK_NULL_HANDLE;
    uint64_t value = 0; // the timeline's value after the last run
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer fill = VK_NULL_HANDLE, stampStart = VK_NULL_HANDLE, stampEnd = VK_NULL_HANDLE;
    VkQueryPool queries = VK_NULL_HANDLE;
    GpuBuffer target;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, end = nullptr;
    unsigned* word = nullptr;
};

VkCommandBuffer recordOnce(Bench& b, const std::function<void(VkCommandBuffer)>& record) {
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = b.pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateCommandBuffers(b.device.handle, &alloc, &cmd));
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT; // pending in many submissions
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
    record(cmd);
    VK_CHECK(vkEndCommandBuffer(cmd));
    return cmd;
}

void openBench(Bench& b, const Args& args) {
    InstanceDesc desc;
    desc.validation = args.validate;
    b.instance = createInstance(desc);
    DeviceDesc device;
    int ordinal = -1;
    if (!args.vulkanOnly) {
        const interop::CudaDeviceList cuda = interop::listCudaDevices();
        b.cudaProblem = cuda.problem;
        if (!cuda.devices.empty()) {
            const auto pairs = interop::matchDevices(
                interop::listVulkanDevices(b.instance.handle, vkGetInstanceProcAddr), cuda.devices,
                -1);
            if (pairs.empty())
                b.cudaProblem = "no Vulkan device shares a UUID with a CUDA device";
            else {
                device.physical = pairs[0].vulkan.handle;
                device.extensions = interop::requiredDeviceExtensions();
                ordinal = pairs[0].cuda.ordinal;
                b.cuda = true;
            }
        }
    } else {
        b.cudaProblem = "--vulkan-only";
    }
    if (!device.physical) device.physical = pickDefaultPhysicalDevice(b.instance.handle).handle;
    b.device = createDevice(b.instance, device);
    b.pool = createCommandPool(b.device, 0, "switch bench");
    b.target = createBuffer(b.device, 256, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                            VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "switch bench fill target");
    VkQueryPoolCreateInfo query{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    query.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query.queryCount = 2;
    VK_CHECK(vkCreateQueryPool(b.device.handle, &query, nullptr, &b.queries));
    b.fill = recordOnce(
        b, [&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, b.target.handle, 0, 256, 1u); });
    b.stampStart = recordOnce(b, [&](VkCommandBuffer cmd) {
        vkCmdResetQueryPool(cmd, b.queries, 0, 2);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, b.queries, 0);
    });
    b.stampEnd = recordOnce(b, [&](VkCommandBuffer cmd) {
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, b.queries, 1);
    });
    if (b.cuda) {
        interop::VulkanDevice vulkan;
        vulkan.instance = b.instance.handle;
        vulkan.physicalDevice = b.device.physical;
        vulkan.device = b.device.handle;
        vulkan.queueFamily = b.device.queueFamily;
        vulkan.queue = b.device.queue;
        vulkan.getInstanceProcAddr = vkGetInstanceProcAddr;
        vulkan.debugUtils = b.device.debugUtils;
        b.context = interop::createContext(vulkan);
        CUDA_CHECK(cudaSetDevice(ordinal));
        b.shared = interop::createSharedTimeline(b.context, "switch bench timeline");
        b.timeline = b.shared.semaphore;
        CUDA_CHECK(cudaStreamCreateWithFlags(&b.stream, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreate(&b.start));
        CUDA_CHECK(cudaEventCreate(&b.end));
        CUDA_CHECK(cudaMalloc(&b.word, sizeof(unsigned)));
        // Both kernels and the events once before any run: a kernel's first launch may load its
        // module, which can wait for the whole context to go idle.
        bench::enterStage("warm up the CUDA kernels");
        touch<<<1, 1, 0, b.stream>>>(b.word);
        CUDA_CHECK(cudaGetLastError());
        headStart<<<1, 1, 0, b.stream>>>(1000);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaEventRecord(b.start, b.stream));
        CUDA_CHECK(cudaEventRecord(b.end, b.stream));
        CUDA_CHECK(cudaStreamSynchronize(b.stream));
    } else {
        b.plain = createTimelineSemaphore(b.device, false, "switch bench timeline");
        b.timeline = b.plain;
    }
}

void closeBench(Bench& b) {
    if (b.device.handle) VK_CHECK(vkDeviceWaitIdle(b.device.handle));
    if (b.stream) CUDA_CHECK(cudaStreamSynchronize(b.stream));
    if (b.word) (void)cudaFree(b.word);
    for (cudaEvent_t e : {b.start, b.end})
        if (e) (void)cudaEventDestroy(e);
    if (b.stream) (void)cudaStreamDestroy(b.stream);
    if (b.shared.semaphore) interop::destroySharedTimeline(b.context, b.shared);
    if (b.plain) vkDestroySemaphore(b.device.handle, b.plain, nullptr);
    if (b.queries) vkDestroyQueryPool(b.device.handle, b.queries, nullptr);
    destroyBuffer(b.device, b.target);
    if (b.pool) vkDestroyCommandPool(b.device.handle, b.pool, nullptr);
    destroyDevice(b.device);
    destroyInstance(b.instance);
}

// ---------------------------------------------------------------------------------------------

// Vulkan's half of an alternation: K submissions of one fill each, the first waiting for
// `wait`, the last signalling `signal`; the run's first and last carry the timestamps.
struct VulkanSide {
    uint64_t wait, signal;
    bool first, last;
};

void submitVulkan(Bench& b, const VulkanSide* sides, size_t sideCount, uint32_t k) {
    const size_t count = sideCount * k;
    std::vector<VkSemaphoreSubmitInfo> waits(sideCount), signals(sideCount);
    std::vector<VkCommandBufferSubmitInfo> commands(count * 2);
    std::vector<VkSubmitInfo2> submits(count);
    for (size_t s = 0; s < sideCount; ++s) {
        waits[s] = {VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        waits[s].semaphore = b.timeline;
        waits[s].value = sides[s].wait;
        waits[s].stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        signals[s] = waits[s];
        signals[s].value = sides[s].signal;
        for (uint32_t i = 0; i < k; ++i) {
            const size_t n = s * k + i;
            VkCommandBufferSubmitInfo* cmd = &commands[2 * n];
            uint32_t cmdCount = 0;
            const auto add = [&](VkCommandBuffer c) {
                cmd[cmdCount] = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
                cmd[cmdCount++].commandBuffer = c;
            };
            if (sides[s].first && i == 0) add(b.stampStart);
            add(b.fill);
            if (sides[s].last && i == k - 1) add(b.stampEnd);
            VkSubmitInfo2& submit = submits[n];
            submit = {VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
            submit.waitSemaphoreInfoCount = i == 0 ? 1 : 0;
            submit.pWaitSemaphoreInfos = &waits[s];
            submit.commandBufferInfoCount = cmdCount;
            submit.pCommandBufferInfos = cmd;
            submit.signalSemaphoreInfoCount = i == k - 1 ? 1 : 0;
            submit.pSignalSemaphoreInfos = &signals[s];
        }
    }
    VK_CHECK(vkQueueSubmit2(b.device.queue, uint32_t(count), submits.data(), VK_NULL_HANDLE));
}

void cudaSide(Bench& b, uint64_t wait, uint64_t signal, uint32_t k) {
    interop::cudaWaitTimeline(b.shared, wait, b.stream);
    for (uint32_t i = 0; i < k; ++i) {
        touch<<<1, 1, 0, b.stream>>>(b.word);
        CUDA_CHECK(cudaGetLastError());
    }
    interop::cudaSignalTimeline(b.shared, signal, b.stream);
}

double vulkanGpuUs(const Bench& b) {
    uint64_t stamps[2] = {};
    VK_CHECK(vkGetQueryPoolResults(b.device.handle, b.queries, 0, 2, sizeof(stamps), stamps,
                                   sizeof(uint64_t),
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    const uint64_t mask = b.device.timestampValidBits >= 64
                              ? ~uint64_t(0)
                              : (uint64_t(1) << b.device.timestampValidBits) - 1;
    return double((stamps[1] - stamps[0]) & mask) *
           double(b.device.properties.limits.timestampPeriod) / 1000.0;
}

enum class Run { Chain, Cuda, Vulkan };
const char* runName(Run run) {
    return run == Run::Chain ? "chain" : run == Run::Cuda ? "cuda_only" : "vulkan_only";
}

struct Times {
    double gpuUs = 0, wallUs = 0, hostUs = 0; // the whole run; host: enqueueing it
    uint32_t starved = 0; // alternations the GPU had finished everything queued before
};

using Clock = std::chrono::steady_clock;
double usSince(Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
}

// Nothing enqueued ever waits for a value whose signal is not already enqueued before it (or
// reached): alternation i's CUDA side waits for what Vulkan's side i - 1 signals, enqueued first,
// and so on. Whatever a driver blocks the host on while enqueueing (a full push buffer, a list of
// pending semaphore waits, a lazily loaded kernel that needs the context idle) is then work the
// GPU can finish, so the host always gets on. The GPU starts at once; a spin kernel of
// --head-start-us gives the host its lead, and the times start after it.
Times runCuda(Bench& b, Run run, uint32_t n, uint32_t k, const Args& args,
              const std::string& stage) {
    const uint64_t base = b.value; // reached: alternation i waits base + 2i
    const uint64_t last = base + 2 * uint64_t(n);
    const auto started = Clock::now();
    headStart<<<1, 1, 0, b.stream>>>(uint64_t(args.headStartUs) * 1000u);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(b.start, b.stream));
    Times t;
    for (uint32_t i = 0; i < n; ++i) {
        const uint64_t v = base + 2 * uint64_t(i);
        if (i > 0 && timelineValue(b.device, b.timeline) >= v) ++t.starved;
        if (run == Run::Chain) {
            cudaSide(b, v, v + 1, k);
            const VulkanSide side{v + 1, v + 2, false, false}; // timed by CUDA's events
            submitVulkan(b, &side, 1, k);
        } else {
            cudaSide(b, v, v + 1, k);
            cudaSide(b, v + 1, v + 2, k);
        }
        bench::noteProgress(i + 1, n);
    }
    if (run == Run::Chain) interop::cudaWaitTimeline(b.shared, last, b.stream);
    CUDA_CHECK(cudaEventRecord(b.end, b.stream));
    t.hostUs = usSince(started);
    bench::enterStage(stage + ": wait for the GPU", false);
    CUDA_CHECK(cudaEventSynchronize(b.end));
    t.wallUs = std::max(0.0, usSince(started) - double(args.headStartUs));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, b.start, b.end));
    t.gpuUs = 1000.0 * double(ms);
    if (run == Run::Chain) waitTimeline(b.device, b.timeline, last, "the chain's last Vulkan side");
    b.value = last;
    return t;
}

// Vulkan alone: every submission of the run is built first and goes in one vkQueueSubmit2; each
// waits for what an earlier one of the same call signals (or for a reached value), so nothing in
// it waits for the host. --test-stall makes the host wait for one value more than the run
// signals, forever: the watchdog's test.
Times runVulkan(Bench& b, uint32_t n, uint32_t k, const Args& args, const std::string& stage) {
    const uint64_t base = b.value;
    const uint64_t last = base + 2 * uint64_t(n);
    std::vector<VulkanSide> sides;
    for (uint32_t i = 0; i < n; ++i) {
        const uint64_t v = base + 2 * uint64_t(i);
        sides.push_back({v, v + 1, i == 0, false});
        sides.push_back({v + 1, v + 2, false, i + 1 == n});
    }
    const auto started = Clock::now();
    submitVulkan(b, sides.data(), sides.size(), k);
    Times t;
    t.hostUs = usSince(started);
    bench::enterStage(stage + ": wait for the GPU", false);
    const uint64_t until = args.testStall ? last + 1 : last;
    VkSemaphoreWaitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wait.semaphoreCount = 1;
    wait.pSemaphores = &b.timeline;
    wait.pValues = &until;
    VK_CHECK(vkWaitSemaphores(b.device.handle, &wait, UINT64_MAX)); // bounded by the watchdog
    t.wallUs = usSince(started);
    t.gpuUs = vulkanGpuUs(b);
    b.value = last;
    return t;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Result {
    Run run;
    uint32_t k = 1, alternations = 0;
    double gpuUs = 0, wallUs = 0, hostUs = 0; // per alternation, medians over the repeats
    uint32_t starved = 0;                     // over all repeats
};

Result measure(Bench& b, Run run, uint32_t k, const Args& args) {
    const uint32_t n = args.alternations;
    const std::string name = "K=" + std::to_string(k) + " " + runName(run);
    bench::enterStage("measure " + name + " (" + std::to_string(args.repeats) + " runs of " +
                      std::to_string(n) + " alternations after a warm-up)");
    Result result{run, k, n};
    std::vector<double> gpu, wall, host;
    for (uint32_t r = 0; r <= args.repeats; ++r) { // run 0: the warm-up
        const std::string stage =
            name + (r == 0 ? std::string(" warm-up")
                           : " run " + std::to_string(r) + "/" + std::to_string(args.repeats));
        bench::enterStage(stage + ": enqueue", false);
        const Times t = run == Run::Vulkan ? runVulkan(b, n, k, args, stage)
                                           : runCuda(b, run, n, k, args, stage);
        if (r == 0) continue;
        gpu.push_back(t.gpuUs / n);
        wall.push_back(t.wallUs / n);
        host.push_back(t.hostUs / n);
        result.starved += t.starved;
    }
    result.gpuUs = median(gpu);
    result.wallUs = median(wall);
    result.hostUs = median(host);
    return result;
}

// ---------------------------------------------------------------------------------------------

std::string fixed(double v) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.3f", v);
    return text;
}

std::string toJson(const Bench& b, const Args& args, const std::vector<Result>& results) {
    std::string s = "{\n  \"device\": \"" + std::string(b.device.properties.deviceName) +
                    "\",\n  \"cuda\": " + (b.cuda ? "true" : "false") + ",\n";
    if (!b.cuda) s += "  \"cuda_skipped\": \"" + b.cudaProblem + "\",\n";
    s += "  \"alternations\": " + std::to_string(args.alternations) +
         ",\n  \"repeats\": " + std::to_string(args.repeats) +
         ",\n  \"head_start_us\": " + std::to_string(args.headStartUs) + ",\n  \"runs\": [";
    for (size_t i = 0; i < results.size(); ++i)
        s += std::string(i ? "," : "") + "\n    {\"run\": \"" + runName(results[i].run) +
             "\", \"k\": " + std::to_string(results[i].k) +
             ", \"alternations\": " + std::to_string(results[i].alternations) +
             ", \"gpu_us_per_alternation\": " + fixed(results[i].gpuUs) +
             ", \"wall_us_per_alternation\": " + fixed(results[i].wallUs) +
             ", \"host_enqueue_us_per_alternation\": " + fixed(results[i].hostUs) +
             ", \"starved_alternations\": " + std::to_string(results[i].starved) + "}";
    s += "\n  ],\n  \"switch\": [";
    bool any = false;
    for (uint32_t k : args.batches) {
        const auto find = [&](Run run) -> const Result* {
            for (const Result& r : results)
                if (r.run == run && r.k == k) return &r;
            return nullptr;
        };
        const Result *chain = find(Run::Chain), *cuda = find(Run::Cuda), *vk = find(Run::Vulkan);
        if (!chain || !cuda || !vk) continue;
        const double gpu = (chain->gpuUs - 0.5 * (cuda->gpuUs + vk->gpuUs)) / 2.0;
        const double wall = (chain->wallUs - 0.5 * (cuda->wallUs + vk->wallUs)) / 2.0;
        // A starved GPU waited for the host: its span is then the host's pace, not the GPU's.
        const bool hostBound = chain->starved + cuda->starved > 0;
        s += std::string(any ? "," : "") + "\n    {\"k\": " + std::to_string(k) +
             ", \"gpu_us_per_switch\": " + fixed(gpu) + ", \"wall_us_per_switch\": " + fixed(wall) +
             ", \"gpu_us_per_item\": " + fixed(chain->gpuUs / (2.0 * k)) +
             ", \"host_bound\": " + (hostBound ? "true" : "false") + "}";
        std::printf("K=%-2u one switch: %8.2f µs GPU, %8.2f µs wall; chain %8.2f µs per item%s\n",
                    k, gpu, wall, chain->gpuUs / (2.0 * k),
                    hostBound ? " (HOST-BOUND: the GPU waited for the host)" : "");
        any = true;
    }
    return s + "\n  ]\n}\n";
}

void measureAll(Bench& b, const Args& args, std::vector<Result>& results) {
    std::printf("estuary_switch_bench: %s, %u alternations x %u repeats, head start %u µs\n",
                b.device.properties.deviceName, args.alternations, args.repeats, args.headStartUs);
    if (args.vulkanOnly)
        std::printf("the Vulkan-only baseline alone (--vulkan-only)\n");
    else if (!b.cuda)
        std::printf("skipped: no CUDA device (%s): the chain and the CUDA-only baseline; the "
                    "Vulkan-only baseline runs\n",
                    b.cudaProblem.c_str());
    std::printf("%-12s %3s %6s %12s %12s %12s %8s\n", "run", "K", "alts", "GPU µs/alt",
                "wall µs/alt", "host µs/alt", "starved");
    for (uint32_t k : args.batches)
        for (Run r : {Run::Chain, Run::Cuda, Run::Vulkan}) {
            if (r != Run::Vulkan && !b.cuda) continue;
            results.push_back(measure(b, r, k, args));
            const Result& m = results.back();
            std::printf("%-12s %3u %6u %12.2f %12.2f %12.2f %8u\n", runName(r), k, m.alternations,
                        m.gpuUs, m.wallUs, m.hostUs, m.starved);
        }
}

int run(int argc, char** argv) {
    const Args args = parseArgs(argc, argv);
    bench::startWatchdog("estuary_switch_bench", args.timeoutS);
    Bench b;
    std::vector<Result> results;
    try {
        bench::enterStage("open Vulkan and CUDA");
        openBench(b, args);
        measureAll(b, args, results);
    } catch (const std::exception& e) {
        // Said before closing: a close after a failed enqueue may wait until the watchdog ends it.
        std::fprintf(stderr, "estuary_switch_bench: %s\n", e.what());
        bench::enterStage("close after the error");
        closeBench(b);
        bench::stopWatchdog();
        return 1;
    }
    bench::enterStage("close");
    const std::string json = toJson(b, args, results);
    const uint32_t messages = args.validate ? validationMessageCount(b.instance) : 0;
    closeBench(b);
    if (!args.json.empty()) {
        bench::enterStage("write " + args.json);
        writeFileAtomically(args.json, json);
        std::printf("wrote %s\n", args.json.c_str());
    }
    bench::stopWatchdog();
    if (messages > 0) {
        std::fprintf(stderr, "estuary_switch_bench: %u validation messages\n", messages);
        return 1;
    }
    return 0;
}

} // namespace
} // namespace estuary

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0); // a log piped through tee shows each line as it comes
    // Eager module loading: no kernel's first launch can wait for the context to go idle.
    setenv("CUDA_MODULE_LOADING", "EAGER", 0);
    try {
        return estuary::run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "estuary_switch_bench: %s\n", e.what());
        return 1;
    }
}
