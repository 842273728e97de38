// What annotations cost the GPU (#34's budget: 0.1 ms a frame at 1920x1080 with axes, three
// colorbars and 1,000 CUDA-written labels). Two headless 1920x1080 viewers draw the same CUDA-
// written 1024^2 field and two 1,000-point views; the annotated one adds 2D axes with grid lines,
// the three views' colorbars and a labels view whose 1,000 anchors a kernel writes each frame.
// Each runs 300 frames to warm up, then FRAMES timed; each round runs plain, annotated, axes
// alone and labels alone. It prints each round's median draw times (the Vulkan submission, GPU
// timestamps) and their differences, and the median of what the frames measured of the
// annotation layer itself (estuary_frame_stats.annotations_ms: timestamps around its render pass
// or its compute passes, every earlier command done first), for each draw path asked for: raster
// (one render pass) and compute (tiles and the labels' coverage, no rasterizer; the views draw by
// their compute path too, so each path has its own plain baseline).
// Usage: estuary_annotations_bench [FRAMES] [ROUNDS] [raster|compute|both (default)]
#include <estuary/estuary.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

constexpr int kField = 1024, kPoints = 1000, kLabels = 1000, kStrings = 16;

__global__ void writeField(cudaSurfaceObject_t field, float t) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= kField || y >= kField) return;
    surf2Dwrite(0.5f + 0.5f * __sinf(0.01f * x + t) * __cosf(0.013f * y - t), field,
                x * int(sizeof(float)), y);
}

struct Anchor {
    float x, y, z;
    unsigned string;
};

