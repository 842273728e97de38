// Attribute descriptors on a real GPU, as a user's CUDA program uses them: separate arrays
// (float2 positions, half values, float2 directions) in CUDA-written estuary buffers, rewritten
// every frame by a kernel, draw by both draw paths exactly the picture the same markers give when
// the host writes them in the 32-byte preset layout, and the pick names the same marker. Every
// frame's draw reads that frame's copies. Validation on: any message fails. Skips without CUDA.
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "estuary/estuary.hpp"
#include "estuary/interop/cuda_devices.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <vector>

namespace estuary {
namespace {

constexpr uint32_t kMarkers = 5000, kFrames = 4, kWidth = 160, kHeight = 120;

// Marker i in frame f: a place on a 97 x 89 grid that moves with f, a value on a 1/64 grid (exact
// in half precision), a direction of small rationals: the host computes the same floats exactly.
__host__ __device__ void marker(uint32_t i, uint32_t f, float& x, float& y, float& value, float& dx,
                                float& dy) {
    x = float((i * 37u + f * 11u) % 97u) / 97.0f;
    y = float((i * 53u + f * 7u) % 89u) / 89.0f;
    value = float((i + f) % 64u) / 64.0f;
    dx = float(int(i % 7u) - 3) / 4.0f;
    dy = float(int(i % 5u) - 2) / 4.0f;
}

__global__ void writeSoa(float2* position, __half* value, float2* direction, uint32_t f) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kMarkers) return;
    float x, y, v, dx, dy;
    marker(i, f, x, y, v, dx, dy);
    position[i] = make_float2(x, y);
    value[i] = __float2half_rn(v);
    direction[i] = make_float2(dx, dy);
}

class AttributesGpu : public ::testing::TestWithParam<estuary_draw_path> {
  protected:
    void SetUp() override {
        const auto cuda = interop::listCudaDevices();
        if (cuda.devices.empty())
            GTEST_SKIP() << "no NVIDIA GPU usable by CUDA here: " << cuda.problem;
    }
    void TearDown() override {
        if (viewer) EXPECT_EQ(viewer->close(), 0u) << "validation messages (printed above)";
    }
    Viewer& open() {
        ViewerDesc d;
        d.display = ESTUARY_DISPLAY_HEADLESS;
        d.width = kWidth;
        d.height = kHeight;
        d.frames_in_flight = 3;
        d.cuda = ESTUARY_CUDA_REQUIRED;
        d.flags = ESTUARY_VIEWER_VALIDATION;
        d.draw_path = GetParam();
        viewer.emplace(d);
        return *viewer;
    }
    std::optional<Viewer> viewer;
};

struct Drawn {
    std::vector<std::vector<uint8_t>> pictures;
    std::vector<estuary_pick> picks;
};

TEST_P(AttributesGpu, SoaFloat2AndHalfWrittenByCudaDrawAsTheHostWrittenPreset) {
    Viewer& v = open();
    const auto run = [&](bool soa) {
        Drawn out;
        // Each pick is delivered into its own slot once its frame is drawn: the slots must not
        // move while frames are in flight.
        out.picks.resize(kFrames);
        estuary_markers_view_desc d{.shape = ESTUARY_MARKER_SHAPE_ARROW, .size = 9.0f};
        std::optional<Buffer> packed, position, value, direction;
        if (soa) {
            const auto cudaBuffer = [&](size_t bytes, const char* name) {
                return v.buffer({.size = bytes, .writer = ESTUARY_WRITER_CUDA, .name = name});
            };
            position = cudaBuffer(kMarkers * sizeof(float2), "position");
            value = cudaBuffer(kMarkers * sizeof(__half), "value");
            direction = cudaBuffer(kMarkers * sizeof(float2), "direction");
            d.attributes[ESTUARY_CHANNEL_POSITION] = attribute(*position, ESTUARY_ATTRIBUTE_F32X2);
            d.attributes[ESTUARY_CHANNEL_VALUE] = attribute(*value, ESTUARY_ATTRIBUTE_F16);
            d.attributes[ESTUARY_CHANNEL_DIRECTION] =
                attribute(*direction, ESTUARY_ATTRIBUTE_F32X2);
        } else {
            packed = v.buffer({.size = kMarkers * 32, .writer = ESTUARY_WRITER_HOST});
            d.buffer = packed->get();
        }
        View view = v.markersView(d);
        EXPECT_EQ(view.params().point_count, kMarkers);
        for (uint32_t f = 0; f < kFrames; ++f) {
            const Frame frame = v.beginFrame();
            if (soa) {
                writeSoa<<<(kMarkers + 255) / 256, 256, 0, frame.stream()>>>(
                    frame.devicePointer<float2>(*position), frame.devicePointer<__half>(*value),
                    frame.devicePointer<float2>(*direction), f);
                EXPECT_EQ(cudaGetLastError(), cudaSuccess);
            } else {
                auto* m = frame.hostPointer<float>(*packed);
                for (uint32_t i = 0; i < kMarkers; ++i) {
                    float* e = m + 8 * size_t(i);
                    marker(i, f, e[0], e[1], e[3], e[4], e[5]);
                    e[2] = e[6] = e[7] = 0.0f;
                }
            }
            // Marker 17's centre this frame: the unit square fills the letterbox's height.
            float x, y, value_, dx, dy;
            marker(17, f, x, y, value_, dx, dy);
            const float side = float(kHeight), left = 0.5f * float(kWidth - kHeight);
            frame.pick(view, left + x * side, y * side, 0.0f, &out.picks[f]);
            frame.end();
            std::vector<uint8_t> rgba(size_t(kWidth) * kHeight * 4);
            check(estuary_read_pixels(v.get(), rgba.data(), rgba.size()));
            out.pictures.push_back(std::move(rgba));
        }
        v.finish();
        view.destroy();
        return out;
    };
    const Drawn preset = run(false);
    const Drawn soa = run(true);
    for (uint32_t f = 0; f < kFrames; ++f) {
        size_t differing = 0, drawn = 0;
        const auto& a = preset.pictures[f];
        const auto& b = soa.pictures[f];
        for (size_t i = 0; i < a.size(); i += 4) {
            differing += std::memcmp(&a[i], &b[i], 3) != 0;
            drawn += std::memcmp(&a[i], &a[0], 3) != 0;
        }
        EXPECT_EQ(differing, 0u) << "frame " << f;
        EXPECT_GT(drawn, 2000u) << "frame " << f << ": the markers are drawn";
        if (f > 0) EXPECT_NE(a, preset.pictures[f - 1]) << "each frame draws its own writes";
        EXPECT_EQ(preset.picks[f].hit, 1) << "frame " << f;
        EXPECT_EQ(soa.picks[f].hit, preset.picks[f].hit) << "frame " << f;
        EXPECT_EQ(soa.picks[f].element, preset.picks[f].element) << "frame " << f;
        EXPECT_EQ(soa.picks[f].value, preset.picks[f].value) << "frame " << f;
    }
}

INSTANTIATE_TEST_SUITE_P(DrawPaths, AttributesGpu,
                         ::testing::Values(ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE),
                         [](const auto& path) {
                             return path.param == ESTUARY_DRAW_COMPUTE ? "Compute" : "Raster";
                         });

} // namespace
} // namespace estuary
