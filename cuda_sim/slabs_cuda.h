// The CUDA backend's split run (slabs.h): slabs on one GPU or spread over several (--gpus), one
// process. Slab i lives on devices[i * devices.size() / slabs] (contiguous blocks, so neighbours
// share a GPU wherever they can); devices[0] is the display GPU, where the outputs are written
// and whose stream the caller passes. Halos between slabs on one GPU move by device copies,
// between GPUs by ncclSend/ncclRecv in one group per exchange (NCCL loaded at run time, one
// communicator over the devices, NVLink multicast off); each slab's planes reach the display GPU
// by peer copies into the gathering object of the whole grid there. Every call only enqueues.
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

inline constexpr double kDefaultDisplayShareOfEven = 0.8;

// displayShare: the part of the planes the display GPU's slabs hold across GPUs (0: the default,
// kDefaultDisplayShareOfEven of an even share: the display GPU also writes the outputs and
// draws, so less than its even share balances the GPUs).
// Throws usageError (bad plan or share), unsupported (fewer CUDA devices than listed, NCCL
// missing, a device listed twice) or estuary::Error (CUDA). Leaves devices[0] current.
std::unique_ptr<CudaSimulation> createSlabbedCuda(const SimDefinition& def, const GridSize& whole,
                                                  uint32_t slabs, const std::vector<int>& devices,
                                                  uint32_t maxHalo = kDefaultSlabHalo,
                                                  double displayShare = 0);

// The CUDA devices to use for `gpus` GPUs with `display` first, then the others in ordinal
// order. Throws unsupported naming how many are present when there are fewer.
std::vector<int> slabDevices(int display, uint32_t gpus);

// "NCCL 2.27.3 (libnccl.so.2)" once loaded; loads it (unsupported naming the library and
// dlerror's reason when it cannot be). Sets NCCL_NVLS_ENABLE=0 first.
std::string loadNccl();

} // namespace estuary::sim
