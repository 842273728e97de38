// The mip chain's CUDA kernels and their launchers, shared by writeMipChain (mip_chain.cu), the
// Gray-Scott output write (gray_scott_kernels.cuh) and the micro-benchmark (bench/). Every texel is
// mip_chain.h's downsampleBlock + mean4 (mean8 in 3D), the CPU chain's arithmetic, so the chains
// are bit-identical; halves are rounded per level exactly as the CPU stores them. In 2D and in 3D
// two kernels: one level per launch (the original, kept as the benchmark's baseline) and a tile
// kernel that writes several levels per launch through shared memory. Internal linkage: each .cu
// that includes this compiles its own copy (with -fmad=false, like all of cuda_sim).
#pragma once

#include "cuda_check.h"
#include "half_float.h"
#include "mip_chain.h"

#include <cuda_runtime.h>

namespace estuary::sim {
namespace {

template <int Channels> struct Texel { float c[Channels]; };

// Channels 1, 2, 4: that many floats per texel; kHalf4: four halves (RGBA16 float), averaged as
// floats like the CPU's chain.
constexpr int kHalf4 = -4;
template <int Format> constexpr int kChannels = Format == kHalf4 ? 4 : Format;

// A texel of a 2D level (surf2D*) or, for Volume, of a 3D level (surf3D*: every level of a 3D
// image is a 3D array, even once its own depth is 1).
template <class T, bool Volume>
__device__ T readSurface(cudaSurfaceObject_t surface, int x, int y, int z) {
    if constexpr (Volume)
        return surf3Dread<T>(surface, x * int(sizeof(T)), y, z);
    else
        return surf2Dread<T>(surface, x * int(sizeof(T)), y);
}

template <bool Volume, class T>
__device__ void writeSurface(T value, cudaSurfaceObject_t surface, int x, int y, int z) {
    if constexpr (Volume)
        surf3Dwrite(value, surface, x * int(sizeof(T)), y, z);
    else
        surf2Dwrite(value, surface, x * int(sizeof(T)), y);
}

template <int Format, bool Volume>
__device__ Texel<kChannels<Format>> readTexel(cudaSurfaceObject_t surface, int x, int y, int z) {
    Texel<kChannels<Format>> t;
    if constexpr (Format == kHalf4) {
        const ushort4 v = readSurface<ushort4, Volume>(surface, x, y, z);
        t.c[0] = halfToFloat(v.x);
        t.c[1] = halfToFloat(v.y);
        t.c[2] = halfToFloat(v.z);
        t.c[3] = halfToFloat(v.w);
    } else if constexpr (Format == 1) {
        t.c[0] = readSurface<float, Volume>(surface, x, y, z);
    } else if constexpr (Format == 2) {
        const float2 v = readSurface<float2, Volume>(surface, x, y, z);
        t.c[0] = v.x;
        t.c[1] = v.y;
    } else {
        const float4 v = readSurface<float4, Volume>(surface, x, y, z);
        t.c[0] = v.x;
        t.c[1] = v.y;
        t.c[2] = v.z;
        t.c[3] = v.w;
    }
    return t;
}

template <int Format, bool Volume>
__device__ void writeTexel(const Texel<kChannels<Format>>& t, cudaSurfaceObject_t surface, int x,
                           int y, int z) {
    if constexpr (Format == kHalf4)
        writeSurface<Volume>(make_ushort4(floatToHalf(t.c[0]), floatToHalf(t.c[1]),
                                          floatToHalf(t.c[2]), floatToHalf(t.c[3])),
                             surface, x, y, z);
    else if constexpr (Format == 1)
        writeSurface<Volume>(t.c[0], surface, x, y, z);
    else if constexpr (Format == 2)
        writeSurface<Volume>(make_float2(t.c[0], t.c[1]), surface, x, y, z);
    else
        writeSurface<Volume>(make_float4(t.c[0], t.c[1], t.c[2], t.c[3]), surface, x, y, z);
}

// What reading back a written texel gives: the next level of the CPU chain averages the stored
// halves, not the unrounded means.
template <int Format> __device__ Texel<kChannels<Format>> asStored(Texel<kChannels<Format>> t) {
    if constexpr (Format == kHalf4)
        for (float& c : t.c)
            c = halfToFloat(floatToHalf(c));
    return t;
}

template <int Channels>
__device__ Texel<Channels> meanTexel(const Texel<Channels>& tl, const Texel<Channels>& tr,
                                     const Texel<Channels>& bl, const Texel<Channels>& br) {
    Texel<Channels> out;
    for (int c = 0; c < Channels; ++c)
        out.c[c] = mean4(tl.c[c], tr.c[c], bl.c[c], br.c[c]);
    return out;
}

// One level per launch, one thread per texel of the smaller level.
template <int Format>
__global__ void downsampleLevelKernel(cudaSurfaceObject_t src, int srcW, int srcH,
                                      cudaSurfaceObject_t dst, int dstW, int dstH) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= dstW || y >= dstH) return;
    const DownsampleBlock b = downsampleBlock(srcW, srcH, x, y);
    writeTexel<Format, false>(meanTexel(readTexel<Format, false>(src, b.x0, b.y0, 0),
                                        readTexel<Format, false>(src, b.x1, b.y0, 0),
                                        readTexel<Format, false>(src, b.x0, b.y1, 0),
                                        readTexel<Format, false>(src, b.x1, b.y1, 0)),
                              dst, x, y, 0);
}

