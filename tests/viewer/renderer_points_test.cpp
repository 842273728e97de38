// The points renderer (points.h) over a field, as the viewer draws a simulation's particles: points
// pulled from a storage buffer land on the pixels of their cells (the same mapping as the field and
// as the window's cursor, view_mapping.h), take the colormap colour of their speed, add up where
// they overlap, and only the first draw.count are drawn: on both paths, rasterized and splatted
// by compute (each test runs on both). Then the two paths against each other on dense clouds.
// Expected pixels are computed here from the colormap table and the mapping, not read from the
// renderer.
#include "colormap.h"
#include "errors.h"
#include "offscreen.h"
#include "points.h"
#include "renderer.h"
#include "renderer_internal.h"
#include "resources.h"
#include "kit_test.h"
#include "test_support.h"
#include "view_mapping.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <random>

namespace estuary {
namespace {

constexpr VkExtent2D kTarget{256, 192};
constexpr VkExtent2D kField{64, 32}; // letterboxed: 4 pixels per cell, 32 pixel bars top and bottom

struct Particle {
    float x, y, vx, vy;
};

class RendererPoints : public test::KitTest, public ::testing::WithParamInterface<bool> {
  protected:
    void SetUp() override {
        KitTest::SetUp();
        RendererDesc desc;
        desc.dataDir = test::binDir();
        renderer = createRenderer(device, kitted(desc));
        target = createOffscreenTarget(device, kTarget);
        PointsDesc pointsDesc;
        pointsDesc.dataDir = test::binDir();
        pointsDesc.splat = GetParam();
        points = createPointsRenderer(device, kitted(pointsDesc));
        if (pointsDesc.splat) {
            ASSERT_TRUE(target.storage) << "RGBA8 offers storage use on every device";
            setPointsExtent(device, points, kTarget, target.image.view);
        }
        // A field of zeros: through the colormap over [0, 1], its first entry everywhere.
        const std::vector<float> zeros(size_t(kField.width) * kField.height, 0.0f);
        VkDeviceSize bytes = 0;
        const auto regions = mipChainRegions(kField, 1, sizeof(float), 1, bytes);
        field = createImage2D(device, kField, VK_FORMAT_R32_SFLOAT, 1,
                              VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                              "zero field");
        std::vector<uint8_t> upload(bytes);
        std::memcpy(upload.data(), zeros.data(), bytes);
        uploadForSampling(device, pool, field.handle, upload, regions);
        setFieldImage(device, renderer, 0, field.view, kField);
        particles = createBuffer(
            device, kMaxParticles * sizeof(Particle), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
            "test particles");
        setPointsBuffer(device, points, 0, particles.handle, particles.size);
        viridis = loadColormapFile(test::binDir() / "assets" / "colormaps" / "viridis.txt").entries;
    }
    void TearDown() override {
        if (device.handle) {
            vkDeviceWaitIdle(device.handle);
            destroyBuffer(device, particles);
            destroyImage(device, field);
            destroyOffscreenTarget(device, target);
            destroyPointsRenderer(device, points);
            destroyRenderer(device, renderer);
        }
        KitTest::TearDown();
    }

    // The draw of `count` particles in cell coordinates over the field, as the viewer makes it.
    static PointsDraw pointsDraw(uint32_t count, float size, float speedMax,
                                 const ViewParams& view) {
        PointsDraw draw;
        draw.count = count;
        draw.size = size;
        draw.valueMax = speedMax;
        draw.domain = kField;
        draw.uvScale = {1.0f / float(kField.width), 1.0f / float(kField.height)};
        draw.uvOffset = {0.5f / float(kField.width), 0.5f / float(kField.height)};
        draw.view = view;
        return draw;
    }

    void recordPicture(VkCommandBuffer cmd, const PointsDraw& draw) {
        recordBeginTarget(cmd, target);
        recordDraw(renderer, cmd, 0, target.image.view, kTarget, draw.view);
        recordPoints(points, cmd, 0, target.image.view, kTarget, draw, target.image.handle);
    }

    std::vector<uint8_t> render(const std::vector<Particle>& cloud, const PointsDraw& draw) {
        std::memcpy(particles.mapped, cloud.data(), cloud.size() * sizeof(Particle));
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            recordPicture(cmd, draw);
            recordEndTarget(cmd, target, true);
        });
        return readbackPixels(target);
    }

    std::array<int, 3> pixel(const std::vector<uint8_t>& rgba, int x, int y) const {
        const uint8_t* p = &rgba[(size_t(y) * kTarget.width + size_t(x)) * 4];
        return {p[0], p[1], p[2]};
    }

