// The CUDA split run (slabs_cuda.h) and the NCCL loader (nccl_api.h). Runtime API only: no kernels
// of its own (each slab is the simulation's own object). NCCL is opened with dlopen when a run
// spans GPUs, so a one-GPU build and run never needs it.
#ifdef __CUDACC__
#include "slabs_cuda.h"
#include "cuda_check.h"
#include "cuda_device_scope.h"
#include "gpu_spans.h"
#include "nccl_api.h"
#include "volume_march.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

namespace estuary::sim {
namespace {

constexpr const char* kNcclLibrary = "libnccl.so.2";

} // namespace

const NcclApi& nccl() {
    static NcclApi api;
    static std::once_flag once;
    static std::string failure;
    std::call_once(once, [] {
        // NVLink SHARP multicast (NVLS) stays off: the machines estuary runs on must not use it,
        // and NCCL reads this when it initializes.
        setenv("NCCL_NVLS_ENABLE", "0", 1);
        api.library = dlopen(kNcclLibrary, RTLD_NOW | RTLD_LOCAL);
        if (!api.library) {
            const char* why = dlerror();
            failure = std::string("--gpus above 1 and jobs of ranks on GPUs need NCCL (") +
                      kNcclLibrary +
                      "), which could not be loaded: " + (why ? why : "unknown reason") +
                      "; install the libnccl2 package or the nvidia-nccl-cu13 wheel (and put "
                      "its lib folder on LD_LIBRARY_PATH)";
            return;
        }
        const auto find = [&](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(api.library, name));
            if (!fn && failure.empty())
                failure = std::string(kNcclLibrary) + " has no " + name + ": too old an NCCL";
        };
        find(api.getVersion, "ncclGetVersion");
        find(api.commInitAll, "ncclCommInitAll");
        find(api.getUniqueId, "ncclGetUniqueId");
        find(api.commInitRank, "ncclCommInitRank");
        find(api.commDestroy, "ncclCommDestroy");
        find(api.groupStart, "ncclGroupStart");
        find(api.groupEnd, "ncclGroupEnd");
        find(api.send, "ncclSend");
        find(api.recv, "ncclRecv");
        find(api.errorString, "ncclGetErrorString");
        if (!failure.empty()) return;
        int version = 0;
        api.getVersion(&version);
        // Up to 2.8 NCCL encoded major * 1000 + minor * 100 + patch, since 2.9 major * 10000 + ...
        const bool old = version < 10000;
        const int major = old ? version / 1000 : version / 10000;
        const int minor = old ? version / 100 % 10 : version / 100 % 100;
        api.description = "NCCL " + std::to_string(major) + "." + std::to_string(minor) + "." +
                          std::to_string(version % 100) + " (" + kNcclLibrary + ")";
    });
    if (!failure.empty()) throw unsupported(failure);
    return api;
}

void ncclCheck(ncclResult_t r, const char* what) {
    if (r != ncclSuccess)
        throw runtimeError(std::string(what) + " failed: " + nccl().errorString(r));
}

namespace {

class SlabbedCuda final : public CudaSimulation {
  public:
    SlabbedCuda(const SimDefinition& def, const GridSize& whole, const SlabPlan& plan,
                const std::vector<int>& devices, HaloTransport halos)
        : whole_(whole), plan_(plan), planeCells_(slabPlaneCells(whole)),
          haloCopies_(haloCopies(plan_)), devices_(devices) {
        if (!def.splittable || !def.createCuda)
            throw usageError(def.name + " cannot be split into slabs");
        const size_t slabs = plan.count.size();
        if (plan.planes != slabAxisPlanes(whole) || slabs == 0 || plan.halo < 1 ||
            plan.halo > *std::min_element(plan.count.begin(), plan.count.end()))
            throw usageError("a slab plan that does not fit the grid");
        if (devices.empty() || devices.size() > slabs)
            throw usageError("--slabs " + std::to_string(slabs) + " for " +
                             std::to_string(devices.size()) +
                             " GPUs: every GPU needs at least one slab");
        if (std::set<int>(devices.begin(), devices.end()).size() != devices.size())
            throw unsupported("a CUDA device is listed twice for the split run");
        int present = 0;
        CUDA_CHECK(cudaGetDeviceCount(&present));
        for (int d : devices)
            if (d < 0 || d >= present)
                throw unsupported("CUDA device " + std::to_string(d) + " asked for; " +
                                  std::to_string(present) + " present");
        try {
            build(def, halos == HaloTransport::Auto ? slabTuning().halos : halos);
        } catch (...) {
            release();
            throw;
        }
    }

    ~SlabbedCuda() override { release(); }
    SlabbedCuda(const SlabbedCuda&) = delete;
    SlabbedCuda& operator=(const SlabbedCuda&) = delete;

    void reset(uint64_t seed, cudaStream_t stream) override {
        halosFresh_ = false;
        fork(stream);
        for (size_t i = 0; i < slabs_.size(); ++i) {
            DeviceScope scope(devices_[deviceOf_[i]]);
            slabs_[i]->resetAsPart(seed, whole_, slabLocalToWhole(plan_, i, 0),
                                   streamOf(i, stream));
        }
        join(stream);
    }

