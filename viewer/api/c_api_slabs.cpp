// estuary.h's functions for slabs ("your kernel on slabs"); the same conventions as c_api.cpp.
// The checks live here and in slabs.cpp; the copies in slabs.cpp (host) and slabs_cuda.cpp.
#include "c_api_internal.h"

#include <algorithm>

using namespace estuary;
using namespace estuary::lib;
using namespace estuary::lib::capi;

namespace {

std::string str(uint64_t value) {
    return std::to_string(value);
}

const char* writerName(estuary_writer writer) {
    return writer == ESTUARY_WRITER_CUDA ? "CUDA" : "the host";
}

// The image a gather writes: the slabs' format, extent and kind, and their writer.
void checkGatherTarget(const estuary_slabs& s, const estuary_image& image) {
    const SlabLayout& l = s.layout;
    const bool threeD = l.depth > 1;
    if (image.format != s.format)
        throw usageError(image.name + ": its format " + str(uint32_t(image.format)) +
                         " is not the slabs' " + s.name + " (" + str(uint32_t(s.format)) +
                         "); gather into an image of the slabs' format");
    if (image.kind != (threeD ? ESTUARY_IMAGE_3D : ESTUARY_IMAGE_2D))
        throw usageError(image.name + ": a gather of " + (threeD ? "3D" : "2D") + " slabs " +
                         s.name + " needs an image of kind " +
                         (threeD ? "ESTUARY_IMAGE_3D" : "ESTUARY_IMAGE_2D"));
    const uint32_t depth = image.shape.depth;
    if (image.extent.width != l.width || image.extent.height != l.height ||
        (threeD && depth != l.depth))
        throw usageError(image.name + " is " + str(image.extent.width) + " x " +
                         str(image.extent.height) + (threeD ? " x " + str(depth) : "") +
                         "; the slabs " + s.name + " are " + str(l.width) + " x " + str(l.height) +
                         (threeD ? " x " + str(l.depth) : "") +
                         ": gather into an image of the field's extent");
    if (image.writer != l.writer)
        throw usageError(image.name + " is written by " + writerName(image.writer) +
                         " and the slabs " + s.name + " by " + writerName(l.writer) +
                         ": gather into an image of the slabs' writer");
}

} // namespace

extern "C" {

estuary_status estuary_create_slabs(estuary_viewer* viewer, const estuary_slabs_desc* desc,
                                    estuary_slabs** slabs) {
    return guard("estuary_create_slabs", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        require(slabs, "slabs (the output)");
        const CudaDeviceScope device(&v);
        const estuary_slabs_desc d = readStruct(desc, "desc", "estuary_slabs_desc");
        const bool hasCuda = v.cuda != nullptr;
        auto made = std::make_unique<estuary_slabs>();
        made->viewer = &v;
        made->name = d.name ? d.name : "slabs";
        made->format = d.format;
        made->layout = resolveSlabLayout(d, hasCuda, hasCuda ? cudaDeviceCount() : 0);
        made->copies = slabHaloCopies(made->layout.plan);
        if (made->layout.writer == ESTUARY_WRITER_CUDA) {
            createCudaSlabs(*made, v.cudaDevice);
        } else {
            for (size_t i = 0; i < made->layout.plan.count.size(); ++i)
                made->host.emplace_back(made->layout.slabBytes(i), uint8_t(0));
        }
        v.slabs.push_back(std::move(made));
        *slabs = publish(v.slabs.back().get());
    });
}

estuary_status estuary_destroy_slabs(estuary_viewer* viewer, estuary_slabs* slabs) {
    return guard("estuary_destroy_slabs", [&] {
        estuary_viewer& v = resolve(viewer, "viewer");
        if (!slabs) return;
        estuary_slabs& s = resolveOf(v, slabs, "slabs");
        const CudaDeviceScope device(&v);
        if (s.cuda && !cudaSlabsIdle(s, frameWaitTimeoutNs(v)))
            throw timeoutError("the slabs " + s.name +
                               "' streams did not finish within the wait "
                               "bound (ESTUARY_WAIT_TIMEOUT_S): nothing was freed");
        retire(s.handle);
        const auto at = std::find_if(v.slabs.begin(), v.slabs.end(),
                                     [&](const auto& p) { return p.get() == &s; });
        v.slabs.erase(at);
    });
}