    // Entry t (0..1) of viridis as 0..255, as the shaders look it up at a texel centre.
    std::array<float, 3> colormap(float t) const {
        const size_t i = size_t(std::lround(t * float(viridis.size() - 1)));
        return {255.0f * viridis[i][0], 255.0f * viridis[i][1], 255.0f * viridis[i][2]};
    }

    // The 2-pixel-wide point of a particle at `cell` covers the two pixels either side of the
    // cell's centre along each axis: returns the top-left one of the four.
    std::array<int, 2> pointPixel(Particle p, const ViewParams& view) const {
        const Vec2 centre = cellToTarget({p.x, p.y}, kTarget, kField, view);
        return {int(std::lround(centre.x)) - 1, int(std::lround(centre.y)) - 1};
    }

    static constexpr size_t kMaxParticles = 64;
    Renderer renderer;
    PointsRenderer points;
    OffscreenTarget target;
    GpuImage field;
    GpuBuffer particles;
    std::vector<std::array<float, 3>> viridis;
};

void expectNear(std::array<int, 3> got, std::array<float, 3> want, const char* what) {
    for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(float(got[size_t(c)]), std::min(want[size_t(c)], 255.0f), 2.0f)
            << what << ", channel " << c;
}

TEST_P(RendererPoints, EachPointLandsOnItsCellInTheColourOfItsSpeedAddedToTheField) {
    const ViewParams view;
    // Cell centres sit on pixel corners here (4 pixels per cell), so a 2-pixel point covers
    // exactly the 2x2 pixels around one.
    const std::vector<Particle> cloud = {{10, 5, 0, 0}, {40, 20, 1.2f, 1.6f}, {63, 31, 3, 0}};
    const auto image = render(cloud, pointsDraw(uint32_t(cloud.size()), 2.0f, 2.0f, view));
    const auto background = colormap(0.0f);
    const float speeds[] = {0.0f, 1.0f, 1.0f}; // |v| / speedMax, clamped to the colormap's end
    for (size_t i = 0; i < cloud.size(); ++i) {
        SCOPED_TRACE("particle " + std::to_string(i));
        const auto [px, py] = pointPixel(cloud[i], view);
        const auto colour = colormap(speeds[i]);
        // Few points on a large target: each at full intensity, added to the field below.
        const std::array<float, 3> want = {background[0] + colour[0], background[1] + colour[1],
                                           background[2] + colour[2]};
        for (int dy = 0; dy < 2; ++dy)
            for (int dx = 0; dx < 2; ++dx)
                expectNear(pixel(image, px + dx, py + dy), want, "inside the point");
        // Just outside the 2x2 block: the field alone.
        expectNear(pixel(image, px - 1, py), background, "left of the point");
        expectNear(pixel(image, px + 2, py + 1), background, "right of the point");
    }
}

TEST_P(RendererPoints, OverlappingPointsAddUpAndOnlyTheCountedOnesAreDrawn) {
    const ViewParams view;
    // Two slow particles on one cell, then one that is not counted.
    const std::vector<Particle> cloud = {{20, 10, 0, 0}, {20, 10, 0, 0}, {50, 12, 0, 0}};
    const auto image = render(cloud, pointsDraw(2, 2.0f, 1.0f, view));
    const auto background = colormap(0.0f);
    const auto [px, py] = pointPixel(cloud[0], view);
    expectNear(pixel(image, px, py),
               {background[0] * 3.0f, background[1] * 3.0f, background[2] * 3.0f},
               "two points on the field: three times the first colormap entry");
    const auto [qx, qy] = pointPixel(cloud[2], view);
    expectNear(pixel(image, qx, qy), background, "a particle beyond pointCount");
}

TEST_P(RendererPoints, PointsFollowTheFieldUnderZoomAndPan) {
    ViewParams view;
    view.zoom = 2.0f;
    view.panX = 0.125f;
    view.panY = -0.0625f;
    const std::vector<Particle> cloud = {{40, 8, 0, 0}};
    const auto image = render(cloud, pointsDraw(1, 2.0f, 1.0f, view));
    const auto [px, py] = pointPixel(cloud[0], view);
    ASSERT_GE(px, 1);
    ASSERT_LT(px + 2, int(kTarget.width));
    const auto background = colormap(0.0f);
    expectNear(pixel(image, px, py),
               {background[0] * 2.0f, background[1] * 2.0f, background[2] * 2.0f},
               "the point where the zoomed and panned field shows its cell");
    // Where the point would be without zoom and pan: nothing but the field.
    const auto [ux, uy] = pointPixel(cloud[0], ViewParams{});
    expectNear(pixel(image, ux, uy), background, "the unzoomed position");
}

