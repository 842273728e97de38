// Drawing a field through a colormap into an offscreen target: a golden image for the whole path
// (letterbox, trilinear field sampling, colormap), and tests that fail when one feature breaks
// (colormap index, zoom, mip bias, value range, slots). Every test runs on both draw paths, the
// raster one and the compute twin copied into the target (RendererDesc::compute), against the same
// golden image and the same expectations.
#include "colormap.h"
#include "vk_check.h"
#include "offscreen.h"
#include "png.h"
#include "renderer.h"
#include "kit_test.h"
#include "test_support.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <array>
#include <functional>

namespace estuary {
namespace {

constexpr VkExtent2D kTargetExtent{256, 192};

// R32_SFLOAT image with a full mip chain, level 0 from `value(x, y)`, each further level the 2x2
// average of the one above (edge texels clamped for odd sizes), in SHADER_READ_ONLY_OPTIMAL.
GpuImage createFieldImage(const Device& device, VkCommandPool pool, VkExtent2D extent,
                          const std::function<float(uint32_t, uint32_t)>& value) {
    const uint32_t levels = fullMipCount(extent.width, extent.height);
    std::vector<std::vector<float>> mips(levels);
    mips[0].resize(size_t(extent.width) * extent.height);
    for (uint32_t y = 0; y < extent.height; ++y)
        for (uint32_t x = 0; x < extent.width; ++x)
            mips[0][size_t(y) * extent.width + x] = value(x, y);
    for (uint32_t level = 1; level < levels; ++level) {
        const VkExtent2D up = mipExtent(extent, level - 1);
        const VkExtent2D e = mipExtent(extent, level);
        mips[level].resize(size_t(e.width) * e.height);
        const auto at = [&](uint32_t x, uint32_t y) {
            return mips[level - 1]
                       [size_t(std::min(y, up.height - 1)) * up.width + std::min(x, up.width - 1)];
        };
        for (uint32_t y = 0; y < e.height; ++y)
            for (uint32_t x = 0; x < e.width; ++x)
                mips[level][size_t(y) * e.width + x] =
                    0.25f * (at(2 * x, 2 * y) + at(2 * x + 1, 2 * y) + at(2 * x, 2 * y + 1) +
                             at(2 * x + 1, 2 * y + 1));
    }

    VkDeviceSize total = 0;
    const auto regions = mipChainRegions(extent, levels, sizeof(float), 1, total);
    std::vector<uint8_t> bytes(total);
    for (uint32_t level = 0; level < levels; ++level)
        std::memcpy(bytes.data() + regions[level].bufferOffset, mips[level].data(),
                    mips[level].size() * sizeof(float));

    GpuImage image =
        createImage2D(device, extent, VK_FORMAT_R32_SFLOAT, levels,
                      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, "test field");
    uploadForSampling(device, pool, image.handle, bytes, regions);
    return image;
}

// Smooth, deterministic, not symmetric: any flip, offset or wrong aspect shows in the golden.
float smoothField(uint32_t x, uint32_t y) {
    const float fx = float(x) / 200.0f, fy = float(y) / 120.0f;
    return 0.5f + 0.5f * std::sin(6.0f * fx + 1.0f) * std::cos(4.0f * fy * fy + 2.0f * fx);
}

// Alternating texels on top of a slow ramp: mip level 1 keeps only the ramp.
float checkerField(uint32_t x, uint32_t y) {
    return 0.25f + 0.5f * float(x) / 256.0f + (((x + y) & 1) ? 0.2f : -0.2f);
}

// The parameter: draw with the compute twin (true) or rasterize (false).
class RendererDraw : public test::KitTest, public ::testing::WithParamInterface<bool> {
  protected:
    void SetUp() override {
        KitTest::SetUp();
        if (!device.handle) return;
        renderer = makeRenderer("field.frag", VK_FORMAT_R8G8B8A8_UNORM);
        target = createOffscreenTarget(device, kTargetExtent);
    }
    Renderer makeRenderer(const std::string& shader, VkFormat targetFormat) {
        RendererDesc desc;
        desc.dataDir = test::binDir();
        desc.slotCount = 2;
        desc.fragmentShader = shader;
        desc.targetFormat = targetFormat;
        desc.compute = GetParam();
        Renderer r = createRenderer(device, kitted(desc));
        if (desc.compute) setComputeExtent(device, r, kTargetExtent);
        return r;
    }
    void TearDown() override {
        if (device.handle) {
            vkDeviceWaitIdle(device.handle);
            destroyOffscreenTarget(device, target);
            for (GpuImage& field : fields)
                destroyImage(device, field);
            destroyRenderer(device, renderer);
        }
        KitTest::TearDown();
    }

