// What every way of running a simulation shares (sim_run.h): its outputs as images and buffers of
// the viewer, its visuals as views, the particles' view; and the CPU run, which needs no CUDA.
#include "sim_run.h"
#include "slabs.h"
#include "slabs_ranks.h"
#include "errors.h"
#include "half_float.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace estuary {
namespace {

estuary_format formatOf(sim::TexelFormat format) {
    switch (format) {
    case sim::TexelFormat::RG32Float:
        return ESTUARY_FORMAT_RG32_FLOAT;
    case sim::TexelFormat::RGBA32Float:
        return ESTUARY_FORMAT_RGBA32_FLOAT;
    case sim::TexelFormat::RGBA16Float:
        return ESTUARY_FORMAT_RGBA16_FLOAT;
    default:
        return ESTUARY_FORMAT_R32_FLOAT;
    }
}

estuary_field_shading shadingOf(sim::Shading shading) {
    switch (shading) {
    case sim::Shading::ColormapMagnitude:
        return ESTUARY_FIELD_MAGNITUDE;
    case sim::Shading::Rgb:
        return ESTUARY_FIELD_RGB;
    default:
        return ESTUARY_FIELD_SCALAR;
    }
}

double hostUsNow() {
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::unique_ptr<sim::CpuSimulation> makeCpuSimulation(const SimRunConfig& config) {
    if (config.gpus > 1)
        throw unsupported("--gpus " + std::to_string(config.gpus) +
                          " spreads the grid over CUDA devices; this run uses the CPU backend "
                          "(--slabs splits it on the CPU)");
    const sim::GridSize grid{config.grid.width, config.grid.height, config.grid.depth,
                             config.particles};
    if (config.ranks)
        return sim::createRankedCpu(*config.simulation, grid, config.slabs, *config.ranks,
                                    config.halo > 0 ? config.halo : sim::kDefaultSlabHalo,
                                    config.displayShare);
    if (config.slabs > 1)
        return sim::createSlabbedCpu(*config.simulation, grid,
                                     sim::planSlabRun(grid, slabRunLayout(config, 1)));
    return config.simulation->createCpu(grid);
}

// The CPU reference writes the frame's host memory; the viewer uploads it in the frame's draw.
class CpuRun final : public SimRun {
  public:
    CpuRun(const Viewer& viewer, const SimRunConfig& config)
        : SimRun(viewer, config, ESTUARY_WRITER_HOST), sim_(makeCpuSimulation(config)) {
        sim_->reset(config.seed);
        levels_.resize(layout_.images.size());
        for (size_t i = 0; i < layout_.images.size(); ++i)
            levels_[i].resize(sim::levelCount(layout_.images[i]));
        targets_.resize(layout_.images.size());
        bufferPointers_.resize(layout_.buffers.size());
    }

    const char* name() const override { return "cpu"; }
    void brush(const sim::Brush& brush, const sim::ParamValues& params) override {
        sim_->brush(brush, params);
    }
    void reset(uint64_t seed) override { sim_->reset(seed); }

  private:
    void runFrame(const sim::ParamValues& params, int steps,
                  const std::function<void(const Frame&)>& inspect) override {
        const Frame frame = viewer_.beginFrame();
        HostSimTimes t;
        t.frame = frame.index();
        t.startUs = hostUsNow();
        sim_->step(params, steps);
        t.stepsEndUs = hostUsNow();
        for (size_t i = 0; i < images_.size(); ++i) {
            for (uint32_t level = 0; level < levels_[i].size(); ++level)
                levels_[i][level] = frame.hostLevel(images_[i], level);
            targets_[i] = sim::HostImageTarget{levels_[i]};
        }
        for (size_t b = 0; b < buffers_.size(); ++b)
            bufferPointers_[b] = frame.hostPointer(buffers_[b]);
        sim_->writeOutputs({targets_, bufferPointers_});
        if (config_.stampFrames) stamp(frame.index());
        t.endUs = hostUsNow();
        t.simMs = (t.endUs - t.startUs) / 1000.0;
        keepHostTimes(t);
        if (inspect) inspect(frame);
        frame.end();
    }

    void stamp(uint64_t frame) {
        stampTexel(levels_[viewIndexImage()][0], frame);
        const float value = float(frame);
        for (size_t b = 0; b < buffers_.size(); ++b)
            std::memcpy(static_cast<uint8_t*>(bufferPointers_[b]) + layout_.buffers[b].bytes -
                            sizeof(float),
                        &value, sizeof(value));
    }
    uint32_t viewIndexImage() const { return config_.simulation->views[viewIndex()].image; }

    std::unique_ptr<sim::CpuSimulation> sim_;
    std::vector<std::vector<void*>> levels_;
    std::vector<sim::HostImageTarget> targets_;
    std::vector<void*> bufferPointers_;
};

} // namespace

#ifdef ESTUARY_HAVE_CUDA
std::unique_ptr<SimRun> createCudaRun(const Viewer& viewer, const SimRunConfig& config);
std::unique_ptr<SimRun> createHostCopyRun(const Viewer& viewer, const SimRunConfig& config);
#endif

const char* runKindName(RunKind kind) {
    switch (kind) {
    case RunKind::Cuda:
        return "cuda";
    case RunKind::HostCopy:
        return "host-copy";
    default:
        return "cpu";
    }
}

sim::OutputLayout checkedOutputs(const SimRunConfig& config) {
    const sim::SimDefinition& def = *config.simulation;
    if (config.grid.width == 0 || config.grid.height == 0)
        throw usageError(def.name + " needs a grid of at least 1x1");
    if (config.particles > 0 && def.particles.max == 0)
        throw usageError("--particles: " + def.name + " carries no particles");
    if (config.particles > def.particles.max)
        throw usageError("--particles " + std::to_string(config.particles) + " is more than " +
                         def.name + " takes (at most " + std::to_string(def.particles.max) + ")");
    if (def.dimensions == 3 && config.grid.depth == 1)
        throw usageError(def.name + " is a 3D simulation: its grid needs a depth (WxHxD)");
    if (def.dimensions != 3 && config.grid.depth != 1)
        throw usageError(def.name + " is a 2D simulation: its grid has no depth (WxH)");
    return def.outputs(
        {config.grid.width, config.grid.height, config.grid.depth, config.particles});
}

std::unique_ptr<SimRun> SimRun::create(const Viewer& viewer, const SimRunConfig& config) {
#ifdef ESTUARY_HAVE_CUDA
    if (config.kind == RunKind::Cuda) return createCudaRun(viewer, config);
    if (config.kind == RunKind::HostCopy) return createHostCopyRun(viewer, config);
#else
    if (config.kind != RunKind::Cpu)
        throw unsupported(std::string("the ") + runKindName(config.kind) +
                          " run needs CUDA, and this estuary was built without it");
#endif
    return std::make_unique<CpuRun>(viewer, config);
}

SimRun::SimRun(const Viewer& viewer, const SimRunConfig& config, estuary_writer writer)
    : viewer_(viewer), config_(config), layout_(checkedOutputs(config)) {
    const sim::SimDefinition& def = *config.simulation;
    if (config.sortLast) { // the composited picture, the viewer's size: after the outputs
        const estuary_viewer_info info = viewer.info();
        layout_.images.push_back(
            {"picture", info.width, info.height, 1, sim::TexelFormat::RGBA16Float, 1});
    }
    for (const sim::ImageOutput& output : layout_.images) {
        estuary_image_desc desc{};
        desc.format = formatOf(output.format);
        desc.kind = output.depth > 1 ? ESTUARY_IMAGE_3D : ESTUARY_IMAGE_2D;
        desc.width = output.width;
        desc.height = output.height;
        desc.depth = output.depth;
        desc.levels = sim::levelCount(output);
        desc.writer = writer;
        const std::string name = def.name + " " + output.name;
        desc.name = name.c_str();
        images_.push_back(viewer.image(desc));
    }
    for (const sim::BufferOutput& output : layout_.buffers) {
        const std::string name = def.name + " " + output.name;
        buffers_.push_back(
            viewer.buffer({.size = output.bytes, .writer = writer, .name = name.c_str()}));
    }
    shown_ = std::min<uint32_t>(config.view, uint32_t(def.views.size() - 1));
    for (uint32_t i = 0; i < def.views.size(); ++i) {
        const sim::Visual& visual = def.views[i];
        const uint32_t flags = (i == shown_ && !config.sortLast ? 0u : ESTUARY_VIEW_HIDDEN) |
                               (config.colorbar ? 0u : ESTUARY_VIEW_NO_COLORBAR);
        estuary_image* image = images_.at(visual.image).get();
        if (layout_.images[visual.image].depth > 1) {
            estuary_volume_view_desc desc{};
            desc.image = image;
            desc.style = visual.fragmentShader == "volume_slice.frag" ? ESTUARY_VOLUME_SLICE
                                                                      : ESTUARY_VOLUME_MARCH;
            desc.colormap = estuary_colormap(config.colormap);
            desc.value_min = visual.valueMin;
            desc.value_max = visual.valueMax;
            desc.opacity = config.opacity;
            desc.label = visual.valueLabel.c_str();
            desc.flags = flags;
            views_.push_back(viewer.volumeView(desc));
            views_.back().update([&](estuary_view_params& p) {
                p.slice_axis = config.sliceAxis;
                p.slice_position = config.slicePosition;
                p.opacity = config.opacity;
            });
        } else {
            estuary_field_view_desc desc{};
            desc.image = image;
            desc.shading = shadingOf(visual.shading);
            desc.colormap = estuary_colormap(config.colormap);
            desc.value_min = visual.valueMin;
            desc.value_max = visual.valueMax;
            desc.label = visual.valueLabel.c_str();
            desc.flags = flags;
            if (visual.fragmentShader != "field.frag") desc.shader = visual.fragmentShader.c_str();
            views_.push_back(viewer.fieldView(desc));
        }
    }
    if (config.sortLast) { // the picture fills the viewer's picture, pixel for pixel
        estuary_field_view_desc desc{};
        desc.image = images_.back().get();
        desc.shading = ESTUARY_FIELD_RGB;
        desc.label = "composited volume";
        desc.flags = ESTUARY_VIEW_NO_COLORBAR;
        picture_ = viewer.fieldView(desc);
    }
    const sim::PointsVisual& points = def.points;
    // The OpenGL consumer draws fields only: the particles still move, unseen.
    const bool opengl = viewer.info().consumer == ESTUARY_CONSUMER_OPENGL;
    if (config.axes && !opengl) { // the simulations step in cells: their axes read cells
        estuary_panel_desc panel{};
        panel.flags = ESTUARY_PANEL_AXES;
        panel.axis_titles[0] = "x [cells]";
        panel.axis_titles[1] = "y [cells]";
        panel.axis_titles[2] = "z [cells]";
        viewer.setPanel(0, panel);
    }
    if (points.buffer >= 0 && config.particles > 0 && !opengl) {
        estuary_points_view_desc desc{};
        desc.buffer = buffers_.at(size_t(points.buffer)).get();
        desc.layout = ESTUARY_POINTS_XY_VELOCITY;
        desc.colormap = estuary_colormap(config.colormap);
        desc.value_min = 0.0f;
        desc.value_max = points.speedMax;
        desc.count = config.particles;
        desc.flags = ESTUARY_VIEW_HIDDEN; // updatePoints shows them
        desc.label = "particle speed";
        points_ = viewer.pointsView(desc);
    }
    const sim::GlyphsVisual& glyphs = def.glyphs;
    if (glyphs.image >= 0 && !opengl) {
        estuary_glyph_view_desc desc{};
        desc.image = images_.at(size_t(glyphs.image)).get();
        desc.shape = ESTUARY_MARKER_SHAPE_ARROW;
        desc.spacing = glyphs.spacing;
        // As long as the spacing at speedMax, in the picture's pixels at zoom 1.
        const Extent grid = config.grid;
        const estuary_viewer_info info = viewer.info();
        const float pixelsPerCell = std::min(float(info.width) / float(grid.width),
                                             float(info.height) / float(grid.height));
        desc.size = std::max(4.0f, float(glyphs.spacing) * pixelsPerCell);
        desc.colormap = estuary_colormap(config.colormap);
        desc.value_max = glyphs.speedMax;
        desc.label = "velocity";
        desc.flags = config.arrows ? 0u : ESTUARY_VIEW_HIDDEN;
        glyphs_ = viewer.glyphView(desc);
        arrowsShown_ = config.arrows;
    }
}

void SimRun::showArrows(bool shown) {
    if (!glyphs_.get() || shown == arrowsShown_) return;
    glyphs_.setVisible(shown);
    arrowsShown_ = shown;
}

void SimRun::frame(const sim::ParamValues& params, int steps,
                   const std::function<void(const Frame&)>& inspect) {
    updatePoints(params);
    runFrame(params, steps, inspect);
}

std::optional<HostSimTimes> SimRun::hostTimes(uint64_t frame) const {
    const HostSimTimes& t = host_[frame % host_.size()];
    if (t.frame != frame) return std::nullopt;
    return t;
}

// The View members destroy their views first (declared after the images and buffers they
// draw); a refusal is reported where the viewer's messages go, never thrown.
SimRun::~SimRun() = default;

void SimRun::showView(uint32_t index) {
    if (config_.sortLast || index >= views_.size() || index == shown_) return;
    views_[shown_].setVisible(false);
    views_[index].setVisible(true);
    shown_ = index;
}

void SimRun::setColormap(uint32_t colormap) {
    for (const View& view : views_)
        view.update([&](estuary_view_params& p) { p.colormap = estuary_colormap(colormap); });
    for (const View* overlay : {&points_, &glyphs_})
        if (overlay->get())
            overlay->update(
                [&](estuary_view_params& p) { p.colormap = estuary_colormap(colormap); });
}

void SimRun::updatePoints(const sim::ParamValues& params) {
    if (!points_.get()) return;
    const sim::PointsVisual& points = config_.simulation->points;
    const auto param = [&](int index, float otherwise) {
        return index >= 0 ? params[size_t(index)] : otherwise;
    };
    const uint32_t count =
        particlesShown_ ? sim::activeParticles(config_.particles, param(points.shareParam, 1.0f))
                        : 0;
    const float size = std::max(param(points.sizeParam, 1.0f), 1.0f);
    // Only a change reaches the viewer (an unchanged view keeps its recorded draw).
    if (count == drawnCount_ && size == drawnSize_) return;
    points_.update([&](estuary_view_params& p) {
        p.visible = count > 0;
        if (count > 0) p.point_count = count;
        p.point_size = size;
    });
    drawnCount_ = count;
    drawnSize_ = size;
}

void SimRun::stampTexel(void* texel, uint64_t frame) const {
    const sim::TexelFormat format = layout_.images[config_.simulation->views[shown_].image].format;
    const float value = float(frame);
    if (format == sim::TexelFormat::RGBA16Float) {
        auto* halves = static_cast<uint16_t*>(texel);
        halves[0] = sim::floatToHalf(value); // frame indices up to 2048 are exact halves
        halves[1] = halves[2] = halves[3] = 0;
        return;
    }
    auto* floats = static_cast<float*>(texel);
    floats[0] = value;
    for (uint32_t c = 1; c < sim::channelCount(format); ++c)
        floats[c] = 0.0f;
}

} // namespace estuary
