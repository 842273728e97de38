// The labels view on a real GPU, as a simulation tags its particles: a kernel writes 1,000
// anchors (position and string index) into a CUDA-written estuary buffer every frame, and each
// frame's draw shows that frame's anchors, by both draw paths, exactly the picture the same
// anchors give when the host writes them; indices past the string table draw nothing. Validation
// on: any message fails. Skips without CUDA.
#include <cuda_runtime.h>

#include "estuary/estuary.hpp"
#include "estuary/interop/cuda_devices.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace estuary {
namespace {

constexpr uint32_t kLabels = 1000, kStrings = 10, kFrames = 4, kWidth = 320, kHeight = 240;

struct Anchor {
    float x, y, z;
    uint32_t string;
};

// Label i in frame f: a place on a 97 x 89 grid that moves with f, string i % 12 (10 and 11 are
// past the table: not drawn). The host computes the same floats exactly.
__host__ __device__ Anchor anchor(uint32_t i, uint32_t f) {
    return {float((i * 37u + f * 11u) % 97u) / 97.0f, float((i * 53u + f * 7u) % 89u) / 89.0f, 0.0f,
            i % 12u};
}

__global__ void writeAnchors(Anchor* anchors, uint32_t f) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < kLabels) anchors[i] = anchor(i, f);
}

class LabelsGpu : public ::testing::TestWithParam<estuary_draw_path> {
  protected:
    void SetUp() override {
        const auto cuda = interop::listCudaDevices();
        if (cuda.devices.empty())
            GTEST_SKIP() << "no NVIDIA GPU usable by CUDA here: " << cuda.problem;
    }
    // Each frame's picture, the anchors written by a kernel (`cuda`) or by the host.
    std::vector<std::vector<uint8_t>> run(bool cuda) {
        ViewerDesc d;
        d.display = ESTUARY_DISPLAY_HEADLESS;
        d.width = kWidth;
        d.height = kHeight;
        d.frames_in_flight = 3;
        d.cuda = ESTUARY_CUDA_REQUIRED;
        d.flags = ESTUARY_VIEWER_VALIDATION;
        d.draw_path = GetParam();
        Viewer v(d);
        EXPECT_TRUE(v.hasCuda()) << v.info().cuda_choice;
        Buffer anchors = v.buffer({.size = kLabels * sizeof(Anchor),
                                   .writer = cuda ? ESTUARY_WRITER_CUDA : ESTUARY_WRITER_HOST,
                                   .name = "anchors"});
        std::vector<std::string> strings;
        for (uint32_t s = 0; s < kStrings; ++s)
            strings.push_back("p" + std::to_string(s) + (s % 2 ? "µm" : "°"));
        estuary_labels_view_desc ld{};
        ld.buffer = anchors.get();
        ld.size = 11.0f;
        ld.offset[0] = 3.0f;
        View view = v.labelsView(ld, strings);
        std::vector<std::vector<uint8_t>> pictures;
        for (uint32_t f = 0; f < kFrames; ++f) {
            const Frame frame = v.beginFrame();
            if (cuda) {
                writeAnchors<<<(kLabels + 255) / 256, 256, 0, frame.stream()>>>(
                    frame.devicePointer<Anchor>(anchors), f);
                EXPECT_EQ(cudaGetLastError(), cudaSuccess);
            } else {
                auto* a = frame.hostPointer<Anchor>(anchors);
                for (uint32_t i = 0; i < kLabels; ++i)
                    a[i] = anchor(i, f);
            }
            frame.end();
            std::vector<uint8_t> rgba(size_t(kWidth) * kHeight * 4);
            check(estuary_read_pixels(v.get(), rgba.data(), rgba.size()));
            pictures.push_back(std::move(rgba));
        }
        v.finish();
        v.destroyView(view);
        EXPECT_EQ(v.close(), 0u) << "validation messages (printed above)";
        return pictures;
    }
};

TEST_P(LabelsGpu, EachFrameDrawsTheAnchorsItsKernelWrote) {
    const auto byHost = run(false);
    const auto byCuda = run(true);
    ASSERT_EQ(byHost.size(), size_t(kFrames));
    ASSERT_EQ(byCuda.size(), size_t(kFrames));
    for (uint32_t f = 0; f < kFrames; ++f) {
        size_t differing = 0, drawn = 0;
        const auto& a = byHost[f];
        const auto& b = byCuda[f];
        for (size_t i = 0; i < a.size(); i += 4) {
            differing += std::memcmp(&a[i], &b[i], 3) != 0;
            drawn += a[i] > 128; // white text over the dark background
        }
        EXPECT_EQ(differing, 0u) << "frame " << f;
        EXPECT_GT(drawn, 5000u) << "frame " << f << ": the labels are drawn";
        if (f > 0) EXPECT_NE(a, byHost[f - 1]) << "each frame draws its own anchors";
    }
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, LabelsGpu,
                         ::testing::Values(ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE),
                         [](const auto& path) {
                             return path.param == ESTUARY_DRAW_COMPUTE ? "Compute" : "Raster";
                         });

} // namespace
} // namespace estuary
