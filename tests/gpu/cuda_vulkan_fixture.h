// Fixture for tests that need CUDA and Vulkan on the same GPU: skips (with the reason) where no
// CUDA device exists, otherwise opens the first UUID-matched Vulkan device with the interop
// extensions (`device`, and `context` for interop's calls) and a CUDA stream on the matching CUDA
// device. Validation stays on: any message fails the test. Also the blocking hand-overs of one
// exported image the round-trip tests use.
#pragma once

#include "cuda_check.h"
#include "estuary/interop/cuda_devices.h"
#include "estuary/interop/cuda_import.h"
#include "estuary/interop/device_match.h"
#include "interop_context.h"
#include "test_support.h"

namespace estuary::test {

// Vulkan hands the image to CUDA (GENERAL, external queue family) and waits for it to be done.
inline void releaseToCuda(const Device& device, const interop::Context& context, VkCommandPool pool,
                          const interop::ExportedImage& image) {
    submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
        interop::recordReleaseToExternal(cmd, context, image, VK_IMAGE_LAYOUT_UNDEFINED,
                                         VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
    });
}

// Vulkan waits on the GPU for `timeline` >= value, then takes the image back from CUDA into
// TRANSFER_SRC_OPTIMAL.
inline void acquireAfterCuda(const Device& device, const interop::Context& context,
                             VkCommandPool pool, const interop::ExportedImage& image,
                             const interop::SharedTimeline& timeline, uint64_t value) {
    VkSemaphoreSubmitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    wait.semaphore = timeline.semaphore;
    wait.value = value;
    wait.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    submitAndWait(
        device, pool,
        [&](VkCommandBuffer cmd) {
            interop::recordAcquireFromExternal(
                cmd, context, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        },
        &wait);
}

class CudaVulkanTest : public VulkanTest {
  protected:
    void SetUp() override {
        const auto cuda = interop::listCudaDevices();
        if (cuda.devices.empty())
            GTEST_SKIP() << "no NVIDIA GPU usable by CUDA here: " << cuda.problem;
        cudaDevices_ = cuda.devices;
        VulkanTest::SetUp();
        context = interopContext(instance, device);
        CUDA_CHECK(cudaSetDevice(cudaOrdinal));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    }

    void TearDown() override {
        if (stream) {
            EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
            EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
        }
        VulkanTest::TearDown();
    }

    DeviceDesc makeDeviceDesc(VkInstance vkInstance) override {
        const auto pair = interop::matchDevices(
            interop::listVulkanDevices(vkInstance, vkGetInstanceProcAddr), cudaDevices_, -1)[0];
        cudaOrdinal = pair.cuda.ordinal;
        DeviceDesc desc;
        desc.physical = pair.vulkan.handle;
        desc.extensions = interop::requiredDeviceExtensions();
        return desc;
    }

    interop::Context context; // `device` as interop sees it
    int cudaOrdinal = 0;
    cudaStream_t stream = nullptr;

  private:
    std::vector<interop::CudaDeviceInfo> cudaDevices_;
};

} // namespace estuary::test
