#include "context.h"
#include "vk_check.h"

#include <algorithm>
#include <dlfcn.h>
#include <link.h>
#include <mutex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace estuary {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL onDebugMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                              VkDebugUtilsMessageTypeFlagsEXT type,
                                              const VkDebugUtilsMessengerCallbackDataEXT* data,
                                              void* user) {
    auto* log = static_cast<ValidationLog*>(user);
    const bool isError = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    const bool isWarning = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT;
    const bool fromLayer = type & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                   VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT);
    // Loader chatter (general type) only counts when it is an error.
    if (!(isError || (isWarning && fromLayer))) return VK_FALSE;
    log->count.fetch_add(1);
    const char* text = data->pMessage ? data->pMessage : "(no message)";
    if (log->sink)
        log->sink(isError, text);
    else if (log->echo)
        std::fprintf(stderr, "[vulkan %s] %s\n", isError ? "error" : "warning", text);
    std::lock_guard<std::mutex> lock(log->mutex);
    if (log->firstMessages.size() < 16) log->firstMessages.emplace_back(text);
    return VK_FALSE;
}

// NVIDIA's Vulkan driver (libGLX_nvidia and libnvidia-tls, loaded by the loader for each instance
// and unloaded after the last one) takes static TLS that glibc never gives back when a library is
// unloaded: a process that made ~30 viewers one after another (a program loading libestuary with
// dlopen, as Python does) could load no driver any more ("cannot allocate memory in static TLS
// block"). Marking the driver's libraries, once loaded, as never unloaded keeps one copy.
int pinDriver(dl_phdr_info* info, size_t, void*) {
    const char* path = info->dlpi_name;
    if (path && std::strstr(path, "nvidia"))
        (void)dlopen(path, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE); // a reference never closed
    return 0;
}
void pinLoadedDrivers() {
    static std::once_flag pinned;
    std::call_once(pinned, [] { dl_iterate_phdr(pinDriver, nullptr); });
}

bool hasLayer(const char* name) {
    uint32_t count = 0;
    VK_CHECK(vkEnumerateInstanceLayerProperties(&count, nullptr));
    std::vector<VkLayerProperties> layers(count);
    VK_CHECK(vkEnumerateInstanceLayerProperties(&count, layers.data()));
    return std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) {
        return std::strcmp(l.layerName, name) == 0;
    });
}

bool hasInstanceExtension(const char* name) {
    uint32_t count = 0;
    VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr));
    std::vector<VkExtensionProperties> exts(count);
    VK_CHECK(vkEnumerateInstanceExtensionProperties(nullptr, &count, exts.data()));
    return std::any_of(exts.begin(), exts.end(), [&](const VkExtensionProperties& e) {
        return std::strcmp(e.extensionName, name) == 0;
    });
}

// The loader variables that pick drivers, when set: they often explain a missing driver.
std::string driverEnvironment() {
    std::string set;
    for (const char* name : {"VK_ICD_FILENAMES", "VK_DRIVER_FILES", "VK_ADD_DRIVER_FILES"})
        if (const char* value = std::getenv(name))
            set += std::string(set.empty() ? "" : ", ") + name + "=" + value;
    return set.empty() ? std::string() : " (the loader was pointed at drivers by " + set + ")";
}

// The calibrated-timestamps extension to enable, only when its time domains include the device's
// and CLOCK_MONOTONIC (steady_clock's, the host clock estuary measures with). The EXT where
// offered, else the KHR (same functions and values): validation layers older than the KHR
// promotion (Debian 12's) warn about an extension they do not know, and --validate fails on that.
const char* calibratedTimestampsExtension(VkInstance instance, VkPhysicalDevice physical,
                                          const std::vector<VkExtensionProperties>& available) {
    constexpr const char* kNames[][2] = {
        {VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME,
         "vkGetPhysicalDeviceCalibrateableTimeDomainsEXT"},
        {"VK_KHR_calibrated_timestamps", "vkGetPhysicalDeviceCalibrateableTimeDomainsKHR"}};
    for (const auto& [extension, query] : kNames) {
        const bool offered = std::any_of(available.begin(), available.end(), [&](auto& e) {
            return std::strcmp(e.extensionName, extension) == 0;
        });
        const auto domainsOf = reinterpret_cast<PFN_vkGetPhysicalDeviceCalibrateableTimeDomainsEXT>(
            vkGetInstanceProcAddr(instance, query));
        if (!offered || !domainsOf) continue;
        uint32_t count = 0;
        if (domainsOf(physical, &count, nullptr) != VK_SUCCESS) continue;
        std::vector<VkTimeDomainEXT> domains(count);
        if (domainsOf(physical, &count, domains.data()) != VK_SUCCESS) continue;
        const auto has = [&](VkTimeDomainEXT d) {
            return std::find(domains.begin(), domains.end(), d) != domains.end();
        };
        if (has(VK_TIME_DOMAIN_DEVICE_EXT) && has(VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT))
            return extension;
    }
    return nullptr;
}

