// The parts of the library's contract that are proven below the C API: generation-checked handles
// (handles.h), the device guard every CUDA-touching call runs under (device_scope.h), and a view's
// one list of inputs driving the frame's hand-over from CUDA (drawSet) for every view kind.
#include "device_scope.h"
#include "handles.h"
#include "add_views.h"
#include "view_type.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace estuary {
namespace {

using lib::HandleKind;
using lib::HandleTable;

TEST(Handles, ALiveHandleNamesItsObjectUntilRemoved) {
    HandleTable table;
    int a = 0, b = 0;
    const uint64_t ha = table.add(HandleKind::Image, &a);
    const uint64_t hb = table.add(HandleKind::Buffer, &b);
    EXPECT_NE(ha, 0u);
    EXPECT_NE(ha, hb);
    EXPECT_EQ(table.find(ha, HandleKind::Image), &a);
    EXPECT_EQ(table.find(hb, HandleKind::Buffer), &b);
    EXPECT_EQ(table.live(), 2u);
    table.remove(ha);
    EXPECT_EQ(table.find(ha, HandleKind::Image), nullptr);
    EXPECT_EQ(table.live(), 1u);
    table.remove(ha); // twice: harmless
    EXPECT_EQ(table.live(), 1u);
    EXPECT_EQ(table.find(hb, HandleKind::Buffer), &b);
}

TEST(Handles, AReusedSlotRefusesItsOldHandle) {
    HandleTable table;
    int first = 0, second = 0;
    const uint64_t old = table.add(HandleKind::View, &first);
    table.remove(old);
    const uint64_t reused = table.add(HandleKind::View, &second);
    EXPECT_EQ(reused & 0xFFFFFFu, old & 0xFFFFFFu) << "the slot was not reused";
    EXPECT_NE(reused, old);
    EXPECT_EQ(table.find(old, HandleKind::View), nullptr);
    EXPECT_EQ(table.find(reused, HandleKind::View), &second);
}

TEST(Handles, AHandleOfAnotherKindOrAMadeUpValueNamesNothing) {
    HandleTable table;
    int object = 0;
    const uint64_t image = table.add(HandleKind::Image, &object);
    EXPECT_EQ(table.find(image, HandleKind::Buffer), nullptr);
    EXPECT_EQ(table.find(image, HandleKind::Viewer), nullptr);
    EXPECT_EQ(table.find(0, HandleKind::Image), nullptr);
    EXPECT_EQ(table.find(reinterpret_cast<uintptr_t>(&object), HandleKind::Image), nullptr);
    EXPECT_EQ(table.find(0xDEADBEEFDEADBEEFull, HandleKind::Image), nullptr);
    EXPECT_EQ(table.find(image + (uint64_t(1) << 32), HandleKind::Image), nullptr);
    EXPECT_EQ(table.find(image + 1, HandleKind::Image), nullptr); // a slot not handed out
    table.remove(0xDEADBEEFDEADBEEFull);                          // nothing happens
    EXPECT_EQ(table.find(image, HandleKind::Image), &object);
}

TEST(Handles, ThreadsAddAndRemoveWithoutLosingAny) {
    HandleTable table;
    std::vector<std::thread> threads;
    std::vector<int> objects(4 * 2000);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([&, t] {
            std::vector<uint64_t> mine;
            for (int i = 0; i < 2000; ++i)
                mine.push_back(table.add(HandleKind::Frame, &objects[size_t(t * 2000 + i)]));
            for (size_t i = 0; i < mine.size(); i += 2)
                table.remove(mine[i]);
            for (size_t i = 1; i < mine.size(); i += 2)
                if (table.find(mine[i], HandleKind::Frame) != &objects[size_t(t * 2000) + i])
                    throw std::runtime_error("a live handle was lost");
        });
    for (std::thread& t : threads)
        t.join();
    EXPECT_EQ(table.live(), 4u * 1000u);
}

// A fake CUDA runtime: one current device per test.
int gCurrent = 0;
int gSets = 0;
bool gHasDevice = true;
bool fakeGet(int& device) {
    device = gCurrent;
    return gHasDevice;
}
bool fakeSet(int device) {
    gCurrent = device;
    ++gSets;
    return true;
}
const lib::DeviceApi kFake{fakeGet, fakeSet};

TEST(DeviceScope, RunsOnTheViewersDeviceAndGivesTheCallersBack) {
    gCurrent = 1;
    gSets = 0;
    gHasDevice = true;
    {
        const lib::DeviceScope scope(kFake, 0);
        EXPECT_EQ(gCurrent, 0);
        EXPECT_EQ(scope.previous(), 1);
    }
    EXPECT_EQ(gCurrent, 1);
    EXPECT_EQ(gSets, 2);
}

TEST(DeviceScope, GivesTheCallersDeviceBackWhenTheCallThrows) {
    gCurrent = 3;
    gHasDevice = true;
    try {
        const lib::DeviceScope scope(kFake, 0);
        throw std::runtime_error("a failing call");
    } catch (const std::runtime_error&) {
    }
    EXPECT_EQ(gCurrent, 3);
}

TEST(DeviceScope, TouchesNothingWhenTheDeviceIsAlreadyCurrent) {
    gCurrent = 0;
    gSets = 0;
    gHasDevice = true;
    { const lib::DeviceScope scope(kFake, 0); }
    EXPECT_EQ(gSets, 0);
}

TEST(DeviceScope, UndoesADeviceChangeMadeInsideTheCall) {
    // estuary_create_viewer: no viewer yet (wanted -1), but opening CUDA makes its device current.
    gCurrent = 1;
    gHasDevice = true;
    {
        const lib::DeviceScope scope(kFake, -1);
        fakeSet(0);
    }
    EXPECT_EQ(gCurrent, 1);
}

TEST(DeviceScope, LeavesEverythingAloneWithoutADevice) {
    gCurrent = 5;
    gSets = 0;
    gHasDevice = false;
    { const lib::DeviceScope scope(kFake, 0); }
    EXPECT_EQ(gSets, 0);
    gHasDevice = true;
}

// Every view kind, made with every image and buffer it can read: each must be in the frame's
// draw set (what the frame takes from CUDA, or uploads, and hands back) and counted as drawn.
class ViewInputs : public ::testing::Test {
  protected:
    void SetUp() override {
        estuary_viewer_desc d{};
        d.api_version = ESTUARY_API_VERSION;
        d.display = ESTUARY_DISPLAY_HEADLESS;
        d.width = 64;
        d.height = 64;
        d.cuda = ESTUARY_CUDA_OFF;
        d.flags = ESTUARY_VIEWER_VALIDATION;
        v = lib::createViewer(d);
    }
    void TearDown() override { EXPECT_EQ(lib::destroyViewer(v), 0u); }
    estuary_buffer* buffer(uint64_t bytes, const char* name) {
        estuary_buffer_desc d{};
        d.size = bytes;
        d.writer = ESTUARY_WRITER_HOST;
        d.name = name;
        return lib::createBuffer(*v, d);
    }
    estuary_image* image(estuary_format format, estuary_image_kind kind, uint32_t side) {
        estuary_image_desc d{};
        d.format = format;
        d.kind = kind;
        d.width = d.height = side;
        d.depth = kind == ESTUARY_IMAGE_3D ? side : 0;
        d.writer = ESTUARY_WRITER_HOST;
        d.name = "image";
        return lib::createImage(*v, d);
    }
    // The view of `kind` and every allocation it was given.
    std::pair<estuary_view*, std::vector<const void*>> make(const std::string& kind) {
        if (kind == "field") {
            estuary_image* i = image(ESTUARY_FORMAT_R32_FLOAT, ESTUARY_IMAGE_2D, 8);
            estuary_field_view_desc d{};
            d.image = i;
            return {lib::addFieldView(*v, d), {i}};
        }
        if (kind == "volume") {
            estuary_image* i = image(ESTUARY_FORMAT_R32_FLOAT, ESTUARY_IMAGE_3D, 8);
            estuary_volume_view_desc d{};
            d.image = i;
            return {lib::addVolumeView(*v, d), {i}};
        }
        if (kind == "points") {
            estuary_buffer* b = buffer(16 * 8, "points");
            estuary_points_view_desc d{};
            d.buffer = b;
            return {lib::addPointsView(*v, d), {b}};
        }
        if (kind == "markers") {
            estuary_buffer* b = buffer(32 * 8, "markers");
            estuary_markers_view_desc d{};
            d.buffer = b;
            return {lib::addMarkersView(*v, d), {b}};
        }
        if (kind == "lines") {
            estuary_buffer* b = buffer(16 * 8, "vertices");
            estuary_buffer* i = buffer(4 * 8, "indices");
            estuary_lines_view_desc d{};
            d.vertices = b;
            d.indices = i;
            return {lib::addLinesView(*v, d), {b, i}};
        }
        if (kind == "glyph") {
            estuary_image* i = image(ESTUARY_FORMAT_RG32_FLOAT, ESTUARY_IMAGE_2D, 16);
            estuary_glyph_view_desc d{};
            d.image = i;
            return {lib::addGlyphView(*v, d), {i}};
        }
        if (kind == "mesh") {
            estuary_buffer* b = buffer(16 * 9, "vertices");
            estuary_buffer* i = buffer(4 * 9, "indices");
            estuary_buffer* n = buffer(16 * 9, "normals");
            estuary_mesh_view_desc d{};
            d.vertices = b;
            d.indices = i;
            d.normals = n;
            return {lib::addMeshView(*v, d), {b, i, n}};
        }
        if (kind == "text") { // reads nothing the frame hands over
            estuary_text_view_desc d{};
            d.text = "text";
            return {lib::addTextView(*v, d), {}};
        }
        if (kind == "labels") {
            estuary_buffer* b = buffer(16 * 8, "anchors");
            estuary_buffer* i = buffer(4 * 8, "string indices");
            const char* strings[] = {"a", "b"};
            estuary_labels_view_desc d{};
            d.buffer = b;
            d.strings = strings;
            d.string_count = 2;
            d.attributes[ESTUARY_CHANNEL_INDEX] = {i, 0, 4, ESTUARY_ATTRIBUTE_U32};
            return {lib::addLabelsView(*v, d), {b, i}};
        }
        return {nullptr, {}};
    }
    estuary_viewer* v = nullptr;
};

TEST_F(ViewInputs, EveryKindHandsEachOfItsAllocationsToTheFrame) {
    for (const lib::ViewType* type : lib::viewTypes()) {
        const char* kind = type->name;
        SCOPED_TRACE(kind);
        auto [view, given] = make(kind);
        ASSERT_NE(view, nullptr) << "view kind '" << kind
                                 << "' has no case in this test: add one that gives it every "
                                    "image and buffer it can read";
        EXPECT_STREQ(lib::viewKind(*view), kind);
        estuary_frame frame{};
        frame.index = v->nextFrame;
        frame.entry = uint32_t(frame.index % v->hostRing);
        const lib::DrawSet set = lib::drawSet(*v, frame);
        std::set<const void*> drawn(set.images.begin(), set.images.end());
        drawn.insert(set.buffers.begin(), set.buffers.end());
        for (const void* allocation : given) {
            EXPECT_TRUE(drawn.count(allocation)) << "an allocation of the view is not in the draw";
            const auto asImage = std::find_if(v->images.begin(), v->images.end(),
                                              [&](const auto& i) { return i.get() == allocation; });
            const uint32_t users = asImage != v->images.end()
                                       ? (*asImage)->viewUsers
                                       : static_cast<const estuary_buffer*>(allocation)->viewUsers;
            EXPECT_EQ(users, 1u) << "the view is not counted as drawing it";
        }
        EXPECT_EQ(view->inputs.size(), given.size());
        lib::destroyView(*v, view);
        for (const auto& i : v->images)
            EXPECT_EQ(i->viewUsers, 0u);
        for (const auto& b : v->buffers)
            EXPECT_EQ(b->viewUsers, 0u);
    }
}

} // namespace
} // namespace estuary
