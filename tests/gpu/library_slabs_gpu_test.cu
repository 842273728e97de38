// Slabs on GPUs (estuary_create_slabs, CUDA writer), as a user's kernel drives them: the heat
// equation stepped slab by slab on each slab's own stream, halos exchanged every `halo` steps,
// gathered into the frame's image and read back from the draw, is bit for bit the host's whole-
// field reference (no fused multiply-add on either side): with 2 and 3 slabs on one GPU, and with
// 2 and 4 slabs over 2 GPUs (skipped, saying so, where fewer are present). A 3D field gathers
// every slice into a 3D image; the caller's current device is never changed; asking for more
// devices than there are is refused. Validation on: any message fails.
#include <cuda_runtime.h>

#include "estuary/estuary.hpp"
#include "estuary/interop/cuda_devices.h"
#include "heat_slabs.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace estuary {
namespace {

// One step of a slab's rows 1..R-2 from `in` into `out`; rows 0 and R-1, and (open boundary) rows
// outside the field, are copied as they are.
__global__ void heatStep(const float* in, float* out, estuary_slab s, uint32_t fieldHeight,
                         bool periodic) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t r = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= s.width || r >= s.height) return;
    const int64_t global = int64_t(s.first) - s.halo + r;
    const bool fixed = r == 0 || r + 1 == s.height ||
                       (!periodic && (global < 0 || global >= int64_t(fieldHeight)));
    out[size_t(r) * s.width + x] =
        fixed ? in[size_t(r) * s.width + x] : heat::cell(in, s.width, x, r);
}

__global__ void fillIndex3d(float* data, estuary_slab s) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= s.width || y >= s.height) return;
    for (uint32_t z = 0; z < s.count; ++z)
        data[(size_t(s.halo + z) * s.height + y) * s.width + x] =
            float((size_t(s.first + z) * s.height + y) * s.width + x);
}

bool cudaDevices(int& count, std::string& why) {
    const auto cuda = interop::listCudaDevices();
    why = cuda.problem;
    count = int(cuda.devices.size());
    return count > 0;
}

ViewerDesc gpuViewer() {
    ViewerDesc d;
    d.display = ESTUARY_DISPLAY_HEADLESS;
    d.width = 64;
    d.height = 64;
    d.cuda = ESTUARY_CUDA_REQUIRED;
    d.flags = ESTUARY_VIEWER_VALIDATION;
    return d;
}

constexpr uint32_t kWidth = 97, kHeight = 61, kHalo = 4;

struct Run {
    uint32_t devices = 1, slabs = 1;
    bool periodic = false;
    int frames = 3;
};

