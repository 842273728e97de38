// The Dear ImGui overlay drawn over the field into the swapchain image: the ImGui context, its
// GLFW and Vulkan backends (functions loaded through volk), and the small render pass the Vulkan
// backend of ImGui 1.86 requires. Owned by the windowed app; the framebuffers follow the swapchain.
//
// Why a render pass when the renderer uses dynamic rendering: ImGui 1.86's Vulkan backend builds
// its pipeline against a VkRenderPass (dynamic rendering support arrived in 1.89), and a pipeline
// made for a render pass cannot be used inside vkCmdBeginRendering. So the UI gets its own
// one-subpass pass over the swapchain image with LOAD_OP_LOAD, in COLOR_ATTACHMENT_OPTIMAL on both
// ends, recorded after the field draw in the same command buffer.
#pragma once

#include "resources.h"

#include <vector>

struct GLFWwindow;

namespace estuary {

struct UiOverlay {
    VkRenderPass renderPass = VK_NULL_HANDLE;
    VkDescriptorPool descriptorPool = VK_NULL_HANDLE; // the font texture's set
    std::vector<VkFramebuffer> framebuffers;          // one per swapchain image
    VkExtent2D extent{};
    bool contextCreated = false;
};

struct UiOverlayDesc {
    VkInstance instance = VK_NULL_HANDLE;
    GLFWwindow* window = nullptr;
    VkFormat format = VK_FORMAT_UNDEFINED; // swapchain format
    uint32_t framesInFlight = 2;           // ImGui's vertex buffers rotate over at least this many
    VkCommandPool pool = VK_NULL_HANDLE;   // font upload (start-up only)
};

// Creates the ImGui context (no .ini file), inits both backends and uploads the font.
UiOverlay createUiOverlay(const Device& device, const UiOverlayDesc& desc);
void destroyUiOverlay(const Device& device, UiOverlay& overlay);

// For the current swapchain images; destroy before the swapchain goes.
void createUiFramebuffers(const Device& device, UiOverlay& overlay,
                          const std::vector<VkImageView>& views, VkExtent2D extent);
void destroyUiFramebuffers(const Device& device, UiOverlay& overlay);

// Starts an ImGui frame from the backends (display size, time, keyboard). Mouse state is the
// caller's to set afterwards, before ImGui::NewFrame().
void beginUiBackendFrame();

// Records the draw data of the last ImGui::Render() into image `imageIndex` (in
// COLOR_ATTACHMENT_OPTIMAL, left there).
void recordUiOverlay(const UiOverlay& overlay, VkCommandBuffer cmd, uint32_t imageIndex);

} // namespace estuary