std::string versionString(uint32_t v) {
    return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) +
           "." + std::to_string(VK_API_VERSION_PATCH(v));
}

} // namespace

Instance createInstance(const InstanceDesc& desc) {
    if (volkInitialize() != VK_SUCCESS)
        throw unsupported("no Vulkan loader found (libvulkan.so.1); install libvulkan1 and a "
                          "Vulkan driver (NVIDIA driver, or mesa-vulkan-drivers for lavapipe)");
    const uint32_t loaderVersion = volkGetInstanceVersion();
    if (loaderVersion < VK_API_VERSION_1_3)
        throw unsupported("the Vulkan loader supports only " + versionString(loaderVersion) +
                          "; estuary needs Vulkan 1.3");

    // The loader's first listing fails when a driver manifest it read is broken (a malformed
    // JSON gives VK_ERROR_OUT_OF_HOST_MEMORY): the environment's fault, not a failure while
    // running.
    uint32_t count = 0;
    if (const VkResult r = vkEnumerateInstanceExtensionProperties(nullptr, &count, nullptr);
        r != VK_SUCCESS)
        throw unsupported(std::string("the Vulkan loader cannot list its instance extensions (") +
                          vkResultName(r) +
                          "): a driver manifest (ICD JSON) it read is likely malformed or "
                          "unreadable" +
                          driverEnvironment());

    Instance instance;
    std::vector<const char*> extensions = desc.extensions;
    std::vector<const char*> layers;
    instance.debugUtils = hasInstanceExtension(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (instance.debugUtils) extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (desc.validation) {
        if (!hasLayer(kValidationLayer))
            throw unsupported(std::string("validation was requested but ") + kValidationLayer +
                              " is not installed (Debian: vulkan-validationlayers)");
        if (!instance.debugUtils)
            throw unsupported("validation was requested but VK_EXT_debug_utils is missing, so "
                              "its messages could not be counted");
        layers.push_back(kValidationLayer);
    }

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "estuary";
    app.applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
    app.pEngineName = "estuary";
    app.apiVersion = VK_API_VERSION_1_3;

    VkDebugUtilsMessengerCreateInfoEXT messengerInfo{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    messengerInfo.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                                    VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    messengerInfo.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                                VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    messengerInfo.pfnUserCallback = onDebugMessage;

    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    info.enabledLayerCount = static_cast<uint32_t>(layers.size());
    info.ppEnabledLayerNames = layers.data();
    if (desc.validation) {
        instance.validation = new ValidationLog();
        instance.validation->sink = desc.onMessage;
        messengerInfo.pUserData = instance.validation;
        // Also catches messages from vkCreateInstance/vkDestroyInstance themselves.
        info.pNext = &messengerInfo;
    }
    VkResult result = vkCreateInstance(&info, nullptr, &instance.handle);
    if (result != VK_SUCCESS) {
        delete instance.validation;
        if (result == VK_ERROR_INCOMPATIBLE_DRIVER)
            throw unsupported("no Vulkan driver could be loaded (vkCreateInstance returned "
                              "VK_ERROR_INCOMPATIBLE_DRIVER): install NVIDIA's driver, or "
                              "mesa-vulkan-drivers for lavapipe where there is no GPU" +
                              driverEnvironment());
        throwVkFailure(result, "vkCreateInstance", __FILE__, __LINE__);
    }
    volkLoadInstanceOnly(instance.handle);
    pinLoadedDrivers();
    if (desc.validation) {
        result = vkCreateDebugUtilsMessengerEXT(instance.handle, &messengerInfo, nullptr,
                                                &instance.messenger);
        if (result != VK_SUCCESS) { // the instance and the log must not leak
            destroyInstance(instance);
            throwVkFailure(result, "vkCreateDebugUtilsMessengerEXT", __FILE__, __LINE__);
        }
    }
    return instance;
}

void destroyInstance(Instance& instance) {
    if (instance.messenger)
        vkDestroyDebugUtilsMessengerEXT(instance.handle, instance.messenger, nullptr);
    if (instance.handle) vkDestroyInstance(instance.handle, nullptr);
    delete instance.validation;
    instance = Instance{};
}

uint32_t validationMessageCount(const Instance& instance) {
    return instance.validation ? instance.validation->count.load() : 0;
}

std::vector<PhysicalDeviceInfo> listPhysicalDevices(VkInstance instance) {
    uint32_t count = 0;
    const VkResult listed = vkEnumeratePhysicalDevices(instance, &count, nullptr);
    if (listed == VK_ERROR_INITIALIZATION_FAILED)
        throw unsupported("a Vulkan driver is installed but offers no usable device "
                          "(vkEnumeratePhysicalDevices returned VK_ERROR_INITIALIZATION_FAILED): "
                          "its hardware is absent or its kernel driver is not loaded" +
                          driverEnvironment());
    VK_CHECK(listed);
    std::vector<VkPhysicalDevice> handles(count);
    VK_CHECK(vkEnumeratePhysicalDevices(instance, &count, handles.data()));

    uint32_t groupCount = 0;
    VK_CHECK(vkEnumeratePhysicalDeviceGroups(instance, &groupCount, nullptr));
    std::vector<VkPhysicalDeviceGroupProperties> groups(
        groupCount,
        VkPhysicalDeviceGroupProperties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES});
    VK_CHECK(vkEnumeratePhysicalDeviceGroups(instance, &groupCount, groups.data()));

    std::vector<PhysicalDeviceInfo> result;
    for (VkPhysicalDevice handle : handles) {
        PhysicalDeviceInfo info;
        info.handle = handle;
        VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &ids};
        vkGetPhysicalDeviceProperties2(handle, &props);
        info.properties = props.properties;
        std::memcpy(info.uuid.data(), ids.deviceUUID, VK_UUID_SIZE);
        std::memcpy(info.driverUuid.data(), ids.driverUUID, VK_UUID_SIZE);
        for (const auto& group : groups)
            for (uint32_t i = 0; i < group.physicalDeviceCount; ++i)
                if (group.physicalDevices[i] == handle)
                    info.deviceGroupSize = group.physicalDeviceCount;
        result.push_back(info);
    }
    return result;
}

