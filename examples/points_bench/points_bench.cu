// points_bench: the library's points view timed over the grid Mìmir's evaluation uses: a cloud of
// N points (10^3 .. 10^8) in a box, moved by CUDA every frame, drawn headless at a given
// resolution, uncapped or capped (30/60/144/240 fps), pipelined (frames in flight) or serialized
// (one frame at a time, the host waiting for each: Mìmir's single timeline). Per configuration:
// frames per second, the CUDA and draw times (medians of the viewer's per-frame stats), GPU memory
// in use, and, where NVIDIA's management library is present, power and energy per frame.
//
//   points_bench [--points N[,N...]] [--resolution WxH] [--fps-caps C[,C...]]
//                [--mode pipelined|serialized] [--draw auto|raster|compute] [--seconds S]
//                [--view points|arrows|lines|mesh] [--shading smooth|flat] [--pick R]
//                [--splat packed|merged|saturated] [--order random|morton] [--json PATH]
// --view arrows draws each point as an arrow along its velocity (the markers view, 6 pixels),
// --view lines as a short streak along it (the lines view, segments); N counts the arrows or
// streaks. --view mesh draws a rippling sheet of N triangles or a few more (a square grid of
// 2 g^2, its vertices rewritten every frame, its indices written once; smooth shading from normals
// summed each frame; --shading flat: a normal per triangle, none summed): N counts the triangles.
// --pick R picks, in every frame's draw, the element at the picture's centre (within R pixels),
// as a window's cursor does: the draw time then includes the pick's passes over all N.
// --splat picks how the compute splat adds a point (ESTUARY_POINTS_SPLAT, renderer/points.h
// SplatVariant; default packed). --order morton seeds the points along a Z-order curve, so
// neighbouring points (and GPU threads) land on neighbouring pixels, as in the spatially ordered
// clouds compute rasterizers are measured with; random (the default) hashes each point's place.
// Prints one line per configuration; --json writes them all (temporary file, then rename). Built
// in estuary's tree as estuary_points_bench and bundled; scripts/run-gpu-bench.sh points runs the
// grid. Exit 0; 1 when the library fails; 2 on bad usage.
#include <estuary/estuary.hpp>

#include <dlfcn.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

// A point's place at frame f: its seeded place turned about the box's vertical axis by f steps.
__global__ void movePoints(const float4* seeded, float4* points, unsigned count, float c, float s) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const float4 p = seeded[i];
    points[i] = make_float4(c * p.x - s * p.z, p.y, s * p.x + c * p.z, p.w);
}

// The same turn for markers (32 bytes each: the place and value, then the velocity and size 0, the
// view's) or for a streak (two vertices: the place, and a little way along the velocity).
__global__ void moveGlyphs(const float4* seeded, float4* out, unsigned count, float c, float s,
                           bool streaks) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const float4 p = seeded[i];
    const float4 at = make_float4(c * p.x - s * p.z, p.y, s * p.x + c * p.z, p.w);
    const float3 velocity = make_float3(-s * p.x - c * p.z, 0.0f, c * p.x - s * p.z);
    out[2 * i] = at;
    out[2 * i + 1] =
        streaks ? make_float4(at.x + 0.03f * velocity.x, at.y, at.z + 0.03f * velocity.z, p.w)
                : make_float4(velocity.x, velocity.y, velocity.z, 0.0f);
}

// Vertex n of a g x g-cell sheet over [-1, 1]^2 in x and z, rippled at time t (its value the
// height), and the sheet's 2 g^2 triangles.
__global__ void rippleSheet(float4* vertices, unsigned g, float t) {
    const unsigned n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= (g + 1) * (g + 1)) return;
    const float x = 2.0f * float(n % (g + 1)) / float(g) - 1.0f;
    const float z = 2.0f * float(n / (g + 1)) / float(g) - 1.0f;
    const float r = sqrtf(x * x + z * z);
    const float height = 0.1f * __sinf(20.0f * r - 3.0f * t) / (1.0f + 4.0f * r);
    vertices[n] = make_float4(x, -height, z, height);
}

