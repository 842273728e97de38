// DeviceImage (cuda_simulation.h): an output image in private CUDA memory. Runtime calls only, but
// a .cu so that builds without nvcc (which compile .cu files as C++) leave it out.
#ifdef __CUDACC__
#include "cuda_check.h"
#include "cuda_simulation.h"

namespace estuary::sim {

DeviceImage createDeviceImage(const ImageOutput& image) {
    const int c = int(channelCount(image.format));
    const int bits = int(texelBytes(image.format)) * 8 / c; // 32, or 16 for halves
    const cudaChannelFormatDesc format{bits, c > 1 ? bits : 0, c > 2 ? bits : 0, c > 3 ? bits : 0,
                                       cudaChannelFormatKindFloat};
    // Depth 0 asks for a 2D array; a 3D image's levels are 3D arrays (surf3Dread/surf3Dwrite).
    const cudaExtent extent{image.width, image.height, image.depth > 1 ? image.depth : 0};
    DeviceImage out;
    try {
        CUDA_CHECK(cudaMallocMipmappedArray(&out.mipmapped, &format, extent, levelCount(image),
                                            cudaArraySurfaceLoadStore));
        for (uint32_t level = 0; level < levelCount(image); ++level) {
            cudaArray_t array = nullptr;
            CUDA_CHECK(cudaGetMipmappedArrayLevel(&array, out.mipmapped, level));
            out.levels.push_back(array);
            cudaResourceDesc resource{};
            resource.resType = cudaResourceTypeArray;
            resource.res.array.array = array;
            cudaSurfaceObject_t surface = 0;
            CUDA_CHECK(cudaCreateSurfaceObject(&surface, &resource));
            out.surfaces.push_back(surface);
        }
    } catch (...) {
        destroyDeviceImage(out);
        throw;
    }
    return out;
}

void destroyDeviceImage(DeviceImage& image) {
    // Teardown errors surface at the next checked call; nothing useful can be done here.
    for (cudaSurfaceObject_t surface : image.surfaces)
        (void)cudaDestroySurfaceObject(surface);
    if (image.mipmapped) (void)cudaFreeMipmappedArray(image.mipmapped);
    image = DeviceImage{};
}

} // namespace estuary::sim
#endif // __CUDACC__
