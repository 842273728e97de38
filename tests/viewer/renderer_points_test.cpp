// The points renderer (points.h) over a field, as the viewer draws a simulation's particles: points
// pulled from a storage buffer land on the pixels of their cells (the same mapping as the field and
// as the window's cursor, view_mapping.h), take the colormap colour of their speed, add up where
// they overlap, and only the first draw.count are drawn.
// Expected pixels are computed here from the colormap table and the mapping, not read from the
// renderer.
#include "colormap.h"
#include "errors.h"
#include "offscreen.h"
#include "points.h"
#include "renderer.h"
#include "resources.h"
#include "test_support.h"
#include "view_mapping.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace estuary {
namespace {

constexpr VkExtent2D kTarget{256, 192};
constexpr VkExtent2D kField{64, 32}; // letterboxed: 4 pixels per cell, 32 pixel bars top and bottom

struct Particle {
    float x, y, vx, vy;
};

class RendererPoints : public test::VulkanTest {
  protected:
    void SetUp() override {
        VulkanTest::SetUp();
        RendererDesc desc;
        desc.dataDir = test::binDir();
        renderer = createRenderer(device, pool, desc);
        PointsDesc pointsDesc;
        pointsDesc.dataDir = test::binDir();
        points = createPointsRenderer(device, pool, pointsDesc);
        target = createOffscreenTarget(device, kTarget);
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
        viridis = loadColormapFile(test::binDir() / "assets" / "colormaps" / "viridis.txt");
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
        VulkanTest::TearDown();
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
        recordPoints(points, cmd, 0, target.image.view, kTarget, draw);
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

TEST_F(RendererPoints, EachPointLandsOnItsCellInTheColourOfItsSpeedAddedToTheField) {
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

TEST_F(RendererPoints, OverlappingPointsAddUpAndOnlyTheCountedOnesAreDrawn) {
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

TEST_F(RendererPoints, PointsFollowTheFieldUnderZoomAndPan) {
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

TEST_F(RendererPoints, MorePointsThanTheBufferHoldsIsAnErrorNotARead) {
    EXPECT_THROW(submitAndWait(device, pool,
                               [&](VkCommandBuffer cmd) {
                                   recordPicture(cmd, pointsDraw(uint32_t(kMaxParticles + 1), 2.0f,
                                                                 1.0f, ViewParams{}));
                               }),
                 Error);
}

} // namespace
} // namespace estuary
