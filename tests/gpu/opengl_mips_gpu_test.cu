// The OpenGL consumer with CUDA-written images that ask for generated mips (issue 32's case): CUDA
// writes level 0 of a 2048² field of known mean, ESTUARY_IMAGE_GENERATE_MIPS, and NVIDIA's OpenGL
// (headless, through EGL) draws it into 256²: levels 1.. are built by GL inside the hand-off, so
// the picture is the Vulkan consumer's (it was black: levels never written) and every frame's
// levels are its own, with each hand-off (timeline, binary, host), a single image, and host-written
// images beside the CUDA field. Validation and GL debug output on: any message fails. Skips, saying
// why, without a CUDA device or where OpenGL cannot run headless.
#include <cuda_runtime.h>

#include "estuary/estuary.hpp"
#include "estuary/interop/cuda_devices.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace estuary {
namespace {

constexpr uint32_t kSide = 2048;
constexpr uint32_t kPicture = 256;

// Level 0: a gradient under a one-texel checkerboard, raised by `offset`. Its 2x2 means (every
// level above 0) lose the checkerboard and keep the gradient; the whole image's mean (the last
// level) is 0.1 + 0.3 + 0.15 + offset = 0.55 + offset.
__host__ __device__ inline float texelAt(uint32_t x, uint32_t y, float offset) {
    return 0.1f + 0.6f * float(x) / float(kSide - 1) + (((x ^ y) & 1u) ? 0.3f : 0.0f) + offset;
}

__global__ void writeLevel0(cudaSurfaceObject_t surface, float offset) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < kSide && y < kSide)
        surf2Dwrite(texelAt(x, y, offset), surface, int(x * sizeof(float)), int(y));
}

void launchWriteLevel0(cudaSurfaceObject_t surface, float offset, cudaStream_t stream) {
    writeLevel0<<<dim3(kSide / 16, kSide / 16), dim3(16, 16), 0, stream>>>(surface, offset);
    ASSERT_EQ(cudaGetLastError(), cudaSuccess);
}

// Frame f's offset: consecutive frames differ, so a level built from another frame shows.
float offsetOf(uint64_t frame) {
    return 0.02f * float(frame % 5);
}

// Level 1 at (x, y): the 2x2 mean, 0.1 + 0.6 * (2x + 0.5) / (side - 1) + 0.15 + offset.
float level1At(uint32_t x, float offset) {
    return 0.1f + 0.6f * (2.0f * float(x) + 0.5f) / float(kSide - 1) + 0.15f + offset;
}

ViewerDesc gpuViewer(estuary_consumer consumer, estuary_gl_handoff handoff,
                     uint32_t framesInFlight) {
    ViewerDesc d;
    d.display = ESTUARY_DISPLAY_HEADLESS;
    d.width = kPicture;
    d.height = kPicture;
    d.frames_in_flight = framesInFlight;
    d.cuda = ESTUARY_CUDA_REQUIRED;
    d.consumer = consumer;
    d.gl_handoff = handoff;
    d.flags = ESTUARY_VIEWER_VALIDATION;
    return d;
}

estuary_image_desc cudaField(uint32_t flags) {
    return {.format = ESTUARY_FORMAT_R32_FLOAT,
            .kind = ESTUARY_IMAGE_2D,
            .width = kSide,
            .height = kSide,
            .writer = ESTUARY_WRITER_CUDA,
            .flags = flags | ESTUARY_IMAGE_GENERATE_MIPS,
            .name = "field"};
}

const char* handoffName(estuary_gl_handoff h) {
    return h == ESTUARY_GL_HANDOFF_TIMELINE ? "timeline"
           : h == ESTUARY_GL_HANDOFF_BINARY ? "binary"
           : h == ESTUARY_GL_HANDOFF_HOST   ? "host"
                                            : "auto";
}

double meanRgb(const std::vector<uint8_t>& rgba) {
    double sum = 0.0;
    for (size_t p = 0; p < rgba.size(); p += 4)
        sum += double(rgba[p]) + rgba[p + 1] + rgba[p + 2];
    return sum / double(rgba.size() / 4 * 3);
}

