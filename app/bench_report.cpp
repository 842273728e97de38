#include "bench_report.h"
#include "bench_stats.h"
#include "errors.h"
#include "output_file.h"

#include <nlohmann/json.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>

namespace estuary {
namespace {

// ---------------------------------------------------------------------------------------------
// Statistics per mode, computed once and shared by the JSON writer and the terminal table.

std::optional<Summary> summarizeColumn(const ModeResult& mode, double FrameSample::*member) {
    std::vector<double> values;
    values.reserve(mode.frames.size());
    for (const FrameSample& frame : mode.frames)
        if (std::isfinite(frame.*member)) values.push_back(frame.*member);
    if (values.empty()) return std::nullopt;
    return summarize(values);
}

struct ModeStats {
    std::optional<Summary> frame, sim, render, wait, busy, cpu, handoff, hostBusy;
};

ModeStats modeStats(const ModeResult& mode) {
    return {summarizeColumn(mode, &FrameSample::frameMs),
            summarizeColumn(mode, &FrameSample::simMs),
            summarizeColumn(mode, &FrameSample::renderMs),
            summarizeColumn(mode, &FrameSample::waitMs),
            summarizeColumn(mode, &FrameSample::gpuBusyMs),
            summarizeColumn(mode, &FrameSample::cpuFrameMs),
            summarizeColumn(mode, &FrameSample::handoffMs),
            summarizeColumn(mode, &FrameSample::hostBusyUs)};
}

// NaN when the summary is absent; the writers print NaN as null or "-".
double field(const std::optional<Summary>& summary, double Summary::*member) {
    return summary ? (*summary).*member : kNotMeasured;
}

double fpsMean(const ModeStats& stats) {
    return 1000.0 / field(stats.frame, &Summary::mean);
}

// "host-copy" → "host_copy", so mode names read as plain JSON keys.
std::string keyName(const std::string& mode) {
    std::string key = mode;
    for (char& c : key)
        if (c == '-' || c == ' ') c = '_';
    return key;
}

struct Named {
    const ModeResult* mode;
    ModeStats stats;
};

// The first result of each mode name, in report order; a repeated name would repeat JSON keys.
std::vector<Named> distinctModes(const BenchReport& report) {
    std::vector<Named> out;
    std::set<std::string> seen;
    for (const ModeResult& mode : report.modes)
        if (seen.insert(mode.mode).second) out.push_back({&mode, modeStats(mode)});
    return out;
}

// Means, not medians: pipelined frames finish in bursts (several back to back, then a gap), so a
// median frame time describes the burst, not the rate; the mean is 1 / throughput.
double pipelinedFrameOverGpuBusy(const std::vector<Named>& modes) {
    for (const Named& m : modes)
        if (m.mode->mode == "pipelined")
            return field(m.stats.frame, &Summary::mean) / field(m.stats.busy, &Summary::mean);
    return kNotMeasured;
}

// ---------------------------------------------------------------------------------------------
// Formatting of numbers and strings.

// Locale-independent, 9 significant digits: enough for microsecond detail on second-long frames.
std::string formatNumber(double value) {
    std::array<char, 64> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value,
                                      std::chars_format::general, 9);
    return std::string(buffer.data(), result.ptr);
}

// The report's numbers in its own spelling (formatNumber): nlohmann writes doubles in their
// shortest round-trip form ("3.0", "12345678900.0"), the report in 9 significant digits ("3",
// "1.23456789e+10"). Every number token outside a string that has a point or an exponent is a
// double of the tree and is spelled again; integers (counts, seeds) are left as they are.
std::string respellDoubles(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '"') { // a string, its escapes included, copied as it is
            size_t end = i + 1;
            while (end < text.size() && text[end] != '"')
                end += text[end] == '\\' ? 2 : 1;
            out.append(text, i, end + 1 - i);
            i = end + 1;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            const size_t end = text.find_first_not_of("0123456789+-.eE", i);
            const std::string token = text.substr(i, end - i);
            if (token.find_first_of(".eE") == std::string::npos) {
                out += token;
            } else {
                double value = 0;
                std::from_chars(token.data(), token.data() + token.size(), value);
                out += formatNumber(value);
            }
            i = end;
        } else {
            out += c;
            ++i;
        }
    }
    return out;
}

