#include "ui_panels.h"
#include "view_mapping.h"
#include "colormap.h"
#include "simulations.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace estuary {

const char* timingSeriesName(TimingSeries series) {
    switch (series) {
    case TimingSeries::Cpu:
        return "CPU frame";
    case TimingSeries::Sim:
        return "simulation";
    case TimingSeries::Render:
        return "render (GPU)";
    default:
        return "interop wait";
    }
}

double timingValue(const FrameTiming& timing, TimingSeries series) {
    switch (series) {
    case TimingSeries::Cpu:
        return timing.cpuMs;
    case TimingSeries::Sim:
        return timing.simMs;
    case TimingSeries::Render:
        return timing.renderMs;
    default:
        return timing.waitMs;
    }
}

SeriesStats seriesStats(const FrameHistory& history, TimingSeries series,
                        std::vector<double>& scratch) {
    SeriesStats stats;
    scratch.clear();
    for (size_t i = 0; i < history.size(); ++i) {
        const double v = timingValue(history[i], series);
        if (std::isfinite(v)) scratch.push_back(v);
    }
    stats.count = scratch.size();
    if (scratch.empty()) return stats;
    stats.current = scratch.back();
    // Nearest rank: the ceil(p/100 × n)-th smallest sample.
    auto rank = [&](double p) {
        const size_t r = size_t(std::ceil(p / 100.0 * double(scratch.size())));
        const size_t index = std::clamp<size_t>(r, 1, scratch.size()) - 1;
        std::nth_element(scratch.begin(), scratch.begin() + std::ptrdiff_t(index), scratch.end());
        return scratch[index];
    };
    stats.p50 = rank(50.0);
    stats.p99 = rank(99.0);
    return stats;
}

