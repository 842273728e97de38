// The CUDA backend's split run (slabs.h): slabs on one GPU or spread over several (--gpus), one
// process. Slab i lives on devices[i * devices.size() / slabs] (contiguous blocks, so neighbours
// share a GPU wherever they can); devices[0] is the display GPU, where the outputs are written
// and whose stream the caller passes. Halos between slabs on one GPU move by device copies,
// between GPUs by ncclSend/ncclRecv in one group per exchange (NCCL loaded at run time, one
// communicator over the devices, NVLink multicast off); each slab's planes reach the display GPU
// by peer copies into the gathering object of the whole grid there. Every call only enqueues:
// the other GPUs' streams wait for an event on the caller's stream first and the caller's
// stream waits for theirs at the end, so the caller's stream finishing means all is done.
#pragma once

#include "cuda_simulation.h"
#include "slabs.h"

#include <memory>
#include <string>
#include <vector>

namespace estuary::sim {

// Throws usageError (bad plan), unsupported (fewer CUDA devices than listed, NCCL missing, a
// device listed twice) or estuary::Error (CUDA). Leaves devices[0] current.
std::unique_ptr<CudaSimulation> createSlabbedCuda(const SimDefinition& def, const GridSize& whole,
                                                  uint32_t slabs, const std::vector<int>& devices,
                                                  uint32_t maxHalo = kDefaultSlabHalo);

// The CUDA devices to use for `gpus` GPUs with `display` first, then the others in ordinal
// order. Throws unsupported naming how many are present when there are fewer.
std::vector<int> slabDevices(int display, uint32_t gpus);

// "NCCL 2.27.3 (libnccl.so.2)" once loaded; loads it (unsupported naming the library and
// dlerror's reason when it cannot be). Sets NCCL_NVLS_ENABLE=0 first.
std::string loadNccl();

} // namespace estuary::sim
