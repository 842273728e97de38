// Host-copy backend (benchmark reference, no interop): the CUDA simulation writes its field and mip
// chain into a private CUDA mipmapped array, copies every level to pinned host memory, waits for
// the copy on the host, and hands the bytes to Vulkan through the staging-buffer upload the CPU
// backend uses. Same simulation kernels, same renderer — only the path between them differs.
#include "sim_backend.h"
#include "cuda_check.h"
#include "cuda_gray_scott.h"
#include "staged_field.h"

#include <cstring>
#include <vector>

namespace estuary {
namespace {

class HostCopyBackend final : public SimBackend {
  public:
    HostCopyBackend(const Device& device, const BackendConfig& config, int cudaDevice)
        : device_(device), field_(createStagedField(device, config.grid, config.slots)),
          simMs_(config.slots, kNotMeasured) {
        try { // a throwing constructor runs no destructor: release what was made so far
            CUDA_CHECK(cudaSetDevice(cudaDevice));
            CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
            sim_ = std::make_unique<sim::CudaGrayScott>(
                int(config.grid.width), int(config.grid.height), config.seed, stream_);
            const cudaChannelFormatDesc format{32, 0, 0, 0, cudaChannelFormatKindFloat};
            const cudaExtent extent{config.grid.width, config.grid.height, 0};
            CUDA_CHECK(cudaMallocMipmappedArray(&mipmapped_, &format, extent, field_.levels,
                                                cudaArraySurfaceLoadStore));
            for (uint32_t level = 0; level < field_.levels; ++level) {
                cudaArray_t array = nullptr;
                CUDA_CHECK(cudaGetMipmappedArrayLevel(&array, mipmapped_, level));
                levels_.push_back(array);
                cudaResourceDesc res{};
                res.resType = cudaResourceTypeArray;
                res.res.array.array = array;
                cudaSurfaceObject_t surface = 0;
                CUDA_CHECK(cudaCreateSurfaceObject(&surface, &res));
                surfaces_.push_back(surface);
            }
            CUDA_CHECK(cudaMallocHost(&pinned_, field_.staging[0].size));
            for (cudaEvent_t* ev : {&start_, &end_})
                CUDA_CHECK(cudaEventCreate(ev));
        } catch (...) {
            release();
            throw;
        }
    }

    ~HostCopyBackend() override { release(); }

    // Safe on a partly constructed backend: every step skips what does not exist.
    void release() {
        if (stream_) (void)cudaStreamSynchronize(stream_);
        for (cudaSurfaceObject_t s : surfaces_)
            (void)cudaDestroySurfaceObject(s);
        surfaces_.clear();
        if (mipmapped_) (void)cudaFreeMipmappedArray(mipmapped_);
        (void)cudaFreeHost(pinned_);
        if (start_) (void)cudaEventDestroy(start_);
        if (end_) (void)cudaEventDestroy(end_);
        sim_.reset();
        if (stream_) (void)cudaStreamDestroy(stream_);
        mipmapped_ = nullptr;
        pinned_ = nullptr;
        start_ = end_ = nullptr;
        stream_ = nullptr;
        destroyStagedField(device_, field_);
    }

    const char* name() const override { return "host-copy"; }
    uint32_t slotCount() const override { return uint32_t(field_.images.size()); }
    const Image& fieldImage(uint32_t slot) const override { return field_.images[slot]; }
    VkSemaphore drawnTimeline() const override { return VK_NULL_HANDLE; }

    void simulate(uint64_t frame, const sim::GrayScottParams& params) override {
        const uint32_t slot = uint32_t(frame % field_.images.size());
        CUDA_CHECK(cudaEventRecord(start_, stream_));
        sim_->step(params, params.stepsPerFrame);
        sim_->writeField(surfaces_.data(), int(surfaces_.size()));
        CUDA_CHECK(cudaEventRecord(end_, stream_));
        for (uint32_t level = 0; level < field_.levels; ++level) {
            const VkExtent3D e = field_.regions[level].imageExtent;
            const size_t rowBytes = e.width * sizeof(float);
            CUDA_CHECK(cudaMemcpy2DFromArrayAsync(
                static_cast<uint8_t*>(pinned_) + field_.regions[level].bufferOffset, rowBytes,
                levels_[level], 0, 0, rowBytes, e.height, cudaMemcpyDeviceToHost, stream_));
        }
        if (probe_.active())
            CUDA_CHECK(cudaMemcpyAsync(&probeHost_, sim_->deviceV() + probe_.index(sim_->width()),
                                       sizeof(float), cudaMemcpyDeviceToHost, stream_));
        // Without interop the host must wait for the data before Vulkan can have it.
        CUDA_CHECK(cudaStreamSynchronize(stream_));
        std::memcpy(field_.staging[slot].mapped, pinned_, field_.staging[slot].size);
        float ms = 0;
        CUDA_CHECK(cudaEventElapsedTime(&ms, start_, end_));
        simMs_[slot] = double(ms);
        if (probe_.active()) probe_.value = probeHost_;
    }

    void recordBeforeDraw(VkCommandBuffer cmd, uint64_t frame) override {
        recordStagedUpload(cmd, field_, uint32_t(frame % field_.images.size()));
    }
    void recordAfterDraw(VkCommandBuffer, uint64_t) override {}
    std::optional<VkSemaphoreSubmitInfo> drawWait(uint64_t) const override { return std::nullopt; }

    SlotTimes finishedFrameTimes(uint64_t frame) override {
        const size_t slot = frame % simMs_.size();
        SlotTimes t;
        t.simMs = simMs_[slot];
        // No GPU queue waits on the other API here: the host's wait for the copy shows once, in the
        // Vulkan queue's idle gap that the frame loop measures.
        return t;
    }

    void requestProbe(int x, int y) override {
        probe_.request(x, y, sim_->width(), sim_->height());
    }
    std::optional<float> probeValue() const override { return probe_.value; }
    void paint(const sim::Brush& brush) override { sim_->paint(brush); }
    void reset(uint64_t seed) override { sim_->reset(seed); }
    void finish() override { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  private:
    const Device& device_;
    StagedField field_;
    std::vector<double> simMs_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<sim::CudaGrayScott> sim_;
    cudaMipmappedArray_t mipmapped_ = nullptr;
    std::vector<cudaArray_t> levels_;
    std::vector<cudaSurfaceObject_t> surfaces_;
    void* pinned_ = nullptr;
    cudaEvent_t start_ = nullptr, end_ = nullptr;
    CellProbe probe_;
    float probeHost_ = 0;
};

} // namespace

std::unique_ptr<SimBackend> createHostCopyBackend(const Device& device, const BackendConfig& config,
                                                  int cudaDevice) {
    return std::make_unique<HostCopyBackend>(device, config, cudaDevice);
}

} // namespace estuary