// The share of pixels with a channel more than 2 apart, and the largest difference.
std::pair<double, int> difference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    size_t failing = 0;
    int worst = 0;
    for (size_t p = 0; p < a.size(); p += 4) {
        int d = 0;
        for (size_t c = 0; c < 3; ++c)
            d = std::max(d, std::abs(int(a[p + c]) - int(b[p + c])));
        failing += d > 2;
        worst = std::max(worst, d);
    }
    return {double(failing) / double(a.size() / 4), worst};
}

struct FieldRun {
    std::vector<uint8_t> picture;
    uint32_t wrongFrames = 0; // frames whose level 1 or last level was not built from their own
};

// `frames` frames of the field, each read at level 1 (before the draw) and at the last level
// (after it); the picture after the last one.
FieldRun runField(Viewer& v, uint32_t flags, uint32_t frames) {
    FieldRun run;
    Image image = v.image(cudaField(flags));
    const uint32_t levels = image.info().levels;
    EXPECT_EQ(levels, 12u); // 2048 .. 1
    estuary_field_view_desc d{};
    d.image = image.get();
    d.flags = ESTUARY_VIEW_NO_COLORBAR;
    [[maybe_unused]] View field = v.fieldView(d);
    std::vector<float> level1(size_t(frames) * 4, -1.0f), last(frames, -1.0f);
    for (uint32_t f = 0; f < frames; ++f) {
        const Frame frame = v.beginFrame();
        launchWriteLevel0(frame.surface(image), offsetOf(frame.index()), frame.stream());
        frame.readImage(image, 1, 100, 37, 4, 1, &level1[size_t(f) * 4]);
        frame.readImage(image, levels - 1, 0, 0, 1, 1, &last[f], ESTUARY_READ_AFTER_DRAW);
        frame.end();
    }
    v.finish();
    for (uint32_t f = 0; f < frames; ++f) {
        bool ok = std::abs(last[f] - (0.55f + offsetOf(f))) < 1e-4f;
        for (uint32_t i = 0; i < 4; ++i)
            ok = ok && std::abs(level1[size_t(f) * 4 + i] - level1At(100 + i, offsetOf(f))) < 1e-5f;
        if (!ok && run.wrongFrames == 0)
            std::printf("frame %u: last level %.6f (want %.6f), level 1 (100, 37) %.6f (want "
                        "%.6f)\n",
                        f, last[f], 0.55f + offsetOf(f), level1[size_t(f) * 4],
                        level1At(100, offsetOf(f)));
        run.wrongFrames += !ok;
    }
    const estuary_viewer_info info = v.info();
    run.picture.resize(size_t(info.width) * info.height * 4);
    check(estuary_read_pixels(v.get(), run.picture.data(), run.picture.size()));
    return run;
}