TEST_P(RendererPoints, MorePointsThanTheBufferHoldsIsAnErrorNotARead) {
    EXPECT_THROW(submitAndWait(device, pool,
                               [&](VkCommandBuffer cmd) {
                                   recordPicture(cmd, pointsDraw(uint32_t(kMaxParticles + 1), 2.0f,
                                                                 1.0f, ViewParams{}));
                               }),
                 Error);
}

std::string pathName(const ::testing::TestParamInfo<bool>& info) {
    return info.param ? "Splat" : "Raster";
}
INSTANTIATE_TEST_SUITE_P(DrawPaths, RendererPoints, ::testing::Bool(), pathName);

// The raster and the splat of one cloud, 2D or 3D, over a cleared target.
class PointsSplatVsRaster : public test::KitTest,
                            public ::testing::WithParamInterface<bool /* threeD */> {
  protected:
    static constexpr VkExtent2D kExtent{320, 240};
    static constexpr uint32_t kCount = 20000;
    static constexpr int kPaths = 6;
    static constexpr int kVariants[] = {3, 4, 5}; // the paths of SplatVariant's other variants

    void SetUp() override {
        KitTest::SetUp();
        target = createOffscreenTarget(device, kExtent);
        // Raster; splat resolved in place by compute; splat with 32-bit atomics resolved by a
        // raster pass; the merged and the saturated variants resolved by compute, and the
        // saturated by a raster pass.
        for (int path = 0; path < kPaths; ++path) {
            PointsDesc desc;
            desc.dataDir = test::binDir();
            desc.threeD = GetParam();
            desc.splat = path > 0;
            desc.packedSplat = path != 2;
            desc.splatVariant = path == 3   ? SplatVariant::Merged
                                : path >= 4 ? SplatVariant::Saturated
                                            : SplatVariant::Packed;
            paths[path] = createPointsRenderer(device, kitted(desc));
            if (desc.splat)
                setPointsExtent(device, paths[path], kExtent,
                                path == 2 || path == 5 ? VK_NULL_HANDLE : target.image.view);
        }
        cloud = createBuffer(
            device, kCount * 4 * sizeof(float), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "cloud");
        for (PointsRenderer& r : paths)
            setPointsBuffer(device, r, 0, cloud.handle, cloud.size);
        // A seeded cloud: denser in the middle, values over the whole colormap, some points
        // outside the target (or behind the eye) to be dropped.
        std::mt19937 random(20);
        std::normal_distribution<float> spread(0.0f, GetParam() ? 0.35f : 0.3f);
        std::uniform_real_distribution<float> value(0.0f, 1.0f);
        auto* p = static_cast<float*>(cloud.mapped);
        for (uint32_t i = 0; i < kCount; ++i) {
            if (GetParam()) { // (x, y, z, s) in the unit box and a little beyond
                p[4 * i] = spread(random), p[4 * i + 1] = spread(random);
                p[4 * i + 2] = spread(random), p[4 * i + 3] = value(random);
            } else { // (x, y, vx, vy) in the unit square and a little beyond
                p[4 * i] = 0.5f + spread(random), p[4 * i + 1] = 0.5f + spread(random);
                const float speed = value(random);
                p[4 * i + 2] = 0.6f * speed, p[4 * i + 3] = 0.8f * speed;
            }
        }
    }
    void TearDown() override {
        if (device.handle) {
            vkDeviceWaitIdle(device.handle);
            destroyBuffer(device, cloud);
            destroyOffscreenTarget(device, target);
            for (PointsRenderer& r : paths)
                destroyPointsRenderer(device, r);
        }
        KitTest::TearDown();
    }

    std::vector<uint8_t> draw(int path, const PointsDraw& points) {
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            recordBeginTarget(cmd, target);
            beginTargetPass(cmd, target.image.view, kExtent, true, {0.0f, 0.2f, 0.4f});
            vkCmdEndRendering(cmd);
            recordPoints(paths[path], cmd, 0, target.image.view, kExtent, points,
                         target.image.handle);
            recordEndTarget(cmd, target, true);
        });
        return readbackPixels(target);
    }

    PointsDraw pointsDraw(float size, float intensity) const {
        PointsDraw d;
        d.count = kCount;
        d.size = size;
        d.intensity = intensity;
        d.domain = {1000, 1000}; // the unit square letterboxed
        d.uvScale = {1.0f, 1.0f};
        d.view.yaw = 0.6f;
        d.view.pitch = 0.3f;
        return d;
    }

    PointsRenderer paths[kPaths];
    OffscreenTarget target;
    GpuBuffer cloud;
};