// The 3D chain: one thread per texel of the smaller level, z from the grid's third dimension.
template <int Format>
__global__ void downsampleKernel3d(cudaSurfaceObject_t src, int srcW, int srcH, int srcD,
                                   cudaSurfaceObject_t dst, int dstW, int dstH, int dstD) {
    constexpr int Channels = kChannels<Format>;
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    const int z = int(blockIdx.z);
    if (x >= dstW || y >= dstH || z >= dstD) return;
    const DownsampleBlock3d b = downsampleBlock3d(srcW, srcH, srcD, x, y, z);
    const DownsampleBlock& f = b.xy;
    Texel<Channels> t[8];
    for (int i = 0; i < 8; ++i)
        t[i] = readTexel<Format, true>(src, i & 1 ? f.x1 : f.x0, i & 2 ? f.y1 : f.y0,
                                       i & 4 ? b.z1 : b.z0);
    Texel<Channels> out;
    for (int c = 0; c < Channels; ++c)
        out.c[c] = mean8(t[0].c[c], t[1].c[c], t[2].c[c], t[3].c[c], t[4].c[c], t[5].c[c],
                         t[6].c[c], t[7].c[c]);
    writeTexel<Format, true>(out, dst, x, y, z);
}

// ---- the tile kernel: several levels per launch ------------------------------------------------

// A 16 x 16 block reads a 32 x 32 tile of its source level and writes the tile's part of up to
// five levels below it, keeping each level in shared memory for the next (surface writes are not
// visible to surface reads of the same launch). A tile's texels at every level depend only on the
// tile's own texels above (blocks are aligned on powers of two, and a clamped downsampleBlock only
// happens on a 1-wide axis, at index 0), so every texel in range is written, including the last
// row/column of an odd level that the next level drops.
constexpr int kTileLevels = 5;
constexpr int kTileThreads = 1 << (kTileLevels - 1); // per side: one per texel of the first level
constexpr int kTileBlockThreads = kTileThreads * kTileThreads;
// Shared texels of the levels that a later level reads: 16² + 8² + 4² + 2².
constexpr int kTileSharedTexels = 256 + 64 + 16 + 4;

struct MipTileTargets {
    cudaSurfaceObject_t levels[kTileLevels]; // the levels below the source, in order
    int count;                               // how many of them to write, 0..kTileLevels
};

__device__ constexpr int tileSharedOffset(int level) { // level 0: the first level written
    int offset = 0;
    for (int k = 0; k < level; ++k)
        offset += (kTileThreads >> k) * (kTileThreads >> k);
    return offset;
}

