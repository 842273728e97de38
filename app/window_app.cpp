#include "window_app.h"
#include "errors.h"
#include "png.h"
#include "simulations.h"
#include "vk_check.h"
#include "watchdog.h"

#include <volk.h>
// volk first: GLFW declares its Vulkan functions only when the Vulkan types are already known.
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>
#include <utility>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace estuary {
namespace {

WindowApp& appOf(GLFWwindow* window) {
    return *static_cast<WindowApp*>(glfwGetWindowUserPointer(window));
}

void installCallbacks(WindowApp& app) {
    GLFWwindow* w = app.window.handle;
    glfwSetWindowUserPointer(w, &app);
    glfwSetCursorPosCallback(
        w, [](GLFWwindow* win, double x, double y) { onCursorPos(appOf(win), x, y); });
    glfwSetMouseButtonCallback(w, [](GLFWwindow* win, int button, int action, int mods) {
        onMouseButton(appOf(win), button, action, mods);
    });
    glfwSetScrollCallback(
        w, [](GLFWwindow* win, double dx, double dy) { onScroll(appOf(win), dx, dy); });
    glfwSetKeyCallback(w, [](GLFWwindow* win, int key, int scancode, int action, int mods) {
        onKey(appOf(win), key, scancode, action, mods);
    });
    glfwSetCharCallback(w, [](GLFWwindow* win, unsigned int c) { onChar(appOf(win), c); });
    glfwSetFramebufferSizeCallback(w, [](GLFWwindow* win, int width, int height) {
        onFramebufferSize(appOf(win), width, height);
    });
    glfwSetWindowIconifyCallback(
        w, [](GLFWwindow* win, int iconified) { onIconify(appOf(win), iconified == GLFW_TRUE); });
}

bool uiWantsMouse(const WindowApp& app) {
    return app.ui.visible && app.overlay.contextCreated && ImGui::GetIO().WantCaptureMouse;
}

// Recreates the swapchain (and the UI framebuffers over it) for the current surface. Returns false
// when the surface has no area (minimized), leaving the app without a swapchain until it has.
bool recreateSwapchain(WindowApp& app, VkExtent2D framebuffer) {
    const Device& device = app.session.device;
    VkSurfaceCapabilitiesKHR caps{};
    VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(device.physical, app.window.surface, &caps));
    const VkExtent2D extent = chooseSwapchainExtent(caps, framebuffer);
    if (extent.width == 0 || extent.height == 0) return false;

    // A resize is rare and the old images may still be in use by frames in flight or the
    // presentation engine: simplest correct answer is to let the queue drain. The frame wait is
    // bounded (a hung simulation is reported, not waited for); then the queue is idle.
    const WatchdogScope watch("recreating the swapchain after frame", app.session.nextFrame,
                              frameWaitTimeoutNs(app.session));
    if (app.session.nextFrame > 0) waitFrameDrawn(app.session, app.session.nextFrame - 1);
    VK_CHECK(vkDeviceWaitIdle(device.handle));
    destroyUiFramebuffers(device, app.overlay);
    SwapchainDesc desc;
    desc.surface = app.window.surface;
    desc.format = app.surfaceFormat;
    desc.presentMode = app.session.options.presentMode;
    desc.framebuffer = framebuffer;
    desc.oldSwapchain = app.swapchain.handle;
    Swapchain fresh = createSwapchain(device, desc, /*logChoice=*/app.swapchainRecreations == 0);
    destroySwapchain(device, app.swapchain);
    app.swapchain = std::move(fresh);
    createUiFramebuffers(device, app.overlay, app.swapchain.views, app.swapchain.extent);
    app.swapchainFramebuffer = framebuffer;
    app.swapchainStale = false;
    ++app.swapchainRecreations;
    return true;
}

