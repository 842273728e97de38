// The benchmark report: plain data collected by `estuary --bench` (bench.cpp) and pure writers for
// its three outputs: JSON (summaries computed here from the samples), a per-frame CSV, and a
// terminal table. No GPU types; scripts/plot_bench.py draws the PNG from the JSON and CSV.
//
// JSON schema (schema_version 8; keys always present and in this order, unknowable values null):
//   interrupted   true when a stop signal ended the run early: the modes hold the frames measured
//                 until then (frames_measured < configuration.frames; a note says which signal),
//                 modes not reached have no frames
//   environment   {gpu_name, gpu_uuid, driver_version, vulkan_api_version, vulkan_driver,
//                  cuda_runtime_version, cuda_driver_version, backend, git_revision, build_type,
//                  host_name, date, sm_count, memory_clock_mhz, memory_bus_width_bits,
//                  peak_bandwidth_GBps}
//   configuration {simulation, width, height, depth, particles, steps_per_frame,
//                  frames_in_flight, warmup, frames, modes, seed, consumer, output_width,
//                  output_height, draw, cuda_graphs, fps_cap}
//   modes [ {mode, handoff, frames_measured, frames_from_cuda_graphs, wall_seconds, note,
//            frame_time_definition,
//            frame_time_ms {mean, stddev, cov, min, p50, p90, p95, p99, p99_9, max},
//            cpu_frame_time_ms {the same keys},
//            fps_mean, one_percent_low_fps, one_percent_low_definition,
//            hitches {count, threshold_ms, definition},
//            gpu_segments_ms {simulation, render, interop_wait: {p50, p95, p99}},
//            gpu_busy_ms_per_frame {mean, p50},
//            handoff_latency_ms {mean, min, p50, p90, p99, max}, handoff_alignment_error_us,
//            handoff_latency_definition,
//            host_busy_us {mean, min, p50, p90, p99, max}, host_busy_definition,
//            throughput {cell_updates_per_s, sim_achieved_GBps, sim_percent_of_peak_bandwidth,
//                        bytes_per_cell_step, particles_per_frame, particle_steps_per_s,
//                        bytes_per_particle_step, output_bytes_per_frame,
//                        host_bytes_per_frame, render_ns_per_output_pixel},
//            energy {joules, watts_mean, joules_per_frame, source}} ]
//   (draw: "raster" or "compute", how the view is drawn (--draw; the OpenGL consumer rasterizes);
//    depth: 1 for 2D grids; cells are width x height x depth. render_ns_per_output_pixel: the
//    render segment's p50 over output_width x output_height, e.g. a ray march's cost per pixel.
//    sim_achieved_GBps counts cells and particles; output_bytes_per_frame: every output image
//    level and buffer the simulation hands to the renderer per frame; host_bytes_per_frame: what
//    crosses between host memory and the GPU per frame: 0 with interop, download + upload of the
//    outputs in host-copy, the upload on the CPU backend)
//   (handoff_latency_ms (new in 7): per frame, from the simulation finishing the frame's outputs
//    on the GPU (CUDA's event after the output write) to Vulkan starting to draw them (the draw's
//    first timestamp, written once the wait on CUDA resolved), both clocks put on the host's
//    steady_clock (run_clocks.h); null for backends without CUDA interop (cpu, host-copy) and
//    for the OpenGL consumer. handoff_alignment_error_us: the bound on its clock-alignment error
//    (the two clocks' bounds added). host_busy_us (new in 7): per frame, the host time drawFrame
//    works, its frames-in-flight wait left out (collecting GPU times, the simulation's enqueue,
//    recording, submitting); null for the OpenGL consumer. cuda_graphs (--cuda-graphs) and
//    frames_from_cuda_graphs, new in 7 too: how many measured frames enqueued their CUDA work as
//    one replayed CUDA graph (0 where the backend or the simulation does not replay))
//   (consumer: "vulkan" or "opengl", who draws; handoff: how a frame passes from the simulation to
//    it: "timeline" (GPU-side timeline semaphores), "binary" (a binary pair per slot, OpenGL),
//    "host" (OpenGL, host waits) or "staging" (Vulkan uploads host-written outputs itself))
//   (fps_cap (new in 8): --fps-cap's frames per second, null when uncapped; the cadence at a cap
//    is targets.p99_over_p50, the spread of the frame intervals)
//   (energy (new in 8): the GPU's energy counter read by NVML before the first and after the
//    last measured frame: joules between them, their mean power over wall_seconds and per frame;
//    source names the counter and the GPU, or why there is no figure (no NVML, no counter);
//    the whole board's energy, so idle power is included; the counter advances in steps tens of
//    ms apart, so short modes are coarse, and one it did not advance over is null, saying so)
//   ratios  {"<a>_vs_<b>_fps": fps_mean(a) / fps_mean(b)} for every pair a before b in `modes`
//   targets {pipelined_frame_over_gpu_busy, p99_over_p50 {"<mode>": ...}}
// Statistics follow bench_stats.h (nearest-rank percentiles, sample stddev, NaN = not measured).
// Mode names in keys have '-' replaced by '_' (host-copy → host_copy).
#pragma once

