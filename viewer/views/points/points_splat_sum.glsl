// A pixel's splatted colour in 1/255 steps, from the splat buffer as the resolves read it (uints;
// the includer declares splat[] and kPacked): three uints, or one packed uint64 read as two uints,
// low word first (points_splat.glsl writes both layouts).
uvec3 splatSum(uint index) {
    if (kPacked) {
        uint low = splat[2u * index], high = splat[2u * index + 1u];
        return uvec3(low & 0x1FFFFFu, (low >> 21) | ((high & 0x3FFu) << 11), high >> 10);
    }
    return uvec3(splat[3u * index], splat[3u * index + 1u], splat[3u * index + 2u]);
}
