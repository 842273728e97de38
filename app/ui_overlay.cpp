#include "ui_overlay.h"
#include "vk_check.h"

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>

#include <algorithm>
#include <string>

namespace estuary {
namespace {

struct LoaderContext {
    VkInstance instance;
    VkDevice device;
};

// Device functions straight from the driver where possible; instance-level ones (which
// vkGetDeviceProcAddr does not return) from the instance.
PFN_vkVoidFunction loadVulkanFunction(const char* name, void* user) {
    const auto* context = static_cast<const LoaderContext*>(user);
    if (PFN_vkVoidFunction f = vkGetDeviceProcAddr(context->device, name)) return f;
    return vkGetInstanceProcAddr(context->instance, name);
}

void checkImGuiVk(VkResult result) {
    if (result != VK_SUCCESS) throwVkFailure(result, "ImGui Vulkan backend", __FILE__, __LINE__);
}

VkRenderPass createUiRenderPass(const Device& device, VkFormat format) {
    VkAttachmentDescription color{};
    color.format = format;
    color.samples = VK_SAMPLE_COUNT_1_BIT;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD; // the field is already drawn underneath
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    color.initialLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    color.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VkAttachmentReference reference{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &reference;
    // The field draw's writes must land before the UI blends over them.
    VkSubpassDependency after{};
    after.srcSubpass = VK_SUBPASS_EXTERNAL;
    after.dstSubpass = 0;
    after.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    after.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    after.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    after.dstAccessMask =
        VK_ACCESS_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    VkRenderPassCreateInfo info{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    info.attachmentCount = 1;
    info.pAttachments = &color;
    info.subpassCount = 1;
    info.pSubpasses = &subpass;
    info.dependencyCount = 1;
    info.pDependencies = &after;
    VkRenderPass pass = VK_NULL_HANDLE;
    VK_CHECK(vkCreateRenderPass(device.handle, &info, nullptr, &pass));
    setDebugName(device, VK_OBJECT_TYPE_RENDER_PASS, uint64_t(pass), "ui render pass");
    return pass;
}

} // namespace

UiOverlay createUiOverlay(const Device& device, const UiOverlayDesc& desc) {
    UiOverlay overlay;
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    overlay.contextCreated = true;
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr; // no imgui.ini in whatever folder estuary (or a test) runs from
    ImGui::StyleColorsDark();
    ImGui::GetStyle().Alpha = 0.92f;

    overlay.renderPass = createUiRenderPass(device, desc.format);
    VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
    VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    poolInfo.maxSets = 1;
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &poolSize;
    VK_CHECK(vkCreateDescriptorPool(device.handle, &poolInfo, nullptr, &overlay.descriptorPool));
    setDebugName(device, VK_OBJECT_TYPE_DESCRIPTOR_POOL, uint64_t(overlay.descriptorPool),
                 "ui descriptors");

    LoaderContext loader{desc.instance, device.handle};
    if (!ImGui_ImplVulkan_LoadFunctions(loadVulkanFunction, &loader))
        throw runtimeError("ImGui's Vulkan backend could not load its Vulkan functions");
    ImGui_ImplGlfw_InitForVulkan(desc.window, /*install_callbacks=*/false);

    ImGui_ImplVulkan_InitInfo info{};
    info.Instance = desc.instance;
    info.PhysicalDevice = device.physical;
    info.Device = device.handle;
    info.QueueFamily = device.queueFamily;
    info.Queue = device.queue;
    info.DescriptorPool = overlay.descriptorPool;
    // ImGui rotates its vertex/index buffers over ImageCount frames and rewrites the oldest; with
    // at least framesInFlight of them the oldest is always past the frames-in-flight wait.
    info.MinImageCount = 2;
    info.ImageCount = std::max(2u, desc.framesInFlight);
    info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    info.CheckVkResultFn = checkImGuiVk;
    ImGui_ImplVulkan_Init(&info, overlay.renderPass);

    submitAndWait(device, desc.pool,
                  [](VkCommandBuffer cmd) { ImGui_ImplVulkan_CreateFontsTexture(cmd); });
    ImGui_ImplVulkan_DestroyFontUploadObjects();
    return overlay;
}

void destroyUiOverlay(const Device& device, UiOverlay& overlay) {
    destroyUiFramebuffers(device, overlay);
    if (overlay.contextCreated) {
        ImGuiIO& io = ImGui::GetIO();
        if (io.BackendRendererUserData) ImGui_ImplVulkan_Shutdown();
        if (io.BackendPlatformUserData) ImGui_ImplGlfw_Shutdown();
        ImGui::DestroyContext();
    }
    if (overlay.descriptorPool)
        vkDestroyDescriptorPool(device.handle, overlay.descriptorPool, nullptr);
    if (overlay.renderPass) vkDestroyRenderPass(device.handle, overlay.renderPass, nullptr);
    overlay = {};
}

void createUiFramebuffers(const Device& device, UiOverlay& overlay,
                          const std::vector<VkImageView>& views, VkExtent2D extent) {
    overlay.extent = extent;
    for (size_t i = 0; i < views.size(); ++i) {
        VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
        info.renderPass = overlay.renderPass;
        info.attachmentCount = 1;
        info.pAttachments = &views[i];
        info.width = extent.width;
        info.height = extent.height;
        info.layers = 1;
        VkFramebuffer framebuffer = VK_NULL_HANDLE;
        VK_CHECK(vkCreateFramebuffer(device.handle, &info, nullptr, &framebuffer));
        const std::string name = "ui framebuffer " + std::to_string(i);
        setDebugName(device, VK_OBJECT_TYPE_FRAMEBUFFER, uint64_t(framebuffer), name.c_str());
        overlay.framebuffers.push_back(framebuffer);
    }
}

void destroyUiFramebuffers(const Device& device, UiOverlay& overlay) {
    for (VkFramebuffer framebuffer : overlay.framebuffers)
        vkDestroyFramebuffer(device.handle, framebuffer, nullptr);
    overlay.framebuffers.clear();
}

void beginUiBackendFrame() {
    ImGui_ImplVulkan_NewFrame();
    ImGui_ImplGlfw_NewFrame();
}

void recordUiOverlay(const UiOverlay& overlay, VkCommandBuffer cmd, uint32_t imageIndex) {
    ImDrawData* data = ImGui::GetDrawData();
    if (!data) return;
    VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    begin.renderPass = overlay.renderPass;
    begin.framebuffer = overlay.framebuffers[imageIndex];
    begin.renderArea.extent = overlay.extent;
    vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
    ImGui_ImplVulkan_RenderDrawData(data, cmd);
    vkCmdEndRenderPass(cmd);
}

} // namespace estuary