void recordEndTarget(WindowApp& app, VkCommandBuffer cmd) {
    const VkImage image = app.swapchain.images[app.imageIndex];
    ImageTransition toPresent;
    toPresent.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    toPresent.newLayout = VK_IMAGE_LAYOUT_PRESENT_SRC_KHR;
    toPresent.srcStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    toPresent.srcAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    if (!app.capturingThisFrame) {
        recordImageBarrier(cmd, image, toPresent);
        return;
    }
    ImageTransition toCopy = toPresent;
    toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    toCopy.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    toCopy.dstAccess = VK_ACCESS_2_TRANSFER_READ_BIT;
    recordImageBarrier(cmd, image, toCopy);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {app.swapchain.extent.width, app.swapchain.extent.height, 1};
    vkCmdCopyImageToBuffer(cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           app.captureBuffer.handle, 1, &region);
    VkMemoryBarrier2 toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER_2};
    toHost.srcStageMask = VK_PIPELINE_STAGE_2_COPY_BIT;
    toHost.srcAccessMask = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    toHost.dstStageMask = VK_PIPELINE_STAGE_2_HOST_BIT;
    toHost.dstAccessMask = VK_ACCESS_2_HOST_READ_BIT;
    VkDependencyInfo dependency{VK_STRUCTURE_TYPE_DEPENDENCY_INFO};
    dependency.memoryBarrierCount = 1;
    dependency.pMemoryBarriers = &toHost;
    vkCmdPipelineBarrier2(cmd, &dependency);
    toPresent.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
    toPresent.srcStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    toPresent.srcAccess = VK_ACCESS_2_NONE; // reads need no availability
    recordImageBarrier(cmd, image, toPresent);
}

void makeFrameTarget(WindowApp& app) {
    app.target.begin = [&app](VkCommandBuffer cmd) {
        // Whatever the image held is replaced; the acquire semaphore's wait stage (colour output)
        // is the source scope, so the transition happens after the presentation engine let go.
        ImageTransition toDraw;
        toDraw.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        toDraw.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        toDraw.srcStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
        toDraw.dstStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
        toDraw.dstAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
        recordImageBarrier(cmd, app.swapchain.images[app.imageIndex], toDraw);
    };
    app.target.overlay = [&app](VkCommandBuffer cmd) {
        if (app.uiRecordedThisFrame) recordUiOverlay(app.overlay, cmd, app.imageIndex);
    };
    app.target.end = [&app](VkCommandBuffer cmd) { recordEndTarget(app, cmd); };
}

void showNotice(WindowApp& app, std::string text, bool isError) {
    app.ui.notice = std::move(text);
    app.ui.noticeIsError = isError;
    app.ui.noticeSeconds = kNoticeSeconds;
}

// F12: the first free name from screenshotCount on. The existence check only skips taken names
// cheaply; writeNewFile's rename decides, so a file appearing meanwhile is not replaced either.
// A failure is the user's to see, in the overlay and on stderr; the session goes on.
void writeNumberedScreenshot(WindowApp& app, const std::string& png) {
    try {
        for (int attempt = 0; attempt < 10000; ++attempt) {
            char name[64];
            std::snprintf(name, sizeof(name), "estuary-screenshot-%03u.png", app.screenshotCount++);
            const std::filesystem::path path = app.screenshotFolder / name;
            std::error_code ec;
            if (std::filesystem::exists(path, ec) || !writeNewFile(path, png)) continue;
            app.numberedScreenshots.push_back(path);
            std::printf("estuary: wrote %s\n", path.c_str());
            showNotice(app, "wrote " + path.string(), false);
            return;
        }
        throw runtimeError("no free screenshot name in " + app.screenshotFolder.string());
    } catch (const Error& e) {
        std::fprintf(stderr, "estuary: screenshot failed: %s\n", e.what());
        showNotice(app, std::string("screenshot failed: ") + e.what(), true);
    }
}

void prepareCapture(WindowApp& app) {
    app.capturingThisFrame = false;
    if (!app.captureNext) return;
    if (!app.swapchain.canReadBack) {
        const char* why = "this surface's images cannot be copied (no TRANSFER_SRC usage)";
        std::fprintf(stderr, "estuary: screenshot skipped: %s\n", why);
        if (app.captureNumbered) showNotice(app, std::string("screenshot skipped: ") + why, true);
        app.captureNext = app.captureNumbered = false;
        app.capturePath.clear();
        app.captureFile = nullptr;
        return;
    }
    const VkExtent2D e = app.swapchain.extent;
    app.captureBuffer = createBuffer(
        app.session.device, VkDeviceSize(e.width) * e.height * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "screenshot");
    app.capturingThisFrame = true;
}

