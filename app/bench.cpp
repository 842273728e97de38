#include "bench.h"
#include "error.h"

namespace estuary {

int runBench(const Options&) {
    throw unsupported("--bench is not available in this build yet");
}

} // namespace estuary