#include "bench_stats.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace estuary {

struct BenchEnvironment {
    std::string gpuName, gpuUuid, driverVersion, vulkanApiVersion, vulkanDriver;
    std::string cudaRuntimeVersion, cudaDriverVersion, backend, gitRevision, buildType, hostName;
    std::string date; // ISO 8601
    int smCount = 0;
    double memoryClockMHz = 0;
    int memoryBusWidthBits = 0;
    double peakBandwidthGBs = 0; // ddrPeakBandwidthGBs(memoryClockMHz, memoryBusWidthBits)
};

// Theoretical DRAM bandwidth in GB/s (1e9 bytes): two transfers per memory clock (DDR) times the
// bus width in bytes. Takes the clock as CUDA reports it (cudaDevAttrMemoryClockRate, converted
// from kHz to MHz).
double ddrPeakBandwidthGBs(double memoryClockMHz, int memoryBusWidthBits);

struct BenchConfig {
    std::string simulation; // --sim
    uint32_t width = 0, height = 0, depth = 1, outputWidth = 0, outputHeight = 0;
    uint32_t stepsPerFrame = 0, framesInFlight = 0, warmup = 0, frames = 0;
    uint32_t fpsCap = 0;    // --fps-cap; 0: none
    uint32_t particles = 0; // --particles (0 for simulations without them)
    std::string modes;      // as given on the command line, e.g. "pipelined,serialized,host-copy"
    uint64_t seed = 0;
    std::string consumer = "vulkan"; // --consumer
    std::string draw = "raster";     // --draw: raster | compute
    bool cudaGraphs = true;          // --cuda-graphs
    uint32_t handoffBatch = 1;       // --handoff-batch
};

struct FrameSample {
    // Frame time: interval between the GPU finishing consecutive frames (Vulkan timestamps at the
    // end of each draw) — the cadence a display would get; the host interval where no timestamps.
    double frameMs = kNotMeasured;
    double simMs = kNotMeasured;      // GPU time of the simulation steps
    double renderMs = kNotMeasured;   // GPU time of the draw
    double waitMs = kNotMeasured;     // GPU time spent waiting on the interop hand-off
    double gpuBusyMs = kNotMeasured;  // GPU time doing work in this frame
    double cpuFrameMs = kNotMeasured; // host interval between the starts of consecutive frames
    double handoffMs = kNotMeasured; // simulation's end on the GPU → the draw's start (CUDA only)
    double hostBusyUs = kNotMeasured; // host work in drawFrame, its frames-in-flight wait left out
};

struct ModeResult {
    std::string mode;    // "pipelined" | "serialized" | "host-copy"
    std::string handoff; // "timeline" | "binary" | "host" | "staging" (see the schema)
    std::vector<FrameSample> frames;
    double wallSeconds = 0;      // wall time of all `frames`, for throughput
    double bytesPerCellStep = 0; // simulation DRAM bytes per cell per step
    double bytesPerParticleStep = 0;
    uint32_t particles = 0;               // in the buffers
    uint32_t particlesPerFrame = 0;       // particles moved each step (the active share)
    double outputBytesPerFrame = 0;       // every level of every output image, every output buffer
    double hostBytesPerFrame = 0;         // through host memory: 0 with interop
    std::string note;                     // free text, e.g. why a mode was skipped
    double handoffErrorUs = kNotMeasured; // bound on the hand-off latency's alignment error
    uint64_t framesFromGraphs = 0;        // measured frames whose CUDA work was a replayed graph
    // The GPU's energy over the measured frames (gpu_energy.h), and where it came from or why
    // there is none.
    double energyJoules = kNotMeasured;
    std::string energySource;
};

struct BenchReport {
    BenchEnvironment env;
    BenchConfig config;
    std::vector<ModeResult> modes;
    bool interrupted = false; // stopped by a signal before every frame of every mode ran
};

std::string toJson(const BenchReport& report);
// Header mode,frame,frame_ms,sim_ms,render_ms,wait_ms,gpu_busy_ms,cpu_frame_ms,handoff_ms,
// host_busy_us; one row per frame (frame counts from 0 per mode); an unmeasured value is an empty
// field.
std::string toCsv(const BenchReport& report);
// The same text handed to `put` in pieces of about 64 KiB, so a long run's CSV is never held whole.
void writeCsv(const BenchReport& report, const std::function<void(std::string_view)>& put);
// Atomically (output_file.h); creates missing parent folders. Throws estuary::Error
// (ExitCode::Runtime) naming the path and the system's reason.
void writeTextFile(const std::filesystem::path& path, const std::string& text);
// Per mode: frame p50/p99/mean, FPS, 1% low, sim/render/wait p50, hand-off p50/p99 (µs), host
// busy p50 (µs), hitches; then the ratios.
std::string formatSummaryTable(const BenchReport& report);

} // namespace estuary
