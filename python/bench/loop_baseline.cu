// The C++ side of python/bench/binding_cost.py: the same frame loop as the Python one, through
// estuary.hpp, so the two host times per frame can be compared (docs/PERFORMANCE.md). Each frame
// clears a 64k-point CUDA buffer in place and copies a 512x512 float field from device memory into
// the frame's image, on a stream of the program's own. Prints one JSON line: host busy p50, and
// the p50 of its three parts (begin up to the frames-in-flight wait; from the wait's end to
// estuary_end_frame's call, the loop's own work; end_frame itself), as binding_cost.py does.
#include <estuary/estuary.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) try {
    const int frames = argc > 1 ? std::atoi(argv[1]) : 3000;
    estuary::ViewerDesc desc;
    desc.display = ESTUARY_DISPLAY_HEADLESS;
    desc.cuda = ESTUARY_CUDA_REQUIRED;
    desc.frames_in_flight = 2;
    estuary::Viewer viewer(desc);
    estuary_image_desc image{};
    image.format = ESTUARY_FORMAT_R32_FLOAT;
    image.width = image.height = 512;
    image.writer = ESTUARY_WRITER_CUDA;
    image.flags = ESTUARY_IMAGE_GENERATE_MIPS;
    estuary::Image field = viewer.image(image);
    const uint64_t pointBytes = uint64_t(1) << 20; // 64k points of 4 floats
    estuary::Buffer points =
        viewer.buffer({.size = pointBytes, .writer = ESTUARY_WRITER_CUDA, .name = "points"});
    const estuary::View fieldShown = viewer.fieldView({.image = field.get()});
    const estuary::View pointsShown = viewer.pointsView({.buffer = points.get()});
    void* source = nullptr;
    cudaMalloc(&source, 512 * 512 * sizeof(float));
    cudaMemset(source, 0, 512 * 512 * sizeof(float));
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    std::vector<double> busy, begin, work, end;
    const auto keep = [&](const estuary_frame_stats& s) {
        if (s.frame < uint64_t(frames / 10)) return;
        busy.push_back(s.host_busy_us);
        begin.push_back(s.wait_start_us - s.begin_us);
        work.push_back(s.end_us - s.wait_end_us);
        end.push_back(s.submit_end_us - s.end_us);
    };
    const auto p50 = [](std::vector<double>& v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    for (int f = 0; f < frames; ++f) {
        estuary_frame_desc fd{.stream = stream};
        const estuary::Frame frame = viewer.beginFrame(&fd);
        cudaMemsetAsync(frame.devicePointer<void>(points), 0, pointBytes, stream);
        frame.copyToImage(field, source, 512 * 512 * sizeof(float));
        frame.end();
        estuary_frame_stats stats;
        while (viewer.nextFrameStats(stats))
            keep(stats);
    }
    viewer.finish();
    estuary_frame_stats stats;
    while (viewer.nextFrameStats(stats))
        keep(stats);
    const estuary_metrics m = viewer.metrics();
    std::printf("{\"loop\": \"C++\", \"frames\": %d, \"host_busy_us_p50\": %.2f, "
                "\"fps\": %.1f, \"busy_parts_us_p50\": {\"begin\": %.2f, \"work\": %.2f, "
                "\"end\": %.2f}}\n",
                frames, p50(busy), m.fps, p50(begin), p50(work), p50(end));
    cudaFree(source);
    cudaStreamDestroy(stream);
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "loop_baseline: %s\n", e.what());
    return e.status();
}
