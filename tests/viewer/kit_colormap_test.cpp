// A colormap made while frames are in flight costs them no wait: with frame 1's draw held on the
// GPU (ESTUARY_FAULT_VULKAN_STALL's semaphore, signalled here from the host), the colormap is
// made, staged and not uploaded; frame 1, submitted before it, draws its old colours once
// released; the next frame's command buffer uploads the new row and draws with it.
#include "add_views.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>

namespace estuary {
namespace {

using namespace lib;

std::array<int, 3> centre(estuary_viewer& v) {
    VkExtent2D extent{};
    const std::vector<uint8_t> rgba = readPixels(v, extent);
    const size_t i = (size_t(extent.height / 2) * extent.width + extent.width / 2) * 4;
    return {rgba[i], rgba[i + 1], rgba[i + 2]};
}

void drawFrame(estuary_viewer& v, estuary_image& image, float value) {
    estuary_frame* frame = beginFrame(v, nullptr);
    image.writtenFrame = frame->index;
    float* texels = static_cast<float*>(image.staging[frame->entry].mapped);
    std::fill(texels, texels + 16, value);
    endFrame(*frame);
}

TEST(KitColormap, AColormapMadeWhileAFrameIsHeldOnTheGpuWaitsForNothing) {
    estuary_viewer_desc d{};
    d.struct_size = sizeof d;
    d.api_version = ESTUARY_API_VERSION;
    d.display = ESTUARY_DISPLAY_HEADLESS;
    d.cuda = ESTUARY_CUDA_OFF;
    d.flags = ESTUARY_VIEWER_VALIDATION | ESTUARY_VIEWER_NO_PIPELINE_CACHE;
    d.width = 64;
    d.height = 64;
    d.frames_in_flight = 2;
    d.draw_path = ESTUARY_DRAW_RASTER;
    estuary_viewer* v = createViewer(d);
    estuary_image_desc id{};
    id.struct_size = sizeof id;
    id.format = ESTUARY_FORMAT_R32_FLOAT;
    id.kind = ESTUARY_IMAGE_2D;
    id.width = id.height = 4;
    id.writer = ESTUARY_WRITER_HOST;
    estuary_image* image = createImage(*v, id);
    estuary_field_view_desc fd{};
    fd.struct_size = sizeof fd;
    fd.image = image;
    estuary_view* view = addFieldView(*v, fd);

    drawFrame(*v, *image, 0.0f); // frame 0: viridis
    waitFrame(*v, 0, "test");
    const std::array<int, 3> viridisFirst = centre(*v);
    v->faultVulkanStall = 1;
    drawFrame(*v, *image, 0.0f); // frame 1: held on the GPU until the test signals
    ASSERT_NE(v->stallSemaphore, VK_NULL_HANDLE);

    estuary_colormap_stop stops[] = {{0.0f, {1, 0, 0, 1}}, {1.0f, {0, 0, 1, 1}}};
    estuary_colormap_desc cd{};
    cd.struct_size = sizeof cd;
    cd.stops = stops;
    cd.stop_count = 2;
    const estuary_colormap red = createColormap(*v, cd);
    EXPECT_LT(timelineValue(v->device, v->frameTimeline), 2u) << "frame 1 was still in flight";
    EXPECT_EQ(v->kit.pendingRows, std::vector<uint32_t>{uint32_t(red)}) << "staged, not uploaded";
    EXPECT_EQ(v->kit.uploadsRecorded, 0u);

    // Frame 1, submitted before the colormap, draws what it was recorded with.
    VkSemaphoreSignalInfo release{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    release.semaphore = v->stallSemaphore;
    release.value = 1;
    ASSERT_EQ(vkSignalSemaphore(v->device.handle, &release), VK_SUCCESS);
    waitFrame(*v, 1, "test");
    EXPECT_EQ(centre(*v), viridisFirst);

    estuary_view_params p = view->params;
    p.colormap = red;
    setViewParams(*v, *view, p);
    drawFrame(*v, *image, 0.0f); // frame 2: records the upload, draws the new row
    EXPECT_TRUE(v->kit.pendingRows.empty());
    EXPECT_EQ(v->kit.uploadsRecorded, 1u);
    waitFrame(*v, 2, "test");
    EXPECT_EQ(centre(*v), (std::array<int, 3>{255, 0, 0}));
    destroyView(*v, view);
    destroyImage(*v, image);
    EXPECT_EQ(destroyViewer(v), 0u) << "validation messages (printed above)";
}

} // namespace
} // namespace estuary