// The gathered field after each frame of `run`.
std::vector<std::vector<float>> runHeat(const Run& run) {
    Viewer viewer(gpuViewer());
    Image field = viewer.image({.format = ESTUARY_FORMAT_R32_FLOAT,
                                .kind = ESTUARY_IMAGE_2D,
                                .width = kWidth,
                                .height = kHeight,
                                .levels = 1,
                                .writer = ESTUARY_WRITER_CUDA,
                                .name = "heat"});
    View view = viewer.fieldView({.image = field.get()});
    estuary_slabs_desc d{.format = ESTUARY_FORMAT_R32_FLOAT, .width = kWidth, .height = kHeight};
    d.halo = kHalo;
    d.devices = run.devices;
    d.slabs = run.slabs;
    d.boundary = run.periodic ? ESTUARY_SLAB_BOUNDARY_PERIODIC : ESTUARY_SLAB_BOUNDARY_OPEN;
    d.writer = ESTUARY_WRITER_CUDA;
    Slabs slabs = viewer.slabs(d);
    std::vector<estuary_slab> slab;
    std::vector<float*> scratch;
    for (uint32_t i = 0; i < slabs.count(); ++i) {
        slab.push_back(slabs.slab(i));
        const estuary_slab& s = slab.back();
        std::vector<float> seed(size_t(s.width) * s.height, 0.0f);
        for (uint32_t r = 0; r < s.count; ++r)
            for (uint32_t x = 0; x < s.width; ++x)
                seed[size_t(s.halo + r) * s.width + x] = heat::initial(x, s.first + r);
        cudaSetDevice(s.cuda_device);
        EXPECT_EQ(cudaMemcpy(s.data, seed.data(), seed.size() * 4, cudaMemcpyHostToDevice),
                  cudaSuccess);
        scratch.push_back(nullptr);
        EXPECT_EQ(cudaMalloc(&scratch.back(), seed.size() * 4), cudaSuccess);
    }
    cudaSetDevice(viewer.info().cuda_device);
    slabs.exchange();
    std::vector<std::vector<float>> shown(run.frames, std::vector<float>(size_t(kWidth) * kHeight));
    for (int f = 0; f < run.frames; ++f) {
        const Frame frame = viewer.beginFrame();
        for (size_t i = 0; i < slab.size(); ++i) {
            const estuary_slab& s = slab[i];
            cudaSetDevice(s.cuda_device);
            const auto stream = static_cast<cudaStream_t>(s.stream);
            const dim3 block(32, 8), grid((s.width + 31) / 32, (s.height + 7) / 8);
            for (uint32_t k = 0; k < kHalo; k += 2) { // kHalo is even: back in s.data
                heatStep<<<grid, block, 0, stream>>>(static_cast<float*>(s.data), scratch[i], s,
                                                     kHeight, run.periodic);
                heatStep<<<grid, block, 0, stream>>>(scratch[i], static_cast<float*>(s.data), s,
                                                     kHeight, run.periodic);
            }
            EXPECT_EQ(cudaGetLastError(), cudaSuccess);
        }
        // Whatever device is current (here the last slab's) stays current.
        int current = -1, after = -1;
        cudaGetDevice(&current);
        slabs.exchange();
        slabs.gather(frame, field);
        cudaGetDevice(&after);
        EXPECT_EQ(after, current) << "estuary changed the caller's current device";
        frame.readImage(field, 0, 0, 0, kWidth, kHeight, shown[f].data());
        frame.end();
    }
    viewer.finish();
    for (size_t i = 0; i < slab.size(); ++i) {
        cudaSetDevice(slab[i].cuda_device);
        cudaStreamSynchronize(static_cast<cudaStream_t>(slab[i].stream));
        cudaFree(scratch[i]);
    }
    cudaSetDevice(0);
    slabs.reset();
    view.reset();
    field.reset();
    EXPECT_EQ(viewer.close(), 0u);
    return shown;
}

void expectReference(const std::vector<std::vector<float>>& shown, bool periodic,
                     const std::string& what) {
    for (size_t f = 0; f < shown.size(); ++f) {
        const std::vector<float> expected =
            heat::reference(kWidth, kHeight, periodic, int((f + 1) * kHalo));
        EXPECT_EQ(std::memcmp(shown[f].data(), expected.data(), expected.size() * 4), 0)
            << what << ", frame " << f << ": not the whole field stepped " << (f + 1) * kHalo
            << " times";
    }
}

TEST(SlabsGpu, SlabsOnOneGpuMatchTheWholeFieldBitForBit) {
    int count = 0;
    std::string why;
    if (!cudaDevices(count, why)) GTEST_SKIP() << "no CUDA device: " << why;
    for (bool periodic : {false, true})
        for (uint32_t slabs : {1u, 2u, 3u})
            expectReference(runHeat({.devices = 1, .slabs = slabs, .periodic = periodic}), periodic,
                            std::to_string(slabs) + " slabs on 1 GPU" +
                                (periodic ? ", periodic" : ", open"));
}