// The splat draws the raster picture (test::expectSplatDrawsTheRasterPicture), at intensities where
// points add up unsaturated and where they saturate the 8 bits. On lavapipe (CI) square points
// (sizes 1, 1.5) differ by at most 2/255 anywhere, discs (3, 6.5) by more on at most 2% of the
// picture, the rim pixels, light within 0.5%. On the H100 (measured: squares 0.08%, discs up to
// 14.6% at intensity 0.05, light within 0.5%) squares by more on 0.2%, discs on 20%, light
// within 1%. The cloud lights much of the picture, so this is not two backgrounds compared. The
// packed splat resolved in place by compute draws exactly the three-atomic splat resolved by a
// raster pass.
TEST_P(PointsSplatVsRaster, TheSplatDrawsTheRasterPictureForDenseCloudsOfEverySize) {
    for (const float size : {1.0f, 1.5f, 3.0f, 6.5f}) {
        for (const float intensity : {0.05f, 0.6f}) {
            const std::string what =
                "size " + std::to_string(size) + ", intensity " + std::to_string(intensity);
            const PointsDraw points = pointsDraw(size, intensity);
            const auto raster = draw(0, points);
            const auto splat = draw(1, points);
            ASSERT_TRUE(paths[1].packedSplat || !device.int64Atomics);
            // Packed or not, resolved by compute or by raster, any variant: the same picture.
            EXPECT_EQ(splat, draw(2, points)) << what << ": the other splat";
            for (const int variant : kVariants)
                EXPECT_EQ(splat, draw(variant, points))
                    << what << ": variant " << splatVariantName(paths[variant].splatVariant);
            const bool lavapipe = device.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
            const bool disc = size > 2.5f;
            test::expectSplatDrawsTheRasterPicture(
                raster, splat, lavapipe ? (disc ? 0.02 : 0.0) : (disc ? 0.2 : 0.002),
                lavapipe ? 0.005 : 0.01, what);
            size_t lit = 0;
            for (size_t p = 0; p < raster.size(); p += 4)
                lit += raster[p] != 0 || raster[p + 1] != 51 || raster[p + 2] != 102;
            EXPECT_GT(lit, raster.size() / 4 / 10) << what << ": pixels lit by the raster path";
        }
    }
}

// A million points on one pixel, each adding 3/255 red and green and no blue: the packed splat's
// red and green pass 2^20 and are taken back, and must not carry into blue. All three paths draw
// the same picture, that pixel saturated in red and green with the background's blue.
TEST_P(PointsSplatVsRaster, AMillionPointsOnOnePixelSaturateWithoutCarryingIntoTheNextChannel) {
    constexpr uint32_t kPile = 1000000;
    GpuBuffer pile = createBuffer(
        device, kPile * 4 * sizeof(float), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "pile");
    auto* p = static_cast<float*>(pile.mapped);
    for (uint32_t i = 0; i < kPile; ++i) { // the colormap's end: speed 1 (2D), scalar 1 (3D)
        const float point[4] = {GetParam() ? 0.0f : 0.5f, GetParam() ? 0.0f : 0.5f,
                                GetParam() ? 0.0f : 1.0f, GetParam() ? 1.0f : 0.0f};
        std::copy(point, point + 4, p + 4 * i);
    }
    for (PointsRenderer& r : paths)
        setPointsBuffer(device, r, 0, pile.handle, pile.size);
    PointsDraw points = pointsDraw(1.0f, 0.012f); // viridis' end: 3, 3, 0 in 1/255 steps
    points.count = kPile;
    const auto raster = draw(0, points);
    const auto splat = draw(1, points);
    const auto other = draw(2, points);
    std::vector<std::vector<uint8_t>> variants;
    for (const int variant : kVariants)
        variants.push_back(draw(variant, points));
    destroyBuffer(device, pile);
    EXPECT_EQ(splat, other);
    EXPECT_EQ(splat, raster);
    for (size_t v = 0; v < variants.size(); ++v)
        EXPECT_EQ(splat, variants[v]) << "variant at path " << kVariants[v];
    size_t saturated = 0;
    for (size_t i = 0; i < splat.size(); i += 4) {
        EXPECT_EQ(splat[i + 2], 102) << "blue of pixel " << i / 4 << " (the background's)";
        saturated += splat[i] == 255 && splat[i + 1] == 255;
    }
    EXPECT_EQ(saturated, 1u) << "the one pixel all points cover";
}