namespace {

constexpr ImU32 kSeriesColours[] = {IM_COL32(240, 240, 240, 255), IM_COL32(90, 200, 250, 255),
                                    IM_COL32(250, 170, 60, 255), IM_COL32(240, 80, 110, 255)};

void drawParamSliders(Session& session) {
    const sim::SimDefinition& def = *session.simulation;
    for (size_t i = 0; i < def.params.size(); ++i) {
        const sim::ParamSpec& spec = def.params[i];
        float& value = session.params[i];
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

void drawSimulationPanel(Session& session, UiState& ui, ImGuiCond place) {
    ImGui::SetNextWindowPos(ImVec2(10, 10), place);
    ImGui::SetNextWindowSize(ImVec2(300, 0), ImGuiCond_FirstUseEver);
    if (!ImGui::Begin("Simulation")) {
        ImGui::End();
        return;
    }
    const sim::SimDefinition& def = *session.simulation;
    const auto centre = [] {
        const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        return Vec2{0.5f * (lo.x + hi.x), 0.5f * (lo.y + hi.y)};
    };
    // A combo's item rectangle spans its label too, and an entry's its parent's width: a point
    // just inside the left edge is on the control for certain.
    const auto leftEnd = [] {
        const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        return Vec2{lo.x + 8.0f, 0.5f * (lo.y + hi.y)};
    };
    ui.simulationEntryCentre.clear();
    const bool open = ImGui::BeginCombo("simulation", def.name.c_str());
    ui.simulationSelectorCentre = leftEnd();
    if (open) {
        const auto all = simulations();
        for (size_t i = 0; i < all.size(); ++i) {
            if (ImGui::Selectable(all[i].name.c_str(), &all[i] == &def))
                ui.requests.simulation = int(i);
            ui.simulationEntryCentre.push_back(leftEnd());
        }
        ImGui::EndCombo();
    }
    ImGui::TextWrapped("%s", def.description.c_str());
    drawParamSliders(session);
    ImGui::SliderInt("steps/frame", &ui.stepsPerFrame, 0, 64);

    if (!def.presets.empty()) ImGui::TextUnformatted("Presets (reset the field):");
    ui.presetButtonCentre.resize(def.presets.size());
    for (size_t i = 0; i < def.presets.size(); ++i) {
        if (i % 3 != 0) ImGui::SameLine();
        if (ImGui::Button(def.presets[i].name.c_str(), ImVec2(88, 0))) ui.requests.preset = int(i);
        ui.presetButtonCentre[i] = centre();
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", def.presets[i].help.c_str());
    }

    bool paused = ui.paused;
    if (ImGui::Checkbox("Pause (space)", &paused)) ui.requests.togglePause = true;
    ImGui::SameLine();
    if (ImGui::Button("Step (S)")) ui.requests.stepOnce = true;
    ImGui::SameLine();
    if (ImGui::Button("Reset (R)")) ui.requests.reset = true;

    const bool volume = def.dimensions == 3;
    if (volume) { // a 3D grid: every side 8..512 here (--size allows more)
        ImGui::InputInt3("grid", ui.gridEdit);
        for (int& side : ui.gridEdit)
            side = std::clamp(side, 8, 512);
    } else {
        ImGui::InputInt2("grid", ui.gridEdit);
        ui.gridEdit[0] = std::clamp(ui.gridEdit[0], 8, 4096);
        ui.gridEdit[1] = std::clamp(ui.gridEdit[1], 8, 4096);
        ui.gridEdit[2] = 1;
    }
    const Extent grid = session.options.grid;
    const bool gridChanged = uint32_t(ui.gridEdit[0]) != grid.width ||
                             uint32_t(ui.gridEdit[1]) != grid.height ||
                             uint32_t(ui.gridEdit[2]) != grid.depth;
    ImGui::BeginDisabled(!gridChanged);
    if (ImGui::Button("Apply grid size"))
        ui.requests.grid =
            Extent{uint32_t(ui.gridEdit[0]), uint32_t(ui.gridEdit[1]), uint32_t(ui.gridEdit[2])};
    ImGui::EndDisabled();

    if (!def.brush.primary.empty()) {
        ImGui::SliderFloat("brush radius", &ui.brushRadius, 1.0f, 64.0f, "%.0f cells");
        ImGui::TextDisabled("left drag: %s, right drag: %s", def.brush.primary.c_str(),
                            def.brush.secondary.empty() ? "nothing" : def.brush.secondary.c_str());
    }
    ImGui::Text("backend %s, grid %ux%u, frame %llu", session.backend->name(), grid.width,
                grid.height, static_cast<unsigned long long>(session.nextFrame));
    ImGui::End();
}

// The orbit camera, the transfer function's opacity and the slice, for 3D simulations.
void volumeControls(ViewParams& view) {
    constexpr float kDegrees = 57.29578f;
    float yaw = view.yaw * kDegrees, pitch = view.pitch * kDegrees;
    if (ImGui::SliderFloat("yaw", &yaw, -180.0f, 180.0f, "%.0f deg")) view.yaw = yaw / kDegrees;
    if (ImGui::SliderFloat("pitch", &pitch, -85.0f, 85.0f, "%.0f deg"))
        view.pitch = pitch / kDegrees;
    ImGui::SliderFloat("opacity", &view.opacity, 0.0f, 50.0f, "%.3f per voxel",
                       ImGuiSliderFlags_Logarithmic);
    int axis = int(view.sliceAxis);
    if (ImGui::Combo("slice axis (X/Y/Z)", &axis, "x\0y\0z\0")) view.sliceAxis = uint32_t(axis);
    ImGui::SliderFloat("slice (PgUp/PgDn)", &view.slicePosition, 0.0f, 1.0f, "%.3f");
    if (ImGui::Button("Reset camera (C)")) view = resetCamera(view);
}

void drawViewPanel(Session& session, UiState& ui, ImGuiCond place) {
    // Bottom left: the Simulation panel above it grows with the simulation's parameter table.
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(10, display.y - 10), place, ImVec2(0, 1));
    ImGui::SetNextWindowSize(ImVec2(300, 0), ImGuiCond_FirstUseEver);
    if (!ImGui::Begin("View")) {
        ImGui::End();
        return;
    }
    ViewParams& view = session.view;
    const sim::SimDefinition& def = *session.simulation;
    if (def.views.size() > 1 &&
        ImGui::BeginCombo("view", def.views[session.viewIndex].name.c_str())) {
        for (size_t i = 0; i < def.views.size(); ++i)
            if (ImGui::Selectable(def.views[i].name.c_str(), i == session.viewIndex))
                ui.requests.view = int(i);
        ImGui::EndCombo();
    }
    if (def.points.buffer >= 0 && session.particles > 0) {
        ImGui::Checkbox("particles (P)", &session.showParticles);
        ImGui::SameLine();
        ImGui::TextDisabled("%u drawn of %u", view.pointCount, session.particles);
    }
    if (ImGui::BeginCombo("colormap", kColormapNames[view.colormap])) {
        for (uint32_t i = 0; i < kColormapCount; ++i)
            if (ImGui::Selectable(kColormapNames[i], i == view.colormap)) view.colormap = i;
        ImGui::EndCombo();
    }
    ImGui::SliderFloat(def.dimensions == 3 ? "lod bias" : "mip bias", &view.mipBias, -2.0f, 8.0f,
                       "%.1f");
    ImGui::SliderFloat("zoom", &view.zoom, 0.1f, 64.0f, "%.2f", ImGuiSliderFlags_Logarithmic);
    ImGui::DragFloatRange2("values", &view.valueMin, &view.valueMax, 0.005f, -1.0f, 2.0f);
    if (def.dimensions == 3) volumeControls(view);
    ImGui::Text("pan %.3f, %.3f", double(view.panX), double(view.panY));
    ImGui::SameLine();
    if (ImGui::Button("Reset view")) {
        view.zoom = 1.0f;
        view.panX = view.panY = 0.0f;
    }
    ImGui::TextDisabled(def.dimensions == 3 ? "volume: drag to rotate, wheel: zoom, C: reset"
                                            : "wheel: zoom; middle/ctrl+drag: pan");
    const CursorInfo& c = ui.cursor;
    if (c.overField) {
        const char* label = currentView(session).valueLabel.c_str();
        if (!c.value) {
            ImGui::Text("cell %d, %d  %s = (pending)", c.cellX, c.cellY, label);
        } else {
            char text[96];
            int n = std::snprintf(text, sizeof(text), "cell %d, %d  %s =", c.cellX, c.cellY, label);
            for (uint32_t i = 0; i < c.value->count && n > 0 && size_t(n) < sizeof(text); ++i)
                n += std::snprintf(text + n, sizeof(text) - size_t(n), " %.4f",
                                   double(c.value->channels[i]));
            ImGui::TextUnformatted(text);
        }
    } else {
        ImGui::TextDisabled("cursor outside the field");
    }
    ImGui::Text("pixel %.0f, %.0f", double(c.pixel.x), double(c.pixel.y));
    ImGui::End();
}

void drawTimingPlot(const FrameHistory& history, UiState& ui, float topMs) {
    const ImVec2 size(ImGui::GetContentRegionAvail().x, 120.0f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("timing plot", size);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 corner(origin.x + size.x, origin.y + size.y);
    draw->AddRectFilled(origin, corner, IM_COL32(20, 20, 26, 220));
    // The plot's top eases towards the slowest p99 so one hitch does not flatten everything.
    ui.plotScaleMs =
        ui.plotScaleMs > 0.0f ? ui.plotScaleMs + 0.05f * (topMs - ui.plotScaleMs) : topMs;
    const float scale = std::max(ui.plotScaleMs, 0.1f);
    const size_t n = history.size();
    if (n < 2) return;
    const float dx = size.x / float(n - 1);
    for (size_t s = 0; s < 4; ++s) {
        for (size_t i = 1; i < n; ++i) {
            const double a = timingValue(history[i - 1], kTimingSeries[s]);
            const double b = timingValue(history[i], kTimingSeries[s]);
            if (!std::isfinite(a) || !std::isfinite(b)) continue; // gap: not measured (yet)
            auto y = [&](double ms) {
                return corner.y - std::min(float(ms) / scale, 1.0f) * size.y;
            };
            draw->AddLine(ImVec2(origin.x + float(i - 1) * dx, y(a)),
                          ImVec2(origin.x + float(i) * dx, y(b)), kSeriesColours[s]);
        }
    }
    char label[32];
    std::snprintf(label, sizeof(label), "%.2f ms", double(scale));
    draw->AddText(ImVec2(origin.x + 4, origin.y + 2), IM_COL32(200, 200, 200, 255), label);
}

void drawPerformancePanel(Session& session, UiState& ui, ImGuiCond place) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x - 10, 10), place, ImVec2(1, 0));
    ImGui::SetNextWindowSize(ImVec2(380, 0), ImGuiCond_FirstUseEver);
    if (!ImGui::Begin("Performance")) {
        ImGui::End();
        return;
    }
    SeriesStats stats[4];
    float top = 0.0f;
    for (size_t s = 0; s < 4; ++s) {
        stats[s] = seriesStats(session.history, kTimingSeries[s], ui.scratch);
        if (std::isfinite(stats[s].p99)) top = std::max(top, float(stats[s].p99) * 1.25f);
    }
    ImGui::Text("last %zu frames, GPU times %u frames late", session.history.size(),
                session.backend->slotCount());
    drawTimingPlot(session.history, ui, top);
    if (ImGui::BeginTable("timings", 4, ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("ms");
        ImGui::TableSetupColumn("now");
        ImGui::TableSetupColumn("p50");
        ImGui::TableSetupColumn("p99");
        ImGui::TableHeadersRow();
        for (size_t s = 0; s < 4; ++s) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(kSeriesColours[s]), "%s",
                               timingSeriesName(kTimingSeries[s]));
            for (double v : {stats[s].current, stats[s].p50, stats[s].p99}) {
                ImGui::TableNextColumn();
                if (std::isfinite(v))
                    ImGui::Text("%.3f", v);
                else
                    ImGui::TextDisabled("-");
            }
        }
        ImGui::EndTable();
    }
    const double fps = std::isfinite(stats[0].p50) && stats[0].p50 > 0 ? 1000.0 / stats[0].p50 : 0;
    ImGui::Text("%.1f frames/s (p50)", fps);
    ImGui::TextDisabled("F12 screenshot, H hide UI, Esc quit");
    ImGui::End();
}

