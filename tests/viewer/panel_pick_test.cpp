// The View panel's readout of the buffer views under the cursor, in a window on Xvfb: the marker
// the cursor is over is picked each frame (the panel shows what the last pick found), the other
// view nothing; a hidden view is not picked; none when the cursor leaves. Validation on.
#include "add_views.h"
#include "view_type.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace estuary {
namespace {

struct Marker {
    float x, y, z, value;
    float dx, dy, dz, size;
};

TEST(ViewPanel, NamesTheElementOfEachBufferViewUnderTheCursor) {
    const char* display = std::getenv("DISPLAY");
    if (!display || !*display) GTEST_SKIP() << "no display: run under xvfb-run -a";
    estuary_viewer_desc d{};
    d.api_version = ESTUARY_API_VERSION;
    d.display = ESTUARY_DISPLAY_WINDOW;
    d.width = 800;
    d.height = 600;
    d.cuda = ESTUARY_CUDA_OFF;
    d.flags = ESTUARY_VIEWER_VALIDATION;
    estuary_viewer* v = lib::createViewer(d);
    // Markers 30 pixels across in the unit square the picture letterboxes: marker 1 low in the
    // middle, away from the panels; a second view's marker far from it.
    const Marker markers[2] = {{0.8f, 0.2f, 0, 0.1f, 0, 0, 0, 0},
                               {0.5f, 0.85f, 0, 0.7f, 0, 0, 0, 0}};
    estuary_buffer* buffer = lib::createBuffer(
        *v, {.size = sizeof(markers), .writer = ESTUARY_WRITER_HOST, .name = "m"});
    estuary_markers_view_desc md{.buffer = buffer, .shape = ESTUARY_MARKER_SHAPE_DISC};
    md.size = 30.0f;
    md.label = "discs";
    const estuary_view* discs = lib::addMarkersView(*v, md);
    const Marker other{0.9f, 0.9f, 0, 0.2f, 0, 0, 0, 0};
    estuary_buffer* otherBuffer = lib::createBuffer(
        *v, {.size = sizeof(other), .writer = ESTUARY_WRITER_HOST, .name = "other"});
    estuary_markers_view_desc od{.buffer = otherBuffer, .shape = ESTUARY_MARKER_SHAPE_SQUARE};
    od.size = 10.0f;
    od.label = "elsewhere";
    estuary_view* elsewhere = lib::addMarkersView(*v, od);
    // As estuary_frame_host_pointer gives the frame's host memory of a buffer and notes it
    // written.
    const auto write = [](const estuary_frame& f, estuary_buffer* b, const void* data, size_t n) {
        std::memcpy(b->host[b->copies + f.entry].mapped, data, n);
        b->writtenFrame = f.index;
    };
    const auto frames = [&](int count) {
        for (int i = 0; i < count; ++i) {
            estuary_frame* f = lib::beginFrame(*v, nullptr);
            write(*f, buffer, markers, sizeof(markers));
            write(*f, otherBuffer, &other, sizeof(other));
            lib::endFrame(*f);
        }
        lib::finish(*v);
    };
    frames(1); // the window as the screen allows it (xvfb-run's is 640 x 480)
    const estuary_input in = lib::currentInput(*v);
    const double side = std::min(in.width, in.height), left = 0.5 * (in.width - side);
    estuary_event move{.kind = ESTUARY_EVENT_CURSOR};
    move.x = left + 0.5 * side + 2.0; // 2 pixels right of marker 1's centre, 1 up
    move.y = 0.85 * side - 1.0;
    v->injected.push_back(move);
    frames(3);

    ASSERT_FALSE(lib::currentInput(*v).ui_wants_mouse) << "a panel covers the marker";
    ASSERT_EQ(v->panels.picks.size(), 2u);
    const auto& shown = v->panels.picks[0];
    EXPECT_EQ(shown.view, discs);
    EXPECT_TRUE(shown.valid);
    EXPECT_EQ(shown.pick.hit, 1);
    EXPECT_EQ(shown.pick.element, 1u);
    EXPECT_FLOAT_EQ(shown.pick.value, 0.7f);
    EXPECT_EQ(shown.pick.distance, 0.0f);
    EXPECT_EQ(v->panels.picks[1].view, elsewhere);
    EXPECT_TRUE(v->panels.picks[1].valid);
    EXPECT_EQ(v->panels.picks[1].pick.hit, 0);

    estuary_view_params hidden = elsewhere->params;
    hidden.visible = 0;
    lib::setViewParams(*v, *elsewhere, hidden);
    move.x = move.y = -1.0; // the cursor leaves the window
    v->injected.push_back(move);
    frames(2);
    EXPECT_FALSE(v->panels.pickActive);
    ASSERT_EQ(v->panels.picks.size(), 1u) << "the hidden view is not picked";
    EXPECT_FALSE(v->panels.picks[0].valid) << "nothing is shown for a cursor outside";
    EXPECT_EQ(lib::destroyViewer(v), 0u) << "validation messages (printed above)";
}

} // namespace
} // namespace estuary
