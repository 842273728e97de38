// writeMipChain on the GPU (cuda_simulation.h): a 2D chain kTileLevels levels per launch, a 3D
// chain kTileLevels3d levels per launch (mip_chain_kernels.cuh); each texel the same
// downsampleTexel (downsampleTexel3d) arithmetic as the CPU's (mip_chain.h), so the two chains are
// bit-identical. Built with -fmad=false like every .cu of cuda_sim; compiled by nvcc only.
#ifdef __CUDACC__
#include "cuda_simulation.h"
#include "mip_chain_kernels.cuh"

#include <stdexcept>
#include <string>

namespace estuary::sim {
namespace {

template <int Format>
void launchChain(const ImageOutput& image, const DeviceImageTarget& target, int firstLevel,
                 cudaStream_t stream) {
    const int levels = int(target.levels.size());
    const int w = int(image.width), h = int(image.height), d = int(image.depth);
    if (d > 1)
        launchMipTiles3d<Format>(target.levels.data(), levels, w, h, d, firstLevel, stream);
    else
        launchMipTiles<Format>(target.levels.data(), levels, w, h, firstLevel, stream);
}

} // namespace

void writeMipChain(const ImageOutput& image, const DeviceImageTarget& target, cudaStream_t stream,
                   int firstLevel) {
    if (target.levels.empty() || target.levels.size() > levelCount(image))
        throw std::invalid_argument("writeMipChain: image '" + image.name + "' has " +
                                    std::to_string(levelCount(image)) + " levels, got " +
                                    std::to_string(target.levels.size()) + " surfaces");
    if (firstLevel < 1)
        throw std::invalid_argument("writeMipChain: firstLevel must be >= 1, got " +
                                    std::to_string(firstLevel));
    switch (image.format) {
    case TexelFormat::R32Float:
        return launchChain<1>(image, target, firstLevel, stream);
    case TexelFormat::RG32Float:
        return launchChain<2>(image, target, firstLevel, stream);
    case TexelFormat::RGBA32Float:
        return launchChain<4>(image, target, firstLevel, stream);
    case TexelFormat::RGBA16Float:
        return launchChain<kHalf4>(image, target, firstLevel, stream);
    }
}

void writeVolumeFromField(const float* field, const ImageOutput& image,
                          const DeviceImageTarget& target, cudaStream_t stream) {
    if (image.format != TexelFormat::R32Float || image.depth < 2 || target.levels.empty() ||
        target.levels.size() > levelCount(image))
        throw std::invalid_argument("writeVolumeFromField: image '" + image.name +
                                    "' must be an R32Float volume with 1.." +
                                    std::to_string(levelCount(image)) + " level surfaces");
    launchFieldLevels3d(field, int(image.width), int(image.height), int(image.depth),
                        target.levels.data(), int(target.levels.size()), stream);
}

} // namespace estuary::sim
#endif // __CUDACC__
