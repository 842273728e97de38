#include "windowed.h"
#include "frame_pacer.h"
#include "app_viewer.h"
#include "errors.h"
#include "png.h"
#include "simulations.h"
#include "stop_signal.h"
#include "watchdog.h"

#include <imgui.h>

#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace estuary {
namespace {

void drawParamSliders(WindowRun& w) {
    const sim::SimDefinition& def = *w.simulation;
    for (size_t i = 0; i < def.params.size(); ++i) {
        const sim::ParamSpec& spec = def.params[i];
        float& value = w.params[i];
        // Ctrl+click turns a slider into a text field; AlwaysClamp keeps what is typed there in
        // the table's range too, the promise the simulation relies on (as --param checks it).
        if (spec.integer) {
            int v = int(value);
            if (ImGui::SliderInt(spec.name.c_str(), &v, int(spec.min), int(spec.max), "%d",
                                 ImGuiSliderFlags_AlwaysClamp))
                value = float(v);
        } else {
            ImGui::SliderFloat(spec.name.c_str(), &value, spec.min, spec.max, "%.4g",
                               ImGuiSliderFlags_AlwaysClamp);
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", spec.help.c_str());
    }
}

std::array<float, 2> centreOfItem() {
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    return {0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y)};
}

// A combo's item rectangle spans its label too, and an entry's its parent's width: a point just
// inside the left edge is on the control for certain.
std::array<float, 2> leftEndOfItem() {
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    return {lo.x + 8.0f, 0.5f * (lo.y + hi.y)};
}

// The Simulation panel, through the viewer's UI callback (top left; the viewer's own panels take
// the bottom left and the top right).
void drawSimulationPanel(WindowRun& w) {
    ImGui::SetNextWindowPos(ImVec2(10, 10), ImGuiCond_FirstUseEver);
    ImGui::SetNextWindowSize(ImVec2(300, 0), ImGuiCond_FirstUseEver);
    if (!ImGui::Begin("Simulation")) {
        ImGui::End();
        return;
    }
    const sim::SimDefinition& def = *w.simulation;
    // First, where a small (served) picture still shows them; the Pause box sits at a fixed
    // place, (27, 46) with the panel where it starts, for the browser test.
    bool paused = w.paused;
    if (ImGui::Checkbox("Pause (space)", &paused)) w.requests.togglePause = true;
    ImGui::SameLine();
    if (ImGui::Button("Step (S)")) w.requests.stepOnce = true;
    ImGui::SameLine();
    if (ImGui::Button("Reset (R)")) w.requests.reset = true;
    w.simulationEntryCentre.clear();
    const bool open = ImGui::BeginCombo("simulation", def.name.c_str());
    w.simulationSelectorCentre = leftEndOfItem();
    if (open) {
        const auto all = simulations();
        for (size_t i = 0; i < all.size(); ++i) {
            if (ImGui::Selectable(all[i].name.c_str(), &all[i] == &def))
                w.requests.simulation = int(i);
            w.simulationEntryCentre.push_back(leftEndOfItem());
        }
        ImGui::EndCombo();
    }
    ImGui::TextWrapped("%s", def.description.c_str());
    if (def.views.size() > 1 &&
        ImGui::BeginCombo("view", def.views[w.run->viewIndex()].name.c_str())) {
        for (size_t i = 0; i < def.views.size(); ++i)
            if (ImGui::Selectable(def.views[i].name.c_str(), i == w.run->viewIndex()))
                w.requests.view = int(i);
        ImGui::EndCombo();
    }
    if (w.run->particles() > 0) {
        bool shown = w.run->particlesShown();
        if (ImGui::Checkbox("particles (P)", &shown)) w.run->showParticles(shown);
    }
    if (w.run->hasArrows()) {
        bool shown = w.run->arrowsShown();
        if (ImGui::Checkbox("velocity arrows (A)", &shown)) w.run->showArrows(shown);
    }
    drawParamSliders(w);
    ImGui::SliderInt("steps/frame", &w.stepsPerFrame, 0, 64);
    if (!def.presets.empty()) ImGui::TextUnformatted("Presets (reset the field):");
    w.presetButtonCentre.resize(def.presets.size());
    for (size_t i = 0; i < def.presets.size(); ++i) {
        if (i % 3 != 0) ImGui::SameLine();
        if (ImGui::Button(def.presets[i].name.c_str(), ImVec2(88, 0))) w.requests.preset = int(i);
        w.presetButtonCentre[i] = centreOfItem();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", def.presets[i].help.c_str());
    }
    if (def.dimensions == 3) { // a 3D grid: every side 8..512 here (--size allows more)
        ImGui::InputInt3("grid", w.gridEdit);
        for (int& side : w.gridEdit)
            side = std::clamp(side, 8, 512);
    } else {
        ImGui::InputInt2("grid", w.gridEdit);
        w.gridEdit[0] = std::clamp(w.gridEdit[0], 8, 4096);
        w.gridEdit[1] = std::clamp(w.gridEdit[1], 8, 4096);
        w.gridEdit[2] = 1;
    }
    const Extent edit{uint32_t(w.gridEdit[0]), uint32_t(w.gridEdit[1]), uint32_t(w.gridEdit[2])};
    const bool changed =
        edit.width != w.grid.width || edit.height != w.grid.height || edit.depth != w.grid.depth;
    ImGui::BeginDisabled(!changed);
    if (ImGui::Button("Apply grid size")) w.requests.grid = edit;
    ImGui::EndDisabled();
    if (!def.brush.primary.empty()) {
        ImGui::SliderFloat("brush radius", &w.brushRadius, 1.0f, 64.0f, "%.0f cells");
        ImGui::TextDisabled("left drag: %s, right drag: %s", def.brush.primary.c_str(),
                            def.brush.secondary.empty() ? "nothing" : def.brush.secondary.c_str());
    }
    ImGui::Text("backend %s, grid %s, frame %llu", w.run->name(), gridName(w.grid).c_str(),
                static_cast<unsigned long long>(w.viewer.nextFrameIndex()));
    ImGui::End();
}

// The options' simulation (or the window's choice) on the viewer, with its starting parameters.
void startSimulation(WindowRun& w, const sim::SimDefinition& def, std::optional<Extent> grid) {
    w.run.reset(); // its images and views go before the new ones are made
    Options o = w.options;
    if (grid) {
        o.simulation = def.name;
        o.grid = *grid;
    }
    w.simulation = &def;
    w.run = openSimRun(w.viewer, o, def, runKindFor(w.viewer, false));
    w.grid = w.run->config().grid;
    w.params = startParams(w.options, def);
    w.stepsPerFrame = startSteps(w.options, def);
    w.gridEdit[0] = int(w.grid.width);
    w.gridEdit[1] = int(w.grid.height);
    w.gridEdit[2] = int(w.grid.depth);
    w.painting = false;
}

void applyRequests(WindowRun& w) {
    WindowRequests r = std::exchange(w.requests, {});
    if (r.togglePause) w.paused = !w.paused;
    if (r.stepOnce) {
        w.paused = true;
        w.stepPending = true;
    }
    const sim::SimDefinition& def = *w.simulation;
    if (r.preset >= 0 && size_t(r.preset) < def.presets.size()) {
        // The definition's own presets were checked against its table (checkDefinition).
        (void)sim::applyPreset(def, def.presets[size_t(r.preset)], w.params);
        r.reset = true;
    }
    if (r.simulation >= 0 && size_t(r.simulation) < simulations().size() &&
        &simulations()[size_t(r.simulation)] != w.simulation) {
        startSimulation(w, simulations()[size_t(r.simulation)], std::nullopt);
    } else if (r.grid) {
        startSimulation(w, def, r.grid);
    } else if (r.reset) {
        w.run->reset(w.options.seed);
    }
    if (r.view >= 0) w.run->showView(uint32_t(r.view));
    if (r.quit) w.viewer.requestClose();
}

// Dabs half a radius apart from the stroke's last point to the cursor, so a fast drag still
// leaves a continuous line; each dab carries the stroke's motion since the previous one.
void paint(WindowRun& w, const estuary_input& in) {
    const bool secondary = (in.buttons & ESTUARY_MOUSE_RIGHT) && !(in.buttons & ESTUARY_MOUSE_LEFT);
    const float fromX = w.painting ? w.strokeX : in.field_x;
    const float fromY = w.painting ? w.strokeY : in.field_y;
    const float dx = in.field_x - fromX, dy = in.field_y - fromY;
    const float radius = w.brushRadius;
    const int dabs = std::clamp(int(std::ceil(std::hypot(dx, dy) / (0.5f * radius))), 1, 256);
    const float stepX = dx / float(dabs), stepY = dy / float(dabs);
    for (int i = 1; i <= dabs; ++i) {
        const float t = float(i) / float(dabs);
        const float x = fromX + t * dx, y = fromY + t * dy;
        if (x < -0.5f || y < -0.5f || x >= float(w.grid.width) - 0.5f ||
            y >= float(w.grid.height) - 0.5f)
            continue;
        sim::Brush dab{x, y, radius, secondary};
        dab.dx = w.painting ? stepX : 0.0f;
        dab.dy = w.painting ? stepY : 0.0f;
        w.run->brush(dab, w.params);
    }
    w.painting = true;
    w.strokeX = in.field_x;
    w.strokeY = in.field_y;
}

void handleInput(WindowRun& w) {
    const estuary_input in = w.viewer.input();
    for (uint32_t k = 0; k < in.key_count; ++k) {
        switch (in.keys[k]) {
        case GLFW_KEY_SPACE:
            w.requests.togglePause = true;
            break;
        case GLFW_KEY_S:
            w.requests.stepOnce = true;
            break;
        case GLFW_KEY_R:
            w.requests.reset = true;
            break;
        case GLFW_KEY_V: // the next view
            w.requests.view = int((w.run->viewIndex() + 1) % w.simulation->views.size());
            break;
        case GLFW_KEY_A:
            w.run->showArrows(!w.run->arrowsShown());
            break;
        case GLFW_KEY_P:
            w.run->showParticles(!w.run->particlesShown());
            break;
        default:
            break;
        }
    }
    const bool brushing = (in.buttons & (ESTUARY_MOUSE_LEFT | ESTUARY_MOUSE_RIGHT)) &&
                          !(in.mods & ESTUARY_MOD_CONTROL) && !in.ui_wants_mouse &&
                          !w.simulation->brush.primary.empty() && w.simulation->dimensions == 2 &&
                          (in.over_field || w.painting);
    if (brushing)
        paint(w, in);
    else
        w.painting = false;
}

} // namespace

