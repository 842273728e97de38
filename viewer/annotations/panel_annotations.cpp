#include "panel_annotations.h"

#include "box_axes.h"
#include "view_mapping.h"
#include "view_type.h"
#include "volume_camera.h"

#include <algorithm>
#include <cmath>

namespace estuary::lib {
namespace {

using annotations::AxisMapping;
using annotations::ColorbarDesc;
using annotations::PanelAnnotations;
using annotations::Rect;

std::string titleOf(const PanelAnnotationOptions& o, size_t axis) {
    static const char* const kNames[] = {"x", "y", "z"};
    return o.axisTitles[axis].empty() ? kNames[axis] : o.axisTitles[axis];
}

// The colorbar a view's colormap asks for: its name, range, and a palette's entries and names.
ColorbarDesc colorbarOf(const estuary_viewer& v, const estuary_view& view) {
    ColorbarDesc c;
    c.name = view.label;
    c.colormap = uint32_t(view.params.colormap);
    c.min = view.params.value_min;
    c.max = view.params.value_max;
    if (c.colormap < v.kit.colormaps.size()) c.entries = v.kit.colormaps[c.colormap].categories;
    if (c.entries > 0) c.names = view.legend;
    return c;
}

// The picture's 2D mapping of a domain of `extent` cells (placed as the field view places its
// texels) from panel pixels to cells, sent through `toUser` per axis.
template <class ToUser>
void mapAxes(PanelAnnotations& a, const Camera& camera, Rect panel, VkExtent2D extent,
             ToUser toUser) {
    const VkExtent2D target{uint32_t(std::max(1.0f, std::round(panel.width()))),
                            uint32_t(std::max(1.0f, std::round(panel.height())))};
    ViewParams view;
    view.zoom = camera.zoom;
    view.panX = camera.panX;
    view.panY = camera.panY;
    const Vec2 start = targetToCell({0.0f, 0.0f}, target, extent, view);
    const Vec2 end =
        targetToCell({float(target.width), float(target.height)}, target, extent, view);
    a.x.atStart = toUser(0, start.x);
    a.x.atEnd = toUser(0, end.x);
    a.y.atStart = toUser(1, start.y);
    a.y.atEnd = toUser(1, end.y);
}

} // namespace

UserBox userBox(const estuary_image& image) {
    const double cells[3] = {double(image.extent.width), double(image.extent.height),
                             double(image.kind == ESTUARY_IMAGE_3D ? image.shape.depth : 1)};
    UserBox box;
    for (size_t a = 0; a < 3; ++a) {
        box.min[a] = double(image.origin[a]) - 0.5 * double(image.spacing[a]);
        box.max[a] = box.min[a] + cells[a] * double(image.spacing[a]);
    }
    return box;
}

bool validUtf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const auto c = uint8_t(s[i]);
        const size_t n = c < 0x80             ? 1
                         : (c & 0xE0) == 0xC0 ? 2
                         : (c & 0xF0) == 0xE0 ? 3
                         : (c & 0xF8) == 0xF0 ? 4
                                              : 0;
        if (n == 0 || i + n > s.size()) return false;
        uint32_t cp = n == 1 ? c : n == 2 ? c & 0x1Fu : n == 3 ? c & 0x0Fu : c & 0x07u;
        for (size_t k = 1; k < n; ++k) {
            const auto b = uint8_t(s[i + k]);
            if ((b & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (b & 0x3Fu);
        }
        static const uint32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < kLeast[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += n;
    }
    return true;
}

PanelAnnotations panelAnnotations(const estuary_viewer& v, const Camera& camera, Rect panel,
                                  const PanelAnnotationOptions& options,
                                  const std::vector<const estuary_view*>* views) {
    std::vector<const estuary_view*> all;
    if (!views) {
        for (const auto& view : v.views)
            all.push_back(view.get());
        views = &all;
    }
    PanelAnnotations a;
    a.title = options.title;
    a.axes = options.axes;
    a.grid = options.grid;
    // The background: the last visible field or volume, as backgroundView picks it.
    const estuary_view* bg = nullptr;
    for (const estuary_view* view : *views)
        if (view->params.visible && view->type->background()) bg = view;
    // Colorbars as panels.cpp's: the background's first, then the buffer views' that want one.
    if (bg && bg->type->wantsColorbar(*bg)) a.colorbars.push_back(colorbarOf(v, *bg));
    for (const estuary_view* view : *views)
        if (!view->type->background() && view->params.visible && view->type->wantsColorbar(*view))
            a.colorbars.push_back(colorbarOf(v, *view));

    const estuary_view* box3d = nullptr; // the 3D view whose box the axes frame
    if (bg && bg->type->threeD(*bg)) box3d = bg;
    for (const estuary_view* view : *views)
        if (!box3d && !bg && view->params.visible && view->threeD) box3d = view;
    if (box3d) {
        annotations::BoxAxesDesc box;
        std::array<float, 3> half{0.5f, 0.5f, 0.5f};
        if (box3d->image()) {
            const estuary_image& image = *box3d->image();
            const UserBox b = userBox(image);
            box.min = b.min;
            box.max = b.max;
            const float cells[3] = {float(image.extent.width), float(image.extent.height),
                                    float(image.shape.depth)};
            const float largest = std::max({cells[0], cells[1], cells[2]});
            for (size_t i = 0; i < 3; ++i)
                half[i] = 0.5f * cells[i] / largest;
        } else {
            const auto& b = box3d->bounds;
            const bool set = std::any_of(b.begin(), b.end(), [](float x) { return x != 0.0f; });
            const std::array<float, 6> r =
                set ? b : std::array<float, 6>{-0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f};
            const float largest = std::max({r[3] - r[0], r[4] - r[1], r[5] - r[2]});
            for (size_t i = 0; i < 3; ++i) {
                box.min[i] = r[i];
                box.max[i] = r[i + 3];
                half[i] = largest > 0 ? 0.5f * (r[i + 3] - r[i]) / largest : 0.5f;
            }
        }
        const OrbitCamera orbit = orbitCamera(camera.yaw, camera.pitch, camera.zoom,
                                              uint32_t(std::max(1.0f, panel.width())),
                                              uint32_t(std::max(1.0f, panel.height())));
        box.viewProjection = annotations::orbitViewProjection(orbit, box.min, box.max, half);
        box.titles = {titleOf(options, 0), titleOf(options, 1), titleOf(options, 2)};
        a.box = box;
        return a;
    }

    // 2D: a field's cells, a volume slice's, or the buffer views' bounds.
    size_t axisX = 0, axisY = 1;
    if (bg) {
        const estuary_image& image = *bg->image();
        VkExtent2D extent = image.extent;
        if (image.kind == ESTUARY_IMAGE_3D) {
            const uint32_t slice = bg->params.slice_axis;
            extent = sliceExtent(slice, image.extent.width, image.extent.height, image.shape.depth);
            axisX = slice == 0 ? 2 : 0;
            axisY = slice == 1 ? 2 : 1;
        }
        const size_t axes[2] = {axisX, axisY};
        mapAxes(a, camera, panel, extent, [&](size_t which, float cell) {
            const size_t axis = axes[which];
            return double(image.origin[axis]) + double(cell) * double(image.spacing[axis]);
        });
        if (options.scaleBar) {
            const VkExtent2D target{uint32_t(std::max(1.0f, panel.width())),
                                    uint32_t(std::max(1.0f, panel.height()))};
            a.scaleBar.unitsPerPixel =
                double(image.spacing[axisX]) / double(pixelsPerTexel(target, extent, camera.zoom));
            a.scaleBar.unit = options.scaleBarUnit;
        }
    } else {
        // As points_family.cpp places 2D buffer views: `bounds` (x0, y0, x1, y1) fill a letterbox
        // of their aspect; none: the unit square.
        const estuary_view* placed = nullptr;
        for (const estuary_view* view : *views)
            if (!placed && view->params.visible && isBufferView(*view)) placed = view;
        if (!placed) {
            a.axes = false;
            return a;
        }
        const auto& b = placed->bounds;
        const float x0 = b[0], y0 = b[1];
        const float x1 = b[2] > b[0] ? b[2] : b[0] + 1.0f, y1 = b[3] > b[1] ? b[3] : b[1] + 1.0f;
        const float aspect = (x1 - x0) / (y1 - y0);
        const VkExtent2D domain = aspect >= 1.0f
                                      ? VkExtent2D{uint32_t(std::lround(1024.0f * aspect)), 1024}
                                      : VkExtent2D{1024, uint32_t(std::lround(1024.0f / aspect))};
        const double lo[2] = {x0, y0}, size[2] = {x1 - x0, y1 - y0};
        const double cells[2] = {double(domain.width), double(domain.height)};
        mapAxes(a, camera, panel, domain, [&](size_t which, float cell) {
            return lo[which] + (double(cell) + 0.5) / cells[which] * size[which];
        });
    }
    a.x.title = titleOf(options, axisX);
    a.y.title = titleOf(options, axisY);
    a.x.log = options.logX;
    a.x.time = options.timeX;
    a.x.timeOrigin = options.timeOrigin;
    a.y.log = options.logY;
    return a;
}

} // namespace estuary::lib
