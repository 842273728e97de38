// The slab march and the compositing of sort-last volume drawing (volume_march.h). The march
// follows viewer/views/volume/volume_march.glsl step for step; compiled by nvcc only.
#ifdef __CUDACC__
#include "volume_march.h"
#include "cuda_check.h"
#include "half_float.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace estuary::sim {
namespace {

constexpr float kOpaque = 0.99f; // early ray termination, as the shader's
constexpr int kMaxSteps = 4096;

struct Ray {
    float3 dir;
    float length; // of the unnormalised ray through the pixel: its footprint's scale
};

__device__ Ray pixelRay(const MarchView& v, float px, float py) {
    const float nx = 2.0f * px / float(v.width) - 1.0f;
    const float ny = 2.0f * py / float(v.height) - 1.0f;
    // Row 0 is the top of the picture: +ny goes down, against `up`.
    const float3 ray = make_float3(v.forward[0] + nx * v.right[0] - ny * v.up[0],
                                   v.forward[1] + nx * v.right[1] - ny * v.up[1],
                                   v.forward[2] + nx * v.right[2] - ny * v.up[2]);
    const float length = sqrtf(ray.x * ray.x + ray.y * ray.y + ray.z * ray.z);
    return {make_float3(ray.x / length, ray.y / length, ray.z / length), length};
}

constexpr int kColormapEntries = 256;

// The colormap at t in [0, 1] of the value range, from the row in shared memory (entries as
// floats in [0, 1]): linear between the row's texel centres (what the shader's sampler does with
// x = (t (n - 1) + 0.5) / n), or a palette's entry.
__device__ float3 colormapAt(const MarchView& v, const float4* row, float t) {
    constexpr int n = kColormapEntries;
    if (v.categories > 0) {
        const float value = rintf(v.valueMin + t * (v.valueMax - v.valueMin));
        const float c = float(v.categories);
        const int i = int(value - c * floorf(value / c));
        const float4 e = row[min(max(i, 0), n - 1)];
        return make_float3(e.x, e.y, e.z);
    }
    const float x = t * float(n - 1);
    const int i = min(int(x), n - 2);
    const float f = x - float(i);
    const float4 a = row[i], b = row[i + 1];
    return make_float3(a.x + f * (b.x - a.x), a.y + f * (b.y - a.y), a.z + f * (b.z - a.z));
}

// size: the whole volume in texels; the slab holds slices [first, first + count). The colormap
// row goes to shared memory first: threads of a warp read different entries, which a kernel
// argument (constant memory) would serve one address at a time. The per-sample arithmetic uses
// reciprocals and the hardware's exp2/log2 approximations, as the shader's does.
__global__ void marchSlabKernel(MarchView v, cudaTextureObject_t slab, float3 size, float first,
                                float count, float4* partial) {
    __shared__ float4 row[kColormapEntries];
    const uint32_t lane = threadIdx.y * blockDim.x + threadIdx.x;
    for (uint32_t i = lane; i < kColormapEntries; i += blockDim.x * blockDim.y)
        row[i] = make_float4(v.colormap[i][0] / 255.0f, v.colormap[i][1] / 255.0f,
                             v.colormap[i][2] / 255.0f, 1.0f);
    __syncthreads();
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= v.width || y >= v.height) return;
    const Ray r = pixelRay(v, float(x) + 0.5f, float(y) + 0.5f);
    const float3 dir = r.dir;
    const float largest = fmaxf(size.x, fmaxf(size.y, size.z));
    const float3 half =
        make_float3(0.5f * size.x / largest, 0.5f * size.y / largest, 0.5f * size.z / largest);
    // The slab's box: the volume's, cut to its slices along z.
    const float3 lo = make_float3(-half.x, -half.y, -half.z + first / largest);
    const float3 hi = make_float3(half.x, half.y, -half.z + (first + count) / largest);
    const float3 eye = make_float3(v.eye[0], v.eye[1], v.eye[2]);
    const float3 inv = make_float3(1.0f / dir.x, 1.0f / dir.y, 1.0f / dir.z);
    const float3 t0 =
        make_float3((lo.x - eye.x) * inv.x, (lo.y - eye.y) * inv.y, (lo.z - eye.z) * inv.z);
    const float3 t1 =
        make_float3((hi.x - eye.x) * inv.x, (hi.y - eye.y) * inv.y, (hi.z - eye.z) * inv.z);
    const float tNear =
        fmaxf(fmaxf(fminf(t0.x, t1.x), fminf(t0.y, t1.y)), fmaxf(fminf(t0.z, t1.z), 0.0f));
    const float tFar = fminf(fmaxf(t0.x, t1.x), fminf(fmaxf(t0.y, t1.y), fmaxf(t0.z, t1.z)));
    float4& out = partial[size_t(y) * v.width + x];
    if (!(tNear < tFar)) {
        out = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        return;
    }
    const float upLength = sqrtf(v.up[0] * v.up[0] + v.up[1] * v.up[1] + v.up[2] * v.up[2]);
    const float pixelAngle = 2.0f * upLength / (float(v.height) * r.length);
    const float voxel = 1.0f / largest;
    const float stepScale = fminf(1.0f, 0.5f / fmaxf(v.opacity, 1e-6f));
    // Per ray: box units to texture coordinates (p / (2 half) = p largest / size), the slab's
    // slices, the value range.
    const float3 toTexture = make_float3(largest / size.x, largest / size.y, largest / size.z);
    const float perSlice = 1.0f / count;
    const float range = v.valueMax - v.valueMin;
    const float perValue = range != 0.0f ? 1.0f / range : 0.0f;
    constexpr float kLog2e = 1.44269504f;
    float3 color = make_float3(0.0f, 0.0f, 0.0f);
    float alpha = 0.0f;
    float t = tNear;
    for (int i = 0; i < kMaxSteps && t < tFar; ++i) {
        const float footprint = pixelAngle * t * largest;
        const float lod = fmaxf(__log2f(fmaxf(footprint, 1.0f)) + v.lodBias, 0.0f);
        const float stepVoxels = ldexpf(1.0f, int(floorf(lod))) * stepScale;
        const float stepLength = fminf(stepVoxels * voxel, tFar - t);
        const float m = t + 0.5f * stepLength; // the middle of the step
        const float px = eye.x + m * dir.x, py = eye.y + m * dir.y, pz = eye.z + m * dir.z;
        // The whole volume's texture coordinates, then z over the slab's own slices.
        const float u = px * toTexture.x + 0.5f;
        const float w = py * toTexture.y + 0.5f;
        const float z = ((pz * toTexture.z + 0.5f) * size.z - first) * perSlice;
        const float value = tex3DLod<float>(slab, u, w, z, lod);
        const float n = fminf(fmaxf((value - v.valueMin) * perValue, 0.0f), 1.0f);
        const float a = 1.0f - exp2f(-kLog2e * v.opacity * n * stepLength * largest);
        const float3 c = colormapAt(v, row, n);
        const float k = (1.0f - alpha) * a;
        color = make_float3(color.x + k * c.x, color.y + k * c.y, color.z + k * c.z);
        alpha += k;
        if (alpha >= kOpaque) break;
        t += stepLength;
    }
    out = make_float4(color.x, color.y, color.z, alpha);
}