// Points in the unit square and labels on a circle turning with t (in the field's cells).
__global__ void writeElements(float4* a, float4* b, Anchor* labels, float t) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < kPoints) {
        a[i] = make_float4(float(i % 40) / 40.0f, float(i / 40) / 25.0f, 0.0f, float(i) / kPoints);
        b[i] = make_float4(float(i / 25) / 40.0f, float(i % 25) / 25.0f, 0.0f, 1.0f - a[i].w);
    }
    if (i < kLabels) {
        const float angle = 6.2831853f * float(i) / kLabels + t;
        labels[i] = {512.0f + 400.0f * __cosf(angle), 512.0f + 400.0f * __sinf(angle), 0.0f,
                     unsigned(i % kStrings)};
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Medians {
    double draw = 0, annotations = 0;
};

Medians run(estuary_draw_path path, bool annotated, bool labelled, int frames) {
    estuary::ViewerDesc desc;
    desc.draw_path = path;
    desc.display = ESTUARY_DISPLAY_HEADLESS;
    desc.width = 1920;
    desc.height = 1080;
    estuary::Viewer viewer(desc);
    estuary_image_desc image{.format = ESTUARY_FORMAT_R32_FLOAT,
                             .kind = ESTUARY_IMAGE_2D,
                             .width = kField,
                             .height = kField};
    image.writer = ESTUARY_WRITER_CUDA;
    image.name = "field";
    estuary::Image field = viewer.image(image);
    const estuary::View shown = viewer.fieldView(
        {.image = field.get(), .flags = annotated ? 0u : uint32_t(ESTUARY_VIEW_NO_COLORBAR)});
    std::vector<estuary::Buffer> buffers;
    estuary::Buffer anchors = viewer.buffer(
        {.size = kLabels * sizeof(Anchor), .writer = ESTUARY_WRITER_CUDA, .name = "anchors"});
    std::vector<estuary::View> views; // destroyed before the buffers they draw
    for (int k = 0; k < 2; ++k) {
        buffers.push_back(viewer.buffer({.size = kPoints * sizeof(float4),
                                         .writer = ESTUARY_WRITER_CUDA,
                                         .name = k ? "b" : "a"}));
        estuary_points_view_desc points{.buffer = buffers.back().get(),
                                        .layout = ESTUARY_POINTS_XYZ_SCALAR};
        points.size = 3.0f;
        points.colormap = k ? ESTUARY_COLORMAP_MAGMA : ESTUARY_COLORMAP_TURBO;
        points.label = k ? "points b" : "points a";
        points.flags = annotated ? ESTUARY_POINTS_COLORBAR : 0u;
        views.push_back(viewer.pointsView(points));
    }
    std::vector<std::string> names;
    for (int s = 0; s < kStrings; ++s)
        names.push_back("vortex " + std::to_string(s));
    if (labelled) {
        std::vector<const char*> strings;
        for (const std::string& s : names)
            strings.push_back(s.c_str());
        estuary_labels_view_desc labels{
            .buffer = anchors.get(), .strings = strings.data(), .string_count = kStrings};
        views.push_back(viewer.labelsView(labels));
    }
    if (annotated) {
        estuary_panel_desc panel{};
        panel.flags = ESTUARY_PANEL_AXES | ESTUARY_PANEL_GRID;
        panel.title = "annotated";
        panel.axis_titles[0] = "x [cells]";
        panel.axis_titles[1] = "y [cells]";
        viewer.setPanel(0, panel);
    }
    std::vector<double> draws, layer;
    const auto take = [&](const estuary_frame_stats& s) {
        if (s.frame < 300) return;
        draws.push_back(s.draw_ms);
        if (s.annotations_ms == s.annotations_ms) layer.push_back(s.annotations_ms); // not NaN
    };
    estuary_frame_stats stats{};
    stats.struct_size = sizeof(stats);
    for (int f = 0; f < 300 + frames; ++f) {
        estuary::Frame frame = viewer.beginFrame();
        const float t = 0.01f * float(f);
        writeField<<<dim3(kField / 16, kField / 16), dim3(16, 16), 0, frame.stream()>>>(
            frame.surface(field), t);
        writeElements<<<(kLabels + 255) / 256, 256, 0, frame.stream()>>>(
            frame.devicePointer<float4>(buffers[0]), frame.devicePointer<float4>(buffers[1]),
            frame.devicePointer<Anchor>(anchors), t);
        frame.end();
        while (estuary_next_frame_stats(viewer.get(), &stats) == ESTUARY_OK)
            take(stats);
    }
    viewer.finish();
    while (estuary_next_frame_stats(viewer.get(), &stats) == ESTUARY_OK)
        take(stats);
    return {median(draws), median(layer)};
}

const char* pathName(estuary_draw_path path) {
    return path == ESTUARY_DRAW_COMPUTE ? "compute" : "raster";
}

void measure(estuary_draw_path path, int frames, int rounds) {
    std::vector<double> differences, axesOnly, labelsOnly, layerAll, layerAxes, layerLabels;
    const char* name = pathName(path);
    for (int r = 0; r < rounds; ++r) {
        const Medians plain = run(path, false, false, frames);
        const Medians all = run(path, true, true, frames);
        const Medians axes = run(path, true, false, frames);
        const Medians labels = run(path, false, true, frames);
        differences.push_back(all.draw - plain.draw);
        axesOnly.push_back(axes.draw - plain.draw);
        labelsOnly.push_back(labels.draw - plain.draw);
        layerAll.push_back(all.annotations);
        layerAxes.push_back(axes.annotations);
        layerLabels.push_back(labels.annotations);
        std::printf("%s round %d: draw p50 plain %.4f ms, annotated %.4f ms (difference %.4f ms); "
                    "axes, grid and colorbars alone %.4f ms, labels alone %.4f ms; annotation "
                    "layer p50 %.4f ms (axes alone %.4f, labels alone %.4f)\n",
                    name, r, plain.draw, all.draw, all.draw - plain.draw, axes.draw - plain.draw,
                    labels.draw - plain.draw, all.annotations, axes.annotations,
                    labels.annotations);
        std::fflush(stdout);
    }
    std::printf("%s: annotations at 1920x1080 (axes, grid, 3 colorbars, 1000 CUDA-written labels): "
                "annotation layer median %.4f ms a frame over %d rounds (axes, grid and colorbars "
                "%.4f ms, labels %.4f ms); draw differences %.4f ms (%.4f, %.4f)\n",
                name, median(layerAll), rounds, median(layerAxes), median(layerLabels),
                median(differences), median(axesOnly), median(labelsOnly));
}

} // namespace

int main(int argc, char** argv) try {
    const int frames = argc > 1 ? std::max(1, std::atoi(argv[1])) : 2000;
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 3;
    const std::string paths = argc > 3 ? argv[3] : "both";
    if (paths != "raster" && paths != "compute" && paths != "both") {
        std::fprintf(stderr, "annotations_bench: draw path '%s' is not raster, compute or both\n",
                     paths.c_str());
        return 2;
    }
    if (paths != "compute") measure(ESTUARY_DRAW_RASTER, frames, rounds);
    if (paths != "raster") measure(ESTUARY_DRAW_COMPUTE, frames, rounds);
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "annotations_bench: %s\n", e.what());
    return e.status();
}
