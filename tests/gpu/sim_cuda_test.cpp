// Every simulation's CUDA implementation against its CPU reference, through the generic interface
// (what any new simulation gets for free), and Gray-Scott's own kernels in detail: stepping, the
// mip chain written through surfaces, the brush. Skips, saying why, where no CUDA device exists.
#include "cpu_gray_scott.h"
#include "cuda_check.h"
#include "cuda_gray_scott.h"
#include "half_float.h"
#include "simulations.h"

#include <cuda_runtime.h> // the typed cudaMalloc overloads and make_cudaExtent
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

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
                                  mipSize(image.height, level) * channelCount(image.format));
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
                const std::vector<float>& cpuLevel = host_[i][level];
                std::vector<float> gpuLevel(cpuLevel.size());
                CUDA_CHECK(cudaMemcpy2DFromArray(gpuLevel.data(), w * texel,
                                                 device_[i].levels[level], 0, 0, w * texel, h,
                                                 cudaMemcpyDeviceToHost));
                // RGBA16 float levels hold halves in the first half of their float storage.
                const bool half = image.format == TexelFormat::RGBA16Float;
                const size_t values = w * h * channelCount(image.format);
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

// The promise every SimDefinition makes (cudaTolerance): after many steps, brush strokes and a
// preset, the CUDA outputs equal the CPU reference's to the stated tolerance, 0 meaning bit for
// bit.
TEST_F(SimCudaTest, EverySimulationMatchesItsCpuReferenceInEveryOutputAfterManySteps) {
    for (const SimDefinition& def : estuary::simulations()) {
        SCOPED_TRACE(def.name);
        ASSERT_NE(def.createCuda, nullptr) << "a CUDA build has every simulation's CUDA half";
        // Odd: partial blocks, odd mip halvings, wrapping; particles for simulations with them
        // (an odd count too).
        const GridSize grid{131, 77, 1, def.particles.max > 0 ? 5001u : 0u};
        const auto cpu = def.createCpu(grid);
        const auto gpu = def.createCuda(grid);
        OutputPair outputs(def.outputs(grid));
        cpu->reset(42);
        gpu->reset(42, stream);
        ParamValues params = initialParams(def);
        auto run = [&](int steps) {
            cpu->step(params, steps);
            gpu->step(params, steps, stream);
        };
        run(300);
        const Brush strokes[] = {{20.5f, 70.25f, 6.0f, false, 1.5f, -0.75f},
                                 {-3.0f, 2.0f, 9.0f, false, 0.0f, 2.0f},
                                 {22.0f, 68.0f, 4.0f, true, -1.0f, 0.0f}};
        for (const Brush& brush : strokes) {
            cpu->brush(brush, params);
            gpu->brush(brush, params, stream);
        }
        run(200);
        cpu->writeOutputs(outputs.hostTargets());
        gpu->writeOutputs(outputs.deviceTargets(), stream);
        const std::vector<float> before = outputs.hostLevel0();
        if (!def.presets.empty()) {
            ASSERT_EQ(applyPreset(def, def.presets.back(), params), "");
        }
        run(500);
        cpu->writeOutputs(outputs.hostTargets());
        gpu->writeOutputs(outputs.deviceTargets(), stream);

        size_t compared = 0;
        std::string where;
        bool bitIdentical = false;
        const float worst = outputs.compare(stream, compared, where, bitIdentical);
        std::printf("%s: max |CUDA - CPU| = %g over %zu floats after 1000 steps (tolerance %g)\n",
                    def.name.c_str(), double(worst), compared, double(def.cudaTolerance));
        if (def.cudaTolerance == 0.0f)
            EXPECT_TRUE(bitIdentical) << "largest difference " << worst << " at " << where;
        else
            EXPECT_LE(worst, def.cudaTolerance) << "largest difference at " << where;
        // The comparison proves something only if the outputs are alive: not constant, and
        // changed by the last 500 steps.
        const auto [lo, hi] = std::minmax_element(before.begin(), before.end());
        EXPECT_GT(*hi - *lo, 1e-3f) << "output is (nearly) constant";
        EXPECT_NE(before, outputs.hostLevel0()) << "500 steps changed nothing";
    }
}

