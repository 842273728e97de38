// The volume draw against volumes whose picture is known in closed form: a ball of uniform density
// under a fixed camera, whose colour per pixel follows from the length of the ray's chord through
// it (Beer-Lambert with the colormap's colour), computed here from the camera's definition in
// shared_layout.h without the renderer's camera code; and slices of a ramp. 0 validation
// messages (the fixture fails on any).
#include "colormap.h"
#include "errors.h"
#include "offscreen.h"
#include "png.h"
#include "renderer.h"
#include "kit_test.h"
#include "test_support.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

namespace estuary {
namespace {

constexpr VkExtent2D kTarget{256, 192};

struct Volume {
    uint32_t width, height, depth;
};

// R32_SFLOAT 3D image with its full mip chain (each level the mean of 2x2x2 texels of the one
// above, clamped at odd edges), level 0 from value(x, y, z), in SHADER_READ_ONLY_OPTIMAL.
GpuImage createVolumeImage(const Device& device, VkCommandPool pool, Volume size,
                           const std::function<float(uint32_t, uint32_t, uint32_t)>& value) {
    const VkExtent2D extent{size.width, size.height};
    const ImageShape shape{VK_IMAGE_VIEW_TYPE_3D, size.depth, 1};
    const uint32_t levels = fullMipCount(size.width, size.height, size.depth);
    std::vector<std::vector<float>> mips(levels);
    std::vector<Volume> dims(levels);
    dims[0] = size;
    mips[0].resize(size_t(size.width) * size.height * size.depth);
    for (uint32_t z = 0; z < size.depth; ++z)
        for (uint32_t y = 0; y < size.height; ++y)
            for (uint32_t x = 0; x < size.width; ++x)
                mips[0][(size_t(z) * size.height + y) * size.width + x] = value(x, y, z);
    for (uint32_t level = 1; level < levels; ++level) {
        const Volume up = dims[level - 1];
        const Volume d{std::max(1u, up.width / 2), std::max(1u, up.height / 2),
                       std::max(1u, up.depth / 2)};
        dims[level] = d;
        mips[level].resize(size_t(d.width) * d.height * d.depth);
        const auto at = [&](uint32_t x, uint32_t y, uint32_t z) {
            x = std::min(x, up.width - 1), y = std::min(y, up.height - 1),
            z = std::min(z, up.depth - 1);
            return mips[level - 1][(size_t(z) * up.height + y) * up.width + x];
        };
        for (uint32_t z = 0; z < d.depth; ++z)
            for (uint32_t y = 0; y < d.height; ++y)
                for (uint32_t x = 0; x < d.width; ++x) {
                    float sum = 0;
                    for (uint32_t i = 0; i < 8; ++i)
                        sum += at(2 * x + (i & 1), 2 * y + ((i >> 1) & 1), 2 * z + (i >> 2));
                    mips[level][(size_t(z) * d.height + y) * d.width + x] = sum / 8.0f;
                }
    }
    VkDeviceSize total = 0;
    const auto regions = mipChainRegions(extent, levels, sizeof(float), 1, total, shape);
    std::vector<uint8_t> bytes(total);
    for (uint32_t level = 0; level < levels; ++level)
        std::memcpy(bytes.data() + regions[level].bufferOffset, mips[level].data(),
                    mips[level].size() * sizeof(float));
    GpuImage image =
        createImage(device, extent, shape, VK_FORMAT_R32_SFLOAT, levels,
                    VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, "test volume");
    uploadForSampling(device, pool, image.handle, bytes, regions);
    return image;
}

struct V3 {
    double x, y, z;
};
V3 operator+(V3 a, V3 b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
}
V3 operator-(V3 a, V3 b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
}
V3 operator*(double s, V3 a) {
    return {s * a.x, s * a.y, s * a.z};
}
double dot(V3 a, V3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
V3 cross(V3 a, V3 b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
V3 normalized(V3 a) {
    return (1.0 / std::sqrt(dot(a, a))) * a;
}

// The camera ray through the centre of pixel (px, py), from the definition in shared_layout.h and
// volume_camera.h: 40° vertical field of view, 2.6 / zoom from the centre, yaw about the vertical,
// pitch looking down, row 0 at the top (up is -y).
struct Ray {
    V3 origin, dir;
};
Ray cameraRay(double yaw, double pitch, double zoom, uint32_t px, uint32_t py) {
    const V3 forward{std::cos(pitch) * std::sin(yaw), std::sin(pitch),
                     std::cos(pitch) * std::cos(yaw)};
    const V3 right = normalized(cross(forward, V3{0, -1, 0}));
    const V3 up = cross(right, forward);
    const double tanHalf = std::tan(20.0 * M_PI / 180.0);
    const double aspect = double(kTarget.width) / double(kTarget.height);
    const double x = 2.0 * (px + 0.5) / kTarget.width - 1.0;
    const double y = 2.0 * (py + 0.5) / kTarget.height - 1.0;
    const V3 dir = forward + (x * tanHalf * aspect) * right - (y * tanHalf) * up;
    return {(-2.6 / zoom) * forward, normalized(dir)};
}

// Chord length of the ray through the ball, and its closest approach to the centre.
struct Chord {
    double length, closest;
};
Chord chordThroughBall(const Ray& ray, V3 centre, double radius) {
    const V3 oc = ray.origin - centre;
    const double along = -dot(oc, ray.dir);
    const V3 nearest = oc + along * ray.dir;
    const double closest = std::sqrt(dot(nearest, nearest));
    if (closest >= radius) return {0.0, closest};
    return {2.0 * std::sqrt(radius * radius - closest * closest), closest};
}

class RendererVolume : public test::KitTest {
  protected:
    void SetUp() override {
        KitTest::SetUp();
        target = createOffscreenTarget(device, kTarget);
    }
    void TearDown() override {
        if (device.handle) {
            vkDeviceWaitIdle(device.handle);
            destroyOffscreenTarget(device, target);
            destroyImage(device, volume);
            destroyRenderer(device, renderer);
        }
        KitTest::TearDown();
    }

    void open(const char* shader, Volume size,
              const std::function<float(uint32_t, uint32_t, uint32_t)>& value,
              bool compute = false) {
        RendererDesc desc;
        desc.dataDir = test::binDir();
        desc.fragmentShader = shader;
        desc.volume = true;
        desc.compute = compute;
        renderer = createRenderer(device, kitted(desc));
        if (compute) setComputeExtent(device, renderer, kTarget);
        volume = createVolumeImage(device, pool, size, value);
        setFieldImage(device, renderer, 0, volume.view, {size.width, size.height}, size.depth);
    }

    std::vector<uint8_t> render(const ViewParams& view) {
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            recordBeginTarget(cmd, target);
            recordDraw(renderer, cmd, 0, target.image.view, kTarget, view, target.image.handle);
            recordEndTarget(cmd, target, true);
        });
        return readbackPixels(target);
    }

    void saveOnFailure(const std::vector<uint8_t>& pixels, const char* name) {
        if (!HasFailure()) return;
        const auto path = test::scratchDir("renderer-volume") / name;
        writePng(path, kTarget.width, kTarget.height, pixels.data());
        ADD_FAILURE() << "picture written to " << path;
    }

    void expectSoftBall(bool compute);

    Renderer renderer;
    GpuImage volume;
    OffscreenTarget target;
};

// A ball of density 1 with a soft edge (smoothstep from 1 at radius - w to 0 at radius + w) in
// empty space, off-centre so that a mirrored or transposed camera shows.
struct Ball {
    V3 centre;
    double radius, edge;
    double density(V3 p) const {
        const V3 d = p - centre;
        const double t =
            std::clamp((radius + edge - std::sqrt(dot(d, d))) / (2.0 * edge), 0.0, 1.0);
        return t * t * (3.0 - 2.0 * t);
    }
};

// The picture of `ball` by the rendering integral itself, independent of the shader's march: along
// each camera ray in steps of 1/50 voxel, colour c(n) and extinction σ n per voxel, n the density
// through the value range, c the colormap (the 8-bit table, linearly interpolated as the sampler
// does), composited front to back over the background. Tolerance (the shader steps a voxel and
// reads the grid through the trilinear filter, which overestimates the convex tail of the edge):
// at most 10/255 per channel on 99% of the ball's pixels, 16/255 on the rest (grazing rays in a
// dense medium), 2/255 on average; rays missing the ball by 1.5 voxels are the background exactly.
void expectBallPicture(const std::vector<uint8_t>& pixels, const ViewParams& view, uint32_t side,
                       const Ball& ball) {
    const auto table = loadColormapFile(test::binDir() / "assets/colormaps/viridis.txt").entries;
    const auto colormap = [&](double t, int c) {
        const double x = t * (kColormapSize - 1);
        const size_t i = std::min(size_t(x), size_t(kColormapSize - 2));
        const double f = x - double(i);
        const double a = std::round(double(table[i][size_t(c)]) * 255.0) / 255.0;
        const double b = std::round(double(table[i + 1][size_t(c)]) * 255.0) / 255.0;
        return a + f * (b - a);
    };
    const double background[3] = {ESTUARY_BACKGROUND_COLOR};
    const double voxel = 1.0 / side;
    const double ds = voxel / 50.0;
    double errorSum = 0;
    size_t inside = 0, over10 = 0;
    int worst = 0;
    for (uint32_t py = 0; py < kTarget.height; ++py)
        for (uint32_t px = 0; px < kTarget.width; ++px) {
            const Ray ray = cameraRay(view.yaw, view.pitch, view.zoom, px, py);
            const Chord chord = chordThroughBall(ray, ball.centre, ball.radius + ball.edge);
            const uint8_t* got = &pixels[(size_t(py) * kTarget.width + px) * 4];
            double colour[3] = {0, 0, 0}, alpha = 0;
            if (chord.length > 0) {
                const double mid = -dot(ray.origin - ball.centre, ray.dir);
                for (double t = mid - 0.5 * chord.length; t < mid + 0.5 * chord.length; t += ds) {
                    const double d = ball.density(ray.origin + (t + 0.5 * ds) * ray.dir);
                    const double n =
                        std::clamp((d - view.valueMin) / (view.valueMax - view.valueMin), 0.0, 1.0);
                    const double a = 1.0 - std::exp(-view.opacity * n * ds / voxel);
                    for (int c = 0; c < 3; ++c)
                        colour[c] += (1.0 - alpha) * a * colormap(n, c);
                    alpha += (1.0 - alpha) * a;
                }
                ++inside;
            }
            // The filter spreads the grid's last non-zero texels up to a voxel past the ball's
            // support: only rays 1.5 voxels clear of it must be exactly background.
            const bool clear = chord.closest > ball.radius + ball.edge + 1.5 * voxel;
            double pixelDiff = 0;
            for (int c = 0; c < 3; ++c) {
                const double expected = 255.0 * (colour[c] + (1.0 - alpha) * background[c]);
                const double diff = std::abs(double(got[c]) - expected);
                pixelDiff = std::max(pixelDiff, diff);
                errorSum += diff;
                if (clear) {
                    ASSERT_LE(diff, 1.0) << "pixel " << px << "," << py << " misses the ball";
                }
            }
            worst = std::max(worst, int(std::lround(pixelDiff)));
            if (pixelDiff > 10.0) ++over10;
        }
    const double meanError = errorSum / (3.0 * double(kTarget.width) * kTarget.height);
    std::printf("    ball: mean channel error %.2f/255, worst %d/255, %zu of %zu pixels over 10\n",
                meanError, worst, over10, inside);
    EXPECT_LT(meanError, 2.0);
    EXPECT_LE(worst, 16);
    EXPECT_LE(double(over10), 0.01 * double(inside)) << over10 << " of " << inside;
    EXPECT_GT(inside, 2000u) << "the ball covers too few pixels to test anything";
}

// The ball under four cameras, drawn by the fragment shader (volume.frag) or by the compute march
// (volume.comp, copied into the target): both against the integral.
void RendererVolume::expectSoftBall(bool compute) {
    constexpr uint32_t kSide = 48;
    const Ball ball{{0.12, -0.08, 0.05}, 0.25, 3.0 / kSide};
    open(
        "volume.frag", {kSide, kSide, kSide},
        [&](uint32_t x, uint32_t y, uint32_t z) {
            return float(ball.density(
                {(x + 0.5) / kSide - 0.5, (y + 0.5) / kSide - 0.5, (z + 0.5) / kSide - 0.5}));
        },
        compute);
    // Straight on; from above at an angle and closer; from behind and below with a denser medium
    // and a narrower value range; nearly opaque (early ray termination must not show).
    for (const auto& [yaw, pitch, zoom, opacity, vmax] :
         {std::tuple(0.0, 0.0, 1.0, 0.05, 1.0), std::tuple(0.7, 0.4, 1.3, 0.05, 1.0),
          std::tuple(-2.0, -0.5, 0.9, 0.2, 0.8), std::tuple(2.5, 0.2, 1.0, 1.5, 1.0)}) {
        SCOPED_TRACE("yaw " + std::to_string(yaw) + " pitch " + std::to_string(pitch) +
                     " opacity " + std::to_string(opacity));
        ViewParams view;
        view.yaw = float(yaw), view.pitch = float(pitch), view.zoom = float(zoom);
        view.opacity = float(opacity);
        view.valueMin = 0.0f, view.valueMax = float(vmax);
        const std::vector<uint8_t> pixels = render(view);
        expectBallPicture(pixels, view, kSide, ball);
        saveOnFailure(pixels, "ball.png");
        if (HasFailure()) return;
    }
}

TEST_F(RendererVolume, SoftBallMatchesTheRenderingIntegralPerPixel) {
    expectSoftBall(false);
}

TEST_F(RendererVolume, ComputeMarchedSoftBallMatchesTheRenderingIntegralPerPixel) {
    expectSoftBall(true);
}

TEST_F(RendererVolume, ComputeAndFragmentMarchesDrawTheSamePicture) {
    // The same march function at the same pixel centres: the same colours, up to the last bit of
    // an 8-bit store (the fragment path writes through the blend-less colour attachment, the
    // compute path through imageStore).
    const auto value = [](uint32_t x, uint32_t y, uint32_t z) {
        return 0.5f + 0.5f * std::sin(0.3f * float(x)) * std::cos(0.2f * float(y + 2 * z));
    };
    open("volume.frag", {40, 32, 24}, value);
    ViewParams view;
    view.opacity = 0.3f;
    const std::vector<uint8_t> fragment = render(view);
    vkDeviceWaitIdle(device.handle);
    destroyImage(device, volume);
    destroyRenderer(device, renderer);
    open("volume.frag", {40, 32, 24}, value, true);
    const std::vector<uint8_t> compute = render(view);
    const test::ImageDiff diff = test::compareRgba8(fragment, compute, 1);
    EXPECT_LE(diff.maxAbsDiff, 1);
    EXPECT_EQ(diff.failingFraction, 0.0);
    EXPECT_GT(test::countDistinctColors({int(kTarget.width), int(kTarget.height), compute}), 64u);
}

TEST_F(RendererVolume, EmptyVolumeIsBackgroundEverywhere) {
    open("volume.frag", {20, 12, 8}, [](uint32_t, uint32_t, uint32_t) { return 0.0f; });
    ViewParams view;
    view.opacity = 50.0f;
    const std::vector<uint8_t> pixels = render(view);
    const float background[3] = {ESTUARY_BACKGROUND_COLOR};
    for (size_t i = 0; i < pixels.size(); i += 4)
        for (int c = 0; c < 3; ++c)
            ASSERT_NEAR(pixels[i + size_t(c)], background[c] * 255.0f, 1.0f) << i / 4;
}
// A ramp along one axis, v = coordinate / size: each slice view shows it along the axis the
// slice keeps on screen, or as one colour across the slice normal to it.
TEST_F(RendererVolume, SlicesShowTheRightAxesAndPosition) {
    constexpr Volume kSize{40, 24, 16};
    open("volume_slice.frag", kSize,
         [&](uint32_t x, uint32_t, uint32_t) { return (float(x) + 0.5f) / float(kSize.width); });
    const auto table = loadColormapFile(test::binDir() / "assets/colormaps/viridis.txt").entries;
    const auto colormap = [&](float t) {
        return table[size_t(std::lround(t * float(kColormapSize - 1)))];
    };
    const auto px = [&](const std::vector<uint8_t>& rgba, uint32_t x, uint32_t y) {
        return &rgba[(size_t(y) * kTarget.width + x) * 4];
    };
    ViewParams view;
    view.valueMin = 0.0f, view.valueMax = 1.0f;

    // Slice z (40 x 24 letterboxed into 256 x 192 at 6.4 px per texel): x across the screen, so
    // the green channel of viridis (monotonic) rises from left to right.
    view.sliceAxis = 2;
    std::vector<uint8_t> z = render(view);
    for (uint32_t x = 8; x + 8 < kTarget.width; x += 8)
        EXPECT_LT(px(z, x, 96)[1], px(z, x + 8, 96)[1]) << "column " << x;
    // Column x shows texel (x - 0) / 6.4; its value is (texel + 0.5) / 40.
    for (uint32_t x : {16u, 128u, 240u}) {
        const float texel = (float(x) + 0.5f) / 6.4f;
        const auto expected = colormap(std::clamp(texel / 40.0f, 0.0f, 1.0f));
        for (int c = 0; c < 3; ++c)
            EXPECT_NEAR(px(z, x, 96)[c], expected[size_t(c)] * 255.0f, 6.0f) << "column " << x;
    }
    saveOnFailure(z, "slice-z.png");

    // Slice x at 0.25: the plane x = 10 of 40, value 0.25 everywhere inside (z right, y down:
    // 16 x 24 letterboxed, so the side columns are background).
    view.sliceAxis = 0;
    view.slicePosition = 0.25f;
    std::vector<uint8_t> x = render(view);
    const auto quarter = colormap(0.25f);
    const float background[3] = {ESTUARY_BACKGROUND_COLOR};
    for (int c = 0; c < 3; ++c) {
        EXPECT_NEAR(px(x, 128, 96)[c], quarter[size_t(c)] * 255.0f, 3.0f);
        EXPECT_NEAR(px(x, 128, 10)[c], quarter[size_t(c)] * 255.0f, 3.0f);
        EXPECT_NEAR(px(x, 4, 96)[c], background[c] * 255.0f, 1.0f); // 16 x 24: bars at the sides
    }
    saveOnFailure(x, "slice-x.png");

    // Slice y: x right, z down, the ramp again left to right; a different position changes
    // nothing (the ramp does not depend on y).
    view.sliceAxis = 1;
    view.slicePosition = 0.1f;
    const std::vector<uint8_t> y1 = render(view);
    view.slicePosition = 0.9f;
    const std::vector<uint8_t> y2 = render(view);
    EXPECT_EQ(test::compareRgba8(y1, y2, 1).maxAbsDiff, 0);
    EXPECT_LT(px(y1, 40, 96)[1], px(y1, 220, 96)[1]);
}

TEST_F(RendererVolume, A2dRendererRefusesA3dField) {
    RendererDesc desc;
    desc.dataDir = test::binDir();
    renderer = createRenderer(device, kitted(desc));
    volume = createVolumeImage(device, pool, {8, 8, 8},
                               [](uint32_t, uint32_t, uint32_t) { return 0.0f; });
    EXPECT_THROW(setFieldImage(device, renderer, 0, volume.view, {8, 8}, 8), Error);
}

} // namespace
} // namespace estuary
