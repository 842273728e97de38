// libestuary on a real GPU, as a user's CUDA code drives it: images of every kind and format
// written by CUDA kernels through the frame's surfaces, read back in the frame's own draw;
// every draw sees its own frame for 1..32 frames in flight (images and buffers), single
// allocations, frames replayed as CUDA graphs, the deferred wait, copies from device memory,
// generated mips, the stats' CUDA times, and picks of CUDA-written markers and meshes. Validation
// on: any message fails. Skips without CUDA.
#include <cuda_runtime.h>

#include "estuary/estuary.hpp"
#include "estuary/interop/cuda_devices.h"
#include "half_float.h"
#include "interop_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <vector>

namespace estuary {
namespace {

__global__ void fillSurface(cudaSurfaceObject_t surface, uint32_t width, uint32_t height,
                            float value) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) surf2Dwrite(value, surface, int(x * sizeof(float)), int(y));
}

void fill(cudaSurfaceObject_t surface, uint32_t width, uint32_t height, float value,
          cudaStream_t stream) {
    fillSurface<<<dim3((width + 15) / 16, (height + 15) / 16), dim3(16, 16), 0, stream>>>(
        surface, width, height, value);
}

__global__ void fillFloats(float* data, uint32_t count, float value) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) data[i] = value;
}

void fill(void* data, uint32_t count, float value, cudaStream_t stream) {
    fillFloats<<<(count + 255) / 256, 256, 0, stream>>>(static_cast<float*>(data), count, value);
}

// The frame's work when replayed as a graph: a kernel whose value comes from device memory it
// advances itself, so each replay writes the next frame's value.
__global__ void fillFromCounter(cudaSurfaceObject_t surface, uint32_t width, uint32_t height,
                                uint32_t* counter) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        surf2Dwrite(float(*counter), surface, int(x * sizeof(float)), int(y));
}
__global__ void advance(uint32_t* counter) {
    *counter += 1;
}

bool haveCuda(std::string& why) {
    const auto cuda = interop::listCudaDevices();
    why = cuda.problem;
    return !cuda.devices.empty();
}

ViewerDesc gpuViewer(uint32_t framesInFlight, uint32_t width = 64, uint32_t height = 64) {
    ViewerDesc d;
    d.display = ESTUARY_DISPLAY_HEADLESS;
    d.width = width;
    d.height = height;
    d.frames_in_flight = framesInFlight;
    d.cuda = ESTUARY_CUDA_REQUIRED;
    d.flags = ESTUARY_VIEWER_VALIDATION;
    return d;
}

estuary_image_desc cudaImage(uint32_t width, uint32_t height, uint32_t flags = 0) {
    estuary_image_desc d{.format = ESTUARY_FORMAT_R32_FLOAT,
                         .kind = ESTUARY_IMAGE_2D,
                         .width = width,
                         .height = height};
    d.levels = 1;
    d.writer = ESTUARY_WRITER_CUDA;
    d.flags = flags;
    d.name = "field";
    return d;
}

class LibraryGpu : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string why;
        if (!haveCuda(why)) GTEST_SKIP() << "no NVIDIA GPU usable by CUDA here: " << why;
    }
    void TearDown() override {
        if (viewer) EXPECT_EQ(viewer->close(), 0u) << "validation messages (printed above)";
    }
    Viewer& open(const estuary_viewer_desc& desc) {
        viewer.emplace(desc);
        EXPECT_TRUE(viewer->hasCuda()) << viewer->info().cuda_choice;
        return *viewer;
    }
    std::optional<Viewer> viewer;
};