    void setField(uint32_t slot, VkExtent2D extent,
                  const std::function<float(uint32_t, uint32_t)>& value) {
        fields.push_back(createFieldImage(device, pool, extent, value));
        setFieldImage(device, renderer, slot, fields.back().view, extent);
    }

    std::vector<uint8_t> render(const ViewParams& view, uint32_t slot = 0) {
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            recordBeginTarget(cmd, target);
            recordDraw(renderer, cmd, slot, target.image.view, kTargetExtent, view,
                       target.image.handle);
            recordEndTarget(cmd, target, true);
        });
        return readbackPixels(target);
    }

    const uint8_t* pixel(const std::vector<uint8_t>& rgba, uint32_t x, uint32_t y) {
        return &rgba[(size_t(y) * kTargetExtent.width + x) * 4];
    }

    Renderer renderer;
    OffscreenTarget target;
    std::vector<GpuImage> fields;
};

TEST_P(RendererDraw, ViridisMatchesGoldenImage) {
    setField(0, {200, 120}, smoothField);
    const std::vector<uint8_t> pixels = render(ViewParams{});
    const std::filesystem::path golden = ESTUARY_SOURCE_DIR "/tests/golden/renderer_viridis.png";
    if (const char* update = std::getenv("ESTUARY_UPDATE_GOLDEN");
        update && std::string(update) == "1") {
        writePng(golden, kTargetExtent.width, kTargetExtent.height, pixels.data());
        GTEST_SKIP() << "ESTUARY_UPDATE_GOLDEN=1: wrote " << golden << " instead of comparing";
    }
    const test::Rgba8Image expected = test::loadPng(golden);
    ASSERT_EQ(expected.width, int(kTargetExtent.width));
    ASSERT_EQ(expected.height, int(kTargetExtent.height));
    // Tolerance: a channel may differ by up to 2/255 (filtering precision differs between
    // implementations) on all but 0.1% of pixels, and by no more than 16/255 anywhere.
    const test::ImageDiff diff = test::compareRgba8(pixels, expected.pixels, 2);
    RecordProperty("maxAbsDiff", diff.maxAbsDiff);
    RecordProperty("failingFraction", std::to_string(diff.failingFraction));
    EXPECT_LE(diff.failingFraction, 0.001) << "max diff " << diff.maxAbsDiff;
    EXPECT_LE(diff.maxAbsDiff, 16);
    if (diff.failingFraction > 0.001 || diff.maxAbsDiff > 16) {
        const auto actual = test::scratchDir("renderer-golden") / "renderer_viridis.actual.png";
        writePng(actual, kTargetExtent.width, kTargetExtent.height, pixels.data());
        ADD_FAILURE() << "actual picture written to " << actual;
    }
}

TEST_P(RendererDraw, LetterboxBarsAreBackgroundAndFieldFillsTheMiddle) {
    // 200x120 into 256x192: scale 1.28, so the field spans rows ~19..172 and every column.
    setField(0, {200, 120}, [](uint32_t, uint32_t) { return 0.0f; });
    const std::vector<uint8_t> pixels = render(ViewParams{});
    const auto viridis0 =
        loadColormapFile(test::binDir() / "assets/colormaps/viridis.txt").entries[0];
    const float background[3] = {ESTUARY_BACKGROUND_COLOR};
    for (uint32_t x : {0u, 128u, 255u}) {
        for (uint32_t y : {0u, 17u, 174u, 191u})
            for (int c = 0; c < 3; ++c)
                EXPECT_NEAR(pixel(pixels, x, y)[c], background[c] * 255.0f, 1.0f) << x << "," << y;
        for (uint32_t y : {21u, 96u, 170u})
            for (int c = 0; c < 3; ++c)
                EXPECT_NEAR(pixel(pixels, x, y)[c], viridis0[c] * 255.0f, 1.0f) << x << "," << y;
    }
}

TEST_P(RendererDraw, MagmaDiffersFromViridis) {
    setField(0, {200, 120}, smoothField);
    ViewParams view;
    const std::vector<uint8_t> viridis = render(view);
    view.colormap = *findColormap("magma");
    const std::vector<uint8_t> magma = render(view);
    // The letterbox bars (~20% of pixels) are the same; the field must differ nearly everywhere.
    EXPECT_GT(test::compareRgba8(viridis, magma, 8).failingFraction, 0.6);
}

