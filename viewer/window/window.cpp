// The viewer's window: a GLFW window (with a Vulkan surface, or an OpenGL 4.5 context for the
// OpenGL consumer), its swapchain, recreated when the surface changes, and one image-acquired
// semaphore per host-ring entry. A frame acquires an image at its end, draws into it and presents
// it; a minimized window still gets frames (nothing drawn, about 30 a second), so the user's loop
// never stalls in the window system.
#include "viewer.h"
#include "swapchain.h"
#include "vk_check.h"

#include <volk.h>
// volk first: GLFW declares its Vulkan functions only when the Vulkan types are already known.
#include <GLFW/glfw3.h>

#include <algorithm>
#include <thread>

namespace estuary::lib {

struct WindowSide {
    Window window;
    bool gl = false;
    bool systemUp = false;
    VkSurfaceFormatKHR surfaceFormat{};
    Swapchain swapchain;
    VkExtent2D swapchainFramebuffer{};
    bool stale = true;
    uint32_t recreations = 0;
    std::vector<VkSemaphore> imageAcquired; // per host-ring entry
    bool iconified = false;
    std::chrono::steady_clock::time_point lastIdleFrame;
};

void Deleter::operator()(WindowSide* p) const {
    delete p;
}

namespace {

estuary_viewer& viewerOf(GLFWwindow* window) {
    return *static_cast<estuary_viewer*>(glfwGetWindowUserPointer(window));
}

uint32_t modsOf(int glfwMods) {
    return ((glfwMods & GLFW_MOD_SHIFT) ? ESTUARY_MOD_SHIFT : 0u) |
           ((glfwMods & GLFW_MOD_CONTROL) ? ESTUARY_MOD_CONTROL : 0u) |
           ((glfwMods & GLFW_MOD_ALT) ? ESTUARY_MOD_ALT : 0u);
}

estuary_event makeEvent(estuary_event_kind kind, int32_t code, int32_t action, uint32_t mods,
                        double x = 0, double y = 0) {
    estuary_event e{};
    e.kind = kind;
    e.code = code;
    e.action = action;
    e.mods = mods;
    e.x = x;
    e.y = y;
    return e;
}

void installCallbacks(estuary_viewer& v, GLFWwindow* w) {
    glfwSetWindowUserPointer(w, &v);
    glfwSetCursorPosCallback(w, [](GLFWwindow* win, double x, double y) {
        handleEvent(viewerOf(win), makeEvent(ESTUARY_EVENT_CURSOR, 0, 0, 0, x, y));
    });
    glfwSetMouseButtonCallback(w, [](GLFWwindow* win, int button, int action, int mods) {
        const int code = button == GLFW_MOUSE_BUTTON_LEFT     ? 0
                         : button == GLFW_MOUSE_BUTTON_RIGHT  ? 1
                         : button == GLFW_MOUSE_BUTTON_MIDDLE ? 2
                                                              : -1;
        if (code < 0 || action == GLFW_REPEAT) return;
        handleEvent(viewerOf(win), makeEvent(ESTUARY_EVENT_BUTTON, code,
                                             action == GLFW_PRESS ? 1 : 0, modsOf(mods)));
    });
    glfwSetScrollCallback(w, [](GLFWwindow* win, double dx, double dy) {
        handleEvent(viewerOf(win), makeEvent(ESTUARY_EVENT_SCROLL, 0, 0, 0, dx, dy));
    });
    glfwSetKeyCallback(w, [](GLFWwindow* win, int key, int, int action, int mods) {
        if (action == GLFW_REPEAT) return;
        handleEvent(viewerOf(win),
                    makeEvent(ESTUARY_EVENT_KEY, key, action == GLFW_PRESS ? 1 : 0, modsOf(mods)));
    });
    glfwSetCharCallback(w, [](GLFWwindow* win, unsigned int c) {
        handleEvent(viewerOf(win), makeEvent(ESTUARY_EVENT_CHAR, int32_t(c), 1, 0));
    });
    glfwSetFramebufferSizeCallback(w, [](GLFWwindow* win, int, int) {
        if (viewerOf(win).window) viewerOf(win).window->stale = true;
    });
    glfwSetWindowIconifyCallback(w, [](GLFWwindow* win, int iconified) {
        handleEvent(viewerOf(win), makeEvent(ESTUARY_EVENT_ICONIFY, 0, iconified == GLFW_TRUE, 0));
    });
}

GLFWwindow* createGlWindow(const estuary_viewer& v) {
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT,
                   (v.flags & ESTUARY_VIEWER_VALIDATION) ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    GLFWwindow* window =
        glfwCreateWindow(int(v.width), int(v.height), v.title.c_str(), nullptr, nullptr);
    if (!window)
        throw unsupported("GLFW could not make an OpenGL 4.5 core window on this display; run "
                          "headless, or draw with Vulkan");
    glfwMakeContextCurrent(window);
    // FIFO is vsync; the others do not wait for it (GL has no mailbox of its own).
    glfwSwapInterval(v.presentMode == ESTUARY_PRESENT_FIFO ? 1 : 0);
    return window;
}

// For the current surface; false when it has no area (minimized). The old images may still be
// in use by frames in flight or the presentation engine: the queue drains first (bounded).
bool recreateSwapchain(estuary_viewer& v, VkExtent2D framebuffer) {
    WindowSide& w = *v.window;
    VkSurfaceCapabilitiesKHR caps{};
    VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(v.device.physical, w.window.surface, &caps));
    const VkExtent2D extent = chooseSwapchainExtent(caps, framebuffer);
    if (extent.width == 0 || extent.height == 0) return false;
    if (v.nextFrame > 0) waitFrame(v, v.nextFrame - 1, "recreating the swapchain");
    VK_CHECK(vkQueueWaitIdle(v.device.queue));
    SwapchainDesc desc;
    desc.surface = w.window.surface;
    desc.format = w.surfaceFormat;
    desc.presentMode = v.presentMode;
    desc.framebuffer = framebuffer;
    desc.oldSwapchain = w.swapchain.handle;
    std::string choice;
    Swapchain fresh = createSwapchain(v.device, desc, &choice);
    if (w.recreations == 0) logMessage(v, ESTUARY_LOG_INFO, choice);
    destroySwapchain(v.device, w.swapchain);
    w.swapchain = std::move(fresh);
    w.swapchainFramebuffer = framebuffer;
    w.stale = false;
    ++w.recreations;
    resizeViews(v, w.swapchain.extent); // what views keep of the picture's size (a mesh's depth)
    return true;
}

bool noArea(const WindowSide& w) {
    const VkExtent2D fb = framebufferExtent(w.window);
    return w.iconified || fb.width == 0 || fb.height == 0;
}

} // namespace

