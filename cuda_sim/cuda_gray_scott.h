// CUDA Gray-Scott simulation: owns the device u/v ping-pong buffers of one W x H periodic grid and
// enqueues seeding, stepping, painting and the field's mip chain on a stream it is given (and does
// not own). Every call but download() only enqueues: no host sync, no allocation after
// construction. Computes exactly what CpuGrayScott computes (stencil.h), bit for bit.
// The app and the benchmark call it; interop/ supplies the surfaces of Vulkan-exported images.
#pragma once

#include "gray_scott.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

namespace estuary::sim {

class CudaGrayScott {
  public:
    // Throws std::invalid_argument when width or height < 1, std::runtime_error on CUDA errors.
    CudaGrayScott(int width, int height, uint64_t seed, cudaStream_t stream);
    ~CudaGrayScott(); // waits for the stream, then frees
    CudaGrayScott(const CudaGrayScott&) = delete;
    CudaGrayScott& operator=(const CudaGrayScott&) = delete;

    void reset(uint64_t seed);
    void step(const GrayScottParams& params, int steps); // steps >= 0
    void paint(const Brush& brush);
    // Writes v into level 0 via surf2Dwrite and builds levels 1..levelCount-1 with downsample
    // kernels (level i-1 -> level i). levelSurfaces[i] are R32_SFLOAT 2D levels of a mip chain of
    // mipLevelSize(width, i) x mipLevelSize(height, i) texels;
    // 1 <= levelCount <= fullMipChainLength(width, height).
    void writeField(const cudaSurfaceObject_t* levelSurfaces, int levelCount);
    // Copies v (width * height floats, tightly packed) into a device or pinned host buffer.
    void copyFieldTo(float* dst, cudaMemcpyKind kind);
    // Synchronous (waits for the stream); for tests.
    void download(std::vector<float>& u, std::vector<float>& v);

    int width() const { return width_; }
    int height() const { return height_; }
    cudaStream_t stream() const { return stream_; }
    const float* deviceV() const { return v_[current_]; }

    // DRAM bytes per cell per step (see kBytesPerCellStep).
    static double bytesPerCellStep() { return kBytesPerCellStep; }

  private:
    int width_;
    int height_;
    cudaStream_t stream_;
    float* allocation_ = nullptr; // one cudaMalloc holding the four fields below
    float* u_[2] = {};
    float* v_[2] = {};
    int current_ = 0; // u_[current_], v_[current_] hold the state
};

} // namespace estuary::sim
