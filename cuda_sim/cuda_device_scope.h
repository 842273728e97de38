// Makes a CUDA device current for a scope's lifetime, then the one current before again (by return
// or by throw). For the code that drives several GPUs from one thread.
#pragma once

#include "cuda_check.h"

#include <cuda_runtime.h>

namespace estuary::sim {

class DeviceScope {
  public:
    explicit DeviceScope(int device) {
        CUDA_CHECK(cudaGetDevice(&previous_));
        if (device != previous_) CUDA_CHECK(cudaSetDevice(device));
    }
    ~DeviceScope() { (void)cudaSetDevice(previous_); }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

  private:
    int previous_ = 0;
};

} // namespace estuary::sim
