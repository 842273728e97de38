// The slabs behind estuary_create_slabs (estuary.h, "your kernel on slabs"): a field of the
// user's split along its slowest axis, each slab the user's kernel steps on its own device, with
// halos estuary exchanges and a gather into a frame's image. The plan (which planes each slab
// holds, which copies an exchange makes) is pure and tested on its own; the memory is host memory
// (slabs.cpp) or device memory on CUDA devices of this process (slabs_cuda.cpp: streams, events,
// device and peer copies; slabs_cuda_none.cpp without CUDA).
#pragma once

#include "estuary/estuary.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace estuary::lib {

struct SlabPlan {
    uint32_t planes = 0; // of the whole field along the split axis
    uint32_t halo = 0;
    bool periodic = false;
    std::vector<uint32_t> first, count; // per slab
};

// `planes` split into `slabs` as evenly as they go (the first planes % slabs one plane thicker,
// as the app's --slabs does). Throws usageError naming the value and what is allowed: slabs 0,
// more slabs than planes, a halo of 0 or thicker than the thinnest slab. `planeName` is "rows"
// or "slices", `axis` the desc field the planes come from ("height", "depth").
SlabPlan planSlabLayout(uint32_t planes, uint32_t slabs, uint32_t halo, bool periodic,
                        const char* planeName, const char* axis);

// One halo copy: `plan.halo` planes of slab `from`'s own edge starting at its plane `fromPlane`
// into slab `to`'s halo at its plane `toPlane` (planes of the slabs' own memory, halo first).
struct SlabHaloCopy {
    size_t from = 0, to = 0;
    uint32_t fromPlane = 0, toPlane = 0;
};
// Boundary by boundary (slab b above slab b + 1; with `periodic` the last above the first): b's
// last own planes into b + 1's upper halo, then b + 1's first own planes into b's lower halo.
std::vector<SlabHaloCopy> slabHaloCopies(const SlabPlan& plan);

// The C API's checks on a desc, resolved: writer, devices and slabs (0s replaced), the plan.
struct SlabLayout {
    estuary_writer writer = ESTUARY_WRITER_HOST;
    uint32_t width = 0, height = 0, depth = 1, texelBytes = 4;
    uint32_t devices = 1;
    SlabPlan plan;
    size_t planeBytes() const { return size_t(width) * texelBytes * (depth > 1 ? height : 1); }
    size_t slabBytes(size_t slab) const {
        return planeBytes() * (plan.count[slab] + 2 * size_t(plan.halo));
    }
};
// `cudaDevices`: how many this process sees (0 without CUDA); `viewerHasCuda`: for AUTO.
SlabLayout resolveSlabLayout(const estuary_slabs_desc& desc, bool viewerHasCuda, int cudaDevices);

struct CudaSlabs; // slabs_cuda.cpp: device memory, streams, events
struct CudaSlabsDeleter {
    void operator()(CudaSlabs* p) const;
};

} // namespace estuary::lib

struct estuary_slabs {
    estuary_viewer* viewer = nullptr;
    uint64_t handle = 0;
    std::string name;
    estuary_format format = ESTUARY_FORMAT_R32_FLOAT;
    estuary::lib::SlabLayout layout;
    std::vector<estuary::lib::SlabHaloCopy> copies;
    std::vector<std::vector<uint8_t>> host; // host writer: each slab's memory
    std::unique_ptr<estuary::lib::CudaSlabs, estuary::lib::CudaSlabsDeleter> cuda;
};

namespace estuary::lib {

// How many CUDA devices this process sees (0 without CUDA, or none).
int cudaDeviceCount();
// The CUDA side of `slabs` (layout and copies set): device memory zeroed on each slab's device,
// the viewer's device (`viewerDevice`) first; the caller's device is left current.
void createCudaSlabs(estuary_slabs& slabs, int viewerDevice);
estuary_slab cudaSlab(const estuary_slabs& slabs, uint32_t index);
void cudaExchangeSlabs(estuary_slabs& slabs);
// Each slab's own planes into `array` (a cudaArray_t of the viewer's device, 2D or 3D), ordered
// after `stream`'s work so far, and `stream` after the copies.
void cudaGatherSlabs(estuary_slabs& slabs, void* array, void* stream);
// Waits (bounded by `timeoutNs`) for every slab stream; false when one did not finish.
bool cudaSlabsIdle(estuary_slabs& slabs, uint64_t timeoutNs);

// Host memory: exchange now, gather into `level0` (tightly packed texels of the whole field).
void hostExchangeSlabs(estuary_slabs& slabs);
void hostGatherSlabs(const estuary_slabs& slabs, void* level0);

} // namespace estuary::lib