// A screenshot is an explicit request, so waiting for its frame here is fine.
void finishCapture(WindowApp& app, uint64_t frame) {
    if (!app.capturingThisFrame) return;
    waitFrameDrawn(app.session, frame);
    const VkExtent2D e = app.swapchain.extent;
    app.lastCapture.resize(size_t(e.width) * e.height * 4);
    std::memcpy(app.lastCapture.data(), app.captureBuffer.mapped, app.lastCapture.size());
    const bool bgra = app.swapchain.format.format == VK_FORMAT_B8G8R8A8_UNORM;
    for (size_t p = 0; p < app.lastCapture.size(); p += 4) {
        if (bgra) std::swap(app.lastCapture[p], app.lastCapture[p + 2]);
        app.lastCapture[p + 3] = 255; // the swapchain is opaque; ImGui blending may leave alpha < 1
    }
    app.lastCaptureExtent = e;
    destroyBuffer(app.session.device, app.captureBuffer);
    app.capturingThisFrame = false;
    app.captureNext = false;
    const std::string path = std::exchange(app.capturePath, {});
    OutputFile* file = std::exchange(app.captureFile, nullptr);
    const bool numbered = std::exchange(app.captureNumbered, false);
    if (path.empty() && !file && !numbered) return;
    const std::string png = encodePng(e.width, e.height, app.lastCapture.data());
    if (numbered) writeNumberedScreenshot(app, png);
    if (file) {
        file->write(png);
        std::printf("estuary: wrote %s (%ux%u)\n", file->path().c_str(), e.width, e.height);
    }
    if (!path.empty()) {
        writeFileAtomically(path, png);
        std::printf("estuary: wrote %s (%ux%u)\n", path.c_str(), e.width, e.height);
    }
    std::fflush(stdout);
}

void buildUiFrame(WindowApp& app) {
    app.uiRecordedThisFrame = false;
    PointerState& p = app.pointer;
    if (app.ui.visible) {
        beginUiBackendFrame();
        // The app's pointer, not what the GLFW backend polled: injected input (tests, scripted
        // runs) and real input then reach ImGui the same way.
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = p.cursor.x < 0 ? ImVec2(-FLT_MAX, -FLT_MAX) : ImVec2(p.cursor.x, p.cursor.y);
        for (int i = 0; i < 3; ++i)
            io.MouseDown[i] = p.down[i] || p.pressedSinceFrame[i];
        ImGui::NewFrame();
        drawUiPanels(app.session, app.ui);
        ImGui::Render();
        app.uiRecordedThisFrame = true;
    }
    for (bool& pressed : p.pressedSinceFrame)
        pressed = false;
}

void applyUiRequests(WindowApp& app) {
    UiRequests& r = app.ui.requests;
    Session& s = app.session;
    if (r.togglePause) app.ui.paused = !app.ui.paused;
    if (r.stepOnce) {
        app.ui.paused = true;
        app.stepPending = true;
    }
    const sim::SimDefinition& def = *s.simulation;
    if (r.preset >= 0 && size_t(r.preset) < def.presets.size()) {
        // The definition's own presets were checked against its table (checkDefinition).
        (void)sim::applyPreset(def, def.presets[size_t(r.preset)], s.params);
        r.reset = true;
    }
    if (r.simulation >= 0 && size_t(r.simulation) < simulations().size() &&
        &simulations()[size_t(r.simulation)] != s.simulation) {
        switchSimulation(s, simulations()[size_t(r.simulation)]);
        app.ui.stepsPerFrame = s.stepsPerFrame;
    } else if (r.grid) {
        recreateBackend(s, *r.grid);
        app.ui.gridEdit[0] = int(r.grid->width);
        app.ui.gridEdit[1] = int(r.grid->height);
        app.ui.gridEdit[2] = int(r.grid->depth);
    } else if (r.reset) {
        s.backend->reset(s.options.seed);
    }
    if (r.view >= 0 && size_t(r.view) < s.simulation->views.size() &&
        uint32_t(r.view) != s.viewIndex)
        switchView(s, uint32_t(r.view));
    if (r.toggleUi) app.ui.visible = !app.ui.visible;
    if (r.screenshot) requestNumberedScreenshot(app);
    if (r.quit) app.closeRequested = true;
    r = UiRequests{};
}

