#include "swapchain.h"
#include "vk_check.h"

#include <volk.h>
// volk first: GLFW declares its Vulkan functions only when the Vulkan types are already known.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace estuary {
namespace {

void onGlfwError(int code, const char* description) {
    std::fprintf(stderr, "estuary: GLFW error 0x%x: %s\n", code, description);
}

const char* presentModeLabel(VkPresentModeKHR mode) {
    switch (mode) {
    case VK_PRESENT_MODE_IMMEDIATE_KHR:
        return "immediate";
    case VK_PRESENT_MODE_MAILBOX_KHR:
        return "mailbox";
    case VK_PRESENT_MODE_FIFO_KHR:
        return "fifo";
    case VK_PRESENT_MODE_FIFO_RELAXED_KHR:
        return "fifo-relaxed";
    default:
        return "other";
    }
}

} // namespace

bool hasDisplay() {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    return (x11 && *x11) || (wayland && *wayland);
}

static int gWindowSystemUsers = 0;

void initWindowSystem(bool vulkan) {
    if (!hasDisplay())
        throw unsupported("no display (neither DISPLAY nor WAYLAND_DISPLAY is set): run "
                          "headless to render offscreen and write a screenshot");
    if (gWindowSystemUsers == 0) {
        glfwSetErrorCallback(onGlfwError);
        if (!glfwInit())
            throw unsupported("GLFW could not connect to the display: run headless to render "
                              "offscreen and write a screenshot");
    }
    ++gWindowSystemUsers;
    if (vulkan && !glfwVulkanSupported()) {
        terminateWindowSystem();
        throw unsupported("GLFW found no Vulkan loader able to present to this display: run "
                          "headless");
    }
}

void terminateWindowSystem() {
    if (gWindowSystemUsers > 0 && --gWindowSystemUsers == 0) glfwTerminate();
}

std::vector<const char*> windowInstanceExtensions() {
    uint32_t count = 0;
    const char** names = glfwGetRequiredInstanceExtensions(&count);
    if (!names) {
        // GLFW says the same for a display without Vulkan surfaces and for a machine whose loader
        // has no driver at all: tell them apart with an instance of nothing (through GLFW's
        // loader: volk is not initialized before estuary's instance).
        const auto create = reinterpret_cast<PFN_vkCreateInstance>(
            glfwGetInstanceProcAddress(nullptr, "vkCreateInstance"));
        VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        VkInstance probe = VK_NULL_HANDLE;
        const VkResult r = create ? create(&info, nullptr, &probe) : VK_ERROR_INITIALIZATION_FAILED;
        if (r == VK_SUCCESS) {
            const auto destroy = reinterpret_cast<PFN_vkDestroyInstance>(
                glfwGetInstanceProcAddress(probe, "vkDestroyInstance"));
            if (destroy) destroy(probe, nullptr);
        } else {
            throw unsupported(std::string("no Vulkan driver could be loaded (vkCreateInstance "
                                          "returned ") +
                              vkResultName(r) +
                              "): install NVIDIA's driver, or mesa-vulkan-drivers for lavapipe "
                              "where there is no GPU");
        }
        throw unsupported("GLFW cannot create Vulkan surfaces on this display");
    }
    return std::vector<const char*>(names, names + count);
}

Window createWindow(VkInstance instance, VkExtent2D size, const char* title) {
    Window window;
    glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    window.handle = glfwCreateWindow(int(size.width), int(size.height), title, nullptr, nullptr);
    if (!window.handle) throw runtimeError("GLFW could not create a window");
    const VkResult r = glfwCreateWindowSurface(instance, window.handle, nullptr, &window.surface);
    if (r != VK_SUCCESS) {
        glfwDestroyWindow(window.handle);
        window.handle = nullptr;
        throw unsupported(std::string("cannot create a Vulkan surface for the window: ") +
                          vkResultName(r));
    }
    return window;
}

void destroyWindow(VkInstance instance, Window& window) {
    if (window.surface) vkDestroySurfaceKHR(instance, window.surface, nullptr);
    if (window.handle) glfwDestroyWindow(window.handle);
    window = {};
}

VkExtent2D framebufferExtent(const Window& window) {
    int width = 0, height = 0;
    glfwGetFramebufferSize(window.handle, &width, &height);
    return {uint32_t(std::max(width, 0)), uint32_t(std::max(height, 0))};
}

VkPresentModeKHR toVkPresentMode(estuary_present_mode mode) {
    switch (mode) {
    case ESTUARY_PRESENT_MAILBOX:
        return VK_PRESENT_MODE_MAILBOX_KHR;
    case ESTUARY_PRESENT_IMMEDIATE:
        return VK_PRESENT_MODE_IMMEDIATE_KHR;
    default:
        return VK_PRESENT_MODE_FIFO_KHR;
    }
}

PresentModeChoice choosePresentMode(estuary_present_mode wanted,
                                    const std::vector<VkPresentModeKHR>& available) {
    PresentModeChoice choice;
    const VkPresentModeKHR mode = toVkPresentMode(wanted);
    if (std::find(available.begin(), available.end(), mode) != available.end()) {
        choice.mode = mode;
        return choice;
    }
    std::string list;
    for (VkPresentModeKHR m : available)
        list += (list.empty() ? "" : ", ") + std::string(presentModeLabel(m));
    choice.fallbackReason = std::string("present mode ") + presentModeLabel(mode) +
                            " is not supported by this surface (it offers: " + list +
                            "); using fifo";
    return choice;
}

