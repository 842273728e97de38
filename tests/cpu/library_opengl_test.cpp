// The library's OpenGL consumer (ESTUARY_CONSUMER_OPENGL) on Mesa (llvmpipe through EGL, beside
// lavapipe), one test per row of docs/OPENGL.md: what it draws, reads and hands over gives the
// Vulkan consumer's results, and what it cannot do is refused up front with
// ESTUARY_ERROR_UNSUPPORTED naming the combination. The OpenGL side's mip builder (used for
// CUDA-written images, whose GPU test is tests/gpu/opengl_mips_gpu_test.cu) is checked here on
// its own against the levels Vulkan's blits make. Validation and GL debug output on: any message
// fails.
#include "estuary/estuary.hpp"

#include "context.h" // createInstance, pickDefaultPhysicalDevice (the device the viewer picks)
#include "gl_context.h"
#include "gl_interop.h"
#include "half_float.h"
#include "library_support.h" // failure, EXPECT_REFUSED
#include "test_support.h"

#include <epoxy/gl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace estuary {
namespace {

// The library tests' headless viewer, drawn by `consumer`.
ViewerDesc viewerDesc(estuary_consumer consumer, uint32_t width = 96, uint32_t height = 64,
                      uint32_t framesInFlight = 2) {
    ViewerDesc d = headless(framesInFlight, width, height);
    d.consumer = consumer;
    return d;
}

estuary_image_desc hostImage(estuary_format format, uint32_t width, uint32_t height,
                             uint32_t flags = 0, estuary_image_kind kind = ESTUARY_IMAGE_2D) {
    return {.format = format,
            .kind = kind,
            .width = width,
            .height = height,
            .writer = ESTUARY_WRITER_HOST,
            .flags = flags,
            .name = "field"};
}

estuary_field_view_desc fieldOf(const Image& image, uint32_t flags = ESTUARY_VIEW_NO_COLORBAR) {
    estuary_field_view_desc d{};
    d.image = image.get();
    d.flags = flags;
    return d;
}

std::vector<uint8_t> readPicture(const Viewer& v) {
    const estuary_viewer_info info = v.info();
    std::vector<uint8_t> rgba(size_t(info.width) * info.height * 4);
    check(estuary_read_pixels(v.get(), rgba.data(), rgba.size()));
    return rgba;
}

// The same scene drawn by a fresh viewer of `consumer`: `scene` makes images and views and runs
// its frames; the picture is read after them. The viewer must end without a validation message
// (nor, for OpenGL, a GL debug error).
using Scene = std::function<void(Viewer&)>;
std::vector<uint8_t> drawWith(estuary_consumer consumer, const Scene& scene, uint32_t width = 96,
                              uint32_t height = 64, uint32_t framesInFlight = 2) {
    Viewer v(viewerDesc(consumer, width, height, framesInFlight));
    EXPECT_EQ(v.info().consumer, consumer);
    scene(v);
    v.finish();
    std::vector<uint8_t> rgba = readPicture(v);
    EXPECT_EQ(v.close(), 0u) << "validation messages or GL debug errors (printed above)";
    return rgba;
}

void expectSamePicture(const Scene& scene, const std::string& what, uint32_t width = 96,
                       uint32_t height = 64) {
    const std::vector<uint8_t> gl = drawWith(ESTUARY_CONSUMER_OPENGL, scene, width, height);
    const std::vector<uint8_t> vk = drawWith(ESTUARY_CONSUMER_VULKAN, scene, width, height);
    ASSERT_EQ(gl.size(), vk.size());
    test::expectSamePictureInBothApis(gl, vk, what);
}

double meanRgb(const std::vector<uint8_t>& rgba) {
    double sum = 0.0;
    for (size_t p = 0; p < rgba.size(); p += 4)
        sum += double(rgba[p]) + rgba[p + 1] + rgba[p + 2];
    return sum / double(rgba.size() / 4 * 3);
}

// Level 0 of the mip tests: a gradient under a one-texel checkerboard. Its 2x2 means (every
// level above 0) lose the checkerboard and keep the gradient; levels left unwritten (0) would
// draw the colormap's first colour.
float gradientChecker(uint32_t x, uint32_t y, uint32_t width) {
    return 0.1f + 0.6f * float(x) / float(width - 1) + (((x ^ y) & 1u) ? 0.3f : 0.0f);
}

// ---- GENERATE_MIPS ----------------------------------------------------------------------------

// The case with a host writer: a 2048² field with ESTUARY_IMAGE_GENERATE_MIPS drawn into
// 256² (level 3 sampled). Tolerance: the pictures' mean RGB within 1 of 255, and the pictures
// the same within expectSamePictureInBothApis' bounds (2 per channel on all but 0.1% of pixels).
TEST(LibraryOpenGl, HostWrittenGeneratedMipsDrawA2048FieldIn256PixelsAsVulkanDoes) {
    constexpr uint32_t kSide = 2048;
    const Scene scene = [](Viewer& v) {
        Image image =
            v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, kSide, kSide, ESTUARY_IMAGE_GENERATE_MIPS));
        [[maybe_unused]] View field = v.fieldView(fieldOf(image));
        for (int f = 0; f < 2; ++f) {
            const Frame frame = v.beginFrame();
            float* texels = frame.hostLevel<float>(image);
            for (uint32_t y = 0; y < kSide; ++y)
                for (uint32_t x = 0; x < kSide; ++x)
                    texels[size_t(y) * kSide + x] = gradientChecker(x, y, kSide);
            frame.end();
        }
    };
    const std::vector<uint8_t> gl = drawWith(ESTUARY_CONSUMER_OPENGL, scene, 256, 256);
    const std::vector<uint8_t> vk = drawWith(ESTUARY_CONSUMER_VULKAN, scene, 256, 256);
    const double glMean = meanRgb(gl), vkMean = meanRgb(vk);
    std::printf("2048^2 field in 256^2: mean RGB OpenGL %.2f, Vulkan %.2f\n", glMean, vkMean);
    EXPECT_NEAR(glMean, vkMean, 1.0);
    EXPECT_GT(glMean, 60.0) << "not the colormap's first colour (levels 1.. unwritten)";
    test::expectSamePictureInBothApis(gl, vk, "2048^2 with generated mips into 256^2");
}

