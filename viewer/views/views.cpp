// Views (estuary_add_*_view): each owns a renderer over one image or buffer, with one descriptor
// set per host-ring entry (pointing at the entry's copy), and the parameters the user changes
// between frames. A frame draws the last visible field or volume as the picture's background,
// then every visible view of a buffer (points, markers, lines, glyphs, meshes) over it, in the
// order they were added.
#include "views_internal.h"
#include "colormap.h"
#include "errors.h"
#include "shared_layout.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace estuary::lib {

void checkColormap(const estuary_viewer& v, estuary_colormap colormap, const std::string& what) {
    const size_t made = v.kit.colormaps.size();
    if (uint32_t(colormap) >= made)
        throw usageError(what + ": colormap " + std::to_string(int(colormap)) +
                         " is not an estuary_colormap of this viewer (0.." +
                         std::to_string(made - 1) + ": the " + std::to_string(kColormapCount) +
                         " built in, then those estuary_create_colormap made)");
}

void checkRange(float& lo, float& hi, const std::string& what) {
    if (!std::isfinite(lo) || !std::isfinite(hi))
        throw usageError(what + ": value_min and value_max must be finite numbers");
    if (lo == 0.0f && hi == 0.0f) hi = 1.0f; // the default range
    if (!(lo < hi))
        throw usageError(what + ": value_min " + std::to_string(lo) + " must be below value_max " +
                         std::to_string(hi));
}

void checkOwned(const estuary_viewer& v, const void* owner, const std::string& what) {
    if (owner != &v) throw usageError(what + " belongs to another viewer");
}

void checkBuffer(const estuary_viewer& v, const estuary_buffer* buffer, const std::string& what) {
    if (buffer) checkOwned(v, buffer->viewer, what + ": the buffer " + buffer->name);
}

void checkFlags(uint32_t flags, uint32_t allowed, const std::string& what,
                const char* allowedNames) {
    if (flags & ~allowed)
        throw usageError(what + ": unknown flags " + std::to_string(flags & ~allowed) +
                         " (allowed: " + allowedNames + ")");
}

const char* viewKind(const estuary_view& view) {
    return view.kind == ViewKind::Field    ? "field"
           : view.kind == ViewKind::Volume ? "volume"
           : view.markers                  ? "markers"
           : view.lines                    ? "lines"
           : view.glyphs                   ? "glyph"
           : view.mesh                     ? "mesh"
                                           : "points";
}

