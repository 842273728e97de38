// The frame protocol of interop/ on its own, without app/: FrameTimelines with an ImageRing or a
// BufferRing, CUDA writing each frame's slot with a trivial kernel and Vulkan reading it back in
// the frame's own submission, for 1 to 8 slots in flight and every format the ring accepts. All
// frames are enqueued up front with no host wait, so only the GPU-side waits keep CUDA from
// overwriting a slot Vulkan has not read yet: a wrong wait shows as another frame's bytes.
#include "estuary/interop/buffer_ring.h"
#include "cuda_vulkan_fixture.h"
#include "estuary/interop/format_tables.h"
#include "estuary/interop/frame_timelines.h"
#include "estuary/interop/image_ring.h"
#include "interop_kernels.h"
#include "vk_check.h"

#include <cstring>
#include <functional>

namespace estuary::test {
namespace {

using namespace interop;

constexpr uint32_t kSlotCounts[] = {1, 2, 3, 4, 5, 6, 7, 8};

// Records one command buffer per frame (read the slot back into `readback` at the frame's
// offset), then enqueues every frame — CUDA then Vulkan — without waiting on the host.
class RingTest : public CudaVulkanTest {
  protected:
    void runFrames(FrameTimelines& timelines, uint32_t frames,
                   const std::function<void(uint64_t)>& cudaWrite,
                   const std::function<void(VkCommandBuffer, uint64_t)>& vulkanRead) {
        std::vector<VkCommandBuffer> cmds(frames);
        VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        alloc.commandPool = pool;
        alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        alloc.commandBufferCount = frames;
        VK_CHECK(vkAllocateCommandBuffers(device.handle, &alloc, cmds.data()));
        for (uint64_t f = 0; f < frames; ++f) {
            VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
            VK_CHECK(vkBeginCommandBuffer(cmds[f], &begin));
            vulkanRead(cmds[f], f);
            VK_CHECK(vkEndCommandBuffer(cmds[f]));
        }
        for (uint64_t f = 0; f < frames; ++f) {
            cudaBeginFrame(timelines, f, stream);
            cudaWrite(f);
            cudaEndFrame(timelines, f, stream);
            const VkSemaphoreSubmitInfo wait =
                drawWaitInfo(timelines, f, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
            const VkSemaphoreSubmitInfo signal = drawSignalInfo(timelines, f);
            submitCommands(device, cmds[f], {&wait, 1}, {&signal, 1});
        }
        waitTimeline(device, timelines.released.semaphore, frames, "the ring's released timeline");
        // The layer cannot see an exported semaphore's payload; a queue wait retires the work.
        VK_CHECK(vkQueueWaitIdle(device.queue));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        vkFreeCommandBuffers(device.handle, pool, frames, cmds.data());
    }
};

using ImageRingGpu = RingTest;
using BufferRingGpu = RingTest;

TEST_F(ImageRingGpu, EveryFrameReadsItsOwnSlotForEveryFormatAndOneToEightInFlight) {
    const VkExtent2D extent{19, 11}; // odd: 5 levels with uneven halvings
    uint32_t ringsRun = 0;
    std::string notExportable;
    for (VkFormat format : shareableFormats()) {
        ImageRingDesc desc;
        try {
            checkImageExport(context, format, desc.usage);
        } catch (const Error&) {
            notExportable += std::string(" ") + formatName(format);
            continue;
        }
        const uint32_t texel = formatTexelSize(format);
        for (uint32_t slots : kSlotCounts) {
            SCOPED_TRACE(std::string(formatName(format)) + ", " + std::to_string(slots) + " slots");
            desc.format = format;
            desc.extent = extent;
            desc.name = formatName(format);
            FrameTimelines timelines = createFrameTimelines(context, slots, "image ring test");
            ImageRing ring = createImageRing(context, pool, timelines, desc);
            const uint32_t levels = ring.images[0].image.mipLevels;
            ASSERT_EQ(levels, fullMipCount(extent.width, extent.height));
            VkDeviceSize frameBytes = 0;
            const std::vector<VkBufferImageCopy> regions =
                mipChainRegions(extent, levels, texel, 16, frameBytes);
            frameBytes = (frameBytes + 15) & ~VkDeviceSize(15); // frames start 16-byte aligned too
            const uint32_t frames = 2 * slots + 3;
            GpuBuffer readback = createBuffer(
                device, frameBytes * frames, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                "ring readback");
            const auto salt = [&](uint64_t f) { return uint32_t(f * 7919 + format); };
            runFrames(
                timelines, frames,
                [&](uint64_t f) {
                    const CudaImage& slot = cudaSlot(ring, f);
                    for (uint32_t level = 0; level < levels; ++level) {
                        const VkExtent2D e = mipExtent(extent, level);
                        launchWritePattern(slot.surfaces[level], e.width, e.height, texel, level,
                                           salt(f), stream);
                    }
                },
                [&](VkCommandBuffer cmd, uint64_t f) {
                    recordAcquire(cmd, context, ring, f, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                  VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
                    std::vector<VkBufferImageCopy> at = regions;
                    for (VkBufferImageCopy& r : at)
                        r.bufferOffset += f * frameBytes;
                    vkCmdCopyImageToBuffer(cmd, vulkanSlot(ring, f).image.handle,
                                           VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.handle,
                                           uint32_t(at.size()), at.data());
                    recordRelease(cmd, context, ring, f, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                  VK_PIPELINE_STAGE_2_COPY_BIT);
                });
            uint32_t wrongFrames = 0;
            std::string first;
            const auto* bytes = static_cast<const uint8_t*>(readback.mapped);
            for (uint64_t f = 0; f < frames; ++f) {
                bool ok = true;
                for (uint32_t level = 0; level < levels && ok; ++level) {
                    const VkExtent2D e = mipExtent(extent, level);
                    const uint8_t* at = bytes + f * frameBytes + regions[level].bufferOffset;
                    for (uint32_t y = 0; y < e.height && ok; ++y)
                        for (uint32_t x = 0; x < e.width && ok; ++x)
                            for (uint32_t b = 0; b < texel && ok; ++b)
                                ok = at[(size_t(y) * e.width + x) * texel + b] ==
                                     patternByte(x, y, level, b, salt(f));
                    if (!ok && first.empty())
                        first = "frame " + std::to_string(f) + " level " + std::to_string(level);
                }
                wrongFrames += !ok;
            }
            EXPECT_EQ(wrongFrames, 0u) << "first wrong: " << first;
            destroyBuffer(device, readback);
            destroyFrameTimelines(context, timelines);
            destroyImageRing(context, ring);
            VK_CHECK(vkResetCommandPool(device.handle, pool, 0));
            ++ringsRun;
        }
    }
    std::printf("image rings run: %u (formats x slot counts 1-8); not exportable here:%s\n",
                ringsRun, notExportable.empty() ? " none" : notExportable.c_str());
    EXPECT_GT(ringsRun, 0u);
}

TEST_F(BufferRingGpu, EveryFrameReadsItsOwnSlotForOneToEightInFlight) {
    const VkDeviceSize size = 3 * 65536 + 101; // several pattern rows and a ragged end
    for (uint32_t slots : kSlotCounts) {
        SCOPED_TRACE(std::to_string(slots) + " slots");
        BufferRingDesc desc;
        desc.size = size;
        FrameTimelines timelines = createFrameTimelines(context, slots, "buffer ring test");
        BufferRing ring = createBufferRing(context, pool, timelines, desc);
        const uint32_t frames = 2 * slots + 3;
        GpuBuffer readback =
            createBuffer(device, size * frames, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         "ring readback");
        runFrames(
            timelines, frames,
            [&](uint64_t f) {
                launchFillPattern(cudaSlot(ring, f).pointer, size, uint32_t(f + 1), stream);
            },
            [&](VkCommandBuffer cmd, uint64_t f) {
                recordAcquire(cmd, context, ring, f, VK_PIPELINE_STAGE_2_COPY_BIT,
                              VK_ACCESS_2_TRANSFER_READ_BIT);
                const VkBufferCopy copy{0, f * size, size};
                vkCmdCopyBuffer(cmd, vulkanSlot(ring, f).buffer.handle, readback.handle, 1, &copy);
                recordRelease(cmd, context, ring, f, VK_PIPELINE_STAGE_2_COPY_BIT);
            });
        uint32_t wrongFrames = 0;
        const auto* bytes = static_cast<const uint8_t*>(readback.mapped);
        for (uint64_t f = 0; f < frames; ++f) {
            bool ok = true;
            for (size_t i = 0; i < size && ok; ++i)
                ok = bytes[f * size + i] ==
                     patternByte(uint32_t(i % 65536), uint32_t(i / 65536), 0, 0, uint32_t(f + 1));
            wrongFrames += !ok;
        }
        EXPECT_EQ(wrongFrames, 0u) << "frames whose readback holds another frame's bytes";
        destroyBuffer(device, readback);
        destroyFrameTimelines(context, timelines);
        destroyBufferRing(context, ring);
        VK_CHECK(vkResetCommandPool(device.handle, pool, 0));
    }
}

TEST_F(ImageRingGpu, AFormatCudaCannotShareIsRefusedNamingIt) {
    ImageRingDesc desc;
    desc.format = VK_FORMAT_B8G8R8A8_UNORM; // no CUDA channel format
    desc.extent = {16, 16};
    FrameTimelines timelines = createFrameTimelines(context, 2, "refused ring");
    try {
        ImageRing ring = createImageRing(context, pool, timelines, desc);
        destroyImageRing(context, ring);
        FAIL() << "a ring of a format CUDA cannot map was created";
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find("no CUDA channel format"), std::string::npos)
            << e.what();
    }
    destroyFrameTimelines(context, timelines);
}

} // namespace
} // namespace estuary::test