// Every generated level of a host-written image, odd sizes included, read back through the
// OpenGL consumer (estuary_frame_read_image, before and after the draw) is what the Vulkan
// consumer reads: the levels are built by the same Vulkan blits before GL gets the image.
TEST(LibraryOpenGl, HostWrittenGeneratedLevelsReadBackAsInVulkan) {
    constexpr uint32_t kWidth = 37, kHeight = 21;
    const auto levelsWith = [&](estuary_consumer consumer, uint32_t flags) {
        Viewer v(viewerDesc(consumer));
        Image image = v.image(
            hostImage(ESTUARY_FORMAT_R32_FLOAT, kWidth, kHeight, ESTUARY_IMAGE_GENERATE_MIPS));
        [[maybe_unused]] View field = v.fieldView(fieldOf(image));
        const uint32_t levels = image.info().levels;
        std::vector<std::vector<float>> read(levels);
        const Frame frame = v.beginFrame();
        float* texels = frame.hostLevel<float>(image);
        for (uint32_t y = 0; y < kHeight; ++y)
            for (uint32_t x = 0; x < kWidth; ++x)
                texels[y * kWidth + x] = gradientChecker(x, y, kWidth) + 0.01f * float(y);
        for (uint32_t level = 0; level < levels; ++level) {
            const uint32_t w = std::max(1u, kWidth >> level), h = std::max(1u, kHeight >> level);
            read[level].assign(size_t(w) * h, -1.0f);
            frame.readImage(image, level, 0, 0, w, h, read[level].data(), flags);
        }
        frame.end();
        v.finish();
        EXPECT_EQ(v.close(), 0u);
        return read;
    };
    for (uint32_t flags : {0u, uint32_t(ESTUARY_READ_AFTER_DRAW)}) {
        SCOPED_TRACE(flags ? "after the draw" : "before the draw");
        const auto gl = levelsWith(ESTUARY_CONSUMER_OPENGL, flags);
        const auto vk = levelsWith(ESTUARY_CONSUMER_VULKAN, flags);
        ASSERT_EQ(gl.size(), vk.size());
        ASSERT_EQ(gl.size(), 6u); // 37x21 .. 1x1
        for (size_t level = 0; level < gl.size(); ++level)
            EXPECT_EQ(gl[level], vk[level]) << "level " << level;
        // Level 1 at an even corner is the 2x2 mean (Vulkan's linear blit of even sizes).
        const auto t = [&](uint32_t x, uint32_t y) { return gl[0][y * kWidth + x]; };
        EXPECT_NEAR(gl[1][0], 0.25f * (t(0, 0) + t(1, 0) + t(0, 1) + t(1, 1)), 0.02f);
        EXPECT_GT(gl[gl.size() - 1][0], 0.2f) << "the last level was written";
    }
}

