// The slabs' plan (viewer/frame/slabs.h), pure: how planes split, which copies an exchange makes
// for open and periodic fields, and how a desc's zeros resolve.
#include "slabs.h"
#include "errors.h"

#include <gtest/gtest.h>

namespace estuary::lib {
namespace {

TEST(SlabPlan, SplitsPlanesEvenlyThickerSlabsFirst) {
    const SlabPlan plan = planSlabLayout(29, 3, 4, false, "rows", "height");
    EXPECT_EQ(plan.first, (std::vector<uint32_t>{0, 10, 20}));
    EXPECT_EQ(plan.count, (std::vector<uint32_t>{10, 10, 9}));
    EXPECT_EQ(plan.halo, 4u);
}

TEST(SlabPlan, OpenFieldExchangesOnlyInnerBoundaries) {
    const SlabPlan plan = planSlabLayout(10, 3, 2, false, "rows", "height"); // 4, 3, 3
    const std::vector<SlabHaloCopy> copies = slabHaloCopies(plan);
    ASSERT_EQ(copies.size(), 4u);
    // Slab 0's last own rows (its planes 4, 5) into slab 1's upper halo (its planes 0, 1) ...
    EXPECT_EQ(copies[0].from, 0u);
    EXPECT_EQ(copies[0].to, 1u);
    EXPECT_EQ(copies[0].fromPlane, 4u);
    EXPECT_EQ(copies[0].toPlane, 0u);
    // ... and slab 1's first own rows (planes 2, 3) into slab 0's lower halo (planes 6, 7).
    EXPECT_EQ(copies[1].from, 1u);
    EXPECT_EQ(copies[1].to, 0u);
    EXPECT_EQ(copies[1].fromPlane, 2u);
    EXPECT_EQ(copies[1].toPlane, 6u);
    EXPECT_EQ(copies[3].toPlane, 2u + 3u);
    EXPECT_TRUE(slabHaloCopies(planSlabLayout(10, 1, 2, false, "rows", "height")).empty());
}

TEST(SlabPlan, PeriodicFieldWrapsTheLastSlabOntoTheFirst) {
    const SlabPlan plan = planSlabLayout(10, 3, 2, true, "rows", "height");
    const std::vector<SlabHaloCopy> copies = slabHaloCopies(plan);
    ASSERT_EQ(copies.size(), 6u);
    EXPECT_EQ(copies[4].from, 2u);
    EXPECT_EQ(copies[4].to, 0u);
    EXPECT_EQ(copies[4].fromPlane, 3u); // slab 2 holds 3 rows: its own planes 2..4, last two 3, 4
    EXPECT_EQ(copies[4].toPlane, 0u);
    // One slab wraps onto itself.
    const std::vector<SlabHaloCopy> self =
        slabHaloCopies(planSlabLayout(10, 1, 2, true, "rows", "height"));
    ASSERT_EQ(self.size(), 2u);
    EXPECT_EQ(self[0].fromPlane, 10u);
    EXPECT_EQ(self[1].toPlane, 12u);
}

TEST(SlabPlan, DescZerosResolveToOneDeviceAndOneSlabEach) {
    estuary_slabs_desc d{};
    d.width = 8;
    d.height = 8;
    d.halo = 1;
    const SlabLayout host = resolveSlabLayout(d, false, 0);
    EXPECT_EQ(host.writer, ESTUARY_WRITER_HOST);
    EXPECT_EQ(host.devices, 1u);
    EXPECT_EQ(host.plan.count.size(), 1u);
    d.devices = 2;
    const SlabLayout cuda = resolveSlabLayout(d, true, 2);
    EXPECT_EQ(cuda.writer, ESTUARY_WRITER_CUDA);
    EXPECT_EQ(cuda.plan.count.size(), 2u);
    EXPECT_EQ(cuda.planeBytes(), 32u);
    EXPECT_EQ(cuda.slabBytes(0), 32u * (4 + 2));
    EXPECT_THROW(resolveSlabLayout(d, true, 1), Error); // 2 devices asked, 1 present
}

} // namespace
} // namespace estuary::lib