std::unique_ptr<WindowRun> openWindowRun(const Options& options, const std::string& screenshotDir) {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    if (!(x11 && *x11) && !(wayland && *wayland))
        throw unsupported("no display (DISPLAY and WAYLAND_DISPLAY are unset): the window cannot "
                          "open; run with --headless to render offscreen and write a screenshot");
    return openWindowRunOn(openAppViewer(options, {true, false, screenshotDir}), options);
}

std::unique_ptr<WindowRun> openWindowRunOn(Viewer viewer, const Options& options) {
    auto w = std::make_unique<WindowRun>(std::move(viewer));
    w->options = options;
    startSimulation(*w, *findSimulation(options.simulation), std::nullopt);
    WindowRun* self = w.get();
    w->viewer.setUi([self](void* context) {
        ImGui::SetCurrentContext(static_cast<ImGuiContext*>(context));
        drawSimulationPanel(*self);
    });
    return w;
}

bool stepWindowRun(WindowRun& w) {
    if (w.viewer.shouldClose()) return false;
    const int steps = !w.paused || w.stepPending ? w.stepsPerFrame : 0;
    w.stepPending = false;
    w.run->frame(w.params, steps, w.inspect);
    ++w.framesRun;
    handleInput(w);
    applyRequests(w);
    return !w.viewer.shouldClose();
}

