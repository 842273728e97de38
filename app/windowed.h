// The desktop demo: a WindowApp (window_app.h) stepped until the window closes, --frames are
// presented, or a stop signal arrives (stop_signal.h); --screenshot is then written from one
// more frame if it was not yet, F12 screenshots or not.
#pragma once

#include "options.h"
#include "output_file.h"
#include "window_app.h"

#include <optional>

namespace estuary {

int runWindowed(const Options& options, std::optional<OutputFile>& screenshot);

// The loop itself, on an opened app (tests drive it after injecting input).
void runWindowLoop(WindowApp& app, const Options& options, OutputFile* screenshot);

} // namespace estuary
