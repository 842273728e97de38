// The one definition of what C++ and GLSL must agree on for drawing a field and its particles:
// descriptor bindings, the shading modes, the push-constant blocks, the colormap table size and the
// letterbox colour.
// Included by the shaders (GL_GOOGLE_include_directive) and by renderer/. Push constants are scalar
// floats only, so the std430 layout and the C++ layout are the same without any padding rules.
#ifndef ESTUARY_SHARED_LAYOUT_H
#define ESTUARY_SHARED_LAYOUT_H

#define ESTUARY_BINDING_FIELD 0
#define ESTUARY_BINDING_COLORMAP 1
// (2 and 5 held the points' and lines' buffers before ESTUARY_BINDING_ATTRIBUTES.)
// The compute draw's storage image (draw_main.glsl with ESTUARY_COMPUTE_DRAW), RGBA8.
#define ESTUARY_BINDING_DRAW_TARGET 3
// The points' compute splat (points_splat.glsl): per target pixel three uints, the red, green and
// blue the pixel's points add in 1/255 steps, resolved onto the target by points_resolve.frag.
#define ESTUARY_BINDING_SPLAT 4

// The markers' and lines' compute splat (markers_splat.glsl, lines_splat.glsl): what the resolve
// needs of each (a marker's colour, RGBA8; a segment's ends and their colours, 32 bytes).
#define ESTUARY_BINDING_MARKER_COLOURS 7

// A buffer view's channels (attributes.glsl): one storage buffer per channel (position, value,
// size, direction, normal, index, as estuary_channel numbers them), each bound at its attribute's
// offset rounded down to the device's storage-buffer offset alignment; a channel not read is bound
// to any buffer of the view. Each channel's format (estuary_attribute_format's values; 0: not
// read, its default), the bytes left from the descriptor's offset to element 0 and the stride are
// the specialization constants ESTUARY_SPEC_ATTRIBUTES + 3 * channel + 0, 1, 2 of the view's
// pipelines, so a layout costs the loads it needs and nothing more; constants
// ESTUARY_SPEC_ATTRIBUTES + 18 + channel say where a channel lies inside another's 16-byte load.
#define ESTUARY_BINDING_ATTRIBUTES 10
#define ESTUARY_ATTRIBUTE_CHANNELS 6
#define ESTUARY_CH_POSITION 0
#define ESTUARY_CH_VALUE 1
#define ESTUARY_CH_SIZE 2
#define ESTUARY_CH_DIRECTION 3
#define ESTUARY_CH_NORMAL 4
#define ESTUARY_CH_INDEX 5
#define ESTUARY_SPEC_ATTRIBUTES 16
#define ESTUARY_ATTR_F32 1
#define ESTUARY_ATTR_F32X2 2
#define ESTUARY_ATTR_F32X3 3
#define ESTUARY_ATTR_F32X4 4
#define ESTUARY_ATTR_F16 5
#define ESTUARY_ATTR_F16X2 6
#define ESTUARY_ATTR_F16X3 7
#define ESTUARY_ATTR_F16X4 8
#define ESTUARY_ATTR_UNORM8X4 9
#define ESTUARY_ATTR_I32 10
#define ESTUARY_ATTR_U32 11
// Shader-only: 32 bits read as they are (a value whose bits are a colour: the RGBA flags).
#define ESTUARY_ATTR_BITS 12

// A buffer view's pick (pick.glsl): the one PickState the passes share (renderer/pick.h).
#define ESTUARY_BINDING_PICK 9

// field.frag's specialization constant 0: how a texel becomes a colour.
#define ESTUARY_SPEC_SHADING 0
#define ESTUARY_SHADING_COLORMAP 0
#define ESTUARY_SHADING_COLORMAP_MAGNITUDE 1
#define ESTUARY_SHADING_RGB 2

// Entries per colormap: one row of the colormap atlas each; the atlas's rows (the built-in maps,
// then the user's). A push block's colormapIndex is the row plus, for a categorical palette of n
// entries, n * ESTUARY_COLORMAP_CATEGORY_STRIDE (shaders/colormap.glsl decodes it); colormapCount
// is the atlas's rows.
#define ESTUARY_COLORMAP_SIZE 256
#define ESTUARY_COLORMAP_ATLAS_ROWS 64
#define ESTUARY_COLORMAP_CATEGORY_STRIDE 1024

// The picture's default background (estuary_set_background changes it per viewer).
#define ESTUARY_BACKGROUND_COLOR 0.08f, 0.08f, 0.10f

