// Test kernels for the interop suite: a byte pattern any texel size can be written with, through a
// surface of any shape (2D, 3D, layered, cube, 1D), and the two halves of the timeline ping-pong.
// The pattern function is shared with the CPU-side check.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace estuary::test {

#if defined(__CUDACC__)
#define ESTUARY_TEST_HD __host__ __device__
#else
#define ESTUARY_TEST_HD
#endif

// Byte `b` of texel (x, y) of 3D slice, array layer or cube face `z` of mip `level`: a hash, so a
// texel landing in the wrong place, slice, layer, level or byte order is caught. For z = 0 it is
// patternByte below, so 2D images read the same through either.
ESTUARY_TEST_HD inline uint8_t patternByte3(uint32_t x, uint32_t y, uint32_t z, uint32_t level,
                                            uint32_t b, uint32_t salt) {
    uint32_t h = x * 0x9E3779B1u ^ (y + 0x7F4A7C15u) * 0x85EBCA77u ^ level * 0xC2B2AE3Du ^
                 b * 0x27D4EB2Fu ^ z * 0x165667B1u ^ salt;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return uint8_t(h);
}

// Byte `b` of texel (x, y) of mip `level` of a 2D image.
ESTUARY_TEST_HD inline uint8_t patternByte(uint32_t x, uint32_t y, uint32_t level, uint32_t b,
                                           uint32_t salt) {
    return patternByte3(x, y, 0, level, b, salt);
}

// How a surface object addresses its level: the surf*write family that fits the CUDA array.
enum class SurfaceKind {
    Plain2D,   // surf2Dwrite
    Volume3D,  // surf3Dwrite, z = slice
    Layered2D, // surf2DLayeredwrite, z = layer
    Cubemap,   // surfCubemapwrite, z = face
    Plain1D,   // surf1Dwrite, height 1
};

// Writes patternByte3 into every texel of one level: `width`×`height`×`depthOrLayers` (slices of a
// 3D level, layers of a layered one, 6 faces of a cube, 1 otherwise) of `texelBytes` (1, 2, 4, 8
// or 16) each.
void launchWritePatternShaped(cudaSurfaceObject_t surface, SurfaceKind kind, uint32_t width,
                              uint32_t height, uint32_t depthOrLayers, uint32_t texelBytes,
                              uint32_t level, uint32_t salt, cudaStream_t stream);

// Writes the pattern into a 2D surface of `texelBytes` (1, 2, 4, 8 or 16) per texel.
void launchWritePattern(cudaSurfaceObject_t surface, uint32_t width, uint32_t height,
                        uint32_t texelBytes, uint32_t level, uint32_t salt, cudaStream_t stream);

// Byte i of `bytes` bytes at `pointer` = patternByte(i % 65536, i / 65536, 0, 0, salt).
void launchFillPattern(void* pointer, size_t bytes, uint32_t salt, cudaStream_t stream);

// shared[0] += 1; shared[2] counts steps where shared[1] (written by Vulkan) != expectedFromVulkan.
void launchPingPongStep(uint32_t* shared, uint32_t expectedFromVulkan, cudaStream_t stream);

} // namespace estuary::test