    // Across GPUs no fork: the slabs' streams wait for nothing of the caller's (what they read
    // and write is theirs alone; reset and brush order themselves), so a frame's steps need not
    // wait for the last frame's outputs. The join keeps the contract that the caller's stream
    // finishing means the steps are done. Across GPUs (slabTuning().eagerHalos) each pass's
    // halos for the next pass go out right after it, so the next frame's first exchange is not
    // queued behind this frame's gather and snapshot copies, which a neighbour would wait for.
    void step(const ParamValues& params, int steps, cudaStream_t stream) override {
        const bool eager = devices_.size() > 1 && slabTuning().eagerHalos;
        while (steps > 0) {
            const int now = std::min(steps, int(plan_.halo));
            if (!halosFresh_) exchange(stream);
            halosFresh_ = false;
            for (size_t g = 0; g < devices_.size(); ++g) {
                DeviceScope scope(devices_[g]);
                const cudaStream_t on = devices_.size() == 1 ? stream : streams_[g];
                const cudaEvent_t span = spans_.begin(g, on);
                for (size_t i = 0; i < slabs_.size(); ++i)
                    if (deviceOf_[i] == g) slabs_[i]->step(params, now, on);
                spans_.end(g, false, "steps", frame_, span, on);
            }
            steps -= now;
            if (eager) {
                exchange(stream);
                halosFresh_ = true;
            }
        }
        join(stream);
    }

    // On one GPU the frame's work (every slab's passes, copies and the output write) is known
    // from the slabs' own states, so the app may capture it as one CUDA graph and replay it; that
    // removes the host's per-slab enqueue cost. Across GPUs: call by call.
    std::optional<uint64_t> replayState() const override {
        // A march's camera is a kernel argument: a replayed graph would draw a stale one.
        if (devices_.size() > 1 || marching_) return std::nullopt;
        std::vector<uint64_t> states;
        for (const auto& slab : slabs_) {
            const std::optional<uint64_t> state = slab->replayState();
            if (!state) return std::nullopt;
            states.push_back(*state);
        }
        // Each distinct combination of the slabs' states gets its own number (there are few: the
        // ping-pong parities), so equal numbers mean equal states, exactly.
        const auto known = std::find(seenStates_.begin(), seenStates_.end(), states);
        if (known != seenStates_.end()) return uint64_t(known - seenStates_.begin());
        if (seenStates_.size() >= 64) return std::nullopt;
        seenStates_.push_back(std::move(states));
        return uint64_t(seenStates_.size() - 1);
    }

    // Across GPUs the slabs step on streams of their own, which never wait for the caller's
    // stream: the next frame's steps run while this frame's outputs are written and drawn. Only
    // the gather into the whole-grid object waits, for the last outputs written from it.
    void writeOutputs(const DeviceTargets& targets, cudaStream_t stream) override {
        if (marching_) return writeMarched(targets, stream);
        if (devices_.size() == 1) {
            gather(wholeSim_->slabFields().shown, stream);
            DeviceScope scope(devices_[0]);
            wholeSim_->writeOutputs(targets, stream);
            return;
        }
        gatherShown(stream);
        DeviceScope scope(devices_[0]);
        wholeSim_->writeOutputs(targets, stream);
        CUDA_CHECK(cudaEventRecord(outputsWritten_, stream));
        ++frame_;
    }

    // Sort-last drawing (slabs_cuda.h): each slab's own slices into a volume of its own on its
    // GPU, the partial pictures the marches make and, for slabs off the display GPU, where they
    // are received there. Across GPUs every GPU (the display GPU too) marches on its copy stream.
    bool enableMarch(uint32_t width, uint32_t height) {
        if (whole_.depth <= 1 || slabs_.size() > kMaxMarchSlabs || width == 0 || height == 0)
            return false;
        if (marching_) return width == march_.width && height == march_.height;
        const size_t bytes = size_t(width) * height * sizeof(float4);
        try {
            if (devices_.size() > 1 && !copyStreams_[0]) {
                DeviceScope scope(devices_[0]);
                CUDA_CHECK(cudaStreamCreateWithFlags(&copyStreams_[0], cudaStreamNonBlocking));
                CUDA_CHECK(cudaEventCreateWithFlags(&copied_[0], cudaEventDisableTiming));
            }
            partials_.assign(slabs_.size(), nullptr);
            received_.assign(slabs_.size(), nullptr);
            for (size_t i = 0; i < slabs_.size(); ++i) {
                {
                    DeviceScope scope(devices_[deviceOf_[i]]);
                    volumes_.push_back(createSlabVolume(whole_.width, whole_.height, plan_.first[i],
                                                        plan_.count[i]));
                    CUDA_CHECK(cudaMalloc(&partials_[i], bytes));
                }
                if (deviceOf_[i] == 0) continue;
                DeviceScope scope(devices_[0]);
                CUDA_CHECK(cudaMalloc(&received_[i], bytes));
            }
        } catch (...) {
            releaseMarch();
            throw;
        }
        marching_ = true;
        march_.width = width;
        march_.height = height;
        return true;
    }
    void setMarch(const MarchView& view) {
        if (!marching_) throw usageError("setSlabMarch: sort-last drawing is not enabled");
        if (view.width != march_.width || view.height != march_.height)
            throw usageError("setSlabMarch: a " + std::to_string(view.width) + "x" +
                             std::to_string(view.height) + " picture, enabled for " +
                             std::to_string(march_.width) + "x" + std::to_string(march_.height));
        march_ = view;
    }

