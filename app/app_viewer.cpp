#include "app_viewer.h"
#include "serving.h"
#include "slabs.h"
#include "slabs_ranks.h"
#include "links.h"
#include "rank_run.h"
#include "errors.h"
#include "fault_injection.h"
#include "memory_budget.h"
#include "output_file.h"
#include "simulations.h"
#include "stop_signal.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace estuary {
namespace {

// estuary's own data: $ESTUARY_DATA_DIR (the library reads it), else beside the executable in
// the build tree and in a bundle; installed, in share/estuary (ESTUARY_DATA_DIR_FROM_BIN away from
// bin/). Where neither has it, the library looks beside itself.
std::string dataDir() {
    if (const char* env = std::getenv("ESTUARY_DATA_DIR"); env && *env) return {};
    const std::filesystem::path beside =
        std::filesystem::read_symlink("/proc/self/exe").parent_path();
    std::error_code ec;
    if (std::filesystem::exists(beside / "shaders", ec)) return beside.string();
    const std::filesystem::path installed = (beside / ESTUARY_DATA_DIR_FROM_BIN).lexically_normal();
    if (std::filesystem::exists(installed / "shaders", ec)) return installed.string();
    return {};
}

void printLog(void*, estuary_log_level level, const char* message) {
    std::FILE* out = level == ESTUARY_LOG_INFO ? stdout : stderr;
    std::fprintf(out, "estuary: %s%s\n", level == ESTUARY_LOG_WARNING ? "warning: " : "", message);
    std::fflush(out);
}

estuary_viewer_desc describe(const Options& o, const AppViewerDesc& a, estuary_cuda_mode cuda,
                             const std::string& data) {
    ViewerDesc d;
    d.display = a.window ? ESTUARY_DISPLAY_WINDOW : ESTUARY_DISPLAY_HEADLESS;
    d.width = o.resolution.width;
    d.height = o.resolution.height;
    d.title = o.consumer == Consumer::OpenGL ? "estuary (OpenGL consumer)" : "estuary";
    d.frames_in_flight = o.framesInFlight;
    d.handoff_batch = o.handoffBatch;
    d.present_mode = o.presentMode == PresentMode::Mailbox     ? ESTUARY_PRESENT_MAILBOX
                     : o.presentMode == PresentMode::Immediate ? ESTUARY_PRESENT_IMMEDIATE
                                                               : ESTUARY_PRESENT_FIFO;
    d.cuda = cuda;
    d.cuda_device = std::max(o.device, 0);
    d.draw_path = o.draw == DrawPath::Compute  ? ESTUARY_DRAW_COMPUTE
                  : o.draw == DrawPath::Raster ? ESTUARY_DRAW_RASTER
                                               : ESTUARY_DRAW_AUTO;
    d.consumer = o.consumer == Consumer::OpenGL ? ESTUARY_CONSUMER_OPENGL : ESTUARY_CONSUMER_VULKAN;
    d.gl_handoff = o.glHandoff == GlHandoff::Timeline ? ESTUARY_GL_HANDOFF_TIMELINE
                   : o.glHandoff == GlHandoff::Binary ? ESTUARY_GL_HANDOFF_BINARY
                   : o.glHandoff == GlHandoff::Host   ? ESTUARY_GL_HANDOFF_HOST
                                                      : ESTUARY_GL_HANDOFF_AUTO;
    d.flags = (o.validate ? ESTUARY_VIEWER_VALIDATION : 0u) | (o.noUi ? ESTUARY_VIEWER_NO_UI : 0u);
    d.data_dir = data.empty() ? nullptr : data.c_str();
    d.screenshot_dir = a.screenshotDir.empty() ? nullptr : a.screenshotDir.c_str();
    d.log = printLog;
    return d;
}

void armFaults(const Viewer& viewer) {
    const FaultPlan& plan = faultPlan();
    if (plan.deviceLost)
        check(estuary_inject_fault(viewer.get(), ESTUARY_FAULT_DEVICE_LOST, *plan.deviceLost));
    if (plan.vulkanStall)
        check(estuary_inject_fault(viewer.get(), ESTUARY_FAULT_VULKAN_STALL, *plan.vulkanStall));
    if (plan.allocFail) check(estuary_inject_fault(viewer.get(), ESTUARY_FAULT_ALLOC_FAIL, 0));
    if (plan.cudaStall && viewer.hasCuda())
        check(estuary_inject_fault(viewer.get(), ESTUARY_FAULT_CUDA_STALL, *plan.cudaStall));
}

} // namespace

