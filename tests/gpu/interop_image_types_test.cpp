// Interop for every image shape, not only 2D: 3D images, 2D arrays, cubes (and 1D where the driver
// exports it), each in a representative set of formats (every texel size, float and integer), are
// written by CUDA through their per-level surfaces in every level and every slice, layer or face,
// and read back byte-exact by Vulkan. Requests the driver cannot meet are refused with
// unsupported() naming the type and the number refused; a 3D ring of the frame protocol carries
// frames end to end.
#include "cuda_vulkan_fixture.h"
#include "estuary/interop/format_tables.h"
#include "estuary/interop/frame_timelines.h"
#include "estuary/interop/image_ring.h"
#include "interop_kernels.h"
#include "vk_check.h"

#include <initializer_list>

namespace estuary::test {
namespace {

using namespace interop;

// One format per texel size (1, 2, 4, 8, 16 bytes), float and integer, normalized and not.
constexpr VkFormat kRepresentativeFormats[] = {VK_FORMAT_R8_UINT,
                                               VK_FORMAT_R16_UINT,
                                               VK_FORMAT_R32_SFLOAT,
                                               VK_FORMAT_R8G8B8A8_UNORM,
                                               VK_FORMAT_R32G32_SFLOAT,
                                               VK_FORMAT_R16G16B16A16_SFLOAT,
                                               VK_FORMAT_R32G32B32A32_SFLOAT};

// What estuary relies on (3D R32F fields, RGBA32F 3D images, arrays and cubes): a driver refusing
// these fails. 1D is optional.
bool estuaryNeeds(VkFormat format, VkImageViewType viewType) {
    if (viewType == VK_IMAGE_VIEW_TYPE_1D) return false;
    return format == VK_FORMAT_R32G32B32A32_SFLOAT ||
           (format == VK_FORMAT_R32_SFLOAT && viewType == VK_IMAGE_VIEW_TYPE_3D);
}

// The surf*write family that addresses a level of a CUDA array mapped from `viewType`.
SurfaceKind surfaceKindFor(VkImageViewType viewType) {
    switch (viewType) {
    case VK_IMAGE_VIEW_TYPE_3D:
        return SurfaceKind::Volume3D;
    case VK_IMAGE_VIEW_TYPE_2D_ARRAY:
        return SurfaceKind::Layered2D;
    case VK_IMAGE_VIEW_TYPE_CUBE:
        return SurfaceKind::Cubemap;
    case VK_IMAGE_VIEW_TYPE_1D:
        return SurfaceKind::Plain1D;
    default:
        return SurfaceKind::Plain2D;
    }
}

// Slices of a 3D level, else the layers (faces) every level has.
uint32_t levelSlices(const ImageShape& shape, uint32_t level) {
    return shape.viewType == VK_IMAGE_VIEW_TYPE_3D ? mipDepth(shape.depth, level) : shape.layers;
}

const char* sliceName(VkImageViewType viewType) {
    switch (viewType) {
    case VK_IMAGE_VIEW_TYPE_3D:
        return "slice";
    case VK_IMAGE_VIEW_TYPE_CUBE:
        return "face";
    default:
        return "layer";
    }
}

// Writes the pattern into every level of `cuda` (an import of an image of `extent` and `shape`).
void writeEveryLevel(const CudaImage& cuda, VkExtent2D extent, const ImageShape& shape,
                     uint32_t texel, uint32_t salt, cudaStream_t stream) {
    for (uint32_t level = 0; level < cuda.surfaces.size(); ++level) {
        const VkExtent2D e = mipExtent(extent, level);
        launchWritePatternShaped(cuda.surfaces[level], surfaceKindFor(shape.viewType), e.width,
                                 e.height, levelSlices(shape, level), texel, level, salt, stream);
    }
}

struct Comparison {
    size_t bytesCompared = 0;
    size_t mismatches = 0;
    std::string firstMismatch;
};

// Compares one level, laid out as mipChainRegions lays it out (rows tight, then slices or
// layers), with the pattern CUDA wrote; the first mismatch is named down to the byte.
void compareLevel(const uint8_t* at, VkExtent2D extent, const ImageShape& shape, uint32_t level,
                  uint32_t texel, uint32_t salt, Comparison& c) {
    const VkExtent2D e = mipExtent(extent, level);
    const uint32_t slices = levelSlices(shape, level);
    size_t i = 0;
    for (uint32_t z = 0; z < slices; ++z)
        for (uint32_t y = 0; y < e.height; ++y)
            for (uint32_t x = 0; x < e.width; ++x)
                for (uint32_t b = 0; b < texel; ++b, ++i) {
                    const uint8_t want = patternByte3(x, y, z, level, b, salt);
                    ++c.bytesCompared;
                    if (at[i] != want && c.mismatches++ == 0)
                        c.firstMismatch =
                            "level " + std::to_string(level) + " " + sliceName(shape.viewType) +
                            " " + std::to_string(z) + " texel (" + std::to_string(x) + "," +
                            std::to_string(y) + ") byte " + std::to_string(b) + ": read " +
                            std::to_string(at[i]) + ", CUDA wrote " + std::to_string(want);
                }
}

struct RoundTrip {
    uint32_t levels = 0;
    size_t bytesRead = 0;
    Comparison comparison;
};

// Export, import, CUDA writes every level and layer, signals; Vulkan waits on the GPU, acquires,
// reads every level and layer back (readImageLevels: levels tightly one after another).
RoundTrip writeWithCudaReadWithVulkan(const Device& device, const Context& context,
                                      VkCommandPool pool, cudaStream_t stream, VkFormat format,
                                      VkExtent2D extent, const ImageShape& shape, uint32_t salt) {
    ExportedImageDesc desc;
    desc.format = format;
    desc.extent = extent;
    desc.shape = shape;
    desc.name = formatName(format);
    ExportedImage image = createExportedImage(context, desc);
    CudaImage cuda = importImage(context, image);
    SharedTimeline timeline = createSharedTimeline(context, "cuda writes done");
    RoundTrip result;
    result.levels = image.image.mipLevels;
    if (cuda.surfaces.size() != result.levels)
        throw runtimeError("importImage made " + std::to_string(cuda.surfaces.size()) +
                           " surfaces for " + std::to_string(result.levels) + " levels");
    releaseToCuda(device, context, pool, image);

    const uint32_t texel = formatTexelSize(format);
    writeEveryLevel(cuda, extent, shape, texel, salt, stream);
    cudaSignalTimeline(timeline, 1, stream);
    acquireAfterCuda(device, context, pool, image, timeline, 1);
    const std::vector<uint8_t> bytes =
        readImageLevels(device, pool, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL);
    result.bytesRead = bytes.size();

    size_t expected = 0;
    for (uint32_t level = 0; level < result.levels; ++level)
        expected += texel * levelTexels(extent, shape, level);
    if (bytes.size() == expected) {
        size_t offset = 0;
        for (uint32_t level = 0; level < result.levels; ++level) {
            compareLevel(bytes.data() + offset, extent, shape, level, texel, salt,
                         result.comparison);
            offset += texel * levelTexels(extent, shape, level);
        }
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));
    destroyCudaImage(cuda);
    destroySharedTimeline(context, timeline);
    destroyExportedImage(context, image);
    return result;
}

class InteropImageTypesGpu : public CudaVulkanTest {
  protected:
    // Every representative format the driver exports as `shape` round-trips every level and
    // layer exactly; formats it refuses are listed, and refusing one estuary needs fails.
    void roundTripRepresentativeFormats(VkExtent2D extent, const ImageShape& shape,
                                        uint32_t expectedLevels) {
        const char* type = viewTypeName(shape.viewType);
        const VkImageUsageFlags usage = ExportedImageDesc{}.usage;
        uint32_t run = 0;
        std::string refused;
        for (VkFormat format : kRepresentativeFormats) {
            SCOPED_TRACE(std::string(type) + " " + formatName(format));
            try {
                checkImageExport(context, format, usage, shape.viewType);
            } catch (const Error& e) {
                if (estuaryNeeds(format, shape.viewType))
                    ADD_FAILURE() << "estuary needs this export: " << e.what();
                refused += std::string(" ") + formatName(format);
                continue;
            }
            const RoundTrip r = writeWithCudaReadWithVulkan(
                device, context, pool, stream, format, extent, shape, uint32_t(format) * 31 + 7);
            EXPECT_EQ(r.levels, expectedLevels);
            EXPECT_EQ(r.bytesRead, r.comparison.bytesCompared)
                << "readImageLevels returned another size than the levels and layers hold";
            EXPECT_GT(r.comparison.bytesCompared, 0u);
            EXPECT_EQ(r.comparison.mismatches, 0u)
                << "first mismatch at " << r.comparison.firstMismatch;
            VK_CHECK(vkResetCommandPool(device.handle, pool, 0));
            ++run;
        }
        std::printf("%s %ux%ux%u, %u layer(s), %u levels: %u formats round-tripped; refused by "
                    "the driver:%s\n",
                    type, extent.width, extent.height, shape.depth, shape.layers, expectedLevels,
                    run, refused.empty() ? " none" : refused.c_str());
        EXPECT_GT(run, 0u);
    }

