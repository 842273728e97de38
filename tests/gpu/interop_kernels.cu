#include "interop_kernels.h"

#include <stdexcept>
#include <string>

namespace estuary::test {
namespace {

template <typename T>
__global__ void writePatternKernel(cudaSurfaceObject_t surface, SurfaceKind kind, uint32_t width,
                                   uint32_t height, uint32_t level, uint32_t salt) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    const uint32_t z = blockIdx.z;
    if (x >= width || y >= height) return;
    union {
        T value;
        uint8_t bytes[sizeof(T)];
    } texel;
    for (uint32_t b = 0; b < sizeof(T); ++b)
        texel.bytes[b] = patternByte3(x, y, z, level, b, salt);
    const int xBytes = int(x * sizeof(T)); // surface x coordinates are in bytes
    switch (kind) {
    case SurfaceKind::Plain2D:
        surf2Dwrite(texel.value, surface, xBytes, int(y));
        break;
    case SurfaceKind::Volume3D:
        surf3Dwrite(texel.value, surface, xBytes, int(y), int(z));
        break;
    case SurfaceKind::Layered2D:
        surf2DLayeredwrite(texel.value, surface, xBytes, int(y), int(z));
        break;
    case SurfaceKind::Cubemap:
        surfCubemapwrite(texel.value, surface, xBytes, int(y), int(z));
        break;
    case SurfaceKind::Plain1D:
        surf1Dwrite(texel.value, surface, xBytes);
        break;
    }
}

__global__ void fillPatternKernel(uint8_t* bytes, size_t count, uint32_t salt) {
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) bytes[i] = patternByte(uint32_t(i % 65536), uint32_t(i / 65536), 0, 0, salt);
}

__global__ void pingPongStepKernel(uint32_t* shared, uint32_t expectedFromVulkan) {
    shared[0] += 1;
    if (shared[1] != expectedFromVulkan) shared[2] += 1;
}

void check(cudaError_t err, const char* what) {
    if (err != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(err));
}

} // namespace

void launchWritePatternShaped(cudaSurfaceObject_t surface, SurfaceKind kind, uint32_t width,
                              uint32_t height, uint32_t depthOrLayers, uint32_t texelBytes,
                              uint32_t level, uint32_t salt, cudaStream_t stream) {
    const bool flat = kind == SurfaceKind::Plain2D || kind == SurfaceKind::Plain1D;
    if (width == 0 || height == 0 || depthOrLayers == 0 || depthOrLayers > 65535 ||
        (flat && depthOrLayers != 1) || (kind == SurfaceKind::Plain1D && height != 1) ||
        (kind == SurfaceKind::Cubemap && (depthOrLayers != 6 || width != height)))
        throw std::invalid_argument("launchWritePatternShaped: no such level, " +
                                    std::to_string(width) + "x" + std::to_string(height) + "x" +
                                    std::to_string(depthOrLayers) + " of surface kind " +
                                    std::to_string(int(kind)));
    const dim3 block(16, 16);
    const dim3 grid((width + 15) / 16, (height + 15) / 16, depthOrLayers);
    switch (texelBytes) {
    case 1:
        writePatternKernel<uint8_t>
            <<<grid, block, 0, stream>>>(surface, kind, width, height, level, salt);
        break;
    case 2:
        writePatternKernel<uint16_t>
            <<<grid, block, 0, stream>>>(surface, kind, width, height, level, salt);
        break;
    case 4:
        writePatternKernel<uint32_t>
            <<<grid, block, 0, stream>>>(surface, kind, width, height, level, salt);
        break;
    case 8:
        writePatternKernel<uint2>
            <<<grid, block, 0, stream>>>(surface, kind, width, height, level, salt);
        break;
    case 16:
        writePatternKernel<uint4>
            <<<grid, block, 0, stream>>>(surface, kind, width, height, level, salt);
        break;
    default:
        throw std::invalid_argument("texel size " + std::to_string(texelBytes));
    }
    check(cudaGetLastError(), "writePatternKernel");
}

void launchWritePattern(cudaSurfaceObject_t surface, uint32_t width, uint32_t height,
                        uint32_t texelBytes, uint32_t level, uint32_t salt, cudaStream_t stream) {
    launchWritePatternShaped(surface, SurfaceKind::Plain2D, width, height, 1, texelBytes, level,
                             salt, stream);
}

void launchFillPattern(void* pointer, size_t bytes, uint32_t salt, cudaStream_t stream) {
    fillPatternKernel<<<unsigned((bytes + 255) / 256), 256, 0, stream>>>(
        static_cast<uint8_t*>(pointer), bytes, salt);
    check(cudaGetLastError(), "fillPatternKernel");
}

void launchPingPongStep(uint32_t* shared, uint32_t expectedFromVulkan, cudaStream_t stream) {
    pingPongStepKernel<<<1, 1, 0, stream>>>(shared, expectedFromVulkan);
    check(cudaGetLastError(), "pingPongStepKernel");
}

} // namespace estuary::test
