// The foundation's Device as interop sees it: an interop::Context over the same instance, device
// and queue, its functions loaded through volk's vkGetInstanceProcAddr. Made once where the Device
// lives (the Session, the GPU test fixtures) and dropped with it; it owns no Vulkan object.
#pragma once

#include "context.h"
#include "estuary/interop/vulkan_device.h"

namespace estuary {

interop::Context interopContext(const Instance& instance, const Device& device);

} // namespace estuary
