// The library through its public API (estuary.hpp over estuary.h), headless on whatever Vulkan
// device there is (lavapipe in CI), with host-written images and buffers, the validation layer on
// (any message fails the test): every allocation kind, views and their pictures, frames in flight
// 1-16 with each draw seeing its own frame, stats, pictures, and the errors bad arguments get.
#include "library_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace estuary {
namespace {

TEST_F(LibraryTest, CreatesAHeadlessViewerWithoutCudaAndSaysWhy) {
    open(headless(3, 200, 100));
    const estuary_viewer_info info = viewer->info();
    EXPECT_EQ(info.has_cuda, 0);
    EXPECT_EQ(info.cuda_device, -1);
    EXPECT_EQ(info.headless, 1);
    EXPECT_EQ(info.frames_in_flight, 3u);
    EXPECT_EQ(info.width, 200u);
    EXPECT_EQ(info.height, 100u);
    EXPECT_NE(std::string(info.cuda_choice).find("CUDA is off"), std::string::npos);
    EXPECT_GT(std::strlen(info.device_name), 0u);
    EXPECT_EQ(estuary_version(), uint32_t(ESTUARY_API_VERSION));
}

TEST_F(LibraryTest, RefusesBadViewerDescriptionsNamingTheValue) {
    ViewerDesc d = headless();
    d.api_version = 0;
    EXPECT_REFUSED(Viewer{d}, ESTUARY_ERROR_INVALID_ARGUMENT, "api_version", "ESTUARY_API_VERSION");
    d = headless();
    d.api_version = ESTUARY_MAKE_VERSION(ESTUARY_VERSION_MAJOR(ESTUARY_API_VERSION) + 1, 0, 0);
    EXPECT_REFUSED(Viewer{d}, ESTUARY_ERROR_INVALID_ARGUMENT, "rebuild");
    d = headless(33);
    EXPECT_REFUSED(Viewer{d}, ESTUARY_ERROR_INVALID_ARGUMENT, "frames_in_flight 33", "1..32");
    d = headless(4);
    d.handoff_batch = 5;
    EXPECT_REFUSED(Viewer{d}, ESTUARY_ERROR_INVALID_ARGUMENT, "handoff_batch 5",
                   "frames in flight (4)");
    d = headless();
    d.display = outOfRange<estuary_display_mode>(7);
    EXPECT_REFUSED(Viewer{d}, ESTUARY_ERROR_INVALID_ARGUMENT, "display 7");
    d = headless(2, 20000, 10);
    EXPECT_REFUSED(Viewer{d}, ESTUARY_ERROR_INVALID_ARGUMENT, "20000x10");
    d = headless();
    d.data_dir = "/nonexistent/estuary";
    EXPECT_REFUSED(Viewer{d}, ESTUARY_ERROR_INVALID_ARGUMENT, "/nonexistent/estuary",
                   "field.frag.spv");
    d = headless();
    d.cuda = ESTUARY_CUDA_DEVICE;
    d.cuda_device = -2;
    EXPECT_REFUSED(Viewer{d}, ESTUARY_ERROR_INVALID_ARGUMENT, "cuda_device -2");
    // Through the C API: a NULL description, a NULL output.
    estuary_viewer* out = nullptr;
    EXPECT_EQ(estuary_create_viewer(nullptr, &out), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("desc is NULL"), std::string::npos);
    const estuary_viewer_desc good = headless();
    EXPECT_EQ(estuary_create_viewer(&good, nullptr), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(estuary_destroy_viewer(nullptr, nullptr), ESTUARY_OK);
}

TEST_F(LibraryTest, MakesEveryImageKindAndDescribesItsLevels) {
    Viewer& v = open(headless(3));
    struct Case {
        estuary_image_kind kind;
        uint32_t w, h, d, layers, levels, flags;
        uint32_t wantLevels, wantLayers, wantCopies;
    };
    const Case cases[] = {
        {ESTUARY_IMAGE_2D, 100, 60, 0, 0, 0, 0, 7, 1, 3},
        {ESTUARY_IMAGE_3D, 16, 8, 4, 0, 0, 0, 5, 1, 3},
        {ESTUARY_IMAGE_2D_ARRAY, 8, 8, 0, 3, 2, ESTUARY_ALLOC_SINGLE, 2, 3, 1},
        {ESTUARY_IMAGE_CUBE, 16, 16, 0, 0, 1, 0, 1, 6, 3},
        {ESTUARY_IMAGE_1D, 64, 1, 0, 0, 0, ESTUARY_ALLOC_SINGLE, 7, 1, 1},
    };
    for (const Case& c : cases) {
        estuary_image_desc d{.format = ESTUARY_FORMAT_RGBA16_FLOAT,
                             .kind = c.kind,
                             .width = c.w,
                             .height = c.h,
                             .depth = c.d,
                             .layers = c.layers,
                             .levels = c.levels};
        d.writer = ESTUARY_WRITER_HOST;
        d.flags = c.flags;
        Image image = v.image(d);
        estuary_image_info info{};
        check(estuary_get_image_info(image.get(), &info));
        EXPECT_EQ(info.levels, c.wantLevels) << c.kind;
        EXPECT_EQ(info.layers, c.wantLayers) << c.kind;
        EXPECT_EQ(info.copies, c.wantCopies) << c.kind;
        EXPECT_EQ(info.texel_bytes, 8u);
        EXPECT_EQ(info.writer, ESTUARY_WRITER_HOST);
        const uint32_t last = info.levels - 1;
        const auto side = [](uint32_t n, uint32_t level) {
            return uint64_t(std::max(1u, n >> level));
        };
        const uint64_t depth = c.kind == ESTUARY_IMAGE_3D ? c.d : 1;
        const uint64_t lastDepth = c.kind == ESTUARY_IMAGE_3D ? side(c.d, last) : 1;
        uint64_t bytes = 0;
        check(estuary_get_image_level_bytes(image.get(), 0, &bytes));
        EXPECT_EQ(bytes, uint64_t(c.w) * c.h * depth * c.wantLayers * 8) << c.kind;
        check(estuary_get_image_level_bytes(image.get(), last, &bytes));
        EXPECT_EQ(bytes, side(c.w, last) * side(c.h, last) * lastDepth * c.wantLayers * 8)
            << c.kind;
        EXPECT_REFUSED(check(estuary_get_image_level_bytes(image.get(), info.levels, &bytes)),
                       ESTUARY_ERROR_INVALID_ARGUMENT, "level");
    }
    const Buffer buffer = v.buffer({.size = 1000, .writer = ESTUARY_WRITER_HOST, .name = "bytes"});
    EXPECT_TRUE(buffer);
}

TEST_F(LibraryTest, RefusesBadImagesAndBuffersSayingWhy) {
    Viewer& v = open();
    estuary_image_desc d = hostImage(0, 8);
    EXPECT_REFUSED(v.image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "at least 1");
    d = hostImage(16, 8);
    d.kind = ESTUARY_IMAGE_CUBE;
    EXPECT_REFUSED(v.image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "square");
    d = hostImage(16, 16);
    d.levels = 9;
    EXPECT_REFUSED(v.image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "9 mip levels", "1..5");
    d = hostImage(16, 16);
    d.format = outOfRange<estuary_format>(9);
    EXPECT_REFUSED(v.image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "format 9");
    d = hostImage(16, 16);
    d.depth = 4;
    EXPECT_REFUSED(v.image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "depth 4", "3D");
    d = hostImage(16, 16);
    d.writer = ESTUARY_WRITER_CUDA;
    EXPECT_REFUSED(v.image(d), ESTUARY_ERROR_UNSUPPORTED, "needs CUDA", "ESTUARY_WRITER_HOST");
    d = hostImage(16, 16);
    d.flags = 0x80;
    EXPECT_REFUSED(v.image(d), ESTUARY_ERROR_INVALID_ARGUMENT, "unknown flags");
    EXPECT_REFUSED(v.buffer({.size = 0, .writer = ESTUARY_WRITER_HOST}),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "size 0");
    // Views over the wrong kind of image, a points count past the buffer.
    Image volume = v.image({.format = ESTUARY_FORMAT_R32_FLOAT,
                            .kind = ESTUARY_IMAGE_3D,
                            .width = 8,
                            .height = 8,
                            .depth = 8,
                            .writer = ESTUARY_WRITER_HOST});
    EXPECT_REFUSED(v.fieldView({.image = volume.get()}), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "not a 2D image");
    Image flat = v.image(hostImage(8, 8));
    EXPECT_REFUSED(v.volumeView({.image = flat.get()}), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "not a 3D image");
    Buffer points = v.buffer({.size = 64, .writer = ESTUARY_WRITER_HOST});
    estuary_points_view_desc p{.buffer = points.get()};
    p.count = 5;
    EXPECT_REFUSED(v.pointsView(p), ESTUARY_ERROR_INVALID_ARGUMENT, "count 5", "4 points");
    estuary_field_view_desc f{.image = flat.get()};
    f.value_min = 1.0f;
    f.value_max = 0.5f;
    EXPECT_REFUSED(v.fieldView(f), ESTUARY_ERROR_INVALID_ARGUMENT, "value_min", "below value_max");
    EXPECT_REFUSED(v.fieldView({.image = nullptr}), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "image is NULL");
}

// Each frame writes its index into every texel of an image and into a buffer; the frame reads
// texel (0, 0) and the buffer's first word in its own draw submission, before the draw and after
// it. A draw that saw another frame's data (or a write that landed while drawing) shows there.
void everyDrawSeesItsOwnFrame(uint32_t framesInFlight) {
    Viewer v(headless(framesInFlight, 64, 64));
    Image image = v.image(hostImage(16, 16));
    Buffer buffer = v.buffer({.size = 64, .writer = ESTUARY_WRITER_HOST, .name = "points"});
    const View shownField = v.fieldView({.image = image.get()});
    estuary_points_view_desc points{.buffer = buffer.get()};
    const View shownPoints = v.pointsView(points);
    constexpr uint32_t kFrames = 40;
    std::vector<float> before(kFrames, -1), after(kFrames, -1), word(kFrames, -1);
    for (uint32_t f = 0; f < kFrames; ++f) {
        const Frame frame = v.beginFrame();
        ASSERT_EQ(frame.index(), f);
        float* texels = frame.hostLevel<float>(image);
        std::fill(texels, texels + 16 * 16, float(f));
        float* bytes = frame.hostPointer<float>(buffer);
        std::fill(bytes, bytes + 16, float(f));
        frame.readImage(image, 0, 0, 0, 1, 1, &before[f]);
        frame.readImage(image, 0, 0, 0, 1, 1, &after[f], ESTUARY_READ_AFTER_DRAW);
        frame.readBuffer(buffer, 0, 4, &word[f]);
        frame.end();
    }
    v.finish();
    for (uint32_t f = 0; f < kFrames; ++f) {
        EXPECT_EQ(before[f], float(f)) << "frame " << f << ", " << framesInFlight << " in flight";
        EXPECT_EQ(after[f], float(f)) << "frame " << f << ", " << framesInFlight << " in flight";
        EXPECT_EQ(word[f], float(f)) << "frame " << f << ", " << framesInFlight << " in flight";
    }
    EXPECT_EQ(v.close(), 0u);
}

TEST(Library, EveryDrawSeesItsOwnFrameForOneToThirtyTwoFramesInFlight) {
    for (uint32_t n : {1u, 2u, 3u, 5u, 8u, 9u, 16u, 32u})
        everyDrawSeesItsOwnFrame(n);
}

// The viridis table's first and last entries, as the colormap file has them.
constexpr std::array<int, 3> kViridisFirst{68, 1, 84}, kViridisLast{253, 231, 37};

TEST_F(LibraryTest, FieldViewDrawsItsValuesThroughTheColormapLetterboxed) {
    Viewer& v = open(headless(2, 128, 128));
    Image image = v.image(hostImage(64, 32));
    estuary_field_view_desc view{.image = image.get()};
    view.flags = ESTUARY_VIEW_NO_COLORBAR;
    const View shown = v.fieldView(view);
    const Frame frame = v.beginFrame();
    float* texels = frame.hostLevel<float>(image);
    for (uint32_t y = 0; y < 32; ++y)
        for (uint32_t x = 0; x < 64; ++x)
            texels[y * 64 + x] = x < 32 ? 0.0f : 1.0f; // the mips of the halves: 0 and 1
    for (uint32_t level = 1; level < 7; ++level) {
        const uint32_t w = std::max(64u >> level, 1u), h = std::max(32u >> level, 1u);
        float* l = frame.hostLevel<float>(image, level);
        for (uint32_t y = 0; y < h; ++y)
            for (uint32_t x = 0; x < w; ++x)
                l[y * w + x] = x < w / 2 ? 0.0f : 1.0f;
    }
    frame.end();
    const auto rgba = pixels();
    EXPECT_TRUE(near(pixelAt(rgba, 20, 64), kViridisFirst));
    EXPECT_TRUE(near(pixelAt(rgba, 108, 64), kViridisLast));
    EXPECT_TRUE(near(pixelAt(rgba, 64, 8), {20, 20, 26})) << "letterbox: the background";
    v.setBackground(1.0f, 0.0f, 0.0f);
    const Frame again = v.beginFrame();
    again.end();
    EXPECT_TRUE(near(pixelAt(pixels(), 64, 8), {255, 0, 0}));
}

TEST_F(LibraryTest, ColorbarIsDrawnBesideTheFieldUnlessHidden) {
    Viewer& v = open(headless(2, 256, 256));
    Image image = v.image(hostImage(16, 16));
    View field = v.fieldView({.image = image.get()});
    const auto draw = [&] {
        const Frame frame = v.beginFrame();
        std::fill_n(frame.hostLevel<float>(image), 256, 0.0f);
        frame.end();
        return pixels();
    };
    const auto with = draw();
    field.destroy();
    estuary_field_view_desc hidden{.image = image.get()};
    hidden.flags = ESTUARY_VIEW_NO_COLORBAR;
    const View shown = v.fieldView(hidden);
    const auto without = draw();
    // The bar sits at the right edge, centred vertically: its top (the range's end) is viridis'
    // last colour; without it, the field is viridis' first there.
    int differing = 0;
    for (uint32_t y = 80; y < 176; ++y)
        for (uint32_t x = 220; x < 250; ++x)
            differing += !near(pixelAt(with, x, y), pixelAt(without, x, y), 8);
    EXPECT_GT(differing, 200);
    EXPECT_TRUE(near(pixelAt(without, 235, 128), kViridisFirst));
}

TEST_F(LibraryTest, GeneratedMipsAreTheBoxMeansOfLevelZero) {
    Viewer& v = open();
    estuary_image_desc d = hostImage(8, 8);
    d.flags = ESTUARY_IMAGE_GENERATE_MIPS;
    Image image = v.image(d);
    const View shown = v.fieldView({.image = image.get()});
    std::vector<float> level1(16, -1), level3(1, -1);
    const Frame frame = v.beginFrame();
    float* texels = frame.hostLevel<float>(image);
    for (int i = 0; i < 64; ++i)
        texels[i] = float(i);
    EXPECT_REFUSED(frame.hostLevel(image, 1), ESTUARY_ERROR_INVALID_ARGUMENT, "level 0 only");
    frame.readImage(image, 1, 0, 0, 4, 4, level1.data());
    frame.readImage(image, 3, 0, 0, 1, 1, level3.data());
    frame.end();
    v.finish();
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4; ++x) {
            const int i = 2 * y * 8 + 2 * x;
            const float mean = 0.25f * float(i + (i + 1) + (i + 8) + (i + 9));
            EXPECT_NEAR(level1[size_t(y * 4 + x)], mean, 1e-4f) << x << "," << y;
        }
    EXPECT_NEAR(level3[0], 31.5f, 1e-3f); // the mean of 0..63
}

TEST_F(LibraryTest, PointsViewDrawsEachPointAtItsCell) {
    Viewer& v = open(headless(2, 64, 64));
    Image image = v.image(hostImage(16, 16));
    estuary_field_view_desc field{.image = image.get()};
    field.flags = ESTUARY_VIEW_NO_COLORBAR;
    const View shownField = v.fieldView(field);
    Buffer buffer =
        v.buffer({.size = 3 * 16, .writer = ESTUARY_WRITER_HOST, .name = "three points"});
    estuary_points_view_desc points{.buffer = buffer.get()};
    points.size = 3.0f;
    View view = v.pointsView(points);
    const auto draw = [&] {
        const Frame frame = v.beginFrame();
        std::fill_n(frame.hostLevel<float>(image), 256, 0.0f);
        const float data[12] = {2, 2, 1, 0, 13, 3, 1, 0, 8, 12, 1, 0}; // x, y, vx, vy
        std::memcpy(frame.hostPointer(buffer), data, sizeof(data));
        frame.end();
        return pixels();
    };
    const auto with = draw();
    view.setVisible(false);
    const auto without = draw();
    // Cell (i, j) of the 16x16 field covers pixels 4i..4i+3: the point at its centre.
    for (auto [cx, cy] : {std::pair{2, 2}, {13, 3}, {8, 12}}) {
        const uint32_t x = uint32_t(4 * cx + 2), y = uint32_t(4 * cy + 2);
        EXPECT_GT(pixelAt(with, x, y)[1], pixelAt(without, x, y)[1] + 20) << cx << "," << cy;
    }
    EXPECT_TRUE(near(pixelAt(with, 40, 40), pixelAt(without, 40, 40), 0)) << "where no point is";
}

TEST_F(LibraryTest, VolumeViewsMarchAndSliceA3dImage) {
    Viewer& v = open(headless(2, 96, 96));
    estuary_image_desc d{.format = ESTUARY_FORMAT_R32_FLOAT,
                         .kind = ESTUARY_IMAGE_3D,
                         .width = 16,
                         .height = 16,
                         .depth = 16};
    d.writer = ESTUARY_WRITER_HOST;
    d.flags = ESTUARY_IMAGE_GENERATE_MIPS;
    Image image = v.image(d);
    estuary_volume_view_desc march{.image = image.get()};
    march.opacity = 4.0f;
    View view = v.volumeView(march);
    const auto draw = [&] {
        const Frame frame = v.beginFrame();
        float* texels = frame.hostLevel<float>(image);
        for (int z = 0; z < 16; ++z)
            for (int y = 0; y < 16; ++y)
                for (int x = 0; x < 16; ++x)
                    texels[(z * 16 + y) * 16 + x] =
                        std::hypot(x - 7.5, y - 7.5, z - 7.5) < 6 ? 1.0f : 0.0f;
        frame.end();
        return pixels();
    };
    const auto marched = draw();
    EXPECT_FALSE(near(pixelAt(marched, 48, 48), {20, 20, 26})) << "the sphere is in the middle";
    EXPECT_TRUE(near(pixelAt(marched, 1, 1), {20, 20, 26})) << "the corner sees background";
    view.update([](estuary_view_params& p) {
        p.style = ESTUARY_VOLUME_SLICE;
        p.slice_axis = 2;
        p.slice_position = 0.5f;
    });
    const auto sliced = draw();
    // Left of the middle: the colorbar's labels sit right of it.
    EXPECT_TRUE(near(pixelAt(sliced, 24, 48), kViridisLast, 6)) << "inside the sphere: 1";
    EXPECT_REFUSED(view.update([](estuary_view_params& p) { p.slice_axis = 3; }),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "slice_axis");
    EXPECT_REFUSED(view.update([](estuary_view_params& p) { p.value_max = NAN; }),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "finite");
}

TEST_F(LibraryTest, ThreeDPointsAreDrawnUnderTheOrbitCamera) {
    Viewer& v = open(headless(2, 64, 64));
    Buffer buffer = v.buffer({.size = 16, .writer = ESTUARY_WRITER_HOST});
    estuary_points_view_desc points{.buffer = buffer.get(), .layout = ESTUARY_POINTS_XYZ_SCALAR};
    points.size = 5.0f;
    const View shown = v.pointsView(points);
    v.setCamera({.zoom = 1.0f}); // looking along +z at the unit cube's centre
    const Frame frame = v.beginFrame();
    const float origin[4] = {0, 0, 0, 1};
    std::memcpy(frame.hostPointer(buffer), origin, sizeof(origin));
    frame.end();
    const auto rgba = pixels();
    // Points add their colour to the picture: viridis' end over the background, saturating.
    EXPECT_TRUE(near(pixelAt(rgba, 32, 32), {255, 251, 63}, 6)) << "the point at the centre";
    EXPECT_TRUE(near(pixelAt(rgba, 5, 5), {20, 20, 26}));
}

TEST_F(LibraryTest, ThreeDPointsAndVolumesAgreeWhichWayIsUp) {
    // A volume lit only in its first rows (y < 4 of 16: the top of the picture, as 2D images
    // show row 0) and a 3D point at y = -0.2 (the same side of the box, below those rows): both in
    // the top half.
    Viewer& v = open(headless(2, 64, 64));
    estuary_image_desc d{.format = ESTUARY_FORMAT_R32_FLOAT,
                         .kind = ESTUARY_IMAGE_3D,
                         .width = 16,
                         .height = 16,
                         .depth = 16};
    d.writer = ESTUARY_WRITER_HOST;
    Image image = v.image(d);
    estuary_volume_view_desc march{.image = image.get()};
    march.opacity = 4.0f;
    march.flags = ESTUARY_VIEW_NO_COLORBAR;
    const View shownVolume = v.volumeView(march);
    Buffer buffer = v.buffer({.size = 16, .writer = ESTUARY_WRITER_HOST});
    estuary_points_view_desc points{.buffer = buffer.get(), .layout = ESTUARY_POINTS_XYZ_SCALAR};
    points.size = 3.0f;
    points.intensity = 1.0f;
    points.colormap = ESTUARY_COLORMAP_MAGMA;
    const View shownPoints = v.pointsView(points);
    v.setCamera({.zoom = 1.0f}); // looking along +z, x to the right
    const Frame frame = v.beginFrame();
    float* texels = frame.hostLevel<float>(image);
    for (int i = 0; i < 16 * 16 * 16; ++i)
        texels[i] = (i / 16) % 16 < 4 ? 1.0f : 0.0f;
    const float point[4] = {0.0f, -0.2f, -0.5f, 0.5f}; // on the box's near face
    std::memcpy(frame.hostPointer(buffer), point, sizeof(point));
    frame.end();
    const auto rgba = pixels();
    const auto lit = [&](uint32_t y) { return pixelAt(rgba, 32, y)[1] > 80; };
    EXPECT_TRUE(lit(22)) << "the volume's first rows at the top";
    EXPECT_FALSE(lit(42)) << "its last rows dark at the bottom";
    // The point: magma's middle (red over green), above the centre.
    int pointRow = -1;
    for (uint32_t y = 0; y < 64; ++y)
        if (pixelAt(rgba, 32, y)[0] > pixelAt(rgba, 32, y)[1] + 60) pointRow = int(y);
    EXPECT_GE(pointRow, 0) << "the point is drawn";
    EXPECT_LT(pointRow, 32) << "above the centre, where the volume's first rows are";
}

TEST_F(LibraryTest, StatsArriveForEveryFrameInOrderAndMetricsCountThem) {
    Viewer& v = open(headless(3));
    Image image = v.image(hostImage(32, 32));
    const View shown = v.fieldView({.image = image.get()});
    for (int f = 0; f < 25; ++f) {
        const Frame frame = v.beginFrame();
        std::fill_n(frame.hostLevel<float>(image), 32 * 32, 0.5f);
        frame.end();
    }
    v.finish();
    estuary_frame_stats s{};
    for (uint64_t f = 0; f < 25; ++f) {
        ASSERT_TRUE(v.nextFrameStats(s)) << f;
        EXPECT_EQ(s.frame, f);
        EXPECT_TRUE(std::isfinite(s.host_busy_us) && s.host_busy_us > 0);
        EXPECT_TRUE(std::isfinite(s.begin_us) && s.begin_us <= s.end_us);
        EXPECT_TRUE(std::isnan(s.cuda_ms)) << "no CUDA here";
        EXPECT_TRUE(std::isnan(s.handoff_ms));
        if (f < 24) {
            EXPECT_TRUE(std::isfinite(s.interval_ms)) << f;
        }
    }
    EXPECT_FALSE(v.nextFrameStats(s));
    const estuary_metrics m = v.metrics();
    EXPECT_EQ(m.frames_drawn, 25u);
    EXPECT_GT(m.allocated_device_bytes, 32u * 32 * 4);
    EXPECT_GT(m.allocated_host_bytes, 0u);
    EXPECT_GT(m.host_available, 0u) << "MemAvailable, which the app checks its runs against";
}

TEST_F(LibraryTest, ScreenshotIsAWholePngOrAnErrorNamingThePath) {
    Viewer& v = open(headless(2, 40, 30));
    Image image = v.image(hostImage(8, 8));
    const View shown = v.fieldView({.image = image.get()});
    EXPECT_REFUSED(v.screenshot("never.png"), ESTUARY_ERROR_INVALID_ARGUMENT, "no frame");
    const Frame frame = v.beginFrame();
    std::fill_n(frame.hostLevel<float>(image), 64, 0.25f);
    frame.end();
    const auto dir = test::scratchDir("library-screenshot");
    v.screenshot((dir / "picture.png").string());
    const test::Rgba8Image png = test::loadPng(dir / "picture.png");
    EXPECT_EQ(png.width, 40);
    EXPECT_EQ(png.height, 30);
    EXPECT_EQ(png.pixels, pixels());
    const std::string dirText = dir.string();
    // A folder is a wrong argument, as the app's --screenshot of a folder is exit 2 (usage).
    EXPECT_REFUSED(v.screenshot(dirText), ESTUARY_ERROR_INVALID_ARGUMENT, dirText.c_str(),
                   "folder");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1) << "nothing else";
    std::vector<uint8_t> small(10);
    EXPECT_EQ(estuary_read_pixels(v.get(), small.data(), small.size()),
              ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("40x30"), std::string::npos);
}