__global__ void triangulateSheet(unsigned* indices, unsigned g) {
    const unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= g * g) return;
    const unsigned a = (c / g) * (g + 1) + c % g, b = a + 1, d = a + g + 1, e = d + 1;
    const unsigned corners[6] = {a, d, b, b, d, e};
    for (unsigned k = 0; k < 6; ++k)
        indices[6 * c + k] = corners[k];
}

// Bits 0, 3, 6, ... of v packed together: one axis of a 3D Morton code.
__device__ unsigned mortonAxis(unsigned v) {
    v &= 0x09249249u;
    v = (v ^ (v >> 2)) & 0x030C30C3u;
    v = (v ^ (v >> 4)) & 0x0300F00Fu;
    v = (v ^ (v >> 8)) & 0x030000FFu;
    return (v ^ (v >> 16)) & 0x000003FFu;
}

// Uniform in the box [-1, 1]^3, the scalar the distance from the centre. Random order: each place
// hashed from i. Morton order: point i in cell i * 2^30 / count of the box's 1024^3 cells along a
// Z-order curve, at a hashed place inside it.
__global__ void seedPoints(float4* points, unsigned count, bool morton) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    unsigned h = i * 2654435761u + 12345u;
    const auto next = [&] {
        h ^= h << 13, h ^= h >> 17, h ^= h << 5;
        return (h & 0xFFFFFF) / 8388608.0f - 1.0f;
    };
    float x = next(), y = next(), z = next();
    if (morton) {
        const unsigned cell = unsigned((unsigned long long)i * (1ull << 30) / count);
        x = (float(mortonAxis(cell)) + 0.5f * (x + 1.0f)) / 512.0f - 1.0f;
        y = (float(mortonAxis(cell >> 1)) + 0.5f * (y + 1.0f)) / 512.0f - 1.0f;
        z = (float(mortonAxis(cell >> 2)) + 0.5f * (z + 1.0f)) / 512.0f - 1.0f;
    }
    points[i] = make_float4(x, y, z, sqrtf(x * x + y * y + z * z));
}

void checkCuda(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// The GPU's energy counter through NVML (libnvidia-ml.so.1, the driver's), when it is there.
class Energy {
  public:
    Energy() {
        library_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!library_) return;
        using Init = int (*)();
        using Handle = int (*)(unsigned, void**);
        const auto init = reinterpret_cast<Init>(dlsym(library_, "nvmlInit_v2"));
        const auto handle =
            reinterpret_cast<Handle>(dlsym(library_, "nvmlDeviceGetHandleByIndex_v2"));
        read_ = reinterpret_cast<Read>(dlsym(library_, "nvmlDeviceGetTotalEnergyConsumption"));
        int device = 0;
        if (!init || !handle || !read_ || init() != 0 || cudaGetDevice(&device) != cudaSuccess ||
            handle(unsigned(device), &device_) != 0)
            read_ = nullptr;
    }
    // Joules since the driver loaded; NaN without NVML. (The CUDA device index is taken as the
    // NVML index, true where CUDA_VISIBLE_DEVICES does not reorder them.)
    double joules() const {
        unsigned long long millijoules = 0;
        return read_ && read_(device_, &millijoules) == 0 ? double(millijoules) / 1e3 : NAN;
    }

  private:
    using Read = int (*)(void*, unsigned long long*);
    void* library_ = nullptr;
    void* device_ = nullptr;
    Read read_ = nullptr;
};

struct Config {
    std::vector<unsigned long long> points{1000, 10000, 100000, 1000000, 10000000, 100000000};
    unsigned width = 1920, height = 1080;
    std::vector<double> caps{0};
    bool serialized = false;
    estuary_draw_path draw = ESTUARY_DRAW_AUTO;
    double seconds = 1.0;
    std::string view = "points";                        // or arrows, lines, mesh
    estuary_mesh_shading shading = ESTUARY_MESH_SMOOTH; // mesh
    float pickRadius = -1.0f;                           // < 0: no pick
    std::string splat;                                  // empty: the library's default
    bool morton = false;
    std::string json;
};