void drawNotice(UiState& ui) {
    if (ui.notice.empty() || ui.noticeSeconds <= 0.0f) return;
    ui.noticeSeconds -= ImGui::GetIO().DeltaTime;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(0.5f * display.x, display.y - 10), ImGuiCond_Always,
                            ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(display.x - 20, display.y));
    ImGui::SetNextWindowBgAlpha(0.85f);
    const ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoInputs |
                                   ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoNav |
                                   ImGuiWindowFlags_NoFocusOnAppearing |
                                   ImGuiWindowFlags_NoSavedSettings;
    if (ImGui::Begin("##notice", nullptr, flags)) {
        ImGui::PushTextWrapPos(display.x - 40);
        if (ui.noticeIsError)
            ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.45f, 1.0f), "%s", ui.notice.c_str());
        else
            ImGui::TextUnformatted(ui.notice.c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::End();
}

} // namespace

void drawUiPanels(Session& session, UiState& ui) {
    // Panels keep where the user dragged them, until the window changes size: then they go back
    // to their corners, so none is left off-screen or on top of another.
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const bool resized = display.x != ui.layoutFor.x || display.y != ui.layoutFor.y;
    ui.layoutFor = {display.x, display.y};
    const ImGuiCond place = resized ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
    drawSimulationPanel(session, ui, place);
    drawViewPanel(session, ui, place);
    drawPerformancePanel(session, ui, place);
    drawNotice(ui);
}

} // namespace estuary
