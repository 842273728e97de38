// Your kernel on slabs (docs/LIBRARY.md): the heat equation over a field split into slabs, one a
// GPU, each stepped by this file's kernel on its own device and stream. estuary exchanges the
// halos (kHalo rows, so kHalo steps between exchanges) and gathers the slabs into the image the
// field view draws; the picture is the same, bit for bit, on any number of GPUs.
//   heat_slabs [--gpus N] [--frames N] [--screenshot PATH]
// (default: every GPU present; headless where there is no display; ESTUARY_FRAMES and
// ESTUARY_SCREENSHOT work as for every estuary program).
#include <estuary/estuary.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

constexpr uint32_t kSize = 768, kHalo = 4; // kHalo is even: the steps end in the slab's memory

// One explicit step of slab `s`'s rows 1..R-2 from `in` into `out` (rows 0 and R-1, and rows
// outside the field, which stay 0, are copied). Heaters circling the field hold their cells at 1.
__global__ void heatStep(const float* in, float* out, estuary_slab s, float time) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t r = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= s.width || r >= s.height) return;
    const size_t at = size_t(r) * s.width + x;
    const int y = int(s.first) - int(s.halo) + int(r); // the row in the whole field
    if (r == 0 || r + 1 == s.height || y < 0 || y >= int(kSize)) {
        out[at] = in[at];
        return;
    }
    const uint32_t w = s.width;
    const float west = x > 0 ? in[at - 1] : 0.0f, east = x + 1 < w ? in[at + 1] : 0.0f;
    float next = in[at] + 0.2f * (west + east + in[at - w] + in[at + w] - 4.0f * in[at]);
    for (int h = 0; h < 6; ++h) {
        const float angle = 0.4f * time * (1.0f + 0.3f * h) + 1.047f * h;
        const float radius = kSize * (0.15f + 0.05f * h);
        const float dx = x - (0.5f * kSize + radius * __cosf(angle));
        const float dy = y - (0.5f * kSize + radius * __sinf(angle));
        if (dx * dx + dy * dy < 18.0f * 18.0f) next = 1.0f;
    }
    out[at] = next;
}

uint32_t number(const char* flag, const char* text) {
    char* end = nullptr;
    const unsigned long value = std::strtoul(text, &end, 10);
    if (!*text || *end || value == 0 || value > 1000000) {
        std::fprintf(stderr, "heat_slabs: %s %s: expected a whole number from 1 to 1000000\n", flag,
                     text);
        std::exit(2);
    }
    return uint32_t(value);
}

int main(int argc, char** argv) try {
    int present = 0;
    uint32_t gpus = cudaGetDeviceCount(&present) == cudaSuccess && present > 0 ? present : 1;
    uint32_t frames = 0; // 0: until the window closes (or ESTUARY_FRAMES)
    const char* screenshot = nullptr;
    for (int i = 1; i < argc; ++i) {
        const bool value = i + 1 < argc;
        if (!std::strcmp(argv[i], "--gpus") && value) {
            gpus = number("--gpus", argv[++i]);
        } else if (!std::strcmp(argv[i], "--frames") && value) {
            frames = number("--frames", argv[++i]);
        } else if (!std::strcmp(argv[i], "--screenshot") && value) {
            screenshot = argv[++i];
        } else {
            std::fprintf(stderr,
                         "usage: heat_slabs [--gpus N] [--frames N] [--screenshot PATH]\n"
                         "heat_slabs: %s: unknown, or missing its value\n",
                         argv[i]);
            return 2;
        }
    }
    estuary::ViewerDesc desc;
    desc.title = "heat on slabs";
    estuary::Viewer viewer(desc);
    estuary::Image field = viewer.image({.format = ESTUARY_FORMAT_R32_FLOAT,
                                         .kind = ESTUARY_IMAGE_2D,
                                         .width = kSize,
                                         .height = kSize,
                                         .writer = ESTUARY_WRITER_CUDA,
                                         .flags = ESTUARY_IMAGE_GENERATE_MIPS,
                                         .name = "temperature"});
    estuary::View view = viewer.fieldView(
        {.image = field.get(), .colormap = ESTUARY_COLORMAP_INFERNO, .value_max = 1.0f});
    estuary::Slabs slabs = viewer.slabs({.format = ESTUARY_FORMAT_R32_FLOAT,
                                         .width = kSize,
                                         .height = kSize,
                                         .halo = kHalo,
                                         .devices = gpus,
                                         .writer = ESTUARY_WRITER_CUDA,
                                         .name = "heat"});
    std::vector<estuary_slab> slab;
    std::vector<float*> scratch;
    for (uint32_t i = 0; i < slabs.count(); ++i) {
        slab.push_back(slabs.slab(i));
        cudaSetDevice(slab[i].cuda_device);
        scratch.push_back(nullptr);
        if (cudaMalloc(&scratch.back(), slab[i].plane_pitch * slab[i].height) != cudaSuccess)
            throw estuary::Error(ESTUARY_ERROR_OUT_OF_MEMORY, "no GPU memory for the scratch");
        std::printf("slab %u: rows %u..%u on GPU %d\n", i, slab[i].first,
                    slab[i].first + slab[i].count - 1, slab[i].cuda_device);
    }
    viewer.display(
        [&](estuary::Frame& frame) {
            for (size_t i = 0; i < slab.size(); ++i) {
                const estuary_slab& s = slab[i];
                cudaSetDevice(s.cuda_device);
                const auto stream = static_cast<cudaStream_t>(s.stream);
                const dim3 block(32, 8), grid((s.width + 31) / 32, (s.height + 7) / 8);
                for (uint32_t k = 0; k < kHalo; k += 2) {
                    const float time = 0.02f * float(frame.index() * kHalo + k);
                    float* data = static_cast<float*>(s.data);
                    heatStep<<<grid, block, 0, stream>>>(data, scratch[i], s, time);
                    heatStep<<<grid, block, 0, stream>>>(scratch[i], data, s, time + 0.02f);
                }
            }
            slabs.exchange();
            slabs.gather(frame, field);
        },
        frames);
    if (screenshot) viewer.screenshot(screenshot);
    for (size_t i = 0; i < slab.size(); ++i) {
        cudaSetDevice(slab[i].cuda_device);
        cudaStreamSynchronize(static_cast<cudaStream_t>(slab[i].stream));
        cudaFree(scratch[i]);
    }
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "heat_slabs: %s\n", e.what());
    return e.status() == ESTUARY_ERROR_INVALID_ARGUMENT ? 2 : 3;
}