class OpenGlMipsGpu : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto cuda = interop::listCudaDevices();
        if (cuda.devices.empty())
            GTEST_SKIP() << "no NVIDIA GPU usable by CUDA here: " << cuda.problem;
        // OpenGL must run headless (EGL on the CUDA device): probe once, saying why not.
        estuary_viewer* probe = nullptr;
        const ViewerDesc d = gpuViewer(ESTUARY_CONSUMER_OPENGL, ESTUARY_GL_HANDOFF_AUTO, 2);
        if (const estuary_status s = estuary_create_viewer(&d, &probe); s != ESTUARY_OK) {
            const std::string why = estuary_last_error();
            if (s == ESTUARY_ERROR_UNSUPPORTED)
                GTEST_SKIP() << "OpenGL cannot run headless beside CUDA here: " << why;
            FAIL() << "the OpenGL consumer did not open: " << why;
        }
        uint32_t messages = 0;
        ASSERT_EQ(estuary_destroy_viewer(probe, &messages), ESTUARY_OK);
        EXPECT_EQ(messages, 0u);
    }

    // The Vulkan consumer's picture of the same frames (its mips are built in its draw).
    std::vector<uint8_t> vulkanPicture(uint32_t flags, uint32_t framesInFlight, uint32_t frames) {
        Viewer v(gpuViewer(ESTUARY_CONSUMER_VULKAN, ESTUARY_GL_HANDOFF_AUTO, framesInFlight));
        FieldRun run = runField(v, flags, frames);
        EXPECT_EQ(run.wrongFrames, 0u) << "Vulkan: frames whose levels were not their own";
        EXPECT_EQ(v.close(), 0u);
        return run.picture;
    }

    // One OpenGL run with `handoff`; false (after saying why) where the driver lacks it.
    bool openGlRun(estuary_gl_handoff handoff, uint32_t flags, uint32_t framesInFlight,
                   uint32_t frames, const std::vector<uint8_t>& vulkan) {
        std::optional<Viewer> opened;
        try {
            opened.emplace(gpuViewer(ESTUARY_CONSUMER_OPENGL, handoff, framesInFlight));
        } catch (const Error& e) {
            if (e.status() != ESTUARY_ERROR_UNSUPPORTED) throw;
            std::printf("hand-off %s not run: %s\n", handoffName(handoff), e.what());
            return false;
        }
        Viewer& v = *opened;
        EXPECT_EQ(v.info().gl_handoff, handoff);
        const FieldRun run = runField(v, flags, frames);
        EXPECT_EQ(run.wrongFrames, 0u) << "OpenGL: frames whose levels were not their own";
        const double glMean = meanRgb(run.picture), vkMean = meanRgb(vulkan);
        const auto [failing, worst] = difference(run.picture, vulkan);
        std::printf("hand-off %s, %u in flight%s: mean RGB OpenGL %.2f, Vulkan %.2f; pixels off "
                    "by > 2: %.4f, max %d\n",
                    handoffName(handoff), framesInFlight, flags ? ", single" : "", glMean, vkMean,
                    failing, worst);
        // Tolerance: the mean within 1 of 255; the pictures within 2 per channel on all but 0.1%
        // of pixels (the two APIs' rasterizers may round a few differently), none beyond 16.
        EXPECT_NEAR(glMean, vkMean, 1.0);
        EXPECT_GT(glMean, 60.0) << "the colormap's first colour: levels 1.. not written";
        EXPECT_LE(failing, 0.001);
        EXPECT_LE(worst, 16);
        EXPECT_EQ(v.close(), 0u) << "validation messages or GL debug errors (printed above)";
        return true;
    }
};

// The issue's case for each hand-off and 1 to 3 frames in flight.
TEST_F(OpenGlMipsGpu, CudaWrittenGeneratedMipsDrawAsInVulkanWithEveryHandoff) {
    constexpr uint32_t kFrames = 12;
    uint32_t ran = 0;
    for (uint32_t inFlight : {1u, 2u, 3u}) {
        const std::vector<uint8_t> vulkan = vulkanPicture(0, inFlight, kFrames);
        for (estuary_gl_handoff handoff :
             {ESTUARY_GL_HANDOFF_TIMELINE, ESTUARY_GL_HANDOFF_BINARY, ESTUARY_GL_HANDOFF_HOST}) {
            SCOPED_TRACE(std::string(handoffName(handoff)) + ", " + std::to_string(inFlight) +
                         " in flight");
            ran += openGlRun(handoff, 0, inFlight, kFrames, vulkan);
        }
    }
    EXPECT_GE(ran, 3u) << "the host hand-off at least runs wherever OpenGL does";
}