    // createExportedImage refuses `desc` with an error of `code` whose message names every one of
    // `names` (the type and the offending number).
    void expectRefused(const ExportedImageDesc& desc, ExitCode code,
                       std::initializer_list<std::string> names) {
        try {
            ExportedImage image = createExportedImage(context, desc);
            destroyExportedImage(context, image);
            ADD_FAILURE() << "createExportedImage accepted a " << viewTypeName(desc.shape.viewType)
                          << " image of " << desc.extent.width << "x" << desc.extent.height << "x"
                          << desc.shape.depth << ", " << desc.shape.layers << " layer(s)";
        } catch (const Error& e) {
            EXPECT_EQ(exitCode(e), code) << e.what();
            for (const std::string& name : names)
                EXPECT_NE(std::string(e.what()).find(name), std::string::npos)
                    << "the message does not name \"" << name << "\": " << e.what();
        }
    }
};

TEST_F(InteropImageTypesGpu, Every3dLevelAndSliceRoundTripsExactlyInRepresentativeFormats) {
    // Odd sizes, depth not the largest side: 6 levels (37 → 1), depth 13 → 6 → 3 → 1 → 1 → 1.
    roundTripRepresentativeFormats({37, 21}, {VK_IMAGE_VIEW_TYPE_3D, 13, 1}, 6);
}

TEST_F(InteropImageTypesGpu, Every2dArrayLevelAndLayerRoundTripsExactlyInRepresentativeFormats) {
    // 5 layers at every level of 29x17 → 14x8 → 7x4 → 3x2 → 1x1.
    roundTripRepresentativeFormats({29, 17}, {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 1, 5}, 5);
}

TEST_F(InteropImageTypesGpu, EveryCubeLevelAndFaceRoundTripsExactlyInRepresentativeFormats) {
    // 6 faces at every level of 24 → 12 → 6 → 3 → 1.
    roundTripRepresentativeFormats({24, 24}, {VK_IMAGE_VIEW_TYPE_CUBE, 1, 6}, 5);
}

TEST_F(InteropImageTypesGpu, Every1dLevelRoundTripsExactlyWhereTheDriverExports1d) {
    const ImageShape shape{VK_IMAGE_VIEW_TYPE_1D, 1, 1};
    const VkExtent2D extent{100, 1}; // 7 levels: 100 → 50 → 25 → 12 → 6 → 3 → 1
    ExportedImageDesc probe;
    probe.extent = extent;
    probe.shape = shape;
    probe.name = "1D probe";
    try {
        checkImageExport(context, probe.format, probe.usage, shape.viewType);
    } catch (const Error& e) {
        GTEST_SKIP() << "the Vulkan driver does not export 1D images: " << e.what();
    }
    // The CUDA guide lists 1D, (w, 0, 0); whether this driver maps it is asked here, not assumed.
    ExportedImage image = createExportedImage(context, probe);
    std::string cudaRefusal;
    try {
        CudaImage cuda = importImage(context, image);
        destroyCudaImage(cuda);
    } catch (const Error& e) {
        cudaRefusal = e.what();
    }
    destroyExportedImage(context, image);
    if (!cudaRefusal.empty())
        GTEST_SKIP() << "CUDA does not map a 1D image exported by Vulkan: " << cudaRefusal;
    roundTripRepresentativeFormats(extent, shape, 7);
}

TEST_F(InteropImageTypesGpu, A3dImageDeeperThanTheDriverExportsIsUnsupportedNamingTheDepth) {
    ExportedImageDesc desc;
    const ExportSupport support =
        checkImageExport(context, desc.format, desc.usage, VK_IMAGE_VIEW_TYPE_3D);
    desc.extent = {4, 4};
    desc.shape = {VK_IMAGE_VIEW_TYPE_3D, support.maxExtent.depth + 1, 1};
    desc.name = "too deep";
    expectRefused(desc, ExitCode::Unsupported, {"3D", std::to_string(desc.shape.depth)});
}

TEST_F(InteropImageTypesGpu, A2dArrayWithMoreLayersThanTheDriverExportsIsUnsupportedNamingThem) {
    ExportedImageDesc desc;
    const ExportSupport support =
        checkImageExport(context, desc.format, desc.usage, VK_IMAGE_VIEW_TYPE_2D_ARRAY);
    desc.extent = {4, 4};
    desc.shape = {VK_IMAGE_VIEW_TYPE_2D_ARRAY, 1, support.maxArrayLayers + 1};
    desc.name = "too many layers";
    expectRefused(desc, ExitCode::Unsupported, {"2D array", std::to_string(desc.shape.layers)});
}

TEST_F(InteropImageTypesGpu, ACubeWiderThanTheDriverExportsIsUnsupportedNamingTheWidth) {
    ExportedImageDesc desc;
    const ExportSupport support =
        checkImageExport(context, desc.format, desc.usage, VK_IMAGE_VIEW_TYPE_CUBE);
    const uint32_t side = support.maxExtent.width + 1;
    desc.extent = {side, side};
    desc.shape = {VK_IMAGE_VIEW_TYPE_CUBE, 1, 6};
    desc.name = "too wide";
    expectRefused(desc, ExitCode::Unsupported, {"cube", std::to_string(side)});
}

TEST_F(InteropImageTypesGpu, ShapesThatAreNoImageAreRuntimeErrorsNamingTheProblem) {
    ExportedImageDesc desc;
    desc.name = "not an image";
    desc.extent = {24, 16};
    desc.shape = {VK_IMAGE_VIEW_TYPE_CUBE, 1, 6};
    expectRefused(desc, ExitCode::Runtime, {"cube", "24x16", "square"});
    desc.extent = {24, 24};
    desc.shape = {VK_IMAGE_VIEW_TYPE_CUBE, 1, 5};
    expectRefused(desc, ExitCode::Runtime, {"cube", "5 layer"});
    desc.shape = {VK_IMAGE_VIEW_TYPE_3D, 4, 2};
    expectRefused(desc, ExitCode::Runtime, {"3D", "2 layer"});
}

TEST_F(InteropImageTypesGpu, ARingOf3dR32fImagesCarriesEveryFrameFromCudaToVulkan) {
    const VkExtent2D extent{19, 11};
    const ImageShape shape{VK_IMAGE_VIEW_TYPE_3D, 7, 1};
    constexpr uint32_t kSlots = 2;
    constexpr uint32_t kFrames = 2 * kSlots + 1; // every slot reused, so the GPU waits matter
    constexpr uint32_t kTexel = 4;
    FrameTimelines timelines = createFrameTimelines(context, kSlots, "3D ring test");
    ImageRingDesc desc;
    desc.format = VK_FORMAT_R32_SFLOAT;
    desc.extent = extent;
    desc.shape = shape;
    desc.name = "3D ring";
    ImageRing ring = createImageRing(context, pool, timelines, desc);
    const uint32_t levels = ring.images[0].image.mipLevels;
    EXPECT_EQ(levels, 5u); // 19x11x7 → 9x5x3 → 4x2x1 → 2x1x1 → 1x1x1
    VkDeviceSize frameBytes = 0;
    const std::vector<VkBufferImageCopy> regions =
        mipChainRegions(extent, levels, kTexel, 16, frameBytes, shape);
    frameBytes = (frameBytes + 15) & ~VkDeviceSize(15); // frames start 16-byte aligned too
    GpuBuffer readback =
        createBuffer(device, frameBytes * kFrames, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
                     "3D ring readback");
    const auto salt = [](uint64_t f) { return uint32_t(f * 7919 + 1); };

    // Each frame's submission: acquire its slot, copy every level and slice out, release.
    std::vector<VkCommandBuffer> cmds(kFrames);
    VkCommandBufferAllocateInfo alloc{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    alloc.commandPool = pool;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = kFrames;
    VK_CHECK(vkAllocateCommandBuffers(device.handle, &alloc, cmds.data()));
    for (uint64_t f = 0; f < kFrames; ++f) {
        VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        VK_CHECK(vkBeginCommandBuffer(cmds[f], &begin));
        recordAcquire(cmds[f], context, ring, f, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                      VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        std::vector<VkBufferImageCopy> at = regions;
        for (VkBufferImageCopy& r : at)
            r.bufferOffset += f * frameBytes;
        vkCmdCopyImageToBuffer(cmds[f], vulkanSlot(ring, f).image.handle,
                               VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.handle,
                               uint32_t(at.size()), at.data());
        recordRelease(cmds[f], context, ring, f, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                      VK_PIPELINE_STAGE_2_COPY_BIT);
        VK_CHECK(vkEndCommandBuffer(cmds[f]));
    }
    // All frames enqueued up front, CUDA then Vulkan, with no host wait in between.
    for (uint64_t f = 0; f < kFrames; ++f) {
        cudaBeginFrame(timelines, f, stream);
        writeEveryLevel(cudaSlot(ring, f), extent, shape, kTexel, salt(f), stream);
        cudaEndFrame(timelines, f, stream);
        const VkSemaphoreSubmitInfo wait =
            drawWaitInfo(timelines, f, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
        const VkSemaphoreSubmitInfo signal = drawSignalInfo(timelines, f);
        submitCommands(device, cmds[f], {&wait, 1}, {&signal, 1});
    }
    waitTimeline(device, timelines.released.semaphore, kFrames, "the 3D ring's released timeline");
    // The layer cannot see an exported semaphore's payload; a queue wait retires the work.
    VK_CHECK(vkQueueWaitIdle(device.queue));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    vkFreeCommandBuffers(device.handle, pool, kFrames, cmds.data());

    uint32_t wrongFrames = 0;
    std::string first;
    const auto* bytes = static_cast<const uint8_t*>(readback.mapped);
    for (uint64_t f = 0; f < kFrames; ++f) {
        Comparison c;
        for (uint32_t level = 0; level < levels; ++level)
            compareLevel(bytes + f * frameBytes + regions[level].bufferOffset, extent, shape, level,
                         kTexel, salt(f), c);
        if (c.mismatches > 0 && first.empty())
            first = "frame " + std::to_string(f) + ", " + c.firstMismatch;
        wrongFrames += c.mismatches > 0;
    }
    EXPECT_EQ(wrongFrames, 0u) << "first wrong: " << first;
    destroyBuffer(device, readback);
    destroyFrameTimelines(context, timelines);
    destroyImageRing(context, ring);
}

} // namespace
} // namespace estuary::test