TEST_P(RendererDraw, ZoomAndPanChangeThePicture) {
    setField(0, {200, 120}, smoothField);
    const std::vector<uint8_t> base = render(ViewParams{});
    ViewParams zoomed;
    zoomed.zoom = 2.0f;
    EXPECT_GT(test::compareRgba8(base, render(zoomed), 2).failingFraction, 0.5);
    ViewParams panned;
    panned.panX = 0.25f;
    const std::vector<uint8_t> shifted = render(panned);
    EXPECT_GT(test::compareRgba8(base, shifted, 2).failingFraction, 0.5);
    // Panning by a quarter of the field (64 px at scale 1.28 x 200) moves column 192 to 128.
    for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(pixel(shifted, 128, 96)[c], pixel(base, 192, 96)[c], 2);
}

TEST_P(RendererDraw, MipBiasSmoothsHighFrequencyField) {
    setField(0, {256, 192}, checkerField); // same aspect as the target: no letterbox
    // Mean squared difference between horizontal neighbours (green channel, interior rows).
    const auto roughness = [&](const std::vector<uint8_t>& rgba) {
        double sum = 0;
        size_t n = 0;
        for (uint32_t y = 8; y < kTargetExtent.height - 8; ++y)
            for (uint32_t x = 8; x + 1 < kTargetExtent.width - 8; ++x, ++n) {
                const double d = double(pixel(rgba, x + 1, y)[1]) - double(pixel(rgba, x, y)[1]);
                sum += d * d;
            }
        return sum / double(n);
    };
    ViewParams sharp;
    const double rough0 = roughness(render(sharp));
    ViewParams smooth;
    smooth.mipBias = 3.0f;
    const double rough3 = roughness(render(smooth));
    RecordProperty("roughnessBias0", std::to_string(rough0));
    RecordProperty("roughnessBias3", std::to_string(rough3));
    EXPECT_GT(rough0, 100.0); // the checker shows at level 0
    EXPECT_LT(rough3, 0.05 * rough0) << "level 0: " << rough0 << ", bias 3: " << rough3;
}

TEST_P(RendererDraw, ValueRangeMapsToColormapEnds) {
    setField(0, {200, 120}, [](uint32_t, uint32_t) { return 0.25f; });
    const auto viridis = loadColormapFile(test::binDir() / "assets/colormaps/viridis.txt").entries;
    ViewParams low;
    low.valueMin = 0.25f;
    low.valueMax = 0.75f;
    ViewParams high;
    high.valueMin = -0.25f;
    high.valueMax = 0.25f;
    const std::vector<uint8_t> atLow = render(low);
    const std::vector<uint8_t> atHigh = render(high);
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(pixel(atLow, 128, 96)[c], viridis.front()[c] * 255.0f, 1.0f);
        EXPECT_NEAR(pixel(atHigh, 128, 96)[c], viridis.back()[c] * 255.0f, 1.0f);
    }
}

TEST_P(RendererDraw, EachSlotDrawsItsOwnField) {
    setField(0, {200, 120}, [](uint32_t, uint32_t) { return 0.0f; });
    setField(1, {64, 64}, [](uint32_t, uint32_t) { return 1.0f; });
    const auto viridis = loadColormapFile(test::binDir() / "assets/colormaps/viridis.txt").entries;
    const std::vector<uint8_t> slot0 = render(ViewParams{}, 0);
    const std::vector<uint8_t> slot1 = render(ViewParams{}, 1);
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(pixel(slot0, 128, 96)[c], viridis.front()[c] * 255.0f, 1.0f);
        EXPECT_NEAR(pixel(slot1, 128, 96)[c], viridis.back()[c] * 255.0f, 1.0f);
    }
    // Slot 1's square field letterboxes at the sides (192 px wide, centred), slot 0's does not.
    EXPECT_NEAR(pixel(slot1, 10, 96)[0], 0.08f * 255.0f, 1.0f);
    EXPECT_NEAR(pixel(slot0, 10, 96)[0], viridis.front()[0] * 255.0f, 1.0f);
}

