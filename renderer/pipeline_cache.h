// The pipeline cache every pipeline of a viewer is created with (kit.h), kept between runs in the
// user's cache folder: $ESTUARY_CACHE_DIR, else $XDG_CACHE_HOME/estuary, else ~/.cache/estuary; one
// file per device and driver (vendor and device id, driver version and pipelineCacheUUID in its
// name and in a header checked on reading, with the size and a checksum of the driver's data, whose
// own header Vulkan defines is checked too). A file from another device or driver, damaged or
// unreadable, is ignored with a warning, never fed to the driver; writing it (temporary file and
// rename) failing is a warning too. ESTUARY_PIPELINE_CACHE=0 keeps nothing on disk.
#pragma once

#include "context.h"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace estuary {

using WarnFn = std::function<void(const std::string&)>;

struct PipelineCache : MoveOnly {
    VkPipelineCache handle = VK_NULL_HANDLE;
    std::filesystem::path file; // where it is kept; empty: not kept on disk
    uint64_t loadedBytes = 0;   // driver data read from the file at creation; 0: a cold start
    // Pipelines created with it, those the driver reported found in the cache (pipeline creation
    // feedback), and the host time spent creating them.
    uint32_t pipelinesCreated = 0, cacheHits = 0;
    double createMs = 0;
};

// The folder the cache is kept in (the environment as above), or nullopt where
// ESTUARY_PIPELINE_CACHE=0 or no folder can be named (no HOME).
std::optional<std::filesystem::path> pipelineCacheDir();
// "pipelines-<vendor>-<device>-<driver>-<uuid>.bin" (hex) for the device.
std::string pipelineCacheFileName(const VkPhysicalDeviceProperties& properties);

// The file's bytes: estuary's header, then the driver's data.
std::vector<uint8_t> packPipelineCache(const VkPhysicalDeviceProperties& properties,
                                       std::span<const uint8_t> data);
// The driver's data of a file for this device and driver, or empty with `why` said.
std::vector<uint8_t> unpackPipelineCache(const VkPhysicalDeviceProperties& properties,
                                         std::span<const uint8_t> file, std::string& why);

// A cache read from `dir`'s file where it holds one for this device (empty `dir`: not kept).
PipelineCache createPipelineCache(const Device& device, const std::filesystem::path& dir,
                                  const WarnFn& warn);
// Writes the cache to its file (when kept), then destroys it.
void destroyPipelineCache(const Device& device, PipelineCache& cache, const WarnFn& warn);

// Counts a creation that started at `start`, with its creation feedback.
void notePipelineCreated(PipelineCache* cache, std::chrono::steady_clock::time_point start,
                         const VkPipelineCreationFeedback& feedback);

} // namespace estuary
