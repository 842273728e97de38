// The viewer's side of the annotations (viewer/annotations/panel_annotations.h) on a headless
// viewer: a field's axes read in the units its image's origin and spacing give, following the
// camera's zoom and pan; colorbars as the ImGui ones choose them, a palette's entries named by its
// legend; a volume framed by box axes. Validation on.
#include "add_views.h"
#include "box_axes.h"
#include "errors.h"
#include "panel_annotations.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace estuary::lib {
namespace {

class PanelAnnotationsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        estuary_viewer_desc d{};
        d.struct_size = sizeof d;
        d.api_version = ESTUARY_API_VERSION;
        d.display = ESTUARY_DISPLAY_HEADLESS;
        d.cuda = ESTUARY_CUDA_OFF;
        d.flags = ESTUARY_VIEWER_VALIDATION | ESTUARY_VIEWER_NO_PIPELINE_CACHE;
        d.width = 800;
        d.height = 600;
        v = createViewer(d);
    }
    void TearDown() override { EXPECT_EQ(destroyViewer(v), 0u) << "validation messages"; }
    estuary_image* image(uint32_t w, uint32_t h, uint32_t depth, std::array<float, 3> origin,
                         std::array<float, 3> spacing) {
        estuary_image_desc id{};
        id.struct_size = sizeof id;
        id.format = ESTUARY_FORMAT_R32_FLOAT;
        id.kind = depth > 1 ? ESTUARY_IMAGE_3D : ESTUARY_IMAGE_2D;
        id.width = w;
        id.height = h;
        id.depth = depth;
        id.writer = ESTUARY_WRITER_HOST;
        id.name = "u";
        for (size_t a = 0; a < 3; ++a) {
            id.origin[a] = origin[a];
            id.spacing[a] = spacing[a];
        }
        return createImage(*v, id);
    }
    estuary_viewer* v = nullptr;
};

TEST_F(PanelAnnotationsTest, AFieldsAxesReadInItsUnitsAndFollowZoomAndPan) {
    estuary_image* field = image(200, 100, 1, {-1.0f, 2.0f, 0.0f}, {0.01f, 0.02f, 0.0f});
    estuary_field_view_desc fd{};
    fd.struct_size = sizeof fd;
    fd.image = field;
    fd.label = "concentration";
    addFieldView(*v, fd);
    PanelAnnotationOptions options;
    options.axisTitles = {"x [mm]", "y [mm]", ""};
    const annotations::Rect panel{0, 0, 800, 600};
    // Zoom 1: 4 pixels a cell, the field 800 x 400 with 100 pixels above and below.
    Camera camera;
    annotations::PanelAnnotations a = panelAnnotations(*v, camera, panel, options);
    EXPECT_NEAR(a.x.atStart, -1.005, 1e-6);
    EXPECT_NEAR(a.x.atEnd, 0.995, 1e-6);
    EXPECT_NEAR(a.y.atStart, 2.0 + (-25.5) * 0.02, 1e-5);
    EXPECT_NEAR(a.y.atEnd, 2.0 + 124.5 * 0.02, 1e-5);
    EXPECT_EQ(a.x.title, "x [mm]");
    EXPECT_FALSE(a.box.has_value());
    ASSERT_EQ(a.colorbars.size(), 1u);
    EXPECT_EQ(a.colorbars[0].name, "concentration");
    EXPECT_EQ(a.colorbars[0].entries, 0u);
    // Zoom 2 about the centre (-0.005): half the width each side; then a pan of a quarter of
    // the field (2 mm wide) to the right.
    camera.zoom = 2.0f;
    a = panelAnnotations(*v, camera, panel, options);
    EXPECT_NEAR(a.x.atStart, -0.505, 1e-5);
    EXPECT_NEAR(a.x.atEnd, 0.495, 1e-5);
    camera.panX = 0.25f;
    a = panelAnnotations(*v, camera, panel, options);
    EXPECT_NEAR(a.x.atStart, -0.005, 1e-5);
    options.scaleBar = true;
    options.scaleBarUnit = "mm";
    a = panelAnnotations(*v, camera, panel, options);
    EXPECT_NEAR(a.scaleBar.unitsPerPixel, 0.01 / 8.0, 1e-9);
}

TEST_F(PanelAnnotationsTest, APalettesColorbarNamesItsEntriesFromTheLegend) {
    estuary_image* field = image(16, 16, 1, {}, {});
    estuary_field_view_desc fd{};
    fd.struct_size = sizeof fd;
    fd.image = field;
    fd.colormap = ESTUARY_COLORMAP_OKABE_ITO;
    estuary_view* view = addFieldView(*v, fd);
    view->legend = {"water", "sand", "rock"};
    const annotations::PanelAnnotations a =
        panelAnnotations(*v, Camera{}, {0, 0, 800, 600}, PanelAnnotationOptions{});
    ASSERT_EQ(a.colorbars.size(), 1u);
    EXPECT_EQ(a.colorbars[0].entries, 8u);
    EXPECT_EQ(a.colorbars[0].names, (std::vector<std::string>{"water", "sand", "rock"}));
    EXPECT_EQ(a.colorbars[0].name, "u"); // no label: the image's name
}