namespace {

// The shaders number shapes as the API does (markers.frag reads the view's value as it is).
static_assert(ESTUARY_MARKER_DISC == ESTUARY_MARKER_SHAPE_DISC &&
              ESTUARY_MARKER_SQUARE == ESTUARY_MARKER_SHAPE_SQUARE &&
              ESTUARY_MARKER_TRIANGLE == ESTUARY_MARKER_SHAPE_TRIANGLE &&
              ESTUARY_MARKER_DIAMOND == ESTUARY_MARKER_SHAPE_DIAMOND &&
              ESTUARY_MARKER_CROSS == ESTUARY_MARKER_SHAPE_CROSS &&
              ESTUARY_MARKER_RING == ESTUARY_MARKER_SHAPE_RING &&
              ESTUARY_MARKER_ARROW == ESTUARY_MARKER_SHAPE_ARROW);
static_assert(ESTUARY_LINE_SEGMENTS == ESTUARY_LINES_SEGMENTS &&
              ESTUARY_LINE_STRIP == ESTUARY_LINES_STRIP);
static_assert(ESTUARY_MARKERS_RGBA == ESTUARY_LINES_RGBA && ESTUARY_MARKERS_3D == ESTUARY_LINES_3D);
// ... and take the view's flags as they are.
static_assert(ESTUARY_MARKER_FLAG_OUTLINE == ESTUARY_MARKERS_OUTLINE &&
              ESTUARY_MARKER_FLAG_WORLD_SIZE == ESTUARY_MARKERS_WORLD_SIZE &&
              ESTUARY_MARKER_FLAG_SCALE_BY_LENGTH == ESTUARY_MARKERS_SCALE_BY_LENGTH &&
              ESTUARY_MARKER_FLAG_RGBA == ESTUARY_MARKERS_RGBA &&
              ESTUARY_LINE_FLAG_RGBA == ESTUARY_LINES_RGBA);
constexpr uint32_t kMarkerShaderFlags = ESTUARY_MARKERS_OUTLINE | ESTUARY_MARKERS_WORLD_SIZE |
                                        ESTUARY_MARKERS_SCALE_BY_LENGTH | ESTUARY_MARKERS_RGBA;

// The field or volume renderer for the view, its descriptors pointed at each entry's copy.
void makeRenderer(estuary_viewer& v, estuary_view& view) {
    const estuary_image& image = *view.image();
    RendererDesc desc;
    desc.targetFormat = v.targetFormat;
    desc.fieldFormat = image.vkFormat;
    desc.shading = FieldShading(view.shading);
    desc.dataDir = v.dataDir;
    desc.slotCount = v.hostRing;
    desc.volume = view.kind == ViewKind::Volume;
    desc.fragmentShader = !view.shader.empty()                        ? view.shader
                          : view.kind == ViewKind::Field              ? "field.frag"
                          : view.params.style == ESTUARY_VOLUME_SLICE ? "volume_slice.frag"
                                                                      : "volume.frag";
    desc.compute = v.drawPath == ESTUARY_DRAW_COMPUTE;
    desc.kit = &v.kit;
    view.renderer = createRenderer(v.device, desc);
    if (desc.compute) setComputeExtent(v.device, view.renderer, {v.width, v.height});
    for (uint32_t entry = 0; entry < v.hostRing; ++entry) {
        const GpuImage& copy = vulkanImage(image, copyOf(image, entry));
        setFieldImage(v.device, view.renderer, entry, copy.view, copy.extent, copy.shape.depth);
    }
}

// Where the points splat may resolve in place: the offscreen picture, made with storage use.
VkImageView storageTarget(const estuary_viewer& v) {
    return v.headless && v.offscreen.storage ? v.offscreen.image.view : VK_NULL_HANDLE;
}

void makePoints(estuary_viewer& v, estuary_view& view) {
    PointsDesc desc;
    desc.targetFormat = v.targetFormat;
    desc.dataDir = v.dataDir;
    desc.slotCount = v.hostRing;
    desc.threeD = view.layout == ESTUARY_POINTS_XYZ_SCALAR;
    desc.markers = view.markers;
    desc.lines = view.lines;
    desc.glyphs = view.glyphs;
    desc.splat = v.drawPath == ESTUARY_DRAW_COMPUTE;
    desc.markerCapacity = view.maxPoints;
    if (view.glyphs) {
        const estuary_image& image = *view.image();
        desc.markerCapacity = glyphCount(
            {image.extent.width, image.extent.height, image.shape.depth}, view.glyphSpacing);
    }
    desc.kit = &v.kit;
    view.points = createPointsRenderer(v.device, desc);
    if (desc.splat) setPointsExtent(v.device, view.points, {v.width, v.height}, storageTarget(v));
    if (view.glyphs) {
        const estuary_image& image = *view.image();
        for (uint32_t entry = 0; entry < v.hostRing; ++entry) {
            const GpuImage& copy = vulkanImage(image, copyOf(image, entry));
            setGlyphImage(v.device, view.points, entry, copy.view,
                          {copy.extent.width, copy.extent.height, copy.shape.depth});
        }
        return;
    }
    const estuary_buffer& buffer = *view.buffer();
    for (uint32_t entry = 0; entry < v.hostRing; ++entry)
        setPointsBuffer(v.device, view.points, entry, vulkanBuffer(buffer, copyOf(buffer, entry)),
                        buffer.size);
    if (const estuary_buffer* indices = view.buffer(InputRole::Indices))
        for (uint32_t entry = 0; entry < v.hostRing; ++entry)
            setLinesIndices(v.device, view.points, entry,
                            vulkanBuffer(*indices, copyOf(*indices, entry)), indices->size);
}

} // namespace

estuary_view* keep(estuary_viewer& v, std::unique_ptr<estuary_view> view) {
    for (const ViewInput& input : view->inputs)
        ++(input.image ? input.image->viewUsers : input.buffer->viewUsers);
    ++v.drawVersion;
    v.views.push_back(std::move(view));
    return v.views.back().get();
}

estuary_view_params defaultParams(uint32_t flags, estuary_colormap colormap, float lo, float hi) {
    estuary_view_params p{};
    p.visible = (flags & ESTUARY_VIEW_HIDDEN) ? 0 : 1;
    p.colormap = colormap;
    p.value_min = lo;
    p.value_max = hi;
    p.opacity = 0.5f;
    p.slice_axis = 2;
    p.slice_position = 0.5f;
    p.point_size = 1.0f;
    return p;
}