// The OpenGL side's own mip builder, which builds the levels of CUDA-written images after GL's
// wait for CUDA: each level a linear blit of the one above, as Vulkan's vkCmdBlitImage. Even
// sizes give the exact 2x2 means; odd sizes the weights Vulkan's blits give (the Vulkan
// consumer's levels of the same level 0 are the reference), within 1e-5.
TEST(LibraryOpenGl, OpenGlMipBlitsBuildTheLevelsVulkansBlitsBuild) {
    for (const auto& [width, height] : {std::pair{64u, 32u}, std::pair{37u, 21u}}) {
        SCOPED_TRACE(std::to_string(width) + "x" + std::to_string(height));
        std::vector<float> level0(size_t(width) * height);
        for (uint32_t y = 0; y < height; ++y)
            for (uint32_t x = 0; x < width; ++x)
                level0[y * width + x] = gradientChecker(x, y, width) + 0.02f * float(y % 5);
        // Vulkan's levels, through the library.
        std::vector<std::vector<float>> vk;
        {
            Viewer v(viewerDesc(ESTUARY_CONSUMER_VULKAN));
            Image image = v.image(
                hostImage(ESTUARY_FORMAT_R32_FLOAT, width, height, ESTUARY_IMAGE_GENERATE_MIPS));
            const uint32_t levels = image.info().levels;
            vk.resize(levels);
            const Frame frame = v.beginFrame();
            std::memcpy(frame.hostLevel(image), level0.data(), level0.size() * sizeof(float));
            for (uint32_t level = 0; level < levels; ++level) {
                const uint32_t w = std::max(1u, width >> level), h = std::max(1u, height >> level);
                vk[level].assign(size_t(w) * h, -1.0f);
                frame.readImage(image, level, 0, 0, w, h, vk[level].data());
            }
            frame.end();
            v.finish();
            EXPECT_EQ(v.close(), 0u);
        }
        // OpenGL's, on the same device's GL (the context the consumer would make).
        Instance instance = createInstance({});
        const PhysicalDeviceInfo physical = pickDefaultPhysicalDevice(instance.handle);
        GlContext context = createHeadlessGlContext(physical.uuid, physical.driverUuid, true);
        destroyInstance(instance);
        GlImage image;
        image.extent = {width, height};
        image.levels = uint32_t(vk.size());
        glCreateTextures(GL_TEXTURE_2D, 1, &image.texture);
        glTextureStorage2D(image.texture, GLsizei(image.levels), GL_R32F, GLsizei(width),
                           GLsizei(height));
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTextureSubImage2D(image.texture, 0, 0, 0, GLsizei(width), GLsizei(height), GL_RED,
                            GL_FLOAT, level0.data());
        prepareGlMips(image, "mip test");
        EXPECT_EQ(image.levelFramebuffers.size(), image.levels);
        generateGlMips(image);
        std::vector<std::vector<float>> gl(image.levels);
        for (uint32_t level = 0; level < image.levels; ++level) {
            const uint32_t w = std::max(1u, width >> level), h = std::max(1u, height >> level);
            gl[level].assign(size_t(w) * h, -1.0f);
            readGlTexels(image, VK_FORMAT_R32_SFLOAT, level, 0, 0, w, h, gl[level].data(),
                         gl[level].size() * sizeof(float));
        }
        throwIfGlError("the mip test");
        destroyGlImage(image);
        EXPECT_EQ(glDebugMessageCount(context), 0u);
        destroyGlContext(context);
        for (size_t level = 1; level < gl.size(); ++level) {
            float worst = 0.0f;
            for (size_t i = 0; i < gl[level].size(); ++i)
                worst = std::max(worst, std::abs(gl[level][i] - vk[level][i]));
            EXPECT_LE(worst, 1e-5f) << "level " << level << ": OpenGL's blit vs Vulkan's";
        }
        if (width % 2 == 0 && height % 2 == 0) {
            const uint32_t w1 = width / 2;
            for (uint32_t y = 0; y < height / 2; ++y)
                for (uint32_t x = 0; x < w1; ++x) {
                    const auto t = [&](uint32_t dx, uint32_t dy) {
                        return level0[(2 * y + dy) * width + 2 * x + dx];
                    };
                    ASSERT_NEAR(gl[1][y * w1 + x], 0.25f * (t(0, 0) + t(1, 0) + t(0, 1) + t(1, 1)),
                                1e-6f)
                        << x << "," << y;
                }
        }
    }
}

// ---- formats, shading, view parameters, shaders -----------------------------------------------

