// A simulation's outputs as plain (non-exported) Vulkan resources filled from host memory: per
// slot, each output image with a persistently mapped staging buffer holding its whole mip chain,
// and each output buffer as host-visible memory. Backends whose outputs are produced on the host
// (the CPU reference, the host-copy benchmark mode) write the mapped memory and let the draw
// submission copy the images — no extra submission, no extra wait.
#pragma once

#include "resources.h"
#include "sim_backend.h"
#include "simulation.h"

#include <array>
#include <vector>

namespace estuary {

struct StagedImage : MoveOnly {
    sim::ImageOutput output;
    std::vector<VkBufferImageCopy> regions; // one per level, into the staging buffer
    std::vector<GpuImage> images;           // one per slot
    std::vector<GpuBuffer> staging;         // one per slot
    std::vector<SharedImage> shared;        // per slot, when the images are exported
};

// Where a slot's host writes go, as the simulation's HostTargets (built once, no per-frame
// allocation): the staging levels of every image and the mapped buffers. `images` spans point
// into `levelPointers`: move-only, so no copy can point into another's storage.
struct StagedSlotTargets : MoveOnly {
    std::vector<std::vector<void*>> levelPointers;
    std::vector<sim::HostImageTarget> images;
    std::vector<void*> buffers;
    sim::HostTargets targets() const { return {images, buffers}; }
};

// Owns its Vulkan images and buffers: move-only.
struct StagedOutputs : MoveOnly {
    std::vector<StagedImage> images;
    std::vector<std::vector<GpuBuffer>> buffers; // [output buffer][slot], host-visible and coherent
    std::vector<StagedSlotTargets> slots;
};

// `exportedWith`: the images' memory is exportable as opaque fds (for the OpenGL consumer), made by
// interop through this Context of the same device, which needs VK_KHR_external_memory_fd.
StagedOutputs createStagedOutputs(const Device& device, const sim::OutputLayout& layout,
                                  uint32_t slots, const interop::Context* exportedWith = nullptr);
void destroyStagedOutputs(const Device& device, StagedOutputs& outputs);
// Copies the slot's staging buffers into its images and leaves them SHADER_READ_ONLY for the
// shaders. Host writes to the (coherent) staging memory before vkQueueSubmit are visible to it.
void recordStagedUpload(VkCommandBuffer cmd, const StagedOutputs& outputs, uint32_t slot);
// The texel at (x, y) of level 0 of `image` in `slot`'s staging memory.
void* stagedTexel(const StagedOutputs& outputs, uint32_t image, uint32_t slot, uint32_t x,
                  uint32_t y);

// What the backends whose outputs reach Vulkan through staging memory (CPU, host-copy) share: the
// outputs, made by the constructor and freed by the destructor (also when a derived constructor
// throws), no semaphore between the APIs, the upload recorded before each draw, the simulation
// time and host-clock spans per slot and the probed cell. A derived backend fills the slot's
// staging memory in simulate(), records its time in simMs_ and its spans with recordSpans(), and
// calls publishSlot().
class StagedBackend : public SimBackend {
  public:
    ~StagedBackend() override { destroyStagedOutputs(device_, outputs_); }

    uint32_t slotCount() const override { return uint32_t(outputs_.slots.size()); }
    const GpuImage& outputImage(uint32_t slot, uint32_t index) const override {
        return outputs_.images[index].images[slot];
    }
    uint32_t displayIndex() const override { return display_; }
    void setDisplayIndex(uint32_t index) override {
        display_ = index;
        probe_ = {};
    }
    const GpuBuffer& outputBuffer(uint32_t slot, uint32_t index) const override {
        return outputs_.buffers[index][slot];
    }
    void recordBeforeDraw(VkCommandBuffer cmd, uint64_t frame) override {
        recordStagedUpload(cmd, outputs_, slotOf(frame));
    }
    void recordAfterDraw(VkCommandBuffer, uint64_t) override {}
    std::optional<VkSemaphoreSubmitInfo> drawWait(uint64_t) const override { return std::nullopt; }
    std::optional<VkSemaphoreSubmitInfo> drawSignal(uint64_t) const override {
        return std::nullopt;
    }
    std::optional<SharedImage> sharedImage(uint32_t slot, uint32_t index) const override {
        const StagedImage& image = outputs_.images[index];
        if (image.shared.empty()) return std::nullopt;
        return image.shared[slot];
    }
    // Known once simulate() returned. No GPU queue waits on the other API here: a host wait (the
    // host-copy backend's) shows in the Vulkan queue's idle gap that the frame loop measures.
    // The spans are on the host clock, as the host lived them (recordSpans).
    SlotTimes finishedFrameTimes(uint64_t frame) override {
        SlotTimes t;
        const uint32_t slot = slotOf(frame);
        t.simMs = simMs_[slot];
        const std::array<double, 3>& span = spans_[slot];
        t.startUs = span[0];
        t.stepsEndUs = t.writeStartUs = span[1];
        t.endUs = span[2];
        return t;
    }
    void requestProbe(int x, int y) override {
        probe_.request(x, y, layout_.images[display_].width, layout_.images[display_].height);
    }
    std::optional<ProbeValue> probeValue() const override { return probe_.value; }

  protected:
    StagedBackend(const Device& device, const interop::Context& context,
                  const BackendConfig& config);

    uint32_t slotOf(uint64_t frame) const { return uint32_t(frame % slotCount()); }
    // Once the slot's staging memory holds `frame`: its stamp (stampFrameIndex) and the probed
    // cell's value.
    void publishSlot(uint64_t frame, uint32_t slot);
    // The slot's simulation as host-clock spans (µs): from `start` its steps (for host-copy: the
    // CUDA work and the host's wait for its download) until `stepsEnd`, then the output write
    // until `end`.
    void recordSpans(uint32_t slot, double start, double stepsEnd, double end) {
        spans_[slot] = {start, stepsEnd, end};
    }

    const Device& device_;
    sim::OutputLayout layout_;
    StagedOutputs outputs_;
    uint32_t display_ = 0;
    bool stampFrames_ = false;
    std::vector<double> simMs_;                // per slot
    std::vector<std::array<double, 3>> spans_; // per slot (recordSpans)
    CellProbe probe_;
};

} // namespace estuary
