// The CUDA backend's split run (slabs.h): slabs on one GPU or spread over several (--gpus), one
// process. Slab i lives on devices[gpuOfSlab(i, slabs, devices.size())] (contiguous blocks, so
// neighbours share a GPU wherever they can); devices[0] is the display GPU, where the outputs are
// written and whose stream the caller passes. Halos between slabs on one GPU move by device copies,
// between GPUs by peer copies where the GPUs can access each other's memory, else by
// ncclSend/ncclRecv in one group per exchange (HaloTransport; NCCL loaded at run time only then,
// one communicator over the devices, NVLink multicast off); each slab's planes reach the display
// GPU by peer copies into the gathering object of the whole grid there. Every call only enqueues.
// Across GPUs every GPU's slabs run on a stream of their own (the display GPU's too): steps wait
// for nothing on the caller's stream, so a frame's steps overlap the last frame's output write and
// draw; the gather waits only for the last writeOutputs, reset and brush for everything before
// them. The caller's stream waits for the slabs' streams at the end of every call, so its
// finishing means all is done.
#pragma once

#include "cuda_simulation.h"
#include "slabs.h"

#include <memory>
#include <string>
#include <vector>

namespace estuary::sim {

// Slab i of `plan` on devices[gpuOfSlab(i, slabs, devices.size())]; the plan made for this many
// GPUs (planSlabRun: across GPUs the display GPU's share and the halo are the plan's).
// Halos between GPUs move by `halos` (Auto: slabTuning().halos, itself Auto unless the
// environment says otherwise). Throws usageError (a plan that does not fit the grid or the GPUs),
// unsupported (fewer CUDA devices than listed, NCCL missing where it is used, a device listed
// twice) or estuary::Error (CUDA). Leaves devices[0] current.
std::unique_ptr<CudaSimulation> createSlabbedCuda(const SimDefinition& def, const GridSize& whole,
                                                  const SlabPlan& plan,
                                                  const std::vector<int>& devices,
                                                  HaloTransport halos = HaloTransport::Auto);
// The same with planSlabRun's plan for `slabs` over devices.size() GPUs (halo 0: automatic;
// displayShare 0: the default), aiming the automatic halo at def's steps per frame.
std::unique_ptr<CudaSimulation> createSlabbedCuda(const SimDefinition& def, const GridSize& whole,
                                                  uint32_t slabs, const std::vector<int>& devices,
                                                  uint32_t halo = 0, double displayShare = 0,
                                                  HaloTransport halos = HaloTransport::Auto);

// How a split run across GPUs moves its halos: "peer copies" or NCCL's description (loadNccl);
// empty for a run on one GPU or not split.
std::string slabHaloTransport(const CudaSimulation& sim);

// Sort-last drawing of a split volume (volume_march.h): from now on writeOutputs writes no
// output of the simulation's own; each slab's own slices are ray-marched on its GPU into a
// width x height partial picture, and the display GPU composites them front to back into level 0
// of the last image target writeOutputs gets (an RGBA16Float 2D image of that size). Returns
// false, changing nothing, where it cannot: not a split run, a 2D grid, more than
// kMaxMarchSlabs slabs (or, once enabled, another size). setSlabMarch gives the view of the
// frames from the next writeOutputs on; it must match the enabled size.
struct MarchView;
bool enableSlabMarch(CudaSimulation& sim, uint32_t width, uint32_t height);
void setSlabMarch(CudaSimulation& sim, const MarchView& view);

// --trace of a split run across GPUs: from now on each GPU's steps, halo exchanges, gather copies
// and peer copies are marked with CUDA events (no host waits; each GPU's clock is put on the
// host's once, here, bracketed by a synchronize). Returns the GPUs traced: 0 for a run on one GPU
// (its work is on the caller's stream, which the viewer traces) or not split.
size_t traceSlabSpans(CudaSimulation& sim);
// The spans whose events have completed, in the order enqueued; never waits. Events that are
// still pending stay for a later call (the readback lags the GPU by the frames in flight).
std::vector<GpuSpan> takeSlabSpans(CudaSimulation& sim);

// The CUDA devices to use for `gpus` GPUs with `display` first, then the others in ordinal
// order. Throws unsupported naming how many are present when there are fewer.
std::vector<int> slabDevices(int display, uint32_t gpus);

// "NCCL 2.27.3 (libnccl.so.2)" once loaded; loads it (unsupported naming the library and
// dlerror's reason when it cannot be). Sets NCCL_NVLS_ENABLE=0 first.
std::string loadNccl();

} // namespace estuary::sim
