// One field seen four ways in a 2 x 2 layout: a 3D scalar field CUDA writes each frame, marched
// as a volume (top left) and cut by a slice (top right), particles it carries (bottom left) and
// the slice as a height surface (bottom right). The three 3D panels share one camera (drag in any
// of them); the slice has its own. Every panel has axes in millimetres (the image's origin and
// spacing), a title and its colorbar.
#include <estuary/estuary.hpp>

#include <cstdio>

namespace {

constexpr int kSide = 64;          // cells per side of the volume
constexpr float kSpacingMm = 0.5f; // 32 mm across
constexpr float kSideMm = kSide * kSpacingMm;
constexpr float kHeightMm = 8.0f; // the surface's height where the heat is 1
constexpr int kParticles = 20000;
constexpr int kMesh = 63; // cells per side of the surface
constexpr int kVertices = (kMesh + 1) * (kMesh + 1);
constexpr int kTriangles = 2 * kMesh * kMesh;

// Three warm blobs orbiting the centre of the unit cube: the field at p (unit-cube coordinates).
__device__ float field(float3 p, float t) {
    float sum = 0.0f;
    for (int i = 0; i < 3; ++i) {
        const float a = t * (0.4f + 0.15f * i) + 2.1f * i;
        const float3 c = make_float3(0.5f + 0.25f * __cosf(a), 0.5f + 0.25f * __sinf(a),
                                     0.5f + 0.2f * __sinf(0.7f * a));
        const float dx = p.x - c.x, dy = p.y - c.y, dz = p.z - c.z;
        sum += __expf(-(dx * dx + dy * dy + dz * dz) * 40.0f);
    }
    return sum;
}

__global__ void writeVolume(cudaSurfaceObject_t volume, float t) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kSide * kSide * kSide) return;
    const int x = i % kSide, y = (i / kSide) % kSide, z = i / (kSide * kSide);
    const float3 p = make_float3((x + 0.5f) / kSide, (y + 0.5f) / kSide, (z + 0.5f) / kSide);
    surf3Dwrite(field(p, t), volume, x * int(sizeof(float)), y, z);
}

// Particles turning about the cube's vertical axis and rising (each frame's positions from the
// time alone: every frame in flight has its own buffer), each carrying the field's value where
// it is.
__global__ void placeParticles(float4* particles, float t) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= kParticles) return;
    unsigned h = unsigned(i) * 2654435761u;
    const auto next = [&h] {
        h ^= h >> 13, h *= 2246822519u, h ^= h >> 16;
        return float(h & 0xFFFFFF) / float(0x1000000);
    };
    const float x0 = next() - 0.5f, y0 = next() - 0.5f, z0 = next();
    const float a = 0.3f * t;
    const float3 p =
        make_float3(0.5f + 0.7f * (x0 * __cosf(a) - y0 * __sinf(a)),
                    0.5f + 0.7f * (x0 * __sinf(a) + y0 * __cosf(a)), fmodf(z0 + 0.05f * t, 1.0f));
    particles[i] = make_float4(kSideMm * p.x, kSideMm * p.y, kSideMm * p.z, field(p, t));
}

// The slice z = 16 mm as a surface: (x, height, y, value) in mm, up being -y.
__global__ void writeSurface(float4* vertices, float t) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= kVertices) return;
    const float x = float(n % (kMesh + 1)) / kMesh, y = float(n / (kMesh + 1)) / kMesh;
    const float v = field(make_float3(x, y, 0.5f), t);
    vertices[n] = make_float4(kSideMm * x, -kHeightMm * v, kSideMm * y, v);
}

__global__ void triangulate(unsigned* indices) {
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= kMesh * kMesh) return;
    const unsigned i = c % kMesh, j = c / kMesh;
    const unsigned a = j * (kMesh + 1) + i, b = a + 1, d = a + (kMesh + 1), e = d + 1;
    const unsigned corners[6] = {a, d, b, b, d, e};
    for (int k = 0; k < 6; ++k)
        indices[6 * c + k] = corners[k];
}

void setPanel(const estuary::Viewer& viewer, uint32_t panel, const char* title, uint32_t link,
              uint32_t flags, const char* y = "y [mm]", const char* z = "z [mm]") {
    estuary_panel_desc d{};
    d.title = title;
    d.camera_link = link;
    d.flags = flags;
    d.axis_titles[0] = "x [mm]";
    d.axis_titles[1] = y;
    d.axis_titles[2] = z;
    viewer.setPanel(panel, d);
}

} // namespace

