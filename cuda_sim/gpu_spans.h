// Spans of work on several GPUs' streams, timed with CUDA events and put on the host's
// steady_clock (GpuSpan, slabs.h): the split run's --trace. Every call in the frame loop only
// records events or queries them; the one host wait is align(), which brackets an event on each
// GPU's idle stream by the host clock (several tries, the tightest kept) once, before tracing.
// Events come from a fixed pool per GPU; a span that finds none free is counted, not kept. Runtime
// API only; the caller sets the GPU current around each call that names one.
#pragma once

#include "slabs.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <deque>
#include <vector>

namespace estuary::sim {

class GpuSpanRecorder {
  public:
    GpuSpanRecorder() = default;
    ~GpuSpanRecorder() { release(); }
    GpuSpanRecorder(const GpuSpanRecorder&) = delete;
    GpuSpanRecorder& operator=(const GpuSpanRecorder&) = delete;

    // Events for `devices` (CUDA ordinals), each GPU's clock aligned on its `streams` entry
    // (finished first: a host wait, before any traced frame).
    void start(const std::vector<int>& devices, const std::vector<cudaStream_t>& streams);
    bool on() const { return !devices_.empty(); }

    // A span's first event on `stream` of GPU `gpu` (current): nullptr when off or none is free.
    cudaEvent_t begin(size_t gpu, cudaStream_t stream);
    // Its end on the same stream; a nullptr `first` records nothing.
    void end(size_t gpu, bool copyStream, const char* name, uint64_t frame, cudaEvent_t first,
             cudaStream_t stream);
    // The completed spans, in the order begun; never waits.
    std::vector<GpuSpan> take();
    size_t dropped() const { return dropped_; }
    void release();

  private:
    struct Pending {
        GpuSpan span;
        cudaEvent_t first = nullptr, last = nullptr;
    };
    static constexpr size_t kEventsPerGpu = 2048;

    std::vector<int> devices_;
    std::vector<cudaEvent_t> reference_;         // per GPU: recorded at referenceUs_
    std::vector<double> referenceUs_;            // host steady_clock µs
    std::vector<std::vector<cudaEvent_t>> free_; // per GPU
    std::vector<std::vector<cudaEvent_t>> all_;  // per GPU, to destroy
    std::deque<Pending> pending_;
    size_t dropped_ = 0;
};

} // namespace estuary::sim