// Each format with the shading that fits it (scalar, magnitude, RGB), drawn by both consumers.
TEST(LibraryOpenGl, EveryFormatAndShadingDrawsTheVulkanPicture) {
    struct Case {
        estuary_format format;
        estuary_field_shading shading;
        const char* name;
    };
    for (const Case c : {Case{ESTUARY_FORMAT_R32_FLOAT, ESTUARY_FIELD_SCALAR, "R32 scalar"},
                         Case{ESTUARY_FORMAT_RG32_FLOAT, ESTUARY_FIELD_MAGNITUDE, "RG32 magnitude"},
                         Case{ESTUARY_FORMAT_RGBA32_FLOAT, ESTUARY_FIELD_RGB, "RGBA32 rgb"},
                         Case{ESTUARY_FORMAT_RGBA16_FLOAT, ESTUARY_FIELD_RGB, "RGBA16 rgb"},
                         Case{ESTUARY_FORMAT_RGBA8_UNORM, ESTUARY_FIELD_RGB, "RGBA8 rgb"}}) {
        SCOPED_TRACE(c.name);
        constexpr uint32_t kW = 24, kH = 16;
        const Scene scene = [&](Viewer& v) {
            Image image = v.image(hostImage(c.format, kW, kH, ESTUARY_IMAGE_GENERATE_MIPS));
            estuary_field_view_desc d = fieldOf(image);
            d.shading = c.shading;
            [[maybe_unused]] View field = v.fieldView(d);
            const Frame frame = v.beginFrame();
            auto* bytes = static_cast<uint8_t*>(frame.hostLevel(image));
            const uint32_t texel = image.info().texel_bytes;
            const uint32_t channelBytes = c.format == ESTUARY_FORMAT_RGBA8_UNORM    ? 1
                                          : c.format == ESTUARY_FORMAT_RGBA16_FLOAT ? 2
                                                                                    : 4;
            for (uint32_t y = 0; y < kH; ++y)
                for (uint32_t x = 0; x < kW; ++x) {
                    const float channels[4] = {float(x) / kW, float(y) / kH,
                                               float((x * 7 + y) % 11) / 11.0f, 1.0f};
                    uint8_t* t = bytes + (size_t(y) * kW + x) * texel;
                    for (uint32_t i = 0; i < texel / channelBytes; ++i)
                        if (channelBytes == 1) {
                            t[i] = uint8_t(std::lround(channels[i] * 255.0f));
                        } else if (channelBytes == 2) {
                            const uint16_t half = sim::floatToHalf(channels[i]);
                            std::memcpy(t + 2 * i, &half, 2);
                        } else {
                            std::memcpy(t + 4 * i, &channels[i], 4);
                        }
                }
            frame.end();
        };
        expectSamePicture(scene, c.name);
    }
}

// The colormap, the value range, mip_bias, the 2D camera's zoom and pan, the background and a
// hidden view: several field views, of which the last visible one is the picture (a field covers
// the picture), as in Vulkan.
TEST(LibraryOpenGl, ViewParamsCameraBackgroundAndSeveralFieldsDrawAsInVulkan) {
    const Scene scene = [](Viewer& v) {
        Image a = v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 64, 32, ESTUARY_IMAGE_GENERATE_MIPS));
        Image b = v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 16, 48));
        View first = v.fieldView(fieldOf(a));
        [[maybe_unused]] View hidden =
            v.fieldView(fieldOf(b, ESTUARY_VIEW_NO_COLORBAR | ESTUARY_VIEW_HIDDEN));
        estuary_view_params p{};
        check(estuary_get_view_params(first.get(), &p));
        p.colormap = ESTUARY_COLORMAP_MAGMA;
        p.value_min = 0.2f;
        p.value_max = 0.9f;
        p.mip_bias = 1.5f;
        check(estuary_set_view_params(first.get(), &p));
        estuary_camera camera{};
        check(estuary_get_camera(v.get(), &camera));
        camera.zoom = 1.7f;
        camera.pan_x = 0.12f;
        camera.pan_y = -0.08f;
        check(estuary_set_camera(v.get(), &camera));
        v.setBackground(0.3f, 0.1f, 0.6f);
        for (int f = 0; f < 2; ++f) {
            const Frame frame = v.beginFrame();
            float* ta = frame.hostLevel<float>(a);
            for (uint32_t i = 0; i < 64 * 32; ++i)
                ta[i] = gradientChecker(i % 64, i / 64, 64);
            std::fill_n(frame.hostLevel<float>(b), 16 * 48, 1.0f);
            frame.end();
        }
    };
    expectSamePicture(scene, "view params, camera, background, hidden field", 120, 80);
}

// A view's own fragment shader: estuary's shipped ones by name (field_relief.frag) draw as in
// Vulkan; one given only as SPIR-V (no GLSL source at the path without ".spv") is refused with
// ESTUARY_ERROR_UNSUPPORTED naming the path, where Vulkan takes it.
TEST(LibraryOpenGl, ShippedShadersDrawAsInVulkanAndSpirvOnlyShadersAreRefused) {
    const Scene relief = [](Viewer& v) {
        Image image = v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 48, 32));
        estuary_field_view_desc d = fieldOf(image);
        d.shader = "field_relief.frag";
        [[maybe_unused]] View field = v.fieldView(d);
        const Frame frame = v.beginFrame();
        float* t = frame.hostLevel<float>(image);
        for (uint32_t i = 0; i < 48 * 32; ++i)
            t[i] = 0.5f + 0.4f * std::sin(0.3f * float(i % 48)) * std::cos(0.2f * float(i / 48));
        frame.end();
    };
    expectSamePicture(relief, "field_relief.frag");

    const auto dir = test::scratchDir("opengl-spirv-only");
    std::filesystem::copy_file(test::binDir() / "shaders" / "field.frag.spv", dir / "mine.frag.spv",
                               std::filesystem::copy_options::overwrite_existing);
    const std::string mine = (dir / "mine.frag").string();
    for (estuary_consumer consumer : {ESTUARY_CONSUMER_VULKAN, ESTUARY_CONSUMER_OPENGL}) {
        Viewer v(viewerDesc(consumer));
        Image image = v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 8, 8));
        estuary_field_view_desc d = fieldOf(image);
        d.shader = mine.c_str();
        if (consumer == ESTUARY_CONSUMER_VULKAN) {
            [[maybe_unused]] View field = v.fieldView(d);
        } else {
            EXPECT_REFUSED(v.fieldView(d), ESTUARY_ERROR_UNSUPPORTED, "OpenGL", "GLSL",
                           mine.c_str());
        }
        EXPECT_EQ(v.close(), 0u);
    }
}

