// Host-copy backend (benchmark reference, no interop): the CUDA simulation writes its outputs into
// private CUDA memory (a mipmapped array per image, a device buffer per buffer), every level and
// buffer is copied to pinned host memory, the host waits for the copy, and the bytes reach Vulkan
// through the staging upload the CPU backend uses. Same simulation kernels, same renderer — only
// the path between them differs.
#include "sim_backend.h"
#include "cuda_check.h"
#include "fault_injection.h"
#include "estuary/interop/frame_timelines.h"
#include "cuda_simulation.h"
#include "staged_outputs.h"

#include <cuda_runtime.h> // make_cudaPitchedPtr and friends
#include <array>
#include <chrono>
#include <cstring>
#include <vector>

namespace estuary {
namespace {

class HostCopyBackend final : public StagedBackend {
  public:
    HostCopyBackend(const Device& device, const interop::Context& context,
                    const BackendConfig& config, int cudaDevice)
        : StagedBackend(device, context, config) {
        if (!config.simulation->createCuda)
            throw unsupported(config.simulation->name +
                              " has no CUDA implementation in this build");
        try { // a throwing constructor runs no destructor of its own: release what CUDA made
            if (faultPlan().allocFail)
                throw cudaFailure(cudaErrorMemoryAllocation,
                                  "cudaMalloc (ESTUARY_FAULT=alloc-fail)", __FILE__, __LINE__);
            CUDA_CHECK(cudaSetDevice(cudaDevice));
            CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
            sim_ = config.simulation->createCuda(gridSizeOf(config));
            sim_->reset(config.seed, stream_);
            for (const sim::ImageOutput& output : layout_.images)
                privateImages_.push_back(sim::createDeviceImage(output));
            for (const sim::BufferOutput& output : layout_.buffers) {
                void* pointer = nullptr;
                CUDA_CHECK(cudaMalloc(&pointer, output.bytes));
                privateBuffers_.push_back(pointer);
            }
            for (const sim::DeviceImage& image : privateImages_)
                targets_.images.push_back(image.target());
            targets_.buffers = privateBuffers_;
            size_t pinnedBytes = 0;
            for (const StagedImage& image : outputs_.images)
                pinnedBytes += image.staging[0].size;
            for (const sim::BufferOutput& output : layout_.buffers)
                pinnedBytes += output.bytes;
            CUDA_CHECK(cudaMallocHost(&pinned_, pinnedBytes));
            for (cudaEvent_t* ev : {&start_, &end_})
                CUDA_CHECK(cudaEventCreate(ev));
        } catch (...) {
            release();
            throw;
        }
    }

    ~HostCopyBackend() override { release(); }

    // Safe on a partly constructed backend: every step skips what does not exist. The staged
    // outputs are StagedBackend's.
    void release() {
        if (stream_) (void)interop::cudaStreamSettled(stream_, gpuWaitTimeoutNs());
        sim_.reset();
        for (sim::DeviceImage& image : privateImages_)
            sim::destroyDeviceImage(image);
        privateImages_.clear();
        for (void* pointer : privateBuffers_)
            (void)cudaFree(pointer);
        privateBuffers_.clear();
        (void)cudaFreeHost(pinned_);
        if (start_) (void)cudaEventDestroy(start_);
        if (end_) (void)cudaEventDestroy(end_);
        if (stream_) (void)cudaStreamDestroy(stream_);
        pinned_ = nullptr;
        start_ = end_ = nullptr;
        stream_ = nullptr;
    }

    const char* name() const override { return "host-copy"; }

