// The viewer's panels (layout.h): the grid's rectangles, the checks of estuary_set_layout and
// estuary_set_panel, linked cameras, the panels' images and the draw of a picture of several
// panels.
#include "layout.h"
#include "errors.h"
#include "panel_annotations.h"
#include "view_type.h"
#include "viewer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace estuary::lib {
namespace {

// Splits `length` pixels into parts of the relative `sizes` with `gap` between them: each part's
// start and size, at least 1 pixel, inside `length`.
std::vector<std::pair<int32_t, uint32_t>> split(uint32_t length, const std::vector<float>& sizes,
                                                float gap) {
    const size_t n = sizes.size();
    uint32_t gapPixels = uint32_t(std::lround(std::max(gap, 0.0f)));
    if (n > 1 && length < n + (n - 1) * gapPixels) // no room for the gaps: as wide as fits
        gapPixels = length > n ? uint32_t((length - n) / (n - 1)) : 0;
    const uint32_t room = length > (n - 1) * gapPixels ? length - uint32_t(n - 1) * gapPixels : 0;
    const double total = std::accumulate(sizes.begin(), sizes.end(), 0.0);
    std::vector<std::pair<int32_t, uint32_t>> parts(n);
    double sum = 0.0;
    uint32_t edge = 0;
    for (size_t i = 0; i < n; ++i) {
        sum += sizes[i];
        const uint32_t next = i + 1 == n ? room : uint32_t(std::lround(room * (sum / total)));
        const uint32_t start =
            std::min<uint32_t>(edge + uint32_t(i) * gapPixels, length > 0 ? length - 1 : 0);
        const uint32_t size = std::max<uint32_t>(next > edge ? next - edge : 0, 1);
        parts[i] = {int32_t(start), std::min(size, length > start ? length - start : 1)};
        edge = std::max(next, edge);
    }
    return parts;
}

std::string number(float x) {
    char text[32];
    std::snprintf(text, sizeof(text), "%g", double(x));
    return text;
}

std::vector<float> relativeSizes(const float* sizes, uint32_t count, const char* name) {
    if (!sizes) return std::vector<float>(count, 1.0f);
    std::vector<float> out(sizes, sizes + count);
    for (uint32_t i = 0; i < count; ++i)
        if (!std::isfinite(out[i]) || out[i] <= 0.0f)
            throw usageError(std::string("estuary_set_layout: ") + name + "[" + std::to_string(i) +
                             "] is " + number(out[i]) +
                             "; relative sizes must be finite numbers > 0 (NULL: all equal)");
    return out;
}

void destroyPanelImages(estuary_viewer& v) {
    for (Panel& panel : v.layout.panels)
        destroyImage(v.device, panel.image);
}

// The panels' rectangles for the picture's extent, and their images where there are several.
void makePanelImages(estuary_viewer& v) {
    Layout& layout = v.layout;
    const VkExtent2D picture = pictureExtent(v);
    const std::vector<VkRect2D> rects =
        layoutRects(picture, layout.rowHeights, layout.columnWidths, layout.gap);
    layout.laidOutFor = picture;
    for (size_t i = 0; i < layout.panels.size(); ++i) {
        layout.panels[i].rect = rects[i];
        layout.panels[i].plot = insetRect(rects[i], layout.panels[i].margins);
    }
    if (!panelImages(v) || picture.width == 0 || picture.height == 0 || v.gl) return;
    VkFormatProperties properties{};
    vkGetPhysicalDeviceFormatProperties(v.device.physical, v.targetFormat, &properties);
    const bool storage =
        (properties.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT) != 0;
    for (Panel& panel : layout.panels) {
        panel.storage = storage;
        panel.image =
            createImage2D(v.device, panel.plot.extent, v.targetFormat, 1,
                          VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                              VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                              (storage ? VkImageUsageFlags(VK_IMAGE_USAGE_STORAGE_BIT) : 0u),
                          "panel image");
    }
}

void checkCamera(const estuary_camera& c, const std::string& what) {
    for (float x : {c.zoom, c.pan_x, c.pan_y, c.yaw_degrees, c.pitch_degrees})
        if (!std::isfinite(x))
            throw usageError(what + ": every camera value must be a finite number");
    if (!(c.zoom > 0.0f)) throw usageError(what + ": zoom " + number(c.zoom) + " must be > 0");
    if (std::fabs(c.pitch_degrees) > 85.0f)
        throw usageError(what + ": pitch_degrees " + number(c.pitch_degrees) +
                         " is outside -85..85");
}

} // namespace

