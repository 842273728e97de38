// Panels (estuary_set_layout) headless on lavapipe under validation, with the raster path and with
// the compute one: each panel of a 2 x 2 layout draws its own views under its own camera exactly
// as a picture of the panel's size draws them (fields letterboxed, markers placed over the
// panel's own field, markers in their bounds, a mesh under its orbit camera, text at pixels and
// in the view's coordinates); relative sizes and gaps; linked cameras move
// together and others do not; the mouse moves the camera of the panel under it; picks find a
// view only in its panel and name the panel; screenshots show the layout; bad layouts, panels
// and moves are refused naming the value.
#include "library_support.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <vector>

namespace estuary {
namespace {

using test::compareRgba8;
using test::ImageDiff;
using test::loadPng;
using test::Rgba8Image;
using test::scratchDir;

struct Marker {
    float x, y, z, value;
    float dx, dy, dz, size;
};

constexpr uint32_t kSide = 128; // the 2 x 2 picture; each panel is 64 x 64

// What a panel shows: fields (A 16 x 16, B 16 x 8 and so letterboxed) and markers, written by
// the host each frame, and the camera it shows them under.
struct Scene {
    Image a, b;
    Buffer markers, inCells; // in their unit square; in A's cells (16 times further)
    Buffer tetrahedron;      // 4 triangles of (x, y, z, value) vertices
    std::vector<View> views;
};

float fieldA(uint32_t x, uint32_t y) {
    return 0.7f * float(x) / 15.0f + 0.3f * float(y) / 15.0f;
}
float fieldB(uint32_t x, uint32_t y) {
    return float((x / 4 + y / 2) % 3) / 2.0f;
}
const std::vector<Marker> kMarkers = {{0.25f, 0.25f, 0, 0.1f, 0, 0, 0, 0},
                                      {0.7f, 0.4f, 0, 0.6f, 0, 0, 0, 0},
                                      {0.4f, 0.8f, 0, 0.9f, 0, 0, 0, 0}};

Scene makeScene(Viewer& v) {
    Scene s{
        v.image(hostImage(16, 16, "A")),
        v.image(hostImage(16, 8, "B")),
        v.buffer({.size = kMarkers.size() * sizeof(Marker),
                  .writer = ESTUARY_WRITER_HOST,
                  .name = "markers"}),
        v.buffer({.size = kMarkers.size() * sizeof(Marker),
                  .writer = ESTUARY_WRITER_HOST,
                  .name = "markers in cells"}),
        v.buffer(
            {.size = 12 * 4 * sizeof(float), .writer = ESTUARY_WRITER_HOST, .name = "tetrahedron"}),
        {}};
    return s;
}

void writeScene(const Frame& frame, const Scene& s) {
    float* a = frame.hostLevel<float>(s.a);
    for (uint32_t y = 0; y < 16; ++y)
        for (uint32_t x = 0; x < 16; ++x)
            a[y * 16 + x] = fieldA(x, y);
    float* b = frame.hostLevel<float>(s.b);
    for (uint32_t y = 0; y < 8; ++y)
        for (uint32_t x = 0; x < 16; ++x)
            b[y * 16 + x] = fieldB(x, y);
    std::memcpy(frame.hostPointer(s.markers), kMarkers.data(), kMarkers.size() * sizeof(Marker));
    auto* cells = frame.hostPointer<Marker>(s.inCells);
    for (size_t i = 0; i < kMarkers.size(); ++i) {
        cells[i] = kMarkers[i];
        cells[i].x *= 16.0f;
        cells[i].y *= 16.0f;
    }
    const float corners[4][3] = {
        {0.4f, 0.4f, 0.4f}, {-0.4f, -0.4f, 0.4f}, {-0.4f, 0.4f, -0.4f}, {0.4f, -0.4f, -0.4f}};
    const int faces[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
    auto* vertex = frame.hostPointer<float>(s.tetrahedron);
    for (int f = 0; f < 4; ++f)
        for (int c : faces[f]) {
            std::copy(corners[c], corners[c] + 3, vertex);
            vertex[3] = 0.25f * float(f) + 0.1f;
            vertex += 4;
        }
}

estuary_markers_view_desc markersDesc(const Buffer& buffer, float size) {
    estuary_markers_view_desc d{.buffer = buffer.get(), .shape = ESTUARY_MARKER_SHAPE_DISC};
    d.size = size;
    d.colormap = ESTUARY_COLORMAP_PLASMA;
    return d;
}

// Panel p's views (added to `v`, drawn in `panel`) and camera.
void addPanel(Viewer& v, Scene& s, uint32_t p, uint32_t panel) {
    const auto in = [&](View view) {
        view.setPanel(panel);
        s.views.push_back(std::move(view));
    };
    switch (p) {
    case 0:
        in(v.fieldView({.image = s.a.get(), .flags = ESTUARY_VIEW_NO_COLORBAR}));
        break;
    case 1:
        in(v.fieldView({.image = s.b.get(),
                        .colormap = ESTUARY_COLORMAP_MAGMA,
                        .flags = ESTUARY_VIEW_NO_COLORBAR}));
        break;
    case 2: // markers placed in A's cells (the panel's own field)
        in(v.fieldView({.image = s.a.get(),
                        .colormap = ESTUARY_COLORMAP_CIVIDIS,
                        .flags = ESTUARY_VIEW_NO_COLORBAR}));
        in(v.markersView(markersDesc(s.inCells, 12.0f)));
        break;
    case 3: // markers in their own unit square, over the background
        in(v.markersView(markersDesc(s.markers, 20.0f)));
        break;
    case 5: { // text at pixels, and text in the unit square's coordinates under the camera
        estuary_text_view_desc screen{.text = "Ab", .position = {4.0f, 12.0f, 0.0f}};
        screen.size = 16.0f;
        in(v.textView(screen));
        estuary_text_view_desc world{.text = "xy", .position = {0.5f, 0.5f, 0.0f}};
        world.size = 20.0f;
        world.flags = ESTUARY_TEXT_WORLD;
        in(v.textView(world));
        break;
    }
    default: { // a mesh under the orbit camera (its depth image the panel's size)
        estuary_mesh_view_desc d{.vertices = s.tetrahedron.get()};
        d.shading = ESTUARY_MESH_FLAT;
        in(v.meshView(d));
        break;
    }
    }
}

estuary_camera cameraOf(uint32_t p) {
    const estuary_camera cameras[6] = {{.zoom = 1.5f, .pan_x = 0.1f, .pan_y = -0.05f},
                                       {.zoom = 1.0f},
                                       {.zoom = 2.0f, .pan_x = -0.2f},
                                       {.zoom = 0.8f, .pan_y = 0.1f},
                                       {.zoom = 1.2f, .yaw_degrees = 35.0f, .pitch_degrees = 25.0f},
                                       {.zoom = 1.5f, .pan_x = 0.1f}};
    return cameras[p];
}

std::vector<uint8_t> drawFrames(Viewer& v, const Scene& s, int frames = 2) {
    for (int f = 0; f < frames; ++f) {
        const Frame frame = v.beginFrame();
        writeScene(frame, s);
        frame.end();
    }
    v.finish();
    const estuary_viewer_info info = v.info();
    std::vector<uint8_t> rgba(size_t(info.width) * info.height * 4);
    check(estuary_read_pixels(v.get(), rgba.data(), rgba.size()));
    return rgba;
}

// The block of `rgba` (of `width` pixels a row) at (x, y), w x h.
std::vector<uint8_t> block(const std::vector<uint8_t>& rgba, uint32_t width, uint32_t x, uint32_t y,
                           uint32_t w, uint32_t h) {
    std::vector<uint8_t> out;
    for (uint32_t row = y; row < y + h; ++row)
        out.insert(out.end(), rgba.begin() + (size_t(row) * width + x) * 4,
                   rgba.begin() + (size_t(row) * width + x + w) * 4);
    return out;
}

size_t countBright(const std::vector<uint8_t>& rgba) {
    size_t bright = 0;
    for (size_t i = 0; i < rgba.size(); i += 4)
        bright += rgba[i] > 200 && rgba[i + 1] > 200 && rgba[i + 2] > 200;
    return bright;
}

class PanelsTest : public LibraryTest, public ::testing::WithParamInterface<estuary_draw_path> {
  protected:
    ViewerDesc desc(uint32_t width, uint32_t height) const {
        ViewerDesc d = headless(2, width, height);
        d.draw_path = GetParam();
        return d;
    }
    // Panel p's contents alone, in a picture of w x h: what the panel must show.
    std::vector<uint8_t> reference(uint32_t p, uint32_t w, uint32_t h) const {
        Viewer alone(desc(w, h));
        Scene s = makeScene(alone);
        addPanel(alone, s, p, 0);
        alone.setCamera(cameraOf(p));
        if (red) alone.setBackground(1.0f, 0.0f, 0.0f);
        const std::vector<uint8_t> rgba = drawFrames(alone, s);
        s.views.clear();
        EXPECT_EQ(alone.close(), 0u) << "validation messages (printed above)";
        return rgba;
    }
    bool red = false; // the background of both pictures
    SyncValidation sync;
};

TEST_P(PanelsTest, EachPanelOfATwoByTwoLayoutDrawsItsViewsAsAPictureOfItsSize) {
    Viewer& v = open(desc(kSide, kSide));
    v.setLayout(2, 2);
    Scene s = makeScene(v);
    for (uint32_t p = 0; p < 4; ++p) {
        addPanel(v, s, p, p);
        v.setPanelCamera(p, cameraOf(p));
    }
    const std::vector<uint8_t> rgba = drawFrames(v, s);
    for (uint32_t p = 0; p < 4; ++p) {
        const uint32_t x = (p % 2) * 64, y = (p / 2) * 64;
        const ImageDiff diff =
            compareRgba8(block(rgba, kSide, x, y, 64, 64), reference(p, 64, 64), 0);
        EXPECT_EQ(diff.maxAbsDiff, 0)
            << "panel " << p << ": " << diff.failingFraction << " of its pixels differ";
    }
    // The panels differ from one another: each shows its own views.
    EXPECT_NE(block(rgba, kSide, 0, 0, 64, 64), block(rgba, kSide, 64, 64, 64, 64));
    EXPECT_NE(block(rgba, kSide, 0, 0, 64, 64), block(rgba, kSide, 0, 64, 64, 64));
}

TEST_P(PanelsTest, RelativeSizesAndGapsPlaceThePanelsAndTheGapShowsTheBackground) {
    Viewer& v = open(desc(kSide, 64));
    red = true;
    v.setBackground(1.0f, 0.0f, 0.0f);
    v.setLayout(1, 2, {}, {1.0f, 3.0f}, 8.0f); // 120 pixels to share: 30 and 90
    Scene s = makeScene(v);
    addPanel(v, s, 0, 0);
    addPanel(v, s, 3, 1);
    v.setPanelCamera(0, cameraOf(0));
    v.setPanelCamera(1, cameraOf(3));
    EXPECT_EQ(v.panelAt(0.0f, 10.0f), 0u);
    EXPECT_EQ(v.panelAt(29.5f, 63.0f), 0u);
    EXPECT_EQ(v.panelAt(30.0f, 10.0f), ESTUARY_PANEL_NONE);
    EXPECT_EQ(v.panelAt(37.9f, 10.0f), ESTUARY_PANEL_NONE);
    EXPECT_EQ(v.panelAt(38.0f, 10.0f), 1u);
    EXPECT_EQ(v.panelAt(127.9f, 63.9f), 1u);
    EXPECT_EQ(v.panelAt(128.0f, 10.0f), ESTUARY_PANEL_NONE);
    const std::vector<uint8_t> rgba = drawFrames(v, s);
    EXPECT_EQ(compareRgba8(block(rgba, kSide, 0, 0, 30, 64), reference(0, 30, 64), 0).maxAbsDiff,
              0);
    EXPECT_EQ(compareRgba8(block(rgba, kSide, 38, 0, 90, 64), reference(3, 90, 64), 0).maxAbsDiff,
              0);
    for (uint32_t x = 30; x < 38; ++x)
        for (uint32_t y : {0u, 31u, 63u})
            EXPECT_TRUE(near(pixelAt(rgba, x, y), {255, 0, 0}, 1))
                << "gap pixel " << x << ", " << y;
}

TEST_P(PanelsTest, AMeshDrawsInItsPanelUnderThePanelsOrbitCamera) {
    Viewer& v = open(desc(64, 96));
    v.setLayout(2, 1, {2.0f, 1.0f}); // 64 and 32 rows
    Scene s = makeScene(v);
    addPanel(v, s, 4, 0);
    addPanel(v, s, 0, 1);
    v.setPanelCamera(0, cameraOf(4));
    v.setPanelCamera(1, cameraOf(0));
    const std::vector<uint8_t> rgba = drawFrames(v, s);
    const std::vector<uint8_t> mesh = reference(4, 64, 64);
    EXPECT_EQ(compareRgba8(block(rgba, 64, 0, 0, 64, 64), mesh, 0).maxAbsDiff, 0);
    EXPECT_EQ(compareRgba8(block(rgba, 64, 0, 64, 64, 32), reference(0, 64, 32), 0).maxAbsDiff, 0);
    EXPECT_NE(mesh[(32 * 64 + 32) * 4], mesh[0]) << "the tetrahedron covers the panel's middle";
}

TEST_P(PanelsTest, TextDrawsInItsPanelAtItsPixelsAndUnderThePanelsCamera) {
    Viewer& v = open(desc(kSide, 64));
    v.setLayout(1, 2);
    Scene s = makeScene(v);
    addPanel(v, s, 0, 0);
    addPanel(v, s, 5, 1);
    v.setPanelCamera(0, cameraOf(0));
    v.setPanelCamera(1, cameraOf(5));
    const std::vector<uint8_t> rgba = drawFrames(v, s);
    const std::vector<uint8_t> text = reference(5, 64, 64);
    EXPECT_EQ(compareRgba8(block(rgba, kSide, 0, 0, 64, 64), reference(0, 64, 64), 0).maxAbsDiff,
              0);
    EXPECT_EQ(compareRgba8(block(rgba, kSide, 64, 0, 64, 64), text, 0).maxAbsDiff, 0);
    EXPECT_GT(countBright(text), 20u) << "the texts are drawn";
}

TEST_P(PanelsTest, PicksFindAViewOnlyInItsPanelAndNameThePanel) {
    Viewer& v = open(desc(kSide, kSide));
    v.setLayout(2, 2);
    Scene s = makeScene(v);
    addPanel(v, s, 3, 3); // markers 20 pixels across in panel 3 (bottom right), camera 1
    const View& markers = s.views.back();
    // Marker 1 at (0.7, 0.4) of the panel's square: pixel (64 + 44.8, 64 + 25.6).
    estuary_pick inPanel{}, samePlaceInPanel0{}, beside{};
    const Frame frame = v.beginFrame();
    writeScene(frame, s);
    frame.pick(markers, 64.0f + 44.8f, 64.0f + 25.6f, 0.0f, &inPanel);
    frame.pick(markers, 44.8f, 25.6f, 0.0f, &samePlaceInPanel0);
    frame.pick(markers, 64.0f + 16.0f, 64.0f + 16.0f, 2.0f, &beside); // marker 0, 16 pixels in
    frame.end();
    v.finish();
    EXPECT_EQ(inPanel.hit, 1);
    EXPECT_EQ(inPanel.element, 1u);
    EXPECT_EQ(inPanel.panel, 3u);
    EXPECT_FLOAT_EQ(inPanel.value, 0.6f);
    EXPECT_EQ(samePlaceInPanel0.hit, 0) << "the view is not drawn in panel 0";
    EXPECT_EQ(samePlaceInPanel0.panel, 0u);
    EXPECT_EQ(beside.hit, 1);
    EXPECT_EQ(beside.element, 0u);
    EXPECT_EQ(beside.panel, 3u);
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, PanelsTest,
                         ::testing::Values(ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE),
                         [](const auto& path) {
                             return path.param == ESTUARY_DRAW_RASTER ? "Raster" : "Compute";
                         });

TEST_F(LibraryTest, LinkedPanelsShareACameraAndOthersKeepTheirOwn) {
    Viewer& v = open(headless(2, 64, 64));
    v.setLayout(2, 2);
    v.setPanelCamera(2, {.zoom = 3.0f});
    v.linkCamera(2, 7);
    v.linkCamera(0, 7); // joins the link: takes panel 2's camera
    EXPECT_EQ(v.panelCamera(0).zoom, 3.0f);
    v.setPanelCamera(0, {.zoom = 2.0f, .pan_x = 0.25f});
    EXPECT_EQ(v.panelCamera(2).zoom, 2.0f);
    EXPECT_EQ(v.panelCamera(2).pan_x, 0.25f);
    EXPECT_EQ(v.panelCamera(1).zoom, 1.0f) << "an unlinked panel keeps its camera";
    EXPECT_EQ(v.panelCamera(3).zoom, 1.0f);
    EXPECT_EQ(v.camera().zoom, 2.0f) << "estuary_get_camera is panel 0's";
    v.setCamera({.zoom = 4.0f});
    EXPECT_EQ(v.panelCamera(2).zoom, 4.0f);
    v.linkCamera(2, 0); // leaves the link
    v.setPanelCamera(0, {.zoom = 1.5f});
    EXPECT_EQ(v.panelCamera(2).zoom, 4.0f);
}

// The wheel over a panel zooms that panel's camera (and those linked to it) only; a drag that
// began in a panel pans that panel's camera wherever the cursor goes.
TEST_F(LibraryTest, TheMouseMovesTheCameraOfThePanelUnderIt) {
    Viewer& v = open(headless(2, 128, 128));
    v.setLayout(2, 2);
    Image field = v.image(hostImage(16, 16));
    std::vector<View> views;
    for (uint32_t p = 0; p < 4; ++p) {
        views.push_back(v.fieldView({.image = field.get()}));
        views.back().setPanel(p);
    }
    v.linkCamera(1, 5);
    v.linkCamera(2, 5);
    const auto inject = [&](estuary_event e) { check(estuary_inject_event(v.get(), &e)); };
    const auto frame = [&] {
        const Frame f = v.beginFrame();
        std::fill_n(f.hostLevel<float>(field), 256, 0.5f);
        f.end();
    };
    inject({.kind = ESTUARY_EVENT_CURSOR, .x = 100.0, .y = 30.0}); // over panel 1
    inject({.kind = ESTUARY_EVENT_SCROLL, .y = 2.0});
    frame();
    const float zoomed = v.panelCamera(1).zoom;
    EXPECT_GT(zoomed, 1.2f);
    EXPECT_EQ(v.panelCamera(2).zoom, zoomed) << "panel 2 is linked to panel 1";
    EXPECT_EQ(v.panelCamera(0).zoom, 1.0f);
    EXPECT_EQ(v.panelCamera(3).zoom, 1.0f);
    // Middle-drag from panel 3 (bottom right) 20 pixels left, ending over panel 2.
    const float panel2Before = v.panelCamera(2).pan_x; // the zoom about the cursor moved it
    inject({.kind = ESTUARY_EVENT_CURSOR, .x = 70.0, .y = 100.0});
    inject({.kind = ESTUARY_EVENT_BUTTON, .code = 2, .action = 1});
    inject({.kind = ESTUARY_EVENT_CURSOR, .x = 50.0, .y = 100.0});
    inject({.kind = ESTUARY_EVENT_BUTTON, .code = 2, .action = 0});
    frame();
    EXPECT_GT(v.panelCamera(3).pan_x, 0.1f) << "dragging left moves the view to the right";
    EXPECT_EQ(v.panelCamera(2).pan_x, panel2Before);
    EXPECT_EQ(v.panelCamera(0).pan_x, 0.0f);
    v.finish();
}

TEST_F(LibraryTest, AScreenshotShowsTheLayout) {
    Viewer& v = open(headless(2, 96, 64));
    v.setLayout(1, 2, {}, {}, 4.0f);
    v.setBackground(0.0f, 0.0f, 1.0f);
    Image field = v.image(hostImage(16, 16));
    const View shown = v.fieldView({.image = field.get()});
    {
        const Frame f = v.beginFrame();
        std::fill_n(f.hostLevel<float>(field), 256, 1.0f);
        f.end();
    }
    v.finish();
    const auto path = scratchDir("panels_screenshot") / "layout.png";
    v.screenshot(path.string());
    const Rgba8Image png = loadPng(path);
    ASSERT_EQ(png.width, 96);
    EXPECT_EQ(png.pixels, pixels());
    // Panel 0 (46 pixels wide) shows the field (viridis' last colour), the gap and panel 1 the
    // background.
    const auto at = [&](int x, int y) {
        const size_t i = (size_t(y) * 96 + size_t(x)) * 4;
        return std::array<int, 3>{png.pixels[i], png.pixels[i + 1], png.pixels[i + 2]};
    };
    EXPECT_TRUE(near(at(23, 32), {253, 231, 37}));
    EXPECT_TRUE(near(at(47, 32), {0, 0, 255}, 1));
    EXPECT_TRUE(near(at(70, 32), {0, 0, 255}, 1));
}

TEST_F(LibraryTest, TheOpenGlConsumerRefusesMoreThanOnePanel) {
    ViewerDesc d = headless(2, 64, 64);
    d.consumer = ESTUARY_CONSUMER_OPENGL;
    Viewer& v = open(d);
    EXPECT_REFUSED(v.setLayout(1, 2), ESTUARY_ERROR_UNSUPPORTED, "OpenGL", "one panel");
    v.setLayout(1, 1);
    v.setPanelCamera(0, {.zoom = 2.0f});
    EXPECT_EQ(v.camera().zoom, 2.0f);
}

// A window draws the layout, its screenshot (drawn again off screen) shows it, and a resize lays
// the panels out again.
TEST_F(LibraryTest, AWindowDrawsTheLayoutThroughAResize) {
    const char* display = std::getenv("DISPLAY");
    if (!display || !*display) GTEST_SKIP() << "no display: run under xvfb-run -a";
    ViewerDesc d = headless(2, 96, 64);
    d.display = ESTUARY_DISPLAY_WINDOW;
    d.flags |= ESTUARY_VIEWER_NO_UI;
    Viewer& v = open(d);
    v.setBackground(0.0f, 0.0f, 1.0f);
    v.setLayout(1, 2, {}, {}, 4.0f);
    Image field = v.image(hostImage(16, 16));
    const View shown = v.fieldView({.image = field.get(), .flags = ESTUARY_VIEW_NO_COLORBAR});
    const auto frame = [&] {
        const Frame f = v.beginFrame();
        std::fill_n(f.hostLevel<float>(field), 256, 1.0f);
        f.end();
    };
    const auto expectLayout = [&](uint32_t width) {
        const std::vector<uint8_t> rgba = pixels();
        const uint32_t half = (width - 4) / 2;
        EXPECT_TRUE(near(pixelAt(rgba, half / 2, 32), {253, 231, 37})) << width;
        EXPECT_TRUE(near(pixelAt(rgba, half + 2, 32), {0, 0, 255}, 1)) << width << ": the gap";
        EXPECT_TRUE(near(pixelAt(rgba, half + 4 + half / 2, 32), {0, 0, 255}, 1)) << width;
    };
    frame();
    v.finish();
    expectLayout(v.info().width);
    check(estuary_set_window_size(v.get(), 128, 64));
    for (int f = 0; f < 3; ++f) // the window system takes a frame or two to resize
        frame();
    v.finish();
    ASSERT_EQ(v.info().width, 128u);
    expectLayout(128);
}

TEST_F(LibraryTest, BadLayoutsPanelsAndMovesAreRefusedNamingTheValue) {
    Viewer& v = open(headless(2, 64, 64));
    EXPECT_REFUSED(v.setLayout(17, 1), ESTUARY_ERROR_INVALID_ARGUMENT, "17 rows", "1..16");
    EXPECT_REFUSED(v.setLayout(1, 2, {}, {1.0f, -1.0f}), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "column_widths[1]", "> 0");
    EXPECT_REFUSED(v.setLayout(2, 1, {1.0f, std::numeric_limits<float>::infinity()}),
                   ESTUARY_ERROR_INVALID_ARGUMENT, "row_heights[1]", "finite");
    EXPECT_REFUSED(v.setLayout(1, 2, {}, {}, -1.0f), ESTUARY_ERROR_INVALID_ARGUMENT, "gap_pixels",
                   "0..256");
    EXPECT_REFUSED(v.setLayout(1, 2, {}, {}, std::nanf("")), ESTUARY_ERROR_INVALID_ARGUMENT,
                   "gap_pixels");
    estuary_layout_desc zero{};
    check(estuary_set_layout(v.get(), &zero)); // 0 rows, 0 columns: one panel
    EXPECT_EQ(v.panelAt(63.0f, 63.0f), 0u);
    EXPECT_REFUSED(v.panelCamera(1), ESTUARY_ERROR_INVALID_ARGUMENT, "panel 1", "0..0");
    EXPECT_REFUSED(v.setPanelCamera(0, {.zoom = 0.0f}), ESTUARY_ERROR_INVALID_ARGUMENT, "zoom");
    EXPECT_REFUSED(v.linkCamera(3, 1), ESTUARY_ERROR_INVALID_ARGUMENT, "panel 3");
    estuary_panel_desc flags{};
    flags.flags = 0x80;
    EXPECT_REFUSED(v.setPanel(0, flags), ESTUARY_ERROR_INVALID_ARGUMENT, "unknown flags 128");
    uint32_t panel = 0;
    EXPECT_EQ(estuary_panel_at(v.get(), std::nanf(""), 1.0f, &panel),
              ESTUARY_ERROR_INVALID_ARGUMENT);
    Image field = v.image(hostImage(4, 4));
    View shown = v.fieldView({.image = field.get(), .label = "temperature"});
    EXPECT_REFUSED(shown.setPanel(2), ESTUARY_ERROR_INVALID_ARGUMENT, "panel 2", "0..0");
    v.setLayout(2, 2);
    shown.setPanel(3);
    EXPECT_EQ(shown.params().panel, 3u);
    EXPECT_REFUSED(v.setLayout(1, 2), ESTUARY_ERROR_INVALID_ARGUMENT, "temperature", "panel 3",
                   "move it first");
    shown.setPanel(1);
    v.setLayout(1, 2); // now it fits
    EXPECT_EQ(shown.params().panel, 1u);
}

} // namespace
} // namespace estuary