// Body of the tile kernels: readSource(x, y) returns source texel (x, y) and is called once for
// each source texel of the block's tile that lies in the srcW x srcH level, whether or not the
// next level uses it (so a caller may copy the source level too). Every thread of the block must
// call it: it synchronizes the block. Grid: ceil(ceil(srcW / 2) / 16) x ceil(ceil(srcH / 2) / 16).
template <int Format, class ReadSource>
__device__ void downsampleTile(const ReadSource& readSource, int srcW, int srcH,
                               MipTileTargets targets) {
    using TexelT = Texel<kChannels<Format>>;
    __shared__ TexelT tile[kTileSharedTexels];
    const int tx = int(threadIdx.x), ty = int(threadIdx.y);
    const int x = int(blockIdx.x) * kTileThreads + tx; // texel of the first level written
    const int y = int(blockIdx.y) * kTileThreads + ty;

    TexelT quad[2][2] = {};
    for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i)
            if (2 * x + i < srcW && 2 * y + j < srcH) quad[j][i] = readSource(2 * x + i, 2 * y + j);
    int w = mipLevelSize(srcW, 1), h = mipLevelSize(srcH, 1);
    if (targets.count > 0 && x < w && y < h) {
        // Only a 1-wide axis clamps, and then x1 == x0: the quad's first column (row) twice.
        const DownsampleBlock b = downsampleBlock(srcW, srcH, x, y);
        const bool right = b.x1 != b.x0, below = b.y1 != b.y0;
        const TexelT tr = right ? quad[0][1] : quad[0][0];
        const TexelT bl = below ? quad[1][0] : quad[0][0];
        const TexelT br = below ? (right ? quad[1][1] : quad[1][0]) : tr;
        const TexelT out = asStored<Format>(meanTexel(quad[0][0], tr, bl, br));
        writeTexel<Format, false>(out, targets.levels[0], x, y, 0);
        tile[ty * kTileThreads + tx] = out;
    }
    // Unrolled so that targets.levels is indexed by constants (else it is copied to local memory).
#pragma unroll
    for (int level = 1; level < kTileLevels; ++level) {
        if (level < targets.count) { // the same for the whole block
            __syncthreads();
            const int side = kTileThreads >> level;
            const int levelW = w, levelH = h; // the level above this one
            w = mipLevelSize(levelW, 1);
            h = mipLevelSize(levelH, 1);
            const int ox = int(blockIdx.x) * side, oy = int(blockIdx.y) * side;
            if (tx < side && ty < side && ox + tx < w && oy + ty < h) {
                const DownsampleBlock b = downsampleBlock(levelW, levelH, ox + tx, oy + ty);
                const TexelT* above = tile + tileSharedOffset(level - 1);
                const auto at = [&](int ax, int ay) {
                    return above[(ay - 2 * oy) * (2 * side) + (ax - 2 * ox)];
                };
                const TexelT out = asStored<Format>(
                    meanTexel(at(b.x0, b.y0), at(b.x1, b.y0), at(b.x0, b.y1), at(b.x1, b.y1)));
                writeTexel<Format, false>(out, targets.levels[level], ox + tx, oy + ty, 0);
                if (level + 1 < targets.count) tile[tileSharedOffset(level) + ty * side + tx] = out;
            }
        }
    }
}

template <int Format>
__global__ void __launch_bounds__(kTileBlockThreads)
    downsampleTileKernel(cudaSurfaceObject_t src, int srcW, int srcH, MipTileTargets targets) {
    const auto read = [src](int x, int y) { return readTexel<Format, false>(src, x, y, 0); };
    downsampleTile<Format>(read, srcW, srcH, targets);
}

// ---- the 3D tile kernel: several levels of a volume per launch -------------------------------

// The 2D tile one dimension up: an 8 x 8 x 8 block reads a 16 x 16 x 16 tile of its source level
// and writes the tile's part of up to four levels below it (8³, 4³, 2³, 1³ texels), each kept in
// shared memory for the next. The 2D tile's argument carries over axis by axis: blocks are aligned
// on powers of two and a clamped downsampleBlock3d only happens on a 1-wide axis, at index 0.
constexpr int kTileLevels3d = 4;
constexpr int kTile3dThreads = 1 << (kTileLevels3d - 1); // per side
constexpr int kTile3dBlockThreads = kTile3dThreads * kTile3dThreads * kTile3dThreads;
// Shared texels of the levels that a later level reads: 8³ + 4³ + 2³.
constexpr int kTile3dSharedTexels = 512 + 64 + 8;

