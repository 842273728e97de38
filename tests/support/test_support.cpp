#include "test_support.h"
#include "error.h"

#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include <array>
#include <cstdio>
#include <set>
#include <sys/wait.h>
#include <unistd.h>

namespace estuary::test {

std::filesystem::path binDir() {
    return std::filesystem::read_symlink("/proc/self/exe").parent_path();
}

std::filesystem::path estuaryBinary() {
    return binDir() / "estuary";
}

std::filesystem::path scratchDir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() /
               ("estuary-test-" + std::to_string(getpid())) / name;
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

DeviceDesc VulkanTest::makeDeviceDesc(VkInstance vkInstance) {
    DeviceDesc desc;
    desc.physical = pickDefaultPhysicalDevice(vkInstance).handle;
    return desc;
}

void VulkanTest::SetUp() {
    InstanceDesc desc;
    desc.validation = true;
    instance = createInstance(desc);
    device = createDevice(instance, makeDeviceDesc(instance.handle));
    pool = createCommandPool(device, VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT, "test pool");
}

void VulkanTest::TearDown() {
    if (device.handle) {
        vkDeviceWaitIdle(device.handle);
        vkDestroyCommandPool(device.handle, pool, nullptr);
        destroyDevice(device);
    }
    const uint32_t messages = validationMessageCount(instance);
    destroyInstance(instance);
    EXPECT_EQ(messages, 0u) << "the validation layer reported messages (printed above)";
}

ImageDiff compareRgba8(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b,
                       int perChannelTolerance) {
    ImageDiff diff;
    if (a.size() != b.size() || a.size() % 4 != 0) {
        diff.maxAbsDiff = 255;
        diff.failingFraction = 1.0;
        return diff;
    }
    size_t failing = 0;
    for (size_t p = 0; p < a.size(); p += 4) {
        bool fails = false;
        for (size_t c = 0; c < 4; ++c) {
            const int d = std::abs(int(a[p + c]) - int(b[p + c]));
            diff.maxAbsDiff = std::max(diff.maxAbsDiff, d);
            fails |= d > perChannelTolerance;
        }
        failing += fails;
    }
    diff.failingFraction = a.empty() ? 0.0 : double(failing) / double(a.size() / 4);
    return diff;
}

Rgba8Image loadPng(const std::filesystem::path& path) {
    Rgba8Image image;
    int channels = 0;
    unsigned char* data = stbi_load(path.c_str(), &image.width, &image.height, &channels, 4);
    if (!data)
        throw runtimeError("cannot read PNG " + path.string() + ": " + stbi_failure_reason());
    image.pixels.assign(data, data + size_t(image.width) * size_t(image.height) * 4);
    stbi_image_free(data);
    return image;
}

size_t countDistinctColors(const Rgba8Image& image, size_t cap) {
    std::set<uint32_t> colors;
    for (size_t p = 0; p + 3 < image.pixels.size() && colors.size() < cap; p += 4)
        colors.insert(uint32_t(image.pixels[p]) | uint32_t(image.pixels[p + 1]) << 8 |
                      uint32_t(image.pixels[p + 2]) << 16 | uint32_t(image.pixels[p + 3]) << 24);
    return colors.size();
}

ProcessResult runEstuary(const std::string& args) {
    ProcessResult result;
    const std::string command = "'" + estuaryBinary().string() + "' " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe) throw runtimeError("popen failed for: " + command);
    std::array<char, 4096> buffer{};
    size_t n = 0;
    while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
        result.output.append(buffer.data(), n);
    const int status = pclose(pipe);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
}

} // namespace estuary::test