// The frame's pick at the picture's centre, where asked; `last` must outlive the frame.
void pickCentre(const estuary::Frame& f, const estuary::View& view, const Config& config,
                estuary_pick& last) {
    if (config.pickRadius >= 0.0f)
        f.pick(view, 0.5f * float(config.width), 0.5f * float(config.height), config.pickRadius,
               &last);
}

struct Result {
    unsigned long long points;
    double cap, fps, cudaMs, drawMs, intervalP99OverP50, watts, joulesPerFrame;
    unsigned long long frames, deviceBytes;
};

double median(std::vector<double> v) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }),
            v.end());
    if (v.empty()) return NAN;
    std::nth_element(v.begin(), v.begin() + long(v.size() / 2), v.end());
    return v[v.size() / 2];
}

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, size_t(q * double(v.size())))];
}

struct Timed {
    uint64_t frames;
    double seconds, joules;
    std::vector<double> cuda, draw, interval;
};

// Warm-up (its stats dropped), then `frame(n)` for config.seconds (at least 10 frames), capped at
// `cap` frames a second where cap > 0, serialized where asked; the viewer's stats of those frames.
template <class FrameFn>
Timed timeFrames(const estuary::Viewer& viewer, const Config& config, double cap,
                 const Energy& energy, FrameFn&& frame) {
    using Clock = std::chrono::steady_clock;
    const auto run = [&](uint64_t n) {
        const uint64_t index = frame(n);
        if (config.serialized) viewer.waitFrame(index);
    };
    uint64_t n = 0;
    for (const auto end = Clock::now() + std::chrono::milliseconds(200); Clock::now() < end;)
        run(n++);
    viewer.finish();
    estuary_frame_stats stats{};
    while (estuary_next_frame_stats(viewer.get(), &stats) == ESTUARY_OK) {
    }
    const double joulesStart = energy.joules();
    const auto start = Clock::now();
    auto deadline = start;
    const auto period = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(cap > 0 ? 1.0 / cap : 0.0));
    Timed t{};
    while (t.frames < 10 || Clock::now() - start < std::chrono::duration<double>(config.seconds)) {
        if (cap > 0) {
            std::this_thread::sleep_until(deadline);
            deadline += period;
        }
        run(n++);
        ++t.frames;
    }
    viewer.finish();
    t.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    t.joules = energy.joules() - joulesStart;
    while (estuary_next_frame_stats(viewer.get(), &stats) == ESTUARY_OK) {
        t.cuda.push_back(stats.cuda_ms);
        t.draw.push_back(stats.draw_ms);
        if (std::isfinite(stats.interval_ms)) t.interval.push_back(stats.interval_ms);
    }
    return t;
}

Result summarize(const estuary::Viewer& viewer, unsigned long long count, double cap,
                 const Timed& t) {
    const estuary_metrics m = viewer.metrics();
    Result r{};
    r.points = count;
    r.cap = cap;
    r.frames = t.frames;
    r.fps = double(t.frames) / t.seconds;
    r.cudaMs = median(t.cuda);
    r.drawMs = median(t.draw);
    r.intervalP99OverP50 = percentile(t.interval, 0.99) / percentile(t.interval, 0.5);
    r.watts = t.joules / t.seconds;
    r.joulesPerFrame = t.joules / double(t.frames);
    r.deviceBytes = m.cuda_total - m.cuda_free;
    return r;
}

