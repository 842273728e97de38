// The desktop demo: a window viewer (the library draws the views, the View and Performance panels,
// colorbars; it handles zoom, pan, orbit, F12, H, Esc) running the options' simulation, with the
// app's own part on top: the Simulation panel (selector, parameter sliders, presets, pause, step,
// reset, grid size, brush radius; drawn through the viewer's UI callback), the brush (left- and
// right-drag over the field) and the keys space, S, R, V, P. A WindowRun is a value a test can
// hold: step() is one frame; tests drive input through estuary_inject_event, as GLFW does.
#pragma once

#include "estuary/estuary.hpp"
#include "options.h"
#include "output_file.h"
#include "sim_run.h"

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace estuary {

// What the panel's buttons and the keys ask for between frames.
struct WindowRequests {
    bool reset = false, stepOnce = false, togglePause = false, quit = false;
    int preset = -1;     // into the simulation's presets
    int simulation = -1; // into simulations()
    int view = -1;       // into the simulation's views
    std::optional<Extent> grid;
};

struct WindowRun {
    Options options;
    Viewer viewer;
    const sim::SimDefinition* simulation = nullptr;
    std::unique_ptr<SimRun> run;
    sim::ParamValues params;
    int stepsPerFrame = 8; // while running
    bool paused = false, stepPending = false;
    float brushRadius = 8.0f;
    int gridEdit[3] = {512, 512, 1};
    Extent grid;
    WindowRequests requests;
    uint64_t framesRun = 0; // frames begun and ended (a minimized window's too)
    // The brush's stroke: where it was at the previous frame, in cells.
    bool painting = false;
    float strokeX = 0, strokeY = 0;
    // Where the panel's controls were last drawn (window coordinates), so tests and scripted runs
    // click them through the same input path a user does.
    std::vector<std::array<float, 2>> presetButtonCentre;
    std::array<float, 2> simulationSelectorCentre{};
    std::vector<std::array<float, 2>> simulationEntryCentre;
    // Tests: called in each frame just before it ends (estuary_frame_read_image and the like).
    std::function<void(const Frame&)> inspect;

    explicit WindowRun(Viewer v) : viewer(std::move(v)) {}
};

// Throws unsupported() (exit 3) without a display. Validation follows options.validate; F12
// writes into `screenshotDir` (empty: the working folder).
std::unique_ptr<WindowRun> openWindowRun(const Options& options,
                                         const std::string& screenshotDir = {});
// The same run on a viewer already open: a served headless one (headless.cpp) gets the window's
// Simulation panel, brush and keys, steered from the page.
std::unique_ptr<WindowRun> openWindowRunOn(Viewer viewer, const Options& options);
// One frame, then the input and requests it brought. False once the window is closed (Esc, the
// close button, estuary_request_close).
bool stepWindowRun(WindowRun& run);
// Destroys everything; with --validate prints the message count, and returns it (tests).
uint32_t closeWindowRun(std::unique_ptr<WindowRun>& run);

int runWindowed(const Options& options, std::optional<OutputFile>& screenshot);

} // namespace estuary
