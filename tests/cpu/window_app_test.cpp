// The desktop demo driven in-process: a real window (Xvfb in CI) opened by the library, the
// validation layer on, the CPU simulations, and input fed through estuary_inject_event, the path
// GLFW's callbacks take. What the field holds under the cursor is read back in the frame's own
// draw (estuary_frame_read_image), pictures with estuary_read_pixels. Skips, saying why, without a
// display.
#include "half_float.h"
#include "png.h"
#include "simulations.h"
#include "test_support.h"
#include "windowed.h"

#include <GLFW/glfw3.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
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

struct Point {
    float x, y;
};

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
            EXPECT_EQ(closeWindowRun(app), 0u) << "validation messages (printed above)";
        }
    }
    void open(const std::string& screenshotDir = {}) {
        app = openWindowRun(options, screenshotDir);
    }
    // Steps until `done` (checked after each step) or `limit` steps; returns whether done.
    bool stepUntil(const std::function<bool()>& done, int limit = 20) {
        for (int i = 0; i < limit; ++i) {
            if (!stepWindowRun(*app)) return false;
            if (done()) return true;
        }
        return false;
    }
    void steps(int n) {
        for (int i = 0; i < n; ++i)
            stepWindowRun(*app);
    }
    estuary_metrics metrics() const { return app->viewer.metrics(); }

    void inject(estuary_event_kind kind, int32_t code, int32_t action, double x = 0, double y = 0) {
        estuary_event e{};
        e.kind = kind;
        e.code = code;
        e.action = action;
        e.x = x;
        e.y = y;
        app->viewer.inject(e);
    }
    void moveTo(Point p) { inject(ESTUARY_EVENT_CURSOR, 0, 0, p.x, p.y); }
    void button(int code, bool press) { inject(ESTUARY_EVENT_BUTTON, code, press ? 1 : 0); }
    void pressKey(int glfwKey) {
        inject(ESTUARY_EVENT_KEY, glfwKey, 1);
        inject(ESTUARY_EVENT_KEY, glfwKey, 0);
    }
    // A click as a user makes it: move, press, release, each seen by a frame.
    void click(std::array<float, 2> p) {
        moveTo({p[0], p[1]});
        steps(1);
        button(0, true);
        steps(1);
        button(0, false);
        steps(1);
    }

    // The picture of the last frame (RGBA8), and its width for pixel().
    std::vector<uint8_t> capture() {
        const estuary_viewer_info info = app->viewer.info();
        captureWidth = info.width;
        std::vector<uint8_t> pixels(size_t(info.width) * info.height * 4);
        check(estuary_read_pixels(app->viewer.get(), pixels.data(), pixels.size()));
        return pixels;
    }
    const uint8_t* pixel(const std::vector<uint8_t>& rgba, Point p) const {
        return &rgba[(size_t(p.y) * captureWidth + size_t(p.x)) * 4];
    }

    // The channels of the shown image under window point `p` (moved there first), read in the
    // draw of the next frame; empty when the cursor is not over the field.
    std::vector<float> probeAt(Point p) {
        moveTo(p);
        const uint32_t shown = app->simulation->views[app->run->viewIndex()].image;
        const Image& image = app->run->image(shown);
        const estuary_image_info info = image.info();
        std::array<uint8_t, 16> texel{};
        bool over = false;
        estuary_input seen{};
        app->inspect = [&](const Frame& frame) {
            const estuary_input in = app->viewer.input();
            seen = in;
            over = in.over_field && !in.ui_wants_mouse;
            if (!over) return;
            const uint32_t x = uint32_t(std::lround(in.field_x));
            const uint32_t y = uint32_t(std::lround(in.field_y));
            frame.readImage(image, 0, x, y, 1, 1, texel.data());
        };
        steps(1);
        app->inspect = nullptr;
        app->viewer.finish();
        EXPECT_TRUE(over) << "not over the field at " << p.x << "," << p.y << " (over_field "
                          << seen.over_field << ", ui_wants_mouse " << seen.ui_wants_mouse << ")";
        if (!over) return {};
        std::vector<float> channels;
        if (info.format == ESTUARY_FORMAT_RGBA16_FLOAT) {
            for (int c = 0; c < 4; ++c) {
                uint16_t half = 0;
                std::memcpy(&half, texel.data() + 2 * c, 2);
                channels.push_back(sim::halfToFloat(half));
            }
        } else {
            channels.resize(info.texel_bytes / 4);
            std::memcpy(channels.data(), texel.data(), info.texel_bytes);
        }
        return channels;
    }
    float probe0(Point p) {
        const std::vector<float> c = probeAt(p);
        return c.empty() ? -1.0f : c[0];
    }

    Options options;
    std::unique_ptr<WindowRun> app;
    uint32_t captureWidth = 0;
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
    ASSERT_TRUE(stepUntil([&] { return metrics().frames_presented >= 120; }, 200));

    const VkExtent2D sizes[] = {{640, 480}, {1, 1},     {300, 200},  {801, 303}, {2, 777},
                                {1, 1},     {64, 64},   {1000, 700}, {333, 1},   {512, 384},
                                {7, 5},     {960, 540}, {1, 1},      {200, 600}, {599, 599},
                                {1, 2},     {450, 320}, {123, 456},  {1, 1},     {640, 400}};
    for (VkExtent2D size : sizes) {
        app->viewer.setWindowSize(size.width, size.height);
        const uint64_t before = metrics().frames_presented;
        estuary_viewer_info info{};
        EXPECT_TRUE(stepUntil([&] {
            info = app->viewer.info();
            return metrics().frames_presented > before && info.width == size.width &&
                   info.height == size.height;
        })) << "no frame presented at "
            << size.width << "x" << size.height << " (picture " << info.width << "x" << info.height
            << ")";
    }
    EXPECT_GE(metrics().swapchain_recreations, 20u);

    // Bare Xvfb has no window manager to iconify for, so the event comes as GLFW's callback
    // would send it.
    inject(ESTUARY_EVENT_ICONIFY, 0, 1);
    steps(1);
    const uint64_t presented = metrics().frames_presented;
    const uint64_t next = app->viewer.nextFrameIndex();
    const auto start = std::chrono::steady_clock::now();
    steps(5);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(metrics().frames_presented, presented) << "a minimized window must not present";
    EXPECT_EQ(app->viewer.nextFrameIndex(), next + 5) << "but the loop still gets its frames";
    EXPECT_GT(seconds, 0.1) << "paced (about 30 a second), not spinning";
    inject(ESTUARY_EVENT_ICONIFY, 0, 0);
    EXPECT_TRUE(stepUntil([&] { return metrics().frames_presented > presented + 3; }));

    const auto path = test::scratchDir("window-run") / "window.png";
    app->viewer.screenshot(path.string());
    const test::Rgba8Image png = test::loadPng(path);
    EXPECT_EQ(png.width, 640);
    EXPECT_EQ(png.height, 400);
    EXPECT_GT(test::countDistinctColors(png), 64u) << "screenshot is (nearly) uniform: " << path;
}

