// CUDA backend: the simulation runs in CUDA and writes every frame straight into a ring of images
// that Vulkan allocated and exported. Two exported timeline semaphores, one signaller each:
//   sim timeline    — CUDA signals f + 1 once frame f's field and mips are written;
//   render timeline — Vulkan signals f + 1 once frame f is drawn and its image released.
// CUDA writes slot s for frame f only after Vulkan finished frame f - slots (GPU-side wait), and
// Vulkan draws frame f only after CUDA signalled it; the host never waits on either here.
#include "sim_backend.h"
#include "cuda_check.h"
#include "cuda_gray_scott.h"
#include "cuda_import.h"
#include "error.h"

#include <vector>

namespace estuary {
namespace {

using namespace interop;

class CudaBackend final : public SimBackend {
  public:
    CudaBackend(const Device& device, VkCommandPool pool, const BackendConfig& config,
                int cudaDevice)
        : device_(device), stampFrames_(config.stampFrameIndex) {
        // A constructor that throws runs no destructor: release what was made so far.
        try {
            CUDA_CHECK(cudaSetDevice(cudaDevice));
            CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
            sim_ = std::make_unique<sim::CudaGrayScott>(
                int(config.grid.width), int(config.grid.height), config.seed, stream_);
            for (uint32_t slot = 0; slot < config.slots; ++slot) {
                const std::string name = "shared field slot " + std::to_string(slot);
                ExportedImageDesc desc;
                desc.format = VK_FORMAT_R32_SFLOAT;
                desc.extent = {config.grid.width, config.grid.height};
                desc.name = name.c_str();
                images_.push_back(createExportedImage(device, desc));
                cudaImages_.push_back(importImage(device, images_.back()));
            }
            // Per-frame bookkeeping lives in the command ring, which is longer than the image ring.
            ring_ = std::min(2 * config.slots, 16u);
            events_.resize(ring_);
            for (auto& e : events_)
                for (cudaEvent_t* ev : {&e.start, &e.beforeWait, &e.afterWait, &e.end})
                    CUDA_CHECK(cudaEventCreate(ev));
            CUDA_CHECK(
                cudaMallocHost(reinterpret_cast<void**>(&probeHost_), ring_ * sizeof(float)));
            CUDA_CHECK(
                cudaMallocHost(reinterpret_cast<void**>(&stampHost_), ring_ * sizeof(float)));
            simTimeline_ = createSharedTimeline(device, "sim timeline (CUDA signals)");
            renderTimeline_ = createSharedTimeline(device, "render timeline (Vulkan signals)");
            // Hand every image to CUDA once: GENERAL layout, owned by VK_QUEUE_FAMILY_EXTERNAL.
            submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
                for (const auto& image : images_)
                    recordReleaseToExternal(cmd, device, image, VK_IMAGE_LAYOUT_UNDEFINED,
                                            VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
            });
        } catch (...) {
            release();
            throw;
        }
    }

    ~CudaBackend() override { release(); }

    // Stream sync → surfaces → mipmapped arrays → external memory and semaphores → Vulkan. Safe on
    // a partly constructed backend: every step skips what does not exist.
    void release() {
        if (stream_) (void)cudaStreamSynchronize(stream_);
        for (auto& image : cudaImages_)
            destroyCudaImage(image);
        sim_.reset();
        for (auto& e : events_)
            for (cudaEvent_t ev : {e.start, e.beforeWait, e.afterWait, e.end})
                if (ev) (void)cudaEventDestroy(ev);
        events_.clear();
        (void)cudaFreeHost(probeHost_);
        (void)cudaFreeHost(stampHost_);
        probeHost_ = stampHost_ = nullptr;
        destroySharedTimeline(device_, simTimeline_);
        destroySharedTimeline(device_, renderTimeline_);
        for (auto& image : images_)
            destroyExportedImage(device_, image);
        images_.clear();
        cudaImages_.clear();
        if (stream_) (void)cudaStreamDestroy(stream_);
        stream_ = nullptr;
    }

    const char* name() const override { return "cuda"; }
    uint32_t slotCount() const override { return uint32_t(images_.size()); }
    uint32_t hostRingSize() const override { return ring_; }
    const Image& fieldImage(uint32_t slot) const override { return images_[slot].image; }
    VkSemaphore drawnTimeline() const override { return renderTimeline_.semaphore; }