    // Across GPUs only: on one GPU every slab's work is on the caller's stream (traced by the
    // viewer) and may be replayed as a graph, which timed events would not survive.
    size_t traceSpans() {
        if (devices_.size() < 2) return 0;
        spans_.start(devices_, streams_);
        return devices_.size();
    }
    std::vector<GpuSpan> takeSpans() { return spans_.take(); }
    std::string haloTransport() const {
        if (devices_.size() < 2) return "";
        return peerHalos_ ? "peer copies" : ncclDescription_;
    }

    void brush(const Brush& brush, const ParamValues& params, cudaStream_t stream) override {
        halosFresh_ = false; // the scatter below rewrites the own planes the halos copy
        std::vector<uint32_t> all(wholeSim_->slabFields().fields.size());
        for (uint32_t f = 0; f < all.size(); ++f)
            all[f] = f;
        fork(stream);
        gather(all, stream);
        join(stream);
        {
            DeviceScope scope(devices_[0]);
            wholeSim_->brush(brush, params, stream);
        }
        fork(stream);
        const SlabFields whole = wholeSim_->slabFields();
        for (size_t i = 0; i < slabs_.size(); ++i) {
            const SlabFields slab = slabs_[i]->slabFields();
            for (uint32_t f : all)
                copy(slab.fields[f] + plan_.halo * planeCells_, deviceOf_[i],
                     whole.fields[f] + plan_.first[i] * planeCells_, 0, plan_.count[i],
                     streamOf(i, stream));
        }
        join(stream);
    }

  private:
    const float* ownShown(size_t slab) {
        const SlabFields f = slabs_[slab]->slabFields();
        return f.fields[f.shown.at(0)] + plan_.halo * planeCells_;
    }

    // The frame's picture, sort-last. Each GPU writes its slabs' volumes on its slabs' stream
    // (once their last march is done), then marches them on its copy stream (once the last
    // composite has read what the marches overwrite), so the next steps overlap the marches; a
    // GPU off the display GPU sends its partial pictures there on the same stream. The caller's
    // stream composites once every march and copy is done. On one GPU all of it is on the
    // caller's stream.
    void writeMarched(const DeviceTargets& targets, cudaStream_t stream) {
        const cudaSurfaceObject_t picture = targets.images.back().levels[0];
        std::vector<const float4*> inputs;
        for (size_t i = 0; i < slabs_.size(); ++i)
            inputs.push_back(deviceOf_[i] == 0 ? partials_[i] : received_[i]);
        const size_t bytes = size_t(march_.width) * march_.height * sizeof(float4);
        if (devices_.size() == 1) {
            DeviceScope scope(devices_[0]);
            for (size_t i = 0; i < slabs_.size(); ++i) {
                writeSlabVolume(volumes_[i], ownShown(i), stream);
                marchSlab(march_, volumes_[i], whole_.depth, partials_[i], stream);
            }
            compositeSlabs(march_, inputs, picture, stream);
            return;
        }
        for (size_t g = 0; g < devices_.size(); ++g) {
            DeviceScope scope(devices_[g]);
            const cudaStream_t sim = streams_[g], out = copyStreams_[g];
            CUDA_CHECK(cudaStreamWaitEvent(sim, copied_[g], 0));
            const cudaEvent_t local = spans_.begin(g, sim);
            for (size_t i = 0; i < slabs_.size(); ++i)
                if (deviceOf_[i] == g) writeSlabVolume(volumes_[i], ownShown(i), sim);
            spans_.end(g, false, "slab volume", frame_, local, sim);
            CUDA_CHECK(cudaEventRecord(events_[g], sim));
            CUDA_CHECK(cudaStreamWaitEvent(out, events_[g], 0));
            CUDA_CHECK(cudaStreamWaitEvent(out, outputsWritten_, 0));
            const cudaEvent_t marched = spans_.begin(g, out);
            for (size_t i = 0; i < slabs_.size(); ++i) {
                if (deviceOf_[i] != g) continue;
                marchSlab(march_, volumes_[i], whole_.depth, partials_[i], out);
                if (g != 0)
                    CUDA_CHECK(cudaMemcpyPeerAsync(received_[i], devices_[0], partials_[i],
                                                   devices_[g], bytes, out));
            }
            spans_.end(g, true, g == 0 ? "march" : "march, peer copy", frame_, marched, out);
            CUDA_CHECK(cudaEventRecord(copied_[g], out));
        }
        DeviceScope scope(devices_[0]);
        for (size_t g = 0; g < devices_.size(); ++g)
            CUDA_CHECK(cudaStreamWaitEvent(stream, copied_[g], 0));
        compositeSlabs(march_, inputs, picture, stream);
        CUDA_CHECK(cudaEventRecord(outputsWritten_, stream));
        ++frame_;
    }