std::vector<VkRect2D> layoutRects(VkExtent2D picture, const std::vector<float>& rowHeights,
                                  const std::vector<float>& columnWidths, float gap) {
    const auto rows = split(picture.height, rowHeights, gap);
    const auto columns = split(picture.width, columnWidths, gap);
    std::vector<VkRect2D> rects;
    rects.reserve(rows.size() * columns.size());
    for (const auto& [y, height] : rows)
        for (const auto& [x, width] : columns)
            rects.push_back({{x, y}, {width, height}});
    return rects;
}

VkRect2D insetRect(VkRect2D r, const std::array<uint32_t, 4>& m) {
    const auto cut = [](uint32_t side, uint32_t before, uint32_t after) {
        const uint32_t kept = side > before + after ? side - before - after : 1;
        return std::pair{std::min(before, side - kept), kept};
    };
    const auto [dx, width] = cut(r.extent.width, m[0], m[2]);
    const auto [dy, height] = cut(r.extent.height, m[1], m[3]);
    return {{r.offset.x + int32_t(dx), r.offset.y + int32_t(dy)}, {width, height}};
}

uint32_t panelAt(const std::vector<VkRect2D>& rects, float x, float y) {
    for (size_t i = 0; i < rects.size(); ++i) {
        const VkRect2D& r = rects[i];
        if (x >= float(r.offset.x) && y >= float(r.offset.y) &&
            x < float(r.offset.x) + float(r.extent.width) &&
            y < float(r.offset.y) + float(r.extent.height))
            return uint32_t(i);
    }
    return ESTUARY_PANEL_NONE;
}

void checkPanel(const estuary_viewer& v, uint32_t panel, const std::string& what) {
    const size_t count = v.layout.panels.size();
    if (panel >= count)
        throw usageError(what + ": panel " + std::to_string(panel) +
                         " is not one of the layout's " + std::to_string(count) + " (0.." +
                         std::to_string(count - 1) +
                         ": row * columns + column; estuary_set_layout makes more)");
}

void setLayout(estuary_viewer& v, const estuary_layout_desc& d) {
    const std::string what = "estuary_set_layout";
    const uint32_t rows = d.rows ? d.rows : 1, columns = d.columns ? d.columns : 1;
    if (rows > ESTUARY_LAYOUT_MAX || columns > ESTUARY_LAYOUT_MAX)
        throw usageError(what + ": " + std::to_string(rows) + " rows by " +
                         std::to_string(columns) + " columns; each may be 1.." +
                         std::to_string(ESTUARY_LAYOUT_MAX) + " (0: 1)");
    if (!std::isfinite(d.gap_pixels) || d.gap_pixels < 0.0f || d.gap_pixels > 256.0f)
        throw usageError(what + ": gap_pixels " + number(d.gap_pixels) + " must be in 0..256");
    std::vector<float> heights = relativeSizes(d.row_heights, rows, "row_heights");
    std::vector<float> widths = relativeSizes(d.column_widths, columns, "column_widths");
    const uint32_t count = rows * columns;
    for (const auto& view : v.views)
        if (view->params.panel >= count)
            throw usageError(what + ": the " + std::string(viewKind(*view)) + " view '" +
                             view->label + "' draws in panel " +
                             std::to_string(view->params.panel) + ", which a layout of " +
                             std::to_string(count) +
                             " panels leaves out; move it first (estuary_view_params.panel)");
    if (count > 1 && v.gl)
        throw unsupported(what + ": the OpenGL consumer draws one panel only (" +
                          std::to_string(rows) + " x " + std::to_string(columns) + " asked)");
    if (count > 1 && !v.headless && !windowTakesCopies(v))
        throw unsupported(what + ": this window's swapchain cannot be copied into "
                                 "(VK_IMAGE_USAGE_TRANSFER_DST_BIT), which several panels need");
    waitIdle(v, "changing the layout");
    destroyPanelImages(v);
    Layout& layout = v.layout;
    layout.rows = rows;
    layout.columns = columns;
    layout.rowHeights = std::move(heights);
    layout.columnWidths = std::move(widths);
    layout.gap = d.gap_pixels;
    layout.panels.resize(count);
    relayout(v);
}