// The letterboxed view mapping the 2D draws share, first in their blocks: sizes in pixels
// (target) and texels (field), pan in field-normalised units, and the background colour drawn
// outside the field.
#define ESTUARY_VIEW_PUSH_CONSTANTS                                                                \
    float targetWidth;                                                                             \
    float targetHeight;                                                                            \
    float fieldWidth;                                                                              \
    float fieldHeight;                                                                             \
    float panX;                                                                                    \
    float panY;                                                                                    \
    float zoom;                                                                                    \
    float backgroundR;                                                                             \
    float backgroundG;                                                                             \
    float backgroundB;

// colormapIndex is the row of the colormap atlas (with a categorical palette's size, see
// ESTUARY_COLORMAP_CATEGORY_STRIDE), passed as a float because it only feeds a texture coordinate.
#define ESTUARY_FIELD_PUSH_CONSTANTS                                                               \
    ESTUARY_VIEW_PUSH_CONSTANTS                                                                    \
    float mipBias;                                                                                 \
    float valueMin;                                                                                \
    float valueMax;                                                                                \
    float colormapIndex;                                                                           \
    float colormapCount;

// 2D points (points.vert): the same view mapping over a domain of fieldWidth x fieldHeight, a
// point's uv = position * uvScale + uvOffset (cells: 1 / size and 0.5 / size), then the point size
// in pixels, the value range over the colormap and the additive intensity of one point; last the
// number of points the compute splat reads, as the bits of a uint (floatBitsToUint).
#define ESTUARY_POINT_PUSH_CONSTANTS                                                               \
    ESTUARY_VIEW_PUSH_CONSTANTS                                                                    \
    float uvScaleX;                                                                                \
    float uvScaleY;                                                                                \
    float uvOffsetX;                                                                               \
    float uvOffsetY;                                                                               \
    float pointSize;                                                                               \
    float valueMin;                                                                                \
    float valueMax;                                                                                \
    float colormapIndex;                                                                           \
    float colormapCount;                                                                           \
    float intensity;                                                                               \
    float pointCountBits;

// The 3D draws' camera, first in their blocks: the target's size, the orbit camera as the
// volume's (eye, forward, right, up; see below), the box framed (a point p is at
// (p - centre) * invScale in the camera's frame).
#define ESTUARY_ORBIT_PUSH_CONSTANTS                                                               \
    float targetWidth;                                                                             \
    float targetHeight;                                                                            \
    float eyeX;                                                                                    \
    float eyeY;                                                                                    \
    float eyeZ;                                                                                    \
    float forwardX;                                                                                \
    float forwardY;                                                                                \
    float forwardZ;                                                                                \
    float rightX;                                                                                  \
    float rightY;                                                                                  \
    float rightZ;                                                                                  \
    float upX;                                                                                     \
    float upY;                                                                                     \
    float upZ;                                                                                     \
    float centreX;                                                                                 \
    float centreY;                                                                                 \
    float centreZ;                                                                                 \
    float invScale;

// 3D points (points3d.vert): the orbit camera's block, then as for 2D points.
#define ESTUARY_POINT3D_PUSH_CONSTANTS                                                             \
    ESTUARY_ORBIT_PUSH_CONSTANTS                                                                   \
    float pointSize;                                                                               \
    float valueMin;                                                                                \
    float valueMax;                                                                                \
    float colormapIndex;                                                                           \
    float colormapCount;                                                                           \
    float intensity;                                                                               \
    float pointCountBits;

// Markers (markers.vert, markers3d.vert, markers.frag): the points' blocks, then the shape
// (ESTUARY_MARKER_*), the flags (ESTUARY_MARKER_FLAG_*, as the bits of a uint) and the width of
// outlines in pixels, and for glyphs (markers sampled from an image, glyphs.vert) the cells between
// them. pointSize is the marker's size: pixels, or with WORLD_SIZE position units.
#define ESTUARY_MARKER_EXTRA_PUSH_CONSTANTS                                                        \
    float markerShape;                                                                             \
    float markerFlagBits;                                                                          \
    float lineWidth;                                                                               \
    float glyphSpacing;
#define ESTUARY_MARKER_PUSH_CONSTANTS                                                              \
    ESTUARY_POINT_PUSH_CONSTANTS                                                                   \
    ESTUARY_MARKER_EXTRA_PUSH_CONSTANTS