void updateCursor(WindowApp& app) {
    CursorInfo& c = app.ui.cursor;
    c.pixel = windowToPixels(app, app.pointer.cursor);
    // A ray-marched volume has no one cell under the cursor (nor has a slice, in the backends'
    // probe, which reads slice z = 0): the probe is for 2D fields.
    c.overField = volumeView(app) == VolumeView::None && app.pointer.cursor.x >= 0 &&
                  cellUnder(c.pixel, app.swapchain.extent, fieldExtent(app), app.session.view,
                            c.cellX, c.cellY);
    app.session.backend->requestProbe(c.overField ? c.cellX : -1, c.overField ? c.cellY : -1);
    c.value = c.overField ? app.session.backend->probeValue() : std::nullopt;
}

void moveSlice(WindowApp& app, int cells) {
    const GpuImage& field = app.session.backend->displayImage(0);
    const uint32_t axis = app.session.view.sliceAxis;
    const uint32_t side = axis == 0   ? field.extent.width
                          : axis == 1 ? field.extent.height
                                      : field.shape.depth;
    float& position = app.session.view.slicePosition;
    position = std::clamp(position + float(cells) / float(std::max(side, 1u)), 0.0f, 1.0f);
}

void paintStroke(WindowApp& app, Vec2 from, Vec2 to) {
    const VkExtent2D field = fieldExtent(app);
    const Vec2 a = targetToCell(from, app.swapchain.extent, field, app.session.view);
    const Vec2 b = targetToCell(to, app.swapchain.extent, field, app.session.view);
    // Dabs half a radius apart, so a fast drag still leaves a continuous line.
    const float radius = app.ui.brushRadius;
    const float length = std::hypot(b.x - a.x, b.y - a.y);
    const int dabs = std::clamp(int(std::ceil(length / (0.5f * radius))), 1, 256);
    const bool secondary = app.pointer.drag == PointerState::Drag::Erase;
    // Each dab carries the stroke's motion since the previous one (simulations that push).
    const float stepX = (b.x - a.x) / float(dabs), stepY = (b.y - a.y) / float(dabs);
    for (int i = 1; i <= dabs; ++i) {
        const float t = float(i) / float(dabs);
        const Vec2 cell{a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)};
        int cx = 0, cy = 0;
        const Vec2 pixel{from.x + t * (to.x - from.x), from.y + t * (to.y - from.y)};
        if (!cellUnder(pixel, app.swapchain.extent, field, app.session.view, cx, cy)) continue;
        sim::Brush dab{cell.x, cell.y, radius, secondary};
        dab.dx = stepX;
        dab.dy = stepY;
        app.session.backend->brush(dab, app.session.params);
    }
}

} // namespace

Vec2 windowToPixels(const WindowApp& app, Vec2 window) {
    int ww = 0, wh = 0, fw = 0, fh = 0;
    glfwGetWindowSize(app.window.handle, &ww, &wh);
    glfwGetFramebufferSize(app.window.handle, &fw, &fh);
    if (ww <= 0 || wh <= 0) return window;
    return {window.x * float(fw) / float(ww), window.y * float(fh) / float(wh)};
}

VkExtent2D fieldExtent(const WindowApp& app) {
    const GpuImage& field = app.session.backend->displayImage(0);
    if (volumeView(app) == VolumeView::Slice)
        return sliceExtent(app.session.view.sliceAxis, field.extent.width, field.extent.height,
                           field.shape.depth);
    return field.extent;
}

VolumeView volumeView(const WindowApp& app) {
    if (app.session.simulation->dimensions != 3) return VolumeView::None;
    return currentView(app.session).fragmentShader == "volume_slice.frag" ? VolumeView::Slice
                                                                          : VolumeView::Orbit;
}