// Builds the report as a tree of nlohmann::ordered_json (which keeps the key order the writers
// give and escapes the strings), written with two-space indentation.
class JsonWriter {
  public:
    JsonWriter& key(std::string_view name) {
        pendingKey_ = std::string(name);
        return *this;
    }
    void number(double value) {
        add(std::isfinite(value) ? nlohmann::ordered_json(value) : nlohmann::ordered_json());
    }
    void integer(uint64_t value) { add(value); }
    void boolean(bool value) { add(value); }
    void string(std::string_view text) { add(std::string(text)); }
    void null() { add(nullptr); }
    void beginObject() { open(nlohmann::ordered_json::object()); }
    void endObject() { stack_.pop_back(); }
    void beginArray() { open(nlohmann::ordered_json::array()); }
    void endArray() { stack_.pop_back(); }
    std::string take() {
        // Bytes that are not UTF-8 (a device name, a note) are replaced rather than refused.
        return respellDoubles(
                   root_.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)) +
               "\n";
    }

  private:
    nlohmann::ordered_json& add(nlohmann::ordered_json value) {
        if (stack_.empty()) {
            root_ = std::move(value);
            return root_;
        }
        nlohmann::ordered_json& parent = *stack_.back();
        if (parent.is_array()) {
            parent.push_back(std::move(value));
            return parent.back();
        }
        nlohmann::ordered_json& slot = parent[pendingKey_];
        slot = std::move(value);
        return slot;
    }
    void open(nlohmann::ordered_json container) { stack_.push_back(&add(std::move(container))); }

    nlohmann::ordered_json root_;
    std::vector<nlohmann::ordered_json*> stack_;
    std::string pendingKey_;
};

// ---------------------------------------------------------------------------------------------
// JSON sections. The tables fix the key order of the report.

constexpr std::string_view kOnePercentLowDefinition =
    "1000 / mean of the slowest 1% of frame times (at least one frame)";
constexpr std::string_view kHitchDefinition =
    "frames slower than 2 x the median (nearest-rank p50) frame time";

struct SummaryField {
    const char* key;
    double Summary::*member;
};
constexpr SummaryField kFrameTimeFields[] = {
    {"mean", &Summary::mean}, {"stddev", &Summary::stddev}, {"cov", &Summary::cov},
    {"min", &Summary::min},   {"p50", &Summary::p50},       {"p90", &Summary::p90},
    {"p95", &Summary::p95},   {"p99", &Summary::p99},       {"p99_9", &Summary::p999},
    {"max", &Summary::max}};
constexpr SummaryField kSegmentFields[] = {
    {"p50", &Summary::p50}, {"p95", &Summary::p95}, {"p99", &Summary::p99}};
constexpr SummaryField kBusyFields[] = {{"mean", &Summary::mean}, {"p50", &Summary::p50}};
constexpr SummaryField kLatencyFields[] = {{"mean", &Summary::mean}, {"min", &Summary::min},
                                           {"p50", &Summary::p50},   {"p90", &Summary::p90},
                                           {"p99", &Summary::p99},   {"max", &Summary::max}};

struct Segment {
    const char* key;
    std::optional<Summary> ModeStats::*summary;
};
constexpr Segment kSegments[] = {{"simulation", &ModeStats::sim},
                                 {"render", &ModeStats::render},
                                 {"interop_wait", &ModeStats::wait}};

template <size_t N>
void writeSummary(JsonWriter& w, const std::optional<Summary>& summary,
                  const SummaryField (&fields)[N]) {
    w.beginObject();
    for (const SummaryField& f : fields)
        w.key(f.key).number(field(summary, f.member));
    w.endObject();
}

