// Everything the viewer does with CUDA, behind CUDA-free signatures, so the rest of the library
// builds without the toolkit: choosing the CUDA device whose UUID a Vulkan device shares, the
// viewer's stream and per-entry events, interop's FrameTimelines (one pair for all allocations),
// the rings of CUDA-written images and buffers, the frame's wait and signal on the user's stream,
// its CUDA graph capture and replay, its times on the CUDA clock, and the teardown that releases
// one API's waits when the other will signal no more. cuda_side.cpp implements it with CUDA;
// cuda_side_none.cpp, for builds without CUDA, reports that CUDA is absent.
#pragma once

#include "device_scope.h"
#include "viewer.h"

#include <optional>
#include <string>
#include <vector>

namespace estuary::lib {

// Whether this build has CUDA at all.
bool cudaBuilt();

// For the length of one C API call: the viewer's CUDA device current on this thread, and the
// caller's device current again after (the contract's "devices" clause). Without CUDA, or for a
// viewer without it, nothing happens. `viewer` may be null (estuary_create_viewer: only the
// caller's device is given back).
class CudaDeviceScope {
  public:
    explicit CudaDeviceScope(const estuary_viewer* viewer);

  private:
    DeviceScope scope_;
};

// The pairs of CUDA devices and their Vulkan twins the viewer may use, in CUDA order (interop's
// matchDevices); with `requested` >= 0 that device only. Empty with the reason in `problem`.
struct CudaCandidate {
    int ordinal = -1;
    std::string name;
    VkPhysicalDevice vulkan = VK_NULL_HANDLE;
    std::string reason; // "CUDA device 0 (NVIDIA H100) is Vulkan device ... (same UUID ...)"
};
std::vector<CudaCandidate> cudaCandidates(const estuary_viewer& v, int requested,
                                          std::string& problem);

// Opens the CUDA side on device `ordinal` (made current on this thread): stream, events, the
// frame timelines (exported, imported; `binaryHandoff` adds a binary pair per slot for OpenGL).
void openCuda(estuary_viewer& v, int ordinal, bool binaryHandoff);
// After settleGpuWork: frees everything CUDA holds (graphs, events, timelines, stream).
void closeCuda(estuary_viewer& v);
void* cudaStream(const estuary_viewer& v);

// Rings of CUDA-written allocations (copies: one per slot or 1), handed to CUDA at creation.
void createCudaImage(estuary_viewer& v, estuary_image& image, VkImageUsageFlags usage);
void createCudaBuffer(estuary_viewer& v, estuary_buffer& buffer, VkBufferUsageFlags usage);
void destroyCudaImage(estuary_viewer& v, estuary_image& image);
void destroyCudaBuffer(estuary_viewer& v, estuary_buffer& buffer);
const interop::ExportedImage& cudaExportedImage(const estuary_image& image, uint32_t copy);
const interop::ExportedBuffer& cudaExportedBuffer(const estuary_buffer& buffer, uint32_t copy);
uint64_t cudaSurface(const estuary_image& image, uint32_t copy, uint32_t level);
void* cudaArray(const estuary_image& image, uint32_t copy, uint32_t level);
void* cudaMipmappedArray(const estuary_image& image, uint32_t copy);
void* cudaPointer(const estuary_buffer& buffer, uint32_t copy);

// The frame on its stream. Begin records the start (and, unless deferred, enqueues the slot's
// wait); with a replay key, launches the entry's graph when it holds one for that key (replayed:
// the user enqueues nothing) or starts capturing.
void cudaBeginFrame(estuary_viewer& v, estuary_frame& frame);
void cudaWaitSlot(estuary_viewer& v, estuary_frame& frame);
// Singles: the stream waits until every frame before this one is drawn.
void cudaWaitAllDrawn(estuary_viewer& v, estuary_frame& frame);
// Drops every captured frame graph (they may write an image or buffer that is going away).
void forgetGraphs(estuary_viewer& v);
void cudaEndFrame(estuary_viewer& v, estuary_frame& frame);
// The last frame of `frame`'s hand-off batch (handoff_batch; `frame` itself without batches).
uint64_t cudaBatchLast(const estuary_viewer& v, uint64_t frame);
// The draw submission's wait for the frame's CUDA work and its signal back.
VkSemaphoreSubmitInfo cudaDrawWait(const estuary_viewer& v, uint64_t frame,
                                   VkPipelineStageFlags2 stage);
VkSemaphoreSubmitInfo cudaDrawSignal(const estuary_viewer& v, uint64_t frame);
// The semaphores a consumer outside Vulkan (OpenGL) waits on and signals.
struct CudaHandoff {
    VkSemaphore written = VK_NULL_HANDLE, released = VK_NULL_HANDLE;
    std::vector<VkSemaphore> writtenBinary, releasedBinary;
};
CudaHandoff cudaHandoff(const estuary_viewer& v);

// The frame's CUDA spans in µs on the CUDA clock (start, wait start, wait end, end) once it is
// drawn, and whether it was a replayed graph; nothing where not measured.
std::optional<std::array<double, 4>> cudaFrameTimes(estuary_viewer& v, uint64_t frame,
                                                    bool& fromGraph);
// A CUDA clock reading between two host reads (steady µs), the tightest of `tries`.
std::optional<ClockBracket> cudaClockBracket(estuary_viewer& v, uint32_t tries);

// Copies into a CUDA image level / buffer on the frame's stream, from host or device memory.
void cudaCopyToImage(estuary_frame& frame, const estuary_image& image, uint32_t level,
                     const void* source, uint64_t bytes);

// Teardown: whether the stream's work is done or failed (polling up to `timeoutNs`); release the
// CUDA waits on Vulkan (Vulkan will signal no more) and Vulkan's waits on CUDA; the sticky error
// of a failed stream; both timelines' values in words.
bool cudaSettled(estuary_viewer& v, uint64_t timeoutNs);
bool releaseCudaWaits(estuary_viewer& v, uint64_t nextFrame, uint64_t timeoutNs);
bool releaseVulkanWaits(estuary_viewer& v, uint64_t nextFrame, uint64_t timeoutNs);
void throwIfCudaFailed(const estuary_viewer& v);
std::string cudaWaitState(const estuary_viewer& v);
// Waits (bounded) for the stream's work: the CUDA error of a failed stream is thrown.
void finishCudaStream(estuary_viewer& v, uint64_t timeoutNs);

// The contract's own check, at each begin_frame: both hand-off timelines read on the host, and
// any value lower than the previous reading counted (timing's handoffRegressions).
void checkHandoffOrder(estuary_viewer& v);

// cudaMemGetInfo of the viewer's device; zeros without CUDA.
void cudaMemory(const estuary_viewer& v, uint64_t& freeBytes, uint64_t& totalBytes);

} // namespace estuary::lib
