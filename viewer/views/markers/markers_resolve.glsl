// A pixel's topmost marker as the markers' splat left it (markers_splat.glsl): its colour, and its
// coverage times its alpha as the alpha to blend it over the picture by; false where none reached
// the pixel. The includer declares splat[] and colours[].
bool topMarker(uint pixelIndex, out vec4 colour) {
    uint key = splat[pixelIndex];
    if (key == 0u) return false;
    colour = vec4(unpackUnorm4x8(colours[(key >> 8) - 1u]).rgb, float(key & 0xFFu) / 255.0);
    return true;
}