// ---- what is refused --------------------------------------------------------------------------

// Field views only: every other kind is ESTUARY_ERROR_UNSUPPORTED naming the consumer, for
// descriptions Vulkan takes.
TEST(LibraryOpenGl, OnlyFieldViewsAreDrawnEveryOtherKindIsRefusedNamingTheConsumer) {
    for (estuary_consumer consumer : {ESTUARY_CONSUMER_VULKAN, ESTUARY_CONSUMER_OPENGL}) {
        SCOPED_TRACE(consumer == ESTUARY_CONSUMER_OPENGL ? "OpenGL" : "Vulkan");
        Viewer v(viewerDesc(consumer));
        Image volume = v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 8, 8, 0, ESTUARY_IMAGE_3D));
        Image velocity = v.image(hostImage(ESTUARY_FORMAT_RG32_FLOAT, 8, 8));
        estuary_buffer_desc bd{};
        bd.size = 64 * 32;
        bd.writer = ESTUARY_WRITER_HOST;
        bd.name = "elements";
        Buffer buffer = v.buffer(bd);
        estuary_volume_view_desc vol{};
        vol.image = volume.get();
        estuary_points_view_desc points{};
        points.buffer = buffer.get();
        estuary_markers_view_desc markers{};
        markers.buffer = buffer.get();
        estuary_lines_view_desc lines{};
        lines.vertices = buffer.get();
        estuary_glyph_view_desc glyphs{};
        glyphs.image = velocity.get();
        estuary_mesh_view_desc mesh{};
        mesh.vertices = buffer.get();
        estuary_text_view_desc text{};
        text.text = "text";
        const char* strings[] = {"label"};
        estuary_labels_view_desc labels{};
        labels.buffer = buffer.get();
        labels.strings = strings;
        labels.string_count = 1;
        const std::vector<std::pair<const char*, std::function<void()>>> adds = {
            {"estuary_add_volume_view", [&] { (void)v.volumeView(vol); }},
            {"estuary_add_points_view", [&] { (void)v.pointsView(points); }},
            {"estuary_add_markers_view", [&] { (void)v.markersView(markers); }},
            {"estuary_add_lines_view", [&] { (void)v.linesView(lines); }},
            {"estuary_add_glyph_view", [&] { (void)v.glyphView(glyphs); }},
            {"estuary_add_mesh_view", [&] { (void)v.meshView(mesh); }},
            {"estuary_add_text_view", [&] { (void)v.textView(text); }},
            {"estuary_add_labels_view", [&] { (void)v.labelsView(labels); }},
        };
        for (const auto& [name, add] : adds) {
            SCOPED_TRACE(name);
            if (consumer == ESTUARY_CONSUMER_VULKAN) {
                const auto [status, message] = failure(add);
                EXPECT_EQ(status, ESTUARY_OK) << message;
            } else {
                EXPECT_REFUSED(add(), ESTUARY_ERROR_UNSUPPORTED, name,
                               "the OpenGL consumer draws field views only");
            }
        }
        if (consumer == ESTUARY_CONSUMER_OPENGL) {
            [[maybe_unused]] View field = v.fieldView(fieldOf(velocity));
            const Frame frame = v.beginFrame();
            frame.end();
        }
        EXPECT_EQ(v.close(), 0u);
    }
}

