#include "kit.h"
#include "errors.h"
#include "renderer_internal.h"
#include "vk_check.h"

#include <algorithm>
#include <cstring>

namespace estuary {

namespace {

constexpr VkDeviceSize kRowBytes = kColormapSize * 4;

// Room in one pool: enough for several views of every kind; more pools are made as needed.
constexpr uint32_t kPoolSets = 128;
constexpr VkDescriptorPoolSize kPoolSizes[] = {
    {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 384},
    {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1024},
    {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 128},
    {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, 128},
};

void addPool(const Device& device, Kit& kit) {
    VkDescriptorPoolCreateInfo info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    info.flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT;
    info.maxSets = kPoolSets;
    info.poolSizeCount = uint32_t(std::size(kPoolSizes));
    info.pPoolSizes = kPoolSizes;
    Kit::Pool pool;
    VK_CHECK(vkCreateDescriptorPool(device.handle, &info, nullptr, &pool.handle));
    nameObject(device, VK_OBJECT_TYPE_DESCRIPTOR_POOL, pool.handle,
               "kit descriptor pool " + std::to_string(kit.pools.size()));
    pool.sets = kPoolSets;
    for (const VkDescriptorPoolSize& size : kPoolSizes)
        pool.descriptors[size.type] = size.descriptorCount;
    kit.pools.push_back(std::move(pool));
}

bool fits(const Kit::Pool& pool, uint32_t sets, const std::map<VkDescriptorType, uint32_t>& needs) {
    if (pool.sets < sets) return false;
    for (const auto& [type, count] : needs) {
        const auto left = pool.descriptors.find(type);
        if (left == pool.descriptors.end() || left->second < count) return false;
    }
    return true;
}

} // namespace

Kit createKit(const Device& device, VkCommandPool pool, const KitDesc& desc) {
    Kit kit;
    kit.warn = desc.warn;
    try {
        kit.texels.assign(size_t(kRowBytes) * kColormapAtlasRows, 0);
        for (uint32_t row = 0; row < kColormapCount; ++row) {
            const std::string name = kColormapNames[row];
            const ColormapTable table = loadColormapFile(builtinColormapFile(desc.dataDir, row));
            const ColormapRow texels = colormapRow(table);
            std::memcpy(kit.texels.data() + row * kRowBytes, texels.data(), kRowBytes);
            kit.colormaps.push_back(
                {name, table.categorical ? uint32_t(table.entries.size()) : 0u});
        }
        const VkExtent2D extent{kColormapSize, kColormapAtlasRows};
        kit.atlas = createImage2D(device, extent, VK_FORMAT_R8G8B8A8_UNORM, 1,
                                  VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                  "colormap atlas");
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {extent.width, extent.height, 1};
        uploadForSampling(device, pool, kit.atlas.handle, kit.texels, {&region, 1});
        kit.staging =
            createBuffer(device, kit.texels.size(), VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                         VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                         "colormap atlas staging");
        kit.colormapSampler = createLinearSampler(device, 0.0f, "colormap linear");
        kit.fieldSampler = createLinearSampler(device, VK_LOD_CLAMP_NONE, "field trilinear");
        kit.pipelineCache = createPipelineCache(device, desc.pipelineCacheDir, desc.warn);
        addPool(device, kit);
    } catch (...) {
        destroyKit(device, kit);
        throw;
    }
    return kit;
}

void destroyKit(const Device& device, Kit& kit) {
    destroyPipelineCache(device, kit.pipelineCache, kit.warn);
    for (Kit::Pool& pool : kit.pools)
        vkDestroyDescriptorPool(device.handle, pool.handle, nullptr);
    vkDestroySampler(device.handle, kit.fieldSampler, nullptr);
    vkDestroySampler(device.handle, kit.colormapSampler, nullptr);
    destroyBuffer(device, kit.staging);
    destroyImage(device, kit.atlas);
    kit = Kit{};
}

uint32_t addColormap(Kit& kit, const std::string& name, const ColormapRow& row,
                     uint32_t categories) {
    if (kit.colormaps.size() >= kColormapAtlasRows)
        throw usageError("the colormap atlas is full: it holds " +
                         std::to_string(kColormapAtlasRows) + " colormaps (" +
                         std::to_string(kColormapCount) + " built in, " +
                         std::to_string(kColormapAtlasRows - kColormapCount) + " of yours)");
    const uint32_t index = uint32_t(kit.colormaps.size());
    std::memcpy(kit.texels.data() + index * kRowBytes, row.data(), kRowBytes);
    std::memcpy(static_cast<uint8_t*>(kit.staging.mapped) + index * kRowBytes, row.data(),
                kRowBytes);
    kit.colormaps.push_back({name, categories});
    kit.pendingRows.push_back(index);
    return index;
}

void recordColormapUploads(Kit& kit, VkCommandBuffer cmd) {
    if (kit.pendingRows.empty()) return;
    std::vector<VkBufferImageCopy> regions;
    for (uint32_t row : kit.pendingRows) {
        VkBufferImageCopy region{};
        region.bufferOffset = row * kRowBytes;
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageOffset = {0, int32_t(row), 0};
        region.imageExtent = {kColormapSize, 1, 1};
        regions.push_back(region);
    }
    // Earlier frames may still sample other rows: the copy waits for their reads (the layout of
    // the whole image changes, its other rows kept), and everything after it waits for the copy.
    recordUploadForSampling(cmd, kit.staging.handle, kit.atlas.handle, regions,
                            VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL);
    kit.pendingRows.clear();
    ++kit.uploadsRecorded;
}

float colormapCodeOf(const Kit& kit, uint32_t row, const char* what) {
    if (row >= kit.colormaps.size())
        throw runtimeError(std::string(what) + ": colormap " + std::to_string(row) + " out of " +
                           std::to_string(kit.colormaps.size()));
    return colormapCode(row, kit.colormaps[row].categories);
}

std::vector<VkDescriptorSet> allocateKitSets(const Device& device, Kit& kit,
                                             VkDescriptorSetLayout layout,
                                             std::span<const VkDescriptorSetLayoutBinding> bindings,
                                             uint32_t count) {
    if (count == 0) return {};
    std::map<VkDescriptorType, uint32_t> needs;
    for (const VkDescriptorSetLayoutBinding& b : bindings)
        needs[b.descriptorType] += b.descriptorCount * count;
    for (const auto& [type, n] : needs)
        if (std::none_of(std::begin(kPoolSizes), std::end(kPoolSizes),
                         [&](const VkDescriptorPoolSize& s) {
                             return s.type == type && s.descriptorCount >= n;
                         }) ||
            count > kPoolSets)
            throw runtimeError("allocateKitSets: " + std::to_string(count) + " sets needing " +
                               std::to_string(n) + " descriptors of type " + std::to_string(type) +
                               " exceed a kit pool");
    size_t chosen = kit.pools.size();
    for (size_t i = 0; i < kit.pools.size(); ++i)
        if (fits(kit.pools[i], count, needs)) {
            chosen = i;
            break;
        }
    if (chosen == kit.pools.size()) addPool(device, kit);
    Kit::Pool& pool = kit.pools[chosen];
    const std::vector<VkDescriptorSet> sets = allocateSets(device, pool.handle, layout, count);
    pool.sets -= count;
    for (const auto& [type, n] : needs)
        pool.descriptors[type] -= n;
    kit.grants[sets.front()] = {chosen, count, needs};
    return sets;
}

void freeKitSets(const Device& device, Kit& kit, std::vector<VkDescriptorSet>& sets) {
    if (sets.empty()) return;
    const auto grant = kit.grants.find(sets.front());
    if (grant == kit.grants.end())
        throw runtimeError("freeKitSets: these sets were not allocated from the kit");
    Kit::Pool& pool = kit.pools[grant->second.pool];
    VK_CHECK(vkFreeDescriptorSets(device.handle, pool.handle, uint32_t(sets.size()), sets.data()));
    pool.sets += grant->second.sets;
    for (const auto& [type, n] : grant->second.descriptors)
        pool.descriptors[type] += n;
    kit.grants.erase(grant);
    sets.clear();
}

} // namespace estuary