TEST_F(WindowTest, MouseDragPaintsTheFieldUnderTheStrokeAndTheScreenshotShowsIt) {
    open();
    steps(3);
    pressKey(GLFW_KEY_SPACE); // pause: only the brush changes the field
    steps(2);
    ASSERT_TRUE(app->paused);

    // A stroke across the lower right, clear of the panels (768x768 window, 6 px per cell).
    const Point from{400.0f, 700.0f}, to{740.0f, 640.0f};
    const Point onStroke[] = {{430.0f, 694.7f}, {570.0f, 670.0f}, {700.0f, 647.1f}};
    const Point offStroke{570.0f, 560.0f}; // ~17 cells away, radius 8
    float before[3];
    for (int i = 0; i < 3; ++i) {
        before[i] = probe0(onStroke[i]);
        ASSERT_LT(before[i], 0.4f) << "point " << i << " already has the brush's value";
    }
    const float offBefore = probe0(offStroke);
    const std::vector<uint8_t> shotBefore = capture();

    moveTo(from);
    steps(1); // ImGui learns the cursor is over the field, not a panel
    button(0, true);
    for (int i = 1; i <= 12; ++i) {
        const float t = float(i) / 12.0f;
        moveTo({from.x + t * (to.x - from.x), from.y + t * (to.y - from.y)});
        steps(1);
    }
    button(0, false);
    steps(1);

    for (int i = 0; i < 3; ++i) {
        const float after = probe0(onStroke[i]);
        // The brush sets v = 0.5 (stencil.h); paused, nothing diffuses it away.
        EXPECT_NEAR(after, 0.5f, 1e-3f) << "v before " << before[i] << " at point " << i;
    }
    EXPECT_FLOAT_EQ(probe0(offStroke), offBefore) << "the brush reached beyond its radius";

    const std::vector<uint8_t> shotAfter = capture();
    for (const Point& p : onStroke) {
        int diff = 0;
        for (int c = 0; c < 3; ++c)
            diff = std::max(diff,
                            std::abs(int(pixel(shotAfter, p)[c]) - int(pixel(shotBefore, p)[c])));
        EXPECT_GT(diff, 40) << "the picture does not show the stroke at " << p.x << "," << p.y;
    }
    const uint8_t* a = pixel(shotAfter, offStroke);
    const uint8_t* b = pixel(shotBefore, offStroke);
    for (int c = 0; c < 3; ++c)
        EXPECT_EQ(a[c], b[c]) << "away from the stroke the picture must not change";
}

