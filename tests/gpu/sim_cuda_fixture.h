// What the CUDA simulation tests share (sim_cuda_test.cpp, sim_cuda_3d_test.cpp): a fixture that
// skips, saying why, where no CUDA device exists and owns a non-blocking stream, and OutputPair,
// a simulation's outputs on the GPU and on the host side by side, compared bit for bit.
#pragma once

#include "cuda_check.h"
#include "cuda_simulation.h"
#include "half_float.h"

#include <cuda_runtime.h> // the typed cudaMalloc overloads and make_cudaExtent
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace estuary::sim {

#define ASSERT_CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

class SimCudaTest : public ::testing::Test {
  protected:
    void SetUp() override {
        int count = 0;
        const cudaError_t error = cudaGetDeviceCount(&count);
        if (error != cudaSuccess) {
            GTEST_SKIP() << "no CUDA device: " << cudaGetErrorString(error);
        }
        if (count == 0) GTEST_SKIP() << "no CUDA device: cudaGetDeviceCount returned 0";
        ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    }
    void TearDown() override {
        if (stream != nullptr) {
            EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
            EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
        }
    }

    cudaStream_t stream = nullptr;
};

// A simulation's outputs in private CUDA memory (mipmapped arrays with surfaces, device buffers),
// and the same outputs in host memory for the CPU reference; both read back level by level.
class OutputPair {
  public:
    explicit OutputPair(const OutputLayout& layout) : layout_(layout) {
        for (const ImageOutput& image : layout.images) {
            device_.push_back(createDeviceImage(image));
            std::vector<std::vector<float>>& host = host_.emplace_back();
            for (uint32_t level = 0; level < levelCount(image); ++level)
                host.emplace_back(size_t(mipSize(image.width, level)) *
                                  mipSize(image.height, level) * mipSize(image.depth, level) *
                                  channelCount(image.format));
        }
        for (const BufferOutput& buffer : layout.buffers) {
            void* pointer = nullptr;
            CUDA_CHECK(cudaMalloc(&pointer, buffer.bytes));
            deviceBuffers_.push_back(pointer);
            hostBuffers_.emplace_back(buffer.bytes);
        }
        for (const DeviceImage& d : device_)
            deviceImages_.push_back(d.target());
        for (auto& levels : host_) {
            std::vector<void*>& pointers = hostLevelPointers_.emplace_back();
            for (auto& level : levels)
                pointers.push_back(level.data());
        }
        for (auto& pointers : hostLevelPointers_)
            hostImages_.push_back({pointers});
        for (auto& buffer : hostBuffers_)
            hostBufferPointers_.push_back(buffer.data());
    }
    ~OutputPair() {
        for (DeviceImage& d : device_)
            destroyDeviceImage(d);
        for (void* pointer : deviceBuffers_)
            (void)cudaFree(pointer);
    }
    OutputPair(const OutputPair&) = delete;
    OutputPair& operator=(const OutputPair&) = delete;

    DeviceTargets deviceTargets() const { return {deviceImages_, deviceBuffers_}; }
    HostTargets hostTargets() const { return {hostImages_, hostBufferPointers_}; }

    // Expects every compared value bit-identical (compare below), naming the largest difference
    // and where, after `when` if given; returns how many floats were compared.
    size_t expectBitIdentical(cudaStream_t stream, const std::string& when = "") const {
        size_t compared = 0;
        std::string where;
        bool bitIdentical = false;
        const float worst = compare(stream, compared, where, bitIdentical);
        EXPECT_TRUE(bitIdentical) << (when.empty() ? "" : when + ": ") << "largest difference "
                                  << worst << " at " << where;
        return compared;
    }

    // Largest |GPU - CPU| over every texel of every level and every buffer float (infinity for a
    // NaN); also counts the floats compared and whether every one is the same bit pattern (which
    // |a - b| == 0 does not prove: +0 and -0). Synchronous.
    float compare(cudaStream_t stream, size_t& compared, std::string& where,
                  bool& bitIdentical) const {
        bitIdentical = true;
        CUDA_CHECK(cudaStreamSynchronize(stream));
        float worst = 0;
        for (size_t i = 0; i < layout_.images.size(); ++i) {
            const ImageOutput& image = layout_.images[i];
            const size_t texel = texelBytes(image.format);
            for (size_t level = 0; level < host_[i].size(); ++level) {
                const size_t w = mipSize(image.width, uint32_t(level));
                const size_t h = mipSize(image.height, uint32_t(level));
                const size_t slices = mipSize(image.depth, uint32_t(level));
                const std::vector<float>& cpuLevel = host_[i][level];
                std::vector<float> gpuLevel(cpuLevel.size());
                copyLevel(device_[i].levels[level], image.depth > 1, w, texel, h, slices,
                          gpuLevel.data(), cudaMemcpyDeviceToHost);
                // RGBA16 float levels hold halves in the first half of their float storage.
                const bool half = image.format == TexelFormat::RGBA16Float;
                const size_t values = w * h * slices * channelCount(image.format);
                const auto value = [&](const std::vector<float>& texels, size_t t) {
                    if (!half) return texels[t];
                    uint16_t bits = 0;
                    std::memcpy(&bits, reinterpret_cast<const uint8_t*>(texels.data()) + 2 * t, 2);
                    return halfToFloat(bits);
                };
                if (std::memcmp(gpuLevel.data(), cpuLevel.data(), values * (half ? 2 : 4)) != 0)
                    bitIdentical = false;
                for (size_t t = 0; t < values; ++t) {
                    const float d = std::fabs(value(gpuLevel, t) - value(cpuLevel, t));
                    if (!(d <= worst)) { // NaN counts as the worst
                        worst = std::isnan(d) ? INFINITY : d;
                        where = image.name + " level " + std::to_string(level) + " value " +
                                std::to_string(t);
                    }
                }
                compared += values;
            }
        }
        for (size_t b = 0; b < deviceBuffers_.size(); ++b) {
            std::vector<uint8_t> gpu(hostBuffers_[b].size());
            CUDA_CHECK(
                cudaMemcpy(gpu.data(), deviceBuffers_[b], gpu.size(), cudaMemcpyDeviceToHost));
            if (gpu != hostBuffers_[b]) {
                bitIdentical = false;
                worst = INFINITY;
                where = "buffer " + layout_.buffers[b].name;
            }
            compared += gpu.size() / sizeof(float);
        }
        return worst;
    }

    // Level 0 of image 0 as the CPU wrote it.
    const std::vector<float>& hostLevel0() const { return host_[0][0]; }
    // Where the CPU writes level `level` of image `image` (tests fill level 0 by hand).
    std::vector<float>& hostLevel(size_t image, size_t level) { return host_[image][level]; }
    const DeviceImage& deviceImage(size_t image) const { return device_[image]; }

    // A level's texels between the device and tightly packed host memory (x fastest, then y, then
    // z): a 2D array's rows, or a 3D array's slices (every level of a 3D image is a 3D array).
    // Synchronous: a copy from pageable memory may return before its DMA lands, and the tests'
    // non-blocking stream would not wait for it, so an upload ends with a device-wide wait.
    static void copyLevel(cudaArray_t array, bool volume, size_t width, size_t texel, size_t rows,
                          size_t slices, void* host, cudaMemcpyKind kind) {
        const size_t rowBytes = width * texel;
        if (!volume) {
            if (kind == cudaMemcpyDeviceToHost)
                CUDA_CHECK(
                    cudaMemcpy2DFromArray(host, rowBytes, array, 0, 0, rowBytes, rows, kind));
            else
                CUDA_CHECK(cudaMemcpy2DToArray(array, 0, 0, host, rowBytes, rowBytes, rows, kind));
            CUDA_CHECK(cudaDeviceSynchronize());
            return;
        }
        cudaMemcpy3DParms copy{};
        const cudaPitchedPtr pointer = make_cudaPitchedPtr(host, rowBytes, width, rows);
        if (kind == cudaMemcpyDeviceToHost) {
            copy.srcArray = array;
            copy.dstPtr = pointer;
        } else {
            copy.srcPtr = pointer;
            copy.dstArray = array;
        }
        copy.extent = make_cudaExtent(width, rows, slices); // in texels: an array is one end
        copy.kind = kind;
        CUDA_CHECK(cudaMemcpy3D(&copy));
        CUDA_CHECK(cudaDeviceSynchronize());
    }

  private:
    OutputLayout layout_;
    std::vector<DeviceImage> device_;
    std::vector<DeviceImageTarget> deviceImages_;
    std::vector<void*> deviceBuffers_;
    std::vector<std::vector<std::vector<float>>> host_; // [image][level]
    std::vector<std::vector<void*>> hostLevelPointers_;
    std::vector<HostImageTarget> hostImages_;
    std::vector<std::vector<uint8_t>> hostBuffers_;
    std::vector<void*> hostBufferPointers_;
};

// `values` channel values of a level in `format` (halves for RGBA16 float) whose means round:
// not representable sums of a few binary digits.
inline void fillRoundingValues(std::vector<float>& level, size_t values, TexelFormat format) {
    for (size_t i = 0; i < values; ++i) {
        const float value = float((i * 7919) % 1013) * 0.013f - 3.1f;
        if (format == TexelFormat::RGBA16Float)
            reinterpret_cast<uint16_t*>(level.data())[i] = floatToHalf(value);
        else
            level[i] = value;
    }
}

} // namespace estuary::sim
