// Fixture for tests that need CUDA and Vulkan on the same GPU: skips (with the reason) where no
// CUDA device exists, otherwise opens the UUID-matched Vulkan device with the interop extensions
// and a CUDA stream on the matching CUDA device. Validation stays on: any message fails the test.
// Also the blocking hand-overs of one exported image the round-trip tests use.
#pragma once

#include "cuda_check.h"
#include "cuda_devices.h"
#include "cuda_import.h"
#include "device_match.h"
#include "test_support.h"

namespace estuary::test {

// Vulkan hands the image to CUDA (GENERAL, external queue family) and waits for it to be done.
inline void releaseToCuda(const Device& device, VkCommandPool pool,
                          const interop::ExportedImage& image) {
    submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
        interop::recordReleaseToExternal(cmd, device, image, VK_IMAGE_LAYOUT_UNDEFINED,
                                         VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
    });
}

// Vulkan waits on the GPU for `timeline` >= value, then takes the image back from CUDA into
// TRANSFER_SRC_OPTIMAL.
inline void acquireAfterCuda(const Device& device, VkCommandPool pool,
                             const interop::ExportedImage& image,
                             const interop::SharedTimeline& timeline, uint64_t value) {
    VkSemaphoreSubmitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
    wait.semaphore = timeline.semaphore;
    wait.value = value;
    wait.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    submitAndWait(
        device, pool,
        [&](VkCommandBuffer cmd) {
            interop::recordAcquireFromExternal(
                cmd, device, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
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
        const auto pair = interop::matchDevices(listPhysicalDevices(vkInstance), cudaDevices_, -1);
        cudaOrdinal = pair.cuda.ordinal;
        DeviceDesc desc;
        desc.physical = pair.vulkan.handle;
        desc.extensions = interop::requiredDeviceExtensions();
        return desc;
    }

    int cudaOrdinal = 0;
    cudaStream_t stream = nullptr;

  private:
    std::vector<interop::CudaDeviceInfo> cudaDevices_;
};

} // namespace estuary::test
