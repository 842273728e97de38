// The desktop demo driven in-process through the same handlers GLFW's callbacks call: a real window
// (Xvfb in CI), the validation layer on, the CPU backend. Skips, saying why, without a display.
#include "png.h"
#include "simulations.h"
#include "test_support.h"
#include "window_app.h"
#include "windowed.h"

#include <volk.h>
#include <GLFW/glfw3.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

namespace estuary {
namespace {

bool haveDisplay() {
    const char* x11 = std::getenv("DISPLAY");
    const char* wayland = std::getenv("WAYLAND_DISPLAY");
    return (x11 && *x11) || (wayland && *wayland);
}

class WindowTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (!haveDisplay())
            GTEST_SKIP() << "no display (DISPLAY and WAYLAND_DISPLAY unset): window tests need "
                            "one; run under xvfb-run -a";
        options.backend = Backend::Cpu;
        options.validate = true;
        options.grid = {128, 128};
        options.resolution = {768, 768};
    }
    void TearDown() override {
        if (app) {
            EXPECT_EQ(closeWindowApp(app), 0u) << "validation messages (printed above)";
        }
    }
    void open() {
        app = openWindowApp(options);
        app->minimizedWaitSeconds = 0.01; // glfwWaitEvents would block the test
    }
    // Steps until `done` (checked after each step) or `limit` steps; returns whether done.
    bool stepUntil(const std::function<bool()>& done, int limit = 20) {
        for (int i = 0; i < limit; ++i) {
            if (stepWindowApp(*app) == StepResult::Closed) return false;
            if (done()) return true;
        }
        return false;
    }
    void steps(int n) {
        for (int i = 0; i < n; ++i)
            stepWindowApp(*app);
    }
    std::vector<uint8_t> capture(const std::string& path = {}) {
        app->lastCapture.clear();
        requestScreenshot(*app, path);
        EXPECT_TRUE(stepUntil([&] { return !app->lastCapture.empty(); }));
        return app->lastCapture;
    }
    const uint8_t* pixel(const std::vector<uint8_t>& rgba, Vec2 p) {
        const VkExtent2D e = app->lastCaptureExtent;
        return &rgba[(size_t(p.y) * e.width + size_t(p.x)) * 4];
    }
    // v under window point `p`, through the cursor probe the View panel shows.
    float probeAt(Vec2 p) {
        onCursorPos(*app, p.x, p.y);
        steps(1);
        const auto value = app->session.backend->probeValue();
        EXPECT_TRUE(app->ui.cursor.overField && value.has_value()) << p.x << "," << p.y;
        return value ? value->channels[0] : -1.0f;
    }