TEST(SlabsGpu, TwoGpusMatchOneGpuBitForBit) {
    int count = 0;
    std::string why;
    if (!cudaDevices(count, why)) GTEST_SKIP() << "no CUDA device: " << why;
    if (count < 2) GTEST_SKIP() << "needs 2 CUDA devices; this machine has " << count;
    for (bool periodic : {false, true}) {
        const auto one = runHeat({.devices = 1, .slabs = 1, .periodic = periodic});
        for (uint32_t slabs : {2u, 4u}) {
            const auto two = runHeat({.devices = 2, .slabs = slabs, .periodic = periodic});
            for (size_t f = 0; f < one.size(); ++f)
                EXPECT_EQ(std::memcmp(one[f].data(), two[f].data(), one[f].size() * 4), 0)
                    << slabs << " slabs on 2 GPUs differ from 1 GPU at frame " << f;
            expectReference(two, periodic, std::to_string(slabs) + " slabs on 2 GPUs");
        }
    }
}

TEST(SlabsGpu, ThreeDimensionalSlabsGatherEverySlice) {
    int count = 0;
    std::string why;
    if (!cudaDevices(count, why)) GTEST_SKIP() << "no CUDA device: " << why;
    const uint32_t w = 16, h = 12, depth = 9;
    Viewer viewer(gpuViewer());
    Image volume = viewer.image({.format = ESTUARY_FORMAT_R32_FLOAT,
                                 .kind = ESTUARY_IMAGE_3D,
                                 .width = w,
                                 .height = h,
                                 .depth = depth,
                                 .levels = 1,
                                 .writer = ESTUARY_WRITER_CUDA,
                                 .name = "volume"});
    estuary_slabs_desc d{.format = ESTUARY_FORMAT_R32_FLOAT, .width = w, .height = h};
    d.depth = depth;
    d.halo = 1;
    d.devices = count >= 2 ? 2 : 1;
    d.slabs = 3;
    Slabs slabs = viewer.slabs(d);
    for (uint32_t i = 0; i < slabs.count(); ++i) {
        const estuary_slab s = slabs.slab(i);
        ASSERT_EQ(s.depth, s.count + 2);
        cudaSetDevice(s.cuda_device);
        fillIndex3d<<<dim3(1, 2), dim3(16, 8), 0, static_cast<cudaStream_t>(s.stream)>>>(
            static_cast<float*>(s.data), s);
    }
    cudaSetDevice(viewer.info().cuda_device);
    std::vector<float> got(size_t(w) * h * depth, -1.0f);
    {
        const Frame frame = viewer.beginFrame();
        slabs.gather(frame, volume);
        cudaMemcpy3DParms p{};
        p.srcArray = frame.array(volume);
        p.dstPtr = make_cudaPitchedPtr(got.data(), w * 4, w, h);
        p.extent = make_cudaExtent(w, h, depth);
        p.kind = cudaMemcpyDeviceToHost;
        ASSERT_EQ(cudaMemcpy3DAsync(&p, frame.stream()), cudaSuccess);
        frame.end();
    }
    viewer.finish();
    for (size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(got[i], float(i)) << "cell " << i << " (slice " << i / (w * h) << ")";
    slabs.reset();
    volume.reset();
    EXPECT_EQ(viewer.close(), 0u);
}

TEST(SlabsGpu, MoreDevicesThanPresentAreRefused) {
    int count = 0;
    std::string why;
    if (!cudaDevices(count, why)) GTEST_SKIP() << "no CUDA device: " << why;
    Viewer viewer(gpuViewer());
    estuary_slabs_desc d{.format = ESTUARY_FORMAT_R32_FLOAT, .width = 64, .height = 64};
    d.halo = 1;
    d.devices = uint32_t(count) + 1;
    try {
        Slabs slabs = viewer.slabs(d);
        ADD_FAILURE() << "desc.devices " << d.devices << " accepted on " << count << " devices";
    } catch (const Error& e) {
        EXPECT_EQ(e.status(), ESTUARY_ERROR_UNSUPPORTED);
        const std::string expected = "sees " + std::to_string(count) + " CUDA device(s)";
        EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
    EXPECT_EQ(viewer.close(), 0u);
}

} // namespace
} // namespace estuary
