// The contract test on the GPU (tests/support/contract_driver.h): CUDA kernels write every frame
// on 1 to 4 streams of the test's own, long spinning work on every other frame so a later frame's
// stream finishes first, deferred waits and replayed graphs mixed in; at least 10,000 frames.
// Each read and pick must hold its own frame's values, the hand-off timelines must never fall
// (the bug of frames on different streams), validation stays silent. With two or more CUDA
// devices, the caller's current device is switched to device 1 around the calls on a viewer of
// device 0. Skips without CUDA. ESTUARY_CONTRACT_SEED reruns a failing seed.
#include <cuda_runtime.h>

#include "contract_driver.h"
#include "estuary/interop/cuda_devices.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace estuary {
namespace {

// The frame's number as the GPU knows it: counters[slot] counts the frames that ran on the slot
// (a slot's frames run one after the other: each waits for the previous one's draw), so the
// frame is counters[slot] * slots + slot. Replayed graphs, whose arguments are fixed, still write
// their own frame's values.
__device__ float frameValueOf(const uint32_t* counters, uint32_t slot, uint32_t slots,
                              uint32_t id) {
    return float((uint64_t(counters[slot]) * slots + slot) * 8 + id);
}

__global__ void writeImage(cudaSurfaceObject_t surface, uint32_t width, uint32_t height,
                           const uint32_t* counters, uint32_t slot, uint32_t slots, uint32_t id) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        surf2Dwrite(frameValueOf(counters, slot, slots, id), surface, int(x * sizeof(float)),
                    int(y));
}

__global__ void writeBuffer(float* data, uint32_t count, bool markers, const uint32_t* counters,
                            uint32_t slot, uint32_t slots, uint32_t id) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    const float value = frameValueOf(counters, slot, slots, id);
    const float marker[8] = {0, 0, 0, value, 1, 0, 0, 1};
    data[i] = markers ? marker[i % 8] : value;
}

__global__ void advance(uint32_t* counters, uint32_t slot) {
    counters[slot] += 1;
}

// Work on the writer's own memory for about `cycles` clock cycles.
__global__ void spin(long long cycles, uint32_t* sink) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
    if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(sink, 1u);
}