// Fields of two and four channels, each texel (and so each mip level) the same constant, drawn
// with the other shading modes: the colour at the centre follows from the texel by hand.
class RendererShading : public test::KitTest, public ::testing::WithParamInterface<bool> {
  protected:
    std::vector<uint8_t> drawConstant(VkFormat format, FieldShading shading,
                                      const std::vector<float>& texel, const ViewParams& view) {
        const VkExtent2D extent{32, 32};
        const uint32_t levels = fullMipCount(extent.width, extent.height);
        VkDeviceSize total = 0;
        const auto regions =
            mipChainRegions(extent, levels, texel.size() * sizeof(float), 1, total);
        std::vector<float> values; // every texel of every level the same
        while (values.size() * sizeof(float) < total)
            values.insert(values.end(), texel.begin(), texel.end());
        GpuImage field = createImage2D(device, extent, format, levels,
                                       VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                       "constant field");
        const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
        uploadForSampling(device, pool, field.handle, {bytes, values.size() * sizeof(float)},
                          regions);
        RendererDesc desc;
        desc.dataDir = test::binDir();
        desc.fieldFormat = format;
        desc.shading = shading;
        desc.compute = GetParam();
        Renderer renderer = createRenderer(device, kitted(desc));
        if (desc.compute) setComputeExtent(device, renderer, {16, 16});
        setFieldImage(device, renderer, 0, field.view, extent);
        OffscreenTarget target = createOffscreenTarget(device, {16, 16});
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            recordBeginTarget(cmd, target);
            recordDraw(renderer, cmd, 0, target.image.view, {16, 16}, view, target.image.handle);
            recordEndTarget(cmd, target, true);
        });
        std::vector<uint8_t> pixels = readbackPixels(target);
        destroyOffscreenTarget(device, target);
        destroyRenderer(device, renderer);
        destroyImage(device, field);
        return {pixels.begin() + (8 * 16 + 8) * 4, pixels.begin() + (8 * 16 + 8) * 4 + 4};
    }
};

TEST_P(RendererShading, MagnitudeOfTwoChannelsGoesThroughTheColormapChannelZeroAlone) {
    // (3, 4): |v| = 5, channel 0 alone = 3. Over [0, 10] they are t = 0.5 and t = 0.3.
    const auto viridis = loadColormapFile(test::binDir() / "assets/colormaps/viridis.txt").entries;
    const auto expected = [&](float t) {
        const float at = t * 255.0f; // between entries: the sampler interpolates linearly
        const size_t i = size_t(at);
        std::array<float, 3> rgb{};
        for (int c = 0; c < 3; ++c)
            rgb[c] =
                255.0f * (viridis[i][c] + (at - float(i)) * (viridis[i + 1][c] - viridis[i][c]));
        return rgb;
    };
    ViewParams view;
    view.valueMin = 0.0f;
    view.valueMax = 10.0f;
    const auto magnitude =
        drawConstant(VK_FORMAT_R32G32_SFLOAT, FieldShading::ColormapMagnitude, {3.0f, 4.0f}, view);
    const auto channel0 =
        drawConstant(VK_FORMAT_R32G32_SFLOAT, FieldShading::Colormap, {3.0f, 4.0f}, view);
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(magnitude[c], expected(0.5f)[c], 1.5f) << "channel " << c;
        EXPECT_NEAR(channel0[c], expected(0.3f)[c], 1.5f) << "channel " << c;
    }
}

TEST_P(RendererShading, RgbShowsTheFirstThreeChannelsClampedToUnitRange) {
    const auto rgb = drawConstant(VK_FORMAT_R32G32B32A32_SFLOAT, FieldShading::Rgb,
                                  {0.2f, 0.6f, 1.7f, -3.0f}, ViewParams{});
    EXPECT_NEAR(rgb[0], 0.2f * 255.0f, 1.0f);
    EXPECT_NEAR(rgb[1], 0.6f * 255.0f, 1.0f);
    EXPECT_EQ(rgb[2], 255); // 1.7 clamped
    EXPECT_EQ(rgb[3], 255); // the target is opaque whatever channel 3 holds
}

