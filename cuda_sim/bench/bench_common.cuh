// What every part of estuary_kernel_bench shares: the device's figures, CUDA-event timing, and
// the bit-for-bit comparison against the CPU reference. Internal linkage, like the kernel headers:
// each .cu that includes this compiles its own copy.
#pragma once

#include "bench_results.h"
#include "cuda_check.h"

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace estuary::sim {
namespace {

constexpr uint64_t kSeed = 20240610;
constexpr int kStepsPerFrame = 8; // gray-scott's SimDefinition::stepsPerFrame
constexpr int kWarmupFrames = 5;
constexpr int kTimedFrames = 50;

BenchDevice queryDevice() {
    int device = 0, clockKHz = 0, busBits = 0;
    BenchDevice d;
    CUDA_CHECK(cudaGetDevice(&device));
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    d.name = prop.name;
    CUDA_CHECK(cudaDeviceGetAttribute(&d.smCount, cudaDevAttrMultiProcessorCount, device));
    // cudaDeviceProp::memoryClockRate is gone in CUDA 13; the attribute remains.
    CUDA_CHECK(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrMemoryClockRate, device));
    CUDA_CHECK(cudaDeviceGetAttribute(&busBits, cudaDevAttrGlobalMemoryBusWidth, device));
    d.peakGBs = double(clockKHz) * 1e3 * (busBits / 8.0) * 2.0 / 1e9;
    return d;
}

// Milliseconds per call of `body`, averaged over `reps` calls after `warmup` untimed ones.
double timeMs(cudaStream_t stream, int warmup, int reps, const std::function<void()>& body) {
    for (int i = 0; i < warmup; ++i)
        body();
    cudaEvent_t start = nullptr, stop = nullptr;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaEventRecord(start, stream));
    for (int i = 0; i < reps; ++i)
        body();
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return double(ms) / reps;
}

// Copies on `stream` and waits: a non-blocking stream is not ordered after the legacy default
// stream that plain cudaMemcpy uses.
void copyAndWait(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                 cudaStream_t stream) {
    CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Whether gpu and cpu hold the same bits; prints the first difference.
bool sameBits(const std::vector<float>& gpu, const std::vector<float>& cpu, int w,
              const std::string& what) {
    for (size_t i = 0; i < cpu.size(); ++i) {
        if (std::memcmp(&gpu[i], &cpu[i], sizeof(float)) != 0) {
            std::printf("MISMATCH %s at (%zu, %zu): GPU %.9g, CPU %.9g\n", what.c_str(),
                        i % size_t(w), i / size_t(w), double(gpu[i]), double(cpu[i]));
            return false;
        }
    }
    return true;
}

std::string sizeName(int w, int h) {
    return std::to_string(w) + "x" + std::to_string(h);
}

BenchResult result(const std::string& kind, const std::string& variant, int size) {
    BenchResult r;
    r.kind = kind;
    r.variant = variant;
    r.size = size;
    return r;
}

} // namespace
} // namespace estuary::sim