// The sheet of --view mesh: 2 g^2 >= count triangles.
Result measureMesh(const estuary::Viewer& viewer, const Config& config, unsigned long long count,
                   double cap, const Energy& energy) {
    const unsigned g = unsigned(std::ceil(std::sqrt(double(count) / 2.0)));
    const unsigned vertexCount = (g + 1) * (g + 1);
    estuary::Buffer vertices = viewer.buffer({.size = size_t(vertexCount) * sizeof(float4),
                                              .writer = ESTUARY_WRITER_CUDA,
                                              .name = "sheet"});
    estuary::Buffer indices = viewer.buffer({.size = size_t(6) * g * g * sizeof(unsigned),
                                             .writer = ESTUARY_WRITER_CUDA,
                                             .flags = ESTUARY_ALLOC_SINGLE,
                                             .name = "cells"});
    estuary_mesh_view_desc desc{.vertices = vertices.get(), .indices = indices.get()};
    desc.shading = config.shading;
    desc.value_min = -0.1f;
    desc.value_max = 0.1f;
    const float box[6] = {-1, -0.2f, -1, 1, 0.2f, 1};
    std::copy(box, box + 6, desc.bounds);
    estuary::View view = viewer.meshView(desc);
    estuary_pick picked{};
    const Timed t = timeFrames(viewer, config, cap, energy, [&](uint64_t n) {
        const estuary::Frame f = viewer.beginFrame();
        if (n == 0)
            triangulateSheet<<<(g * g + 255) / 256, 256, 0, f.stream()>>>(
                f.devicePointer<unsigned>(indices), g);
        rippleSheet<<<(vertexCount + 255) / 256, 256, 0, f.stream()>>>(
            f.devicePointer<float4>(vertices), g, 0.02f * float(n));
        checkCuda(cudaGetLastError(), "rippleSheet");
        pickCentre(f, view, config, picked);
        f.end();
        return f.index();
    });
    viewer.finish(); // the last picks delivered
    viewer.destroyView(view);
    return summarize(viewer, 2ull * g * g, cap, t);
}

Result measure(const estuary::Viewer& viewer, const Config& config, unsigned long long count,
               double cap, const Energy& energy) {
    if (config.view == "mesh") return measureMesh(viewer, config, count, cap, energy);
    const bool glyphs = config.view != "points";
    const size_t bytes = size_t(count) * sizeof(float4);
    estuary::Buffer buffer = viewer.buffer(
        {.size = glyphs ? 2 * bytes : bytes, .writer = ESTUARY_WRITER_CUDA, .name = "points"});
    const float box[6] = {-1, -1, -1, 1, 1, 1};
    estuary::View view = [&] {
        if (config.view == "arrows") {
            estuary_markers_view_desc desc{.buffer = buffer.get(),
                                           .shape = ESTUARY_MARKER_SHAPE_ARROW};
            desc.size = 6.0f;
            desc.value_max = 1.8f;
            desc.flags = ESTUARY_MARKERS_3D;
            std::copy(box, box + 6, desc.bounds);
            return viewer.markersView(desc);
        }
        if (config.view == "lines") {
            estuary_lines_view_desc desc{.vertices = buffer.get()};
            desc.width = 1.0f;
            desc.value_max = 1.8f;
            desc.flags = ESTUARY_LINES_3D;
            std::copy(box, box + 6, desc.bounds);
            return viewer.linesView(desc);
        }
        estuary_points_view_desc desc{.buffer = buffer.get(), .layout = ESTUARY_POINTS_XYZ_SCALAR};
        desc.value_max = 1.8f;
        std::copy(box, box + 6, desc.bounds);
        return viewer.pointsView(desc);
    }();
    float4* seeded = nullptr;
    checkCuda(cudaMalloc(&seeded, bytes), "cudaMalloc");
    const unsigned blocks = unsigned((count + 255) / 256);
    seedPoints<<<blocks, 256>>>(seeded, unsigned(count), config.morton);
    checkCuda(cudaGetLastError(), "seedPoints");
    checkCuda(cudaDeviceSynchronize(), "seeding");

    estuary_pick picked{};
    const Timed t = timeFrames(viewer, config, cap, energy, [&](uint64_t n) {
        const estuary::Frame f = viewer.beginFrame();
        const float angle = 0.01f * float(n);
        if (glyphs)
            moveGlyphs<<<blocks, 256, 0, f.stream()>>>(seeded, f.devicePointer<float4>(buffer),
                                                       unsigned(count), std::cos(angle),
                                                       std::sin(angle), config.view == "lines");
        else
            movePoints<<<blocks, 256, 0, f.stream()>>>(seeded, f.devicePointer<float4>(buffer),
                                                       unsigned(count), std::cos(angle),
                                                       std::sin(angle));
        checkCuda(cudaGetLastError(), "movePoints");
        pickCentre(f, view, config, picked);
        f.end();
        return f.index();
    });
    viewer.finish(); // the last picks delivered
    checkCuda(cudaFree(seeded), "cudaFree");
    viewer.destroyView(view);
    return summarize(viewer, count, cap, t);
}