std::unique_ptr<WindowApp> openWindowApp(const Options& options) {
    auto app = std::make_unique<WindowApp>();
    initWindowSystem();
    app->glfwInitialized = true;
    try {
        Session& s = app->session;
        openInstance(s, options, windowInstanceExtensions());
        app->window = createWindow(s.instance.handle, options.resolution, "estuary");
        installCallbacks(*app);
        // The renderer is built for the swapchain's format, so ask the device openDevice will
        // pick (chooseBackend is deterministic) before the device exists.
        const BackendChoice choice = chooseBackend(options, s.instance.handle);
        app->surfaceFormat = querySurfaceFormat(choice.physical.handle, app->window.surface);
        openDevice(s, app->window.surface, app->surfaceFormat.format);

        for (uint32_t slot = 0; slot < s.backend->slotCount(); ++slot) {
            VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
            VkSemaphore semaphore = VK_NULL_HANDLE;
            VK_CHECK(vkCreateSemaphore(s.device.handle, &info, nullptr, &semaphore));
            const std::string name = "image acquired, slot " + std::to_string(slot);
            setDebugName(s.device, VK_OBJECT_TYPE_SEMAPHORE, uint64_t(semaphore), name.c_str());
            app->imageAcquired.push_back(semaphore);
        }
        UiOverlayDesc overlay;
        overlay.instance = s.instance.handle;
        overlay.window = app->window.handle;
        overlay.format = app->surfaceFormat.format;
        overlay.framesInFlight = s.backend->slotCount();
        overlay.pool = s.pool;
        app->overlay = createUiOverlay(s.device, overlay);
        recreateSwapchain(*app, framebufferExtent(app->window));

        app->ui.visible = !options.noUi;
        app->ui.stepsPerFrame = s.stepsPerFrame;
        app->ui.gridEdit[0] = int(options.grid.width);
        app->ui.gridEdit[1] = int(options.grid.height);
        app->ui.gridEdit[2] = int(options.grid.depth);
        makeFrameTarget(*app);
    } catch (...) {
        closeWindowApp(app);
        throw;
    }
    return app;
}

StepResult stepWindowApp(WindowApp& app) {
    Session& s = app.session;
    glfwPollEvents();
    if (app.closeRequested || glfwWindowShouldClose(app.window.handle)) return StepResult::Closed;
    const VkExtent2D framebuffer = framebufferExtent(app.window);
    const bool noArea = framebuffer.width == 0 || framebuffer.height == 0;
    if (app.iconified || noArea ||
        ((app.swapchainStale || framebuffer.width != app.swapchainFramebuffer.width ||
          framebuffer.height != app.swapchainFramebuffer.height) &&
         !recreateSwapchain(app, framebuffer))) {
        // Nothing to draw into: sleep until the window system has news instead of spinning.
        if (app.minimizedWaitSeconds > 0)
            glfwWaitEventsTimeout(app.minimizedWaitSeconds);
        else
            glfwWaitEvents();
        return StepResult::Minimized;
    }

    const WatchdogScope watch("window frame", s.nextFrame, frameWaitTimeoutNs(s));
    updateCursor(app);
    buildUiFrame(app);
    applyUiRequests(app);
    if (app.closeRequested) return StepResult::Closed;
    s.stepsPerFrame = !app.ui.paused || app.stepPending ? app.ui.stepsPerFrame : 0;

    // The acquire semaphore of this slot was last waited on by the slot's previous frame; that
    // wait must be over before the semaphore is signalled again. The same wait drawFrame starts
    // with (the frames-in-flight limit), so it costs nothing extra.
    const uint64_t frame = s.nextFrame;
    const uint32_t slots = s.backend->slotCount();
    if (frame >= slots) waitFrameDrawn(s, frame - slots);
    VkSemaphore acquired = app.imageAcquired[frame % slots];
    VkResult r = vkAcquireNextImageKHR(s.device.handle, app.swapchain.handle, UINT64_MAX, acquired,
                                       VK_NULL_HANDLE, &app.imageIndex);
    if (r == VK_ERROR_OUT_OF_DATE_KHR) {
        // Nothing was acquired and the semaphore stays unsignalled: recreate, draw next step.
        app.swapchainStale = true;
        return StepResult::Skipped;
    }
    if (r == VK_SUBOPTIMAL_KHR)
        app.swapchainStale = true; // the image is ours and the semaphore will signal: draw it
    else if (r != VK_SUCCESS)
        throwVkFailure(r, "vkAcquireNextImageKHR", __FILE__, __LINE__);

    prepareCapture(app);
    app.target.view = app.swapchain.views[app.imageIndex];
    app.target.extent = app.swapchain.extent;
    app.target.waitBinary = acquired;
    app.target.signalBinary = app.swapchain.renderFinished[app.imageIndex];
    drawFrame(s, frame, app.target);
    app.stepPending = false;

    VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    present.waitSemaphoreCount = 1;
    present.pWaitSemaphores = &app.target.signalBinary;
    present.swapchainCount = 1;
    present.pSwapchains = &app.swapchain.handle;
    present.pImageIndices = &app.imageIndex;
    r = vkQueuePresentKHR(s.device.queue, &present);
    // Both still consume the render-finished semaphore's signal (the present is queued either way).
    if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR)
        app.swapchainStale = true;
    else if (r != VK_SUCCESS)
        throwVkFailure(r, "vkQueuePresentKHR", __FILE__, __LINE__);
    finishCapture(app, frame);
    ++app.framesPresented;
    return StepResult::Presented;
}

