// The overlay's three panels — Simulation, View, Performance — built with Dear ImGui each frame
// from the session and a UiState. The Simulation panel is generic: a selector over the registered
// simulations, one slider per entry of the simulation's parameter table, its presets and its brush
// help. Sliders edit the session's parameters in place (the next frame uses them); anything that
// must happen between frames (another simulation, reset, single step, preset, grid change,
// screenshot, quit) becomes a UiRequest that the windowed app applies, the same path the hotkeys
// take. A notice (UiState::notice) is drawn over the field for a few seconds. The timing summaries
// are pure functions over the frame history, unit-tested.
#pragma once

#include "frame_timing.h"
#include "options.h"
#include "session.h"
#include "view_mapping.h"

#include <optional>
#include <string>
#include <vector>

namespace estuary {

enum class TimingSeries { Cpu, Sim, Render, Wait };
inline constexpr TimingSeries kTimingSeries[] = {TimingSeries::Cpu, TimingSeries::Sim,
                                                 TimingSeries::Render, TimingSeries::Wait};
const char* timingSeriesName(TimingSeries series);
double timingValue(const FrameTiming& timing, TimingSeries series);

struct SeriesStats {
    size_t count = 0;              // finite samples in the history
    double current = kNotMeasured; // the newest finite sample
    double p50 = kNotMeasured;     // nearest rank, as in bench_stats.h
    double p99 = kNotMeasured;
};
// `scratch` is reused between calls so the per-frame path does not allocate once it has grown.
SeriesStats seriesStats(const FrameHistory& history, TimingSeries series,
                        std::vector<double>& scratch);

struct UiRequests {
    bool reset = false;
    bool stepOnce = false;
    bool togglePause = false;
    bool toggleUi = false;
    bool screenshot = false;
    bool quit = false;
    int preset = -1;     // index into the simulation's presets
    int simulation = -1; // index into simulations()
    int view = -1;       // index into the simulation's views
    std::optional<Extent> grid;
};

struct CursorInfo {
    bool overField = false;
    int cellX = 0, cellY = 0;
    Vec2 pixel;                      // framebuffer pixels
    std::optional<ProbeValue> value; // from the backend's probe (arrives late on CUDA)
};

// How long a notice (what F12 wrote, or why it could not) stays over the field.
inline constexpr float kNoticeSeconds = 6.0f;

struct UiState {
    bool visible = true;
    bool paused = false;
    int stepsPerFrame = 8; // while running; the session's value is 0 while paused
    float brushRadius = 8.0f;
    int gridEdit[3] = {512, 512, 1}; // the depth only for 3D simulations
    UiRequests requests;             // filled by panels and hotkeys, consumed once per frame
    CursorInfo cursor;
    // Where each preset button was last drawn (window coordinates): lets tests and scripted runs
    // click them through the same input path a user does.
    std::vector<Vec2> presetButtonCentre;
    // A point on the simulation selector, and on each of its entries while its list is open
    // (empty otherwise).
    Vec2 simulationSelectorCentre;
    std::vector<Vec2> simulationEntryCentre;
    std::vector<double> scratch;
    float plotScaleMs = 0.0f; // smoothed top of the timing plot
    Vec2 layoutFor;           // display size the panels were last placed for
    // A line shown at the bottom of the window while noticeSeconds last (counted down per frame).
    std::string notice;
    bool noticeIsError = false;
    float noticeSeconds = 0.0f;
};

// Builds the panels for this ImGui frame (between ImGui::NewFrame and ImGui::Render).
void drawUiPanels(Session& session, UiState& ui);

} // namespace estuary