    // The caller has finished every stream that used them.
    void releaseMarch() {
        for (size_t i = 0; i < volumes_.size(); ++i) {
            DeviceScope scope(devices_[deviceOf_[i]]);
            destroySlabVolume(volumes_[i]);
        }
        volumes_.clear();
        for (size_t i = 0; i < partials_.size(); ++i) {
            {
                DeviceScope scope(devices_[deviceOf_[i]]);
                if (partials_[i]) (void)cudaFree(partials_[i]);
            }
            DeviceScope scope(devices_[0]);
            if (received_[i]) (void)cudaFree(received_[i]);
        }
        partials_.clear();
        received_.clear();
        marching_ = false;
    }

    void build(const SimDefinition& def, HaloTransport halos) {
        const size_t gpus = devices_.size(), n = plan_.count.size();
        for (size_t i = 0; i < n; ++i)
            deviceOf_.push_back(uint32_t(gpuOfSlab(i, n, gpus)));
        streams_.assign(gpus, nullptr);
        events_.assign(gpus, nullptr);
        for (size_t g = 0; g < gpus; ++g) {
            DeviceScope scope(devices_[g]);
            if (gpus > 1) {
                int least = 0, greatest = 0;
                CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
                CUDA_CHECK(
                    cudaStreamCreateWithPriority(&streams_[g], cudaStreamNonBlocking,
                                                 slabTuning().highPriority ? greatest : least));
            }
            CUDA_CHECK(cudaEventCreateWithFlags(&events_[g], cudaEventDisableTiming));
        }
        {
            DeviceScope scope(devices_[0]);
            CUDA_CHECK(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming));
            CUDA_CHECK(cudaEventCreateWithFlags(&outputsWritten_, cudaEventDisableTiming));
        }
        copyStreams_.assign(gpus, nullptr);
        copied_.assign(gpus, nullptr);
        for (size_t g = 1; g < gpus; ++g) {
            DeviceScope scope(devices_[g]);
            CUDA_CHECK(cudaStreamCreateWithFlags(&copyStreams_[g], cudaStreamNonBlocking));
            CUDA_CHECK(cudaEventCreateWithFlags(&copied_[g], cudaEventDisableTiming));
        }
        // Peer copies (the gather's, and the halos' where they take them) go direct where the
        // hardware allows it, else the driver stages them through host memory.
        bool everyPair = true;
        for (size_t g = 0; g < gpus; ++g)
            for (size_t h = 0; h < gpus; ++h) {
                if (g == h) continue;
                int can = 0;
                CUDA_CHECK(cudaDeviceCanAccessPeer(&can, devices_[g], devices_[h]));
                everyPair = everyPair && can;
                if (!can) continue;
                DeviceScope scope(devices_[g]);
                const cudaError_t r = cudaDeviceEnablePeerAccess(devices_[h], 0);
                if (r == cudaErrorPeerAccessAlreadyEnabled)
                    (void)cudaGetLastError();
                else
                    CUDA_CHECK(r);
            }
        if (gpus > 1) {
            peerHalos_ =
                halos == HaloTransport::Peer || (halos == HaloTransport::Auto && everyPair);
            if (!peerHalos_) {
                ncclDescription_ = loadNccl();
                comms_.assign(gpus, nullptr);
                ncclCheck(nccl().commInitAll(comms_.data(), int(gpus), devices_.data()),
                          "ncclCommInitAll");
            }
        }
        for (size_t i = 0; i < n; ++i) {
            DeviceScope scope(devices_[deviceOf_[i]]);
            slabs_.push_back(
                def.createCuda(withSlabPlanes(whole_, plan_.count[i] + 2 * plan_.halo)));
        }
        if (peerHalos_) buildStaging();
        DeviceScope scope(devices_[0]);
        wholeSim_ = def.createCuda(whole_);
        snapshots_.resize(n);
        for (size_t i = 0; i < n; ++i) {
            if (deviceOf_[i] == 0) continue;
            DeviceScope on(devices_[deviceOf_[i]]);
            for (size_t k = 0; k < wholeSim_->slabFields().shown.size(); ++k) {
                float* p = nullptr;
                CUDA_CHECK(cudaMalloc(&p, plan_.count[i] * planeCells_ * sizeof(float)));
                snapshots_[i].push_back(p);
            }
        }
    }