TEST_F(WindowTest, PresetClickAndHotkeysDriveTheSimulation) {
    open();
    steps(2);
    const sim::SimDefinition& def = *app->simulation;
    const size_t maze = 3, F = size_t(sim::findParam(def, "F")),
                 k = size_t(sim::findParam(def, "k"));
    ASSERT_EQ(def.presets.at(maze).name, "maze");
    sim::ParamValues mazeValues = app->params;
    ASSERT_EQ(sim::applyPreset(def, def.presets[maze], mazeValues), "");
    ASSERT_NE(app->params[F], mazeValues[F]);
    ASSERT_EQ(app->presetButtonCentre.size(), def.presets.size());
    const std::array<float, 2> centre = app->presetButtonCentre[maze];
    ASSERT_GT(centre[0], 0.0f);

    // A click on a panel button: the preset is applied, and nothing is painted.
    moveTo({centre[0], centre[1]});
    steps(1);
    button(0, true);
    steps(1);
    EXPECT_FALSE(app->painting) << "a click on a panel must not paint";
    button(0, false);
    steps(2);
    EXPECT_EQ(app->params[F], mazeValues[F]);
    EXPECT_EQ(app->params[k], mazeValues[k]);

    pressKey(GLFW_KEY_H); // hide the UI so pictures show only the field
    pressKey(GLFW_KEY_SPACE);
    steps(2);
    ASSERT_TRUE(app->paused);
    const auto paused1 = capture();
    steps(3);
    const auto paused2 = capture();
    EXPECT_EQ(test::compareRgba8(paused1, paused2, 0).maxAbsDiff, 0) << "paused, yet it moved";
    moveTo({10.0f, 10.0f}); // where the hidden Simulation panel was: the field is there now
    steps(1);
    EXPECT_FALSE(app->viewer.input().ui_wants_mouse) << "H did not hide the panels";

    // Keys reach the app with the next frame's input; what they ask for is in the frame after.
    pressKey(GLFW_KEY_S);
    steps(2);
    const auto stepped = capture();
    EXPECT_GT(test::compareRgba8(paused2, stepped, 0).failingFraction, 0.0) << "S did not step";
    steps(1);
    const auto stillStepped = capture();
    EXPECT_EQ(test::compareRgba8(stepped, stillStepped, 0).maxAbsDiff, 0) << "S stepped twice";

    pressKey(GLFW_KEY_R);
    steps(2);
    const auto reset1 = capture();
    pressKey(GLFW_KEY_SPACE); // run a while, then reset again: the same seeded field comes back
    steps(5);
    pressKey(GLFW_KEY_SPACE);
    pressKey(GLFW_KEY_R);
    steps(2);
    const auto reset2 = capture();
    EXPECT_GT(test::compareRgba8(stepped, reset1, 0).failingFraction, 0.0);
    EXPECT_EQ(test::compareRgba8(reset1, reset2, 0).maxAbsDiff, 0) << "reset is not repeatable";

    // The grid-size request (the panel's "Apply grid size") swaps the shared images mid-run.
    app->requests.grid = Extent{96, 64};
    steps(3);
    EXPECT_EQ(app->grid.width, 96u);
    EXPECT_EQ(app->grid.height, 64u);
    EXPECT_EQ(app->run->image(0).info().width, 96u);
    EXPECT_EQ(app->gridEdit[0], 96);

    // The wheel over the field zooms about the cursor.
    moveTo({500.0f, 600.0f});
    steps(1);
    const float zoom = app->viewer.camera().zoom;
    inject(ESTUARY_EVENT_SCROLL, 0, 0, 0.0, 2.0);
    steps(1);
    EXPECT_GT(app->viewer.camera().zoom, zoom * 1.2f);

    pressKey(GLFW_KEY_ESCAPE);
    EXPECT_FALSE(stepWindowRun(*app));
}

