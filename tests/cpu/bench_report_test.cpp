// The benchmark report writers: the JSON is strict JSON (read back by nlohmann-json, repeated
// keys refused too) with every documented key, ordered percentiles, null for unmeasured values and
// escaped strings; an interrupted run says so; the CSV has one row per frame (also when written in
// pieces); writeTextFile names the path on failure; and the committed sample in tests/data (used
// by the plot test) is exactly what the writers produce today.
#include "bench_report.h"
#include "bench_stats.h"
#include "errors.h"
#include "test_support.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace estuary {
namespace {

// ---------------------------------------------------------------------------------------------
// The report read back by nlohmann-json (strict RFC 8259: no NaN, no trailing comma, no leading
// zero, no raw control character), into a plain tree the tests read; a key repeated in an object,
// which nlohmann would keep silently, is an error too.

struct Json {
    enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
    bool boolean = false;
    double number = 0;
    std::string string;
    std::vector<Json> array;
    std::vector<std::pair<std::string, Json>> object;

    const Json* find(std::string_view key) const {
        for (const auto& [name, value] : object)
            if (name == key) return &value;
        return nullptr;
    }
    const Json& operator[](std::string_view key) const {
        if (const Json* value = find(key)) return *value;
        throw std::runtime_error("missing key " + std::string(key));
    }
    bool isNull() const { return type == Type::Null; }
};

using Parsed = nlohmann::ordered_json;

Json toTree(const Parsed& parsed) {
    Json out;
    if (parsed.is_boolean()) {
        out.type = Json::Type::Bool;
        out.boolean = parsed.get<bool>();
    } else if (parsed.is_number()) {
        out.type = Json::Type::Number;
        out.number = parsed.get<double>();
    } else if (parsed.is_string()) {
        out.type = Json::Type::String;
        out.string = parsed.get<std::string>();
    } else if (parsed.is_array()) {
        out.type = Json::Type::Array;
        for (const Parsed& element : parsed)
            out.array.push_back(toTree(element));
    } else if (parsed.is_object()) {
        out.type = Json::Type::Object;
        for (const auto& [key, value] : parsed.items())
            out.object.emplace_back(key, toTree(value));
    }
    return out;
}

Json parseJson(const std::string& text) {
    std::vector<std::set<std::string>> keys; // one set per open object
    std::string repeated;
    const Parsed::parser_callback_t noteKeys = [&](int, Parsed::parse_event_t event,
                                                   Parsed& parsed) {
        if (event == Parsed::parse_event_t::object_start) keys.emplace_back();
        if (event == Parsed::parse_event_t::object_end) keys.pop_back();
        if (event == Parsed::parse_event_t::key && !keys.back().insert(parsed).second)
            repeated = parsed.get<std::string>();
        return true;
    };
    Parsed parsed;
    try {
        parsed = Parsed::parse(text, noteKeys);
    } catch (const Parsed::parse_error& e) {
        throw std::runtime_error(e.what());
    }
    if (!repeated.empty()) throw std::runtime_error("the key " + repeated + " is repeated");
    return toTree(parsed);
}

TEST(BenchJsonParser, RejectsWhatJsonForbids) {
    for (const char* bad : {"{\"a\": NaN}", "{\"a\": nan}", "[1,]", "{\"a\" 1}", "[01]",
                            "\"tab\there\"", "{\"a\": 1, \"a\": 2}", "[1] x", "[.5]"})
        EXPECT_THROW(parseJson(bad), std::runtime_error) << bad;
    EXPECT_EQ(parseJson("[-1.5e+2]").array.at(0).number, -150);
}

// ---------------------------------------------------------------------------------------------
// Reports to write.

// Deterministic and built from + - × / only, so the committed sample is the same on every libm.
class SampleNoise {
  public:
    double uniform() { // [0, 1)
        state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
        return double(state_ >> 11) * (1.0 / 9007199254740992.0);
    }
    double bell() { return uniform() + uniform() + uniform() - 1.5; } // -1.5..1.5, peaked at 0