estuary_status estuary_get_slabs_info(estuary_slabs* slabs, estuary_slabs_info* info) {
    return guard("estuary_get_slabs_info", [&] {
        const estuary_slabs& s = resolve(slabs, "slabs");
        checkOutput(info, "info", "estuary_slabs_info");
        estuary_slabs_info out{};
        out.slabs = uint32_t(s.layout.plan.count.size());
        out.devices = s.layout.devices;
        out.halo = s.layout.plan.halo;
        out.writer = s.layout.writer;
        out.texel_bytes = s.layout.texelBytes;
        writeStruct(info, out);
    });
}

estuary_status estuary_get_slab(estuary_slabs* slabs, uint32_t index, estuary_slab* slab) {
    return guard("estuary_get_slab", [&] {
        estuary_slabs& s = resolve(slabs, "slabs");
        checkOutput(slab, "slab", "estuary_slab");
        const SlabLayout& l = s.layout;
        const size_t n = l.plan.count.size();
        if (index >= n)
            throw usageError("index " + str(index) + " of the " + str(n) + " slabs of " + s.name +
                             " (allowed: 0.." + str(n - 1) + ")");
        estuary_slab out{};
        if (s.cuda) {
            out = cudaSlab(s, index);
        } else {
            out.cuda_device = -1;
            out.data = s.host[index].data();
        }
        const bool threeD = l.depth > 1;
        const uint32_t planes = l.plan.count[index] + 2 * l.plan.halo;
        out.first = l.plan.first[index];
        out.count = l.plan.count[index];
        out.halo = l.plan.halo;
        out.width = l.width;
        out.height = threeD ? l.height : planes;
        out.depth = threeD ? planes : 1;
        out.pitch = uint64_t(l.width) * l.texelBytes;
        out.plane_pitch = l.planeBytes();
        writeStruct(slab, out);
    });
}

estuary_status estuary_slabs_exchange(estuary_slabs* slabs) {
    return guard("estuary_slabs_exchange", [&] {
        estuary_slabs& s = resolve(slabs, "slabs");
        const CudaDeviceScope device(s.viewer);
        s.cuda ? cudaExchangeSlabs(s) : hostExchangeSlabs(s);
    });
}

estuary_status estuary_frame_gather_slabs(estuary_frame* frame, estuary_slabs* slabs,
                                          estuary_image* image) {
    return guard("estuary_frame_gather_slabs", [&] {
        estuary_frame& f = activeFrame(frame);
        estuary_viewer& v = *f.viewer;
        const CudaDeviceScope device(&v);
        estuary_slabs& s = resolveOf(v, slabs, "slabs");
        estuary_image& i = resolveOf(v, image, "image");
        checkGatherTarget(s, i);
        if (!s.cuda) {
            i.writtenFrame = f.index;
            hostGatherSlabs(s, static_cast<uint8_t*>(i.staging[f.entry].mapped) +
                                   i.regions[0].bufferOffset);
            return;
        }
        if (f.replayKey != 0)
            throw usageError("a frame with a replay_key (" + str(f.replayKey) +
                             ") cannot gather slabs: the slabs' streams are not part of its "
                             "graph; begin the frame with replay_key 0");
        if ((f.flags & ESTUARY_FRAME_DEFER_WAIT) && !f.waited && v.protocolStart &&
            f.index >= *v.protocolStart)
            throw usageError("the frame was begun with ESTUARY_FRAME_DEFER_WAIT and its slot is "
                             "not waited for yet: call estuary_frame_wait before gathering");
        cudaGatherSlabs(s, cudaArray(i, cudaCopyOf(f, i), 0), f.stream);
    });
}

} // extern "C"
