// Frame times and what comes of them: a FrameRecord per frame from its begin until it is drawn,
// when its GPU times are read (Vulkan timestamps and CUDA events of its ring entry, never
// waiting: the frame is known done) and its readbacks delivered; then an estuary_frame_stats for
// the user, with every GPU mark put on the host's steady clock. The clocks are aligned by
// calibrations (VK_EXT/KHR_calibrated_timestamps where offered, a bracketed submission always,
// a bracketed event on an idle CUDA stream) at creation and at estuary_finish; clock_sync.h fits
// a line through them. Also the memory budget every allocation is checked against.
#include "viewer.h"
#include "cuda_side.h"
#include "vk_check.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>

namespace estuary::lib {
namespace {

constexpr uint32_t kTries = 16;
constexpr auto kProbeTimeout = std::chrono::seconds(5);

double us(int64_t ns) {
    return ns ? double(ns) / 1000.0 : kNotMeasured;
}

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
// vkQueueSubmit2 and before the read that saw the submission's fence signalled.
TickBracket bracketedSubmissions(const estuary_viewer& v) {
    const Device& device = v.device;
    VkQueryPool queries = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    const auto release = [&] {
        if (fence) vkDestroyFence(device.handle, fence, nullptr);
        if (cmd) vkFreeCommandBuffers(device.handle, v.pool, 1, &cmd);
        if (queries) vkDestroyQueryPool(device.handle, queries, nullptr);
    };
    try {
        VkQueryPoolCreateInfo queryInfo{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        queryInfo.queryType = VK_QUERY_TYPE_TIMESTAMP;
        queryInfo.queryCount = 1;
        VK_CHECK(vkCreateQueryPool(device.handle, &queryInfo, nullptr, &queries));
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = v.pool;
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

void addPoint(Timing& t, ClockAlignment& alignment, const TickBracket& bracket) {
    if (t.vulkan.points.empty() && t.vulkanSubmission.points.empty())
        t.vulkanOriginTicks = bracket.ticks;
    // Signed: a later sample of the other method may read a tick before the origin.
    const double deviceUs =
        double(int64_t(bracket.ticks - t.vulkanOriginTicks)) * t.vulkanUsPerTick;
    alignment.points.push_back({deviceUs, bracket.hostLowUs, bracket.hostHighUs});
}

double vulkanHostUs(const Timing& t, uint64_t ticks) {
    if (ticks == 0 || !t.vulkan.aligned()) return kNotMeasured;
    return toHostUs(t.vulkan.fit, double(int64_t(ticks - t.vulkanOriginTicks)) * t.vulkanUsPerTick);
}

double cudaHostUs(const Timing& t, double cudaUs) {
    if (std::isnan(cudaUs) || !t.cuda.aligned()) return kNotMeasured;
    return toHostUs(t.cuda.fit, cudaUs);
}

std::string describe(const char* clock, const ClockAlignment& a) {
    if (!a.aligned()) return std::string(clock) + ": not aligned\n";
    char line[256];
    std::snprintf(line, sizeof(line), "%s: %s, %zu point(s), error bound %.1f us, drift %.2f ppm\n",
                  clock, a.method.c_str(), a.fit.points, a.fit.errorUs, driftPpm(a.fit));
    return line;
}

// The host-clock marks and the hand-off of `s` from its raw GPU readings.
void align(const Timing& t, estuary_frame_stats& s) {
    s.cuda_start_us = cudaHostUs(t, s.raw_cuda_us[0]);
    s.cuda_wait_start_us = cudaHostUs(t, s.raw_cuda_us[1]);
    s.cuda_wait_end_us = cudaHostUs(t, s.raw_cuda_us[2]);
    s.cuda_end_us = cudaHostUs(t, s.raw_cuda_us[3]);
    s.draw_start_us = vulkanHostUs(t, s.raw_draw_ticks[0]);
    s.draw_end_us = vulkanHostUs(t, s.raw_draw_ticks[1]);
    s.handoff_ms = (s.draw_start_us - s.cuda_end_us) / 1000.0;
}

// MemAvailable of /proc/meminfo, in bytes.
std::optional<uint64_t> hostAvailable() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    while (meminfo >> key >> kib) {
        if (key == "MemAvailable:") return kib * 1024;
        meminfo.ignore(64, '\n');
    }
    return std::nullopt;
}

} // namespace

double percentile(std::vector<double>& values, double p) {
    std::erase_if(values, [](double x) { return !std::isfinite(x); });
    if (values.empty()) return kNotMeasured;
    // Nearest rank: the ceil(p/100 × n)-th smallest sample.
    const size_t rank = size_t(std::ceil(p / 100.0 * double(values.size())));
    const size_t index = std::clamp<size_t>(rank, 1, values.size()) - 1;
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(index), values.end());
    return values[index];
}

void beginRecord(estuary_viewer& v, uint64_t frame) {
    Timing& t = v.timing;
    const auto now = std::chrono::steady_clock::now();
    if (frame > 0) {
        const uint64_t interval = uint64_t(
            std::chrono::duration_cast<std::chrono::nanoseconds>(now - t.lastBegin).count());
        t.slowestFrameNs = std::max(t.slowestFrameNs, interval);
        if (FrameRecord* previous = findRecord(v, frame - 1))
            previous->intervalMs = double(interval) / 1e6;
    }
    t.lastBegin = now;
    FrameRecord record;
    record.frame = frame;
    record.beginNs = hostNs(now);
    t.pending.push_back(record);
}

FrameRecord* findRecord(estuary_viewer& v, uint64_t frame) {
    for (FrameRecord& r : v.timing.pending)
        if (r.frame == frame) return &r;
    return nullptr;
}

void deliverReads(estuary_viewer& v, uint64_t frame) {
    // The frame's readbacks, while its entry still holds them (the next frame of the entry begins
    // only after this), once: delivered reads are dropped. OpenGL's reads were made in its command
    // stream (gl_side.cpp) and are delivered by glCollect.
    const uint32_t entry = uint32_t(frame % v.hostRing);
    EntryState& e = v.entries[entry];
    if (e.frame != frame) return;
    if (!v.gl) {
        const auto* base = static_cast<const uint8_t*>(e.readback.mapped);
        for (const ReadRequest& read : e.reads) {
            // Sizes only: the image may have been destroyed since (after its frames were drawn).
            const VkDeviceSize bytes = read.bytes;
            if (read.pick) {
                estuary_pick pick = pickResult(base + read.stagingOffset);
                pick.panel = read.pickPanel;
                if (read.destination) { // the caller's struct_size, checked when asked, is kept
                    auto* out = static_cast<estuary_pick*>(read.destination);
                    pick.struct_size = out->struct_size;
                    std::memcpy(out, &pick, std::min<size_t>(out->struct_size, sizeof(pick)));
                } else { // the View panel's
                    for (PanelState::ViewPick& shown : v.panels.picks)
                        if (shown.view == read.pickView && read.pickView) {
                            shown.pick = pick;
                            shown.valid = true;
                        }
                }
            } else if (read.destination) {
                std::memcpy(read.destination, base + read.stagingOffset, bytes);
            } else { // the probe
                std::memcpy(v.panels.probeBytes.data(), base + read.stagingOffset,
                            std::min<VkDeviceSize>(bytes, v.panels.probeBytes.size()));
                v.panels.probeValid = true;
            }
        }
    }
    e.reads.clear();
}

void completeFrame(estuary_viewer& v, uint64_t frame) {
    collectRecordedPicture(v, frame); // the recording's, whether or not the frame was timed
    collectServedPicture(v, frame);
    FrameRecord* record = findRecord(v, frame);
    if (!record || record->complete) return;
    Timing& t = v.timing;
    const uint32_t entry = uint32_t(frame % v.hostRing);
    if (v.gl) {
        glCollect(v, frame, *record);
    } else if (v.timestamps) {
        uint64_t ticks[kTimestampsPerEntry] = {};
        const uint32_t read = v.entries[entry].annotationsTimed ? kTimestampsPerEntry : 2;
        const VkResult r =
            vkGetQueryPoolResults(v.device.handle, v.timestamps, kTimestampsPerEntry * entry, read,
                                  sizeof(ticks), ticks, sizeof(uint64_t), VK_QUERY_RESULT_64_BIT);
        if (r == VK_SUCCESS) {
            record->drawTicks[0] = ticks[0];
            record->drawTicks[1] = ticks[1];
            const double msPerTick = double(v.device.properties.limits.timestampPeriod) / 1e6;
            record->drawMs = double(ticks[1] - ticks[0]) * msPerTick;
            if (read == kTimestampsPerEntry && ticks[3] >= ticks[2])
                record->annotationsMs = double(ticks[3] - ticks[2]) * msPerTick;
            // Queue idle between the previous draw's end and this one's start: waiting for CUDA
            // (and, in serialized runs, for the host).
            if (t.lastDrawEndTicks && ticks[0] >= t.lastDrawEndTicks) {
                record->waitMs = double(ticks[0] - t.lastDrawEndTicks) * msPerTick;
                record->gpuIntervalMs = double(ticks[1] - t.lastDrawEndTicks) * msPerTick;
            }
            t.lastDrawEndTicks = ticks[1];
        } else if (r != VK_NOT_READY) {
            VK_CHECK(r);
        }
    }
    if (v.cuda) {
        bool fromGraph = false;
        if (const auto spans = cudaFrameTimes(v, frame, fromGraph)) {
            record->cudaUs = *spans;
            record->fromGraph = fromGraph;
            const double waitMs = ((*spans)[2] - (*spans)[1]) / 1000.0;
            if (!std::isnan(record->waitMs)) record->waitMs += waitMs;
        }
    }
    deliverReads(v, frame);
    record->complete = true;
    const estuary_frame_stats stats = statsOf(v, *record);
    t.ready.push_back(stats);
    if (t.ready.size() > Timing::kReadyMax) {
        t.ready.pop_front();
        ++t.dropped;
    }
    if (t.recent.size() < Timing::kRecent)
        t.recent.push_back(*record);
    else
        t.recent[t.recentCount % Timing::kRecent] = *record;
    ++t.recentCount;
    while (!t.pending.empty() && t.pending.front().complete)
        t.pending.pop_front();
}

estuary_frame_stats statsOf(const estuary_viewer& v, const FrameRecord& r) {
    estuary_frame_stats s{};
    s.frame = r.frame;
    s.interval_ms = r.intervalMs;
    s.host_busy_us = r.hostBusyUs;
    const auto& c = r.cudaUs;
    s.cuda_ms = ((c[1] - c[0]) + (c[3] - c[2])) / 1000.0;
    s.cuda_wait_ms = (c[2] - c[1]) / 1000.0;
    s.draw_ms = r.drawMs;
    s.annotations_ms = r.annotationsMs;
    s.wait_ms = r.waitMs;
    s.gpu_interval_ms = r.gpuIntervalMs;
    s.from_graph = r.fromGraph ? 1 : 0;
    s.begin_us = us(r.beginNs);
    s.wait_start_us = us(r.waitStartNs);
    s.wait_end_us = us(r.waitEndNs);
    s.end_us = us(r.endNs);
    s.record_end_us = us(r.recordEndNs);
    s.submit_start_us = us(r.submitStartNs);
    s.submit_end_us = us(r.submitEndNs);
    std::copy(c.begin(), c.end(), s.raw_cuda_us);
    s.raw_draw_ticks[0] = r.drawTicks[0];
    s.raw_draw_ticks[1] = r.drawTicks[1];
    align(v.timing, s);
    return s;
}

void alignStats(const estuary_viewer& v, estuary_frame_stats& stats) {
    align(v.timing, stats);
}

void calibrateClocks(estuary_viewer& v) {
    Timing& t = v.timing;
    if (v.device.timestampValidBits > 0 && !v.gl) {
        t.vulkanUsPerTick = double(v.device.properties.limits.timestampPeriod) / 1000.0;
        if (v.device.getCalibratedTimestamps) {
            t.vulkan.method = std::string("calibrated timestamps (") +
                              v.device.calibratedTimestampsExtension +
                              ", device and CLOCK_MONOTONIC domains)";
            addPoint(t, t.vulkan, calibratedTimestamps(v.device));
            t.vulkanSubmission.method = "bracketed submission";
            addPoint(t, t.vulkanSubmission, bracketedSubmissions(v));
        } else {
            t.vulkan.method = "bracketed submission (a timestamp written between two host reads)";
            addPoint(t, t.vulkan, bracketedSubmissions(v));
        }
    }
    if (v.cuda)
        if (const auto bracket = cudaClockBracket(v, kTries)) {
            t.cuda.method = "bracketed event on an idle CUDA stream";
            t.cuda.points.push_back(*bracket);
        }
    fitClocks(v);
}

void fitClocks(estuary_viewer& v) {
    Timing& t = v.timing;
    for (ClockAlignment* a : {&t.vulkan, &t.vulkanSubmission, &t.cuda})
        if (!a->points.empty()) a->fit = fitClock(a->points);
    if (t.cuda.aligned()) {
        // CUDA reads event times as float milliseconds since the reference: half a float step at
        // the largest time read bounds what that costs.
        const float lastMs = float(t.cuda.points.back().deviceUs / 1000.0);
        const double stepMs = double(std::nextafter(lastMs, INFINITY) - lastMs);
        t.cuda.fit.errorUs += 0.5 * stepMs * 1000.0;
    }
    t.summary =
        describe("Vulkan", t.vulkan) +
        (t.vulkanSubmission.points.empty() ? ""
                                           : describe("Vulkan (cross-check)", t.vulkanSubmission)) +
        (v.cuda ? describe("CUDA", t.cuda) : "");
}

estuary_clock_info clockInfo(estuary_viewer& v) {
    const Timing& t = v.timing;
    const auto describe = [](const ClockAlignment& a) {
        estuary_clock_alignment out{};
        out.aligned = a.aligned();
        out.method = a.method.c_str();
        out.error_us = out.tightest_half_width_us = out.drift_ppm = out.span_s = kNotMeasured;
        if (!a.aligned()) return out;
        out.error_us = a.fit.errorUs;
        out.drift_ppm = driftPpm(a.fit);
        out.calibrations = uint32_t(a.fit.points);
        out.tightest_half_width_us = INFINITY;
        for (const ClockBracket& p : a.points)
            out.tightest_half_width_us = std::min(out.tightest_half_width_us, p.halfWidthUs());
        out.span_s = (a.points.back().deviceUs - a.points.front().deviceUs) / 1e6;
        return out;
    };
    estuary_clock_info info{};
    info.vulkan = describe(t.vulkan);
    info.vulkan_cross_check = describe(t.vulkanSubmission);
    info.cuda = describe(t.cuda);
    info.cross_check_offset_us = kNotMeasured;
    if (t.vulkan.aligned() && t.vulkanSubmission.aligned()) {
        // Compared where both fits hold their error bound, between their first and last points:
        // outside, a drift estimated from a few brackets grows the gap with the distance (on a
        // loaded machine the cross-check's first bracket can come tens of ms after the first
        // calibration). Without overlap, at the cross-check's nearest point.
        const auto span = [](const ClockAlignment& a) {
            return std::pair{a.points.front().deviceUs, a.points.back().deviceUs};
        };
        const auto [v0, v1] = span(t.vulkan);
        const auto [s0, s1] = span(t.vulkanSubmission);
        const double low = std::max(v0, s0), high = std::min(v1, s1);
        const double device = low <= high ? 0.5 * (low + high) : (s0 > v1 ? s0 : s1);
        info.cross_check_offset_us =
            toHostUs(t.vulkanSubmission.fit, device) - toHostUs(t.vulkan.fit, device);
    }
    info.handoff_error_us = t.cuda.aligned() && t.vulkan.aligned()
                                ? t.cuda.fit.errorUs + t.vulkan.fit.errorUs
                                : kNotMeasured;
    info.summary = t.summary.c_str();
    return info;
}

estuary_metrics metrics(estuary_viewer& v) {
    estuary_metrics m{};
    const Timing& t = v.timing;
    m.frames_drawn = t.recentCount;
    m.frames_presented = v.framesPresented;
    m.swapchain_recreations = swapchainRecreations(v);
    m.stats_dropped = t.dropped;
    m.handoff_checks = t.handoffChecks;
    m.handoff_regressions = t.handoffRegressions;
    const PipelineCache& cache = v.kit.pipelineCache;
    m.pipelines_created = cache.pipelinesCreated;
    m.pipeline_cache_hits = cache.cacheHits;
    m.pipeline_create_ms = cache.createMs;
    m.pipeline_cache_loaded_bytes = cache.loadedBytes;
    std::vector<double> values;
    const auto over = [&](auto field, double p) {
        values.clear();
        for (const FrameRecord& r : t.recent)
            values.push_back(field(r));
        return percentile(values, p);
    };
    const auto interval = [](const FrameRecord& r) { return r.intervalMs; };
    m.interval_ms_p50 = over(interval, 50);
    m.interval_ms_p99 = over(interval, 99);
    m.fps = m.interval_ms_p50 > 0 ? 1000.0 / m.interval_ms_p50 : 0.0;
    m.cuda_ms_p50 = over(
        [](const FrameRecord& r) {
            return ((r.cudaUs[1] - r.cudaUs[0]) + (r.cudaUs[3] - r.cudaUs[2])) / 1000.0;
        },
        50);
    m.draw_ms_p50 = over([](const FrameRecord& r) { return r.drawMs; }, 50);
    m.wait_ms_p50 = over([](const FrameRecord& r) { return r.waitMs; }, 50);
    m.host_busy_us_p50 = over([](const FrameRecord& r) { return r.hostBusyUs; }, 50);
    m.handoff_ms_p50 = over([&](const FrameRecord& r) { return statsOf(v, r).handoff_ms; }, 50);
    const MemoryBudget budget = queryMemoryBudget(v.device);
    m.device_local_budget = budget.deviceLocalBudget;
    m.device_local_usage = budget.deviceLocalUsage;
    m.host_visible_budget = budget.hostVisibleBudget;
    m.host_visible_usage = budget.hostVisibleUsage;
    cudaMemory(v, m.cuda_free, m.cuda_total);
    m.host_available = hostAvailable().value_or(0);
    for (const auto& image : v.images) {
        m.allocated_device_bytes += uint64_t(image->stagingBytes) * image->copies;
        if (image->writer == ESTUARY_WRITER_HOST)
            m.allocated_host_bytes += uint64_t(image->stagingBytes) * v.hostRing;
    }
    for (const auto& buffer : v.buffers) {
        m.allocated_device_bytes += buffer->size * buffer->copies;
        if (buffer->writer == ESTUARY_WRITER_HOST)
            m.allocated_host_bytes += buffer->size * v.hostRing;
    }
    return m;
}

namespace {

std::string gib(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f GiB", double(bytes) / double(1ull << 30));
    return text;
}

} // namespace

MemoryBudget queryMemoryBudget(const Device& device) {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budgetProps{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    const bool budgetExt =
        deviceOffersExtension(device.physical, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    VkPhysicalDeviceMemoryProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
                                            budgetExt ? &budgetProps : nullptr};
    vkGetPhysicalDeviceMemoryProperties2(device.physical, &props);
    const VkPhysicalDeviceMemoryProperties& memory = props.memoryProperties;
    // The heap of the first memory type with the flags: where images and staging land.
    const auto heapOf = [&](VkMemoryPropertyFlags flags) -> std::optional<uint32_t> {
        for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
            if ((memory.memoryTypes[i].propertyFlags & flags) == flags)
                return memory.memoryTypes[i].heapIndex;
        return std::nullopt;
    };
    MemoryBudget out;
    out.source = budgetExt ? "VK_EXT_memory_budget" : "the heap's size";
    const auto read = [&](uint32_t heap, uint64_t& budget, uint64_t& usage) {
        budget = budgetExt ? budgetProps.heapBudget[heap] : memory.memoryHeaps[heap].size;
        usage = budgetExt ? budgetProps.heapUsage[heap] : 0;
        return budget > usage ? budget - usage : 0;
    };
    const auto local = heapOf(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    const auto visible =
        heapOf(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (local) out.deviceLocalFree = read(*local, out.deviceLocalBudget, out.deviceLocalUsage);
    if (visible) out.hostVisibleFree = read(*visible, out.hostVisibleBudget, out.hostVisibleUsage);
    out.sameHeap = local && visible && *local == *visible;
    return out;
}

void checkFits(const estuary_viewer& v, uint64_t deviceBytes, uint64_t hostBytes,
               const std::string& what) {
    const MemoryBudget budget = queryMemoryBudget(v.device);
    std::string problems;
    const auto check = [&](uint64_t needed, std::optional<uint64_t> free, const char* kind) {
        if (!free || needed <= *free) return;
        problems += std::string(problems.empty() ? "" : "; ") + kind + ": " + gib(needed) +
                    " needed, " + gib(*free) + " free (" + budget.source + ")";
    };
    if (budget.sameHeap) {
        check(deviceBytes + hostBytes, budget.deviceLocalFree, "Vulkan memory");
    } else {
        check(deviceBytes, budget.deviceLocalFree, "device-local Vulkan memory");
        check(hostBytes, budget.hostVisibleFree, "host-visible Vulkan memory");
    }
    if (v.cuda && deviceBytes > 0) {
        uint64_t freeBytes = 0, total = 0;
        cudaMemory(v, freeBytes, total);
        if (total > 0) check(deviceBytes, freeBytes, "CUDA device memory");
    }
    if (const auto host = hostAvailable()) check(hostBytes, host, "host memory");
    if (!problems.empty())
        throw outOfMemory(what + " does not fit in memory: " + problems + "; " +
                          kOutOfGpuMemoryHint);
}

} // namespace estuary::lib
