// The colormap lookup every shader shares (included, not compiled on its own): `value` through the
// atlas's row that `code` names (a push block's colormapIndex; shared_layout.h). A continuous map
// spans [valueMin, valueMax], clamped, with the texel centres of its first and last entries at
// the ends, so the ends are exact. A categorical palette of n entries (code / STRIDE = n) draws
// integer value v (rounded) as entry v mod n, at that texel's centre: never blended.
#ifndef ESTUARY_COLORMAP_GLSL
#define ESTUARY_COLORMAP_GLSL

vec3 colormapLookup(sampler2D atlas, float value, float valueMin, float valueMax, float code,
                    float rows) {
    const float n = float(ESTUARY_COLORMAP_SIZE);
    const float stride = float(ESTUARY_COLORMAP_CATEGORY_STRIDE);
    float categories = floor(code / stride);
    float row = code - categories * stride;
    float x;
    if (categories > 0.0) {
        float v = round(value);
        x = (v - categories * floor(v / categories) + 0.5) / n;
    } else {
        float range = valueMax - valueMin;
        float t = clamp(range != 0.0 ? (value - valueMin) / range : 0.0, 0.0, 1.0);
        x = (t * (n - 1.0) + 0.5) / n;
    }
    return textureLod(atlas, vec2(x, (row + 0.5) / rows), 0.0).rgb;
}

#endif