template <class T> bool parseList(const std::string& text, std::vector<T>& out) {
    out.clear();
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');) {
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0' || !(v >= 0) || v > 1e9) return false;
        out.push_back(T(v));
    }
    return !out.empty();
}

int usage(const std::string& problem) {
    std::fprintf(stderr,
                 "points_bench: %s\nusage: points_bench [--points N[,N...]] [--resolution WxH] "
                 "[--fps-caps C[,C...]] [--mode pipelined|serialized] [--draw auto|raster|compute] "
                 "[--seconds S] [--view points|arrows|lines|mesh] [--shading smooth|flat] "
                 "[--pick R] [--splat packed|merged|saturated] [--order random|morton] "
                 "[--json PATH]\n",
                 problem.c_str());
    return 2;
}

nlohmann::ordered_json jsonOf(const Config& c, const std::vector<Result>& results,
                              const char* device) {
    const auto number = [](double v) {
        return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
    };
    nlohmann::ordered_json report = {
        {"device", device},
        {"width", c.width},
        {"height", c.height},
        {"mode", c.serialized ? "serialized" : "pipelined"},
        {"view", c.view},
        {"splat", c.splat.empty() ? "packed" : c.splat},
        {"order", c.morton ? "morton" : "random"},
        {"shading", c.shading == ESTUARY_MESH_FLAT ? "flat" : "smooth"},
        {"pick_radius",
         c.pickRadius >= 0.0f ? nlohmann::ordered_json(c.pickRadius) : nlohmann::ordered_json()}};
    nlohmann::ordered_json& list = report["results"] = nlohmann::ordered_json::array();
    for (const Result& r : results)
        list.push_back({{"points", r.points},
                        {"fps_cap", r.cap},
                        {"frames", r.frames},
                        {"fps", number(r.fps)},
                        {"cuda_ms_p50", number(r.cudaMs)},
                        {"draw_ms_p50", number(r.drawMs)},
                        {"interval_p99_over_p50", number(r.intervalP99OverP50)},
                        {"watts", number(r.watts)},
                        {"joules_per_frame", number(r.joulesPerFrame)},
                        {"cuda_device_bytes_in_use", r.deviceBytes}});
    return report;
}

} // namespace