// Each draw reads the frame's own image and buffer, before and after drawing, for every depth
// of the ring the API allows.
TEST_F(LibraryGpu, EveryDrawSeesItsOwnFrameForOneToThirtyTwoFramesInFlight) {
    for (uint32_t n : {1u, 2u, 3u, 4u, 8u, 16u, 32u}) {
        SCOPED_TRACE(std::to_string(n) + " in flight");
        Viewer v(gpuViewer(n));
        Image image = v.image(cudaImage(32, 32));
        Buffer buffer =
            v.buffer({.size = 256 * 16, .writer = ESTUARY_WRITER_CUDA, .name = "points"});
        View field = v.fieldView({.image = image.get()});
        View points = v.pointsView({.buffer = buffer.get()});
        constexpr uint32_t kFrames = 120;
        std::vector<float> before(kFrames, -1), after(kFrames, -1);
        std::vector<float> wordBefore(kFrames, -1), wordAfter(kFrames, -1);
        for (uint32_t f = 0; f < kFrames; ++f) {
            const Frame frame = v.beginFrame();
            ASSERT_EQ(frame.index(), f);
            fill(frame.surface(image), 32, 32, float(f), frame.stream());
            fill(frame.devicePointer(buffer), 256 * 4, float(f), frame.stream());
            frame.readImage(image, 0, 31, 31, 1, 1, &before[f]);
            frame.readImage(image, 0, 31, 31, 1, 1, &after[f], ESTUARY_READ_AFTER_DRAW);
            frame.readBuffer(buffer, 256 * 16 - 4, 4, &wordBefore[f]);
            frame.readBuffer(buffer, 256 * 16 - 4, 4, &wordAfter[f], ESTUARY_READ_AFTER_DRAW);
            frame.end();
        }
        v.finish();
        uint32_t wrong = 0;
        for (uint32_t f = 0; f < kFrames; ++f)
            wrong += before[f] != float(f) || after[f] != float(f) || wordBefore[f] != float(f) ||
                     wordAfter[f] != float(f);
        EXPECT_EQ(wrong, 0u) << "draws that saw another frame's image or buffer";
        field.reset(); // the views first: an image or buffer a view draws is not destroyed
        points.reset();
        image.reset();
        buffer.reset();
        EXPECT_EQ(v.close(), 0u);
    }
}

// Every image kind in every format, every level written by CUDA through the frame's surfaces,
// read back in the draw (row 0 of slice, layer or face 0 of each level): the bytes the kernel
// wrote, in each of three frames of a two-deep ring.
TEST_F(LibraryGpu, EveryKindAndFormatWrittenByCudaReachesTheDraw) {
    Viewer& v = open(gpuViewer(2));
    struct Kind {
        estuary_image_kind kind;
        uint32_t width, height, depth, layers;
        test::SurfaceKind surface;
        const char* name;
    };
    const Kind kinds[] = {
        {ESTUARY_IMAGE_2D, 37, 21, 0, 0, test::SurfaceKind::Plain2D, "2D"},
        {ESTUARY_IMAGE_3D, 19, 13, 7, 0, test::SurfaceKind::Volume3D, "3D"},
        {ESTUARY_IMAGE_2D_ARRAY, 23, 11, 0, 3, test::SurfaceKind::Layered2D, "2D array"},
        {ESTUARY_IMAGE_CUBE, 16, 16, 0, 0, test::SurfaceKind::Cubemap, "cube"},
        {ESTUARY_IMAGE_1D, 45, 1, 0, 0, test::SurfaceKind::Plain1D, "1D"},
    };
    const estuary_format formats[] = {ESTUARY_FORMAT_R32_FLOAT, ESTUARY_FORMAT_RG32_FLOAT,
                                      ESTUARY_FORMAT_RGBA32_FLOAT, ESTUARY_FORMAT_RGBA16_FLOAT,
                                      ESTUARY_FORMAT_RGBA8_UNORM};
    for (const Kind& k : kinds)
        for (estuary_format format : formats) {
            SCOPED_TRACE(std::string(k.name) + ", format " + std::to_string(int(format)));
            estuary_image_desc d{.format = format,
                                 .kind = k.kind,
                                 .width = k.width,
                                 .height = k.height,
                                 .depth = k.depth,
                                 .layers = k.layers};
            d.writer = ESTUARY_WRITER_CUDA;
            Image image = v.image(d);
            const estuary_image_info info = image.info();
            ASSERT_GT(info.levels, 1u);
            for (int round = 0; round < 3; ++round) {
                const Frame frame = v.beginFrame();
                const uint32_t salt = uint32_t(frame.index());
                std::vector<std::vector<uint8_t>> rows(info.levels);
                for (uint32_t level = 0; level < info.levels; ++level) {
                    const uint32_t w = std::max(1u, info.width >> level);
                    const uint32_t h = std::max(1u, info.height >> level);
                    const uint32_t z = k.kind == ESTUARY_IMAGE_3D
                                           ? std::max(1u, info.depth >> level)
                                       : k.kind == ESTUARY_IMAGE_2D_ARRAY ? info.layers
                                       : k.kind == ESTUARY_IMAGE_CUBE     ? 6
                                                                          : 1;
                    test::launchWritePatternShaped(frame.surface(image, level), k.surface, w, h, z,
                                                   info.texel_bytes, level, salt, frame.stream());
                    rows[level].resize(size_t(w) * info.texel_bytes);
                    frame.readImage(image, level, 0, 0, w, 1, rows[level].data());
                }
                frame.end();
                v.finish();
                uint32_t wrong = 0;
                for (uint32_t level = 0; level < info.levels; ++level)
                    for (size_t i = 0; i < rows[level].size(); ++i)
                        wrong += rows[level][i] !=
                                 test::patternByte3(uint32_t(i / info.texel_bytes), 0, 0, level,
                                                    uint32_t(i % info.texel_bytes), salt);
                EXPECT_EQ(wrong, 0u) << "bytes that are not what CUDA wrote, frame " << salt;
            }
        }
}

