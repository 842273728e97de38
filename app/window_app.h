// The desktop demo as a value a test can hold: a session drawing into a GLFW window's swapchain
// with the ImGui overlay, one frame per stepWindowApp(). Input arrives through the on*() handlers —
// the GLFW callbacks call them, and tests call the same ones to inject a drag, a click or a key —
// so gtest can drive the whole app in-process under Xvfb. runWindowed() (windowed.h) is a loop over
// it.
//
// A step: poll events → (minimized: wait for events, draw nothing) → recreate the swapchain if it
// went stale → ImGui frame → apply UI requests → wait for the frame slot's previous use (the
// frames-in-flight limit, the only host wait) → acquire → drawFrame (same as headless) → present.
#pragma once

#include "frame.h"
#include "output_file.h"
#include "ui_overlay.h"
#include "ui_panels.h"
#include "window.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace estuary {

// Mouse state as the app sees it, in window coordinates (GLFW's screen coordinates).
struct PointerState {
    Vec2 cursor{-1.0f, -1.0f};
    bool down[3] = {};              // left, right, middle
    bool pressedSinceFrame[3] = {}; // so ImGui sees a click that was released before its frame
    bool ctrl = false;
    enum class Drag { None, Paint, Erase, Pan, Orbit } drag = Drag::None;
    Vec2 lastPixel; // framebuffer pixels at the last drag event
};

enum class StepResult { Presented, Skipped, Minimized, Closed };

struct WindowApp {
    Session session;
    Window window;
    VkSurfaceFormatKHR surfaceFormat{};
    Swapchain swapchain;
    VkExtent2D swapchainFramebuffer{}; // framebuffer size the swapchain was made for
    bool swapchainStale = true;        // resized, or SUBOPTIMAL / OUT_OF_DATE reported
    uint32_t swapchainRecreations = 0;
    UiOverlay overlay;
    UiState ui;
    PointerState pointer;
    std::vector<VkSemaphore> imageAcquired; // per frame slot
    FrameTarget target;
    uint32_t imageIndex = 0;
    bool uiRecordedThisFrame = false;
    bool iconified = false;
    bool closeRequested = false;
    bool glfwInitialized = false;
    bool stepPending = false;          // single step while paused
    double minimizedWaitSeconds = 0.0; // 0: glfwWaitEvents (blocks); runWindowed, tests: a timeout
    uint64_t framesPresented = 0;

    // Screenshot of the next presented frame (UI included), as RGBA8, kept in lastCapture for
    // tests; written as PNG to what was asked for that frame (each request is served once).
    bool captureNext = false;
    std::string capturePath;           // a path (tests); a failed write throws
    OutputFile* captureFile = nullptr; // --screenshot, opened before the run; a failed write throws
    bool captureNumbered = false;      // F12: a failed write is shown in the overlay, not thrown
    bool capturingThisFrame = false;
    GpuBuffer captureBuffer;
    std::vector<uint8_t> lastCapture;
    VkExtent2D lastCaptureExtent{};
    // F12 writes estuary-screenshot-NNN.png here (empty: the working folder), the lowest NNN not
    // taken from screenshotCount on; it never replaces a file. What it wrote, in order:
    std::filesystem::path screenshotFolder;
    uint32_t screenshotCount = 0;
    std::vector<std::filesystem::path> numberedScreenshots;
};

// Throws unsupported() (exit 3) without a display. Validation follows options.validate.
std::unique_ptr<WindowApp> openWindowApp(const Options& options);
StepResult stepWindowApp(WindowApp& app);
// Destroys everything (also a half-opened app) and returns the validation message count.
uint32_t closeWindowApp(std::unique_ptr<WindowApp>& app);

// The next presented frame is captured; `path` empty: pixels kept in lastCapture only.
void requestScreenshot(WindowApp& app, const std::string& path);
void requestScreenshot(WindowApp& app, OutputFile& file);
// What F12 does: the next presented frame goes to the next free numbered file.
void requestNumberedScreenshot(WindowApp& app);

// Input handlers, in GLFW's units and constants (GLFW_PRESS, GLFW_MOUSE_BUTTON_LEFT, GLFW_KEY_*).
void onCursorPos(WindowApp& app, double x, double y);
void onMouseButton(WindowApp& app, int button, int action, int mods);
void onScroll(WindowApp& app, double dx, double dy);
void onKey(WindowApp& app, int key, int scancode, int action, int mods);
void onChar(WindowApp& app, unsigned int codepoint);
void onFramebufferSize(WindowApp& app, int width, int height);
void onIconify(WindowApp& app, bool iconified);

// Window coordinates → framebuffer pixels (they differ on HiDPI displays).
Vec2 windowToPixels(const WindowApp& app, Vec2 window);
// The field's extent as the renderer sees it.
VkExtent2D fieldExtent(const WindowApp& app);
// Whether the current view shows a volume, and how (the orbit camera takes the mouse).
VolumeView volumeView(const WindowApp& app);

} // namespace estuary