// Images of every kind can be made (host-written; CUDA-written on the GPU) but OpenGL imports,
// draws and reads back 2D ones only: a read of any other kind is refused naming the consumer;
// buffers are made but never read back; there is nothing to pick (a field view has no elements).
TEST(LibraryOpenGl, OnlyTwoDImagesAreReadBackBuffersAreNotAndNothingIsPicked) {
    Viewer v(viewerDesc(ESTUARY_CONSUMER_OPENGL));
    Image flat = v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 8, 8));
    estuary_image_desc arrayDesc =
        hostImage(ESTUARY_FORMAT_R32_FLOAT, 8, 8, 0, ESTUARY_IMAGE_2D_ARRAY);
    arrayDesc.layers = 3;
    estuary_image_desc volumeDesc = hostImage(ESTUARY_FORMAT_R32_FLOAT, 8, 8, 0, ESTUARY_IMAGE_3D);
    volumeDesc.depth = 4;
    std::vector<Image> others;
    others.push_back(v.image(volumeDesc));
    others.push_back(v.image(arrayDesc));
    others.push_back(v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 8, 8, 0, ESTUARY_IMAGE_CUBE)));
    others.push_back(v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 8, 1, 0, ESTUARY_IMAGE_1D)));
    estuary_buffer_desc bd{};
    bd.size = 256;
    bd.writer = ESTUARY_WRITER_HOST;
    Buffer buffer = v.buffer(bd);
    View field = v.fieldView(fieldOf(flat));
    float texel = -1.0f, word = -1.0f;
    const Frame frame = v.beginFrame();
    std::fill_n(frame.hostLevel<float>(flat), 64, 0.75f);
    frame.readImage(flat, 0, 3, 3, 1, 1, &texel);
    for (const Image& other : others)
        EXPECT_REFUSED(frame.readImage(other, 0, 0, 0, 1, 1, &word), ESTUARY_ERROR_UNSUPPORTED,
                       "OpenGL consumer reads back only 2D");
    EXPECT_REFUSED(frame.readBuffer(buffer, 0, 4, &word), ESTUARY_ERROR_UNSUPPORTED,
                   "OpenGL consumer reads no buffers");
    estuary_pick pick{};
    EXPECT_REFUSED(frame.pick(field, 1, 1, 0, &pick), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "no elements to pick");
    frame.end();
    v.finish();
    EXPECT_EQ(texel, 0.75f);
    EXPECT_EQ(word, -1.0f);
    EXPECT_EQ(v.close(), 0u);
}

TEST(LibraryOpenGl, RecordingIsRefusedNamingTheConsumer) {
    Viewer v(viewerDesc(ESTUARY_CONSUMER_OPENGL));
    const std::string path = (test::scratchDir("opengl-record") / "never.mp4").string();
    estuary_record_desc d{};
    d.path = path.c_str();
    EXPECT_EQ(estuary_record_start(v.get(), &d), ESTUARY_ERROR_UNSUPPORTED);
    EXPECT_NE(std::string(estuary_last_error()).find("OpenGL consumer"), std::string::npos)
        << estuary_last_error();
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_FALSE(std::filesystem::exists(path + ".part"));
    EXPECT_EQ(v.close(), 0u);
}

TEST(LibraryOpenGl, TheComputeDrawPathIsRefusedNamingTheConsumer) {
    ViewerDesc d = viewerDesc(ESTUARY_CONSUMER_OPENGL);
    d.draw_path = ESTUARY_DRAW_COMPUTE;
    estuary_viewer* viewer = nullptr;
    EXPECT_EQ(estuary_create_viewer(&d, &viewer), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(viewer, nullptr);
    EXPECT_NE(std::string(estuary_last_error()).find("OpenGL"), std::string::npos)
        << estuary_last_error();
}

// Without CUDA the frames come from the host: the host hand-off (uploads released to the external
// queue family; the host waits where GL has no GL_EXT_semaphore_fd, as on Mesa). The GPU
// hand-offs need CUDA writing: asked for without it, refused at estuary_create_viewer.
TEST(LibraryOpenGl, WithoutCudaTheHandoffIsTheHostsAndGpuHandoffsAreRefused) {
    {
        Viewer v(viewerDesc(ESTUARY_CONSUMER_OPENGL));
        EXPECT_EQ(v.info().gl_handoff, ESTUARY_GL_HANDOFF_HOST);
        EXPECT_EQ(v.close(), 0u);
    }
    for (estuary_gl_handoff handoff : {ESTUARY_GL_HANDOFF_TIMELINE, ESTUARY_GL_HANDOFF_BINARY}) {
        ViewerDesc d = viewerDesc(ESTUARY_CONSUMER_OPENGL);
        d.gl_handoff = handoff;
        estuary_viewer* viewer = nullptr;
        EXPECT_EQ(estuary_create_viewer(&d, &viewer), ESTUARY_ERROR_UNSUPPORTED);
        EXPECT_EQ(viewer, nullptr);
        const std::string message = estuary_last_error();
        EXPECT_NE(message.find(handoff == ESTUARY_GL_HANDOFF_TIMELINE ? "gl_handoff timeline"
                                                                      : "gl_handoff binary"),
                  std::string::npos)
            << message;
    }
}

// ---- frames, single images, pictures ----------------------------------------------------------

// Host-written images, one per frame in flight or ESTUARY_ALLOC_SINGLE, at 1 to 4 and 32 frames
// in flight: every draw (its reads before and after) sees its own frame's texels.
TEST(LibraryOpenGl, EveryDrawSeesItsOwnFrameForSingleAndRingImages) {
    for (uint32_t flags : {0u, uint32_t(ESTUARY_ALLOC_SINGLE)})
        for (uint32_t inFlight : {1u, 2u, 3u, 4u, 32u}) {
            SCOPED_TRACE((flags ? "single, " : "ring, ") + std::to_string(inFlight) + " in flight");
            Viewer v(viewerDesc(ESTUARY_CONSUMER_OPENGL, 64, 64, inFlight));
            Image image = v.image(
                hostImage(ESTUARY_FORMAT_R32_FLOAT, 16, 16, flags | ESTUARY_IMAGE_GENERATE_MIPS));
            EXPECT_EQ(image.info().copies, flags ? 1u : inFlight);
            [[maybe_unused]] View field = v.fieldView(fieldOf(image));
            constexpr uint32_t kFrames = 12;
            std::vector<float> before(kFrames, -1), after(kFrames, -1), mean(kFrames, -1);
            for (uint32_t f = 0; f < kFrames; ++f) {
                const Frame frame = v.beginFrame();
                std::fill_n(frame.hostLevel<float>(image), 256, float(f));
                frame.readImage(image, 0, 15, 15, 1, 1, &before[f]);
                frame.readImage(image, 0, 0, 0, 1, 1, &after[f], ESTUARY_READ_AFTER_DRAW);
                frame.readImage(image, 4, 0, 0, 1, 1, &mean[f], ESTUARY_READ_AFTER_DRAW);
                frame.end();
            }
            v.finish();
            uint32_t wrong = 0;
            for (uint32_t f = 0; f < kFrames; ++f)
                wrong += before[f] != float(f) || after[f] != float(f) || mean[f] != float(f);
            EXPECT_EQ(wrong, 0u) << "draws that saw another frame's image or levels";
            EXPECT_EQ(v.close(), 0u);
        }
}

// estuary_screenshot writes the picture estuary_read_pixels reads: OpenGL's framebuffer.
TEST(LibraryOpenGl, ScreenshotsAreThePictureOpenGlDrew) {
    Viewer v(viewerDesc(ESTUARY_CONSUMER_OPENGL, 40, 30));
    Image image = v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 8, 8));
    [[maybe_unused]] View field = v.fieldView(fieldOf(image));
    const Frame frame = v.beginFrame();
    float* t = frame.hostLevel<float>(image);
    for (uint32_t i = 0; i < 64; ++i)
        t[i] = float(i) / 63.0f;
    frame.end();
    const auto dir = test::scratchDir("opengl-screenshot");
    v.screenshot((dir / "picture.png").string());
    const test::Rgba8Image png = test::loadPng(dir / "picture.png");
    EXPECT_EQ(png.width, 40);
    EXPECT_EQ(png.height, 30);
    EXPECT_EQ(png.pixels, readPicture(v));
    EXPECT_GT(test::countDistinctColors(png), 8u);
    EXPECT_EQ(v.close(), 0u);
}

