// CudaGrayScott: owns the state and enqueues gray_scott_kernels.cuh's launchers. Built with
// -fmad=false (cuda_sim/CMakeLists.txt): see there for why. Only nvcc compiles any of this file
// (cuda_sim/CMakeLists.txt compiles .cu files as C++ in builds without CUDA).
#ifdef __CUDACC__
#include "cuda_gray_scott.h"

#include "gray_scott_kernels.cuh"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace estuary::sim {

CudaGrayScott::CudaGrayScott(int width, int height) : width_(width), height_(height) {
    if (width < 1)
        throw std::invalid_argument("CudaGrayScott: width must be >= 1, got " +
                                    std::to_string(width));
    if (height < 1)
        throw std::invalid_argument("CudaGrayScott: height must be >= 1, got " +
                                    std::to_string(height));
    const size_t cells = static_cast<size_t>(width) * static_cast<size_t>(height);
    CUDA_CHECK(cudaMalloc(&allocation_, 4 * cells * sizeof(float)));
    u_[0] = allocation_;
    u_[1] = allocation_ + cells;
    v_[0] = allocation_ + 2 * cells;
    v_[1] = allocation_ + 3 * cells;
    int device = 0, smCount = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, device));
    tiling_ = chooseStepTiling(width, height, smCount);
}

CudaGrayScott::CudaGrayScott(int width, int height, uint64_t seed, cudaStream_t stream)
    : CudaGrayScott(width, height) {
    reset(seed, stream); // if this throws, the destructor frees: the object is already built
}

CudaGrayScott::~CudaGrayScott() {
    // cudaFree waits for the device; a failure here would already have surfaced at a checked call.
    (void)cudaFree(allocation_);
}

void CudaGrayScott::reset(uint64_t seed, cudaStream_t stream) {
    current_ = 0;
    launchSeed(u_[0], v_[0], width_, height_, seed, stream);
}

void CudaGrayScott::resetAsPart(uint64_t seed, const GridSize& whole, uint32_t firstRow,
                                cudaStream_t stream) {
    current_ = 0;
    launchSeed(u_[0], v_[0], width_, height_, seed, stream, int(firstRow), int(whole.height));
}

void CudaGrayScott::step(const ParamValues& params, int steps, cudaStream_t stream) {
    step(grayScottParams(params), steps, stream);
}

void CudaGrayScott::step(const GrayScottParams& params, int steps, cudaStream_t stream) {
    if (steps < 0)
        throw std::invalid_argument("CudaGrayScott::step: steps must be >= 0, got " +
                                    std::to_string(steps));
    current_ = launchSteps(tiling_, u_, v_, current_, width_, height_, params, steps, stream);
}

void CudaGrayScott::setTiling(const StepTiling& tiling) {
    checkStepTiling(tiling);
    tiling_ = tiling;
}

void CudaGrayScott::brush(const Brush& brush, const ParamValues&, cudaStream_t stream) {
    paint(brush, stream);
}

void CudaGrayScott::paint(const Brush& brush, cudaStream_t stream) {
    const Brush wrapped = wrapBrush(brush, width_, height_);
    launchPaint(u_[current_], v_[current_], width_, height_, wrapped, stream);
}

void CudaGrayScott::writeOutputs(const DeviceTargets& targets, cudaStream_t stream) {
    const ImageOutput image = grayScottOutputs({uint32_t(width_), uint32_t(height_)}).images[0];
    if (targets.images.size() != 1 || targets.images[0].levels.size() != levelCount(image))
        throw std::invalid_argument("CudaGrayScott::writeOutputs: expected one image with " +
                                    std::to_string(levelCount(image)) + " levels");
    const std::span<const cudaSurfaceObject_t> levels = targets.images[0].levels;
    const int firstLeft = launchLevel0AndTile(v_[current_], width_, height_, levels.data(),
                                              int(levels.size()), stream);
    writeMipChain(image, targets.images[0], stream, firstLeft);
}

void CudaGrayScott::download(std::vector<float>& u, std::vector<float>& v, cudaStream_t stream) {
    const size_t cells = static_cast<size_t>(width_) * static_cast<size_t>(height_);
    u.resize(cells);
    v.resize(cells);
    CUDA_CHECK(cudaMemcpyAsync(u.data(), u_[current_], cells * sizeof(float),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(v.data(), v_[current_], cells * sizeof(float),
                               cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
}

} // namespace estuary::sim
#endif // __CUDACC__
