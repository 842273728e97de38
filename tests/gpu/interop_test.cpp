// Interop on a real GPU: CUDA writes through surfaces into images Vulkan allocated and exported,
// and Vulkan reads back exactly those bytes, for every shareable format and every mip level;
// timeline semaphores order 1000 CUDA↔Vulkan round trips with no host wait between them.
#include "cuda_vulkan_fixture.h"
#include "vk_check.h"
#include "estuary/interop/format_tables.h"
#include "interop_kernels.h"

#include <cstring>

namespace estuary::test {
namespace {

using namespace interop;

struct RoundTrip {
    size_t bytesCompared = 0;
    size_t mismatches = 0;
    std::string firstMismatch;
};

RoundTrip writeWithCudaReadWithVulkan(const Device& device, const Context& context,
                                      VkCommandPool pool, cudaStream_t stream, VkFormat format,
                                      VkExtent2D extent, uint32_t salt) {
    ExportedImageDesc desc;
    desc.format = format;
    desc.extent = extent;
    desc.name = formatName(format);
    ExportedImage image = createExportedImage(context, desc);
    CudaImage cuda = importImage(context, image);
    SharedTimeline timeline = createSharedTimeline(context, "cuda writes done");
    releaseToCuda(device, context, pool, image);

    const uint32_t texel = formatTexelSize(format);
    for (uint32_t level = 0; level < image.image.mipLevels; ++level) {
        const VkExtent2D e = mipExtent(extent, level);
        launchWritePattern(cuda.surfaces[level], e.width, e.height, texel, level, salt, stream);
    }
    cudaSignalTimeline(timeline, 1, stream);
    acquireAfterCuda(device, context, pool, image, timeline, 1);
    const std::vector<uint8_t> bytes =
        readImageLevels(device, pool, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);

    RoundTrip result;
    size_t offset = 0;
    for (uint32_t level = 0; level < image.image.mipLevels; ++level) {
        const VkExtent2D e = mipExtent(extent, level);
        for (uint32_t y = 0; y < e.height; ++y)
            for (uint32_t x = 0; x < e.width; ++x)
                for (uint32_t b = 0; b < texel; ++b, ++offset) {
                    const uint8_t want = patternByte(x, y, level, b, salt);
                    ++result.bytesCompared;
                    if (bytes[offset] != want && result.mismatches++ == 0)
                        result.firstMismatch = "level " + std::to_string(level) + " texel (" +
                                               std::to_string(x) + "," + std::to_string(y) +
                                               ") byte " + std::to_string(b);
                }
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    destroyCudaImage(cuda);
    destroySharedTimeline(context, timeline);
    destroyExportedImage(context, image);
    return result;
}

class InteropGpu : public CudaVulkanTest {};

TEST_F(InteropGpu, EveryShareableFormatRoundTripsEveryMipLevelExactly) {
    const VkExtent2D extent{67, 45}; // odd sizes: 7 levels, uneven halvings
    for (VkFormat format : shareableFormats()) {
        SCOPED_TRACE(formatName(format));
        const RoundTrip r = writeWithCudaReadWithVulkan(device, context, pool, stream, format,
                                                        extent, uint32_t(format));
        EXPECT_GT(r.bytesCompared, 0u);
        EXPECT_EQ(r.mismatches, 0u) << "first mismatch at " << r.firstMismatch;
        ASSERT_EQ(vkResetCommandPool(device.handle, pool, 0), VK_SUCCESS);
    }
}

TEST_F(InteropGpu, Rgba32fImage4096SquaredRoundTripsExactly) {
    const RoundTrip r = writeWithCudaReadWithVulkan(
        device, context, pool, stream, VK_FORMAT_R32G32B32A32_SFLOAT, {4096, 4096}, 0xA5A5u);
    // 4096² × 16 B = 256 MiB at level 0, plus the 12 smaller levels.
    EXPECT_GT(r.bytesCompared, size_t(4096) * 4096 * 16);
    EXPECT_EQ(r.mismatches, 0u) << "first mismatch at " << r.firstMismatch;
}

TEST_F(InteropGpu, ThousandTimelinePingPongsWithoutHostWaitsKeepOrder) {
    constexpr uint32_t kRounds = 1000;
    // shared[0]: CUDA's counter; shared[1]: Vulkan's round number; shared[2]: CUDA-seen misorders.
    ExportedBuffer shared = createExportedBuffer(
        context, 256, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        "ping-pong shared");
    CudaBuffer cudaShared = importBuffer(context, shared);
    GpuBuffer history =
        createBuffer(device, kRounds * sizeof(uint32_t), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     "ping-pong history");
    SharedTimeline cudaDone = createSharedTimeline(context, "cuda done");
    SharedTimeline vulkanDone = createSharedTimeline(context, "vulkan done");
    CUDA_CHECK(cudaMemsetAsync(cudaShared.pointer, 0, 256, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::vector<VkCommandBuffer> cmds(kRounds);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = kRounds;
    ASSERT_EQ(vkAllocateCommandBuffers(device.handle, &alloc, cmds.data()), VK_SUCCESS);
    for (uint32_t i = 0; i < kRounds; ++i) {
        VkCommandBuffer cmd = cmds[i];
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        ASSERT_EQ(vkBeginCommandBuffer(cmd, &begin), VK_SUCCESS);
        recordAcquireFromExternal(cmd, context, shared, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                                  VK_ACCESS_2_TRANSFER_READ_BIT | VK_ACCESS_2_TRANSFER_WRITE_BIT);
        VkBufferCopy copy{0, i * sizeof(uint32_t), sizeof(uint32_t)};
        vkCmdCopyBuffer(cmd, shared.buffer.handle, history.handle, 1, &copy);
        vkCmdFillBuffer(cmd, shared.buffer.handle, sizeof(uint32_t), sizeof(uint32_t), i + 1);
        recordReleaseToExternal(cmd, context, shared, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT,
                                VK_ACCESS_2_TRANSFER_WRITE_BIT);
        ASSERT_EQ(vkEndCommandBuffer(cmd), VK_SUCCESS);
    }

    // Interleaved enqueueing: CUDA round i waits for Vulkan round i-1; Vulkan round i waits for
    // CUDA round i. Nothing on the host waits until the very end.
    for (uint32_t i = 0; i < kRounds; ++i) {
        if (i > 0) cudaWaitTimeline(vulkanDone, i, stream);
        launchPingPongStep(static_cast<uint32_t*>(cudaShared.pointer), i, stream);
        cudaSignalTimeline(cudaDone, i + 1, stream);

        VkSemaphoreSubmitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        wait.semaphore = cudaDone.semaphore;
        wait.value = i + 1;
        wait.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        VkSemaphoreSubmitInfo signal{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        signal.semaphore = vulkanDone.semaphore;
        signal.value = i + 1;
        signal.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        submitCommands(device, cmds[i], {&wait, 1}, {&signal, 1});
    }
    waitTimeline(device, vulkanDone.semaphore, kRounds, "ping-pong");
    // The layer cannot see an exported semaphore's payload; a queue wait lets it retire the work.
    ASSERT_EQ(vkQueueWaitIdle(device.queue), VK_SUCCESS);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    uint32_t finalShared[3] = {};
    CUDA_CHECK(
        cudaMemcpy(finalShared, cudaShared.pointer, sizeof(finalShared), cudaMemcpyDeviceToHost));
    EXPECT_EQ(finalShared[0], kRounds) << "CUDA rounds";
    EXPECT_EQ(finalShared[1], kRounds) << "Vulkan's last round number";
    EXPECT_EQ(finalShared[2], 0u) << "CUDA rounds that saw Vulkan's value out of order";
    const auto* seen = static_cast<const uint32_t*>(history.mapped);
    uint32_t misordered = 0;
    for (uint32_t i = 0; i < kRounds; ++i)
        misordered += seen[i] != i + 1;
    EXPECT_EQ(misordered, 0u) << "Vulkan rounds that saw CUDA's counter out of order";

    vkFreeCommandBuffers(device.handle, pool, kRounds, cmds.data());
    destroySharedTimeline(context, cudaDone);
    destroySharedTimeline(context, vulkanDone);
    destroyBuffer(device, history);
    destroyCudaBuffer(cudaShared);
    destroyExportedBuffer(context, shared);
}

TEST_F(InteropGpu, CreateImportDestroyCyclesLeakNoDeviceMemory) {
    auto cycle = [&] {
        ExportedImageDesc desc;
        desc.format = VK_FORMAT_R32_SFLOAT;
        desc.extent = {1024, 1024};
        ExportedImage image = createExportedImage(context, desc);
        CudaImage cuda = importImage(context, image);
        SharedTimeline timeline = createSharedTimeline(context, "leak check");
        destroyCudaImage(cuda);
        destroySharedTimeline(context, timeline);
        destroyExportedImage(context, image);
    };
    cycle(); // first use may allocate driver-internal pools
    size_t freeBefore = 0, total = 0, freeAfter = 0;
    CUDA_CHECK(cudaMemGetInfo(&freeBefore, &total));
    for (int i = 0; i < 40; ++i)
        cycle();
    CUDA_CHECK(cudaMemGetInfo(&freeAfter, &total));
    // 40 cycles of a 4 MiB image: a leak of one image per cycle would show as 160 MiB.
    const double lostMiB = (double(freeBefore) - double(freeAfter)) / (1024.0 * 1024.0);
    std::printf("device memory lost over 40 cycles: %.2f MiB\n", lostMiB);
    EXPECT_LT(lostMiB, 8.0);
}

// What the driver says about an exportable image of this format and extent, asked independently of
// createExportedImage: a throwaway VkImage with the same external-memory create info.
bool driverWantsDedicated(const Device& device, VkFormat format, VkExtent2D extent,
                          VkImageUsageFlags usage) {
    VkExternalMemoryImageCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO, &external};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {extent.width, extent.height, 1};
    info.mipLevels = fullMipCount(extent.width, extent.height);
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage;
    VkImage image = VK_NULL_HANDLE;
    VK_CHECK(vkCreateImage(device.handle, &info, nullptr, &image));
    VkMemoryDedicatedRequirements dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_REQUIREMENTS};
    VkMemoryRequirements2 req{VK_STRUCTURE_TYPE_MEMORY_REQUIREMENTS_2, &dedicated};
    VkImageMemoryRequirementsInfo2 reqInfo{VK_STRUCTURE_TYPE_IMAGE_MEMORY_REQUIREMENTS_INFO_2};
    reqInfo.image = image;
    vkGetImageMemoryRequirements2(device.handle, &reqInfo, &req);
    vkDestroyImage(device.handle, image, nullptr);
    return dedicated.prefersDedicatedAllocation || dedicated.requiresDedicatedAllocation;
}

// The dedicated flag of an exported allocation follows what the driver says of the image. The
// sizes are found by asking the driver (not assumed: on the H100 and H200 4096^2 RGBA32F prefers
// dedicated and 1024^2 does not, but a driver update may move the line), so that both branches of
// the flag are exercised wherever the driver draws one.
TEST_F(InteropGpu, DedicatedFlagFollowsTheDriverAtASizeThatPrefersItAndOneThatDoesNot) {
    const VkFormat format = VK_FORMAT_R32G32B32A32_SFLOAT;
    const ExportedImageDesc base;
    const bool dedicatedOnly = checkImageExport(context, format, base.usage).dedicatedOnly;
    std::optional<VkExtent2D> prefers, doesNot;
    for (uint32_t side = 64; side <= 8192; side *= 2) {
        const VkExtent2D extent{side, side};
        (driverWantsDedicated(device, format, extent, base.usage) ? prefers : doesNot) = extent;
        if (prefers && doesNot) break;
    }
    if (!prefers || !doesNot)
        std::printf("the driver %s dedicated memory at every size from 64^2 to 8192^2: one "
                    "branch of the flag is exercised\n",
                    prefers ? "prefers" : "does not prefer");
    for (const auto& extent : {prefers, doesNot}) {
        if (!extent) continue;
        SCOPED_TRACE(std::to_string(extent->width) + "^2 RGBA32F");
        ExportedImageDesc desc;
        desc.format = format;
        desc.extent = *extent;
        ExportedImage image = createExportedImage(context, desc);
        const bool driver = driverWantsDedicated(device, format, *extent, desc.usage);
        std::printf(
            "%u^2 RGBA32F: %llu bytes, driver wants dedicated=%d, export dedicated-only=%d, "
            "allocated dedicated=%d\n",
            extent->width, static_cast<unsigned long long>(image.allocationSize), int(driver),
            int(dedicatedOnly), int(image.dedicated));
        EXPECT_EQ(image.dedicated, driver || dedicatedOnly);
        EXPECT_GE(image.allocationSize, VkDeviceSize(extent->width) * extent->height * 16);
        // The CUDA import must accept the allocation with the matching dedicated flag.
        CudaImage cuda = importImage(context, image);
        EXPECT_EQ(cuda.surfaces.size(), image.image.mipLevels);
        destroyCudaImage(cuda);
        destroyExportedImage(context, image);
    }
}

} // namespace
} // namespace estuary::test
