// One simulation's grid split into slabs along its slowest axis (rows of a 2D grid, z slices of a
// 3D one): --slabs N, and --gpus N across GPUs (slabs_cuda.h). Each slab is an object of the
// simulation's own kind whose grid is the slab's planes plus `halo` planes on either side, seeded
// as that part of the whole grid (SlabFields, resetAsPart). A step of up to `halo` steps starts by
// copying each neighbour's edge planes into the halos; the object then steps its own grid as if it
// were periodic: the wrap spoils one plane more at either end per step, so after at most `halo`
// steps the slab's own planes are exactly those of the unsplit run (same per-cell arithmetic,
// same operands), bit for bit. The outputs are written by an object of the whole grid holding
// the slabs' planes gathered; a brush gathers every field, paints there and scatters back.
#pragma once

#include "simulation.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace estuary::sim {

// The default halo on one GPU: four planes, an exchange every four steps, as many as the 2D
// step's temporal blocking advances in one pass (gray_scott_tiling.h), so a slab's pass between
// two exchanges is one kernel; deeper halos cost 2 planes of redundant work per slab per plane.
inline constexpr uint32_t kDefaultSlabHalo = 4;
// The deepest halo --halo accepts.
inline constexpr uint32_t kMaxSlabHalo = 64;

struct SlabPlan {
    uint32_t planes = 0;                // of the whole grid along its slowest axis
    uint32_t halo = 0;                  // planes on each side: the most steps between two exchanges
    std::vector<uint32_t> first, count; // per slab, in the whole grid
};

// Planes along the slowest axis (depth of a 3D grid, else height) and the cells in one plane.
uint32_t slabAxisPlanes(const GridSize& grid);
size_t slabPlaneCells(const GridSize& grid);
// `grid` with `planes` planes along its slowest axis.
GridSize withSlabPlanes(GridSize grid, uint32_t planes);

// `planes` split into `slabs` as evenly as they go (the first planes % slabs one plane thicker);
// halo = min(maxHalo, thinnest slab). Throws usageError when slabs < 1 or a slab would hold fewer
// than 2 planes (naming the most slabs allowed), or maxHalo < 1.
SlabPlan planSlabs(uint32_t planes, uint32_t slabs, uint32_t maxHalo = kDefaultSlabHalo);
// The same for a grid's slowest axis, its planes named "rows" or "slices" in the message.
SlabPlan planSlabs(const GridSize& grid, uint32_t slabs, uint32_t maxHalo = kDefaultSlabHalo);
// The same with slab i's share of the planes weights[i] / sum of weights (rounded; the last slab
// takes what is left). Throws usageError as above, for a weight that is not positive, or where a
// slab's share is fewer than 2 planes.
SlabPlan planSlabs(const GridSize& grid, const std::vector<double>& weights,
                   uint32_t maxHalo = kDefaultSlabHalo);

// Which of `gpus` GPUs slab i of `slabs` lives on: contiguous blocks, so neighbours share a GPU
// wherever they can and each GPU holds slabs / gpus of them (the first ones one fewer where it
// does not divide). Requires 1 <= gpus <= slabs.
inline size_t gpuOfSlab(size_t slab, size_t slabs, size_t gpus) {
    return slab * gpus / slabs;
}

// A split run's shape: slabs over GPUs (or ranks, one per GPU), the halo asked for and what the
// automatic halo aims at.
struct SlabRunLayout {
    uint32_t slabs = 1;
    uint32_t gpus = 1;       // 1: one GPU (or the CPU); ranks count as GPUs
    uint32_t halo = 0;       // --halo; 0: autoSlabHalo
    double displayShare = 0; // the display GPU's part of the planes across GPUs; 0: default
    int stepsPerFrame = 8;   // what the automatic halo covers with one exchange
    bool sortLast = false;   // volumes drawn sort-last: the default share is even
};

// The automatic halo for slabs of which the thinnest holds `thinnest` planes. On one GPU (halo
// copies are device copies, cheap) kDefaultSlabHalo. Across GPUs every exchange is an NCCL group
// all GPUs must reach, holding them in step: the halo covers a whole frame's steps (one exchange
// a frame) where the thinnest slab holds them and the redundant planes the deeper halo adds,
// 2 x (steps - kDefaultSlabHalo), stay within 1/16 of that slab; else kDefaultSlabHalo. Capped
// by the thinnest slab and kMaxSlabHalo. With eager exchanges (slabTuning) the deep halo won in
// 2D and 3D alike on two H200s: 512³ 232.7 fps against 215.7 with 4, 768³ even (SCALING.md).
uint32_t autoSlabHalo(uint32_t thinnest, uint32_t gpus, int stepsPerFrame);

// Each slab's part of the planes when the display GPU's (or rank 0's) slabs share `share` and the
// other GPUs' the rest evenly, gpuOfSlab placing slab i; planSlabs(grid, weights, ...) cuts them.
std::vector<double> displayShareWeights(uint32_t slabs, uint32_t gpus, double share);