estuary_view* addFieldView(estuary_viewer& v, const estuary_field_view_desc& desc) {
    if (!desc.image) throw usageError("estuary_add_field_view: image is NULL");
    estuary_image& image = *desc.image;
    checkOwned(v, image.viewer, "estuary_add_field_view: the image " + image.name);
    if (image.kind != ESTUARY_IMAGE_2D)
        throw usageError("estuary_add_field_view: " + image.name +
                         " is not a 2D image (volume views draw 3D images)");
    if (uint32_t(desc.shading) > ESTUARY_FIELD_RGB)
        throw usageError("estuary_add_field_view: shading " + std::to_string(int(desc.shading)) +
                         " is not an estuary_field_shading (SCALAR, MAGNITUDE, RGB)");
    if (desc.flags & ~(ESTUARY_VIEW_HIDDEN | ESTUARY_VIEW_NO_COLORBAR))
        throw usageError("estuary_add_field_view: unknown flags (allowed: ESTUARY_VIEW_HIDDEN, "
                         "ESTUARY_VIEW_NO_COLORBAR)");
    checkColormap(v, desc.colormap, "estuary_add_field_view");
    float lo = desc.value_min, hi = desc.value_max;
    checkRange(lo, hi, "estuary_add_field_view");
    auto view = std::make_unique<estuary_view>();
    view->viewer = &v;
    view->kind = ViewKind::Field;
    view->use(InputRole::Image, &image);
    view->flags = desc.flags;
    view->shading = desc.shading;
    view->shader = desc.shader ? desc.shader : "";
    view->label = desc.label && *desc.label ? desc.label : image.name;
    view->params = defaultParams(desc.flags, desc.colormap, lo, hi);
    waitIdle(v, "adding a view");
    if (v.gl)
        glAddView(v, *view);
    else
        makeRenderer(v, *view);
    return keep(v, std::move(view));
}

estuary_view* addVolumeView(estuary_viewer& v, const estuary_volume_view_desc& desc) {
    if (!desc.image) throw usageError("estuary_add_volume_view: image is NULL");
    estuary_image& image = *desc.image;
    checkOwned(v, image.viewer, "estuary_add_volume_view: the image " + image.name);
    if (image.kind != ESTUARY_IMAGE_3D)
        throw usageError("estuary_add_volume_view: " + image.name + " is not a 3D image");
    if (v.consumer == ESTUARY_CONSUMER_OPENGL)
        throw unsupported("estuary_add_volume_view: the OpenGL consumer draws field views only");
    if (uint32_t(desc.style) > ESTUARY_VOLUME_SLICE)
        throw usageError("estuary_add_volume_view: style " + std::to_string(int(desc.style)) +
                         " is not an estuary_volume_style (MARCH, SLICE)");
    if (!std::isfinite(desc.opacity) || desc.opacity < 0.0f)
        throw usageError("estuary_add_volume_view: opacity " + std::to_string(desc.opacity) +
                         " must be a finite number >= 0");
    if (desc.flags & ~(ESTUARY_VIEW_HIDDEN | ESTUARY_VIEW_NO_COLORBAR))
        throw usageError("estuary_add_volume_view: unknown flags");
    checkColormap(v, desc.colormap, "estuary_add_volume_view");
    float lo = desc.value_min, hi = desc.value_max;
    checkRange(lo, hi, "estuary_add_volume_view");
    auto view = std::make_unique<estuary_view>();
    view->viewer = &v;
    view->kind = ViewKind::Volume;
    view->use(InputRole::Image, &image);
    view->flags = desc.flags;
    view->label = desc.label && *desc.label ? desc.label : image.name;
    view->params = defaultParams(desc.flags, desc.colormap, lo, hi);
    view->params.style = desc.style;
    view->params.opacity = desc.opacity > 0.0f ? desc.opacity : 0.5f;
    waitIdle(v, "adding a view");
    makeRenderer(v, *view);
    return keep(v, std::move(view));
}