#define ESTUARY_MARKER3D_PUSH_CONSTANTS                                                            \
    ESTUARY_POINT3D_PUSH_CONSTANTS                                                                 \
    ESTUARY_MARKER_EXTRA_PUSH_CONSTANTS

// Marker shapes and flags: estuary_marker_shape's values and the view's ESTUARY_MARKERS_* bits as
// they are (the viewer passes only these bits).
#define ESTUARY_MARKER_DISC 0
#define ESTUARY_MARKER_SQUARE 1
#define ESTUARY_MARKER_TRIANGLE 2
#define ESTUARY_MARKER_DIAMOND 3
#define ESTUARY_MARKER_CROSS 4
#define ESTUARY_MARKER_RING 5
#define ESTUARY_MARKER_ARROW 6
#define ESTUARY_MARKER_FLAG_OUTLINE 0x20u
#define ESTUARY_MARKER_FLAG_WORLD_SIZE 0x40u
#define ESTUARY_MARKER_FLAG_SCALE_BY_LENGTH 0x80u
#define ESTUARY_MARKER_FLAG_RGBA 0x100u

// Lines (lines.vert, lines3d.vert, lines.frag) push the markers' block: markerShape is the
// topology, markerFlagBits the ESTUARY_LINE_FLAG_* bits (RGBA: the view's ESTUARY_LINES_RGBA as it
// is), lineWidth the width in pixels.
#define ESTUARY_LINE_SEGMENTS 0
#define ESTUARY_LINE_STRIP 1
#define ESTUARY_LINE_FLAG_INDEXED 0x10000u // set by the renderer, not a view flag
#define ESTUARY_LINE_FLAG_RGBA 0x100u
#define ESTUARY_LINE_RESTART 0xFFFFFFFFu
// The lines' compute splat keeps per pixel its key and a sum of -ln(1 - alpha) in fixed point,
// this much a unit.
#define ESTUARY_LINE_SPLAT_SCALE 65536.0
// The lines' compute splat (lines_splat.glsl) reads the segments' count from the block's
// `intensity`, as the bits of a uint (pointCountBits holds the vertices' count there).

// A mesh view (mesh.vert or mesh_indexed.vert, mesh.frag; mesh_prepare.comp sums its normals):
// the orbit camera's block, the colormap, then the ESTUARY_MESH_FLAG_* bits, the vertices in the
// buffer and the triangles drawn (as the bits of uints), and the wireframe's width (pixels) and
// colour.
#define ESTUARY_MESH_PUSH_CONSTANTS                                                                \
    ESTUARY_ORBIT_PUSH_CONSTANTS                                                                   \
    float valueMin;                                                                                \
    float valueMax;                                                                                \
    float colormapIndex;                                                                           \
    float colormapCount;                                                                           \
    float meshFlagBits;                                                                            \
    float vertexCountBits;                                                                         \
    float triangleCountBits;                                                                       \
    float wireWidth;                                                                               \
    float wireR;                                                                                   \
    float wireG;                                                                                   \
    float wireB;                                                                                   \
    float wireA;

// Mesh flags: the view's ESTUARY_MESH_WIREFRAME and ESTUARY_MESH_RGBA as they are, and what the
// renderer adds: flat shading, indexed triangles, and normals that are mesh_normals.comp's sums
// (fixed point, ESTUARY_MESH_NORMAL_SCALE per unit, in the bits of the normals' floats; written by
// mesh_prepare.comp).
#define ESTUARY_MESH_FLAG_WIREFRAME 0x20u
#define ESTUARY_MESH_FLAG_RGBA 0x100u
#define ESTUARY_MESH_FLAG_FLAT 0x10000u
#define ESTUARY_MESH_FLAG_INDEXED 0x20000u
#define ESTUARY_MESH_FLAG_NORMAL_SUMS 0x40000u
// mesh_prepare.comp copies the triangles' indices for the indexed draw, a triangle with an index
// past the vertices as (0, 0, 0), which draws nothing (set by the renderer).
#define ESTUARY_MESH_FLAG_WRITE_INDICES 0x80000u
#define ESTUARY_BINDING_DRAW_INDICES 8
#define ESTUARY_MESH_NORMAL_SCALE 65536.0
// A mesh's normal sums (mesh_prepare.comp): ivec4 per vertex; the user's normals are the normal
// channel (ESTUARY_BINDING_ATTRIBUTES).
#define ESTUARY_BINDING_NORMALS 6
// The one light: white, from the viewer's upper left (in the camera's frame: this far to the
// right, up the picture and towards the viewer; unit length), over an ambient share.
#define ESTUARY_MESH_LIGHT_RIGHT (-0.4)
#define ESTUARY_MESH_LIGHT_UP 0.5
#define ESTUARY_MESH_LIGHT_TOWARD 0.76811457
#define ESTUARY_MESH_AMBIENT 0.2