TEST_F(LibraryTest, FrameCallsOutsideTheirFrameAreRefused) {
    Viewer& v = open();
    Image image = v.image(hostImage(8, 8));
    const Frame frame = v.beginFrame();
    EXPECT_REFUSED(v.beginFrame(), ESTUARY_ERROR_INVALID_ARGUMENT, "has begun and not ended");
    EXPECT_REFUSED(v.image(hostImage(4, 4)), ESTUARY_ERROR_INVALID_ARGUMENT, "between frames");
    frame.end();
    // An ended frame's handle is stale: refused as a handle, not as an argument.
    EXPECT_REFUSED(frame.end(), ESTUARY_ERROR_INVALID_HANDLE, "has ended");
    EXPECT_REFUSED(frame.hostLevel(image), ESTUARY_ERROR_INVALID_HANDLE, "has ended");
    const Frame next = v.beginFrame();
    EXPECT_REFUSED(next.surfaceHandle(image), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "written by the host");
    EXPECT_REFUSED(next.hostLevel(image, 4), ESTUARY_ERROR_INVALID_ARGUMENT, "level 4 of 4");
    EXPECT_REFUSED(next.readImage(image, 0, 6, 6, 4, 4, nullptr), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "destination is NULL");
    float sink = 0;
    EXPECT_REFUSED(next.readImage(image, 0, 6, 6, 4, 4, &sink), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "not inside level 0");
    std::vector<uint8_t> bytes(100);
    EXPECT_REFUSED(next.copyToImage(image, bytes.data(), bytes.size()),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "256 bytes", "100 were given");
    next.end();
}