int main() try {
    estuary::Viewer viewer;
    viewer.setLayout(2, 2, {}, {}, 6.0f);
    setPanel(viewer, 0, "volume", 1, ESTUARY_PANEL_AXES);
    setPanel(viewer, 1, "slice z = 16 mm", 0, ESTUARY_PANEL_AXES | ESTUARY_PANEL_GRID);
    setPanel(viewer, 2, "particles", 1, ESTUARY_PANEL_AXES);
    setPanel(viewer, 3, "slice as a surface", 1, ESTUARY_PANEL_AXES, "height [mm]", "y [mm]");

    estuary_image_desc desc{.format = ESTUARY_FORMAT_R32_FLOAT,
                            .kind = ESTUARY_IMAGE_3D,
                            .width = kSide,
                            .height = kSide,
                            .depth = kSide};
    desc.writer = ESTUARY_WRITER_CUDA;
    desc.flags = ESTUARY_IMAGE_GENERATE_MIPS;
    desc.name = "heat";
    for (float& s : desc.spacing)
        s = kSpacingMm;
    for (float& o : desc.origin)
        o = 0.5f * kSpacingMm; // cell centres: the volume spans 0..32 mm
    estuary::Image volume = viewer.image(desc);

    estuary_volume_view_desc march{.image = volume.get(), .style = ESTUARY_VOLUME_MARCH};
    march.opacity = 0.15f;
    march.colormap = ESTUARY_COLORMAP_INFERNO;
    march.value_max = 1.0f;
    const estuary::View marched = viewer.volumeView(march);
    estuary_volume_view_desc cut{.image = volume.get(), .style = ESTUARY_VOLUME_SLICE};
    cut.colormap = ESTUARY_COLORMAP_INFERNO;
    cut.value_max = 1.0f;
    const estuary::View slice = viewer.volumeView(cut);
    slice.update([](estuary_view_params& p) {
        p.panel = 1;
        p.slice_axis = 2;
        p.slice_position = 0.5f;
    });

    estuary::Buffer particles = viewer.buffer(
        {.size = kParticles * sizeof(float4), .writer = ESTUARY_WRITER_CUDA, .name = "particles"});
    estuary_points_view_desc cloud{.buffer = particles.get(), .layout = ESTUARY_POINTS_XYZ_SCALAR};
    cloud.size = 2.0f;
    cloud.colormap = ESTUARY_COLORMAP_INFERNO;
    cloud.value_max = 1.0f;
    cloud.label = "heat at the particle";
    cloud.flags = ESTUARY_POINTS_COLORBAR;
    const float box[6] = {0, 0, 0, kSideMm, kSideMm, kSideMm};
    std::copy(box, box + 6, cloud.bounds);
    const estuary::View points = viewer.pointsView(cloud);
    points.setPanel(2);

    estuary::Buffer vertices = viewer.buffer(
        {.size = kVertices * sizeof(float4), .writer = ESTUARY_WRITER_CUDA, .name = "surface"});
    estuary::Buffer indices = viewer.buffer({.size = 3 * kTriangles * sizeof(unsigned),
                                             .writer = ESTUARY_WRITER_CUDA,
                                             .flags = ESTUARY_ALLOC_SINGLE,
                                             .name = "surface cells"});
    estuary_mesh_view_desc mesh{.vertices = vertices.get(), .indices = indices.get()};
    mesh.shading = ESTUARY_MESH_SMOOTH;
    mesh.colormap = ESTUARY_COLORMAP_INFERNO;
    mesh.value_max = 1.0f;
    mesh.label = "heat on the slice";
    mesh.flags = ESTUARY_POINTS_COLORBAR;
    const float surfaceBox[6] = {0, -kHeightMm, 0, kSideMm, 0, kSideMm};
    std::copy(surfaceBox, surfaceBox + 6, mesh.bounds);
    const estuary::View surface = viewer.meshView(mesh);
    surface.setPanel(3);
    viewer.setPanelCamera(0, {.zoom = 1.2f, .yaw_degrees = 30.0f, .pitch_degrees = 25.0f});

    int frames = 0;
    viewer.display([&](estuary::Frame& frame) {
        const float t = 0.03f * float(frames);
        cudaStream_t stream = frame.stream();
        writeVolume<<<(kSide * kSide * kSide + 255) / 256, 256, 0, stream>>>(frame.surface(volume),
                                                                             t);
        placeParticles<<<(kParticles + 255) / 256, 256, 0, stream>>>(
            frame.devicePointer<float4>(particles), t);
        writeSurface<<<(kVertices + 255) / 256, 256, 0, stream>>>(
            frame.devicePointer<float4>(vertices), t);
        if (frames == 0)
            triangulate<<<(kMesh * kMesh + 255) / 256, 256, 0, stream>>>(
                frame.devicePointer<unsigned>(indices));
        ++frames;
    });
    return 0;
} catch (const estuary::Error& e) {
    std::fprintf(stderr, "panels: %s\n", e.what());
    return e.status();
}