struct Partials {
    const float4* slab[kMaxMarchSlabs];
    uint32_t count;
};

__global__ void compositeKernel(MarchView v, Partials parts, cudaSurfaceObject_t picture) {
    const uint32_t x = blockIdx.x * blockDim.x + threadIdx.x;
    const uint32_t y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= v.width || y >= v.height) return;
    // A ray crosses the slabs in the order of its z: increasing z, slab 0 first.
    const bool ascending = pixelRay(v, float(x) + 0.5f, float(y) + 0.5f).dir.z >= 0.0f;
    const size_t at = size_t(y) * v.width + x;
    float3 color = make_float3(0.0f, 0.0f, 0.0f);
    float alpha = 0.0f;
    for (uint32_t k = 0; k < parts.count; ++k) {
        const float4 p = parts.slab[ascending ? k : parts.count - 1 - k][at];
        const float keep = 1.0f - alpha;
        color = make_float3(color.x + keep * p.x, color.y + keep * p.y, color.z + keep * p.z);
        alpha += keep * p.w;
    }
    const float keep = 1.0f - alpha;
    const ushort4 texel =
        make_ushort4(floatToHalf(color.x + keep * v.background[0]),
                     floatToHalf(color.y + keep * v.background[1]),
                     floatToHalf(color.z + keep * v.background[2]), floatToHalf(1.0f));
    surf2Dwrite(texel, picture, int(x * sizeof(ushort4)), int(y));
}

