// Named ranges for profilers on the host timeline: NVTX v3 (header-only; Nsight Systems shows the
// ranges by name, and they cost a predicted branch while no tool is attached) in CUDA builds,
// nothing without CUDA. Scoped: a range ends with the object. No allocation: a frame's name is
// formatted on the stack. The Vulkan side's command-buffer labels are in frame.cpp.
#pragma once

#include <cstdint>

#ifdef ESTUARY_HAVE_CUDA
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#endif

namespace estuary {

class ProfileRange {
  public:
#ifdef ESTUARY_HAVE_CUDA
    explicit ProfileRange(const char* name) {
        nvtxRangePushA(name);
    }
    ~ProfileRange() {
        nvtxRangePop();
    }
#else
    explicit ProfileRange(const char*) {}
#endif
    ProfileRange(const ProfileRange&) = delete;
    ProfileRange& operator=(const ProfileRange&) = delete;
};

// "frame N".
class FrameProfileRange {
  public:
#ifdef ESTUARY_HAVE_CUDA
    explicit FrameProfileRange(uint64_t frame) {
        char name[32];
        std::snprintf(name, sizeof(name), "frame %llu", static_cast<unsigned long long>(frame));
        nvtxRangePushA(name);
    }
    ~FrameProfileRange() {
        nvtxRangePop();
    }
#else
    explicit FrameProfileRange(uint64_t) {}
#endif
    FrameProfileRange(const FrameProfileRange&) = delete;
    FrameProfileRange& operator=(const FrameProfileRange&) = delete;
};

} // namespace estuary