TEST_F(LibraryTest, AnImageADrawnViewUsesIsKeptUntilTheViewGoes) {
    Viewer& v = open();
    Image image = v.image(hostImage(8, 8));
    View view = v.fieldView({.image = image.get()});
    EXPECT_EQ(estuary_destroy_image(v.get(), image.get()), ESTUARY_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(estuary_last_error()).find("destroy them first"), std::string::npos);
    v.destroyView(view);
    image.reset();
    EXPECT_FALSE(image);
    // Handles of another viewer are refused as handles.
    Viewer other(headless());
    Image foreign = other.image(hostImage(8, 8));
    EXPECT_REFUSED(v.fieldView({.image = foreign.get()}), ESTUARY_ERROR_INVALID_HANDLE,
                   "another viewer");
    foreign.reset();
    EXPECT_EQ(other.close(), 0u);
}

// Owners that outlive their viewer (closed first, or declared before it) hold nothing: the viewer
// freed their handles, and their destructors must not touch them (they did, reading freed memory:
// a crash in about 1 run in 25 of the test above).
TEST(Library, OwnersOutlivingTheirViewerAreEmptyAndHarmless) {
    Image image;
    Buffer moved;
    {
        Viewer v(headless());
        image = v.image(hostImage(8, 8));
        Buffer buffer = v.buffer({.size = 64, .writer = ESTUARY_WRITER_HOST});
        moved = std::move(buffer);
        EXPECT_TRUE(image && moved);
        EXPECT_FALSE(buffer);
        Image closed = v.image(hostImage(8, 8));
        EXPECT_EQ(v.close(), 0u);
        EXPECT_FALSE(closed) << "an owner of a closed viewer";
        EXPECT_EQ(closed.get(), nullptr);
    }
    EXPECT_FALSE(image) << "an owner of a destroyed viewer";
    EXPECT_FALSE(moved);
    image.reset(); // nothing to free, nothing touched
    EXPECT_FALSE(image);
}

