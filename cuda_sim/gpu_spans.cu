// GpuSpanRecorder (gpu_spans.h).
#ifdef __CUDACC__
#include "gpu_spans.h"
#include "cuda_check.h"
#include "cuda_device_scope.h"

#include <cuda_runtime.h>

#include <chrono>

namespace estuary::sim {
namespace {

double hostUsNow() {
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

void GpuSpanRecorder::start(const std::vector<int>& devices,
                            const std::vector<cudaStream_t>& streams) {
    release();
    try {
        for (size_t g = 0; g < devices.size(); ++g) {
            DeviceScope scope(devices[g]);
            devices_.push_back(devices[g]);
            all_.emplace_back();
            free_.emplace_back();
            for (size_t i = 0; i < kEventsPerGpu; ++i) {
                cudaEvent_t e = nullptr;
                CUDA_CHECK(cudaEventCreate(&e));
                all_.back().push_back(e);
            }
            free_.back() = all_.back();
            cudaEvent_t reference = nullptr;
            CUDA_CHECK(cudaEventCreate(&reference));
            reference_.push_back(reference);
            CUDA_CHECK(cudaStreamSynchronize(streams[g]));
            // The event's time lies between the two host readings: a bracket of a few µs bounds
            // the error by half its width. The last try's event is the one kept.
            double at = 0;
            for (int i = 0; i < 8; ++i) {
                const double before = hostUsNow();
                CUDA_CHECK(cudaEventRecord(reference, streams[g]));
                CUDA_CHECK(cudaEventSynchronize(reference));
                const double after = hostUsNow();
                at = before + (after - before) / 2;
                if (after - before < 20) break;
            }
            referenceUs_.push_back(at);
        }
    } catch (...) {
        release();
        throw;
    }
}

cudaEvent_t GpuSpanRecorder::begin(size_t gpu, cudaStream_t stream) {
    if (!on()) return nullptr;
    if (free_[gpu].size() < 2) {
        ++dropped_;
        return nullptr;
    }
    cudaEvent_t first = free_[gpu].back();
    free_[gpu].pop_back();
    CUDA_CHECK(cudaEventRecord(first, stream));
    return first;
}

void GpuSpanRecorder::end(size_t gpu, bool copyStream, const char* name, uint64_t frame,
                          cudaEvent_t first, cudaStream_t stream) {
    if (!first) return;
    cudaEvent_t last = free_[gpu].back();
    free_[gpu].pop_back();
    CUDA_CHECK(cudaEventRecord(last, stream));
    Pending p;
    p.span.gpu = uint32_t(gpu);
    p.span.copyStream = copyStream;
    p.span.name = name;
    p.span.frame = frame;
    p.first = first;
    p.last = last;
    pending_.push_back(p);
}

std::vector<GpuSpan> GpuSpanRecorder::take() {
    std::vector<GpuSpan> done;
    while (!pending_.empty()) {
        Pending& p = pending_.front();
        DeviceScope scope(devices_[p.span.gpu]);
        const cudaError_t r = cudaEventQuery(p.last);
        if (r == cudaErrorNotReady) break;
        CUDA_CHECK(r);
        float sinceFirst = 0, sinceLast = 0;
        CUDA_CHECK(cudaEventElapsedTime(&sinceFirst, reference_[p.span.gpu], p.first));
        CUDA_CHECK(cudaEventElapsedTime(&sinceLast, reference_[p.span.gpu], p.last));
        p.span.startUs = referenceUs_[p.span.gpu] + 1000.0 * double(sinceFirst);
        p.span.endUs = referenceUs_[p.span.gpu] + 1000.0 * double(sinceLast);
        done.push_back(p.span);
        free_[p.span.gpu].push_back(p.first);
        free_[p.span.gpu].push_back(p.last);
        pending_.pop_front();
    }
    return done;
}

void GpuSpanRecorder::release() {
    for (size_t g = 0; g < all_.size(); ++g) {
        DeviceScope scope(devices_[g]);
        for (cudaEvent_t e : all_[g])
            (void)cudaEventDestroy(e);
        if (g < reference_.size() && reference_[g]) (void)cudaEventDestroy(reference_[g]);
    }
    devices_.clear();
    reference_.clear();
    referenceUs_.clear();
    free_.clear();
    all_.clear();
    pending_.clear();
}

} // namespace estuary::sim
#endif // __CUDACC__