uint32_t closeWindowApp(std::unique_ptr<WindowApp>& app) {
    if (!app) return 0;
    Session& s = app->session;
    const WatchdogScope watch("closing the window after frame", s.nextFrame,
                              2 * frameWaitTimeoutNs(s));
    // The window's objects go only once the GPU has settled (bounded, whatever failed); if it
    // does not, closeSession leaves everything to the driver.
    if (s.device.handle && settleGpuWork(s)) {
        (void)vkDeviceWaitIdle(s.device.handle); // settled: returns at once
        if (app->captureBuffer.handle) destroyBuffer(s.device, app->captureBuffer);
        destroyUiOverlay(s.device, app->overlay);
        destroySwapchain(s.device, app->swapchain);
        for (VkSemaphore semaphore : app->imageAcquired)
            vkDestroySemaphore(s.device.handle, semaphore, nullptr);
        app->imageAcquired.clear();
    }
    // The surface (and so the window) goes before the instance, which closeSession destroys.
    if (s.instance.handle) destroyWindow(s.instance.handle, app->window);
    const uint32_t messages = closeSession(s);
    if (app->glfwInitialized) terminateWindowSystem();
    app.reset();
    return messages;
}

void requestScreenshot(WindowApp& app, const std::string& path) {
    app.captureNext = true;
    app.capturePath = path;
}

void requestScreenshot(WindowApp& app, OutputFile& file) {
    app.captureNext = true;
    app.captureFile = &file;
}

void requestNumberedScreenshot(WindowApp& app) {
    app.captureNext = true;
    app.captureNumbered = true;
}

void onCursorPos(WindowApp& app, double x, double y) {
    PointerState& p = app.pointer;
    p.cursor = {float(x), float(y)};
    if (p.drag == PointerState::Drag::None || !app.swapchain.handle) return;
    const Vec2 pixel = windowToPixels(app, p.cursor);
    if (p.drag == PointerState::Drag::Pan) {
        app.session.view =
            panBy(app.session.view, {pixel.x - p.lastPixel.x, pixel.y - p.lastPixel.y},
                  app.swapchain.extent, fieldExtent(app));
    } else if (p.drag == PointerState::Drag::Orbit) {
        app.session.view =
            orbitBy(app.session.view, {pixel.x - p.lastPixel.x, pixel.y - p.lastPixel.y},
                    app.swapchain.extent);
    } else {
        paintStroke(app, p.lastPixel, pixel);
    }
    p.lastPixel = pixel;
}

