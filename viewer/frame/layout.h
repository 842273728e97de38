// The viewer's panels (estuary_set_layout, estuary_set_panel): a grid of rows by columns over the
// picture, each panel with its views, its camera (one for all the panels of a camera_link) and,
// where there are several, an image of its own that the frame draws the panel's views into as if
// it were the whole picture, then copies into the panel's rectangle. One panel (the default) has
// no image of its own: its views draw straight into the picture, exactly as before panels. The
// annotations (titles, axes) read each panel's rectangle and camera from here.
#pragma once

#include "estuary/estuary.h"

#include "renderer.h"
#include "resources.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

struct estuary_viewer;
struct estuary_view;

namespace estuary::lib {

// The camera of a panel and what each view adds: composed into the renderer's ViewParams.
struct Camera {
    float zoom = 1.0f, panX = 0.0f, panY = 0.0f;
    float yaw = ViewParams::kDefaultYaw, pitch = ViewParams::kDefaultPitch;
};

struct Panel {
    std::string title;
    uint32_t cameraLink = 0, flags = 0;
    std::array<std::string, 3> axisTitles; // x, y, z with units; empty: "x", "y", "z"
    std::string scaleBarUnit;
    double timeOrigin = 0.0; // ESTUARY_PANEL_TIME_X: the time at x = 0 (seconds since the epoch)
    Camera camera;
    // Pixels kept free around its views (left, top, right, bottom) for what annotations draw
    // there (axes, tick labels, titles): the views draw in `plot`, the panel's `rect` less these.
    std::array<uint32_t, 4> margins{};
    VkRect2D rect{}, plot{}; // in the picture's pixels, for its extent when last laid out
    // Several panels or margins only: what its views draw into (COLOR_ATTACHMENT, TRANSFER_SRC and
    // _DST, STORAGE where the format offers it: the compute draw and the points' in-place resolve).
    GpuImage image;
    bool storage = false;
};

struct Layout {
    uint32_t rows = 1, columns = 1;
    std::vector<float> rowHeights{1.0f}, columnWidths{1.0f};
    float gap = 0.0f;
    std::vector<Panel> panels = std::vector<Panel>(1);
    VkExtent2D laidOutFor{}; // the picture's extent the rectangles and images are made for
};

// ---- pure: the grid's rectangles ----
// The panels' rectangles (row by row) in a picture of `picture`: the gap shrinks where the
// picture cannot hold it, and every panel is at least 1 x 1 pixel, inside the picture.
std::vector<VkRect2D> layoutRects(VkExtent2D picture, const std::vector<float>& rowHeights,
                                  const std::vector<float>& columnWidths, float gap);
// `rect` less `margins` (left, top, right, bottom), at least 1 x 1 pixel.
VkRect2D insetRect(VkRect2D rect, const std::array<uint32_t, 4>& margins);
// The panel whose rectangle holds the pixel (x, y); ESTUARY_PANEL_NONE where none does.
uint32_t panelAt(const std::vector<VkRect2D>& rects, float x, float y);

// ---- the viewer's layout (layout.cpp) ----
// estuary_set_layout's and estuary_set_panel's checks and changes (usage errors name the call,
// the value and what is allowed); between frames.
void setLayout(estuary_viewer& v, const estuary_layout_desc& desc);
void setPanel(estuary_viewer& v, uint32_t panel, const estuary_panel_desc& desc);
// Throws a usage error starting with `what` where `panel` is not one of the layout's.
void checkPanel(const estuary_viewer& v, uint32_t panel, const std::string& what);
bool severalPanels(const estuary_viewer& v);
// Views draw through the panels' images (several panels, or margins), else into the picture.
bool panelImages(const estuary_viewer& v);
// Margins kept free around a panel's views (the annotations' room), with nothing in flight;
// all 0 (the default) lets one panel draw straight into the picture.
void setPanelMargins(estuary_viewer& v, uint32_t panel, const std::array<uint32_t, 4>& margins);
// A panel's camera, and its change: every panel of its camera_link moves with it.
const Camera& panelCamera(const estuary_viewer& v, uint32_t panel);
void setPanelCamera(estuary_viewer& v, uint32_t panel, const Camera& camera);
// estuary_camera (degrees) to and from the Camera (radians), checked (errors start with `what`).
Camera cameraFrom(const estuary_camera& camera, const std::string& what);
estuary_camera cameraOut(const Camera& camera);
// The panel's rectangle in the picture (one panel: the whole picture), and where its views draw
// (the rectangle less its margins).
VkRect2D panelRect(const estuary_viewer& v, uint32_t panel);
VkRect2D plotRect(const estuary_viewer& v, uint32_t panel);
uint32_t panelAt(const estuary_viewer& v, float x, float y);
// What a view's renderers are sized for: `whole` (the picture) without panel images, else its
// panel's plot extent; and where the points may resolve in place (null: they may not).
VkExtent2D viewExtent(const estuary_viewer& v, const estuary_view& view, VkExtent2D whole);
VkImageView viewStorageTarget(const estuary_viewer& v, const estuary_view& view);
// Where a panel's views land in the picture of extent `whole`: the picture without panel images,
// else the panel's plot rectangle at its image's size (empty where the panel has no image).
VkRect2D viewArea(const estuary_viewer& v, uint32_t panel, VkExtent2D whole);
// The rectangles and panel images made again for the picture's current extent, and every view's
// renderers resized to its panel (with nothing in flight).
void relayout(estuary_viewer& v);
// A view moved to another panel: its renderers follow that panel's size (with nothing in flight).
void resizeViewToPanel(estuary_viewer& v, estuary_view& view);
// Records the views of a picture of several panels into `target` (COLOR_ATTACHMENT_OPTIMAL before
// and after): the background, each panel drawn into its image, copied into its rectangle.
void recordPanels(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry, VkImage targetImage,
                  VkImageView targetView, VkExtent2D extent);
void destroyLayout(estuary_viewer& v);
// (views.cpp) One panel's views into `target` (of the panel's plot size): its background view,
// or a clear to the background colour, then its other visible views in the order they were added
// (the annotating ones are the annotation layer's).
struct DrawTarget;
void recordPanelViews(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry, uint32_t panel,
                      const DrawTarget& target);
// A dynamic-rendering pass clearing `view` to the background colour.
void recordClear(const estuary_viewer& v, VkCommandBuffer cmd, VkImageView view, VkExtent2D extent);

} // namespace estuary::lib
