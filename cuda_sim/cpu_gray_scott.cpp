// Built with -ffp-contract=off (cuda_sim/CMakeLists.txt): see there for why.
#include "cpu_gray_scott.h"

#include "stencil.h"

#ifdef ESTUARY_HAVE_CUDA
#include "cuda_gray_scott.h"
#endif

#include <cstring>
#include <algorithm>
#include <stdexcept>
#include <string>

namespace estuary::sim {

namespace {

size_t checkedCellCount(int width, int height) {
    if (width < 1)
        throw std::invalid_argument("CpuGrayScott: width must be >= 1, got " +
                                    std::to_string(width));
    if (height < 1)
        throw std::invalid_argument("CpuGrayScott: height must be >= 1, got " +
                                    std::to_string(height));
    return static_cast<size_t>(width) * static_cast<size_t>(height);
}

} // namespace

CpuGrayScott::CpuGrayScott(int width, int height, uint64_t seed) : width_(width), height_(height) {
    const size_t cells = checkedCellCount(width, height);
    u_.resize(cells);
    v_.resize(cells);
    uNext_.resize(cells);
    vNext_.resize(cells);
    reset(seed);
}

void CpuGrayScott::reset(uint64_t seed) {
    for (int y = 0; y < height_; ++y) {
        for (int x = 0; x < width_; ++x) {
            const size_t i = static_cast<size_t>(y) * width_ + x;
            seedCell(seed, x, y, width_, height_, u_[i], v_[i]);
        }
    }
}

void CpuGrayScott::resetAsPart(uint64_t seed, const GridSize& whole, uint32_t firstRow) {
    const int wholeHeight = int(whole.height);
    for (int y = 0; y < height_; ++y) {
        const int wholeY = int((uint64_t(firstRow) + uint64_t(y)) % whole.height);
        for (int x = 0; x < width_; ++x) {
            const size_t i = static_cast<size_t>(y) * width_ + x;
            seedCell(seed, x, wholeY, width_, wholeHeight, u_[i], v_[i]);
        }
    }
}

void CpuGrayScott::setField(const std::vector<float>& u, const std::vector<float>& v) {
    if (u.size() != u_.size() || v.size() != v_.size()) {
        throw std::invalid_argument("CpuGrayScott::setField: expected " +
                                    std::to_string(u_.size()) + " values per field, got " +
                                    std::to_string(u.size()) + " and " + std::to_string(v.size()));
    }
    u_ = u;
    v_ = v;
}

void CpuGrayScott::step(const GrayScottParams& params, int steps) {
    if (steps < 0)
        throw std::invalid_argument("CpuGrayScott::step: steps must be >= 0, got " +
                                    std::to_string(steps));
    for (int s = 0; s < steps; ++s) {
        for (int y = 0; y < height_; ++y) {
            for (int x = 0; x < width_; ++x) {
                const size_t i = static_cast<size_t>(y) * width_ + x;
                grayScottCell(u_.data(), v_.data(), width_, height_, x, y, params, uNext_[i],
                              vNext_[i]);
            }
        }
        u_.swap(uNext_);
        v_.swap(vNext_);
    }
}

void CpuGrayScott::step(const ParamValues& params, int steps) {
    step(grayScottParams(params), steps);
}

void CpuGrayScott::brush(const Brush& brush, const ParamValues&) {
    paint(brush);
}

void CpuGrayScott::writeOutputs(const HostTargets& targets) {
    const ImageOutput image = grayScottOutputs({uint32_t(width_), uint32_t(height_)}).images[0];
    if (targets.images.size() != 1 || targets.images[0].levels.size() != levelCount(image))
        throw std::invalid_argument("CpuGrayScott::writeOutputs: expected one image with " +
                                    std::to_string(levelCount(image)) + " levels");
    std::memcpy(targets.images[0].levels[0], v_.data(), v_.size() * sizeof(float));
    writeMipChain(image, targets.images[0]);
}

void CpuGrayScott::paint(const Brush& unwrapped) {
    const Brush brush = wrapBrush(unwrapped, width_, height_);
    for (int y = 0; y < height_; ++y) {
        for (int x = 0; x < width_; ++x) {
            const size_t i = static_cast<size_t>(y) * width_ + x;
            applyBrush(brush, width_, height_, x, y, u_[i], v_[i]);
        }
    }
}

GrayScottParams grayScottParams(const ParamValues& values) {
    if (values.size() != kGrayScottParamCount)
        throw std::invalid_argument("gray-scott takes " + std::to_string(kGrayScottParamCount) +
                                    " parameters, got " + std::to_string(values.size()));
    return {values[kParamF], values[kParamK], values[kParamDu], values[kParamDv], values[kParamDt]};
}

OutputLayout grayScottOutputs(const GridSize& grid) {
    OutputLayout layout;
    layout.images.push_back({"v", grid.width, grid.height, 1, TexelFormat::R32Float, 0});
    return layout;
}

SimDefinition grayScottSimulation() {
    SimDefinition def;
    def.name = "gray-scott";
    def.description = "Gray-Scott reaction-diffusion: spots, stripes and coral growing from seeds";
    // Du above 1 (or dt above 1) is unstable with the 9-point Laplacian: see gray_scott.h.
    def.params = {
        {"F", "feed rate of u", 0.055f, 0.0f, 0.1f},
        {"k", "kill rate of v", 0.062f, 0.0f, 0.1f},
        {"Du", "diffusion rate of u", 1.0f, 0.0f, 1.0f},
        {"Dv", "diffusion rate of v", 0.5f, 0.0f, 1.0f},
        {"dt", "time step", 1.0f, 0.05f, 1.0f},
    };
    // Points of the Pearson / Munafo parameter map for Du = 1, Dv = 0.5, dt = 1 and the 9-point
    // Laplacian (Karl Sims' formulation), each checked by running 6000+ steps from seedCell's
    // field.
    const auto preset = [](const char* name, const char* help, float F, float k) {
        return Preset{name, help, {{"F", F}, {"k", k}, {"Du", 1.0f}, {"Dv", 0.5f}, {"dt", 1.0f}}};
    };
    def.presets = {
        preset("coral", "branching stripes that grow into coral", 0.0545f, 0.062f),
        preset("mitosis", "spots that grow and divide until they fill the grid", 0.0367f, 0.0649f),
        preset("spots", "dense, still hexagonal spots", 0.03f, 0.062f),
        preset("maze", "labyrinth of stripes", 0.029f, 0.057f),
        preset("waves", "fronts that keep travelling and breaking up", 0.018f, 0.047f),
    };
    def.brush = {"paint v", "erase"};
    // v of the patterns stays below about 0.5: use the colormap's whole range for it.
    def.views = {{0, Shading::Colormap, 0.0f, 0.5f, "v", "field.frag", "v"}};
    def.stepsPerFrame = 8;
    def.bytesPerCellStep = kBytesPerCellStep;
    def.stateBytesPerCell = 4 * sizeof(float); // u and v, twice (ping-pong)
    def.splittable = true;
    def.cudaTolerance = 0.0f; // same stencil.h arithmetic, no FMA contraction on either side
    def.outputs = grayScottOutputs;
    def.createCpu = [](const GridSize& grid) -> std::unique_ptr<CpuSimulation> {
        return std::make_unique<CpuGrayScott>(int(grid.width), int(grid.height), 0);
    };
#ifdef ESTUARY_HAVE_CUDA
    def.createCuda = [](const GridSize& grid) -> std::unique_ptr<CudaSimulation> {
        return std::make_unique<CudaGrayScott>(int(grid.width), int(grid.height));
    };
#endif
    return def;
}

} // namespace estuary::sim
