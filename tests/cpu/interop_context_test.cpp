// interop with a Vulkan device it did not create, on the device the CPU suite has (lavapipe here):
// its function table loaded through the caller's vkGetInstanceProcAddr (volk's) and through
// libvulkan.so.1 itself, its device listing against the foundation's, an image and a buffer
// exported where the driver can and refused naming what where it cannot, and the error for an fd
// export whose extension the device lacks. Validation is on: any message fails the test. The rings'
// argument checks, which come before any CUDA call, run here too in builds with CUDA.
#include "errors.h"
#include "estuary/interop/device_match.h"
#include "estuary/interop/exported.h"
#include "interop_context.h"
#include "test_support.h"
#include "vk_check.h"
#ifdef ESTUARY_HAVE_CUDA
#include "estuary/interop/buffer_ring.h"
#include "estuary/interop/frame_timelines.h"
#include "estuary/interop/image_ring.h"
#endif

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <unistd.h>

namespace estuary::test {
namespace {

bool offersExtension(VkPhysicalDevice physical, const char* name) {
    uint32_t count = 0;
    VK_CHECK(vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr));
    std::vector<VkExtensionProperties> offered(count);
    VK_CHECK(vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, offered.data()));
    return std::any_of(offered.begin(), offered.end(), [&](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

// The default device with VK_KHR_external_memory_fd where it is offered (lavapipe has it), and
// never VK_KHR_external_semaphore_fd: the semaphore test needs a device without it.
class InteropContext : public VulkanTest {
  protected:
    void SetUp() override {
        VulkanTest::SetUp();
        context = interopContext(instance, device);
    }

    DeviceDesc makeDeviceDesc(VkInstance vkInstance) override {
        DeviceDesc desc = VulkanTest::makeDeviceDesc(vkInstance);
        memoryFd = offersExtension(desc.physical, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        semaphoreFdOffered =
            offersExtension(desc.physical, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
        if (memoryFd) desc.extensions.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        return desc;
    }

    interop::Context context;
    bool memoryFd = false;
    bool semaphoreFdOffered = false;
};

TEST_F(InteropContext, LoadsThroughTheCallersLoaderAndThroughLibvulkanAlike) {
    ASSERT_TRUE(context.fn);
    EXPECT_EQ(context.deviceName, std::string(device.properties.deviceName));
    EXPECT_EQ(context.memory.memoryTypeCount, device.memory.memoryTypeCount);
    EXPECT_EQ(context.vulkan.device, device.handle);

    interop::VulkanDevice own = context.vulkan;
    own.getInstanceProcAddr = nullptr; // interop opens libvulkan.so.1 itself
    const interop::Context opened = interop::createContext(own);
    ASSERT_TRUE(opened.fn);
    EXPECT_EQ(opened.deviceName, context.deviceName);
    EXPECT_EQ(opened.memory.memoryTypeCount, context.memory.memoryTypeCount);
    for (uint32_t i = 0; i < context.memory.memoryTypeCount; ++i)
        EXPECT_EQ(opened.memory.memoryTypes[i].propertyFlags,
                  context.memory.memoryTypes[i].propertyFlags);
}

TEST_F(InteropContext, RefusesADeviceWithoutItsHandlesAsBadUsage) {
    interop::VulkanDevice missing = context.vulkan;
    missing.queue = VK_NULL_HANDLE;
    try {
        interop::createContext(missing);
        FAIL() << "expected a usage error";
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Usage) << e.what();
    }
}

TEST_F(InteropContext, ListsTheSameDevicesAsTheFoundation) {
    const std::vector<PhysicalDeviceInfo> expected = listPhysicalDevices(instance.handle);
    for (PFN_vkGetInstanceProcAddr loader : {vkGetInstanceProcAddr, PFN_vkGetInstanceProcAddr{}}) {
        const std::vector<interop::VulkanDeviceInfo> listed =
            interop::listVulkanDevices(instance.handle, loader);
        ASSERT_EQ(listed.size(), expected.size());
        for (size_t i = 0; i < listed.size(); ++i) {
            EXPECT_EQ(listed[i].handle, expected[i].handle);
            EXPECT_EQ(listed[i].name, std::string(expected[i].properties.deviceName));
            EXPECT_EQ(listed[i].type, expected[i].properties.deviceType);
            EXPECT_EQ(listed[i].apiVersion, expected[i].properties.apiVersion);
            EXPECT_EQ(listed[i].uuid, expected[i].uuid);
            EXPECT_EQ(listed[i].driverUuid, expected[i].driverUuid);
            EXPECT_EQ(listed[i].deviceGroupSize, expected[i].deviceGroupSize);
        }
    }
}

TEST_F(InteropContext, ExportsAnImageAsAnFdOrSaysWhatTheDriverRefused) {
    if (!memoryFd) GTEST_SKIP() << context.deviceName << " has no VK_KHR_external_memory_fd";
    interop::ExportedImageDesc desc;
    desc.format = VK_FORMAT_R32_SFLOAT;
    desc.extent = {16, 8};
    try {
        interop::checkImageExport(context, desc.format, desc.usage);
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find("R32_SFLOAT"), std::string::npos) << e.what();
        GTEST_SKIP() << e.what();
    }
    interop::ExportedImage image = interop::createExportedImage(context, desc);
    EXPECT_NE(image.image.handle, VK_NULL_HANDLE);
    EXPECT_NE(image.image.view, VK_NULL_HANDLE);
    EXPECT_EQ(image.image.mipLevels, 5u); // 16x8 down to 1x1
    EXPECT_GT(image.allocationSize, 0u);
    const int fd = interop::exportMemoryFd(context, image.image.memory);
    EXPECT_GE(fd, 0);
    if (fd >= 0) close(fd);
    interop::destroyExportedImage(context, image);
    EXPECT_EQ(image.image.handle, VK_NULL_HANDLE);
}

TEST_F(InteropContext, ExportsABufferAsAnFdOrRefusesNamingItsUsage) {
    if (!memoryFd) GTEST_SKIP() << context.deviceName << " has no VK_KHR_external_memory_fd";
    const VkBufferUsageFlags usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    interop::ExportedBuffer buffer;
    try {
        buffer = interop::createExportedBuffer(context, 1000, usage, "test buffer");
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find("STORAGE_BUFFER|"), std::string::npos) << e.what();
        GTEST_SKIP() << e.what();
    }
    EXPECT_EQ(buffer.buffer.size, 1000u);
    EXPECT_GE(buffer.allocationSize, 1000u);
    const int fd = interop::exportMemoryFd(context, buffer.buffer.memory);
    EXPECT_GE(fd, 0);
    if (fd >= 0) close(fd);
    interop::destroyExportedBuffer(context, buffer);
}

TEST_F(InteropContext, SemaphoreExportWithoutItsExtensionNamesFunctionAndExtension) {
    if (semaphoreFdOffered)
        GTEST_SKIP() << context.deviceName << " offers VK_KHR_external_semaphore_fd; this test "
                     << "needs a device that lacks it";
    VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    VkSemaphore semaphore = VK_NULL_HANDLE;
    VK_CHECK(vkCreateSemaphore(device.handle, &info, nullptr, &semaphore));
    try {
        interop::exportSemaphoreFd(context, semaphore);
        ADD_FAILURE() << "expected an unsupported() error";
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find("vkGetSemaphoreFdKHR"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME),
                  std::string::npos)
            << e.what();
    }
    vkDestroySemaphore(device.handle, semaphore, nullptr);
}

#ifdef ESTUARY_HAVE_CUDA
// Checked before anything is allocated or any CUDA call is made, so no GPU is needed.
TEST(InteropRings, CopiesOtherThanZeroOrOneAreARuntimeErrorNamingTheValue) {
    const interop::Context none;
    interop::FrameTimelines timelines;
    timelines.slots = 3;
    interop::ImageRingDesc images;
    images.extent = {4, 4};
    images.copies = 2;
    interop::BufferRingDesc buffers;
    buffers.size = 64;
    buffers.copies = 7;
    try {
        interop::createImageRing(none, VK_NULL_HANDLE, timelines, images);
        ADD_FAILURE() << "expected a runtime error for copies = 2";
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Runtime) << e.what();
        EXPECT_NE(std::string(e.what()).find("copies = 2"), std::string::npos) << e.what();
    }
    try {
        interop::createBufferRing(none, VK_NULL_HANDLE, timelines, buffers);
        ADD_FAILURE() << "expected a runtime error for copies = 7";
    } catch (const Error& e) {
        EXPECT_EQ(exitCode(e), ExitCode::Runtime) << e.what();
        EXPECT_NE(std::string(e.what()).find("copies = 7"), std::string::npos) << e.what();
    }
}

TEST(InteropRings, WaitingForEveryDrawIsRefusedWithTheBinaryHandoff) {
    interop::FrameTimelines timelines;
    timelines.slots = 2;
    timelines.releasedBinary.resize(2); // a binary hand-off: the waits belong to cudaBeginFrame
    EXPECT_THROW(interop::cudaWaitAllDrawn(timelines, 5, nullptr), Error);
}
#endif

} // namespace
} // namespace estuary::test