std::optional<VkSurfaceFormatKHR> chooseSurfaceFormat(const std::vector<VkSurfaceFormatKHR>& all) {
    for (VkFormat wanted : {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM})
        for (const VkSurfaceFormatKHR& f : all)
            if (f.format == wanted && f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) return f;
    return std::nullopt;
}

VkExtent2D chooseSwapchainExtent(const VkSurfaceCapabilitiesKHR& caps, VkExtent2D framebuffer) {
    if (caps.currentExtent.width != UINT32_MAX) return caps.currentExtent;
    return {std::clamp(framebuffer.width, caps.minImageExtent.width, caps.maxImageExtent.width),
            std::clamp(framebuffer.height, caps.minImageExtent.height, caps.maxImageExtent.height)};
}

uint32_t chooseImageCount(const VkSurfaceCapabilitiesKHR& caps) {
    const uint32_t count = caps.minImageCount + 1;
    return caps.maxImageCount ? std::min(count, caps.maxImageCount) : count;
}

VkSurfaceFormatKHR querySurfaceFormat(VkPhysicalDevice physical, VkSurfaceKHR surface) {
    uint32_t count = 0;
    VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &count, nullptr));
    std::vector<VkSurfaceFormatKHR> formats(count);
    VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(physical, surface, &count, formats.data()));
    const auto chosen = chooseSurfaceFormat(formats);
    if (!chosen)
        throw unsupported("the window surface offers no B8G8R8A8_UNORM or R8G8B8A8_UNORM format "
                          "in the sRGB colour space");
    return *chosen;
}

Swapchain createSwapchain(const Device& device, const SwapchainDesc& desc, std::string* choice) {
    VkSurfaceCapabilitiesKHR caps{};
    VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(device.physical, desc.surface, &caps));
    uint32_t modeCount = 0;
    VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(device.physical, desc.surface, &modeCount,
                                                       nullptr));
    std::vector<VkPresentModeKHR> modes(modeCount);
    VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(device.physical, desc.surface, &modeCount,
                                                       modes.data()));
    const PresentModeChoice mode = choosePresentMode(desc.presentMode, modes);
    if (choice)
        *choice = !mode.fallbackReason.empty()
                      ? mode.fallbackReason
                      : std::string("present mode ") + presentModeLabel(mode.mode);

    Swapchain swapchain;
    swapchain.format = desc.format;
    swapchain.presentMode = mode.mode;
    swapchain.extent = chooseSwapchainExtent(caps, desc.framebuffer);
    swapchain.canReadBack = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
    swapchain.canCopyInto = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT) != 0;

    VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    info.surface = desc.surface;
    info.minImageCount = chooseImageCount(caps);
    info.imageFormat = desc.format.format;
    info.imageColorSpace = desc.format.colorSpace;
    info.imageExtent = swapchain.extent;
    info.imageArrayLayers = 1;
    info.imageUsage =
        VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT |
        (swapchain.canReadBack ? VkImageUsageFlags(VK_IMAGE_USAGE_TRANSFER_SRC_BIT) : 0u) |
        (swapchain.canCopyInto ? VkImageUsageFlags(VK_IMAGE_USAGE_TRANSFER_DST_BIT) : 0u);
    info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.preTransform = caps.currentTransform;
    info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    for (uint32_t bit = 1; !(caps.supportedCompositeAlpha & info.compositeAlpha) && bit <= 8;
         bit <<= 1)
        info.compositeAlpha = VkCompositeAlphaFlagBitsKHR(bit);
    info.presentMode = mode.mode;
    info.clipped = VK_TRUE;
    info.oldSwapchain = desc.oldSwapchain;
    VK_CHECK(vkCreateSwapchainKHR(device.handle, &info, nullptr, &swapchain.handle));
    setDebugName(device, VK_OBJECT_TYPE_SWAPCHAIN_KHR, uint64_t(swapchain.handle), "swapchain");

    uint32_t imageCount = 0;
    VK_CHECK(vkGetSwapchainImagesKHR(device.handle, swapchain.handle, &imageCount, nullptr));
    swapchain.images.resize(imageCount);
    VK_CHECK(vkGetSwapchainImagesKHR(device.handle, swapchain.handle, &imageCount,
                                     swapchain.images.data()));
    for (uint32_t i = 0; i < imageCount; ++i) {
        const std::string name = "swapchain image " + std::to_string(i);
        setDebugName(device, VK_OBJECT_TYPE_IMAGE, uint64_t(swapchain.images[i]), name.c_str());
        swapchain.views.push_back(createImageView2D(device, swapchain.images[i], desc.format.format,
                                                    1, (name + " view").c_str()));
        VkSemaphoreCreateInfo semaphoreInfo{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VkSemaphore semaphore = VK_NULL_HANDLE;
        VK_CHECK(vkCreateSemaphore(device.handle, &semaphoreInfo, nullptr, &semaphore));
        setDebugName(device, VK_OBJECT_TYPE_SEMAPHORE, uint64_t(semaphore),
                     (name + " render finished").c_str());
        swapchain.renderFinished.push_back(semaphore);
    }
    return swapchain;
}

void destroySwapchain(const Device& device, Swapchain& swapchain) {
    for (VkSemaphore semaphore : swapchain.renderFinished)
        vkDestroySemaphore(device.handle, semaphore, nullptr);
    for (VkImageView view : swapchain.views)
        vkDestroyImageView(device.handle, view, nullptr);
    if (swapchain.handle) vkDestroySwapchainKHR(device.handle, swapchain.handle, nullptr);
    swapchain = {};
}

} // namespace estuary