// A volume's draw (volume.frag ray-marches it, volume_slice.frag shows one slice), sampled as a
// sampler3D. The view mapping first (field sizes: the volume's width and height; the slice view
// letterboxes its slice with it), then the volume's depth, the orbit camera in the volume's frame
// (the volume spans [-s/2, s/2] with s = size / largest side; the ray through pixel (px, py) is
// eye + t * (forward + x * right + y * up) with (x, y) = 2 * (px, py) / target - 1, right and up
// scaled so their lengths are tan(fov/2) * aspect and tan(fov/2), up pointing to the top row),
// the transfer function (colormap over [valueMin, valueMax]; extinction per voxel
// opacity * normalised value), and the slice: axis 0 = x, 1 = y, 2 = z at position 0..1.
#define ESTUARY_VOLUME_PUSH_CONSTANTS                                                              \
    ESTUARY_VIEW_PUSH_CONSTANTS                                                                    \
    float fieldDepth;                                                                              \
    float eyeX;                                                                                    \
    float eyeY;                                                                                    \
    float eyeZ;                                                                                    \
    float forwardX;                                                                                \
    float forwardY;                                                                                \
    float forwardZ;                                                                                \
    float rightX;                                                                                  \
    float rightY;                                                                                  \
    float rightZ;                                                                                  \
    float upX;                                                                                     \
    float upY;                                                                                     \
    float upZ;                                                                                     \
    float valueMin;                                                                                \
    float valueMax;                                                                                \
    float colormapIndex;                                                                           \
    float colormapCount;                                                                           \
    float opacity;                                                                                 \
    float sliceAxis;                                                                               \
    float slicePosition;                                                                           \
    float lodBias;

// Text (renderer/text.h, renderer/labels.h): the font's signed-distance-field atlas (R8), the
// annotation quads a frame writes (TextQuad) and the labels' glyph runs (per string a uvec4: first
// glyph, glyph count; per glyph two vec4s: its quad in em units from the anchor, aligned, and its
// texture coordinates).
#define ESTUARY_BINDING_FONT 11
#define ESTUARY_BINDING_TEXT_QUADS 12
#define ESTUARY_BINDING_LABEL_RUNS 13
// TextQuad::params.x: what a quad draws (text.frag).
#define ESTUARY_TEXT_RECT 0
#define ESTUARY_TEXT_RAMP 1
#define ESTUARY_TEXT_LINE 2
#define ESTUARY_TEXT_GLYPH 3

#define ESTUARY_TEXT_PUSH_CONSTANTS                                                                \
    float targetWidth;                                                                             \
    float targetHeight;
// The compute path of text (text_tiles.comp): the picture's screen tiles of 16 x 16 pixels, each
// with the quads that reach it in drawing order, as uints: per non-empty tile four (x | y << 16 in
// tiles, the first of its quad indices, their count, 0), then per clip rectangle four (x0, y0, x1,
// y1 pixels, exclusive), then the quad indices; the push block says where the last two start and
// how many tiles there are (dispatched in rows of up to 65535 workgroups).
#define ESTUARY_BINDING_TEXT_TILES 14
#define ESTUARY_TEXT_TILE 16
#define ESTUARY_TEXT_TILES_PUSH_CONSTANTS                                                          \
    float targetWidth;                                                                             \
    float targetHeight;                                                                            \
    float clipBaseBits;                                                                            \
    float indexBaseBits;                                                                           \
    float tileCountBits;
// The labels' compute path (labels_splat.glsl, labels_resolve.comp): per pixel of the picture the
// labels view's largest glyph coverage (0..65535), cleared back to 0 by the resolve.
#define ESTUARY_BINDING_LABEL_COVERAGE 15
// The resolve's block: the area's pixels in the picture (x0, y0, width, height), the picture's
// width and the view's colour (RGBA8 bits).
#define ESTUARY_LABELS_RESOLVE_PUSH_CONSTANTS                                                      \
    float x0;                                                                                      \
    float y0;                                                                                      \
    float width;                                                                                   \
    float height;                                                                                  \
    float pictureWidth;                                                                            \
    float colourBits;