estuary_view* addPointsView(estuary_viewer& v, const estuary_points_view_desc& desc) {
    if (!desc.buffer) throw usageError("estuary_add_points_view: buffer is NULL");
    estuary_buffer& buffer = *desc.buffer;
    checkOwned(v, buffer.viewer, "estuary_add_points_view: the buffer " + buffer.name);
    if (v.consumer == ESTUARY_CONSUMER_OPENGL)
        throw unsupported("estuary_add_points_view: the OpenGL consumer draws field views only");
    if (uint32_t(desc.layout) > ESTUARY_POINTS_XYZ_SCALAR)
        throw usageError("estuary_add_points_view: layout " + std::to_string(int(desc.layout)) +
                         " is not an estuary_points_layout (XY_VELOCITY, XYZ_SCALAR)");
    if (desc.flags & ~(ESTUARY_VIEW_HIDDEN | ESTUARY_POINTS_COLORBAR))
        throw usageError("estuary_add_points_view: unknown flags (allowed: ESTUARY_VIEW_HIDDEN, "
                         "ESTUARY_POINTS_COLORBAR)");
    const uint32_t capacity = uint32_t(std::min<uint64_t>(buffer.size / 16, UINT32_MAX));
    if (desc.count > capacity)
        throw usageError("estuary_add_points_view: count " + std::to_string(desc.count) +
                         " is more than " + buffer.name + " holds (" + std::to_string(capacity) +
                         " points of 16 bytes)");
    if (!std::isfinite(desc.size) || desc.size < 0.0f)
        throw usageError("estuary_add_points_view: size must be a finite number >= 0");
    for (float b : desc.bounds)
        if (!std::isfinite(b)) throw usageError("estuary_add_points_view: bounds must be finite");
    checkColormap(v, desc.colormap, "estuary_add_points_view");
    float lo = desc.value_min, hi = desc.value_max;
    checkRange(lo, hi, "estuary_add_points_view");
    auto view = std::make_unique<estuary_view>();
    view->viewer = &v;
    view->kind = ViewKind::Points;
    view->use(InputRole::Elements, &buffer);
    view->flags = desc.flags;
    view->layout = desc.layout;
    view->maxPoints = capacity;
    std::copy(std::begin(desc.bounds), std::end(desc.bounds), view->bounds.begin());
    view->label = desc.label && *desc.label ? desc.label : buffer.name;
    view->params = defaultParams(desc.flags, desc.colormap, lo, hi);
    view->params.point_count = desc.count ? desc.count : capacity;
    view->params.point_size = desc.size > 0.0f ? desc.size : 1.0f;
    if (!std::isfinite(desc.intensity) || desc.intensity < 0.0f || desc.intensity > 1.0f)
        throw usageError("estuary_add_points_view: intensity " + std::to_string(desc.intensity) +
                         " is not in 0..1 (0: automatic)");
    view->params.point_intensity = desc.intensity;
    waitIdle(v, "adding a view");
    makePoints(v, *view);
    return keep(v, std::move(view));
}

// What a markers or lines view shares with the rest: finite bounds, a colormap and range checked,
// then the view over `buffer` with its flags, placement (3D: the orbit camera), count and label.

std::unique_ptr<estuary_view> bufferView(estuary_viewer& v, const std::string& what,
                                         const BufferViewDesc& d) {
    for (int i = 0; i < 6; ++i)
        if (!std::isfinite(d.bounds[i])) throw usageError(what + ": bounds must be finite");
    checkColormap(v, d.colormap, what);
    float lo = d.valueMin, hi = d.valueMax;
    checkRange(lo, hi, what);
    auto view = std::make_unique<estuary_view>();
    view->viewer = &v;
    view->kind = ViewKind::Points;
    view->use(InputRole::Elements, d.buffer);
    view->flags = d.flags;
    view->layout = d.threeD ? ESTUARY_POINTS_XYZ_SCALAR : ESTUARY_POINTS_XY_VELOCITY;
    view->maxPoints = d.capacity;
    std::copy(d.bounds, d.bounds + 6, view->bounds.begin());
    view->label = d.label && *d.label ? d.label : d.buffer ? d.buffer->name : "";
    view->params = defaultParams(d.flags, d.colormap, lo, hi);
    view->params.point_count = d.count ? d.count : d.capacity;
    return view;
}

uint32_t vertexCapacity(const estuary_buffer& vertices, const estuary_buffer* indices,
                        uint32_t count, const std::string& what) {
    const estuary_buffer& counted = indices ? *indices : vertices;
    const uint64_t elementBytes = indices ? sizeof(uint32_t) : 16;
    const uint32_t capacity = uint32_t(std::min<uint64_t>(counted.size / elementBytes, UINT32_MAX));
    if (count > capacity)
        throw usageError(what + ": count " + std::to_string(count) + " is more than " +
                         counted.name + " holds (" + std::to_string(capacity) +
                         (indices ? " indices of 4 bytes)" : " vertices of 16 bytes)"));
    return capacity;
}

