// The slabs' plan, the checks on a desc, and host memory's exchange and gather (slabs.h).
#include "slabs.h"
#include "errors.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace estuary::lib {

namespace {

std::string str(uint64_t value) {
    return std::to_string(value);
}

uint32_t texelBytesOf(estuary_format format) {
    switch (format) {
    case ESTUARY_FORMAT_R32_FLOAT:
    case ESTUARY_FORMAT_RGBA8_UNORM:
        return 4;
    case ESTUARY_FORMAT_RG32_FLOAT:
    case ESTUARY_FORMAT_RGBA16_FLOAT:
        return 8;
    case ESTUARY_FORMAT_RGBA32_FLOAT:
        return 16;
    default:
        throw usageError("desc.format " + str(uint32_t(format)) +
                         " is no estuary_format; allowed: ESTUARY_FORMAT_R32_FLOAT (0) .. "
                         "ESTUARY_FORMAT_RGBA8_UNORM (4)");
    }
}

} // namespace

SlabPlan planSlabLayout(uint32_t planes, uint32_t slabs, uint32_t halo, bool periodic,
                        const char* planeName, const char* axis) {
    if (slabs == 0) throw usageError("desc.slabs is 0 after resolving: at least 1 slab is needed");
    if (planes < slabs)
        throw usageError("the field is too small to split: its " + str(planes) + " " + planeName +
                         " (desc." + axis + ") cannot make " + str(slabs) +
                         " slabs of at least one; allowed: at most " + str(planes) + " slabs");
    const uint32_t thinnest = planes / slabs;
    if (halo == 0)
        throw usageError("desc.halo is 0: each slab needs at least 1 " +
                         std::string(planeName).substr(0, std::strlen(planeName) - 1) +
                         " of halo on each side (the most steps between two exchanges); "
                         "allowed: 1.." +
                         str(thinnest));
    if (halo > thinnest)
        throw usageError("desc.halo " + str(halo) + " is thicker than the thinnest slab (" +
                         str(thinnest) + " " + planeName + " of " + str(planes) + " in " +
                         str(slabs) +
                         " slabs): a halo must come from the neighbouring slab "
                         "alone; allowed: 1.." +
                         str(thinnest) + ", or fewer slabs");
    SlabPlan plan;
    plan.planes = planes;
    plan.halo = halo;
    plan.periodic = periodic;
    uint32_t next = 0;
    for (uint32_t i = 0; i < slabs; ++i) {
        const uint32_t count = planes / slabs + (i < planes % slabs ? 1 : 0);
        plan.first.push_back(next);
        plan.count.push_back(count);
        next += count;
    }
    return plan;
}

std::vector<SlabHaloCopy> slabHaloCopies(const SlabPlan& plan) {
    std::vector<SlabHaloCopy> copies;
    const size_t n = plan.count.size();
    const size_t boundaries = plan.periodic ? n : n - 1;
    for (size_t up = 0; up < boundaries; ++up) {
        const size_t down = (up + 1) % n;
        copies.push_back({up, down, plan.count[up], 0});
        copies.push_back({down, up, plan.halo, plan.halo + plan.count[up]});
    }
    return copies;
}

SlabLayout resolveSlabLayout(const estuary_slabs_desc& d, bool viewerHasCuda, int cudaDevices) {
    SlabLayout s;
    s.texelBytes = texelBytesOf(d.format);
    if (d.width == 0 || d.height == 0)
        throw usageError("desc.width " + str(d.width) + " by desc.height " + str(d.height) +
                         ": a field needs at least one cell each way");
    if (d.boundary != ESTUARY_SLAB_BOUNDARY_OPEN && d.boundary != ESTUARY_SLAB_BOUNDARY_PERIODIC)
        throw usageError("desc.boundary " + str(uint32_t(d.boundary)) +
                         " is no estuary_slab_boundary; allowed: ESTUARY_SLAB_BOUNDARY_OPEN (0), "
                         "ESTUARY_SLAB_BOUNDARY_PERIODIC (1)");
    switch (d.writer) {
    case ESTUARY_WRITER_AUTO:
        s.writer = viewerHasCuda ? ESTUARY_WRITER_CUDA : ESTUARY_WRITER_HOST;
        break;
    case ESTUARY_WRITER_CUDA:
        if (!viewerHasCuda)
            throw unsupported("desc.writer ESTUARY_WRITER_CUDA: the viewer has no CUDA device; "
                              "use ESTUARY_WRITER_HOST (or AUTO) for slabs in host memory");
        s.writer = ESTUARY_WRITER_CUDA;
        break;
    case ESTUARY_WRITER_HOST:
        s.writer = ESTUARY_WRITER_HOST;
        break;
    default:
        throw usageError("desc.writer " + str(uint32_t(d.writer)) +
                         " is no estuary_writer; allowed: AUTO (0), CUDA (1), HOST (2)");
    }
    s.devices = d.devices == 0 ? 1 : d.devices;
    if (s.writer == ESTUARY_WRITER_HOST && s.devices != 1)
        throw usageError("desc.devices " + str(d.devices) +
                         ": host-written slabs live in host memory; allowed: 0 or 1");
    if (s.writer == ESTUARY_WRITER_CUDA && int64_t(s.devices) > cudaDevices)
        throw unsupported("desc.devices " + str(d.devices) + ": this process sees " +
                          str(uint32_t(cudaDevices)) + " CUDA device(s); allowed: 1.." +
                          str(uint32_t(cudaDevices)));
    const uint32_t slabs = d.slabs == 0 ? s.devices : d.slabs;
    if (slabs < s.devices)
        throw usageError("desc.slabs " + str(d.slabs) + " for " + str(s.devices) +
                         " devices: every device needs a slab; allowed: 0 (one a device) or at "
                         "least " +
                         str(s.devices));
    s.width = d.width;
    s.height = d.height;
    s.depth = d.depth == 0 ? 1 : d.depth;
    const bool threeD = s.depth > 1;
    s.plan = planSlabLayout(threeD ? s.depth : s.height, slabs, d.halo,
                            d.boundary == ESTUARY_SLAB_BOUNDARY_PERIODIC,
                            threeD ? "slices" : "rows", threeD ? "depth" : "height");
    return s;
}

void hostExchangeSlabs(estuary_slabs& slabs) {
    const size_t plane = slabs.layout.planeBytes(), halo = slabs.layout.plan.halo;
    for (const SlabHaloCopy& c : slabs.copies)
        std::memcpy(slabs.host[c.to].data() + c.toPlane * plane,
                    slabs.host[c.from].data() + c.fromPlane * plane, halo * plane);
}

void hostGatherSlabs(const estuary_slabs& slabs, void* level0) {
    const SlabPlan& plan = slabs.layout.plan;
    const size_t plane = slabs.layout.planeBytes();
    for (size_t i = 0; i < slabs.host.size(); ++i)
        std::memcpy(static_cast<uint8_t*>(level0) + plan.first[i] * plane,
                    slabs.host[i].data() + plan.halo * plane, plan.count[i] * plane);
}

} // namespace estuary::lib
