// writeMipChain on the GPU (cuda_simulation.h): one launch per level, each texel the same
// downsampleTexel arithmetic as the CPU's (mip_chain.h), so the two chains are bit-identical.
// Built with -fmad=false like every .cu of cuda_sim; compiled by nvcc only.
#ifdef __CUDACC__
#include "cuda_check.h"
#include "cuda_simulation.h"
#include "mip_chain.h"

#include <stdexcept>
#include <string>

namespace estuary::sim {
namespace {

template <int Channels> struct Texel { float c[Channels]; };

template <int Channels>
__device__ Texel<Channels> readTexel(cudaSurfaceObject_t surface, int x, int y) {
    Texel<Channels> t;
    if constexpr (Channels == 1) {
        surf2Dread(&t.c[0], surface, x * int(sizeof(float)), y);
    } else if constexpr (Channels == 2) {
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

template <int Channels>
__device__ void writeTexel(const Texel<Channels>& t, cudaSurfaceObject_t surface, int x, int y) {
    if constexpr (Channels == 1)
        surf2Dwrite(t.c[0], surface, x * int(sizeof(float)), y);
    else if constexpr (Channels == 2)
        surf2Dwrite(make_float2(t.c[0], t.c[1]), surface, x * int(sizeof(float2)), y);
    else
        surf2Dwrite(make_float4(t.c[0], t.c[1], t.c[2], t.c[3]), surface, x * int(sizeof(float4)),
                    y);
}

template <int Channels>
__global__ void downsampleKernel(cudaSurfaceObject_t src, int srcW, int srcH,
                                 cudaSurfaceObject_t dst, int dstW, int dstH) {
    const int x = int(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = int(blockIdx.y * blockDim.y + threadIdx.y);
    if (x >= dstW || y >= dstH) return;
    const DownsampleBlock b = downsampleBlock(srcW, srcH, x, y);
    const Texel<Channels> tl = readTexel<Channels>(src, b.x0, b.y0);
    const Texel<Channels> tr = readTexel<Channels>(src, b.x1, b.y0);
    const Texel<Channels> bl = readTexel<Channels>(src, b.x0, b.y1);
    const Texel<Channels> br = readTexel<Channels>(src, b.x1, b.y1);
    Texel<Channels> out;
    for (int c = 0; c < Channels; ++c)
        out.c[c] = mean4(tl.c[c], tr.c[c], bl.c[c], br.c[c]);
    writeTexel(out, dst, x, y);
}

template <int Channels>
void launchChain(const ImageOutput& image, const DeviceImageTarget& target, cudaStream_t stream) {
    const dim3 block(32, 8);
    const int w = int(image.width), h = int(image.height);
    for (size_t level = 1; level < target.levels.size(); ++level) {
        const int srcW = mipLevelSize(w, int(level) - 1), srcH = mipLevelSize(h, int(level) - 1);
        const int dstW = mipLevelSize(w, int(level)), dstH = mipLevelSize(h, int(level));
        const dim3 grid(unsigned(dstW + 31) / 32, unsigned(dstH + 7) / 8);
        // Stream order makes level - 1's writes visible to this launch's surface reads.
        downsampleKernel<Channels><<<grid, block, 0, stream>>>(target.levels[level - 1], srcW, srcH,
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
    }
}

} // namespace estuary::sim
#endif // __CUDACC__