std::string describePhysicalDevice(const PhysicalDeviceInfo& info) {
    std::ostringstream s;
    s << info.properties.deviceName << " (" << deviceTypeName(info.properties.deviceType)
      << ", Vulkan " << versionString(info.properties.apiVersion) << ", UUID "
      << formatUuid(info.uuid.data()) << ")";
    return s.str();
}

bool deviceOffersExtension(VkPhysicalDevice physical, const char* name) {
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

PhysicalDeviceInfo pickDefaultPhysicalDevice(VkInstance instance) {
    auto rank = [](VkPhysicalDeviceType t) {
        switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
            return 4;
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
            return 3;
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
            return 2;
        case VK_PHYSICAL_DEVICE_TYPE_CPU:
            return 1;
        default:
            return 0;
        }
    };
    const auto devices = listPhysicalDevices(instance);
    const PhysicalDeviceInfo* best = nullptr;
    for (const auto& d : devices) {
        if (d.properties.apiVersion < VK_API_VERSION_1_3) continue;
        if (!best || rank(d.properties.deviceType) > rank(best->properties.deviceType)) best = &d;
    }
    if (!best) {
        std::string msg = "no Vulkan 1.3 device found; devices seen:";
        for (const auto& d : devices)
            msg += "\n  " + describePhysicalDevice(d);
        if (devices.empty())
            msg += " none (install a Vulkan driver: NVIDIA's, or mesa-vulkan-drivers)";
        throw unsupported(msg);
    }
    return *best;
}

