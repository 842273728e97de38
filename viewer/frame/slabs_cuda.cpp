// The CUDA side of the slabs (slabs.h): each slab's memory and stream on its device (contiguous
// blocks of slabs a device, the viewer's device first), one event a slab, and the copies, all
// enqueued and ordered by events. Halos move by device copies between slabs of one device and by
// peer copies between devices (peer access on where the hardware has it); the gather copies each
// slab's own planes into the frame's CUDA array, a peer copy from another device (as the app's
// --gpus run gathers onto its display GPU, cuda_sim/slabs_cuda.cu).
#include "slabs.h"
#include "cuda_check.h"
#include "device_scope.h"

#include <cuda_runtime.h>

#include <chrono>
#include <thread>

namespace estuary::lib {

struct CudaSlabs {
    std::vector<int> deviceOf; // per slab: its CUDA ordinal
    std::vector<void*> memory;
    std::vector<cudaStream_t> streams;
    std::vector<cudaEvent_t> events;
    int viewerDevice = 0;
    cudaEvent_t frameEvent = nullptr; // on the viewer's device: the frame stream's work so far
};

namespace {

bool getDevice(int& device) {
    return cudaGetDevice(&device) == cudaSuccess;
}
bool setDevice(int device) {
    return cudaSetDevice(device) == cudaSuccess;
}
constexpr DeviceApi kCudaDevices{getDevice, setDevice};

void use(int device) {
    CUDA_CHECK(cudaSetDevice(device));
}

// Frees what was made; never throws (creation's failures and destruction).
void release(CudaSlabs& c) {
    const DeviceScope restore(kCudaDevices, -1);
    for (size_t i = 0; i < c.deviceOf.size(); ++i) {
        (void)cudaSetDevice(c.deviceOf[i]);
        if (i < c.streams.size() && c.streams[i]) (void)cudaStreamDestroy(c.streams[i]);
        if (i < c.events.size() && c.events[i]) (void)cudaEventDestroy(c.events[i]);
        if (i < c.memory.size() && c.memory[i]) (void)cudaFree(c.memory[i]);
    }
    if (c.frameEvent) {
        (void)cudaSetDevice(c.viewerDevice);
        (void)cudaEventDestroy(c.frameEvent);
    }
    c = {};
}

void enablePeers(const std::vector<int>& devices) {
    for (int a : devices)
        for (int b : devices) {
            int can = 0;
            if (a == b || cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || !can) continue;
            use(a);
            const cudaError_t r = cudaDeviceEnablePeerAccess(b, 0);
            if (r == cudaErrorPeerAccessAlreadyEnabled)
                (void)cudaGetLastError();
            else
                CUDA_CHECK(r);
        }
}

} // namespace

void CudaSlabsDeleter::operator()(CudaSlabs* p) const {
    const DeviceScope restore(kCudaDevices, -1);
    for (size_t i = 0; i < p->streams.size(); ++i) {
        if (!p->streams[i]) continue;
        (void)cudaSetDevice(p->deviceOf[i]);
        (void)cudaStreamSynchronize(p->streams[i]);
    }
    release(*p);
    delete p;
}

int cudaDeviceCount() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

void createCudaSlabs(estuary_slabs& slabs, int viewerDevice) {
    const DeviceScope restore(kCudaDevices, -1);
    const SlabLayout& layout = slabs.layout;
    std::vector<int> devices{viewerDevice};
    for (int d = 0; d < cudaDeviceCount() && devices.size() < layout.devices; ++d)
        if (d != viewerDevice) devices.push_back(d);
    const size_t n = layout.plan.count.size();
    auto made = std::unique_ptr<CudaSlabs, CudaSlabsDeleter>(new CudaSlabs);
    CudaSlabs& c = *made;
    c.viewerDevice = viewerDevice;
    for (size_t i = 0; i < n; ++i)
        c.deviceOf.push_back(devices[i * devices.size() / n]);
    if (devices.size() > 1) enablePeers(devices);
    for (size_t i = 0; i < n; ++i) {
        use(c.deviceOf[i]);
        c.memory.push_back(nullptr);
        CUDA_CHECK(cudaMalloc(&c.memory.back(), layout.slabBytes(i)));
        CUDA_CHECK(cudaMemset(c.memory.back(), 0, layout.slabBytes(i)));
        c.streams.push_back(nullptr);
        CUDA_CHECK(cudaStreamCreateWithFlags(&c.streams.back(), cudaStreamNonBlocking));
        c.events.push_back(nullptr);
        CUDA_CHECK(cudaEventCreateWithFlags(&c.events.back(), cudaEventDisableTiming));
    }
    use(viewerDevice);
    CUDA_CHECK(cudaEventCreateWithFlags(&c.frameEvent, cudaEventDisableTiming));
    // The zeroes are in place before any stream of the user's reads them.
    for (size_t i = 0; i < n; ++i) {
        use(c.deviceOf[i]);
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    slabs.cuda = std::move(made);
}

estuary_slab cudaSlab(const estuary_slabs& slabs, uint32_t index) {
    const CudaSlabs& c = *slabs.cuda;
    estuary_slab s{};
    s.cuda_device = c.deviceOf[index];
    s.data = c.memory[index];
    s.stream = c.streams[index];
    return s;
}

void cudaExchangeSlabs(estuary_slabs& slabs) {
    CudaSlabs& c = *slabs.cuda;
    if (slabs.copies.empty()) return;
    const DeviceScope restore(kCudaDevices, -1);
    const size_t plane = slabs.layout.planeBytes(), bytes = plane * slabs.layout.plan.halo;
    const auto recordAll = [&] {
        for (size_t i = 0; i < c.streams.size(); ++i) {
            use(c.deviceOf[i]);
            CUDA_CHECK(cudaEventRecord(c.events[i], c.streams[i]));
        }
    };
    // Each copy on the receiving slab's stream, after the sender's work so far...
    recordAll();
    for (const SlabHaloCopy& k : slabs.copies) {
        use(c.deviceOf[k.to]);
        if (k.from != k.to) CUDA_CHECK(cudaStreamWaitEvent(c.streams[k.to], c.events[k.from], 0));
        uint8_t* to = static_cast<uint8_t*>(c.memory[k.to]) + k.toPlane * plane;
        const uint8_t* from = static_cast<const uint8_t*>(c.memory[k.from]) + k.fromPlane * plane;
        if (c.deviceOf[k.from] == c.deviceOf[k.to])
            CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, c.streams[k.to]));
        else
            CUDA_CHECK(cudaMemcpyPeerAsync(to, c.deviceOf[k.to], from, c.deviceOf[k.from], bytes,
                                           c.streams[k.to]));
    }
    // ...and the sender's later work (which rewrites its edge) after the copy has read it.
    recordAll();
    for (const SlabHaloCopy& k : slabs.copies)
        if (k.from != k.to) {
            use(c.deviceOf[k.from]);
            CUDA_CHECK(cudaStreamWaitEvent(c.streams[k.from], c.events[k.to], 0));
        }
}

