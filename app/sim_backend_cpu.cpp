// CPU backend: the same Gray-Scott stencil on the host; each frame's field and its mip chain are
// written into the slot's persistently mapped staging buffer and copied into the slot's image by
// the draw submission itself, so no extra submission or wait is needed.
#include "sim_backend.h"
#include "cpu_gray_scott.h"
#include "error.h"

#include <chrono>
#include <vector>

namespace estuary {
namespace {

class CpuBackend final : public SimBackend {
  public:
    CpuBackend(const Device& device, const BackendConfig& config)
        : device_(device), sim_(int(config.grid.width), int(config.grid.height), config.seed) {
        const VkExtent2D extent{config.grid.width, config.grid.height};
        levels_ = fullMipCount(extent.width, extent.height);
        VkDeviceSize offset = 0;
        for (uint32_t level = 0; level < levels_; ++level) {
            const VkExtent2D e = mipExtent(extent, level);
            VkBufferImageCopy region{};
            region.bufferOffset = offset;
            region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, level, 0, 1};
            region.imageExtent = {e.width, e.height, 1};
            regions_.push_back(region);
            offset += VkDeviceSize(e.width) * e.height * sizeof(float);
        }
        for (uint32_t slot = 0; slot < config.slots; ++slot) {
            const std::string name = "field slot " + std::to_string(slot);
            images_.push_back(createImage2D(device, extent, VK_FORMAT_R32_SFLOAT, levels_,
                                            VK_IMAGE_USAGE_SAMPLED_BIT |
                                                VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                                VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                            name.c_str()));
            staging_.push_back(createBuffer(device, offset, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                            VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                                            (name + " staging").c_str()));
        }
    }

    ~CpuBackend() override {
        for (auto& image : images_)
            destroyImage(device_, image);
        for (auto& buffer : staging_)
            destroyBuffer(device_, buffer);
    }

    const char* name() const override { return "cpu"; }
    uint32_t slotCount() const override { return uint32_t(images_.size()); }
    const Image& fieldImage(uint32_t slot) const override { return images_[slot]; }
    VkSemaphore drawnTimeline() const override { return VK_NULL_HANDLE; }

    void simulate(uint64_t frame, const sim::GrayScottParams& params) override {
        const auto start = std::chrono::steady_clock::now();
        sim_.step(params, params.stepsPerFrame);
        if (probeX_ >= 0)
            probe_ = sim_.v()[size_t(probeY_) * size_t(sim_.width()) + size_t(probeX_)];
        const Buffer& staging = staging_[frame % images_.size()];
        std::vector<float*> levelPointers;
        for (const auto& region : regions_)
            levelPointers.push_back(reinterpret_cast<float*>(static_cast<uint8_t*>(staging.mapped) +
                                                             region.bufferOffset));
        // Host-coherent memory written before vkQueueSubmit is visible to the submission.
        sim::writeFieldMipChain(sim_.v().data(), sim_.width(), sim_.height(), int(levels_),
                                levelPointers.data());
        simMs_[frame % images_.size()] =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
    }

    SlotTimes finishedSlotTimes(uint32_t slot) override {
        SlotTimes t;
        t.simMs = simMs_[slot]; // host time: known as soon as simulate() returned
        return t;
    }

    void requestProbe(int x, int y) override {
        const bool inside = x >= 0 && y >= 0 && x < sim_.width() && y < sim_.height();
        probeX_ = inside ? x : -1;
        probeY_ = inside ? y : -1;
        if (!inside) probe_.reset();
    }
    std::optional<float> probeValue() const override { return probe_; }

    void recordBeforeDraw(VkCommandBuffer cmd, uint64_t frame) override {
        const uint32_t slot = uint32_t(frame % images_.size());
        // Every level is overwritten, so the old contents are discarded (UNDEFINED); the source
        // stage orders this after the previous draw that sampled the image.
        ImageTransition toCopy;
        toCopy.oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;
        toCopy.newLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        toCopy.srcStage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
        toCopy.dstStage = VK_PIPELINE_STAGE_2_COPY_BIT;
        toCopy.dstAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
        recordImageBarrier(cmd, images_[slot].handle, toCopy);
        vkCmdCopyBufferToImage(cmd, staging_[slot].handle, images_[slot].handle,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, uint32_t(regions_.size()),
                               regions_.data());
        ImageTransition toSample;
        toSample.oldLayout = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
        toSample.newLayout = VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL;
        toSample.srcStage = VK_PIPELINE_STAGE_2_COPY_BIT;
        toSample.srcAccess = VK_ACCESS_2_TRANSFER_WRITE_BIT;
        toSample.dstStage = VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT;
        toSample.dstAccess = VK_ACCESS_2_SHADER_SAMPLED_READ_BIT;
        recordImageBarrier(cmd, images_[slot].handle, toSample);
    }

    void recordAfterDraw(VkCommandBuffer, uint64_t) override {}
    std::optional<VkSemaphoreSubmitInfo> drawWait(uint64_t) const override { return std::nullopt; }
    void paint(const sim::Brush& brush) override { sim_.paint(brush); }
    void reset(uint64_t seed) override { sim_.reset(seed); }
    void finish() override {}

  private:
    const Device& device_;
    sim::CpuGrayScott sim_;
    uint32_t levels_ = 1;
    std::vector<VkBufferImageCopy> regions_;
    std::vector<Image> images_;
    std::vector<Buffer> staging_;
    std::vector<double> simMs_ = std::vector<double>(8, kNotMeasured);
    int probeX_ = -1, probeY_ = -1;
    std::optional<float> probe_;
};

} // namespace

std::unique_ptr<SimBackend> createCpuBackend(const Device& device, VkCommandPool,
                                             const BackendConfig& config) {
    return std::make_unique<CpuBackend>(device, config);
}

} // namespace estuary
