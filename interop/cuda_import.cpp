#include "estuary/interop/cuda_import.h"
#include "cuda_check.h"
#include "estuary/interop/format_tables.h"
#include "vk_calls.h"

#include <tuple>
#include <unistd.h>
#include <utility>

namespace estuary::interop {
namespace {

// format_tables.h is CUDA-free; its values must be the runtime's.
static_assert(kArrayLayered == cudaArrayLayered && kArrayCubemap == cudaArrayCubemap &&
              kArraySurfaceLoadStore == cudaArraySurfaceLoadStore &&
              kArrayColorAttachment == cudaArrayColorAttachment);
static_assert(int(ChannelKind::Signed) == cudaChannelFormatKindSigned &&
              int(ChannelKind::Unsigned) == cudaChannelFormatKindUnsigned &&
              int(ChannelKind::Float) == cudaChannelFormatKindFloat);

cudaExternalMemory_t importMemoryFd(int fd, VkDeviceSize size, bool dedicated) {
    cudaExternalMemoryHandleDesc desc{};
    desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
    desc.handle.fd = fd;
    desc.size = size;
    desc.flags = dedicated ? cudaExternalMemoryDedicated : 0;
    cudaExternalMemory_t memory = nullptr;
    const cudaError_t err = cudaImportExternalMemory(&memory, &desc);
    if (err != cudaSuccess) {
        close(fd); // only a successful import takes ownership of the fd
        throw cudaFailure(err, "cudaImportExternalMemory", __FILE__, __LINE__);
    }
    return memory;
}

} // namespace

CudaImage importImage(const Context& context, const ExportedImage& image, bool surfaceLoadStore) {
    const auto format = channelFormatFor(image.image.format);
    const ImageShape& shape = image.image.shape;
    const VkExtent3D extent{image.image.extent.width, image.image.extent.height, shape.depth};
    const auto cudaExtent = cudaExtentFor(shape.viewType, extent, shape.layers);
    if (!format || !cudaExtent)
        throw unsupported(std::string("cannot map a ") + viewTypeName(shape.viewType) + " " +
                          formatName(image.image.format) + " image into CUDA");

    CudaImage out;
    out.memory = importMemoryFd(exportMemoryFd(context, image.image.memory), image.allocationSize,
                                image.dedicated);
    cudaExternalMemoryMipmappedArrayDesc desc{};
    desc.offset = 0;
    desc.formatDesc = {format->x, format->y, format->z, format->w,
                       cudaChannelFormatKind(format->kind)};
    desc.extent = {cudaExtent->width, cudaExtent->height, cudaExtent->depth};
    desc.flags = mipmappedArrayFlagsFor(shape.viewType, image.usage, surfaceLoadStore);
    desc.numLevels = image.image.mipLevels;
    try {
        CUDA_CHECK(cudaExternalMemoryGetMappedMipmappedArray(&out.mipmapped, out.memory, &desc));
        for (uint32_t level = 0; level < image.image.mipLevels; ++level) {
            cudaArray_t array = nullptr;
            CUDA_CHECK(cudaGetMipmappedArrayLevel(&array, out.mipmapped, level));
            out.levels.push_back(array);
            if (!surfaceLoadStore) continue;
            cudaResourceDesc res{};
            res.resType = cudaResourceTypeArray;
            res.res.array.array = array;
            cudaSurfaceObject_t surface = 0;
            CUDA_CHECK(cudaCreateSurfaceObject(&surface, &res));
            out.surfaces.push_back(surface);
        }
    } catch (...) {
        destroyCudaImage(out);
        throw;
    }
    return out;
}

void destroyCudaImage(CudaImage& image) {
    // Teardown errors are reported by the next checked call; nothing useful can be done here.
    for (cudaSurfaceObject_t s : image.surfaces)
        (void)cudaDestroySurfaceObject(s);
    if (image.mipmapped) (void)cudaFreeMipmappedArray(image.mipmapped);
    if (image.memory) (void)cudaDestroyExternalMemory(image.memory);
    image = CudaImage{};
}

CudaBuffer importBuffer(const Context& context, const ExportedBuffer& buffer) {
    CudaBuffer out;
    out.size = buffer.buffer.size;
    out.memory = importMemoryFd(exportMemoryFd(context, buffer.buffer.memory),
                                buffer.allocationSize, buffer.dedicated);
    cudaExternalMemoryBufferDesc desc{};
    desc.offset = 0;
    desc.size = buffer.buffer.size;
    const cudaError_t err = cudaExternalMemoryGetMappedBuffer(&out.pointer, out.memory, &desc);
    if (err != cudaSuccess) {
        destroyCudaBuffer(out);
        throw cudaFailure(err, "cudaExternalMemoryGetMappedBuffer", __FILE__, __LINE__);
    }
    return out;
}

void destroyCudaBuffer(CudaBuffer& buffer) {
    if (buffer.pointer) (void)cudaFree(buffer.pointer);
    if (buffer.memory) (void)cudaDestroyExternalMemory(buffer.memory);
    buffer = CudaBuffer{};
}

namespace {

// Checks that `type` semaphores export as opaque fds, creates one and imports it into CUDA as
// `cudaType`. Returns the pair; nothing is leaked on failure.
std::pair<VkSemaphore, cudaExternalSemaphore_t>
createSharedSemaphore(const Context& context, VkSemaphoreType type,
                      cudaExternalSemaphoreHandleType cudaType, const char* name) {
    VkPhysicalDeviceExternalSemaphoreInfo query{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
    VkSemaphoreTypeCreateInfo typeInfo{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    typeInfo.semaphoreType = type;
    query.pNext = &typeInfo;
    query.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalSemaphoreProperties props{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    context.fn->vkGetPhysicalDeviceExternalSemaphoreProperties(context.vulkan.physicalDevice,
                                                               &query, &props);
    const char* kind = type == VK_SEMAPHORE_TYPE_TIMELINE ? "timeline" : "binary";
    if (!(props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT))
        throw unsupported(context.deviceName + " cannot export a " + kind +
                          " semaphore as an opaque fd");

    const VkSemaphore semaphore = type == VK_SEMAPHORE_TYPE_TIMELINE
                                      ? createTimelineSemaphore(context, true, name)
                                      : createExportableBinarySemaphore(context, name);
    int fd = -1;
    try {
        fd = exportSemaphoreFd(context, semaphore);
    } catch (...) {
        context.fn->vkDestroySemaphore(context.vulkan.device, semaphore, nullptr);
        throw;
    }
    cudaExternalSemaphoreHandleDesc desc{};
    desc.type = cudaType;
    desc.handle.fd = fd;
    cudaExternalSemaphore_t cuda = nullptr;
    const cudaError_t err = cudaImportExternalSemaphore(&cuda, &desc);
    if (err != cudaSuccess) {
        close(fd);
        context.fn->vkDestroySemaphore(context.vulkan.device, semaphore, nullptr);
        throw cudaFailure(err, "cudaImportExternalSemaphore", __FILE__, __LINE__);
    }
    return {semaphore, cuda};
}

} // namespace

SharedTimeline createSharedTimeline(const Context& context, const char* name) {
    SharedTimeline out;
    std::tie(out.semaphore, out.cuda) =
        createSharedSemaphore(context, VK_SEMAPHORE_TYPE_TIMELINE,
                              cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd, name);
    return out;
}

SharedBinary createSharedBinary(const Context& context, const char* name) {
    SharedBinary out;
    std::tie(out.semaphore, out.cuda) = createSharedSemaphore(
        context, VK_SEMAPHORE_TYPE_BINARY, cudaExternalSemaphoreHandleTypeOpaqueFd, name);
    return out;
}

void destroySharedBinary(const Context& context, SharedBinary& binary) {
    if (binary.cuda) (void)cudaDestroyExternalSemaphore(binary.cuda);
    if (binary.semaphore)
        context.fn->vkDestroySemaphore(context.vulkan.device, binary.semaphore, nullptr);
    binary = SharedBinary{};
}

void cudaWaitBinary(const SharedBinary& binary, cudaStream_t stream) {
    cudaExternalSemaphoreWaitParams params{};
    CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&binary.cuda, &params, 1, stream));
}

void cudaSignalBinary(const SharedBinary& binary, cudaStream_t stream) {
    cudaExternalSemaphoreSignalParams params{};
    CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&binary.cuda, &params, 1, stream));
}

void destroySharedTimeline(const Context& context, SharedTimeline& timeline) {
    if (timeline.cuda) (void)cudaDestroyExternalSemaphore(timeline.cuda);
    if (timeline.semaphore)
        context.fn->vkDestroySemaphore(context.vulkan.device, timeline.semaphore, nullptr);
    timeline = SharedTimeline{};
}

void cudaWaitTimeline(const SharedTimeline& timeline, uint64_t value, cudaStream_t stream) {
    cudaExternalSemaphoreWaitParams params{};
    params.params.fence.value = value;
    CUDA_CHECK(cudaWaitExternalSemaphoresAsync(&timeline.cuda, &params, 1, stream));
}

void cudaSignalTimeline(const SharedTimeline& timeline, uint64_t value, cudaStream_t stream) {
    cudaExternalSemaphoreSignalParams params{};
    params.params.fence.value = value;
    CUDA_CHECK(cudaSignalExternalSemaphoresAsync(&timeline.cuda, &params, 1, stream));
}

} // namespace estuary::interop
