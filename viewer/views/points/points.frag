#version 450

// A point: its colour, added to what is below (the pipeline blends ONE + ONE); round once points
// are wider than a pixel or two.
layout(location = 0) in vec3 color;
layout(location = 1) flat in float round;
layout(location = 0) out vec4 outColor;

void main() {
    vec2 fromCentre = gl_PointCoord - 0.5;
    if (round > 0.5 && dot(fromCentre, fromCentre) > 0.25) discard;
    outColor = vec4(color, 1.0);
}