TEST_P(RendererDraw, ReliefShaderKeepsFlatColoursAndShadesSlopesByWhetherTheyFaceTheLight) {
    // The same renderer set-up with field_relief.frag: a flat field draws exactly as field.frag.
    // On a wave 0.5 + 0.4 sin(2 pi x / 40), texel columns 40 and 60 both hold 0.5 (so field.frag
    // colours them alike), but at 40 the field rises to the right, facing the light from the upper
    // left, and at 60 it falls: relief lights the one and shades the other. The slope there is
    // 0.063 per texel, a tilt that changes the shade by about 20%.
    Renderer relief = makeRenderer("field_relief.frag", VK_FORMAT_R8G8B8A8_UNORM);
    const auto draw = [&](Renderer& r, uint32_t slot) {
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            recordBeginTarget(cmd, target);
            recordDraw(r, cmd, slot, target.image.view, kTargetExtent, ViewParams{},
                       target.image.handle);
            recordEndTarget(cmd, target, true);
        });
        return readbackPixels(target);
    };
    setField(0, {200, 120}, [](uint32_t, uint32_t) { return 0.4f; });
    setField(1, {200, 120}, [](uint32_t x, uint32_t) {
        return 0.5f + 0.4f * std::sin(2.0f * float(M_PI) * float(x) / 40.0f);
    });
    setFieldImage(device, relief, 0, fields[0].view, {200, 120});
    setFieldImage(device, relief, 1, fields[1].view, {200, 120});
    EXPECT_EQ(test::compareRgba8(draw(renderer, 0), draw(relief, 0), 0).maxAbsDiff, 0)
        << "a flat field must look the same with either shader";
    const std::vector<uint8_t> plain = draw(renderer, 1), lit = draw(relief, 1);
    // Texel column k is centred on pixel (k + 0.5) * 1.28 (200 texels across 256 pixels).
    const auto sum = [&](const std::vector<uint8_t>& rgba, uint32_t texelColumn) {
        const uint8_t* p = pixel(rgba, uint32_t((float(texelColumn) + 0.5f) * 1.28f), 96);
        return double(p[0]) + p[1] + p[2];
    };
    EXPECT_NEAR(sum(plain, 40), sum(plain, 60), 6.0) << "the two columns hold the same value";
    EXPECT_GT(sum(lit, 40), 1.1 * sum(plain, 40)) << "facing the light: brighter";
    EXPECT_LT(sum(lit, 60), 0.9 * sum(plain, 60)) << "facing away from the light: darker";
    vkDeviceWaitIdle(device.handle);
    destroyRenderer(device, relief);
}

// A BGRA8 target (what window swapchains usually are): the raster path writes it as an attachment,
// the compute path blits its RGBA8 storage image into it, swizzling. Either way the picture is the
// RGBA target's with red and blue swapped, to the bit.
TEST_P(RendererDraw, BgraTargetGetsTheSamePictureWithRedAndBlueSwapped) {
    setField(0, {200, 120}, smoothField);
    const std::vector<uint8_t> rgba = render(ViewParams{});
    Renderer bgraRenderer = makeRenderer("field.frag", VK_FORMAT_B8G8R8A8_UNORM);
    setFieldImage(device, bgraRenderer, 0, fields[0].view, {200, 120});
    OffscreenTarget bgraTarget =
        createOffscreenTarget(device, kTargetExtent, VK_FORMAT_B8G8R8A8_UNORM);
    submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
        recordBeginTarget(cmd, bgraTarget);
        recordDraw(bgraRenderer, cmd, 0, bgraTarget.image.view, kTargetExtent, ViewParams{},
                   bgraTarget.image.handle);
        recordEndTarget(cmd, bgraTarget, true);
    });
    std::vector<uint8_t> swapped = readbackPixels(bgraTarget);
    for (size_t i = 0; i < swapped.size(); i += 4)
        std::swap(swapped[i], swapped[i + 2]);
    destroyOffscreenTarget(device, bgraTarget);
    destroyRenderer(device, bgraRenderer);
    EXPECT_EQ(test::compareRgba8(rgba, swapped, 0).maxAbsDiff, 0);
}

std::string pathName(const ::testing::TestParamInfo<bool>& info) {
    return info.param ? "Compute" : "Raster";
}
INSTANTIATE_TEST_SUITE_P(DrawPaths, RendererDraw, ::testing::Bool(), pathName);
INSTANTIATE_TEST_SUITE_P(DrawPaths, RendererShading, ::testing::Bool(), pathName);

using RendererCreate = test::KitTest;

// Also proves a failed createRenderer releases what it made: a leak fails the fixture's validation.
TEST_F(RendererCreate, MissingShaderIsNamedInTheError) {
    const auto dataDir = test::scratchDir("renderer-no-shaders");
    std::filesystem::copy(test::binDir() / "assets", dataDir / "assets",
                          std::filesystem::copy_options::recursive);
    RendererDesc desc;
    desc.dataDir = dataDir;
    try {
        Renderer renderer = createRenderer(device, kitted(desc));
        destroyRenderer(device, renderer);
        FAIL() << "createRenderer succeeded without shaders";
    } catch (const Error& e) {
        const std::string expected = (dataDir / "shaders" / "fullscreen.vert.spv").string();
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace estuary