__device__ constexpr int tile3dSharedOffset(int level) { // level 0: the first level written
    int offset = 0;
    for (int k = 0; k < level; ++k) {
        const int side = kTile3dThreads >> k;
        offset += side * side * side;
    }
    return offset;
}

template <int Channels> __device__ Texel<Channels> meanTexel8(const Texel<Channels> (&t)[8]) {
    Texel<Channels> out;
    for (int c = 0; c < Channels; ++c)
        out.c[c] = mean8(t[0].c[c], t[1].c[c], t[2].c[c], t[3].c[c], t[4].c[c], t[5].c[c],
                         t[6].c[c], t[7].c[c]);
    return out;
}

// Body of the 3D tile kernels, as downsampleTile in 2D: readSource(x, y, z) is called once for
// each source texel of the block's tile inside the srcW x srcH x srcD level; every thread of the
// block must call this. Grid: ceil(ceil(src / 2) / 8) per axis. targets.count <= kTileLevels3d.
template <int Format, class ReadSource>
__device__ void downsampleTile3d(const ReadSource& readSource, int srcW, int srcH, int srcD,
                                 MipTileTargets targets) {
    using TexelT = Texel<kChannels<Format>>;
    __shared__ TexelT tile[kTile3dSharedTexels];
    const int tx = int(threadIdx.x), ty = int(threadIdx.y), tz = int(threadIdx.z);
    const int x = int(blockIdx.x) * kTile3dThreads + tx; // texel of the first level written
    const int y = int(blockIdx.y) * kTile3dThreads + ty;
    const int z = int(blockIdx.z) * kTile3dThreads + tz;

    TexelT cube[8] = {}; // source texel (2x + (i & 1), 2y + (i >> 1 & 1), 2z + (i >> 2))
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int sx = 2 * x + (i & 1), sy = 2 * y + (i >> 1 & 1), sz = 2 * z + (i >> 2);
        if (sx < srcW && sy < srcH && sz < srcD) cube[i] = readSource(sx, sy, sz);
    }
    int w = mipLevelSize(srcW, 1), h = mipLevelSize(srcH, 1), d = mipLevelSize(srcD, 1);
    if (targets.count > 0 && x < w && y < h && z < d) {
        // Only a 1-wide axis clamps, and then its second index is its first: drop that bit.
        const DownsampleBlock3d b = downsampleBlock3d(srcW, srcH, srcD, x, y, z);
        const int keep =
            (b.xy.x1 != b.xy.x0 ? 1 : 0) | (b.xy.y1 != b.xy.y0 ? 2 : 0) | (b.z1 != b.z0 ? 4 : 0);
        TexelT corners[8];
#pragma unroll
        for (int i = 0; i < 8; ++i) { // selects, not a computed index into registers
            TexelT pick = cube[0];
#pragma unroll
            for (int k = 1; k < 8; ++k)
                if ((i & keep) == k) pick = cube[k];
            corners[i] = pick;
        }
        const TexelT out = asStored<Format>(meanTexel8(corners));
        writeTexel<Format, true>(out, targets.levels[0], x, y, z);
        tile[(tz * kTile3dThreads + ty) * kTile3dThreads + tx] = out;
    }