  private:
    uint64_t state_ = 0x5eedull;
};

// Synthetic, shaped like a real run: pipelined overlaps the simulation with the draw, serialized
// adds a host round trip per frame, host-copy measures no interop wait (empty CSV fields).
BenchReport sampleReport() {
    BenchReport report;
    report.env = {.gpuName = "NVIDIA H100 80GB HBM3 (synthetic sample)",
                  .gpuUuid = "GPU-00000000-0000-0000-0000-000000000000",
                  .driverVersion = "580.00",
                  .vulkanApiVersion = "1.4.312",
                  .vulkanDriver = "NVIDIA",
                  .cudaRuntimeVersion = "13.0",
                  .cudaDriverVersion = "13.0",
                  .backend = "cuda",
                  .gitRevision = "sample",
                  .buildType = "Release",
                  .hostName = "sample-host",
                  .date = "2025-01-01T00:00:00Z",
                  .smCount = 132,
                  .memoryClockMHz = 2619,
                  .memoryBusWidthBits = 5120,
                  .peakBandwidthGBs = ddrPeakBandwidthGBs(2619, 5120)};
    report.config = {.simulation = "gray-scott",
                     .width = 2048,
                     .height = 2048,
                     .depth = 1,
                     .outputWidth = 768,
                     .outputHeight = 768,
                     .stepsPerFrame = 64,
                     .framesInFlight = 2,
                     .warmup = 20,
                     .frames = 200,
                     .modes = "pipelined,serialized,host-copy",
                     .seed = 1};
    struct Shape {
        const char* mode;
        double hostMs;  // CPU time per frame not overlapped with the GPU
        double waitMs;  // NaN: not measured
        int hitchEvery; // frames between stalls
    };
    const Shape shapes[] = {{"pipelined", 0.05, 0.02, 67},
                            {"serialized", 1.10, 0.35, 53},
                            {"host-copy", 4.80, kNotMeasured, 41}};
    SampleNoise noise;
    for (const Shape& shape : shapes) {
        // Gray-Scott's v: one R32 image with its full chain, 2048² (about 4/3 of level 0).
        const double outputBytes = 22369620.0;
        ModeResult mode{.mode = shape.mode,
                        .handoff = std::string(shape.mode) == "host-copy" ? "staging" : "timeline",
                        .bytesPerCellStep = 16,
                        .outputBytesPerFrame = outputBytes,
                        .hostBytesPerFrame =
                            std::string(shape.mode) == "host-copy" ? 2 * outputBytes : 0.0};
        for (int i = 0; i < 200; ++i) {
            FrameSample f;
            f.simMs = 2.60 + 0.05 * noise.bell();
            f.renderMs = 0.45 + 0.02 * noise.bell();
            f.waitMs =
                std::isnan(shape.waitMs) ? kNotMeasured : shape.waitMs * (1.0 + 0.3 * noise.bell());
            f.gpuBusyMs = f.simMs + f.renderMs;
            f.frameMs = f.gpuBusyMs + shape.hostMs + 0.08 * noise.bell() + 0.12;
            if (i % shape.hitchEvery == shape.hitchEvery - 1) f.frameMs *= 2.4 + noise.uniform();
            // The host interval is bursty under pipelining: short submits, then a long wait.
            f.cpuFrameMs = f.frameMs * (i % 3 == 2 ? 2.5 : 0.25);
            const bool interop = std::string(shape.mode) != "host-copy";
            // Not drawn from `noise`, so the other columns stay what they were.
            const double spread = double((i * 37) % 100) / 100.0;
            f.handoffMs = interop ? 0.012 + 0.004 * spread : kNotMeasured;
            f.hostBusyUs = (interop ? 14.0 : 900.0) * (1.0 + 0.2 * spread);
            mode.wallSeconds += f.frameMs / 1000.0;
            mode.frames.push_back(f);
        }
        if (std::string(shape.mode) != "host-copy") mode.handoffErrorUs = 1.5;
        // The energy counter read for the first two modes; the third says why it was not.
        if (std::string(shape.mode) != "host-copy") {
            mode.energyJoules = 310.0 * mode.wallSeconds;
            mode.energySource =
                "NVML total energy counter (GPU-00000000-0000-0000-0000-000000000000)";
        } else {
            mode.energySource = "libnvidia-ml.so.1 (NVIDIA's driver) is not here";
        }
        report.modes.push_back(std::move(mode));
    }
    report.modes.back().note = "copies each frame through pinned host memory; no interop wait";
    return report;
}

ModeResult constantMode(const std::string& name, double frameMs, size_t frames) {
    ModeResult mode{.mode = name, .wallSeconds = frameMs * double(frames) / 1000.0};
    for (size_t i = 0; i < frames; ++i)
        mode.frames.push_back({.frameMs = frameMs,
                               .simMs = frameMs / 2,
                               .renderMs = frameMs / 4,
                               .waitMs = 0.01,
                               .gpuBusyMs = frameMs * 0.8});
    return mode;
}

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// ---------------------------------------------------------------------------------------------

TEST(BenchReportJson, SampleIsStrictJsonWithEveryDocumentedKey) {
    const Json root = parseJson(toJson(sampleReport()));
    EXPECT_EQ(root["schema_version"].number, 8);
    EXPECT_EQ(root.object.at(1).first, "interrupted");
    EXPECT_EQ(root["interrupted"].type, Json::Type::Bool);
    EXPECT_FALSE(root["interrupted"].boolean);
    for (const char* key :
         {"gpu_name", "gpu_uuid", "driver_version", "vulkan_api_version", "vulkan_driver",
          "cuda_runtime_version", "cuda_driver_version", "backend", "git_revision", "build_type",
          "host_name", "date", "sm_count", "memory_clock_mhz", "memory_bus_width_bits",
          "peak_bandwidth_GBps"})
        EXPECT_TRUE(root["environment"].find(key)) << key;
    for (const char* key : {"simulation", "width", "height", "depth", "steps_per_frame",
                            "frames_in_flight", "warmup", "frames", "modes", "seed", "output_width",
                            "output_height", "draw", "cuda_graphs", "handoff_batch"})
        EXPECT_TRUE(root["configuration"].find(key)) << key;

    const Json& modes = root["modes"];
    ASSERT_EQ(modes.array.size(), 3u);
    for (const Json& mode : modes.array) {
        SCOPED_TRACE(mode["mode"].string);
        for (const char* key :
             {"mode", "frames_measured", "frames_from_cuda_graphs", "wall_seconds", "note",
              "frame_time_ms", "fps_mean", "one_percent_low_fps", "one_percent_low_definition",
              "hitches", "gpu_segments_ms", "gpu_busy_ms_per_frame", "handoff_latency_ms",
              "handoff_alignment_error_us", "handoff_latency_definition", "host_busy_us",
              "host_busy_definition", "throughput"})
            EXPECT_TRUE(mode.find(key)) << key;
        for (const char* key : {"mean", "min", "p50", "p90", "p99", "max"}) {
            EXPECT_TRUE(mode["handoff_latency_ms"].find(key)) << key;
            EXPECT_EQ(mode["host_busy_us"][key].type, Json::Type::Number) << key;
        }
        // The sample's host-copy mode has no interop: no hand-off, and no error bound for one.
        const bool interop = mode["mode"].string != "host-copy";
        EXPECT_EQ(mode["handoff_latency_ms"]["p50"].type,
                  interop ? Json::Type::Number : Json::Type::Null);
        EXPECT_EQ(mode["handoff_alignment_error_us"].type,
                  interop ? Json::Type::Number : Json::Type::Null);
        for (const char* key : {"count", "threshold_ms", "definition"})
            EXPECT_TRUE(mode["hitches"].find(key)) << key;
        for (const char* segment : {"simulation", "render", "interop_wait"})
            for (const char* key : {"p50", "p95", "p99"})
                EXPECT_TRUE(mode["gpu_segments_ms"][segment].find(key)) << segment << key;
        for (const char* key : {"mean", "p50"})
            EXPECT_TRUE(mode["gpu_busy_ms_per_frame"].find(key)) << key;
        for (const char* key : {"cell_updates_per_s", "sim_achieved_GBps",
                                "sim_percent_of_peak_bandwidth", "bytes_per_cell_step"})
            EXPECT_TRUE(mode["throughput"].find(key)) << key;
        EXPECT_EQ(mode["frames_measured"].number, 200);
        for (const char* key : {"joules", "watts_mean", "joules_per_frame", "source"})
            EXPECT_TRUE(mode["energy"].find(key)) << key;
        EXPECT_EQ(mode["energy"]["watts_mean"].type,
                  interop ? Json::Type::Number : Json::Type::Null);
    }
    for (const char* key : {"pipelined_vs_serialized_fps", "pipelined_vs_host_copy_fps",
                            "serialized_vs_host_copy_fps"})
        EXPECT_EQ(root["ratios"][key].type, Json::Type::Number) << key;
    EXPECT_EQ(root["targets"]["pipelined_frame_over_gpu_busy"].type, Json::Type::Number);
    for (const char* key : {"pipelined", "serialized", "host_copy"})
        EXPECT_EQ(root["targets"]["p99_over_p50"][key].type, Json::Type::Number) << key;
}

TEST(BenchReportJson, EnergyIsTheCountersDifferenceOverTheModesWallTimeAndFrames) {
    ModeResult mode = constantMode("pipelined", 4, 250); // 1 s of wall time
    mode.energyJoules = 287.5;
    mode.energySource = "NVML total energy counter (GPU-1)";
    BenchReport report;
    report.modes.push_back(mode);
    const Json root = parseJson(toJson(report));
    const Json& energy = root["modes"].array.at(0)["energy"];
    EXPECT_DOUBLE_EQ(energy["joules"].number, 287.5);
    EXPECT_DOUBLE_EQ(energy["watts_mean"].number, 287.5);
    EXPECT_DOUBLE_EQ(energy["joules_per_frame"].number, 1.15);
    EXPECT_EQ(energy["source"].string, mode.energySource);
    const std::string table = formatSummaryTable(report);
    EXPECT_NE(table.find("energy: 287.5 W, 1.1500 J/frame (NVML total energy counter (GPU-1))"),
              std::string::npos)
        << table;
    report.modes[0].energyJoules = kNotMeasured;
    report.modes[0].energySource = "libnvidia-ml.so.1 (NVIDIA's driver) is not here";
    EXPECT_TRUE(parseJson(toJson(report))["modes"].array.at(0)["energy"]["joules"].isNull());
    EXPECT_NE(formatSummaryTable(report).find("energy: not measured (libnvidia-ml.so.1"),
              std::string::npos);
}

TEST(BenchReportJson, AnInterruptedRunSaysSoAndKeepsTheFramesItMeasured) {
    BenchReport report = sampleReport();
    report.interrupted = true;
    report.modes[0].frames.resize(37);
    report.modes[0].note = "interrupted by SIGINT after 37 of 200 measured frames";
    report.modes[1] = {.mode = "serialized", .note = "not run: the benchmark was stopped"};
    report.modes[2] = {.mode = "host-copy", .note = "not run: the benchmark was stopped"};
    const Json root = parseJson(toJson(report));
    EXPECT_TRUE(root["interrupted"].boolean);
    EXPECT_EQ(root["configuration"]["frames"].number, 200);
    EXPECT_EQ(root["modes"].array.at(0)["frames_measured"].number, 37);
    EXPECT_EQ(root["modes"].array.at(0)["note"].string, report.modes[0].note);
    EXPECT_EQ(root["modes"].array.at(1)["frames_measured"].number, 0);
    EXPECT_TRUE(root["modes"].array.at(2)["frame_time_ms"]["p50"].isNull());
    EXPECT_NE(formatSummaryTable(report).find("interrupted"), std::string::npos);
    EXPECT_EQ(formatSummaryTable(sampleReport()).find("interrupted"), std::string::npos);
}

TEST(BenchReportJson, FrameTimePercentilesAreOrderedAndComputedFromTheFrames) {
    const BenchReport report = sampleReport();
    const Json root = parseJson(toJson(report));
    for (size_t m = 0; m < report.modes.size(); ++m) {
        const Json& ft = root["modes"].array.at(m)["frame_time_ms"];
        double previous = -1;
        for (const char* key : {"min", "p50", "p90", "p95", "p99", "p99_9", "max"}) {
            EXPECT_LE(previous, ft[key].number) << report.modes[m].mode << " " << key;
            previous = ft[key].number;
        }
        // Computed here from the frames, not by the summary the writer itself calls: nearest
        // rank in integers (rank k = ceil(p n / 100)), the sample standard deviation, hitches
        // strictly above twice the median.
        std::vector<double> ms;
        for (const FrameSample& f : report.modes[m].frames)
            if (std::isfinite(f.frameMs)) ms.push_back(f.frameMs);
        std::sort(ms.begin(), ms.end());
        const size_t n = ms.size();
        const auto rank = [&](size_t percent) { return ms[(percent * n + 99) / 100 - 1]; };
        double mean = 0, squares = 0;
        for (double v : ms)
            mean += v / double(n);
        for (double v : ms)
            squares += (v - mean) * (v - mean);
        const double stddev = std::sqrt(squares / double(n - 1));
        const auto hitches =
            std::count_if(ms.begin(), ms.end(), [&](double v) { return v > 2.0 * rank(50); });
        // The report prints 9 significant digits.
        EXPECT_NEAR(ft["p50"].number, rank(50), 1e-8 * rank(50));
        EXPECT_NEAR(ft["p99"].number, rank(99), 1e-8 * rank(99));
        EXPECT_NEAR(ft["min"].number, ms.front(), 1e-8 * ms.front());
        EXPECT_NEAR(ft["max"].number, ms.back(), 1e-8 * ms.back());
        EXPECT_NEAR(ft["stddev"].number, stddev, 1e-8 * stddev);
        EXPECT_EQ(root["modes"].array.at(m)["hitches"]["count"].number, double(hitches));
        EXPECT_GT(hitches, 0); // the sample has stalls for the plot to show
    }
}

TEST(BenchReportJson, UnmeasuredValuesBecomeNull) {
    BenchReport report = sampleReport();
    const std::string text = toJson(report);
    EXPECT_EQ(text.find("nan"), std::string::npos);
    EXPECT_EQ(text.find("inf"), std::string::npos);
    const Json root = parseJson(text);
    const Json& hostCopyWait = root["modes"].array.at(2)["gpu_segments_ms"]["interop_wait"];
    EXPECT_TRUE(hostCopyWait["p50"].isNull());
    EXPECT_TRUE(hostCopyWait["p99"].isNull());
}

TEST(BenchReportJson, UnknownEnvironmentStringsAndNumbersBecomeNull) {
    BenchReport report = sampleReport();
    report.env.cudaRuntimeVersion.clear(); // what the CPU backend leaves
    report.env.smCount = 0;
    const Json root = parseJson(toJson(report));
    EXPECT_TRUE(root["environment"]["cuda_runtime_version"].isNull());
    EXPECT_TRUE(root["environment"]["sm_count"].isNull());
    EXPECT_EQ(root["environment"]["cuda_driver_version"].string, "13.0");
}

TEST(BenchReportJson, SkippedModeKeepsEveryKeyWithNullStatistics) {
    BenchReport report = sampleReport();
    report.modes.push_back({.mode = "extra", .note = "skipped: needs the CUDA backend"});
    report.env.smCount = 0; // not queried
    const Json root = parseJson(toJson(report));
    const Json& skipped = root["modes"].array.at(3);
    EXPECT_EQ(skipped["frames_measured"].number, 0);
    EXPECT_EQ(skipped["note"].string, "skipped: needs the CUDA backend");
    EXPECT_TRUE(skipped["frame_time_ms"]["p50"].isNull());
    EXPECT_TRUE(skipped["fps_mean"].isNull());
    EXPECT_TRUE(skipped["hitches"]["count"].isNull());
    EXPECT_TRUE(skipped["throughput"]["cell_updates_per_s"].isNull());
    EXPECT_TRUE(root["ratios"]["pipelined_vs_extra_fps"].isNull());
    EXPECT_TRUE(root["environment"]["sm_count"].isNull());
}

TEST(BenchReportJson, StringsWithQuotesBackslashesAndControlCharactersRoundTrip) {
    BenchReport report;
    const std::string awkward = "say \"hi\" C:\\path\nnext\tline\r\x01 end";
    report.env.gpuName = awkward;
    report.modes.push_back({.mode = "pipelined", .note = awkward});
    const std::string text = toJson(report);
    EXPECT_NE(text.find(R"(say \"hi\" C:\\path\nnext\tline\r\u0001 end)"), std::string::npos);
    const Json root = parseJson(text);
    EXPECT_EQ(root["environment"]["gpu_name"].string, awkward);
    EXPECT_EQ(root["modes"].array.at(0)["note"].string, awkward);
}

TEST(BenchReportJson, RatiosCoverEveryPairOfPresentModes) {
    BenchReport report;
    report.modes = {constantMode("pipelined", 4, 50), constantMode("serialized", 8, 50),
                    constantMode("host-copy", 10, 50)};
    const Json root = parseJson(toJson(report));
    const Json& ratios = root["ratios"];
    EXPECT_EQ(ratios.object.size(), 3u);
    EXPECT_DOUBLE_EQ(ratios["pipelined_vs_serialized_fps"].number, 2.0);
    EXPECT_DOUBLE_EQ(ratios["pipelined_vs_host_copy_fps"].number, 2.5);
    EXPECT_DOUBLE_EQ(ratios["serialized_vs_host_copy_fps"].number, 1.25);
    EXPECT_DOUBLE_EQ(root["targets"]["pipelined_frame_over_gpu_busy"].number, 1.25); // 4 / 3.2
    EXPECT_DOUBLE_EQ(root["targets"]["p99_over_p50"]["serialized"].number, 1.0);

    report.modes.erase(report.modes.begin() + 1);
    const Json two = parseJson(toJson(report));
    EXPECT_EQ(two["ratios"].object.size(), 1u);
    EXPECT_FALSE(two["ratios"].find("pipelined_vs_serialized_fps"));
}

TEST(BenchReportJson, ThroughputFollowsItsDefinitions) {
    BenchReport report;
    report.config = {.width = 100, .height = 50, .stepsPerFrame = 4, .frames = 10};
    report.env.peakBandwidthGBs = 100;
    ModeResult mode = constantMode("pipelined", 4, 10); // sim p50 = 2 ms
    mode.wallSeconds = 0.5;
    mode.bytesPerCellStep = 16;
    report.modes.push_back(mode);
    const Json root = parseJson(toJson(report));
    const Json& t = root["modes"].array.at(0)["throughput"];
    EXPECT_DOUBLE_EQ(t["cell_updates_per_s"].number, 100.0 * 50 * 4 * 10 / 0.5);
    EXPECT_DOUBLE_EQ(t["sim_achieved_GBps"].number, 16.0 * 100 * 50 * 4 / 0.002 / 1e9);
    EXPECT_DOUBLE_EQ(t["sim_percent_of_peak_bandwidth"].number, 0.16);
    EXPECT_DOUBLE_EQ(t["bytes_per_cell_step"].number, 16);
    EXPECT_DOUBLE_EQ(root["modes"].array.at(0)["fps_mean"].number, 250);
}

TEST(BenchPeakBandwidth, IsTwoTransfersPerClockTimesBusBytes) {
    EXPECT_DOUBLE_EQ(ddrPeakBandwidthGBs(2619, 5120), 3352.32); // H100 SXM: 2.619 GHz, 5120 bit
    EXPECT_DOUBLE_EQ(ddrPeakBandwidthGBs(1000, 64), 16.0);
}

TEST(BenchReportCsv, HasHeaderAndOneRowPerFrameWithEmptyFieldsForNaN) {
    const BenchReport report = sampleReport();
    const std::string csv = toCsv(report);
    std::istringstream lines(csv);
    std::string line;
    std::vector<std::string> rows;
    while (std::getline(lines, line))
        rows.push_back(line);
    ASSERT_EQ(rows.size(), 3u * 200u + 1u);
    EXPECT_EQ(rows[0], "mode,frame,frame_ms,sim_ms,render_ms,wait_ms,gpu_busy_ms,cpu_frame_ms,"
                       "handoff_ms,host_busy_us");
    EXPECT_EQ(rows[1].rfind("pipelined,0,", 0), 0u);
    EXPECT_EQ(rows[600].rfind("host-copy,199,", 0), 0u);
    // host-copy measures no interop wait: the wait_ms field (6th) is empty, the others are not.
    const std::string& hostCopy = rows[401];
    std::vector<std::string> fields;
    std::istringstream split(hostCopy);
    for (std::string f; std::getline(split, f, ',');)
        fields.push_back(f);
    if (hostCopy.back() == ',') fields.emplace_back();
    ASSERT_EQ(fields.size(), 10u) << hostCopy;
    EXPECT_TRUE(fields[5].empty()) << hostCopy;
    EXPECT_TRUE(fields[8].empty()) << hostCopy; // no hand-off without interop
    for (size_t i : {0u, 1u, 2u, 3u, 4u, 6u, 7u, 9u})
        EXPECT_FALSE(fields[i].empty()) << hostCopy;
}

TEST(BenchReportCsv, WrittenInPiecesOfAbout64KiBThatAddUpToTheWholeCsv) {
    BenchReport report = sampleReport();
    for (int i = 0; i < 12; ++i) // ~18 KB per mode
        report.modes.push_back(report.modes[size_t(i % 3)]);
    std::vector<size_t> sizes;
    std::string joined;
    writeCsv(report, [&](std::string_view piece) {
        sizes.push_back(piece.size());
        joined += piece;
    });
    EXPECT_EQ(joined, toCsv(report));
    ASSERT_GT(sizes.size(), 3u) << "written in one piece";
    for (size_t size : sizes)
        EXPECT_LT(size, 64u * 1024u + 256u);
}

TEST(BenchReportCsv, QuotesAModeNameHoldingACommaOrQuote) {
    BenchReport report;
    report.modes.push_back({.mode = "odd,\"name\"", .frames = {{.frameMs = 1}}});
    EXPECT_EQ(toCsv(report), "mode,frame,frame_ms,sim_ms,render_ms,wait_ms,gpu_busy_ms,cpu_frame_"
                             "ms,handoff_ms,host_busy_us\n"
                             "\"odd,\"\"name\"\"\",0,1,,,,,,,\n");
}

TEST(BenchReportFile, WriteCreatesParentFolders) {
    const auto path = test::scratchDir("bench_write") / "a" / "b" / "report.json";
    writeTextFile(path, "{}\n");
    EXPECT_EQ(readFile(path), "{}\n");
}

TEST(BenchReportFile, FailureIsARuntimeErrorNamingPathAndReason) {
    const auto dir = test::scratchDir("bench_write_fail");
    writeTextFile(dir / "file", "x");
    const auto underFile = dir / "file" / "report.json"; // a regular file cannot be a folder
    try {
        writeTextFile(underFile, "{}");
        FAIL() << "expected an estuary::Error";
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Runtime);
        EXPECT_NE(std::string(e.what()).find(underFile.string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(std::strerror(ENOTDIR)), std::string::npos)
            << e.what();
    }
    try {
        writeTextFile(dir, "{}"); // a folder
        FAIL() << "expected an estuary::Error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(dir.string()), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(std::strerror(EISDIR)), std::string::npos) << e.what();
    }
}

TEST(BenchReportTable, ListsEveryModeRatioAndDefinition) {
    const std::string table = formatSummaryTable(sampleReport());
    for (const char* text :
         {"mode", "p50 ms", "p99 ms", "fps", "1% low", "sim p50", "render p50", "wait p50",
          "pipelined ", "serialized ", "host-copy ",
          "pipelined vs serialized: ", "pipelined vs host-copy: ", "serialized vs host-copy: ",
          "pipelined frame / GPU busy (means): ", "note: copies each frame", "slowest 1%"})
        EXPECT_NE(table.find(text), std::string::npos) << text << "\n" << table;
    EXPECT_EQ(table.find("nan"), std::string::npos) << table;
}

// The plot test draws this committed sample; it must be what the writers produce today.
TEST(BenchReportSample, CommittedSampleMatchesTheWriters) {
    const std::filesystem::path dir = std::filesystem::path(ESTUARY_SOURCE_DIR) / "tests" / "data";
    const BenchReport report = sampleReport();
    if (std::getenv("ESTUARY_UPDATE_BENCH_SAMPLE")) {
        writeTextFile(dir / "sample_bench_report.json", toJson(report));
        writeTextFile(dir / "sample_bench_report.csv", toCsv(report));
        GTEST_SKIP() << "ESTUARY_UPDATE_BENCH_SAMPLE set: wrote the sample instead of comparing";
    }
    const char* hint = "; if the writer change is intended, rerun this test with "
                       "ESTUARY_UPDATE_BENCH_SAMPLE=1 and commit tests/data/sample_bench_report.*";
    EXPECT_EQ(readFile(dir / "sample_bench_report.json"), toJson(report)) << hint;
    EXPECT_EQ(readFile(dir / "sample_bench_report.csv"), toCsv(report)) << hint;
}

} // namespace
} // namespace estuary