estuary_view* addMarkersView(estuary_viewer& v, const estuary_markers_view_desc& desc) {
    const std::string what = "estuary_add_markers_view";
    if (!desc.buffer) throw usageError(what + ": buffer is NULL");
    estuary_buffer& buffer = *desc.buffer;
    checkBuffer(v, &buffer, what);
    if (v.consumer == ESTUARY_CONSUMER_OPENGL)
        throw unsupported(what + ": the OpenGL consumer draws field views only");
    if (uint32_t(desc.shape) > ESTUARY_MARKER_SHAPE_ARROW)
        throw usageError(what + ": shape " + std::to_string(int(desc.shape)) +
                         " is not an estuary_marker_shape (0..6: disc, square, triangle, diamond, "
                         "cross, ring, arrow)");
    constexpr uint32_t kAllowed = ESTUARY_VIEW_HIDDEN | ESTUARY_POINTS_COLORBAR |
                                  ESTUARY_MARKERS_3D | ESTUARY_MARKERS_OUTLINE |
                                  ESTUARY_MARKERS_WORLD_SIZE | ESTUARY_MARKERS_SCALE_BY_LENGTH |
                                  ESTUARY_MARKERS_RGBA;
    checkFlags(desc.flags, kAllowed, what,
               "ESTUARY_VIEW_HIDDEN, ESTUARY_POINTS_COLORBAR, ESTUARY_MARKERS_*");
    constexpr uint64_t kMarkerBytes = 32;
    const uint32_t capacity = uint32_t(std::min<uint64_t>(buffer.size / kMarkerBytes, UINT32_MAX));
    if (desc.count > capacity)
        throw usageError(what + ": count " + std::to_string(desc.count) + " is more than " +
                         buffer.name + " holds (" + std::to_string(capacity) +
                         " markers of 32 bytes)");
    if (!std::isfinite(desc.size) || desc.size < 0.0f)
        throw usageError(what + ": size " + std::to_string(desc.size) +
                         " must be a finite number >= 0 (0: 8 pixels)");
    if (!std::isfinite(desc.line_width) || desc.line_width < 0.0f)
        throw usageError(what + ": line_width " + std::to_string(desc.line_width) +
                         " must be a finite number >= 0 (0: 1.5 pixels)");
    auto view =
        bufferView(v, what,
                   {&buffer, desc.bounds, desc.colormap, desc.value_min, desc.value_max, desc.label,
                    desc.flags, (desc.flags & ESTUARY_MARKERS_3D) != 0, capacity, desc.count});
    view->markers = true;
    view->markerShape = desc.shape;
    view->lineWidth = desc.line_width > 0.0f ? desc.line_width : 1.5f;
    view->params.point_size = desc.size > 0.0f ? desc.size : 8.0f;
    waitIdle(v, "adding a view");
    makePoints(v, *view);
    return keep(v, std::move(view));
}

estuary_view* addLinesView(estuary_viewer& v, const estuary_lines_view_desc& desc) {
    const std::string what = "estuary_add_lines_view";
    if (!desc.vertices) throw usageError(what + ": vertices is NULL");
    estuary_buffer& vertices = *desc.vertices;
    checkBuffer(v, &vertices, what);
    checkBuffer(v, desc.indices, what);
    if (v.consumer == ESTUARY_CONSUMER_OPENGL)
        throw unsupported(what + ": the OpenGL consumer draws field views only");
    if (uint32_t(desc.topology) > ESTUARY_LINES_STRIP)
        throw usageError(what + ": topology " + std::to_string(int(desc.topology)) +
                         " is not an estuary_line_topology (0: segments, 1: strip)");
    constexpr uint32_t kAllowed =
        ESTUARY_VIEW_HIDDEN | ESTUARY_POINTS_COLORBAR | ESTUARY_LINES_3D | ESTUARY_LINES_RGBA;
    checkFlags(
        desc.flags, kAllowed, what,
        "ESTUARY_VIEW_HIDDEN, ESTUARY_POINTS_COLORBAR, ESTUARY_LINES_3D, ESTUARY_LINES_RGBA");
    const uint32_t capacity = vertexCapacity(vertices, desc.indices, desc.count, what);
    if (!std::isfinite(desc.width) || desc.width < 0.0f)
        throw usageError(what + ": width " + std::to_string(desc.width) +
                         " must be a finite number >= 0 (0: 1.5 pixels)");
    auto view = bufferView(v, what,
                           {&vertices, desc.bounds, desc.colormap, desc.value_min, desc.value_max,
                            desc.label, desc.flags, (desc.flags & ESTUARY_LINES_3D) != 0, capacity,
                            desc.count});
    view->lines = true;
    view->topology = desc.topology;
    view->use(InputRole::Indices, desc.indices);
    view->params.point_size = desc.width > 0.0f ? desc.width : 1.5f;
    waitIdle(v, "adding a view");
    makePoints(v, *view);
    return keep(v, std::move(view));
}