void onMouseButton(WindowApp& app, int button, int action, int mods) {
    if (button < 0 || button > 2) return;
    PointerState& p = app.pointer;
    p.ctrl = (mods & GLFW_MOD_CONTROL) != 0;
    if (action == GLFW_RELEASE) {
        p.down[button] = false;
        p.drag = PointerState::Drag::None;
        return;
    }
    if (action != GLFW_PRESS) return;
    p.down[button] = true;
    p.pressedSinceFrame[button] = true;
    if (uiWantsMouse(app) || p.drag != PointerState::Drag::None || !app.swapchain.handle) return;
    p.lastPixel = windowToPixels(app, p.cursor);
    if (volumeView(app) == VolumeView::Orbit) { // any button turns the camera
        p.drag = PointerState::Drag::Orbit;
        return;
    }
    if (button == GLFW_MOUSE_BUTTON_MIDDLE || (button == GLFW_MOUSE_BUTTON_LEFT && p.ctrl)) {
        p.drag = PointerState::Drag::Pan;
        return;
    }
    if (app.session.simulation->brush.primary.empty()) return; // this simulation has no brush
    p.drag =
        button == GLFW_MOUSE_BUTTON_LEFT ? PointerState::Drag::Paint : PointerState::Drag::Erase;
    // A click without a drag paints one dab.
    const VkExtent2D field = fieldExtent(app);
    int cx = 0, cy = 0;
    if (cellUnder(p.lastPixel, app.swapchain.extent, field, app.session.view, cx, cy)) {
        const Vec2 cell = targetToCell(p.lastPixel, app.swapchain.extent, field, app.session.view);
        app.session.backend->brush(
            sim::Brush{cell.x, cell.y, app.ui.brushRadius, p.drag == PointerState::Drag::Erase},
            app.session.params);
    }
}

void onScroll(WindowApp& app, double dx, double dy) {
    if (uiWantsMouse(app)) {
        ImGui_ImplGlfw_ScrollCallback(app.window.handle, dx, dy);
        return;
    }
    if (!app.swapchain.handle) return;
    ViewParams& view = app.session.view;
    const float zoom = std::clamp(view.zoom * std::pow(1.15f, float(dy)), 0.1f, 64.0f);
    if (volumeView(app) == VolumeView::Orbit) { // the camera moves towards the centre
        view.zoom = zoom;
        return;
    }
    view = zoomAbout(view, zoom, windowToPixels(app, app.pointer.cursor), app.swapchain.extent,
                     fieldExtent(app));
}

void onKey(WindowApp& app, int key, int scancode, int action, int mods) {
    if (app.overlay.contextCreated)
        ImGui_ImplGlfw_KeyCallback(app.window.handle, key, scancode, action, mods);
    if (action != GLFW_PRESS) return;
    // Hotkeys are letters too: while a text field has focus they belong to it.
    if (app.ui.visible && app.overlay.contextCreated && ImGui::GetIO().WantTextInput) return;
    UiRequests& r = app.ui.requests;
    switch (key) {
    case GLFW_KEY_SPACE:
        r.togglePause = true;
        break;
    case GLFW_KEY_S:
        r.stepOnce = true;
        break;
    case GLFW_KEY_R:
        r.reset = true;
        break;
    case GLFW_KEY_F12:
        r.screenshot = true;
        break;
    case GLFW_KEY_H:
        r.toggleUi = true;
        break;
    case GLFW_KEY_P:
        app.session.showParticles = !app.session.showParticles;
        break;
    case GLFW_KEY_V: // the next view
        r.view = int((app.session.viewIndex + 1) % app.session.simulation->views.size());
        break;
    case GLFW_KEY_ESCAPE:
        r.quit = true;
        break;
    case GLFW_KEY_C: // volumes: the camera back where it started
        if (volumeView(app) != VolumeView::None) app.session.view = resetCamera(app.session.view);
        break;
    case GLFW_KEY_X:
    case GLFW_KEY_Y:
    case GLFW_KEY_Z: // volumes: the slice's axis
        if (volumeView(app) != VolumeView::None)
            app.session.view.sliceAxis = uint32_t(key - GLFW_KEY_X);
        break;
    case GLFW_KEY_PAGE_UP:
    case GLFW_KEY_PAGE_DOWN: // volumes: the slice one cell along its axis
        if (volumeView(app) != VolumeView::None) moveSlice(app, key == GLFW_KEY_PAGE_UP ? 1 : -1);
        break;
    default:
        break;
    }
}

void onChar(WindowApp& app, unsigned int codepoint) {
    if (app.overlay.contextCreated) ImGui_ImplGlfw_CharCallback(app.window.handle, codepoint);
}

void onFramebufferSize(WindowApp& app, int, int) {
    app.swapchainStale = true;
}

void onIconify(WindowApp& app, bool iconified) {
    app.iconified = iconified;
    if (!iconified) app.swapchainStale = true;
}

} // namespace estuary
