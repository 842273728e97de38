// writeMipChain on the GPU (cuda_simulation.h): one launch per level, each texel the same
// downsampleTexel arithmetic as the CPU's (mip_chain.h), so the two chains are bit-identical.
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

template <int Format>
__device__ Texel<kChannels<Format>> readTexel(cudaSurfaceObject_t surface, int x, int y) {
    Texel<kChannels<Format>> t;
    if constexpr (Format == kHalf4) {
        const ushort4 v = surf2Dread<ushort4>(surface, x * int(sizeof(ushort4)), y);
        t.c[0] = halfToFloat(v.x);
        t.c[1] = halfToFloat(v.y);
        t.c[2] = halfToFloat(v.z);
        t.c[3] = halfToFloat(v.w);
    } else if constexpr (Format == 1) {
        surf2Dread(&t.c[0], surface, x * int(sizeof(float)), y);
    } else if constexpr (Format == 2) {
        const float2 v = surf2Dread<float2>(surface, x * int(sizeof(float2)), y);
        t.c[0] = v.x;
        t.c[1] = v.y;
    } else {
        const float4 v = surf2Dread<float4>(surface, x * int(sizeof(float4)), y);
        t.c[0] = v.x;
        t.c[1] = v.y;
        t.c[2] = v.z;
        t.c[3] = v.w;
    }
    return t;
}

template <int Format>
__device__ void writeTexel(const Texel<kChannels<Format>>& t, cudaSurfaceObject_t surface, int x,
                           int y) {
    if constexpr (Format == kHalf4)
        surf2Dwrite(make_ushort4(floatToHalf(t.c[0]), floatToHalf(t.c[1]), floatToHalf(t.c[2]),
                                 floatToHalf(t.c[3])),
                    surface, x * int(sizeof(ushort4)), y);
    else if constexpr (Format == 1)
        surf2Dwrite(t.c[0], surface, x * int(sizeof(float)), y);
    else if constexpr (Format == 2)
        surf2Dwrite(make_float2(t.c[0], t.c[1]), surface, x * int(sizeof(float2)), y);
    else
        surf2Dwrite(make_float4(t.c[0], t.c[1], t.c[2], t.c[3]), surface, x * int(sizeof(float4)),
                    y);
}

template <int Format>
__global__ void downsampleKernel(cudaSurfaceObject_t src, int srcW, int srcH,
                                 cudaSurfaceObject_t dst, int dstW, int dstH) {
    constexpr int Channels = kChannels<Format>;
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= dstW || y >= dstH) return;
    const DownsampleBlock b = downsampleBlock(srcW, srcH, x, y);
    const Texel<Channels> tl = readTexel<Format>(src, b.x0, b.y0);
    const Texel<Channels> tr = readTexel<Format>(src, b.x1, b.y0);
    const Texel<Channels> bl = readTexel<Format>(src, b.x0, b.y1);
    const Texel<Channels> br = readTexel<Format>(src, b.x1, b.y1);
    Texel<Channels> out;
    for (int c = 0; c < Channels; ++c)
        out.c[c] = mean4(tl.c[c], tr.c[c], bl.c[c], br.c[c]);
    writeTexel<Format>(out, dst, x, y);
}

template <int Format>
void launchChain(const ImageOutput& image, const DeviceImageTarget& target, cudaStream_t stream) {
    const dim3 block(32, 8);
    const int w = int(image.width), h = int(image.height);
    for (size_t level = 1; level < target.levels.size(); ++level) {
        const int srcW = mipLevelSize(w, int(level) - 1), srcH = mipLevelSize(h, int(level) - 1);
        const int dstW = mipLevelSize(w, int(level)), dstH = mipLevelSize(h, int(level));
        const dim3 grid(unsigned(dstW + 31) / 32, unsigned(dstH + 7) / 8);
        // Stream order makes level - 1's writes visible to this launch's surface reads.
        downsampleKernel<Format><<<grid, block, 0, stream>>>(target.levels[level - 1], srcW, srcH,
                                                             target.levels[level], dstW, dstH);
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
