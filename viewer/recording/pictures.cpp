// The picture of the last frame ended, as pixels or a PNG (estuary_screenshot, estuary_read_pixels,
// F12). Headless, the offscreen target still holds it. In a window the swapchain image is gone
// once presented, so the frame is drawn again, views and UI, into an offscreen image of the
// window's size and format: its slot is not written again before the next frame begins, so the
// picture is the same. Between frames only; waits for the GPU (an explicit request).
#include "viewer.h"
#include "output_file.h"
#include "png.h"
#include "vk_check.h"

#include <cstring>
#include <filesystem>

namespace estuary::lib {
namespace {

std::vector<uint8_t> copyOut(estuary_viewer& v, const OffscreenTarget& target,
                             const std::function<void(VkCommandBuffer)>& draw) {
    submitAndWait(v.device, v.pool, [&](VkCommandBuffer cmd) {
        if (draw) draw(cmd);
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {target.image.extent.width, target.image.extent.height, 1};
        vkCmdCopyImageToBuffer(cmd, target.image.handle, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                               target.readback.handle, 1, &region);
        recordMemoryBarrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                            VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    });
    return readbackPixels(target);
}

// The last frame drawn again into `target` (of the window's format): its slot taken from CUDA once
// more (CUDA finished writing it before that frame's draw, and writes it again only in a frame
// not begun yet), the views and the last UI, the slot handed back.
void redrawLastFrame(estuary_viewer& v, VkCommandBuffer cmd, const OffscreenTarget& target) {
    estuary_frame last;
    last.viewer = &v;
    last.index = v.nextFrame - 1;
    last.slot = uint32_t(last.index % v.slots);
    last.entry = uint32_t(last.index % v.hostRing);
    DrawSet set = drawSet(v, last);
    std::erase_if(set.images,
                  [](const estuary_image* i) { return i->writer != ESTUARY_WRITER_CUDA; });
    std::erase_if(set.buffers,
                  [](const estuary_buffer* b) { return b->writer != ESTUARY_WRITER_CUDA; });
    recordBeforeDraw(v, cmd, last.index, set, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT);
    recordColormapUploads(v.kit, cmd);
    recordBeginTarget(cmd, target);
    const VkExtent2D extent = target.image.extent;
    recordViews(v, cmd, last.index, target.image.handle, target.image.view, extent);
    if (overlayWanted(v)) recordOverlay(v, cmd, target.image.view, extent);
    recordEndTarget(cmd, target, false);
    recordAfterDraw(v, cmd, last.index, set);
}

} // namespace

std::vector<uint8_t> readPixels(estuary_viewer& v, VkExtent2D& extent) {
    if (v.nextFrame == 0)
        throw usageError("no frame has been drawn yet: the picture exists after the first "
                         "estuary_end_frame");
    waitIdle(v, "reading the picture");
    if (v.gl) return readGlPixels(v, extent);
    if (v.headless) {
        extent = v.offscreen.image.extent;
        return copyOut(v, v.offscreen, nullptr);
    }
    extent = windowExtent(v);
    OffscreenTarget target = createOffscreenTarget(v.device, extent, v.targetFormat);
    std::vector<uint8_t> pixels;
    try {
        pixels = copyOut(v, target, [&](VkCommandBuffer cmd) { redrawLastFrame(v, cmd, target); });
    } catch (...) {
        destroyOffscreenTarget(v.device, target);
        overlayForgetTargets(v);
        throw;
    }
    destroyOffscreenTarget(v.device, target);
    overlayForgetTargets(v);
    const bool bgra = v.targetFormat == VK_FORMAT_B8G8R8A8_UNORM;
    for (size_t p = 0; p < pixels.size(); p += 4) {
        if (bgra) std::swap(pixels[p], pixels[p + 2]);
        pixels[p + 3] = 255; // the window is opaque; the UI's blending may leave alpha below 1
    }
    return pixels;
}

void writeScreenshot(estuary_viewer& v, const std::filesystem::path& path) {
    // A folder is a wrong argument, not a failed write: ESTUARY_ERROR_INVALID_ARGUMENT, as the
    // estuary program's --screenshot of a folder is a usage error (exit 2). Checked before the
    // wait, which a bad path need not cost.
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        throw usageError("path " + path.string() + " is a folder: give the PNG's file name");
    VkExtent2D extent{};
    const std::vector<uint8_t> pixels = readPixels(v, extent);
    writeFileAtomically(path, encodePng(extent.width, extent.height, pixels.data()));
}

// F12: estuary-screenshot-NNN.png in the screenshot folder (or the working folder), the lowest NNN
// not taken; never replaces a file. A failure is shown in the window, and the run goes on.
void writeNumberedScreenshot(estuary_viewer& v) {
    try {
        VkExtent2D extent{};
        const std::vector<uint8_t> pixels = readPixels(v, extent);
        const std::string png = encodePng(extent.width, extent.height, pixels.data());
        for (int attempt = 0; attempt < 10000; ++attempt) {
            char name[64];
            std::snprintf(name, sizeof(name), "estuary-screenshot-%03u.png", v.screenshotCount++);
            const std::filesystem::path path = v.screenshotDir / name;
            std::error_code ec;
            if (std::filesystem::exists(path, ec) || !writeNewFile(path.string(), png)) continue;
            logMessage(v, ESTUARY_LOG_INFO, "wrote " + path.string());
            showNotice(v, "wrote " + path.string(), false);
            return;
        }
        throw runtimeError("no free screenshot name in " + (v.screenshotDir.empty()
                                                                ? std::string("the working folder")
                                                                : v.screenshotDir.string()));
    } catch (const Error& e) {
        logMessage(v, ESTUARY_LOG_ERROR, std::string("screenshot failed: ") + e.what());
        showNotice(v, std::string("screenshot failed: ") + e.what(), true);
    }
}

} // namespace estuary::lib
