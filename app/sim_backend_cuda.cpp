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
        : device_(device) {
        CUDA_CHECK(cudaSetDevice(cudaDevice));
        CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        sim_ = std::make_unique<sim::CudaGrayScott>(int(config.grid.width), int(config.grid.height),
                                                    config.seed, stream_);
        for (uint32_t slot = 0; slot < config.slots; ++slot) {
            const std::string name = "shared field slot " + std::to_string(slot);
            ExportedImageDesc desc;
            desc.format = VK_FORMAT_R32_SFLOAT;
            desc.extent = {config.grid.width, config.grid.height};
            desc.name = name.c_str();
            images_.push_back(createExportedImage(device, desc));
            cudaImages_.push_back(importImage(device, images_.back()));
        }
        simTimeline_ = createSharedTimeline(device, "sim timeline (CUDA signals)");
        renderTimeline_ = createSharedTimeline(device, "render timeline (Vulkan signals)");
        // Hand every image to CUDA once: GENERAL layout, owned by VK_QUEUE_FAMILY_EXTERNAL.
        submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
            for (const auto& image : images_)
                recordReleaseToExternal(cmd, device, image, VK_IMAGE_LAYOUT_UNDEFINED,
                                        VK_PIPELINE_STAGE_2_NONE, VK_ACCESS_2_NONE);
        });
    }

    ~CudaBackend() override {
        // Stream sync → surfaces → mipmapped arrays → external memory and semaphores → Vulkan.
        (void)cudaStreamSynchronize(stream_);
        for (auto& image : cudaImages_)
            destroyCudaImage(image);
        sim_.reset();
        destroySharedTimeline(device_, simTimeline_);
        destroySharedTimeline(device_, renderTimeline_);
        for (auto& image : images_)
            destroyExportedImage(device_, image);
        (void)cudaStreamDestroy(stream_);
    }

    const char* name() const override { return "cuda"; }
    uint32_t slotCount() const override { return uint32_t(images_.size()); }
    const Image& fieldImage(uint32_t slot) const override { return images_[slot].image; }
    VkSemaphore drawnTimeline() const override { return renderTimeline_.semaphore; }

    void simulate(uint64_t frame, const sim::GrayScottParams& params) override {
        const uint32_t slot = uint32_t(frame % images_.size());
        // The state lives in CUDA memory, so stepping need not wait for Vulkan; only writing the
        // slot's image must wait until Vulkan has drawn and released it (frame - slots).
        sim_->step(params, params.stepsPerFrame);
        if (frame >= images_.size())
            cudaWaitTimeline(renderTimeline_, frame + 1 - images_.size(), stream_);
        const CudaImage& target = cudaImages_[slot];
        sim_->writeField(target.surfaces.data(), int(target.surfaces.size()));
        cudaSignalTimeline(simTimeline_, frame + 1, stream_);
    }

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
};

} // namespace

std::unique_ptr<SimBackend> createCudaBackend(const Device& device, VkCommandPool pool,
                                              const BackendConfig& config, int cudaDevice) {
    return std::make_unique<CudaBackend>(device, pool, config, cudaDevice);
}

} // namespace estuary
