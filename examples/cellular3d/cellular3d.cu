// A 3D cellular automaton in a volume: cells live on a 128³ torus and follow the "clouds" rule
// (born with 13-14 or 17-19 of 26 neighbours alive, survive with 13-26), which settles from
// half-alive noise into clouds holding about a quarter of the cells. CUDA steps it in its own
// memory; each frame writes how long each cell has lived into a 3D image, which estuary ray-marches
// (mips by estuary).
#include <estuary/estuary.hpp>

#include <cstdio>

namespace {

constexpr int kSide = 128;
constexpr int kCells = kSide * kSide * kSide;

__device__ int wrap(int i) {
    return (i + kSide) % kSide;
}

__global__ void seed(unsigned char* cells) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kCells) return;
    unsigned h = i * 2654435761u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13;
    cells[i] = (h & 1023) < 512 ? 1 : 0; // half alive: age 1
}

// One step: the next age of every cell (0: dead), from the 26 around it.
__global__ void step(const unsigned char* now, unsigned char* next) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kCells) return;
    const int x = i % kSide, y = (i / kSide) % kSide, z = i / (kSide * kSide);
    int alive = 0;
    for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                if (dx || dy || dz)
                    alive += now[(wrap(z + dz) * kSide + wrap(y + dy)) * kSide + wrap(x + dx)] > 0;
    const unsigned char age = now[i];
    const bool lives =
        age ? alive >= 13 : (alive == 13 || alive == 14 || (alive >= 17 && alive <= 19));
    next[i] = lives ? (age < 255 ? age + 1 : 255) : 0;
}

// The ages as floats in 0..1 into level 0 of the frame's volume.
__global__ void show(const unsigned char* cells, cudaSurfaceObject_t volume) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kCells) return;
    const int x = i % kSide, y = (i / kSide) % kSide, z = i / (kSide * kSide);
    const float age = cells[i] ? 0.25f + 0.75f * min(cells[i], 40) / 40.0f : 0.0f;
    surf3Dwrite(age, volume, x * sizeof(float), y, z);
}

} // namespace

int main() try {
    estuary::Viewer viewer;
    estuary_image_desc desc{.format = ESTUARY_FORMAT_R32_FLOAT,
                            .kind = ESTUARY_IMAGE_3D,
                            .width = kSide,
                            .height = kSide,
                            .depth = kSide};
    desc.writer = ESTUARY_WRITER_CUDA;
    desc.flags = ESTUARY_IMAGE_GENERATE_MIPS;
    desc.name = "cell age";
    estuary::Image volume = viewer.image(desc);
    estuary_volume_view_desc view{.image = volume.get(), .style = ESTUARY_VOLUME_MARCH};
    view.opacity = 0.08f;
    const estuary::View shown = viewer.volumeView(view); // drawn while `shown` lives
    unsigned char* cells[2] = {};
    for (auto*& c : cells)
        if (cudaMalloc(&c, kCells) != cudaSuccess) return 1;
    const int blocks = (kCells + 255) / 256;
    seed<<<blocks, 256>>>(cells[0]);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1; // before the frames' own stream
    viewer.display([&](estuary::Frame& frame) {
        const int now = frame.index() % 2;
        step<<<blocks, 256, 0, frame.stream()>>>(cells[now], cells[1 - now]);
        show<<<blocks, 256, 0, frame.stream()>>>(cells[1 - now], frame.surface(volume));
    });
    for (auto* c : cells)
        cudaFree(c);
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "cellular3d: %s\n", e.what());
    return e.status();
}
