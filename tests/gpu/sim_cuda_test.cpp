// The CUDA Gray-Scott simulation against the CPU reference: stepping, the mip chain written through
// surfaces, the brush and the plain-buffer copy. Skips, saying why, where no CUDA device exists.
#include "cpu_gray_scott.h"
#include "cuda_gray_scott.h"
#include "stencil.h"

#include <cuda_runtime.h> // the typed cudaMalloc overloads and make_cudaExtent
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

#define ASSERT_CUDA_OK(expr) ASSERT_EQ((expr), cudaSuccess) << #expr

float maxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) throw std::invalid_argument("maxAbsDiff: sizes differ");
    float worst = 0.0f;
    for (size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::fabs(a[i] - b[i]));
    return worst;
}

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

TEST_F(SimCudaTest, MatchesCpuReferenceAfter1000Steps) {
    const int size = 256;
    const GrayScottParams params;
    CpuGrayScott cpu(size, size, 1234);
    CudaGrayScott gpu(size, size, 1234, stream);
    std::vector<float> u, v;
    gpu.download(u, v);
    ASSERT_EQ(u, cpu.u()) << "seeding differs";
    ASSERT_EQ(v, cpu.v()) << "seeding differs";

    cpu.step(params, 1000);
    gpu.step(params, 997); // an odd count, then more, exercises the ping-pong across calls
    gpu.step(params, 3);
    gpu.download(u, v);
    const float du = maxAbsDiff(u, cpu.u()), dv = maxAbsDiff(v, cpu.v());
    std::printf("max |du| = %g, max |dv| = %g after 1000 steps\n", static_cast<double>(du),
                static_cast<double>(dv));
    // Both sides evaluate stencil.h with only correctly rounded IEEE adds and multiplies (no FMA
    // contraction: -ffp-contract=off / -fmad=false), so the expected difference is 0. The 1e-5
    // tolerance only leaves room for a compiler reassociating differently; a real kernel bug
    // (wrong neighbour, race, stale buffer) is amplified by the reaction far beyond it.
    EXPECT_LE(du, 1e-5f);
    EXPECT_LE(dv, 1e-5f);
    EXPECT_GT(std::count_if(v.begin(), v.end(), [](float x) { return x > 0.1f; }), 0)
        << "no pattern left: the comparison would prove nothing";
}

TEST_F(SimCudaTest, MatchesCpuOnOddSizedGridWithPartialBlocks) {
    // 37 x 19 leaves partial 32 x 8 blocks in x and y and wraps inside them.
    const int w = 37, h = 19;
    const GrayScottParams coral{0.0545f, 0.062f, 1.0f, 0.5f, 1.0f, 8};
    CpuGrayScott cpu(w, h, 8);
    CudaGrayScott gpu(w, h, 8, stream);
    cpu.paint(Brush{36.0f, 0.0f, 4.0f, false});
    gpu.paint(Brush{36.0f, 0.0f, 4.0f, false});
    cpu.step(coral, 200);
    gpu.step(coral, 200);
    std::vector<float> u, v;
    gpu.download(u, v);
    // Tolerance as in MatchesCpuReferenceAfter1000Steps (expected difference: 0).
    EXPECT_LE(maxAbsDiff(u, cpu.u()), 1e-5f);
    EXPECT_LE(maxAbsDiff(v, cpu.v()), 1e-5f);
}