void setPanel(estuary_viewer& v, uint32_t panel, const estuary_panel_desc& d) {
    const std::string what = "estuary_set_panel";
    checkPanel(v, panel, what);
    constexpr uint32_t kFlags = ESTUARY_PANEL_AXES | ESTUARY_PANEL_GRID | ESTUARY_PANEL_LOG_X |
                                ESTUARY_PANEL_LOG_Y | ESTUARY_PANEL_SCALE_BAR |
                                ESTUARY_PANEL_TIME_X;
    checkFlags(d.flags, kFlags, what, "ESTUARY_PANEL_* bits");
    if ((d.flags & ESTUARY_PANEL_TIME_X) && (d.flags & ESTUARY_PANEL_LOG_X))
        throw usageError(what + ": ESTUARY_PANEL_TIME_X and ESTUARY_PANEL_LOG_X together: a time "
                                "axis is linear; give one of them");
    if (!std::isfinite(d.time_origin))
        throw usageError(what + ": time_origin is not finite: give the seconds since 1970-01-01 "
                                "00:00 UTC at x = 0");
    // Every text checked before anything changes.
    const auto text = [&](const char* s, const std::string& name) {
        const std::string t = s ? s : "";
        if (t.size() > 256)
            throw usageError(what + ": " + name + " is " + std::to_string(t.size()) +
                             " bytes; at most 256 are allowed");
        if (!validUtf8(t)) throw usageError(what + ": " + name + " is not valid UTF-8");
        return t;
    };
    std::string title = text(d.title, "title");
    std::array<std::string, 3> axisTitles;
    for (size_t i = 0; i < 3; ++i)
        axisTitles[i] = text(d.axis_titles[i], "axis_titles[" + std::to_string(i) + "]");
    std::string unit = text(d.scale_bar_unit, "scale_bar_unit");
    Panel& p = v.layout.panels[panel];
    p.title = std::move(title);
    p.axisTitles = std::move(axisTitles);
    p.scaleBarUnit = std::move(unit);
    p.flags = d.flags;
    p.timeOrigin = d.time_origin;
    if (d.camera_link != 0 && d.camera_link != p.cameraLink)
        for (const Panel& other : v.layout.panels)
            if (&other != &p && other.cameraLink == d.camera_link) {
                p.camera = other.camera; // joins the link's camera
                break;
            }
    p.cameraLink = d.camera_link;
    ++v.drawVersion;
}

bool severalPanels(const estuary_viewer& v) {
    return v.layout.panels.size() > 1;
}

bool panelImages(const estuary_viewer& v) {
    return severalPanels(v) || v.layout.panels[0].margins != std::array<uint32_t, 4>{};
}

void setPanelMargins(estuary_viewer& v, uint32_t panel, const std::array<uint32_t, 4>& margins) {
    checkPanel(v, panel, "panel margins");
    if (v.layout.panels[panel].margins == margins) return;
    if (v.gl) throw unsupported("panel margins: the OpenGL consumer draws the whole picture");
    if (!v.headless && !windowTakesCopies(v))
        throw unsupported("panel margins: this window's swapchain cannot be copied into");
    waitIdle(v, "changing a panel's margins");
    v.layout.panels[panel].margins = margins;
    relayout(v);
}

const Camera& panelCamera(const estuary_viewer& v, uint32_t panel) {
    return v.layout.panels.at(panel).camera;
}

void setPanelCamera(estuary_viewer& v, uint32_t panel, const Camera& camera) {
    Panel& moved = v.layout.panels.at(panel);
    for (Panel& p : v.layout.panels)
        if (&p == &moved || (moved.cameraLink != 0 && p.cameraLink == moved.cameraLink))
            p.camera = camera;
    ++v.drawVersion;
}

Camera cameraFrom(const estuary_camera& c, const std::string& what) {
    checkCamera(c, what);
    constexpr float kRadians = 0.017453292f;
    return {c.zoom, c.pan_x, c.pan_y, c.yaw_degrees * kRadians, c.pitch_degrees * kRadians};
}

estuary_camera cameraOut(const Camera& c) {
    constexpr float kDegrees = 57.29578f;
    estuary_camera out{};
    out.zoom = c.zoom;
    out.pan_x = c.panX;
    out.pan_y = c.panY;
    out.yaw_degrees = c.yaw * kDegrees;
    out.pitch_degrees = c.pitch * kDegrees;
    return out;
}

VkRect2D panelRect(const estuary_viewer& v, uint32_t panel) {
    const VkExtent2D picture = pictureExtent(v);
    if (!severalPanels(v)) return {{0, 0}, picture};
    if (picture.width != v.layout.laidOutFor.width ||
        picture.height != v.layout.laidOutFor.height) // not yet laid out again (a resize)
        return layoutRects(picture, v.layout.rowHeights, v.layout.columnWidths,
                           v.layout.gap)[panel];
    return v.layout.panels.at(panel).rect;
}

VkRect2D plotRect(const estuary_viewer& v, uint32_t panel) {
    if (!panelImages(v)) return {{0, 0}, pictureExtent(v)};
    return insetRect(panelRect(v, panel), v.layout.panels.at(panel).margins);
}