Device createDevice(const Instance& instance, const DeviceDesc& desc) {
    Device device;
    device.physical = desc.physical;
    device.debugUtils = instance.debugUtils;
    vkGetPhysicalDeviceProperties(desc.physical, &device.properties);
    vkGetPhysicalDeviceMemoryProperties(desc.physical, &device.memory);
    const std::string name = device.properties.deviceName;
    if (device.properties.apiVersion < VK_API_VERSION_1_3)
        throw unsupported(name + " supports Vulkan " + versionString(device.properties.apiVersion) +
                          "; estuary needs 1.3");

    uint32_t extCount = 0;
    VK_CHECK(vkEnumerateDeviceExtensionProperties(desc.physical, nullptr, &extCount, nullptr));
    std::vector<VkExtensionProperties> available(extCount);
    VK_CHECK(
        vkEnumerateDeviceExtensionProperties(desc.physical, nullptr, &extCount, available.data()));
    for (const char* ext : desc.extensions) {
        const bool found = std::any_of(available.begin(), available.end(), [&](auto& e) {
            return std::strcmp(e.extensionName, ext) == 0;
        });
        if (!found) throw unsupported(name + " lacks the device extension " + ext);
    }
    std::vector<const char*> extensions = desc.extensions;
    device.calibratedTimestampsExtension =
        calibratedTimestampsExtension(instance.handle, desc.physical, available);
    if (device.calibratedTimestampsExtension &&
        std::none_of(extensions.begin(), extensions.end(), [&](const char* e) {
            return std::strcmp(e, device.calibratedTimestampsExtension) == 0;
        }))
        extensions.push_back(device.calibratedTimestampsExtension);

    VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan13Features f13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                         &f12};
    VkPhysicalDeviceFeatures2 supported{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f13};
    vkGetPhysicalDeviceFeatures2(desc.physical, &supported);
    if (!f12.timelineSemaphore) throw unsupported(name + " lacks the timelineSemaphore feature");
    if (!f13.dynamicRendering) throw unsupported(name + " lacks the dynamicRendering feature");
    if (!f13.synchronization2) throw unsupported(name + " lacks the synchronization2 feature");
    // glslc for Vulkan 1.3 declares compute workgroup sizes with LocalSizeId (volume.comp).
    if (!f13.maintenance4) throw unsupported(name + " lacks the maintenance4 feature");

    uint32_t familyCount = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(desc.physical, &familyCount, nullptr);
    std::vector<VkQueueFamilyProperties> families(familyCount);
    vkGetPhysicalDeviceQueueFamilyProperties(desc.physical, &familyCount, families.data());
    bool found = false;
    for (uint32_t i = 0; i < familyCount && !found; ++i) {
        const VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        if ((families[i].queueFlags & need) != need) continue;
        if (desc.presentSurface) {
            VkBool32 canPresent = VK_FALSE;
            VK_CHECK(vkGetPhysicalDeviceSurfaceSupportKHR(desc.physical, i, desc.presentSurface,
                                                          &canPresent));
            if (!canPresent) continue;
        }
        device.queueFamily = i;
        device.timestampValidBits = families[i].timestampValidBits;
        found = true;
    }
    if (!found)
        throw unsupported(
            name + " has no queue family with graphics and compute" +
            std::string(desc.presentSurface ? " that can present to the window" : ""));

    VkPhysicalDeviceVulkan12Features enable12{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    enable12.timelineSemaphore = VK_TRUE;
    enable12.hostQueryReset = f12.hostQueryReset;
    device.int64Atomics = f12.shaderBufferInt64Atomics && supported.features.shaderInt64;
    enable12.shaderBufferInt64Atomics = device.int64Atomics ? VK_TRUE : VK_FALSE;
    VkPhysicalDeviceVulkan13Features enable13{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
                                              &enable12};
    enable13.dynamicRendering = VK_TRUE;
    enable13.synchronization2 = VK_TRUE;
    enable13.maintenance4 = VK_TRUE;
    VkPhysicalDeviceFeatures2 enable{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &enable13};
    enable.features.largePoints = supported.features.largePoints;
    enable.features.shaderInt64 = device.int64Atomics ? VK_TRUE : VK_FALSE;
    device.largePoints = supported.features.largePoints == VK_TRUE;

    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queueInfo.queueFamilyIndex = device.queueFamily;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;

    VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &enable};
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queueInfo;
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VK_CHECK(vkCreateDevice(desc.physical, &info, nullptr, &device.handle));
    volkLoadDevice(device.handle);
    if (device.calibratedTimestampsExtension)
        device.getCalibratedTimestamps =
            reinterpret_cast<PFN_vkGetCalibratedTimestampsEXT>(vkGetDeviceProcAddr(
                device.handle, std::strcmp(device.calibratedTimestampsExtension,
                                           VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME) == 0
                                   ? "vkGetCalibratedTimestampsEXT"
                                   : "vkGetCalibratedTimestampsKHR"));
    if (!device.getCalibratedTimestamps) device.calibratedTimestampsExtension = nullptr;
    vkGetDeviceQueue(device.handle, device.queueFamily, 0, &device.queue);
    setDebugName(device, VK_OBJECT_TYPE_QUEUE, reinterpret_cast<uint64_t>(device.queue),
                 "graphics queue");
    return device;
}

void destroyDevice(Device& device) {
    if (device.handle) vkDestroyDevice(device.handle, nullptr);
    device = Device{};
}

void setDebugName(const Device& device, VkObjectType type, uint64_t handle, const char* name) {
    if (!device.debugUtils || !vkSetDebugUtilsObjectNameEXT) return;
    VkDebugUtilsObjectNameInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_OBJECT_NAME_INFO_EXT};
    info.objectType = type;
    info.objectHandle = handle;
    info.pObjectName = name;
    vkSetDebugUtilsObjectNameEXT(device.handle, &info);
}

} // namespace estuary