estuary_view* addGlyphView(estuary_viewer& v, const estuary_glyph_view_desc& desc) {
    const std::string what = "estuary_add_glyph_view";
    if (!desc.image) throw usageError(what + ": image is NULL");
    estuary_image& image = *desc.image;
    checkOwned(v, image.viewer, what + ": the image " + image.name);
    if (v.consumer == ESTUARY_CONSUMER_OPENGL)
        throw unsupported(what + ": the OpenGL consumer draws field views only");
    const bool threeD = image.kind == ESTUARY_IMAGE_3D;
    if (!(image.kind == ESTUARY_IMAGE_2D && image.format != ESTUARY_FORMAT_R32_FLOAT) &&
        !(threeD && image.format != ESTUARY_FORMAT_R32_FLOAT &&
          image.format != ESTUARY_FORMAT_RG32_FLOAT))
        throw usageError(what + ": the image " + image.name +
                         " must be 2D with 2 or more channels (the velocity in channels 0 and 1) "
                         "or 3D with 4 (in channels 0, 1 and 2)");
    if (uint32_t(desc.shape) > ESTUARY_MARKER_SHAPE_ARROW)
        throw usageError(what + ": shape " + std::to_string(int(desc.shape)) +
                         " is not an estuary_marker_shape (0..6)");
    constexpr uint32_t kAllowed =
        ESTUARY_VIEW_HIDDEN | ESTUARY_POINTS_COLORBAR | ESTUARY_MARKERS_OUTLINE;
    checkFlags(desc.flags, kAllowed, what,
               "ESTUARY_VIEW_HIDDEN, ESTUARY_POINTS_COLORBAR, ESTUARY_MARKERS_OUTLINE");
    if (!std::isfinite(desc.size) || desc.size < 0.0f)
        throw usageError(what + ": size " + std::to_string(desc.size) +
                         " must be a finite number >= 0 (0: 16 pixels)");
    const uint32_t spacing = desc.spacing ? desc.spacing : 8;
    const float zero[6] = {};
    auto view = bufferView(v, what,
                           {nullptr, zero, desc.colormap, desc.value_min, desc.value_max,
                            desc.label && *desc.label ? desc.label : image.name.c_str(), desc.flags,
                            threeD, 1, 1});
    view->glyphs = true;
    view->use(InputRole::Image, &image);
    view->markerShape = desc.shape;
    view->glyphSpacing = spacing;
    view->params.point_size = desc.size > 0.0f ? desc.size : 16.0f;
    waitIdle(v, "adding a view");
    makePoints(v, *view);
    return keep(v, std::move(view));
}

void destroyView(estuary_viewer& v, estuary_view* view) {
    waitIdle(v, "destroying a view");
    // Picks of it not yet recorded pick nothing; the panel forgets it.
    for (EntryState& entry : v.entries)
        for (ReadRequest& read : entry.reads)
            if (read.pickView == view) read.pickView = nullptr;
    std::erase_if(v.panels.picks, [&](const auto& shown) { return shown.view == view; });
    for (const ViewInput& input : view->inputs)
        --(input.image ? input.image->viewUsers : input.buffer->viewUsers);
    if (v.gl) glRemoveView(v, *view);
    ++v.drawVersion;
    std::erase_if(v.views, [&](const auto& p) { return p.get() == view; });
}

void setViewParams(estuary_viewer& v, estuary_view& view, const estuary_view_params& in) {
    const std::string what =
        std::string("estuary_set_view_params (") + viewKind(view) + " view " + view.label + ")";
    estuary_view_params p = in;
    checkColormap(v, p.colormap, what);
    checkRange(p.value_min, p.value_max, what);
    if (!std::isfinite(p.mip_bias)) throw usageError(what + ": mip_bias must be finite");
    if (!std::isfinite(p.opacity) || p.opacity < 0.0f)
        throw usageError(what + ": opacity " + std::to_string(p.opacity) + " must be >= 0");
    if (uint32_t(p.style) > ESTUARY_VOLUME_SLICE)
        throw usageError(what + ": style must be ESTUARY_VOLUME_MARCH or ESTUARY_VOLUME_SLICE");
    if (p.slice_axis > 2) throw usageError(what + ": slice_axis must be 0 (x), 1 (y) or 2 (z)");
    if (!(p.slice_position >= 0.0f && p.slice_position <= 1.0f))
        throw usageError(what + ": slice_position " + std::to_string(p.slice_position) +
                         " must be in 0..1");
    if (view.kind == ViewKind::Points && p.point_count > view.maxPoints)
        throw usageError(what + ": point_count " + std::to_string(p.point_count) +
                         " is more than its buffer holds (" + std::to_string(view.maxPoints) + ")");
    if (!std::isfinite(p.point_size) || p.point_size <= 0.0f)
        throw usageError(what + ": point_size must be a finite number > 0");
    if (!std::isfinite(p.point_intensity) || p.point_intensity < 0.0f || p.point_intensity > 1.0f)
        throw usageError(what + ": point_intensity must be in 0..1 (0: automatic)");
    p.visible = p.visible ? 1 : 0;
    const bool restyle = view.kind == ViewKind::Volume && p.style != view.params.style;
    if (restyle) {
        waitIdle(v, "changing a volume view's style");
        destroyRenderer(v.device, view.renderer);
        view.params.style = p.style;
        makeRenderer(v, view);
    }
    if (std::memcmp(&p, &view.params, sizeof(p)) != 0) ++v.drawVersion;
    view.params = p;
}

