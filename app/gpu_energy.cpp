// NVML's C API declared here for the four calls used: the toolkit on the build machines ships no
// nvml.h (the driver's library is the only part needed, and it is loaded at run time).
#include "gpu_energy.h"

#include <dlfcn.h>

#include <cmath>
#include <limits>

namespace estuary {
namespace {

using NvmlReturn = int; // nvmlReturn_t: 0 is NVML_SUCCESS
using NvmlDevice = struct NvmlDeviceOpaque*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr const char* kNvmlLibrary = "libnvidia-ml.so.1";

} // namespace

struct GpuEnergy::Api {
    void* library = nullptr;
    NvmlReturn (*init)() = nullptr;
    NvmlReturn (*shutdown)() = nullptr;
    NvmlReturn (*byUuid)(const char*, NvmlDevice*) = nullptr;
    NvmlReturn (*energy)(NvmlDevice, unsigned long long*) = nullptr;
    const char* (*errorString)(NvmlReturn) = nullptr;
    NvmlDevice device = nullptr;
    bool initialized = false;

    ~Api() {
        if (initialized) shutdown();
        if (library) dlclose(library);
    }
    std::string error(NvmlReturn r) const {
        return errorString ? errorString(r) : "NVML error " + std::to_string(r);
    }
};

std::unique_ptr<GpuEnergy> GpuEnergy::open(const std::string& uuid, std::string& why) {
    auto api = std::make_unique<Api>();
    api->library = dlopen(kNvmlLibrary, RTLD_NOW | RTLD_LOCAL);
    if (!api->library) {
        why = std::string(kNvmlLibrary) + " (NVIDIA's driver) is not here";
        return nullptr;
    }
    const auto find = [&](auto& fn, const char* name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(api->library, name));
        return fn != nullptr;
    };
    if (!find(api->init, "nvmlInit_v2") || !find(api->shutdown, "nvmlShutdown") ||
        !find(api->byUuid, "nvmlDeviceGetHandleByUUID") ||
        !find(api->energy, "nvmlDeviceGetTotalEnergyConsumption") ||
        !find(api->errorString, "nvmlErrorString")) {
        why = std::string(kNvmlLibrary) + " lacks the calls used (too old a driver)";
        return nullptr;
    }
    if (const NvmlReturn r = api->init(); r != kNvmlSuccess) {
        why = "nvmlInit failed: " + api->error(r);
        return nullptr;
    }
    api->initialized = true;
    const std::string name = "GPU-" + uuid;
    if (const NvmlReturn r = api->byUuid(name.c_str(), &api->device); r != kNvmlSuccess) {
        why = "NVML has no device " + name + " (" + api->error(r) + ")";
        return nullptr;
    }
    unsigned long long millijoules = 0;
    if (const NvmlReturn r = api->energy(api->device, &millijoules); r != kNvmlSuccess) {
        why = "NVML's energy counter of " + name + " cannot be read (" + api->error(r) + ")";
        return nullptr;
    }
    std::unique_ptr<GpuEnergy> meter(new GpuEnergy);
    meter->api_ = std::move(api);
    meter->source_ = "NVML total energy counter (" + name + ")";
    return meter;
}

GpuEnergy::~GpuEnergy() = default;

double GpuEnergy::joules() const {
    unsigned long long millijoules = 0;
    if (api_->energy(api_->device, &millijoules) != kNvmlSuccess)
        return std::numeric_limits<double>::quiet_NaN();
    return double(millijoules) / 1000.0;
}

} // namespace estuary