    // pushHalos' staging buffers and events, once the slabs exist.
    void buildStaging() {
        const size_t gpus = devices_.size(), fields = slabs_[0]->slabFields().fields.size();
        staging_.assign(haloCopies_.size(), {});
        for (size_t j = 0; j < haloCopies_.size(); ++j) {
            const HaloCopy& c = haloCopies_[j];
            if (deviceOf_[c.from] == deviceOf_[c.to]) continue;
            DeviceScope scope(devices_[deviceOf_[c.to]]);
            for (size_t k = 0; k < fields; ++k) {
                float* p = nullptr;
                CUDA_CHECK(cudaMalloc(&p, size_t(plan_.halo) * planeCells_ * sizeof(float)));
                staging_[j].push_back(p);
            }
        }
        pushed_.assign(gpus, std::vector<cudaEvent_t>(gpus, nullptr));
        consumed_.assign(gpus, std::vector<cudaEvent_t>(gpus, nullptr));
        for (const HaloCopy& c : haloCopies_) {
            const uint32_t from = deviceOf_[c.from], to = deviceOf_[c.to];
            if (from == to || pushed_[from][to]) continue;
            {
                DeviceScope scope(devices_[from]);
                CUDA_CHECK(cudaEventCreateWithFlags(&pushed_[from][to], cudaEventDisableTiming));
            }
            DeviceScope scope(devices_[to]);
            CUDA_CHECK(cudaEventCreateWithFlags(&consumed_[to][from], cudaEventDisableTiming));
        }
    }

    void release() {
        spans_.release();
        // The caller finished its stream; the other GPUs' streams may hold work a throw between
        // a fork and its join left uncovered.
        for (size_t g = 0; g < streams_.size(); ++g) {
            DeviceScope scope(devices_[g]);
            if (streams_[g]) (void)cudaStreamSynchronize(streams_[g]);
            if (g < copyStreams_.size() && copyStreams_[g])
                (void)cudaStreamSynchronize(copyStreams_[g]);
        }
        for (size_t i = 0; i < snapshots_.size(); ++i) {
            DeviceScope scope(devices_[deviceOf_[i]]);
            for (float* p : snapshots_[i])
                (void)cudaFree(p);
        }
        snapshots_.clear();
        releaseMarch();
        for (size_t g = 0; g < copyStreams_.size(); ++g) {
            DeviceScope scope(devices_[g]);
            if (copyStreams_[g]) (void)cudaStreamDestroy(copyStreams_[g]);
            if (copied_[g]) (void)cudaEventDestroy(copied_[g]);
        }
        copyStreams_.clear();
        copied_.clear();
        for (size_t i = 0; i < slabs_.size(); ++i) {
            DeviceScope scope(devices_[deviceOf_[i]]);
            slabs_[i].reset();
        }
        slabs_.clear();
        if (wholeSim_) {
            DeviceScope scope(devices_[0]);
            wholeSim_.reset();
        }
        for (ncclComm_t comm : comms_)
            if (comm) (void)nccl().commDestroy(comm);
        comms_.clear();
        for (size_t j = 0; j < staging_.size(); ++j) {
            DeviceScope scope(devices_[deviceOf_[haloCopies_[j].to]]);
            for (float* p : staging_[j])
                (void)cudaFree(p);
        }
        staging_.clear();
        for (size_t g = 0; g < pushed_.size(); ++g)
            for (size_t h = 0; h < pushed_[g].size(); ++h) {
                {
                    DeviceScope scope(devices_[g]);
                    if (pushed_[g][h]) (void)cudaEventDestroy(pushed_[g][h]);
                }
                DeviceScope scope(devices_[h]);
                if (consumed_[h][g]) (void)cudaEventDestroy(consumed_[h][g]);
            }
        pushed_.clear();
        consumed_.clear();
        for (size_t g = 0; g < streams_.size(); ++g) {
            DeviceScope scope(devices_[g]);
            if (streams_[g]) (void)cudaStreamDestroy(streams_[g]);
            if (events_[g]) (void)cudaEventDestroy(events_[g]);
        }
        streams_.clear();
        events_.clear();
        if (!devices_.empty()) {
            DeviceScope scope(devices_[0]);
            if (forked_) (void)cudaEventDestroy(forked_);
            if (outputsWritten_) (void)cudaEventDestroy(outputsWritten_);
        }
        forked_ = outputsWritten_ = nullptr;
    }

    // On one GPU every slab runs on the caller's stream; across GPUs each GPU's slabs on that
    // GPU's own stream (the display GPU's too).
    cudaStream_t streamOf(size_t slab, cudaStream_t display) const {
        return devices_.size() == 1 ? display : streams_[deviceOf_[slab]];
    }

    // The slabs' streams wait for what the caller's stream holds so far.
    void fork(cudaStream_t stream) {
        if (devices_.size() == 1) return;
        CUDA_CHECK(cudaEventRecord(forked_, stream));
        for (size_t g = 0; g < devices_.size(); ++g) {
            DeviceScope scope(devices_[g]);
            CUDA_CHECK(cudaStreamWaitEvent(streams_[g], forked_, 0));
        }
    }

    // The caller's stream waits for what the slabs' streams hold so far.
    void join(cudaStream_t stream) {
        if (devices_.size() == 1) return;
        for (size_t g = 0; g < devices_.size(); ++g) {
            DeviceScope scope(devices_[g]);
            CUDA_CHECK(cudaEventRecord(events_[g], streams_[g]));
        }
        for (size_t g = 0; g < devices_.size(); ++g)
            CUDA_CHECK(cudaStreamWaitEvent(stream, events_[g], 0));
    }