void cudaGatherSlabs(estuary_slabs& slabs, void* array, void* frameStream) {
    CudaSlabs& c = *slabs.cuda;
    const SlabLayout& l = slabs.layout;
    const DeviceScope restore(kCudaDevices, -1);
    const auto stream = static_cast<cudaStream_t>(frameStream);
    const auto target = static_cast<cudaArray_t>(array);
    use(c.viewerDevice);
    CUDA_CHECK(cudaEventRecord(c.frameEvent, stream));
    const bool threeD = l.depth > 1;
    const size_t pitch = size_t(l.width) * l.texelBytes;
    for (size_t i = 0; i < c.streams.size(); ++i) {
        use(c.deviceOf[i]);
        CUDA_CHECK(cudaStreamWaitEvent(c.streams[i], c.frameEvent, 0));
        const uint32_t count = l.plan.count[i], first = l.plan.first[i];
        void* own = static_cast<uint8_t*>(c.memory[i]) + l.plan.halo * l.planeBytes();
        const cudaPitchedPtr source =
            make_cudaPitchedPtr(own, pitch, l.width, threeD ? l.height : count);
        const cudaPos at = threeD ? make_cudaPos(0, 0, first) : make_cudaPos(0, first, 0);
        const cudaExtent extent =
            threeD ? make_cudaExtent(l.width, l.height, count) : make_cudaExtent(l.width, count, 1);
        if (c.deviceOf[i] == c.viewerDevice) {
            cudaMemcpy3DParms p{};
            p.srcPtr = source;
            p.dstArray = target;
            p.dstPos = at;
            p.extent = extent;
            p.kind = cudaMemcpyDeviceToDevice;
            CUDA_CHECK(cudaMemcpy3DAsync(&p, c.streams[i]));
        } else {
            cudaMemcpy3DPeerParms p{};
            p.srcPtr = source;
            p.srcDevice = c.deviceOf[i];
            p.dstArray = target;
            p.dstPos = at;
            p.dstDevice = c.viewerDevice;
            p.extent = extent;
            CUDA_CHECK(cudaMemcpy3DPeerAsync(&p, c.streams[i]));
        }
        CUDA_CHECK(cudaEventRecord(c.events[i], c.streams[i]));
    }
    use(c.viewerDevice);
    for (cudaEvent_t done : c.events)
        CUDA_CHECK(cudaStreamWaitEvent(stream, done, 0));
}

bool cudaSlabsIdle(estuary_slabs& slabs, uint64_t timeoutNs) {
    CudaSlabs& c = *slabs.cuda;
    const DeviceScope restore(kCudaDevices, -1);
    const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeoutNs);
    for (size_t i = 0; i < c.streams.size(); ++i) {
        use(c.deviceOf[i]);
        for (;;) {
            const cudaError_t r = cudaStreamQuery(c.streams[i]);
            if (r == cudaSuccess) break;
            if (r != cudaErrorNotReady) CUDA_CHECK(r);
            if (timeoutNs && std::chrono::steady_clock::now() > until) return false;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
    }
    return true;
}

} // namespace estuary::lib
