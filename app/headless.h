// Headless run: frames into an offscreen target, the last one read back and written as a PNG. A
// stop request (stop_signal.h) makes the next frame the last: its screenshot is still written.
// With --trace (`trace` non-null) every frame also goes into a trace (trace.h), written at the end.
#pragma once

#include "output_file.h"
#include "session.h"

namespace estuary {

void runHeadless(Session& session, OutputFile& screenshot, OutputFile* trace);

} // namespace estuary
