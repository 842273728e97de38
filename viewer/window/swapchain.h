// The window system and what presents into a window: GLFW itself, a window with its Vulkan
// surface, and the swapchain with one view and one render-finished semaphore per image. Plain
// structs with createX/destroyX; the viewer's window (window.cpp) owns them and recreates the
// swapchain when the surface changes. The choices (present mode, format, extent, image count) are
// pure functions, unit-tested.
#pragma once

#include "estuary/estuary.h"
#include "resources.h"

#include <optional>
#include <string>
#include <vector>

struct GLFWwindow;

namespace estuary {

// Throws unsupported() (exit 3) when there is no display or GLFW cannot reach it (or, for a
// Vulkan window, Vulkan). Counted: the last terminateWindowSystem ends GLFW.
void initWindowSystem(bool vulkan);
// Whether DISPLAY or WAYLAND_DISPLAY names a display.
bool hasDisplay();
void terminateWindowSystem();
// What the instance needs to create surfaces for GLFW windows.
std::vector<const char*> windowInstanceExtensions();

struct Window {
    GLFWwindow* handle = nullptr;
    VkSurfaceKHR surface = VK_NULL_HANDLE;
};

Window createWindow(VkInstance instance, VkExtent2D size, const char* title);
void destroyWindow(VkInstance instance, Window& window);
// Framebuffer size in pixels; {0, 0} while minimized.
VkExtent2D framebufferExtent(const Window& window);

struct PresentModeChoice {
    VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR;
    std::string fallbackReason; // empty when the requested mode is available
};
VkPresentModeKHR toVkPresentMode(estuary_present_mode mode);
// FIFO (always available, per the spec) when the surface lacks the requested mode.
PresentModeChoice choosePresentMode(estuary_present_mode wanted,
                                    const std::vector<VkPresentModeKHR>& available);
// An UNORM 8-bit BGRA/RGBA format in the sRGB colour space: the colormap values are already
// sRGB-encoded, so an SRGB format would encode them twice. nullopt when the surface has none.
std::optional<VkSurfaceFormatKHR> chooseSurfaceFormat(const std::vector<VkSurfaceFormatKHR>& all);
// The surface's current extent when it dictates one, else the framebuffer size clamped to limits.
VkExtent2D chooseSwapchainExtent(const VkSurfaceCapabilitiesKHR& caps, VkExtent2D framebuffer);
// One more than the minimum, so the app can acquire while the compositor holds images.
uint32_t chooseImageCount(const VkSurfaceCapabilitiesKHR& caps);

// The surface format the device would present with; called before the device exists (the renderer
// is created for this format).
VkSurfaceFormatKHR querySurfaceFormat(VkPhysicalDevice physical, VkSurfaceKHR surface);

struct Swapchain {
    VkSwapchainKHR handle = VK_NULL_HANDLE;
    VkSurfaceFormatKHR format{};
    VkPresentModeKHR presentMode = VK_PRESENT_MODE_FIFO_KHR;
    VkExtent2D extent{};
    bool canReadBack = false; // images have TRANSFER_SRC usage (screenshots)
    bool canCopyInto = false; // images have TRANSFER_DST usage (several panels copy in)
    std::vector<VkImage> images;
    std::vector<VkImageView> views;
    // Per image, not per frame slot: a semaphore waited on by a present may only be signalled
    // again once that present is done, which is known only when the same image is acquired again.
    std::vector<VkSemaphore> renderFinished;
};

struct SwapchainDesc {
    VkSurfaceKHR surface = VK_NULL_HANDLE;
    VkSurfaceFormatKHR format{};
    estuary_present_mode presentMode = ESTUARY_PRESENT_FIFO;
    VkExtent2D framebuffer{};
    VkSwapchainKHR oldSwapchain = VK_NULL_HANDLE;
};

// `choice` (may be null) receives the present mode taken, or why the one asked for was not.
Swapchain createSwapchain(const Device& device, const SwapchainDesc& desc, std::string* choice);
// Only once the GPU no longer uses its images or semaphores.
void destroySwapchain(const Device& device, Swapchain& swapchain);

} // namespace estuary
