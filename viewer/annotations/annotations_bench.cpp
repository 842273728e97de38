// How long layoutPanel takes for a full-HD panel with 2D axes, grid, three colorbars, a legend
// and a scale bar, and for a 3D box with its gizmo, panned a little each frame so nothing is
// reused: microseconds per panel (the median of 7 runs of 2000). Text measured by a fixed-width
// stand-in (the font atlas's measure adds a table lookup per character). Run: annotations_bench.
#include "annotation_layout.h"
#include "box_axes.h"
#include "volume_camera.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

using namespace estuary;
using namespace estuary::annotations;

namespace {

template <class Layout> double microsecondsPerPanel(Layout&& layout) {
    std::vector<double> runs;
    for (int run = 0; run < 7; ++run) {
        constexpr int kPanels = 2000;
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < kPanels; ++i)
            layout(i);
        const auto end = std::chrono::steady_clock::now();
        runs.push_back(std::chrono::duration<double, std::micro>(end - start).count() / kPanels);
    }
    std::sort(runs.begin(), runs.end());
    return runs[runs.size() / 2];
}

} // namespace

int main() {
    const FixedWidthMeasure measure(0.6f, 0.93f, 0.24f); // DejaVu Sans' proportions, roughly
    const Rect panel{0, 0, 1920, 1080};
    PanelAnnotations flat;
    flat.title = "Gray-Scott, frame 1200";
    flat.axes = flat.grid = true;
    flat.x = {-1.0, 1.0, "x [mm]", false};
    flat.y = {-0.6, 0.6, "y [mm]", false};
    flat.colorbars = {{"u", 1, 0.0, 1.0, 0, {}},
                      {"speed [m/s]", 2, -3.5e-6, 7.25e-6, 0, {}},
                      {"species", 8, 0, 4, 4, {"fox", "hare", "lynx", "vole"}}};
    flat.legend = {{{1, 0, 0, 1}, "boids"}, {{0, 1, 0, 1}, "obstacles"}};
    flat.scaleBar = {0.001, "mm"};
    size_t texts = 0;
    const double flatUs = microsecondsPerPanel([&](int i) {
        flat.x.atStart = -1.0 + 1e-4 * i;
        texts = layoutPanel(flat, measure, panel).batch.texts.size();
    });
    std::printf("2D axes, grid, 3 colorbars, legend, scale bar at 1920x1080: %.1f us (%zu texts)\n",
                flatUs, texts);
    PanelAnnotations box;
    box.axes = true;
    box.colorbars = {{"density", 0, 0.0, 2.5, 0, {}}};
    BoxAxesDesc b;
    b.min = {0, 0, -50};
    b.max = {200, 100, 50};
    const double boxUs = microsecondsPerPanel([&](int i) {
        b.viewProjection =
            orbitViewProjection(orbitCamera(0.6f + 1e-4f * float(i), 0.4f, 1.0f, 1920, 1080), b.min,
                                b.max, {0.5f, 0.25f, 0.25f});
        box.box = b;
        texts = layoutPanel(box, measure, panel).batch.texts.size();
    });
    std::printf("3D box axes, gizmo, 1 colorbar at 1920x1080: %.1f us (%zu texts)\n", boxUs, texts);
}
