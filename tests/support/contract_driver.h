// The contract test's driver: seeded, randomized sequences of legal calls of estuary.h (frames
// in flight, streams with long and short work, deferred waits, replay keys, images and buffers
// made and destroyed between frames, views added and removed, reads and picks, waits, the
// caller's CUDA device switched), checking after every frame that
//   - each read and pick, once delivered, holds what its own frame wrote (value f * 8 + id),
//   - a pick not yet delivered reads hit = -1, and is delivered by estuary_wait_frame,
//   - the hand-off timelines never fell (estuary_metrics.handoff_regressions),
//   - the validation layer stayed silent,
//   - stale handles (destroyed allocations and views, ended frames) are refused with
//     ESTUARY_ERROR_INVALID_HANDLE, and destroying twice is harmless,
//   - the caller's current CUDA device is what the caller made it.
// Who writes the frames is a ContractWriter: the host (CPU tests, lavapipe) or CUDA kernels on
// several streams (the GPU suite). Only the C API is used, as a C program would.
#pragma once

#include "estuary/estuary.h"

#include <cstdint>
#include <string>
#include <vector>

namespace estuary::contract {

// What the driver writes each frame: every texel of level 0 of an image, every float of a buffer,
// and for a markers buffer one 3D marker at the origin; all with the value f * 8 + id.
struct Allocation {
    uint32_t id = 0; // 0..7
    estuary_image* image = nullptr;
    estuary_buffer* buffer = nullptr;
    bool markers = false;
    uint32_t width = 0, height = 0; // images
    uint64_t bytes = 0;             // buffers
};

class ContractWriter {
  public:
    virtual ~ContractWriter() = default;
    virtual estuary_writer writer() const = 0;
    // Streams the frames may use; 0: the viewer's own only (no CUDA).
    virtual uint32_t streams() const = 0;
    virtual void* stream(uint32_t index) const = 0;
    // A viewer was made (or is about to go): per-viewer state, e.g. counters per slot.
    virtual void open(estuary_viewer* viewer, uint32_t framesInFlight) = 0;
    virtual void close() = 0;
    // Work on the writer's own memory before the frame's slot wait (a deferred wait overlaps it
    // with the draw), `micros` long on the GPU; nothing for the host.
    virtual void privateWork(estuary_frame* frame, uint32_t micros) = 0;
    // Frame `frame`'s values into all `allocations` (the frame's copies); false with `problem`
    // set when an estuary call failed.
    virtual bool write(estuary_frame* frame, const std::vector<Allocation>& allocations,
                       std::string& problem) = 0;
    // CUDA: how many devices there are (the driver switches the caller's device when 2 or more).
    virtual int devices() const { return 0; }
    virtual int currentDevice() const { return -1; }
    virtual void setCurrentDevice(int) {}
};

struct ContractOptions {
    uint64_t seed = 1;
    uint32_t sequences = 4;
    uint32_t framesPerSequence = 40;
    uint32_t maxFramesInFlight = 32;
    uint32_t framesInFlight = 0;      // 0: one of 1, 2, 3, 4, 5, 8, 16, 32 up to the maximum
    uint32_t width = 64, height = 48; // the headless picture
    bool replay = false;              // replay keys (CUDA writers with streams of their own)
    bool switchDevices = false;       // make device 1 current around calls (2+ CUDA devices)
    uint32_t longWorkMicros = 200;    // the longest private work of a frame
    bool roundRobin = false;          // frame f on stream f % streams (else a random one)
    bool handoffBatches = false;      // handoff_batch: a random 1..frames in flight per sequence
};

struct ContractReport {
    uint32_t sequences = 0;
    uint64_t frames = 0;
    uint64_t checks = 0;   // values compared, statuses checked, timelines and validation read
    uint64_t replayed = 0; // frames replayed from a graph
    uint64_t handoffChecks = 0;
    std::vector<std::string> failures; // empty: the contract held
    std::string summary() const;
};

ContractReport runContract(ContractWriter& writer, const ContractOptions& options);

} // namespace estuary::contract
