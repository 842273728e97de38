// estuary/interop.h: interop on its own, for programs with a Vulkan renderer of their own. Vulkan
// allocates images and buffers as exportable memory, CUDA imports them (mipmapped arrays with a
// surface per level, device pointers), and two exported timeline semaphores synchronize the two
// APIs on the GPU, frame after frame, over a ring of one copy per frame in flight:
//   CUDA stream:   cudaBeginFrame(t, f) → write cudaSlot(ring, f) → cudaEndFrame(t, f)
//   Vulkan submit: wait drawWaitInfo(t, f) → recordAcquire(ring, f) → read it →
//                  recordRelease(ring, f) → signal drawSignalInfo(t, f)
// Everything takes an interop::Context made from the caller's own VkDevice and loader
// (vulkan_device.h). C++17; link estuary::interop (find_package(estuary COMPONENTS interop)).
#pragma once

#include "interop/cuda_devices.h"
#include "interop/device_match.h"
#include "interop/exported.h"
#include "interop/format_tables.h"
#include "interop/types.h"
#include "interop/vulkan_device.h"

// The CUDA half where estuary::interop was built with CUDA (the target defines ESTUARY_HAVE_CUDA
// for its users); an estuary built without CUDA offers the Vulkan side only.
#ifdef ESTUARY_HAVE_CUDA
#include "interop/buffer_ring.h"
#include "interop/cuda_import.h"
#include "interop/frame_timelines.h"
#include "interop/image_ring.h"
#endif