// Each variant against the raster picture at the splat's bounds (above), for squares of size 1,
// where the merged variant merges. The merged variant is made where the device can (lavapipe can),
// and the saturated one everywhere.
TEST_P(PointsSplatVsRaster, EverySplatVariantDrawsTheRasterPictureOfOnePixelPoints) {
    const bool lavapipe = device.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    if (lavapipe || paths[1].packedSplat) {
        EXPECT_EQ(paths[3].splatVariant, SplatVariant::Merged) << "fell back to packed";
    }
    EXPECT_EQ(paths[4].splatVariant, SplatVariant::Saturated);
    for (const float intensity : {0.05f, 0.6f}) {
        const PointsDraw points = pointsDraw(1.0f, intensity);
        const auto raster = draw(0, points);
        for (const int variant : kVariants) {
            const std::string what = std::string(splatVariantName(paths[variant].splatVariant)) +
                                     " at path " + std::to_string(variant) + ", intensity " +
                                     std::to_string(intensity);
            test::expectSplatDrawsTheRasterPicture(raster, draw(variant, points),
                                                   lavapipe ? 0.0 : 0.002, lavapipe ? 0.005 : 0.01,
                                                   what);
        }
    }
}

// Runs of 1 to 40 neighbouring points on one spot (each run's points of different colours), as a
// spatially ordered cloud has them: the merged variant sums each run across the subgroup, its
// runs cut by subgroup bounds anywhere, and draws exactly the packed splat's picture (which the
// tests above hold to the raster picture; here, 40 points on a pixel, an 8-bit blend's rounding
// drifts further from the exact sum), as the saturated one does.
TEST_P(PointsSplatVsRaster, TheMergedSplatSumsRunsOfNeighboursOnOnePixelExactly) {
    std::mt19937 random(7);
    std::uniform_int_distribution<uint32_t> runLength(1, 40);
    std::uniform_real_distribution<float> place(0.1f, 0.9f), value(0.0f, 1.0f);
    auto* p = static_cast<float*>(cloud.mapped);
    for (uint32_t i = 0; i < kCount;) {
        const float x = place(random), y = place(random);
        for (uint32_t n = runLength(random); n > 0 && i < kCount; --n, ++i) {
            const float v = value(random);
            const float point[4] = {GetParam() ? x - 0.5f : x, GetParam() ? y - 0.5f : y,
                                    GetParam() ? 0.1f : 0.6f * v, GetParam() ? v : 0.8f * v};
            std::copy(point, point + 4, p + 4 * i);
        }
    }
    for (const float intensity : {0.05f, 0.6f}) {
        const PointsDraw points = pointsDraw(1.0f, intensity);
        const auto packed = draw(1, points);
        EXPECT_EQ(packed, draw(3, points)) << "intensity " << intensity;
        EXPECT_EQ(packed, draw(4, points)) << "saturated, intensity " << intensity;
    }
}

// The names ESTUARY_POINTS_SPLAT and estuary_points_bench --splat take: each reads back as its
// variant; anything else, a near miss or an empty name included, is none.
TEST(SplatVariantNames, EachNameReadsBackAndAnyOtherIsNone) {
    for (SplatVariant v : {SplatVariant::Packed, SplatVariant::Merged, SplatVariant::Saturated})
        EXPECT_EQ(splatVariantNamed(splatVariantName(v)), v) << splatVariantName(v);
    EXPECT_EQ(splatVariantNamed("merged"), SplatVariant::Merged);
    for (const char* other : {"", "Packed", "merge", "saturated ", "?"})
        EXPECT_FALSE(splatVariantNamed(other).has_value()) << "'" << other << "'";
}

std::string dimensionName(const ::testing::TestParamInfo<bool>& info) {
    return info.param ? "ThreeD" : "TwoD";
}
INSTANTIATE_TEST_SUITE_P(Clouds, PointsSplatVsRaster, ::testing::Bool(), dimensionName);

TEST_P(PointsSplatVsRaster, ASplatForAnotherTargetSizeIsAnErrorNamingTheCall) {
    try {
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            recordBeginTarget(cmd, target);
            recordPoints(paths[1], cmd, 0, target.image.view, {kExtent.width, kExtent.height / 2},
                         pointsDraw(1.0f, 0.5f));
        });
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("setPointsExtent"), std::string::npos) << e.what();
    }
}

} // namespace
} // namespace estuary