struct StringField {
    const char* key;
    std::string BenchEnvironment::*member;
};
constexpr StringField kEnvironmentStrings[] = {
    {"gpu_name", &BenchEnvironment::gpuName},
    {"gpu_uuid", &BenchEnvironment::gpuUuid},
    {"driver_version", &BenchEnvironment::driverVersion},
    {"vulkan_api_version", &BenchEnvironment::vulkanApiVersion},
    {"vulkan_driver", &BenchEnvironment::vulkanDriver},
    {"cuda_runtime_version", &BenchEnvironment::cudaRuntimeVersion},
    {"cuda_driver_version", &BenchEnvironment::cudaDriverVersion},
    {"backend", &BenchEnvironment::backend},
    {"git_revision", &BenchEnvironment::gitRevision},
    {"build_type", &BenchEnvironment::buildType},
    {"host_name", &BenchEnvironment::hostName},
    {"date", &BenchEnvironment::date}};

// Zero means "not queried" (e.g. the CPU backend has no SMs), reported as null.
double knownOrNaN(double value) {
    return value > 0 ? value : kNotMeasured;
}

void writeEnvironment(JsonWriter& w, const BenchEnvironment& env) {
    w.beginObject();
    for (const StringField& f : kEnvironmentStrings) {
        // Empty means "not known here" (e.g. CUDA versions with the CPU backend): null.
        if ((env.*f.member).empty())
            w.key(f.key).null();
        else
            w.key(f.key).string(env.*f.member);
    }
    w.key("sm_count").number(knownOrNaN(env.smCount));
    w.key("memory_clock_mhz").number(knownOrNaN(env.memoryClockMHz));
    w.key("memory_bus_width_bits").number(knownOrNaN(env.memoryBusWidthBits));
    w.key("peak_bandwidth_GBps").number(knownOrNaN(env.peakBandwidthGBs));
    w.endObject();
}

void writeConfiguration(JsonWriter& w, const BenchConfig& config) {
    w.beginObject();
    w.key("simulation").string(config.simulation);
    w.key("width").integer(config.width);
    w.key("height").integer(config.height);
    w.key("depth").integer(config.depth);
    w.key("particles").integer(config.particles);
    w.key("steps_per_frame").integer(config.stepsPerFrame);
    w.key("frames_in_flight").integer(config.framesInFlight);
    w.key("warmup").integer(config.warmup);
    w.key("frames").integer(config.frames);
    w.key("modes").string(config.modes);
    w.key("seed").integer(config.seed);
    w.key("consumer").string(config.consumer);
    w.key("output_width").integer(config.outputWidth);
    w.key("output_height").integer(config.outputHeight);
    w.key("draw").string(config.draw);
    w.key("cuda_graphs").boolean(config.cudaGraphs);
    w.key("handoff_batch").integer(config.handoffBatch);
    w.key("fps_cap").number(config.fpsCap > 0 ? double(config.fpsCap) : kNotMeasured);
    w.endObject();
}

void writeThroughput(JsonWriter& w, const BenchReport& report, const ModeResult& mode,
                     const ModeStats& stats) {
    const double cellSteps = double(report.config.width) * double(report.config.height) *
                             double(report.config.depth) * double(report.config.stepsPerFrame);
    const double bytes = knownOrNaN(mode.bytesPerCellStep);
    const double particleSteps =
        double(mode.particlesPerFrame) * double(report.config.stepsPerFrame);
    const double achievedGBps = (bytes * cellSteps + mode.bytesPerParticleStep * particleSteps) /
                                (field(stats.sim, &Summary::p50) / 1000.0) / 1e9;
    w.beginObject();
    w.key("cell_updates_per_s").number(cellSteps * double(mode.frames.size()) / mode.wallSeconds);
    w.key("sim_achieved_GBps").number(achievedGBps);
    w.key("sim_percent_of_peak_bandwidth")
        .number(100.0 * achievedGBps / knownOrNaN(report.env.peakBandwidthGBs));
    w.key("bytes_per_cell_step").number(bytes);
    w.key("particles_per_frame").integer(mode.particlesPerFrame);
    w.key("particle_steps_per_s")
        .number(particleSteps * double(mode.frames.size()) / mode.wallSeconds);
    w.key("bytes_per_particle_step").number(mode.bytesPerParticleStep);
    w.key("output_bytes_per_frame").number(mode.outputBytesPerFrame);
    w.key("host_bytes_per_frame").number(mode.hostBytesPerFrame);
    const double pixels = double(report.config.outputWidth) * double(report.config.outputHeight);
    w.key("render_ns_per_output_pixel")
        .number(field(stats.render, &Summary::p50) * 1e6 / (pixels > 0 ? pixels : kNotMeasured));
    w.endObject();
}