    void simulate(uint64_t frame, const sim::GrayScottParams& params) override {
        if (!firstFrame_) firstFrame_ = frame;
        const uint32_t slot = uint32_t(frame % images_.size());
        const uint32_t entry = uint32_t(frame % ring_);
        SlotEvents& ev = events_[entry];
        // The state lives in CUDA memory, so stepping need not wait for Vulkan; only writing the
        // slot's image must wait until Vulkan has drawn and released it (frame - slots).
        CUDA_CHECK(cudaEventRecord(ev.start, stream_));
        sim_->step(params, params.stepsPerFrame);
        CUDA_CHECK(cudaEventRecord(ev.beforeWait, stream_));
        if (frame >= *firstFrame_ + images_.size())
            cudaWaitTimeline(renderTimeline_, frame + 1 - images_.size(), stream_);
        CUDA_CHECK(cudaEventRecord(ev.afterWait, stream_));
        const CudaImage& target = cudaImages_[slot];
        sim_->writeField(target.surfaces.data(), int(target.surfaces.size()));
        if (stampFrames_) {
            // This entry's previous copy (frame - ring) finished before that frame was drawn, and
            // the host waited for that, so rewriting the pinned source now is safe.
            stampHost_[entry] = float(frame);
            CUDA_CHECK(cudaMemcpy2DToArrayAsync(target.levels[0], 0, 0, stampHost_ + entry,
                                                sizeof(float), sizeof(float), 1,
                                                cudaMemcpyHostToDevice, stream_));
        }
        if (probe_.active())
            CUDA_CHECK(cudaMemcpyAsync(probeHost_ + entry,
                                       sim_->deviceV() + probe_.index(sim_->width()), sizeof(float),
                                       cudaMemcpyDeviceToHost, stream_));
        probeValid_[entry] = probe_.active();
        CUDA_CHECK(cudaEventRecord(ev.end, stream_));
        ev.used = true;
        cudaSignalTimeline(simTimeline_, frame + 1, stream_);
    }

    SlotTimes finishedFrameTimes(uint64_t frame) override {
        SlotTimes t;
        const uint32_t entry = uint32_t(frame % ring_);
        SlotEvents& ev = events_[entry];
        // Vulkan drew the slot's last frame, and it waited for the signal enqueued after ev.end,
        // so these queries do not block.
        if (!ev.used || cudaEventQuery(ev.end) != cudaSuccess) return t;
        float step = 0, wait = 0, write = 0;
        CUDA_CHECK(cudaEventElapsedTime(&step, ev.start, ev.beforeWait));
        CUDA_CHECK(cudaEventElapsedTime(&wait, ev.beforeWait, ev.afterWait));
        CUDA_CHECK(cudaEventElapsedTime(&write, ev.afterWait, ev.end));
        t.simMs = double(step) + double(write);
        t.waitMs = double(wait);
        if (probeValid_[entry]) probe_.value = probeHost_[entry];
        return t;
    }

    void requestProbe(int x, int y) override {
        probe_.request(x, y, sim_->width(), sim_->height());
    }
    std::optional<float> probeValue() const override { return probe_.value; }

    void recordBeforeDraw(VkCommandBuffer cmd, uint64_t frame) override {
        recordAcquireFromExternal(
            cmd, device_, images_[frame % images_.size()], VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
            VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    }

    void recordAfterDraw(VkCommandBuffer cmd, uint64_t frame) override {
        recordReleaseToExternal(cmd, device_, images_[frame % images_.size()],
                                VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT, VK_ACCESS_2_NONE);
    }

    std::optional<VkSemaphoreSubmitInfo> drawWait(uint64_t frame) const override {
        VkSemaphoreSubmitInfo wait{VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO};
        wait.semaphore = simTimeline_.semaphore;
        wait.value = frame + 1;
        wait.stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT;
        return wait;
    }

    void paint(const sim::Brush& brush) override { sim_->paint(brush); }
    void reset(uint64_t seed) override { sim_->reset(seed); }
    void finish() override { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  private:
    const Device& device_;
    cudaStream_t stream_ = nullptr;
    std::unique_ptr<sim::CudaGrayScott> sim_;
    std::vector<ExportedImage> images_;
    std::vector<CudaImage> cudaImages_;
    SharedTimeline simTimeline_;
    SharedTimeline renderTimeline_;
    struct SlotEvents {
        cudaEvent_t start = nullptr, beforeWait = nullptr, afterWait = nullptr, end = nullptr;
        bool used = false;
    };
    std::vector<SlotEvents> events_;
    std::optional<uint64_t> firstFrame_; // a recreated backend starts mid-run
    float* probeHost_ = nullptr;         // pinned, one value per ring entry
    bool stampFrames_ = false;
    float* stampHost_ = nullptr; // pinned, one value per slot
    uint32_t ring_ = 1;
    bool probeValid_[16] = {};
    CellProbe probe_;
};

} // namespace

std::unique_ptr<SimBackend> createCudaBackend(const Device& device, VkCommandPool pool,
                                              const BackendConfig& config, int cudaDevice) {
    return std::make_unique<CudaBackend>(device, pool, config, cudaDevice);
}

} // namespace estuary