#define CUDA_OK(expr)                                                                              \
    do {                                                                                           \
        const cudaError_t e_ = (expr);                                                             \
        if (e_ != cudaSuccess) {                                                                   \
            problem = std::string(#expr) + ": " + cudaGetErrorString(e_);                          \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

class CudaWriter : public contract::ContractWriter {
  public:
    explicit CudaWriter(uint32_t streams) : streamCount_(streams) {
        cudaSetDevice(0);
        for (uint32_t i = 0; i < streams; ++i) {
            cudaStream_t s = nullptr;
            cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
            streams_.push_back(s);
        }
        cudaMalloc(&sink_, sizeof(uint32_t));
        int rate = 0;
        cudaDeviceGetAttribute(&rate, cudaDevAttrClockRate, 0); // kHz
        cyclesPerMicro_ = rate > 0 ? rate / 1000 : 1500;
        cudaGetDeviceCount(&devices_);
    }
    ~CudaWriter() override {
        cudaSetDevice(0);
        for (cudaStream_t s : streams_)
            cudaStreamDestroy(s);
        cudaFree(sink_);
    }
    estuary_writer writer() const override { return ESTUARY_WRITER_CUDA; }
    uint32_t streams() const override { return streamCount_; }
    void* stream(uint32_t index) const override { return streams_[index]; }
    void open(estuary_viewer*, uint32_t framesInFlight) override {
        slots_ = framesInFlight;
        cudaSetDevice(0);
        cudaMalloc(&counters_, sizeof(uint32_t) * 32);
        cudaMemset(counters_, 0, sizeof(uint32_t) * 32);
        cudaDeviceSynchronize();
    }
    void close() override {
        cudaSetDevice(0);
        cudaDeviceSynchronize();
        cudaFree(counters_);
        counters_ = nullptr;
    }
    void privateWork(estuary_frame* frame, uint32_t micros) override {
        if (micros == 0) return;
        const int previous = currentDevice();
        cudaSetDevice(0);
        auto* s = static_cast<cudaStream_t>(estuary_frame_stream(frame));
        spin<<<1, 32, 0, s>>>(static_cast<long long>(micros) * cyclesPerMicro_, sink_);
        cudaSetDevice(previous);
    }
    bool write(estuary_frame* frame, const std::vector<contract::Allocation>& allocations,
               std::string& problem) override {
        const int previous = currentDevice();
        cudaSetDevice(0); // the caller's own launches go to the viewer's device
        const bool done = writeAll(frame, allocations, problem);
        cudaSetDevice(previous);
        return done;
    }
    int devices() const override { return devices_; }
    int currentDevice() const override {
        int d = -1;
        cudaGetDevice(&d);
        return d;
    }
    void setCurrentDevice(int device) override { cudaSetDevice(device); }

  private:
    bool writeAll(estuary_frame* frame, const std::vector<contract::Allocation>& allocations,
                  std::string& problem) {
        auto* s = static_cast<cudaStream_t>(estuary_frame_stream(frame));
        const uint32_t slot = estuary_frame_slot(frame);
        for (const contract::Allocation& a : allocations) {
            if (a.image) {
                uint64_t surface = 0;
                if (estuary_frame_surface(frame, a.image, 0, &surface) != ESTUARY_OK) {
                    problem = std::string("estuary_frame_surface: ") + estuary_last_error();
                    return false;
                }
                writeImage<<<dim3((a.width + 15) / 16, (a.height + 15) / 16), dim3(16, 16), 0, s>>>(
                    surface, a.width, a.height, counters_, slot, slots_, a.id);
            } else {
                void* data = nullptr;
                if (estuary_frame_device_pointer(frame, a.buffer, &data) != ESTUARY_OK) {
                    problem = std::string("estuary_frame_device_pointer: ") + estuary_last_error();
                    return false;
                }
                const uint32_t n = uint32_t(a.bytes / 4);
                writeBuffer<<<(n + 255) / 256, 256, 0, s>>>(static_cast<float*>(data), n, a.markers,
                                                            counters_, slot, slots_, a.id);
            }
            CUDA_OK(cudaGetLastError());
        }
        advance<<<1, 1, 0, s>>>(counters_, slot);
        CUDA_OK(cudaGetLastError());
        return true;
    }

    uint32_t streamCount_ = 1;
    std::vector<cudaStream_t> streams_;
    uint32_t* counters_ = nullptr;
    uint32_t* sink_ = nullptr;
    uint32_t slots_ = 2;
    long long cyclesPerMicro_ = 1500;
    int devices_ = 0;
};

bool haveCuda(std::string& why) {
    const auto cuda = interop::listCudaDevices();
    why = cuda.problem;
    return !cuda.devices.empty();
}

uint64_t fromEnvironment(const char* name, uint64_t fallback) {
    const char* text = std::getenv(name);
    return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

void expectContract(const contract::ContractReport& report, const char* what) {
    std::printf("contract (%s): %s\n", what, report.summary().c_str());
    for (size_t i = 0; i < report.failures.size() && i < 20; ++i)
        ADD_FAILURE() << report.failures[i];
}

TEST(ContractGpu, EveryReadAndPickHoldsItsOwnFrameAcrossStreamsReplaysAndDeferredWaits) {
    std::string why;
    if (!haveCuda(why)) GTEST_SKIP() << "no CUDA device: " << why;
    uint64_t frames = 0;
    const uint64_t seed = fromEnvironment("ESTUARY_CONTRACT_SEED", 32);
    // Several streams: the frames' signals must be ordered across them.
    for (uint32_t streams : {1u, 2u, 3u, 4u}) {
        CudaWriter writer(streams);
        contract::ContractOptions options;
        options.seed = seed + streams;
        options.sequences = 8;
        options.framesPerSequence = 320;
        options.replay = true;
        options.longWorkMicros = 300;
        const contract::ContractReport report = contract::runContract(writer, options);
        const std::string what = "CUDA writer, " + std::to_string(streams) + " stream(s)";
        expectContract(report, what.c_str());
        EXPECT_EQ(report.frames, uint64_t(options.sequences) * options.framesPerSequence);
        EXPECT_GT(report.handoffChecks, 0u);
        if (streams > 1) EXPECT_GT(report.replayed, 0u);
        frames += report.frames;
        if (HasFailure()) break;
    }
    std::printf("contract on the GPU: %llu frames in all\n",
                static_cast<unsigned long long>(frames));
    EXPECT_GE(frames, 10000u);
}

// The issue's own case: two streams taking turns, a long kernel on every other frame (the later
// frame's stream finishes first), 40 frames at 2 and at 3 in flight. Before frames' signals were
// ordered across streams, about half of them drew another frame's data.
TEST(ContractGpu, AlternatingStreamsWithLongWorkEveryOtherFrameDrawTheirOwnFrames) {
    std::string why;
    if (!haveCuda(why)) GTEST_SKIP() << "no CUDA device: " << why;
    for (uint32_t inFlight : {2u, 3u}) {
        CudaWriter writer(2);
        contract::ContractOptions options;
        options.seed = 40 + inFlight;
        options.sequences = 1;
        options.framesPerSequence = 40;
        options.framesInFlight = inFlight;
        options.roundRobin = true;
        options.longWorkMicros = 2000;
        const contract::ContractReport report = contract::runContract(writer, options);
        expectContract(
            report,
            ("two streams taking turns, up to " + std::to_string(inFlight) + " in flight").c_str());
        EXPECT_EQ(report.frames, 40u);
    }
}

// Hand-off batches (handoff_batch): CUDA's slot waits grouped by batch, Vulkan's draws held and
// submitted a batch at a time, across streams, replays, singles and deferred waits.
TEST(ContractGpu, EveryReadAndPickHoldsItsOwnFrameWithHandoffBatches) {
    std::string why;
    if (!haveCuda(why)) GTEST_SKIP() << "no CUDA device: " << why;
    for (uint32_t streams : {1u, 3u}) {
        CudaWriter writer(streams);
        contract::ContractOptions options;
        options.seed = fromEnvironment("ESTUARY_CONTRACT_SEED", 32) + 2000 + streams;
        options.sequences = 8;
        options.framesPerSequence = 200;
        options.replay = true;
        options.handoffBatches = true;
        const contract::ContractReport report = contract::runContract(writer, options);
        expectContract(report,
                       ("hand-off batches, " + std::to_string(streams) + " stream(s)").c_str());
        EXPECT_EQ(report.frames, uint64_t(options.sequences) * options.framesPerSequence);
        if (HasFailure()) break;
    }
}

TEST(ContractGpu, AViewerOnDeviceZeroWorksWhileTheCallersDeviceIsOne) {
    std::string why;
    if (!haveCuda(why)) GTEST_SKIP() << "no CUDA device: " << why;
    int devices = 0;
    cudaGetDeviceCount(&devices);
    if (devices < 2)
        GTEST_SKIP() << "one CUDA device: the device switch needs two (run on a two-GPU machine)";
    CudaWriter writer(2);
    contract::ContractOptions options;
    options.seed = fromEnvironment("ESTUARY_CONTRACT_SEED", 32) + 100;
    options.sequences = 4;
    options.framesPerSequence = 200;
    options.replay = true;
    options.switchDevices = true;
    const contract::ContractReport report = contract::runContract(writer, options);
    expectContract(report, "CUDA writer, caller on device 1");
    EXPECT_EQ(report.frames, uint64_t(options.sequences) * options.framesPerSequence);
    cudaSetDevice(0);
}

} // namespace
} // namespace estuary
