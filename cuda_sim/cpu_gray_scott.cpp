// Built with -ffp-contract=off (cuda_sim/CMakeLists.txt): see there for why.
#include "cpu_gray_scott.h"

#include "stencil.h"

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

void CpuGrayScott::paint(const Brush& unwrapped) {
    const Brush brush = wrapBrush(unwrapped, width_, height_);
    for (int y = 0; y < height_; ++y) {
        for (int x = 0; x < width_; ++x) {
            const size_t i = static_cast<size_t>(y) * width_ + x;
            applyBrush(brush, width_, height_, x, y, u_[i], v_[i]);
        }
    }
}

void writeFieldMipChain(const float* v, int width, int height, int levelCount,
                        float* const* levelOut) {
    checkedCellCount(width, height);
    const int fullLength = fullMipChainLength(width, height);
    if (levelCount < 1 || levelCount > fullLength) {
        throw std::invalid_argument("writeFieldMipChain: levelCount must be in [1, " +
                                    std::to_string(fullLength) + "], got " +
                                    std::to_string(levelCount));
    }
    std::copy(v, v + static_cast<size_t>(width) * height, levelOut[0]);
    for (int level = 1; level < levelCount; ++level) {
        const float* src = levelOut[level - 1];
        const int srcW = mipLevelSize(width, level - 1);
        const int srcH = mipLevelSize(height, level - 1);
        const int dstW = mipLevelSize(width, level);
        const int dstH = mipLevelSize(height, level);
        const auto read = [src, srcW](int x, int y) {
            return src[static_cast<size_t>(y) * srcW + x];
        };
        for (int y = 0; y < dstH; ++y) {
            for (int x = 0; x < dstW; ++x) {
                levelOut[level][static_cast<size_t>(y) * dstW + x] =
                    downsampleTexel(read, srcW, srcH, x, y);
            }
        }
    }
}

} // namespace estuary::sim