const estuary_view* backgroundView(const estuary_viewer& v) {
    const estuary_view* found = nullptr;
    for (const auto& view : v.views)
        if (view->params.visible && view->kind != ViewKind::Points) found = view.get();
    return found;
}

bool backgroundIs3d(const estuary_viewer& v) {
    const estuary_view* bg = backgroundView(v);
    return bg && bg->kind == ViewKind::Volume && bg->params.style == ESTUARY_VOLUME_MARCH;
}

VkExtent2D backgroundExtent(const estuary_viewer& v) {
    const estuary_view* bg = backgroundView(v);
    if (!bg) return {0, 0};
    const estuary_image& image = *bg->image();
    if (bg->kind == ViewKind::Volume) {
        const uint32_t w = image.extent.width, h = image.extent.height, d = image.shape.depth;
        // volume_slice.frag's order: z by y for x slices, x by z for y slices, x by y for z.
        const uint32_t axis = bg->params.slice_axis;
        return axis == 0 ? VkExtent2D{d, h} : axis == 1 ? VkExtent2D{w, d} : VkExtent2D{w, h};
    }
    return image.extent;
}

ViewParams viewParams(const estuary_viewer& v, const estuary_view& view) {
    ViewParams p;
    p.zoom = v.camera.zoom;
    p.panX = v.camera.panX;
    p.panY = v.camera.panY;
    p.yaw = v.camera.yaw;
    p.pitch = v.camera.pitch;
    p.mipBias = view.params.mip_bias;
    p.colormap = uint32_t(view.params.colormap);
    p.valueMin = view.params.value_min;
    p.valueMax = view.params.value_max;
    p.opacity = view.params.opacity;
    p.sliceAxis = view.params.slice_axis;
    p.slicePosition = view.params.slice_position;
    p.background = v.background;
    return p;
}

namespace {

// 2D positions in the cells of a `cells`-sized image: cell (i, j) at (i, j).
void placeInCells(PointsDraw& draw, VkExtent2D cells) {
    draw.domain = cells;
    draw.uvScale = {1.0f / float(cells.width), 1.0f / float(cells.height)};
    draw.uvOffset = {0.5f / float(cells.width), 0.5f / float(cells.height)};
}

PointsDraw pointsDraw(const estuary_viewer& v, const estuary_view& view) {
    PointsDraw draw;
    draw.count = view.params.point_count;
    draw.size = view.params.point_size;
    draw.intensity = view.params.point_intensity;
    draw.colormap = uint32_t(view.params.colormap);
    draw.valueMin = view.params.value_min;
    draw.valueMax = view.params.value_max;
    draw.view = viewParams(v, view);
    if (view.markers) {
        draw.markerShape = uint32_t(view.markerShape);
        draw.markerFlags = view.flags & kMarkerShaderFlags;
        draw.lineWidth = view.lineWidth;
    }
    if (view.glyphs) { // in the image's cells, whatever is below
        draw.markerShape = uint32_t(view.markerShape);
        draw.markerFlags =
            ESTUARY_MARKER_FLAG_SCALE_BY_LENGTH | (view.flags & ESTUARY_MARKERS_OUTLINE);
        draw.glyphSpacing = view.glyphSpacing;
        const estuary_image& image = *view.image();
        if (image.kind == ESTUARY_IMAGE_3D) // the box of its cells, as a volume view frames it
            draw.box = {0.0f,
                        0.0f,
                        0.0f,
                        float(image.extent.width),
                        float(image.extent.height),
                        float(image.shape.depth)};
        else
            placeInCells(draw, image.extent);
        return draw;
    }
    if (view.lines) {
        draw.markerShape = uint32_t(view.topology);
        draw.markerFlags = view.flags & ESTUARY_LINES_RGBA;
        draw.lineWidth = view.params.point_size;
    }
    const auto& b = view.bounds;
    if (view.layout == ESTUARY_POINTS_XYZ_SCALAR) {
        if (std::any_of(b.begin(), b.end(), [](float x) { return x != 0.0f; })) draw.box = b;
        return draw;
    }
    const VkExtent2D field = backgroundExtent(v);
    if (field.width > 0 && !backgroundIs3d(v)) { // cells of the field below: cell i at i
        placeInCells(draw, field);
        return draw;
    }
    // `bounds` (x0, y0, x1, y1) fill the letterbox; none: the unit square.
    const float x0 = b[0], y0 = b[1];
    const float x1 = b[2] > b[0] ? b[2] : b[0] + 1.0f, y1 = b[3] > b[1] ? b[3] : b[1] + 1.0f;
    // The letterbox keeps the domain's aspect: its size in "cells" is scaled to a whole number.
    const float aspect = (x1 - x0) / (y1 - y0);
    draw.domain = aspect >= 1.0f ? VkExtent2D{uint32_t(std::lround(1024.0f * aspect)), 1024}
                                 : VkExtent2D{1024, uint32_t(std::lround(1024.0f / aspect))};
    draw.uvScale = {1.0f / (x1 - x0), 1.0f / (y1 - y0)};
    draw.uvOffset = {-x0 / (x1 - x0), -y0 / (y1 - y0)};
    return draw;
}

} // namespace

