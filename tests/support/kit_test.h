// A VulkanTest with the drawing kit every renderer takes (renderer/kit.h): made in SetUp from the
// binary's data folder (no pipeline cache kept on disk), destroyed in TearDown, which subclasses
// call after destroying their renderers.
#pragma once

#include "kit.h"
#include "test_support.h"

namespace estuary::test {

class KitTest : public VulkanTest {
  protected:
    void SetUp() override {
        VulkanTest::SetUp();
        KitDesc desc;
        desc.dataDir = binDir();
        kit = createKit(device, pool, desc);
    }
    void TearDown() override {
        if (device.handle) {
            vkDeviceWaitIdle(device.handle);
            destroyKit(device, kit);
        }
        VulkanTest::TearDown();
    }
    // `desc` naming the kit.
    template <class Desc> Desc kitted(Desc desc) {
        desc.kit = &kit;
        return desc;
    }

    Kit kit;
};

} // namespace estuary::test