TEST_F(LibraryTest, CopyToImageUploadsHostBytesIntoTheFramesCopy) {
    Viewer& v = open();
    Image image = v.image(hostImage(4, 4));
    const View shown = v.fieldView({.image = image.get()});
    std::vector<float> source(16), seen(16, -1);
    for (int i = 0; i < 16; ++i)
        source[size_t(i)] = float(i) * 0.5f;
    const Frame frame = v.beginFrame();
    frame.copyToImage(image, source.data(), source.size() * sizeof(float));
    frame.readImage(image, 0, 0, 0, 4, 4, seen.data());
    frame.end();
    v.finish();
    EXPECT_EQ(seen, source);
}

TEST_F(LibraryTest, InjectedFaultsReportWhatFailed) {
    Viewer& v = open();
    check(estuary_inject_fault(v.get(), ESTUARY_FAULT_ALLOC_FAIL, 0));
    EXPECT_REFUSED(v.image(hostImage(8, 8)), ESTUARY_ERROR_OUT_OF_MEMORY, "out of GPU memory");
    Image image = v.image(hostImage(8, 8)); // the fault was for one allocation
    check(estuary_inject_fault(v.get(), ESTUARY_FAULT_DEVICE_LOST, 1));
    v.beginFrame().end();
    const Frame second = v.beginFrame();
    EXPECT_REFUSED(second.end(), ESTUARY_ERROR_DEVICE_LOST, "device was lost");
    EXPECT_REFUSED(v.beginFrame(), ESTUARY_ERROR_DEVICE_LOST, "failed earlier", "destroy it");
    EXPECT_EQ(estuary_inject_fault(v.get(), outOfRange<estuary_fault>(9), 0),
              ESTUARY_ERROR_INVALID_ARGUMENT);
}

