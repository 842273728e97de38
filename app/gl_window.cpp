#include "gl_window.h"
#include "colormap.h"
#include "errors.h"
#include "frame.h"
#include "gl_field.h"
#include "png.h"
#include "session.h"
#include "stop_signal.h"
#include "window.h"

#include <epoxy/gl.h>
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace estuary {
namespace {

// What the callbacks change between frames; applied by the loop, which owns the session.
struct GlWindowInput {
    bool nextView = false, nextColormap = false, reset = false, resetView = false;
    double zoomSteps = 0;
    bool dragging = false;
    double lastX = 0, lastY = 0, dragX = 0, dragY = 0; // pixels moved since the last frame
};

GlWindowInput& inputOf(GLFWwindow* window) {
    return *static_cast<GlWindowInput*>(glfwGetWindowUserPointer(window));
}

void onKey(GLFWwindow* window, int key, int, int action, int) {
    if (action != GLFW_PRESS) return;
    GlWindowInput& in = inputOf(window);
    switch (key) {
    case GLFW_KEY_ESCAPE:
    case GLFW_KEY_Q:
        glfwSetWindowShouldClose(window, GLFW_TRUE);
        break;
    case GLFW_KEY_V:
        in.nextView = true;
        break;
    case GLFW_KEY_C:
        in.nextColormap = true;
        break;
    case GLFW_KEY_R:
        in.reset = true;
        break;
    case GLFW_KEY_HOME:
        in.resetView = true;
        break;
    default:
        break;
    }
}

void onScroll(GLFWwindow* window, double, double dy) {
    inputOf(window).zoomSteps += dy;
}

void onMouseButton(GLFWwindow* window, int button, int action, int) {
    if (button != GLFW_MOUSE_BUTTON_LEFT) return;
    GlWindowInput& in = inputOf(window);
    in.dragging = action == GLFW_PRESS;
    glfwGetCursorPos(window, &in.lastX, &in.lastY);
}

void onCursor(GLFWwindow* window, double x, double y) {
    GlWindowInput& in = inputOf(window);
    if (!in.dragging) return;
    in.dragX += x - in.lastX;
    in.dragY += y - in.lastY;
    in.lastX = x;
    in.lastY = y;
}

GLFWwindow* createGlWindow(const Options& o, GlWindowInput& input) {
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 5);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_DEBUG_CONTEXT, o.validate ? GLFW_TRUE : GLFW_FALSE);
    glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
    GLFWwindow* window = glfwCreateWindow(int(o.resolution.width), int(o.resolution.height),
                                          "estuary (OpenGL consumer)", nullptr, nullptr);
    if (!window)
        throw unsupported("GLFW could not make an OpenGL 4.5 core window on this display; run "
                          "with --headless, or with --consumer vulkan");
    glfwMakeContextCurrent(window);
    // FIFO is vsync; the others do not wait for it (GL has no mailbox of its own).
    glfwSwapInterval(o.presentMode == PresentMode::Fifo ? 1 : 0);
    glfwSetWindowUserPointer(window, &input);
    glfwSetKeyCallback(window, onKey);
    glfwSetScrollCallback(window, onScroll);
    glfwSetMouseButtonCallback(window, onMouseButton);
    glfwSetCursorPosCallback(window, onCursor);
    return window;
}

// The input gathered since the last frame, applied to the session (view changes wait for the GPU:
// they rebuild the renderer).
void applyInput(Session& s, GlWindowInput& in, VkExtent2D extent) {
    if (in.nextView) switchView(s, uint32_t((s.viewIndex + 1) % s.simulation->views.size()));
    if (in.nextColormap) s.view.colormap = (s.view.colormap + 1) % kColormapCount;
    if (in.reset) s.backend->reset(s.options.seed);
    if (in.resetView) s.view.zoom = 1.0f, s.view.panX = s.view.panY = 0.0f;
    if (in.zoomSteps != 0)
        s.view.zoom = std::clamp(s.view.zoom * float(std::pow(1.15, in.zoomSteps)), 0.25f, 64.0f);
    if ((in.dragX != 0 || in.dragY != 0) && extent.width > 0 && extent.height > 0) {
        // Field-normalised pan: a drag moves the picture with the cursor.
        const Extent grid = s.options.grid;
        const float pixelsPerTexel = std::min(float(extent.width) / float(grid.width),
                                              float(extent.height) / float(grid.height)) *
                                     s.view.zoom;
        s.view.panX -= float(in.dragX) / (pixelsPerTexel * float(grid.width));
        s.view.panY -= float(in.dragY) / (pixelsPerTexel * float(grid.height));
    }
    const bool dragging = in.dragging;
    const double lastX = in.lastX, lastY = in.lastY;
    in = GlWindowInput{};
    in.dragging = dragging, in.lastX = lastX, in.lastY = lastY;
}

VkExtent2D framebufferSize(GLFWwindow* window) {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    return {uint32_t(std::max(w, 0)), uint32_t(std::max(h, 0))};
}

void runLoop(Session& s, GLFWwindow* window, const Options& o, OutputFile* screenshot,
             GlWindowInput& input) {
    uint64_t frame = 0;
    bool captured = false;
    FrameTarget target; // the window's default framebuffer
    while (stopSignal() == 0 && !glfwWindowShouldClose(window) && (!o.frames || frame < o.frames)) {
        glfwPollEvents();
        const VkExtent2D extent = framebufferSize(window);
        if (extent.width == 0 || extent.height == 0) { // minimized
            glfwWaitEventsTimeout(0.25);
            continue;
        }
        applyInput(s, input, extent);
        target.extent = extent;
        drawFrame(s, frame, target);
        const bool last = o.frames && frame + 1 == o.frames;
        if (screenshot && last) {
            screenshot->write(
                encodePng(extent.width, extent.height, readGlFramebuffer(0, extent).data()));
            captured = true;
        }
        glfwSwapBuffers(window);
        ++frame;
    }
    // Closed before --frames (Esc, the window closed, a stop signal): one more frame for the file.
    if (screenshot && !captured && frame > 0) {
        const VkExtent2D extent = framebufferSize(window);
        if (extent.width > 0 && extent.height > 0) {
            target.extent = extent;
            drawFrame(s, frame, target);
            screenshot->write(
                encodePng(extent.width, extent.height, readGlFramebuffer(0, extent).data()));
            captured = true;
        }
    }
    finishFrames(s);
    std::printf("estuary: %llu frames drawn by OpenGL in the window\n",
                static_cast<unsigned long long>(frame));
    if (screenshot && captured)
        std::printf("estuary: wrote %s\n", screenshot->path().c_str());
    else if (screenshot)
        std::fprintf(stderr, "estuary: --screenshot %s was not written: no frame was drawn\n",
                     screenshot->path().c_str());
}

} // namespace

int runGlWindowed(const Options& options, std::optional<OutputFile>& screenshot) {
    initWindowSystem();
    GlWindowInput input;
    GLFWwindow* window = nullptr;
    int code = 0;
    try {
        window = createGlWindow(options, input);
        Session session;
        session.glWindowProc = glfwGetProcAddress;
        openInstance(session, options, {});
        code = runSession(session, [&](Session& s) {
            openDevice(s, VK_NULL_HANDLE, VK_FORMAT_R8G8B8A8_UNORM);
            runLoop(s, window, options, screenshot ? &*screenshot : nullptr, input);
        });
    } catch (...) {
        if (window) glfwDestroyWindow(window);
        terminateWindowSystem();
        throw;
    }
    glfwDestroyWindow(window);
    terminateWindowSystem();
    return code;
}

} // namespace estuary
