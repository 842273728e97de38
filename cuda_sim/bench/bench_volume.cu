// estuary_kernel_bench's gray-scott-3d part (bench_volume.h). The kernels are the simulation's
// (gray_scott_3d_kernels.cuh); the reference is the simulation's own CPU object and the host
// writeMipChain.
#include "bench_common.cuh"
#include "bench_volume.h"
#include "cuda_simulation.h"
#include "gray_scott_3d_kernels.cuh"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

namespace estuary::sim {

SimDefinition grayScott3dSimulation(); // gray_scott_3d.cu; listed by the app's simulations.cpp

namespace {

constexpr double kBytesPerCellStep3d = 16.0; // u and v read and written once: the ideal

std::string cubeName(int w, int h, int d) {
    return std::to_string(w) + "x" + std::to_string(h) + "x" + std::to_string(d);
}

// The u/v ping-pong of a w x h x d grid, seeded with seedCell3d.
struct Volume {
    int w, h, d;
    float* allocation = nullptr;
    float* u[2] = {};
    float* v[2] = {};
    int current = 0;

    Volume(int width, int height, int depth, cudaStream_t stream) : w(width), h(height), d(depth) {
        const size_t cells = size_t(w) * size_t(h) * size_t(d);
        CUDA_CHECK(cudaMalloc(&allocation, 4 * cells * sizeof(float)));
        for (int i = 0; i < 2; ++i) {
            u[i] = allocation + size_t(i) * cells;
            v[i] = allocation + size_t(2 + i) * cells;
        }
        launchSeed3d(u[0], v[0], w, h, d, kSeed, 0, d, stream);
    }
    ~Volume() { (void)cudaFree(allocation); }
    Volume(const Volume&) = delete;
    Volume& operator=(const Volume&) = delete;
    size_t cells() const { return size_t(w) * size_t(h) * size_t(d); }
};

struct StepVariant3d {
    std::string name;
    bool column = false; // the one-step column march, else temporal passes of `tiling`
    StepTiling3d tiling;
};

// The named variant with its tiling for a size³ grid, or nothing for an unknown name.
std::optional<StepVariant3d> stepVariant3d(const std::string& name, int size, int smCount,
                                           const VolumeBenchOptions& options) {
    StepVariant3d variant{name, false, chooseStepTiling3d(size, size, size, smCount)};
    if (name == "column") {
        variant.column = true;
    } else if (name.size() == 9 && name.starts_with("temporal") && name[8] >= '1' &&
               name[8] <= '0' + kMaxStepsPerPass) {
        variant.tiling.stepsPerPass = name[8] - '0';
    } else if (name != "auto") {
        return std::nullopt;
    }
    if (options.blockY > 0) variant.tiling.blockY = options.blockY;
    if (options.slices > 0) variant.tiling.slicesPerChunk = options.slices;
    return variant;
}

void runSteps3d(const StepVariant3d& variant, Volume& f, const GrayScottParams& p, int steps,
                cudaStream_t stream) {
    if (!variant.column) {
        f.current =
            launchSteps3d(variant.tiling, f.u, f.v, f.current, f.w, f.h, f.d, p, steps, stream);
        return;
    }
    for (int s = 0; s < steps; ++s) {
        const int next = 1 - f.current;
        launchColumnStep3d(f.u[f.current], f.v[f.current], f.u[next], f.v[next], f.w, f.h, f.d, p,
                           stream);
        f.current = next;
    }
}

struct CheckVolume {
    int w, h, d, steps;
};
// A volume long enough for patterns with every block edge and chunk boundary inside it, odd ones
// that wrap inside one block, and one cell.
constexpr CheckVolume kStepChecks3d[] = {
    {64, 48, 40, 24}, {37, 29, 23, 13}, {70, 9, 33, 11}, {5, 3, 7, 9}, {1, 1, 1, 5}};

// The simulation's initial parameters.
ParamValues initialValues3d() {
    ParamValues values;
    for (const ParamSpec& spec : grayScott3dSimulation().params)
        values.push_back(spec.initial);
    return values;
}

GrayScottParams params3d() {
    return grayScott3dParams(initialValues3d());
}

bool checkStep3d(const StepVariant3d& variant, cudaStream_t stream) {
    const SimDefinition def = grayScott3dSimulation();
    const ParamValues values = initialValues3d();
    const GrayScottParams p = grayScott3dParams(values);
    for (const CheckVolume& c : kStepChecks3d) {
        // The per-cell formula in a plain loop: the simulation's CPU object wants 4³ at least.
        std::vector<float> u(size_t(c.w) * c.h * c.d), v(u.size()), uNext(u.size()),
            vNext(u.size());
        for (int z = 0; z < c.d; ++z)
            for (int y = 0; y < c.h; ++y)
                for (int x = 0; x < c.w; ++x) {
                    const size_t i = cellIndex3d(x, y, z, c.w, c.h);
                    seedCell3d(kSeed, x, y, z, c.w, c.h, c.d, u[i], v[i]);
                }
        for (int s = 0; s < c.steps; ++s) {
            for (int z = 0; z < c.d; ++z)
                for (int y = 0; y < c.h; ++y)
                    for (int x = 0; x < c.w; ++x) {
                        const size_t i = cellIndex3d(x, y, z, c.w, c.h);
                        grayScott3dCell(u.data(), v.data(), c.w, c.h, c.d, x, y, z, p, uNext[i],
                                        vNext[i]);
                    }
            u.swap(uNext);
            v.swap(vNext);
        }
        if (c.w >= 4 && c.h >= 4 && c.d >= 4) { // and the simulation's CPU object agrees
            const auto cpu = def.createCpu({uint32_t(c.w), uint32_t(c.h), uint32_t(c.d)});
            cpu->reset(kSeed);
            cpu->step(values, c.steps);
            const SlabFields state = cpu->slabFields();
            if (std::memcmp(state.fields[1], v.data(), v.size() * sizeof(float)) != 0)
                throw std::logic_error("the bench's CPU loop differs from the simulation's");
        }
        Volume f(c.w, c.h, c.d, stream);
        for (int done = 0; done < c.steps; done += kStepsPerFrame)
            runSteps3d(variant, f, p, std::min(kStepsPerFrame, c.steps - done), stream);
        std::vector<float> gu(f.cells()), gv(f.cells());
        copyAndWait(gu.data(), f.u[f.current], gu.size() * sizeof(float), cudaMemcpyDeviceToHost,
                    stream);
        copyAndWait(gv.data(), f.v[f.current], gv.size() * sizeof(float), cudaMemcpyDeviceToHost,
                    stream);
        const std::string what = variant.name + " on " + cubeName(c.w, c.h, c.d) + " after " +
                                 std::to_string(c.steps) + " steps: ";
        if (!sameBits(gu, u, c.w, what + "u") || !sameBits(gv, v, c.w, what + "v")) return false;
    }
    return true;
}

BenchResult timeStep3d(const StepVariant3d& variant, int size, const BenchDevice& device,
                       cudaStream_t stream) {
    const GrayScottParams p = params3d();
    Volume f(size, size, size, stream);
    const double ms = timeMs(stream, kWarmupFrames, kTimedFrames,
                             [&] { runSteps3d(variant, f, p, kStepsPerFrame, stream); });
    BenchResult r = result("step3d", variant.name, size);
    r.us = ms * 1e3 / kStepsPerFrame;
    if (!variant.column) r.tiling3d = variant.tiling;
    r.gbs = kBytesPerCellStep3d * double(f.cells()) / (r.us * 1e-6) / 1e9;
    r.percentOfPeak = 100.0 * r.gbs / device.peakGBs;
    return r;
}

// ---- output writes ------------------------------------------------------------------------------

ImageOutput vVolume(int w, int h, int d) {
    return ImageOutput{"v", uint32_t(w), uint32_t(h), uint32_t(d), TexelFormat::R32Float, 0};
}

// Returns the launches.
int runOutputWrite3d(bool fused, const float* v, int w, int h, int d, const DeviceImage& image,
                     cudaStream_t stream) {
    const int levels = int(image.surfaces.size());
    if (!fused) {
        launchLevelByLevelOutputWrite3d(v, w, h, d, image.surfaces.data(), levels, stream);
        return levels;
    }
    launchFieldLevels3d(v, w, h, d, image.surfaces.data(), levels, stream);
    return 1 + (std::max(0, levels - 1 - kTileLevels3d) + kTileLevels3d - 1) / kTileLevels3d;
}

// v with a distinct, non-representable-sum value in every cell, so every mean rounds.
std::vector<float> hashedVolume(size_t cells) {
    std::vector<float> v(cells);
    for (size_t i = 0; i < v.size(); ++i)
        v[i] = hashToSignedUnit(mix64(kSeed ^ i)) + 0.5f;
    return v;
}

// Odd, 1-wide, flat and deep volumes and two texels: every clamp and dropped slice of
// mip_chain.h, chains longer than one tile launch.
// (A depth of 1 would make a 2D image.)
constexpr CheckVolume kMipChecks3d[] = {{67, 40, 35, 0}, {130, 9, 18, 0}, {64, 64, 4, 0},
                                        {5, 200, 3, 0},  {37, 1, 5, 0},   {1, 33, 2, 0},
                                        {16, 16, 16, 0}, {1, 1, 2, 0},    {257, 31, 70, 0}};

bool checkOutputWrite3d(bool fused, const std::string& name, cudaStream_t stream) {
    for (const CheckVolume& c : kMipChecks3d) {
        const ImageOutput image = vVolume(c.w, c.h, c.d);
        const std::vector<float> field = hashedVolume(size_t(c.w) * c.h * c.d);
        std::vector<std::vector<float>> cpu;
        std::vector<void*> pointers;
        for (uint32_t l = 0; l < levelCount(image); ++l)
            cpu.emplace_back(size_t(mipSize(image.width, l)) * mipSize(image.height, l) *
                             mipSize(image.depth, l));
        for (auto& level : cpu)
            pointers.push_back(level.data());
        cpu[0] = field;
        writeMipChain(image, HostImageTarget{pointers});

        float* v = nullptr;
        CUDA_CHECK(cudaMalloc(&v, field.size() * sizeof(float)));
        copyAndWait(v, field.data(), field.size() * sizeof(float), cudaMemcpyHostToDevice, stream);
        DeviceImage gpu = createDeviceImage(image);
        runOutputWrite3d(fused, v, c.w, c.h, c.d, gpu, stream);
        bool same = true;
        for (size_t l = 0; l < cpu.size() && same; ++l) {
            const uint32_t lw = mipSize(image.width, uint32_t(l));
            const uint32_t lh = mipSize(image.height, uint32_t(l));
            const uint32_t ld = mipSize(image.depth, uint32_t(l));
            std::vector<float> level(cpu[l].size());
            cudaMemcpy3DParms copy{};
            copy.srcArray = gpu.levels[l];
            copy.dstPtr = make_cudaPitchedPtr(level.data(), lw * sizeof(float), lw, lh);
            copy.extent = make_cudaExtent(lw, lh, ld);
            copy.kind = cudaMemcpyDeviceToHost;
            CUDA_CHECK(cudaMemcpy3DAsync(&copy, stream));
            CUDA_CHECK(cudaStreamSynchronize(stream));
            same = sameBits(level, cpu[l], int(lw),
                            name + " on " + cubeName(c.w, c.h, c.d) + ", level " +
                                std::to_string(l) + " (index = x + w (y + h z))");
        }
        destroyDeviceImage(gpu);
        CUDA_CHECK(cudaFree(v));
        if (!same) return false;
    }
    return true;
}

BenchResult timeOutputWrite3d(bool fused, const std::string& name, int size, cudaStream_t stream) {
    const std::vector<float> field = hashedVolume(size_t(size) * size * size);
    float* v = nullptr;
    CUDA_CHECK(cudaMalloc(&v, field.size() * sizeof(float)));
    copyAndWait(v, field.data(), field.size() * sizeof(float), cudaMemcpyHostToDevice, stream);
    DeviceImage image = createDeviceImage(vVolume(size, size, size));
    BenchResult r = result("mips3d", name, size);
    r.us = 1e3 * timeMs(stream, kWarmupFrames, kTimedFrames, [&] {
               r.launches = runOutputWrite3d(fused, v, size, size, size, image, stream);
           });
    destroyDeviceImage(image);
    CUDA_CHECK(cudaFree(v));
    return r;
}

// A whole frame's CUDA work: 8 steps and the output write; old is the column march + level by
// level, new is what the simulation runs now.
BenchResult timeFrame3d(bool newer, int size, const BenchDevice& device, cudaStream_t stream) {
    const StepVariant3d steps =
        *stepVariant3d(newer ? "auto" : "column", size, device.smCount, VolumeBenchOptions{});
    const GrayScottParams p = params3d();
    Volume f(size, size, size, stream);
    DeviceImage image = createDeviceImage(vVolume(size, size, size));
    BenchResult r = result("frame3d", newer ? "new" : "old", size);
    r.us = 1e3 * timeMs(stream, kWarmupFrames, kTimedFrames, [&] {
               runSteps3d(steps, f, p, kStepsPerFrame, stream);
               runOutputWrite3d(newer, f.v[f.current], size, size, size, image, stream);
           });
    destroyDeviceImage(image);
    return r;
}

} // namespace

bool isVolumeCommand(const std::string& command) {
    return command == "step3d" || command == "mips3d" || command == "frame3d" ||
           command == "tune3d";
}

bool runVolumeBench(const std::string& command, const std::string& variant,
                    const VolumeBenchOptions& options, const BenchDevice& device,
                    cudaStream_t stream, const std::function<void(const BenchResult&)>& add) {
    allowTemporal3dSharedMemory();
    std::map<std::string, bool> checked; // variant and tiling -> passed
    const auto step = [&](const std::string& name, int size, const VolumeBenchOptions& o) {
        const std::optional<StepVariant3d> v = stepVariant3d(name, size, device.smCount, o);
        if (!v) throw std::invalid_argument("unknown step3d variant " + name);
        if (!v->column && !validTiling3d(v->tiling)) return true; // tune3d's impossible ones
        const std::string key = name + "/" + std::to_string(v->tiling.stepsPerPass) + "/" +
                                std::to_string(v->tiling.blockY) + "/" +
                                std::to_string(v->tiling.slicesPerChunk);
        if (!checked.contains(key)) checked[key] = checkStep3d(*v, stream);
        if (!checked[key]) return false;
        add(timeStep3d(*v, size, device, stream));
        return true;
    };
    bool ok = true;
    if (command == "step3d") {
        for (int size : options.sizes)
            ok = ok && step(variant, size, options);
    } else if (command == "mips3d") {
        if (variant != "level-by-level" && variant != "fused")
            throw std::invalid_argument("unknown mips3d variant " + variant);
        const bool fused = variant == "fused";
        ok = checkOutputWrite3d(fused, variant, stream);
        for (int size : options.sizes)
            if (ok) add(timeOutputWrite3d(fused, variant, size, stream));
    } else if (command == "frame3d") {
        if (variant != "old" && variant != "new")
            throw std::invalid_argument("unknown frame3d variant " + variant);
        for (int size : options.sizes)
            add(timeFrame3d(variant == "new", size, device, stream));
    } else if (command == "tune3d") {
        for (int size : options.sizes)
            for (int steps = 2; steps <= kMaxStepsPerPass && ok; ++steps)
                for (int blockY : {16, 24, 32})
                    for (int slices : {32, 64, 128, 256}) {
                        VolumeBenchOptions o = options;
                        o.blockY = blockY;
                        o.slices = slices;
                        ok = ok && step("temporal" + std::to_string(steps), size, o);
                    }
    } else {
        throw std::invalid_argument("unknown command " + command);
    }
    return ok;
}

} // namespace estuary::sim