uint32_t closeWindowRun(std::unique_ptr<WindowRun>& w) {
    if (!w) return 0;
    w->run.reset();
    const uint32_t messages = closeAppViewer(w->viewer, w->options);
    w.reset();
    return messages;
}

int runWindowed(const Options& options, std::optional<OutputFile>& screenshot) {
    std::unique_ptr<WindowRun> w = openWindowRun(options);
    const auto start = std::chrono::steady_clock::now();
    double slowestMs = 0;
    try {
        auto previous = start;
        FramePacer pacer(options.fpsCap);
        while (stopSignal() == 0) {
            pacer.wait();
            const WatchdogScope watch("window frame", w->framesRun, frameTimeoutNs(slowestMs));
            if (!stepWindowRun(*w)) break;
            const auto now = std::chrono::steady_clock::now();
            slowestMs = std::max(slowestMs,
                                 std::chrono::duration<double, std::milli>(now - previous).count());
            previous = now;
            if (options.frames && w->framesRun >= options.frames) break;
        }
        if (const int signal = stopSignal())
            std::printf("estuary: stopped by %s\n", stopSignalName(signal));
        w->viewer.finish();
        const estuary_metrics m = w->viewer.metrics();
        std::printf("estuary: %llu frames presented in %.3f s, swapchain created %u time(s)\n",
                    static_cast<unsigned long long>(m.frames_presented),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
                    m.swapchain_recreations);
        if (options.consumer == Consumer::OpenGL)
            std::printf("estuary: %llu frames drawn by OpenGL in the window\n",
                        static_cast<unsigned long long>(w->framesRun));
        if (std::isfinite(m.interval_ms_p50))
            std::printf("  frame time (ms, last frames): p50 %.3f  p99 %.3f\n", m.interval_ms_p50,
                        m.interval_ms_p99);
        if (screenshot && w->framesRun > 0) {
            const estuary_viewer_info info = w->viewer.info();
            std::vector<uint8_t> pixels(size_t(info.width) * info.height * 4);
            check(estuary_read_pixels(w->viewer.get(), pixels.data(), pixels.size()));
            screenshot->write(encodePng(info.width, info.height, pixels.data()));
            std::printf("estuary: wrote %s (%ux%u)\n", screenshot->path().c_str(), info.width,
                        info.height);
        } else if (screenshot) {
            std::fprintf(stderr, "estuary: --screenshot %s was not written: no frame was drawn\n",
                         screenshot->path().c_str());
        }
    } catch (...) {
        try {
            closeWindowRun(w);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "estuary: also failed while closing: %s\n", e.what());
        }
        throw;
    }
    const uint32_t messages = closeWindowRun(w);
    return options.validate && messages > 0 ? int(ExitCode::Runtime) : 0;
}

} // namespace estuary