void writeMode(JsonWriter& w, const BenchReport& report, const ModeResult& mode,
               const ModeStats& stats) {
    w.beginObject();
    w.key("mode").string(mode.mode);
    w.key("handoff").string(mode.handoff);
    w.key("frames_measured").integer(stats.frame ? stats.frame->count : 0);
    w.key("frames_from_cuda_graphs").integer(mode.framesFromGraphs);
    w.key("wall_seconds").number(mode.wallSeconds);
    w.key("note").string(mode.note);
    w.key("frame_time_definition")
        .string("interval between the GPU finishing consecutive frames (timestamps at the end "
                "of each draw, Vulkan's or the OpenGL consumer's); the host interval where "
                "timestamps are unavailable");
    w.key("frame_time_ms");
    writeSummary(w, stats.frame, kFrameTimeFields);
    w.key("cpu_frame_time_ms");
    writeSummary(w, stats.cpu, kFrameTimeFields);
    w.key("fps_mean").number(fpsMean(stats));
    w.key("one_percent_low_fps").number(field(stats.frame, &Summary::low1PercentFps));
    w.key("one_percent_low_definition").string(kOnePercentLowDefinition);
    w.key("hitches").beginObject();
    if (stats.frame)
        w.key("count").integer(stats.frame->hitches);
    else
        w.key("count").null();
    w.key("threshold_ms").number(hitchThresholdMs(field(stats.frame, &Summary::p50)));
    w.key("definition").string(kHitchDefinition);
    w.endObject();
    w.key("gpu_segments_ms").beginObject();
    for (const Segment& segment : kSegments) {
        w.key(segment.key);
        writeSummary(w, stats.*segment.summary, kSegmentFields);
    }
    w.endObject();
    w.key("gpu_busy_ms_per_frame");
    writeSummary(w, stats.busy, kBusyFields);
    w.key("handoff_latency_ms");
    writeSummary(w, stats.handoff, kLatencyFields);
    w.key("handoff_alignment_error_us").number(stats.handoff ? mode.handoffErrorUs : kNotMeasured);
    w.key("handoff_latency_definition")
        .string("from the simulation finishing the frame's outputs on the GPU (CUDA event after "
                "the output write) to Vulkan starting to draw them (the draw's first timestamp), "
                "both clocks aligned to the host's steady_clock; CUDA interop only");
    w.key("host_busy_us");
    writeSummary(w, stats.hostBusy, kLatencyFields);
    w.key("host_busy_definition")
        .string("host time per frame in the frame loop's drawFrame, its frames-in-flight wait "
                "left out: collecting GPU times, the simulation's enqueue, recording, submitting");
    w.key("throughput");
    writeThroughput(w, report, mode, stats);
    w.key("energy").beginObject();
    w.key("joules").number(mode.energyJoules);
    w.key("watts_mean").number(mode.energyJoules / mode.wallSeconds);
    w.key("joules_per_frame").number(mode.energyJoules / double(mode.frames.size()));
    w.key("source").string(mode.energySource);
    w.endObject();
    w.endObject();
}

// ---------------------------------------------------------------------------------------------
// CSV and the terminal table.

struct Column {
    const char* header;
    double FrameSample::*member;
};
constexpr Column kCsvColumns[] = {
    {"frame_ms", &FrameSample::frameMs},      {"sim_ms", &FrameSample::simMs},
    {"render_ms", &FrameSample::renderMs},    {"wait_ms", &FrameSample::waitMs},
    {"gpu_busy_ms", &FrameSample::gpuBusyMs}, {"cpu_frame_ms", &FrameSample::cpuFrameMs},
    {"handoff_ms", &FrameSample::handoffMs},  {"host_busy_us", &FrameSample::hostBusyUs}};

