#include "run_clocks.h"
#include "errors.h"
#include "session.h"
#include "vk_check.h"

#include <array>
#include <chrono>
#include <cmath>

namespace estuary {
namespace {

constexpr uint32_t kTries = 16;
constexpr auto kProbeTimeout = std::chrono::seconds(5);

// A Vulkan timestamp read between two host reads (steady µs).
struct TickBracket {
    uint64_t ticks = 0;
    double hostLowUs = 0, hostHighUs = 0;
};

TickBracket tightest(const std::array<TickBracket, kTries>& tries) {
    const TickBracket* best = &tries[0];
    for (const TickBracket& t : tries)
        if (t.hostHighUs - t.hostLowUs < best->hostHighUs - best->hostLowUs) best = &t;
    return *best;
}

// Both clocks read together; the host's reading is within maxDeviation of the device's.
TickBracket calibratedTimestamps(const Device& device) {
    std::array<TickBracket, kTries> tries{};
    for (TickBracket& t : tries) {
        VkCalibratedTimestampInfoEXT infos[2] = {
            {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr, VK_TIME_DOMAIN_DEVICE_EXT},
            {VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT, nullptr,
             VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT}};
        uint64_t values[2] = {};
        uint64_t maxDeviationNs = 0;
        VK_CHECK(device.getCalibratedTimestamps(device.handle, 2, infos, values, &maxDeviationNs));
        const double hostUs = double(values[1]) / 1000.0;
        t = {values[0], hostUs - double(maxDeviationNs) / 1000.0,
             hostUs + double(maxDeviationNs) / 1000.0};
    }
    return tightest(tries);
}

// A submission that writes one timestamp: it was written after the host's read before
// vkQueueSubmit2 and before the read that saw the submission's fence signalled. (Polling the query
// itself would race with its reset in the submission.)
TickBracket bracketedSubmissions(const Session& session) {
    const Device& device = session.device;
    VkQueryPool queries = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    const auto release = [&] {
        if (fence) vkDestroyFence(device.handle, fence, nullptr);
        if (cmd) vkFreeCommandBuffers(device.handle, session.pool, 1, &cmd);
        if (queries) vkDestroyQueryPool(device.handle, queries, nullptr);
    };
    try {
        VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
        queryInfo.queryCount = 1;
        VK_CHECK(vkCreateQueryPool(device.handle, &queryInfo, nullptr, &queries));
        setDebugName(device, VK_OBJECT_TYPE_QUERY_POOL, reinterpret_cast<uint64_t>(queries),
                     "clock alignment timestamp");
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = session.pool;
        alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        alloc.commandBufferCount = 1;
        VK_CHECK(vkAllocateCommandBuffers(device.handle, &alloc, &cmd));
        VkFenceCreateInfo fenceInfo{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VK_CHECK(vkCreateFence(device.handle, &fenceInfo, nullptr, &fence));

        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
        vkCmdResetQueryPool(cmd, queries, 0, 1);
        vkCmdWriteTimestamp2(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, queries, 0);
        VK_CHECK(vkEndCommandBuffer(cmd));
        VkCommandBufferSubmitInfo cmdInfo{VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO};
        cmdInfo.commandBuffer = cmd;
        VkSubmitInfo2 submit{VK_STRUCTURE_TYPE_SUBMIT_INFO_2};
        submit.commandBufferInfoCount = 1;
        submit.pCommandBufferInfos = &cmdInfo;

        using Clock = std::chrono::steady_clock;
        std::array<TickBracket, kTries> tries{};
        for (TickBracket& t : tries) {
            const auto before = Clock::now();
            VK_CHECK(vkQueueSubmit2(device.queue, 1, &submit, fence));
            VkResult status;
            while ((status = vkGetFenceStatus(device.handle, fence)) == VK_NOT_READY)
                if (Clock::now() - before > kProbeTimeout)
                    throw runtimeError("a submission writing one timestamp did not finish within "
                                       "5 s while aligning the Vulkan clock");
            const auto after = Clock::now();
            VK_CHECK(status);
            VK_CHECK(vkGetQueryPoolResults(device.handle, queries, 0, 1, sizeof(t.ticks), &t.ticks,
                                           sizeof(t.ticks),
                                           VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
            VK_CHECK(vkResetFences(device.handle, 1, &fence));
            t.hostLowUs = hostUs(before);
            t.hostHighUs = hostUs(after);
        }
        release();
        return tightest(tries);
    } catch (...) {
        release();
        throw;
    }
}

void addPoint(SessionClocks& clocks, ClockAlignment& alignment, const TickBracket& t) {
    if (clocks.vulkan.points.empty() && clocks.vulkanSubmission.points.empty())
        clocks.vulkanOriginTicks = t.ticks;
    // Signed: a later sample of the other method may read a tick before the origin.
    const double deviceUs =
        double(int64_t(t.ticks - clocks.vulkanOriginTicks)) * clocks.vulkanUsPerTick;
    alignment.points.push_back({deviceUs, t.hostLowUs, t.hostHighUs});
}

void fit(ClockAlignment& alignment) {
    if (!alignment.points.empty()) alignment.fit = fitClock(alignment.points);
}

} // namespace

void calibrateClocks(Session& session, SessionClocks& clocks) {
    const Device& device = session.device;
    clocks.simClock = session.backend->simClock();
    if (device.timestampValidBits > 0) {
        clocks.vulkanUsPerTick = double(device.properties.limits.timestampPeriod) / 1000.0;
        if (device.getCalibratedTimestamps) {
            clocks.vulkan.method = std::string("calibrated timestamps (") +
                                   device.calibratedTimestampsExtension +
                                   ", device and CLOCK_MONOTONIC domains)";
            addPoint(clocks, clocks.vulkan, calibratedTimestamps(device));
            clocks.vulkanSubmission.method = "bracketed submission (a timestamp written between "
                                             "two host reads)";
            addPoint(clocks, clocks.vulkanSubmission, bracketedSubmissions(session));
        } else {
            clocks.vulkan.method = "bracketed submission (a timestamp written between two host "
                                   "reads)";
            addPoint(clocks, clocks.vulkan, bracketedSubmissions(session));
        }
    }
    if (clocks.simClock == SimBackend::Clock::Device) {
        if (const auto bracket = session.backend->clockBracket(kTries)) {
            clocks.simulation.method = std::string("bracketed event on an idle stream (") +
                                       session.backend->name() + " backend)";
            clocks.simulation.points.push_back(*bracket);
        }
    }
}

void fitClocks(SessionClocks& clocks) {
    fit(clocks.vulkan);
    fit(clocks.vulkanSubmission);
    fit(clocks.simulation);
    if (clocks.simulation.aligned()) {
        // CUDA reads event times as float milliseconds since the reference: half a float step at
        // the largest time read (the last calibration's) bounds what that costs.
        const float lastMs = float(clocks.simulation.points.back().deviceUs / 1000.0);
        const double stepMs = double(std::nextafter(lastMs, INFINITY) - lastMs);
        clocks.simulation.fit.errorUs += 0.5 * stepMs * 1000.0;
    }
}

double vulkanHostUs(const SessionClocks& clocks, uint64_t ticks) {
    if (ticks == 0 || !clocks.vulkan.aligned()) return kNotMeasured;
    return toHostUs(clocks.vulkan.fit,
                    double(int64_t(ticks - clocks.vulkanOriginTicks)) * clocks.vulkanUsPerTick);
}

double simulationHostUs(const SessionClocks& clocks, double simUs) {
    if (std::isnan(simUs)) return kNotMeasured;
    if (clocks.simClock == SimBackend::Clock::Host) return simUs;
    return clocks.simulation.aligned() ? toHostUs(clocks.simulation.fit, simUs) : kNotMeasured;
}

double handoffLatencyMs(const SessionClocks& clocks, double simEndUs, uint64_t drawStartTicks) {
    if (clocks.simClock != SimBackend::Clock::Device) return kNotMeasured;
    return (vulkanHostUs(clocks, drawStartTicks) - simulationHostUs(clocks, simEndUs)) / 1000.0;
}

double handoffErrorUs(const SessionClocks& clocks) {
    if (clocks.simClock != SimBackend::Clock::Device || !clocks.vulkan.aligned() ||
        !clocks.simulation.aligned())
        return kNotMeasured;
    return clocks.vulkan.fit.errorUs + clocks.simulation.fit.errorUs;
}

} // namespace estuary
