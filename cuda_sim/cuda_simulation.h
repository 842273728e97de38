// The CUDA half of a simulation (simulation.h has the rest): the same shape as CpuSimulation, with
// every call enqueued on a stream the caller owns and passes in. Nothing here waits on the host or
// allocates after construction. The outputs are CUDA surfaces (one per mip level of each image) and
// device pointers (one per buffer), which interop/ gets from Vulkan-exported memory; the simulation
// never knows where they came from. Include only <cuda_runtime_api.h>: no Vulkan.
#pragma once

#include "simulation.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace estuary::sim {

// One surface per level, level 0 first: of a 2D CUDA array (surf2Dread/surf2Dwrite) for a 2D
// image, of a 3D array (surf3Dread/surf3Dwrite, x in bytes) for a 3D one (ImageOutput::depth > 1),
// whatever that level's own depth.
struct DeviceImageTarget {
    std::span<const cudaSurfaceObject_t> levels;
};
struct DeviceTargets {
    std::span<const DeviceImageTarget> images;
    std::span<void* const> buffers;
    // The caller's promise that these buffers keep what this call writes, untouched by anyone,
    // until the work of the next writeOutputs (and of the step() before it) has run: a ring of
    // exported buffers, each rewritten only frames later. A simulation may then keep state in
    // them and read it back next frame instead of keeping its own copy and copying it out (the
    // fluid advects its particles straight into the buffer). false: read nothing back.
    bool buffersKept = false;
};

class CudaSimulation {
  public:
    // Frees device memory; the caller has finished the streams that used it.
    virtual ~CudaSimulation() = default;
    virtual void reset(uint64_t seed, cudaStream_t stream) = 0;
    virtual void step(const ParamValues& params, int steps, cudaStream_t stream) = 0;
    virtual void writeOutputs(const DeviceTargets& targets, cudaStream_t stream) = 0;
    // For callers that capture a frame's step() and writeOutputs() into a CUDA graph and replay it
    // (the app's CUDA backend): a value standing for everything besides their arguments that
    // decides what they enqueue, such as which ping-pong buffer is current. Equal value, equal
    // arguments: identical work. A caller replays only work that leaves the value unchanged, so
    // that skipping the calls leaves the host-side state right. nullopt (the default): the work
    // changes every frame, or nobody checked; it is then always enqueued call by call.
    virtual std::optional<uint64_t> replayState() const { return std::nullopt; }
    // Splitting (simulation.h's SlabFields; SimDefinition::splittable): the same as the CPU
    // object's, in device memory, the reset enqueued on `stream`.
    virtual SlabFields slabFields() { return {}; }
    virtual void resetAsPart(uint64_t seed, const GridSize& whole, uint32_t firstPlane,
                             cudaStream_t stream) {
        (void)whole;
        (void)firstPlane;
        reset(seed, stream);
    }
    virtual void brush(const Brush& brush, const ParamValues& params, cudaStream_t stream) {
        (void)brush;
        (void)params;
        (void)stream;
    }
};

// An output image in private CUDA memory, not shared with Vulkan: a mipmapped array (3D when the
// output's depth > 1) with one surface per level, in the output's format. What runs a simulation
// without interop (the host-copy benchmark mode) and what tests compare a CUDA simulation's
// outputs in. create throws estuary::Error (exit 3 when out of memory) and leaks nothing; destroy
// after the streams using it.
struct DeviceImage {
    cudaMipmappedArray_t mipmapped = nullptr;
    std::vector<cudaArray_t> levels;
    std::vector<cudaSurfaceObject_t> surfaces;
    DeviceImageTarget target() const { return {surfaces}; }
};
DeviceImage createDeviceImage(const ImageOutput& image);
void destroyDeviceImage(DeviceImage& image);

// CUDA side of the mip chain: levels firstLevel.. of `target` from level firstLevel - 1 (2x2
// means, 2x2x2 for a 3D image), the same arithmetic as the CPU's writeMipChain (bit-identical); a
// caller that wrote the first levels itself passes the first one it left. In stream order: a 2D
// image takes one launch per five levels, a 3D image one per level. Float formats only.
void writeMipChain(const ImageOutput& image, const DeviceImageTarget& target, cudaStream_t stream,
                   int firstLevel = 1);

// A float field of image's width x height x depth cells (x fastest) into level 0 of `target` (an
// R32Float 3D image's chain) and its whole mip chain, the field read once: level 0 and the four
// levels below it in one launch. The same texels as a copy into level 0 then writeMipChain.
void writeVolumeFromField(const float* field, const ImageOutput& image,
                          const DeviceImageTarget& target, cudaStream_t stream);

} // namespace estuary::sim