// ESTUARY_ALLOC_SINGLE: one copy, written and drawn in turn; GL builds its levels every frame
// before giving it back. The binary hand-off cannot serialize a single copy: refused at
// estuary_create_image, naming the combination.
TEST_F(OpenGlMipsGpu, ASingleCudaImageGetsItsLevelsEveryFrameAndTheBinaryHandoffIsRefused) {
    constexpr uint32_t kFrames = 10, kInFlight = 3;
    const std::vector<uint8_t> vulkan = vulkanPicture(ESTUARY_ALLOC_SINGLE, kInFlight, kFrames);
    for (estuary_gl_handoff handoff : {ESTUARY_GL_HANDOFF_TIMELINE, ESTUARY_GL_HANDOFF_HOST}) {
        SCOPED_TRACE(handoffName(handoff));
        openGlRun(handoff, ESTUARY_ALLOC_SINGLE, kInFlight, kFrames, vulkan);
    }
    std::optional<Viewer> opened;
    try {
        opened.emplace(gpuViewer(ESTUARY_CONSUMER_OPENGL, ESTUARY_GL_HANDOFF_BINARY, kInFlight));
    } catch (const Error& e) {
        if (e.status() != ESTUARY_ERROR_UNSUPPORTED) throw;
        std::printf("binary hand-off not checked: %s\n", e.what());
        return;
    }
    Viewer& v = *opened;
    const estuary_image_desc single = cudaField(ESTUARY_ALLOC_SINGLE);
    estuary_image* image = nullptr;
    EXPECT_EQ(estuary_create_image(v.get(), &single, &image), ESTUARY_ERROR_UNSUPPORTED);
    const std::string message = estuary_last_error();
    EXPECT_NE(message.find("ESTUARY_ALLOC_SINGLE with the OpenGL consumer"), std::string::npos)
        << message;
    EXPECT_NE(message.find("binary hand-off"), std::string::npos) << message;
    EXPECT_EQ(v.close(), 0u);
}

// A host-written image beside the CUDA field in the same OpenGL viewer: its uploads (and the
// levels Vulkan builds for it) reach GL in every frame, though the picture is the CUDA field.
TEST_F(OpenGlMipsGpu, HostWrittenImagesBesideACudaFieldReachOpenGl) {
    for (estuary_gl_handoff handoff : {ESTUARY_GL_HANDOFF_AUTO, ESTUARY_GL_HANDOFF_HOST}) {
        SCOPED_TRACE(handoffName(handoff));
        Viewer v(gpuViewer(ESTUARY_CONSUMER_OPENGL, handoff, 2));
        Image field = v.image(cudaField(0));
        const estuary_image_desc hd{.format = ESTUARY_FORMAT_R32_FLOAT,
                                    .kind = ESTUARY_IMAGE_2D,
                                    .width = 64,
                                    .height = 64,
                                    .writer = ESTUARY_WRITER_HOST,
                                    .flags = ESTUARY_IMAGE_GENERATE_MIPS,
                                    .name = "host"};
        Image host = v.image(hd);
        estuary_field_view_desc d{};
        d.image = field.get();
        d.flags = ESTUARY_VIEW_NO_COLORBAR;
        [[maybe_unused]] View view = v.fieldView(d);
        constexpr uint32_t kFrames = 8;
        std::vector<float> level0(kFrames, -1.0f), level3(kFrames, -1.0f);
        for (uint32_t f = 0; f < kFrames; ++f) {
            const Frame frame = v.beginFrame();
            launchWriteLevel0(frame.surface(field), offsetOf(f), frame.stream());
            std::fill_n(frame.hostLevel<float>(host), 64 * 64, float(f) + 0.5f);
            frame.readImage(host, 0, 63, 63, 1, 1, &level0[f]);
            frame.readImage(host, 3, 0, 0, 1, 1, &level3[f], ESTUARY_READ_AFTER_DRAW);
            frame.end();
        }
        v.finish();
        uint32_t wrong = 0;
        for (uint32_t f = 0; f < kFrames; ++f)
            wrong += level0[f] != float(f) + 0.5f || level3[f] != float(f) + 0.5f;
        EXPECT_EQ(wrong, 0u) << "frames whose host-written image did not reach OpenGL (frame 0: "
                             << level0[0] << ", " << level3[0] << ")";
        EXPECT_EQ(v.close(), 0u);
    }
}

} // namespace
} // namespace estuary
