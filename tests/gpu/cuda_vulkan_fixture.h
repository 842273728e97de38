// Fixture for tests that need CUDA and Vulkan on the same GPU: skips (with the reason) where no
// CUDA device exists, otherwise opens the UUID-matched Vulkan device with the interop extensions
// and a CUDA stream on the matching CUDA device. Validation stays on: any message fails the test.
#pragma once

#include "cuda_check.h"
#include "cuda_devices.h"
#include "cuda_import.h"
#include "device_match.h"
#include "test_support.h"

namespace estuary::test {

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
