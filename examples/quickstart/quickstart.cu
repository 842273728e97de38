// Your own CUDA kernel drawing a live field: estuary's quick start (docs/LIBRARY.md).
#include <estuary/estuary.hpp>

#include <cstdio>

__global__ void ripples(cudaSurfaceObject_t field, int size, float time) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= size || y >= size) return;
    const float r = hypotf(x - 0.5f * size, y - 0.5f * size);
    surf2Dwrite(0.5f + 0.5f * __sinf(0.08f * r - time), field, x * sizeof(float), y);
}

int main() try {
    const uint32_t size = 512;
    estuary::Viewer viewer; // a window, or headless where there is no display
    estuary::Image field = viewer.image({.format = ESTUARY_FORMAT_R32_FLOAT,
                                         .kind = ESTUARY_IMAGE_2D,
                                         .width = size,
                                         .height = size,
                                         .writer = ESTUARY_WRITER_CUDA,
                                         .flags = ESTUARY_IMAGE_GENERATE_MIPS,
                                         .name = "ripples"});
    estuary::View view = viewer.fieldView({.image = field.get()}); // drawn while it lives
    viewer.display([&](estuary::Frame& frame) {
        ripples<<<dim3(size / 16, size / 16), dim3(16, 16), 0, frame.stream()>>>(
            frame.surface(field), size, 0.05f * frame.index());
    });
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "quickstart: %s\n", e.what());
    return e.status();
}