    // `planes` planes from `from` (on GPU index fromGpu) to `to` (on toGpu), on `stream` (of the
    // GPU that enqueues: the source's for peer copies).
    void copy(float* to, uint32_t toGpu, const float* from, uint32_t fromGpu, size_t planes,
              cudaStream_t stream) const {
        const size_t bytes = planes * planeCells_ * sizeof(float);
        if (toGpu == fromGpu)
            CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream));
        else
            CUDA_CHECK(
                cudaMemcpyPeerAsync(to, devices_[toGpu], from, devices_[fromGpu], bytes, stream));
    }

    // Each slab's halos from its neighbours' own edge planes (haloCopies: boundary by boundary):
    // device copies between slabs on one GPU, then the rest by peer copies (pushHalos) or one NCCL
    // group, every GPU issuing its sends and receives in the list's order, field by field.
    void exchange(cudaStream_t stream) {
        std::vector<cudaEvent_t> marks(devices_.size(), nullptr);
        if (spans_.on())
            for (size_t g = 0; g < devices_.size(); ++g) {
                DeviceScope scope(devices_[g]);
                marks[g] = spans_.begin(g, streams_[g]);
            }
        exchangeHalos(stream);
        if (spans_.on())
            for (size_t g = 0; g < devices_.size(); ++g) {
                DeviceScope scope(devices_[g]);
                spans_.end(g, false, "halo exchange", frame_, marks[g], streams_[g]);
            }
    }

    void exchangeHalos(cudaStream_t stream) {
        std::vector<SlabFields> f;
        for (auto& slab : slabs_)
            f.push_back(slab->slabFields());
        const size_t fields = f[0].fields.size();
        const auto at = [&](size_t slab, size_t field, uint32_t plane) {
            return f[slab].fields[field] + size_t(plane) * planeCells_;
        };
        for (bool acrossGpus : {false, true}) {
            if (acrossGpus && peerHalos_) {
                pushHalos(f);
                break;
            }
            bool grouped = false;
            // An error inside the group still closes it (the group is the thread's), and the
            // current device is restored whatever NCCL leaves.
            DeviceScope restore(devices_[0]);
            try {
                for (const HaloCopy& c : haloCopies_) {
                    const uint32_t gf = deviceOf_[c.from], gt = deviceOf_[c.to];
                    if ((gf != gt) != acrossGpus) continue;
                    const cudaStream_t sf = streamOf(c.from, stream), st = streamOf(c.to, stream);
                    for (size_t k = 0; k < fields; ++k) {
                        float* from = at(c.from, k, c.fromPlane);
                        float* to = at(c.to, k, c.toPlane);
                        if (!acrossGpus) {
                            DeviceScope scope(devices_[gf]);
                            copy(to, gt, from, gf, plan_.halo, sf);
                            continue;
                        }
                        if (!grouped) ncclCheck(nccl().groupStart(), "ncclGroupStart");
                        grouped = true;
                        const size_t count = size_t(plan_.halo) * planeCells_;
                        ncclCheck(nccl().send(from, count, ncclFloat, int(gt), comms_[gf], sf),
                                  "ncclSend");
                        ncclCheck(nccl().recv(to, count, ncclFloat, int(gf), comms_[gt], st),
                                  "ncclRecv");
                    }
                }
            } catch (...) {
                if (grouped) (void)nccl().groupEnd();
                throw;
            }
            if (grouped) ncclCheck(nccl().groupEnd(), "ncclGroupEnd");
        }
    }

    // The halos between GPUs by peer copies into staging buffers on the receiving GPU: each
    // source pushes its edge planes there on its own stream right after its pass, and each
    // receiver, once the pushes have landed, copies them into its halos on its stream (a local
    // copy). A receiver so waits only for its neighbours' passes and pushes; a source waits only
    // for the receiver to have taken the last exchange's planes out of the staging buffer, a pass
    // ago. An NCCL group holds each pair of GPUs in step at every exchange; this does not.
    void pushHalos(const std::vector<SlabFields>& f) {
        const size_t gpus = devices_.size(), fields = f[0].fields.size();
        const size_t bytes = size_t(plan_.halo) * planeCells_ * sizeof(float);
        const auto plane = [&](size_t slab, size_t field, uint32_t p) {
            return f[slab].fields[field] + size_t(p) * planeCells_;
        };
        for (size_t from = 0; from < gpus; ++from) {
            DeviceScope scope(devices_[from]);
            for (size_t to = 0; to < gpus; ++to) {
                if (!pushed_[from][to]) continue; // sends no halos there
                CUDA_CHECK(cudaStreamWaitEvent(streams_[from], consumed_[to][from], 0));
                forCopiesBetween(from, to, [&](const HaloCopy& c, size_t j) {
                    for (size_t k = 0; k < fields; ++k)
                        CUDA_CHECK(cudaMemcpyPeerAsync(staging_[j][k], devices_[to],
                                                       plane(c.from, k, c.fromPlane),
                                                       devices_[from], bytes, streams_[from]));
                });
                CUDA_CHECK(cudaEventRecord(pushed_[from][to], streams_[from]));
            }
        }
        for (size_t to = 0; to < gpus; ++to) {
            DeviceScope scope(devices_[to]);
            for (size_t from = 0; from < gpus; ++from) {
                if (!pushed_[from][to]) continue;
                CUDA_CHECK(cudaStreamWaitEvent(streams_[to], pushed_[from][to], 0));
                forCopiesBetween(from, to, [&](const HaloCopy& c, size_t j) {
                    for (size_t k = 0; k < fields; ++k)
                        CUDA_CHECK(cudaMemcpyAsync(plane(c.to, k, c.toPlane), staging_[j][k], bytes,
                                                   cudaMemcpyDeviceToDevice, streams_[to]));
                });
                CUDA_CHECK(cudaEventRecord(consumed_[to][from], streams_[to]));
            }
        }
    }

    // copy(c, j) for each halo copy c (haloCopies_[j]) from a slab on GPU index `from` to one on
    // GPU index `to`, in the list's order.
    template <class Copy> void forCopiesBetween(size_t from, size_t to, const Copy& copy) const {
        for (size_t j = 0; j < haloCopies_.size(); ++j)
            if (deviceOf_[haloCopies_[j].from] == from && deviceOf_[haloCopies_[j].to] == to)
                copy(haloCopies_[j], j);
    }

    // Across GPUs, the shown fields of every slab into the whole-grid object for this frame's
    // outputs, then the caller's stream waits for them. The display GPU's slabs copy straight in
    // on its slabs' stream. Another GPU's slabs first copy into a snapshot on that GPU (a local
    // copy, fast), and the peer copy of the snapshot runs on a copy stream of that GPU, so the
    // slabs' next steps overlap the transfer. A snapshot is rewritten only once its last peer copy
    // is done, and the whole-grid object only once the last outputs written from it are.
    void gatherShown(cudaStream_t stream) {
        const SlabFields whole = wholeSim_->slabFields();
        for (size_t g = 0; g < devices_.size(); ++g) {
            DeviceScope scope(devices_[g]);
            const cudaStream_t sim = streams_[g], out = copyStreams_[g];
            if (g == 0)
                CUDA_CHECK(cudaStreamWaitEvent(sim, outputsWritten_, 0));
            else
                CUDA_CHECK(cudaStreamWaitEvent(sim, copied_[g], 0));
            const cudaEvent_t local = spans_.begin(g, sim);
            for (size_t i = 0; i < slabs_.size(); ++i) {
                if (deviceOf_[i] != g) continue;
                const SlabFields slab = slabs_[i]->slabFields();
                for (size_t k = 0; k < whole.shown.size(); ++k) {
                    const uint32_t f = whole.shown[k];
                    float* to =
                        g == 0 ? whole.fields[f] + plan_.first[i] * planeCells_ : snapshots_[i][k];
                    copy(to, uint32_t(g), slab.fields[f] + plan_.halo * planeCells_, uint32_t(g),
                         plan_.count[i], sim);
                }
            }
            spans_.end(g, false, g == 0 ? "gather" : "snapshot", frame_, local, sim);
            CUDA_CHECK(cudaEventRecord(events_[g], sim));
            if (g == 0) continue;
            CUDA_CHECK(cudaStreamWaitEvent(out, events_[g], 0));
            CUDA_CHECK(cudaStreamWaitEvent(out, outputsWritten_, 0));
            const cudaEvent_t peer = spans_.begin(g, out);
            for (size_t i = 0; i < slabs_.size(); ++i) {
                if (deviceOf_[i] != g) continue;
                for (size_t k = 0; k < whole.shown.size(); ++k)
                    copy(whole.fields[whole.shown[k]] + plan_.first[i] * planeCells_, 0,
                         snapshots_[i][k], uint32_t(g), plan_.count[i], out);
            }
            spans_.end(g, true, "peer copy", frame_, peer, out);
            CUDA_CHECK(cudaEventRecord(copied_[g], out));
        }
        CUDA_CHECK(cudaStreamWaitEvent(stream, events_[0], 0));
        for (size_t g = 1; g < devices_.size(); ++g)
            CUDA_CHECK(cudaStreamWaitEvent(stream, copied_[g], 0));
    }

    // The slabs' own planes of the listed fields into the display GPU's whole-grid object, each
    // on its slab's stream (then join).
    void gather(const std::vector<uint32_t>& which, cudaStream_t stream) {
        const SlabFields whole = wholeSim_->slabFields();
        for (size_t i = 0; i < slabs_.size(); ++i) {
            const SlabFields slab = slabs_[i]->slabFields();
            DeviceScope scope(devices_[deviceOf_[i]]);
            for (uint32_t f : which)
                copy(whole.fields[f] + plan_.first[i] * planeCells_, 0,
                     slab.fields[f] + plan_.halo * planeCells_, deviceOf_[i], plan_.count[i],
                     streamOf(i, stream));
        }
    }

    GridSize whole_;
    SlabPlan plan_;
    size_t planeCells_;
    std::vector<HaloCopy> haloCopies_;
    std::vector<int> devices_;              // CUDA ordinals; [0] is the display GPU
    std::vector<uint32_t> deviceOf_;        // per slab: index into devices_
    std::vector<cudaStream_t> streams_;     // per GPU where there are several (else the caller's)
    std::vector<cudaEvent_t> events_;       // per GPU: its stream's work so far, for join
    std::vector<cudaStream_t> copyStreams_; // per GPU but the display GPU: gathers' peer copies
    std::vector<cudaEvent_t> copied_;       // per GPU but the display GPU: its last peer copies
    std::vector<std::vector<float*>> snapshots_; // per slab off the display GPU, per shown field
    cudaEvent_t forked_ = nullptr;               // the caller's stream at a fork
    cudaEvent_t outputsWritten_ = nullptr;       // the caller's stream after the last writeOutputs
    std::vector<ncclComm_t> comms_;              // per GPU, where halos go through NCCL
    std::string ncclDescription_;
    // Halos between GPUs by peer copies (pushHalos): per halo copy crossing GPUs (haloCopies_'s
    // index) and field a staging buffer on the receiving GPU; per ordered pair of GPUs that
    // exchange halos the event after the first's pushes to the second (pushed_[from][to], on
    // `from`; null where `from` sends `to` none) and after the second took them out
    // (consumed_[to][from]).
    bool peerHalos_ = false;
    std::vector<std::vector<float*>> staging_;
    std::vector<std::vector<cudaEvent_t>> pushed_, consumed_;
    std::vector<std::unique_ptr<CudaSimulation>> slabs_;
    std::unique_ptr<CudaSimulation> wholeSim_; // on the display GPU: the gathered planes
    mutable std::vector<std::vector<uint64_t>> seenStates_; // replayState's numbering
    GpuSpanRecorder spans_;                                 // --trace across GPUs
    uint64_t frame_ = 0; // outputs written so far: the frame the next spans belong to
    // The halos hold the neighbours' edge planes as they are now: exchanged eagerly after the last
    // pass, with no reset or brush since.
    bool halosFresh_ = false;
    // Sort-last drawing (enableMarch): per slab its volume, its partial picture on its GPU and,
    // off the display GPU, the partial picture received there; the view of the next frames.
    bool marching_ = false;
    MarchView march_; // its size is the partial pictures' (enableMarch's)
    std::vector<SlabVolume> volumes_;
    std::vector<float4*> partials_, received_;
};

} // namespace