TEST_F(PanelAnnotationsTest, AVolumeIsFramedByBoxAxesInItsUnits) {
    estuary_image* volume = image(64, 32, 16, {10.0f, 0.0f, -5.0f}, {0.5f, 0.5f, 0.5f});
    estuary_volume_view_desc vd{};
    vd.struct_size = sizeof vd;
    vd.image = volume;
    addVolumeView(*v, vd);
    const UserBox box = userBox(*volume);
    EXPECT_DOUBLE_EQ(box.min[0], 9.75);
    EXPECT_DOUBLE_EQ(box.max[0], 9.75 + 32.0);
    EXPECT_DOUBLE_EQ(box.max[2], -5.25 + 8.0);
    const annotations::PanelAnnotations a =
        panelAnnotations(*v, Camera{}, {0, 0, 800, 600}, PanelAnnotationOptions{});
    ASSERT_TRUE(a.box.has_value());
    EXPECT_EQ(a.box->min, box.min);
    // The box's centre lands at the picture's centre, as the volume is drawn.
    const annotations::ScreenPoint c =
        annotations::project(a.box->viewProjection, {25.75, 7.75, -1.25}, {0, 0, 800, 600});
    EXPECT_NEAR(c.x, 400.0f, 1e-2);
    EXPECT_NEAR(c.y, 300.0f, 1e-2);
}

TEST_F(PanelAnnotationsTest, BufferViewsAxesReadTheirBoundsAndColorbarsComeInOrder) {
    estuary_buffer_desc bd{};
    bd.struct_size = sizeof bd;
    bd.size = 1024;
    bd.writer = ESTUARY_WRITER_HOST;
    bd.name = "points";
    estuary_buffer* buffer = createBuffer(*v, bd);
    // 2D points in [10, 30] x [0, 10]: a 2:1 letterbox in a 4:3 picture, 800 pixels wide.
    estuary_points_view_desc pd{};
    pd.struct_size = sizeof pd;
    pd.buffer = buffer;
    pd.layout = ESTUARY_POINTS_XY_VELOCITY;
    pd.bounds[0] = 10.0f;
    pd.bounds[1] = 0.0f;
    pd.bounds[2] = 30.0f;
    pd.bounds[3] = 10.0f;
    pd.label = "speed";
    pd.flags = ESTUARY_POINTS_COLORBAR;
    addPointsView(*v, pd);
    pd.label = "quiet"; // no colorbar asked
    pd.flags = 0;
    addPointsView(*v, pd);
    annotations::PanelAnnotations a =
        panelAnnotations(*v, Camera{}, {0, 0, 800, 600}, PanelAnnotationOptions{});
    EXPECT_NEAR(a.x.atStart, 10.0, 1e-4);
    EXPECT_NEAR(a.x.atEnd, 30.0, 1e-4);
    EXPECT_NEAR(a.y.atStart, 5.0 - 7.5, 1e-4); // 10 units over 400 pixels, centred
    EXPECT_NEAR(a.y.atEnd, 5.0 + 7.5, 1e-4);
    ASSERT_EQ(a.colorbars.size(), 1u);
    EXPECT_EQ(a.colorbars[0].name, "speed");
    // 3D points in a 4 x 2 x 2 box: box axes over it, drawn as a 0.5 x 0.25 x 0.25 half box.
    pd.layout = ESTUARY_POINTS_XYZ_SCALAR;
    const float box[6] = {-2, 0, 0, 2, 2, 2};
    std::copy(box, box + 6, pd.bounds);
    pd.label = "cloud";
    estuary_view* cloud = addPointsView(*v, pd);
    ASSERT_TRUE(cloud->threeD);
    std::vector<const estuary_view*> only{cloud};
    a = panelAnnotations(*v, Camera{}, {0, 0, 800, 600}, PanelAnnotationOptions{}, &only);
    ASSERT_TRUE(a.box.has_value());
    EXPECT_EQ(a.box->min, (std::array<double, 3>{-2, 0, 0}));
    EXPECT_EQ(a.box->max, (std::array<double, 3>{2, 2, 2}));
    const annotations::ScreenPoint c =
        annotations::project(a.box->viewProjection, {0, 1, 1}, {0, 0, 800, 600});
    EXPECT_NEAR(c.x, 400.0f, 1e-2);
    EXPECT_NEAR(c.y, 300.0f, 1e-2);
}

TEST(ImagePlacement, SpacingZeroIsOneAndBadValuesAreRefusedNamingTheAxis) {
    estuary_image_desc d{};
    d.spacing[1] = 0.25f;
    auto [origin, spacing] = imagePlacement(d, "field");
    EXPECT_EQ(spacing, (std::array<float, 3>{1.0f, 0.25f, 1.0f}));
    EXPECT_EQ(origin, (std::array<float, 3>{0.0f, 0.0f, 0.0f}));
    d.spacing[2] = -1.0f;
    try {
        imagePlacement(d, "field");
        FAIL() << "negative spacing accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("spacing[2] (z)"), std::string::npos) << e.what();
        EXPECT_EQ(e.status(), ESTUARY_ERROR_INVALID_ARGUMENT);
    }
    d.spacing[2] = INFINITY;
    EXPECT_THROW(imagePlacement(d, "field"), Error);
    d.spacing[2] = 1.0f;
    d.origin[0] = std::nanf("");
    EXPECT_THROW(imagePlacement(d, "field"), Error);
}

} // namespace
} // namespace estuary::lib
