// What the installed package offers another project, with no GPU needed: libestuary through its
// C++ layer (a headless viewer drawing a host-written field, checked pixel by pixel against the
// installed viridis table) and interop over a Vulkan device this program made itself with the
// system's loader (an exported image, its memory as an fd). Prints each check; exits 1 when any
// fails, 3 (unsupported) when this machine has no Vulkan device at all.
#include <estuary/estuary.hpp>
#include <estuary/interop.h>

#include <vulkan/vulkan.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace interop = estuary::interop;
int failures = 0;

void check(bool ok, const char* what) {
    std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (!ok) ++failures;
}

// The installed colormap table: "#" comment lines, then one "r g b" line per entry, 0..1.
std::vector<std::array<float, 3>> loadTable(const std::filesystem::path& path) {
    std::vector<std::array<float, 3>> table;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::array<float, 3> rgb{};
        if (!line.empty() && line[0] != '#' &&
            std::sscanf(line.c_str(), "%f %f %f", &rgb[0], &rgb[1], &rgb[2]) == 3)
            table.push_back(rgb);
    }
    return table;
}

// A 64x32 field, 0 on the left half and 1 on the right, in a 64x32 picture without colorbar: the
// halves must be viridis' ends.
void checkViewer() {
    estuary::ViewerDesc desc;
    desc.display = ESTUARY_DISPLAY_HEADLESS;
    desc.width = 64;
    desc.height = 32;
    desc.cuda = ESTUARY_CUDA_OFF;
    desc.flags = ESTUARY_VIEWER_VALIDATION;
    estuary::Viewer viewer(desc);
    const estuary_viewer_info info = viewer.info();
    std::printf("     %s (%s), data from %s\n", info.device_name, info.device_type, info.data_dir);
    check(estuary_version() == ESTUARY_API_VERSION, "libestuary is the version of its header");
    estuary_image_desc image{
        .format = ESTUARY_FORMAT_R32_FLOAT, .kind = ESTUARY_IMAGE_2D, .width = 64, .height = 32};
    image.writer = ESTUARY_WRITER_HOST;
    estuary::Image field = viewer.image(image);
    estuary_field_view_desc view{.image = field.get()};
    view.flags = ESTUARY_VIEW_NO_COLORBAR;
    const estuary::View shown = viewer.fieldView(view);
    const estuary::Frame frame = viewer.beginFrame();
    float* texels = frame.hostLevel<float>(field);
    for (int y = 0; y < 32; ++y)
        for (int x = 0; x < 64; ++x)
            texels[y * 64 + x] = x < 32 ? 0.0f : 1.0f;
    frame.end();
    std::vector<uint8_t> rgba(64 * 32 * 4);
    estuary::check(estuary_read_pixels(viewer.get(), rgba.data(), rgba.size()));
    const auto viridis =
        loadTable(std::filesystem::path(info.data_dir) / "assets" / "colormaps" / "viridis.txt");
    check(viridis.size() == 256, "the installed viridis table has 256 entries");
    bool ends = !viridis.empty();
    for (int c = 0; c < 3 && ends; ++c)
        ends = std::abs(rgba[(16 * 64 + 4) * 4 + c] - viridis.front()[c] * 255.0f) <= 2.0f &&
               std::abs(rgba[(16 * 64 + 60) * 4 + c] - viridis.back()[c] * 255.0f) <= 2.0f;
    check(ends, "libestuary draws the field's 0 and 1 as viridis' ends");
    check(viewer.close() == 0, "no validation messages");
}

// interop on a device of this program's own, through the system loader.
void checkInterop() {
    check(interop::shareableFormats().size() == 23, "interop: 23 shareable formats");
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo instanceInfo{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    instanceInfo.pApplicationInfo = &app;
    VkInstance instance = VK_NULL_HANDLE;
    if (vkCreateInstance(&instanceInfo, nullptr, &instance) != VK_SUCCESS) {
        std::printf("skip interop on a device of our own: no Vulkan 1.3 instance\n");
        return;
    }
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> physicals(count);
    vkEnumeratePhysicalDevices(instance, &count, physicals.data());
    const auto offers = [](VkPhysicalDevice physical, const char* name) {
        uint32_t n = 0;
        vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
        std::vector<VkExtensionProperties> all(n);
        vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, all.data());
        return std::any_of(all.begin(), all.end(), [&](const VkExtensionProperties& e) {
            return std::strcmp(e.extensionName, name) == 0;
        });
    };
    const auto found = std::find_if(physicals.begin(), physicals.end(), [&](VkPhysicalDevice p) {
        return offers(p, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    });
    if (found == physicals.end()) {
        std::printf("skip interop on a device of our own: no device exports memory as an fd\n");
        vkDestroyInstance(instance, nullptr);
        return;
    }
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority; // family 0: graphics on the drivers here
    const char* extensions[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};
    VkDeviceCreateInfo deviceInfo{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    deviceInfo.queueCreateInfoCount = 1;
    deviceInfo.pQueueCreateInfos = &queueInfo;
    deviceInfo.enabledExtensionCount = 1;
    deviceInfo.ppEnabledExtensionNames = extensions;
    VkDevice device = VK_NULL_HANDLE;
    check(vkCreateDevice(*found, &deviceInfo, nullptr, &device) == VK_SUCCESS,
          "a VkDevice of our own");
    if (!device) return;
    VkQueue queue = VK_NULL_HANDLE;
    vkGetDeviceQueue(device, 0, 0, &queue);
    {
        interop::VulkanDevice mine;
        mine.instance = instance;
        mine.physicalDevice = *found;
        mine.device = device;
        mine.queue = queue;
        mine.getInstanceProcAddr = vkGetInstanceProcAddr; // the system loader's
        const interop::Context context = interop::createContext(mine);
        interop::ExportedImageDesc desc;
        desc.format = VK_FORMAT_R32G32B32A32_SFLOAT;
        desc.extent = {300, 200};
        interop::ExportedImage image = interop::createExportedImage(context, desc);
        check(image.image.mipLevels == 9, "interop: an exported 300x200 image with 9 levels");
        const int fd = interop::exportMemoryFd(context, image.image.memory);
        check(fd >= 0, "interop: its memory as an fd");
        if (fd >= 0) close(fd);
        interop::destroyExportedImage(context, image);
    }
    vkDestroyDevice(device, nullptr);
    vkDestroyInstance(instance, nullptr);
}

} // namespace

int main() {
    try {
        checkViewer();
        checkInterop();
    } catch (const estuary::Error& e) {
        std::printf("%s: %s\n", e.status() == ESTUARY_ERROR_UNSUPPORTED ? "skip" : "FAIL",
                    e.what());
        return e.status();
    }
    std::printf("%d check(s) failed\n", failures);
    return failures ? 1 : 0;
}