TEST_F(LibraryTest, DisplayRunsUntilTheCallbackStopsOrTheCapFromTheEnvironment) {
    Viewer& v = open();
    Image image = v.image(hostImage(8, 8));
    const View shown = v.fieldView({.image = image.get()});
    uint64_t calls = 0;
    v.display([&](Frame& frame) {
        std::fill_n(frame.hostLevel<float>(image), 64, 0.0f);
        return ++calls < 7;
    });
    EXPECT_EQ(calls, 7u);
    EXPECT_EQ(v.nextFrameIndex(), 7u);
    const auto dir = test::scratchDir("library-display");
    {
        const test::ScopedEnv env(
            {{"ESTUARY_FRAMES", "5"}, {"ESTUARY_SCREENSHOT", (dir / "last.png").string()}});
        v.display([&](Frame& frame) { std::fill_n(frame.hostLevel<float>(image), 64, 1.0f); });
    }
    EXPECT_EQ(v.nextFrameIndex(), 12u);
    EXPECT_EQ(test::loadPng(dir / "last.png").width, 128);
    const test::ScopedEnv bad(test::ScopedEnv::Settings{{"ESTUARY_FRAMES", "12x"}});
    EXPECT_REFUSED(v.display([](Frame&) {}), ESTUARY_ERROR_INVALID_ARGUMENT, "ESTUARY_FRAMES=12x");
}

