#include "memory_budget.h"
#include "errors.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

namespace estuary {

uint64_t imageBytes(const sim::ImageOutput& image) {
    uint64_t bytes = 0;
    for (uint32_t level = 0; level < sim::levelCount(image); ++level)
        bytes += uint64_t(sim::mipSize(image.width, level)) * sim::mipSize(image.height, level) *
                 sim::mipSize(image.depth, level) * sim::texelBytes(image.format);
    return bytes;
}

MemoryNeed estimateMemory(const sim::SimDefinition& def, const sim::OutputLayout& layout,
                          uint64_t cells, uint32_t slots, BackendKind backend, uint64_t particles) {
    uint64_t images = 0, buffers = 0;
    for (const sim::ImageOutput& image : layout.images)
        images += imageBytes(image);
    for (const sim::BufferOutput& buffer : layout.buffers)
        buffers += buffer.bytes;
    const uint64_t state = uint64_t(def.stateBytesPerCell * double(cells) +
                                    def.stateBytesPerParticle * double(particles));
    MemoryNeed need;
    need.deviceImages = images * slots;
    switch (backend) {
    case BackendKind::Cuda: // shared outputs are Vulkan allocations the CUDA device holds too
        need.cudaMemory = state + (images + buffers) * slots;
        break;
    case BackendKind::HostCopy: // private CUDA outputs, pinned copies, host-side staging
        need.cudaMemory = state + images + buffers;
        need.hostMemory = images + buffers;
        need.hostVisible = (images + buffers) * slots;
        break;
    case BackendKind::Cpu:
        need.hostMemory = state;
        need.hostVisible = (images + buffers) * slots;
        break;
    }
    return need;
}

namespace {

bool hasDeviceExtension(VkPhysicalDevice physical, const char* name) {
    uint32_t count = 0;
    if (vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr) != VK_SUCCESS)
        return false;
    std::vector<VkExtensionProperties> all(count);
    if (vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, all.data()) != VK_SUCCESS)
        return false;
    return std::any_of(all.begin(), all.end(), [&](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

// MemAvailable of /proc/meminfo, in bytes.
std::optional<uint64_t> hostAvailable() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    uint64_t kib = 0;
    while (meminfo >> key >> kib) {
        if (key == "MemAvailable:") return kib * 1024;
        meminfo.ignore(64, '\n');
    }
    return std::nullopt;
}

std::string gib(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.2f GiB", double(bytes) / double(1ull << 30));
    return text;
}

} // namespace

MemoryBudget queryMemoryBudget(const Device& device, std::optional<uint64_t> cudaFree) {
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budgetProps{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    const bool budgetExt = hasDeviceExtension(device.physical, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    VkPhysicalDeviceMemoryProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2,
                                            budgetExt ? &budgetProps : nullptr};
    vkGetPhysicalDeviceMemoryProperties2(device.physical, &props);
    const VkPhysicalDeviceMemoryProperties& memory = props.memoryProperties;
    // The heap of the first memory type with the flags: where createImage2D / createBuffer land.
    const auto heapOf = [&](VkMemoryPropertyFlags flags) -> std::optional<uint32_t> {
        for (uint32_t i = 0; i < memory.memoryTypeCount; ++i)
            if ((memory.memoryTypes[i].propertyFlags & flags) == flags)
                return memory.memoryTypes[i].heapIndex;
        return std::nullopt;
    };
    const auto freeIn = [&](uint32_t heap, std::string& source) {
        if (budgetExt) {
            source = "VK_EXT_memory_budget";
            const uint64_t budget = budgetProps.heapBudget[heap],
                           used = budgetProps.heapUsage[heap];
            return budget > used ? budget - used : 0;
        }
        source = "the heap's size";
        return uint64_t(memory.memoryHeaps[heap].size);
    };
    MemoryBudget out;
    const auto local = heapOf(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    const auto visible =
        heapOf(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    if (local) out.deviceLocal = freeIn(*local, out.deviceLocalSource);
    if (visible) out.hostVisible = freeIn(*visible, out.hostVisibleSource);
    out.sameHeap = local && visible && *local == *visible;
    out.cuda = cudaFree;
    out.host = hostAvailable();
    return out;
}

void checkMemoryBudget(const MemoryNeed& need, const MemoryBudget& budget,
                       const std::string& what) {
    std::string problems;
    const auto check = [&](uint64_t needed, std::optional<uint64_t> free, const char* kind,
                           const std::string& source) {
        if (!free || needed <= *free) return;
        problems += std::string(problems.empty() ? "" : "; ") + kind + ": " + gib(needed) +
                    " needed, " + gib(*free) + " free (" + source + ")";
    };
    if (budget.sameHeap)
        check(need.deviceImages + need.hostVisible, budget.deviceLocal,
              "Vulkan memory (images and staging share one heap)", budget.deviceLocalSource);
    else {
        check(need.deviceImages, budget.deviceLocal, "device-local Vulkan memory",
              budget.deviceLocalSource);
        check(need.hostVisible, budget.hostVisible, "host-visible Vulkan memory",
              budget.hostVisibleSource);
    }
    check(need.cudaMemory, budget.cuda, "CUDA device memory", "cudaMemGetInfo");
    check(need.hostMemory, budget.host, "host memory", "MemAvailable");
    if (!problems.empty())
        throw unsupported(what + " does not fit in memory: " + problems +
                          "; try a smaller --size or fewer --frames-in-flight");
}

} // namespace estuary