VkExtent2D pictureExtent(const estuary_viewer& v) {
    return v.window ? v.window->swapchain.extent : v.offscreen.image.extent;
}

VkFormat pictureFormat(const estuary_viewer& v) {
    return v.window ? v.window->swapchain.format.format : v.targetFormat;
}

bool windowTakesCopies(const estuary_viewer& v) {
    return !v.window || v.window->swapchain.canCopyInto;
}

bool pictureReadable(const estuary_viewer& v) {
    if (!v.window) return true;
    const Swapchain& s = v.window->swapchain;
    return s.canReadBack && s.extent.width > 0 && s.extent.height > 0;
}

void openWindowSystem(estuary_viewer& v) {
    Owned<WindowSide> side(new WindowSide);
    side->gl = v.consumer == ESTUARY_CONSUMER_OPENGL;
    initWindowSystem(!side->gl);
    side->systemUp = true;
    v.window = std::move(side);
}

void openWindow(estuary_viewer& v) {
    WindowSide& w = *v.window;
    if (w.gl)
        w.window.handle = createGlWindow(v);
    else
        w.window = createWindow(v.instance.handle, {v.width, v.height}, v.title.c_str());
    installCallbacks(v, w.window.handle);
}

VkSurfaceKHR windowSurface(const estuary_viewer& v) {
    return v.window ? v.window->window.surface : VK_NULL_HANDLE;
}

GLFWwindow* glfwWindowOf(const estuary_viewer& v) {
    return v.window ? v.window->window.handle : nullptr;
}