TEST_F(SimCudaTest, GrayScottMatchesCpuReferenceBitForBitAfter1000Steps) {
    const int size = 256;
    const GrayScottParams params;
    CpuGrayScott cpu(size, size, 1234);
    CudaGrayScott gpu(size, size, 1234, stream);
    std::vector<float> u, v;
    gpu.download(u, v, stream);
    ASSERT_EQ(u, cpu.u()) << "seeding differs";
    ASSERT_EQ(v, cpu.v()) << "seeding differs";

    cpu.step(params, 1000);
    gpu.step(params, 997, stream); // an odd count, then more, exercises the ping-pong across calls
    gpu.step(params, 3, stream);
    gpu.download(u, v, stream);
    // Both sides evaluate stencil.h with only correctly rounded IEEE adds and multiplies (no FMA
    // contraction: -ffp-contract=off / -fmad=false), so they must agree exactly, as the README
    // says; a kernel bug (wrong neighbour, race, stale buffer) is amplified by the reaction.
    EXPECT_EQ(u, cpu.u());
    EXPECT_EQ(v, cpu.v());
    EXPECT_GT(std::count_if(v.begin(), v.end(), [](float x) { return x > 0.1f; }), 0)
        << "no pattern left: the comparison would prove nothing";
}

TEST_F(SimCudaTest, GrayScottMatchesCpuOnOddSizedGridWithPartialBlocks) {
    // 37 x 19 leaves partial 32 x 8 blocks in x and y and wraps inside them.
    const int w = 37, h = 19;
    const GrayScottParams coral{0.0545f, 0.062f, 1.0f, 0.5f, 1.0f};
    CpuGrayScott cpu(w, h, 8);
    CudaGrayScott gpu(w, h, 8, stream);
    cpu.paint(Brush{36.0f, 0.0f, 4.0f, false});
    gpu.paint(Brush{36.0f, 0.0f, 4.0f, false}, stream);
    cpu.step(coral, 200);
    gpu.step(coral, 200, stream);
    std::vector<float> u, v;
    gpu.download(u, v, stream);
    EXPECT_EQ(u, cpu.u());
    EXPECT_EQ(v, cpu.v());
}

TEST_F(SimCudaTest, GrayScottPaintAndEraseMatchCpuExactly) {
    const int w = 200, h = 120;
    CpuGrayScott cpu(w, h, 5);
    CudaGrayScott gpu(w, h, 5, stream);
    const Brush strokes[] = {
        {50.5f, 40.25f, 12.0f, false},
        {-3.0f, 118.0f, 9.5f, false}, // wraps across both edges
        {52.0f, 44.0f, 5.0f, true},
        {412.7f, -250.3f, 7.0f, false}, // far outside: wrapped on the host by both
    };
    for (const Brush& brush : strokes) {
        cpu.paint(brush);
        gpu.paint(brush, stream);
    }
    std::vector<float> u, v;
    gpu.download(u, v, stream);
    EXPECT_EQ(u, cpu.u());
    EXPECT_EQ(v, cpu.v());
    EXPECT_GT(std::count(v.begin(), v.end(), 0.5f), 300) << "the brush painted nothing";
}

TEST_F(SimCudaTest, GrayScottRejectsBadSizesAndTargets) {
    EXPECT_THROW(CudaGrayScott(0, 8, 1, stream), std::invalid_argument);
    CudaGrayScott gpu(8, 8, 1, stream);
    const cudaSurfaceObject_t surfaces[5] = {};
    const DeviceImageTarget image{surfaces}; // 5 levels; 8 x 8 has 4
    EXPECT_THROW(gpu.writeOutputs({{&image, 1}, {}}, stream), std::invalid_argument);
    EXPECT_THROW(gpu.step(GrayScottParams{}, -1, stream), std::invalid_argument);
}

TEST_F(SimCudaTest, OutOfDeviceMemoryIsAnUnsupportedEnvironmentNamingTheCause) {
    // 1 PiB: more than any GPU has. Exit 3 with advice, not a generic runtime failure.
    void* pointer = nullptr;
    try {
        CUDA_CHECK(cudaMalloc(&pointer, size_t(1) << 50));
        FAIL() << "a 1 PiB allocation succeeded";
    } catch (const Error& e) {
        EXPECT_EQ(e.code(), ExitCode::Unsupported) << e.what();
        EXPECT_NE(std::string(e.what()).find("out of GPU memory"), std::string::npos) << e.what();
    }
    (void)cudaGetLastError(); // the failed allocation is not sticky; clear it for later tests
}

} // namespace
} // namespace estuary::sim
