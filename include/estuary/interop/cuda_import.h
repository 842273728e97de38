// The CUDA side of shared resources: Vulkan memory imported as external memory, mapped as a
// mipmapped array with one surface object per level (images) or as a device pointer (buffers), and
// a Vulkan timeline semaphore imported as an external semaphore that CUDA waits on and signals in a
// stream.
//
// fd ownership follows the CUDA documentation: a successful import owns the fd; on failure the fd
// is still ours and is closed here. Teardown order: stream work finished (caller) → surfaces →
// mipmapped array / mapped pointer → external memory; semaphores with no outstanding work.
#pragma once

#include "exported.h"

#include <cuda_runtime_api.h>

#include <vector>

namespace estuary::interop {

struct CudaImage : MoveOnly {
    cudaExternalMemory_t memory = nullptr;
    cudaMipmappedArray_t mipmapped = nullptr;
    std::vector<cudaArray_t> levels; // owned by `mipmapped`
    // One per level, over all of the level: a 3D surface for 3D images (surf3Dwrite), a layered
    // surface for 2D arrays (surf2DLayeredwrite) and cubes (surfCubemapwrite, layer = face).
    std::vector<cudaSurfaceObject_t> surfaces;
};

// Import `image` into the current CUDA device. `surfaceLoadStore` adds cudaArraySurfaceLoadStore
// and creates the per-level surfaces.
CudaImage importImage(const Context& context, const ExportedImage& image,
                      bool surfaceLoadStore = true);
void destroyCudaImage(CudaImage& image);

struct CudaBuffer : MoveOnly {
    cudaExternalMemory_t memory = nullptr;
    void* pointer = nullptr;
    size_t size = 0;
};

CudaBuffer importBuffer(const Context& context, const ExportedBuffer& buffer);
void destroyCudaBuffer(CudaBuffer& buffer);

// A Vulkan timeline semaphore, exported and imported into CUDA. Each semaphore has exactly one
// signaller (either Vulkan or CUDA), so two signallers never race on a value.
struct SharedTimeline : MoveOnly {
    VkSemaphore semaphore = VK_NULL_HANDLE;
    cudaExternalSemaphore_t cuda = nullptr;
};

SharedTimeline createSharedTimeline(const Context& context, const char* name);
void destroySharedTimeline(const Context& context, SharedTimeline& timeline);

// A Vulkan binary semaphore, exported and imported into CUDA: for consumers that have no timeline
// semaphores (OpenGL without GL_NV_timeline_semaphore). One wait per signal, the wait enqueued
// after its signal.
struct SharedBinary : MoveOnly {
    VkSemaphore semaphore = VK_NULL_HANDLE;
    cudaExternalSemaphore_t cuda = nullptr;
};

SharedBinary createSharedBinary(const Context& context, const char* name);
void destroySharedBinary(const Context& context, SharedBinary& binary);
void cudaWaitBinary(const SharedBinary& binary, cudaStream_t stream);
void cudaSignalBinary(const SharedBinary& binary, cudaStream_t stream);

// Enqueue on `stream`: CUDA waits until the value is ≥ `value` / sets the value to `value`.
void cudaWaitTimeline(const SharedTimeline& timeline, uint64_t value, cudaStream_t stream);
void cudaSignalTimeline(const SharedTimeline& timeline, uint64_t value, cudaStream_t stream);

} // namespace estuary::interop
