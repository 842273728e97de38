// The synchronization half of estuary's frame protocol: two exported timeline semaphores with one
// signaller each, so values only ever increase and never race.
//   written  — CUDA signals f + 1 once frame f's outputs (images, buffers) are written;
//   released — Vulkan signals f + 1 once frame f is drawn and its slot handed back to CUDA.
// With N slots (frames in flight), CUDA may write frame f's slot once Vulkan released frame f - N;
// Vulkan may draw frame f once CUDA has written it. Both waits happen on the GPU: the host enqueues
// and never waits here. One FrameTimelines serves every ImageRing and BufferRing of a frame.
//
// A frame, in order:
//   CUDA stream:   cudaBeginFrame(f) → write the slot's images/buffers → cudaEndFrame(f)
//   Vulkan submit: wait drawWaitInfo(f) → acquire the slot (ImageRing/BufferRing) → draw →
//                  release the slot → signal drawSignalInfo(f)
// Frame numbers increase by one from any first frame, so a protocol created mid-run just starts
// there. Destroy only once no enqueued CUDA or Vulkan work uses the semaphores.
#pragma once

#include "cuda_import.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace estuary::interop {

// Owns its two semaphores: move-only.
struct FrameTimelines : MoveOnly {
    SharedTimeline written;  // signalled by CUDA only
    SharedTimeline released; // signalled by Vulkan only
    uint32_t slots = 0;
    std::optional<uint64_t> firstFrame; // set by the first cudaBeginFrame
    // The binary hand-off, for a consumer without timeline semaphores (empty otherwise): per slot,
    // CUDA signals writtenBinary once the frame is written (besides `written`) and, instead of
    // waiting on `released`, waits releasedBinary, which that consumer signals once it is done.
    std::vector<SharedBinary> writtenBinary, releasedBinary;
    // Frame order across streams: recorded on the stream of the frame whose signal came last,
    // right after it; the next frame's stream, if another, waits for it before signalling.
    cudaEvent_t lastSignal = nullptr;
    cudaStream_t lastSignalStream = nullptr;
    bool anySignal = false;
    // Frames in batches of this many consecutive numbers from firstFrame (1..slots; timeline
    // hand-off only): each frame's slot wait is the one its batch's last frame needs, so a
    // batch's CUDA work, once it starts, runs without waiting for Vulkan in between. The Vulkan
    // side draws a batch after its last frame is written (drawWaitInfo(batchLast(f))).
    uint32_t batch = 1;
};

// Throws unsupported() when the device cannot export timeline (or, with binaryHandoff, binary)
// semaphores as opaque fds.
FrameTimelines createFrameTimelines(const Context& context, uint32_t slots, const char* name,
                                    bool binaryHandoff = false);
void destroyFrameTimelines(const Context& context, FrameTimelines& timelines);

// The slot frame `frame` uses.
inline uint32_t slotOf(const FrameTimelines& t, uint64_t frame) {
    return uint32_t(frame % t.slots);
}

// CUDA side, enqueued on `stream`. Begin: the stream waits until Vulkan released frame - slots (the
// last user of this slot); the first `slots` frames wait for nothing. End: frame's outputs are
// written, Vulkan may draw it. Work enqueued before cudaBeginFrame that touches only CUDA-private
// memory (e.g. the simulation steps) overlaps with Vulkan still drawing the slot.
// Frames may use different streams: cudaEndFrame orders its signal after the previous frame's
// (whatever stream that was on), so `written` only rises and frame f's draw never starts before
// frame f's writes, even when a later frame's stream finishes first.
void cudaBeginFrame(FrameTimelines& t, uint64_t frame, cudaStream_t stream);
// The last frame of `frame`'s batch (`frame` itself without batches or before the first frame),
// and the value of `released` frame's slot wait is for (its batch's last frame's slot).
uint64_t batchLast(const FrameTimelines& t, uint64_t frame);
uint64_t slotWaitValue(const FrameTimelines& t, uint64_t frame);
void cudaEndFrame(FrameTimelines& t, uint64_t frame, cudaStream_t stream);
// The same in three steps, for frames whose signal is inside a CUDA graph (captured, replayed):
// before the capture or launch the stream waits for the previous frame's signal (nothing in a
// graph may wait for an event recorded outside it); inside it the signal alone; after the launch
// the signal is noted for the next frame.
void cudaOrderAfterLastSignal(FrameTimelines& t, cudaStream_t stream);
void cudaSignalWritten(const FrameTimelines& t, uint64_t frame, cudaStream_t stream);
void cudaNoteSignal(FrameTimelines& t, cudaStream_t stream);
// For outputs shared by every frame (rings of one copy): the stream waits until Vulkan drew every
// frame before `frame`. Enqueue it before writing such an output in `frame`. Timeline hand-off
// only: with the binary one it throws a runtime error (each binary release has one waiter,
// cudaBeginFrame).
void cudaWaitAllDrawn(FrameTimelines& t, uint64_t frame, cudaStream_t stream);

// Vulkan side: the semaphore infos of frame f's draw submission. The wait happens at `waitStage`;
// pass the same stage to the rings' recordAcquire so their barriers chain to it.
VkSemaphoreSubmitInfo drawWaitInfo(const FrameTimelines& t, uint64_t frame,
                                   VkPipelineStageFlags2 waitStage);
VkSemaphoreSubmitInfo drawSignalInfo(const FrameTimelines& t, uint64_t frame);

// ---- teardown, also after a failure: bounded, and never leaving one API waiting on the other ----

// Polls `stream` for up to `timeoutNs`; true once its work is done or has failed (a failed
// stream runs nothing more), false while it is still busy.
bool cudaStreamSettled(cudaStream_t stream, uint64_t timeoutNs);
// The stream's own CUDA error when it has failed (a sticky one reported as such); nothing while
// it is busy or done. `what` names the stream in the message.
void throwIfCudaStreamFailed(cudaStream_t stream, const char* what);
// Waits up to `timeoutNs` for the stream's work: a runtime error "timed out after ... waiting for
// `what`" when it is still busy, its CUDA error when it failed.
void finishCudaStream(cudaStream_t stream, uint64_t timeoutNs, std::string_view what);
// Unblocks CUDA work waiting for Vulkan: `released` is signalled past every frame up to
// `nextFrame` from a new stream, one the stuck work does not queue behind. Only when Vulkan will
// signal no more (its queue drained, or its device was lost). False when CUDA could not do it
// within `timeoutNs` (its context is broken).
bool releaseCudaWaits(FrameTimelines& t, uint64_t nextFrame, uint64_t timeoutNs);
// Unblocks Vulkan work waiting for CUDA: `written` is signalled past every frame up to
// `nextFrame`, also from a new CUDA stream. Only when CUDA's own stream will signal no more (it
// settled or stopped). False when CUDA cannot (a sticky error broke its context): Vulkan's waits
// then stay, and the caller leaves the objects to the driver.
bool releaseVulkanWaits(FrameTimelines& t, uint64_t nextFrame, uint64_t timeoutNs);
// Both timelines' values as the host reads them now (0 where one cannot be read); `released`
// only when asked (a host that signals it itself need not read it: the Khronos validation layer,
// 1.3.239, then reports its next host signal as below a pending one).
struct TimelineValues {
    uint64_t written = 0, released = 0;
};
TimelineValues readTimelines(const Context& context, const FrameTimelines& t,
                             bool withReleased = true);
// "CUDA wrote up to frame 46, Vulkan released up to frame 45" — for messages about a hang.
std::string describeTimelines(const Context& context, const FrameTimelines& t);

} // namespace estuary::interop