#pragma unroll
    for (int level = 1; level < kTileLevels3d; ++level) {
        if (level < targets.count) { // the same for the whole block
            __syncthreads();
            const int side = kTile3dThreads >> level;
            const int aboveW = w, aboveH = h, aboveD = d; // the level above this one
            w = mipLevelSize(aboveW, 1);
            h = mipLevelSize(aboveH, 1);
            d = mipLevelSize(aboveD, 1);
            const int ox = int(blockIdx.x) * side, oy = int(blockIdx.y) * side;
            const int oz = int(blockIdx.z) * side;
            if (tx < side && ty < side && tz < side && ox + tx < w && oy + ty < h && oz + tz < d) {
                const DownsampleBlock3d b =
                    downsampleBlock3d(aboveW, aboveH, aboveD, ox + tx, oy + ty, oz + tz);
                const TexelT* above = tile + tile3dSharedOffset(level - 1);
                const int aboveSide = 2 * side;
                TexelT corners[8];
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    const int ax = (i & 1 ? b.xy.x1 : b.xy.x0) - 2 * ox;
                    const int ay = (i & 2 ? b.xy.y1 : b.xy.y0) - 2 * oy;
                    const int az = (i & 4 ? b.z1 : b.z0) - 2 * oz;
                    corners[i] = above[(az * aboveSide + ay) * aboveSide + ax];
                }
                const TexelT out = asStored<Format>(meanTexel8(corners));
                writeTexel<Format, true>(out, targets.levels[level], ox + tx, oy + ty, oz + tz);
                if (level + 1 < targets.count)
                    tile[tile3dSharedOffset(level) + (tz * side + ty) * side + tx] = out;
            }
        }
    }
}

template <int Format>
__global__ void __launch_bounds__(kTile3dBlockThreads)
    downsampleTile3dKernel(cudaSurfaceObject_t src, int srcW, int srcH, int srcD,
                           MipTileTargets targets) {
    const auto read = [src](int x, int y, int z) { return readTexel<Format, true>(src, x, y, z); };
    downsampleTile3d<Format>(read, srcW, srcH, srcD, targets);
}

// ---- launchers ----------------------------------------------------------------------------------

inline dim3 tileGrid(int srcW, int srcH) {
    const int firstW = (srcW + 1) / 2, firstH = (srcH + 1) / 2;
    return dim3(unsigned(firstW + kTileThreads - 1) / kTileThreads,
                unsigned(firstH + kTileThreads - 1) / kTileThreads);
}

// Levels [firstLevel, levels.size()) of a w x h image from level firstLevel - 1, one launch per
// level (the original chain).
template <int Format>
void launchMipLevels(const cudaSurfaceObject_t* levels, int levelCount, int w, int h,
                     int firstLevel, cudaStream_t stream) {
    const dim3 block(32, 8);
    for (int l = firstLevel; l < levelCount; ++l) {
        const int srcW = mipLevelSize(w, l - 1), srcH = mipLevelSize(h, l - 1);
        const int dstW = mipLevelSize(w, l), dstH = mipLevelSize(h, l);
        const dim3 grid(unsigned(dstW + 31) / 32, unsigned(dstH + 7) / 8);
        // Stream order makes level l - 1's writes visible to this launch's surface reads.
        downsampleLevelKernel<Format>
            <<<grid, block, 0, stream>>>(levels[l - 1], srcW, srcH, levels[l], dstW, dstH);
        CUDA_CHECK(cudaGetLastError());
    }
}

// The same levels, kTileLevels per launch: a 4096² chain's 12 levels in 3 launches.
template <int Format>
void launchMipTiles(const cudaSurfaceObject_t* levels, int levelCount, int w, int h, int firstLevel,
                    cudaStream_t stream) {
    const dim3 block(kTileThreads, kTileThreads);
    for (int l = firstLevel; l < levelCount; l += kTileLevels) {
        MipTileTargets targets{};
        targets.count = levelCount - l < kTileLevels ? levelCount - l : kTileLevels;
        for (int k = 0; k < targets.count; ++k)
            targets.levels[k] = levels[l + k];
        const int srcW = mipLevelSize(w, l - 1), srcH = mipLevelSize(h, l - 1);
        downsampleTileKernel<Format>
            <<<tileGrid(srcW, srcH), block, 0, stream>>>(levels[l - 1], srcW, srcH, targets);
        CUDA_CHECK(cudaGetLastError());
    }
}

