// The CUDA backend's frame replayed as a CUDA graph. What one frame enqueues on the simulation's
// stream (timing events, the steps, the GPU-side wait for Vulkan's release of the slot, the output
// writes, the signal of the written timeline) is captured once per host-ring entry, whose events
// it records, and replayed with one launch; only the two semaphore values are set per frame.
// Enqueued call by call, a frame costs about ten stream calls of host time; replayed, three
// (docs/PERFORMANCE.md has the measured host time). The owner decides whether a capture still
// holds (FrameGraphKey: the slot, the simulation's replay state, its parameters and steps); this
// only captures, finds the semaphore nodes and launches. CUDA builds only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace estuary {

// What a captured frame's work depends on besides its semaphore values: the output slot (its
// surfaces), the simulation's replay state (sim::CudaSimulation::replayState), its parameters and
// steps.
struct FrameGraphKey {
    uint32_t slot = 0;
    uint64_t simState = 0;
    std::vector<float> params;
    int steps = 0;
};

class FrameGraphs {
  public:
    explicit FrameGraphs(uint32_t entries = 0) : entries_(entries) {}
    ~FrameGraphs() { clear(); } // the stream that launched them must be finished
    FrameGraphs(const FrameGraphs&) = delete;
    FrameGraphs& operator=(const FrameGraphs&) = delete;

    // Whether `entry` holds a graph captured for this slot, state, parameters and steps. Compares
    // in place: called every frame, it allocates nothing.
    bool holds(uint32_t entry, uint32_t slot, uint64_t simState, std::span<const float> params,
               int steps) const;
    // Captures what `enqueue` puts on `stream` as entry's graph (nothing runs), replacing the one
    // it held. The work must contain exactly one external-semaphore wait and one signal, each of
    // one semaphore. Throws (having ended the capture) when `enqueue` throws or CUDA refuses.
    void capture(uint32_t entry, FrameGraphKey key, cudaStream_t stream,
                 const std::function<void()>& enqueue);
    // Enqueues entry's graph, waiting for `waitValue` and signalling `signalValue`.
    void launch(uint32_t entry, uint64_t waitValue, uint64_t signalValue, cudaStream_t stream);
    // Drops entry's graph (launches already enqueued still run).
    void forget(uint32_t entry);
    void clear();

  private:
    struct Entry {
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        cudaGraphNode_t waitNode = nullptr, signalNode = nullptr;
        cudaExternalSemaphore_t waitSemaphore = nullptr, signalSemaphore = nullptr;
        FrameGraphKey key;
    };
    std::vector<Entry> entries_;
};

} // namespace estuary