int main(int argc, char** argv) try {
    Config config;
    for (int i = 1; i < argc; i += 2) {
        const std::string option = argv[i];
        if (i + 1 >= argc) return usage("missing value after " + option);
        const std::string value = argv[i + 1];
        if (option == "--points") {
            if (!parseList(value, config.points) ||
                std::count(config.points.begin(), config.points.end(), 0ull))
                return usage("--points: counts 1..10^9, comma-separated (got '" + value + "')");
        } else if (option == "--fps-caps") {
            if (!parseList(value, config.caps))
                return usage("--fps-caps: frame rates (0: uncapped), comma-separated (got '" +
                             value + "')");
        } else if (option == "--resolution") {
            if (std::sscanf(value.c_str(), "%ux%u", &config.width, &config.height) != 2 ||
                config.width == 0 || config.height == 0 || config.width > 16384 ||
                config.height > 16384)
                return usage("--resolution: WxH, each 1..16384 (got '" + value + "')");
        } else if (option == "--mode") {
            if (value != "pipelined" && value != "serialized")
                return usage("--mode: pipelined or serialized (got '" + value + "')");
            config.serialized = value == "serialized";
        } else if (option == "--draw") {
            if (value != "auto" && value != "raster" && value != "compute")
                return usage("--draw: auto, raster or compute (got '" + value + "')");
            config.draw = value == "raster"    ? ESTUARY_DRAW_RASTER
                          : value == "compute" ? ESTUARY_DRAW_COMPUTE
                                               : ESTUARY_DRAW_AUTO;
        } else if (option == "--seconds") {
            char* end = nullptr;
            config.seconds = std::strtod(value.c_str(), &end);
            if (*end != '\0' || !(config.seconds > 0 && config.seconds <= 600))
                return usage("--seconds: 0 < S <= 600 (got '" + value + "')");
        } else if (option == "--shading") {
            if (value != "smooth" && value != "flat")
                return usage("--shading: smooth or flat (got '" + value + "')");
            config.shading = value == "flat" ? ESTUARY_MESH_FLAT : ESTUARY_MESH_SMOOTH;
        } else if (option == "--view") {
            if (value != "points" && value != "arrows" && value != "lines" && value != "mesh")
                return usage("--view: points, arrows, lines or mesh (got '" + value + "')");
            config.view = value;
        } else if (option == "--pick") {
            char* end = nullptr;
            config.pickRadius = std::strtof(value.c_str(), &end);
            if (*end != '\0' || !(config.pickRadius >= 0.0f && config.pickRadius <= 64.0f))
                return usage("--pick: a radius of 0..64 pixels (got '" + value + "')");
        } else if (option == "--splat") {
            if (value != "packed" && value != "merged" && value != "saturated")
                return usage("--splat: packed, merged or saturated (got '" + value + "')");
            config.splat = value;
        } else if (option == "--order") {
            if (value != "random" && value != "morton")
                return usage("--order: random or morton (got '" + value + "')");
            config.morton = value == "morton";
        } else if (option == "--json") {
            config.json = value;
        } else {
            return usage("unknown option " + option);
        }
    }
    // The library reads the splat's variant when it makes the view's renderer.
    if (!config.splat.empty() && setenv("ESTUARY_POINTS_SPLAT", config.splat.c_str(), 1) != 0)
        return usage("cannot set ESTUARY_POINTS_SPLAT");
    estuary::ViewerDesc desc;
    desc.display = ESTUARY_DISPLAY_HEADLESS;
    desc.width = config.width;
    desc.height = config.height;
    desc.frames_in_flight = config.serialized ? 1 : 8;
    desc.draw_path = config.draw;
    const estuary::Viewer viewer(desc);
    const estuary_viewer_info info = viewer.info();
    const Energy energy;
    std::vector<Result> results;
    for (unsigned long long count : config.points)
        for (double cap : config.caps) {
            const Result r = measure(viewer, config, count, cap, energy);
            // The grid's plots parse these lines (scripts/plot_points_grid.py): the variant and
            // the order go last.
            const bool splatted = config.view != "mesh" && info.draw_path == ESTUARY_DRAW_COMPUTE;
            std::printf(
                "%s %ux%u %s %11llu %s, cap %5.0f: %9.1f fps, CUDA %.3f ms, draw "
                "%.3f ms, p99/p50 %.2f, %.1f W, %.4f J/frame, %.2f GB in use, %s%s order\n",
                config.serialized ? "serialized" : "pipelined", config.width, config.height,
                splatted ? "splat" : "raster", r.points,
                (config.view + (config.pickRadius >= 0 ? "+pick" : "")).c_str(), r.cap, r.fps,
                r.cudaMs, r.drawMs, r.intervalP99OverP50, r.watts, r.joulesPerFrame,
                double(r.deviceBytes) / 1e9,
                splatted ? (config.splat.empty() ? "packed, " : (config.splat + ", ").c_str()) : "",
                config.morton ? "morton" : "random");
            std::fflush(stdout);
            results.push_back(r);
        }
    if (!config.json.empty()) {
        const std::string temp = config.json + ".tmp";
        {
            std::ofstream out(temp);
            out << jsonOf(config, results, info.device_name).dump(2) << "\n";
            out.close();
            if (!out) {
                std::remove(temp.c_str());
                std::fprintf(stderr, "points_bench: cannot write %s\n", temp.c_str());
                return 1;
            }
        }
        if (std::rename(temp.c_str(), config.json.c_str()) != 0) {
            std::remove(temp.c_str());
            std::fprintf(stderr, "points_bench: cannot rename %s to %s\n", temp.c_str(),
                         config.json.c_str());
            return 1;
        }
    }
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "points_bench: %s\n", e.what());
    return e.status(); // 3 where this machine cannot (no CUDA device usable with Vulkan)
} catch (const std::exception& e) {
    std::fprintf(stderr, "points_bench: %s\n", e.what());
    return 1;
}
