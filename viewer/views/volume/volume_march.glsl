// The ray march both volume draws share (included after volume_common.glsl): marchVolume(p) is
// the colour of the pixel whose centre is p (target pixels, row 0 at the top).
// Front to back: the camera ray (shared_layout.h) is clipped to the volume's box, then sampled at
// steps of one voxel of the level it reads (shorter in dense media); each sample's value v gives a
// colour (the colormap at t = normalised v) and an extinction opacity * t per voxel, so
// a step of s voxels has alpha 1 - exp(-opacity * t * s). Compositing stops once the ray is 99%
// opaque (early ray termination). Level of detail: where a pixel's footprint covers more than one
// voxel (far away, small targets) the ray reads the coarser mip level of that footprint and steps
// that level's voxels, so the cost follows what the pixel can show, not the grid.

const float kOpaque = 0.99;
const int kMaxSteps = 4096;

vec3 marchVolume(vec2 pixelCentre) {
    vec2 target = vec2(pc.targetWidth, pc.targetHeight);
    vec2 ndc = 2.0 * pixelCentre / target - 1.0;
    vec3 eye = vec3(pc.eyeX, pc.eyeY, pc.eyeZ);
    vec3 forward = vec3(pc.forwardX, pc.forwardY, pc.forwardZ);
    vec3 right = vec3(pc.rightX, pc.rightY, pc.rightZ);
    vec3 up = vec3(pc.upX, pc.upY, pc.upZ);
    // Row 0 is the top of the picture: +ndc.y goes down, against `up`.
    vec3 ray = forward + ndc.x * right - ndc.y * up;
    float rayLength = length(ray);
    vec3 dir = ray / rayLength;

    vec3 size = volumeSize();
    float largest = max(size.x, max(size.y, size.z));
    vec3 half_ = 0.5 * size / largest;
    // Slab test against the box [-half_, half_].
    vec3 inv = 1.0 / dir;
    vec3 t0 = (-half_ - eye) * inv;
    vec3 t1 = (half_ - eye) * inv;
    vec3 tSmall = min(t0, t1), tLarge = max(t0, t1);
    float tNear = max(max(tSmall.x, tSmall.y), max(tSmall.z, 0.0));
    float tFar = min(tLarge.x, min(tLarge.y, tLarge.z));
    if (tNear >= tFar) return background();

    // A pixel's footprint at distance t, in voxels of level 0: the angle one pixel spans (the
    // ray direction's spread over one pixel) times t times voxels per unit length.
    float pixelAngle = 2.0 * length(up) / (target.y * rayLength);
    float voxel = 1.0 / largest; // level-0 voxel size in the box's units
    // Dense media take shorter steps (at most 0.5 of extinction per step), so compositing stays
    // close to the integral where a ray turns opaque within a voxel or two.
    float stepScale = min(1.0, 0.5 / max(pc.opacity, 1e-6));
    vec3 color = vec3(0.0);
    float alpha = 0.0;
    float t = tNear;
    for (int i = 0; i < kMaxSteps && t < tFar; ++i) {
        float footprint = pixelAngle * t / voxel;
        float lod = max(log2(max(footprint, 1.0)) + pc.lodBias, 0.0);
        float stepVoxels = exp2(floor(lod)) * stepScale; // voxels of level 0 per step
        float stepLength = min(stepVoxels * voxel, tFar - t);
        vec3 p = eye + (t + 0.5 * stepLength) * dir; // the middle of the step
        float v = textureLod(field, p / (2.0 * half_) + 0.5, lod).r;
        float n = normalizedValue(v);
        float a = 1.0 - exp(-pc.opacity * n * stepLength / voxel);
        color += (1.0 - alpha) * a * colormapAt(n);
        alpha += (1.0 - alpha) * a;
        if (alpha >= kOpaque) break;
        t += stepLength;
    }
    return color + (1.0 - alpha) * background();
}