// The plan of a split run: planSlabs, even on one GPU; across GPUs (slabs >= gpus >= 2) the
// display GPU's slabs (gpuOfSlab 0) hold displayShare of the planes (0: defaultDisplayShare) and
// the other GPUs share the rest evenly. Halo: layout.halo, else autoSlabHalo. Throws usageError as
// planSlabs does, for a share outside (0, 1), for gpus of 0 or above slabs, and for a halo
// outside 1..kMaxSlabHalo or deeper than the thinnest slab (naming the most allowed).
SlabPlan planSlabRun(const GridSize& grid, const SlabRunLayout& layout);

// The display GPU's default share of the planes on `gpus` GPUs: 0.8 of an even share (0.4 on two,
// 0.2 on four), or an even share where a volume is drawn sort-last. Gathering, the display GPU
// also writes the whole grid's outputs and draws, and it receives every other GPU's slabs, so a
// smaller share trades its steps for more peer traffic into it; sort-last, every GPU writes and
// marches its own slabs' volume and the display GPU only composites. On two H200s 0.4 was the
// fastest of 0.3..0.5 at 8192² and 16384²; volumes ran best at 0.45 until their slabs' step
// chunks were cut to the slab (gray_scott_tiling.h), then at 0.4 gathered (512³ 249.8 fps against
// 235.7 at 0.45 on two H100s) and at 0.5 sort-last (768³ 97.0 against 94.4). On four, 0.2 left the
// display GPU bound by the gather's peer copies into it (SCALING.md), so a smaller share there
// would not help.
inline constexpr double kDefaultDisplayShareOfEven = 0.8;
double defaultDisplayShare(uint32_t gpus, bool sortLast = false);

// Sort-last drawing of a split volume composites at most this many slabs (volume_march.h).
inline constexpr uint32_t kMaxMarchSlabs = 32;

// How a split run across GPUs orders its work (SCALING.md), with switches to measure each choice
// against the older order, read once from the environment:
// - eagerHalos: the halos for a pass are exchanged as soon as the pass before has stepped, before
//   the frame's gather or snapshot, instead of at the start of the pass
//   (ESTUARY_SLAB_EAGER_HALOS=0: at the start);
// - highPriority: the slabs' streams get the device's greatest stream priority, so the steps and
//   halo exchanges (the path every GPU waits on) go before the output write and the gather
//   copies (ESTUARY_SLAB_PRIORITY=0: the default priority);
// - halos: how one process moves halos between its GPUs (ESTUARY_SLAB_HALOS=peer or nccl; unset
//   or anything else: auto, see HaloTransport).
// HaloTransport::Auto: peer copies where every GPU of the run can access every other's memory
// (NVLink or PCIe peer to peer), else NCCL. Peer copies run on the copy engines, where NCCL's
// send and receive kernels take SMs from the steps; Peer on GPUs without peer access still works,
// staged through host memory by the driver.
enum class HaloTransport { Auto, Peer, Nccl };
struct SlabTuning {
    bool eagerHalos = true;
    bool highPriority = true;
    HaloTransport halos = HaloTransport::Auto;
};
const SlabTuning& slabTuning();

// "rows" (2D) or "slices" (3D): what the planes of the grid's slowest axis are.
const char* slabPlaneName(const GridSize& grid);

// Where plane p of slab i's own grid (its halo first) lies in the whole grid.
inline uint32_t slabLocalToWhole(const SlabPlan& plan, size_t slab, uint32_t p) {
    return uint32_t((uint64_t(plan.first[slab]) + plan.planes - plan.halo + p) % plan.planes);
}

// One halo copy of an exchange: plan.halo planes of slab `from`'s own edge, starting at its plane
// `fromPlane`, into slab `to`'s halo at its plane `toPlane` (planes of the slabs' own grids).
struct HaloCopy {
    size_t from = 0, to = 0;
    uint32_t fromPlane = 0, toPlane = 0;
};
// Every copy of one exchange, boundary by boundary (boundary b: slab b above slab b + 1, wrapping):
// b's last own planes into b + 1's upper halo, then b + 1's first own planes into b's lower halo.
// Both backends copy from this list in this order; the NCCL exchange relies on the order (every
// GPU issues its sends and receives in it). Copies read own planes and write halos only.
std::vector<HaloCopy> haloCopies(const SlabPlan& plan);

// A span of one GPU's work in a split run across GPUs (--trace): on its slabs' stream ("steps",
// "halo exchange", "gather", "snapshot") or its copy stream ("peer copy"), in host steady_clock
// µs, for the frame whose outputs follow it.
struct GpuSpan {
    uint32_t gpu = 0; // index into the run's GPUs; 0 draws
    bool copyStream = false;
    const char* name = ""; // a string literal
    uint64_t frame = 0;
    double startUs = 0, endUs = 0;
};

// The CPU backend's split run: `slabs` CpuSimulations of def, host copies between them.
std::unique_ptr<CpuSimulation> createSlabbedCpu(const SimDefinition& def, const GridSize& whole,
                                                uint32_t slabs,
                                                uint32_t maxHalo = kDefaultSlabHalo);
// The same for a plan made for `whole` (planSlabs or planSlabRun).
std::unique_ptr<CpuSimulation> createSlabbedCpu(const SimDefinition& def, const GridSize& whole,
                                                const SlabPlan& plan);

} // namespace estuary::sim