std::string loadNccl() {
    return nccl().description;
}

size_t traceSlabSpans(CudaSimulation& sim) {
    auto* slabbed = dynamic_cast<SlabbedCuda*>(&sim);
    return slabbed ? slabbed->traceSpans() : 0;
}

bool enableSlabMarch(CudaSimulation& sim, uint32_t width, uint32_t height) {
    auto* slabbed = dynamic_cast<SlabbedCuda*>(&sim);
    return slabbed && slabbed->enableMarch(width, height);
}

void setSlabMarch(CudaSimulation& sim, const MarchView& view) {
    auto* slabbed = dynamic_cast<SlabbedCuda*>(&sim);
    if (!slabbed) throw usageError("setSlabMarch: not a split run");
    slabbed->setMarch(view);
}

std::string slabHaloTransport(const CudaSimulation& sim) {
    const auto* slabbed = dynamic_cast<const SlabbedCuda*>(&sim);
    return slabbed ? slabbed->haloTransport() : std::string();
}

std::vector<GpuSpan> takeSlabSpans(CudaSimulation& sim) {
    auto* slabbed = dynamic_cast<SlabbedCuda*>(&sim);
    return slabbed ? slabbed->takeSpans() : std::vector<GpuSpan>{};
}

std::vector<int> slabDevices(int display, uint32_t gpus) {
    int present = 0;
    CUDA_CHECK(cudaGetDeviceCount(&present));
    if (gpus < 1) throw usageError("--gpus must be at least 1");
    if (int64_t(gpus) > present)
        throw unsupported("--gpus " + std::to_string(gpus) + " asks for " + std::to_string(gpus) +
                          " GPUs; this machine has " + std::to_string(present) + " CUDA device(s)");
    std::vector<int> devices{display};
    for (int d = 0; d < present && devices.size() < gpus; ++d)
        if (d != display) devices.push_back(d);
    return devices;
}

std::unique_ptr<CudaSimulation> createSlabbedCuda(const SimDefinition& def, const GridSize& whole,
                                                  const SlabPlan& plan,
                                                  const std::vector<int>& devices,
                                                  HaloTransport halos) {
    return std::make_unique<SlabbedCuda>(def, whole, plan, devices, halos);
}

std::unique_ptr<CudaSimulation> createSlabbedCuda(const SimDefinition& def, const GridSize& whole,
                                                  uint32_t slabs, const std::vector<int>& devices,
                                                  uint32_t halo, double displayShare,
                                                  HaloTransport halos) {
    SlabRunLayout layout;
    layout.slabs = slabs;
    layout.gpus = uint32_t(std::max<size_t>(devices.size(), 1));
    layout.halo = halo;
    layout.displayShare = displayShare;
    layout.stepsPerFrame = def.stepsPerFrame;
    return createSlabbedCuda(def, whole, planSlabRun(whole, layout), devices, halos);
}

} // namespace estuary::sim
#endif // __CUDACC__
