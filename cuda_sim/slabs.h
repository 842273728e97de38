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

// The default halo: four planes, so an exchange every four steps.
inline constexpr uint32_t kDefaultSlabHalo = 4;

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

// The CPU backend's split run: `slabs` CpuSimulations of def, host copies between them.
std::unique_ptr<CpuSimulation> createSlabbedCpu(const SimDefinition& def, const GridSize& whole,
                                                uint32_t slabs,
                                                uint32_t maxHalo = kDefaultSlabHalo);

} // namespace estuary::sim
