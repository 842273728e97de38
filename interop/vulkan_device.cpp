#include "dispatch.h"
#include "estuary/interop/device_match.h"
#include "vk_result.h"

#include <dlfcn.h>

#include <cstring>
#include <string>

namespace estuary::interop {

PFN_vkGetInstanceProcAddr resolveGetInstanceProcAddr(PFN_vkGetInstanceProcAddr getInstanceProcAddr,
                                                     std::shared_ptr<void>& library) {
    if (getInstanceProcAddr) return getInstanceProcAddr;
    void* handle = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        throw unsupported(std::string("interop was given no vkGetInstanceProcAddr and cannot open "
                                      "the Vulkan loader libvulkan.so.1: ") +
                          dlerror());
    library = std::shared_ptr<void>(handle, [](void* h) { dlclose(h); });
    const auto entry =
        reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle, "vkGetInstanceProcAddr"));
    if (!entry) throw unsupported("libvulkan.so.1 exports no vkGetInstanceProcAddr");
    return entry;
}

Error missingFunction(const char* name, const char* from) {
    return unsupported(std::string("interop needs ") + name + " (" + from +
                       "), which the Vulkan instance or device it was given does not offer: "
                       "create them for Vulkan 1.3, the device with requiredDeviceExtensions()");
}

Context createContext(const VulkanDevice& device) {
    if (!device.instance || !device.physicalDevice || !device.device || !device.queue)
        throw usageError("createContext: the VulkanDevice needs its instance, physical device, "
                         "device and queue");
    auto fn = std::make_shared<Dispatch>();
    const PFN_vkGetInstanceProcAddr instanceProc =
        resolveGetInstanceProcAddr(device.getInstanceProcAddr, fn->library);
#define ESTUARY_INTEROP_LOAD_INSTANCE(name, from)                                                  \
    fn->name = reinterpret_cast<PFN_##name>(instanceProc(device.instance, #name));                 \
    if (!fn->name) throw missingFunction(#name, from);
    ESTUARY_INTEROP_INSTANCE_FUNCTIONS(ESTUARY_INTEROP_LOAD_INSTANCE)
#undef ESTUARY_INTEROP_LOAD_INSTANCE
#define ESTUARY_INTEROP_LOAD_DEVICE(name, from)                                                    \
    fn->name = reinterpret_cast<PFN_##name>(fn->vkGetDeviceProcAddr(device.device, #name));        \
    if (!fn->name) throw missingFunction(#name, from);
    ESTUARY_INTEROP_DEVICE_FUNCTIONS(ESTUARY_INTEROP_LOAD_DEVICE)
#undef ESTUARY_INTEROP_LOAD_DEVICE
#define ESTUARY_INTEROP_LOAD_EXTENSION(name, from)                                                 \
    fn->name = reinterpret_cast<PFN_##name>(fn->vkGetDeviceProcAddr(device.device, #name));
    ESTUARY_INTEROP_EXTENSION_FUNCTIONS(ESTUARY_INTEROP_LOAD_EXTENSION)
#undef ESTUARY_INTEROP_LOAD_EXTENSION
    if (device.debugUtils) {
        // An instance extension: its functions come through the instance.
        fn->vkSetDebugUtilsObjectNameEXT = reinterpret_cast<PFN_vkSetDebugUtilsObjectNameEXT>(
            instanceProc(device.instance, "vkSetDebugUtilsObjectNameEXT"));
        if (!fn->vkSetDebugUtilsObjectNameEXT)
            throw missingFunction("vkSetDebugUtilsObjectNameEXT",
                                  VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }

    Context context;
    context.vulkan = device;
    fn->vkGetPhysicalDeviceMemoryProperties(device.physicalDevice, &context.memory);
    VkPhysicalDeviceProperties properties{};
    fn->vkGetPhysicalDeviceProperties(device.physicalDevice, &properties);
    context.deviceName = properties.deviceName;
    context.fn = std::move(fn);
    return context;
}

std::vector<const char*> requiredDeviceExtensions() {
    return {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
}

std::vector<VulkanDeviceInfo> listVulkanDevices(VkInstance instance,
                                                PFN_vkGetInstanceProcAddr getInstanceProcAddr) {
    std::shared_ptr<void> library;
    const PFN_vkGetInstanceProcAddr instanceProc =
        resolveGetInstanceProcAddr(getInstanceProcAddr, library);
    const auto load = [&](const char* name, const char* from) {
        const PFN_vkVoidFunction function = instanceProc(instance, name);
        if (!function) throw missingFunction(name, from);
        return function;
    };
    const auto enumerateDevices = reinterpret_cast<PFN_vkEnumeratePhysicalDevices>(
        load("vkEnumeratePhysicalDevices", "Vulkan 1.0"));
    const auto enumerateGroups = reinterpret_cast<PFN_vkEnumeratePhysicalDeviceGroups>(
        load("vkEnumeratePhysicalDeviceGroups", "Vulkan 1.1"));
    const auto propertiesOf = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
        load("vkGetPhysicalDeviceProperties2", "Vulkan 1.1"));

    uint32_t count = 0;
    const VkResult listed = enumerateDevices(instance, &count, nullptr);
    if (listed == VK_ERROR_INITIALIZATION_FAILED)
        throw unsupported("a Vulkan driver is installed but offers no usable device "
                          "(vkEnumeratePhysicalDevices returned VK_ERROR_INITIALIZATION_FAILED)");
    VK_CHECK(listed);
    std::vector<VkPhysicalDevice> handles(count);
    VK_CHECK(enumerateDevices(instance, &count, handles.data()));
    uint32_t groupCount = 0;
    VK_CHECK(enumerateGroups(instance, &groupCount, nullptr));
    std::vector<VkPhysicalDeviceGroupProperties> groups(
        groupCount,
        VkPhysicalDeviceGroupProperties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES});
    VK_CHECK(enumerateGroups(instance, &groupCount, groups.data()));

    std::vector<VulkanDeviceInfo> devices;
    for (VkPhysicalDevice handle : handles) {
        VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                               &ids};
        propertiesOf(handle, &properties);
        VulkanDeviceInfo info;
        info.handle = handle;
        info.name = properties.properties.deviceName;
        info.type = properties.properties.deviceType;
        info.apiVersion = properties.properties.apiVersion;
        std::memcpy(info.uuid.data(), ids.deviceUUID, VK_UUID_SIZE);
        std::memcpy(info.driverUuid.data(), ids.driverUUID, VK_UUID_SIZE);
        for (const VkPhysicalDeviceGroupProperties& group : groups)
            for (uint32_t i = 0; i < group.physicalDeviceCount; ++i)
                if (group.physicalDevices[i] == handle)
                    info.deviceGroupSize = group.physicalDeviceCount;
        devices.push_back(info);
    }
    return devices;
}

} // namespace estuary::interop
