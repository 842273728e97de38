// A pixel's splatted colour in 1/255 steps, from the splat buffer as the resolves read it (uints;
// the includer declares splat[] and kFormat): 0 three uints, 1 one packed uint64 read as two uints,
// low word first, 2 one uint of saturated bytes (points_splat.glsl writes all three layouts).
const uint kThreeUints = 0u, kPacked = 1u, kSaturated = 2u;

uvec3 splatSum(uint index) {
    if (kFormat == kPacked) {
        uint low = splat[2u * index], high = splat[2u * index + 1u];
        return uvec3(low & 0x1FFFFFu, (low >> 21) | ((high & 0x3FFu) << 11), high >> 10);
    }
    if (kFormat == kSaturated) {
        uint v = splat[index];
        return uvec3(v & 0xFFu, (v >> 8) & 0xFFu, (v >> 16) & 0xFFu);
    }
    return uvec3(splat[3u * index], splat[3u * index + 1u], splat[3u * index + 2u]);
}
