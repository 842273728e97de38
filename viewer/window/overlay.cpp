// Dear ImGui over the picture: the context, its Vulkan backend (functions loaded through volk) and,
// in a window, its GLFW platform backend; headless, the display size and time are set here, which
// is enough for the colorbars. A served headless viewer gets the window's panels and UI callback,
// driven by the steering page's pointer and keys (servedUi). ImGui 1.86's Vulkan backend builds its
// pipeline against a VkRenderPass (dynamic rendering arrived in 1.89), and such a pipeline cannot
// be used inside vkCmdBeginRendering, so the UI gets its own one-subpass pass over the target with
// LOAD_OP_LOAD, in COLOR_ATTACHMENT_OPTIMAL at both ends, recorded after the views in the same
// command buffer. Framebuffers are made once per target view and kept until the swapchain changes.
#include "viewer.h"
#include "vk_check.h"

#include <volk.h>
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_vulkan.h>
#include <imgui_internal.h> // the windows' rectangles (uiWantsMouse)

#include <algorithm>
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string_view>
#include <utility>

namespace estuary::lib {

struct OverlaySide {
    ImGuiContext* context = nullptr;
    bool platform = false, renderer = false; // backends initialized
    VkRenderPass renderPass = VK_NULL_HANDLE;
    VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
    std::map<VkImageView, std::pair<VkFramebuffer, VkExtent2D>> framebuffers;
    std::chrono::steady_clock::time_point lastFrame = std::chrono::steady_clock::now();
    bool built = false; // a UI was built for the frame being recorded
    // The windows that take the mouse, as the last UI laid them out, and whether a popup is open
    // (a click anywhere then belongs to it): ImGui's own WantCaptureMouse is one frame behind
    // the cursor.
    std::vector<ImRect> mouseWindows;
    bool popupOpen = false;
};

void Deleter::operator()(OverlaySide* p) const {
    delete p;
}

namespace {

struct LoaderContext {
    VkInstance instance;
    VkDevice device;
};

// Device functions straight from the driver where possible; instance-level ones (which
// vkGetDeviceProcAddr does not return) from the instance.
// Stands in for the surface and swapchain functions of a headless viewer, which has neither
// extension: the backend insists on loading them but calls them only from its window helpers
// (ImGui_ImplVulkanH_*), which estuary does not use.
[[noreturn]] void surfaceFunctionUnavailable() {
    std::fputs("estuary: ImGui called a surface function on a headless viewer\n", stderr);
    std::abort();
}

PFN_vkVoidFunction loadVulkanFunction(const char* name, void* user) {
    const auto* context = static_cast<const LoaderContext*>(user);
    if (PFN_vkVoidFunction f = vkGetDeviceProcAddr(context->device, name)) return f;
    if (PFN_vkVoidFunction f = vkGetInstanceProcAddr(context->instance, name)) return f;
    const std::string_view text(name);
    if (text.ends_with("SurfaceKHR") || text.ends_with("SwapchainKHR") ||
        text.starts_with("vkGetPhysicalDeviceSurface") || text == "vkGetSwapchainImagesKHR")
        return reinterpret_cast<PFN_vkVoidFunction>(&surfaceFunctionUnavailable);
    return nullptr;
}

void checkImGuiVk(VkResult result) {
    if (result != VK_SUCCESS) throwVkFailure(result, "ImGui Vulkan backend", __FILE__, __LINE__);
}

VkRenderPass createUiRenderPass(const Device& device, VkFormat format) {
    VkAttachmentDescription color{};
    color.format = format;
    color.samples = VK_SAMPLE_COUNT_1_BIT;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_LOAD; // the views are already drawn underneath
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
    // The views' writes (colour output, or the compute draw's copy) land before the UI blends.
    VkSubpassDependency after{};
    after.srcSubpass = VK_SUBPASS_EXTERNAL;
    after.dstSubpass = 0;
    after.srcStageMask =
        VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    after.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
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

// Make this viewer's context current (several viewers may live in one process).
OverlaySide& current(const estuary_viewer& v) {
    ImGui::SetCurrentContext(v.overlay->context);
    return *v.overlay;
}

} // namespace

void openOverlay(estuary_viewer& v, VkFormat format) {
    Owned<OverlaySide> side(new OverlaySide);
    OverlaySide& o = *side;
    IMGUI_CHECKVERSION();
    o.context = ImGui::CreateContext();
    v.overlay = std::move(side);
    ImGui::SetCurrentContext(o.context);
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr; // no imgui.ini in whatever folder the program runs from
    ImGui::StyleColorsDark();
    ImGui::GetStyle().Alpha = 0.92f;
    o.renderPass = createUiRenderPass(v.device, format);
    VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
    VkDescriptorPoolCreateInfo poolInfo{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    poolInfo.maxSets = 1;
    poolInfo.poolSizeCount = 1;
    poolInfo.pPoolSizes = &poolSize;
    VK_CHECK(vkCreateDescriptorPool(v.device.handle, &poolInfo, nullptr, &o.descriptorPool));
    LoaderContext loader{v.instance.handle, v.device.handle};
    if (!ImGui_ImplVulkan_LoadFunctions(loadVulkanFunction, &loader))
        throw runtimeError("ImGui's Vulkan backend could not load its Vulkan functions");
    if (GLFWwindow* w = glfwWindowOf(v)) {
        ImGui_ImplGlfw_InitForVulkan(w, /*install_callbacks=*/false);
        o.platform = true;
    } else { // a served page's keys arrive as GLFW codes, as the GLFW backend maps them
        const std::pair<ImGuiKey, int> keys[] = {{ImGuiKey_Tab, GLFW_KEY_TAB},
                                                 {ImGuiKey_LeftArrow, GLFW_KEY_LEFT},
                                                 {ImGuiKey_RightArrow, GLFW_KEY_RIGHT},
                                                 {ImGuiKey_UpArrow, GLFW_KEY_UP},
                                                 {ImGuiKey_DownArrow, GLFW_KEY_DOWN},
                                                 {ImGuiKey_PageUp, GLFW_KEY_PAGE_UP},
                                                 {ImGuiKey_PageDown, GLFW_KEY_PAGE_DOWN},
                                                 {ImGuiKey_Home, GLFW_KEY_HOME},
                                                 {ImGuiKey_End, GLFW_KEY_END},
                                                 {ImGuiKey_Insert, GLFW_KEY_INSERT},
                                                 {ImGuiKey_Delete, GLFW_KEY_DELETE},
                                                 {ImGuiKey_Backspace, GLFW_KEY_BACKSPACE},
                                                 {ImGuiKey_Space, GLFW_KEY_SPACE},
                                                 {ImGuiKey_Enter, GLFW_KEY_ENTER},
                                                 {ImGuiKey_Escape, GLFW_KEY_ESCAPE},
                                                 {ImGuiKey_A, GLFW_KEY_A},
                                                 {ImGuiKey_C, GLFW_KEY_C},
                                                 {ImGuiKey_V, GLFW_KEY_V},
                                                 {ImGuiKey_X, GLFW_KEY_X},
                                                 {ImGuiKey_Y, GLFW_KEY_Y},
                                                 {ImGuiKey_Z, GLFW_KEY_Z}};
        for (const auto& [key, code] : keys)
            io.KeyMap[key] = code;
    }
    ImGui_ImplVulkan_InitInfo info{};
    info.Instance = v.instance.handle;
    info.PhysicalDevice = v.device.physical;
    info.Device = v.device.handle;
    info.QueueFamily = v.device.queueFamily;
    info.Queue = v.device.queue;
    info.DescriptorPool = o.descriptorPool;
    info.PipelineCache = v.kit.pipelineCache.handle;
    // ImGui rotates its vertex/index buffers over ImageCount frames and rewrites the oldest; with
    // the host ring's length the oldest is always past the frames-in-flight wait.
    info.MinImageCount = 2;
    info.ImageCount = std::max(2u, v.hostRing);
    info.MSAASamples = VK_SAMPLE_COUNT_1_BIT;
    info.CheckVkResultFn = checkImGuiVk;
    ImGui_ImplVulkan_Init(&info, o.renderPass);
    o.renderer = true;
    submitAndWait(v.device, v.pool,
                  [](VkCommandBuffer cmd) { ImGui_ImplVulkan_CreateFontsTexture(cmd); });
    ImGui_ImplVulkan_DestroyFontUploadObjects();
}

void overlayForgetTargets(estuary_viewer& v) {
    if (!v.overlay) return;
    for (auto& [view, framebuffer] : v.overlay->framebuffers)
        vkDestroyFramebuffer(v.device.handle, framebuffer.first, nullptr);
    v.overlay->framebuffers.clear();
}

void closeOverlay(estuary_viewer& v) {
    if (!v.overlay) return;
    overlayForgetTargets(v);
    OverlaySide& o = current(v);
    if (o.renderer) ImGui_ImplVulkan_Shutdown();
    if (o.platform) ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext(o.context);
    if (o.descriptorPool) vkDestroyDescriptorPool(v.device.handle, o.descriptorPool, nullptr);
    if (o.renderPass) vkDestroyRenderPass(v.device.handle, o.renderPass, nullptr);
    v.overlay.reset();
}

bool overlayReady(const estuary_viewer& v) {
    return v.overlay != nullptr;
}

bool servedUi(const estuary_viewer& v) {
    return v.headless && v.server && v.overlay;
}

bool overlayWanted(const estuary_viewer& v) {
    if (!v.overlay) return false;
    // Headless, only the user's UI is drawn with ImGui (colorbars are the annotations'), and the
    // panels where a page watches.
    return !v.headless || v.uiCallback != nullptr || v.server;
}

void buildUi(estuary_viewer& v, VkExtent2D extent) {
    OverlaySide& o = current(v);
    ImGuiIO& io = ImGui::GetIO();
    ImGui_ImplVulkan_NewFrame();
    const auto now = std::chrono::steady_clock::now();
    if (o.platform) {
        ImGui_ImplGlfw_NewFrame();
        // The viewer's pointer, not what the GLFW backend polled: injected input (tests,
        // scripted runs) and real input reach ImGui the same way.
        const InputState& in = v.input;
        io.MousePos = in.cursorX < 0 ? ImVec2(-FLT_MAX, -FLT_MAX) : ImVec2(in.cursorX, in.cursorY);
        io.MouseDown[0] = (in.buttons | in.pressedSinceUi) & ESTUARY_MOUSE_LEFT;
        io.MouseDown[1] = (in.buttons | in.pressedSinceUi) & ESTUARY_MOUSE_RIGHT;
        io.MouseDown[2] = (in.buttons | in.pressedSinceUi) & ESTUARY_MOUSE_MIDDLE;
        v.input.pressedSinceUi = 0;
    } else {
        io.DisplaySize = ImVec2(float(extent.width), float(extent.height));
        io.DeltaTime = std::max(1e-4f, std::chrono::duration<float>(now - o.lastFrame).count());
        if (servedUi(v)) { // the steering page's pointer, in the picture's pixels
            const InputState& in = v.input;
            io.MousePos =
                in.cursorX < 0 ? ImVec2(-FLT_MAX, -FLT_MAX) : ImVec2(in.cursorX, in.cursorY);
            io.MouseDown[0] = (in.buttons | in.pressedSinceUi) & ESTUARY_MOUSE_LEFT;
            io.MouseDown[1] = (in.buttons | in.pressedSinceUi) & ESTUARY_MOUSE_RIGHT;
            io.MouseDown[2] = (in.buttons | in.pressedSinceUi) & ESTUARY_MOUSE_MIDDLE;
            io.MouseWheel += std::exchange(v.input.uiScroll, 0.0f);
            io.KeyCtrl = in.mods & ESTUARY_MOD_CONTROL;
            io.KeyShift = in.mods & ESTUARY_MOD_SHIFT;
            io.KeyAlt = in.mods & ESTUARY_MOD_ALT;
            v.input.pressedSinceUi = 0;
        }
    }
    o.lastFrame = now;
    ImGui::NewFrame();
    drawPanels(v);
    if (v.uiCallback && (v.window || v.server) && v.panels.visible)
        v.uiCallback(v.uiUser, o.context);
    ImGui::Render();
    o.built = true;
    o.mouseWindows.clear();
    for (const ImGuiWindow* w : GImGui->Windows)
        if (w->Active && !w->Hidden && !(w->Flags & ImGuiWindowFlags_NoMouseInputs))
            o.mouseWindows.push_back(w->Rect());
    o.popupOpen =
        ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId | ImGuiPopupFlags_AnyPopupLevel);
}

void recordOverlay(estuary_viewer& v, VkCommandBuffer cmd, VkImageView view, VkExtent2D extent) {
    OverlaySide& o = current(v);
    ImDrawData* data = ImGui::GetDrawData();
    if (!data || !o.built) return;
    auto found = o.framebuffers.find(view);
    if (found == o.framebuffers.end() || found->second.second.width != extent.width ||
        found->second.second.height != extent.height) {
        if (found != o.framebuffers.end())
            vkDestroyFramebuffer(v.device.handle, found->second.first, nullptr);
        VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
        info.renderPass = o.renderPass;
        info.attachmentCount = 1;
        info.pAttachments = &view;
        info.width = extent.width;
        info.height = extent.height;
        info.layers = 1;
        VkFramebuffer framebuffer = VK_NULL_HANDLE;
        VK_CHECK(vkCreateFramebuffer(v.device.handle, &info, nullptr, &framebuffer));
        found = o.framebuffers.insert_or_assign(view, std::pair(framebuffer, extent)).first;
    }
    VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    begin.renderPass = o.renderPass;
    begin.framebuffer = found->second.first;
    begin.renderArea.extent = extent;
    vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
    ImGui_ImplVulkan_RenderDrawData(data, cmd);
    vkCmdEndRenderPass(cmd);
}

bool uiWantsMouse(const estuary_viewer& v) {
    if (!v.overlay || (v.headless && !v.server) || !v.panels.visible) return false;
    const OverlaySide& o = *v.overlay;
    const InputState& in = v.input;
    if (o.popupOpen || (in.buttons && in.pressOnUi)) return true;
    const ImVec2 cursor(in.cursorX, in.cursorY);
    return in.cursorX >= 0 && std::any_of(o.mouseWindows.begin(), o.mouseWindows.end(),
                                          [&](const ImRect& r) { return r.Contains(cursor); });
}

bool uiWantsKeyboard(const estuary_viewer& v) {
    if (!v.overlay || (v.headless && !v.server) || !v.panels.visible) return false;
    current(v);
    return ImGui::GetIO().WantTextInput;
}

void servedUiKey(estuary_viewer& v, int code, bool down) {
    if (!servedUi(v) || code < 0 || code >= int(IM_ARRAYSIZE(ImGuiIO::KeysDown))) return;
    current(v);
    ImGui::GetIO().KeysDown[code] = down;
}

void servedUiChar(estuary_viewer& v, uint32_t code) {
    if (!servedUi(v)) return;
    current(v);
    ImGui::GetIO().AddInputCharacter(code);
}

} // namespace estuary::lib