// No overlay under OpenGL: a field's colorbar (asked for by default) is not drawn, so the picture
// is Vulkan's without it. (Panels and the UI callback belong to the same Vulkan overlay; the window
// test AppOpenGl.TheOpenGlWindowShowsWhatTheVulkanWindowShows compares with Vulkan's --no-ui.)
TEST(LibraryOpenGl, NoColorbarOrOtherOverlayIsDrawn) {
    const auto scene = [](uint32_t viewFlags) {
        return [viewFlags](Viewer& v) {
            Image image = v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 16, 16));
            [[maybe_unused]] View field = v.fieldView(fieldOf(image, viewFlags));
            const Frame frame = v.beginFrame();
            std::fill_n(frame.hostLevel<float>(image), 256, 0.0f);
            frame.end();
        };
    };
    const auto gl = drawWith(ESTUARY_CONSUMER_OPENGL, scene(0), 256, 256);
    const auto vkWithout =
        drawWith(ESTUARY_CONSUMER_VULKAN, scene(ESTUARY_VIEW_NO_COLORBAR), 256, 256);
    const auto vkWith = drawWith(ESTUARY_CONSUMER_VULKAN, scene(0), 256, 256);
    test::expectSamePictureInBothApis(gl, vkWithout, "a colorbar asked for, OpenGL");
    EXPECT_GT(test::compareRgba8(gl, vkWith, 8).failingFraction, 0.005)
        << "Vulkan draws the colorbar, so the pictures must differ";
}

// Every frame's stats arrive in order, the draw timed by GL's timer queries. (host_busy_us is
// not measured under OpenGL yet: frame.cpp's OpenGL branch returns before computing it.)
TEST(LibraryOpenGl, FrameStatsCarryOpenGlsDrawTime) {
    Viewer v(viewerDesc(ESTUARY_CONSUMER_OPENGL, 64, 64, 3));
    Image image = v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 32, 32));
    [[maybe_unused]] View field = v.fieldView(fieldOf(image));
    constexpr uint64_t kFrames = 10;
    for (uint64_t f = 0; f < kFrames; ++f) {
        const Frame frame = v.beginFrame();
        std::fill_n(frame.hostLevel<float>(image), 32 * 32, 0.5f);
        frame.end();
    }
    v.finish();
    estuary_frame_stats s{};
    for (uint64_t f = 0; f < kFrames; ++f) {
        ASSERT_TRUE(v.nextFrameStats(s)) << f;
        EXPECT_EQ(s.frame, f);
        EXPECT_TRUE(std::isfinite(s.draw_ms) && s.draw_ms >= 0.0) << f << ": " << s.draw_ms;
        EXPECT_TRUE(std::isfinite(s.begin_us) && s.begin_us <= s.end_us) << f;
    }
    EXPECT_FALSE(v.nextFrameStats(s));
    EXPECT_EQ(v.close(), 0u);
}