// RFC 4180: quote a field holding a separator, a quote or a line break; double inner quotes.
std::string csvText(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string tableNumber(double value, int decimals) {
    if (!std::isfinite(value)) return "-";
    std::array<char, 64> buffer{};
    std::snprintf(buffer.data(), buffer.size(), "%.*f", decimals, value);
    return buffer.data();
}

struct TableColumn {
    const char* header;
    int decimals;
    double (*value)(const ModeStats&);
};
constexpr TableColumn kTableColumns[] = {
    {"frames", 0, [](const ModeStats& s) { return double(s.frame ? s.frame->count : 0); }},
    {"p50 ms", 3, [](const ModeStats& s) { return field(s.frame, &Summary::p50); }},
    {"p99 ms", 3, [](const ModeStats& s) { return field(s.frame, &Summary::p99); }},
    {"mean ms", 3, [](const ModeStats& s) { return field(s.frame, &Summary::mean); }},
    {"fps", 1, fpsMean},
    {"1% low", 1, [](const ModeStats& s) { return field(s.frame, &Summary::low1PercentFps); }},
    {"sim p50", 3, [](const ModeStats& s) { return field(s.sim, &Summary::p50); }},
    {"render p50", 3, [](const ModeStats& s) { return field(s.render, &Summary::p50); }},
    {"wait p50", 3, [](const ModeStats& s) { return field(s.wait, &Summary::p50); }},
    {"handoff p50 us", 1,
     [](const ModeStats& s) { return 1000.0 * field(s.handoff, &Summary::p50); }},
    {"handoff p99 us", 1,
     [](const ModeStats& s) { return 1000.0 * field(s.handoff, &Summary::p99); }},
    {"host p50 us", 1, [](const ModeStats& s) { return field(s.hostBusy, &Summary::p50); }},
    {"hitches", 0, [](const ModeStats& s) { return double(s.frame ? s.frame->hitches : 0); }}};

size_t columnWidth(const TableColumn& column) {
    return std::max<size_t>(std::strlen(column.header), 7) + 2;
}

void appendPadded(std::string& out, const std::string& text, size_t width, bool left) {
    const size_t pad = text.size() < width ? width - text.size() : 0;
    if (!left) out.append(pad, ' ');
    out += text;
    if (left) out.append(pad, ' ');
}

} // namespace

double ddrPeakBandwidthGBs(double memoryClockMHz, int memoryBusWidthBits) {
    return 2.0 * memoryClockMHz * 1e6 * (double(memoryBusWidthBits) / 8.0) / 1e9;
}

std::string toJson(const BenchReport& report) {
    const std::vector<Named> modes = distinctModes(report);
    JsonWriter w;
    w.beginObject();
    w.key("schema_version").integer(8);
    w.key("interrupted").boolean(report.interrupted);
    w.key("environment");
    writeEnvironment(w, report.env);
    w.key("configuration");
    writeConfiguration(w, report.config);
    w.key("modes").beginArray();
    for (const ModeResult& mode : report.modes)
        writeMode(w, report, mode, modeStats(mode));
    w.endArray();

    w.key("ratios").beginObject();
    for (size_t a = 0; a < modes.size(); ++a)
        for (size_t b = a + 1; b < modes.size(); ++b)
            w.key(keyName(modes[a].mode->mode) + "_vs_" + keyName(modes[b].mode->mode) + "_fps")
                .number(fpsMean(modes[a].stats) / fpsMean(modes[b].stats));
    w.endObject();

    w.key("targets").beginObject();
    w.key("pipelined_frame_over_gpu_busy").number(pipelinedFrameOverGpuBusy(modes));
    w.key("pipelined_frame_over_gpu_busy_definition")
        .string("mean frame time / mean GPU busy time (simulation + render) of the pipelined "
                "mode");
    w.key("p99_over_p50").beginObject();
    for (const Named& m : modes)
        w.key(keyName(m.mode->mode))
            .number(field(m.stats.frame, &Summary::p99) / field(m.stats.frame, &Summary::p50));
    w.endObject();
    w.endObject();
    w.endObject();
    return w.take();
}

