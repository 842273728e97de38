// The one definition of what C++ and GLSL must agree on for drawing a field and its particles:
// descriptor bindings, the shading modes, the push-constant blocks, the colormap table size and the
// letterbox colour.
// Included by the shaders (GL_GOOGLE_include_directive) and by renderer/. Push constants are scalar
// floats only, so the std430 layout and the C++ layout are the same without any padding rules.
#ifndef ESTUARY_SHARED_LAYOUT_H
#define ESTUARY_SHARED_LAYOUT_H

#define ESTUARY_BINDING_FIELD 0
#define ESTUARY_BINDING_COLORMAP 1
// The slot's particles: a storage buffer of vec4 (x, y, vx, vy) in cells and cells per step
// (sim::ParticleVertex), read by points.vert through gl_VertexIndex (vertex pulling).
#define ESTUARY_BINDING_POINTS 2
// The compute draw's storage image (draw_main.glsl with ESTUARY_COMPUTE_DRAW), RGBA8.
#define ESTUARY_BINDING_DRAW_TARGET 3

// field.frag's specialization constant 0: how a texel becomes a colour.
#define ESTUARY_SPEC_SHADING 0
#define ESTUARY_SHADING_COLORMAP 0
#define ESTUARY_SHADING_COLORMAP_MAGNITUDE 1
#define ESTUARY_SHADING_RGB 2

// Entries per colormap: one row of the colormap image each.
#define ESTUARY_COLORMAP_SIZE 256

#define ESTUARY_BACKGROUND_COLOR 0.08f, 0.08f, 0.10f

// The letterboxed view mapping both draws share, first in both blocks: sizes in pixels (target)
// and texels (field), pan in field-normalised units.
#define ESTUARY_VIEW_PUSH_CONSTANTS                                                                \
    float targetWidth;                                                                             \
    float targetHeight;                                                                            \
    float fieldWidth;                                                                              \
    float fieldHeight;                                                                             \
    float panX;                                                                                    \
    float panY;                                                                                    \
    float zoom;

// colormapIndex is the row of the colormap image, passed as a float because it only feeds a
// texture coordinate.
#define ESTUARY_FIELD_PUSH_CONSTANTS                                                               \
    ESTUARY_VIEW_PUSH_CONSTANTS                                                                    \
    float mipBias;                                                                                 \
    float valueMin;                                                                                \
    float valueMax;                                                                                \
    float colormapIndex;                                                                           \
    float colormapCount;

// The particles' draw: the same view mapping, then the point size in pixels, the speed at the
// colormap's last entry and the additive intensity of one particle.
#define ESTUARY_POINT_PUSH_CONSTANTS                                                               \
    ESTUARY_VIEW_PUSH_CONSTANTS                                                                    \
    float pointSize;                                                                               \
    float speedMax;                                                                                \
    float colormapIndex;                                                                           \
    float colormapCount;                                                                           \
    float intensity;

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

#ifdef __cplusplus
namespace estuary {
struct FieldPushConstants {
    ESTUARY_FIELD_PUSH_CONSTANTS
};
struct PointPushConstants {
    ESTUARY_POINT_PUSH_CONSTANTS
};
struct VolumePushConstants {
    ESTUARY_VOLUME_PUSH_CONSTANTS
};
// All pipelines share one layout with one push range as large as the largest block (the volume's),
// within the 128 bytes every device offers.
static_assert(sizeof(FieldPushConstants) == 12 * sizeof(float) &&
                  sizeof(PointPushConstants) == sizeof(FieldPushConstants) &&
                  sizeof(VolumePushConstants) == 28 * sizeof(float),
              "push constants must stay tightly packed scalars (std430 == C++)");
inline constexpr unsigned kPushConstantBytes = sizeof(VolumePushConstants);
static_assert(kPushConstantBytes <= 128, "the push range must fit every device's minimum limit");
} // namespace estuary
#endif

#endif
