// The mip chain every image output carries, per texel, shared by host and device: level sizes and
// the 2x2 mean (2x2x2 for a 3D image) that makes each level from the one above. writeMipChain
// (simulation.h on the CPU, cuda_simulation.h on the GPU) runs it over whole images; both build
// without FMA contraction, so the two agree bit for bit. A simulation's own kernels may call these
// directly too.
#pragma once

#if defined(__CUDACC__)
#define ESTUARY_HD __host__ __device__
#else
#define ESTUARY_HD
#endif

namespace estuary::sim {

// Size of mip level `level` along an axis of `size` texels (Vulkan's and CUDA's rule).
ESTUARY_HD inline int mipLevelSize(int size, int level) {
    const int s = size >> level;
    return s > 1 ? s : 1;
}

// Levels in a full chain down to 1 x 1 (x 1): floor(log2(max(w, h, d))) + 1.
ESTUARY_HD inline int fullMipChainLength(int w, int h, int d = 1) {
    int largest = w > h ? w : h;
    largest = largest > d ? largest : d;
    int levels = 1;
    while (largest > 1) {
        largest >>= 1;
        ++levels;
    }
    return levels;
}

// The 2x2 block of a srcW x srcH level that makes texel (x, y) of the next level: columns x0, x1
// and rows y0, y1, clamped to the last row/column. Because level sizes round down, an odd level's
// last row/column is dropped (5 wide -> 2: columns 0-1 and 2-3, column 4 unused); a 1-wide level
// uses its single column twice.
struct DownsampleBlock {
    int x0, x1, y0, y1;
};
ESTUARY_HD inline DownsampleBlock downsampleBlock(int srcW, int srcH, int x, int y) {
    const int x0 = 2 * x;
    const int y0 = 2 * y;
    return {x0, x0 + 1 < srcW ? x0 + 1 : srcW - 1, y0, y0 + 1 < srcH ? y0 + 1 : srcH - 1};
}

// Their mean, in this order on both sides: (top row) + (bottom row), then * 1/4.
ESTUARY_HD inline float mean4(float topLeft, float topRight, float bottomLeft, float bottomRight) {
    return ((topLeft + topRight) + (bottomLeft + bottomRight)) * 0.25f;
}

// Texel (x, y) of the next level from `read(x, y)`, a source value.
template <class ReadTexel>
ESTUARY_HD inline float downsampleTexel(const ReadTexel& read, int srcW, int srcH, int x, int y) {
    const DownsampleBlock b = downsampleBlock(srcW, srcH, x, y);
    return mean4(read(b.x0, b.y0), read(b.x1, b.y0), read(b.x0, b.y1), read(b.x1, b.y1));
}

// ---- 3D images (depth > 1) ---------------------------------------------------------------------

// The 2x2x2 block of a srcW x srcH x srcD level that makes texel (x, y, z) of the next level: the
// 2D block of downsampleBlock and slices z0, z1, clamped by the same rule along z.
struct DownsampleBlock3d {
    DownsampleBlock xy;
    int z0, z1;
};
ESTUARY_HD inline DownsampleBlock3d downsampleBlock3d(int srcW, int srcH, int srcD, int x, int y,
                                                      int z) {
    const int z0 = 2 * z;
    return {downsampleBlock(srcW, srcH, x, y), z0, z0 + 1 < srcD ? z0 + 1 : srcD - 1};
}

// Their mean, in this order on both sides: the mean4 of slice z0's face, plus slice z1's, * 1/2.
ESTUARY_HD inline float mean8(float f0tl, float f0tr, float f0bl, float f0br, float f1tl,
                              float f1tr, float f1bl, float f1br) {
    return (mean4(f0tl, f0tr, f0bl, f0br) + mean4(f1tl, f1tr, f1bl, f1br)) * 0.5f;
}

// Texel (x, y, z) of the next level from `read(x, y, z)`, a source value.
template <class ReadTexel>
ESTUARY_HD inline float downsampleTexel3d(const ReadTexel& read, int srcW, int srcH, int srcD,
                                          int x, int y, int z) {
    const DownsampleBlock3d b = downsampleBlock3d(srcW, srcH, srcD, x, y, z);
    const DownsampleBlock& f = b.xy;
    return mean8(read(f.x0, f.y0, b.z0), read(f.x1, f.y0, b.z0), read(f.x0, f.y1, b.z0),
                 read(f.x1, f.y1, b.z0), read(f.x0, f.y0, b.z1), read(f.x1, f.y0, b.z1),
                 read(f.x0, f.y1, b.z1), read(f.x1, f.y1, b.z1));
}

} // namespace estuary::sim