dim3 pictureGrid(const MarchView& v, dim3 block) {
    return dim3((v.width + block.x - 1) / block.x, (v.height + block.y - 1) / block.y);
}

} // namespace

SlabVolume createSlabVolume(uint32_t width, uint32_t height, uint32_t first, uint32_t count) {
    SlabVolume volume;
    volume.output = {"slab volume", width, height, count, TexelFormat::R32Float, 0};
    volume.first = first;
    volume.image = createDeviceImage(volume.output);
    cudaResourceDesc resource{};
    resource.resType = cudaResourceTypeMipmappedArray;
    resource.res.mipmap.mipmap = volume.image.mipmapped;
    cudaTextureDesc texture{};
    for (int axis = 0; axis < 3; ++axis)
        texture.addressMode[axis] = cudaAddressModeClamp;
    texture.filterMode = cudaFilterModeLinear;
    texture.mipmapFilterMode = cudaFilterModeLinear;
    texture.readMode = cudaReadModeElementType;
    texture.normalizedCoords = 1;
    texture.maxMipmapLevelClamp = float(levelCount(volume.output) - 1);
    const cudaError_t r = cudaCreateTextureObject(&volume.texture, &resource, &texture, nullptr);
    if (r != cudaSuccess) {
        destroyDeviceImage(volume.image);
        CUDA_CHECK(r);
    }
    return volume;
}

void destroySlabVolume(SlabVolume& volume) {
    if (volume.texture) (void)cudaDestroyTextureObject(volume.texture);
    volume.texture = 0;
    destroyDeviceImage(volume.image);
}

void writeSlabVolume(SlabVolume& volume, const float* own, cudaStream_t stream) {
    writeVolumeFromField(own, volume.output, volume.image.target(), stream);
}

void marchSlab(const MarchView& view, const SlabVolume& volume, uint32_t depth, float4* partial,
               cudaStream_t stream) {
    const dim3 block(16, 8);
    const ImageOutput& o = volume.output;
    marchSlabKernel<<<pictureGrid(view, block), block, 0, stream>>>(
        view, volume.texture, make_float3(float(o.width), float(o.height), float(depth)),
        float(volume.first), float(o.depth), partial);
    CUDA_CHECK(cudaGetLastError());
}

void compositeSlabs(const MarchView& view, const std::vector<const float4*>& partials,
                    cudaSurfaceObject_t picture, cudaStream_t stream) {
    if (partials.empty() || partials.size() > kMaxMarchSlabs)
        throw std::invalid_argument("compositeSlabs: " + std::to_string(partials.size()) +
                                    " partial pictures (1.." + std::to_string(kMaxMarchSlabs) +
                                    ")");
    Partials parts{};
    std::copy(partials.begin(), partials.end(), parts.slab);
    parts.count = uint32_t(partials.size());
    const dim3 block(16, 8);
    compositeKernel<<<pictureGrid(view, block), block, 0, stream>>>(view, parts, picture);
    CUDA_CHECK(cudaGetLastError());
}

} // namespace estuary::sim
#endif // __CUDACC__
