// Uses what the installed package exports, with no GPU needed: interop's mapping tables, a CPU
// Gray-Scott simulation from cuda_sim, the renderer's data folder (estuary_DATA_DIR) and colormap
// loader, a Vulkan device from the foundation and a field drawn by the installed renderer with the
// installed shaders (skipped, saying why, where there is no Vulkan driver) and, in installs with
// CUDA, the CUDA runtime through interop. Prints each check; exits non-zero when any fails.
#include "colormap.h"
#include "context.h"
#include "offscreen.h"
#include "renderer.h"
#include "cpu_gray_scott.h"
#include "errors.h"
#include "estuary/interop/format_tables.h"
#include "simulation.h"
#ifdef ESTUARY_HAVE_CUDA
#include "estuary/interop/cuda_devices.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

using namespace estuary;

namespace {

int failures = 0;

void check(bool ok, const char* what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) ++failures;
}

void checkInteropTables() {
    const auto r32 = interop::channelFormatFor(VK_FORMAT_R32_SFLOAT);
    check(r32 && r32->x == 32 && r32->y == 0 && r32->kind == interop::ChannelKind::Float,
          "interop: R32_SFLOAT maps to one 32-bit float channel");
    check(interop::shareableFormats().size() == 23, "interop: 23 shareable formats");
}

void checkSimulation() {
    check(sim::fullMipLevels(300, 200) == 9, "cuda_sim: a 300x200 image has 9 mip levels");
    check(sim::texelBytes(sim::TexelFormat::RGBA32Float) == 16,
          "cuda_sim: an RGBA32F texel is 16 bytes");
    check(sim::checkDefinition(sim::grayScottSimulation()).empty(),
          "cuda_sim: the gray-scott definition is usable");

    sim::CpuGrayScott grayScott(32, 32, 7);
    grayScott.step(sim::GrayScottParams{}, 50);
    const auto& v = grayScott.v();
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    check(std::isfinite(*lo) && std::isfinite(*hi) && *lo >= 0 && *hi <= 1 && *lo < *hi,
          "cuda_sim: 50 CPU Gray-Scott steps leave v in [0, 1], not uniform");
}

void checkDataDir() {
    const std::filesystem::path data = ESTUARY_DATA_DIR;
    std::printf("     estuary_DATA_DIR = %s\n", data.c_str());
    check(std::filesystem::is_regular_file(data / "shaders" / "field.frag.spv") &&
              std::filesystem::is_regular_file(data / "shaders" / "fullscreen.vert.spv"),
          "renderer: the SPIR-V is installed in estuary_DATA_DIR/shaders");
    for (const char* name : kColormapNames) {
        const auto table =
            loadColormapFile(data / "assets" / "colormaps" / (std::string(name) + ".txt"));
        check(table.size() == kColormapSize, "renderer: an installed colormap loads in full");
    }
}

// Draws a 2x1 field (0 and 1) through viridis into a 2x1 target with the installed renderer: the
// two pixels must be viridis' first and last entries.
void checkDrawing(const Device& device) {
    const VkCommandPool pool = createCommandPool(device, 0, "consumer");
    RendererDesc desc;
    desc.dataDir = ESTUARY_DATA_DIR;
    Renderer renderer = createRenderer(device, pool, desc);
    GpuImage field = createImage2D(device, {2, 1}, VK_FORMAT_R32_SFLOAT, 1,
                                   VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT,
                                   "consumer field");
    const float values[2] = {0.0f, 1.0f};
    VkDeviceSize bytes = 0;
    const auto regions = mipChainRegions({2, 1}, 1, sizeof(float), 1, bytes);
    uploadForSampling(device, pool, field.handle,
                      {reinterpret_cast<const uint8_t*>(values), sizeof(values)}, regions);
    setFieldImage(device, renderer, 0, field.view, {2, 1});
    OffscreenTarget target = createOffscreenTarget(device, {2, 1});
    submitAndWait(device, pool, [&](VkCommandBuffer cmd) {
        recordBeginTarget(cmd, target);
        recordDraw(renderer, cmd, 0, target.image.view, {2, 1}, ViewParams{});
        recordEndTarget(cmd, target, true);
    });
    const std::vector<uint8_t> pixels = readbackPixels(target);
    const auto viridis = loadColormapFile(desc.dataDir / "assets" / "colormaps" / "viridis.txt");
    bool ends = true;
    for (int c = 0; c < 3; ++c)
        ends = ends && std::abs(pixels[size_t(c)] - viridis.front()[size_t(c)] * 255.0f) <= 1.0f &&
               std::abs(pixels[size_t(4 + c)] - viridis.back()[size_t(c)] * 255.0f) <= 1.0f;
    check(ends, "renderer: the installed shaders draw a field's ends as viridis' ends");
    destroyOffscreenTarget(device, target);
    destroyImage(device, field);
    destroyRenderer(device, renderer);
    vkDestroyCommandPool(device.handle, pool, nullptr);
}

void checkVulkan() {
    try {
        Instance instance = createInstance({});
        const auto devices = listPhysicalDevices(instance.handle);
        for (const auto& device : devices)
            std::printf("     %s\n", describePhysicalDevice(device).c_str());
        check(instance.handle != VK_NULL_HANDLE && !devices.empty(),
              "foundation: a Vulkan instance sees at least one device");
        DeviceDesc desc;
        desc.physical = pickDefaultPhysicalDevice(instance.handle).handle;
        Device device = createDevice(instance, desc);
        checkDrawing(device);
        destroyDevice(device);
        destroyInstance(instance);
    } catch (const Error& e) {
        if (exitCode(e) != ExitCode::Unsupported) throw;
        std::printf("skip foundation and renderer: no Vulkan device here (%s)\n", e.what());
    }
}

void checkCudaRuntime() {
#ifdef ESTUARY_HAVE_CUDA
    const auto cuda = interop::listCudaDevices();
    std::printf("     %zu CUDA device(s)%s%s\n", cuda.devices.size(),
                cuda.problem.empty() ? "" : ": ", cuda.problem.c_str());
    check(cuda.devices.empty() != cuda.problem.empty(),
          "interop: the CUDA runtime lists devices, or says why there are none");
#else
    std::printf("     this install has no CUDA\n");
#endif
}

} // namespace

int main() {
    try {
        checkInteropTables();
        checkSimulation();
        checkDataDir();
        checkVulkan();
        checkCudaRuntime();
    } catch (const std::exception& e) {
        std::printf("FAIL %s\n", e.what());
        return 1;
    }
    std::printf("%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
