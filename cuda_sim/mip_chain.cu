// writeMipChain on the GPU (cuda_simulation.h): one launch per level, each texel the same
// downsampleTexel (downsampleTexel3d for a 3D image) arithmetic as the CPU's (mip_chain.h), so the
// two chains are bit-identical.
// Built with -fmad=false like every .cu of cuda_sim; compiled by nvcc only.
#ifdef __CUDACC__
#include "cuda_check.h"
#include "cuda_simulation.h"
#include "half_float.h"
#include "mip_chain.h"

#include <stdexcept>
#include <string>

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

template <int Format>
__global__ void downsampleKernel(cudaSurfaceObject_t src, int srcW, int srcH,
                                 cudaSurfaceObject_t dst, int dstW, int dstH) {
    constexpr int Channels = kChannels<Format>;
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= dstW || y >= dstH) return;
    const DownsampleBlock b = downsampleBlock(srcW, srcH, x, y);
    const Texel<Channels> tl = readTexel<Format, false>(src, b.x0, b.y0, 0);
    const Texel<Channels> tr = readTexel<Format, false>(src, b.x1, b.y0, 0);
    const Texel<Channels> bl = readTexel<Format, false>(src, b.x0, b.y1, 0);
    const Texel<Channels> br = readTexel<Format, false>(src, b.x1, b.y1, 0);
    Texel<Channels> out;
    for (int c = 0; c < Channels; ++c)
        out.c[c] = mean4(tl.c[c], tr.c[c], bl.c[c], br.c[c]);
    writeTexel<Format, false>(out, dst, x, y, 0);
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

template <int Format>
void launchChain(const ImageOutput& image, const DeviceImageTarget& target, cudaStream_t stream) {
    const dim3 block(32, 8);
    const int w = int(image.width), h = int(image.height), d = int(image.depth);
    for (size_t level = 1; level < target.levels.size(); ++level) {
        const int l = int(level);
        const int srcW = mipLevelSize(w, l - 1), srcH = mipLevelSize(h, l - 1);
        const int srcD = mipLevelSize(d, l - 1);
        const int dstW = mipLevelSize(w, l), dstH = mipLevelSize(h, l), dstD = mipLevelSize(d, l);
        const dim3 grid(unsigned(dstW + 31) / 32, unsigned(dstH + 7) / 8, unsigned(dstD));
        // Stream order makes level - 1's writes visible to this launch's surface reads.
        if (d > 1)
            downsampleKernel3d<Format><<<grid, block, 0, stream>>>(
                target.levels[level - 1], srcW, srcH, srcD, target.levels[level], dstW, dstH, dstD);
        else
            downsampleKernel<Format><<<grid, block, 0, stream>>>(
                target.levels[level - 1], srcW, srcH, target.levels[level], dstW, dstH);
        CUDA_CHECK(cudaGetLastError());
    }
}

} // namespace

void writeMipChain(const ImageOutput& image, const DeviceImageTarget& target, cudaStream_t stream) {
    if (target.levels.empty() || target.levels.size() > levelCount(image))
        throw std::invalid_argument("writeMipChain: image '" + image.name + "' has " +
                                    std::to_string(levelCount(image)) + " levels, got " +
                                    std::to_string(target.levels.size()) + " surfaces");
    switch (image.format) {
    case TexelFormat::R32Float:
        return launchChain<1>(image, target, stream);
    case TexelFormat::RG32Float:
        return launchChain<2>(image, target, stream);
    case TexelFormat::RGBA32Float:
        return launchChain<4>(image, target, stream);
    case TexelFormat::RGBA16Float:
        return launchChain<kHalf4>(image, target, stream);
    }
}

} // namespace estuary::sim
#endif // __CUDACC__