    // A click as a user makes it: move, press, release, each seen by an ImGui frame.
    void click(Vec2 p) {
        onCursorPos(*app, p.x, p.y);
        steps(1);
        onMouseButton(*app, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
        steps(1);
        onMouseButton(*app, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
        steps(1);
    }

    void pressKey(int glfwKey) {
        onKey(*app, glfwKey, 0, GLFW_PRESS, 0);
        onKey(*app, glfwKey, 0, GLFW_RELEASE, 0);
    }

    Options options;
    std::unique_ptr<WindowApp> app;
};

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

TEST_F(WindowTest, RunsResizesMinimizesAndScreenshotsWithoutValidationMessages) {
    options.resolution = {512, 384};
    open();
    ASSERT_TRUE(stepUntil([&] { return app->framesPresented >= 120; }, 200));

    const VkExtent2D sizes[] = {{640, 480}, {1, 1},     {300, 200},  {801, 303}, {2, 777},
                                {1, 1},     {64, 64},   {1000, 700}, {333, 1},   {512, 384},
                                {7, 5},     {960, 540}, {1, 1},      {200, 600}, {599, 599},
                                {1, 2},     {450, 320}, {123, 456},  {1, 1},     {640, 400}};
    for (VkExtent2D size : sizes) {
        glfwSetWindowSize(app->window.handle, int(size.width), int(size.height));
        const uint64_t before = app->framesPresented;
        EXPECT_TRUE(stepUntil([&] {
            return app->framesPresented > before && app->swapchain.extent.width == size.width &&
                   app->swapchain.extent.height == size.height;
        })) << "no frame presented at "
            << size.width << "x" << size.height << " (swapchain " << app->swapchain.extent.width
            << "x" << app->swapchain.extent.height << ")";
    }
    EXPECT_GE(app->swapchainRecreations, 20u);

    // Without a window manager (bare Xvfb) iconifying is a no-op for the server, so the event is
    // also delivered the way GLFW's iconify callback would.
    glfwIconifyWindow(app->window.handle);
    steps(2);
    RecordProperty("iconifiedByWindowSystem", app->iconified ? "yes" : "no");
    if (!app->iconified) onIconify(*app, true);
    const uint64_t frameBefore = app->session.nextFrame;
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(stepWindowApp(*app), StepResult::Minimized);
    EXPECT_EQ(app->session.nextFrame, frameBefore) << "a minimized window must not render";
    glfwRestoreWindow(app->window.handle);
    onIconify(*app, false);
    const uint64_t restored = app->framesPresented;
    EXPECT_TRUE(stepUntil([&] { return app->framesPresented > restored + 3; }));

    const auto path = test::scratchDir("window-run") / "window.png";
    const std::vector<uint8_t> shot = capture(path.string());
    ASSERT_FALSE(shot.empty());
    const test::Rgba8Image png = test::loadPng(path);
    EXPECT_EQ(png.width, 640);
    EXPECT_EQ(png.height, 400);
    EXPECT_GT(test::countDistinctColors(png), 64u) << "screenshot is (nearly) uniform: " << path;
}

TEST_F(WindowTest, MouseDragPaintsTheFieldUnderTheStrokeAndTheScreenshotShowsIt) {
    open();
    steps(3);
    onKey(*app, GLFW_KEY_SPACE, 0, GLFW_PRESS, 0); // pause: only the brush changes the field
    onKey(*app, GLFW_KEY_SPACE, 0, GLFW_RELEASE, 0);
    steps(2);
    ASSERT_TRUE(app->ui.paused);

    // A stroke across the lower right, clear of the panels (768x768 window, 6 px per cell).
    const Vec2 from{400.0f, 700.0f}, to{740.0f, 640.0f};
    const Vec2 onStroke[] = {{430.0f, 694.7f}, {570.0f, 670.0f}, {700.0f, 647.1f}};
    const Vec2 offStroke{570.0f, 560.0f}; // ~17 cells away, radius 8
    float before[3];
    for (int i = 0; i < 3; ++i) {
        before[i] = probeAt(onStroke[i]);
        ASSERT_LT(before[i], 0.4f) << "point " << i << " already has the brush's value";
    }
    const float offBefore = probeAt(offStroke);
    const std::vector<uint8_t> shotBefore = capture();

    onCursorPos(*app, from.x, from.y);
    steps(1); // ImGui learns the cursor is over the field, not a panel
    onMouseButton(*app, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
    for (int i = 1; i <= 12; ++i) {
        const float t = float(i) / 12.0f;
        onCursorPos(*app, from.x + t * (to.x - from.x), from.y + t * (to.y - from.y));
    }
    onMouseButton(*app, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);

    for (int i = 0; i < 3; ++i) {
        const float after = probeAt(onStroke[i]);
        // The brush sets v = 0.5 (stencil.h); paused, nothing diffuses it away.
        EXPECT_NEAR(after, 0.5f, 1e-3f) << "v before " << before[i] << " at point " << i;
    }
    EXPECT_FLOAT_EQ(probeAt(offStroke), offBefore) << "the brush reached beyond its radius";

    const auto path = test::scratchDir("window-paint") / "painted.png";
    const std::vector<uint8_t> shotAfter = capture(path.string());
    for (const Vec2& p : onStroke) {
        int diff = 0;
        for (int c = 0; c < 3; ++c)
            diff = std::max(diff,
                            std::abs(int(pixel(shotAfter, p)[c]) - int(pixel(shotBefore, p)[c])));
        EXPECT_GT(diff, 40) << "the screenshot does not show the stroke at " << p.x << "," << p.y
                            << " (" << path << ")";
    }
    const uint8_t* a = pixel(shotAfter, offStroke);
    const uint8_t* b = pixel(shotBefore, offStroke);
    for (int c = 0; c < 3; ++c)
        EXPECT_EQ(a[c], b[c]) << "away from the stroke the picture must not change";
}

TEST_F(WindowTest, PresetClickAndHotkeysDriveTheSimulation) {
    open();
    steps(2);
    const sim::SimDefinition& def = *app->session.simulation;
    const size_t maze = 3, F = size_t(sim::findParam(def, "F")),
                 k = size_t(sim::findParam(def, "k"));
    ASSERT_EQ(def.presets.at(maze).name, "maze");
    sim::ParamValues mazeValues = app->session.params;
    ASSERT_EQ(sim::applyPreset(def, def.presets[maze], mazeValues), "");
    ASSERT_NE(app->session.params[F], mazeValues[F]);
    ASSERT_EQ(app->ui.presetButtonCentre.size(), def.presets.size());
    const Vec2 button = app->ui.presetButtonCentre[maze];
    ASSERT_GT(button.x, 0.0f);

    // A click as a user makes it: move, press, release, each seen by an ImGui frame.
    onCursorPos(*app, button.x, button.y);
    steps(1);
    onMouseButton(*app, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
    steps(1);
    EXPECT_EQ(app->pointer.drag, PointerState::Drag::None) << "a click on a panel must not paint";
    onMouseButton(*app, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
    steps(2);
    EXPECT_EQ(app->session.params[F], mazeValues[F]);
    EXPECT_EQ(app->session.params[k], mazeValues[k]);

    auto key = [&](int glfwKey) {
        onKey(*app, glfwKey, 0, GLFW_PRESS, 0);
        onKey(*app, glfwKey, 0, GLFW_RELEASE, 0);
    };
    key(GLFW_KEY_H); // hide the UI so screenshots show only the field
    key(GLFW_KEY_SPACE);
    steps(2);
    ASSERT_FALSE(app->ui.visible);
    ASSERT_TRUE(app->ui.paused);
    EXPECT_EQ(app->session.stepsPerFrame, 0);
    const auto paused1 = capture();
    steps(3);
    const auto paused2 = capture();
    EXPECT_EQ(test::compareRgba8(paused1, paused2, 0).maxAbsDiff, 0) << "paused, yet it moved";

    key(GLFW_KEY_S);
    steps(1);
    const auto stepped = capture();
    EXPECT_GT(test::compareRgba8(paused2, stepped, 0).failingFraction, 0.0) << "S did not step";
    const auto stillStepped = capture();
    EXPECT_EQ(test::compareRgba8(stepped, stillStepped, 0).maxAbsDiff, 0) << "S stepped twice";

    key(GLFW_KEY_R);
    const auto reset1 = capture();
    key(GLFW_KEY_SPACE); // run a while, then reset again: the same seeded field comes back
    steps(5);
    key(GLFW_KEY_SPACE);
    key(GLFW_KEY_R);
    const auto reset2 = capture();
    EXPECT_GT(test::compareRgba8(stepped, reset1, 0).failingFraction, 0.0);
    EXPECT_EQ(test::compareRgba8(reset1, reset2, 0).maxAbsDiff, 0) << "reset is not repeatable";

    // The grid-size request (the panel's "Apply grid size") swaps the shared images mid-run.
    app->ui.requests.grid = Extent{96, 64};
    steps(3);
    EXPECT_EQ(fieldExtent(*app).width, 96u);
    EXPECT_EQ(fieldExtent(*app).height, 64u);
    EXPECT_EQ(app->ui.gridEdit[0], 96);

    // The wheel over the field zooms about the cursor.
    onCursorPos(*app, 500.0, 600.0);
    steps(1);
    const float zoom = app->session.view.zoom;
    onScroll(*app, 0.0, 2.0);
    EXPECT_GT(app->session.view.zoom, zoom * 1.2f);

    key(GLFW_KEY_ESCAPE);
    EXPECT_EQ(stepWindowApp(*app), StepResult::Closed);
}

TEST_F(WindowTest, SimulationSelectorSwitchesToWaveWhosePanelAndBrushFollowIt) {
    open();
    steps(2);
    ASSERT_EQ(app->session.simulation->name, "gray-scott");
    const auto grayScott = capture();
    size_t wave = 0;
    while (wave < simulations().size() && simulations()[wave].name != "wave")
        ++wave;
    ASSERT_LT(wave, simulations().size());
    // Open the selector and pick "wave", clicking as a user does.
    click(app->ui.simulationSelectorCentre);
    steps(1); // a popup is laid out (and hidden) in its first frame; its entries settle in the next
    ASSERT_EQ(app->ui.simulationEntryCentre.size(), simulations().size()) << "the list is not open";
    click(app->ui.simulationEntryCentre[wave]);
    steps(2);
    ASSERT_EQ(app->session.simulation->name, "wave");
    EXPECT_EQ(app->session.params, sim::initialParams(simulations()[wave]));
    EXPECT_EQ(app->ui.stepsPerFrame, simulations()[wave].stepsPerFrame);
    EXPECT_EQ(app->ui.presetButtonCentre.size(), simulations()[wave].presets.size());
    EXPECT_GT(test::compareRgba8(grayScott, capture(), 0).failingFraction, 0.1)
        << "the picture did not change with the simulation";

    // Paused, a left click over the field drops water: the height under it rises by the bump's 1.
    onKey(*app, GLFW_KEY_SPACE, 0, GLFW_PRESS, 0);
    onKey(*app, GLFW_KEY_SPACE, 0, GLFW_RELEASE, 0);
    steps(2);
    const Vec2 at{450.0f, 450.0f}; // the middle of the window, clear of the panels
    const float before = probeAt(at);
    onMouseButton(*app, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
    onMouseButton(*app, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
    EXPECT_NEAR(probeAt(at) - before, 1.0f, 0.05f) << "the click did not drop water";
}

TEST_F(WindowTest, FluidStrokePoursDyeViewsSwitchAndParticlesToggleWithoutValidationMessages) {
    options.simulation = "fluid";
    open();
    steps(2);
    const sim::SimDefinition& def = *app->session.simulation;
    ASSERT_EQ(def.name, "fluid");
    ASSERT_GT(app->session.particles, 0u);
    EXPECT_GT(app->session.view.pointCount, 0u) << "the particles are drawn by default";

    // A preset through its button, as a user clicks it: the parameters become the preset's.
    const size_t calm = def.presets.size() - 1;
    sim::ParamValues want = app->session.params;
    ASSERT_EQ(sim::applyPreset(def, def.presets[calm], want), "");
    ASSERT_EQ(app->ui.presetButtonCentre.size(), def.presets.size());
    click(app->ui.presetButtonCentre[calm]);
    steps(1);
    EXPECT_EQ(app->session.params, want) << "preset " << def.presets[calm].name;

    pressKey(GLFW_KEY_SPACE); // paused: only the brush changes the fluid
    steps(2);
    ASSERT_TRUE(app->ui.paused);
    const Vec2 from{420.0f, 520.0f}, to{740.0f, 520.0f},
        middle{580.0f, 520.0f}; // clear of the panels
    onCursorPos(*app, middle.x, middle.y);
    steps(1);
    const auto dyeBefore = app->session.backend->probeValue();
    ASSERT_TRUE(dyeBefore.has_value());
    ASSERT_EQ(dyeBefore->count, 4u) << "the default view shows the RGBA dye";
    const auto shotBefore = capture();
    onCursorPos(*app, from.x, from.y);
    steps(1);
    onMouseButton(*app, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
    for (int i = 1; i <= 10; ++i)
        onCursorPos(*app, from.x + float(i) / 10.0f * (to.x - from.x), from.y);
    onMouseButton(*app, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
    onCursorPos(*app, middle.x, middle.y);
    steps(2);
    const auto dyeAfter = app->session.backend->probeValue();
    ASSERT_TRUE(dyeAfter.has_value());
    float poured = 0.0f;
    for (uint32_t c = 0; c < 3; ++c)
        poured += std::fabs(dyeAfter->channels[c] - dyeBefore->channels[c]);
    EXPECT_GT(poured, 0.05f) << "the stroke poured no dye under the cursor";

    // V shows the next view (speed: the stroke pushed the fluid, so it shows); P hides the
    // particles.
    const auto path = test::scratchDir("window-fluid") / "fluid.png";
    const auto withDye = capture(path.string());
    EXPECT_GT(test::compareRgba8(shotBefore, withDye, 0).failingFraction, 0.01);
    pressKey(GLFW_KEY_V);
    steps(2);
    EXPECT_EQ(app->session.viewIndex, 1u);
    EXPECT_EQ(fieldExtent(*app).width, options.grid.width);
    const auto speed = app->session.backend->probeValue();
    ASSERT_TRUE(speed.has_value());
    EXPECT_EQ(speed->count, 2u) << "the speed view probes the two-channel velocity";
    EXPECT_GT(std::hypot(speed->channels[0], speed->channels[1]), 0.0f) << "the stroke pushed";
    const auto withSpeed = capture();
    EXPECT_GT(test::compareRgba8(withDye, withSpeed, 0).failingFraction, 0.1);
    pressKey(GLFW_KEY_P);
    steps(1);
    EXPECT_EQ(app->session.view.pointCount, 0u);
    const auto withoutParticles = capture();
    EXPECT_GT(test::compareRgba8(withSpeed, withoutParticles, 0).failingFraction, 0.001)
        << "hiding the particles changed nothing";
}

TEST_F(WindowTest, F12WritesANewNumberedFileEachTimeAndNeverReplacesOne) {
    const auto dir = test::scratchDir("window-f12");
    std::ofstream(dir / "estuary-screenshot-000.png") << "someone else's file";
    open();
    app->screenshotFolder = dir;
    steps(2);
    for (size_t n = 1; n <= 2; ++n) {
        pressKey(GLFW_KEY_F12);
        ASSERT_TRUE(stepUntil([&] { return app->numberedScreenshots.size() == n; }));
    }
    EXPECT_EQ(app->numberedScreenshots[0], dir / "estuary-screenshot-001.png");
    EXPECT_EQ(app->numberedScreenshots[1], dir / "estuary-screenshot-002.png");
    EXPECT_EQ(readFile(dir / "estuary-screenshot-000.png"), "someone else's file");
    for (const auto& path : app->numberedScreenshots)
        EXPECT_EQ(test::loadPng(path).width, int(options.resolution.width)) << path;
    EXPECT_FALSE(app->ui.noticeIsError);
    EXPECT_NE(app->ui.notice.find("estuary-screenshot-002.png"), std::string::npos)
        << app->ui.notice;
}

TEST_F(WindowTest, AFailedF12IsShownInTheOverlayAndTheSessionGoesOn) {
    const auto dir = test::scratchDir("window-f12-fail");
    std::ofstream(dir / "file") << "a regular file where the folder should be";
    open();
    app->screenshotFolder = dir / "file";
    steps(2);
    pressKey(GLFW_KEY_F12);
    ASSERT_TRUE(stepUntil([&] { return !app->ui.notice.empty(); }));
    EXPECT_TRUE(app->ui.noticeIsError);
    EXPECT_NE(app->ui.notice.find("screenshot failed"), std::string::npos) << app->ui.notice;
    EXPECT_NE(app->ui.notice.find((dir / "file").string()), std::string::npos) << app->ui.notice;
    EXPECT_TRUE(app->numberedScreenshots.empty());
    // The overlay draws it for a while, and frames go on.
    const uint64_t presented = app->framesPresented;
    const float shownFor = app->ui.noticeSeconds;
    steps(5);
    EXPECT_EQ(app->framesPresented, presented + 5);
    EXPECT_GT(app->ui.noticeSeconds, 0.0f);
    EXPECT_LT(app->ui.noticeSeconds, shownFor) << "the notice is not being drawn";
}

TEST_F(WindowTest, TheScreenshotOptionIsStillWrittenOnExitAfterAnF12) {
    const auto dir = test::scratchDir("window-f12-exit");
    options.screenshot = (dir / "exit.png").string();
    open();
    app->screenshotFolder = dir;
    steps(2);
    pressKey(GLFW_KEY_F12);
    ASSERT_TRUE(stepUntil([&] { return app->numberedScreenshots.size() == 1; }));
    // Esc before --frames would have been reached: the loop draws one more frame for the option.
    OutputFile exitShot = OutputFile::open(options.screenshot);
    pressKey(GLFW_KEY_ESCAPE);
    runWindowLoop(*app, options, &exitShot);
    EXPECT_TRUE(exitShot.written());
    EXPECT_EQ(test::loadPng(dir / "exit.png").width, int(options.resolution.width));
    EXPECT_EQ(app->numberedScreenshots.size(), 1u);
}

} // namespace
} // namespace estuary