// A 3D image's levels [firstLevel, levelCount), one launch per level (the original chain, kept as
// the benchmark's baseline).
template <int Format>
void launchMipLevels3d(const cudaSurfaceObject_t* levels, int levelCount, int w, int h, int d,
                       int firstLevel, cudaStream_t stream) {
    const dim3 block(32, 8);
    for (int l = firstLevel; l < levelCount; ++l) {
        const int srcW = mipLevelSize(w, l - 1), srcH = mipLevelSize(h, l - 1);
        const int srcD = mipLevelSize(d, l - 1);
        const int dstW = mipLevelSize(w, l), dstH = mipLevelSize(h, l), dstD = mipLevelSize(d, l);
        const dim3 grid(unsigned(dstW + 31) / 32, unsigned(dstH + 7) / 8, unsigned(dstD));
        downsampleKernel3d<Format><<<grid, block, 0, stream>>>(levels[l - 1], srcW, srcH, srcD,
                                                               levels[l], dstW, dstH, dstD);
        CUDA_CHECK(cudaGetLastError());
    }
}

inline dim3 tileGrid3d(int srcW, int srcH, int srcD) {
    const auto blocks = [](int src) {
        return unsigned(((src + 1) / 2 + kTile3dThreads - 1) / kTile3dThreads);
    };
    return dim3(blocks(srcW), blocks(srcH), blocks(srcD));
}

// The targets of one tile launch: levels [first, first + kTileLevels3d) clipped to levelCount.
inline MipTileTargets tileTargets3d(const cudaSurfaceObject_t* levels, int levelCount, int first) {
    MipTileTargets targets{};
    targets.count = levelCount - first < kTileLevels3d ? levelCount - first : kTileLevels3d;
    for (int k = 0; k < targets.count; ++k)
        targets.levels[k] = levels[first + k];
    return targets;
}

// A 3D image's levels [firstLevel, levelCount), kTileLevels3d per launch: a 512³ chain's 9 levels
// below level 0 in 3 launches.
template <int Format>
void launchMipTiles3d(const cudaSurfaceObject_t* levels, int levelCount, int w, int h, int d,
                      int firstLevel, cudaStream_t stream) {
    const dim3 block(kTile3dThreads, kTile3dThreads, kTile3dThreads);
    for (int l = firstLevel; l < levelCount; l += kTileLevels3d) {
        const int srcW = mipLevelSize(w, l - 1), srcH = mipLevelSize(h, l - 1);
        const int srcD = mipLevelSize(d, l - 1);
        downsampleTile3dKernel<Format><<<tileGrid3d(srcW, srcH, srcD), block, 0, stream>>>(
            levels[l - 1], srcW, srcH, srcD, tileTargets3d(levels, levelCount, l));
        CUDA_CHECK(cudaGetLastError());
    }
}

// A w x h x d float field (x fastest, then y, then z) into level 0 of an R32 float 3D image and,
// in the same pass, the kTileLevels3d levels below it: the field is read once, from linear
// memory, instead of written and read back through the surface.
__global__ void __launch_bounds__(kTile3dBlockThreads)
    fieldLevel0AndTile3dKernel(const float* __restrict__ field, int w, int h, int d,
                               cudaSurfaceObject_t level0, MipTileTargets below) {
    const auto read = [=](int x, int y, int z) {
        const float value = field[(size_t(z) * size_t(h) + size_t(y)) * size_t(w) + size_t(x)];
        surf3Dwrite(value, level0, x * int(sizeof(float)), y, z);
        return Texel<1>{{value}};
    };
    downsampleTile3d<1>(read, w, h, d, below);
}

// The field into level 0 of `levels` (levelCount surfaces of a full R32 float 3D chain) with the
// kTileLevels3d levels below it in one launch, then the rest of the chain, kTileLevels3d levels a
// launch.
inline void launchFieldLevels3d(const float* field, int w, int h, int d,
                                const cudaSurfaceObject_t* levels, int levelCount,
                                cudaStream_t stream) {
    const dim3 block(kTile3dThreads, kTile3dThreads, kTile3dThreads);
    fieldLevel0AndTile3dKernel<<<tileGrid3d(w, h, d), block, 0, stream>>>(
        field, w, h, d, levels[0], tileTargets3d(levels, levelCount, 1));
    CUDA_CHECK(cudaGetLastError());
    launchMipTiles3d<1>(levels, levelCount, w, h, d, 1 + kTileLevels3d, stream);
}

} // namespace
} // namespace estuary::sim