// In a window (Xvfb), the UI callback is the Vulkan overlay's: called each frame under Vulkan,
// never under OpenGL.
TEST(LibraryOpenGl, TheUiCallbackIsNotCalledInAnOpenGlWindow) {
    if (!std::getenv("DISPLAY")) GTEST_SKIP() << "no display (the test suite runs under xvfb-run)";
    for (estuary_consumer consumer : {ESTUARY_CONSUMER_VULKAN, ESTUARY_CONSUMER_OPENGL}) {
        SCOPED_TRACE(consumer == ESTUARY_CONSUMER_OPENGL ? "OpenGL" : "Vulkan");
        ViewerDesc d = viewerDesc(consumer, 160, 120);
        d.display = ESTUARY_DISPLAY_WINDOW;
        Viewer v(d);
        uint32_t calls = 0;
        check(estuary_set_ui_callback(
            v.get(), [](void* user, void*) { ++*static_cast<uint32_t*>(user); }, &calls));
        Image image = v.image(hostImage(ESTUARY_FORMAT_R32_FLOAT, 16, 16));
        [[maybe_unused]] View field = v.fieldView(fieldOf(image));
        for (int f = 0; f < 4; ++f) {
            const Frame frame = v.beginFrame();
            std::fill_n(frame.hostLevel<float>(image), 256, 0.5f);
            frame.end();
        }
        v.finish();
        check(estuary_set_ui_callback(v.get(), nullptr, nullptr));
        if (consumer == ESTUARY_CONSUMER_OPENGL)
            EXPECT_EQ(calls, 0u);
        else
            EXPECT_GT(calls, 0u) << "the control: Vulkan's overlay calls it";
        EXPECT_EQ(v.close(), 0u);
    }
}

// ---- the docs ---------------------------------------------------------------------------------

// docs/OPENGL.md's support table: every row names at least one test (its last column, in
// backticks, Suite.Name), and every test named is a TEST or TEST_F of tests/cpu or tests/gpu.
TEST(LibraryOpenGl, EveryRowOfTheSupportTableNamesATestThatExists) {
    const std::filesystem::path source = ESTUARY_SOURCE_DIR;
    const auto read = [](const std::filesystem::path& path) {
        std::ifstream in(path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    std::string tests; // every test source, whitespace removed
    for (const char* folder : {"tests/cpu", "tests/gpu"})
        for (const auto& entry : std::filesystem::directory_iterator(source / folder)) {
            const std::string ext = entry.path().extension().string();
            if (ext != ".cpp" && ext != ".cu") continue;
            for (char c : read(entry.path()))
                if (!std::isspace(static_cast<unsigned char>(c))) tests += c;
        }
    std::istringstream doc(read(source / "docs" / "OPENGL.md"));
    size_t rows = 0, named = 0;
    bool inTable = false;
    for (std::string line; std::getline(doc, line);) {
        if (line.rfind("| What |", 0) == 0) {
            inTable = true;
            continue;
        }
        if (!inTable || line.rfind("| --- |", 0) == 0) continue;
        if (line.rfind("| ", 0) != 0) break; // the table's end
        ++rows;
        const std::string cell = line.substr(line.rfind(" | ") + 3);
        SCOPED_TRACE(line.substr(0, line.find(" | ", 2)));
        size_t inRow = 0;
        for (size_t open = cell.find('`'); open != std::string::npos;
             open = cell.find('`', open + 1)) {
            const size_t close = cell.find('`', open + 1);
            ASSERT_NE(close, std::string::npos);
            const std::string name = cell.substr(open + 1, close - open - 1);
            open = close;
            const size_t dot = name.find('.');
            ASSERT_NE(dot, std::string::npos) << name << " is not Suite.Name";
            const std::string args = "(" + name.substr(0, dot) + "," + name.substr(dot + 1) + ")";
            EXPECT_TRUE(tests.find("TEST" + args) != std::string::npos ||
                        tests.find("TEST_F" + args) != std::string::npos)
                << name << " is named by docs/OPENGL.md but is no test";
            ++inRow;
        }
        EXPECT_GT(inRow, 0u) << "a row naming no test";
        named += inRow;
    }
    EXPECT_GE(rows, 20u) << "the table was not found or lost rows";
    std::printf("docs/OPENGL.md: %zu rows, %zu tests named\n", rows, named);
}

} // namespace
} // namespace estuary
