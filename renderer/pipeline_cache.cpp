#include "pipeline_cache.h"
#include "output_file.h"
#include "vk_check.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace estuary {

namespace {

constexpr char kMagic[8] = {'E', 'S', 'T', 'P', 'C', 'A', 'C', '1'};

// Before the driver's data in the file; host byte order (the file never leaves the machine).
struct FileHeader {
    char magic[8];
    uint32_t headerBytes;
    uint32_t vendorId, deviceId, driverVersion;
    uint8_t uuid[VK_UUID_SIZE];
    uint64_t dataBytes;
    uint64_t dataHash; // FNV-1a
};

uint64_t fnv1a(std::span<const uint8_t> bytes) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint8_t b : bytes)
        h = (h ^ b) * 0x100000001b3ull;
    return h;
}

std::string hex(uint64_t value, int digits) {
    char text[24];
    std::snprintf(text, sizeof(text), "%0*llx", digits, static_cast<unsigned long long>(value));
    return text;
}

const char* envValue(const char* name) {
    const char* value = std::getenv(name);
    return value && *value ? value : nullptr;
}

} // namespace

std::optional<std::filesystem::path> pipelineCacheDir() {
    if (const char* off = envValue("ESTUARY_PIPELINE_CACHE"); off && std::strcmp(off, "0") == 0)
        return std::nullopt;
    if (const char* dir = envValue("ESTUARY_CACHE_DIR")) return std::filesystem::path(dir);
    if (const char* xdg = envValue("XDG_CACHE_HOME")) return std::filesystem::path(xdg) / "estuary";
    if (const char* home = envValue("HOME"))
        return std::filesystem::path(home) / ".cache" / "estuary";
    return std::nullopt;
}

std::string pipelineCacheFileName(const VkPhysicalDeviceProperties& p) {
    std::string uuid;
    for (uint8_t b : p.pipelineCacheUUID)
        uuid += hex(b, 2);
    return "pipelines-" + hex(p.vendorID, 4) + "-" + hex(p.deviceID, 4) + "-" +
           hex(p.driverVersion, 8) + "-" + uuid + ".bin";
}

std::vector<uint8_t> packPipelineCache(const VkPhysicalDeviceProperties& p,
                                       std::span<const uint8_t> data) {
    FileHeader h{};
    std::memcpy(h.magic, kMagic, sizeof(kMagic));
    h.headerBytes = sizeof(FileHeader);
    h.vendorId = p.vendorID;
    h.deviceId = p.deviceID;
    h.driverVersion = p.driverVersion;
    std::memcpy(h.uuid, p.pipelineCacheUUID, VK_UUID_SIZE);
    h.dataBytes = data.size();
    h.dataHash = fnv1a(data);
    std::vector<uint8_t> file(sizeof(h) + data.size());
    std::memcpy(file.data(), &h, sizeof(h));
    if (!data.empty()) std::memcpy(file.data() + sizeof(h), data.data(), data.size());
    return file;
}

std::vector<uint8_t> unpackPipelineCache(const VkPhysicalDeviceProperties& p,
                                         std::span<const uint8_t> file, std::string& why) {
    FileHeader h{};
    if (file.size() < sizeof(h)) {
        why = "it is " + std::to_string(file.size()) + " bytes, shorter than its header";
        return {};
    }
    std::memcpy(&h, file.data(), sizeof(h));
    if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0 || h.headerBytes != sizeof(h)) {
        why = "it is not an estuary pipeline cache (or one of another version)";
        return {};
    }
    if (h.vendorId != p.vendorID || h.deviceId != p.deviceID ||
        h.driverVersion != p.driverVersion ||
        std::memcmp(h.uuid, p.pipelineCacheUUID, VK_UUID_SIZE) != 0) {
        why = "it was written by another device or driver (vendor " + hex(h.vendorId, 4) +
              ", device " + hex(h.deviceId, 4) + ", driver " + hex(h.driverVersion, 8) + ")";
        return {};
    }
    const std::span<const uint8_t> data = file.subspan(sizeof(h));
    if (data.size() != h.dataBytes || fnv1a(data) != h.dataHash) {
        why = "it is damaged (its data's size or checksum does not match its header)";
        return {};
    }
    // Vulkan's own header (VkPipelineCacheHeaderVersionOne) names the device the data is for.
    VkPipelineCacheHeaderVersionOne vk{};
    if (data.size() < sizeof(vk)) {
        why = "its driver data is shorter than Vulkan's pipeline cache header";
        return {};
    }
    std::memcpy(&vk, data.data(), sizeof(vk));
    if (vk.headerSize < sizeof(vk) || vk.headerVersion != VK_PIPELINE_CACHE_HEADER_VERSION_ONE ||
        vk.vendorID != p.vendorID || vk.deviceID != p.deviceID ||
        std::memcmp(vk.pipelineCacheUUID, p.pipelineCacheUUID, VK_UUID_SIZE) != 0) {
        why = "its driver data's Vulkan header names another device or cache version";
        return {};
    }
    return {data.begin(), data.end()};
}