// A single image is written and drawn in turn: each frame's write waits for the draws before it,
// so every draw sees its own frame's value however deep the ring.
TEST_F(LibraryGpu, ASingleImageIsSerializedWithTheDraws) {
    Viewer& v = open(gpuViewer(4));
    Image image = v.image(cudaImage(16, 16, ESTUARY_ALLOC_SINGLE));
    EXPECT_EQ(image.info().copies, 1u);
    const View shown = v.fieldView({.image = image.get()});
    constexpr uint32_t kFrames = 60;
    std::vector<float> before(kFrames, -1), after(kFrames, -1);
    for (uint32_t f = 0; f < kFrames; ++f) {
        const Frame frame = v.beginFrame();
        fill(frame.surface(image), 16, 16, float(f), frame.stream());
        frame.readImage(image, 0, 3, 3, 1, 1, &before[f]);
        frame.readImage(image, 0, 3, 3, 1, 1, &after[f], ESTUARY_READ_AFTER_DRAW);
        frame.end();
    }
    v.finish();
    for (uint32_t f = 0; f < kFrames; ++f) {
        EXPECT_EQ(before[f], float(f)) << f;
        EXPECT_EQ(after[f], float(f)) << f;
    }
}

// With a replay key the frame's work is captured once per ring entry and replayed after: the
// frames say so, and what each draw sees is still its own frame's.
TEST_F(LibraryGpu, ReplayKeysReplayTheFramesWorkAsACudaGraph) {
    Viewer& v = open(gpuViewer(3));
    Image image = v.image(cudaImage(24, 24));
    const View shown = v.fieldView({.image = image.get()});
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    uint32_t* counter = nullptr;
    ASSERT_EQ(cudaMalloc(&counter, sizeof(uint32_t)), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(counter, 0, sizeof(uint32_t), stream), cudaSuccess);
    constexpr uint32_t kFrames = 80;
    std::vector<float> seen(kFrames, -1);
    uint32_t replayed = 0;
    estuary_frame_desc desc{};
    desc.stream = stream;
    desc.replay_key = 42;
    for (uint32_t f = 0; f < kFrames; ++f) {
        const Frame frame = v.beginFrame(&desc);
        if (frame.replayed()) {
            ++replayed;
        } else {
            fillFromCounter<<<dim3(2, 2), dim3(16, 16), 0, stream>>>(frame.surface(image), 24, 24,
                                                                     counter);
            advance<<<1, 1, 0, stream>>>(counter);
        }
        frame.readImage(image, 0, 5, 5, 1, 1, &seen[f]);
        frame.end();
    }
    v.finish();
    for (uint32_t f = 0; f < kFrames; ++f)
        EXPECT_EQ(seen[f], float(f)) << "frame " << f;
    std::printf("%u of %u frames replayed\n", replayed, kFrames);
    EXPECT_GE(replayed, kFrames - 12) << "after one capture per ring entry, frames replay";
    v.finish();
    EXPECT_EQ(cudaFree(counter), cudaSuccess);
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// A captured frame writes the images it was captured with: when one of them is destroyed, the
// graphs go too, and the same key captures afresh instead of writing freed memory.
TEST_F(LibraryGpu, GraphsAreForgottenWhenAnImageGoes) {
    Viewer& v = open(gpuViewer(2));
    cudaStream_t stream = nullptr;
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
    estuary_frame_desc desc{};
    desc.stream = stream;
    desc.replay_key = 7;
    for (int round = 0; round < 3; ++round) {
        SCOPED_TRACE("round " + std::to_string(round));
        Image image = v.image(cudaImage(16 + 8 * round, 16));
        View view = v.fieldView({.image = image.get()});
        uint32_t replayed = 0;
        bool firstReplayed = false;
        std::vector<float> seen(12, -1);
        for (uint32_t f = 0; f < 12; ++f) {
            const Frame frame = v.beginFrame(&desc);
            if (f == 0) firstReplayed = frame.replayed();
            if (frame.replayed())
                ++replayed;
            else
                fill(frame.surface(image), 16 + 8 * round, 16, float(round), stream);
            frame.readImage(image, 0, 15, 15, 1, 1, &seen[f]);
            frame.end();
        }
        v.finish();
        for (uint32_t f = 0; f < 12; ++f)
            EXPECT_EQ(seen[f], float(round)) << "frame " << f << " of this round";
        EXPECT_FALSE(firstReplayed) << "a graph of the destroyed image was replayed";
        EXPECT_GE(replayed, 6u) << "the key replays once each ring entry has its graph";
        v.destroyView(view);
    }
    EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

// ESTUARY_FRAME_DEFER_WAIT: work on private memory runs before the frame's wait; the writes after
// frame.wait() (here a copy from that memory) still reach the frame's own draw.
TEST_F(LibraryGpu, TheDeferredWaitStillOrdersTheFramesWrites) {
    Viewer& v = open(gpuViewer(2));
    Image image = v.image(cudaImage(32, 16));
    const View shown = v.fieldView({.image = image.get()});
    float* scratch = nullptr;
    ASSERT_EQ(cudaMalloc(&scratch, 32 * 16 * sizeof(float)), cudaSuccess);
    estuary_frame_desc desc{};
    desc.flags = ESTUARY_FRAME_DEFER_WAIT;
    constexpr uint32_t kFrames = 40;
    std::vector<float> seen(kFrames, -1);
    for (uint32_t f = 0; f < kFrames; ++f) {
        const Frame frame = v.beginFrame(&desc);
        fill(scratch, 32 * 16, float(f) + 0.5f, frame.stream()); // the frame's own memory
        frame.wait();
        frame.copyToImage(image, scratch, 32 * 16 * sizeof(float));
        frame.readImage(image, 0, 31, 15, 1, 1, &seen[f]);
        frame.end();
    }
    v.finish();
    for (uint32_t f = 0; f < kFrames; ++f)
        EXPECT_EQ(seen[f], float(f) + 0.5f) << "frame " << f;
    EXPECT_EQ(cudaFree(scratch), cudaSuccess);
}

// CUDA writes level 0 only; estuary's generated levels are the 2x2 means of the CUDA frame.
TEST_F(LibraryGpu, GeneratedMipsFollowTheCudaWrites) {
    Viewer& v = open(gpuViewer(2));
    estuary_image_desc d = cudaImage(8, 8, ESTUARY_IMAGE_GENERATE_MIPS);
    d.levels = 0;
    Image image = v.image(d);
    const View shown = v.fieldView({.image = image.get()});
    std::vector<float> texels(64);
    for (int i = 0; i < 64; ++i)
        texels[size_t(i)] = float(i % 8) + 8.0f * float(i / 8); // x + 8y
    float level1[16] = {}, level3 = -1;
    const Frame frame = v.beginFrame();
    frame.copyToImage(image, texels.data(), texels.size() * sizeof(float)); // host memory
    frame.readImage(image, 1, 0, 0, 4, 4, level1);
    frame.readImage(image, 3, 0, 0, 1, 1, &level3);
    frame.end();
    v.finish();
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 4;
             ++x) // mean of x' in {2x, 2x+1}, y' in {2y, 2y+1}: 2x + 0.5 + 8(2y + 0.5)
            EXPECT_NEAR(level1[y * 4 + x], 2.0f * x + 0.5f + 8.0f * (2.0f * y + 0.5f), 1e-4f)
                << x << "," << y;
    EXPECT_NEAR(level3, 31.5f, 1e-4f) << "the whole image's mean";
}

// The stats of CUDA frames carry the CUDA span and the hand-off latency on the host's clock.
TEST_F(LibraryGpu, StatsCarryCudaTimesAndTheHandoff) {
    Viewer& v = open(gpuViewer(3));
    Image image = v.image(cudaImage(256, 256));
    const View shown = v.fieldView({.image = image.get()});
    for (uint32_t f = 0; f < 50; ++f) {
        const Frame frame = v.beginFrame();
        fill(frame.surface(image), 256, 256, float(f), frame.stream());
        frame.end();
    }
    v.finish();
    estuary_frame_stats s{};
    uint32_t withCuda = 0, withHandoff = 0, count = 0;
    while (v.nextFrameStats(s)) {
        ++count;
        withCuda += std::isfinite(s.cuda_ms) && s.cuda_ms >= 0;
        withHandoff += std::isfinite(s.handoff_ms) && s.handoff_ms >= 0;
    }
    EXPECT_EQ(count, 50u);
    EXPECT_GE(withCuda, 45u);
    EXPECT_GE(withHandoff, 45u);
    const estuary_clock_info clocks = v.clockInfo();
    std::printf("%s\n", clocks.summary);
    EXPECT_TRUE(std::isfinite(clocks.handoff_error_us));
}

// A mesh view over buffers CUDA writes each frame draws what the same mesh written by the host
// draws, pixel for pixel (the host path is checked against the analytic sphere by MeshTest), for
// a sphere that shrinks frame by frame (its normals summed afresh each frame).
TEST_F(LibraryGpu, AMeshWrittenByCudaDrawsAsTheSameMeshWrittenByTheHost) {
    Viewer& v = open(gpuViewer(3, 160, 120));
    constexpr int kRings = 32, kSegments = 64, kFrames = 6;
    std::vector<std::vector<float>> frames(kFrames); // (x, y, z, value) per vertex
    std::vector<uint32_t> indices;
    for (int f = 0; f < kFrames; ++f)
        for (int i = 0; i <= kRings; ++i)
            for (int j = 0; j <= kSegments; ++j) {
                const double theta = M_PI * i / kRings, phi = 2.0 * M_PI * j / kSegments;
                const double r = 0.4 - 0.04 * f;
                for (double c : {r * std::sin(theta) * std::cos(phi), r * std::cos(theta),
                                 r * std::sin(theta) * std::sin(phi), 0.5 + 0.5 * std::cos(theta)})
                    frames[size_t(f)].push_back(float(c));
            }
    for (int i = 0; i < kRings; ++i)
        for (int j = 0; j < kSegments; ++j) {
            const uint32_t p = uint32_t(i * (kSegments + 1) + j), q = p + kSegments + 1;
            for (uint32_t k : {p, q, p + 1, p + 1, q, q + 1})
                indices.push_back(k);
        }
    const size_t vertexBytes = frames[0].size() * sizeof(float);
    const size_t indexBytes = indices.size() * sizeof(uint32_t);
    // The frames' vertices staged in CUDA memory, copied into the frame's buffer on its stream.
    float* staged = nullptr;
    ASSERT_EQ(cudaMalloc(&staged, kFrames * vertexBytes), cudaSuccess);
    for (int f = 0; f < kFrames; ++f)
        ASSERT_EQ(cudaMemcpy(staged + f * frames[0].size(), frames[size_t(f)].data(), vertexBytes,
                             cudaMemcpyHostToDevice),
                  cudaSuccess);
    const auto draw = [&](estuary_writer writer) {
        Buffer vertices = v.buffer({.size = vertexBytes, .writer = writer, .name = "sphere"});
        Buffer cells = v.buffer(
            {.size = indexBytes, .writer = writer, .flags = ESTUARY_ALLOC_SINGLE, .name = "cells"});
        estuary_mesh_view_desc desc{.vertices = vertices.get(), .indices = cells.get()};
        View view = v.meshView(desc);
        std::vector<std::vector<uint8_t>> pictures;
        for (int f = 0; f < kFrames; ++f) {
            const Frame frame = v.beginFrame();
            if (writer == ESTUARY_WRITER_HOST) {
                std::memcpy(frame.hostPointer(vertices), frames[size_t(f)].data(), vertexBytes);
                if (f == 0) std::memcpy(frame.hostPointer(cells), indices.data(), indexBytes);
            } else {
                EXPECT_EQ(cudaMemcpyAsync(frame.devicePointer(vertices),
                                          staged + f * frames[0].size(), vertexBytes,
                                          cudaMemcpyDeviceToDevice, frame.stream()),
                          cudaSuccess);
                if (f == 0)
                    EXPECT_EQ(cudaMemcpyAsync(frame.devicePointer(cells), indices.data(),
                                              indexBytes, cudaMemcpyHostToDevice, frame.stream()),
                              cudaSuccess);
            }
            frame.end();
            std::vector<uint8_t> rgba(160 * 120 * 4);
            check(estuary_read_pixels(v.get(), rgba.data(), rgba.size()));
            pictures.push_back(std::move(rgba));
        }
        v.destroyView(view);
        return pictures;
    };
    const auto byCuda = draw(ESTUARY_WRITER_CUDA);
    const auto byHost = draw(ESTUARY_WRITER_HOST);
    ASSERT_EQ(cudaFree(staged), cudaSuccess);
    for (int f = 0; f < kFrames; ++f) {
        size_t lit = 0, differing = 0;
        for (size_t i = 0; i < byCuda[size_t(f)].size(); i += 4) {
            lit += byHost[size_t(f)][i] != byHost[size_t(f)][0] ||
                   byHost[size_t(f)][i + 2] != byHost[size_t(f)][2]; // not the background
            differing += std::memcmp(&byCuda[size_t(f)][i], &byHost[size_t(f)][i], 3) != 0;
        }
        EXPECT_EQ(differing, 0u) << "frame " << f;
        EXPECT_GT(lit, 300u) << "frame " << f << ": the sphere is drawn";
        if (f > 0) EXPECT_NE(byHost[size_t(f)], byHost[size_t(f - 1)]) << "it shrinks";
    }
}

// Marker `chosen` of `count` (32 bytes each) at the unit square's centre, 10 pixels across; the
// others far outside the picture. Each marker's value is its index.
__global__ void placeOneMarker(float* markers, uint32_t count, uint32_t chosen) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    float* m = markers + 8 * size_t(i);
    const bool here = i == chosen;
    m[0] = here ? 0.5f : 3.0f + 1e-6f * float(i % 1000);
    m[1] = here ? 0.5f : 3.0f;
    m[2] = 0.0f;
    m[3] = float(i);
    m[4] = m[5] = m[6] = m[7] = 0.0f;
}

