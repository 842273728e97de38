// The estuary app's viewer: the library's viewer described from the command line (window or
// headless, size, frames in flight, the CUDA device for --backend/--device, draw path, consumer,
// validation), its messages printed as estuary's, ESTUARY_FAULT's faults armed in it, and the
// simulation run on it that --backend and the benchmark mode ask for. Everything here goes
// through the public API (estuary.hpp).
#pragma once

#include "estuary/estuary.hpp"
#include "options.h"
#include "sim_run.h"

#include <memory>
#include <string>

namespace estuary {

struct AppViewerDesc {
    bool window = false;
    bool hostCopy = false;     // the benchmark's no-interop mode
    std::string screenshotDir; // F12's folder; empty: the working folder
};

// Throws estuary::Error: --backend cuda where CUDA cannot run is exit 3 saying why.
Viewer openAppViewer(const Options& options, const AppViewerDesc& desc);

// How the options' simulation runs on `viewer`: cuda where the viewer has CUDA (host-copy for
// the benchmark's mode), else cpu.
RunKind runKindFor(const Viewer& viewer, bool hostCopy);

// The options' simulation on `viewer`, from the options' grid, particles, seed, view and volume
// settings (or `simulation`, the window's choice); checked to fit in memory first. Prints which
// backend and device run it, and why.
std::unique_ptr<SimRun> openSimRun(const Viewer& viewer, const Options& options,
                                   const sim::SimDefinition& simulation, RunKind kind,
                                   bool stampFrames = false);

// The parameters a run starts with: the simulation's, with --param for the simulation named.
sim::ParamValues startParams(const Options& options, const sim::SimDefinition& simulation);
int startSteps(const Options& options, const sim::SimDefinition& simulation);
// The view --view names (0 when none, or for another simulation).
uint32_t startView(const Options& options, const sim::SimDefinition& simulation);

// Destroys the viewer; with --validate prints the count of validation-layer (and OpenGL debug)
// messages and returns it (0 without --validate): a non-zero count is exit 1.
uint32_t closeAppViewer(Viewer& viewer, const Options& options);

} // namespace estuary