PipelineCache createPipelineCache(const Device& device, const std::filesystem::path& dir,
                                  const WarnFn& warn) {
    PipelineCache cache;
    std::vector<uint8_t> data;
    if (!dir.empty()) {
        cache.file = dir / pipelineCacheFileName(device.properties);
        std::error_code ec;
        if (std::filesystem::exists(cache.file, ec)) {
            std::ifstream in(cache.file, std::ios::binary);
            const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                             std::istreambuf_iterator<char>());
            std::string why;
            if (!in.good() && !in.eof())
                why = "it cannot be read";
            else
                data = unpackPipelineCache(device.properties, bytes, why);
            if (data.empty() && warn)
                warn("ignoring the pipeline cache " + cache.file.string() + ": " + why +
                     "; pipelines are built afresh and the file rewritten");
        }
    }
    VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    info.initialDataSize = data.size();
    info.pInitialData = data.empty() ? nullptr : data.data();
    if (vkCreatePipelineCache(device.handle, &info, nullptr, &cache.handle) != VK_SUCCESS) {
        if (warn) warn("the driver refused the pipeline cache's data; starting without it");
        info.initialDataSize = 0;
        info.pInitialData = nullptr;
        data.clear();
        VK_CHECK(vkCreatePipelineCache(device.handle, &info, nullptr, &cache.handle));
    }
    cache.loadedBytes = data.size();
    setDebugName(device, VK_OBJECT_TYPE_PIPELINE_CACHE, reinterpret_cast<uint64_t>(cache.handle),
                 "pipeline cache");
    return cache;
}

void destroyPipelineCache(const Device& device, PipelineCache& cache, const WarnFn& warn) {
    if (!cache.handle) return;
    if (!cache.file.empty() && cache.pipelinesCreated > 0) {
        try {
            size_t size = 0;
            VK_CHECK(vkGetPipelineCacheData(device.handle, cache.handle, &size, nullptr));
            std::vector<uint8_t> data(size);
            VK_CHECK(vkGetPipelineCacheData(device.handle, cache.handle, &size, data.data()));
            data.resize(size);
            const std::vector<uint8_t> file = packPipelineCache(device.properties, data);
            writeFileAtomically(
                cache.file,
                std::string_view(reinterpret_cast<const char*>(file.data()), file.size()));
        } catch (const std::exception& e) {
            if (warn) warn(std::string("the pipeline cache was not saved: ") + e.what());
        }
    }
    vkDestroyPipelineCache(device.handle, cache.handle, nullptr);
    cache = PipelineCache{};
}

void notePipelineCreated(PipelineCache* cache, std::chrono::steady_clock::time_point start,
                         const VkPipelineCreationFeedback& feedback) {
    if (!cache) return;
    ++cache->pipelinesCreated;
    cache->createMs +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if ((feedback.flags & VK_PIPELINE_CREATION_FEEDBACK_VALID_BIT) &&
        (feedback.flags & VK_PIPELINE_CREATION_FEEDBACK_APPLICATION_PIPELINE_CACHE_HIT_BIT))
        ++cache->cacheHits;
}

} // namespace estuary