// The labels' own members, after their placement (points_place.glsl's names): the em size and
// the offset from the anchor in pixels, the colour (RGBA8 bits), the anchors drawn, the strings
// and the longest string's glyphs (uints as bits); for the compute path, where the area placed in
// (targetWidth x targetHeight) starts in the picture, and the picture's size.
#define ESTUARY_LABEL_MEMBERS                                                                      \
    float sizePixels;                                                                              \
    float offsetX;                                                                                 \
    float offsetY;                                                                                 \
    float colourBits;                                                                              \
    float labelCountBits;                                                                          \
    float stringCountBits;                                                                         \
    float maxGlyphsBits;                                                                           \
    float areaX;                                                                                   \
    float areaY;                                                                                   \
    float pictureWidth;                                                                            \
    float pictureHeight;
#define ESTUARY_LABELS_PUSH_CONSTANTS                                                              \
    float targetWidth;                                                                             \
    float targetHeight;                                                                            \
    float fieldWidth;                                                                              \
    float fieldHeight;                                                                             \
    float panX;                                                                                    \
    float panY;                                                                                    \
    float zoom;                                                                                    \
    float uvScaleX;                                                                                \
    float uvScaleY;                                                                                \
    float uvOffsetX;                                                                               \
    float uvOffsetY;                                                                               \
    ESTUARY_LABEL_MEMBERS
#define ESTUARY_LABELS3D_PUSH_CONSTANTS                                                            \
    float targetWidth;                                                                             \
    float targetHeight;                                                                            \
    float eyeX;                                                                                    \
    float eyeY;                                                                                    \
    float eyeZ;                                                                                    \
    float forwardX;                                                                                \
    float forwardY;                                                                                \
    float forwardZ;                                                                                \
    float rightX;                                                                                  \
    float rightY;                                                                                  \
    float rightZ;                                                                                  \
    float upX;                                                                                     \
    float upY;                                                                                     \
    float upZ;                                                                                     \
    float centreX;                                                                                 \
    float centreY;                                                                                 \
    float centreZ;                                                                                 \
    float invScale;                                                                                \
    ESTUARY_LABEL_MEMBERS

#ifdef __cplusplus
namespace estuary {
struct FieldPushConstants {
    ESTUARY_FIELD_PUSH_CONSTANTS
};
struct PointPushConstants {
    ESTUARY_POINT_PUSH_CONSTANTS
};
struct Point3dPushConstants {
    ESTUARY_POINT3D_PUSH_CONSTANTS
};
struct VolumePushConstants {
    ESTUARY_VOLUME_PUSH_CONSTANTS
};
struct MarkerPushConstants {
    ESTUARY_MARKER_PUSH_CONSTANTS
};
struct Marker3dPushConstants {
    ESTUARY_MARKER3D_PUSH_CONSTANTS
};
struct MeshPushConstants {
    ESTUARY_MESH_PUSH_CONSTANTS
};
struct TextPushConstants {
    ESTUARY_TEXT_PUSH_CONSTANTS
};
struct TextTilesPushConstants {
    ESTUARY_TEXT_TILES_PUSH_CONSTANTS
};
struct LabelsPushConstants {
    ESTUARY_LABELS_PUSH_CONSTANTS
};
struct Labels3dPushConstants {
    ESTUARY_LABELS3D_PUSH_CONSTANTS
};
struct LabelsResolvePushConstants {
    ESTUARY_LABELS_RESOLVE_PUSH_CONSTANTS
};
// All pipelines share one layout with one push range as large as the largest block (the volume's),
// within the 128 bytes every device offers.
static_assert(sizeof(FieldPushConstants) == 15 * sizeof(float) &&
                  sizeof(PointPushConstants) == 21 * sizeof(float) &&
                  sizeof(Point3dPushConstants) == 25 * sizeof(float) &&
                  sizeof(VolumePushConstants) == 31 * sizeof(float) &&
                  sizeof(MarkerPushConstants) == 25 * sizeof(float) &&
                  sizeof(Marker3dPushConstants) == 29 * sizeof(float) &&
                  sizeof(MeshPushConstants) == 30 * sizeof(float) &&
                  sizeof(LabelsPushConstants) == 22 * sizeof(float) &&
                  sizeof(Labels3dPushConstants) == 29 * sizeof(float),
              "push constants must stay tightly packed scalars (std430 == C++)");
inline constexpr unsigned kPushConstantBytes = sizeof(VolumePushConstants);
static_assert(kPushConstantBytes <= 128, "the push range must fit every device's minimum limit");
} // namespace estuary
#endif

#endif
