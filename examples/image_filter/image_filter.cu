// CUDA filters an image every frame, the idea of cuda-samples' vulkanImageCUDA: a colourful source
// picture lives in CUDA memory, and each frame a box blur whose radius breathes over time writes
// the filtered picture into an RGBA8 image that estuary draws as colour, its mips built by estuary.
#include <estuary/estuary.hpp>

#include <cmath>
#include <cstdio>

namespace {

constexpr int kSize = 1024;

// The source: rings and stripes in three colours.
__global__ void paint(uchar4* image) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= kSize || y >= kSize) return;
    const float u = float(x) / kSize - 0.5f, v = float(y) / kSize - 0.5f;
    const float rings = 0.5f + 0.5f * __cosf(60.0f * sqrtf(u * u + v * v));
    const float stripes = 0.5f + 0.5f * __sinf(40.0f * (u + v));
    image[y * kSize + x] =
        make_uchar4(255 * rings, 255 * stripes, 255 * (1.0f - rings * stripes), 255);
}

// A (2r + 1)² box blur of the source into the frame's image.
__global__ void blur(const uchar4* source, cudaSurfaceObject_t target, int radius) {
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= kSize || y >= kSize) return;
    float4 sum = make_float4(0, 0, 0, 0);
    int n = 0;
    for (int dy = -radius; dy <= radius; ++dy)
        for (int dx = -radius; dx <= radius; ++dx) {
            const int sx = min(max(x + dx, 0), kSize - 1), sy = min(max(y + dy, 0), kSize - 1);
            const uchar4 c = source[sy * kSize + sx];
            sum.x += c.x, sum.y += c.y, sum.z += c.z, ++n;
        }
    surf2Dwrite(make_uchar4(sum.x / n, sum.y / n, sum.z / n, 255), target, x * sizeof(uchar4), y);
}

} // namespace

int main() try {
    estuary::Viewer viewer;
    estuary::Image picture = viewer.image({.format = ESTUARY_FORMAT_RGBA8_UNORM,
                                           .kind = ESTUARY_IMAGE_2D,
                                           .width = kSize,
                                           .height = kSize,
                                           .writer = ESTUARY_WRITER_CUDA,
                                           .flags = ESTUARY_IMAGE_GENERATE_MIPS,
                                           .name = "filtered picture"});
    estuary_field_view_desc view{.image = picture.get(), .shading = ESTUARY_FIELD_RGB};
    const estuary::View shown = viewer.fieldView(view); // drawn while `shown` lives
    uchar4* source = nullptr;
    if (cudaMalloc(&source, kSize * kSize * sizeof(uchar4)) != cudaSuccess) return 1;
    const dim3 block(16, 16), grid(kSize / 16, kSize / 16);
    paint<<<grid, block>>>(source);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1; // before the frames' own stream
    viewer.display([&](estuary::Frame& frame) {
        const int radius = int(4.5f + 4.5f * std::sin(0.04f * frame.index()));
        blur<<<grid, block, 0, frame.stream()>>>(source, frame.surface(picture), radius);
    });
    cudaFree(source);
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "image_filter: %s\n", e.what());
    return e.status();
}