    void simulate(uint64_t frame, const sim::ParamValues& params, int steps) override {
        const auto start = std::chrono::steady_clock::now();
        const uint32_t slot = slotOf(frame);
        CUDA_CHECK(cudaEventRecord(start_, stream_));
        sim_->step(params, steps, stream_);
        sim_->writeOutputs({targets_.images, targets_.buffers}, stream_);
        CUDA_CHECK(cudaEventRecord(end_, stream_));
        // Every level of every image, then every buffer, packed into pinned memory in the staging
        // buffers' layout.
        uint8_t* pinned = static_cast<uint8_t*>(pinned_);
        for (size_t i = 0; i < privateImages_.size(); ++i) {
            const StagedImage& staged = outputs_.images[i];
            const size_t texel = sim::texelBytes(staged.output.format);
            for (size_t level = 0; level < staged.regions.size(); ++level) {
                const VkExtent3D e = staged.regions[level].imageExtent;
                const size_t rowBytes = e.width * texel;
                if (e.depth > 1) { // a 3D level: slices one after another
                    cudaMemcpy3DParms copy{};
                    copy.srcArray = privateImages_[i].levels[level];
                    copy.dstPtr = make_cudaPitchedPtr(pinned + staged.regions[level].bufferOffset,
                                                      rowBytes, e.width, e.height);
                    copy.extent = make_cudaExtent(e.width, e.height, e.depth);
                    copy.kind = cudaMemcpyDeviceToHost;
                    CUDA_CHECK(cudaMemcpy3DAsync(&copy, stream_));
                    continue;
                }
                CUDA_CHECK(cudaMemcpy2DFromArrayAsync(pinned + staged.regions[level].bufferOffset,
                                                      rowBytes, privateImages_[i].levels[level], 0,
                                                      0, rowBytes, e.height, cudaMemcpyDeviceToHost,
                                                      stream_));
            }
            pinned += staged.staging[slot].size;
        }
        for (size_t b = 0; b < privateBuffers_.size(); ++b) {
            CUDA_CHECK(cudaMemcpyAsync(pinned, privateBuffers_[b], layout_.buffers[b].bytes,
                                       cudaMemcpyDeviceToHost, stream_));
            pinned += layout_.buffers[b].bytes;
        }
        // Without interop the host must wait for the data before Vulkan can have it.
        waitForStream(gpuWaitTimeoutNs());
        const auto downloaded = std::chrono::steady_clock::now();
        pinned = static_cast<uint8_t*>(pinned_);
        for (const StagedImage& staged : outputs_.images) {
            std::memcpy(staged.staging[slot].mapped, pinned, staged.staging[slot].size);
            pinned += staged.staging[slot].size;
        }
        for (size_t b = 0; b < privateBuffers_.size(); ++b) {
            std::memcpy(outputs_.buffers[b][slot].mapped, pinned, layout_.buffers[b].bytes);
            pinned += layout_.buffers[b].bytes;
        }
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start_, end_));
        simMs_[slot] = double(ms);
        publishSlot(frame, slot);
        // The "steps" span ends when the host's wait for the CUDA work and its download does.
        recordSpans(slot, hostUs(start), hostUs(downloaded),
                    hostUs(std::chrono::steady_clock::now()));
    }

    void brush(const sim::Brush& brush, const sim::ParamValues& params) override {
        sim_->brush(brush, params, stream_);
    }
    void reset(uint64_t seed) override { sim_->reset(seed, stream_); }
    void finish(uint64_t timeoutNs) override { waitForStream(timeoutNs); }
    bool simulationSettled(uint64_t timeoutNs) override {
        return interop::cudaStreamSettled(stream_, timeoutNs);
    }

  private:
    void waitForStream(uint64_t timeoutNs) {
        interop::finishCudaStream(stream_, timeoutNs, "the CUDA stream of the host-copy backend");
    }

    cudaStream_t stream_ = nullptr;
    std::unique_ptr<sim::CudaSimulation> sim_;
    std::vector<sim::DeviceImage> privateImages_;
    std::vector<void*> privateBuffers_;
    struct {
        std::vector<sim::DeviceImageTarget> images;
        std::vector<void*> buffers;
    } targets_;
    void* pinned_ = nullptr;
    cudaEvent_t start_ = nullptr, end_ = nullptr;
};

} // namespace

std::unique_ptr<SimBackend> createHostCopyBackend(const Device& device,
                                                  const interop::Context& context,
                                                  const BackendConfig& config, int cudaDevice) {
    return std::make_unique<HostCopyBackend>(device, context, config, cudaDevice);
}

} // namespace estuary