uint32_t panelAt(const estuary_viewer& v, float x, float y) {
    const VkExtent2D picture = pictureExtent(v);
    return panelAt(layoutRects(picture, v.layout.rowHeights, v.layout.columnWidths, v.layout.gap),
                   x, y);
}

VkExtent2D viewExtent(const estuary_viewer& v, const estuary_view& view, VkExtent2D whole) {
    if (!panelImages(v)) return whole;
    return v.layout.panels.at(view.params.panel).plot.extent;
}

VkImageView viewStorageTarget(const estuary_viewer& v, const estuary_view& view) {
    if (!panelImages(v))
        return v.headless && v.offscreen.storage ? v.offscreen.image.view : VK_NULL_HANDLE;
    const Panel& panel = v.layout.panels.at(view.params.panel);
    return panel.storage ? panel.image.view : VK_NULL_HANDLE;
}

void relayout(estuary_viewer& v) {
    destroyPanelImages(v);
    makePanelImages(v);
    ++v.drawVersion;
    if (v.gl) return;
    for (const auto& view : v.views)
        view->type->resize(v, *view, viewExtent(v, *view, pictureExtent(v)));
}

void resizeViewToPanel(estuary_viewer& v, estuary_view& view) {
    if (v.gl) return;
    view.type->resize(v, view, viewExtent(v, view, pictureExtent(v)));
}

VkRect2D viewArea(const estuary_viewer& v, uint32_t panel, VkExtent2D whole) {
    if (!panelImages(v)) return {{0, 0}, whole};
    const Panel& p = v.layout.panels[panel];
    if (!p.image.handle) return {};
    return {p.plot.offset, p.image.extent};
}

void recordPanels(estuary_viewer& v, VkCommandBuffer cmd, uint32_t entry, VkImage targetImage,
                  VkImageView targetView, VkExtent2D extent) {
    recordClear(v, cmd, targetView, extent); // the gaps and margins
    std::vector<VkImageCopy> copies;
    for (uint32_t i = 0; i < v.layout.panels.size(); ++i) {
        const Panel& panel = v.layout.panels[i];
        if (!panel.image.handle) continue;
        ImageTransition begin;
        begin.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        begin.srcStage = VK_PIPELINE_STAGE_2_COPY_BIT; // the last frame's copy out of it
        begin.dstStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
        begin.dstAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
        recordImageBarrier(cmd, panel.image.handle, begin);
        recordPanelViews(v, cmd, entry, i,
                         {panel.image.handle,
                          panel.image.view,
                          panel.image.extent,
                          {{0, 0}, panel.image.extent}});
        ImageTransition end;
        end.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        end.newLayout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        end.srcStage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT; // draws, compute copies and resolves
        end.srcAccess = VK_ACCESS_2_MEMORY_WRITE_BIT;
        end.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT;
        end.dstAccess = VK_ACCESS_2_TRANSFER_READ_BIT;
        recordImageBarrier(cmd, panel.image.handle, end);
        // A panel laid out for a larger picture (a resize not yet followed) is cut at its edges.
        const VkRect2D& r = panel.plot;
        if (uint32_t(r.offset.x) >= extent.width || uint32_t(r.offset.y) >= extent.height) continue;
        VkImageCopy region{};
        region.srcSubresource = region.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.dstOffset = {r.offset.x, r.offset.y, 0};
        region.extent = {std::min(r.extent.width, extent.width - uint32_t(r.offset.x)),
                         std::min(r.extent.height, extent.height - uint32_t(r.offset.y)), 1};
        copies.push_back(region);
    }
    ImageTransition toCopy;
    toCopy.oldLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    toCopy.srcStage = VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT;
    toCopy.srcAccess = VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT;
    toCopy.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    toCopy.dstAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    recordImageBarrier(cmd, targetImage, toCopy);
    size_t next = 0;
    for (const Panel& panel : v.layout.panels) {
        const VkRect2D& r = panel.plot;
        if (!panel.image.handle || uint32_t(r.offset.x) >= extent.width ||
            uint32_t(r.offset.y) >= extent.height)
            continue;
        vkCmdCopyImage(cmd, panel.image.handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, targetImage,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &copies[next++]);
    }
    ImageTransition back;
    back.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    back.newLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    back.srcStage = VK_PIPELINE_STAGE_2_COPY_BIT;
    back.srcAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
    back.dstStage = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
    back.dstAccess = VK_ACCESS_2_MEMORY_READ_BIT | VK_ACCESS_2_MEMORY_WRITE_BIT;
    recordImageBarrier(cmd, targetImage, back);
}

void destroyLayout(estuary_viewer& v) {
    destroyPanelImages(v);
}

} // namespace estuary::lib