void recordViews(estuary_viewer& v, VkCommandBuffer cmd, uint64_t frame, VkImage targetImage,
                 VkImageView targetView, VkExtent2D extent) {
    const uint32_t entry = uint32_t(frame % v.hostRing);
    if (const estuary_view* bg = backgroundView(v)) {
        recordDraw(bg->renderer, cmd, entry, targetView, extent, viewParams(v, *bg), targetImage);
    } else { // nothing covers the picture: its background
        VkRenderingAttachmentInfo color{VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO};
        color.imageView = targetView;
        color.imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
        color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
        color.clearValue.color = {{v.background[0], v.background[1], v.background[2], 1.0f}};
        VkRenderingInfo rendering{VK_STRUCTURE_TYPE_RENDERING_INFO};
        rendering.renderArea = {{0, 0}, extent};
        rendering.layerCount = 1;
        rendering.colorAttachmentCount = 1;
        rendering.pColorAttachments = &color;
        vkCmdBeginRendering(cmd, &rendering);
        vkCmdEndRendering(cmd);
    }
    for (const auto& view : v.views) {
        if (!view->params.visible || view->kind != ViewKind::Points) continue;
        if (view->mesh)
            recordMeshView(v, *view, cmd, entry, targetView, extent);
        else
            recordPoints(view->points, cmd, entry, targetView, extent, pointsDraw(v, *view),
                         targetImage);
    }
}

bool isBufferView(const estuary_view& view) {
    return view.kind == ViewKind::Points;
}

void preparePick(estuary_viewer& v, estuary_view& view) {
    if (view.mesh)
        prepareMeshPick(v.device, view.meshRenderer);
    else
        preparePointsPick(v.device, view.points);
}

void recordPick(const estuary_viewer& v, const estuary_view& view, VkCommandBuffer cmd,
                uint32_t entry, VkExtent2D extent, const PickQuery& query, VkBuffer destination,
                VkDeviceSize offset) {
    if (view.mesh)
        recordMeshPick(view.meshRenderer, cmd, entry, extent, meshDraw(v, view), query, destination,
                       offset);
    else
        recordPointsPick(view.points, cmd, entry, extent, pointsDraw(v, view), query, destination,
                         offset);
}

void resizeViews(estuary_viewer& v, VkExtent2D extent) {
    for (const auto& view : v.views)
        if (view->renderer.computePipeline)
            setComputeExtent(v.device, view->renderer, extent);
        else if (view->points.splatPipeline)
            setPointsExtent(v.device, view->points, extent, storageTarget(v));
        else if (view->mesh)
            setMeshExtent(v.device, view->meshRenderer, extent);
}

} // namespace estuary::lib

estuary_view::~estuary_view() {
    if (!viewer) return;
    estuary::destroyRenderer(viewer->device, renderer);
    estuary::destroyPointsRenderer(viewer->device, points);
    estuary::destroyMeshRenderer(viewer->device, meshRenderer);
}

void estuary_view::use(estuary::lib::InputRole role, estuary_image* input) {
    if (input) inputs.push_back({role, input, nullptr});
}

void estuary_view::use(estuary::lib::InputRole role, estuary_buffer* input) {
    if (input) inputs.push_back({role, nullptr, input});
}

estuary_image* estuary_view::image() const {
    for (const estuary::lib::ViewInput& input : inputs)
        if (input.role == estuary::lib::InputRole::Image) return input.image;
    return nullptr;
}

estuary_buffer* estuary_view::buffer(estuary::lib::InputRole role) const {
    for (const estuary::lib::ViewInput& input : inputs)
        if (input.role == role) return input.buffer;
    return nullptr;
}
