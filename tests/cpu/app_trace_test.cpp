// `--trace` end to end on lavapipe with the CPU backend and the validation layer: a headless run's
// trace is JSON holding, per frame, the simulation's spans (on the host) and the Vulkan queue's
// draw, each draw starting after its frame's simulation ended within the measured alignment error,
// the Vulkan clock's two alignments agreeing within their error bounds; scripts/plot_trace.py draws
// it. A benchmark's report (schema 7) holds host_busy_us and the hand-off latency (null without
// CUDA), and its trace every mode. A bad --trace path, or --trace where nothing would be traced,
// exits 2 before any GPU work.
#include "test_support.h"
#include "trace.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace estuary {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Timestamps in the trace are rounded to the nanosecond.
constexpr double kRoundingUs = 0.002;

json readJson(const fs::path& path) {
    std::ifstream in(path);
    return json::parse(in); // throws on anything but one JSON document
}

std::string readText(const fs::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Names of the trace's tracks: "process / thread" by (pid, tid), from its "M" events.
std::map<std::pair<int, int>, std::string> trackNames(const json& events) {
    std::map<int, std::string> processes;
    std::map<std::pair<int, int>, std::string> threads;
    for (const json& e : events)
        if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    for (const json& e : events)
        if (e["ph"] == "M" && e["name"] == "thread_name")
            threads[{e["pid"], e["tid"]}] =
                processes[e["pid"]] + " / " + e["args"]["name"].get<std::string>();
    return threads;
}

struct Span {
    double start = NAN, end = NAN;
};

// Complete events by frame, for one event name on one track.
std::map<uint64_t, Span> spansOf(const json& events,
                                 const std::map<std::pair<int, int>, std::string>& tracks,
                                 const std::string& track, const std::string& name) {
    std::map<uint64_t, Span> spans;
    for (const json& e : events) {
        if (e["ph"] != "X" || e["name"] != name) continue;
        const auto named = tracks.find({e["pid"], e["tid"]});
        if (named == tracks.end() || named->second != track) continue;
        const double ts = e["ts"], dur = e["dur"];
        spans[e["args"]["frame"].get<uint64_t>()] = {ts, ts + dur};
    }
    return spans;
}

TEST(AppTrace, HeadlessCpuTraceHoldsSimulationAndVulkanSpansDrawnAfterTheirSimulation) {
    const auto dir = test::scratchDir("trace-headless");
    const auto trace = dir / "trace.json";
    const test::ControlledRun r = test::runEstuaryControlled(
        {"--headless", "--backend", "cpu", "--size", "48x48", "--resolution", "64x64", "--frames",
         "40", "--validate", "--screenshot", (dir / "shot.png").string(), "--trace",
         trace.string()});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("validation layer reported 0 message(s)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("clock alignment"), std::string::npos) << r.out;

    const json root = readJson(trace);
    EXPECT_EQ(root["displayTimeUnit"], "ms");
    const json& part = root["otherData"]["parts"].at(0);
    EXPECT_EQ(part["name"], "headless");
    EXPECT_EQ(part["frames"], 40);
    EXPECT_EQ(root["otherData"]["frames_dropped"], 0);
    const json& vulkan = part["alignment"]["vulkan"];
    ASSERT_TRUE(vulkan.is_object()) << part.dump(2);
    const double vulkanErrorUs = vulkan["error_us"];
    EXPECT_GE(vulkanErrorUs, 0);
    EXPECT_LT(vulkanErrorUs, 5000) << "an alignment that says nothing";
    EXPECT_EQ(part["alignment"]["simulation"], "host clock");
    // With calibrated timestamps the fallback ran too: both must place the clock alike.
    const json& submission = part["alignment"]["vulkan_bracketed_submission"];
    if (submission.is_object()) {
        EXPECT_LE(std::abs(submission["offset_from_vulkan_us"].get<double>()),
                  vulkanErrorUs + submission["error_us"].get<double>())
            << part.dump(2);
    }

    const json& events = root["traceEvents"];
    const auto tracks = trackNames(events);
    std::set<std::string> names;
    for (const auto& [key, name] : tracks)
        names.insert(name);
    for (const char* track :
         {"GPU / Vulkan queue", "host / frame loop", "host / simulation (cpu backend)"})
        EXPECT_TRUE(names.count(track)) << track;

    const auto steps = spansOf(events, tracks, "host / simulation (cpu backend)", "steps");
    const auto writes = spansOf(events, tracks, "host / simulation (cpu backend)", "write outputs");
    const auto draws = spansOf(events, tracks, "GPU / Vulkan queue", "draw");
    const auto frames = spansOf(events, tracks, "host / frame loop", "frame");
    const auto submits = spansOf(events, tracks, "host / frame loop", "vkQueueSubmit2");
    ASSERT_EQ(draws.size(), 40u);
    ASSERT_EQ(writes.size(), 40u);
    ASSERT_EQ(steps.size(), 40u);
    ASSERT_EQ(frames.size(), 40u);
    size_t flows = 0;
    for (const json& e : events)
        flows += e["ph"] == "s" || e["ph"] == "f";
    EXPECT_EQ(flows, 80u) << "an arrow from each frame's write to its draw";
    for (uint64_t f = 0; f < 40; ++f) {
        SCOPED_TRACE("frame " + std::to_string(f));
        EXPECT_LE(steps.at(f).end, writes.at(f).start + kRoundingUs);
        // The draw runs on the GPU after the host simulated and submitted it; on the trace's axis
        // that holds up to the Vulkan clock's alignment error.
        EXPECT_GE(draws.at(f).start, writes.at(f).end - vulkanErrorUs - kRoundingUs);
        EXPECT_GE(draws.at(f).start, submits.at(f).start - vulkanErrorUs - kRoundingUs);
        EXPECT_LE(frames.at(f).start, steps.at(f).start + kRoundingUs);
        if (f > 0) {
            EXPECT_GE(frames.at(f).start, frames.at(f - 1).end - kRoundingUs);
            // One queue: draws run in submission order.
            EXPECT_GE(draws.at(f).start, draws.at(f - 1).end - 2 * vulkanErrorUs - kRoundingUs);
        }
    }

    const auto png = dir / "trace.png";
    const std::string plot = test::python() + " '" ESTUARY_SOURCE_DIR "/scripts/plot_trace.py' '" +
                             png.string() + "' '" + trace.string() + "' --frames 10:15 2>&1";
    ASSERT_EQ(std::system(plot.c_str()), 0) << plot;
    const test::Rgba8Image image = test::loadPng(png);
    EXPECT_GT(test::countDistinctColors(image), 8u) << "a flat image, not a timeline";
}

TEST(AppTrace, BenchReportHoldsHostBusyAndHandoffAndTheTraceEveryMode) {
    const auto dir = test::scratchDir("trace-bench");
    const auto report = dir / "report.json";
    const auto csv = dir / "frames.csv";
    const auto trace = dir / "trace.json";
    const test::ControlledRun r = test::runEstuaryControlled(
        {"--bench", "--backend",    "cpu",      "--mode",        "all",   "--size",
         "48x48",   "--resolution", "64x64",    "--frames",      "30",    "--warmup",
         "5",       "--validate",   "--report", report.string(), "--csv", csv.string(),
         "--trace", trace.string()});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("host p50 us"), std::string::npos) << r.out;

    const json root = readJson(report);
    EXPECT_EQ(root["schema_version"], 8);
    for (const json& mode : root["modes"]) {
        SCOPED_TRACE(mode["mode"].get<std::string>());
        const json& busy = mode["host_busy_us"];
        for (const char* key : {"mean", "min", "p50", "p90", "p99", "max"})
            ASSERT_TRUE(busy[key].is_number()) << key << " " << busy.dump();
        EXPECT_GT(busy["p50"].get<double>(), 0);
        EXPECT_LE(busy["p50"].get<double>(), busy["p99"].get<double>());
        EXPECT_TRUE(mode["host_busy_definition"].is_string());
        // No CUDA interop on the CPU backend: no GPU-side hand-off to measure.
        for (const char* key : {"mean", "min", "p50", "p90", "p99", "max"})
            EXPECT_TRUE(mode["handoff_latency_ms"][key].is_null()) << key;
        EXPECT_TRUE(mode["handoff_alignment_error_us"].is_null());
        EXPECT_TRUE(mode["handoff_latency_definition"].is_string());
    }
    const std::string frames = readText(csv);
    EXPECT_EQ(frames.substr(0, frames.find('\n')),
              "mode,frame,frame_ms,sim_ms,render_ms,wait_ms,gpu_busy_ms,cpu_frame_ms,handoff_ms,"
              "host_busy_us");

    const json traced = readJson(trace);
    const json& parts = traced["otherData"]["parts"];
    ASSERT_EQ(parts.size(), 3u);
    std::set<std::string> processes;
    for (const json& e : traced["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["args"]["name"]);
    for (const char* mode : {"pipelined", "serialized", "host-copy"}) {
        EXPECT_TRUE(processes.count(std::string("GPU (") + mode + ")")) << mode;
        EXPECT_TRUE(processes.count(std::string("host (") + mode + ")")) << mode;
    }
    size_t draws = 0;
    for (const json& e : traced["traceEvents"])
        draws += e["ph"] == "X" && e["name"] == "draw";
    EXPECT_EQ(draws, 3u * 35u) << "every frame of every mode, warm-up included";
}

TEST(AppTrace, AnUnwritableTracePathExits2BeforeAnyGpuWork) {
    const auto dir = test::scratchDir("trace-unwritable");
    std::ofstream(dir / "file") << "a regular file where a folder should be";
    const auto trace = (dir / "file" / "trace.json").string();
    for (const std::vector<std::string>& mode :
         {std::vector<std::string>{"--headless", "--screenshot", (dir / "s.png").string()},
          std::vector<std::string>{"--bench", "--warmup", "0"}}) {
        std::vector<std::string> args = mode;
        for (const char* arg : {"--backend", "cpu", "--size", "32x32", "--frames", "3000"})
            args.push_back(arg);
        args.insert(args.end(), {"--trace", trace});
        const test::ControlledRun r = test::runEstuaryControlled(args);
        EXPECT_EQ(r.exitCode, 2) << mode[0] << "\n" << r.out << r.err;
        EXPECT_NE(r.err.find("--trace"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(trace), std::string::npos) << r.err;
        EXPECT_NE(r.err.find(std::strerror(ENOTDIR)), std::string::npos) << r.err;
        EXPECT_EQ(r.out.find("on backend"), std::string::npos) << "a device was opened: " << r.out;
    }
}

TEST(AppTrace, TraceWhereNothingWouldBeTracedExits2) {
    const auto dir = test::scratchDir("trace-refused");
    const auto trace = (dir / "trace.json").string();
    struct Case {
        std::vector<std::string> args;
        const char* says;
    };
    const Case cases[] = {
        {{"--backend", "cpu", "--trace", trace}, "--headless and --bench"},
        {{"--headless", "--consumer", "opengl", "--trace", trace}, "--consumer opengl"},
        {{"--headless", "--screenshot", trace, "--trace", trace}, "same file"}};
    for (const Case& c : cases) {
        const test::ControlledRun r = test::runEstuaryControlled(c.args);
        EXPECT_EQ(r.exitCode, 2) << r.out << r.err;
        EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
        EXPECT_FALSE(fs::exists(trace));
    }
}

} // namespace
} // namespace estuary

namespace estuary {
namespace {

// A split run's GPU spans (sim::GpuSpan, from CUDA events on each GPU) land in the part's "GPU"
// process, one named thread per GPU and stream, on the trace's axis; those beyond the room
// reserved are counted as dropped, not kept.
TEST(AppTrace, EachGpusSpansOfASplitRunGetTheirOwnTracksAndBeyondTheRoomAreDropped) {
    FrameTrace trace(4);
    trace.beginPart("pipelined", "cuda");
    const double now = std::chrono::duration<double, std::micro>(
                           std::chrono::steady_clock::now().time_since_epoch())
                           .count();
    trace.reserveGpuSpans(1, 2); // room for 16 spans
    std::vector<sim::GpuSpan> spans;
    for (uint32_t i = 0; i < 20; ++i) {
        sim::GpuSpan s;
        s.gpu = i % 2;
        s.copyStream = i % 4 == 3;
        s.name = s.copyStream ? "peer copy" : "steps";
        s.frame = i / 4;
        s.startUs = now + 100.0 * i;
        s.endUs = s.startUs + 50.0;
        spans.push_back(s);
    }
    trace.addGpuSpans(spans);
    std::string text;
    trace.write([&](std::string_view piece) { text += piece; });
    const json doc = json::parse(text);
    EXPECT_EQ(doc["otherData"]["gpu_spans_kept"], 16);
    EXPECT_EQ(doc["otherData"]["gpu_spans_dropped"], 4);
    std::map<int, std::string> threads;
    std::vector<json> gpuSpans;
    for (const json& e : doc["traceEvents"]) {
        if (e["ph"] == "M" && e["name"] == "thread_name" && e["tid"].get<int>() >= 10)
            threads[e["tid"].get<int>()] = e["args"]["name"];
        if (e["ph"] == "X" && e["tid"].get<int>() >= 10) gpuSpans.push_back(e);
    }
    EXPECT_EQ(threads, (std::map<int, std::string>{
                           {10, "GPU 0 slabs"}, {12, "GPU 1 slabs"}, {13, "GPU 1 copies"}}));
    ASSERT_EQ(gpuSpans.size(), 16u);
    for (size_t i = 0; i < gpuSpans.size(); ++i) {
        EXPECT_NEAR(gpuSpans[i]["dur"].get<double>(), 50.0, kRoundingUs);
        EXPECT_EQ(gpuSpans[i]["args"]["frame"], i / 4);
        if (i > 0) { // on one axis, 100 µs apart, as recorded
            EXPECT_NEAR(gpuSpans[i]["ts"].get<double>() - gpuSpans[i - 1]["ts"].get<double>(),
                        100.0, kRoundingUs);
        }
    }
    EXPECT_EQ(gpuSpans[3]["name"], "peer copy");
    EXPECT_EQ(gpuSpans[3]["tid"], 13);
}

} // namespace
} // namespace estuary
