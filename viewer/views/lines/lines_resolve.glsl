// A pixel's segment as the lines' splat left it (lines_splat.glsl: the one covering it most): its colour where the
// pixel lies along it (blended between its ends over the quad, half a pixel beyond each, as the
// raster path interpolates), and the alpha all the segments there leave (1 - e^-sum, the splat's
// sum of -ln(1 - alpha)) to blend it over the picture by; false where none reached the pixel. The includer declares splat[].
struct SegmentItem {
    vec4 ends;
    uvec2 colours;
    uvec2 unused;
};
layout(std430, binding = ESTUARY_BINDING_MARKER_COLOURS) readonly buffer Items {
    SegmentItem items[];
};

bool topSegment(uint pixelIndex, vec2 pixelCentre, out vec4 colour) {
    uint key = splat[2u * pixelIndex];
    if (key == 0u) return false;
    SegmentItem item = items[(key & 0xFFFFFFu) - 1u];
    vec2 pa = item.ends.xy, pb = item.ends.zw;
    float len = distance(pa, pb);
    vec2 along = len > 0.0 ? (pb - pa) / len : vec2(1.0, 0.0);
    float t = clamp((dot(pixelCentre - pa, along) + 0.5) / (len + 1.0), 0.0, 1.0);
    vec4 c = mix(unpackUnorm4x8(item.colours.x), unpackUnorm4x8(item.colours.y), t);
    float transparency = float(splat[2u * pixelIndex + 1u]) / ESTUARY_LINE_SPLAT_SCALE;
    colour = vec4(c.rgb, 1.0 - exp(-transparency));
    return true;
}
