// The GPU's energy counter through NVML, for the benchmark's power and energy per frame. NVML
// (libnvidia-ml.so.1) comes with NVIDIA's driver, not with the toolkit here: it is loaded at run
// time and optional; a machine without it (or a GPU without the counter, pre-Volta) runs the
// benchmark the same, reporting why there is no figure.
#pragma once

#include <memory>
#include <string>

namespace estuary {

class GpuEnergy {
  public:
    // The GPU whose UUID Vulkan reports as `uuid` ("fc8da95d-2c8e-…"). nullptr, with `why` set,
    // where NVML, the device or its energy counter cannot be had.
    static std::unique_ptr<GpuEnergy> open(const std::string& uuid, std::string& why);
    ~GpuEnergy();
    GpuEnergy(const GpuEnergy&) = delete;
    GpuEnergy& operator=(const GpuEnergy&) = delete;

    // Joules since the driver loaded (a millijoule counter); NaN where the read fails.
    double joules() const;
    // "NVML total energy counter (GPU-fc8da95d-…)"
    const std::string& source() const { return source_; }

  private:
    GpuEnergy() = default;
    struct Api;
    std::unique_ptr<Api> api_;
    std::string source_;
};

} // namespace estuary
