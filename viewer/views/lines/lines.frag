#version 450

// A line's pixel: its colour (interpolated between the ends), covered by the pixel as far as it
// lies within the width: a one-pixel antialiased edge. Blended over the picture.
layout(location = 0) in vec4 color;
layout(location = 1) in float across;
layout(location = 2) flat in float halfWidth;
layout(location = 0) out vec4 outColor;

void main() {
    float coverage = clamp(halfWidth + 0.5 - abs(across), 0.0, 1.0);
    if (coverage <= 0.0) discard;
    outColor = vec4(color.rgb, color.a * coverage);
}