std::string toCsv(const BenchReport& report) {
    std::string out;
    writeCsv(report, [&](std::string_view piece) { out += piece; });
    return out;
}

void writeCsv(const BenchReport& report, const std::function<void(std::string_view)>& put) {
    constexpr size_t kPiece = 64 * 1024;
    std::string out = "mode,frame";
    for (const Column& column : kCsvColumns)
        out += std::string(",") + column.header;
    out += '\n';
    for (const ModeResult& mode : report.modes) {
        const std::string name = csvText(mode.mode);
        for (size_t i = 0; i < mode.frames.size(); ++i) {
            out += name + ',' + std::to_string(i);
            for (const Column& column : kCsvColumns) {
                const double value = mode.frames[i].*column.member;
                out += ',';
                if (std::isfinite(value)) out += formatNumber(value);
            }
            out += '\n';
            if (out.size() >= kPiece) {
                put(out);
                out.clear();
            }
        }
    }
    if (!out.empty()) put(out);
}

void writeTextFile(const std::filesystem::path& path, const std::string& text) {
    writeFileAtomically(path, text);
}

std::string formatSummaryTable(const BenchReport& report) {
    const std::vector<Named> modes = distinctModes(report);
    size_t modeWidth = 4;
    for (const ModeResult& mode : report.modes)
        modeWidth = std::max(modeWidth, mode.mode.size());

    std::string out;
    appendPadded(out, "mode", modeWidth, true);
    for (const TableColumn& column : kTableColumns)
        appendPadded(out, column.header, columnWidth(column), false);
    out += '\n';
    for (const ModeResult& mode : report.modes) {
        const ModeStats stats = modeStats(mode);
        appendPadded(out, mode.mode, modeWidth, true);
        for (const TableColumn& column : kTableColumns)
            appendPadded(out, tableNumber(column.value(stats), column.decimals),
                         columnWidth(column), false);
        out += '\n';
        if (!mode.note.empty()) out += "  note: " + mode.note + '\n';
        if (std::isfinite(mode.energyJoules) && mode.wallSeconds > 0 && !mode.frames.empty())
            out += "  energy: " + tableNumber(mode.energyJoules / mode.wallSeconds, 1) + " W, " +
                   tableNumber(mode.energyJoules / double(mode.frames.size()), 4) + " J/frame (" +
                   mode.energySource + ")\n";
        else if (!mode.energySource.empty())
            out += "  energy: not measured (" + mode.energySource + ")\n";
        if (report.config.fpsCap > 0 && stats.frame)
            out += "  cadence at the " + std::to_string(report.config.fpsCap) +
                   " fps cap: p99/p50 of frame intervals " +
                   tableNumber(stats.frame->p99 / stats.frame->p50, 3) + " (p50 " +
                   tableNumber(stats.frame->p50, 3) + " ms)\n";
        if (stats.handoff && std::isfinite(mode.handoffErrorUs))
            out += "  hand-off clocks aligned within +-" + tableNumber(mode.handoffErrorUs, 1) +
                   " us\n";
    }
    for (size_t a = 0; a < modes.size(); ++a)
        for (size_t b = a + 1; b < modes.size(); ++b)
            out += modes[a].mode->mode + " vs " + modes[b].mode->mode + ": " +
                   tableNumber(fpsMean(modes[a].stats) / fpsMean(modes[b].stats), 2) + "x fps\n";
    const double overBusy = pipelinedFrameOverGpuBusy(modes);
    if (std::isfinite(overBusy))
        out += "pipelined frame / GPU busy (means): " + tableNumber(overBusy, 2) + '\n';
    if (report.interrupted)
        out += "interrupted: the modes hold the frames measured before the stop signal\n";
    out += "frame times in ms, hand-off latency and host busy time in us; percentiles "
           "nearest-rank; 1% low = " +
           std::string(kOnePercentLowDefinition) + "; hitch = " + std::string(kHitchDefinition) +
           '\n';
    return out;
}

} // namespace estuary
