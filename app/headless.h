// Headless run: the options' simulation drawn into the viewer's offscreen picture, the last frame
// written as a PNG (--screenshot, estuary.png by default). A stop request (stop_signal.h) makes
// the next frame the last: its screenshot is still written. With --trace every frame also goes
// into a trace (trace.h), written at the end.
#pragma once

#include "options.h"
#include "run_outputs.h"

namespace estuary {

int runHeadless(const Options& options, RunOutputs& outputs);

} // namespace estuary