namespace {

// --record: from the first frame on (estuary_record_stop in closeAppViewer).
void startRecording(Viewer& viewer, const Options& o) {
    if (o.record.empty()) return;
    estuary_record_desc d{.path = o.record.c_str()};
    d.fps = o.recordFps;
    d.quality = o.recordQuality;
    d.encoder = o.recordEncoder.empty() ? nullptr : o.recordEncoder.c_str();
    check(estuary_record_start(viewer.get(), &d));
    // The library writes "<file>.part" beside the file it replaces (a link's target): a second
    // Ctrl-C, which ends the process at once, deletes it rather than leave it.
    setHardStopRemoval((followLinks(o.record).string() + ".part").c_str());
}

// The viewer the options ask for (openAppViewer adds the recording).
Viewer openViewer(const Options& o, const AppViewerDesc& a) {
    (void)faultPlan(); // a malformed ESTUARY_FAULT is exit 2 before any work
    const std::string data = dataDir();
    const estuary_cuda_mode asked = o.backend == Backend::Cpu    ? ESTUARY_CUDA_OFF
                                    : o.device >= 0              ? ESTUARY_CUDA_DEVICE
                                    : o.backend == Backend::Cuda ? ESTUARY_CUDA_REQUIRED
                                                                 : ESTUARY_CUDA_AUTO;
    try {
        Viewer viewer(describe(o, a, asked, data));
        armFaults(viewer);
        return viewer;
    } catch (const Error& e) {
        if (e.status() != ESTUARY_ERROR_UNSUPPORTED || asked == ESTUARY_CUDA_OFF ||
            asked == ESTUARY_CUDA_AUTO)
            throw;
        if (o.backend == Backend::Cuda)
            throw unsupported(std::string("--backend cuda cannot run: ") + e.what());
        // --device N with --backend auto: that device cannot run CUDA, the CPU backend can.
        std::printf("estuary: --device %d cannot run CUDA (%s); using the CPU backend\n", o.device,
                    e.what());
        Viewer viewer(describe(o, a, ESTUARY_CUDA_OFF, data));
        armFaults(viewer);
        return viewer;
    }
}
} // namespace

Viewer openAppViewer(const Options& o, const AppViewerDesc& a) {
    Viewer viewer = openViewer(o, a);
    // --camera (default 35, 25): where a volume's orbit camera starts; the window moves it on.
    const sim::SimDefinition* def = findSimulation(o.simulation);
    if (def && def->dimensions == 3) {
        estuary_camera camera = viewer.camera();
        camera.yaw_degrees = o.cameraYawDegrees;
        camera.pitch_degrees = o.cameraPitchDegrees;
        viewer.setCamera(camera);
    }
    startRecording(viewer, o); // its errors are its own, not the backend's
    startAppServer(viewer.get(), o);
    return viewer;
}

RunKind runKindFor(const Viewer& viewer, bool hostCopy) {
    if (!viewer.hasCuda()) return RunKind::Cpu;
    return hostCopy ? RunKind::HostCopy : RunKind::Cuda;
}

sim::ParamValues startParams(const Options& o, const sim::SimDefinition& def) {
    sim::ParamValues params = sim::initialParams(def);
    if (def.name == o.simulation)
        for (const ParamSetting& setting : o.params)
            params[size_t(sim::findParam(def, setting.name))] = setting.value;
    return params;
}

int startSteps(const Options& o, const sim::SimDefinition& def) {
    return o.stepsPerFrame >= 0 && def.name == o.simulation ? o.stepsPerFrame : def.stepsPerFrame;
}

uint32_t startView(const Options& o, const sim::SimDefinition& def) {
    if (def.name != o.simulation || o.view.empty()) return 0;
    return uint32_t(std::max(0, sim::findView(def, o.view)));
}

// --composite sort-last for this run. options.cpp refused what the command line tells (the
// simulation, view, slabs, a window, ranks) and turned auto into gather where it would gather;
// what only the run knows is the backend it got: auto draws sort-last on CUDA only.
bool sortLastFor(const Options& o, RunKind kind) {
    if (o.composite == Composite::Auto) return kind == RunKind::Cuda;
    if (o.composite != Composite::SortLast) return false;
    if (kind != RunKind::Cuda)
        throw unsupported(std::string("--composite sort-last needs the CUDA backend; this run is "
                                      "on ") +
                          runKindName(kind));
    return true;
}

