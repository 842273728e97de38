// Headless run: frames into an offscreen target, the last one read back and written as a PNG.
#pragma once

#include "session.h"

namespace estuary {

void runHeadless(Session& session);

} // namespace estuary