// A square of side 0.8 at depth z, cut into `n` x `n` quads of two triangles each: vertices
// (x, y, z, x) on an (n + 1)^2 grid, and (with `indices`) the triangles' corners.
__global__ void placeSheet(float* vertices, uint32_t* indices, uint32_t n, float z) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t side = n + 1;
    if (i < side * side) {
        const float x = -0.4f + 0.8f * float(i % side) / float(n);
        const float y = -0.4f + 0.8f * float(i / side) / float(n);
        float* v = vertices + 4 * size_t(i);
        v[0] = x, v[1] = y, v[2] = z, v[3] = x;
    }
    if (indices && i < n * n) {
        const uint32_t p = (i / n) * side + i % n, q = p + side;
        const uint32_t corners[6] = {p, q, p + 1, p + 1, q, q + 1};
        for (int k = 0; k < 6; ++k)
            indices[6 * size_t(i) + k] = corners[k];
    }
}

// Picks see the frame's own CUDA writes, by both draw paths: a million markers of which a
// different one sits under the picked pixel each frame, and a sheet of about a million triangles
// moving in depth frame by frame, picked at the picture's centre.
TEST_F(LibraryGpu, PicksFindWhatEachFrameOfCudaWritesDraws) {
    constexpr uint32_t kMarkers = 1000000, kQuads = 701, kFrames = 6; // an odd side: the centre
                                                                      // is a quad's middle
    constexpr uint32_t kVertices = (kQuads + 1) * (kQuads + 1), kTriangles = 2 * kQuads * kQuads;
    for (estuary_draw_path path : {ESTUARY_DRAW_RASTER, ESTUARY_DRAW_COMPUTE}) {
        SCOPED_TRACE(path == ESTUARY_DRAW_RASTER ? "raster" : "compute");
        ViewerDesc desc = gpuViewer(3, 256, 256);
        desc.draw_path = path;
        Viewer v(desc);
        v.setCamera({.zoom = 1.0f}); // along +z
        Buffer markers = v.buffer(
            {.size = size_t(kMarkers) * 32, .writer = ESTUARY_WRITER_CUDA, .name = "markers"});
        estuary_markers_view_desc md{.buffer = markers.get(), .shape = ESTUARY_MARKER_SHAPE_DISC};
        md.size = 10.0f;
        View markersView = v.markersView(md);
        Buffer vertices = v.buffer(
            {.size = size_t(kVertices) * 16, .writer = ESTUARY_WRITER_CUDA, .name = "sheet"});
        Buffer cells = v.buffer({.size = size_t(kTriangles) * 12,
                                 .writer = ESTUARY_WRITER_CUDA,
                                 .flags = ESTUARY_ALLOC_SINGLE,
                                 .name = "cells"});
        View sheet = v.meshView({.vertices = vertices.get(), .indices = cells.get()});
        std::vector<estuary_pick> onMarker(kFrames), besideMarker(kFrames), onSheet(kFrames);
        for (uint32_t f = 0; f < kFrames; ++f) {
            const Frame frame = v.beginFrame();
            const uint32_t chosen = (f * 199999u) % kMarkers;
            placeOneMarker<<<(kMarkers + 255) / 256, 256, 0, frame.stream()>>>(
                frame.devicePointer<float>(markers), kMarkers, chosen);
            placeSheet<<<(kVertices + 255) / 256, 256, 0, frame.stream()>>>(
                frame.devicePointer<float>(vertices),
                f == 0 ? frame.devicePointer<uint32_t>(cells) : nullptr, kQuads,
                0.1f - 0.05f * float(f));
            EXPECT_EQ(cudaGetLastError(), cudaSuccess);
            frame.pick(markersView, 129.0f, 127.0f, 0.0f, &onMarker[f]);
            frame.pick(markersView, 140.0f, 128.0f, 8.0f, &besideMarker[f]); // 7 beyond its edge
            frame.pick(sheet, 128.0f, 128.0f, 0.0f, &onSheet[f]);
            frame.end();
        }
        v.finish();
        const uint32_t middle = 2 * (kQuads / 2 * kQuads + kQuads / 2); // quad (350, 350)
        for (uint32_t f = 0; f < kFrames; ++f) {
            SCOPED_TRACE("frame " + std::to_string(f));
            const uint32_t chosen = (f * 199999u) % kMarkers;
            EXPECT_EQ(onMarker[f].hit, 1);
            EXPECT_EQ(onMarker[f].element, chosen);
            EXPECT_EQ(onMarker[f].value, float(chosen));
            EXPECT_EQ(onMarker[f].distance, 0.0f);
            EXPECT_EQ(besideMarker[f].element, chosen);
            EXPECT_NEAR(besideMarker[f].distance, 7.0f, 1e-3f);
            EXPECT_EQ(onSheet[f].hit, 1);
            EXPECT_TRUE(onSheet[f].element == middle || onSheet[f].element == middle + 1)
                << onSheet[f].element;
            EXPECT_NEAR(onSheet[f].position[0], 0.0f, 1e-3f);
            EXPECT_NEAR(onSheet[f].position[1], 0.0f, 1e-3f);
            EXPECT_NEAR(onSheet[f].position[2], 0.1f - 0.05f * float(f), 1e-5f);
            EXPECT_NEAR(onSheet[f].value, onSheet[f].position[0], 1e-5f) << "value = x";
        }
        v.destroyView(sheet);
        v.destroyView(markersView);
        EXPECT_EQ(v.close(), 0u) << "validation messages (printed above)";
    }
}

} // namespace
} // namespace estuary