TEST_F(LibraryTest, ViewParamsAndTheCameraAreCheckedAndKept) {
    Viewer& v = open();
    Image image = v.image(hostImage(8, 8));
    View view = v.fieldView({.image = image.get()});
    estuary_view_params p = view.params();
    EXPECT_EQ(p.visible, 1);
    EXPECT_EQ(p.value_min, 0.0f);
    EXPECT_EQ(p.value_max, 1.0f);
    p.colormap = ESTUARY_COLORMAP_MAGMA;
    p.value_max = 4.0f;
    view.setParams(p);
    EXPECT_EQ(view.params().colormap, ESTUARY_COLORMAP_MAGMA);
    EXPECT_EQ(view.params().value_max, 4.0f);
    p.colormap = outOfRange<estuary_colormap>(40); // past the built-in ones, none made
    EXPECT_REFUSED(view.setParams(p), ESTUARY_ERROR_INVALID_ARGUMENT, "colormap 40");
    v.setCamera({.zoom = 2.0f,
                 .pan_x = 0.1f,
                 .pan_y = -0.2f,
                 .yaw_degrees = 45.0f,
                 .pitch_degrees = 10.0f});
    EXPECT_EQ(v.camera().zoom, 2.0f);
    EXPECT_NEAR(v.camera().yaw_degrees, 45.0f, 1e-4f);
    EXPECT_REFUSED(v.setCamera({.zoom = 0.0f}), ESTUARY_ERROR_INVALID_ARGUMENT, "zoom");
    EXPECT_REFUSED(v.setCamera({.zoom = 1.0f, .pitch_degrees = 90.0f}),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "pitch");
    EXPECT_REFUSED(v.setBackground(2.0f, 0, 0), ESTUARY_ERROR_INVALID_ARGUMENT, "0..1");
}

} // namespace
} // namespace estuary