std::unique_ptr<SimRun> openSimRun(const Viewer& viewer, const Options& o,
                                   const sim::SimDefinition& def, RunKind kind, bool stampFrames) {
    SimRunConfig config;
    config.simulation = &def;
    config.grid = def.name == o.simulation ? o.grid : defaultGrid(def.dimensions);
    if ((def.dimensions == 3) != (config.grid.depth > 1)) config.grid = defaultGrid(def.dimensions);
    config.particles =
        def.particles.max == 0 ? 0
        : def.name == o.simulation && o.particles >= 0
            ? uint32_t(o.particles)
            : (kind == RunKind::Cuda ? def.particles.cudaDefault : def.particles.cpuDefault);
    config.seed = o.seed;
    config.kind = kind;
    config.cudaGraphs = o.cudaGraphs;
    if (def.name == o.simulation) {
        config.slabs = std::max(1u, o.slabs);
        config.gpus = o.gpus;
        config.displayShare = o.displayShare;
        config.halo = o.halo;
        config.stepsPerFrame = startSteps(o, def);
        // A job of several ranks: at least a slab each (another simulation runs on rank 0 alone).
        if ((config.ranks = rankLinks()))
            config.slabs = std::max(config.slabs, config.ranks->size());
    }
    config.view = startView(o, def);
    config.colormap = colormapIndex(o.colormap);
    config.colorbar = o.colorbar;
    config.axes = o.axes;
    config.arrows = def.name == o.simulation && o.arrows;
    if (config.arrows && def.glyphs.image < 0)
        throw usageError("--arrows: " + def.name +
                         " has no velocity field to draw arrows of (the fluid has)");
    config.opacity = o.opacity;
    config.sliceAxis = o.sliceAxis;
    config.slicePosition = o.slicePosition;
    config.stampFrames = stampFrames;
    config.cudaFault = faultPlan().cudaFault;
    config.sortLast = def.name == o.simulation && !stampFrames && sortLastFor(o, kind);
    // The composited picture is not the volume's space: no axes around it.
    if (config.sortLast) config.axes = false;
    const estuary_viewer_info info = viewer.info();
    std::printf("estuary: %s on backend %s, %s (%s)\n", def.name.c_str(), runKindName(kind),
                info.device_name, info.device_type);
    std::fflush(stdout);
    checkRunFits(viewer, config, checkedOutputs(config));
    std::unique_ptr<SimRun> run = SimRun::create(viewer, config);
    if (config.slabs > 1) {
        const sim::GridSize grid{config.grid.width, config.grid.height, config.grid.depth};
        // What the run built: one process across GPUs weighs the display GPU's share; ranks
        // give rank 0 its share, the CUDA ranks' halo aimed across GPUs.
        const uint32_t ranks = config.ranks ? uint32_t(config.ranks->size()) : 1;
        const bool cudaRanks = config.ranks && kind != RunKind::Cpu;
        const uint32_t rankHalo = cudaRanks         ? cudaRanksHalo(config, ranks)
                                  : config.halo > 0 ? config.halo
                                                    : sim::kDefaultSlabHalo;
        const sim::SlabPlan plan =
            config.ranks
                ? sim::planRankSlabs(grid, config.slabs, ranks, config.displayShare, rankHalo)
                : sim::planSlabRun(grid, slabRunLayout(config, config.gpus));
        uint32_t rankZero = 0; // planes on rank 0
        for (uint32_t i = 0; i < config.slabs; ++i)
            if (sim::rankOfSlab(i, config.slabs, ranks) == 0) rankZero += plan.count[i];
        const std::string where = config.ranks
                                      ? std::to_string(ranks) + " ranks (one process each, " +
                                            (kind == RunKind::Cpu ? "the CPU" : "a GPU each") +
                                            "), rank 0 holding " + std::to_string(rankZero) + " " +
                                            sim::slabPlaneName(grid)
                                  : kind == RunKind::Cpu ? "the CPU"
                                                         : std::to_string(config.gpus) + " GPU(s)";
        const auto [least, most] = std::minmax_element(plan.count.begin(), plan.count.end());
        std::printf("estuary: the grid in %u slabs of %u..%u %s (halos of %u), on %s%s\n",
                    config.slabs, *least, *most, sim::slabPlaneName(grid), plan.halo, where.c_str(),
                    config.sortLast ? "; drawn sort-last (each slab marched on its GPU, "
                                      "composited on the display GPU)"
                                    : "");
        std::fflush(stdout);
    }
    return run;
}

uint32_t closeAppViewer(Viewer& viewer, const Options& o) {
    printServeSummary(viewer.get(), o); // the server stops with the viewer (pages see 1001)
    if (!o.record.empty()) {
        estuary_record_info info{};
        const estuary_status stopped = estuary_record_stop(viewer.get(), &info);
        setHardStopRemoval(nullptr); // finished and renamed, or failed and deleted
        check(stopped);
        std::printf("estuary: recorded %llu frames to %s with %s (%.3f ms a frame to hand each "
                    "picture to the encoder, %.1f ms waiting for it in all)\n",
                    static_cast<unsigned long long>(info.frames), o.record.c_str(), info.encoder,
                    info.copy_ms_mean, info.stall_ms_total);
    }
    const uint32_t gl = o.consumer == Consumer::OpenGL ? viewer.info().gl_debug_messages : 0;
    const uint32_t messages = viewer.close();
    if (!o.validate) return 0;
    std::printf("estuary: validation layer reported %u message(s)\n",
                messages - std::min(gl, messages));
    if (o.consumer == Consumer::OpenGL)
        std::printf("estuary: OpenGL debug output reported %u error(s)\n", gl);
    return messages;
}

} // namespace estuary
