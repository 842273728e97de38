// The OpenGL consumer on Mesa (llvmpipe through EGL, beside lavapipe): the same Vulkan-exported
// images imported into OpenGL and drawn from the same shader sources must give the Vulkan
// renderer's picture; each draw must see its own frame; what Mesa lacks (GL_EXT_semaphore_fd) is
// an exit 3 naming it; the device check and the shader-source expansion are pure and tested
// directly.
#include "errors.h"
#include "gl_context.h"
#include "gl_field.h"
#include "options.h"
#include "simulation.h"
#include "simulations.h"
#include "stamped_run.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace estuary {
namespace {

using test::runEstuary;

// Both consumers on the CPU backend over the same frames: every simulation, every view, a
// letterboxed target and a zoomed, panned one.
// The OpenGL consumer draws no annotations: the Vulkan runs compared with it leave out the axes.
TEST(AppOpenGl, OpenGlDrawsTheVulkanRenderersPictureForEverySimulationAndView) {
    for (const sim::SimDefinition& def : simulations())
        for (const sim::Visual& view : def.views) {
            if (def.dimensions == 3) continue; // the OpenGL consumer draws 2D fields
            SCOPED_TRACE(def.name + " / " + view.name);
            const auto dir = test::scratchDir("opengl-" + def.name + "-" + view.name);
            const std::string common = "--sim " + def.name + " --view " + view.name +
                                       " --headless --backend cpu --validate --frames 12 "
                                       "--size 96x64 --resolution 200x150 --seed 4 --axes off " +
                                       (def.particles.max ? "--particles 0 " : "");
            const auto vk = runEstuary(common + "--screenshot '" + (dir / "vk.png").string() + "'");
            ASSERT_EQ(vk.exitCode, 0) << vk.output;
            const auto gl = runEstuary(common + "--consumer opengl --screenshot '" +
                                       (dir / "gl.png").string() + "'");
            ASSERT_EQ(gl.exitCode, 0) << gl.output;
            EXPECT_NE(gl.output.find("drawn by OpenGL"), std::string::npos) << gl.output;
            EXPECT_NE(gl.output.find("hand-off host"), std::string::npos) << gl.output;
            // llvmpipe has no GL_EXT_semaphore_fd: the release, then the host's wait.
            EXPECT_NE(gl.output.find("host-written images released to the external queue "
                                     "family, their uploads waited for by the host"),
                      std::string::npos)
                << gl.output;
            EXPECT_NE(gl.output.find("validation layer reported 0 message"), std::string::npos)
                << gl.output;
            EXPECT_NE(gl.output.find("OpenGL debug output reported 0 error"), std::string::npos)
                << gl.output;
            const test::Rgba8Image a = test::loadPng(dir / "gl.png");
            const test::Rgba8Image b = test::loadPng(dir / "vk.png");
            ASSERT_EQ(a.width, b.width);
            ASSERT_EQ(a.height, b.height);
            EXPECT_GT(test::countDistinctColors(a), 16u) << "the OpenGL picture is (nearly) flat";
            test::expectSamePictureInBothApis(a.pixels, b.pixels, def.name + "/" + view.name);
        }
}

TEST(AppOpenGl, TallGridIntoAWideTargetLetterboxesTheSameInBothApis) {
    // The letterbox bars and the field's placement come from field_common.glsl in both APIs; a
    // framebuffer-origin or row-order mistake on the OpenGL side would flip or shift the picture.
    const auto dir = test::scratchDir("opengl-letterbox");
    const std::string common = "--headless --backend cpu --frames 8 --size 40x120 "
                               "--resolution 300x100 --colormap magma --axes off ";
    ASSERT_EQ(runEstuary(common + "--screenshot '" + (dir / "vk.png").string() + "'").exitCode, 0);
    ASSERT_EQ(
        runEstuary(common + "--consumer opengl --screenshot '" + (dir / "gl.png").string() + "'")
            .exitCode,
        0);
    const test::Rgba8Image a = test::loadPng(dir / "gl.png"), b = test::loadPng(dir / "vk.png");
    test::expectSamePictureInBothApis(a.pixels, b.pixels, "letterboxed");
}

TEST(AppOpenGl, EveryOpenGlDrawSamplesItsOwnFrameThroughTheHostHandoff) {
    for (const sim::SimDefinition& def : simulations())
        for (uint32_t inFlight : {1u, 2u, 3u}) {
            if (def.dimensions == 3) continue; // the OpenGL consumer draws 2D fields
            SCOPED_TRACE(def.name + ", frames in flight " + std::to_string(inFlight));
            Options o;
            o.simulation = def.name;
            o.backend = Backend::Cpu;
            o.grid = {48, 32};
            o.stepsPerFrame = 1;
            o.framesInFlight = inFlight;
            o.consumer = Consumer::OpenGL;
            if (def.particles.max > 0) o.particles = 0;
            const test::StampedRun run = test::runStampedFrames(o, 24);
            EXPECT_EQ(run.validationMessages, 0u);
            ASSERT_EQ(run.seenBefore.size(), 24u);
            ASSERT_EQ(run.seenAfter.size(), 24u);
            EXPECT_EQ(run.wrongFrames(), 0u) << "OpenGL draws that saw another frame's image";
        }
}

// Mesa's llvmpipe has no GL_EXT_semaphore_fd: asking for a GPU-side hand-off is exit 3 naming
// the missing extension. (A driver that has it still refuses them with the CPU backend, which has
// no GPU producer: also exit 3, saying so.)
TEST(AppOpenGl, GpuHandoffsWhereOpenGlCannotDoThemExitWith3NamingWhy) {
    for (const char* handoff : {"timeline", "binary"}) {
        SCOPED_TRACE(handoff);
        const auto r = runEstuary(std::string("--headless --backend cpu --frames 2 --consumer "
                                              "opengl --screenshot /dev/null --gl-handoff ") +
                                  handoff);
        EXPECT_EQ(r.exitCode, 3) << r.output;
        EXPECT_NE(r.output.find(std::string("gl_handoff ") + handoff), std::string::npos)
            << r.output;
        const bool namesExtension =
            r.output.find("lacks GL_EXT_semaphore_fd") != std::string::npos ||
            r.output.find("lacks GL_NV_timeline_semaphore") != std::string::npos;
        const bool namesBackend = r.output.find("needs the CUDA backend") != std::string::npos;
        EXPECT_TRUE(namesExtension || namesBackend) << r.output;
    }
}

TEST(AppOpenGl, GlHandoffWithoutTheOpenGlConsumerAndUnknownValuesAreUsageErrors) {
    const auto without = runEstuary("--headless --gl-handoff host");
    EXPECT_EQ(without.exitCode, 2);
    EXPECT_NE(without.output.find("add --consumer opengl"), std::string::npos) << without.output;
    const auto badConsumer = runEstuary("--headless --consumer metal");
    EXPECT_EQ(badConsumer.exitCode, 2);
    EXPECT_NE(badConsumer.output.find("--consumer"), std::string::npos) << badConsumer.output;
    const auto badHandoff = runEstuary("--headless --consumer opengl --gl-handoff fence");
    EXPECT_EQ(badHandoff.exitCode, 2);
    EXPECT_NE(badHandoff.output.find("--gl-handoff"), std::string::npos) << badHandoff.output;
    const auto bench = runEstuary("--bench --gl-handoff binary");
    EXPECT_EQ(bench.exitCode, 2);
}

// The window (GLFW OpenGL context under Xvfb): its picture is the Vulkan window's without the UI.
TEST(AppOpenGl, TheOpenGlWindowShowsWhatTheVulkanWindowShows) {
    if (!std::getenv("DISPLAY")) GTEST_SKIP() << "no display (the test suite runs under xvfb-run)";
    const auto dir = test::scratchDir("opengl-window");
    const std::string common = "--backend cpu --validate --frames 30 --size 128x128 "
                               "--resolution 320x240 --seed 2 --axes off ";
    const auto vk = runEstuary(common + "--no-ui --screenshot '" + (dir / "vk.png").string() + "'");
    ASSERT_EQ(vk.exitCode, 0) << vk.output;
    const auto gl =
        runEstuary(common + "--consumer opengl --screenshot '" + (dir / "gl.png").string() + "'");
    ASSERT_EQ(gl.exitCode, 0) << gl.output;
    EXPECT_NE(gl.output.find("GLFW window"), std::string::npos) << gl.output;
    EXPECT_NE(gl.output.find("30 frames drawn by OpenGL in the window"), std::string::npos)
        << gl.output;
    EXPECT_NE(gl.output.find("OpenGL debug output reported 0 error"), std::string::npos);
    const test::Rgba8Image a = test::loadPng(dir / "gl.png"), b = test::loadPng(dir / "vk.png");
    ASSERT_EQ(a.width, b.width);
    ASSERT_EQ(a.height, b.height);
    // RGB only: the window's alpha is whatever the visual keeps.
    size_t differing = 0;
    for (size_t p = 0; p < a.pixels.size(); p += 4)
        for (size_t c = 0; c < 3; ++c)
            differing += std::abs(int(a.pixels[p + c]) - int(b.pixels[p + c])) > 2;
    EXPECT_LE(double(differing) / double(a.pixels.size() / 4), 0.001);
    EXPECT_GT(test::countDistinctColors(a), 16u);
}

GlInfo infoWith(GlUuid device, GlUuid driver) {
    GlInfo info;
    info.memoryObjectFd = true;
    info.deviceUuids = {device};
    info.driverUuid = driver;
    return info;
}

TEST(GlDeviceCheck, ImportsOnlyOnTheSameDeviceAndDriverAndNamesBothUuidsOtherwise) {
    const GlUuid a{1, 2, 3}, b{9, 9, 9}, driver{7}, otherDriver{8};
    EXPECT_EQ(glDeviceMismatch(infoWith(a, driver), a, driver), "");
    const std::string device = glDeviceMismatch(infoWith(b, driver), a, driver);
    EXPECT_NE(device.find("another device"), std::string::npos) << device;
    EXPECT_NE(device.find("090909"), std::string::npos) << device; // GL's
    EXPECT_NE(device.find("010203"), std::string::npos) << device; // Vulkan's
    const std::string drivers = glDeviceMismatch(infoWith(a, otherDriver), a, driver);
    EXPECT_NE(drivers.find("different drivers"), std::string::npos) << drivers;
    GlInfo noImport = infoWith(a, driver);
    noImport.memoryObjectFd = false;
    EXPECT_NE(glDeviceMismatch(noImport, a, driver).find("GL_EXT_memory_object_fd"),
              std::string::npos);
    GlInfo several = infoWith(b, driver);
    several.deviceUuids.push_back(a); // a device group: any of its devices will do
    EXPECT_EQ(glDeviceMismatch(several, a, driver), "");
}

TEST(GlslSource, IncludesAreInlinedOnceDefinesFollowTheVersionAndTheIncludeExtensionGoes) {
    const auto dir = test::scratchDir("glsl-expand");
    std::ofstream(dir / "main.frag") << "#version 450\n"
                                        "#extension GL_GOOGLE_include_directive : require\n"
                                        "#include \"a.glsl\"\n"
                                        "  #include \"a.glsl\"\n"
                                        "void main() {}\n";
    std::ofstream(dir / "a.glsl") << "#include \"b.h\"\nfloat a;\n";
    std::ofstream(dir / "b.h") << "#define B 1\n";
    const std::string out = expandGlslSource(dir / "main.frag", {"X 2", "Y 3"});
    EXPECT_EQ(out, "#version 450\n#define X 2\n#define Y 3\n\n#define B 1\n\nfloat a;\n\n\n"
                   "void main() {}\n");
    EXPECT_THROW(expandGlslSource(dir / "missing.frag", {}), Error);
    std::ofstream(dir / "bad.frag") << "#version 450\n#include \"nowhere.glsl\"\n";
    try {
        (void)expandGlslSource(dir / "bad.frag", {});
        ADD_FAILURE() << "a missing include must throw";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("nowhere.glsl"), std::string::npos) << e.what();
    }
}

TEST(GlslSource, EveryShippedFieldShaderExpandsForOpenGlWithoutTheVulkanOnlyDeclarations) {
    for (const sim::SimDefinition& def : simulations())
        for (const sim::Visual& view : def.views) {
            if (def.dimensions == 3) continue; // volume shaders are Vulkan's only
            SCOPED_TRACE(view.fragmentShader);
            const std::string text =
                expandGlslSource(test::binDir() / "shaders" / "glsl" / view.fragmentShader,
                                 {"ESTUARY_GL_SHADING 0"});
            EXPECT_EQ(text.find("#include"), std::string::npos);
            EXPECT_NE(text.find("ESTUARY_GL_SHADING"), std::string::npos);
            EXPECT_NE(text.find("origin_upper_left"), std::string::npos);
        }
}

} // namespace
} // namespace estuary