TEST_F(WindowTest, SimulationSelectorSwitchesToWaveWhosePanelAndBrushFollowIt) {
    open();
    steps(2);
    ASSERT_EQ(app->simulation->name, "gray-scott");
    const auto grayScott = capture();
    size_t wave = 0;
    while (wave < simulations().size() && simulations()[wave].name != "wave")
        ++wave;
    ASSERT_LT(wave, simulations().size());
    // Open the selector and pick "wave", clicking as a user does.
    click(app->simulationSelectorCentre);
    steps(1); // a popup is laid out (and hidden) in its first frame; its entries settle in the next
    ASSERT_EQ(app->simulationEntryCentre.size(), simulations().size()) << "the list is not open";
    click(app->simulationEntryCentre[wave]);
    steps(2);
    ASSERT_EQ(app->simulation->name, "wave");
    EXPECT_EQ(app->params, sim::initialParams(simulations()[wave]));
    EXPECT_EQ(app->stepsPerFrame, simulations()[wave].stepsPerFrame);
    EXPECT_EQ(app->presetButtonCentre.size(), simulations()[wave].presets.size());
    EXPECT_GT(test::compareRgba8(grayScott, capture(), 0).failingFraction, 0.1)
        << "the picture did not change with the simulation";

    // Paused, a left click over the field drops water: the height under it rises by the bump's 1.
    pressKey(GLFW_KEY_SPACE);
    steps(2);
    const Point at{450.0f, 450.0f}; // the middle of the window, clear of the panels
    const float before = probe0(at);
    button(0, true);
    steps(1);
    button(0, false);
    steps(1);
    EXPECT_NEAR(probe0(at) - before, 1.0f, 0.05f) << "the click did not drop water";
}

TEST_F(WindowTest, FluidStrokePoursDyeViewsSwitchAndParticlesToggleWithoutValidationMessages) {
    options.simulation = "fluid";
    open();
    steps(2);
    const sim::SimDefinition& def = *app->simulation;
    ASSERT_EQ(def.name, "fluid");
    ASSERT_GT(app->run->particles(), 0u);
    EXPECT_TRUE(app->run->particlesShown()) << "the particles are drawn by default";

    // A preset through its button, as a user clicks it: the parameters become the preset's.
    const size_t calm = def.presets.size() - 1;
    sim::ParamValues want = app->params;
    ASSERT_EQ(sim::applyPreset(def, def.presets[calm], want), "");
    ASSERT_EQ(app->presetButtonCentre.size(), def.presets.size());
    click(app->presetButtonCentre[calm]);
    steps(1);
    EXPECT_EQ(app->params, want) << "preset " << def.presets[calm].name;

    pressKey(GLFW_KEY_SPACE); // paused: only the brush changes the fluid
    steps(2);
    ASSERT_TRUE(app->paused);
    const Point from{420.0f, 520.0f}, to{740.0f, 520.0f},
        middle{580.0f, 520.0f}; // clear of the panels
    const std::vector<float> dyeBefore = probeAt(middle);
    ASSERT_EQ(dyeBefore.size(), 4u) << "the default view shows the RGBA dye";
    const auto shotBefore = capture();
    moveTo(from);
    steps(1);
    button(0, true);
    for (int i = 1; i <= 10; ++i) {
        moveTo({from.x + float(i) / 10.0f * (to.x - from.x), from.y});
        steps(1);
    }
    button(0, false);
    steps(1);
    const std::vector<float> dyeAfter = probeAt(middle);
    ASSERT_EQ(dyeAfter.size(), 4u);
    float poured = 0.0f;
    for (uint32_t c = 0; c < 3; ++c)
        poured += std::fabs(dyeAfter[c] - dyeBefore[c]);
    EXPECT_GT(poured, 0.05f) << "the stroke poured no dye under the cursor";

    // V shows the next view (speed: the stroke pushed the fluid, so it shows); P hides the
    // particles.
    const auto withDye = capture();
    EXPECT_GT(test::compareRgba8(shotBefore, withDye, 0).failingFraction, 0.01);
    pressKey(GLFW_KEY_V);
    steps(2);
    EXPECT_EQ(app->run->viewIndex(), 1u);
    const std::vector<float> speed = probeAt(middle);
    ASSERT_EQ(speed.size(), 2u) << "the speed view shows the two-channel velocity";
    EXPECT_GT(std::hypot(speed[0], speed[1]), 0.0f) << "the stroke pushed";
    const auto withSpeed = capture();
    EXPECT_GT(test::compareRgba8(withDye, withSpeed, 0).failingFraction, 0.1);
    pressKey(GLFW_KEY_P);
    steps(2);
    EXPECT_FALSE(app->run->particlesShown());
    const auto withoutParticles = capture();
    EXPECT_GT(test::compareRgba8(withSpeed, withoutParticles, 0).failingFraction, 0.001)
        << "hiding the particles changed nothing";
}