TEST_F(SimCudaTest, WriteFieldFillsEveryMipLevelLikeCpu) {
    const int w = 300, h = 200;
    const int levels = fullMipChainLength(w, h);
    CpuGrayScott cpu(w, h, 77);
    CudaGrayScott gpu(w, h, 77, stream);
    cpu.step(GrayScottParams{}, 50);
    gpu.step(GrayScottParams{}, 50);

    const cudaChannelFormatDesc format =
        cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaMipmappedArray_t mipmapped = nullptr;
    ASSERT_CUDA_OK(cudaMallocMipmappedArray(&mipmapped, &format, make_cudaExtent(w, h, 0),
                                            static_cast<unsigned>(levels),
                                            cudaArraySurfaceLoadStore));
    std::vector<cudaArray_t> levelArrays(levels);
    std::vector<cudaSurfaceObject_t> surfaces(levels, 0);
    for (int i = 0; i < levels; ++i) {
        ASSERT_CUDA_OK(
            cudaGetMipmappedArrayLevel(&levelArrays[i], mipmapped, static_cast<unsigned>(i)));
        cudaResourceDesc resource{};
        resource.resType = cudaResourceTypeArray;
        resource.res.array.array = levelArrays[i];
        ASSERT_CUDA_OK(cudaCreateSurfaceObject(&surfaces[i], &resource));
    }

    gpu.writeField(surfaces.data(), levels);
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));

    std::vector<std::vector<float>> expected(levels);
    std::vector<float*> expectedPointers(levels);
    for (int i = 0; i < levels; ++i) {
        expected[i].resize(static_cast<size_t>(mipLevelSize(w, i)) * mipLevelSize(h, i));
        expectedPointers[i] = expected[i].data();
    }
    writeFieldMipChain(cpu.v().data(), w, h, levels, expectedPointers.data());

    for (int i = 0; i < levels; ++i) {
        const int lw = mipLevelSize(w, i), lh = mipLevelSize(h, i);
        std::vector<float> actual(static_cast<size_t>(lw) * lh, -1.0f);
        const size_t rowBytes = static_cast<size_t>(lw) * sizeof(float);
        ASSERT_CUDA_OK(cudaMemcpy2DFromArray(actual.data(), rowBytes, levelArrays[i], 0, 0,
                                             rowBytes, static_cast<size_t>(lh),
                                             cudaMemcpyDeviceToHost));
        // The same adds and multiplies in the same order on both sides (no FMA): 1e-6 is slack.
        const float diff = maxAbsDiff(actual, expected[i]);
        EXPECT_LE(diff, 1e-6f) << "level " << i << " (" << lw << "x" << lh << ")";
    }

    for (cudaSurfaceObject_t surface : surfaces)
        ASSERT_CUDA_OK(cudaDestroySurfaceObject(surface));
    ASSERT_CUDA_OK(cudaFreeMipmappedArray(mipmapped));
}

TEST_F(SimCudaTest, PaintAndEraseMatchCpuExactly) {
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
        gpu.paint(brush);
    }
    std::vector<float> u, v;
    gpu.download(u, v);
    EXPECT_EQ(u, cpu.u());
    EXPECT_EQ(v, cpu.v());
    EXPECT_GT(std::count(v.begin(), v.end(), 0.5f), 300) << "the brush painted nothing";
}

TEST_F(SimCudaTest, CopyFieldToHostEqualsDownloadedV) {
    const int w = 130, h = 70;
    CudaGrayScott gpu(w, h, 9, stream);
    gpu.step(GrayScottParams{}, 20);
    float* pinned = nullptr;
    ASSERT_CUDA_OK(cudaMallocHost(&pinned, static_cast<size_t>(w) * h * sizeof(float)));
    std::fill(pinned, pinned + static_cast<size_t>(w) * h, -1.0f);
    gpu.copyFieldTo(pinned, cudaMemcpyDeviceToHost);
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
    std::vector<float> u, v;
    gpu.download(u, v);
    const std::vector<float> copied(pinned, pinned + static_cast<size_t>(w) * h);
    ASSERT_CUDA_OK(cudaFreeHost(pinned));
    EXPECT_EQ(copied, v);
}

TEST_F(SimCudaTest, CopyFieldToDeviceEqualsDeviceV) {
    const int w = 64, h = 48;
    const size_t bytes = static_cast<size_t>(w) * h * sizeof(float);
    CudaGrayScott gpu(w, h, 3, stream);
    gpu.step(GrayScottParams{}, 5);
    float* device = nullptr;
    ASSERT_CUDA_OK(cudaMalloc(&device, bytes));
    gpu.copyFieldTo(device, cudaMemcpyDeviceToDevice);
    std::vector<float> copied(static_cast<size_t>(w) * h), direct(static_cast<size_t>(w) * h);
    ASSERT_CUDA_OK(cudaMemcpyAsync(copied.data(), device, bytes, cudaMemcpyDeviceToHost, stream));
    ASSERT_CUDA_OK(
        cudaMemcpyAsync(direct.data(), gpu.deviceV(), bytes, cudaMemcpyDeviceToHost, stream));
    ASSERT_CUDA_OK(cudaStreamSynchronize(stream));
    ASSERT_CUDA_OK(cudaFree(device));
    EXPECT_EQ(copied, direct);
}

TEST_F(SimCudaTest, RejectsBadSizesAndLevelCounts) {
    EXPECT_THROW(CudaGrayScott(0, 8, 1, stream), std::invalid_argument);
    CudaGrayScott gpu(8, 8, 1, stream);
    cudaSurfaceObject_t none = 0;
    EXPECT_THROW(gpu.writeField(&none, 5), std::invalid_argument); // 8 x 8 has 4 levels
    EXPECT_THROW(gpu.step(GrayScottParams{}, -1), std::invalid_argument);
}

} // namespace
} // namespace estuary::sim