void createSwapchainFor(estuary_viewer& v) {
    WindowSide& w = *v.window;
    w.surfaceFormat = querySurfaceFormat(v.device.physical, w.window.surface);
    v.targetFormat = w.surfaceFormat.format;
    for (uint32_t entry = 0; entry < v.hostRing; ++entry) {
        VkSemaphoreCreateInfo info{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        VkSemaphore semaphore = VK_NULL_HANDLE;
        VK_CHECK(vkCreateSemaphore(v.device.handle, &info, nullptr, &semaphore));
        setDebugName(v.device, VK_OBJECT_TYPE_SEMAPHORE, uint64_t(semaphore),
                     ("image acquired, entry " + std::to_string(entry)).c_str());
        w.imageAcquired.push_back(semaphore);
    }
    openOverlay(v, v.targetFormat);
    recreateSwapchain(v, framebufferExtent(w.window));
}

void closeWindow(estuary_viewer& v) {
    if (!v.window) return;
    WindowSide& w = *v.window;
    if (v.device.handle) {
        destroySwapchain(v.device, w.swapchain);
        for (VkSemaphore semaphore : w.imageAcquired)
            vkDestroySemaphore(v.device.handle, semaphore, nullptr);
        w.imageAcquired.clear();
    }
    if (w.gl) {
        if (w.window.handle) glfwDestroyWindow(w.window.handle);
        w.window = {};
    } else if (v.instance.handle) {
        destroyWindow(v.instance.handle, w.window);
    }
    if (w.systemUp) terminateWindowSystem();
    v.window.reset();
}

bool prepareWindow(estuary_viewer& v) {
    WindowSide& w = *v.window;
    glfwPollEvents();
    if (!noArea(w)) return true;
    // Nothing to draw into: pace the frames instead of spinning.
    const auto next = w.lastIdleFrame + std::chrono::milliseconds(33);
    const auto now = std::chrono::steady_clock::now();
    if (next > now) glfwWaitEventsTimeout(std::chrono::duration<double>(next - now).count());
    w.lastIdleFrame = std::chrono::steady_clock::now();
    return false;
}

void pollEvents(estuary_viewer& v) {
    if (v.window) glfwPollEvents();
}

WindowTarget acquireWindowImage(estuary_viewer& v, uint32_t entry) {
    WindowTarget target;
    WindowSide& w = *v.window;
    if (w.gl || noArea(w)) return target;
    const VkExtent2D fb = framebufferExtent(w.window);
    if ((w.stale || fb.width != w.swapchainFramebuffer.width ||
         fb.height != w.swapchainFramebuffer.height) &&
        !recreateSwapchain(v, fb))
        return target;
    VkSemaphore acquired = w.imageAcquired[entry];
    uint32_t index = 0;
    const VkResult r =
        vkAcquireNextImageKHR(v.device.handle, w.swapchain.handle, frameWaitTimeoutNs(v), acquired,
                              VK_NULL_HANDLE, &index);
    if (r == VK_ERROR_OUT_OF_DATE_KHR) { // nothing acquired: recreate, draw the next frame
        w.stale = true;
        return target;
    }
    if (r == VK_TIMEOUT)
        throw timeoutError("timed out after " + formatSeconds(frameWaitTimeoutNs(v)) +
                           " waiting for the window system to give back a swapchain image");
    if (r == VK_SUBOPTIMAL_KHR)
        w.stale = true; // the image is ours and the semaphore will signal: draw it
    else if (r != VK_SUCCESS)
        throwVkFailure(r, "vkAcquireNextImageKHR", __FILE__, __LINE__);
    target.image = w.swapchain.images[index];
    target.view = w.swapchain.views[index];
    target.extent = w.swapchain.extent;
    target.acquired = acquired;
    target.renderFinished = w.swapchain.renderFinished[index];
    target.imageIndex = index;
    target.valid = true;
    return target;
}

void presentWindowImage(estuary_viewer& v, const WindowTarget& target) {
    WindowSide& w = *v.window;
    VkPresentInfoKHR present{VK_STRUCTURE_TYPE_PRESENT_INFO_KHR};
    present.waitSemaphoreCount = 1;
    present.pWaitSemaphores = &target.renderFinished;
    present.swapchainCount = 1;
    present.pSwapchains = &w.swapchain.handle;
    present.pImageIndices = &target.imageIndex;
    const VkResult r = vkQueuePresentKHR(v.device.queue, &present);
    ++v.framesPresented;
    // Both still consume the render-finished semaphore's signal (the present is queued anyway).
    if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR)
        w.stale = true;
    else if (r != VK_SUCCESS)
        throwVkFailure(r, "vkQueuePresentKHR", __FILE__, __LINE__);
}

VkExtent2D windowExtent(const estuary_viewer& v) {
    if (!v.window) return {v.width, v.height};
    if (!v.window->gl && v.window->swapchain.handle) return v.window->swapchain.extent;
    return framebufferExtent(v.window->window);
}

// Window coordinates → framebuffer pixels (they differ on HiDPI displays).
std::array<float, 2> windowToPixels(const estuary_viewer& v, float x, float y) {
    if (!v.window) return {x, y};
    int ww = 0, wh = 0, fw = 0, fh = 0;
    glfwGetWindowSize(v.window->window.handle, &ww, &wh);
    glfwGetFramebufferSize(v.window->window.handle, &fw, &fh);
    if (ww <= 0 || wh <= 0) return {x, y};
    return {x * float(fw) / float(ww), y * float(fh) / float(wh)};
}

void setWindowSize(estuary_viewer& v, uint32_t width, uint32_t height) {
    if (!v.window) throw usageError("estuary_set_window_size: the viewer is headless");
    if (width == 0 || height == 0 || width > 16384 || height > 16384)
        throw usageError("window size " + std::to_string(width) + "x" + std::to_string(height) +
                         " is not in 1..16384 on each side");
    glfwSetWindowSize(v.window->window.handle, int(width), int(height));
    v.window->stale = true;
}

void setIconified(estuary_viewer& v, bool iconified) {
    if (!v.window) return;
    v.window->iconified = iconified;
    if (!iconified) v.window->stale = true;
}

uint32_t swapchainRecreations(const estuary_viewer& v) {
    return v.window ? v.window->recreations : 0;
}

bool windowClosed(const estuary_viewer& v) {
    return v.window && glfwWindowShouldClose(v.window->window.handle);
}

void swapGlBuffers(estuary_viewer& v) {
    if (!v.window || !v.window->gl) return;
    glfwSwapBuffers(v.window->window.handle);
    ++v.framesPresented;
}

} // namespace estuary::lib