TEST_F(WindowTest, F12WritesANewNumberedFileEachTimeAndNeverReplacesOne) {
    const auto dir = test::scratchDir("window-f12");
    std::ofstream(dir / "estuary-screenshot-000.png") << "someone else's file";
    open(dir.string());
    steps(2);
    for (int n = 1; n <= 2; ++n) {
        pressKey(GLFW_KEY_F12);
        char name[64];
        std::snprintf(name, sizeof(name), "estuary-screenshot-%03d.png", n);
        ASSERT_TRUE(stepUntil([&] { return std::filesystem::exists(dir / name); })) << name;
    }
    EXPECT_EQ(readFile(dir / "estuary-screenshot-000.png"), "someone else's file");
    for (const char* name : {"estuary-screenshot-001.png", "estuary-screenshot-002.png"})
        EXPECT_EQ(test::loadPng(dir / name).width, int(options.resolution.width)) << name;
    EXPECT_FALSE(std::filesystem::exists(dir / "estuary-screenshot-003.png"));
}

TEST_F(WindowTest, AFailedF12IsReportedAndTheRunGoesOn) {
    const auto dir = test::scratchDir("window-f12-fail") / "shots";
    std::filesystem::create_directories(dir);
    open(dir.string());
    steps(2);
    // Not a folder any more: the viewer checked it at the start.
    std::filesystem::remove_all(dir);
    std::ofstream(dir) << "a regular file where the folder was";
    testing::internal::CaptureStderr();
    pressKey(GLFW_KEY_F12);
    steps(2);
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("screenshot failed"), std::string::npos) << said;
    EXPECT_NE(said.find(dir.string()), std::string::npos) << said;
    const uint64_t presented = metrics().frames_presented;
    steps(5);
    EXPECT_EQ(metrics().frames_presented, presented + 5) << "frames must go on";
}

TEST_F(WindowTest, AScreenshotFolderThatIsNotOneIsRefusedBeforeTheWindowOpens) {
    const auto dir = test::scratchDir("window-f12-file");
    std::ofstream(dir / "file") << "a regular file where the folder should be";
    try {
        open((dir / "file").string());
        FAIL() << "a file was taken as the screenshot folder";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), ESTUARY_ERROR_INVALID_ARGUMENT);
        EXPECT_NE(std::string(e.what()).find("screenshot_dir"), std::string::npos) << e.what();
    }
}

TEST_F(WindowTest, TheScreenshotOptionIsWrittenWhenTheWindowRunEnds) {
    const auto dir = test::scratchDir("window-exit");
    options.screenshot = (dir / "exit.png").string();
    options.frames = 30;
    std::optional<OutputFile> shot = OutputFile::open(options.screenshot);
    EXPECT_EQ(runWindowed(options, shot), 0);
    EXPECT_TRUE(shot->written());
    EXPECT_EQ(test::loadPng(dir / "exit.png").width, int(options.resolution.width));
}

} // namespace
} // namespace estuary
